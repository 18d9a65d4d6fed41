#include "process/point_process.hpp"

#include "process/child_process.hpp"
#include "simgpt/core/error.hpp"

#include <unistd.h>

namespace simgpt {

PointOutcome run_point(const std::string& platform, const std::string& workload, const std::vector<std::string>& sets,
                       const PointProcess& process) {
  std::vector<std::string> args{"simgpt", "point", "--platform", platform, "--workload", workload,
                                "--parent-pid", std::to_string(::getpid())};
  for (const std::string& folder : process.data_folders)
    args.insert(args.end(), {"--data", folder});
  if (!process.fidelity.empty())
    args.insert(args.end(), {"--fidelity", process.fidelity});
  for (const std::string& s : sets)
    args.insert(args.end(), {"--set", s});
  PointOutcome out;
  try {
    out.report = run_simgpt_child(process.executable, args, process.timeout_s, process.memory_limit_bytes);
    out.status = out.report.value("oom", false) ? "oom" : "ok";
  } catch (const InputError& e) {
    out.status = "invalid";
    out.reason = e.what();
  } catch (const std::exception& e) {
    out.status = "failed";
    out.reason = one_line(e.what(), 1024);
  }
  return out;
}

} // namespace simgpt
