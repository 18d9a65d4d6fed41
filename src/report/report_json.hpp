// A report's JSON form inside the library: what `simgpt point` and `simgpt row` send their parent
// (process/), read back by plan and validate. Public headers give it only as text
// (Report::to_json_text), so that they do not carry nlohmann::json.
#pragma once

#include "simgpt/report/report.hpp"

#include <nlohmann/json.hpp>

namespace simgpt {

// Carries `schema` (kReportSchema); values are rounded to 9 significant digits.
nlohmann::ordered_json report_json(const Report& report);

// What a result was made from (ReportInputs): simgpt_version, inputs, overrides and
// resolved_workload, as the report's last fields and a trace's otherData carry them.
nlohmann::ordered_json report_inputs_json(const ReportInputs& inputs);

// Reads what report_json wrote; throws InputError for another schema or a missing key.
Report report_from_json(const nlohmann::ordered_json& j);

} // namespace simgpt
