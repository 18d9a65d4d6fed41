#include "study/sweep_output.hpp"
#include "study/csv_field.hpp"

#include <fmt/format.h>

#include <charconv>

namespace simgpt {
namespace {

// The value at a dotted path of the report, or nothing.
const nlohmann::ordered_json* metric(const nlohmann::ordered_json& report, const std::string& column) {
  const nlohmann::ordered_json* at = &report;
  size_t begin = 0;
  for (;;) {
    const size_t dot = column.find('.', begin);
    const std::string name = column.substr(begin, dot == std::string::npos ? std::string::npos : dot - begin);
    if (!at->is_object() || !at->contains(name))
      return nullptr;
    at = &(*at)[name];
    if (dot == std::string::npos)
      return at;
    begin = dot + 1;
  }
}

// The report rounds to 9 significant digits; written so, since nlohmann's shortest form is not
// always the shortest (16.1888223 prints as 16.188822300000002).
std::string csv_number(const nlohmann::ordered_json* v) {
  if (v == nullptr || !(v->is_number() || v->is_boolean()))
    return "";
  return v->is_number_float() ? fmt::format("{:.9g}", v->get<double>()) : v->dump();
}

std::string csv_inputs(int64_t config, const std::vector<std::string>& inputs) {
  std::string line = std::to_string(config);
  for (const std::string& v : inputs)
    line += "," + csv_field(v);
  return line + ",";
}

nlohmann::ordered_json json_inputs(int64_t config, const std::vector<std::string>& inputs,
                                   const std::vector<std::string>& keys) {
  nlohmann::ordered_json j;
  j["config"] = config;
  for (size_t k = 0; k < keys.size(); ++k)
    j[keys[k]] = inputs[k];
  return j;
}

} // namespace

const std::vector<std::string>& sweep_metric_columns() {
  static const std::vector<std::string> columns{"step_time_s",
                                                "samples_per_s",
                                                "tokens_per_s",
                                                "tflops_per_gpu",
                                                "peak_memory_gib",
                                                "peak_allocated_gib",
                                                "oom",
                                                "critical_path.exposed_comm_s",
                                                "critical_path.bubble_s"};
  return columns;
}

std::string sweep_csv_header(const std::vector<std::string>& keys) {
  std::string line = "config";
  for (const std::string& k : keys)
    line += "," + csv_field(k);
  line += ",status";
  for (const std::string& m : sweep_metric_columns())
    line += "," + m;
  return line + ",reason\n";
}

std::string sweep_line(const SweepResult& r, const std::vector<std::string>& keys, SweepFormat format) {
  if (format == SweepFormat::jsonl) {
    nlohmann::ordered_json j = json_inputs(r.config, r.inputs, keys);
    j["status"] = r.status;
    for (const std::string& m : sweep_metric_columns())
      if (const nlohmann::ordered_json* v = metric(r.report, m))
        j[m] = *v;
    if (!r.reason.empty())
      j["reason"] = r.reason;
    return j.dump() + "\n";
  }
  std::string line = csv_inputs(r.config, r.inputs) + r.status;
  for (const std::string& m : sweep_metric_columns()) {
    const nlohmann::ordered_json* v = metric(r.report, m);
    line += "," + csv_number(v);
  }
  return line + "," + csv_field(r.reason) + "\n";
}

std::optional<int64_t> sweep_line_config(const std::string& line, SweepFormat format) {
  if (format == SweepFormat::jsonl) {
    const auto j = nlohmann::ordered_json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("config") || !j["config"].is_number_integer())
      return std::nullopt;
    return j["config"].get<int64_t>();
  }
  int64_t config = 0;
  const auto [end, ec] = std::from_chars(line.data(), line.data() + line.size(), config);
  if (ec != std::errc() || end == line.data() || end == line.data() + line.size() || *end != ',')
    return std::nullopt;
  return config;
}

bool sweep_line_is_of(const std::string& line, int64_t config, const std::vector<std::string>& inputs,
                      const std::vector<std::string>& keys, SweepFormat format) {
  if (format == SweepFormat::csv)
    return line.starts_with(csv_inputs(config, inputs));
  const auto j = nlohmann::ordered_json::parse(line, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return false;
  const nlohmann::ordered_json expected = json_inputs(config, inputs, keys);
  for (const auto& [key, value] : expected.items())
    if (!j.contains(key) || j[key] != value)
      return false;
  return true;
}

} // namespace simgpt
