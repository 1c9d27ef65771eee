#include "app/workflow_support.hpp"

#include <fmt/format.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>

#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "core/limits.hpp"
#include "core/text.hpp"
#include "graph/job_graph_file.hpp"
#include "spec/yaml_reader.hpp"
#include "trace/file_writer.hpp"
#include "trace/output_dir.hpp"
#include "trace/writers.hpp"

namespace odcn::app::workflow {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

void write_staged(const fs::path& path, const std::string& text, const fs::path& named_as) {
  trace::FileWriter w(path.string(), named_as.string());
  w << text;
  w.close(false);
}

FolderSync::FolderSync(const fs::path& dir, std::string named_as) : named_as_(std::move(named_as)) {
  fd_ = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd_ < 0) throw IoError(named_as_, fmt::format("cannot be synced: {}", std::strerror(errno)));
}

FolderSync::~FolderSync() { ::close(fd_); }

void FolderSync::sync() {
  if (::syncfs(fd_) != 0) throw IoError(named_as_, fmt::format("cannot be written: {}", std::strerror(errno)));
}

void write_atomically(const fs::path& path, const std::string& text, bool replace, const fs::path& named_as) {
  const fs::path tmp =
      path.parent_path() / fmt::format(".{}.{}.partial", path.filename().string(), static_cast<long>(::getpid()));
  interrupt::remove_on_interrupt(tmp.string());
  std::error_code ec;
  try {
    fs::remove(tmp, ec);  // this process's own, from an earlier write of the same path
    trace::FileWriter w(tmp.string(), (named_as.empty() ? path : named_as).string());
    w << text;
    w.close();
  } catch (...) {
    fs::remove(tmp, ec);
    interrupt::forget(tmp.string());
    throw;
  }
  const auto lock = interrupt::hold();  // an interrupt now waits until the file is in place
  int error = 0;
  if (replace) {
    fs::rename(tmp, path, ec);
    error = ec.value();
  } else if (::link(tmp.c_str(), path.c_str()) != 0) {  // link() never replaces an existing file
    error = errno;
  }
  fs::remove(tmp, ec);
  interrupt::forget(tmp.string());
  if (error == EEXIST)
    throw InputError("command line", "--out",
                     fmt::format("'{}' was created by another command meanwhile; pass --force to replace it",
                                 shown(path.string())));
  if (error != 0) throw IoError(path.string(), "cannot be written: " + std::generic_category().message(error));
}

StagingFolder::StagingFolder(fs::path path) : path_(std::move(path)) {
  std::error_code ec;
  fs::remove_all(path_, ec);  // this process's own, which cannot be in use
  interrupt::remove_on_interrupt(path_.string());
  if (!fs::create_directory(path_, ec)) {
    interrupt::forget(path_.string());
    // Nothing is written yet: a folder where nothing can be created (read-only, /proc) is a bad --out, as for run.
    throw InputError("command line", "--out",
                     fmt::format("cannot write into folder '{}' ({})", shown(path_.parent_path().string()),
                                 ec ? ec.message() : "it exists"));
  }
}

StagingFolder::~StagingFolder() {
  std::error_code ec;
  if (!released_) fs::remove_all(path_, ec);
  interrupt::forget(path_.string());
}

void StagingFolder::release() { released_ = true; }

void check_job_graph_size(const std::string& text, const std::string& field) {
  if (static_cast<std::int64_t>(text.size()) > limits::kMaxInputFileBytes)
    throw InputError("command line", field,
                     fmt::format("the job-graph file would be {:.1f} MiB, above the {} MiB that run reads",
                                 static_cast<double>(text.size()) / (1 << 20), limits::kMaxInputFileBytes >> 20));
}

OutFile checked_out_file(const std::string& path, bool force, const std::string& command) {
  const fs::path out(path);
  std::error_code ec;
  if (path.empty()) throw InputError("command line", "--out", "is empty");
  if (fs::is_directory(out, ec) || out.filename().empty() || out.filename() == "." || out.filename() == "..")
    throw InputError("command line", "--out", fmt::format("'{}' is a folder", shown(path)));
  const bool exists = fs::exists(fs::symlink_status(out, ec));
  if (exists && !force && !workload::written_by_odcnsim(path, command))
    throw InputError("command line", "--out",
                     fmt::format("'{}' exists and is not a job graph that '{}' wrote; pass --force to replace it",
                                 shown(path), command));
  if (!out.parent_path().empty() && !fs::is_directory(out.parent_path(), ec))
    throw InputError("command line", "--out",
                     fmt::format("folder '{}' does not exist", shown(out.parent_path().string())));
  const fs::path parent = out.parent_path().empty() ? fs::path(".") : out.parent_path();
  if (::access(parent.c_str(), W_OK) != 0)  // (a read-only folder or file system: refused as run refuses it)
    throw InputError("command line", "--out",
                     fmt::format("cannot write into folder '{}' ({})", shown(parent.string()), std::strerror(errno)));
  return {out, exists};
}

void check_collection(const fs::path& dir, const std::vector<std::string>& ours, bool force, const char* word) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) {
    fs::create_directories(dir, ec);
    if (ec) throw InputError("command line", "--out", fmt::format("cannot create folder '{}' ({})", dir.string(), ec.message()));
    return;
  }
  if (!fs::is_directory(dir, ec))
    throw InputError("command line", "--out", fmt::format("'{}' is not a folder", shown(dir.string())));
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    // A plots/ folder (analysis/ writes its figures there) and odcnsim report's page are kept, never read.
    if (std::find(ours.begin(), ours.end(), name) != ours.end() || name == trace::kPlotsFolder ||
        name == trace::kReportFile || name.rfind('.', 0) == 0)
      continue;
    if (force) return;
    throw InputError("command line", "--out",
                     fmt::format("'{}' holds files that odcnsim {} did not write ({}); choose a new folder, or pass "
                                 "--force to write beside them (they are kept)",
                                 shown(dir.string()), word, shown(name)));
  }
}

void Progress::done(const std::string& label) {
  ++done_;
  if (!enabled_) return;
  const double elapsed = std::chrono::duration<double>(Clock::now() - t0_).count();
  const double eta = elapsed / done_ * (total_ - done_);
  if (terminal_) {
    const int width = 30, filled = width * done_ / total_;
    std::cerr << fmt::format("\r{} [{}{}] {}/{} {} , ETA {}   ", what_, std::string(filled, '#'),
                             std::string(width - filled, '.'), done_, total_, label, duration(eta));
    if (done_ == total_) std::cerr << "\n";
    std::cerr << std::flush;
  } else {
    std::cerr << fmt::format("{}: {}/{} done ({}), elapsed {}, ETA {}\n", what_, done_, total_, label,
                             duration(elapsed), duration(eta))
              << std::flush;
  }
}

std::string Progress::duration(double s) {
  const long t = static_cast<long>(s + 0.5);
  return t >= 3600 ? fmt::format("{}h{:02}m", t / 3600, t / 60 % 60)
                   : t >= 60 ? fmt::format("{}m{:02}s", t / 60, t % 60) : fmt::format("{}s", t);
}

namespace {

/// A run killed by a signal cannot remove its own staging folder (`.NAME.partial-XXXXXX` beside --out).
void remove_staging_of(const std::string& out) {
  const fs::path target(out);
  const std::string prefix = "." + target.filename().string() + ".partial-";
  std::error_code ec;
  for (fs::directory_iterator it(target.parent_path(), ec), end; !ec && it != end; it.increment(ec))
    if (it->path().filename().string().rfind(prefix, 0) == 0) fs::remove_all(it->path(), ec);
}

}  // namespace

std::vector<ChildOutcome> run_children(const std::string& self, const std::vector<ChildJob>& jobs, int parallel,
                                       Progress& progress) {
  ScratchFolder scratch;
  std::vector<ChildOutcome> outcomes(jobs.size());
  std::map<pid_t, std::size_t> running;
  std::vector<Clock::time_point> started(jobs.size());
  std::size_t next = 0;
  bool stop = false;
  std::exception_ptr spawn_error;
  const auto err_file = [&](std::size_t i) { return scratch.file(fmt::format("err-{}.txt", i)); };
  while (!running.empty() || (next < jobs.size() && !stop)) {
    while (!stop && next < jobs.size() && static_cast<int>(running.size()) < parallel) {
      started[next] = Clock::now();
      try {
        running[spawn_self(self, jobs[next].args, scratch.file(fmt::format("out-{}.txt", next)), err_file(next))] = next;
      } catch (...) {  // no process could be started: the running ones are still waited for
        if (!spawn_error) spawn_error = std::current_exception();
        stop = true;
        break;
      }
      ++next;
    }
    if (running.empty()) break;
    int status = 0;
    const pid_t pid = waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      break;  // no child left (cannot happen while `running` is not empty)
    }
    const auto it = running.find(pid);
    if (it == running.end()) continue;
    const std::size_t i = it->second;
    running.erase(it);
    ChildOutcome& c = outcomes[i];
    c.ran = true;
    c.run.status = status;
    c.run.wall_s = std::chrono::duration<double>(Clock::now() - started[i]).count();
    if (!c.run.ok()) {
      c.error_line = first_line(err_file(i));
      if (WIFSIGNALED(status) && !jobs[i].out.empty()) remove_staging_of(jobs[i].out);
      if (WIFEXITED(status) && WEXITSTATUS(status) == 2) stop = true;
    }
    progress.done(jobs[i].label);
  }
  if (spawn_error) std::rethrow_exception(spawn_error);
  return outcomes;
}

int first_failure(const std::vector<ChildJob>& jobs, const std::vector<ChildOutcome>& outcomes, const char* command) {
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    const auto& c = outcomes[i];
    if (!c.ran || c.run.ok()) continue;
    if (WIFEXITED(c.run.status) && WEXITSTATUS(c.run.status) == 2 && !c.error_line.empty()) {
      std::cerr << escape_line(c.error_line) << "\n";
      return 2;
    }
    std::cerr << fmt::format("odcnsim {}: the run of {} failed ({}): {}\n", command, jobs[i].label, c.run.how(),
                             c.error_line.empty() ? "no message" : escape_line(c.error_line));
    return 1;
  }
  return 0;
}

int default_parallel() { return std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)); }

std::string json_text(const Json& j) { return j.dump(2, ' ', false, Json::error_handler_t::replace) + "\n"; }

Json read_json_file(const fs::path& p) {
  // Read as every input file is: a folder, a FIFO or a device is refused (not read, not waited on).
  auto j = Json::parse(spec::read_input_file(p.string()), nullptr, false);
  if (j.is_discarded() || !j.is_object())
    throw InputError(p.string(), "(file)", "is not an odcnsim JSON result (not a JSON object)");
  return j;
}

std::string cell(const Json& v) {
  if (v.is_null()) return "";
  if (v.is_number()) return trace::num(v.get<double>());
  return v.is_string() ? v.get<std::string>() : v.dump();
}

std::pair<std::string, std::string> render_table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> width(rows.front().size(), 0);
  for (const auto& r : rows)
    for (std::size_t c = 0; c < r.size(); ++c) width[c] = std::max(width[c], r[c].size());
  std::string md, text;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    md += "|";
    for (std::size_t c = 0; c < rows[i].size(); ++c) {
      md += fmt::format(" {:{}} |", rows[i][c], width[c]);
      text += fmt::format(c == 0 ? "{:<{}}" : "  {:>{}}", rows[i][c], width[c]);
    }
    md += "\n";
    text += "\n";
    if (i == 0) {
      md += "|";
      for (std::size_t c = 0; c < width.size(); ++c) md += std::string(width[c] + 2, '-') + (c == 0 ? "|" : ":|");
      md += "\n";
    }
  }
  return {md, text};
}

std::string shell_quote(const std::string& s) {
  const bool plain = !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("_./=,:+-@%", c) != nullptr;
  });
  if (plain) return s;
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string run_hint(const workload::JobGraph& g, const std::string& file) {
  return fmt::format("  run it            odcnsim run --platform PLATFORM --workload {}   (one job, rank i on endpoint "
                     "i: any platform with at least {} endpoints; a workload file places the ranks otherwise, "
                     "docs/job-graph.md)\n",
                     escape_line(shell_quote(file)), g.ranks);
}

std::string graph_report(const workload::JobGraph& g) {
  int compute = 0, collectives = 0, messages = 0, barriers = 0;
  double collective_bytes = 0, message_bytes = 0, compute_s = 0;
  for (const auto& t : g.tasks) switch (t.kind) {
      case workload::TaskKind::compute:
        ++compute;
        compute_s += t.duration_s;
        break;
      case workload::TaskKind::collective:
        ++collectives;
        collective_bytes += t.bytes;
        break;
      case workload::TaskKind::transfer:
        ++messages;
        message_bytes += t.bytes;
        break;
      case workload::TaskKind::barrier:
        ++barriers;
        break;
    }
  const auto compute_only = workload::critical_path(
      g, [](const workload::Task& t) { return t.kind == workload::TaskKind::compute ? t.duration_s : 0.0; });
  std::string notes;
  for (const auto& n : g.notes) notes += fmt::format("  note              {}\n", escape_line(n));
  return notes + fmt::format(
      "  ranks             {}\n"
      "  tasks             {} compute ({:.6f} s over all ranks), {} collectives ({:.0f} B), {} messages ({:.0f} B), "
      "{} barriers\n"
      "  compute path      {:.6f} s per iteration with communication taking no time (a lower bound)\n",
      g.ranks, compute, compute_s, collectives, collective_bytes, messages, message_bytes, barriers,
      compute_only.length_s);
}

std::string table_number(const Json& v) {
  if (v.is_null()) return std::string("n/a");
  if (v.is_number_integer()) return std::to_string(v.get<long long>());
  const double x = v.get<double>();
  return std::abs(x) >= 1e6 || (x != 0 && std::abs(x) < 1e-3) ? fmt::format("{:.4g}", x) : fmt::format("{:.4f}", x);
}

}  // namespace odcn::app::workflow
