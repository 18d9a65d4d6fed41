// Megatron-Core's pipeline layout notation (--pipeline-model-parallel-layout), read as the layers
// each virtual pipeline stage holds: what `simgpt import megatron` turns into parallelism.partition.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace simgpt {

// One virtual pipeline stage of a layout: how many of each kind of layer it holds.
struct LayoutStage {
  int64_t decoder = 0;
  int64_t mtp = 0;
  int64_t embedding = 0;
  int64_t loss = 0;
};

// The stages of `layout` in model order (virtual stage v of pipeline rank p at v x pp + p), as
// megatron/core/transformer/pipeline_parallel_layer_layout.py parses it (parse_str_to_list:
// E embedding, t decoder layer, m MTP layer, L loss, | between stages, commas ignored, (...)*n
// then x*n repeated). Throws InputError at `where` for a character Megatron refuses, a repeat
// without its count, a layout that does not begin with E and end with L (validate_layer_layout),
// or one past about `max_layers` layers in all.
std::vector<LayoutStage> parse_pipeline_layout(std::string_view layout, const std::string& where, int64_t max_layers);

} // namespace simgpt
