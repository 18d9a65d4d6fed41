#include "system/platform_xml_check.hpp"

#include "simgpt/core/error.hpp"
#include "core/xml_tags.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <unordered_set>
#include <vector>

namespace simgpt {
namespace {

constexpr const char* kAccepted = "simgpt accepts zones routed Full or Floyd, and None for a zone of links alone";

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

// Why SimGrid 3.32 cannot route a zone of this kind for simgpt (routing names as SimGrid reads
// them: case-insensitive). Empty: simgpt accepts it.
std::string refusal(const std::string& routing) {
  if (routing == "full" || routing == "floyd" || routing == "none")
    return "";
  if (routing == "dijkstra" || routing == "dijkstracache")
    return "SimGrid 3.32 crashes or hangs on a missing route in a Dijkstra zone (Floyd routes the same declared routes "
           "and names a missing one)";
  if (routing == "vivaldi")
    return "SimGrid 3.32 aborts on a host without coordinates, and Vivaldi models no links between hosts";
  if (routing == "cluster")
    return "SimGrid 3.32 aborts on a host without links up and down in a Cluster (star) zone";
  if (routing == "wifi")
    return "SimGrid 3.32 aborts on a WiFi link with a latency, and simgpt does not model WiFi";
  return "it is not a SimGrid routing (SimGrid 3.32 aborts on it)";
}

// SimGrid's Floyd routing computes a zone's routes when it loads, in time growing with the cube of
// its points (1024 in 0.9 s, 2048 in 5.6 s, 3000 past a minute), and its Full routing keeps a
// table of their pairs (8,000 points: 512 MB). simgpt platform writes at most 1026 (1024 nodes,
// their switch and the zone of links).
constexpr size_t kMaxFloydPoints = 1100;
constexpr size_t kMaxFullPoints = 4096;

struct Zone {
  std::string id;
  std::string routing; // lower case
  size_t points = 0;   // hosts, routers and zones directly in it
  // The routes declared so far, "src\0dst", each with whether it is the reverse of a symmetrical one.
  std::unordered_set<std::string> routes;
  std::unordered_set<std::string> reversed;
};

class PlatformXmlCheck {
public:
  explicit PlatformXmlCheck(const std::string& path) : path_(path) {}

  void visit(const XmlTag& tag) {
    const std::string_view name = tag.name;
    if (name == "zone" || name == "AS") {
      if (tag.closing) {
        if (!zones_.empty())
          zones_.pop_back();
        return;
      }
      open_zone(tag);
      return;
    }
    if (tag.closing)
      return;
    if (name == "cluster" || name == "cabinet" || name == "peer")
      refuse(tag, fmt::format("<{}> builds a zone simgpt cannot route (SimGrid's Star, Fat-Tree, Torus, Dragonfly or "
                              "Vivaldi zones); {} (simgpt platform writes such files)",
                              name, kAccepted));
    if (name == "include")
      refuse(tag, "<include> was removed in SimGrid 3.18 and SimGrid 3.32 aborts on it: put the zones in this file");
    if (name.starts_with("bypass"))
      refuse(tag, fmt::format("<{}> is not read: simgpt checks routes as SimGrid builds them through the zones; declare "
                              "the routes themselves",
                              name));
    if (zones_.empty())
      return;
    if (name == "host" || name == "router")
      add_point(tag);
    if (zones_.back().routing == "none" && (name == "host" || name == "router" || is_route(name)))
      refuse(tag, fmt::format("zone '{}' is routed None but holds <{}> '{}': SimGrid 3.32 aborts on any route through a "
                              "None zone; {}",
                              echo(zones_.back().id), name, echo(tag.attribute("id", tag.attribute("src"))), kAccepted));
    if (is_route(name))
      add_route(tag);
  }

private:
  static bool is_route(std::string_view name) { return name == "route" || name == "zoneRoute" || name == "ASroute"; }

  [[noreturn]] void refuse(const XmlTag& tag, const std::string& message) const {
    throw InputError(fmt::format("{}:{}", path_, tag.line), message);
  }

  // Counts a host, router or zone into the zone that holds it.
  void add_point(const XmlTag& tag) {
    Zone& zone = zones_.back();
    const size_t limit = zone.routing == "floyd" ? kMaxFloydPoints : zone.routing == "full" ? kMaxFullPoints : 0;
    if (++zone.points > limit && limit > 0)
      throw LimitError(fmt::format("{}:{}", path_, tag.line),
                       fmt::format("zone '{}' routed {} holds more than {} hosts, routers and zones, simgpt's limit (SimGrid "
                                   "3.32 {}; simgpt platform writes at most 1026)",
                                   echo(zone.id), zone.routing == "floyd" ? "Floyd" : "Full", limit,
                                   zone.routing == "floyd"
                                       ? "computes a Floyd zone's routes in time growing with their cube: 2048 take 5.6 s"
                                       : "keeps a Full zone's routes in a table of their pairs: 8,000 take 512 MB"));
  }

  void open_zone(const XmlTag& tag) {
    if (!zones_.empty())
      add_point(tag);
    const std::string_view id = tag.attribute("id");
    const std::string_view routing = tag.attribute("routing");
    if (!zones_.empty() && zones_.back().routing == "none")
      refuse(tag, fmt::format("zone '{}' is routed None but holds zone '{}': SimGrid 3.32 aborts on a route between the "
                              "zones of a None zone; {}",
                              echo(zones_.back().id), echo(id), kAccepted));
    const std::string why = refusal(lower(routing));
    if (!why.empty())
      refuse(tag, fmt::format("zone '{}' routing=\"{}\": {}; {}", echo(id), echo(routing), kAccepted, why));
    if (!tag.self_closing)
      zones_.push_back(Zone{std::string(id), lower(routing), 0, {}, {}});
  }

  // SimGrid's Full and Floyd zones keep one route per (src, dst) and abort on a second. A route
  // is symmetrical unless it says symmetrical="NO": its reverse is declared with it (Full skips
  // a route from a point to itself; Floyd does not).
  void add_route(const XmlTag& tag) {
    Zone& zone = zones_.back();
    const std::string_view src = tag.attribute("src");
    const std::string_view dst = tag.attribute("dst");
    const std::string symmetrical = lower(tag.attribute("symmetrical", "yes"));
    declare(tag, zone, src, dst, false);
    if (symmetrical != "no" && (src != dst || zone.routing == "floyd"))
      declare(tag, zone, dst, src, true);
  }

  void declare(const XmlTag& tag, Zone& zone, std::string_view src, std::string_view dst, bool reverse) {
    std::string key = std::string(src) + '\0' + std::string(dst);
    if (zone.routes.insert(key).second) {
      if (reverse)
        zone.reversed.insert(std::move(key));
      return;
    }
    const bool earlier_reverse = zone.reversed.contains(key);
    refuse(tag, fmt::format("zone '{}' declares the route from '{}' to '{}' twice{} (SimGrid 3.32 aborts on it)",
                            echo(zone.id), echo(src), echo(dst),
                            reverse ? ": this route is symmetrical, so it declares its reverse too; add symmetrical=\"NO\""
                            : earlier_reverse
                                ? fmt::format(": the route from '{}' to '{}' is symmetrical and declared it; add "
                                              "symmetrical=\"NO\" to each direction",
                                              echo(dst), echo(src))
                                : ""));
  }

  std::string path_;
  std::vector<Zone> zones_;
};

} // namespace

void check_platform_xml(const std::string& path, std::string_view text) {
  PlatformXmlCheck check(path);
  for_each_xml_tag(text, [&check](const XmlTag& tag) { check.visit(tag); });
}

} // namespace simgpt
