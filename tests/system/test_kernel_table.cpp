// A GPU's kernel table (system/kernel_table.hpp): a row's time for its shape, a power law between
// the nearest rows that bracket a shape in one dimension within a factor of 2, nothing beyond; the
// launch gap added to rows timed alone; a user's table layered over the built-in one; malformed
// files refused with the file, row and key named.
#include "system/kernel_table.hpp"

#include "simgpt/core/error.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>

using namespace simgpt;
using Kind = KernelTable::Kind;

namespace {

KernelTable::Shape tn(double m, double n, double k) { return KernelTable::gemm(Kind::gemm, "bf16", "TN", "bf16", 1, m, n, k); }

std::string write_file(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / ("simgpt_kernel_table_" + name + ".yaml");
  std::ofstream(path) << text;
  return path.string();
}

// Loading the file `text` written as `name` fails with the file and `where` named.
void refused(const std::string& name, const std::string& text, const std::string& where) {
  const std::string path = write_file(name, text);
  try {
    KernelTable::load(path, "X", 0);
    FAIL("accepted " << name);
  } catch (const InputError& e) {
    INFO(e.where() << ": " << e.message());
    CHECK(e.where().find(path) != std::string::npos);
    CHECK(e.where().find(where) != std::string::npos);
  }
}

} // namespace

TEST_CASE("a kernel table gives a row's time, and interpolates one dimension between its nearest rows") {
  const KernelTable t = KernelTable::from_rows({{tn(4096, 1024, 8192), 100e-6}, {tn(4096, 2048, 8192), 180e-6},
                                                {tn(4096, 8192, 8192), 700e-6}});
  const auto exact = t.find(tn(4096, 2048, 8192));
  REQUIRE(exact);
  CHECK(exact->seconds == 180e-6);
  CHECK(exact->match == KernelTable::Match::exact);
  // n = 1448 lies between 1024 and 2048, each within a factor of 2: t = 100 us x (1448/1024)^p with
  // p = log(180/100) / log(2), a power law through both rows.
  const auto between = t.find(tn(4096, 1448, 8192));
  REQUIRE(between);
  CHECK(between->match == KernelTable::Match::interpolated);
  CHECK(between->seconds == Approx(100e-6 * std::pow(1448.0 / 1024, std::log(1.8) / std::log(2.0))));
  // 3000 lies between 2048 and 8192, and 8192 / 3000 > 2: too far to say.
  CHECK_FALSE(t.find(tn(4096, 3000, 8192)));
  // Nothing beyond the rows, nor where two dimensions differ, nor of another layout or output type.
  CHECK_FALSE(t.find(tn(4096, 16384, 8192)));
  CHECK_FALSE(t.find(tn(4096, 1448, 4096)));
  CHECK_FALSE(t.find(KernelTable::gemm(Kind::gemm, "bf16", "NN", "bf16", 1, 4096, 2048, 8192)));
  CHECK_FALSE(t.find(KernelTable::gemm(Kind::grouped_gemm, "bf16", "TN", "bf16", 1, 4096, 2048, 8192)));
}

TEST_CASE("attention rows of one model at several tensor-parallel sizes bracket each other in heads") {
  const auto attention = [](double heads) {
    return KernelTable::attention("bf16", false, true, "strided", 1, 4096, heads, heads / 8, 128, 128);
  };
  const KernelTable t = KernelTable::from_rows({{attention(32), 400e-6}, {attention(64), 700e-6}});
  const auto between = t.find(attention(48));
  REQUIRE(between);
  CHECK(between->seconds > 400e-6);
  CHECK(between->seconds < 700e-6);
  // Another grouping (heads per key-value head) is another kernel.
  CHECK_FALSE(t.find(KernelTable::attention("bf16", false, true, "strided", 1, 4096, 48, 48, 128, 128)));
  // Its fields read back as the row's keys.
  const auto fields = KernelTable::fields(attention(48));
  CHECK(fields.at(7) == std::pair<std::string, std::string>{"kv_heads", "6"});
  CHECK(fields.at(2) == std::pair<std::string, std::string>{"causal", "true"});
}

TEST_CASE("a table file's rows timed alone get the launch gap, and a user's table wins over the built-in one") {
  const std::string user = write_file("user", R"(gpu: X
source: test
method: test
timing: {gemm: isolated, memory: back_to_back}
gemm:
  - {precision: bf16, layout: TN, out: bf16, batch: 1, m: 4096, n: 1024, k: 8192, us: 100}
memory:
  - {op: rmsnorm, precision: bf16, pass: forward, elements: 1048576, us: 5}
)");
  const std::string builtin = write_file("builtin", R"(gpu: X
source: test
method: test
timing: back_to_back
gemm:
  - {precision: bf16, layout: TN, out: bf16, batch: 1, m: 4096, n: 1024, k: 8192, us: 150}
  - {precision: bf16, layout: TN, out: bf16, batch: 1, m: 4096, n: 2048, k: 8192, us: 250}
)");
  KernelTable t = KernelTable::load(user, "X", 4e-6);
  t.layer_over(KernelTable::load(builtin, "X", 4e-6));
  CHECK(t.find(tn(4096, 1024, 8192))->seconds == Approx(104e-6));
  CHECK(t.find(tn(4096, 2048, 8192))->seconds == Approx(250e-6));
  CHECK(t.find(KernelTable::memory("rmsnorm", "bf16", false, 1048576))->seconds == Approx(5e-6));
  CHECK(t.files() == std::vector<std::string>{user, builtin});
  CHECK(t.rows() == 3);
}

TEST_CASE("a malformed kernel table is refused with its file, row and key") {
  const std::string head = "gpu: X\nsource: s\nmethod: m\ntiming: isolated\n";
  refused("gpu", "gpu: Y\nsource: s\nmethod: m\ntiming: isolated\n", "gpu");
  refused("timing", "gpu: X\nsource: s\nmethod: m\ntiming: sometimes\n", "timing");
  refused("layout", head + "gemm:\n  - {precision: bf16, layout: TT, out: bf16, batch: 1, m: 1, n: 1, k: 1, us: 1}\n",
          "layout");
  refused("time", head + "gemm:\n  - {precision: bf16, layout: TN, out: bf16, batch: 1, m: 1, n: 1, k: 1, us: 0}\n", "us");
  refused("whole", head + "gemm:\n  - {precision: bf16, layout: TN, out: bf16, batch: 1, m: 1.5, n: 1, k: 1, us: 1}\n",
          "m");
  refused("unknown", head + "gemm:\n  - {precision: bf16, layout: TN, out: bf16, batch: 1, m: 1, n: 1, k: 1, us: 1, x: 2}\n",
          "x");
  refused("repeat", head + "gemm:\n  - {precision: bf16, layout: TN, out: bf16, batch: 1, m: 1, n: 1, k: 1, us: 1}\n"
                           "  - {precision: bf16, layout: TN, out: bf16, batch: 1, m: 1, n: 1, k: 1, us: 2}\n",
          "us");
  refused("groups", head + "attention:\n  - {precision: bf16, pass: forward, causal: true, qkv: strided, batch: 1, "
                           "seq: 8, heads: 6, kv_heads: 4, qk_dim: 8, v_dim: 8, us: 1}\n",
          "kv_heads");
  refused("kind", head + "gemms: []\n", "gemms");
  refused("nested", head + "gemm:\n  - - {precision: bf16}\n", "gemm[0]");
  refused("no timing", "gpu: X\nsource: s\nmethod: m\n", "timing");
  refused("no causal", head + "attention:\n  - {precision: bf16, pass: forward, qkv: strided, batch: 1, seq: 8, "
                              "heads: 8, kv_heads: 4, qk_dim: 8, v_dim: 8, us: 1}\n",
          "causal");
  const std::string pooled = "pooled:\n  - {op: te_cross_entropy, precision: bf16, pass: both, shapes: 7, elements: 100, ";
  refused("pooled op", head + "pooled:\n  - {op: softmax, precision: bf16, pass: both, shapes: 7, elements: 100, us: 1}\n",
          "op");
  refused("pooled pass", head + "pooled:\n  - {op: moe_permute, precision: bf16, pass: sideways, shapes: 2, "
                                "elements: 100, us: 1}\n",
          "pass");
  refused("pooled time", head + pooled + "us: 0}\n", "us");
  refused("pooled key", head + pooled + "us: 1, bytes: 2}\n", "bytes");
  // A well-formed pooled row is read and prices nothing by shape.
  const KernelTable table = KernelTable::load(write_file("pooled", head + pooled + "us: 1}\n"), "X", 0);
  CHECK(table.rows() == 0);
}

TEST_CASE("a kernel table's collective lines are read by op and rank count, a user's winning, and checked") {
  const std::string row = "  - {op: all_gather, fabric: nvlink, ranks: 8, bus_GBps: 650, step_us: 9, call_us: 23, "
                          "from_bytes: 1048576}\n";
  const std::string head = "gpu: X\nsource: s\nmethod: m\ntiming: isolated\ncollectives:\n";
  KernelTable t = KernelTable::load(write_file("collectives_user", head + row), "X", 0);
  t.layer_over(KernelTable::load(
      write_file("collectives_builtin",
                 head + "  - {op: all_gather, fabric: nvlink, ranks: 8, bus_GBps: 500, step_us: 1, call_us: 1, "
                        "from_bytes: 0}\n"
                        "  - {op: all_to_all, fabric: nvlink, ranks: 4, bus_GBps: 500, step_us: 7, call_us: 19, "
                        "from_bytes: 0}\n"),
      "X", 0));
  const KernelTable::CollectiveLine* gather = t.collective("all_gather", 8);
  REQUIRE(gather);
  CHECK(gather->bus_Bps == Approx(650e9));
  CHECK(gather->step_s == Approx(9e-6));
  CHECK(gather->call_s == Approx(23e-6));
  CHECK(gather->from_bytes == 1048576);
  REQUIRE(t.collective("all_to_all", 4));
  CHECK(t.collective("all_to_all", 4)->call_s == Approx(19e-6));
  // No rank count is taken from another's, nor one op's line for another.
  CHECK_FALSE(t.collective("all_gather", 4));
  CHECK_FALSE(t.collective("reduce_scatter", 8));
  CHECK(t.collective_lines() == 2);
  CHECK(t.rows() == 0);

  const auto with = [&](const std::string& from, const std::string& to) {
    std::string r = row;
    return head + r.replace(r.find(from), from.size(), to);
  };
  refused("collective op", with("all_gather", "broadcast"), "op");
  refused("collective fabric", with("nvlink", "infiniband"), "fabric");
  refused("collective ranks", with("ranks: 8", "ranks: 1"), "ranks");
  refused("collective bus", with("bus_GBps: 650", "bus_GBps: 0"), "bus_GBps");
  refused("collective step", with("step_us: 9", "step_us: -1"), "step_us");
  refused("collective key", with("from_bytes", "to_bytes"), "to_bytes");
  refused("collective repeat", head + row + row, "ranks");
}
