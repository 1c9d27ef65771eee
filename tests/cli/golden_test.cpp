// Golden scenarios: every platform/workload pair the README mentions, with its key numbers. The expected
// numbers are derived by hand from Eq. (4)-(5), Eq. (8) and Alg. 2/3 in the comments, not copied from a run.
#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "cli/cli_support.hpp"

using namespace odcn::test;

namespace {

const double B = 150e9 / 8;  // one OCS port, bytes/s

double eq8(double params_gb) { return 8.0 * 8192 * params_gb * 1e9 / (26e12 * 0.4); }

void expect_rel(double measured, double expected, double rel = 1e-9) {
  EXPECT_NEAR(measured, expected, rel * expected) << "relative error " << (measured - expected) / expected;
}

}  // namespace

TEST(Golden, Clos8podSmallMixStatic) {
  // clos-8pod: 4 ports/pod at 150 Gb/s, B_tor = 600 Gb/s. small-mix:
  //  ps-1B   units of 2 GPUs, 2 units in each of pods 0-3, server in pod 0: pods 1-3 each push 2·Φ = 4.92 GB
  //          to pod 0 (one circuit each), pull the same back; aggregation defaults to t_train (Eq. 3).
  //  rar-3B  8 units, masters in pods 2,3,4,5; the only linked pair among them is (4,5) (from a2a-8B), so
  //          Alg. 3 gives the ring 2->3->4->5->2; each edge carries 2·7/8·Φ = 11.235 GB on one circuit.
  //  a2a-8B  2 units of 4 GPUs in each of pods 4-7: F = Φ/(U·E) = 21.2/32 GB, A_ij = 2·2·F·U = 10.6 GB each way
  //          on one circuit per pair (pods 4 and 5 have used all 4 ports, so Alg. 2 adds nothing).
  // The jobs' communication phases never overlap in time (their training times differ by seconds).
  TempDir dir;
  const auto out = dir.path("o");
  const auto r = odcnsim("run --platform platforms/clos-8pod.yaml --workload workloads/small-mix.yaml --policy static "
                         "--iterations 3 --out " + out, dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const double ps = 2 * eq8(2.46) + 2 * (2 * 2.46e9 / B);
  const double rar = eq8(6.42) + 1.75 * 6.42e9 / B;
  const double a2a = eq8(21.2) + 2 * 10.6e9 / B;
  const auto s = read_json(out + "/summary.json");
  EXPECT_EQ(s["jobs"], 3);
  EXPECT_EQ(s["reconfigurations"], 0);
  expect_rel(s["makespan_s"].get<double>(), 3 * a2a);
  // Every job iterates on its own from t = 0: it completes at 3 × its iteration (ps < rar < a2a).
  expect_rel(s["job_completion_mean_s"].get<double>(), ps + rar + a2a);
  expect_rel(s["job_completion_median_s"].get<double>(), 3 * rar);
  expect_rel(s["job_completion_p95_s"].get<double>(), 3 * a2a);
  expect_rel(s["job_completion_max_s"].get<double>(), 3 * a2a);
  expect_rel(s["mean_iteration_s"].get<double>(), (ps + rar + a2a) / 3);
  expect_rel(s["throughput_iterations_per_hour"].get<double>(), 9 / (3 * a2a) * 3600);
  // Alone, ps-1B and a2a-8B keep a one-circuit pair as their bottleneck (pod 0 has 4 ports for 3 pairs; pods
  // 4-7 have 4 ports for 3 pairs each), so they are no faster. rar-3B alone gets the 2 spare ports of each of
  // pods 2-5, so every ring edge has 2 circuits (11.235 GB / 2B = 0.30 s) and the ToR link of pod 5 (3 units:
  // 2 · 3 · Φ over B_tor = 600 Gb/s, Eq. 5) becomes the bound.
  const double rar_alone = eq8(6.42) + 2 * 3 * 6.42e9 / (600e9 / 8);
  expect_rel(s["slowdown_mean"].get<double>(), (2 + rar / rar_alone) / 3);
  expect_rel(s["slowdown_p95"].get<double>(), rar / rar_alone);
  // Static: no reconfiguration, no waiting; communication is the part of each job's time not computing.
  const double compute = 2 * eq8(2.46) + eq8(6.42) + eq8(21.2);
  expect_rel(s["share_compute"].get<double>(), compute / (ps + rar + a2a));
  EXPECT_EQ(s["share_reconfiguration_stall"].get<double>(), 0);
  EXPECT_NEAR(s["share_waiting"].get<double>(), 0, 1e-12);
  EXPECT_NEAR(s["share_compute"].get<double>() + s["share_communication"].get<double>(), 1.0, 1e-12);
  // One circuit per demand pair: 3 for the PS star, 4 for the ring, 6 among pods 4-7, (4,5) shared: 12
  // pairs. Then the spare ports go to the longest pair that can still grow: (4,5) cannot (pods 4 and 5 use
  // all 4 ports), so (6,7) (21.2 GB) gets a second circuit, then (2,3) (11.235 GB), then (0,1) (9.84 GB).
  // None of them is a job's bottleneck, so the iteration times above do not change.
  const std::string circuits = read_file(out + "/circuits.csv");
  EXPECT_EQ(std::count(circuits.begin(), circuits.end(), '\n'), 1 + 12);
  EXPECT_NE(circuits.find("0,0,2,5,0,1,initial"), std::string::npos) << "the ring closes 5->2";
  EXPECT_NE(circuits.find("0,0,6,7,0,2,initial"), std::string::npos);
  EXPECT_NE(circuits.find("0,0,2,3,0,2,initial"), std::string::npos);
  EXPECT_NE(circuits.find("0,0,0,1,0,2,initial"), std::string::npos);
}

TEST(Golden, Clos8podSmallMixTdm4BeatsAggregateAndMatchesPlan) {
  TempDir dir;
  double rounds[2];
  int i = 0;
  for (const char* policy : {"tdm4", "aggregate"}) {
    const auto out = dir.path(policy);
    const auto r = odcnsim(fmt::format("run --platform platforms/clos-8pod.yaml --workload workloads/small-mix.yaml "
                                       "--policy {} --iterations 2 --out {}",
                                       policy, out),
                           dir);
    ASSERT_EQ(r.code, 0) << r.err;
    const auto s = read_json(out + "/summary.json");
    expect_rel(s["round_time_s"].get<double>(), s["predicted_round_time_s"].get<double>(), 1e-6);
    rounds[i++] = s["round_time_s"].get<double>();
  }
  // With one iteration a2a-8B finishes within round 1, so no full round is measured.
  const auto one = dir.path("one");
  ASSERT_EQ(odcnsim(fmt::format("run --platform platforms/clos-8pod.yaml --workload workloads/small-mix.yaml --policy "
                                "tdm4 --iterations 1 --no-slowdown --quiet --out {}",
                                one),
                    dir)
                .code,
            0);
  EXPECT_TRUE(read_json(one + "/summary.json")["round_time_s"].is_null());
  // Aggregate: every job trains together, so a round is two compute stages bounded by the longest job
  // (a2a-8B, Eq. 8) plus two communication stages. TDM overlaps them and cannot be slower.
  EXPECT_GE(rounds[1], 2 * eq8(21.2));
  EXPECT_LE(rounds[0], rounds[1]);
}

namespace {

struct Pair {
  nlohmann::json tdm4, aggregate, paper;
};

/// Runs tdm4, aggregate and tdm4 --search paper (two iterations of every job, so that round 1 is a full
/// round) and checks what all must satisfy.
Pair run_both(const std::string& workload, int jobs, const std::string& platform = "platforms/clos-256pod.yaml") {
  TempDir dir;
  Pair p;
  for (const char* policy : {"tdm4", "aggregate", "tdm4:paper"}) {
    const auto out = dir.path(policy);
    const auto r = odcnsim(
        fmt::format("run --platform {} --workload {} --policy {} --iterations 2 --no-slowdown --out {}", platform,
                    workload, policy, out),
        dir);
    EXPECT_EQ(r.code, 0) << r.err;
    const auto s = read_json(out + "/summary.json");
    EXPECT_EQ(s["jobs"], jobs);
    EXPECT_EQ(s["unplaced_jobs"], 0);
    // The engine measures exactly what the planner predicted.
    expect_rel(s["round_time_s"].get<double>(), s["predicted_round_time_s"].get<double>(), 1e-6);
    const std::string name = policy;
    (name == "tdm4" ? p.tdm4 : name == "aggregate" ? p.aggregate : p.paper) = s;
  }
  return p;
}

}  // namespace

TEST(Golden, Clos256podLlama3Thousand) {
  // TDM-4 §IV.A at full scale: 1,000 generated jobs, 8k context. A round holds two compute stages, each at
  // least the longest Eq. (8) time (90B: 1,119 s), so the round is >= 2 x 1,119 s.
  const auto p = run_both("workloads/llama3-1000.yaml", 1000);
  EXPECT_GE(p.aggregate["round_time_s"].get<double>(), 2 * eq8(177.6));
  // Here no single move helps: the first job moved into group B makes every stage transition reconfigure
  // (+4δ = 2 ms) while the round's communication term is a max over 32 pod groups that one job cannot lower.
  // The paper's Alg. 1 therefore keeps A = J, which is the aggregate schedule.
  EXPECT_EQ(p.paper["hill_climb_moves"], 0);
  EXPECT_EQ(p.paper["round_time_s"], p.aggregate["round_time_s"]);
  EXPECT_EQ(p.aggregate["reconfigurations"], 0);
  // The default search starts a second climb from the best threshold grouping, past the ε barrier. It gains,
  // but little: the two compute stages (2 x 1,119 s) dwarf the communication (about 28 s per stage), so no
  // grouping can save more than the communication stages, 2 x 28 s of a 2,294 s round (2.4 %).
  EXPECT_GT(p.tdm4["group_b_jobs"].get<int>(), 0);
  const double agg = p.aggregate["round_time_s"].get<double>(), tdm = p.tdm4["round_time_s"].get<double>();
  EXPECT_LT(tdm, agg);
  EXPECT_GT(tdm, agg * (1 - 0.024));
  EXPECT_GT(p.tdm4["reconfigurations"].get<int>(), 0);
}

TEST(Golden, DefaultScenarioShowsTheFourStageMechanism) {
  // The default scenario (scripts/run-default.sh): the same 1,000 jobs with the physical compute model. The
  // longest training is now a 90B job on U = 8 GPUs: 8 x 8,192 x 88.8e9 / (8 x 312e12 x 0.4) = 5.83 s.
  const double longest = 8.0 * 8192 * 88.8e9 / (8 * 312e12 * 0.4);
  const auto p = run_both("workloads/llama3-1000-physical.yaml", 1000);
  // Aggregate: every job communicates in stages 1 and 3 (push and pull carry the same loads) and trains in 2
  // and 4, so its round is 2 x (stage 1's communication + the longest training).
  const auto& agg_stages = p.aggregate["stages"];
  EXPECT_EQ(agg_stages[1]["bound"], "compute");
  expect_rel(p.aggregate["round_time_s"].get<double>(), 2 * (agg_stages[0]["comm_s"].get<double>() + longest));
  // Communication dominates (training / communication about 0.2), and the four stages overlap it: groups form,
  // circuits change between stages, and the round is shorter by more than a fifth (24.6 % measured).
  EXPECT_LT(p.aggregate["training_to_comm_ratio"].get<double>(), 0.3);
  EXPECT_GT(p.tdm4["group_b_jobs"].get<int>(), 0);
  EXPECT_GT(p.tdm4["reconfigurations"].get<int>(), 0);
  EXPECT_LT(p.tdm4["round_time_s"].get<double>(), 0.8 * p.aggregate["round_time_s"].get<double>());
  EXPECT_LE(p.tdm4["round_time_s"].get<double>(), p.paper["round_time_s"].get<double>());
  // Every stage of tdm4 names its bottleneck, whose planned time is at least the fractional port bound.
  for (const auto& st : p.tdm4["stages"]) {
    EXPECT_FALSE(st["bottleneck"].get<std::string>().empty());
    EXPECT_LE(st["comm_lower_bound_s"].get<double>(), st["comm_s"].get<double>() * (1 + 1e-12));
  }
}

TEST(Golden, Clos256podLlama3FourThousandShortContext) {
  // 4,000 jobs with a 2k context: training is 4x shorter and communication 4x larger than above, and TDM
  // overlaps one group's communication with the other's training.
  const auto p = run_both("workloads/llama3-4000-ctx2k.yaml", 4000);
  EXPECT_GE(p.aggregate["round_time_s"].get<double>(), 2 * eq8(177.6) / 4);
  EXPECT_GT(p.tdm4["hill_climb_moves"].get<int>(), 0);
  EXPECT_LT(p.tdm4["round_time_s"].get<double>(), p.aggregate["round_time_s"].get<double>());
  EXPECT_GT(p.tdm4["reconfigurations"].get<int>(), 0);
}

TEST(Golden, Clos32podSmallModels) {
  // The incremental-vs-full benchmark instance: 120 small jobs, 4 pod groups. Training (1B at 256 tokens:
  // Eq. 8 gives 0.48 s) is short next to communication, so the climb moves jobs and TDM wins; and its
  // full-evaluation twin gives the very same plan.
  const auto p = run_both("workloads/small-models-120.yaml", 120, "platforms/clos-32pod.yaml");
  EXPECT_GT(p.tdm4["hill_climb_moves"].get<int>(), 0);
  EXPECT_LT(p.tdm4["round_time_s"].get<double>(), p.aggregate["round_time_s"].get<double>());
  EXPECT_GE(p.aggregate["round_time_s"].get<double>(), 2 * eq8(6.42) * 256 / 8192);
  TempDir dir;
  std::string runs[2];
  for (int full = 0; full < 2; ++full) {
    const auto out = dir.path(full ? "full" : "inc");
    ASSERT_EQ(odcnsim(fmt::format("run --platform platforms/clos-32pod.yaml --workload workloads/small-models-120.yaml "
                                  "--policy tdm4 --quiet --out {} {}",
                                  out, full ? "--full-eval" : ""),
                      dir)
                  .code,
              0);
    runs[full] = read_file(out + "/stages.csv") + read_file(out + "/iterations.csv");
  }
  EXPECT_EQ(runs[0], runs[1]);
}

TEST(Golden, JobGraphsOnEveryPlatformKind) {
  // workloads/graphs-dp4.yaml: two independent copies of docs/examples/job-graph-dp4.json. An iteration is 0.25 s
  // of compute on every rank, a ring all-reduce of S = 2^30 bytes over ranks 0-3 at the rate one ring edge
  // offers (2·3/4·S/r), then a 10 ms step beside a 1 MB transfer that is shorter. Per platform, r is:
  //   clos-8pod:        2 half-duplex circuits of 150 Gb/s per ring edge (each edge carries one direction)
  //   flat-ocs-16:      2 full-duplex circuits of 40 Gb/s per edge (4 ports: one per neighbour, then the spares)
  //   photonic-rail-16: ranks 0-3 are one scale-up domain: 2,400 Gb/s per GPU
  //   electrical-16:    NICs of 4 x 40 Gb/s
  const double S = 1073741824.0;
  for (const auto& [platform, rate] : {std::pair{"clos-8pod", 300e9}, std::pair{"flat-ocs-16", 80e9},
                                      std::pair{"photonic-rail-16", 2400e9}, std::pair{"electrical-16", 160e9}}) {
    SCOPED_TRACE(platform);
    TempDir dir;
    const auto out = dir.path("o");
    const auto r = odcnsim(fmt::format("run --platform platforms/{}.yaml --workload workloads/graphs-dp4.yaml --out {}",
                                       platform, out), dir);
    ASSERT_EQ(r.code, 0) << r.err;
    const auto s = read_json(out + "/summary.json");
    const double iteration = 0.25 + 1.5 * S / (rate / 8) + 0.01;
    expect_rel(s["mean_iteration_s"].get<double>(), iteration);
    expect_rel(s["makespan_s"].get<double>(), 3 * iteration);
    EXPECT_EQ(s["iteration_rows"], 6);
    EXPECT_EQ(s["reconfigurations"], 0);
  }
}

TEST(Golden, TwoJobsUnderStaticAndAloneGiveTheHandComputedMetrics) {
  // The cross-policy metrics on two jobs (workloads/graphs-dp4.yaml on electrical-16: disjoint endpoints behind a
  // non-blocking switch, so the jobs never share a link). An iteration is T = 0.25 + 1.5 S / (160 Gb/s) + 0.01 s.
  // static: both run at once and end at 3T. alone: job 1 waits for job 0 and runs from 3T to 6T (no circuits,
  // so nothing to light between them).
  const double S = 1073741824.0;
  const double T = 0.25 + 1.5 * S / (160e9 / 8) + 0.01;
  TempDir dir;
  nlohmann::json s[2];
  int i = 0;
  for (const char* policy : {"static", "alone"}) {
    const auto out = dir.path(policy);
    const auto r = odcnsim(fmt::format("run --platform platforms/electrical-16.yaml --workload workloads/graphs-dp4.yaml "
                                       "--policy {} --out {}",
                                       policy, out),
                           dir);
    ASSERT_EQ(r.code, 0) << r.err;
    s[i++] = read_json(out + "/summary.json");
  }
  expect_rel(s[0]["makespan_s"].get<double>(), 3 * T);
  expect_rel(s[0]["job_completion_mean_s"].get<double>(), 3 * T);
  expect_rel(s[0]["mean_iteration_s"].get<double>(), T);
  expect_rel(s[0]["throughput_iterations_per_hour"].get<double>(), 6 / (3 * T) * 3600);
  expect_rel(s[0]["slowdown_mean"].get<double>(), 1.0);
  expect_rel(s[0]["slowdown_p95"].get<double>(), 1.0);
  expect_rel(s[0]["share_compute"].get<double>(), 0.26 / T);

  expect_rel(s[1]["makespan_s"].get<double>(), 6 * T);
  expect_rel(s[1]["job_completion_mean_s"].get<double>(), 4.5 * T);
  expect_rel(s[1]["job_completion_median_s"].get<double>(), 4.5 * T);  // the mean of the two middle values
  expect_rel(s[1]["job_completion_p95_s"].get<double>(), 6 * T);       // nearest rank: the 2nd of 2
  expect_rel(s[1]["job_completion_max_s"].get<double>(), 6 * T);
  expect_rel(s[1]["mean_iteration_s"].get<double>(), T);  // from admission: the queue is not an iteration's
  expect_rel(s[1]["throughput_iterations_per_hour"].get<double>(), 6 / (6 * T) * 3600);
  expect_rel(s[1]["slowdown_mean"].get<double>(), 1.5);
  expect_rel(s[1]["slowdown_p95"].get<double>(), 2.0);
  expect_rel(s[1]["share_compute"].get<double>(), 6 * 0.26 / (9 * T));
  EXPECT_EQ(s[1]["reconfigurations"], 0);
}

TEST(Golden, IterationsMeanTheSameUnderEveryPolicy) {
  // --iterations 2: two complete iterations of every job under every policy. Under the TDM policies a job
  // whose round begins with communication also has a warm iteration (begun before t = 0), not counted.
  TempDir dir;
  for (const char* policy : {"static", "tdm4", "aggregate", "tdm4-ilp", "alone"}) {
    SCOPED_TRACE(policy);
    const auto out = dir.path(policy);
    const auto r = odcnsim(fmt::format("run --platform platforms/clos-8pod.yaml --workload workloads/small-mix.yaml "
                                       "--policy {} --iterations 2 --no-slowdown --out {}",
                                       policy, out),
                           dir);
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string rows = read_file(out + "/iterations.csv");
    std::map<int, int> complete;
    std::istringstream in(rows);
    std::string line;
    std::getline(in, line);
    while (std::getline(in, line)) {
      const int job = std::stoi(line.substr(0, line.find(',')));
      const auto warm_at = line.find(',', line.find(',', line.find(',') + 1) + 1) + 1;
      if (line[warm_at] == '0') ++complete[job];
    }
    EXPECT_EQ(complete, (std::map<int, int>{{0, 2}, {1, 2}, {2, 2}}));
    const auto s = read_json(out + "/summary.json");
    EXPECT_EQ(s["iterations"], 2);
    expect_rel(s["throughput_iterations_per_hour"].get<double>(), 6 / s["makespan_s"].get<double>() * 3600);
    // --no-slowdown; policy alone is its own baseline
    EXPECT_EQ(s["slowdown_mean"].is_null(), std::string(policy) != "alone");
  }
}

// A TDM run whose jobs all finish before the last stage of the first round measured no round: round_time_s is
// null (and run says why), where a 3-stage round used to be reported. One ring all-reduce job over 7 pods under
// aggregate, one iteration: the warm iteration's communication (stage 1), training (2), the iteration's
// communication (3), and the run ends before stage 4. With two iterations round 1 runs all four stages.
TEST(Golden, ATdmRunThatEndsWithinItsFirstRoundReportsNoRoundTime) {
  TempDir dir;
  const auto w = dir.write("ring7.yaml", "training:\n  recompute_factor: 8\n  context_tokens: 8192\n  gpu_tflops: 26\n"
                                         "  efficiency: 0.4\njobs:\n  - name: rar-7pods\n    type: rar\n    model: 1B\n"
                                         "    gpus_per_unit: 2\n    placement: {0: 2, 1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2}\n");
  const auto one = odcnsim("run --platform platforms/clos-8pod.yaml --workload " + w +
                               " --policy aggregate --iterations 1 --no-slowdown --out " + dir.path("one"),
                           dir);
  ASSERT_EQ(one.code, 0) << one.err;
  const auto s1 = read_json(dir.path("one/summary.json"));
  EXPECT_TRUE(s1["round_time_s"].is_null()) << s1["round_time_s"];
  EXPECT_EQ(s1["rounds"], 1);
  EXPECT_NE(one.err.find("no full round was measured (round_time_s is null)"), std::string::npos) << one.err;
  EXPECT_NE(one.out.find("n/a (no full round)"), std::string::npos) << one.out;
  const auto two = odcnsim("run --platform platforms/clos-8pod.yaml --workload " + w +
                               " --policy aggregate --iterations 2 --no-slowdown --quiet --out " + dir.path("two"),
                           dir);
  ASSERT_EQ(two.code, 0) << two.err;
  const auto s2 = read_json(dir.path("two/summary.json"));
  ASSERT_TRUE(s2["round_time_s"].is_number());
  // Round 1's four stages: the measured round is their span, which the stages.csv rows of round 1 give.
  const auto stages = read_table(dir.path("two/stages.csv"));
  double round_end = 0;
  for (std::size_t i = 0; i < stages.rows.size(); ++i)
    if (stages.at(i, "round") == "1") round_end = std::max(round_end, stages.num(i, "end_s"));
  EXPECT_NEAR(s2["round_time_s"].get<double>(), round_end, 1e-12);
}

TEST(Golden, TheSlowdownBaselineSimulatesOneJobOfEachShapeAndGivesEveryJobItsTimeAlone) {
  // The slowdown baseline's run of policy alone (--alone-by-shape) simulates only the first job of each shape
  // and gives the others its records. Every job's time alone must be the one the full run of policy alone
  // (every job simulated, one after another) gives: equal up to the rounding of the full run's clock, which
  // by the last jobs is thousands of times a small job's time alone (1e-9 relative bounds it).
  TempDir dir;
  const std::string base = "run --platform platforms/clos-256pod.yaml --workload workloads/llama3-1000-physical.yaml "
                           "--iterations 1 --trace none --quiet";
  ASSERT_EQ(odcnsim(fmt::format("{} --policy alone --out {}", base, dir.path("full")), dir).code, 0);
  ASSERT_EQ(odcnsim(fmt::format("{} --policy alone --alone-by-shape --out {}", base, dir.path("shape")), dir).code, 0);
  ASSERT_EQ(odcnsim(fmt::format("{} --policy static --out {}", base, dir.path("static")), dir).code, 0);
  const Csv full = read_table(dir.path("full/jobs.csv")), shape = read_table(dir.path("shape/jobs.csv")),
            with_baseline = read_table(dir.path("static/jobs.csv"));
  ASSERT_EQ(full.rows.size(), 1000u);
  ASSERT_EQ(shape.rows.size(), full.rows.size());
  ASSERT_EQ(with_baseline.rows.size(), full.rows.size());
  for (std::size_t i = 0; i < full.rows.size(); ++i) {
    const double alone = full.num(i, "service_s");
    EXPECT_EQ(shape.at(i, "job"), full.at(i, "job"));
    EXPECT_NEAR(shape.num(i, "service_s"), alone, 1e-9 * alone) << "job " << full.at(i, "job");
    EXPECT_NEAR(with_baseline.num(i, "alone_s"), alone, 1e-9 * alone) << "job " << full.at(i, "job");
  }
}
