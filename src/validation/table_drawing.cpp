#include "validation/table_drawing.hpp"

#include <fmt/format.h>

#include <cstddef>
#include <utility>

namespace simgpt {
namespace {

// fmt pads as the report's fixed-width formats always have (by code points).
std::string padded(const std::string& cell, const Column& column) {
  return column.right ? fmt::format("{:>{}}", cell, column.width) : fmt::format("{:<{}}", cell, column.width);
}

std::string text_line(const Table& table, const std::vector<std::string>& cells) {
  std::string line(static_cast<size_t>(table.indent), ' ');
  for (size_t i = 0; i < cells.size(); ++i)
    line += (i == 0 ? "" : std::string(static_cast<size_t>(table.columns[i].gap), ' ')) +
            padded(cells[i], table.columns[i]);
  return line + "\n";
}

std::string markdown_line(const std::vector<std::string>& cells) {
  std::string line = "|";
  for (const std::string& cell : cells)
    line += " " + cell + " |";
  return line + "\n";
}

std::string draw_text(const Table& table) {
  std::string out = "\n";
  if (!table.caption.empty())
    out += table.caption + "\n";
  std::vector<std::string> titles;
  for (const Column& c : table.columns)
    titles.push_back(c.title);
  out += text_line(table, titles);
  for (const auto& row : table.rows)
    out += text_line(table, row);
  return out;
}

std::string draw_markdown(const Table& table) {
  std::string out;
  if (!table.markdown_caption.empty())
    out += "\n" + table.markdown_caption + "\n\n";
  std::vector<std::string> titles, alignments;
  for (const Column& c : table.columns) {
    titles.push_back(c.markdown_title.empty() ? c.title : c.markdown_title);
    alignments.push_back(c.right ? "---:" : "---");
  }
  out += markdown_line(titles) + markdown_line(alignments);
  for (const auto& row : table.rows)
    out += markdown_line(row);
  return out;
}

} // namespace

Column left_column(std::string title, int width, int gap, std::string markdown_title) {
  return Column{std::move(title), width, false, gap, std::move(markdown_title)};
}

Column right_column(std::string title, int width, int gap, std::string markdown_title) {
  return Column{std::move(title), width, true, gap, std::move(markdown_title)};
}

std::string draw(const Table& table, DrawingStyle style) {
  return style == DrawingStyle::markdown ? draw_markdown(table) : draw_text(table);
}

std::string draw(const NamedList& list, DrawingStyle style) {
  const bool markdown = style == DrawingStyle::markdown;
  std::string out = "\n";
  out += markdown ? list.markdown_caption + "\n\n" : list.caption + "\n";
  for (const NamedList::Item& item : list.items)
    out += (markdown ? "- `" + item.name + "`" : "  " + item.name) + item.text + "\n";
  return out;
}

} // namespace simgpt
