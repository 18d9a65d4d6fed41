// Where simgpt's data files live (platforms/, profiles/, validation/), as folders layered one on
// another: a user's folder holding one profile or one GPU adds or replaces just that, the rest
// coming from the folders after it, the built-in one last.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace simgpt {

// The data folders, searched in order. A file's relative name ("profiles/megatron.yaml",
// "validation/tables/seed001-gpipe.yaml", "profiles/collectives/nccl-2.18.3.yaml") resolves to the
// first folder's file of that name. The catalogs (platforms/gpus.yaml, platforms/presets.yaml,
// validation/thresholds.yaml) merge by entry instead: every folder's file is read, and an entry
// of an earlier folder replaces a later folder's entry of the same name whole.
struct DataPaths {
  // --data folders (else $SIMGPT_DATA's) in the order given, then the built-in folder.
  std::vector<std::string> folders;
  // Profile parameters to use instead of the profile file's (for calibration), key -> value.
  std::vector<std::pair<std::string, double>> profile_overrides;

  // The file (or folder) `relative` resolves to: the first folder's that exists, as
  // "FOLDER/relative"; empty when no folder has it. What a report names as the file it used.
  std::string find(const std::string& relative) const;
  // Every folder's `relative` that exists, the first folder's first: a catalog's files.
  std::vector<std::string> find_all(const std::string& relative) const;
  // The files named *`extension` in the folder `relative` of any data folder, each name resolved
  // as find() does, sorted by name. Throws InputError for such a folder that cannot be read.
  std::vector<std::string> list(const std::string& relative, const std::string& extension) const;

  std::vector<std::string> catalog() const { return find_all("platforms/gpus.yaml"); }
  std::vector<std::string> presets() const { return find_all("platforms/presets.yaml"); }
  std::vector<std::string> profiles() const { return find_all("profiles"); } // profile folders, first first
  // The folders as one line for messages: "a, b, c".
  std::string folder_list() const;
};

// `folders` (--data, in order), or when it is empty those of $SIMGPT_DATA (separated by ':',
// empty entries skipped), then the built-in folder: ../share/simgpt beside the running executable
// (an installed simgpt) or .. (a build folder inside a source checkout); a folder named twice is
// kept where it comes first. Throws InputError naming `where` (or SIMGPT_DATA) and a folder that
// does not exist or holds none of platforms/, profiles/, validation/; and when no folder is left.
DataPaths data_paths_at(const std::vector<std::string>& folders, const std::string& where = "--data");

// A data file by its place in its data folder, `folder` ("profiles", "platforms") and its name:
// "profiles/megatron.yaml" for FOLDER/profiles/megatron.yaml; any other path as it is. What reports
// and sweep files name a data file by, so that they are the same wherever the data is installed
// (the file's digest says which one it was).
std::string data_file_name(const std::string& path, const std::string& folder);

// data_paths_at({}): $SIMGPT_DATA's folders, then the built-in one.
DataPaths default_data_paths();

} // namespace simgpt
