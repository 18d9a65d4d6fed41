#include "study/figure_format.hpp"

#include "simgpt/core/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <filesystem>
#include <string_view>
#include <utility>

namespace simgpt {

FigureFormat figure_format(const std::string& path, const std::string& option) {
  static constexpr std::array<std::pair<std::string_view, FigureFormat>, 3> formats{{
      {".svg", FigureFormat::svg},
      {".pdf", FigureFormat::pdf},
      {".png", FigureFormat::png},
  }};
  std::string extension = std::filesystem::path(path).extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const auto& [name, format] : formats)
    if (extension == name)
      return format;
  throw InputError(option,
                   fmt::format("'{}' {}; the figure's format comes from its extension: .svg, .pdf or .png", echo(path),
                               extension.empty() ? "has no extension" : "ends in " + echo(extension)));
}

std::string reproducible_figure(std::string figure, FigureFormat format) {
  if (format != FigureFormat::pdf)
    return figure;
  // cairo's document information dictionary: "/CreationDate (D:20250101120000Z)" (PDF 1.7, 14.3.3).
  constexpr std::string_view key = "/CreationDate (";
  const size_t at = figure.find(key);
  if (at == std::string::npos)
    return figure;
  const size_t close = figure.find(')', at + key.size());
  if (close == std::string::npos || close - at > 64) // a date is about 30 bytes: not cairo's entry
    return figure;
  std::fill(figure.begin() + static_cast<std::ptrdiff_t>(at), figure.begin() + static_cast<std::ptrdiff_t>(close) + 1,
            ' ');
  return figure;
}

} // namespace simgpt
