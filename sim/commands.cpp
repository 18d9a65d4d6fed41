// The table of subcommands, in --help's order.
#include "command.hpp"

#include <array>

namespace simgpt::cli {

void declare_validate(CLI::App&, Options&);
int run_validate(const Options&, const CLI::App&);
void declare_calibrate(CLI::App&, Options&);
int run_calibrate(const Options&, const CLI::App&);
void declare_profile_parameters(CLI::App&, Options&);
int run_profile_parameters(const Options&, const CLI::App&);
void declare_row(CLI::App&, Options&);
int run_row(const Options&, const CLI::App&);
void declare_point(CLI::App&, Options&);
int run_point(const Options&, const CLI::App&);
void declare_screen(CLI::App&, Options&);
int run_screen(const Options&, const CLI::App&);
void declare_sweep(CLI::App&, Options&);
int run_sweep(const Options&, const CLI::App&);
void declare_plan(CLI::App&, Options&);
int run_plan(const Options&, const CLI::App&);
void declare_plot(CLI::App&, Options&);
int run_plot(const Options&, const CLI::App&);
void declare_import(CLI::App&, Options&);
int run_import(const Options&, const CLI::App&);
void declare_platform(CLI::App&, Options&);
int run_platform(const Options&, const CLI::App&);
void declare_kernels(CLI::App&, Options&);
int run_kernels(const Options&, const CLI::App&);

namespace {
constexpr std::array kCommands{
    Command{"validate", "replay every measured table and report the errors", false, declare_validate, run_validate},
    Command{"calibrate", "fit a profile's parameters to its calibration rows", false, declare_calibrate,
            run_calibrate},
    Command{"profile-parameters", "list the profile parameters calibrate can fit (README's table)", false,
            declare_profile_parameters, run_profile_parameters},
    Command{"row", "simulate one validation row and print its outcome as JSON", true, declare_row, run_row},
    Command{"point", "simulate one sweep configuration, its outcome as JSON", true, declare_point, run_point},
    Command{"screen", "check and estimate a plan search's candidates, as JSON", true, declare_screen, run_screen},
    Command{"sweep", "simulate every configuration of a grid of workload keys, in parallel", false, declare_sweep,
            run_sweep},
    Command{"plan", "find the fastest parallel plan that fits, by simulating candidates", false, declare_plan,
            run_plan},
    Command{"plot", "chart a metric of a sweep's CSV against an input, as SVG, PDF or PNG (gnuplot)", false,
            declare_plot, run_plot},
    Command{"import", "write a workload from a Megatron-LM command line and a DeepSpeed config", false,
            declare_import, run_import},
    Command{"platform", "write a SimGrid platform file: GPU nodes joined by a network", false, declare_platform,
            run_platform},
    Command{"kernels", "list the kernel shapes a job runs that a kernel table can time, and what the tables cover",
            false, declare_kernels, run_kernels},
};
} // namespace

std::span<const Command> commands() { return kCommands; }

} // namespace simgpt::cli
