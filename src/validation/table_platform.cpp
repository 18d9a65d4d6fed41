#include "validation/table_platform.hpp"

#include "simgpt/core/error.hpp"

#include <fmt/format.h>

namespace simgpt {

std::string table_platform(const ValidationTable& table, const DataPaths& data) {
  const std::string path = data.find("platforms/" + table.platform);
  if (path.empty())
    throw InputError(table.file + ": platform", fmt::format("'{}' is in none of the data folders' platforms/ ({})",
                                                            echo(table.platform), data.folder_list()));
  return path;
}

} // namespace simgpt
