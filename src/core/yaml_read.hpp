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

// More YAML nodes than any simgpt file holds (a file of kMaxYamlFileBytes holds at most about
// 130,000; simgpt's own hold a few thousand): the limit bounds the time a walk of the tree
// takes when aliases repeat nodes.
inline constexpr size_t kMaxYamlNodes = size_t{1} << 22;

// Throws InputError naming `file` and the key path when a mapping in `root` repeats a key or has
// a key that is a list or mapping, LimitError when the tree holds more than kMaxYamlNodes nodes.
void check_keys(const YAML::Node& root, const std::string& file);

// What a parse error says about a file: yaml-cpp's own message ("bad file") for nesting past its
// depth guard says nothing useful, so that one is named here.
std::string parse_error_message(const YAML::ParserException& e);

class YamlReader {
public:
  // Loads a file; throws InputError when it is unreadable or malformed.
  static YamlReader file(const std::string& path);
  YamlReader(YAML::Node node, std::string file, std::string path);

  std::string where(const std::string& key) const;
  bool has(const std::string& key) const;
  std::vector<std::string> keys() const;
  // Rejects keys not in `allowed`, listing the valid ones in its order.
  void only(const std::vector<std::string>& allowed) const;
  void only(std::initializer_list<const char*> allowed) const {
    only(std::vector<std::string>(allowed.begin(), allowed.end()));
  }

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
