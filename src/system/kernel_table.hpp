// A GPU's measured kernel timings (platforms/kernels/<GPU>.yaml, platforms/kernels/README.md): the
// time of each measured shape, and of a shape that lies between two measured ones. Part of the
// system domain: what a GPU does, as measured; the cost model asks it before pricing a kernel.
#pragma once

#include <array>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace simgpt {

class KernelTable {
public:
  // The kinds of kernel a table may time, each keyed by words (precision, layout, ...) and
  // dimensions (m, n, k, ...), as the file's sections name them.
  enum class Kind { gemm, grouped_gemm, attention, memory };
  static constexpr int kKinds = 4;
  static const char* name_of(Kind kind);

  // One shape: its kind, the words that must match exactly, and the dimensions. Unused
  // dimensions are 1.
  struct Shape {
    Kind kind = Kind::gemm;
    std::string words; // e.g. "bf16 TN bf16"
    std::array<double, 4> dims{1, 1, 1, 1};
    auto operator<=>(const Shape&) const = default;
  };
  // The shapes of each kind, their words in one place for the file's reader and the cost model.
  // A GEMM: `count` is a GEMM's batch or a grouped GEMM's groups.
  static Shape gemm(Kind kind, const std::string& precision, const std::string& layout, const std::string& out,
                    double count, double m, double n, double k);
  static Shape attention(const std::string& precision, bool backward, bool causal, const std::string& qkv,
                         double batch, double seq, double heads, double kv_heads, double qk_dim, double v_dim);
  static Shape memory(const std::string& op, const std::string& precision, bool backward, double elements);

  // A shape as a table row's keys and values, in the row's order (README), `us` left out.
  static std::vector<std::pair<std::string, std::string>> fields(const Shape& shape);

  // How a time was found: a row of that shape, or two rows that bracket it in one dimension.
  enum class Match { exact, interpolated };
  struct Time {
    double seconds = 0;
    Match match = Match::exact;
  };

  // Reads and checks a table file; throws InputError naming the file, the row and the key when it
  // is malformed, or when its `gpu` is not `gpu_name`. A row timed alone (`timing: isolated`) gets
  // `launch_gap_s` (the GPU's kernel_launch) added, as the cost model adds it to a kernel it
  // prices: every time the table gives is a kernel's time on a busy stream, gap included.
  static KernelTable load(const std::string& path, const std::string& gpu_name, double launch_gap_s);
  // A collective NCCL ran over one node's NVLink on this GPU, measured at several sizes and kept
  // as the line through them (README, "Collectives"): a call of a `bytes` buffer over `ranks` GPUs
  // takes call_s + steps x step_s + (what each rank's link carries of it) / bus_Bps, its steps
  // and carried bytes those of a ring (all-gather, reduce-scatter and all-to-all n - 1 steps
  // carrying (n - 1) / n of the buffer, all-reduce twice both). `from_bytes`: the smallest buffer
  // the measurements span. Below it a line says nothing (a line's intercept through medium and
  // large sizes is not a small message's latency); above, a larger buffer only lengthens the
  // bandwidth term, which the largest sizes measure best.
  struct CollectiveLine {
    double bus_Bps = 0, step_s = 0, call_s = 0, from_bytes = 0;
    auto operator<=>(const CollectiveLine&) const = default;
  };
  using CollectiveKey = std::pair<std::string, int>; // op (all_gather, reduce_scatter, all_reduce, all_to_all), ranks
  // The line of `op` over `ranks` GPUs of one node's NVLink; null where the table has none (no
  // rank count is inferred from another's).
  const CollectiveLine* collective(const std::string& op, int ranks) const;
  size_t collective_lines() const { return collectives_.size(); }

  // A table from rows of seconds, gaps included (tests, and tables made in code).
  static KernelTable from_rows(std::map<Shape, double> rows, std::string file = {},
                               std::map<CollectiveKey, CollectiveLine> collectives = {});
  // Adds the rows of `under` whose shapes this table lacks: a user's table over the built-in one.
  void layer_over(const KernelTable& under);

  // The time of `shape`: a row's, or interpolated in one dimension between the nearest rows below
  // and above it that match it in everything else, each within kMaxStretch of it (README, "How a
  // table is read"). None elsewhere: nothing is extrapolated.
  std::optional<Time> find(const Shape& shape) const;
  // The files its rows came from, the one whose rows win first.
  const std::vector<std::string>& files() const { return files_; }
  size_t rows() const { return rows_.size(); }

  // A dimension may be interpolated between rows at most this factor away from it on either side:
  // GEMM and attention times are close to linear in each dimension once the GPU is full, and what
  // breaks that (wave quantisation, cuBLAS's heuristic switching tiles) changes the slope within a
  // factor of 2; between rows farther apart the fallback model knows as much as the table.
  static constexpr double kMaxStretch = 2.0;

private:
  std::map<Shape, double> rows_;
  std::map<CollectiveKey, CollectiveLine> collectives_;
  std::vector<std::string> files_;
};

} // namespace simgpt
