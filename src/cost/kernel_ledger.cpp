#include "cost/kernel_ledger.hpp"

namespace simgpt {

const char* name_of(KernelSource source) {
  switch (source) {
  case KernelSource::table:
    return "table";
  case KernelSource::interpolated:
    return "interpolated";
  case KernelSource::fallback:
    break;
  }
  return "fallback";
}

void KernelLedger::add(KernelTable::Kind kind, const KernelTable::Shape* shape, double seconds, KernelSource source,
                       double calls, double width) {
  Sum& sum = sums_[static_cast<size_t>(kind)];
  (source == KernelSource::fallback ? sum.fallback_s : sum.measured_s) += seconds * calls;
  if (shape) {
    Use& use = shapes_[*shape];
    use.calls += calls;
    use.seconds = seconds;
    use.source = source;
    if (!(use.width > 0))
      use.width = width;
  }
}

void KernelLedger::merge(const KernelLedger& other) {
  for (size_t i = 0; i < sums_.size(); ++i) {
    sums_[i].measured_s += other.sums_[i].measured_s;
    sums_[i].fallback_s += other.sums_[i].fallback_s;
  }
  for (const auto& [shape, use] : other.shapes_) {
    Use& mine = shapes_[shape];
    mine.calls += use.calls;
    mine.seconds = use.seconds;
    mine.source = use.source;
    if (!(mine.width > 0))
      mine.width = use.width;
  }
}

KernelLedger::Sum KernelLedger::total() const {
  Sum total;
  for (const Sum& s : sums_) {
    total.measured_s += s.measured_s;
    total.fallback_s += s.fallback_s;
  }
  return total;
}

} // namespace simgpt
