// libFuzzer target: `simgpt platform`'s options on arbitrary text, one NAME=VALUE per line, set on
// a preset (the first line, if it names one) or on an empty spec, then the platform written.
// InputError (and LimitError) is the answer to bad options; any other exception escapes
// (std::terminate, a finding), as does a crash or sanitizer report, or a file written with a link
// rate or delay that simgpt would refuse to load (not within 1 bps to 1e15 B/s, 0 to 1 hour).
#include "simgpt/core/error.hpp"
#include "core/units.hpp"
#include "simgpt/simulate.hpp"
#include "simgpt/system/gpu.hpp"
#include "simgpt/system/platform_generator.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <regex>
#include <sstream>
#include <string>

namespace {

const simgpt::DataPaths& data() {
  static const simgpt::DataPaths d = simgpt::default_data_paths();
  return d;
}

const simgpt::GpuCatalog& catalog() {
  static const simgpt::GpuCatalog c = simgpt::load_catalog(data());
  return c;
}

// Every link's rate and delay in the written file, as simgpt's units parser reads them.
void check_links(const std::string& xml) {
  static const std::regex link(R"re(<link [^>]*bandwidth="([^"]*)" latency="([^"]*)")re");
  for (auto it = std::sregex_iterator(xml.begin(), xml.end(), link); it != std::sregex_iterator(); ++it) {
    const double bandwidth = simgpt::parse_bandwidth((*it)[1].str());
    const std::string latency = (*it)[2].str();
    const double delay = simgpt::parse_duration(latency);
    if (!(bandwidth * 8 >= 1 && bandwidth <= 1e15 && delay >= 0 && delay <= 3600))
      std::abort();
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {
  std::istringstream lines(std::string(reinterpret_cast<const char*>(bytes), size));
  std::string line;
  try {
    std::getline(lines, line);
    simgpt::PlatformSpec spec = line.rfind("preset=", 0) == 0
                                    ? simgpt::load_platform_preset(data().presets(), line.substr(7))
                                    : simgpt::PlatformSpec{};
    do {
      const size_t eq = line.find('=');
      if (eq != std::string::npos && line.rfind("preset=", 0) != 0)
        simgpt::set_platform_option(spec, line.substr(0, eq), line.substr(eq + 1), "--" + line.substr(0, eq));
    } while (std::getline(lines, line));
    // Keep each input quick: the generator's own limits allow files of megabytes.
    if (static_cast<long>(spec.nodes) * spec.gpus_per_node > 64)
      return 0;
    check_links(simgpt::platform_xml(spec, catalog()));
  } catch (const simgpt::InputError&) {
  } catch (const std::invalid_argument&) {
    std::abort(); // a written rate or delay simgpt's parser refuses
  }
  return 0;
}
