// One table of names per enum, read when simgpt prints a value and when it parses one, so that
// what a user writes and what simgpt prints cannot drift apart.
//
// Beside each enum sits its table and an `enum_names` overload that returns it (found by
// argument-dependent lookup):
//
//   inline constexpr EnumName<Schedule> kScheduleNames[] = {{Schedule::gpipe, "gpipe"}, ...};
//   constexpr std::span<const EnumName<Schedule>> enum_names(Schedule) { return kScheduleNames; }
#pragma once

#include <algorithm>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace simgpt {

template <typename Enum>
struct EnumName {
  Enum value;
  const char* name;            // what input files and options spell, and reports print
  const char* label = nullptr; // where a display for people spells it otherwise (a trace's
                               // "all-reduce"); nullptr: the name
};

// The value's name; "?" for a value its table does not name.
template <typename Enum>
constexpr const char* name_of(Enum value) {
  for (const EnumName<Enum>& row : enum_names(Enum{}))
    if (row.value == value)
      return row.name;
  return "?";
}

// The value's display label (its name when the table gives none).
template <typename Enum>
constexpr const char* label_of(Enum value) {
  for (const EnumName<Enum>& row : enum_names(Enum{}))
    if (row.value == value)
      return row.label != nullptr ? row.label : row.name;
  return "?";
}

// The value named `text`, or nothing.
template <typename Enum>
constexpr std::optional<Enum> parse_enum(std::string_view text) {
  for (const EnumName<Enum>& row : enum_names(Enum{}))
    if (text == row.name)
      return row.value;
  return std::nullopt;
}

// Every name, in the table's order.
template <typename Enum>
std::vector<std::string> enum_name_list() {
  std::vector<std::string> names;
  for (const EnumName<Enum>& row : enum_names(Enum{}))
    names.emplace_back(row.name);
  return names;
}

// The valid names for a message, in the table's order: "a, b or c" with last_separator " or ",
// "a, b, c" with ", ".
template <typename Enum>
std::string valid_enum_names(std::string_view last_separator = ", ") {
  const std::vector<std::string> names = enum_name_list<Enum>();
  std::string text;
  for (size_t i = 0; i < names.size(); ++i)
    text += (i == 0 ? "" : i + 1 == names.size() ? std::string(last_separator) : ", ") + names[i];
  return text;
}

// The valid names for a message in alphabetical order, "a, b, c": where a list of names is
// sorted for its reader rather than given in the table's order.
template <typename Enum>
std::string sorted_enum_names() {
  std::vector<std::string> names = enum_name_list<Enum>();
  std::sort(names.begin(), names.end());
  std::string text;
  for (const std::string& name : names)
    text += (text.empty() ? "" : ", ") + name;
  return text;
}

} // namespace simgpt
