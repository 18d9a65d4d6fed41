// An input value as a sweep's CSV or a validation table writes it: a bare number ("4"), a
// quantity with units ("10ms", "5Gbps", "16GiB"), or text ("default", "a.xml", "gpipe").
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace simgpt {

enum class QuantityKind { number, duration, bandwidth, size };

// What `text` is read as: number when it is a bare finite number, the kind its unit names when it
// has one, nullopt when it is neither (text, or a quantity simgpt's parsers refuse).
std::optional<QuantityKind> quantity_kind(const std::string& text);

// The one kind every value can be read as (bare numbers count as durations or sizes, whose
// parsers take them; not as bandwidths, which need a unit); nullopt when a value is text or
// the units mix. Nullopt for no values.
std::optional<QuantityKind> common_kind(const std::vector<std::string>& values);

// `text` in SI units (seconds, bytes per second, bytes) when read as `kind`, else nullopt.
std::optional<double> value_in_si(const std::string& text, QuantityKind kind);

// The unit of SI values of `kind`: "s", "B/s", "B"; "" for bare numbers.
const char* si_unit(QuantityKind kind);

// Whether two values mean the same input: the same text, the same quantity ("10ms", "0.01s"),
// or the same platform file ("platforms/a.xml", "a.xml").
bool same_value(const std::string& a, const std::string& b);

// The distinct values, in order of first appearance; by SI value when all share one kind
// (parallel degrees 1, 2, 4, 8 in that order whatever order the rows came in).
std::vector<std::string> ordered_values(const std::vector<std::string>& values);

} // namespace simgpt
