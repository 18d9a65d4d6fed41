// What `simgpt plan` prints: the ranking with each key's next-best value, and the CSV of every
// candidate. Both are functions of the inputs alone, byte for byte.
#pragma once

#include "simgpt/planner/planner.hpp"

#include <string>

namespace simgpt {

// A candidate as the ranking names it: "dp2 tp2 pp4 mb2 none 1f1b tp-dp-pp".
std::string plan_name(const PlanCandidate& c);

// The top `top` plans (step time, throughput, peak memory and headroom, exposed-communication
// and bubble shares of the step), how many candidates each check removed, and for each key the
// winner's best neighbour changing only that key, with its cost in percent.
std::string plan_text(const PlanResult& result, int top);

// One line per candidate, in the search space's order: candidate, gpus, the searched keys,
// status, the static bounds, the simulated metrics (ok and oom) and the reason (invalid, failed,
// pruned).
std::string plan_csv(const PlanResult& result);

} // namespace simgpt
