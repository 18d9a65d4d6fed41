// calibrate --table: which of the user's rows a fit is judged on, and the tables it refuses.
#include "simgpt/validation/calibration.hpp"

#include "simgpt/core/error.hpp"
#include "support/scratch_file.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

using namespace simgpt;

namespace {

const std::string kWorkloadTable = "table: mine\nplatform: dgx_a100.xml\nworkload:\n"
                                   "  model: {layers: 12, hidden: 1024, heads: 16, seq_len: 1024, vocab: 50257}\n"
                                   "  training: {global_batch: 8, micro_batch: 1}\n"
                                   "  framework: deepspeed\nrows:\n";
const std::string kThreeRows = "  - {id: a, set: {model.layers: 12}, measured: {step_time_s: 0.2}}\n"
                               "  - {id: b, set: {model.layers: 24}, measured: {step_time_s: 0.4}}\n"
                               "  - {id: c, set: {model.layers: 36}, measured: {step_time_s: 0.6}}\n";

// `text` as a table file of its own, loaded as calibrate --table loads it.
std::vector<ValidationTable> user_table(const std::string& text) {
  const std::string path = simgpt::testing::scratch_file("calibration_table", ".yaml", text);
  auto tables = load_validation_table_files({path});
  std::filesystem::remove(path);
  return tables;
}

// The message table_calibration_rows refuses the table with; "" when it takes it.
std::string refusal(const std::string& profile, const std::string& text) {
  try {
    table_calibration_rows(profile, user_table(text));
    return "";
  } catch (const InputError& e) {
    return e.what();
  }
}

} // namespace

TEST_CASE("calibrate --table judges each row on what it measured, leaving flagged rows out") {
  const auto tables = user_table(kWorkloadTable + kThreeRows +
                                 "  - {id: d, set: {model.layers: 48}, measured: {step_time_s: 0.8, peak_mem_gb: 30}}\n"
                                 "  - {id: e, set: {model.layers: 96}, measured: {oom: true}}\n"
                                 "  - {id: f, set: {model.layers: 60}, measured: {step_time_s: 1}, "
                                 "flags: [questionable]}\n"
                                 "  - {id: g, set: {model.layers: 72}, measured: {tflops_total: 1}}\n");
  CHECK(table_calibration_rows("deepspeed", tables) ==
        std::vector<std::string>{"mine/a", "mine/b", "mine/c", "mine/d", "mine/d:memory", "mine/e:oom"});
}

TEST_CASE("calibrate --table refuses rows of another framework than the profile's") {
  CHECK_THAT(refusal("megatron", kWorkloadTable + kThreeRows),
             Catch::Contains("(a): framework 'deepspeed' is not --profile megatron"));
  // A row's own framework, set over the table's workload.
  CHECK_THAT(refusal("deepspeed", kWorkloadTable + kThreeRows +
                                      "  - {id: d, set: {framework: megatron}, measured: {step_time_s: 1}}\n"),
             Catch::Contains("(d): framework 'megatron' is not --profile deepspeed"));
  // A transfer row's profile; flagged rows are held to it too.
  const std::string transfer = "table: net\nkind: transfer\nplatform: p3_2xlarge_x2.xml\nrows:\n";
  std::string rows;
  for (int i = 1; i <= 3; ++i)
    rows += "  - {id: m" + std::to_string(i) + ", bytes: " + std::to_string(64 * i) +
            "MiB, profile: gloo, measured: {transfer_s: 0.1}}\n";
  CHECK(refusal("gloo", transfer + rows) == "");
  CHECK_THAT(refusal("gloo", transfer + rows +
                                 "  - {id: x, bytes: 1MiB, profile: ds3-gpipe, measured: {transfer_s: 0.1}, "
                                 "flags: [questionable]}\n"),
             Catch::Contains("(x): profile 'ds3-gpipe' is not --profile gloo"));
}

TEST_CASE("calibrate --table needs 3 measured rows of 2 configurations") {
  CHECK(refusal("deepspeed", kWorkloadTable + kThreeRows) == "");
  CHECK_THAT(refusal("deepspeed", kWorkloadTable + kThreeRows.substr(0, kThreeRows.rfind("  - "))),
             Catch::Contains("2 measured row(s) of 2 configuration(s): calibrate needs at least 3 rows of at least 2"));
  // A flagged row, or one with nothing a fit compares, does not count.
  CHECK_THAT(refusal("deepspeed", kWorkloadTable + kThreeRows.substr(0, kThreeRows.rfind("  - ")) +
                                      "  - {id: c, set: {}, measured: {step_time_s: 1}, flags: [not_reproducible]}\n"
                                      "  - {id: d, set: {}, measured: {tflops_total: 1}}\n"),
             Catch::Contains("2 measured row(s)"));
  // Three runs of one configuration pin nothing that transfers.
  CHECK_THAT(refusal("deepspeed", kWorkloadTable + "  - {id: a, set: {}, measured: {step_time_s: 0.2}}\n"
                                                   "  - {id: b, set: {}, measured: {step_time_s: 0.21}}\n"
                                                   "  - {id: c, set: {}, measured: {step_time_s: 0.22}}\n"),
             Catch::Contains("3 measured row(s) of 1 configuration(s)"));
}

TEST_CASE("calibrate --table refuses a missing file and two tables of one id") {
  CHECK_THROWS_WITH(load_validation_table_files({"/nonexistent/mine.yaml"}), Catch::Contains("/nonexistent/mine.yaml"));
  const std::string a = simgpt::testing::scratch_file("calibration_a", ".yaml", kWorkloadTable + kThreeRows);
  const std::string b = simgpt::testing::scratch_file("calibration_b", ".yaml", kWorkloadTable + kThreeRows);
  CHECK_THROWS_WITH(load_validation_table_files({a, b}),
                    Catch::Contains(b + ": table: 'mine' is the id of the table in " + a));
  CHECK(load_validation_table_files({a}).size() == 1);
  std::filesystem::remove(a);
  std::filesystem::remove(b);
}
