// The start and end tags of an XML text, in order, with their attributes: enough to read the
// structure of a SimGrid platform file before SimGrid loads it, without a second XML library.
#pragma once

#include <cstddef>
#include <functional>
#include <string_view>
#include <utility>
#include <vector>

namespace simgpt {

struct XmlTag {
  std::string_view name;
  bool closing = false;      // </name>
  bool self_closing = false; // <name ... />
  std::vector<std::pair<std::string_view, std::string_view>> attributes; // values as written
  size_t line = 0;                                                        // 1-based

  // The attribute's value as written, or `fallback` when the tag has none of that name.
  std::string_view attribute(std::string_view key, std::string_view fallback = {}) const;
};

// Calls `visit` for each tag of `text`. Comments, processing instructions, the DOCTYPE (with an
// internal subset) and CDATA are skipped, and so is the text between tags. Returns false when it
// stops at a malformed tag: the caller's own parser reports that one.
bool for_each_xml_tag(std::string_view text, const std::function<void(const XmlTag&)>& visit);

} // namespace simgpt
