// parallelism.tp_comm_overlap (Megatron's --tp-comm-overlap, TransformerEngine's userbuffers):
// sequence parallelism's all-gathers and reduce-scatters hold the stream only for one of their
// tp chunks and what the GEMM beside them does not cover.
#include "support/isolate.hpp"
#include "report/report_json.hpp"
#include "simgpt/simulate.hpp"
#include "simgpt/workload/workload.hpp"

#include <catch2/catch.hpp>

using namespace simgpt;

namespace {

nlohmann::ordered_json run_tp(const char* overlap, const char* fidelity = nullptr,
                              const char* platform = "platforms/p3_16xlarge.xml", const char* tp = "8",
                              const char* dp = "1", const char* sms = nullptr) {
  const DataPaths data = default_data_paths();
  return run_isolated([&] {
    std::vector<std::pair<std::string, std::string>> overrides = {{"framework", "megatron"},
                                      {"parallelism.tp", tp},
                                      {"parallelism.pp", "1"},
                                      {"parallelism.dp", dp},
                                      {"parallelism.sequence_parallel", "true"},
                                      {"parallelism.tp_comm_overlap", overlap},
                                      {"training.global_batch", "4"},
                                      {"training.micro_batch", "1"}};
    if (sms)
      overrides.emplace_back("framework_options.collectives.tp_overlap_sms", sms);
    const Workload w = load_workload(data.find("workloads/gpt3xl.yaml"), overrides);
    SimulationOptions options;
    if (fidelity)
      options.fidelity = SimulationOptions::Fidelity::estimate;
    return report_json(simulate(data.find(platform), w, data, options));
  });
}

} // namespace

TEST_CASE("tensor-parallel collectives overlapped with their GEMMs expose less of the step") {
  const auto blocking = run_tp("false"), overlapped = run_tp("true");
  const double exposed = blocking["communication"]["tp"]["exposed_s"].get<double>();
  const double exposed_overlapped = overlapped["communication"]["tp"]["exposed_s"].get<double>();
  CHECK(exposed_overlapped < exposed);
  // Never below one chunk of each collective: at least 1/tp of what they took blocking.
  CHECK(exposed_overlapped >= exposed / 8 * 0.99);
  CHECK(overlapped["step_time_s"].get<double>() < blocking["step_time_s"].get<double>());
  // The same collectives and bytes.
  CHECK(overlapped["communication"]["tp"]["count"] == blocking["communication"]["tp"]["count"]);
  // The estimate sees the same overlap.
  CHECK(run_tp("true", "estimate")["step_time_s"].get<double>() < run_tp("false", "estimate")["step_time_s"].get<double>());
}

TEST_CASE("tensor-parallel collectives on links that other traffic shares overlap their GEMMs too") {
  // One DGX H100: the tensor-parallel groups' NVLink ports also carry the data-parallel
  // all-reduce, so their collectives run as flows (not folded) beside the GEMMs.
  const char* dgx = "platforms/dgx_h100_x1.yaml";
  const auto blocking = run_tp("false", nullptr, dgx, "4", "2"), overlapped = run_tp("true", nullptr, dgx, "4", "2");
  const double exposed = blocking["communication"]["tp"]["exposed_s"].get<double>();
  const double exposed_overlapped = overlapped["communication"]["tp"]["exposed_s"].get<double>();
  CHECK(exposed_overlapped < 0.7 * exposed);
  CHECK(exposed_overlapped >= exposed / 4 * 0.99);
  CHECK(overlapped["step_time_s"].get<double>() < blocking["step_time_s"].get<double>());
  // Each collective counted once, with its bytes, though it runs in two parts.
  CHECK(overlapped["communication"]["tp"]["count"] == blocking["communication"]["tp"]["count"]);
  CHECK(overlapped["communication"]["tp"]["bytes"].get<double>() ==
        Approx(blocking["communication"]["tp"]["bytes"].get<double>()));
  // The closed-form estimate, which overlaps every group's, agrees within a few percent.
  CHECK(overlapped["step_time_s"].get<double>() ==
        Approx(run_tp("true", "estimate", dgx, "4", "2")["step_time_s"].get<double>()).epsilon(0.05));
}

TEST_CASE("a reduce-scatter overlapped with its GEMM takes the SMs its kernels hold from it") {
  // The megatron profile's collectives.tp_overlap_sms (TransformerEngine's userbuffers: 16 SMs for
  // the "pipeline" and "bulk" reduce-scatters): the GEMMs beside run on the rest, a little longer.
  const double held = run_tp("true")["step_time_s"].get<double>();
  const double free = run_tp("true", nullptr, "platforms/p3_16xlarge.xml", "8", "1", "0")["step_time_s"].get<double>();
  CHECK(held > free);
  CHECK(held < 1.1 * free);
  // Without the overlap nothing is held.
  CHECK(run_tp("false")["step_time_s"].get<double>() ==
        run_tp("false", nullptr, "platforms/p3_16xlarge.xml", "8", "1", "0")["step_time_s"].get<double>());
}

TEST_CASE("tp_comm_overlap needs sequence parallelism, as Megatron-LM says") {
  CHECK_THROWS_WITH(parse_workload("model: {layers: 2, hidden: 256, heads: 4, seq_len: 128, vocab: 1000}\n"
                                   "training: {global_batch: 4}\nparallelism: {dp: 1, tp: 2, tp_comm_overlap: true}\n",
                                   "w.yaml"),
                    Catch::Contains("w.yaml: parallelism.tp_comm_overlap") &&
                        Catch::Contains("needs tp > 1 and parallelism.sequence_parallel true"));
}
