// `compare --seeds`: every policy once per seed, gathered into statistics per metric (app/seed_stats.hpp):
// compare.csv a row per policy (mean, standard deviation, 95 % interval; the ratio to the baseline as the ratio of
// the means and as the mean of the per-seed ratios, with its interval), compare-seeds.csv a row per run, and the
// table of compare.md and the terminal.
#include "app/compare_seeds.hpp"

#include <fmt/format.h>

#include <iostream>

#include "app/metrics.hpp"
#include "app/seed_stats.hpp"
#include "app/workflow_support.hpp"
#include "core/text.hpp"
#include "odcn_version.hpp"
#include "trace/writers.hpp"

namespace odcn::app {

namespace {

using namespace workflow;
using Values = std::vector<std::optional<double>>;

Json opt(const std::optional<double>& v) { return v ? Json(*v) : Json(); }

/// A metric of every seed's run of one policy (none where the run has no number for it).
Values values_of(const std::vector<Json>& runs, const std::string& key) {
  Values v;
  for (const Json& s : runs) {
    const Json& x = s.contains(key) ? s[key] : Json();
    v.push_back(x.is_number() ? std::optional<double>(x.get<double>()) : std::nullopt);
  }
  return v;
}

/// compare.csv, and the same figures for compare.json.
std::string stats_csv(const CompareOptions& o, const SeedRuns& r, Json& policies_json) {
  std::string csv = "policy,baseline,platform,workload,seeds" + stats_header() + "\n";
  for (const auto& p : o.policies) {
    Json stats = Json::object();
    const std::vector<MetricStats> all = policy_stats(r, p);
    for (std::size_t i = 0; i < all.size(); ++i) {
      const MetricStats& m = all[i];
      stats[metric_keys()[i].first] = {{"n", m.value.n},          {"mean", opt(m.value.mean)},           {"sd", opt(m.value.sd)},
                  {"ci95", opt(m.value.ci95)}, {"ratio_of_means", opt(m.ratio_of_means)},
                  {"mean_of_ratios", opt(m.ratio.mean)}, {"mean_of_ratios_ci95", opt(m.ratio.ci95)}};
    }
    csv += fmt::format("{},{},{},{},{}{}\n", p, r.baseline, trace::csv_field(o.platform), trace::csv_field(o.workload),
                       o.seeds.size(), stats_cells(all));
    policies_json.push_back({{"policy", p}, {"runs", "runs/" + p}, {"statistics", stats}});
  }
  return csv;
}

/// compare-seeds.csv: a row per run (policy, seed), every metric as the run reported it.
std::string runs_csv(const CompareOptions& o, const SeedRuns& r) {
  std::string csv = "policy,seed";
  for (const auto& [k, label] : metric_keys()) csv += "," + k;
  csv += "\n";
  for (const auto& p : o.policies)
    for (std::size_t i = 0; i < o.seeds.size(); ++i) {
      csv += fmt::format("{},{}", p, o.seeds[i]);
      for (const auto& [k, label] : metric_keys()) csv += "," + cell(r.of.at(p)[i].value(k, Json()));
      csv += "\n";
    }
  return csv;
}

/// "mean ± ci95 (x ratio of means)", or the mean alone where there is no spread.
std::string table_cell(const MetricStats& m, bool baseline) {
  std::string c = table_number(opt(m.value.mean));
  if (m.value.ci95) c += " ± " + table_number(*m.value.ci95);
  if (!baseline && m.ratio_of_means) c += fmt::format(" (x{:.3f})", *m.ratio_of_means);
  return c;
}

std::vector<std::vector<std::string>> table_rows(const CompareOptions& o, const SeedRuns& r) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> head{"metric"};
  for (const auto& p : o.policies) head.push_back(p == r.baseline ? p + " (baseline)" : p);
  rows.push_back(head);
  for (const auto& [k, label] : metric_keys()) {
    std::vector<std::string> row{label};
    for (const auto& p : o.policies) row.push_back(table_cell(metric_stats(r, p, k), p == r.baseline));
    rows.push_back(row);
  }
  return rows;
}

/// Whether every metric of every policy came out the same under every seed.
bool seeds_change_nothing(const CompareOptions& o, const SeedRuns& r) {
  for (const auto& p : o.policies)
    for (const auto& [k, label] : metric_keys())
      if (const auto sd = metric_stats(r, p, k).value.sd; sd && *sd != 0) return false;
  return true;
}

}  // namespace

MetricStats metric_stats(const SeedRuns& r, const std::string& policy, const std::string& key) {
  const Values v = values_of(r.of.at(policy), key), b = values_of(r.of.at(r.baseline), key);
  return {sample_stats(v), sample_stats(paired_ratios(v, b)), ratio_of_means(v, b)};
}

std::string stats_header() {
  std::string h;
  for (const auto& [k, label] : metric_keys()) h += fmt::format(",{0},{0}_sd,{0}_ci95", k);
  for (const auto& [k, label] : metric_keys()) h += fmt::format(",{0}_ratio,{0}_ratio_mean,{0}_ratio_ci95", k);
  return h;
}

std::vector<MetricStats> policy_stats(const SeedRuns& r, const std::string& policy) {
  std::vector<MetricStats> all;
  for (const auto& [k, label] : metric_keys()) all.push_back(metric_stats(r, policy, k));
  return all;
}

std::string stats_cells(const std::vector<MetricStats>& all) {
  std::string values, ratios;
  for (const MetricStats& m : all) {
    values += fmt::format(",{},{},{}", cell(opt(m.value.mean)), cell(opt(m.value.sd)), cell(opt(m.value.ci95)));
    ratios += fmt::format(",{},{},{}", cell(opt(m.ratio_of_means)), cell(opt(m.ratio.mean)), cell(opt(m.ratio.ci95)));
  }
  return values + ratios;
}

void write_seed_comparison(const CompareOptions& o, const std::filesystem::path& dir,
                           const std::vector<std::string>& sets, const SeedRuns& r) {
  Json policies_json = Json::array();
  const std::string csv = stats_csv(o, r, policies_json);
  const auto [md, text] = render_table(table_rows(o, r));
  const std::string title = fmt::format(
      "odcnsim compare: {} on {}, seeds {}; mean ± 95 % interval over {} seeds, ratio (x) of the means to {}",
      o.workload, o.platform, fmt::join(o.seeds, ","), o.seeds.size(), r.baseline);
  Json doc = {{"odcnsim_version", ODCNSIM_VERSION}, {"platform", o.platform}, {"workload", o.workload},
              {"baseline", r.baseline},            {"overrides", sets},     {"seeds", o.seeds},
              {"policies", policies_json}};
  write_atomically(dir / "compare.json", json_text(doc));
  write_atomically(dir / "compare.csv", csv);
  write_atomically(dir / "compare-seeds.csv", runs_csv(o, r));
  write_atomically(dir / "compare.md", "# " + title + "\n\n" + md);
  if (!o.quiet && o.seeds.size() > 1 && seeds_change_nothing(o, r))
    std::cerr << "odcnsim compare: note: every seed gave the same results: this workload does not use the seed (a "
                 "workload's generator does; a list of jobs or a job graph does not)\n";
  if (!o.quiet)
    std::cout << escape_line(title) << "\n"
              << text
              << fmt::format("outputs: {0}/{{compare.csv,compare-seeds.csv,compare.md,compare.json}}, a run folder "
                             "per policy and seed in {0}/runs/POLICY/seed-K/\n",
                             escape_line(o.out));
}

}  // namespace odcn::app
