// `odcnsim bench`: wall time and peak memory of ordinary runs at several numbers of generated jobs, and of one
// collective over several numbers of endpoints (--collective). Every measured run is its own child process, so
// that each has a fresh SimGrid engine and its own peak memory.
#include <fmt/format.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "app/child.hpp"
#include "app/commands.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "engine/collective_run.hpp"
#include "graph/collective.hpp"
#include "spec/overrides.hpp"
#include "spec/platform_spec.hpp"

namespace odcn::app {

namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// Medians over the repeats of one row.
struct Samples {
  std::vector<double> wall, rss, plan, sim;
};

/// The child's one-line reason when it failed: bad input (exit 2) is passed on as it is; returns the exit code.
int report_child_failure(const ChildRun& run, const std::string& err, int jobs) {
  std::ifstream in(err);
  std::string reason;
  std::getline(in, reason);
  if (WIFEXITED(run.status) && WEXITSTATUS(run.status) == 2 && !reason.empty()) {
    std::cerr << escape_line(reason) << "\n";  // bad input: the run's own "file: field: reason"
    return 2;
  }
  std::cerr << fmt::format("odcnsim bench: the run with {} jobs failed ({}): {}\n", jobs, run.how(),
                           reason.empty() ? "no message" : escape_line(reason));
  return 1;
}

/// The run reports its own split between planning and simulation on its wall-time line.
void read_split(const std::string& log, Samples& s) {
  std::ifstream in(log);
  std::string line;
  while (std::getline(in, line)) {
    double p = 0, sim = 0;
    // A space in a scanf format matches any run of blanks, so this reads the aligned line run prints.
    if (std::sscanf(line.c_str(), " wall time plan %lf s, simulate %lf s", &p, &sim) == 2) {
      s.plan.push_back(p);
      s.sim.push_back(sim);
    }
  }
}

std::vector<std::string> bench_run_args(const BenchOptions& o, const std::string& workload, const std::string& out) {
  std::vector<std::string> args{"run",      "--platform", o.platform, "--workload",   workload,
                                "--policy", o.policy,     "--out",    out,
                                "--trace",  "none",       "--iterations", std::to_string(o.iterations)};
  if (!o.slowdown) args.emplace_back("--no-slowdown");
  if (o.full_eval) args.emplace_back("--full-eval");
  if (!o.search.empty()) args.insert(args.end(), {"--search", o.search});
  for (const auto& s : o.sets) args.insert(args.end(), {"--set", s});
  return args;
}

/// One row: `o.repeat` runs of `n` generated jobs. Returns the exit code (0 when every run succeeded).
int bench_row(const BenchOptions& o, const ScratchFolder& dir, int n) {
  const std::string workload = dir.file(fmt::format("gen-{}.yaml", n));
  std::ofstream(workload) << fmt::format(
      "training:\n  model: {}\n  context_tokens: {}\ngenerator:\n  jobs: {}\n  seed: 1\n", o.model, o.context_tokens, n);
  Samples s;
  for (int r = 0; r < o.repeat; ++r) {
    const std::string log = dir.file(fmt::format("log-{}.txt", n)), err = dir.file(fmt::format("err-{}.txt", n));
    const ChildRun run = run_self(o.self, bench_run_args(o, workload, dir.file(fmt::format("out-{}", n))), log, err);
    s.wall.push_back(run.wall_s);
    s.rss.push_back(run.peak_rss_mib);
    if (!run.ok()) return report_child_failure(run, err, n);
    read_split(log, s);
  }
  std::cout << fmt::format("{:>8} {:>10.3f} {:>10.3f} {:>12.3f} {:>14.1f}\n", n, median(s.wall), median(s.plan),
                           median(s.sim), median(s.rss))
            << std::flush;
  return 0;
}

/// --collective's operation and algorithm, checked. Raises InputError.
std::pair<workload::CollectiveOp, workload::CollectiveAlgorithm> checked_collective(const CollectiveBenchOptions& o) {
  using namespace workload;
  CollectiveOp op{};
  CollectiveAlgorithm algo{};
  if (!parse_collective_op(o.op, op))
    throw InputError("command line", "--collective",
                     fmt::format("unknown operation '{}' (all-reduce, reduce-scatter, all-gather, all-to-all, "
                                 "broadcast, ps-push, ps-pull, send-recv)",
                                 shown(o.op)));
  if (o.algorithm.empty()) {
    algo = supports(op, CollectiveAlgorithm::ring)     ? CollectiveAlgorithm::ring
           : supports(op, CollectiveAlgorithm::direct) ? CollectiveAlgorithm::direct
                                                       : CollectiveAlgorithm::parameter_server;
  } else if (!parse_collective_algorithm(o.algorithm, algo) || !supports(op, algo)) {
    throw InputError("command line", "--algorithm",
                     fmt::format("'{}' does not implement {} (ring, direct or parameter-server)", shown(o.algorithm),
                                 o.op));
  }
  if (o.fabric == "flat_ocs" && algo != CollectiveAlgorithm::ring)
    throw InputError("command line", "--fabric",
                     fmt::format("on flat_ocs only ring algorithms run (each server's circuits reach its two ring "
                                 "neighbours; {} ({}) needs a circuit per pair, more than a server's ports): use "
                                 "--fabric electrical",
                                 o.op, to_string(algo)));
  for (int n : o.ranks)
    if (n < 2 || (op == CollectiveOp::send_recv && n != 2))
      throw InputError("command line", "--ranks",
                       op == CollectiveOp::send_recv ? std::string("send-recv needs exactly 2 endpoints")
                                                     : fmt::format("{} needs at least 2 endpoints", o.op));
  return {op, algo};
}

/// The child's part: one collective over ranks[0] in this process, one line "simulated closed error transfers".
int bench_one_case(const CollectiveBenchOptions& o, workload::CollectiveOp op, workload::CollectiveAlgorithm algo) {
  using namespace workload;
  const BytesPerSecond nic = gbps_to_bytes_per_s(o.nic_gbps);
  const int n = o.ranks.front();
  engine::CollectiveRun run;
  double closed = 0;
  if (o.fabric == "flat_ocs") {
    // Each ring edge carries d_S/2 full-duplex circuits: a rank sends to the next at d_S/2 × B.
    run = o.compact ? engine::run_collective_flat_ring(lower_compact(op, algo, n, o.bytes), n, nic, o.ports / 2)
                    : engine::run_collective_task({op, algo, n, o.bytes, 0}, nic, o.ports / 2);
    closed = textbook_seconds(op, algo, n, o.bytes, nic * (o.ports / 2));
  } else {
    run = o.compact ? engine::run_collective_electrical(lower_compact(op, algo, n, o.bytes), n, nic)
                    : engine::run_collective_task({op, algo, n, o.bytes, 0}, nic);
    closed = textbook_seconds(op, algo, n, o.bytes, nic);
  }
  std::cout << fmt::format("{} {} {} {}\n", run.simulated_s, closed, std::fabs(run.simulated_s - closed) / closed,
                           run.transfers);
  return 0;
}

void print_collective_header(const CollectiveBenchOptions& o, workload::CollectiveAlgorithm algo) {
  const std::string where =
      o.fabric == "flat_ocs"
          ? fmt::format("flat_ocs, {} ports of {} Gb/s per server as full-duplex circuits to its ring neighbours",
                        o.ports, o.nic_gbps)
          : fmt::format("the electrical fabric, NICs of {} Gb/s each way", o.nic_gbps);
  std::cout << fmt::format("odcnsim bench --collective: {} ({}) of {} bytes per rank on {}, {}; median of {} runs\n",
                           o.op, to_string(algo), o.bytes, where,
                           o.compact ? "compacted transfers" : "one transfer per flow and step", o.repeat);
  std::cout << fmt::format("{:>8} {:>16} {:>16} {:>10} {:>10} {:>10} {:>14}\n", "ranks", "simulated_s",
                           "closed_form_s", "rel_error", "transfers", "wall_s", "peak_rss_MiB");
}

/// One row of --collective: `o.repeat` child runs over n ranks. Returns the exit code.
int collective_row(const CollectiveBenchOptions& o, workload::CollectiveAlgorithm algo, const ScratchFolder& dir,
                   int n) {
  std::vector<double> walls, rss;
  const std::string out = dir.file("case-out.txt"), errors = dir.file("case-err.txt");
  for (int r = 0; r < o.repeat; ++r) {
    std::vector<std::string> args{"bench", "--collective", o.op, "--algorithm", to_string(algo), "--ranks",
                                  std::to_string(n), "--bytes", fmt::format("{}", o.bytes), "--gbps",
                                  fmt::format("{}", o.nic_gbps), "--fabric", o.fabric, "--ports",
                                  std::to_string(o.ports), "--one-case"};
    if (!o.compact) args.emplace_back("--no-compact");
    const ChildRun run = run_self(o.self, args, out, errors);
    walls.push_back(run.wall_s);
    rss.push_back(run.peak_rss_mib);
    if (!run.ok()) {
      const std::string why = first_line(errors);
      std::cerr << fmt::format("odcnsim bench: the collective over {} ranks failed ({}{}{})\n", n, run.how(),
                               why.empty() ? "" : ": ", why);
      return 1;
    }
  }
  std::ifstream in(out);
  std::string line;
  std::getline(in, line);
  double sim = 0, closed = 0, err = 0;
  unsigned long transfers = 0;
  if (std::sscanf(line.c_str(), "%lf %lf %lf %lu", &sim, &closed, &err, &transfers) != 4) {
    std::cerr << "odcnsim bench: unreadable result line from the child\n";
    return 1;
  }
  std::cout << fmt::format("{:>8} {:>16.9f} {:>16.9f} {:>10.2e} {:>10} {:>10.3f} {:>14.1f}\n", n, sim, closed, err,
                           transfers, median(walls), median(rss))
            << std::flush;
  return 0;
}

}  // namespace

int bench_command(const BenchOptions& o) {
  std::unique_ptr<ScratchFolder> dir;
  try {
    spec::load_platform(o.platform);  // bad input is reported once, before any run (and before the header)
    policy_or_throw(o.policy, "command line", "--policy");
    for (const auto& s : o.sets) spec::parse_override(s);
    dir = std::make_unique<ScratchFolder>();
  } catch (...) {
    return report_failure();
  }
  std::string sets;
  for (const auto& s : o.sets) sets += " --set " + s;
  std::cout << fmt::format("odcnsim bench: policy {}{}{} on {}, {} compute model, context {}{}, median of {} runs "
                           "(plan + simulate {} iteration{} of every job; {})\n",
                           o.policy, o.search.empty() ? "" : " --search " + o.search,
                           o.full_eval ? " (full evaluation)" : "", escape_line(o.platform), o.model,
                           o.context_tokens, escape_line(sets), o.repeat, o.iterations, o.iterations == 1 ? "" : "s",
                           o.slowdown ? "with the slowdown baseline beside, as run does" : "no slowdown baseline run");
  std::cout << fmt::format("{:>8} {:>10} {:>10} {:>12} {:>14}\n", "jobs", "wall_s", "plan_s", "simulate_s",
                           "peak_rss_MiB");
  for (int n : o.jobs)
    if (const int code = bench_row(o, *dir, n)) return code;
  return 0;
}

int bench_collective_command(const CollectiveBenchOptions& o) {
  std::pair<workload::CollectiveOp, workload::CollectiveAlgorithm> c;
  std::unique_ptr<ScratchFolder> dir;
  try {
    c = checked_collective(o);
    if (o.one_case) {
      try {
        return bench_one_case(o, c.first, c.second);
      } catch (const ConfigError& e) {  // a limit of this machine or of the fabric, for these ranks
        throw InputError("command line", "--ranks", e.what());
      }
    }
    dir = std::make_unique<ScratchFolder>();
  } catch (...) {
    return report_failure();
  }
  print_collective_header(o, c.second);
  for (int n : o.ranks)
    if (const int code = collective_row(o, c.second, *dir, n)) return code;
  return 0;
}

}  // namespace odcn::app
