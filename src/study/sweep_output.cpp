#include "study/sweep_output.hpp"

#include "simgpt/core/error.hpp"
#include "simgpt/study/sweep_grid.hpp"
#include "core/csv_field.hpp"
#include "study/si_column.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <unordered_set>

namespace simgpt {

const nlohmann::ordered_json* report_value(const nlohmann::ordered_json& report, const std::string& column) {
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

namespace {

// Sets the value at a dotted path of `report`, making the objects on the way.
void set_metric(nlohmann::ordered_json& report, const std::string& column, nlohmann::ordered_json value) {
  nlohmann::ordered_json* at = &report;
  size_t begin = 0;
  for (size_t dot = column.find('.'); dot != std::string::npos; begin = dot + 1, dot = column.find('.', begin))
    at = &(*at)[column.substr(begin, dot - begin)];
  (*at)[column.substr(begin)] = std::move(value);
}

// The report rounds to 9 significant digits; written so, since nlohmann's shortest form is not
// always the shortest (16.1888223 prints as 16.188822300000002).
std::string csv_number(const nlohmann::ordered_json* v) {
  if (v == nullptr || !(v->is_number() || v->is_boolean()))
    return "";
  return v->is_number_float() ? fmt::format("{:.9g}", v->get<double>()) : v->dump();
}

std::string csv_inputs(int64_t config, const std::vector<std::string>& inputs, const SweepColumns& columns) {
  std::string line = std::to_string(config);
  for (size_t k = 0; k < inputs.size(); ++k) {
    line += ',';
    line += csv_field(inputs[k]);
    if (columns.si[k]) {
      line += ',';
      line += si_field(inputs[k], *columns.si[k]).value_or(""); // a number: never quoted
    }
  }
  return line + ",";
}

// The SI field as a JSON number, the same digits as the CSV's; null for `default`.
nlohmann::ordered_json json_si(const std::string& value, QuantityKind kind) {
  const std::optional<std::string> field = si_field(value, kind);
  if (!field)
    return nullptr;
  double number = 0;
  std::from_chars(field->data(), field->data() + field->size(), number);
  return number;
}

nlohmann::ordered_json json_inputs(int64_t config, const std::vector<std::string>& inputs,
                                   const SweepColumns& columns) {
  nlohmann::ordered_json j;
  j["config"] = config;
  for (size_t k = 0; k < columns.keys.size(); ++k) {
    j[columns.keys[k]] = inputs[k];
    if (columns.si[k])
      j[si_column_name(columns.keys[k], *columns.si[k])] = json_si(inputs[k], *columns.si[k]);
  }
  return j;
}

// The columns of input names in the order written: a name that is the key before it with an SI
// column's suffix is that key's SI column.
SweepColumns columns_of(std::vector<std::string> names) {
  SweepColumns columns;
  for (std::string& name : names) {
    if (!columns.keys.empty() && !columns.si.back())
      if (const std::optional<QuantityKind> kind = si_column_kind(columns.keys.back(), name)) {
        columns.si.back() = kind;
        continue;
      }
    columns.keys.push_back(std::move(name));
    columns.si.emplace_back();
  }
  return columns;
}

size_t si_count(const SweepColumns& columns) {
  return static_cast<size_t>(std::count_if(columns.si.begin(), columns.si.end(), [](const auto& si) { return si; }));
}

// Never throws: text that is not UTF-8 (a library's message quoting a file's bytes) is written
// with U+FFFD in its place rather than ending the sweep.
std::string dump(const nlohmann::ordered_json& j) {
  return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

// The metrics, reason and identity after the inputs.
constexpr size_t kColumnsAfterMetrics = 3; // reason, configurations, sweep_digest

[[noreturn]] void bad(const std::string& what) { throw InputError("", what); }

// The fields of one CSV line (RFC 4180, no line break inside: a sweep writes none).
std::vector<std::string> split_csv_line(std::string_view line) {
  std::vector<std::string> fields;
  size_t pos = 0;
  for (;;) {
    std::string field;
    if (pos < line.size() && line[pos] == '"') {
      for (++pos;; ++pos) {
        if (pos >= line.size())
          bad(fmt::format("field {} has a quote never closed", fields.size() + 1));
        if (line[pos] == '"' && pos + 1 < line.size() && line[pos + 1] == '"') {
          field += '"';
          ++pos;
        } else if (line[pos] == '"') {
          ++pos;
          break;
        } else
          field += line[pos];
      }
      if (pos < line.size() && line[pos] != ',')
        bad(fmt::format("field {} has text after its closing quote", fields.size() + 1));
    } else {
      const size_t end = std::min(line.find(',', pos), line.size());
      field.assign(line.substr(pos, end - pos));
      if (field.find('"') != std::string::npos)
        bad(fmt::format("field {} has a quote inside an unquoted field", fields.size() + 1));
      pos = end;
    }
    fields.push_back(std::move(field));
    if (pos >= line.size())
      return fields;
    ++pos; // the comma
  }
}

// A configuration index or count: decimal digits, within int64.
int64_t parse_count(const std::string& text, const char* name) {
  int64_t n = -1;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size() || n < 0 || text.empty() || text[0] == '+')
    bad(fmt::format("its {} '{}' is not a whole number", name, echo(text)));
  return n;
}

// A metric's CSV field: empty (absent), true/false (oom), an integer or a finite number.
void parse_csv_metric(nlohmann::ordered_json& report, const std::string& column, const std::string& text) {
  if (text.empty())
    return;
  if (text == "true" || text == "false") {
    set_metric(report, column, text == "true");
    return;
  }
  const char* first = text.data();
  const char* last = text.data() + text.size();
  int64_t integer = 0;
  if (const auto [end, ec] = std::from_chars(first, last, integer); ec == std::errc() && end == last) {
    set_metric(report, column, integer);
    return;
  }
  double value = 0;
  const auto [end, ec] = std::from_chars(first, last, value);
  if (ec != std::errc() || end != last || !std::isfinite(value))
    bad(fmt::format("its {} '{}' is not a finite number", column, echo(text)));
  set_metric(report, column, value);
}

SweepResult parse_csv_line(std::string_view line, const SweepColumns& columns) {
  const std::vector<std::string> fields = split_csv_line(line);
  const size_t inputs = columns.keys.size() + si_count(columns);
  const size_t want = 2 + inputs + sweep_metric_columns(columns.draws).size() + kColumnsAfterMetrics;
  if (fields.size() != want)
    bad(fmt::format("has {} fields; a line of this sweep has {} (config, {} input(s){}, status, {} metrics, reason, "
                    "configurations, sweep_digest)",
                    fields.size(), want, columns.keys.size(),
                    si_count(columns) ? fmt::format(" and {} in SI units", si_count(columns)) : "",
                    sweep_metric_columns(columns.draws).size()));
  SweepResult r;
  size_t f = 0;
  r.config = parse_count(fields[f++], "config");
  for (size_t k = 0; k < columns.keys.size(); ++k) {
    r.inputs.push_back(fields[f++]);
    if (columns.si[k])
      ++f; // the SI field: checked as the line written again
  }
  r.status = fields[f++];
  for (const std::string& m : sweep_metric_columns(columns.draws))
    parse_csv_metric(r.report, m, fields[f++]);
  r.reason = fields[f++];
  r.configurations = parse_count(fields[f++], "configurations");
  r.digest = fields[f++];
  return r;
}

SweepResult parse_jsonl_line(std::string_view line, const SweepColumns& columns) {
  const auto j = nlohmann::ordered_json::parse(line, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    bad("is not a JSON object");
  const auto integer = [&](const char* name) {
    if (!j.contains(name) || !j[name].is_number_integer() || j[name].get<int64_t>() < 0)
      bad(fmt::format("has no whole number \"{}\"", name));
    return j[name].get<int64_t>();
  };
  const auto text = [&](const std::string& name) {
    if (!j.contains(name) || !j[name].is_string())
      bad(fmt::format("has no text \"{}\"", echo(name)));
    return j[name].get<std::string>();
  };
  SweepResult r;
  r.config = integer("config");
  for (const std::string& k : columns.keys) // the SI fields are checked as the line written again
    r.inputs.push_back(text(k));
  r.status = text("status");
  for (const std::string& m : sweep_metric_columns(columns.draws))
    if (j.contains(m)) {
      const nlohmann::ordered_json& v = j[m];
      if (!(v.is_number() || v.is_boolean()) || (v.is_number_float() && !std::isfinite(v.get<double>())))
        bad(fmt::format("its \"{}\" is not a finite number", m));
      r.report[m] = v; // JSON lines keep the report's flat names (sweep_line writes them so)
    }
  if (j.contains("reason"))
    r.reason = text("reason");
  r.configurations = integer("configurations");
  r.digest = text("sweep_digest");
  return r;
}

// What every line must hold whatever its format.
void check_record(const SweepResult& r, SweepFormat format, bool draws) {
  static const std::vector<std::string> statuses{"ok", "oom", "invalid", "failed"};
  if (std::find(statuses.begin(), statuses.end(), r.status) == statuses.end())
    bad(fmt::format("its status '{}' is not one of ok, oom, invalid, failed", echo(r.status)));
  if (r.digest.size() != 16 || r.digest.find_first_not_of("0123456789abcdef") != std::string::npos)
    bad(fmt::format("its sweep_digest '{}' is not 16 hexadecimal digits", echo(r.digest)));
  if (r.configurations < 1 || r.configurations > kMaxSweepConfigurations)
    bad(fmt::format("its configurations {} is not between 1 and {}", r.configurations, kMaxSweepConfigurations));
  if (r.config >= r.configurations)
    bad(fmt::format("its config {} is not below its configurations {}", r.config, r.configurations));
  const bool result = r.status == "ok" || r.status == "oom";
  const auto value = [&](const std::string& m) {
    return format == SweepFormat::jsonl ? (r.report.contains(m) ? &r.report[m] : nullptr) : report_value(r.report, m);
  };
  for (const std::string& m : sweep_metric_columns(draws))
    if (const nlohmann::ordered_json* v = value(m)) {
      if (!result)
        bad(fmt::format("status {} has no metrics, but {} has one", r.status, m));
      if (v->is_boolean() != (m == "oom"))
        bad(fmt::format("its {} is not a {}", m, m == "oom" ? "true or false" : "number"));
    }
  if (result) {
    const nlohmann::ordered_json* step = value("step_time_s");
    const nlohmann::ordered_json* oom = value("oom");
    if (step == nullptr)
      bad(fmt::format("status {} has no step_time_s", r.status));
    if (oom != nullptr && oom->get<bool>() != (r.status == "oom"))
      bad(fmt::format("status {} disagrees with its oom {}", r.status, oom->dump()));
    if (!r.reason.empty())
      bad(fmt::format("status {} has no reason, but the line has one", r.status));
  } else if (r.reason.empty())
    bad(fmt::format("status {} has no reason", r.status));
}

} // namespace

SweepColumns sweep_columns(const SweepGrid& grid) {
  SweepColumns columns;
  for (const SweepAxis& axis : grid.axes)
    for (size_t k = 0; k < axis.keys.size(); ++k) {
      columns.keys.push_back(axis.keys[k]);
      columns.si.push_back(swept_quantity(axis.values[k]));
    }
  const std::unordered_set<std::string> keys(columns.keys.begin(), columns.keys.end());
  for (const std::string& key : columns.keys)
    for (const QuantityKind kind : {QuantityKind::duration, QuantityKind::bandwidth, QuantityKind::size})
      if (keys.contains(si_column_name(key, kind)))
        throw InputError("--grid " + echo(si_column_name(key, kind)),
                         fmt::format("is {} with the suffix of a column in SI units, which a reader of the sweep's "
                                     "file could not tell from {}'s: sweep them in separate sweeps",
                                     echo(key), echo(key)));
  return columns;
}

const std::vector<std::string>& sweep_metric_columns(bool draws) {
  static const std::vector<std::string> columns{"step_time_s",
                                                "samples_per_s",
                                                "tokens_per_s",
                                                "tflops_per_gpu",
                                                "mfu",
                                                "peak_memory_gib",
                                                "peak_allocated_gib",
                                                "oom",
                                                "critical_path.exposed_comm_s",
                                                "critical_path.bubble_s",
                                                "communication.tp.exposed_s",
                                                "communication.cp.exposed_s",
                                                "communication.ep.exposed_s",
                                                "communication.dp.exposed_s",
                                                "communication.pp.exposed_s",
                                                "time_to_train.days",
                                                "time_to_train.gpu_hours"};
  static const std::vector<std::string> drawn = [] {
    std::vector<std::string> c = columns;
    c.insert(c.end(), {"draws.median_s", "draws.p90_s", "draws.p99_s", "draws.baseline_s"});
    return c;
  }();
  return draws ? drawn : columns;
}

std::string sweep_csv_header(const SweepColumns& columns) {
  std::string line = "config";
  for (size_t k = 0; k < columns.keys.size(); ++k) {
    line += ',';
    line += csv_field(columns.keys[k]);
    if (columns.si[k]) {
      line += ',';
      line += csv_field(si_column_name(columns.keys[k], *columns.si[k]));
    }
  }
  line += ",status";
  for (const std::string& m : sweep_metric_columns(columns.draws))
    line += "," + m;
  return line + ",reason,configurations,sweep_digest\n";
}

std::string sweep_line(const SweepResult& r, const SweepColumns& columns, SweepFormat format) {
  if (format == SweepFormat::jsonl) {
    nlohmann::ordered_json j = json_inputs(r.config, r.inputs, columns);
    j["status"] = r.status;
    for (const std::string& m : sweep_metric_columns(columns.draws))
      if (const nlohmann::ordered_json* v = r.report.contains(m) ? &r.report[m] : report_value(r.report, m))
        j[m] = *v;
    if (!r.reason.empty())
      j["reason"] = r.reason;
    j["configurations"] = r.configurations;
    j["sweep_digest"] = r.digest;
    return dump(j) + "\n";
  }
  std::string line = csv_inputs(r.config, r.inputs, columns) + r.status;
  for (const std::string& m : sweep_metric_columns(columns.draws)) {
    const nlohmann::ordered_json* v = report_value(r.report, m);
    line += "," + csv_number(v);
  }
  return line + "," + csv_field(r.reason) + "," + std::to_string(r.configurations) + "," + r.digest + "\n";
}

std::string sweep_line_start(int64_t config, const std::vector<std::string>& inputs, const SweepColumns& columns,
                             SweepFormat format) {
  if (format == SweepFormat::csv)
    return csv_inputs(config, inputs, columns);
  std::string j = dump(json_inputs(config, inputs, columns));
  j.pop_back(); // the closing brace: "status" follows
  return j + ",";
}

SweepResult parse_sweep_line(std::string_view line, const SweepColumns& columns, SweepFormat format) {
  SweepResult r = format == SweepFormat::csv ? parse_csv_line(line, columns) : parse_jsonl_line(line, columns);
  check_record(r, format, columns.draws);
  // Written back, the record must be the line: no field edited out of simgpt's form, no extra.
  const std::string again = sweep_line(r, columns, format);
  if (std::string_view(again).substr(0, again.size() - 1) != line)
    bad("is not a line as simgpt sweep writes it (edited, or of another version)");
  return r;
}

SweepColumns sweep_header_columns(std::string_view header) {
  const std::vector<std::string> fields = split_csv_line(header);
  const bool draws = std::find(fields.begin(), fields.end(), "draws.median_s") != fields.end();
  const size_t tail = 1 + sweep_metric_columns(draws).size() + kColumnsAfterMetrics; // status and after
  if (fields.size() < 1 + tail || fields.front() != "config")
    bad("is not a sweep's header (config,KEYS...,status,METRICS...,reason,configurations,sweep_digest)");
  SweepColumns columns = columns_of({fields.begin() + 1, fields.end() - static_cast<ptrdiff_t>(tail)});
  columns.draws = draws;
  if (sweep_csv_header(columns) != std::string(header) + "\n")
    bad("is not a sweep's header (config,KEYS...,status,METRICS...,reason,configurations,sweep_digest)");
  return columns;
}

SweepColumns sweep_jsonl_columns(std::string_view line) {
  const auto j = nlohmann::ordered_json::parse(line, nullptr, false);
  if (j.is_discarded() || !j.is_object() || j.empty() || j.begin().key() != "config")
    bad("is not a JSON object starting with \"config\"");
  std::vector<std::string> names;
  for (auto it = std::next(j.begin()); it != j.end(); ++it) {
    if (it.key() == "status") {
      SweepColumns columns = columns_of(std::move(names));
      columns.draws = j.contains("draws.median_s");
      return columns;
    }
    names.push_back(it.key());
  }
  bad("has no \"status\"");
}

std::string sweep_digest(std::string_view text) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (const char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return fmt::format("{:016x}", h);
}

} // namespace simgpt
