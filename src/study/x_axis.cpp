#include "study/x_axis.hpp"

#include "study/column_label.hpp"
#include "study/metric_unit.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
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

// The values that place the axis: all but a sweep's `default` (the key as the workload has it),
// which is no number, so that a sweep of default,1ms,10ms keeps a numeric axis of delays (its
// default rows have no place on it) rather than turning every delay into a category.
std::vector<std::string> placing_values(const std::vector<std::string>& values) {
  std::vector<std::string> placing;
  std::copy_if(values.begin(), values.end(), std::back_inserter(placing),
               [](const std::string& v) { return v != "default"; });
  return placing.empty() ? values : placing;
}

} // namespace

XAxis::XAxis(const std::string& key, const std::vector<std::string>& values, bool categorical)
    : key_(key), kind_(common_kind(placing_values(values))) {
  if (categorical || !kind_) {
    categories_ = ordered_values(values);
    for (size_t i = 0; i < categories_.size(); ++i)
      category_index_.emplace(categories_[i], i);
  } else {
    const std::vector<std::string> placing = placing_values(values);
    unit_ = display_unit(placing, *kind_);
    value_ticks_ = whole_number_ticks(placing, *kind_, unit_);
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
