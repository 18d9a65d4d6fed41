#include "study/key_placement.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

namespace simgpt {
namespace {

// A character's width and a key entry's height as shares of the plot area's width and height,
// measured on the figures drawn: the 900 x 540 SVG (and the PNG, its double) has a plot area of
// about 790 x 420 pixels, characters 6.8 pixels wide and entries 15 high; the 6 x 3.6 inch PDF's
// 9-point text takes about twice the share across and 1.6 times down.
struct TextShare {
  double char_width, entry_height;
};
constexpr TextShare kScreenText{6.8 / 790, 15.0 / 420};
constexpr TextShare kPdfText{0.018, 0.057};
// A key entry's sample line and the gaps around it, in characters; the box's padding in entries.
constexpr double kSampleChars = 8, kBoxPaddingEntries = 0.8;
// Samples taken along each line between points and up each bar.
constexpr int kSamplesPerSegment = 12;

using Point = std::pair<double, double>;

// Characters, not bytes: a title's UTF-8 continuation bytes take no width.
size_t characters(const std::string& text) {
  return static_cast<size_t>(
      std::count_if(text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

// The drawn data as points in the chart's coordinates.
std::vector<Point> samples(const Chart& chart) {
  std::vector<Point> out;
  const double bar_width = kBarGroupWidth / chart.bar_slots;
  for (const ChartLine& line : chart.lines) {
    const double shift = x_shift(chart, line.slot);
    for (size_t i = 0; i < line.points.size(); ++i) {
      const auto [x, y] = line.points[i];
      out.emplace_back(x + shift, y);
      if (chart.kind == ChartKind::bar && !line.measured) {
        for (int s = 0; s <= kSamplesPerSegment; ++s)
          for (const double dx : {-bar_width / 2, 0.0, bar_width / 2})
            out.emplace_back(x + shift + dx, y * s / kSamplesPerSegment);
      } else if (!line.measured && i + 1 < line.points.size()) {
        const auto [x2, y2] = line.points[i + 1];
        for (int s = 1; s < kSamplesPerSegment; ++s) {
          const double t = static_cast<double>(s) / kSamplesPerSegment;
          // Along the drawn segment: straight in log x on a log axis.
          const double xt = chart.log_x && x > 0 && x2 > 0 ? std::exp(std::log(x) + t * (std::log(x2) - std::log(x)))
                                                           : x + t * (x2 - x);
          out.emplace_back(xt + shift, y + t * (y2 - y));
        }
      }
    }
  }
  return out;
}

struct Range {
  double low = std::numeric_limits<double>::infinity(), high = -std::numeric_limits<double>::infinity();
  void add(double v) { low = std::min(low, v), high = std::max(high, v); }
  // `v`'s place between low (0) and high (1); 0.5 for a range of one value.
  double fraction(double v) const { return high > low ? (v - low) / (high - low) : 0.5; }
};

} // namespace

KeyPlacement place_key(const Chart& chart) {
  const std::vector<Point> data = samples(chart);
  size_t entries = 0, longest = 0;
  for (const ChartLine& line : chart.lines)
    if (!line.points.empty()) {
      ++entries;
      longest = std::max(longest, characters(line.title));
    }
  const TextShare text = chart.format == FigureFormat::pdf ? kPdfText : kScreenText;
  const double key_width = std::min(1.0, (static_cast<double>(longest) + kSampleChars) * text.char_width);
  const double key_height = std::min(0.9, (static_cast<double>(entries) + kBoxPaddingEntries) * text.entry_height);

  const auto x_of = [&](double x) { return chart.log_x && x > 0 ? std::log(x) : x; };
  Range xs, ys;
  if (!chart.x_categories.empty()) // the axis spans the categories: -0.5 to n - 0.5
    xs.add(-0.5), xs.add(static_cast<double>(chart.x_categories.size()) - 0.5);
  if (chart.kind == ChartKind::bar)
    ys.add(0);
  for (const auto& [x, y] : data)
    xs.add(x_of(x)), ys.add(y);

  struct Corner {
    const char* name;
    bool top, right;
  };
  static constexpr std::array<Corner, 4> corners{{{"top right", true, true},
                                                  {"top left", true, false},
                                                  {"bottom right", false, true},
                                                  {"bottom left", false, false}}};
  const auto covered = [&](const Corner& c) {
    return std::count_if(data.begin(), data.end(), [&](const Point& p) {
      const double fx = xs.fraction(x_of(p.first)), fy = ys.fraction(p.second);
      return (c.right ? fx >= 1 - key_width : fx <= key_width) && (c.top ? fy >= 1 - key_height : fy <= key_height);
    });
  };
  std::array<long, 4> counts{};
  for (size_t i = 0; i < corners.size(); ++i)
    counts[i] = covered(corners[i]);
  const size_t best = static_cast<size_t>(std::min_element(counts.begin(), counts.end()) - counts.begin());
  if (counts[best] == 0)
    return {corners[best].name, 0};
  // No corner is free: the emptier top corner, over room added above the data.
  const size_t top = counts[1] < counts[0] ? 1 : 0;
  return {corners[top].name, key_height / (1 - key_height)};
}

} // namespace simgpt
