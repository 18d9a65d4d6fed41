// Checked reading of simgpt's YAML data files (GPU catalog, profiles, validation tables):
// every miss or type error becomes an InputError naming the file and the key path.
#pragma once

#include <yaml-cpp/yaml.h>

#include <functional>
#include <initializer_list>
#include <limits>
#include <string>
#include <vector>

namespace simgpt {

class YamlReader {
public:
  // Loads a file; throws InputError when it is unreadable or malformed.
  static YamlReader file(const std::string& path);
  YamlReader(YAML::Node node, std::string file, std::string path);

  std::string where(const std::string& key) const;
  bool has(const std::string& key) const;
  std::vector<std::string> keys() const;
  // Rejects keys not in `allowed`, listing the valid ones.
  void only(std::initializer_list<const char*> allowed) const;

  YamlReader map(const std::string& key) const;
  std::vector<YamlReader> list(const std::string& key) const;
  double number(const std::string& key, double min = -std::numeric_limits<double>::infinity(),
                double max = std::numeric_limits<double>::infinity()) const;
  double number_or(const std::string& key, double fallback, double min = -std::numeric_limits<double>::infinity(),
                   double max = std::numeric_limits<double>::infinity()) const;
  std::string text(const std::string& key) const;
  std::string text_or(const std::string& key, const std::string& fallback) const;
  bool boolean_or(const std::string& key, bool fallback) const;
  double quantity(const std::string& key, const std::function<double(const std::string&)>& parse) const;
  double quantity_or(const std::string& key, double fallback,
                     const std::function<double(const std::string&)>& parse) const;
  const YAML::Node& node() const { return node_; }
  const std::string& file_name() const { return file_; }

private:
  YAML::Node child(const std::string& key) const;
  YAML::Node node_;
  std::string file_;
  std::string path_;
};

} // namespace simgpt
