#include "simgpt/validation/validation.hpp"
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
  c.status = "compared";
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
  memory.metric = "peak_mem_gb"; // other metrics do not take part
  cases.push_back(memory);
  CaseResult skipped = step("mb2-t4p2", "2", 1, 1);
  skipped.status = "skipped";
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
    c.metric = "oom";
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
  memory.metric = "peak_mem_gb";
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
