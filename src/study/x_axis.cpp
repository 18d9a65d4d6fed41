#include "study/x_axis.hpp"

#include "study/metric_unit.hpp"

#include <algorithm>
#include <cmath>
#include <set>

namespace simgpt {
namespace {

// Beyond this many, ticks at every value would crowd the axis.
constexpr size_t kMaxValueTicks = 12;

std::vector<double> whole_number_ticks(const std::vector<std::string>& values) {
  std::set<double> ticks;
  for (const std::string& v : values) {
    const double x = *si_value(v, QuantityKind::number);
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
  }
  else if (kind_ == QuantityKind::number)
    value_ticks_ = whole_number_ticks(values);
}

std::optional<double> XAxis::position(const std::string& value) const {
  if (numeric())
    return si_value(value, *kind_);
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

std::string XAxis::label() const { return numeric() ? with_unit(key_, si_unit(*kind_)) : key_; }

} // namespace simgpt
