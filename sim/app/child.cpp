#include "app/child.hpp"

#include <fmt/format.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>

#include "core/error.hpp"
#include "core/interrupt.hpp"

namespace odcn::app {

using Clock = std::chrono::steady_clock;

ScratchFolder::ScratchFolder() {
  std::string pattern = (std::filesystem::temp_directory_path() / "odcnsim-XXXXXX").string();
  if (!mkdtemp(pattern.data())) throw IoError(pattern, std::strerror(errno));
  path_ = pattern;
  interrupt::remove_on_interrupt(path_.string());
}

ScratchFolder::~ScratchFolder() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
  interrupt::forget(path_.string());
}

bool ChildRun::ok() const { return WIFEXITED(status) && WEXITSTATUS(status) == 0; }

std::string ChildRun::how() const {
  if (WIFEXITED(status)) return fmt::format("exit {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return fmt::format("killed by signal {}", WTERMSIG(status));
  return "stopped";
}

namespace {

/// Starts `program` with argv[0] `argv0` and `args`, its stdout and stderr going to the files.
pid_t spawn(const std::string& program, const std::string& argv0, const std::vector<std::string>& args,
            const std::string& out_file, const std::string& err_file) {
  std::cout << std::flush;  // the child must not inherit (and repeat) buffered output
  std::cerr << std::flush;
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = fork();
  if (pid == 0) {
    interrupt::unblock_in_child();
    signal(SIGTERM, SIG_DFL);  // (an ignored SIGTERM would survive exec; the parent stops its children with it)
    prctl(PR_SET_PDEATHSIG, SIGTERM);  // a run whose parent is gone has no one to report to
    if (!freopen(out_file.c_str(), "w", stdout) || !freopen(err_file.c_str(), "w", stderr)) _exit(126);
    std::vector<const char*> argv{argv0.c_str()};
    for (const auto& a : args) argv.push_back(a.c_str());
    argv.push_back(nullptr);
    execv(program.c_str(), const_cast<char* const*>(argv.data()));
    _exit(127);
  }
  if (pid < 0) throw IoError("odcnsim", fmt::format("cannot start a process: {}", std::strerror(errno)));
  return pid;
}

}  // namespace

pid_t spawn_self(const std::string& self, const std::vector<std::string>& args, const std::string& out_file,
                 const std::string& err_file) {
  return spawn(self, "odcnsim", args, out_file, err_file);
}

ChildRun wait_child(pid_t pid, Clock::time_point t0) {
  ChildRun r;
  struct rusage usage {};
  while (wait4(pid, &r.status, 0, &usage) < 0 && errno == EINTR) {
  }
  r.wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
  r.peak_rss_mib = static_cast<double>(usage.ru_maxrss) / 1024.0;
  return r;
}

ChildRun run_self(const std::string& self, const std::vector<std::string>& args, const std::string& out_file,
                  const std::string& err_file) {
  const auto t0 = Clock::now();
  return wait_child(spawn_self(self, args, out_file, err_file), t0);
}

ChildRun run_program(const std::string& program, const std::vector<std::string>& args, const std::string& out_file,
                     const std::string& err_file) {
  const auto t0 = Clock::now();
  return wait_child(spawn(program, program, args, out_file, err_file), t0);
}

std::string first_line(const std::string& file) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  return line;
}

}  // namespace odcn::app
