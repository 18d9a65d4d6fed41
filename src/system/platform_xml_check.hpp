// What SimGrid 3.32 aborts or crashes on in a platform file, refused before SimGrid reads it:
// an abort or a segmentation fault in SimGrid is no message at all.
#pragma once

#include <string>
#include <string_view>

namespace simgpt {

// Throws InputError naming `path`, the line and the zone when the platform `text`
//  - has a zone routed other than Full or Floyd (SimGrid 3.32 segfaults or loops on a missing
//    route in a Dijkstra zone, aborts on Vivaldi coordinates, Cluster (star) links, WiFi links
//    and unknown routing names), or a None zone holding more than links (it aborts on any
//    route through it);
//  - has <cluster>, <cabinet> or <peer> (they build Star, Fat-Tree, Torus, Dragonfly or Vivaldi
//    zones), <include> (removed in SimGrid 3.18: 3.32 aborts) or a bypass route (simgpt's route
//    check follows SimGrid's routes through the zones, not bypasses);
//  - declares a route twice in a zone, counting the reverse of a symmetrical route (SimGrid
//    aborts: "routes are symmetrical by default").
// Throws LimitError when a Floyd zone holds more than 1100 hosts, routers and zones (SimGrid
// computes its routes in time growing with their cube) or a Full zone more than 4096 (it keeps a
// table of their pairs).
// A malformed file is left to SimGrid's parser, which reports it.
void check_platform_xml(const std::string& path, std::string_view text);

} // namespace simgpt
