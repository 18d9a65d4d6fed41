// libFuzzer target: the CSV reader behind `simgpt plot` (parse_csv), then the plot's reading of a
// sweep's columns (the x axis's kind and places, the categories' order) on what it parsed.
// InputError is the documented refusal; anything else escaping, a crash, or a parsed table whose
// records are not as wide as its header is a finding.
#include "simgpt/core/error.hpp"
#include "study/csv_reader.hpp"
#include "study/input_value.hpp"
#include "study/x_axis.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  simgpt::CsvTable table;
  try {
    table = simgpt::parse_csv(text, "fuzz.csv");
  } catch (const simgpt::InputError&) {
    return 0;
  }
  if (table.records.size() != table.record_lines.size())
    std::abort();
  for (const auto& record : table.records)
    if (record.size() != table.header.size())
      std::abort();
  // Each column as an x axis: every value has a place (a category, or its value on a numeric axis),
  // but for a sweep's `default` beside numbers, which a numeric axis leaves out (it has no value).
  for (size_t c = 0; c < table.header.size(); ++c) {
    std::vector<std::string> values;
    for (const auto& record : table.records)
      values.push_back(record[c]);
    for (bool categorical : {false, true}) {
      const simgpt::XAxis axis(table.header[c], values, categorical);
      for (const std::string& v : values)
        if (!axis.position(v) && !(axis.numeric() && v == "default"))
          std::abort();
    }
  }
  return 0;
}
