// The MoE token dispatchers (parallelism.moe_dispatcher) and the expert-parallel overlap
// (parallelism.moe_a2a_overlap): the bytes each sends, the kernels each leaves to Megatron, and
// what the overlap hides on a replayed step.
#include "support/isolate.hpp"
#include "model/model.hpp"
#include "report/report_json.hpp"
#include "simgpt/core/error.hpp"
#include "simgpt/simulate.hpp"
#include "simgpt/workload/workload.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace simgpt;

namespace {

// Qwen3-30B-A3B's experts: 128 of them, 8 a token, over 8 GPUs.
ModelSpec qwen3_moe() {
  ModelSpec m{.layers = 48, .hidden = 2048, .heads = 32, .seq_len = 4096, .vocab = 151936, .ffn_hidden = 6144};
  m.experts = 128;
  m.top_k = 8;
  m.moe_ffn_hidden = 768;
  return m;
}

size_t memory_passes(const Kernels& ks) {
  size_t n = 0;
  for (const Kernel& k : ks)
    n += k.kind == Kernel::Kind::memory;
  return n;
}

} // namespace

TEST_CASE("the flex dispatchers send a token once to each GPU holding one of its experts") {
  // A GPU holds none of a token's 8 experts with probability C(112, 8) / C(128, 8).
  double none = 1;
  for (int i = 0; i < 8; ++i)
    none *= (112.0 - i) / (128.0 - i);
  CHECK(expected_destinations(128, 8, 8) == Approx(8 * (1 - none)));
  CHECK(expected_destinations(128, 8, 8) == Approx(5.30).epsilon(0.01));
  CHECK(expected_destinations(128, 8, 1) == Approx(1));   // one GPU holds them all
  CHECK(expected_destinations(8, 2, 8) == Approx(2));     // an expert a GPU: every copy to its own GPU
  const ModelSpec m = qwen3_moe();
  Shard s{.micro_batch = 4, .precision = Precision::bf16, .ep = 8};
  const double alltoall = all_to_all_bytes(m, s);
  CHECK(alltoall == Approx(4.0 * 4096 * 8 * 2048 * 2)); // a copy per chosen expert, bf16
  for (MoeDispatcher d : {MoeDispatcher::deepep, MoeDispatcher::hybridep}) {
    s.dispatcher = d;
    CHECK(all_to_all_bytes(m, s) == Approx(alltoall * expected_destinations(128, 8, 8) / 8));
  }
}

TEST_CASE("hybridep permutes inside its kernels, deepep and alltoall leave the permutation to Megatron") {
  const ModelSpec m = qwen3_moe();
  Shard s{.micro_batch = 4, .precision = Precision::bf16, .ep = 8};
  const MoeBlock alltoall = moe_block_forward(m, s, KernelForm{});
  s.dispatcher = MoeDispatcher::deepep;
  const MoeBlock deepep = moe_block_forward(m, s, KernelForm{});
  s.dispatcher = MoeDispatcher::hybridep;
  const MoeBlock hybridep = moe_block_forward(m, s, KernelForm{});
  CHECK(memory_passes(deepep.before_dispatch) == memory_passes(alltoall.before_dispatch));
  CHECK(memory_passes(hybridep.before_dispatch) + 1 == memory_passes(alltoall.before_dispatch));
  CHECK(memory_passes(hybridep.after_combine) + 1 == memory_passes(alltoall.after_combine));
  CHECK(hybridep.experts.size() == alltoall.experts.size());
}

namespace {

nlohmann::ordered_json run_mixtral(const Overrides& extra) {
  const DataPaths data = default_data_paths();
  Overrides o{{"model.layers", "4"}, {"parallelism.pp", "1"}, {"parallelism.dp", "8"}, {"parallelism.ep", "8"},
              {"placement.gpus", "8"}, {"training.global_batch", "64"}, {"model.seq_len", "2048"}};
  o.insert(o.end(), extra.begin(), extra.end());
  return run_isolated([&] {
    Workload w = load_workload(data.find("workloads/mixtral_8x7b.yaml"), o);
    return report_json(simulate(data.find("platforms/dgx_h100_x1.yaml"), w, data));
  });
}

double ep_exposed(const nlohmann::ordered_json& r) { return r["communication"]["ep"]["exposed_s"].get<double>(); }

} // namespace

TEST_CASE("the expert-parallel overlap hides the all-to-alls of paired passes, not of lone ones") {
  const auto plain = run_mixtral({});
  const auto overlapped = run_mixtral({{"parallelism.moe_a2a_overlap", "true"}});
  REQUIRE(ep_exposed(plain) > 0);
  // 8 micro-batches: 7 backwards run with the forward after them, the first forward and the last
  // backward alone. Mixtral's experts and attention outlast its all-to-alls on NVLink: what stays
  // exposed is about the two lone passes' (2 of the 16 passes' all-to-alls), and the step shortens.
  CHECK(ep_exposed(overlapped) < ep_exposed(plain) * 0.3);
  CHECK(ep_exposed(overlapped) > 0);
  CHECK(overlapped["step_time_s"].get<double>() < plain["step_time_s"].get<double>());
  // The report counts the overlapped all-to-alls' whole time in flight, and what ran beside the
  // partner's computation as hidden.
  const auto ep = [](const nlohmann::ordered_json& r, const char* key) {
    return r["communication"]["ep"][key].get<double>();
  };
  CHECK(ep(overlapped, "in_flight_s") == Approx(ep(plain, "in_flight_s")).epsilon(0.05));
  CHECK(ep(plain, "hidden_s") == Approx(0).margin(1e-9));
  CHECK(ep(overlapped, "hidden_s") > 0.7 * ep(overlapped, "in_flight_s"));
  CHECK(ep(overlapped, "hidden_s") + ep(overlapped, "exposed_s") <= ep(overlapped, "in_flight_s") + 1e-9);
  // One micro-batch: no pass has a partner, nothing is hidden.
  const Overrides one{{"training.global_batch", "8"}};
  const auto single = run_mixtral(one);
  Overrides one_overlapped = one;
  one_overlapped.emplace_back("parallelism.moe_a2a_overlap", "true");
  CHECK(run_mixtral(one_overlapped)["step_time_s"].get<double>() == Approx(single["step_time_s"].get<double>()));
}

TEST_CASE("an overlapped flex all-to-all slows the computation beside it by the SMs its kernels hold") {
  const Overrides hybrid{{"parallelism.moe_dispatcher", "hybridep"}, {"parallelism.moe_a2a_overlap", "true"}};
  Overrides free_sms = hybrid;
  free_sms.emplace_back("framework_options.collectives.hybridep_sms", "0");
  const auto held = run_mixtral(hybrid), free = run_mixtral(free_sms);
  // Hidden all-to-alls still cost 32 of the H100's 132 SMs for their time: the step is longer.
  CHECK(held["step_time_s"].get<double>() > free["step_time_s"].get<double>());
  // Without the overlap the SMs take nothing from the computation: the all-to-alls block the
  // stream whole either way (their own rate not bound here: dispatch_sm_bandwidth 0).
  const auto plain = run_mixtral({{"parallelism.moe_dispatcher", "hybridep"},
                                  {"framework_options.collectives.dispatch_sm_bandwidth", "0"}});
  const auto plain_free = run_mixtral({{"parallelism.moe_dispatcher", "hybridep"},
                                       {"framework_options.collectives.dispatch_sm_bandwidth", "0"},
                                       {"framework_options.collectives.hybridep_sms", "0"}});
  CHECK(plain["step_time_s"].get<double>() == plain_free["step_time_s"].get<double>());
  CHECK(held["step_time_s"].get<double>() < plain["step_time_s"].get<double>());
}

TEST_CASE("a flex dispatcher's all-to-all takes at least its bytes at the rate of the SMs its kernels hold") {
  // 1 GB/s an SM: Hybrid-EP's 32 SMs move 32 GB/s, far below the H100's NVLink.
  const Overrides slow{{"parallelism.moe_dispatcher", "hybridep"},
                       {"framework_options.collectives.dispatch_sm_bandwidth", "1GBps"}};
  const Overrides unbound{{"parallelism.moe_dispatcher", "hybridep"},
                          {"framework_options.collectives.dispatch_sm_bandwidth", "0"}};
  const auto bound = run_mixtral(slow), links = run_mixtral(unbound);
  const auto ep = [](const nlohmann::ordered_json& r, const char* key) {
    return r["communication"]["ep"][key].get<double>();
  };
  // Each GPU's exchange: a token once to each GPU holding one of its 2 experts, 4,096 wide in bf16.
  const DataPaths data = default_data_paths();
  const Workload w = load_workload(data.find("workloads/mixtral_8x7b.yaml"), {{"model.seq_len", "2048"}});
  const Shard s{.micro_batch = w.training.micro_batch, .precision = Precision::bf16, .ep = 8,
                .dispatcher = MoeDispatcher::hybridep};
  const double floor = all_to_all_bytes(w.model, s) / (32 * 1e9);
  const double exchanges = ep(bound, "per_gpu");
  CHECK(ep(bound, "in_flight_s") >= exchanges * floor);
  CHECK(ep(bound, "in_flight_s") == Approx(exchanges * floor).epsilon(0.03));
  CHECK(ep(links, "in_flight_s") < 0.5 * exchanges * floor);
  CHECK(bound["step_time_s"].get<double>() - links["step_time_s"].get<double>() ==
        Approx(ep(bound, "exposed_s") - ep(links, "exposed_s")).epsilon(0.02));
  // DeepEP's 20 SMs: slower still. The alltoall dispatcher is NCCL's, not bound by it.
  const auto deepep = run_mixtral({{"parallelism.moe_dispatcher", "deepep"},
                                   {"framework_options.collectives.dispatch_sm_bandwidth", "1GBps"}});
  CHECK(ep(deepep, "in_flight_s") == Approx(ep(bound, "in_flight_s") * 32 / 20).epsilon(0.03));
  const auto nccl = run_mixtral({{"framework_options.collectives.dispatch_sm_bandwidth", "1GBps"}});
  const auto nccl_unbound = run_mixtral({{"framework_options.collectives.dispatch_sm_bandwidth", "0"}});
  CHECK(nccl["step_time_s"].get<double>() == nccl_unbound["step_time_s"].get<double>());
  // The closed-form estimate takes the same bound.
  const auto estimated = run_isolated([&] {
    Workload e = load_workload(data.find("workloads/mixtral_8x7b.yaml"),
                               {{"model.layers", "4"}, {"parallelism.pp", "1"}, {"parallelism.dp", "8"},
                                {"parallelism.ep", "8"}, {"placement.gpus", "8"}, {"training.global_batch", "64"},
                                {"model.seq_len", "2048"}, {"parallelism.moe_dispatcher", "hybridep"},
                                {"framework_options.collectives.dispatch_sm_bandwidth", "1GBps"}});
    return report_json(simulate(data.find("platforms/dgx_h100_x1.yaml"), e, data,
                                SimulationOptions{.fidelity = SimulationOptions::Fidelity::estimate}));
  });
  CHECK(estimated["step_time_s"].get<double>() == Approx(bound["step_time_s"].get<double>()).epsilon(0.01));
}

TEST_CASE("the expert-parallel overlap is refused where Megatron-Core refuses it") {
  const DataPaths data = default_data_paths();
  const auto refusal = [&](const Overrides& o) -> std::string {
    try {
      load_workload(data.find("workloads/mixtral_8x7b.yaml"), o);
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  CHECK_THAT(refusal({{"parallelism.moe_a2a_overlap", "true"}, {"parallelism.ep", "1"}}),
             Catch::Contains("parallelism.moe_a2a_overlap") && Catch::Contains("ep of at least 2"));
  CHECK_THAT(refusal({{"parallelism.moe_a2a_overlap", "true"}}), // the workload's pp 4 with 1F1B
             Catch::Contains("needs the interleaved schedule"));
  CHECK_THAT(refusal({{"parallelism.moe_a2a_overlap", "true"}, {"parallelism.pp", "1"}, {"training.recompute", "full"}}),
             Catch::Contains("not with training.recompute full"));
  CHECK_THAT(refusal({{"parallelism.moe_dispatcher", "nccl"}}),
             Catch::Contains("parallelism.moe_dispatcher") && Catch::Contains("hybridep"));
}

TEST_CASE("experts whole beside tensor parallelism (etp 1) route each GPU's own tokens, unsplit") {
  const ModelSpec m = qwen3_moe();
  const Shard split{.micro_batch = 1, .tp = 2, .precision = Precision::bf16, .sequence_parallel = true, .ep = 8};
  Shard whole = split;
  whole.etp = 1;
  // The same copies leave each GPU (its own sequence-parallel tokens'), for half the routed tokens
  // a rank's experts see: no tensor-parallel gather after the exchange.
  CHECK(all_to_all_bytes(m, whole) == Approx(all_to_all_bytes(m, split)));
  CHECK(routed_tokens(m, whole) == Approx(routed_tokens(m, split) / 2));
  // As many expert FLOPs a GPU, in GEMMs of half the rows and the whole width.
  const MoeBlock a = moe_block_forward(m, split, KernelForm{}), b = moe_block_forward(m, whole, KernelForm{});
  CHECK(sum_flops(b.experts) == Approx(sum_flops(a.experts)));
  CHECK(b.experts.front().m == Approx(a.experts.front().m / 2));
  CHECK(b.experts.front().n == Approx(2 * a.experts.front().n));
  ModelSpec unbiased = m; // FC2's bias is whole on every tensor rank
  unbiased.bias = false;
  CHECK(expert_parameters(unbiased, 1, 8) == Approx(2 * expert_parameters(unbiased, 2, 8)));
  const std::string yaml = "model: {layers: 4, hidden: 2048, heads: 32, seq_len: 4096, vocab: 151936, experts: 128, "
                           "top_k: 8, moe_ffn_hidden: 768}\ntraining: {global_batch: 64, precision: bf16}\n"
                           "parallelism: {tp: 2, sequence_parallel: true, ";
  CHECK(parse_workload(yaml + "dp: 8, ep: 8, etp: 1}\n", "w.yaml").parallelism.expert_tp() == 1);
  const auto refusal = [&](const std::string& par) {
    try {
      parse_workload(yaml + par + "}\n", "w.yaml");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  // Megatron's other expert tensor sizes, and groups that split a replica's tensor ranks, are not modelled.
  CHECK_THAT(refusal("dp: 8, ep: 8, etp: 3"), Catch::Contains("parallelism.etp") && Catch::Contains("expected 1, or tp 2"));
  CHECK_THAT(refusal("dp: 8, ep: 1, etp: 1"), Catch::Contains("parallelism.ep") && Catch::Contains("multiple of tp"));
  // 8 GPUs' worth of expert ranks: dp 8 x tp 2 holds two groups of ep 8, dp 4 x tp 2 one.
  CHECK_THAT(refusal("dp: 4, ep: 16, etp: 1"), Catch::Contains("parallelism.ep"));
}

TEST_CASE("Megatron-core's recompute module moe reruns each MoE layer whole, its all-to-alls with it") {
  const Overrides selective{{"training.recompute", "selective"}};
  Overrides whole_layer = selective;
  whole_layer.emplace_back("training.recompute_modules", "moe");
  Overrides activation = selective;
  activation.emplace_back("training.recompute_modules", "moe_act");
  const auto plain = run_mixtral({}), moe = run_mixtral(whole_layer), act = run_mixtral(activation);
  // A dispatch and a combine a layer forward and backward, and the rerun's two before the backward.
  const auto a2a = [](const nlohmann::ordered_json& r) { return r["collectives"]["alltoall"]["count"].get<double>(); };
  CHECK(a2a(moe) == Approx(1.5 * a2a(plain)));
  CHECK(moe["step_time_s"].get<double>() > act["step_time_s"].get<double>());
  // Its activations come off but the layer's input: less than the experts' activation alone frees.
  CHECK(moe["peak_memory_gib"].get<double>() < act["peak_memory_gib"].get<double>());
  CHECK(act["peak_memory_gib"].get<double>() < plain["peak_memory_gib"].get<double>());
}
