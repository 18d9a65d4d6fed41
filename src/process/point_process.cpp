#include "process/point_process.hpp"

#include "process/child_process.hpp"
#include "simgpt/core/error.hpp"

#include <fmt/format.h>

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
  if (process.memory_limit_bytes > 0)
    args.insert(args.end(), {"--memory-limit", fmt::format("{:.0f}B", process.memory_limit_bytes)});
  for (const std::string& s : sets)
    args.insert(args.end(), {"--set", s});
  PointOutcome out;
  try {
    out.report = run_simgpt_child(process.executable, args, process.timeout_s);
    out.status = out.report.value("oom", false) ? "oom" : "ok";
  } catch (const ProcessOutOfMemory& e) {
    out.status = "failed";
    out.reason = process.memory_limit_bytes > 0
                     ? fmt::format("the simulation needed more than its memory limit of {:.3g} GiB (--memory-limit)",
                                   process.memory_limit_bytes / (1024.0 * 1024.0 * 1024.0))
                     : one_line(e.what(), 1024);
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
