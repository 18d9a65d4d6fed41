#include "study/si_column.hpp"

#include "simgpt/study/sweep_grid.hpp"
#include "study/display_unit.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace simgpt {
namespace {

const char* unit_suffix(QuantityKind kind) {
  switch (kind) {
  case QuantityKind::duration:
    return "_s";
  case QuantityKind::bandwidth:
    return "_Bps";
  case QuantityKind::size:
    return "_B";
  case QuantityKind::number:
    break;
  }
  return "";
}

} // namespace

std::optional<QuantityKind> swept_quantity(const std::vector<std::string>& values) {
  std::vector<std::string> quantities;
  std::copy_if(values.begin(), values.end(), std::back_inserter(quantities),
               [](const std::string& v) { return v != kDefaultValue; });
  const std::optional<QuantityKind> kind = common_kind(quantities);
  if (!kind || *kind == QuantityKind::number)
    return std::nullopt;
  return kind;
}

std::string si_column_name(const std::string& key, QuantityKind kind) { return key + unit_suffix(kind); }

std::optional<QuantityKind> si_column_kind(const std::string& key, const std::string& column) {
  for (const QuantityKind kind : {QuantityKind::duration, QuantityKind::bandwidth, QuantityKind::size})
    if (column == si_column_name(key, kind))
      return kind;
  return std::nullopt;
}

std::optional<std::string> si_field(const std::string& value, QuantityKind kind) {
  const std::optional<double> si = value_in_si(value, kind);
  if (!si)
    return std::nullopt;
  return fmt::format("{}", round_to_dbl_dig(*si));
}

} // namespace simgpt
