#include "simgpt/framework/profile.hpp"

#include "simgpt/core/error.hpp"
#include "simgpt/simulate.hpp"

#include "support/scratch_file.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

using namespace simgpt;

namespace {

// A profiles directory holding one profile, `name`.yaml, for one test.
class ProfileDir {
public:
  ProfileDir(const std::string& name, const std::string& yaml) : dir_(testing::scratch_path("profiles", "")) {
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    std::ofstream(dir_ + "/" + name + ".yaml") << yaml;
  }
  ~ProfileDir() { std::filesystem::remove_all(dir_); }
  const std::string& path() const { return dir_; }

private:
  std::string dir_;
};

} // namespace

TEST_CASE("a profile's calibration fits only registered parameters, named in its file") {
  const ProfileDir dir("p", "calibration:\n  fitted: [p2p.max_rate, compute.bogus]\n");
  try {
    load_profile({dir.path()}, "p", "w.yaml: framework");
    FAIL("loaded");
  } catch (const InputError& e) {
    CHECK(e.where() == dir.path() + "/p.yaml: calibration.fitted");
    CHECK_THAT(e.message(), Catch::Contains("'compute.bogus' cannot be fitted (fittable: compute.op_overhead"));
  }
}

TEST_CASE("a profile name is a plain file name: no path, not past 64 characters") {
  const std::vector<std::string> profiles = default_data_paths().profiles();
  for (const std::string name : {std::string(300, 'a'), std::string(65, 'a'), std::string("../profiles/generic"),
                                 std::string(".."), std::string(""), std::string("gen eric"), std::string("a\nb")}) {
    INFO(name);
    try {
      load_profile(profiles, name, "w.yaml: framework");
      FAIL("loaded");
    } catch (const InputError& e) {
      CHECK(e.where() == "w.yaml: framework");
      CHECK_THAT(e.message(), Catch::Contains("is not a profile name (1 to 64 letters, digits, '.', '_' or '-'"));
    }
  }
  CHECK(load_profile(profiles, "generic", "w.yaml: framework").name == "generic");
  CHECK_THROWS_WITH(load_profile(profiles, std::string(64, 'a'), "w"), Catch::Contains("unknown framework profile"));
}

TEST_CASE("a profile's gradient passes are a list of the passes simgpt knows") {
  const ProfileDir listed("p", "optimizer:\n  grad_passes: [zero_buffer, clip_norm]\n");
  const Profile p = load_profile({listed.path()}, "p", "w.yaml: framework");
  CHECK(p.grad_passes.zero_buffer);
  CHECK_FALSE(p.grad_passes.dp_scale);
  CHECK(p.grad_passes.clip_norm);
  const ProfileDir bogus("q", "optimizer:\n  grad_passes: [zero_buffer, unscale]\n");
  try {
    load_profile({bogus.path()}, "q", "w.yaml: framework");
    FAIL("loaded");
  } catch (const InputError& e) {
    CHECK(e.where() == bogus.path() + "/q.yaml: optimizer.grad_passes");
    CHECK_THAT(e.message(), Catch::Contains("'unscale' is not a gradient pass (expected a list of zero_buffer, dp_scale"));
  }
  const ProfileDir scalar("r", "optimizer:\n  grad_passes: zero_buffer\n");
  CHECK_THROWS_WITH(load_profile({scalar.path()}, "r", "w.yaml: framework"), Catch::Contains("is not a list"));
}
