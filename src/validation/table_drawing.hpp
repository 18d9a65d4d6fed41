// Tables and lists drawn as aligned text (the terminal's report) or as Markdown (README's): a
// report's sections are built once, as the tables below, and drawn either way.
#pragma once

#include <string>
#include <vector>

namespace simgpt {

enum class DrawingStyle { text, markdown };

struct Column {
  std::string title;
  int width = 0;      // text: cells are padded to it, never cut
  bool right = false; // aligned right (Markdown: `---:`)
  int gap = 1;        // text: the spaces before the column (none before the first)
  std::string markdown_title; // when README names the column otherwise (empty: the title)
};

Column left_column(std::string title, int width, int gap = 1, std::string markdown_title = "");
Column right_column(std::string title, int width, int gap = 1, std::string markdown_title = "");

struct Table {
  std::string caption;          // text: a line above the table (none when empty)
  std::string markdown_caption; // Markdown: a paragraph above it (none when empty)
  int indent = 0;               // text: the spaces before each line
  std::vector<Column> columns;
  std::vector<std::vector<std::string>> rows; // a cell per column
};

// A list whose items each lead with a name (a code span in Markdown).
struct NamedList {
  std::string caption;          // text: a line above the items
  std::string markdown_caption; // Markdown: a paragraph above them
  struct Item {
    std::string name;
    std::string text; // what follows the name
  };
  std::vector<Item> items;
};

// Text: an empty line, the caption, the titles and the rows, each cell padded to its column's
// width. Markdown: the caption's paragraph, the header, its alignment row and the rows.
std::string draw(const Table& table, DrawingStyle style);

// Text: an empty line, the caption and the items indented. Markdown: the caption's paragraph and
// a bulleted item each.
std::string draw(const NamedList& list, DrawingStyle style);

} // namespace simgpt
