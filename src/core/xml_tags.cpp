#include "core/xml_tags.hpp"

#include <algorithm>

namespace simgpt {

std::string_view XmlTag::attribute(std::string_view key, std::string_view fallback) const {
  for (const auto& [k, v] : attributes)
    if (k == key)
      return v;
  return fallback;
}

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == ':' ||
         c == '-' || c == '.' || static_cast<unsigned char>(c) >= 0x80;
}

// Reads tags from a position, counting lines as it goes.
class TagReader {
public:
  explicit TagReader(std::string_view text) : text_(text) {}

  bool run(const std::function<void(const XmlTag&)>& visit) {
    while ((pos_ = text_.find('<', pos_)) != std::string_view::npos) {
      const std::string_view rest = text_.substr(pos_);
      if (rest.starts_with("<!--")) {
        if (!skip_past(pos_ + 4, "-->"))
          return false;
      } else if (rest.starts_with("<![CDATA[")) {
        if (!skip_past(pos_ + 9, "]]>"))
          return false;
      } else if (rest.starts_with("<?")) {
        if (!skip_past(pos_ + 2, "?>"))
          return false;
      } else if (rest.starts_with("<!")) {
        if (!skip_declaration())
          return false;
      } else {
        XmlTag tag;
        if (!read_tag(tag))
          return false;
        visit(tag);
      }
    }
    return true;
  }

private:
  // Moves past the first `end` at or after `from`; false when there is none.
  bool skip_past(size_t from, std::string_view end) {
    const size_t at = text_.find(end, from);
    if (at == std::string_view::npos)
      return false;
    pos_ = at + end.size();
    return true;
  }

  // <!DOCTYPE platform SYSTEM "..."> or <!DOCTYPE platform [ <!ENTITY ...> ]>.
  bool skip_declaration() {
    const size_t stop = text_.find_first_of("[>", pos_);
    if (stop == std::string_view::npos)
      return false;
    if (text_[stop] == '[')
      return skip_past(stop, "]") && skip_past(pos_, ">");
    pos_ = stop + 1;
    return true;
  }

  size_t line_at(size_t at) {
    line_ += static_cast<size_t>(std::count(text_.begin() + static_cast<std::ptrdiff_t>(counted_),
                                            text_.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
    counted_ = at;
    return line_;
  }

  std::string_view read_name(size_t& i) const {
    const size_t start = i;
    while (i < text_.size() && is_name_char(text_[i]))
      ++i;
    return text_.substr(start, i - start);
  }

  void skip_spaces(size_t& i) const {
    while (i < text_.size() && is_space(text_[i]))
      ++i;
  }

  bool read_tag(XmlTag& tag) {
    tag.line = line_at(pos_);
    size_t i = pos_ + 1;
    if (i < text_.size() && text_[i] == '/') {
      tag.closing = true;
      ++i;
    }
    tag.name = read_name(i);
    if (tag.name.empty())
      return false;
    for (;;) {
      skip_spaces(i);
      if (i >= text_.size())
        return false;
      if (text_[i] == '>') {
        pos_ = i + 1;
        return true;
      }
      if (text_.substr(i).starts_with("/>") && !tag.closing) {
        tag.self_closing = true;
        pos_ = i + 2;
        return true;
      }
      if (tag.closing)
        return false;
      const std::string_view key = read_name(i);
      skip_spaces(i);
      if (key.empty() || i >= text_.size() || text_[i] != '=')
        return false;
      ++i;
      skip_spaces(i);
      if (i >= text_.size() || (text_[i] != '"' && text_[i] != '\''))
        return false;
      const size_t end = text_.find(text_[i], i + 1);
      if (end == std::string_view::npos)
        return false;
      tag.attributes.emplace_back(key, text_.substr(i + 1, end - i - 1));
      i = end + 1;
    }
  }

  std::string_view text_;
  size_t pos_ = 0;
  size_t line_ = 1;
  size_t counted_ = 0;
};

} // namespace

bool for_each_xml_tag(std::string_view text, const std::function<void(const XmlTag&)>& visit) {
  return TagReader(text).run(visit);
}

} // namespace simgpt
