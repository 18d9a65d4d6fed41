// What every workload the parser accepts must satisfy, for the fuzz targets: positive degrees and
// at least one micro-batch. A violation aborts (a finding).
#pragma once

#include "simgpt/workload/workload.hpp"

#include <cstdlib>

inline void check_accepted(const simgpt::Workload& w) {
  if (w.parallelism.dp < 1 || w.parallelism.tp < 1 || w.parallelism.pp < 1 || w.training.micro_batch < 1)
    std::abort();
  if (w.gpus() < 1 || w.micro_batches() < 1)
    std::abort();
}
