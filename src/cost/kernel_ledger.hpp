// Where a step's kernel time came from: a GPU's kernel table (measured, or interpolated between
// measured shapes) or the cost model's own pricing, per kind of kernel, and the shapes a table
// could time, with how often the step runs each: what `simgpt kernels` lists for a user to measure.
#pragma once

#include "system/kernel_table.hpp"

#include <array>
#include <map>

namespace simgpt {

// How a kernel's time was found.
enum class KernelSource { table, interpolated, fallback };
const char* name_of(KernelSource source);

class KernelLedger {
public:
  struct Use {
    double calls = 0;     // runs in the step
    double seconds = 0;   // each
    KernelSource source = KernelSource::fallback;
    double width = 0;     // a norm's row width where known (the first kernel's of that shape)
  };
  struct Sum {
    double measured_s = 0; // from a table, a row's time or interpolated between rows
    double fallback_s = 0;
  };

  // `calls` runs of a kernel of `kind` taking `seconds` each; `shape` where a table could time it.
  // `width`: a norm's row width, which its shape leaves out but a measurement of it needs.
  void add(KernelTable::Kind kind, const KernelTable::Shape* shape, double seconds, KernelSource source, double calls,
           double width = 0);
  void merge(const KernelLedger& other);

  const Sum& sum(KernelTable::Kind kind) const { return sums_[static_cast<size_t>(kind)]; }
  Sum total() const;
  const std::map<KernelTable::Shape, Use>& shapes() const { return shapes_; }

private:
  std::array<Sum, KernelTable::kKinds> sums_{};
  std::map<KernelTable::Shape, Use> shapes_;
};

} // namespace simgpt
