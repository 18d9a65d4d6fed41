#include "execution/partition.hpp"

#include <catch2/catch.hpp>

#include <numeric>

using namespace simgpt;

TEST_CASE("without embedding or head weight a balanced partition is uniform") {
  CHECK(balanced_stage_layers(24, 4, 1.0, 0, 0) == std::vector<int>{6, 6, 6, 6});
  // Spare layers go to the earlier stages.
  CHECK(balanced_stage_layers(10, 4, 1.0, 0, 0) == std::vector<int>{3, 3, 2, 2});
}

TEST_CASE("a heavy head moves layers off the last stage") {
  // 24 layers and a head worth 2.5 layers: 26.5 units over 2 stages, 13.25 each.
  CHECK(balanced_stage_layers(24, 2, 1.0, 0, 2.5) == std::vector<int>{13, 11});
  // The embedding weighs on the first stage the same way.
  CHECK(balanced_stage_layers(24, 3, 1.0, 4.0, 0) == std::vector<int>{6, 9, 9});
  // However heavy the head, every stage keeps a layer and all layers are placed.
  auto counts = balanced_stage_layers(8, 4, 1.0, 0, 100);
  CHECK(counts.back() == 1);
  CHECK(std::accumulate(counts.begin(), counts.end(), 0) == 8);
}

TEST_CASE("a balanced partition minimises the heaviest stage") {
  const double layer = 3.0, first = 1.0, last = 7.0;
  auto counts = balanced_stage_layers(30, 4, layer, first, last);
  double heaviest = 0;
  for (size_t s = 0; s < counts.size(); ++s)
    heaviest = std::max(heaviest, counts[s] * layer + (s == 0 ? first : 0) + (s == 3 ? last : 0));
  // 30 * 3 + 8 = 98 over 4 stages is 24.5 each; whole layers reach 25 at best (8 + embedding,
  // 8, 8, 6 + head) and no better, since 8 layers alone weigh 24 and 9 weigh 27.
  CHECK(heaviest == Approx(25.0));
  CHECK(std::accumulate(counts.begin(), counts.end(), 0) == 30);
  CHECK_THROWS(balanced_stage_layers(3, 4, 1.0, 0, 0));
}
