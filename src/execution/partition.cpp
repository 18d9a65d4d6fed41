#include "execution/partition.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace simgpt {

std::vector<int> balanced_stage_layers(int layers, int stages, double layer, double first_extra, double last_extra) {
  if (stages < 1 || layers < stages || !(layer > 0))
    throw std::invalid_argument("balanced_stage_layers: needs layer > 0 and at least one layer per stage");
  auto extra = [&](int s) { return (s == 0 ? first_extra : 0.0) + (s == stages - 1 ? last_extra : 0.0); };
  // The heaviest stage of the best cut weighs n * layer + extra(s) for some stage s and count n:
  // try those bounds from the lightest up and keep the first that can hold every layer.
  std::vector<double> bounds;
  for (int s = 0; s < stages; ++s)
    for (int n = 1; n <= layers; ++n)
      bounds.push_back(n * layer + extra(s));
  std::sort(bounds.begin(), bounds.end());
  for (double bound : bounds) {
    std::vector<int> counts(static_cast<size_t>(stages));
    long total = 0;
    bool fits = true;
    for (int s = 0; s < stages && fits; ++s) {
      // A relative tolerance so that a stage exactly at the bound counts as fitting.
      const double room = (bound - extra(s)) / layer * (1 + 1e-12);
      counts[static_cast<size_t>(s)] = std::min(layers, static_cast<int>(std::floor(room)));
      fits = counts[static_cast<size_t>(s)] >= 1;
      total += counts[static_cast<size_t>(s)];
    }
    if (!fits || total < layers)
      continue;
    // Give back the surplus from the heaviest stages, the last first, keeping one layer each.
    while (total > layers) {
      int heaviest = -1;
      for (int s = stages - 1; s >= 0; --s) {
        if (counts[static_cast<size_t>(s)] <= 1)
          continue;
        if (heaviest < 0 || counts[static_cast<size_t>(s)] * layer + extra(s) >
                                counts[static_cast<size_t>(heaviest)] * layer + extra(heaviest))
          heaviest = s;
      }
      --counts[static_cast<size_t>(heaviest)];
      --total;
    }
    return counts;
  }
  return std::vector<int>(static_cast<size_t>(stages), layers / stages); // unreachable: n = layers always fits
}

} // namespace simgpt
