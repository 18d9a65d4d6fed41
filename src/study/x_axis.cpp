#include "study/x_axis.hpp"

#include "study/column_label.hpp"
#include "study/metric_unit.hpp"

#include <algorithm>
#include <cmath>
#include <set>

namespace simgpt {
namespace {

// Beyond this many, ticks at every value would crowd the axis.
constexpr size_t kMaxValueTicks = 12;

std::vector<double> whole_number_ticks(const std::vector<std::string>& values, QuantityKind kind,
                                       const DisplayUnit& unit) {
  std::set<double> ticks;
  for (const std::string& v : values) {
    const double x = *in_unit(v, kind, unit);
    if (x != std::floor(x))
      return {};
    ticks.insert(x);
  }
  if (ticks.size() > kMaxValueTicks)
    return {};
  return {ticks.begin(), ticks.end()};
}

} // namespace

XAxis::XAxis(const std::string& key, const std::vector<std::string>& values, bool categorical)
    : key_(key), kind_(common_kind(values)) {
  if (categorical || !kind_) {
    categories_ = ordered_values(values);
    for (size_t i = 0; i < categories_.size(); ++i)
      category_index_.emplace(categories_[i], i);
  } else {
    unit_ = display_unit(values, *kind_);
    value_ticks_ = whole_number_ticks(values, *kind_, unit_);
  }
}

std::optional<double> XAxis::position(const std::string& value) const {
  if (numeric())
    return in_unit(value, *kind_, unit_);
  // The CSV's own values are found as written, in constant time (10,000 categories are drawn
  // in linear time); another spelling of one (a measured table's "1ms" for "1.0ms") is matched
  // by value.
  if (const auto exact = category_index_.find(value); exact != category_index_.end())
    return static_cast<double>(exact->second);
  const auto same = [&](const std::string& category) { return same_value(category, value); };
  const auto found = std::find_if(categories_.begin(), categories_.end(), same);
  if (found == categories_.end())
    return std::nullopt;
  return static_cast<double>(found - categories_.begin());
}

std::string XAxis::label() const {
  return with_unit(column_words(key_), unit_.name.empty() ? metric_unit(key_) : unit_.name);
}

} // namespace simgpt
