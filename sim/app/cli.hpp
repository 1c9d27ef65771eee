#pragma once
// The command line of odcnsim, a function per subcommand (cli_run.cpp, cli_workflow.cpp, cli_graphs.cpp,
// cli_bench.cpp). Each adds its subcommand and options to the app and returns what main() needs afterwards, so
// that main() only builds the app, checks option names, parses and dispatches.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdint>
#include <functional>
#include <string>

#include "core/error.hpp"
#include "core/numbers.hpp"
#include "core/text.hpp"

namespace odcn::cli {

/// A subcommand added to the app. When it was given, `finish` runs after parsing and turns the options' texts
/// into the command's options (raising InputError for a bad value); then `run` runs the command and returns
/// the exit code. Both share the options the subcommand's function bound to the app.
struct Command {
  CLI::App* app = nullptr;
  std::function<void()> finish;
  std::function<int()> run;
};

inline constexpr const char* kCommandLine = "command line";

/// An integer option's value, from lo to hi; otherwise InputError naming the option.
inline std::int64_t integer_option(const std::string& text, const char* name, std::int64_t lo, std::int64_t hi) {
  return parse_integer(text, lo, hi, kCommandLine, name);
}

/// run's and compare's --trace: full, summary or none.
inline void check_trace(const std::string& trace) {
  if (trace != "full" && trace != "summary" && trace != "none")
    throw InputError(kCommandLine, "--trace", fmt::format("must be full, summary or none (got '{}')", shown(trace)));
}

Command add_run(CLI::App& app);       ///< cli_run.cpp
Command add_validate(CLI::App& app);  ///< cli_run.cpp
Command add_show(CLI::App& app);      ///< cli_run.cpp
Command add_compare(CLI::App& app);   ///< cli_workflow.cpp
Command add_sweep(CLI::App& app);     ///< cli_workflow.cpp
Command add_diff(CLI::App& app);      ///< cli_workflow.cpp
Command add_report(CLI::App& app);    ///< cli_workflow.cpp
Command add_generate(CLI::App& app);  ///< cli_graphs.cpp
Command add_import(CLI::App& app);    ///< cli_graphs.cpp
Command add_export(CLI::App& app);    ///< cli_graphs.cpp
Command add_bench(CLI::App& app);     ///< cli_bench.cpp

}  // namespace odcn::cli
