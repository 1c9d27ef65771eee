// `odcnsim sweep`: a grid of --set values x policies x seeds (GRID.yaml), each point a child `odcnsim run` into
// points/ID/, run here in parallel or written for GNU parallel or Slurm, and gathered into one tidy sweep.csv.
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstring>
#include <iostream>

#include "app/child.hpp"
#include "app/commands.hpp"
#include "app/sweep_grid.hpp"
#include "app/sweep_json.hpp"
#include "app/sweep_stats.hpp"
#include "app/metrics.hpp"
#include "app/workflow.hpp"
#include "app/workflow_support.hpp"
#include "core/error.hpp"
#include "core/numbers.hpp"
#include "core/text.hpp"
#include "odcn_version.hpp"
#include "spec/yaml_reader.hpp"
#include "trace/writers.hpp"

namespace odcn::app {

namespace {

namespace fs = std::filesystem;
using namespace workflow;
using namespace sweep;

/// The path of this executable, for command lists that run elsewhere.
std::string executable_path(const std::string& self) {
  std::error_code ec;
  const fs::path p = fs::read_symlink(self, ec);
  return ec ? self : p.string();
}

/// A command as one shell line: `self` and every argument quoted where they need it.
std::string command_line(const std::string& self, const std::vector<std::string>& args) {
  std::string line = shell_quote(self);
  for (const auto& a : args) line += " " + shell_quote(a);
  return line;
}

/// sweep.csv (sweep_json.hpp) from the points' summary.json, and sweep-stats.csv. Returns the rows missing
/// (points not run yet or failed). `collect`: refuse, writing nothing, when no point has a result.
std::size_t write_sweep_csv(const fs::path& dir, const Json& sweep, bool collect = false) {
  std::size_t missing = 0;
  const std::string csv = sweep_csv(sweep, [&](const std::string& id) -> std::optional<Json> {
    const fs::path summary = dir / "points" / id / "summary.json";
    std::error_code ec;
    if (!fs::exists(summary, ec)) return std::nullopt;
    return read_json_file(summary);
  }, missing);
  if (collect && missing == sweep["points"].size())
    throw InputError("command line", "--collect", fmt::format("none of the {} points has a result yet", missing));
  write_atomically(dir / "sweep.csv", csv);
  write_sweep_stats(dir, sweep);
  return missing;
}

const std::vector<std::string> kSweepFiles{"sweep.json", "sweep.csv",    "sweep-stats.csv", "commands.txt",
                                           "sweep.sbatch", "points",      "slurm"};

}  // namespace

namespace {

/// `sweep --collect DIR`: sweep.csv from the points of DIR that finished.
int collect_sweep(const SweepOptions& o) {
  const fs::path dir = fs::absolute(o.collect).lexically_normal();
  if (!fs::exists(dir / "sweep.json"))
    throw InputError("command line", "--collect",
                     fmt::format("'{}' holds no sweep.json (write one with odcnsim sweep GRID --emit ...)",
                                 shown(o.collect)));
  const Json sweep = parse_sweep_json(spec::read_input_file((dir / "sweep.json").string()), (dir / "sweep.json").string());
  const std::size_t total = sweep["points"].size();
  const std::size_t missing = write_sweep_csv(dir, sweep, true);
  if (!o.quiet)
    std::cout << fmt::format("odcnsim sweep: {} of {} points collected into {}/sweep.csv{}\n", total - missing,
                             total, escape_line(o.collect),
                             missing ? fmt::format(" ({} have no result yet)", missing) : "");
  return 0;
}

/// Every point's inputs are read and validated here (not planned), so that a bad value is one line before
/// anything runs. Points differ only by policy and seed past their values: one check per values.
void check_points(const Grid& g, const std::vector<Point>& points) {
  for (std::size_t i = 0; i < points.size(); i += g.policies.size() * g.seeds.size()) {
    std::vector<spec::Override> overrides;
    try {
      for (std::size_t k = 0; k < g.sets.size(); ++k)
        overrides.push_back(spec::parse_override(g.sets[k].first + "=" + points[i].values[k]));
      check_run_inputs(g.platform_path, g.workload_path, overrides, g.policies, g.file, g.policies_field());
    } catch (const InputError& e) {
      // A value of the grid's set is the grid's error, not the command line's: name the grid and the key.
      for (std::size_t k = 0; k < g.sets.size(); ++k)
        if (e.file() == "command line" &&
            (e.field() == spec::set_field(g.sets[k].first + "=" + points[i].values[k]) ||
             (k == overrides.size() && e.field().rfind("--set", 0) == 0)))
          throw InputError(g.file, g.set_field(k),
                           fmt::format("value '{}': {}", shown(points[i].values[k]), e.reason()));
      throw;
    }
  }
}

/// Whether the points already in the folder are kept (resume): only when they were run with the same base.
/// Another base is refused unless --force, which runs every point again.
bool resumable(const fs::path& dir, const Grid& g, const SweepOptions& o) {
  std::error_code ec;
  if (!fs::exists(dir / "sweep.json", ec)) return true;
  const Json old = read_json_file(dir / "sweep.json");
  const Json base = sweep_base(g, o.keep_traces);
  const Json was = old.contains("base") ? old["base"] : Json();
  if (was == base) return true;
  std::string field;
  for (const auto& [k, v] : base.items())
    if (field.empty() && (!was.is_object() || !was.contains(k) || was[k] != v)) field = k;
  if (!o.force)
    throw InputError("command line", "--out",
                     fmt::format("'{}' holds a sweep of another grid (its {} differs); choose a new folder, or "
                                 "pass --force to run every point again",
                                 shown(o.out), field.empty() ? "base" : field));
  return false;
}

/// `--emit slurm`: sweep.sbatch, a Slurm job array running one line of commands.txt per task.
/// A Slurm task's limits: given, or estimated from probe runs here of the grid's first and last points (with its
/// values in ascending order, the extremes of its cost): four times the longer wall time, at least a minute, and
/// twice the larger peak memory plus 256 MiB. Their outputs go to a scratch folder and are dropped.
struct SlurmLimits {
  int minutes = 0, mib = 0;
  std::string how;      ///< said in the script and on the terminal
  int failed = 0;       ///< a probe run failed: the exit code to give (2: its bad input, 1 otherwise)
  std::string failure;  ///< and its one line
};

/// Probes run as the tasks will (their traces, their slowdown baseline beside), before anything is written. A
/// task's memory counts both processes of a run with its slowdown baseline.
SlurmLimits slurm_limits(const SweepOptions& o, const Grid& g, const std::vector<Point>& points) {
  SlurmLimits l{o.slurm_minutes, o.slurm_mib, "given with --slurm-time and --slurm-mem", 0, ""};
  if (l.minutes > 0 && l.mib > 0) return l;
  const ScratchFolder scratch;
  double wall = 0, mib = 0;
  std::vector<const Point*> probes{&points.front()};
  if (points.size() > 1) probes.push_back(&points.back());
  for (const Point* p : probes) {
    if (!o.quiet) std::cerr << "odcnsim sweep: timing point " << escape_line(p->id) << " for Slurm's limits\n";
    const ChildRun run = run_self(o.self, run_args(g, *p, g.platform_path, g.workload_path, scratch.file("probe"),
                                                   o.keep_traces),
                                  scratch.file("out"), scratch.file("err"));
    if (!run.ok()) {
      const bool bad_input = WIFEXITED(run.status) && WEXITSTATUS(run.status) == 2;
      l.failed = bad_input ? 2 : 1;
      l.failure = bad_input ? first_line(scratch.file("err"))
                            : fmt::format("odcnsim sweep: point {} failed when timed for Slurm's limits ({}): {}",
                                          p->id, run.how(), first_line(scratch.file("err")));
      return l;
    }
    wall = std::max(wall, run.wall_s);
    mib = std::max(mib, run.peak_rss_mib);
  }
  const int processes = g.slowdown ? 2 : 1;
  const int minutes = std::max(1, static_cast<int>(std::ceil(4 * wall / 60)));
  const int need_mib = static_cast<int>(std::ceil(2 * mib * processes)) + 256;
  const std::string estimated =
      fmt::format("estimated here from {} probe run{} (longest {:.1f} s, peak {:.0f} MiB{})", probes.size(),
                  probes.size() > 1 ? "s" : "", wall, mib, processes > 1 ? " per process, 2 with the baseline" : "");
  l.how = l.minutes > 0   ? fmt::format("time given with --slurm-time, memory {}: 2x + 256 MiB", estimated)
          : l.mib > 0     ? fmt::format("memory given with --slurm-mem, time {}: 4x, at least a minute", estimated)
                          : estimated + ": 4x the time, 2x the memory + 256 MiB; set them with --slurm-time MINUTES "
                                        "and --slurm-mem MIB";
  if (l.minutes == 0) l.minutes = minutes;
  if (l.mib == 0) l.mib = need_mib;
  return l;
}

/// `--emit slurm`: sweep.sbatch, a Slurm job array running one line of commands per task.
void write_slurm(const SweepOptions& o, const Grid& g, const std::vector<Point>& points, const fs::path& dir,
                 const std::string& commands, const SlurmLimits& limits) {
  std::error_code mk;
  fs::create_directories(dir / "slurm", mk);
  const std::string script = fmt::format(
      "#!/bin/bash\n"
      "# odcnsim sweep {grid}: {n} points as a Slurm job array, one odcnsim run per task.\n"
      "# Submit with: sbatch {script}   then gather: odcnsim sweep --collect {dir}\n"
      "# Time and memory per task {how}.\n"
      "#SBATCH --job-name=odcnsim-sweep\n"
      "#SBATCH --array=0-{last}\n"
      "#SBATCH --ntasks=1\n"
      "#SBATCH --cpus-per-task={cpus}\n"
      "#SBATCH --time={minutes}\n"
      "#SBATCH --mem={mib}M\n"
      "#SBATCH --output={out}/slurm/%A_%a.out\n"
      "set -euo pipefail\n"
      "line=$(sed -n \"$((SLURM_ARRAY_TASK_ID + 1))p\" {commands})\n"
      "eval \"$line\"\n",
      fmt::arg("grid", o.grid.empty() ? "(a grid given on the command line)" : g.file), fmt::arg("n", points.size()),
      fmt::arg("script", shell_quote((dir / "sweep.sbatch").string())),
      fmt::arg("dir", shell_quote(dir.string())), fmt::arg("how", limits.how), fmt::arg("last", points.size() - 1),
      fmt::arg("cpus", g.slowdown ? 2 : 1), fmt::arg("minutes", limits.minutes), fmt::arg("mib", limits.mib),
      fmt::arg("out", dir.string()), fmt::arg("commands", shell_quote(commands)));
  write_atomically(dir / "sweep.sbatch", script);
  if (!o.quiet)
    std::cout << fmt::format("odcnsim sweep: {} points as a Slurm job array in {}/sweep.sbatch, each task {} min and "
                             "{} MiB ({})\n"
                             "  submit:  sbatch {}\n  then:    odcnsim sweep --collect {}\n",
                             points.size(), escape_line(o.out), limits.minutes, limits.mib, limits.how,
                             shell_quote((dir / "sweep.sbatch").string()), shell_quote(o.out));
}

/// `--emit`: the same runs for an existing engine, commands.txt (and for Slurm sweep.sbatch), with absolute
/// paths so that they run from any folder.
int emit_sweep(const SweepOptions& o, const Grid& g, const std::vector<Point>& points, const fs::path& dir,
               const SlurmLimits& limits) {
  const std::string self = executable_path(o.self);
  const std::string platform = fs::absolute(g.platform_path).lexically_normal().string();
  const std::string workload = fs::absolute(g.workload_path).lexically_normal().string();
  std::string lines;
  for (const auto& p : points)
    lines += command_line(self, run_args(g, p, platform, workload, (dir / "points" / p.id).string(), o.keep_traces)) + "\n";
  write_atomically(dir / "commands.txt", lines);
  const std::string commands = (dir / "commands.txt").string();
  if (o.emit == "slurm") {
    write_slurm(o, g, points, dir, commands, limits);
  } else if (!o.quiet) {
    std::cout << fmt::format("odcnsim sweep: {} commands in {}/commands.txt\n"
                             "  run:   parallel -j {} < {}\n  then:  odcnsim sweep --collect {}\n",
                             points.size(), escape_line(o.out), default_parallel(), shell_quote(commands),
                             shell_quote(o.out));
  }
  return 0;
}

/// Runs the points not finished earlier (all of them unless `resume`) here, then gathers sweep.csv.
int run_points(const SweepOptions& o, const Grid& g, const std::vector<Point>& points, const fs::path& dir,
               bool resume, const Json& sweep) {
  std::error_code ec;
  std::vector<ChildJob> jobs;
  std::size_t skipped = 0;
  for (const auto& p : points) {
    if (resume && fs::exists(dir / "points" / p.id / "summary.json", ec)) {
      ++skipped;
      continue;
    }
    const std::string out = (dir / "points" / p.id).string();
    jobs.push_back({run_args(g, p, g.platform_path, g.workload_path, out, o.keep_traces), p.id, out});
  }
  const bool terminal = isatty(STDERR_FILENO);
  if (!o.quiet)
    std::cerr << fmt::format("odcnsim sweep: {} points ({} finished earlier, {} to run), {} at once\n", points.size(),
                             skipped, jobs.size(), o.parallel > 0 ? o.parallel : default_parallel())
              << std::flush;
  Progress progress("sweep", static_cast<int>(jobs.size()), !o.quiet, terminal);
  const auto outcomes = run_children(o.self, jobs, o.parallel > 0 ? o.parallel : default_parallel(), progress);
  const std::size_t missing = write_sweep_csv(dir, sweep);
  if (const int code = first_failure(jobs, outcomes, "sweep")) return code;
  if (!o.quiet)
    std::cout << fmt::format("odcnsim sweep: {} points in {}/sweep.csv{}\n", points.size() - missing,
                             escape_line(o.out), missing ? fmt::format(" ({} missing)", missing) : "");
  return 0;
}

}  // namespace

std::vector<std::string> sweep::run_args(const Grid& g, const Point& p, const std::string& platform,
                                         const std::string& workload, const std::string& out, bool keep_traces) {
  std::vector<std::string> args{"run", "--platform", platform, "--workload", workload, "--policy", p.policy};
  std::vector<std::string> sets;
  for (std::size_t k = 0; k < g.sets.size(); ++k) sets.push_back(g.sets[k].first + "=" + p.values[k]);
  add_run_options(args, g.iterations, p.seed, sets, keep_traces ? "full" : "none", g.slowdown);
  args.insert(args.end(), {"--out", out});
  return args;
}

int sweep_command(const SweepOptions& o) {
  std::signal(SIGPIPE, SIG_IGN);  // progress into a closed pipe must not kill the command before it cleans up
  try {
    if (!o.collect.empty()) return collect_sweep(o);
    const Grid g = o.inline_grid ? inline_grid(*o.inline_grid) : parse_grid(o.grid);
    const std::vector<Point> points = points_of(g);
    check_points(g, points);
    const fs::path dir = fs::absolute(o.out).lexically_normal();
    check_collection(dir, kSweepFiles, o.force, "sweep");
    const bool resume = resumable(dir, g, o);
    // Slurm's limits come from probe runs, before anything is written: a failing one leaves the folder as it was.
    const SlurmLimits limits = o.emit == "slurm" ? slurm_limits(o, g, points) : SlurmLimits{};
    if (limits.failed) {
      std::cerr << escape_line(limits.failure) << "\n";
      return limits.failed;
    }
    const Json sweep = sweep_json(g, points, o.keep_traces);
    write_atomically(dir / "sweep.json", json_text(sweep));
    if (!o.emit.empty()) return emit_sweep(o, g, points, dir, limits);
    return run_points(o, g, points, dir, resume, sweep);
  } catch (...) {
    return report_failure();
  }
}

}  // namespace odcn::app
