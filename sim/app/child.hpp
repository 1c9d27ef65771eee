#pragma once
// Child processes of odcnsim: runs of this same executable (SimGrid's engine is one per process, so every
// simulation beside the current one is a child), other programs (report's Python), and a private scratch folder
// for their files.
#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace odcn::app {

/// A private scratch folder, removed at the end and on an interrupt.
class ScratchFolder {
 public:
  ScratchFolder();
  ~ScratchFolder();
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

/// How a child ended, timed from its start, with its peak memory.
struct ChildRun {
  int status = 0;  ///< as waitpid gives it
  double wall_s = 0;
  double peak_rss_mib = 0;
  bool ok() const;
  std::string how() const;  ///< "exit N" or "killed by signal N"
};

/// Starts `self` with `args` (argv[0] is "odcnsim"), its stdout and stderr going to the files. Raises IoError
/// when no process can be started.
pid_t spawn_self(const std::string& self, const std::vector<std::string>& args, const std::string& out_file,
                 const std::string& err_file);
/// Waits for a child started at t0.
ChildRun wait_child(pid_t pid, std::chrono::steady_clock::time_point t0);
/// spawn_self, then wait_child.
ChildRun run_self(const std::string& self, const std::vector<std::string>& args, const std::string& out_file,
                  const std::string& err_file);
/// Another program (argv[0] is `program`), run like run_self: exit 127 when it cannot be started.
ChildRun run_program(const std::string& program, const std::vector<std::string>& args, const std::string& out_file,
                     const std::string& err_file);
/// The first line of a file ("" when there is none).
std::string first_line(const std::string& file);

}  // namespace odcn::app
