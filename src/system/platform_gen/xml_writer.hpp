// Writes the elements of a SimGrid 4.1 platform file, one per line, indented by nesting.
#pragma once

#include <string>
#include <vector>

namespace simgpt::platform_gen {

// One link of a route: a split-duplex link's direction ("UP", "DOWN"), or none for a FATPIPE.
struct LinkUse {
  std::string link;
  const char* direction = nullptr;
};

// A split-duplex link: SimGrid makes <id>_UP and <id>_DOWN, each with the whole bandwidth.
struct LinkDecl {
  std::string id, bandwidth, latency;
  bool nic = false; // property role=nic: where the network what-if applies
};

class XmlWriter {
public:
  // Starts the document: the XML header, `comment` (a "--" in it, which XML forbids in comments,
  // is spaced out) and the opening <platform>.
  explicit XmlWriter(const std::string& comment);
  void open_zone(const std::string& id, const char* routing);
  void close_zone();
  void host(const std::string& id, const std::string& gpu, int node);
  void router(const std::string& id);
  void link(const LinkDecl& link);
  void fatpipe(const std::string& id, const std::string& bandwidth);
  void route(const std::string& src, const std::string& dst, const std::vector<LinkUse>& links);
  void zone_route(const std::string& src, const std::string& dst, const std::string& gw_src,
                  const std::string& gw_dst, const std::vector<LinkUse>& links);
  // The whole document, closed.
  std::string finish();

private:
  void line(const std::string& text);
  std::string text_;
  int depth_ = 0;
};

} // namespace simgpt::platform_gen
