#include "study/csv_reader.hpp"

#include "simgpt/core/error.hpp"

#include <catch2/catch.hpp>

using namespace simgpt;

namespace {

std::string error_of(const std::string& text) {
  try {
    parse_csv(text, "s.csv");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

} // namespace

TEST_CASE("a CSV's header and records, quoted fields unquoted") {
  const CsvTable t = parse_csv("config,network.delay,status,reason\n"
                               "0,10ms,ok,\n"
                               "1,default,invalid,\"a, b\"\n"
                               "2,5ms,failed,\"said \"\"no\"\"\nthen stopped\"\n",
                               "s.csv");
  CHECK(t.header == std::vector<std::string>{"config", "network.delay", "status", "reason"});
  REQUIRE(t.records.size() == 3);
  CHECK(t.records[0] == std::vector<std::string>{"0", "10ms", "ok", ""});
  CHECK(t.records[1][3] == "a, b");
  CHECK(t.records[2][3] == "said \"no\"\nthen stopped");
  CHECK(t.record_lines == std::vector<size_t>{2, 3, 4});
}

TEST_CASE("CRLF line ends and a last record without one") {
  const CsvTable t = parse_csv("a,b\r\n1,2\r\n3,\"4\"", "s.csv");
  REQUIRE(t.records.size() == 2);
  CHECK(t.records[0] == std::vector<std::string>{"1", "2"});
  CHECK(t.records[1] == std::vector<std::string>{"3", "4"});
}

TEST_CASE("a header alone has no records, and empty fields are kept") {
  CHECK(parse_csv("a,b\n", "s.csv").records.empty());
  CHECK(parse_csv("a,b,c\n,,\n", "s.csv").records[0] == std::vector<std::string>{"", "", ""});
}

TEST_CASE("malformed CSV names the file and line") {
  CHECK(error_of("") == "s.csv: is empty; expected a header line of column names");
  CHECK(error_of("a,b\n1,2\n3\n") == "s.csv:3: 1 fields; the header has 2");
  CHECK(error_of("a,b\n1,\"2\n") == "s.csv:2: a quoted field is never closed");
  CHECK(error_of("a,b\n1,2\"x\n") ==
        "s.csv:2: a quote inside an unquoted field (quote the whole field and double the quote)");
  CHECK(error_of("a,b\n1,\"2\"x\n") ==
        "s.csv:2: text after a closing quote (a quote inside a quoted field is doubled)");
}

TEST_CASE("an unreadable CSV file is an input error") {
  CHECK_THROWS_AS(read_csv("/nonexistent/sweep.csv"), InputError);
}
