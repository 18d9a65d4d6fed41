#include "simgpt/simulate/data_paths.hpp"

#include "simgpt/core/error.hpp"
#include "simgpt/simulate.hpp"

#include "support/scratch_data_folder.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

using namespace simgpt;
using testing::ScratchDataFolder;

namespace {

// $SIMGPT_DATA set for one test, and put back as it was.
class DataEnvironment {
public:
  explicit DataEnvironment(const std::string& value) {
    if (const char* old = std::getenv("SIMGPT_DATA"))
      old_ = old;
    ::setenv("SIMGPT_DATA", value.c_str(), 1);
  }
  ~DataEnvironment() {
    if (old_)
      ::setenv("SIMGPT_DATA", old_->c_str(), 1);
    else
      ::unsetenv("SIMGPT_DATA");
  }

private:
  std::optional<std::string> old_;
};

// The built-in folder: the last of the default folders.
std::string builtin() {
  const DataEnvironment none("");
  return default_data_paths().folders.back();
}

} // namespace

TEST_CASE("a file resolves to the first data folder that has it", "[data_paths]") {
  const ScratchDataFolder a("layer_a"), b("layer_b");
  a.write("profiles/both.yaml", "a");
  b.write("profiles/both.yaml", "b");
  b.write("profiles/only_b.yaml", "b");
  a.write("validation/tables/t2.yaml", "a");
  b.write("validation/tables/t1.yaml", "b");
  b.write("validation/tables/t2.yaml", "b");
  b.write("validation/tables/notes.txt", "b");
  const DataPaths data{{a.path(), b.path()}, {}};
  CHECK(data.find("profiles/both.yaml") == a.path() + "/profiles/both.yaml");
  CHECK(data.find("profiles/only_b.yaml") == b.path() + "/profiles/only_b.yaml");
  CHECK(data.find("profiles/none.yaml").empty());
  CHECK(data.find_all("profiles/both.yaml") ==
        std::vector<std::string>{a.path() + "/profiles/both.yaml", b.path() + "/profiles/both.yaml"});
  CHECK(data.profiles() == std::vector<std::string>{a.path() + "/profiles", b.path() + "/profiles"});
  // Listed by name, each name once, from the first folder that has it.
  CHECK(data.list("validation/tables", ".yaml") ==
        std::vector<std::string>{b.path() + "/validation/tables/t1.yaml", a.path() + "/validation/tables/t2.yaml"});
  // Reversed, the other folder wins.
  const DataPaths reversed{{b.path(), a.path()}, {}};
  CHECK(reversed.find("profiles/both.yaml") == b.path() + "/profiles/both.yaml");
}

TEST_CASE("the --data folders come first, in order, then the built-in one", "[data_paths]") {
  const ScratchDataFolder a("layer_a"), b("layer_b");
  a.write("profiles/p.yaml", "");
  b.write("platforms/gpus.yaml", "");
  const DataPaths data = data_paths_at({a.path(), b.path()});
  CHECK(data.folders == std::vector<std::string>{a.path(), b.path(), builtin()});
  // A folder named twice is searched once, where it first comes; the built-in one named too.
  CHECK(data_paths_at({b.path(), a.path(), b.path() + "/", builtin()}).folders ==
        std::vector<std::string>{b.path(), a.path(), builtin()});
}

TEST_CASE("$SIMGPT_DATA holds folders separated by ':', used when --data is not given", "[data_paths]") {
  const ScratchDataFolder a("layer_a"), b("layer_b");
  a.write("profiles/p.yaml", "");
  b.write("validation/thresholds.yaml", "");
  {
    const DataEnvironment env(b.path() + "::" + a.path() + ":"); // empty entries skipped
    CHECK(default_data_paths().folders == std::vector<std::string>{b.path(), a.path(), builtin()});
    CHECK(data_paths_at({a.path()}).folders == std::vector<std::string>{a.path(), builtin()});
  }
  const DataEnvironment env(a.path() + ":/no/such/folder");
  CHECK_THROWS_WITH(default_data_paths(), "SIMGPT_DATA /no/such/folder: is not a simgpt data folder: no such folder");
}

TEST_CASE("a data folder that does not exist or holds no data files is refused, named", "[data_paths]") {
  const ScratchDataFolder empty("layer_empty"), other("layer_other");
  other.write("notes/readme.txt", "not data");
  const std::string none = empty.path() + "/none";
  for (const std::string& dir : {empty.path(), other.path(), none}) {
    INFO(dir);
    try {
      data_paths_at({dir}, "--data");
      FAIL("accepted");
    } catch (const InputError& e) {
      CHECK(e.where() == "--data " + dir);
      CHECK_THAT(e.message(), Catch::StartsWith("is not a simgpt data folder"));
    }
  }
  CHECK_THROWS_WITH(data_paths_at({""}, "--data"), Catch::Contains("an empty folder name"));
}

TEST_CASE("a profile of the user's folder replaces the built-in one and its collective tuning is still found",
          "[data_paths]") {
  const ScratchDataFolder user("layer_user");
  const DataPaths builtin_only = default_data_paths();
  const Profile builtin_megatron = load_profile_of(builtin_only, "megatron", "test");
  std::ifstream in(builtin_megatron.file);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string path = user.write("profiles/megatron.yaml", text);
  user.write("profiles/mine.yaml", "description: mine\n");
  const DataPaths data = data_paths_at({user.path()});
  const Profile megatron = load_profile_of(data, "megatron", "test");
  CHECK(megatron.file == path);
  CHECK(megatron.nccl.file == builtin_megatron.nccl.file); // profiles/collectives/ of the built-in folder
  CHECK(data.find("profiles/megatron.yaml") == path);
  // A collective library's tuning file of the user's folder replaces the built-in one too.
  std::ifstream tuning_in(builtin_megatron.nccl.file);
  const std::string tuning = user.write("profiles/collectives/" + builtin_megatron.nccl.library + ".yaml",
                                        std::string((std::istreambuf_iterator<char>(tuning_in)),
                                                    std::istreambuf_iterator<char>()));
  CHECK(load_profile_of(data, "generic", "test").file == builtin_only.find("profiles/generic.yaml"));
  CHECK(load_profile_of(data, "megatron", "test").nccl.file == tuning);
  // The known profiles are every folder's.
  CHECK_THROWS_WITH(load_profile_of(data, "nosuch", "w.yaml: framework"),
                    Catch::Contains("unknown framework profile 'nosuch' (known: ") && Catch::Contains("megatron") &&
                        Catch::Contains("mine") && Catch::Contains("generic"));
}
