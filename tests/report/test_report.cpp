#include "simgpt/core/error.hpp"
#include "simgpt/report/report.hpp"
#include "report/report_json.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <iterator>
#include <limits>
#include <sstream>
#include <vector>
#include <string>

using namespace simgpt;

namespace {

Report sample() {
  Report r;
  r.platform = "p3_16xlarge.xml";
  r.workload = "gpt3xl.yaml";
  r.framework = "megatron";
  r.schedule = "1f1b";
  r.gpus = 8;
  r.pp = 2;
  r.tp = 4;
  r.micro_batches = 16;
  r.step_time_s = 1.234567891234;
  r.samples_per_s = 51.8;
  r.collectives.push_back({"allreduce", 96, 48, 3.5e9});
  r.collectives.push_back({"p2p", 0, 0, 0});
  StageReport s;
  s.stage = 1;
  s.gpu = 4;
  s.layers = 12;
  s.compute_s = 0.9;
  s.memory.peak = 14.5 * 1024.0 * 1024 * 1024;
  s.memory.usable = 15.78 * 1024.0 * 1024 * 1024;
  r.stages.push_back(s);
  r.peak_memory_bytes = s.memory.peak;
  r.oom_stages = {1};
  r.oom = true;
  CriticalPathReport& c = r.critical_path;
  c.pacing_stage = 1;
  c.stages = {{0, 0.2, 0.7}, {1, 0.7, 0.2}};
  c.compute_s = 0.7;
  c.bubble_s = 0.2;
  c.comm_s = {{"p2p", 0.1}, {"allreduce", 0.234567891234}};
  c.exposed_comm_s = 0.334567891234;
  c.top_tasks.push_back({"backward", 4, 1, 15, 0.9, 0.05});
  c.top_tasks.push_back({"allreduce", -1, -1, -1, 1.1, 0.04});
  c.dimension_s = {{"pp", 0.1}, {"tp", 0.234567891234}};
  r.communication_gpu = 4;
  r.communication = {{"tp", 96, 48, 3.5e9, 0.3, 0.0, 0.234567891234},
                     {"cp", 0, 0, 0, 0, 0, 0},
                     {"ep", 0, 0, 0, 0, 0, 0},
                     {"dp", 0, 0, 0, 0, 0, 0},
                     {"pp", 32, 8, 1e8, 0.25, 0.15, 0.1}};
  return r;
}

} // namespace

TEST_CASE("a report read back from its JSON writes the same JSON") {
  const auto j = report_json(sample());
  CHECK(j["schema"] == kReportSchema);
  const Report back = report_from_json(j);
  CHECK(report_json(back) == j);
  CHECK(back.collectives.size() == 2);
  CHECK(back.collectives[0].kind == "allreduce");
  CHECK(back.stages.at(0).memory.peak == Approx(sample().stages[0].memory.peak).epsilon(1e-8));
  CHECK(back.oom);
  const CriticalPathReport& c = back.critical_path;
  CHECK(c.pacing_stage == 1);
  CHECK(c.stages.size() == 2);
  CHECK(c.comm_s.at("allreduce") == Approx(0.234567891));
  CHECK(c.top_tasks.at(1).kind == "allreduce");
  CHECK(c.top_tasks.at(0).micro_batch == 15);
  CHECK(c.dimension_s.at("tp") == Approx(0.234567891));
  CHECK(back.communication_gpu == 4);
  REQUIRE(back.communication.size() == 5);
  CHECK(back.communication[4].dimension == "pp");
  CHECK(back.communication[4].hidden_s == 0.15);
}

namespace {

// The text's lines as their words.
std::vector<std::vector<std::string>> word_lines(const std::string& text) {
  std::vector<std::vector<std::string>> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    lines.emplace_back(std::istream_iterator<std::string>(words), std::istream_iterator<std::string>());
  }
  return lines;
}

bool has_line(const std::string& text, const std::vector<std::string>& words) {
  const auto lines = word_lines(text);
  return std::find(lines.begin(), lines.end(), words) != lines.end();
}

} // namespace

TEST_CASE("the text report tables the communication of the dimensions the plan uses") {
  const std::string text = sample().to_text();
  CHECK(text.find("in flight and hidden under compute on GPU 4") != std::string::npos);
  // dimension, collectives, on GPU 0, GB sent, in flight s, hidden s, exposed s
  CHECK(has_line(text, {"tp", "96", "48", "3.500", "0.300", "0.000", "0.235"}));
  CHECK(has_line(text, {"pp", "32", "8", "0.100", "0.250", "0.150", "0.100"}));
  CHECK_FALSE(has_line(text, {"cp", "0", "0", "0.000", "0.000", "0.000", "0.000"})); // none of it: not listed
}

TEST_CASE("the text report spells the step out along the critical path") {
  const std::string text = sample().to_text();
  CHECK(text.find("1.235 s = 0.700 compute (pacing stage 1) + 0.200 bubble + 0.235 allreduce + 0.100 p2p\n") !=
        std::string::npos);
  CHECK(text.find(" other\n") == std::string::npos);
  CHECK(text.find("backward         4      1           15") != std::string::npos);
  Report gap = sample();
  gap.critical_path.other_s = 0.2;
  CHECK(gap.to_text().find("+ 0.200 other\n") != std::string::npos);
}

TEST_CASE("a report of another schema or with a missing field is refused") {
  auto j = report_json(sample());
  j["schema"] = "simgpt.report/0";
  CHECK_THROWS_AS(report_from_json(j), InputError);
  j = report_json(sample());
  j.erase("step_time_s");
  CHECK_THROWS_AS(report_from_json(j), InputError);
  CHECK_THROWS_AS(report_from_json(nlohmann::ordered_json::array()), InputError);
}

TEST_CASE("absurd numbers print compactly in the text report") {
  // Fixed precision would spell 1e300 in 300 digits.
  Report r = sample();
  r.step_time_s = 1e300;
  r.samples_per_s = std::numeric_limits<double>::quiet_NaN();
  r.critical_path.comm_s["p2p"] = std::numeric_limits<double>::infinity();
  const std::string text = r.to_text();
  CHECK(text.find("step time   1e+300 s") != std::string::npos);
  CHECK(text.find("nan samples/s") != std::string::npos);
  CHECK(text.find("+ inf p2p") != std::string::npos);
  CHECK(text.size() < sample().to_text().size() + 100);
  CHECK(sample().to_text().find("step time   1.235 s") != std::string::npos);
}

TEST_CASE("an estimated report prints no communication wait per stage: its compute holds the collectives") {
  Report r = sample();
  r.fidelity.mode = "estimate";
  const std::string text = r.to_text();
  CHECK(text.find("a stage's compute s includes the collectives on its compute stream") != std::string::npos);
  // stage, gpu, layers, compute s, comm s: "-"
  CHECK(has_line(text, {"1", "4", "12", "0.900", "-", "0.000", "14.50", "15.78", "0.00/", "0.00/", "0.00"}));
}

TEST_CASE("the fidelity line says what was simulated, once, and folded expert-parallel groups when there are") {
  Report r = sample();
  const auto lines = [](const Report& report) {
    const std::string text = report.to_text();
    size_t n = 0;
    for (size_t at = text.find("  fidelity    "); at != std::string::npos; at = text.find("  fidelity    ", at + 1))
      ++n;
    return n;
  };
  for (const char* mode : {"symmetric", "full", "estimate"}) {
    r.fidelity.mode = mode;
    CHECK(lines(r) == 1);
  }
  r.fidelity.mode = "symmetric";
  CHECK(r.to_text().find("expert-parallel group") == std::string::npos);
  r.fidelity.expert_group_folded = 8;
  CHECK(r.to_text().find("each expert-parallel group's 8 members as one") != std::string::npos);
  CHECK(lines(r) == 1);
}
