// Arithmetic on integers from user input, checked: a workload's products (dp*tp*pp, micro_batch *
// dp, micro_batch * seq_len * hidden) and sums (a listed partition) must not wrap silently, or a
// later division by a wrapped 0 crashes and a wrapped count prints a wrong number.
#pragma once

#include <cstdint>
#include <optional>

namespace simgpt {

// a * b, or nothing when it does not fit in int64_t.
inline std::optional<int64_t> checked_mul(int64_t a, int64_t b) {
  int64_t product = 0;
  if (__builtin_mul_overflow(a, b, &product))
    return std::nullopt;
  return product;
}

// a + b, or nothing when it does not fit in int64_t.
inline std::optional<int64_t> checked_add(int64_t a, int64_t b) {
  int64_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum))
    return std::nullopt;
  return sum;
}

} // namespace simgpt
