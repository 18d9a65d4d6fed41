#include "study/column_label.hpp"

#include "study/input_value.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <string_view>
#include <utility>

namespace simgpt {

std::string column_words(const std::string& column) {
  // The report's fields (README, "What-if studies: sweeps") and the workload keys of README's
  // "Workload keys" a study most often sweeps.
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 41> names{{
      {"step_time_s", "step time"},
      {"samples_per_s", "throughput"},
      {"tokens_per_s", "throughput"},
      {"tflops_per_gpu", "model FLOP rate"},
      {"mfu", "model FLOPs utilisation"},
      {"time_to_train.days", "time to train"},
      {"time_to_train.gpu_hours", "GPU-hours to train"},
      {"peak_memory_gib", "peak memory"},
      {"peak_allocated_gib", "peak allocated memory"},
      {"oom", "out of memory"},
      {"critical_path.exposed_comm_s", "exposed communication"},
      {"critical_path.bubble_s", "pipeline bubble"},
      {"communication.tp.exposed_s", "exposed tensor-parallel communication"},
      {"communication.cp.exposed_s", "exposed context-parallel communication"},
      {"communication.ep.exposed_s", "exposed expert-parallel communication"},
      {"communication.dp.exposed_s", "exposed data-parallel communication"},
      {"communication.pp.exposed_s", "exposed pipeline communication"},
      {"network.delay", "network delay"},
      {"network.bandwidth", "network bandwidth"},
      {"draws.median_s", "median step time"},
      {"draws.p90_s", "90th-percentile step time"},
      {"draws.p99_s", "99th-percentile step time"},
      {"conditions.random_fraction", "share of GPUs slowed"},
      {"conditions.gpu_slowdown", "slowed GPU"},
      {"workload", "workload"},
      {"parallelism.dp", "data-parallel degree"},
      {"parallelism.tp", "tensor-parallel degree"},
      {"parallelism.pp", "pipeline-parallel degree"},
      {"parallelism.chunks", "model chunks per stage"},
      {"parallelism.zero", "ZeRO stage"},
      {"parallelism.schedule", "pipeline schedule"},
      {"training.micro_batch", "micro-batch size"},
      {"training.global_batch", "global batch size"},
      {"training.precision", "precision"},
      {"training.recompute", "recomputation"},
      {"model.seq_len", "sequence length"},
      {"model.layers", "layers"},
      {"model.hidden", "hidden size"},
      {"model.heads", "attention heads"},
      {"placement.gpus", "GPUs"},
      {"framework", "framework"},
  }};
  for (const auto& [key, words] : names)
    if (column == key)
      return std::string(words);
  std::string words = column;
  // A unit suffix metric_unit reads (an SI column's _s, _Bps, _B) is the label's "(unit)"; a rate
  // (tokens_per_s) keeps its words.
  for (const std::string_view suffix : {"_s", "_gib", "_Bps", "_B"})
    if (words.ends_with(suffix) && words.size() > suffix.size() && !words.ends_with("_per_s")) {
      words.resize(words.size() - suffix.size());
      break;
    }
  std::replace(words.begin(), words.end(), '_', ' ');
  std::replace(words.begin(), words.end(), '.', ' ');
  return words;
}

std::string value_words(const std::string& column, const std::string& value) {
  const std::string words = column_words(column);
  if (value == "default")
    return "default " + words;
  // A quantity's unit apart from its number, as a reader writes it: "10 Gbps", "0 ms".
  const auto unit = std::find_if(value.begin(), value.end(), [](char c) {
    return (c >= 'a' && c <= 'z' && c != 'e') || (c >= 'A' && c <= 'Z' && c != 'E');
  });
  const std::optional<QuantityKind> kind = quantity_kind(value); // not "1f1b", which is a name
  const bool quantity = kind && *kind != QuantityKind::number && unit != value.begin() && unit != value.end();
  const std::string spaced =
      quantity ? std::string(value.begin(), unit) + " " + std::string(unit, value.end()) : value;
  return words + " " + spaced;
}

} // namespace simgpt
