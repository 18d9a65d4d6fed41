// libFuzzer target: a sweep's output file read back, as `simgpt sweep` resumes it and `simgpt
// sweep merge` joins it. The first byte picks the format ('j': JSON lines, else CSV); the rest is
// the file's content. For a sweep of 4 configurations (network.delay x training.micro_batch, the
// corpus's; network.delay with its SI column network.delay_s), each input is:
//  - every line read by parse_sweep_line (and the header by sweep_header_columns, a JSON line's
//    columns by sweep_jsonl_columns): a line accepted must be the line sweep_line writes for its
//    record;
//  - the file resumed (SweepFile on a copy): when refused, the file must be left byte for byte as
//    it was; when accepted, what is left must be a prefix of it (or the header, over a cut header)
//    followed by the line appended;
//  - the file merged as the only part of a merge (into another file).
// InputError (and LimitError) is the answer to bad input; anything else escaping, a crash or a
// sanitizer report is a finding.
#include "simgpt/core/error.hpp"
#include "simgpt/study/sweep.hpp"
#include "study/sweep_file.hpp"
#include "study/sweep_output.hpp"

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

const simgpt::SweepColumns kKeys{{"network.delay", "training.micro_batch"},
                                 {simgpt::QuantityKind::duration, std::nullopt}};
const std::vector<std::vector<std::string>> kValues{
    {"default", "1"}, {"default", "3"}, {"1ms", "1"}, {"1ms", "3"}};
const char* const kDigest = "b26c1b113b81387a"; // the corpus's

[[noreturn]] void finding(const char* what) {
  std::fprintf(stderr, "finding: %s\n", what);
  std::abort();
}

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void write(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

const std::string& scratch() {
  // The name in static storage: the handler at exit runs after the string is destroyed.
  static char name[] = "/tmp/fuzz_sweep_file.XXXXXX";
  static const std::string dir = [] {
    if (::mkdtemp(name) == nullptr)
      finding("mkdtemp");
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(name, ec);
    });
    return std::string(name);
  }();
  return dir;
}

void each_line(const std::string& text, simgpt::SweepFormat format) {
  size_t begin = 0;
  bool first = true;
  for (size_t end = text.find('\n'); end != std::string::npos; begin = end + 1, end = text.find('\n', begin)) {
    const std::string_view line = std::string_view(text).substr(begin, end - begin);
    try {
      if (first && format == simgpt::SweepFormat::csv)
        (void)simgpt::sweep_header_columns(line);
      else if (first)
        (void)simgpt::sweep_jsonl_columns(line);
    } catch (const simgpt::InputError&) {
    }
    first = false;
    try {
      const simgpt::SweepResult r = simgpt::parse_sweep_line(line, kKeys, format);
      const std::string again = simgpt::sweep_line(r, kKeys, format);
      if (again.substr(0, again.size() - 1) != line)
        finding("a line accepted is not the line written for its record");
    } catch (const simgpt::InputError&) {
    }
  }
}

void resume(const std::string& text, simgpt::SweepFormat format) {
  const std::string path = scratch() + "/out";
  write(path, text);
  simgpt::SweepFileExpectation expect;
  expect.header = format == simgpt::SweepFormat::csv ? simgpt::sweep_csv_header(kKeys) : "";
  expect.max_lines = static_cast<int64_t>(kValues.size());
  expect.check_line = [format](int64_t k, std::string_view line) {
    const simgpt::SweepResult r = simgpt::parse_sweep_line(line, kKeys, format);
    if (r.digest != kDigest || r.configurations != 4 || r.config != k || r.inputs != kValues[static_cast<size_t>(k)])
      throw simgpt::InputError("", "not this sweep's");
  };
  expect.line_start = [format](int64_t k) {
    return simgpt::sweep_line_start(k, kValues[static_cast<size_t>(k)], kKeys, format);
  };
  const std::string appended = "appended\n";
  int64_t kept = -1;
  try {
    simgpt::SweepFile file(path, {}, expect);
    kept = file.lines_kept();
    if (kept < 0 || kept > 4)
      finding("more lines kept than the sweep has");
    file.append(appended);
  } catch (const simgpt::InputError&) {
    if (read(path) != text)
      finding("a refused file was changed");
    return;
  }
  std::string left = read(path);
  if (!left.ends_with(appended))
    finding("the line appended is not at the end");
  left.resize(left.size() - appended.size());
  const bool header_over_cut = !expect.header.empty() && left == expect.header && expect.header.starts_with(text);
  if (!text.starts_with(left) && !header_over_cut)
    finding("a resumed file is not a prefix of what it held");
}

void merge(const std::string& text) {
  const std::string part = scratch() + "/part", output = scratch() + "/merged";
  write(part, text);
  try {
    simgpt::merge_sweep_parts({part}, output);
  } catch (const simgpt::InputError&) {
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0)
    return 0;
  const simgpt::SweepFormat format = data[0] == 'j' ? simgpt::SweepFormat::jsonl : simgpt::SweepFormat::csv;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  each_line(text, format);
  resume(text, format);
  merge(text);
  return 0;
}
