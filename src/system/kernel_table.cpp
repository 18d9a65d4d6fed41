#include "system/kernel_table.hpp"

#include "simgpt/core/error.hpp"
#include "core/yaml_read.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>

namespace simgpt {
namespace {

constexpr const char* kKindNames[KernelTable::kKinds] = {"gemm", "grouped_gemm", "attention", "memory"};

// A word of a row, one of `valid`.
std::string word(const YamlReader& row, const std::string& key, std::initializer_list<const char*> valid) {
  const std::string value = row.text(key);
  for (const char* v : valid)
    if (value == v)
      return value;
  std::string list;
  for (const char* v : valid)
    list += (list.empty() ? "" : ", ") + std::string(v);
  throw InputError(row.where(key), fmt::format("'{}' is not one of {}", echo(value), list));
}

// A dimension of a row: a whole number of at least 1.
double dimension(const YamlReader& row, const std::string& key) {
  const double d = row.number(key, 1, 1e15);
  if (d != std::floor(d))
    throw InputError(row.where(key), fmt::format("{} is not a whole number", d));
  return d;
}

const std::initializer_list<const char*> kPrecisions{"fp32", "fp16", "bf16", "fp8"};
const std::initializer_list<const char*> kOutputs{"fp32", "fp16", "bf16"};
const std::initializer_list<const char*> kLayouts{"TN", "NN", "NT"};
const std::initializer_list<const char*> kPasses{"forward", "backward"};

KernelTable::Shape read_shape(KernelTable::Kind kind, const YamlReader& row) {
  using Kind = KernelTable::Kind;
  KernelTable::Shape s;
  s.kind = kind;
  switch (kind) {
  case Kind::gemm:
  case Kind::grouped_gemm: {
    const char* count = kind == Kind::gemm ? "batch" : "groups";
    row.only({"precision", "layout", "out", count, "m", "n", "k", "us"});
    const std::string precision = word(row, "precision", kPrecisions);
    const std::string layout = word(row, "layout", kLayouts);
    s = KernelTable::gemm(kind, precision, layout, word(row, "out", kOutputs), dimension(row, count),
                          dimension(row, "m"), dimension(row, "n"), dimension(row, "k"));
    break;
  }
  case Kind::attention: {
    row.only({"precision", "pass", "causal", "qkv", "batch", "seq", "heads", "kv_heads", "qk_dim", "v_dim", "us"});
    const double heads = dimension(row, "heads"), kv_heads = dimension(row, "kv_heads");
    if (std::fmod(heads, kv_heads) != 0)
      throw InputError(row.where("kv_heads"), fmt::format("{} does not divide heads ({})", kv_heads, heads));
    if (row.text("causal") != "true" && row.text("causal") != "false") // text(): required, a scalar
      throw InputError(row.where("causal"), "expected true or false");
    const std::string precision = word(row, "precision", kPrecisions);
    const bool backward = word(row, "pass", kPasses) == "backward";
    s = KernelTable::attention(precision, backward, row.text("causal") == "true",
                               word(row, "qkv", {"contiguous", "strided"}), dimension(row, "batch"),
                               dimension(row, "seq"), heads, kv_heads, dimension(row, "qk_dim"),
                               dimension(row, "v_dim"));
    break;
  }
  case Kind::memory: {
    row.only({"op", "precision", "pass", "elements", "us"});
    const std::string op = word(row, "op", {"layernorm", "rmsnorm"});
    const std::string precision = word(row, "precision", kPrecisions);
    s = KernelTable::memory(op, precision, word(row, "pass", kPasses) == "backward", dimension(row, "elements"));
    break;
  }
  }
  return s;
}

// The rows of section `key` (none where the file has no such section), each a mapping of its keys
// (`example` shows its first).
std::vector<YamlReader> section_rows(const YamlReader& root, const char* key, const char* example) {
  if (!root.has(key))
    return {};
  std::vector<YamlReader> list = root.list(key);
  for (size_t r = 0; r < list.size(); ++r)
    if (!list[r].node().IsMap())
      throw InputError(fmt::format("{}[{}]", root.where(key), r),
                       fmt::format("expected a row: a mapping of its keys ({{{}, ...}})", example));
  return list;
}

// A row's `us`: a positive time in microseconds.
double positive_us(const YamlReader& row) {
  const double us = row.number("us", 0, 1e12);
  if (!(us > 0))
    throw InputError(row.where("us"), "expected a positive time in microseconds");
  return us;
}

// `collectives`: each row one collective's line over `ranks` GPUs of one node's NVLink.
std::map<KernelTable::CollectiveKey, KernelTable::CollectiveLine> read_collectives(const YamlReader& root) {
  std::map<KernelTable::CollectiveKey, KernelTable::CollectiveLine> lines;
  for (const YamlReader& row : section_rows(root, "collectives", "op: all_gather")) {
    row.only({"op", "fabric", "ranks", "bus_GBps", "step_us", "call_us", "from_bytes"});
    const std::string op = word(row, "op", {"all_gather", "reduce_scatter", "all_reduce", "all_to_all"});
    word(row, "fabric", {"nvlink"});
    const double ranks = dimension(row, "ranks");
    if (ranks < 2)
      throw InputError(row.where("ranks"), "a collective needs at least 2 ranks");
    KernelTable::CollectiveLine line;
    line.bus_Bps = row.number("bus_GBps", 0, 1e6) * 1e9;
    if (!(line.bus_Bps > 0))
      throw InputError(row.where("bus_GBps"), "expected a positive bandwidth in GB/s");
    line.step_s = row.number("step_us", 0, 1e9) * 1e-6;
    line.call_s = row.number("call_us", 0, 1e9) * 1e-6;
    line.from_bytes = row.number("from_bytes", 0, 1e15);
    if (!lines.emplace(KernelTable::CollectiveKey{op, static_cast<int>(ranks)}, line).second)
      throw InputError(row.where("ranks"), fmt::format("repeats the {} over {} ranks of an earlier row", op, ranks));
  }
  return lines;
}

} // namespace

const char* KernelTable::name_of(Kind kind) { return kKindNames[static_cast<int>(kind)]; }

KernelTable::Shape KernelTable::gemm(Kind kind, const std::string& precision, const std::string& layout,
                                     const std::string& out, double count, double m, double n, double k) {
  return {kind, precision + " " + layout + " " + out, {count, m, n, k}};
}

// Query heads per key-value head is a word, so that a table's rows of one model at several
// tensor-parallel sizes (64/8, 32/4, 16/2 heads) bracket one another in heads.
KernelTable::Shape KernelTable::attention(const std::string& precision, bool backward, bool causal,
                                          const std::string& qkv, double batch, double seq, double heads,
                                          double kv_heads, double qk_dim, double v_dim) {
  return {Kind::attention,
          fmt::format("{} {} {} {} {} {} {}", precision, backward ? "backward" : "forward",
                      causal ? "causal" : "full", qkv, qk_dim, v_dim, heads / kv_heads),
          {batch, seq, heads, 1}};
}

KernelTable::Shape KernelTable::memory(const std::string& op, const std::string& precision, bool backward,
                                       double elements) {
  return {Kind::memory, op + " " + precision + " " + (backward ? "backward" : "forward"), {elements, 1, 1, 1}};
}

std::vector<std::pair<std::string, std::string>> KernelTable::fields(const Shape& shape) {
  std::vector<std::string> words;
  std::istringstream in(shape.words);
  for (std::string w; in >> w;)
    words.push_back(w);
  const auto dim = [](double d) { return fmt::format("{}", d); };
  const auto& d = shape.dims;
  switch (shape.kind) {
  case Kind::gemm:
  case Kind::grouped_gemm:
    return {{"precision", words.at(0)}, {"layout", words.at(1)}, {"out", words.at(2)},
            {shape.kind == Kind::gemm ? "batch" : "groups", dim(d[0])}, {"m", dim(d[1])}, {"n", dim(d[2])},
            {"k", dim(d[3])}};
  case Kind::attention:
    return {{"precision", words.at(0)}, {"pass", words.at(1)}, {"causal", words.at(2) == "causal" ? "true" : "false"},
            {"qkv", words.at(3)}, {"batch", dim(d[0])}, {"seq", dim(d[1])}, {"heads", dim(d[2])},
            {"kv_heads", dim(d[2] / std::stod(words.at(6)))}, {"qk_dim", words.at(4)}, {"v_dim", words.at(5)}};
  case Kind::memory:
    break;
  }
  return {{"op", words.at(0)}, {"precision", words.at(1)}, {"pass", words.at(2)}, {"elements", dim(d[0])}};
}

KernelTable KernelTable::load(const std::string& path, const std::string& gpu_name, double launch_gap_s) {
  YamlReader root = YamlReader::file(path);
  root.only({"gpu", "source", "method", "timing", "gemm", "grouped_gemm", "attention", "memory", "pooled", "collectives"});
  if (root.text("gpu") != gpu_name)
    throw InputError(root.where("gpu"), fmt::format("'{}' is not the GPU the file is named for ({}): a table of one "
                                                    "GPU's timings must be platforms/kernels/<GPU>.yaml",
                                                    echo(root.text("gpu")), gpu_name));
  root.text("source");
  root.text("method");
  // `timing`: one word for every kind, or a mapping from kind to word where kinds were timed apart.
  std::array<bool, kKinds> isolated{};
  if (root.has("timing") && root.node()["timing"].IsMap()) { // a missing node would throw YAML::InvalidNode
    const YamlReader timing = root.map("timing");
    timing.only({kKindNames[0], kKindNames[1], kKindNames[2], kKindNames[3]});
    for (int i = 0; i < kKinds; ++i) // every kind the file has rows of (below)
      if (timing.has(kKindNames[i]) || root.has(kKindNames[i]))
        isolated[static_cast<size_t>(i)] = word(timing, kKindNames[i], {"back_to_back", "isolated"}) == "isolated";
  } else {
    isolated.fill(word(root, "timing", {"back_to_back", "isolated"}) == "isolated");
  }
  std::map<Shape, double> rows;
  std::map<Shape, std::string> where;
  for (int i = 0; i < kKinds; ++i) {
    const Kind kind = static_cast<Kind>(i);
    for (const YamlReader& row : section_rows(root, kKindNames[i], "precision: bf16")) {
      const Shape shape = read_shape(kind, row);
      const double us = positive_us(row);
      const auto [it, added] = rows.emplace(shape, us * 1e-6 + (isolated[static_cast<size_t>(i)] ? launch_gap_s : 0));
      if (!added)
        throw InputError(row.where("us"), fmt::format("repeats the shape of {}", where[shape]));
      where[shape] = row.where(kKindNames[i]);
    }
  }
  // `pooled`: an operation's time summed over several shapes, which prices no shape of its own: the
  // catalog's memory_op_efficiency is what it implies (validation/generate/kernel_efficiencies.py).
  // Checked as the other rows are, not read further.
  for (const YamlReader& row : section_rows(root, "pooled", "op: te_cross_entropy")) {
    row.only({"op", "precision", "pass", "shapes", "elements", "us"});
    word(row, "op", {"te_cross_entropy", "moe_permute"});
    word(row, "precision", kPrecisions);
    word(row, "pass", {"forward", "backward", "both"});
    dimension(row, "shapes");
    dimension(row, "elements");
    positive_us(row);
  }
  return from_rows(std::move(rows), path, read_collectives(root));
}

KernelTable KernelTable::from_rows(std::map<Shape, double> rows, std::string file,
                                   std::map<CollectiveKey, CollectiveLine> collectives) {
  KernelTable t;
  t.rows_ = std::move(rows);
  t.collectives_ = std::move(collectives);
  if (!file.empty())
    t.files_.push_back(std::move(file));
  return t;
}

void KernelTable::layer_over(const KernelTable& under) {
  rows_.insert(under.rows_.begin(), under.rows_.end()); // keeps a row already here
  collectives_.insert(under.collectives_.begin(), under.collectives_.end());
  files_.insert(files_.end(), under.files_.begin(), under.files_.end());
}

const KernelTable::CollectiveLine* KernelTable::collective(const std::string& op, int ranks) const {
  const auto it = collectives_.find({op, ranks});
  return it == collectives_.end() ? nullptr : &it->second;
}

std::optional<KernelTable::Time> KernelTable::find(const Shape& shape) const {
  if (auto it = rows_.find(shape); it != rows_.end())
    return Time{it->second, Match::exact};
  // Rows of the same kind and words are contiguous in the map, ordered by their dimensions.
  const auto first = rows_.lower_bound(Shape{shape.kind, shape.words, {0, 0, 0, 0}});
  std::optional<Time> best;
  double best_span = 0;
  for (size_t d = 0; d < shape.dims.size(); ++d) {
    const double x = shape.dims[d];
    std::optional<std::pair<double, double>> lo, hi; // (dimension, seconds) of the nearest rows below and above
    for (auto it = first; it != rows_.end() && it->first.kind == shape.kind && it->first.words == shape.words; ++it) {
      bool others_equal = true;
      for (size_t o = 0; o < shape.dims.size(); ++o)
        others_equal = others_equal && (o == d || it->first.dims[o] == shape.dims[o]);
      if (!others_equal)
        continue;
      const double y = it->first.dims[d];
      if (y < x && (!lo || y > lo->first))
        lo = {y, it->second};
      else if (y > x && (!hi || y < hi->first))
        hi = {y, it->second};
    }
    if (!lo || !hi || x / lo->first > kMaxStretch || hi->first / x > kMaxStretch)
      continue;
    const double span = hi->first / lo->first;
    if (best && span >= best_span)
      continue;
    // A power law through both rows: linear in log(time) against log(dimension).
    const double f = std::log(x / lo->first) / std::log(hi->first / lo->first);
    best = Time{std::exp(std::log(lo->second) + f * std::log(hi->second / lo->second)), Match::interpolated};
    best_span = span;
  }
  return best;
}

} // namespace simgpt
