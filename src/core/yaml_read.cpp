#include "core/yaml_read.hpp"

#include "simgpt/core/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace simgpt {

YamlReader YamlReader::file(const std::string& path) {
  try {
    YAML::Node root = YAML::LoadFile(path);
    if (!root.IsMap())
      throw InputError(path, "expected a YAML mapping at the top level");
    return YamlReader(root, path, "");
  } catch (const YAML::BadFile&) {
    throw InputError(path, "cannot read the file");
  } catch (const YAML::ParserException& e) {
    throw InputError(fmt::format("{}:{}", path, e.mark.line + 1), "malformed YAML: " + e.msg);
  }
}

YamlReader::YamlReader(YAML::Node node, std::string file, std::string path)
    : node_(std::move(node)), file_(std::move(file)), path_(std::move(path)) {}

std::string YamlReader::where(const std::string& key) const {
  return file_ + ": " + (path_.empty() ? key : path_ + "." + key);
}

bool YamlReader::has(const std::string& key) const { return node_.IsMap() && node_[key].IsDefined(); }

std::vector<std::string> YamlReader::keys() const {
  std::vector<std::string> names;
  for (const auto& entry : node_)
    names.push_back(entry.first.as<std::string>());
  return names;
}

void YamlReader::only(std::initializer_list<const char*> allowed) const {
  for (const std::string& key : keys())
    if (std::none_of(allowed.begin(), allowed.end(), [&](const char* a) { return key == a; })) {
      std::string valid;
      for (const char* a : allowed)
        valid += (valid.empty() ? "" : ", ") + std::string(a);
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
    throw InputError(where(key), fmt::format("'{}' is not a number", n.IsScalar() ? n.Scalar() : "?"));
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
