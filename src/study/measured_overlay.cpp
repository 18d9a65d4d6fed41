#include "study/measured_overlay.hpp"

#include "study/column_label.hpp"
#include "study/input_value.hpp"
#include "study/measured_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace simgpt {
namespace {

// Key -> the values a measured row may have to be the chart's configuration.
using Constraints = std::map<std::string, std::vector<std::string>>;

Constraints chart_configuration(const PredictedChart& p) {
  Constraints constraints;
  const auto& inputs = p.sweep.inputs;
  for (const std::string& filter : p.spec.where) {
    const size_t eq = filter.find('=');
    const std::string key = filter.substr(0, eq);
    if (std::find(inputs.begin(), inputs.end(), key) != inputs.end()) // not status=ok, say
      constraints[key].push_back(filter.substr(eq + 1));
  }
  for (const std::string& input : inputs) {
    const std::vector<std::string> values = p.sweep.values(p.sweep.column(input, ""));
    const std::string& value = values.front();
    const bool constant = std::all_of(values.begin(), values.end(), [&](const std::string& v) { return v == value; });
    if (input != p.spec.x && input != p.spec.series && constant && value != "default" && !constraints.contains(input))
      constraints[input] = {value};
  }
  return constraints;
}

// Why a row is left out, in the order first met, with how many rows.
class LeftOut {
public:
  void add(const std::string& reason) {
    auto found = std::find_if(reasons_.begin(), reasons_.end(), [&](const auto& r) { return r.first == reason; });
    if (found == reasons_.end())
      reasons_.emplace_back(reason, 1);
    else
      ++found->second;
  }
  std::optional<std::string> note(const std::string& table, size_t rows) const {
    if (reasons_.empty())
      return std::nullopt;
    std::vector<std::string> parts;
    size_t left = 0;
    for (const auto& [reason, count] : reasons_) {
      parts.push_back(fmt::format("{} {}", count, reason));
      left += static_cast<size_t>(count);
    }
    return fmt::format("measured ({}): plotted {} of {} rows; left out {}", table, rows - left, rows,
                       fmt::join(parts, ", "));
  }

private:
  std::vector<std::pair<std::string, int>> reasons_;
};

// The reason `row` is not the chart's configuration, or nullopt when it is.
std::optional<std::string> outside(const MeasuredRow& row, const Constraints& constraints) {
  for (const auto& [key, allowed] : constraints) {
    const std::string& value = row.inputs.at(key);
    if (std::none_of(allowed.begin(), allowed.end(), [&](const std::string& a) { return same_value(value, a); }))
      return fmt::format("whose {} is not {}", key, fmt::join(allowed, " or "));
  }
  return std::nullopt;
}

// The slot of a measured row's series value: the predicted line's, or on a numeric line chart a
// new one for a value only the table has; nullopt when it has no place.
std::optional<int> series_slot(const std::string& value, std::vector<std::string>& slots, bool can_add) {
  const auto same = [&](const std::string& slot) { return same_value(slot, value); };
  const auto found = std::find_if(slots.begin(), slots.end(), same);
  if (found != slots.end())
    return static_cast<int>(found - slots.begin());
  if (!can_add)
    return std::nullopt;
  slots.push_back(value);
  return static_cast<int>(slots.size() - 1);
}

std::vector<std::string> measured_keys(const PredictedChart& p, const Constraints& constraints) {
  std::vector<std::string> keys{p.spec.x};
  if (!p.spec.series.empty())
    keys.push_back(p.spec.series);
  for (const auto& [key, allowed] : constraints)
    keys.push_back(key);
  keys.insert(keys.end(), p.along_x.begin(), p.along_x.end());
  return keys;
}

// The reason `row` is not the configuration the CSV has at its x (and series): an input that
// varies along with x has another value there. Nullopt when it agrees or the CSV has no row there.
std::optional<std::string> differs_along_x(const MeasuredRow& row, const PredictedChart& p) {
  const SweepTable& sweep = p.sweep;
  const size_t x = sweep.column(p.spec.x, "--x");
  const auto same_place = [&](const std::vector<std::string>& record) {
    return same_value(record[x], row.inputs.at(p.spec.x)) &&
           (p.spec.series.empty() ||
            same_value(record[sweep.column(p.spec.series, "--series")], row.inputs.at(p.spec.series)));
  };
  for (const auto& record : sweep.table.records)
    if (same_place(record))
      for (const std::string& input : p.along_x)
        if (!same_value(record[sweep.column(input, "")], row.inputs.at(input)))
          return fmt::format("whose {} differs from the CSV's at their {}", input, p.spec.x);
  return std::nullopt;
}

// Why `row` has no point on the chart, or nullopt when it has one at `x`.
std::optional<std::string> left_out_because(const MeasuredRow& row, const std::optional<double>& x,
                                            const PredictedChart& p, const Constraints& constraints) {
  if (!row.value)
    return "without " + p.spec.y;
  if (std::optional<std::string> reason = outside(row, constraints))
    return reason;
  if (std::optional<std::string> reason = differs_along_x(row, p))
    return reason;
  if (!x || (p.spec.log_x && *x <= 0))
    return fmt::format("whose {} has no place on the x axis", p.spec.x);
  return std::nullopt;
}

} // namespace

std::optional<std::string> add_measured(Chart& chart, const PredictedChart& p, const DataPaths& data) {
  const PlotSpec& spec = p.spec;
  const Constraints constraints = chart_configuration(p);
  const MeasuredTable table = load_measured(spec.measured, spec.y, measured_keys(p, constraints), data);
  std::vector<std::string> slots = spec.series.empty() ? std::vector<std::string>{""} : p.series_values;
  const bool can_add = p.axis.numeric() && spec.kind == ChartKind::line;
  std::map<int, ChartLine> lines; // by slot, so the legend follows the series' order
  LeftOut left_out;
  for (const MeasuredRow& row : table.rows) {
    const std::optional<double> x = p.axis.position(row.inputs.at(spec.x));
    if (const std::optional<std::string> reason = left_out_because(row, x, p, constraints)) {
      left_out.add(*reason);
      continue;
    }
    const std::optional<int> slot =
        spec.series.empty() ? std::optional<int>(0) : series_slot(row.inputs.at(spec.series), slots, can_add);
    if (!slot) {
      left_out.add(fmt::format("whose {} is not one of the CSV's", spec.series));
      continue;
    }
    ChartLine& line = lines[*slot];
    line.title = spec.series.empty() ? fmt::format("measured ({})", table.id)
                                     : "measured " + value_words(spec.series, slots[*slot]);
    line.slot = *slot;
    line.measured = true;
    line.points.emplace_back(*x, *row.value);
  }
  for (auto& [slot, line] : lines) {
    std::stable_sort(line.points.begin(), line.points.end());
    chart.lines.push_back(std::move(line));
  }
  return left_out.note(table.id, table.rows.size());
}

} // namespace simgpt
