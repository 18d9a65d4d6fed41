#include "planner/platform_gpus.hpp"

#include "core/input_file.hpp"
#include "core/xml_tags.hpp"
#include "simgpt/core/error.hpp"

namespace simgpt {

PlatformGpus read_platform_gpus(const std::string& path) {
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
