// The numeric column a sweep writes beside each key it sweeps as a quantity with units: beside
// network.delay (10ms, 50ms) network.delay_s (0.01, 0.05), beside network.bandwidth (1Gbps)
// network.bandwidth_Bps (125000000), so that a CSV reader (pandas) plots them without parsing
// units. The column's name says its unit: _s (seconds), _Bps (bytes per second), _B (bytes).
#pragma once

#include "study/input_value.hpp"

#include <optional>
#include <string>
#include <vector>

namespace simgpt {

// The kind of a key swept over `values` when it gets an SI column: every value but `default` is a
// duration, bandwidth or size of one kind, and at least one is written with its unit (a key of
// bare numbers, text or mixed kinds gets none, nor does one swept over `default` only).
std::optional<QuantityKind> swept_quantity(const std::vector<std::string>& values);

// The SI column's name: the key and the unit, "network.delay_s".
std::string si_column_name(const std::string& key, QuantityKind kind);

// The kind `column` is the SI column of `key` for (key_s, key_Bps, key_B); nullopt otherwise.
std::optional<QuantityKind> si_column_kind(const std::string& key, const std::string& column);

// A value's SI field: the value in SI units to 15 significant digits (DBL_DIG: "10us" is 1e-05,
// not 9.999999999999999e-06) in fmt's shortest form; nullopt for `default` (or a value not of
// `kind`), whose quantity is the workload's or platform's.
std::optional<std::string> si_field(const std::string& value, QuantityKind kind);

} // namespace simgpt
