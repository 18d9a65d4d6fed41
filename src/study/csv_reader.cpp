#include "study/csv_reader.hpp"

#include "core/input_file.hpp"
#include "simgpt/core/error.hpp"

#include <fmt/format.h>

namespace simgpt {
namespace {

// Walks the text one record at a time, keeping the line number for messages.
class CsvCursor {
public:
  CsvCursor(std::string_view text, const std::string& source, size_t first_line = 1)
      : text_(text), source_(source), line_(first_line) {}

  bool at_end() const { return pos_ >= text_.size(); }
  size_t line() const { return line_; }

  // The fields of the record starting here; leaves the cursor at the next record.
  std::vector<std::string> record() {
    std::vector<std::string> fields;
    for (;;) {
      fields.push_back(peek() == '"' ? quoted_field() : plain_field());
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      end_of_line();
      return fields;
    }
  }

private:
  char peek() const { return at_end() ? '\n' : text_[pos_]; }

  std::string plain_field() {
    const size_t start = pos_;
    while (!at_end() && text_[pos_] != ',' && text_[pos_] != '\n' && text_[pos_] != '\r') {
      if (text_[pos_] == '"')
        fail("a quote inside an unquoted field (quote the whole field and double the quote)");
      ++pos_;
    }
    return std::string(text_.substr(start, pos_ - start));
  }

  std::string quoted_field() {
    const size_t opened_on = line_;
    std::string field;
    for (++pos_;; ++pos_) {
      if (at_end())
        throw InputError(fmt::format("{}:{}", source_, opened_on), "a quoted field is never closed");
      const char c = text_[pos_];
      if (c == '"' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '"') {
        field += '"';
        ++pos_;
      } else if (c == '"') {
        ++pos_;
        if (peek() != ',' && peek() != '\n' && peek() != '\r')
          fail("text after a closing quote (a quote inside a quoted field is doubled)");
        return field;
      } else {
        line_ += c == '\n' ? 1 : 0;
        field += c;
      }
    }
  }

  void end_of_line() {
    if (peek() == '\r')
      ++pos_;
    if (!at_end() && text_[pos_] != '\n')
      fail("a carriage return not followed by a line feed");
    ++pos_;
    ++line_;
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(fmt::format("{}:{}", source_, line_), what);
  }

  std::string_view text_;
  const std::string& source_;
  size_t pos_ = 0;
  size_t line_ = 1;
};

} // namespace

CsvTable parse_csv(std::string_view text, const std::string& source) {
  // Comment lines before the header (a sweep's: what it was made with) are not data.
  size_t first_line = 1;
  while (text.starts_with('#')) {
    const size_t end = text.find('\n');
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    ++first_line;
  }
  CsvCursor cursor(text, source, first_line);
  if (cursor.at_end())
    throw InputError(source, "is empty; expected a header line of column names");
  CsvTable table;
  table.header = cursor.record();
  while (!cursor.at_end()) {
    const size_t line = cursor.line();
    std::vector<std::string> fields = cursor.record();
    if (fields.size() != table.header.size())
      throw InputError(fmt::format("{}:{}", source, line),
                       fmt::format("{} fields; the header has {}", fields.size(), table.header.size()));
    table.records.push_back(std::move(fields));
    table.record_lines.push_back(line);
  }
  return table;
}

CsvTable read_csv(const std::string& path) { return parse_csv(read_input_file(path, "CSV"), path); }

} // namespace simgpt
