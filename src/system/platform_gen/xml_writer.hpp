// Writes the elements of a SimGrid 4.1 platform file, one per line, indented by nesting.
#pragma once

#include "simgpt/system/platform.hpp"

#include <string>
#include <vector>

namespace simgpt::platform_gen {

// One link of a route: a split-duplex link's direction ("UP", "DOWN"), or none for a FATPIPE.
struct LinkUse {
  std::string link;
  const char* direction = nullptr;
  bool operator==(const LinkUse& other) const;
};

// The route back along `route`: its links in reverse order, each in its other direction, as
// SimGrid declares a symmetrical route's reverse.
std::vector<LinkUse> reversed(const std::vector<LinkUse>& route);

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
  void host(const std::string& id, const std::string& gpu, HostCpu cpu, int node);
  void router(const std::string& id);
  void link(const LinkDecl& link);
  void fatpipe(const std::string& id, const std::string& bandwidth);
  // A route; a symmetrical one declares its reverse too: the links in reverse order, each in its
  // other direction (SimGrid 3.32's RoutedZone::new_extended_route with change_order).
  void route(const std::string& src, const std::string& dst, const std::vector<LinkUse>& links,
             bool symmetrical = false);
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
