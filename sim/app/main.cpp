// odcnsim: the one command-line entry point (the composition root).
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <vector>

#include "app/cli.hpp"
#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "core/text.hpp"
#include "odcn_commit.hpp"
#include "odcn_version.hpp"

namespace {

using odcn::InputError;
using odcn::cli::kCommandLine;

/// Finds an unknown `--option` before CLI11 does, so the message can name it and suggest the nearest one.
void check_option_names(CLI::App& sub, int argc, char** argv, int first) {
  std::vector<std::string> names{"--help"};
  for (const CLI::Option* opt : sub.get_options())
    for (const auto& n : opt->get_lnames()) names.push_back("--" + n);
  std::map<std::string, int> given;
  for (int i = first; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--") break;
    if (arg.rfind("--", 0) != 0) continue;
    arg = arg.substr(0, arg.find('='));
    // An option of one value given twice (CLI11 says 'At Most 1 required but received 2', naming the subcommand).
    if (const CLI::Option* opt = sub.get_option_no_throw(arg);
        opt && opt->get_type_size() > 0 && opt->get_expected_max() == 1 && ++given[arg] == 2)
      throw InputError(kCommandLine, arg, "is given twice; give it once");
    if (std::find(names.begin(), names.end(), arg) == names.end())
      throw InputError(kCommandLine, odcn::shown(arg),
                       fmt::format("unknown option of 'odcnsim {}'{}{} (see 'odcnsim {} --help')", sub.get_name(),
                                   odcn::suggestion(arg, names).empty() ? "" : "; ", odcn::suggestion(arg, names),
                                   sub.get_name()));
  }
}

/// CLI11's message, on one line, with the subcommand's help named.
std::string one_line(const CLI::ParseError& e, const std::string& sub) {
  std::string msg = e.what();
  for (char& c : msg)
    if (c == '\n') c = ' ';
  while (!msg.empty() && msg.back() == ' ') msg.pop_back();
  if (!msg.empty()) msg[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(msg[0])));
  return fmt::format("{}; see 'odcnsim {}--help'", odcn::shown(msg, 200), sub.empty() ? "" : sub + " ");
}

/// The subcommand (argv[1]) and its options' names, checked before CLI11 parses them so that the message can
/// suggest the nearest one. Sets `sub_name` to the subcommand given.
void check_names(CLI::App& app, int argc, char** argv, std::string& sub_name) {
  std::vector<std::string> subs;
  for (const CLI::App* s : app.get_subcommands([](CLI::App*) { return true; })) subs.push_back(s->get_name());
  std::string listed;  // "run, compare, ... or bench", in --help's order
  for (std::size_t i = 0; i < subs.size(); ++i)
    listed += (i == 0 ? "" : i + 1 == subs.size() ? " or " : ", ") + subs[i];
  if (argc < 2)
    throw InputError(kCommandLine, "odcnsim",
                     fmt::format("a subcommand is required ({}); see 'odcnsim --help'", listed));
  const std::string first = argv[1];
  if (first.rfind("-", 0) == 0 && first != "--help" && first != "-h" && first != "--version")
    throw InputError(kCommandLine, odcn::shown(first),
                     fmt::format("unknown option; give a subcommand first ({}; see 'odcnsim --help')", listed));
  if (first.rfind("-", 0) != 0) {
    CLI::App* sub = nullptr;
    for (CLI::App* s : app.get_subcommands([](CLI::App*) { return true; }))
      if (s->get_name() == first) sub = s;
    if (!sub)
      throw InputError(kCommandLine, odcn::shown(first),
                       fmt::format("unknown subcommand{}{}; the subcommands are {} (see 'odcnsim --help')",
                                   odcn::suggestion(first, subs).empty() ? "" : ", ", odcn::suggestion(first, subs),
                                   listed));
    sub_name = first;
    check_option_names(*sub, argc, argv, 2);
  }
}

/// An option or argument given with an empty value (`--out ''`, `--groups=`) is refused rather than read as not
/// given: a command must not silently fall back to its default (or to another mode) for a value the user wrote.
void check_empty_values(const CLI::App& sub) {
  for (const CLI::Option* opt : sub.get_options()) {
    if (opt->count() == 0 || opt->get_type_size() == 0) continue;  // not given, or a flag
    const auto& results = opt->results();
    if (std::none_of(results.begin(), results.end(), [](const std::string& v) { return v.empty(); })) continue;
    const std::string name = opt->nonpositional() ? "--" + opt->get_lnames().front() : opt->get_name();
    throw InputError(kCommandLine, name, "is empty");
  }
}

}  // namespace

int main(int argc, char** argv) {
  odcn::interrupt::install();
  CLI::App app{
      "odcnsim: many distributed-training jobs sharing an optical circuit-switched data-center network,\n"
      "simulated on SimGrid. It reports per-iteration times, the share spent communicating or waiting for\n"
      "OCS reconfiguration, and how often the fabric reconfigures.\n\n"
      "Exit status: 0 success; 2 bad input (one line 'file: field: reason' on stderr, nothing written);\n"
      "1 an output could not be written or an internal error; 130/143/129 interrupted by SIGINT/SIGTERM/SIGHUP.\n"
      "Input limits: docs/limits.md."};
  app.set_version_flag("--version", std::string("odcnsim ") + ODCNSIM_VERSION + " (commit " + ODCNSIM_COMMIT + ")");
  app.require_subcommand(1);
  // --help lists the subcommands in the order they are added here.
  std::vector<odcn::cli::Command> commands;
  for (auto add : {odcn::cli::add_run, odcn::cli::add_compare, odcn::cli::add_sweep, odcn::cli::add_diff,
                   odcn::cli::add_report, odcn::cli::add_generate,
                   odcn::cli::add_import, odcn::cli::add_export, odcn::cli::add_validate, odcn::cli::add_show,
                   odcn::cli::add_bench})
    commands.push_back(add(app));

  std::string sub_name;
  try {
    check_names(app, argc, argv, sub_name);
    try {
      app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
      if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
      throw InputError(kCommandLine, sub_name.empty() ? "odcnsim" : sub_name, one_line(e, sub_name));
    }
    for (const auto& c : commands)
      if (c.app->parsed()) {
        check_empty_values(*c.app);
        c.finish();
      }
  } catch (const InputError& e) {
    std::cerr << e.what() << "\n";
    return 2;
  }
  for (const auto& c : commands)
    if (c.app->parsed()) return c.run();
  // require_subcommand(1) leaves exactly one parsed; should none be, bench runs, as it always has.
  return commands.back().run();
}
