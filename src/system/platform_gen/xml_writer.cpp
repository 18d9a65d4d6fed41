#include "system/platform_gen/xml_writer.hpp"

#include <fmt/format.h>

#include <string_view>

namespace simgpt::platform_gen {
namespace {

// An attribute value: names come from the catalog and presets, which a user may edit.
std::string escaped(const std::string& value) {
  std::string out;
  for (char c : value) {
    switch (c) {
    case '&': out += "&amp;"; break;
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '"': out += "&quot;"; break;
    default: out += c;
    }
  }
  return out;
}

std::string hops(const std::vector<LinkUse>& links) {
  std::string out;
  for (const LinkUse& l : links)
    out += l.direction ? fmt::format(R"(<link_ctn id="{}" direction="{}"/>)", escaped(l.link), l.direction)
                       : fmt::format(R"(<link_ctn id="{}"/>)", escaped(l.link));
  return out;
}

} // namespace

XmlWriter::XmlWriter(const std::string& comment) {
  std::string safe = comment;
  for (size_t at = safe.find("--"); at != std::string::npos; at = safe.find("--"))
    safe.replace(at, 2, "- ");
  text_ = "<?xml version=\"1.0\"?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n";
  line("<!-- " + safe + " -->");
  line(R"(<platform version="4.1">)");
  ++depth_;
}

void XmlWriter::line(const std::string& text) {
  text_.append(static_cast<size_t>(2 * depth_), ' ');
  text_ += text;
  text_ += '\n';
}

void XmlWriter::open_zone(const std::string& id, const char* routing) {
  line(fmt::format(R"(<zone id="{}" routing="{}">)", escaped(id), routing));
  ++depth_;
}

void XmlWriter::close_zone() {
  --depth_;
  line("</zone>");
}

void XmlWriter::host(const std::string& id, const std::string& gpu, HostCpu cpu, int node) {
  const std::string cpu_prop =
      cpu == HostCpu::unspecified ? "" : fmt::format(R"(<prop id="cpu" value="{}"/>)", name_of(cpu));
  line(fmt::format(R"(<host id="{}" speed="1Gf"><prop id="gpu" value="{}"/>{}<prop id="node" value="{}"/></host>)",
                   escaped(id), escaped(gpu), cpu_prop, node));
}

void XmlWriter::router(const std::string& id) { line(fmt::format(R"(<router id="{}"/>)", escaped(id))); }

void XmlWriter::link(const LinkDecl& l) {
  line(fmt::format(R"(<link id="{}" bandwidth="{}" latency="{}" sharing_policy="SPLITDUPLEX">{}</link>)", escaped(l.id),
                   escaped(l.bandwidth), escaped(l.latency), l.nic ? R"(<prop id="role" value="nic"/>)" : ""));
}

void XmlWriter::fatpipe(const std::string& id, const std::string& bandwidth) {
  line(fmt::format(R"(<link id="{}" bandwidth="{}" latency="0" sharing_policy="FATPIPE"></link>)", escaped(id),
                   escaped(bandwidth)));
}

bool LinkUse::operator==(const LinkUse& other) const {
  return link == other.link && std::string_view(direction ? direction : "") ==
                                   std::string_view(other.direction ? other.direction : "");
}

std::vector<LinkUse> reversed(const std::vector<LinkUse>& route) {
  std::vector<LinkUse> back(route.rbegin(), route.rend());
  for (LinkUse& use : back)
    if (use.direction != nullptr)
      use.direction = std::string_view(use.direction) == "UP" ? "DOWN" : "UP";
  return back;
}

void XmlWriter::route(const std::string& src, const std::string& dst, const std::vector<LinkUse>& links,
                      bool symmetrical) {
  line(fmt::format(R"(<route src="{}" dst="{}" symmetrical="{}">{}</route>)", escaped(src), escaped(dst),
                   symmetrical ? "YES" : "NO", hops(links)));
}

void XmlWriter::zone_route(const std::string& src, const std::string& dst, const std::string& gw_src,
                           const std::string& gw_dst, const std::vector<LinkUse>& links) {
  line(fmt::format(R"(<zoneRoute src="{}" dst="{}" gw_src="{}" gw_dst="{}" symmetrical="NO">{}</zoneRoute>)",
                   escaped(src), escaped(dst), escaped(gw_src), escaped(gw_dst), hops(links)));
}

std::string XmlWriter::finish() {
  while (depth_ > 1)
    close_zone();
  depth_ = 0;
  line("</platform>");
  return std::move(text_);
}

} // namespace simgpt::platform_gen
