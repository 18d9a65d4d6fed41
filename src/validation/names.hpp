// The names validation's enums are written and read by: one table per enum, used both to print
// a value (reports, messages) and to parse one (tables, thresholds), so the two cannot drift.
#pragma once

#include "simgpt/validation/validation.hpp"

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace simgpt {

template <typename Enum>
struct NamedValue {
  Enum value;
  const char* name;
};

inline constexpr NamedValue<TableKind> kTableKindNames[] = {
    {TableKind::workload, "workload"},
    {TableKind::transfer, "transfer"},
};

inline constexpr NamedValue<PeakMemory> kPeakMemoryNames[] = {
    {PeakMemory::device, "device"},
    {PeakMemory::allocated, "allocated"},
    {PeakMemory::reserved, "reserved"},
};

inline constexpr NamedValue<CaseStatus> kCaseStatusNames[] = {
    {CaseStatus::compared, "compared"},
    {CaseStatus::not_simulated, "not_simulated"},
    {CaseStatus::skipped, "skipped"},
};

// The step time, transfer time and peak memory are named as a table's rows measure them.
inline constexpr NamedValue<CaseMetric> kCaseMetricNames[] = {
    {CaseMetric::step_time, "step_time_s"},
    {CaseMetric::transfer, "transfer_s"},
    {CaseMetric::peak_memory, "peak_mem_gb"},
    {CaseMetric::oom, "oom"},
    {CaseMetric::estimator_step_time, "estimator_step_time"},
    {CaseMetric::allreduce_count, "count:allreduce"},
    {CaseMetric::allgather_count, "count:allgather"},
    {CaseMetric::reducescatter_count, "count:reducescatter"},
    {CaseMetric::estimate_step_time, "estimate_step_time"},
};

// The summary of a table's estimate_step_time cases is named the table's id with this suffix.
inline constexpr const char* kEstimateSuffix = ":estimate";

// No status: the table is gated as any other.
inline constexpr NamedValue<ThresholdStatus> kThresholdStatusNames[] = {
    {ThresholdStatus::gated, ""},
    {ThresholdStatus::known_gap, "known-gap"},
};

template <typename Enum, std::size_t N>
const char* name_in(const NamedValue<Enum> (&names)[N], Enum value) {
  for (const NamedValue<Enum>& n : names)
    if (n.value == value)
      return n.name;
  throw std::logic_error("a value missing from its name table");
}

template <typename Enum, std::size_t N>
std::optional<Enum> value_named(const NamedValue<Enum> (&names)[N], std::string_view name) {
  for (const NamedValue<Enum>& n : names)
    if (name == n.name)
      return n.value;
  return std::nullopt;
}

// The names as a message offers them: "a or b", "a, b or c".
template <typename Enum, std::size_t N>
std::string names_or(const NamedValue<Enum> (&names)[N]) {
  std::string text;
  for (std::size_t i = 0; i < N; ++i)
    text += std::string(i == 0 ? "" : i + 1 == N ? " or " : ", ") + names[i].name;
  return text;
}

inline const char* to_string(CaseStatus status) { return name_in(kCaseStatusNames, status); }
inline const char* to_string(CaseMetric metric) { return name_in(kCaseMetricNames, metric); }

} // namespace simgpt
