// The odcnsim command as a user meets it: help, version, bad input of every class (exit 2, one line
// "file: field: reason", nothing written), outputs, determinism.
#include <gtest/gtest.h>

#include <filesystem>

#include "cli/cli_support.hpp"

using namespace odcn::test;
namespace fs = std::filesystem;

namespace {

const char* kPlatform = R"(kind: clos_ocs
pods: {count: 8, gpus_per_pod: 16, tor_gbps: 600}
ocs: {ports_per_pod: 4, port_gbps: 150, oxcs: 1, ports_per_oxc: 32, pods_per_group: 8, reconfig_delay_us: 200}
)";
const char* kWorkload = R"(jobs:
  - {name: a, type: rar, model: 1B, gpus_per_unit: 1, placement: {0: 2, 1: 2}, train_s: 0.5}
)";

std::string replace(std::string s, const std::string& from, const std::string& to) {
  const auto at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return s.replace(at, from.size(), to);
}

struct BadInput {
  const char* name;
  std::string platform;
  std::string workload;
  std::string extra;      ///< extra CLI flags
  const char* bad_file;   ///< "platform", "workload" or a literal prefix
  const char* expect;     ///< what the line must contain after "file: "
};

void expect_rejected(const BadInput& c) {
  TempDir dir;
  const auto p = dir.write("p.yaml", c.platform);
  const auto w = dir.write("w.yaml", c.workload);
  const auto out = dir.path("out");
  const auto r = odcnsim(fmt::format("run --platform {} --workload {} --out {} {}", p, w, out, c.extra), dir);
  EXPECT_EQ(r.code, 2) << c.name << ": " << r.err;
  const std::string file = std::string(c.bad_file) == "platform" ? p : std::string(c.bad_file) == "workload" ? w : c.bad_file;
  EXPECT_EQ(r.err.rfind(file + ": ", 0), 0u) << c.name << ": " << r.err;
  EXPECT_NE(r.err.find(c.expect), std::string::npos) << c.name << ": " << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << c.name << ": exactly one line: " << r.err;
  EXPECT_FALSE(fs::exists(out)) << c.name << ": no output folder";
  for (const auto& e : fs::directory_iterator(fs::path(out).parent_path()))
    EXPECT_EQ(e.path().filename().string().find(".out.partial"), std::string::npos) << "staging folder left behind";
}

}  // namespace

TEST(Cli, HelpAndVersion) {
  TempDir dir;
  auto r = odcnsim("--help", dir);
  EXPECT_EQ(r.code, 0);
  for (const char* word : {"run", "validate", "bench"}) EXPECT_NE(r.out.find(word), std::string::npos) << word;
  r = odcnsim("run --help", dir);
  EXPECT_EQ(r.code, 0);
  for (const char* word : {"static", "tdm4", "aggregate", "tdm4-ilp", "--iterations", "--seed", "--out"})
    EXPECT_NE(r.out.find(word), std::string::npos) << word;
  r = odcnsim("--version", dir);
  EXPECT_EQ(r.code, 0);
  // ... and the commit it was built from: 12 hex digits (+dirty in a changed work tree), or unknown outside git.
  const std::string head = "odcnsim 0.1.0 (commit ";
  ASSERT_EQ(r.out.rfind(head, 0), 0u) << r.out;
  const std::string commit = r.out.substr(head.size(), r.out.find(')') - head.size());
  const std::string hash = commit.substr(0, commit.find('+'));
  EXPECT_TRUE(commit == "unknown" ||
              (hash.size() == 12 && hash.find_first_not_of("0123456789abcdef") == std::string::npos &&
               (commit == hash || commit == hash + "+dirty")))
      << r.out;
  EXPECT_EQ(r.out.substr(r.out.find(')')), ")\n");
  r = odcnsim("run --platform x", dir);  // missing required options
  EXPECT_EQ(r.code, 2);
}

TEST(Cli, RejectsUnreadablePlatform) {
  TempDir dir;
  const auto w = dir.write("w.yaml", kWorkload);
  const auto r = odcnsim(fmt::format("run --platform /nonexistent.yaml --workload {} --out {}", w, dir.path("o")), dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "/nonexistent.yaml: (file): cannot be read\n");
}

TEST(Cli, RejectsNonYaml) {
  expect_rejected({"non-yaml", "pods: [1, 2\nocs: {", kWorkload, "", "platform", "(file): not valid YAML"});
  expect_rejected({"yaml but not a mapping", kPlatform, "- just\n- a list\n", "", "workload", "(root): must be"});
}

TEST(Cli, RejectsUnknownKeys) {
  expect_rejected({"unknown platform key", replace(kPlatform, "kind: clos_ocs", "kind: clos_ocs\nspeed: 3"), kWorkload,
                   "", "platform", "speed: unknown key"});
  expect_rejected({"unknown job key", kPlatform, replace(kWorkload, "train_s: 0.5", "train_s: 0.5, gpu: a100"), "",
                   "workload", "jobs[0].gpu: unknown key"});
}

TEST(Cli, RejectsWrongTypes) {
  expect_rejected({"text for number", replace(kPlatform, "port_gbps: 150", "port_gbps: fast"), kWorkload, "",
                   "platform", "ocs.port_gbps: must be a number (got 'fast')"});
  expect_rejected({"list for mapping", kPlatform, replace(kWorkload, "{0: 2, 1: 2}", "[0, 1]"), "", "workload",
                   "jobs[0].placement: must be a non-empty mapping"});
}

TEST(Cli, RejectsZeroAndNegativeSizes) {
  expect_rejected({"zero ports", replace(kPlatform, "ports_per_pod: 4", "ports_per_pod: 0"), kWorkload, "", "platform",
                   "ocs.ports_per_pod: must be > 0 (got 0)"});
  expect_rejected({"negative bandwidth", replace(kPlatform, "tor_gbps: 600", "tor_gbps: -600"), kWorkload, "",
                   "platform", "pods.tor_gbps: must be > 0 (got -600)"});
  expect_rejected({"zero training time", kPlatform, replace(kWorkload, "train_s: 0.5", "train_s: 0"), "", "workload",
                   "jobs[0].train_s: must be > 0 (got 0)"});
}

TEST(Cli, RejectsJobThatDoesNotFit) {
  expect_rejected({"too many GPUs", kPlatform, replace(kWorkload, "{0: 2, 1: 2}", "{0: 2, 1: 17}"), "", "workload",
                   "jobs[0].placement.1: job does not fit: 17 GPUs requested, 16 free in pod 1"});
}

TEST(Cli, RejectsPortBudgetOverflow) {
  expect_rejected({"platform radix", replace(kPlatform, "ports_per_oxc: 32", "ports_per_oxc: 31"), kWorkload, "",
                   "platform", "ocs.ports_per_pod: port budget overflow"});
  // A ring over 4 pods needs 2 ports per pod; an all-to-all over 6 pods needs 5 of the 4 ports.
  expect_rejected({"demand beyond ports", kPlatform,
                   "jobs:\n  - {type: alltoall, model: 1B, gpus_per_unit: 1, placement: {0: 1, 1: 1, 2: 1, 3: 1, 4: 1, "
                   "5: 1}}\n",
                   "", "workload", "jobs: port budget overflow: pod 0 exchanges traffic with 5 pods but has only 4"});
}

TEST(Cli, RejectsUnknownPolicy) {
  expect_rejected({"policy", kPlatform, kWorkload, "--policy fastest", "command line",
                   "--policy: unknown policy 'fastest' (known: static, tdm4, aggregate, tdm4-ilp, opus, inc-ljf, inc-fcfs, noinc-ljf, "
                   "noinc-fcfs, inc-group, topox, topoopt, alone; NAME:VARIANT for a variant)"});
  expect_rejected({"search", kPlatform, kWorkload, "--policy tdm4 --search greedy", "command line",
                   "--search: unknown search 'greedy' (expected paper, threshold or multistart)"});
  expect_rejected({"search-policy", kPlatform, kWorkload, "--policy static --search paper", "command line",
                   "--search: only policy tdm4 searches for a grouping"});
  expect_rejected({"search-twice", kPlatform, kWorkload, "--policy tdm4:paper --search threshold", "command line",
                   "--search: 'threshold' contradicts --policy tdm4:paper"});
  expect_rejected({"planner-threads", kPlatform, kWorkload, "--policy tdm4 --planner-threads 0", "command line",
                   "--planner-threads: must be > 0 (got 0)"});
}

TEST(Cli, RejectsUnwritableOutputFolder) {
  TempDir dir;
  const auto p = dir.write("p.yaml", kPlatform);
  const auto w = dir.write("w.yaml", kWorkload);
  const auto blocker = dir.write("file", "not a folder");
  const auto r = odcnsim(fmt::format("run --platform {} --workload {} --out {}/sub/out", p, w, blocker), dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err.rfind("command line: --out: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("cannot be created: a part of its path is a file"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
}

TEST(Cli, RejectsJobNamesThatWouldBreakTheCsv) {
  expect_rejected({"comma in name", kPlatform, replace(kWorkload, "name: a,", "name: \"a,b\","), "", "workload",
                   "jobs[0].name: must be 1 to 256 characters without commas"});
}

TEST(Cli, RefusesMoreActorsThanTheMachineAllows) {
  // Under static, each job's running task is waited for by its own pooled actor: 35,000 small jobs all
  // training at t = 0 need more actors than the about 30,765 that vm.max_map_count (65,530) allows. The run
  // says so (exit 2) instead of letting SimGrid abort, and leaves no output.
  TempDir dir;
  const auto p = dir.write("p.yaml", "kind: clos_ocs\npods: {count: 1024, gpus_per_pod: 2048, tor_gbps: 2400}\n"
                                     "ocs: {ports_per_pod: 16, port_gbps: 150, oxcs: 128, ports_per_oxc: 128, "
                                     "pods_per_group: 8, reconfig_delay_us: 500}\n");
  const auto w = dir.write("w.yaml", "generator: {jobs: 35000, seed: 1, models: [1B], degree: [2, 2]}\n");
  const auto r = odcnsim(fmt::format("run --platform {} --workload {} --policy static --out {}", p, w, dir.path("o")), dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err.rfind(w + ": jobs: more than ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("tasks would run at once, more actors than this machine allows (vm.max_map_count = "),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(dir.path("o")));
}

TEST(Cli, FailedRunKeepsPreviousOutputIntact) {
  TempDir dir;
  const auto p = dir.write("p.yaml", kPlatform);
  const auto w = dir.write("w.yaml", kWorkload);
  const auto out = dir.path("out");
  ASSERT_EQ(odcnsim(fmt::format("run --platform {} --workload {} --out {} --quiet", p, w, out), dir).code, 0);
  const std::string before = read_file(out + "/summary.json");
  const auto bad = dir.write("bad.yaml", replace(kWorkload, "train_s: 0.5", "train_s: -1"));
  EXPECT_EQ(odcnsim(fmt::format("run --platform {} --workload {} --out {}", p, bad, out), dir).code, 2);
  EXPECT_EQ(read_file(out + "/summary.json"), before);
}

TEST(Cli, ValidateChecksFilesWithoutSimulating) {
  TempDir dir;
  const auto p = dir.write("p.yaml", kPlatform);
  const auto w = dir.write("w.yaml", kWorkload);
  auto r = odcnsim(fmt::format("validate {} {}", p, w), dir);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("fits the platform"), std::string::npos);
  r = odcnsim(fmt::format("validate {} {}", p, dir.write("bad.yaml", replace(kWorkload, "model: 1B", "model: 2B"))), dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("jobs[0].model: unknown model '2B'"), std::string::npos);
  r = odcnsim("validate platforms/clos-8pod.yaml workloads/small-mix.yaml platforms/clos-256pod.yaml "
              "workloads/llama3-1000.yaml",
              dir);
  EXPECT_EQ(r.code, 0) << r.err;
}

namespace {

void expect_same_outputs(const std::string& a, const std::string& b, bool tdm) {
  std::vector<std::string> files{"run.json", "summary.json", "iterations.csv", "circuits.csv", "trace.json"};
  if (tdm) files.push_back("stages.csv");
  for (const auto& f : files) {
    ASSERT_TRUE(fs::exists(a + "/" + f)) << f;
    EXPECT_EQ(read_file(a + "/" + f), read_file(b + "/" + f)) << f << " differs";
  }
}

}  // namespace

TEST(Cli, SameInputsAndSeedGiveByteIdenticalOutputs) {
  TempDir dir;
  for (const char* policy : {"static", "tdm4"}) {
    const std::string args = fmt::format("run --platform platforms/clos-8pod.yaml --workload workloads/small-mix.yaml "
                                         "--policy {} --quiet --out ",
                                         policy);
    ASSERT_EQ(odcnsim(args + dir.path(std::string("a-") + policy), dir).code, 0);
    ASSERT_EQ(odcnsim(args + dir.path(std::string("b-") + policy), dir).code, 0);
    expect_same_outputs(dir.path(std::string("a-") + policy), dir.path(std::string("b-") + policy),
                        std::string(policy) != "static");
  }
  // A generated workload: the seed decides the jobs.
  const auto gen = dir.write("gen.yaml", "generator: {jobs: 30, seed: 5, models: [1B, 3B], degree: [2, 6]}\n");
  const std::string args = fmt::format("run --platform platforms/clos-256pod.yaml --workload {} --policy tdm4 --quiet", gen);
  ASSERT_EQ(odcnsim(args + " --seed 9 --out " + dir.path("g1"), dir).code, 0);
  ASSERT_EQ(odcnsim(args + " --seed 9 --out " + dir.path("g2"), dir).code, 0);
  ASSERT_EQ(odcnsim(args + " --seed 10 --out " + dir.path("g3"), dir).code, 0);
  expect_same_outputs(dir.path("g1"), dir.path("g2"), true);
  EXPECT_NE(read_file(dir.path("g1") + "/run.json"), read_file(dir.path("g3") + "/run.json"));
  EXPECT_EQ(read_json(dir.path("g1") + "/run.json")["seed"], 9);
}

TEST(Cli, OutputsHaveTheDocumentedShape) {
  TempDir dir;
  const auto out = dir.path("o");
  const auto r = odcnsim("run --platform platforms/clos-8pod.yaml --workload workloads/small-mix.yaml --policy tdm4 "
                         "--iterations 2 --out " + out, dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("round time"), std::string::npos);
  const auto summary = read_json(out + "/summary.json");
  for (const char* key : {"policy", "jobs", "iterations", "makespan_s", "mean_iteration_s", "reconfigurations",
                          "circuits_changed", "round_time_s"})
    EXPECT_TRUE(summary.contains(key)) << key;
  const auto run = read_json(out + "/run.json");
  EXPECT_EQ(run["simgrid_config"][0], "network/model:CM02");
  EXPECT_EQ(run["platform"]["hash"].get<std::string>().rfind("fnv1a64:", 0), 0u);
  EXPECT_EQ(run["jobs"].size(), 3u);
  const auto trace = read_json(out + "/trace.json");
  int complete = 0;
  for (const auto& e : trace["traceEvents"])
    if (e["ph"] == "X") {
      ++complete;
      EXPECT_GE(e["dur"].get<double>(), 0);
    }
  EXPECT_GT(complete, 8 * 3);
  EXPECT_EQ(read_file(out + "/stages.csv").substr(0, 30), "round,stage,k,t,start_s,end_s,");
  EXPECT_EQ(read_file(out + "/iterations.csv").substr(0, 28), "job,job_name,iteration,warm,");
}

TEST(Cli, BenchCollectiveReportsTheClosedForm) {
  TempDir dir;
  const auto r = odcnsim("bench --collective all-reduce --ranks 8,64 --repeat 1 --gbps 100", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  // Ring all-reduce of 1 GiB at 100 Gb/s: 2(n-1)/n * 2^30 / 12.5e9 s.
  for (const auto& [n, seconds] : {std::pair{8, "0.150323855"}, std::pair{64, "0.169114337"}}) {
    const auto at = r.out.find(fmt::format("\n{:>8} ", n));
    ASSERT_NE(at, std::string::npos) << r.out;
    const std::string row = r.out.substr(at + 1, r.out.find('\n', at + 1) - at - 1);
    EXPECT_NE(row.find(std::string(" ") + seconds + " "), std::string::npos) << row;  // simulated and closed form
    EXPECT_NE(row.find("0.00e+00"), std::string::npos) << row;
  }
}

TEST(Cli, BenchCollectiveOnFlatOcsRingCircuits) {
  TempDir dir;
  // 6 ports per server: 3 full-duplex circuits of 100 Gb/s to each ring neighbour, so ring all-reduce of 1 GiB
  // over 8 servers takes 2·7/8 · 2^30 / (3 · 12.5e9) = 0.050107952 s.
  const auto r = odcnsim("bench --collective all-reduce --fabric flat_ocs --ports 6 --ranks 8 --repeat 1", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto at = r.out.find("\n       8 ");
  ASSERT_NE(at, std::string::npos) << r.out;
  const std::string row = r.out.substr(at + 1, r.out.find('\n', at + 1) - at - 1);
  EXPECT_NE(row.find(" 0.050107952 "), std::string::npos) << row;
  EXPECT_NE(row.find("0.00e+00"), std::string::npos) << row;
  const auto refused = odcnsim("bench --collective all-to-all --fabric flat_ocs --ranks 8", dir);
  EXPECT_EQ(refused.code, 2);
  EXPECT_EQ(refused.err.rfind("command line: --fabric: on flat_ocs only ring algorithms run", 0), 0u) << refused.err;
  EXPECT_EQ(odcnsim("bench --collective all-reduce --fabric flat_ocs --ports 3", dir).code, 2);
}

TEST(Cli, ProgressIntoALogIsPlainLines) {
  // stderr is a file here: a line at each tenth of the jobs finishing, and no carriage returns.
  TempDir dir;
  const auto r = odcnsim(fmt::format("run --platform platforms/clos-32pod.yaml --workload workloads/small-models-120.yaml "
                                     "--policy static --progress --quiet --out {}",
                                     dir.path("o")),
                         dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err.find('\r'), std::string::npos);
  EXPECT_EQ(r.err, "jobs finished 12/120\njobs finished 24/120\njobs finished 36/120\njobs finished 48/120\n"
                   "jobs finished 60/120\njobs finished 72/120\njobs finished 84/120\njobs finished 96/120\n"
                   "jobs finished 108/120\njobs finished 120/120\n");
}

TEST(Cli, ValidateReportsWhatRunReportsInAnyOrder) {
  // For each class of bad input that run finds before simulating, validate (the platform given first or last)
  // prints the same one line and exits 2.
  TempDir dir;
  dir.write("g.json", R"({"format": "odcnsim-job-graph", "version": 1, "name": "ring4", "ranks": 4, "tasks": [
    {"id": "ar", "kind": "collective", "op": "all-reduce", "algorithm": "ring", "group": [0, 1, 2, 3], "bytes": 1e9}]})");
  const auto clos1 = dir.write("clos1.yaml", replace(kPlatform, "ports_per_pod: 4", "ports_per_pod: 1"));
  const auto flat1 = dir.write("flat1.yaml", "kind: flat_ocs\nservers: {count: 8, gpus_per_server: 4, nic_ports: 1, "
                                             "nic_gbps: 100}\nocs: {count: 1, ports: 8, reconfig_delay_ms: 1}\nslot_ms: 1\n");
  const struct {
    std::string platform, workload;
  } cases[] = {
      // a job over three pods whose ring needs two ports per pod (static's port budget)
      {clos1, dir.write("ring3.yaml", "jobs:\n  - {name: r, type: rar, model: 1B, gpus_per_unit: 1, placement: {0: 1, "
                                      "1: 1, 2: 1}}\n")},
      // a job placed on more GPUs than a pod has
      {dir.write("clos.yaml", kPlatform), dir.write("big.yaml", replace(kWorkload, "{0: 2, 1: 2}", "{0: 4000, 1: 2}"))},
      // TDM-4 jobs on a flat_ocs platform
      {flat1, dir.write("tdm.yaml", kWorkload)},
      // a job graph on an endpoint the platform does not have
      {flat1, dir.write("far.yaml", "job_graphs:\n  - {file: g.json, endpoints: [0, 1, 2, 9]}\n")},
      // a ring of four servers with one port each
      {flat1, dir.write("ring4.yaml", "job_graphs:\n  - {file: g.json, endpoints: [0, 1, 2, 3]}\n")},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.workload);
    const auto run = odcnsim(fmt::format("run --platform {} --workload {} --out {}", c.platform, c.workload,
                                         dir.path("o")),
                             dir);
    ASSERT_EQ(run.code, 2) << run.err;
    ASSERT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
    for (const auto& args : {fmt::format("validate {} {}", c.platform, c.workload),
                             fmt::format("validate {} {}", c.workload, c.platform)}) {
      const auto v = odcnsim(args, dir);
      EXPECT_EQ(v.code, 2) << args;
      EXPECT_EQ(v.err, run.err) << args;
    }
  }
}

TEST(Cli, TraceLevels) {
  // --trace summary keeps the scheduler's and the fabric's events (here the four stages of a round) and no slice
  // per job task; --trace none writes no trace.json; the other outputs do not change.
  TempDir dir;
  const std::string base = "run --platform platforms/clos-8pod.yaml --workload workloads/small-mix.yaml --policy tdm4 ";
  ASSERT_EQ(odcnsim(base + "--out " + dir.path("full"), dir).code, 0);
  ASSERT_EQ(odcnsim(base + "--trace summary --out " + dir.path("summary"), dir).code, 0);
  ASSERT_EQ(odcnsim(base + "--trace none --out " + dir.path("none"), dir).code, 0);
  for (const char* f : {"summary.json", "iterations.csv", "stages.csv", "circuits.csv"}) {
    EXPECT_EQ(read_file(dir.path("full/") + f), read_file(dir.path("summary/") + f)) << f;
    EXPECT_EQ(read_file(dir.path("full/") + f), read_file(dir.path("none/") + f)) << f;
  }
  EXPECT_FALSE(fs::exists(dir.path("none/trace.json")));
  const auto full = read_json(dir.path("full/trace.json"));
  const auto summary = read_json(dir.path("summary/trace.json"));
  const auto count = [](const nlohmann::json& t, const char* cat) {
    int n = 0;
    for (const auto& e : t["traceEvents"]) n += e["ph"] == "X" && e.value("cat", "") == cat;
    return n;
  };
  EXPECT_GT(count(full, "compute") + count(full, "comm"), 0);
  EXPECT_EQ(count(summary, "compute") + count(summary, "comm"), 0);
  const std::string stages = read_file(dir.path("full/stages.csv"));
  EXPECT_EQ(count(summary, "stage"), std::count(stages.begin(), stages.end(), '\n') - 1);
  EXPECT_EQ(count(summary, "stage"), count(full, "stage"));
  EXPECT_EQ(count(summary, "reconfigure"), count(full, "reconfigure"));
  EXPECT_NE(read_json(dir.path("summary/run.json"))["command"].get<std::string>().find("--trace summary"),
            std::string::npos);
  const auto bad = odcnsim(base + "--trace some --out " + dir.path("bad"), dir);
  EXPECT_EQ(bad.code, 2);
  EXPECT_EQ(bad.err, "command line: --trace: must be full, summary or none (got 'some')\n");
}
