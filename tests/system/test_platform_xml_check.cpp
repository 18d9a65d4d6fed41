// The platform file check refuses what SimGrid 3.32 would abort or crash on, before it loads it.
#include "simgpt/core/error.hpp"
#include "system/platform_xml_check.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace simgpt;

namespace {

// A platform of one zone routed `routing`, holding two GPU hosts, a link and `extra`.
std::string zone(const std::string& routing, const std::string& extra) {
  return "<?xml version=\"1.0\"?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
         "<platform version=\"4.1\">\n<zone id=\"z\" routing=\"" +
         routing +
         "\">\n<host id=\"gpu-0\" speed=\"1Gf\"/>\n<host id=\"gpu-1\" speed=\"1Gf\"/>\n"
         "<link id=\"l\" bandwidth=\"1GBps\" latency=\"1us\"/>\n" +
         extra + "\n</zone>\n</platform>\n";
}

const std::string kRoute = R"(<route src="gpu-0" dst="gpu-1"><link_ctn id="l"/></route>)";
const std::string kBack = R"(<route src="gpu-1" dst="gpu-0"><link_ctn id="l"/></route>)";

std::string error_of(const std::string& text) {
  try {
    check_platform_xml("p.xml", text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

} // namespace

TEST_CASE("zones routed Full or Floyd pass, whatever the case SimGrid reads them in") {
  CHECK(error_of(zone("Full", kRoute)).empty());
  CHECK(error_of(zone("Floyd", kRoute)).empty());
  CHECK(error_of(zone("floyd", kRoute)).empty());
}

TEST_CASE("other routings are refused, naming the file, line, zone and what simgpt accepts") {
  for (const char* routing : {"Dijkstra", "DijkstraCache", "Vivaldi", "Cluster", "Wifi", "Warp"}) {
    INFO(routing);
    CHECK_THAT(error_of(zone(routing, kRoute)),
               Catch::StartsWith("p.xml:4: zone 'z' routing=\"" + std::string(routing) + "\"") &&
                   Catch::Contains("simgpt accepts zones routed Full or Floyd"));
  }
}

TEST_CASE("a None zone may hold links only") {
  const std::string links = "<platform version=\"4.1\"><zone id=\"top\" routing=\"Floyd\">"
                            "<zone id=\"links\" routing=\"None\"><link id=\"l\" bandwidth=\"1GBps\" latency=\"0\">"
                            "<prop id=\"role\" value=\"nic\"/></link></zone></zone></platform>";
  CHECK(error_of(links).empty());
  CHECK_THAT(error_of(zone("None", "")), Catch::Contains("zone 'z' is routed None but holds <host> 'gpu-0'"));
  CHECK_THAT(error_of("<platform><zone id=\"outer\" routing=\"None\"><zone id=\"inner\" routing=\"Full\"></zone>"
                      "</zone></platform>"),
             Catch::Contains("zone 'outer' is routed None but holds zone 'inner'"));
}

TEST_CASE("a route declared twice is refused, the reverse of a symmetrical one included") {
  CHECK_THAT(error_of(zone("Full", kRoute + kBack)),
             Catch::Contains("p.xml:8: zone 'z' declares the route from 'gpu-1' to 'gpu-0' twice") &&
                 Catch::Contains("symmetrical=\"NO\""));
  CHECK_THAT(error_of(zone("Floyd", kRoute + "\n" + kRoute)), Catch::Contains("p.xml:9: zone 'z' declares the route"));
  const std::string one_way = R"(<route src="gpu-0" dst="gpu-1" symmetrical="NO"><link_ctn id="l"/></route>)";
  const std::string other_way = R"(<route src="gpu-1" dst="gpu-0" symmetrical='no'><link_ctn id="l"/></route>)";
  CHECK(error_of(zone("Full", one_way + other_way)).empty());
  // A symmetrical route from a point to itself: Full declares it once, Floyd twice (and aborts).
  const std::string loop = R"(<route src="gpu-0" dst="gpu-0"><link_ctn id="l"/></route>)";
  CHECK(error_of(zone("Full", loop)).empty());
  CHECK_THAT(error_of(zone("Floyd", loop)), Catch::Contains("declares the route from 'gpu-0' to 'gpu-0' twice"));
  // Routes of different zones do not clash.
  CHECK(error_of("<platform><zone id=\"t\" routing=\"Floyd\"><zone id=\"a\" routing=\"Full\">" + kRoute +
                 "</zone><zone id=\"b\" routing=\"Full\">" + kRoute + "</zone></zone></platform>")
            .empty());
}

TEST_CASE("tags SimGrid 3.32 aborts on, or builds unroutable zones from, are refused") {
  CHECK_THAT(error_of(zone("Full", "<include file=\"x.xml\"/>")), Catch::Contains("<include> was removed"));
  CHECK_THAT(error_of(zone("Full", R"(<bypassRoute src="gpu-0" dst="gpu-1"><link_ctn id="l"/></bypassRoute>)")),
             Catch::Contains("<bypassRoute> is not read"));
  CHECK_THAT(error_of("<platform><cluster id=\"c\" prefix=\"gpu-\" suffix=\"\" radical=\"0-7\" speed=\"1Gf\" "
                      "bw=\"1GBps\" lat=\"1us\"/></platform>"),
             Catch::Contains("<cluster> builds a zone simgpt cannot route"));
}

TEST_CASE("comments and declarations are skipped, and a malformed file is left to SimGrid") {
  CHECK(error_of("<!-- <zone id=\"old\" routing=\"Dijkstra\"> -->" + zone("Full", kRoute)).empty());
  CHECK(error_of("<!DOCTYPE platform [ <!ENTITY x \"<zone routing='Dijkstra'>\"> ]>" + zone("Full", kRoute)).empty());
  CHECK(error_of("<platform version=\"4.1\"><zone id=\"z\"").empty());
  CHECK(error_of("").empty());
}

TEST_CASE("a Floyd zone of more than 1100 points, or a Full zone of more than 4096, is past simgpt's limit") {
  const auto flat = [](const std::string& routing, int hosts) {
    std::string text = "<platform version=\"4.1\"><zone id=\"flat\" routing=\"" + routing + "\">\n";
    for (int i = 0; i < hosts; ++i)
      text += "<host id=\"gpu-" + std::to_string(i) + "\" speed=\"1Gf\"/>\n";
    return text + "</zone></platform>\n";
  };
  CHECK(error_of(flat("Floyd", 1100)).empty());
  CHECK_THROWS_AS(check_platform_xml("p.xml", flat("Floyd", 1101)), LimitError);
  CHECK_THAT(error_of(flat("Floyd", 3000)),
             Catch::StartsWith("p.xml:1102: zone 'flat' routed Floyd holds more than 1100 hosts, routers and zones"));
  CHECK(error_of(flat("Full", 4096)).empty());
  CHECK_THAT(error_of(flat("Full", 4097)), Catch::Contains("zone 'flat' routed Full holds more than 4096"));
}
