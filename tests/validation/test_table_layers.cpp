#include "simgpt/validation/validation.hpp"

#include "simgpt/core/error.hpp"
#include "validation/table_platform.hpp"

#include "support/scratch_data_folder.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>

using namespace simgpt;
using testing::ScratchDataFolder;

namespace {

std::string table(const std::string& id, const std::string& platform, int rows) {
  std::string text = "table: " + id + "\nplatform: " + platform +
                     "\nworkload:\n  model: {layers: 24, hidden: 2048, heads: 16, seq_len: 2048, vocab: 50257}\n"
                     "  training: {global_batch: 64}\n  parallelism: {pp: 2}\n  framework: generic\nrows:\n";
  for (int i = 0; i < rows; ++i)
    text += "  - {id: r" + std::to_string(i) + ", set: {}, measured: {step_time_s: 1.5}}\n";
  return text;
}

const ValidationTable& by_id(const std::vector<ValidationTable>& tables, const std::string& id) {
  const auto t = std::find_if(tables.begin(), tables.end(), [&](const ValidationTable& x) { return x.id == id; });
  REQUIRE(t != tables.end());
  return *t;
}

} // namespace

TEST_CASE("a user's validation tables join the built-in ones and a file of the same name replaces one",
          "[data_paths]") {
  const ScratchDataFolder user("tables_user");
  const std::string mine = user.write("validation/tables/mine.yaml", table("mine", "mine.xml", 2));
  const std::string gpipe =
      user.write("validation/tables/seed001-gpipe.yaml", table("seed001-gpipe", "p3_16xlarge.xml", 1));
  const std::string platform = user.write("platforms/mine.xml", "<platform/>");
  const DataPaths data = data_paths_at({user.path()});
  const std::vector<ValidationTable> tables = load_validation_tables(data);
  CHECK(by_id(tables, "mine").file == mine);
  CHECK(by_id(tables, "seed001-gpipe").file == gpipe);
  CHECK(by_id(tables, "seed001-gpipe").rows.size() == 1);
  CHECK(by_id(tables, "ds3lab-small-1f1b").file == data.folders.back() + "/validation/tables/ds3lab-small-1f1b.yaml");
  CHECK(std::is_sorted(tables.begin(), tables.end(), [](const ValidationTable& a, const ValidationTable& b) {
    return std::filesystem::path(a.file).filename() < std::filesystem::path(b.file).filename();
  }));
  // Each table's platform comes from the first folder that has it.
  CHECK(table_platform(by_id(tables, "mine"), data) == platform);
  CHECK(table_platform(by_id(tables, "seed001-gpipe"), data) == data.folders.back() + "/platforms/p3_16xlarge.xml");
  user.write("validation/tables/mine.yaml", table("mine", "nosuch.xml", 1));
  CHECK_THROWS_WITH(table_platform(by_id(load_validation_tables(data), "mine"), data),
                    Catch::Contains("'nosuch.xml' is in none of the data folders' platforms/"));
  // A table of another file name but a built-in table's id is refused, as within one folder.
  user.write("validation/tables/copy.yaml", table("ds3lab-small-1f1b", "mine.xml", 1));
  CHECK_THROWS_WITH(load_validation_tables(data), Catch::Contains("'ds3lab-small-1f1b' is the id of the table in"));
}

TEST_CASE("a user's thresholds join the built-in ones by table", "[data_paths]") {
  const ScratchDataFolder user("thresholds_user");
  user.write("validation/thresholds.yaml", "mine: {median: 1, max: 2}\nseed001-gpipe: {median: 99, max: 99}\n");
  const std::map<std::string, Threshold> thresholds = load_thresholds(data_paths_at({user.path()}));
  CHECK(thresholds.at("mine").max == 2);
  CHECK(thresholds.at("seed001-gpipe").median == 99);
  const std::map<std::string, Threshold> builtin = load_thresholds(default_data_paths());
  CHECK(thresholds.at("ds3lab-small-1f1b").median == builtin.at("ds3lab-small-1f1b").median);
  CHECK(builtin.at("seed001-gpipe").median != 99);
}
