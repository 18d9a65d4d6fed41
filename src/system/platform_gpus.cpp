// The GPUs a platform file declares, read without SimGrid: a planner needs their count and model
// before it simulates anything (each simulation loads the platform in its own process).
#include "simgpt/system/platform_generator.hpp"

#include "core/input_file.hpp"
#include "core/xml_tags.hpp"
#include "simgpt/core/error.hpp"

namespace simgpt {

PlatformGpus read_platform_gpus(const std::string& path) {
  if (is_compact_platform(path)) { // checked whole when a simulation builds it
    const PlatformSpec spec = read_compact_platform(path);
    if (spec.nodes < 1 || spec.gpu.empty())
      throw InputError(path, "declares no GPU (simgpt_platform needs nodes and gpu)");
    return {static_cast<int64_t>(spec.nodes) * spec.gpus_per_node, spec.gpu};
  }
  const std::string text = read_input_file(path, "platform");
  PlatformGpus out;
  bool in_gpu0 = false;
  for_each_xml_tag(text, [&](const XmlTag& tag) {
    if (tag.name == "host" && !tag.closing) {
      const std::string_view id = tag.attribute("id");
      if (id.starts_with("gpu-")) {
        ++out.count;
        in_gpu0 = id == "gpu-0" && !tag.self_closing;
      }
    } else if (tag.name == "host" && tag.closing) {
      in_gpu0 = false;
    } else if (in_gpu0 && tag.name == "prop" && tag.attribute("id") == "gpu") {
      out.model = std::string(tag.attribute("value"));
    }
  });
  if (out.count == 0 || out.model.empty())
    throw InputError(path, "declares no GPU host (hosts gpu-0, gpu-1, ... with a 'gpu' property)");
  return out;
}

} // namespace simgpt
