// `odcnsim compare`: one workload under several policies, each run as a child `odcnsim run` into runs/POLICY/,
// gathered into one table of the metrics that mean the same under every policy (CSV, markdown and JSON).
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <iostream>
#include <map>
#include <set>

#include "app/commands.hpp"
#include "app/compare_seeds.hpp"
#include "app/metrics.hpp"
#include "app/workflow.hpp"
#include "app/workflow_support.hpp"
#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "core/text.hpp"
#include "odcn_version.hpp"
#include "trace/output_dir.hpp"
#include "trace/writers.hpp"

namespace odcn::app {

namespace {

namespace fs = std::filesystem;
using namespace workflow;

/// The policies checked (each known, none named twice), and the baseline, which must be one of them.
std::string checked_baseline(const CompareOptions& o) {
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
  return baseline;
}

/// One child run per policy, into RUNS/POLICY, or with --seeds one per policy and seed, into RUNS/POLICY/seed-K.
std::vector<ChildJob> compare_jobs(const CompareOptions& o, const fs::path& runs, const std::vector<std::string>& sets) {
  std::vector<ChildJob> jobs;
  const auto add = [&](const std::string& p, const std::optional<std::uint64_t>& seed, const fs::path& out,
                       const std::string& what) {
    ChildJob j{{"run", "--platform", o.platform, "--workload", o.workload, "--policy", p}, what, out.string()};
    add_run_options(j.args, o.iterations, seed, sets, o.trace, o.slowdown);
    j.args.insert(j.args.end(), {"--out", j.out});
    jobs.push_back(std::move(j));
  };
  for (const auto& p : o.policies) {
    if (o.seeds.empty()) {
      add(p, o.seed, runs / p, "policy " + p);
      continue;
    }
    std::error_code ec;
    fs::create_directories(runs / p, ec);
    if (ec) throw IoError((runs / p).string(), fmt::format("cannot create folder ({})", ec.message()));
    for (const auto seed : o.seeds)
      add(p, seed, runs / p / fmt::format("seed-{}", seed), fmt::format("policy {}, seed {}", p, seed));
  }
  return jobs;
}

/// RUNS/POLICY for each policy, from the staging folder the runs were written in: swapped with an earlier run of
/// that policy (then removed), or moved in.
void move_runs_into(const fs::path& staged, const fs::path& runs, const std::vector<std::string>& policies) {
  std::error_code ec;
  fs::create_directories(runs, ec);
  if (ec) throw IoError(runs.string(), fmt::format("cannot create folder ({})", ec.message()));
  for (const auto& p : policies) trace::move_folder_into_place(staged / p, runs / p);
}

/// An earlier `odcnsim report` page describes the earlier comparison: removed with it (a user's own file of that
/// name is kept).
void remove_report_page(const fs::path& dir) {
  std::error_code ec;
  const fs::directory_entry page(dir / trace::kReportFile, ec);
  if (!ec && trace::is_report_page(page)) fs::remove(page.path(), ec);
}

/// The runs' summary.json by policy, and each metric's ratio to the baseline's.
struct Summaries {
  std::map<std::string, Json> of;
  std::string baseline;

  Json ratio(const std::string& p, const std::string& key) {
    const Json& v = of[p][key];
    const Json& b = static_cast<const Json&>(of[baseline])[key];
    if (!v.is_number() || !b.is_number() || b.get<double>() == 0) return nullptr;
    return v.get<double>() / b.get<double>();
  }
};

/// compare.csv, a row per policy (tidy, for plots); `policies_json` gets the same rows with the runs' folders.
std::string compare_csv(const CompareOptions& o, Summaries& s, Json& policies_json) {
  const auto& keys = metric_keys();
  std::string csv = "policy,baseline,platform,workload";
  for (const auto& [k, label] : keys) csv += "," + k;
  for (const auto& [k, label] : keys) csv += "," + k + "_ratio";
  csv += "\n";
  for (const auto& p : o.policies) {
    csv += p + "," + s.baseline + "," + trace::csv_field(o.platform) + "," + trace::csv_field(o.workload);
    Json metrics = Json::object(), ratios = Json::object();
    for (const auto& [k, label] : keys) {
      csv += "," + cell(s.of[p][k]);
      metrics[k] = s.of[p][k];
    }
    for (const auto& [k, label] : keys) {
      csv += "," + cell(s.ratio(p, k));
      ratios[k] = s.ratio(p, k);
    }
    csv += "\n";
    policies_json.push_back({{"policy", p}, {"run", "runs/" + p}, {"metrics", metrics}, {"ratio_to_baseline", ratios}});
  }
  return csv;
}

/// The table's cells: a row per metric, a column per policy, each value with its ratio.
std::vector<std::vector<std::string>> table_rows(const CompareOptions& o, Summaries& s) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> head{"metric"};
  for (const auto& p : o.policies) head.push_back(p == s.baseline ? p + " (baseline)" : p);
  rows.push_back(head);
  for (const auto& [k, label] : metric_keys()) {
    std::vector<std::string> row{label};
    for (const auto& p : o.policies) {
      const Json r = s.ratio(p, k);
      row.push_back(table_number(s.of[p][k]) +
                    (p == s.baseline || r.is_null() ? "" : fmt::format(" (x{:.3f})", r.get<double>())));
    }
    rows.push_back(row);
  }
  return rows;
}

/// Writes compare.json, compare.csv and compare.md into DIR and prints the table unless quiet.
void write_comparison(const CompareOptions& o, const fs::path& dir, const std::vector<std::string>& sets,
                      Summaries& s) {
  Json policies_json = Json::array();
  const std::string csv = compare_csv(o, s, policies_json);
  const auto [md, text] = render_table(table_rows(o, s));
  const std::string title =
      fmt::format("odcnsim compare: {} on {}, {} iterations per job; ratios (x) to {}", o.workload, o.platform,
                  s.of[s.baseline]["iterations"].is_null() ? std::string("each graph's")
                                                           : cell(s.of[s.baseline]["iterations"]),
                  s.baseline);
  Json doc = {{"odcnsim_version", ODCNSIM_VERSION},
              {"platform", o.platform},
              {"workload", o.workload},
              {"baseline", s.baseline},
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
}

}  // namespace

int compare_command(const CompareOptions& o) {
  std::signal(SIGPIPE, SIG_IGN);  // progress into a closed pipe must not kill the command before it cleans up
  try {
    const std::string baseline = checked_baseline(o);
    // The inputs are checked once here, so that bad input is one line rather than one per policy.
    check_run_inputs(o.platform, o.workload, o.overrides, o.policies);
    const fs::path dir = fs::absolute(o.out).lexically_normal();
    check_collection(dir, {"compare.csv", "compare-seeds.csv", "compare.md", "compare.json", "runs"}, o.force,
                     "compare");
    std::vector<std::string> sets;
    for (const auto& v : o.overrides) sets.push_back(v.text);
    // The runs go into a hidden folder of this process first; only when every one has succeeded do they replace
    // runs/POLICY, together with the tables, so an earlier comparison is never left half replaced.
    const StagingFolder staged(dir / fmt::format(".runs.{}.partial", static_cast<long>(::getpid())));
    const std::vector<ChildJob> jobs = compare_jobs(o, staged.path(), sets);
    const int parallel = o.parallel > 0 ? o.parallel : std::min<int>(static_cast<int>(jobs.size()), default_parallel());
    const bool terminal = isatty(STDERR_FILENO);  // (few runs: progress only where it is redrawn)
    Progress progress("compare", static_cast<int>(jobs.size()), !o.quiet && terminal, terminal);
    const auto outcomes = run_children(o.self, jobs, parallel, progress);
    if (const int code = first_failure(jobs, outcomes, "compare")) return code;

    if (!o.seeds.empty()) {
      SeedRuns r{{}, baseline};
      for (const auto& p : o.policies)
        for (const auto seed : o.seeds)
          r.of[p].push_back(read_json_file(staged.path() / p / fmt::format("seed-{}", seed) / "summary.json"));
      const auto lock = interrupt::hold();  // an interrupt now waits until runs and tables are all in place
      move_runs_into(staged.path(), dir / "runs", o.policies);
      write_seed_comparison(o, dir, sets, r);
      remove_report_page(dir);
      return 0;
    }
    Summaries s{{}, baseline};
    for (const auto& p : o.policies) s.of[p] = read_json_file(staged.path() / p / "summary.json");
    const auto lock = interrupt::hold();  // an interrupt now waits until runs and tables are all in place
    move_runs_into(staged.path(), dir / "runs", o.policies);
    write_comparison(o, dir, sets, s);
    std::error_code ec;  // an earlier comparison over seeds: its per-run table no longer describes runs/
    fs::remove(dir / "compare-seeds.csv", ec);
    remove_report_page(dir);
    return 0;
  } catch (...) {
    return report_failure();
  }
}

}  // namespace odcn::app
