// The workload as simulated: every key of every section, defaults included, after --set, in the
// file format's own spelling. A report carries it so that a result says what it simulated, and
// the same text read again (it is a workload file) simulates the same step.
#pragma once

#include "simgpt/workload/workload.hpp"

#include <nlohmann/json.hpp>

namespace simgpt {

// Sections in the file format's order (model, training, parallelism, placement, network,
// framework, framework_options); keys omitted only where their absence is the value (kv_heads 0,
// a dense model's expert keys, MLA's dimensions without latent attention, the fp8 keys of a run
// without fp8, placement.gpus, the network what-if, the framework's partition). Quantities carry SI units
// ("0.01s", "125000000Bps"), which parse back to the same double.
nlohmann::ordered_json resolved_workload_json(const Workload& w);

} // namespace simgpt
