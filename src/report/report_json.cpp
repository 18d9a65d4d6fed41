// A report as JSON: what `--format json` prints and what the parent of `simgpt point` and
// `simgpt row` reads back.
#include "report/report_json.hpp"

#include "core/json_text.hpp"

#include "simgpt/core/error.hpp"

#include <fmt/format.h>

#include <cmath>

namespace simgpt {
namespace {

// Rounds to 9 significant digits so that JSON output does not depend on the last bits of
// floating-point sums.
double rounded(double x) {
  if (x == 0 || !std::isfinite(x))
    return x;
  return std::stod(fmt::format("{:.9g}", x));
}

nlohmann::ordered_json critical_path_json(const CriticalPathReport& c) {
  nlohmann::ordered_json j;
  j["compute_s"] = rounded(c.compute_s);
  j["bubble_s"] = rounded(c.bubble_s);
  j["exposed_comm_s"] = rounded(c.exposed_comm_s);
  auto& comm = j["comm_s"] = nlohmann::ordered_json::object();
  for (const auto& [kind, seconds] : c.comm_s)
    comm[kind] = rounded(seconds);
  auto& by_dimension = j["comm_by_dimension_s"] = nlohmann::ordered_json::object();
  for (const auto& [dimension, seconds] : c.dimension_s)
    by_dimension[dimension] = rounded(seconds);
  j["other_s"] = rounded(c.other_s);
  j["pacing_stage"] = c.pacing_stage;
  auto& stages = j["stages"] = nlohmann::ordered_json::array();
  for (const CriticalPathReport::Stage& s : c.stages)
    stages.push_back({{"stage", s.stage}, {"compute_s", rounded(s.compute_s)}, {"bubble_s", rounded(s.bubble_s)}});
  auto& top = j["top_tasks"] = nlohmann::ordered_json::array();
  for (const CriticalPathReport::Task& t : c.top_tasks)
    top.push_back({{"kind", t.kind},
                   {"gpu", t.gpu},
                   {"stage", t.stage},
                   {"micro_batch", t.micro_batch},
                   {"start_s", rounded(t.start_s)},
                   {"duration_s", rounded(t.duration_s)}});
  return j;
}

} // namespace

nlohmann::ordered_json report_inputs_json(const ReportInputs& in) {
  nlohmann::ordered_json j;
  j["simgpt_version"] = in.version;
  auto& files = j["inputs"] = nlohmann::ordered_json::array();
  for (const ReportInputs::File& f : in.files)
    files.push_back({{"role", f.role},
                     {"file", f.path},
                     {"digest", f.digest.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(f.digest)}});
  j["overrides"] = in.overrides;
  j["resolved_workload"] =
      in.resolved_workload.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json::parse(in.resolved_workload);
  return j;
}

nlohmann::ordered_json report_json(const Report& r) {
  nlohmann::ordered_json j;
  j["schema"] = kReportSchema;
  j["platform"] = r.platform;
  j["workload"] = r.workload;
  j["framework"] = r.framework;
  j["schedule"] = r.schedule;
  j["gpus"] = r.gpus;
  j["dp"] = r.dp;
  j["dp_derived"] = r.dp_derived;
  j["tp"] = r.tp;
  j["pp"] = r.pp;
  j["micro_batches"] = r.micro_batches;
  j["fidelity"] = {{"mode", r.fidelity.mode},
                   {"replicas_simulated", r.fidelity.replicas_simulated},
                   {"tensor_ranks_simulated", r.fidelity.tensor_ranks_simulated},
                   {"expert_group_folded", r.fidelity.expert_group_folded}};
  j["step_time_s"] = rounded(r.step_time_s);
  j["samples_per_s"] = rounded(r.samples_per_s);
  j["tokens_per_s"] = rounded(r.tokens_per_s);
  j["model_flops"] = rounded(r.model_flops);
  j["tflops_per_gpu"] = rounded(r.tflops_per_gpu);
  j["mfu"] = rounded(r.mfu);
  j["hfu"] = rounded(r.hfu);
  j["peak_tflops_per_gpu"] = rounded(r.peak_tflops_per_gpu);
  j["peak_precision"] = r.peak_precision;
  if (r.time_to_train)
    j["time_to_train"] = {{"tokens", rounded(r.time_to_train->tokens)},
                          {"days", rounded(r.time_to_train->days)},
                          {"gpu_hours", rounded(r.time_to_train->gpu_hours)},
                          {"cost", rounded(r.time_to_train->cost)}};
  j["p2p_transfers"] = r.p2p_transfers;
  j["p2p_bytes"] = rounded(r.p2p_bytes);
  j["critical_path"] = critical_path_json(r.critical_path);
  auto& coll = j["collectives"] = nlohmann::ordered_json::object();
  for (const Report::Collectives& c : r.collectives)
    coll[c.kind] = {{"count", c.count}, {"per_gpu", c.per_gpu}, {"bytes", rounded(c.bytes)}};
  if (!r.communication.empty()) {
    auto& comm = j["communication"] = nlohmann::ordered_json::object();
    comm["view_gpu"] = r.communication_gpu;
    for (const Report::Communication& c : r.communication)
      comm[c.dimension] = {{"count", c.count},
                           {"per_gpu", c.per_gpu},
                           {"bytes", rounded(c.bytes)},
                           {"in_flight_s", rounded(c.in_flight_s)},
                           {"hidden_s", rounded(c.hidden_s)},
                           {"exposed_s", rounded(c.exposed_s)}};
    for (const Report::Communication& c : r.communication)
      if (c.from_table > 0)
        comm[c.dimension]["from_table"] = c.from_table;
  }
  constexpr double GiB = 1024.0 * 1024 * 1024;
  j["peak_memory_gib"] = rounded(r.peak_memory_bytes / GiB);
  j["peak_memory_stage"] = r.peak_memory_stage;
  j["peak_allocated_gib"] = rounded(r.peak_allocated_bytes / GiB);
  j["peak_reserved_gib"] = rounded(r.peak_reserved_bytes / GiB);
  j["oom"] = r.oom;
  j["oom_stages"] = r.oom_stages;
  if (r.estimate)
    j["estimate"] = {{"step_time_s", rounded(r.estimate->step_time_s)},
                     {"peak_memory_gib", rounded(r.estimate->peak_memory_bytes / GiB)},
                     {"contended", r.estimate->contended}};
  if (r.first_gpu > 0 || r.neighbour_jobs > 0)
    j["placement"] = {{"first_gpu", r.first_gpu}, {"neighbour_jobs", r.neighbour_jobs}};
  if (!r.gpu_models.empty())
    j["gpu_models"] = r.gpu_models;
  if (r.conditions) {
    const Report::Conditions& c = *r.conditions;
    auto& cj = j["conditions"] = nlohmann::ordered_json::object();
    auto& gpus = cj["gpus"] = nlohmann::ordered_json::array();
    for (const auto& g : c.gpus)
      gpus.push_back({{"gpu", g.gpu}, {"factor", rounded(g.factor)}, {"path_compute_s", rounded(g.path_compute_s)},
                      {"path_cost_s", rounded(g.path_cost_s)}});
    auto& links = cj["links"] = nlohmann::ordered_json::array();
    for (const auto& l : c.links)
      links.push_back({{"link", l.link}, {"bandwidth_factor", rounded(l.bandwidth_factor)},
                       {"latency_added_s", rounded(l.latency_added_s)}, {"down", l.down}, {"path_s", rounded(l.path_s)}});
    if (c.random)
      cj["random"] = {{"fraction", rounded(c.random_fraction)}, {"seed", c.seed}};
    cj["path_cost_s"] = rounded(c.path_cost_s);
    cj["every_replica"] = c.every_replica;
  }
  auto& kernels = j["kernel_time"] = nlohmann::ordered_json::object();
  kernels["tables"] = r.kernel_tables;
  for (const Report::KernelTime& k : r.kernel_time)
    kernels["kinds"][k.kind] = {{"measured_s", rounded(k.measured_s)}, {"fallback_s", rounded(k.fallback_s)}};
  auto& arr = j["stages"] = nlohmann::ordered_json::array();

  for (const StageReport& s : r.stages) {
    const MemoryReport& m = s.memory;
    arr.push_back({{"stage", s.stage},
                   {"gpu", s.gpu},
                   {"layers", s.layers},
                   {"compute_s", rounded(s.compute_s)},
                   {"comm_wait_s", rounded(s.comm_wait_s)},
                   {"idle_s", rounded(s.idle_s)},
                   {"memory_gib",
                    {{"peak", rounded(m.peak / GiB)},
                     {"capacity", rounded(m.capacity / GiB)},
                     {"usable", rounded(m.usable / GiB)},
                     {"peak_time_s", rounded(m.peak_time_s)},
                     {"in_flight_micro_batches", m.in_flight},
                     {"weights", rounded(m.weights / GiB)},
                     {"gradients", rounded(m.gradients / GiB)},
                     {"optimizer_state", rounded(m.optimizer_state / GiB)},
                     {"activations", rounded(m.activations / GiB)},
                     {"transient", rounded(m.transient / GiB)},
                     {"framework", rounded(m.framework / GiB)}}}});
  }
  // After the figures, what they were made from.
  const nlohmann::ordered_json inputs = report_inputs_json(r.inputs);
  for (const auto& [key, value] : inputs.items())
    j[key] = value;
  return j;
}

namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;

MemoryReport memory_from_json(const nlohmann::ordered_json& m) {
  MemoryReport r;
  r.peak = m.at("peak").get<double>() * kGiB;
  r.capacity = m.at("capacity").get<double>() * kGiB;
  r.usable = m.at("usable").get<double>() * kGiB;
  r.peak_time_s = m.at("peak_time_s").get<double>();
  r.in_flight = m.at("in_flight_micro_batches").get<int>();
  r.weights = m.at("weights").get<double>() * kGiB;
  r.gradients = m.at("gradients").get<double>() * kGiB;
  r.optimizer_state = m.at("optimizer_state").get<double>() * kGiB;
  r.activations = m.at("activations").get<double>() * kGiB;
  r.transient = m.at("transient").get<double>() * kGiB;
  r.framework = m.at("framework").get<double>() * kGiB;
  return r;
}

CriticalPathReport critical_path_from_json(const nlohmann::ordered_json& j) {
  CriticalPathReport c;
  c.compute_s = j.at("compute_s").get<double>();
  c.bubble_s = j.at("bubble_s").get<double>();
  c.exposed_comm_s = j.at("exposed_comm_s").get<double>();
  for (const auto& [kind, seconds] : j.at("comm_s").items())
    c.comm_s[kind] = seconds.get<double>();
  if (j.contains("comm_by_dimension_s")) // reports written before the breakdown by dimension have none
    for (const auto& [dimension, seconds] : j.at("comm_by_dimension_s").items())
      c.dimension_s[dimension] = seconds.get<double>();
  c.other_s = j.at("other_s").get<double>();
  c.pacing_stage = j.at("pacing_stage").get<int>();
  for (const auto& s : j.at("stages"))
    c.stages.push_back({s.at("stage").get<int>(), s.at("compute_s").get<double>(), s.at("bubble_s").get<double>()});
  for (const auto& t : j.at("top_tasks"))
    c.top_tasks.push_back({t.at("kind").get<std::string>(), t.at("gpu").get<int>(), t.at("stage").get<int>(),
                           t.at("micro_batch").get<int>(), t.at("start_s").get<double>(),
                           t.at("duration_s").get<double>()});
  return c;
}

StageReport stage_from_json(const nlohmann::ordered_json& s) {
  StageReport r;
  r.stage = s.at("stage").get<int>();
  r.gpu = s.at("gpu").get<int>();
  r.layers = s.at("layers").get<int>();
  r.compute_s = s.at("compute_s").get<double>();
  r.comm_wait_s = s.at("comm_wait_s").get<double>();
  r.idle_s = s.at("idle_s").get<double>();
  r.memory = memory_from_json(s.at("memory_gib"));
  return r;
}

} // namespace

Report report_from_json(const nlohmann::ordered_json& j) {
  if (!j.is_object() || !j.contains("schema") || j["schema"] != kReportSchema)
    throw InputError("report", fmt::format("expected a JSON object with schema \"{}\"", kReportSchema));
  Report r;
  try {
    r.platform = j.at("platform").get<std::string>();
    r.workload = j.at("workload").get<std::string>();
    r.framework = j.at("framework").get<std::string>();
    r.schedule = j.at("schedule").get<std::string>();
    r.gpus = j.at("gpus").get<int>();
    r.dp = j.at("dp").get<int>();
    r.dp_derived = j.value("dp_derived", false); // reports of an earlier simgpt have none
    r.tp = j.at("tp").get<int>();
    r.pp = j.at("pp").get<int>();
    r.micro_batches = j.at("micro_batches").get<int>();
    r.fidelity.mode = j.at("fidelity").at("mode").get<std::string>();
    r.fidelity.replicas_simulated = j.at("fidelity").at("replicas_simulated").get<int>();
    r.fidelity.tensor_ranks_simulated = j.at("fidelity").at("tensor_ranks_simulated").get<int>();
    r.fidelity.expert_group_folded = j.at("fidelity").value("expert_group_folded", 0); // none before
    r.step_time_s = j.at("step_time_s").get<double>();
    r.samples_per_s = j.at("samples_per_s").get<double>();
    r.tokens_per_s = j.at("tokens_per_s").get<double>();
    r.model_flops = j.at("model_flops").get<double>();
    r.tflops_per_gpu = j.at("tflops_per_gpu").get<double>();
    // Reports of an earlier simgpt have no utilisation or time to train.
    r.mfu = j.value("mfu", 0.0);
    r.hfu = j.value("hfu", 0.0);
    r.peak_tflops_per_gpu = j.value("peak_tflops_per_gpu", 0.0);
    r.peak_precision = j.value("peak_precision", std::string());
    if (j.contains("time_to_train")) {
      const auto& t = j.at("time_to_train");
      r.time_to_train = Report::TimeToTrain{t.at("tokens").get<double>(), t.at("days").get<double>(),
                                            t.at("gpu_hours").get<double>(), t.at("cost").get<double>()};
    }
    r.p2p_transfers = j.at("p2p_transfers").get<int>();
    r.p2p_bytes = j.at("p2p_bytes").get<double>();
    r.critical_path = critical_path_from_json(j.at("critical_path"));
    for (const auto& [kind, c] : j.at("collectives").items())
      r.collectives.push_back({kind, c.at("count").get<int>(), c.at("per_gpu").get<int>(), c.at("bytes").get<double>()});
    if (j.contains("communication"))
      for (const auto& [dimension, c] : j.at("communication").items()) {
        if (dimension == "view_gpu") {
          r.communication_gpu = c.get<int>();
          continue;
        }
        r.communication.push_back({dimension, c.at("count").get<int>(), c.at("per_gpu").get<int>(),
                                   c.at("bytes").get<double>(), c.at("in_flight_s").get<double>(),
                                   c.at("hidden_s").get<double>(), c.at("exposed_s").get<double>(),
                                   c.value("from_table", 0)});
      }
    r.peak_memory_bytes = j.at("peak_memory_gib").get<double>() * kGiB;
    r.peak_memory_stage = j.at("peak_memory_stage").get<int>();
    r.peak_allocated_bytes = j.at("peak_allocated_gib").get<double>() * kGiB;
    r.peak_reserved_bytes = j.at("peak_reserved_gib").get<double>() * kGiB;
    r.oom = j.at("oom").get<bool>();
    r.oom_stages = j.at("oom_stages").get<std::vector<int>>();
    if (j.contains("estimate"))
      r.estimate = Report::Estimate{j.at("estimate").at("step_time_s").get<double>(),
                                    j.at("estimate").at("peak_memory_gib").get<double>() * kGiB,
                                    j.at("estimate").at("contended").get<bool>()};
    if (j.contains("placement")) {
      r.first_gpu = j.at("placement").at("first_gpu").get<int>();
      r.neighbour_jobs = j.at("placement").at("neighbour_jobs").get<int>();
    }
    if (j.contains("gpu_models"))
      r.gpu_models = j.at("gpu_models").get<std::string>();
    if (j.contains("conditions")) {
      const auto& cj = j.at("conditions");
      Report::Conditions c;
      for (const auto& g : cj.at("gpus"))
        c.gpus.push_back({g.at("gpu").get<int>(), g.at("factor").get<double>(), g.at("path_compute_s").get<double>(),
                          g.at("path_cost_s").get<double>()});
      for (const auto& l : cj.at("links"))
        c.links.push_back({l.at("link").get<std::string>(), l.at("bandwidth_factor").get<double>(),
                           l.at("latency_added_s").get<double>(), l.at("down").get<bool>(), l.at("path_s").get<double>()});
      if (cj.contains("random")) {
        c.random = true;
        c.random_fraction = cj.at("random").at("fraction").get<double>();
        c.seed = cj.at("random").at("seed").get<uint64_t>();
      }
      c.path_cost_s = cj.at("path_cost_s").get<double>();
      c.every_replica = cj.at("every_replica").get<bool>();
      r.conditions = c;
    }
    for (const auto& s : j.at("stages"))
      r.stages.push_back(stage_from_json(s));
    if (j.contains("kernel_time")) // reports written before kernel tables have none
      r.kernel_tables = j.at("kernel_time").at("tables").get<std::vector<std::string>>();
    if (j.contains("kernel_time") && j.at("kernel_time").contains("kinds"))
      for (const auto& [kind, k] : j.at("kernel_time").at("kinds").items())
        r.kernel_time.push_back({kind, k.at("measured_s").get<double>(), k.at("fallback_s").get<double>()});
  } catch (const nlohmann::json::exception& e) {
    throw InputError("report", fmt::format("not a simgpt report: {}", e.what()));
  }
  return r;
}

std::string Report::to_json_text() const { return json_text(report_json(*this)); }

} // namespace simgpt
