// A section of a YAML data file read through a table: each key the section may hold and how it is
// read into a struct. The table is the one place that says what a section accepts; read_section
// refuses the keys it does not name and reads the others in the table's order.
#pragma once

#include "core/yaml_read.hpp"
#include "simgpt/core/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace simgpt {

// One key and how it is read into a T; called only when the section holds the key, so a key left
// out keeps the struct's default.
template <typename T>
struct YamlField {
  const char* key;
  std::function<void(const YamlReader& section, const char* key, T& into)> read;
};

template <typename T>
struct YamlSection {
  // In the order they are read: when two keys are wrong the first one's error is reported, and a
  // key may default to what a key before it read.
  std::vector<YamlField<T>> fields;
  // The keys as "unknown key (valid keys: ...)" lists them, where that order is not the fields'
  // (empty: the fields' order). The same keys as `fields`.
  std::vector<std::string> listed = {};
  // Checks that span keys, once every field is read.
  std::function<void(const YamlReader& section, T& into)> check = {};

  std::vector<std::string> valid_keys() const {
    std::vector<std::string> keys;
    for (const YamlField<T>& field : fields)
      keys.emplace_back(field.key);
    if (listed.empty())
      return keys;
    std::vector<std::string> sorted_listed = listed, sorted_keys = keys;
    std::sort(sorted_listed.begin(), sorted_listed.end());
    std::sort(sorted_keys.begin(), sorted_keys.end());
    if (sorted_listed != sorted_keys) // a table out of step with itself: simgpt's bug
      throw std::logic_error(std::string("YAML section lists other keys than it reads (first field ") +
                             fields.front().key + ")");
    return listed;
  }
};

// Refuses keys `table` does not name (listing its valid keys), then reads each one `section`
// holds into `into`, then runs the table's check.
template <typename T>
void read_section(const YamlReader& section, const YamlSection<T>& table, T& into) {
  section.only(table.valid_keys());
  for (const YamlField<T>& field : table.fields)
    if (section.has(field.key))
      field.read(section, field.key, into);
  if (table.check)
    table.check(section, into);
}

// Fields of the common kinds, each into a member of T.

template <typename T>
YamlField<T> flag_field(const char* key, bool T::*member) {
  return {key, [member](const YamlReader& s, const char* k, T& into) { into.*member = s.boolean_or(k, into.*member); }};
}

// One of two named values, the second setting the flag (compute.attention_kernel: tiled or flash2).
template <typename T>
YamlField<T> either_field(const char* key, bool T::*member, const char* off, const char* on) {
  return {key, [member, off, on](const YamlReader& s, const char* k, T& into) {
            const std::string v = s.text(k);
            if (v != off && v != on)
              throw InputError(s.where(k), fmt::format("'{}' is not {} or {}", echo(v), off, on));
            into.*member = v == on;
          }};
}

// A number within [min, max], converted to the member's type (an integer member truncates).
template <typename T, typename Number>
YamlField<T> number_field(const char* key, Number T::*member, double min, double max) {
  return {key, [member, min, max](const YamlReader& s, const char* k, T& into) {
            into.*member = static_cast<Number>(s.number(k, min, max));
          }};
}

// A quantity with units, read by `parse` (parse_duration, parse_bytes, ...) into SI units.
template <typename T>
YamlField<T> quantity_field(const char* key, double T::*member, double (*parse)(const std::string&)) {
  return {key, [member, parse](const YamlReader& s, const char* k, T& into) { into.*member = s.quantity(k, parse); }};
}

template <typename T>
YamlField<T> text_field(const char* key, std::string T::*member) {
  return {key, [member](const YamlReader& s, const char* k, T& into) { into.*member = s.text(k); }};
}

// A mapping read by its own table into a member of T. `table` must outlive the field.
template <typename T, typename Part>
YamlField<T> section_field(const char* key, Part T::*member, const YamlSection<Part>& table) {
  return {key, [member, &table](const YamlReader& s, const char* k, T& into) {
            read_section(s.map(k), table, into.*member);
          }};
}

// A mapping read by its own table into T itself (a file whose sections fill one struct).
template <typename T>
YamlField<T> section_field(const char* key, const YamlSection<T>& table) {
  return {key, [&table](const YamlReader& s, const char* k, T& into) { read_section(s.map(k), table, into); }};
}

} // namespace simgpt
