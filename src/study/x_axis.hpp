// The x axis of a plot: numeric when every value is a number or a quantity of one kind (placed
// at its value in the unit the values were written in, display_unit), else categorical (one
// place per distinct value, 0, 1, 2, ...).
#pragma once

#include "study/display_unit.hpp"
#include "study/input_value.hpp"

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace simgpt {

class XAxis {
public:
  // The axis of column `key` holding `values`. `categorical` forces categories (bar charts);
  // numeric values are then ordered by value, others by first appearance.
  XAxis(const std::string& key, const std::vector<std::string>& values, bool categorical);

  bool numeric() const { return kind_.has_value() && categories_.empty(); }
  // Where `value` sits: its value in unit() on a numeric axis, its category's place on a
  // categorical one; nullopt when it has no place (text on a numeric axis, a value no category
  // matches).
  std::optional<double> position(const std::string& value) const;
  // The unit of a numeric axis of quantities ("ms" for "1ms,10ms"); empty otherwise.
  const DisplayUnit& unit() const { return unit_; }
  // "network delay (ms)" on a numeric axis of durations written in ms; the key in words
  // otherwise (column_words), with the unit a column's name gives (network.delay_s: "s").
  std::string label() const;
  // The tick labels of a categorical axis, at 0, 1, 2, ...; empty on a numeric one.
  const std::vector<std::string>& categories() const { return categories_; }
  // Ticks at the values themselves when they are a few whole numbers in unit() (parallel
  // degrees: 1, 2, 4, 8 rather than gnuplot's 1, 2, 3, ... 8; delays of 1, 5, 10, 50 ms); empty
  // to leave ticks to gnuplot.
  const std::vector<double>& value_ticks() const { return value_ticks_; }

private:
  std::string key_;
  std::optional<QuantityKind> kind_;
  DisplayUnit unit_;
  std::vector<std::string> categories_;
  std::unordered_map<std::string, size_t> category_index_; // each category's place
  std::vector<double> value_ticks_;
};

} // namespace simgpt
