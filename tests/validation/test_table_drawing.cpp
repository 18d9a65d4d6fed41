#include "validation/table_drawing.hpp"

#include <catch2/catch.hpp>

using namespace simgpt;

namespace {

Table two_rows() {
  Table t;
  t.caption = "caption";
  t.markdown_caption = "Caption:";
  t.indent = 2;
  t.columns = {left_column("name", 6), right_column("n", 4, 2, "count")};
  t.rows = {{"a", "1"}, {"longer name", "12345"}};
  return t;
}

} // namespace

TEST_CASE("a table drawn as text pads each cell to its column, never cutting one") {
  CHECK(draw(two_rows(), DrawingStyle::text) == "\ncaption\n"
                                                "  name       n\n"
                                                "  a          1\n"
                                                "  longer name  12345\n");
}

TEST_CASE("a table drawn as Markdown has its Markdown titles and right-aligned columns marked") {
  CHECK(draw(two_rows(), DrawingStyle::markdown) == "\nCaption:\n\n"
                                                    "| name | count |\n"
                                                    "| --- | ---: |\n"
                                                    "| a | 1 |\n"
                                                    "| longer name | 12345 |\n");
}

TEST_CASE("a list's names are code spans in Markdown") {
  NamedList list;
  list.caption = "gaps";
  list.markdown_caption = "Gaps:";
  list.items = {{"t", ": why"}};
  CHECK(draw(list, DrawingStyle::text) == "\ngaps\n  t: why\n");
  CHECK(draw(list, DrawingStyle::markdown) == "\nGaps:\n\n- `t`: why\n");
}
