// The report's communication by parallel dimension (report/communication): every collective and
// transfer counted under the dimension it serves, exposed time as on the critical path, hidden
// time only where compute runs beside it.
#include "support/isolate.hpp"
#include "report/report_json.hpp"
#include "simgpt/simulate.hpp"
#include "simgpt/workload/workload.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace simgpt;

namespace {

nlohmann::ordered_json run(const Overrides& o) {
  const DataPaths data = default_data_paths();
  return run_isolated([&] {
    const Workload w = load_workload(data.find("workloads/gpt3xl.yaml"), o);
    return report_json(simulate(data.find("platforms/p3_16xlarge.xml"), w, data));
  });
}

double field(const nlohmann::ordered_json& r, const char* dimension, const char* key) {
  return r["communication"][dimension][key].get<double>();
}

} // namespace

TEST_CASE("communication by dimension counts each collective once and adds up to the exposed communication") {
  // Tensor, pipeline and data parallelism at once, gradient buckets overlapped with the backward
  // (Megatron's --overlap-grad-reduce).
  const auto r = run({{"framework", "megatron"},       {"framework_options.collectives.dp_overlap", "true"},
                      {"parallelism.tp", "2"},         {"parallelism.pp", "2"},
                      {"parallelism.dp", "2"},         {"parallelism.schedule", "1f1b"},
                      {"training.global_batch", "16"}, {"training.micro_batch", "1"}});
  const auto& comm = r["communication"];
  std::vector<std::string> dimensions;
  for (const auto& [key, value] : comm.items())
    if (key != "view_gpu")
      dimensions.push_back(key);
  CHECK(dimensions == std::vector<std::string>{"tp", "cp", "ep", "dp", "pp", "host"});
  // The pacing stage's first GPU is the view.
  const int pacing = r["critical_path"]["pacing_stage"].get<int>();
  CHECK(comm["view_gpu"] == r["stages"][static_cast<size_t>(pacing)]["gpu"]);
  int collectives = 0;
  for (const auto& [kind, c] : r["collectives"].items())
    collectives += c["count"].get<int>();
  CHECK(field(r, "tp", "count") + field(r, "dp", "count") == collectives);
  CHECK(field(r, "pp", "count") == r["p2p_transfers"].get<double>());
  CHECK(field(r, "pp", "bytes") == Approx(r["p2p_bytes"].get<double>()));
  CHECK(field(r, "cp", "count") == 0);
  CHECK(field(r, "ep", "count") == 0);
  double exposed = 0;
  for (const char* d : {"tp", "cp", "ep", "dp", "pp"}) {
    INFO(d);
    exposed += field(r, d, "exposed_s");
    CHECK(field(r, d, "hidden_s") <= field(r, d, "in_flight_s") + 1e-9);
  }
  CHECK(exposed == Approx(r["critical_path"]["exposed_comm_s"].get<double>()));
  CHECK(field(r, "tp", "in_flight_s") > 0);
  // A tensor-parallel collective blocks the GPU's stream: nothing computes beside it.
  CHECK(field(r, "tp", "hidden_s") == Approx(0).margin(1e-9));
  // Overlapped buckets all-reduce while the backward computes.
  CHECK(field(r, "dp", "hidden_s") > 0);
  // The critical path's exposed communication by dimension says the same.
  CHECK(r["critical_path"]["comm_by_dimension_s"]["tp"].get<double>() == field(r, "tp", "exposed_s"));
}

TEST_CASE("context parallelism's all-to-alls count as cp, not as tensor or data parallelism") {
  const auto r = run({{"framework", "megatron"},          {"training.precision", "fp16"},
                      {"model.attention", "flash"},       {"model.seq_len", "16384"},
                      {"parallelism.pp", "1"},            {"parallelism.schedule", "1f1b"},
                      {"parallelism.dp", "2"},            {"parallelism.cp", "4"},
                      {"parallelism.cp_comm_type", "a2a"}, {"training.global_batch", "2"}});
  CHECK(field(r, "cp", "count") == r["collectives"]["alltoall"]["count"].get<double>());
  CHECK(field(r, "cp", "exposed_s") > 0);
  CHECK(field(r, "tp", "count") == 0);
  CHECK(field(r, "pp", "count") == 0);
  CHECK(field(r, "dp", "count") > 0); // gradients over dp x cp ranks
}

TEST_CASE("the communication report counts the collectives a kernel table's measured lines priced") {
  const DataPaths data = default_data_paths();
  const auto on = [&](const char* platform, const Overrides& o) {
    return run_isolated([&] {
      const Workload w = load_workload(data.find("workloads/gpt3xl.yaml"), o);
      return report_json(simulate(data.find(platform), w, data));
    });
  };
  const Overrides split{{"framework", "megatron"},       {"parallelism.tp", "4"},       {"parallelism.dp", "2"},
                        {"parallelism.sequence_parallel", "true"}, {"training.global_batch", "8"},
                        {"training.micro_batch", "1"}, {"training.precision", "bf16"},
                        {"parallelism.schedule", "1f1b"}, {"parallelism.pp", "1"}};
  // B200's table holds NVLink lines for 2, 4 and 8 ranks: every tensor- and data-parallel
  // collective of one node takes one.
  const auto b200 = on("platforms/dgx_b200.xml", split);
  CHECK(b200["communication"]["tp"]["count"].get<int>() > 0);
  CHECK(b200["communication"]["tp"]["from_table"] == b200["communication"]["tp"]["count"]);
  CHECK(b200["communication"]["dp"]["from_table"] == b200["communication"]["dp"]["count"]);
  // H200 has a kernel table with no collectives: NCCL's model, nothing counted.
  const auto h200 = on("platforms/dgx_h200.xml", split);
  CHECK(h200["communication"]["tp"]["count"].get<int>() > 0);
  CHECK_FALSE(h200["communication"]["tp"].contains("from_table"));
}
