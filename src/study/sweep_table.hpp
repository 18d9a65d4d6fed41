// The results of `simgpt sweep` read back from its CSV: `config`, the input columns (the keys the
// sweep varied, in the order given, a quantity's followed by its SI column, network.delay_s),
// `status`, then the metrics and `reason`. Only the place of `config` and `status` is relied on,
// so metrics added later are read as any other column; a CSV of a simgpt before SI columns reads
// as one whose keys have none.
#pragma once

#include "study/csv_reader.hpp"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace simgpt {

struct SweepTable {
  std::string source; // the CSV's path, for messages
  CsvTable table;
  std::vector<std::string> inputs; // the keys between config and status (not their SI columns)
  std::map<std::string, std::string> si_columns; // an SI column -> the key it is the value of

  // The input `name` stands for: the key of an SI column, else `name` itself.
  const std::string& input_of(const std::string& name) const;

  // The index of column `name`; InputError naming `option` and listing the columns otherwise.
  size_t column(const std::string& name, const std::string& option) const;
  // Column `name` of every record.
  std::vector<std::string> values(size_t column) const;
};

// Reads the CSV at `path`; InputError when it is unreadable, malformed, not a sweep's (no
// `config` first, no `status` after it) or has no records.
SweepTable read_sweep_table(const std::string& path);

// Keeps the records that pass every `KEY=VALUE` filter: the record's KEY is VALUE (the same text
// or quantity). Filters on one key are alternatives (dp=1 or dp=4), on different keys all must
// hold. InputError for a filter without '=' or naming no column, or when no record is left.
void keep_records_where(SweepTable& sweep, const std::vector<std::string>& filters);

// The input columns whose values differ between records, with their distinct values.
std::vector<std::pair<std::string, std::vector<std::string>>> varying_inputs(const SweepTable& sweep);

// Whether the records' values in `columns` fix their value in `column`: no two records agree on
// the first and differ in the second.
bool determined_by(const SweepTable& sweep, size_t column, const std::vector<size_t>& columns);

} // namespace simgpt
