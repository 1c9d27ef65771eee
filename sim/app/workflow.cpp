#include "app/workflow.hpp"

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <type_traits>

#include "app/child.hpp"
#include "app/commands.hpp"
#include "app/metrics.hpp"
#include "core/error.hpp"
#include "core/limits.hpp"
#include "core/numbers.hpp"
#include "core/text.hpp"
#include "odcn_version.hpp"
#include "spec/yaml_reader.hpp"
#include "trace/file_writer.hpp"
#include "trace/output_dir.hpp"
#include "trace/writers.hpp"
#include "spec/graph_workload.hpp"
#include "traces/chakra.hpp"
#include "systems/topox/dlrm.hpp"
#include "traces/graph_source.hpp"
#include "graph/job_graph_file.hpp"
#include "systems/opus/torchtitan.hpp"

namespace odcn::app {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using Json = nlohmann::ordered_json;

/// The path of this executable, for command lists that run elsewhere.
std::string executable_path(const std::string& self) {
  std::error_code ec;
  const fs::path p = fs::read_symlink(self, ec);
  return ec ? self : p.string();
}

/// A word as a POSIX shell reads it back.
std::string shell_quote(const std::string& s) {
  const bool plain = !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("_./=,:+-@%", c) != nullptr;
  });
  if (plain) return s;
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string command_line(const std::string& self, const std::vector<std::string>& args) {
  std::string line = shell_quote(self);
  for (const auto& a : args) line += " " + shell_quote(a);
  return line;
}

/// A text file written whole beside its place, then renamed over it: a reader sees the old file or the new
/// one, never a part.
void write_atomically(const fs::path& path, const std::string& text) {
  const fs::path tmp = path.parent_path() / ("." + path.filename().string() + ".partial");
  trace::FileWriter w(tmp.string(), path.string());
  w << text;
  w.close();
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw IoError(path.string(), "cannot be replaced: " + ec.message());
  }
}

/// --out FILE of a command that writes one job-graph file: not a folder, in a folder that exists, and not there
/// yet unless it is a job graph an odcnsim command wrote (generated_by) or `force` (then it is replaced, atomically).
fs::path checked_out_file(const std::string& path, bool force) {
  const fs::path out(path);
  std::error_code ec;
  if (fs::is_directory(out, ec)) throw InputError("command line", "--out", fmt::format("'{}' is a folder", shown(path)));
  if (fs::exists(out, ec) && !force && !workload::written_by_odcnsim(path))
    throw InputError("command line", "--out",
                     fmt::format("'{}' exists and is not a job graph that odcnsim wrote; pass --force to replace it",
                                 shown(path)));
  if (!out.parent_path().empty() && !fs::is_directory(out.parent_path(), ec))
    throw InputError("command line", "--out",
                     fmt::format("folder '{}' does not exist", shown(out.parent_path().string())));
  return out;
}

std::string json_text(const Json& j) { return j.dump(2, ' ', false, Json::error_handler_t::replace) + "\n"; }

/// A compare or sweep folder: new, empty, or holding only what such a command writes. Anything else is
/// refused unless `force`; even then odcnsim only adds its own files and never deletes others.
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
    // A plots/ folder (analysis/ writes its figures there) is kept, never read.
    if (std::find(ours.begin(), ours.end(), name) != ours.end() || name == trace::kPlotsFolder || name.rfind('.', 0) == 0)
      continue;
    if (force) return;
    throw InputError("command line", "--out",
                     fmt::format("'{}' holds files that odcnsim {} did not write ({}); choose a new folder, or pass "
                                 "--force to write beside them (they are kept)",
                                 shown(dir.string()), word, shown(name)));
  }
}

/// Progress of many runs: a redrawn bar on a terminal, else a line per run finished.
class Progress {
 public:
  Progress(const char* what, int total, bool enabled, bool terminal)
      : what_(what), total_(total), enabled_(enabled && total > 0), terminal_(terminal), t0_(Clock::now()) {}
  void done(const std::string& label) {
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

 private:
  static std::string duration(double s) {
    const long t = static_cast<long>(s + 0.5);
    return t >= 3600 ? fmt::format("{}h{:02}m", t / 3600, t / 60 % 60)
                     : t >= 60 ? fmt::format("{}m{:02}s", t / 60, t % 60) : fmt::format("{}s", t);
  }
  const char* what_;
  int total_;
  int done_ = 0;
  bool enabled_, terminal_;
  Clock::time_point t0_;
};

struct ChildJob {
  std::vector<std::string> args;
  std::string label;
  std::string out;  ///< its --out
};

/// A run killed by a signal cannot remove its own staging folder (`.NAME.partial-XXXXXX` beside --out).
void remove_staging_of(const std::string& out) {
  const fs::path target(out);
  const std::string prefix = "." + target.filename().string() + ".partial-";
  std::error_code ec;
  for (fs::directory_iterator it(target.parent_path(), ec), end; !ec && it != end; it.increment(ec))
    if (it->path().filename().string().rfind(prefix, 0) == 0) fs::remove_all(it->path(), ec);
}

struct ChildOutcome {
  bool ran = false;
  ChildRun run;
  std::string error_line;  ///< the child's first stderr line when it failed
};

/// Runs the jobs as children, at most `parallel` at once. After a child reports bad input (exit 2), no new
/// one is started (the rest would most likely fail alike); those running are let finish.
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

/// The first failure among the outcomes as this command's exit: the child's own line for bad input (2),
/// else a line naming the run (1). 0 when all succeeded.
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

Json read_json_file(const fs::path& p) {
  std::ifstream in(p);
  auto j = Json::parse(in, nullptr, false);
  if (j.is_discarded() || !j.is_object()) throw InputError(p.string(), "", "is not an odcnsim JSON result");
  return j;
}

/// A metric as CSV or table text: the shortest exact number, or empty for null.
std::string cell(const Json& v) {
  if (v.is_null()) return "";
  if (v.is_number()) return trace::num(v.get<double>());
  return v.is_string() ? v.get<std::string>() : v.dump();
}

}  // namespace

// ---------------------------------------------------------------------------------------------------------
// compare

int compare_command(const CompareOptions& o) {
  std::signal(SIGPIPE, SIG_IGN);  // progress into a closed pipe must not kill the command before it cleans up
  try {
    if (o.policies.empty()) throw InputError("command line", "--policies", "name at least one policy");
    std::set<std::string> seen;
    for (const auto& p : o.policies) {
      policy_or_throw(p, "command line", "--policies");
      if (!seen.insert(p).second)
        throw InputError("command line", "--policies", fmt::format("'{}' is named twice", p));
    }
    const std::string baseline = o.baseline.empty() ? o.policies.front() : o.baseline;
    if (!seen.count(baseline))
      throw InputError("command line", "--baseline",
                       fmt::format("'{}' is not one of the policies compared", shown(baseline)));
    // The inputs are checked once here, so that bad input is one line rather than one per policy.
    check_run_inputs(o.platform, o.workload, o.overrides);
    const fs::path dir = fs::absolute(o.out).lexically_normal();
    check_collection(dir, {"compare.csv", "compare.md", "compare.json", "runs"}, o.force, "compare");
    std::vector<std::string> sets;
    for (const auto& v : o.overrides) sets.push_back(v.text);
    std::vector<ChildJob> jobs;
    for (const auto& p : o.policies) {
      ChildJob j{{"run", "--platform", o.platform, "--workload", o.workload, "--policy", p}, "policy " + p,
                 (dir / "runs" / p).string()};
      add_run_options(j.args, o.iterations, o.seed, sets, o.trace, o.slowdown);
      j.args.insert(j.args.end(), {"--out", j.out});
      jobs.push_back(std::move(j));
    }
    const int parallel = o.parallel > 0 ? o.parallel : std::min<int>(static_cast<int>(jobs.size()), default_parallel());
    const bool terminal = isatty(STDERR_FILENO);  // (few runs: progress only where it is redrawn)
    Progress progress("compare", static_cast<int>(jobs.size()), !o.quiet && terminal, terminal);
    const auto outcomes = run_children(o.self, jobs, parallel, progress);
    if (const int code = first_failure(jobs, outcomes, "compare")) return code;

    std::map<std::string, Json> summary;
    for (const auto& p : o.policies) summary[p] = read_json_file(dir / "runs" / p / "summary.json");
    const Json& base = summary[baseline];
    const auto ratio = [&](const std::string& p, const std::string& key) -> Json {
      const Json& v = summary[p][key];
      const Json& b = base[key];
      if (!v.is_number() || !b.is_number() || b.get<double>() == 0) return nullptr;
      return v.get<double>() / b.get<double>();
    };
    const auto& keys = metric_keys();
    // CSV: a row per policy (tidy, for plots); JSON: the same with the runs' folders.
    std::string csv = "policy,baseline,platform,workload";
    for (const auto& [k, label] : keys) csv += "," + k;
    for (const auto& [k, label] : keys) csv += "," + k + "_ratio";
    csv += "\n";
    Json policies_json = Json::array();
    for (const auto& p : o.policies) {
      csv += p + "," + baseline + "," + trace::csv_field(o.platform) + "," + trace::csv_field(o.workload);
      Json metrics = Json::object(), ratios = Json::object();
      for (const auto& [k, label] : keys) {
        csv += "," + cell(summary[p][k]);
        metrics[k] = summary[p][k];
      }
      for (const auto& [k, label] : keys) {
        csv += "," + cell(ratio(p, k));
        ratios[k] = ratio(p, k);
      }
      csv += "\n";
      policies_json.push_back({{"policy", p}, {"run", "runs/" + p}, {"metrics", metrics}, {"ratio_to_baseline", ratios}});
    }
    // Markdown (and the terminal): a row per metric, a column per policy, each value with its ratio.
    const auto number = [](const Json& v) {
      if (v.is_null()) return std::string("n/a");
      if (v.is_number_integer()) return std::to_string(v.get<long long>());
      const double x = v.get<double>();
      return std::abs(x) >= 1e6 || (x != 0 && std::abs(x) < 1e-3) ? fmt::format("{:.4g}", x) : fmt::format("{:.4f}", x);
    };
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> head{"metric"};
    for (const auto& p : o.policies) head.push_back(p == baseline ? p + " (baseline)" : p);
    rows.push_back(head);
    for (const auto& [k, label] : keys) {
      std::vector<std::string> row{label};
      for (const auto& p : o.policies) {
        const Json r = ratio(p, k);
        row.push_back(number(summary[p][k]) + (p == baseline || r.is_null() ? "" : fmt::format(" (x{:.3f})", r.get<double>())));
      }
      rows.push_back(row);
    }
    std::vector<std::size_t> width(head.size(), 0);
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
    const std::string title =
        fmt::format("odcnsim compare: {} on {}, {} iterations per job; ratios (x) to {}", o.workload, o.platform,
                    summary[baseline]["iterations"].is_null() ? std::string("each graph's")
                                                               : cell(summary[baseline]["iterations"]),
                    baseline);
    Json doc = {{"odcnsim_version", ODCNSIM_VERSION},
                {"platform", o.platform},
                {"workload", o.workload},
                {"baseline", baseline},
                {"overrides", sets},
                {"policies", policies_json}};
    write_atomically(dir / "compare.json", json_text(doc));
    write_atomically(dir / "compare.csv", csv);
    write_atomically(dir / "compare.md", "# " + title + "\n\n" + md);
    if (!o.quiet)
      std::cout << escape_line(title) << "\n"
                << text
                << fmt::format("outputs: {}/{{compare.csv,compare.md,compare.json}}, one run folder per policy in "
                               "{}/runs/\n",
                               escape_line(o.out), escape_line(o.out));
    return 0;
  } catch (...) {
    return report_failure();
  }
}

// ---------------------------------------------------------------------------------------------------------
// sweep

namespace {

struct Grid {
  std::string file;
  std::string platform, workload;          ///< as the grid gives them
  std::string platform_path, workload_path;  ///< resolved against the grid's folder
  std::vector<std::string> policies;
  std::vector<std::optional<std::uint64_t>> seeds{std::nullopt};
  int iterations = 0;
  bool slowdown = true;
  std::vector<std::pair<std::string, std::vector<std::string>>> sets;  ///< key → values, in the grid's order
};

std::string scalar_text(const YAML::Node& n, const std::string& file, const std::string& field) {
  if (!n.IsScalar()) throw InputError(file, field, "must be a single value (a number or a word)");
  return n.Scalar();
}

Grid parse_grid(const std::string& file) {
  Grid g;
  g.file = file;
  const YAML::Node doc = spec::parse_yaml(spec::read_input_file(file), file);
  if (!doc.IsMap()) throw InputError(file, "", "must be a map with platform, workload, policies and set");
  for (const auto& kv : doc) {
    const std::string k = kv.first.Scalar();
    if (k != "platform" && k != "workload" && k != "policies" && k != "seeds" && k != "iterations" &&
        k != "slowdown" && k != "set")
      throw InputError(file, k, "unknown key (platform, workload, policies, seeds, iterations, slowdown, set)");
  }
  const fs::path base = fs::path(file).parent_path();
  for (const char* k : {"platform", "workload"}) {
    if (!doc[k]) throw InputError(file, k, "is required");
    const std::string v = scalar_text(doc[k], file, k);
    (std::string(k) == "platform" ? g.platform : g.workload) = v;
    (std::string(k) == "platform" ? g.platform_path : g.workload_path) = (base / v).lexically_normal().string();
  }
  if (!doc["policies"] || !doc["policies"].IsSequence() || doc["policies"].size() == 0)
    throw InputError(file, "policies", "must list at least one policy");
  for (std::size_t i = 0; i < doc["policies"].size(); ++i) {
    const std::string field = fmt::format("policies[{}]", i);
    const std::string p = scalar_text(doc["policies"][i], file, field);
    policy_or_throw(p, file, field);
    if (std::find(g.policies.begin(), g.policies.end(), p) != g.policies.end())
      throw InputError(file, field, fmt::format("'{}' is listed twice", p));
    g.policies.push_back(p);
  }
  if (doc["seeds"]) {
    if (!doc["seeds"].IsSequence() || doc["seeds"].size() == 0) throw InputError(file, "seeds", "must list seeds");
    g.seeds.clear();
    for (std::size_t i = 0; i < doc["seeds"].size(); ++i) {
      const std::string field = fmt::format("seeds[{}]", i);
      g.seeds.emplace_back(parse_seed(scalar_text(doc["seeds"][i], file, field), file, field));
    }
  }
  if (doc["iterations"])
    g.iterations = static_cast<int>(
        parse_integer(scalar_text(doc["iterations"], file, "iterations"), 1, 1'000'000, file, "iterations"));
  if (doc["slowdown"]) {
    const std::string v = scalar_text(doc["slowdown"], file, "slowdown");
    if (v != "true" && v != "false") throw InputError(file, "slowdown", "must be true or false");
    g.slowdown = v == "true";
  }
  if (doc["set"]) {
    if (!doc["set"].IsMap()) throw InputError(file, "set", "must map each key path to a list of values");
    for (const auto& kv : doc["set"]) {
      const std::string key = kv.first.Scalar();
      const std::string field = "set." + key;
      if (!kv.second.IsSequence() || kv.second.size() == 0)
        throw InputError(file, field, "must list the values to sweep (e.g. [10, 100, 1000])");
      std::vector<std::string> values;
      for (std::size_t i = 0; i < kv.second.size(); ++i) {
        const std::string v = scalar_text(kv.second[i], file, fmt::format("{}[{}]", field, i));
        try {
          spec::parse_override(key + "=" + v);  // the key must name a platform or workload field
        } catch (const InputError& e) {
          throw InputError(file, fmt::format("{}[{}]", field, i), e.reason());
        }
        if (std::find(values.begin(), values.end(), v) != values.end())
          throw InputError(file, fmt::format("{}[{}]", field, i), fmt::format("'{}' is listed twice", shown(v)));
        values.push_back(v);
      }
      g.sets.emplace_back(key, std::move(values));
    }
  }
  return g;
}

struct Point {
  std::string id;
  std::string policy;
  std::optional<std::uint64_t> seed;
  std::vector<std::string> values;  ///< one per grid set key
};

/// A folder name that says what the point is: "ocs.reconfig_delay_us=10+policy=tdm4+seed=1" (no commas: it is
/// also sweep.csv's first column).
std::string point_id(const Grid& g, const Point& p) {
  std::string id;
  for (std::size_t k = 0; k < g.sets.size(); ++k) id += g.sets[k].first + "=" + p.values[k] + "+";
  id += "policy=" + p.policy;
  if (p.seed) id += fmt::format("+seed={}", *p.seed);
  // Characters a folder name should not hold become '_'; then (and for long names) a fingerprint of the exact
  // values keeps two points apart ("a b" and "a_b").
  const std::string exact = id;
  bool changed = false;
  for (char& c : id)
    if (!std::isalnum(static_cast<unsigned char>(c)) && !std::strchr("._=-+", c)) {
      c = '_';
      changed = true;
    }
  if (changed || id.size() > 200)
    id = fmt::format("{}-{}", id.substr(0, 180), spec::fingerprint(exact).substr(std::string("fnv1a64:").size(), 12));
  return id;
}

/// The cross product: set values (the first key slowest), then policies, then seeds.
std::vector<Point> points_of(const Grid& g) {
  std::vector<Point> points;
  std::vector<std::size_t> at(g.sets.size(), 0);
  while (true) {
    for (const auto& policy : g.policies)
      for (const auto& seed : g.seeds) {
        Point p{"", policy, seed, {}};
        for (std::size_t k = 0; k < g.sets.size(); ++k) p.values.push_back(g.sets[k].second[at[k]]);
        p.id = point_id(g, p);
        points.push_back(std::move(p));
      }
    std::size_t k = g.sets.size();
    while (k > 0 && ++at[k - 1] == g.sets[k - 1].second.size()) at[--k] = 0;
    if (k == 0) break;
  }
  return points;
}

std::vector<std::string> run_args(const Grid& g, const Point& p, const std::string& platform,
                                  const std::string& workload, const std::string& out, bool keep_traces) {
  std::vector<std::string> args{"run", "--platform", platform, "--workload", workload, "--policy", p.policy};
  std::vector<std::string> sets;
  for (std::size_t k = 0; k < g.sets.size(); ++k) sets.push_back(g.sets[k].first + "=" + p.values[k]);
  add_run_options(args, g.iterations, p.seed, sets, keep_traces ? "full" : "none", g.slowdown);
  args.insert(args.end(), {"--out", out});
  return args;
}

/// What a sweep folder's points were run with: a folder of another grid's points is not resumed.
Json sweep_base(const Grid& g, bool keep_traces) {
  return {{"platform", g.platform},   {"workload", g.workload},     {"iterations", g.iterations},
          {"slowdown", g.slowdown},   {"trace", keep_traces ? "full" : "none"}};
}

Json sweep_json(const Grid& g, const std::vector<Point>& points, bool keep_traces) {
  Json keys = Json::array();
  for (const auto& [k, v] : g.sets) keys.push_back(k);
  Json list = Json::array();
  for (const auto& p : points) {
    Json set = Json::object();
    for (std::size_t k = 0; k < g.sets.size(); ++k) set[g.sets[k].first] = p.values[k];
    list.push_back({{"id", p.id}, {"policy", p.policy}, {"seed", p.seed ? Json(*p.seed) : Json(nullptr)}, {"set", set}});
  }
  return {{"odcnsim_version", ODCNSIM_VERSION}, {"grid", g.file},   {"base", sweep_base(g, keep_traces)},
          {"keys", keys},                        {"points", list}};
}

/// The TDM policies' own figures, after the comparable metrics in sweep.csv (empty under other policies).
const std::vector<std::string> kTdmExtras{"rounds",           "round_time_s",          "predicted_round_time_s",
                                          "seed_round_time_s", "hill_climb_moves",      "training_to_comm_ratio",
                                          "group_b_jobs",     "search"};

/// sweep.csv from sweep.json and the points' summary.json: a row per finished point. Returns the rows
/// missing (points not run yet or failed).
std::size_t write_sweep_csv(const fs::path& dir, const Json& sweep) {
  std::string csv = "point,platform,workload,policy,seed";
  for (const auto& k : sweep["keys"]) csv += "," + k.get<std::string>();
  csv += ",jobs,iterations";
  for (const auto& [k, label] : metric_keys()) csv += "," + k;
  for (const auto& k : kTdmExtras) csv += "," + k;
  csv += "\n";
  std::size_t missing = 0;
  for (const auto& p : sweep["points"]) {
    const fs::path summary = dir / "points" / p["id"].get<std::string>() / "summary.json";
    std::error_code ec;
    if (!fs::exists(summary, ec)) {
      ++missing;
      continue;
    }
    const Json s = read_json_file(summary);
    csv += fmt::format("{},{},{},{},{}", p["id"].get<std::string>(), trace::csv_field(sweep["base"]["platform"].get<std::string>()),
                       trace::csv_field(sweep["base"]["workload"].get<std::string>()), p["policy"].get<std::string>(), cell(p["seed"]));
    for (const auto& k : sweep["keys"]) csv += "," + trace::csv_field(p["set"][k.get<std::string>()].get<std::string>());
    csv += "," + cell(s.value("jobs", Json())) + "," + cell(s.value("iterations", Json()));
    for (const auto& [k, label] : metric_keys()) csv += "," + cell(s.value(k, Json()));
    for (const auto& k : kTdmExtras) csv += "," + cell(s.value(k, Json()));
    csv += "\n";
  }
  write_atomically(dir / "sweep.csv", csv);
  return missing;
}

const std::vector<std::string> kSweepFiles{"sweep.json", "sweep.csv", "commands.txt", "sweep.sbatch", "points", "slurm"};

}  // namespace

// ---------------------------------------------------------------------------------------------------------
// generate

namespace {

/// One --set of `generate torchtitan`, checked as strictly as a file's fields.
void set_torchtitan(workload::TorchTitanConfig& c, const std::string& text) {
  const auto eq = text.find('=');
  const std::string field = "--set " + text.substr(0, eq);
  if (eq == std::string::npos || eq == 0)
    throw InputError("command line", "--set", fmt::format("'{}' is not KEY=VALUE", shown(text)));
  const std::string key = text.substr(0, eq), value = text.substr(eq + 1);
  auto integer = [&](int& v, std::int64_t hi) {
    v = static_cast<int>(parse_integer(value, 1, hi, "command line", field));
  };
  auto real = [&](double& v, double lo, double hi) { v = parse_real(value, lo, hi, true, "command line", field); };
  if (key == "name") c.name = spec::checked_name(value, "command line", field);
  else if (key == "layers") integer(c.model.layers, 100'000);
  else if (key == "dim") integer(c.model.dim, 1'000'000);
  else if (key == "heads") integer(c.model.heads, 100'000);
  else if (key == "kv_heads") integer(c.model.kv_heads, 100'000);
  else if (key == "ffn_hidden") integer(c.model.ffn_hidden, 10'000'000);
  else if (key == "vocab") integer(c.model.vocab, 10'000'000);
  else if (key == "tp") integer(c.tp, 65'536);
  else if (key == "fsdp") integer(c.fsdp, 1'048'576);
  else if (key == "pp") integer(c.pp, 65'536);
  else if (key == "microbatches") integer(c.microbatches, 100'000);
  else if (key == "microbatch_size") integer(c.microbatch_size, 100'000);
  else if (key == "seq_len") integer(c.seq_len, 100'000'000);
  else if (key == "iterations") integer(c.iterations, limits::kMaxIterations);
  else if (key == "param_bytes") real(c.param_bytes, 0, 16);
  else if (key == "reduce_bytes") real(c.reduce_bytes, 0, 16);
  else if (key == "gpu_tflops") real(c.gpu_tflops, 0, 1e6);
  else if (key == "utilisation") real(c.utilisation, 0, 1);
  else if (key == "recompute") c.recompute = parse_real(value, 0, 1, false, "command line", field);
  else
    throw InputError("command line", field,
                     "unknown key (known: name, layers, dim, heads, kv_heads, ffn_hidden, vocab, tp, fsdp, pp, "
                     "microbatches, microbatch_size, seq_len, iterations, param_bytes, reduce_bytes, gpu_tflops, "
                     "utilisation, recompute)");
}

/// One --set of `generate dlrm`, checked as strictly as a file's fields; the ranges that depend on other
/// fields (servers x tables, layer sizes) are check_dlrm's.
void set_dlrm(workload::DlrmConfig& c, const std::string& text) {
  const auto eq = text.find('=');
  const std::string field = "--set " + text.substr(0, eq);
  if (eq == std::string::npos || eq == 0)
    throw InputError("command line", "--set", fmt::format("'{}' is not KEY=VALUE", shown(text)));
  const std::string key = text.substr(0, eq), value = text.substr(eq + 1);
  auto integer = [&](auto& v, std::int64_t lo, std::int64_t hi) {
    v = static_cast<std::remove_reference_t<decltype(v)>>(parse_integer(value, lo, hi, "command line", field));
  };
  // Measured times in ms: > 0 (a compute task must take time), except update_ms, which may be 0 (no update).
  auto ms = [&](double& v, bool may_be_zero) {
    v = parse_real(value, may_be_zero ? 0 : limits::kMinSeconds * 1e3, limits::kMaxSeconds * 1e3, false,
                   "command line", field);
  };
  if (key == "name") c.name = spec::checked_name(value, "command line", field);
  else if (key == "servers") integer(c.servers, 2, 65'536);
  else if (key == "gpus_per_server") integer(c.gpus_per_server, 1, 1'024);
  else if (key == "batch_per_gpu") integer(c.batch_per_gpu, 1, 1'000'000);
  else if (key == "bottom_layers") integer(c.bottom_layers, 1, 10'000);
  else if (key == "bottom_width") integer(c.bottom_width, 1, 1'000'000);
  else if (key == "top_layers") integer(c.top_layers, 2, 10'000);
  else if (key == "top_width") integer(c.top_width, 1, 1'000'000);
  else if (key == "tables") integer(c.tables, 1, 100'000);
  else if (key == "table_rows") integer(c.table_rows, 1, 1'000'000'000'000);
  else if (key == "embedding_dim") integer(c.embedding_dim, 1, 1'000'000);
  else if (key == "bag_size") integer(c.bag_size, 1, 1'000'000);
  else if (key == "bytes_per_value") integer(c.bytes_per_value, 1, 16);
  else if (key == "iterations") integer(c.iterations, 1, limits::kMaxIterations);
  else if (key == "bottom_fwd_ms") ms(c.bottom_fwd_ms, false);
  else if (key == "bottom_bwd_ms") ms(c.bottom_bwd_ms, false);
  else if (key == "embedding_fwd_ms") ms(c.embedding_fwd_ms, false);
  else if (key == "embedding_bwd_ms") ms(c.embedding_bwd_ms, false);
  else if (key == "concat_fwd_ms") ms(c.concat_fwd_ms, false);
  else if (key == "concat_bwd_ms") ms(c.concat_bwd_ms, false);
  else if (key == "top_first_fwd_ms") ms(c.top_first_fwd_ms, false);
  else if (key == "top_first_bwd_ms") ms(c.top_first_bwd_ms, false);
  else if (key == "top_middle_fwd_ms") ms(c.top_middle_fwd_ms, false);
  else if (key == "top_middle_bwd_ms") ms(c.top_middle_bwd_ms, false);
  else if (key == "top_last_fwd_ms") ms(c.top_last_fwd_ms, false);
  else if (key == "top_last_bwd_ms") ms(c.top_last_bwd_ms, false);
  else if (key == "update_ms") ms(c.update_ms, true);
  else
    throw InputError("command line", field,
                     "unknown key (known: name, servers, gpus_per_server, batch_per_gpu, bottom_layers, bottom_width, "
                     "top_layers, top_width, tables, table_rows, embedding_dim, bag_size, bytes_per_value, iterations, "
                     "bottom_fwd_ms, bottom_bwd_ms, embedding_fwd_ms, embedding_bwd_ms, concat_fwd_ms, concat_bwd_ms, "
                     "top_first_fwd_ms, top_first_bwd_ms, top_middle_fwd_ms, top_middle_bwd_ms, top_last_fwd_ms, "
                     "top_last_bwd_ms, update_ms)");
}

void generate_torchtitan(const GenerateOptions& o) {
  workload::TorchTitanConfig c;
  try {
    c = workload::torchtitan_preset(o.preset.empty() ? "llama3-8b" : o.preset);
  } catch (const std::invalid_argument& e) {
    throw InputError("command line", "--preset", e.what());
  }
  for (const auto& s : o.sets) set_torchtitan(c, s);
  workload::JobGraph g;
  try {
    g = workload::build_torchtitan(c);
  } catch (const std::invalid_argument& e) {
    throw InputError("command line", o.sets.empty() ? "--preset" : "--set", e.what());
  }
  write_atomically(checked_out_file(o.out, o.force), workload::job_graph_json(g, "odcnsim generate torchtitan"));
  if (!o.quiet) {
    std::cout << fmt::format("odcnsim generate: {} ({} ranks: TP {} x FSDP {} x PP {}, {} micro-batches of {}), "
                             "{} tasks -> {}\n",
                             escape_line(c.name), g.ranks, c.tp, c.fsdp, c.pp, c.microbatches, c.microbatch_size,
                             g.tasks.size(), escape_line(o.out));
    std::cout << fmt::format("  parameters        {} ({} per layer)\n", workload::total_params(c.model),
                             workload::params_per_layer(c.model));
    constexpr double kMiB = 1024.0 * 1024.0;
    for (int p = 0; p < c.pp; ++p) {
      double gather = 0, scatter = 0;
      for (const auto& u : workload::fsdp_units(c, p)) {
        gather += u.gather_received;
        scatter += u.scatter_bytes;
      }
      const double fwd = workload::forward_flops(c, p) / (c.gpu_tflops * 1e12 * c.utilisation);
      std::cout << fmt::format("  stage {:<3}         all-gather {:.1f} MiB received, reduce-scatter {:.1f} MiB in, "
                               "forward {:.1f} ms, backward {:.1f} ms per micro-batch\n",
                               p, gather / kMiB, scatter / kMiB, 1e3 * fwd, 1e3 * fwd * (2 + c.recompute));
    }
    std::cout << fmt::format("  pipeline          {:.1f} MiB per micro-batch and direction\n",
                             workload::pipeline_bytes(c) / kMiB);
  }
}

void generate_dlrm(const GenerateOptions& o) {
  workload::DlrmConfig c;
  try {
    c = workload::dlrm_preset(o.preset.empty() ? "table2-2" : o.preset);
  } catch (const std::invalid_argument& e) {
    throw InputError("command line", "--preset", e.what());
  }
  for (const auto& s : o.sets) set_dlrm(c, s);
  workload::JobGraph g;
  try {
    g = workload::build_dlrm(c);
  } catch (const std::invalid_argument& e) {
    throw InputError("command line", o.sets.empty() ? "--preset" : "--set", e.what());
  }
  // build_dlrm bounds the number of tasks; the file's size, which also grows with the names and the
  // all-reduces' dependency lists, is checked here against what run reads.
  const std::string text = workload::job_graph_json(g, "odcnsim generate dlrm");
  if (static_cast<std::int64_t>(text.size()) > limits::kMaxInputFileBytes)
    throw InputError("command line", "--set",
                     fmt::format("the job-graph file would be {:.1f} MiB, above the {} MiB that run reads",
                                 static_cast<double>(text.size()) / (1 << 20), limits::kMaxInputFileBytes >> 20));
  write_atomically(checked_out_file(o.out, o.force), text);
  if (o.quiet) return;
  std::int64_t compute = 0, transfers = 0, collectives = 0, barriers = 0;
  for (const auto& t : g.tasks) switch (t.kind) {
      case workload::TaskKind::compute: ++compute; break;
      case workload::TaskKind::transfer: ++transfers; break;
      case workload::TaskKind::collective: ++collectives; break;
      case workload::TaskKind::barrier: ++barriers; break;
    }
  double allreduce = 0;
  for (const auto& l : workload::dlrm_dense_layers(c)) allreduce += workload::dlrm_allreduce_bytes(c, l);
  // The compute-only critical path: a lower bound of the iteration on any fabric.
  const auto path = workload::critical_path(
      g, [](const workload::Task& t) { return t.kind == workload::TaskKind::compute ? t.duration_s : 0.0; });
  std::cout << fmt::format("odcnsim generate: {} ({} servers of {} GPUs, {} samples per server), {} tasks -> {}\n",
                           escape_line(c.name), c.servers, c.gpus_per_server, workload::dlrm_batch_per_server(c),
                           g.tasks.size(), escape_line(o.out));
  std::cout << fmt::format("  tasks             {} compute, {} transfers, {} all-reduces, {} barrier\n", compute,
                           transfers, collectives, barriers);
  std::cout << fmt::format("  dense parameters  {} (bottom {}, top {}): {:.1f} MB all-reduced in {} rings\n",
                           workload::dlrm_dense_params(c), workload::dlrm_bottom_params(c),
                           workload::dlrm_top_params(c), allreduce / 1e6, collectives);
  std::cout << fmt::format("  embeddings        {} tables of {} x {} (table t on server t mod {}), {:.0f} B per table "
                           "and destination\n",
                           c.tables, c.table_rows, c.embedding_dim, c.servers, workload::dlrm_pooled_bytes(c));
  std::cout << fmt::format("  all-to-all        {:.0f} B ({:.4g} GB) between servers in each direction\n",
                           workload::dlrm_alltoall_bytes(c), workload::dlrm_alltoall_bytes(c) / 1e9);
  std::cout << fmt::format("  compute path      {:.4f} ms per iteration with communication taking no time (a lower "
                           "bound)\n",
                           1e3 * path.length_s);
}

}  // namespace

int generate_command(const GenerateOptions& o) {
  try {
    if (o.kind == "torchtitan")
      generate_torchtitan(o);
    else if (o.kind == "dlrm")
      generate_dlrm(o);
    else
      throw InputError("command line", "(kind)",
                       fmt::format("unknown generator '{}' (expected torchtitan or dlrm)", shown(o.kind)));
    return 0;
  } catch (...) {
    return report_failure();
  }
}

namespace {

/// What a job graph holds, for the import and export commands' reports.
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
  return fmt::format(
      "  ranks             {}\n"
      "  tasks             {} compute ({:.6f} s over all ranks), {} collectives ({:.0f} B), {} messages ({:.0f} B), "
      "{} barriers\n"
      "  compute path      {:.6f} s per iteration with communication taking no time (a lower bound)\n",
      g.ranks, compute, compute_s, collectives, collective_bytes, messages, message_bytes, barriers,
      compute_only.length_s);
}

}  // namespace

int import_command(const ImportOptions& o) {
  try {
    if (o.files.empty()) throw InputError("command line", "FILES", "give the trace files, one per rank");
    spec::GraphJobSpec j;
    j.field = "(command line)";
    if (o.format == "kineto") {
      j.format = spec::GraphFormat::kineto;
    } else if (o.format == "chakra") {
      j.format = spec::GraphFormat::chakra;
    } else {
      throw InputError("command line", "(format)",
                       fmt::format("unknown trace format '{}' (kineto or chakra)", shown(o.format)));
    }
    // The options given, by workload key, with their values.
    std::map<std::string, std::string> given;
    if (o.step) given["step"] = std::to_string(*o.step);
    if (o.replicate) given["replicate"] = "true";
    if (!o.groups.empty()) given["groups"] = o.groups;
    if (!o.ctrl_deps.empty()) given["ctrl_deps"] = o.ctrl_deps;
    if (o.ranks > 0) given["ranks"] = std::to_string(o.ranks);
    if (!o.algorithm.empty()) given["algorithm"] = o.algorithm;
    if (!o.compute.empty()) given["compute"] = o.compute;
    for (const auto& option : spec::importer_options())
      if (const auto it = given.find(option.key); it != given.end()) {
        std::string reason = spec::importer_option_error(option, j.format, it->second);
        if (reason.empty()) continue;
        std::string flag = std::string("--") + option.key;
        std::replace(flag.begin(), flag.end(), '_', '-');
        if (option.format != j.format) reason = fmt::format("is an option of 'import {}'", spec::to_string(option.format));
        throw InputError("command line", flag, reason);
      }
    if (!o.name.empty()) spec::checked_name(o.name, "command line", "--name");
    j.files = o.files;
    j.file = o.files.front();
    j.step = o.step;
    j.replicate = o.replicate;
    j.groups = o.groups;
    j.ctrl_deps = o.ctrl_deps;
    j.ranks = o.ranks;
    j.algorithm = o.algorithm;
    j.compute = o.compute;
    const fs::path out = checked_out_file(o.out, o.force);
    workload::JobGraph g = workload::load_graph_source(j, "command line");
    if (!o.name.empty()) g.name = o.name;
    if (o.iterations > 0) g.iterations = o.iterations;
    write_atomically(out, workload::job_graph_json(g, "odcnsim import " + o.format));
    if (!o.quiet)
      std::cout << fmt::format("odcnsim import {}: {} file{} -> job '{}' -> {}\n", o.format, o.files.size(),
                               o.files.size() == 1 ? "" : "s", escape_line(g.name), escape_line(o.out))
                << graph_report(g);
    return 0;
  } catch (...) {
    return report_failure();
  }
}

int export_command(const ExportOptions& o) {
  try {
    if (o.format != "chakra")
      throw InputError("command line", "(format)", fmt::format("unknown trace format '{}' (chakra)", shown(o.format)));
    const workload::JobGraph g = workload::load_job_graph(o.graph);
    const workload::ChakraFiles files = workload::chakra_from_job_graph(g, o.graph);
    std::vector<std::string> names;
    for (std::size_t r = 0; r < files.ranks.size(); ++r) names.push_back(fmt::format("{}.{}.et", g.name, r));
    const std::string groups = g.name + ".groups.json";
    for (const auto& n : names)
      if (n.find('/') != std::string::npos || n.rfind('.', 0) == 0)
        throw InputError(o.graph, "name",
                         fmt::format("'{}' cannot name files (it holds '/' or starts with '.')", shown(g.name)));
    // Into a new folder (written beside it, then renamed into place), or beside files already there, replacing
    // ours only with --force.
    fs::path dir = fs::path(o.out).lexically_normal();
    if (dir.filename().empty()) dir = dir.parent_path();  // "et/" is the folder et
    std::error_code ec;
    const bool fresh = !fs::exists(dir, ec);
    std::vector<std::string> all = names;
    all.push_back(groups);
    std::set<std::string> manifest(all.begin(), all.end());
    if (!fresh) {
      if (!fs::is_directory(dir, ec))
        throw InputError("command line", "--out", fmt::format("'{}' is not a folder", shown(o.out)));
      // Files an earlier export listed in the folder's manifest are odcnsim's: they may be replaced.
      const auto earlier = trace::manifest_files(dir);
      if (earlier) manifest.insert(earlier->begin(), earlier->end());
      for (const auto& n : all)
        if (fs::exists(dir / n, ec) && !o.force && !(earlier && earlier->count(n)))
          throw InputError("command line", "--out",
                           fmt::format("'{}' exists and no earlier odcnsim export wrote it; pass --force to replace "
                                       "the files of job '{}' in '{}'",
                                       shown((dir / n).string()), shown(g.name), shown(o.out)));
    } else if (!dir.parent_path().empty() && !fs::is_directory(dir.parent_path(), ec)) {
      throw InputError("command line", "--out",
                       fmt::format("folder '{}' does not exist", shown(dir.parent_path().string())));
    }
    manifest.insert(trace::kManifestFile);
    const fs::path into =
        fresh ? dir.parent_path() / ("." + dir.filename().string() + ".partial") : dir;
    if (fresh) {
      if (fs::exists(into, ec))
        throw InputError("command line", "--out",
                         fmt::format("'{}' is left from an interrupted export; remove it first", shown(into.string())));
      if (!fs::create_directory(into, ec))
        throw IoError(o.out, fmt::format("cannot create folder ({})", ec.message()));
    }
    try {
      for (std::size_t r = 0; r < files.ranks.size(); ++r) write_atomically(into / names[r], files.ranks[r]);
      write_atomically(into / groups, files.groups_json);
      write_atomically(into / trace::kManifestFile, trace::manifest_text(manifest));
      if (fresh) {
        fs::rename(into, dir, ec);
        if (ec) throw IoError(o.out, "cannot be created: " + ec.message());
      }
    } catch (...) {
      if (fresh) fs::remove_all(into, ec);
      throw;
    }
    if (!o.quiet)
      std::cout << fmt::format("odcnsim export chakra: job '{}' -> {} and {}\n", escape_line(g.name),
                               escape_line((dir / fmt::format("{}.{{0..{}}}.et", g.name, files.ranks.size() - 1)).string()),
                               escape_line(groups))
                << graph_report(g)
                << fmt::format("  read back with    odcnsim import chakra --compute overlap --groups {} {}\n",
                               escape_line((dir / groups).string()), escape_line((dir / (g.name + ".*.et")).string()));
    return 0;
  } catch (...) {
    return report_failure();
  }
}

int sweep_command(const SweepOptions& o) {
  std::signal(SIGPIPE, SIG_IGN);  // progress into a closed pipe must not kill the command before it cleans up
  try {
    if (!o.collect.empty()) {
      const fs::path dir = fs::absolute(o.collect).lexically_normal();
      if (!fs::exists(dir / "sweep.json"))
        throw InputError("command line", "--collect",
                         fmt::format("'{}' holds no sweep.json (write one with odcnsim sweep GRID --emit ...)",
                                     shown(o.collect)));
      const Json sweep = read_json_file(dir / "sweep.json");
      const std::size_t total = sweep["points"].size();
      const std::size_t missing = write_sweep_csv(dir, sweep);
      if (missing == total)
        throw InputError("command line", "--collect", fmt::format("none of the {} points has a result yet", total));
      if (!o.quiet)
        std::cout << fmt::format("odcnsim sweep: {} of {} points collected into {}/sweep.csv{}\n", total - missing,
                                 total, escape_line(o.collect),
                                 missing ? fmt::format(" ({} have no result yet)", missing) : "");
      return 0;
    }
    const Grid g = parse_grid(o.grid);
    const std::vector<Point> points = points_of(g);
    // Every point's inputs are read and validated here (not planned), so that a bad value is one line before
    // anything runs. Points differ only by policy and seed past their values: one check per values.
    for (std::size_t i = 0; i < points.size(); i += g.policies.size() * g.seeds.size()) {
      std::vector<spec::Override> overrides;
      for (std::size_t k = 0; k < g.sets.size(); ++k)
        overrides.push_back(spec::parse_override(g.sets[k].first + "=" + points[i].values[k]));
      check_run_inputs(g.platform_path, g.workload_path, overrides);
    }
    if (points.size() > 100000)
      throw InputError(o.grid, "set", fmt::format("{} points, above the limit of 100000", points.size()));
    const fs::path dir = fs::absolute(o.out).lexically_normal();
    check_collection(dir, kSweepFiles, o.force, "sweep");
    // Points already in the folder are kept (resume) only when they were run with the same base.
    bool resume = true;
    std::error_code ec;
    if (fs::exists(dir / "sweep.json", ec)) {
      const Json old = read_json_file(dir / "sweep.json");
      const Json base = sweep_base(g, o.keep_traces);
      if (old.value("base", Json()) != base) {
        std::string field;
        for (const auto& [k, v] : base.items())
          if (field.empty() && (!old["base"].contains(k) || old["base"][k] != v)) field = k;
        if (!o.force)
          throw InputError("command line", "--out",
                           fmt::format("'{}' holds a sweep of another grid (its {} differs); choose a new folder, or "
                                       "pass --force to run every point again",
                                       shown(o.out), field.empty() ? "base" : field));
        resume = false;
      }
    }
    const Json sweep = sweep_json(g, points, o.keep_traces);
    write_atomically(dir / "sweep.json", json_text(sweep));

    if (!o.emit.empty()) {
      // The same runs for an existing engine: absolute paths, so that they run from any folder.
      const std::string self = executable_path(o.self);
      const std::string platform = fs::absolute(g.platform_path).lexically_normal().string();
      const std::string workload = fs::absolute(g.workload_path).lexically_normal().string();
      std::string lines;
      for (const auto& p : points)
        lines += command_line(self, run_args(g, p, platform, workload, (dir / "points" / p.id).string(), o.keep_traces)) + "\n";
      write_atomically(dir / "commands.txt", lines);
      const std::string commands = (dir / "commands.txt").string();
      if (o.emit == "slurm") {
        std::error_code mk;
        fs::create_directories(dir / "slurm", mk);
        const std::string script = fmt::format(
            "#!/bin/bash\n"
            "# odcnsim sweep {grid}: {n} points as a Slurm job array, one odcnsim run per task.\n"
            "# Submit with: sbatch {script}   then gather: odcnsim sweep --collect {dir}\n"
            "#SBATCH --job-name=odcnsim-sweep\n"
            "#SBATCH --array=0-{last}\n"
            "#SBATCH --ntasks=1\n"
            "#SBATCH --cpus-per-task={cpus}\n"
            "#SBATCH --output={out}/slurm/%A_%a.out\n"
            "set -euo pipefail\n"
            "line=$(sed -n \"$((SLURM_ARRAY_TASK_ID + 1))p\" {commands})\n"
            "eval \"$line\"\n",
            fmt::arg("grid", o.grid), fmt::arg("n", points.size()), fmt::arg("script", shell_quote((dir / "sweep.sbatch").string())),
            fmt::arg("dir", shell_quote(dir.string())), fmt::arg("last", points.size() - 1),
            fmt::arg("cpus", g.slowdown ? 2 : 1), fmt::arg("out", dir.string()), fmt::arg("commands", shell_quote(commands)));
        write_atomically(dir / "sweep.sbatch", script);
        if (!o.quiet)
          std::cout << fmt::format("odcnsim sweep: {} points as a Slurm job array in {}/sweep.sbatch\n"
                                   "  submit:  sbatch {}\n  then:    odcnsim sweep --collect {}\n",
                                   points.size(), escape_line(o.out), shell_quote((dir / "sweep.sbatch").string()),
                                   shell_quote(o.out));
      } else if (!o.quiet) {
        std::cout << fmt::format("odcnsim sweep: {} commands in {}/commands.txt\n"
                                 "  run:   parallel -j {} < {}\n  then:  odcnsim sweep --collect {}\n",
                                 points.size(), escape_line(o.out), default_parallel(), shell_quote(commands),
                                 shell_quote(o.out));
      }
      return 0;
    }

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
  } catch (...) {
    return report_failure();
  }
}

}  // namespace odcn::app
