// `odcnsim report DIR [--out FILE] [--force]`: one self-contained HTML page of a run or compare folder, built
// by the Python package of this repository (python/odcnsim/report.py, drawing with analysis/'s tools). This
// command only runs it with Debian's /usr/bin/python3 and relays its output, its exit code and its one line.
#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <vector>

#include "app/child.hpp"
#include "app/commands.hpp"
#include "app/workflow.hpp"
#include "core/error.hpp"
#include "core/text.hpp"

#ifndef ODCNSIM_PYTHON_DIR
#define ODCNSIM_PYTHON_DIR "python"
#endif

namespace odcn::app {

namespace {

constexpr const char* kPython = "/usr/bin/python3";
constexpr const char* kMissingModule = "ModuleNotFoundError: No module named '";

/// The folder that holds the odcnsim package: $ODCNSIM_PYTHON_DIR, else the source tree's python/ (set at build
/// time), ahead of any PYTHONPATH already set.
std::string python_path() {
  const char* dir = std::getenv("ODCNSIM_PYTHON_DIR");
  const char* more = std::getenv("PYTHONPATH");
  std::string path = dir && *dir ? dir : ODCNSIM_PYTHON_DIR;
  if (more && *more) path += std::string(":") + more;
  return path;
}

std::vector<std::string> python_args(const ReportOptions& o) {
  std::vector<std::string> args{"-m", "odcnsim.report"};
  if (!o.out.empty()) args.insert(args.end(), {"--out", o.out});
  if (o.force) args.push_back("--force");
  args.insert(args.end(), {"--", o.dir});
  return args;
}

std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The last line that is not blank (a Python traceback's exception).
std::string last_line(const std::string& text) {
  std::istringstream in(text);
  std::string line, last;
  while (std::getline(in, line))
    if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
  return last;
}

/// Python's failure as this command's: its own one line (exit 2 or 1) as it is, a module Debian has not
/// installed as bad input naming the package, anything else as an internal error.
int relay_failure(const ChildRun& r, const std::string& err, const std::string& path) {
  const int code = WIFEXITED(r.status) ? WEXITSTATUS(r.status) : -1;
  if (code == 127 && err.empty())
    throw InputError(kPython, "(program)",
                     "cannot be run; install Debian's python3, python3-matplotlib and python3-pandas "
                     "(apt-get install python3-matplotlib python3-pandas)");
  const auto at = err.find(kMissingModule);
  if (at != std::string::npos) {
    const auto start = at + std::string(kMissingModule).size();
    const std::string module = err.substr(start, err.find_first_of("'.", start) - start);
    if (module.rfind("odcn", 0) == 0 || module.rfind("plot_", 0) == 0)  // this repository's, not Debian's
      throw InputError(kPython, module,
                       fmt::format("not found in '{}': report needs this repository's python/ and analysis/ "
                                   "folders; set ODCNSIM_PYTHON_DIR to its python/ folder",
                                   shown(path, 200)));
    throw InputError(kPython, module,
                     fmt::format("the Python module is missing; install Debian's python3-{0} (apt-get install "
                                 "python3-{0})",
                                 shown(module)));
  }
  if ((code == 1 || code == 2) && err.find("Traceback (most recent call last)") == std::string::npos) {
    std::cerr << escape_line(err.substr(0, err.find('\n'))) << "\n";
    return code;
  }
  std::cerr << "odcnsim: internal error: report: " << escape_line(last_line(err)) << " (" << r.how() << ")\n";
  return 1;
}

}  // namespace

int report_command(const ReportOptions& o) {
  try {
    ScratchFolder scratch;
    const std::string path = python_path();
    ::setenv("PYTHONPATH", path.c_str(), 1);
    const ChildRun r = run_program(kPython, python_args(o), scratch.file("out"), scratch.file("err"));
    const std::string out = file_text(scratch.file("out"));
    if (r.ok()) {
      if (!o.quiet) std::cout << out;
      return 0;
    }
    return relay_failure(r, file_text(scratch.file("err")), path);
  } catch (...) {
    return report_failure();
  }
}

}  // namespace odcn::app
