// Reads comma-separated values as RFC 4180 writes them (what `simgpt sweep` prints): a header
// line, then one record per line; a field is quoted when it holds a comma, a quote (doubled) or
// a line break. Knows nothing of the columns: what they mean is the caller's.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace simgpt {

struct CsvTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> records; // each as wide as the header
  std::vector<size_t> record_lines;              // the line each record starts on, for messages
};

// Parses `text`; `source` names it in errors. Throws InputError naming the line of an
// unterminated quote, a stray quote or a record whose field count differs from the header's.
// Line ends may be \n or \r\n; the last record's line end is optional.
CsvTable parse_csv(std::string_view text, const std::string& source);

// The CSV file at `path` (InputError if unreadable or empty, LimitError beyond 16 MiB).
CsvTable read_csv(const std::string& path);

} // namespace simgpt
