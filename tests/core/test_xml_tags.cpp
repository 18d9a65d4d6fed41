#include "core/xml_tags.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace simgpt;

namespace {

std::vector<XmlTag> tags(std::string_view text, bool* complete = nullptr) {
  std::vector<XmlTag> out;
  const bool ok = for_each_xml_tag(text, [&out](const XmlTag& t) { out.push_back(t); });
  if (complete)
    *complete = ok;
  return out;
}

} // namespace

TEST_CASE("tags come in order with their attributes, lines and kind") {
  const std::string text = "<?xml version=\"1.0\"?>\n<a x=\"1\" y = 'two > three'>\n  <b z=\"\"/>\n</a>\n";
  bool complete = false;
  const auto t = tags(text, &complete);
  CHECK(complete);
  REQUIRE(t.size() == 3);
  CHECK(t[0].name == "a");
  CHECK(t[0].attribute("x") == "1");
  CHECK(t[0].attribute("y") == "two > three");
  CHECK(t[0].attribute("w", "none") == "none");
  CHECK(t[0].line == 2);
  CHECK(t[1].name == "b");
  CHECK(t[1].self_closing);
  CHECK(t[1].attribute("z", "none").empty());
  CHECK(t[1].line == 3);
  CHECK(t[2].name == "a");
  CHECK(t[2].closing);
  CHECK(t[2].line == 4);
}

TEST_CASE("comments, CDATA and declarations hold no tags") {
  const auto t = tags("<!DOCTYPE p [ <!ENTITY e \"<x>\"> ]>\n<!-- <y> -->\n<![CDATA[ <z> ]]><w/>");
  REQUIRE(t.size() == 1);
  CHECK(t[0].name == "w");
  CHECK(t[0].line == 3);
}

TEST_CASE("the walk stops at a malformed tag") {
  bool complete = true;
  CHECK(tags("<a><b x=1></b></a>", &complete).size() == 1);
  CHECK_FALSE(complete);
  CHECK(tags("<a x=\"unterminated></a>", &complete).empty());
  CHECK_FALSE(complete);
  CHECK(tags("<!-- never closed", &complete).empty());
  CHECK_FALSE(complete);
  CHECK(tags("just text", &complete).empty());
  CHECK(complete);
}
