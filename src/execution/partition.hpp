// Pipeline partition: how many transformer layers each (virtual) stage holds.
#pragma once

#include <vector>

namespace simgpt {

// Whole layers per stage, at least one each, summing to `layers`, that minimise the heaviest
// stage's weight: `layer` per layer, plus `first_extra` on the first stage (embedding) and
// `last_extra` on the last (head). Among equally heavy cuts, earlier stages take the spare layers.
std::vector<int> balanced_stage_layers(int layers, int stages, double layer, double first_extra, double last_extra);

} // namespace simgpt
