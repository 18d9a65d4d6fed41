#include "workload/key_suggestion.hpp"

#include <algorithm>
#include <array>
#include <string_view>
#include <utility>

namespace simgpt {
namespace {

// Megatron-LM's arguments (megatron/training/arguments.py), with - as _, for the workload keys
// they set: a Megatron user writes these first.
constexpr std::array<std::pair<std::string_view, std::string_view>, 18> kMegatronNames{{
    {"num_layers", "model.layers"},
    {"hidden_size", "model.hidden"},
    {"num_attention_heads", "model.heads"},
    {"seq_length", "model.seq_len"},
    {"max_position_embeddings", "model.seq_len"},
    {"ffn_hidden_size", "model.ffn_hidden"},
    {"num_query_groups", "model.kv_heads"},
    {"multi_latent_attention", "model.latent_attention"},
    {"vocab_size", "model.vocab"},
    {"swiglu", "model.mlp"},
    {"normalization", "model.norm"},
    {"position_embedding_type", "model.position"},
    {"micro_batch_size", "training.micro_batch"},
    {"global_batch_size", "training.global_batch"},
    {"tensor_model_parallel_size", "parallelism.tp"},
    {"pipeline_model_parallel_size", "parallelism.pp"},
    {"sequence_parallel", "parallelism.sequence_parallel"},
    {"recompute_granularity", "training.recompute"},
}};

// Levenshtein's edit distance.
size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string_view key_of(std::string_view dotted) {
  const size_t dot = dotted.find('.');
  return dot == std::string_view::npos ? dotted : dotted.substr(dot + 1);
}

} // namespace

std::optional<std::string> suggest_key(const std::string& unknown, const std::vector<std::string>& valid) {
  std::string name(key_of(unknown));
  std::replace(name.begin(), name.end(), '-', '_');
  while (!name.empty() && name.front() == '_')
    name.erase(name.begin());
  for (const std::string& v : valid) // the right key in the wrong section
    if (key_of(v) == name)
      return v;
  for (const auto& [megatron, key] : kMegatronNames)
    if (name == megatron)
      return std::string(key);
  std::optional<std::string> best;
  size_t best_distance = std::max<size_t>(2, name.size() / 3) + 1; // at most a third of it wrong
  for (const std::string& v : valid) {
    const size_t d = std::min(edit_distance(unknown, v), edit_distance(name, key_of(v)));
    if (d < best_distance) {
      best_distance = d;
      best = v;
    }
  }
  return best;
}

} // namespace simgpt
