#include "simgpt/validation/validation.hpp"

#include "simgpt/core/error.hpp"
#include "validation/statistics.hpp"
#include "validation/table_loader.hpp"
#include "support/scratch_file.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

using namespace simgpt;

namespace {

CaseResult step(const std::string& row, const std::string& group, double measured, double predicted) {
  CaseResult c;
  c.table = "t";
  c.id = "t/" + row;
  c.group = group;
  c.measured = measured;
  c.predicted = predicted;
  c.error_pct = 100 * (predicted - measured) / measured;
  c.status = CaseStatus::compared;
  return c;
}

} // namespace

TEST_CASE("the fastest configuration of each table row, measured and predicted") {
  std::vector<CaseResult> cases = {
      step("mb1-t8", "1", 10, 11), step("mb1-p8", "1", 8, 9), step("mb1-t4p2", "1", 9, 8.5), // picks differ
      step("mb2-t8", "2", 7, 6), step("mb2-p8", "2", 9, 8),                                  // picks agree
      step("mb4-t8", "4", 5, 5),                                                               // alone: no choice
  };
  CaseResult memory = step("mb2-p8", "2", 1, 0.5);
  memory.metric = CaseMetric::peak_memory; // other metrics do not take part
  cases.push_back(memory);
  CaseResult skipped = step("mb2-t4p2", "2", 1, 1);
  skipped.status = CaseStatus::skipped;
  cases.push_back(skipped);

  const auto checks = fastest_per_row(cases);
  REQUIRE(checks.size() == 2);
  CHECK(checks[0].group == "1");
  CHECK(checks[0].configurations == 3);
  CHECK(checks[0].measured_fastest == "mb1-p8");
  CHECK(checks[0].predicted_fastest == "mb1-t4p2");
  CHECK_FALSE(checks[0].agrees());
  CHECK(checks[0].measured_regret_pct == Approx(100.0 * (9.0 / 8.0 - 1)));
  CHECK(checks[1].group == "2");
  CHECK(checks[1].configurations == 2);
  CHECK(checks[1].agrees());
  CHECK(checks[1].measured_regret_pct == 0);
  // Without out-of-memory predictions, the planner picks the predicted fastest.
  CHECK(checks[0].planner_pick == "mb1-t4p2");
  CHECK(checks[0].planner_regret_pct == Approx(checks[0].measured_regret_pct));
}

TEST_CASE("the planner's pick in a table row is the predicted fastest that the simulation says fits") {
  std::vector<CaseResult> cases = {step("mb1-t8", "1", 10, 11), step("mb1-p8", "1", 8, 9), step("mb1-t4p2", "1", 9, 8.5),
                                   step("mb2-t8", "2", 7, 6)};
  const auto oom = [](const std::string& row, double predicted) {
    CaseResult c = step(row, "1", 0, predicted);
    c.metric = CaseMetric::oom;
    return c;
  };
  cases.push_back(oom("mb1-t4p2", 1)); // predicted fastest, but predicted not to fit
  cases.push_back(oom("mb1-p8", 0));
  auto checks = fastest_per_row(cases);
  REQUIRE(checks.size() == 1);
  CHECK(checks[0].predicted_fastest == "mb1-t4p2");
  CHECK(checks[0].planner_pick == "mb1-p8");
  CHECK(checks[0].planner_regret_pct == 0);
  cases.push_back(oom("mb1-p8", 1));
  cases.push_back(oom("mb1-t8", 1));
  checks = fastest_per_row(cases);
  CHECK(checks[0].planner_pick.empty()); // nothing fits: no pick
}

TEST_CASE("each table is summarized once, over its held-out rows, whatever the rows' order") {
  ValidationReport report;
  const auto fitted = [](const std::string& row, double measured, double predicted) {
    CaseResult c = step(row, row, measured, predicted);
    c.flags.push_back("calibration");
    return c;
  };
  // Calibration rows first: the table is met before any row that counts in it.
  report.cases = {fitted("a", 1, 1.5), fitted("b", 1, 1.5), step("c", "c", 1, 1.1), step("d", "d", 1, 0.8)};
  CaseResult memory = step("c", "c", 10, 11);
  memory.metric = CaseMetric::peak_memory;
  report.cases.push_back(memory);
  summarize_cases(report);
  REQUIRE(report.tables.size() == 2);
  CHECK(report.tables[0].table == "t");
  CHECK(report.tables[0].rows == 2); // the two calibration rows are left out
  CHECK(report.tables[0].median_abs == Approx(15));
  CHECK(report.tables[1].table == "t:memory");
  CHECK(report.calibration.rows == 2);
  CHECK(report.held_out.rows == 2);
}

TEST_CASE("a table's planner_search is read as simgpt plan's --search, and refused as it would be") {
  const std::string dir = simgpt::testing::scratch_path("tables", "");
  std::filesystem::create_directories(dir);
  const auto table = [&](const std::string& search) {
    std::ofstream(dir + "/t.yaml") << "table: t\nplatform: p.xml\nworkload: {framework: generic}\n"
                                   << "planner_search: " << search << "\nrows: []\n";
    return load_validation_tables(dir);
  };
  CHECK(table("[parallelism.pp=1, parallelism.zero=0]").at(0).planner_search ==
        std::vector<std::string>{"parallelism.pp=1", "parallelism.zero=0"});
  CHECK_THROWS_WITH(table("[parallelism.colour=red]"), Catch::Contains("planner_search"));
  CHECK_THROWS_WITH(table("[parallelism.zero=7]"), Catch::Contains("planner_search"));
  std::filesystem::remove_all(dir);
}

namespace {

// A directory of tables for one test: table files written into it, loaded whole.
class TableDir {
public:
  TableDir() : dir_(simgpt::testing::scratch_path("hostile_tables", "")) {
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  ~TableDir() { std::filesystem::remove_all(dir_); }
  // A table of `table_keys` (YAML lines) and the rows `row` (none when empty).
  void write(const std::string& file, const std::string& table_keys, const std::string& row) const {
    std::ofstream(dir_ + "/" + file) << table_keys << (row.empty() ? "" : "\nrows:\n" + row) << "\n";
  }
  std::vector<ValidationTable> load() const { return load_validation_tables(dir_); }
  const std::string& path() const { return dir_; }

private:
  std::string dir_;
};

const std::string kTableKeys = "table: t\nplatform: p3_2xlarge_x2.xml\nworkload: {framework: generic}";
const std::string kRow = "  - {id: r, set: {}, measured: {step_time_s: 1.5}}";

// The error loading one table with `row` (or `table_keys`) raises; "" when it loads.
std::string load_error(const std::string& row, const std::string& table_keys = kTableKeys) {
  TableDir dir;
  dir.write("t.yaml", table_keys, row);
  try {
    dir.load();
    return "";
  } catch (const LimitError& e) {
    return std::string("limit: ") + e.what();
  } catch (const InputError& e) {
    return e.what();
  }
}

} // namespace

TEST_CASE("a table's values of the wrong shape are refused, naming the key") {
  CHECK_THAT(load_error("", kTableKeys + "\nrows: 5"), Catch::Contains("rows: expected a list"));
  CHECK_THAT(load_error("  - 5"), Catch::Contains("rows: expected a list of mappings"));
  CHECK_THAT(load_error("  - {id: r, set: [1, 2]}"), Catch::Contains("rows[0].set: expected a mapping"));
  CHECK_THAT(load_error("  - {id: r, set: {}, flags: {a: 1}}"), Catch::Contains("rows[0].flags: expected a list"));
  CHECK_THAT(load_error("  - {id: r, set: {}, measured: {x: [1]}}"),
             Catch::Contains("rows[0].measured.x: unknown metric (known: oom, step_time_s"));
  CHECK_THAT(load_error("  - {id: r, set: {}, measured: {step_time_s: [1]}}"),
             Catch::Contains("rows[0].measured.step_time_s: '?' is not a number"));
  CHECK_THAT(load_error("  - {id: r, set: {}, measured: [1]}"), Catch::Contains("rows[0].measured: expected a mapping"));
  CHECK_THAT(load_error("  - {id: r, set: {}, measured: {oom: maybe}}"),
             Catch::Contains("rows[0].measured.oom: expected true or false"));
  CHECK_THAT(load_error("  - {id: r, set: {}, flags: [questionble]}"),
             Catch::Contains("'questionble' is not a flag (expected not_reproducible, questionable"));
  CHECK_THAT(load_error(kRow, kTableKeys + "\nsource: {seed: s, page: 3}"), Catch::Contains("source.page: unknown key"));
  CHECK_THAT(load_error(kRow, kTableKeys + "\ndescription: [a, b]"), Catch::Contains("description: expected a single value"));
}

TEST_CASE("a measured value is finite and within its metric's range") {
  for (const std::string value : {"0", "-1", ".nan", ".inf", "-.inf", "1e308", "2e6"}) {
    INFO(value);
    CHECK_THAT(load_error("  - {id: r, set: {}, measured: {step_time_s: " + value + "}}"),
               Catch::Contains("rows[0].measured.step_time_s: "));
  }
  CHECK_THAT(load_error("  - {id: r, set: {}, measured: {peak_mem_gb: 0}}"), Catch::Contains("0 is not a measurement"));
  CHECK_THAT(load_error("  - {id: r, set: {}, measured: {allreduce: -1}}"), Catch::Contains("measured.allreduce"));
  CHECK(load_error("  - {id: r, set: {}, measured: {step_time_s: 1e6}}") == "");
  CHECK(load_error(kRow) == "");
  // A count of collectives may be 0.
  CHECK(load_error("  - {id: r, set: {network.delay: 1ms}, measured: {step_time_s: 2, allgather: 0, oom: false}, "
                   "flags: [questionable]}") == "");
}

TEST_CASE("ids are plain names, unique in their table, and table ids are unique") {
  CHECK_THAT(load_error(kRow + "\n" + kRow), Catch::Contains("rows[1].id: 'r' is the id of an earlier row"));
  // "a/b" + "c" and "a" + "b/c" would both be the row "a/b/c".
  CHECK_THAT(load_error("  - {id: b/c, set: {}}"), Catch::Contains("rows[0].id: 'b/c' is not a valid name"));
  CHECK_THAT(load_error(kRow, "table: a/b\nplatform: p.xml\nworkload: {}"), Catch::Contains("table: 'a/b' is not a valid name"));
  CHECK_THAT(load_error("  - {id: 'r:memory', set: {}}"), Catch::Contains("is not a valid name"));
  CHECK_THAT(load_error("  - {id: '', set: {}}"), Catch::Contains("is not a valid name"));
  CHECK_THAT(load_error(kRow, "table: t\nplatform: " + std::string(300, 'p') + "\nworkload: {}"),
             Catch::Contains("platform: 'ppp"));
  CHECK_THAT(load_error(kRow, "table: t\nplatform: ../../etc/passwd\nworkload: {}"), Catch::Contains("platform: '../"));
  TableDir dir;
  dir.write("a.yaml", kTableKeys, kRow);
  dir.write("b.yaml", kTableKeys, kRow);
  try {
    dir.load();
    FAIL("two tables with one id loaded");
  } catch (const InputError& e) {
    CHECK(e.where() == dir.path() + "/b.yaml: table");
    CHECK_THAT(e.message(), Catch::Contains("'t' is the id of the table in " + dir.path() + "/a.yaml"));
  }
}

TEST_CASE("a table whose planner comparison would search past the planner's limit is refused before any row runs") {
  TableDir dir;
  std::string micro_batches, chunks;
  for (int i = 1; i <= 2000; ++i) {
    micro_batches += (i > 1 ? "," : "") + std::to_string(i);
    chunks += (i > 1 ? "," : "") + std::to_string(i + 1);
  }
  dir.write("t.yaml",
            kTableKeys.substr(0, kTableKeys.find("workload")) +
                "workload:\n  model: {layers: 24, hidden: 2048, heads: 16, seq_len: 2048, vocab: 50257}\n"
                "  training: {global_batch: 64}\n  framework: generic\n"
                "planner_search: ['training.micro_batch=" + micro_batches + "', 'parallelism.chunks=" + chunks + "']",
            "  - {id: r, row: one, set: {placement.gpus: 8}, measured: {step_time_s: 1.5}}");
  const auto tables = dir.load();
  RowProcess process;
  process.executable = "/bin/false"; // no row may run
  try {
    process.jobs = 1;
    validate(tables, default_data_paths(), "", {}, process);
    FAIL("validated");
  } catch (const LimitError& e) {
    CHECK(e.where() == dir.path() + "/t.yaml: planner_search");
    CHECK_THAT(e.message(), Catch::Contains("candidate plans, simgpt's limit"));
  }
}

TEST_CASE("one table file loads by its path, whatever its name, and its messages name that path") {
  TableDir dir;
  dir.write("t.yml", kTableKeys, kRow);
  const ValidationTable t = load_validation_table(dir.path() + "/t.yml");
  CHECK(t.id == "t");
  CHECK(t.file == dir.path() + "/t.yml");
  REQUIRE(t.rows.size() == 1);
  CHECK(t.rows[0].measured.at("step_time_s") == 1.5);
  dir.write("bad.yml", kTableKeys, "  - {id: r, set: {}, measured: {x: 1}}");
  try {
    load_validation_table(dir.path() + "/bad.yml");
    FAIL("a table with an unknown metric loaded");
  } catch (const InputError& e) {
    CHECK(e.where() == dir.path() + "/bad.yml: rows[0].measured.x");
  }
}

TEST_CASE("a table of tier extended is marked so, and another tier is refused") {
  TableDir dir;
  dir.write("t.yml", kTableKeys + "\ntier: extended", kRow);
  CHECK(load_validation_table(dir.path() + "/t.yml").extended);
  dir.write("u.yml", kTableKeys, kRow);
  CHECK_FALSE(load_validation_table(dir.path() + "/u.yml").extended);
  CHECK_THAT(load_error(kRow, kTableKeys + "\ntier: slow"), Catch::Contains("tier: 'slow' is not gate or extended"));
}
