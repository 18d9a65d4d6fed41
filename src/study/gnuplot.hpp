// Runs gnuplot (Debian's gnuplot-nox) as a child process: no shell, the script on its standard
// input, the figure from its standard output.
#pragma once

#include <cstddef>
#include <string>

namespace simgpt {

// The executable file `program` names: itself when it holds a slash, else the first in $PATH's
// directories; empty when there is none.
std::string find_on_path(const std::string& program);

// How long gnuplot may run and how much it may print: a chart takes it well under a second and
// is tens of kilobytes; a program that never exits or never stops printing is not waited on.
struct GnuplotLimits {
  double seconds = 60;
  size_t max_output_bytes = 64u << 20;
};

// Runs `program` (gnuplot) with its default settings (-d: no ~/.gnuplot, so the same script
// gives the same figure for every user) on `script`; returns what it wrote on standard output.
// Throws InputError when the program is not installed or runs past `limits` (it is killed),
// std::runtime_error when it cannot be started or fails (with its first line of error output).
std::string run_gnuplot(const std::string& script, const std::string& program = "gnuplot",
                        const GnuplotLimits& limits = {});

} // namespace simgpt
