#include "core/yaml_read.hpp"

#include "core/input_file.hpp"
#include "simgpt/core/error.hpp"

#include <fmt/format.h>
#include <yaml-cpp/depthguard.h>

#include <algorithm>
#include <set>
#include <stdexcept>

namespace simgpt {

YamlReader YamlReader::file(const std::string& path) {
  const std::string text = read_input_file(path, "YAML", kMaxYamlFileBytes);
  try {
    YAML::Node root = YAML::Load(text);
    if (!root.IsMap())
      throw InputError(path, "expected a YAML mapping at the top level");
    check_keys(root, path);
    return YamlReader(root, path, "");
  } catch (const YAML::ParserException& e) {
    throw InputError(fmt::format("{}:{}", path, e.mark.line + 1), parse_error_message(e));
  }
}

std::string parse_error_message(const YAML::ParserException& e) {
  if (dynamic_cast<const YAML::DeepRecursion*>(&e))
    return "malformed YAML: lists or mappings nested too deep (yaml-cpp's limit is 2000 levels)";
  return "malformed YAML: " + e.msg;
}

namespace {

// Nesting deeper than yaml-cpp's parser allows (its depth guard), counted with aliases followed.
constexpr int kMaxYamlDepth = 2000;
// Key paths are for messages, which show their first 80 characters (echo): longer ones stop growing.
constexpr size_t kMaxPathChars = 256;

// A depth-first walk of a YAML tree that refuses what yaml-cpp accepts silently. Aliases let a
// small file name the same node many times over ("billion laughs"); the walk counts every visit.
// yaml-cpp also lets an alias name the node it is in ("a: &x [*x]", found by tests/fuzz/workload.cpp),
// a tree with no end: the walk refuses to follow aliases deeper than the parser lets a file nest.
class KeyCheck {
public:
  explicit KeyCheck(std::string file) : file_(std::move(file)) {}

  void walk(const YAML::Node& node, const std::string& path, int depth = 0) {
    if (++visits_ > kMaxYamlNodes)
      throw LimitError(file_, fmt::format("holds more than {} YAML nodes (aliases counted each time they are "
                                          "used); simgpt's data files hold a few thousand",
                                          kMaxYamlNodes));
    if (depth > kMaxYamlDepth)
      throw InputError(at(path.empty() ? "(top level)" : path),
                       fmt::format("malformed YAML: lists or mappings nested more than {} levels deep once aliases are "
                                   "followed, or an alias inside the node it names",
                                   kMaxYamlDepth));
    size_t i = 0;
    if (node.IsSequence())
      for (const auto& item : node)
        walk(item, path.size() >= kMaxPathChars ? path : fmt::format("{}[{}]", path, i++), depth + 1);
    if (node.IsMap())
      walk_map(node, path, depth);
  }

private:
  void walk_map(const YAML::Node& node, const std::string& path, int depth) {
    std::set<std::string> seen;
    for (const auto& entry : node) {
      if (!entry.first.IsScalar())
        throw InputError(at(path.empty() ? "(top level)" : path),
                         "a key is a list or mapping; keys must be plain names");
      const std::string key = entry.first.Scalar();
      const std::string key_path = path.size() >= kMaxPathChars ? path
                                   : path.empty()                ? key.substr(0, kMaxPathChars)
                                                                 : (path + "." + key).substr(0, kMaxPathChars);
      // yaml-cpp keeps both entries and lookups see only one: the other would be ignored silently.
      if (!seen.insert(key).second)
        throw InputError(at(key_path), "duplicated key (each key may appear once in a mapping)");
      walk(entry.second, key_path, depth + 1);
    }
  }
  std::string at(const std::string& path) const { return file_ + ": " + echo(path); }

  std::string file_;
  size_t visits_ = 0;
};

} // namespace

void check_keys(const YAML::Node& root, const std::string& file) { KeyCheck(file).walk(root, ""); }

YamlReader::YamlReader(YAML::Node node, std::string file, std::string path)
    : node_(std::move(node)), file_(std::move(file)), path_(std::move(path)) {}

std::string YamlReader::where(const std::string& key) const {
  return file_ + ": " + echo(path_.empty() ? key : path_ + "." + key);
}

bool YamlReader::has(const std::string& key) const { return node_.IsMap() && node_[key].IsDefined(); }

std::vector<std::string> YamlReader::keys() const {
  std::vector<std::string> names;
  for (const auto& entry : node_)
    names.push_back(entry.first.as<std::string>());
  return names;
}

void YamlReader::only(const std::vector<std::string>& allowed) const {
  for (const std::string& key : keys())
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      std::string valid;
      for (const std::string& a : allowed)
        valid += (valid.empty() ? "" : ", ") + a;
      throw InputError(where(key), fmt::format("unknown key (valid keys: {})", valid));
    }
}

YAML::Node YamlReader::child(const std::string& key) const {
  if (!has(key))
    throw InputError(where(key), "is required");
  return node_[key];
}

YamlReader YamlReader::map(const std::string& key) const {
  YAML::Node n = child(key);
  if (!n.IsMap())
    throw InputError(where(key), "expected a mapping");
  return YamlReader(n, file_, path_.empty() ? key : path_ + "." + key);
}

std::vector<YamlReader> YamlReader::list(const std::string& key) const {
  YAML::Node n = child(key);
  if (!n.IsSequence())
    throw InputError(where(key), "expected a list");
  std::vector<YamlReader> items;
  for (size_t i = 0; i < n.size(); ++i)
    items.emplace_back(n[i], file_, fmt::format("{}[{}]", path_.empty() ? key : path_ + "." + key, i));
  return items;
}

double YamlReader::number(const std::string& key, double min, double max) const {
  YAML::Node n = child(key);
  double value = 0;
  try {
    value = n.as<double>();
  } catch (const YAML::Exception&) {
    throw InputError(where(key), fmt::format("'{}' is not a number", n.IsScalar() ? echo(n.Scalar()) : "?"));
  }
  if (!(value >= min && value <= max))
    throw InputError(where(key), fmt::format("{} is out of range [{}, {}]", value, min, max));
  return value;
}

double YamlReader::number_or(const std::string& key, double fallback, double min, double max) const {
  return has(key) ? number(key, min, max) : fallback;
}

std::string YamlReader::text(const std::string& key) const {
  YAML::Node n = child(key);
  if (!n.IsScalar())
    throw InputError(where(key), "expected a single value");
  return n.Scalar();
}

std::string YamlReader::text_or(const std::string& key, const std::string& fallback) const {
  return has(key) ? text(key) : fallback;
}

bool YamlReader::boolean_or(const std::string& key, bool fallback) const {
  if (!has(key))
    return fallback;
  try {
    return node_[key].as<bool>();
  } catch (const YAML::Exception&) {
    throw InputError(where(key), "expected true or false");
  }
}

double YamlReader::quantity(const std::string& key, const std::function<double(const std::string&)>& parse) const {
  std::string value = text(key);
  try {
    return parse(value);
  } catch (const std::invalid_argument& e) {
    throw InputError(where(key), e.what());
  }
}

double YamlReader::quantity_or(const std::string& key, double fallback,
                               const std::function<double(const std::string&)>& parse) const {
  return has(key) ? quantity(key, parse) : fallback;
}

} // namespace simgpt
