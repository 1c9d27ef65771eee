// Profiled jobs on the command line: `odcnsim import` (Kineto, Chakra), `odcnsim export chakra`, and workloads
// whose job_graphs entries are traces (format: kineto | chakra). Replays take their closed forms; the three
// ways into a run (trace in the workload, imported JSON, Chakra written and read back) give the same numbers;
// refusals are one line and touch nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "cli/cli_support.hpp"

using namespace odcn::test;

namespace {

const std::string kKineto = std::string(ODCNSIM_SOURCE_DIR) + "/tests/data/kineto/nccl_data.json.gz";
const std::string kChakra = ODCNSIM_CHAKRA_SAMPLE;

/// Two servers with NICs of 2 x 50 Gb/s behind one switch: a ring collective of two ranks moves S at B = 100 Gb/s.
const char* kTwoServers = "kind: electrical\nservers: {count: 2, gpus_per_server: 8, nic_ports: 2, nic_gbps: 50}\n"
                          "switch: single\n";

/// The cells of column `col` of a CSV's rows (header skipped).
std::vector<std::string> column(const std::string& csv, int col) {
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);
  std::vector<std::string> v;
  while (std::getline(in, line)) {
    std::istringstream row(line);
    std::string cell;
    for (int i = 0; i <= col && std::getline(row, cell, ','); ++i) {
    }
    v.push_back(cell);
  }
  return v;
}
/// iterations.csv's end times (column 5).
std::vector<double> ends(const std::string& dir) {
  std::vector<double> v;
  for (const auto& c : column(read_file(dir + "/iterations.csv"), 5)) v.push_back(std::stod(c));
  return v;
}

}  // namespace

TEST(Import, KinetoReplayIsItsComputeChainPlusTextbookCollectives) {
  TempDir dir;
  // Import rank 0, copied to rank 1 (data parallel), as a job-graph file.
  const auto r = odcnsim(
      fmt::format("import kineto {} --replicate --iterations 2 --streams serial --out {}", kKineto, dir.path("g.json")), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("7 collectives (102441032 B)"), std::string::npos) << r.out;  // the README's seven buckets
  // Every fallback, one line with its count (docs/traces-kineto.md: two wait/barrier entries are skipped).
  EXPECT_NE(r.out.find("  note              2 record_param_comms events skipped: wait, barrier or zero bytes\n"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find(fmt::format("  note              1 of 2 ranks are copies of {} (--replicate)\n", kKineto)),
            std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("timed by"), std::string::npos) << r.out;  // every collective has its kernel
  const auto g = read_json(dir.path("g.json"));
  EXPECT_EQ(g["ranks"], 2);
  EXPECT_EQ(g["iterations"], 2);
  EXPECT_EQ(g["name"], "nccl_data");
  // Serially, rank 0's events are one chain (compute gaps and collectives), so on two servers one iteration is its compute
  // plus each collective's ring time on two ranks, S / B (all-reduce: 2(n-1)/n S/B; broadcast: S/B).
  double compute = 0, comm = 0;
  const double B = 100e9 / 8;
  for (const auto& t : g["tasks"]) {
    if (t["kind"] == "compute" && t["rank"] == 0) compute += t["duration_s"].get<double>();
    if (t["kind"] == "collective") {
      EXPECT_EQ(t["group"], nlohmann::json::array({0, 1}));
      comm += t["bytes"].get<double>() / B;
    }
  }
  EXPECT_NEAR(compute, 0.210453, 0.0005);  // docs/traces-kineto.md: the step's 222.442 ms less 11.989 ms of NCCL kernels
  const auto p = dir.write("p.yaml", kTwoServers);
  const auto w = dir.write("w.yaml", "job_graphs:\n  - file: g.json\n    endpoints: [0, 1]\n");
  ASSERT_EQ(odcnsim(fmt::format("run --platform {} --workload {} --out {}", p, w, dir.path("a")), dir).code, 0);
  const auto e = ends(dir.path("a"));
  ASSERT_EQ(e.size(), 2u);
  EXPECT_NEAR(e[0], compute + comm, 1e-9 * e[0]);
  EXPECT_NEAR(e[1], 2 * (compute + comm), 1e-9 * e[1]);

  // The same trace named in the workload itself gives the same rows, byte for byte.
  const auto wt = dir.write("wt.yaml", fmt::format("job_graphs:\n  - format: kineto\n    file: {}\n    replicate: true\n"
                                                   "    iterations: 2\n    streams: serial\n    endpoints: [0, 1]\n", kKineto));
  const auto run = odcnsim(fmt::format("run --platform {} --workload {} --out {}", p, wt, dir.path("b")), dir);
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(read_file(dir.path("a/iterations.csv")), read_file(dir.path("b/iterations.csv")));
  EXPECT_EQ(read_file(dir.path("a/jobs.csv")), read_file(dir.path("b/jobs.csv")));

  // By default each CUDA stream is a chain: the NCCL kernels (8.2 ms here) hide behind the compute stream, which
  // spans the recorded step, so an iteration is ProfilerStep#4's duration in the trace, 222,442.191 us.
  const auto wc = dir.write("wc.yaml", fmt::format("job_graphs:\n  - format: kineto\n    file: {}\n    replicate: true\n"
                                                   "    iterations: 2\n    endpoints: [0, 1]\n", kKineto));
  ASSERT_EQ(odcnsim(fmt::format("run --platform {} --workload {} --out {}", p, wc, dir.path("c")), dir).code, 0);
  const auto ec = ends(dir.path("c"));
  ASSERT_EQ(ec.size(), 2u);
  EXPECT_NEAR(ec[0], 0.222442191, 1e-9);
  EXPECT_NEAR(ec[1], 2 * 0.222442191, 1e-9);
  // Wholly hidden: no exposed communication, written as 0 (not the subtraction's 7.8e-18).
  for (const auto& c : column(read_file(dir.path("c/iterations.csv")), 8)) EXPECT_EQ(c, "0");
  // validate reads it as run does.
  const auto v = odcnsim(fmt::format("validate {} {}", p, wt), dir);
  EXPECT_EQ(v.code, 0) << v.err;
  EXPECT_NE(v.out.find("1 job graph, fits the electrical platform"), std::string::npos) << v.out;
}

// A hand-made trace without ProfilerStep annotations or NCCL kernels: imported whole and timed by CPU ops, and the
// command line says both, with counts; `run` on a workload that names it says the same.
TEST(Import, KinetoFallbacksAreSaid) {
  TempDir dir;
  const std::string comm =
      R"({"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "ts": 100, "dur": 50, "args": {"Collective name": "allreduce", "In msg nelems": 1000, "Out msg nelems": 1000, "dtype": "Float", "Process Group Name": "0", "Process Group Ranks": "[0, 1]", "Group size": 2}})";
  for (int rank : {0, 1})
    dir.write(fmt::format("r{}.json", rank),
              fmt::format(R"({{"schemaVersion": 1, "distributedInfo": {{"backend": "nccl", "rank": {}, "world_size": 2}},
  "traceEvents": [{}, {{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 20, "dur": 500}}]}})",
                          rank, comm));
  const auto r = odcnsim(fmt::format("import kineto {} {} --out {}", dir.path("r0.json"), dir.path("r1.json"), dir.path("g.json")), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("  note              all 2 files are without a ProfilerStep annotation: each imported whole, "
                       "from its first event to its last\n"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  note              2 of 2 communications timed by their CPU operation (no NCCL kernel with "
                       "their External id)\n"),
            std::string::npos) << r.out;
  const auto p = dir.write("p.yaml", kTwoServers);
  const auto w = dir.write("w.yaml", fmt::format("job_graphs:\n  - format: kineto\n    files: [{}, {}]\n    endpoints: [0, 1]\n",
                                                 dir.path("r0.json"), dir.path("r1.json")));
  const auto run = odcnsim(fmt::format("run --platform {} --workload {} --out {}", p, w, dir.path("o")), dir);
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_NE(run.out.find("  import note       " + dir.path("r0.json") +
                         ": 2 of 2 communications timed by their CPU operation"),
            std::string::npos) << run.out;
}

TEST(Import, KinetoStepAndRefusals) {
  TempDir dir;
  // Another step is another iteration of the same job.
  auto r = odcnsim(fmt::format("import kineto {} --replicate --step 5 --name s5 --out {}", kKineto, dir.path("s5.json")), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(read_json(dir.path("s5.json"))["name"], "s5");
  // One rank of two, not asked to replicate: refused, with how to ask.
  r = odcnsim(fmt::format("import kineto {} --out {}", kKineto, dir.path("x.json")), dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, kKineto + ": ranks: no trace for rank 1 of 2 (give one file per rank; to copy the first file to the "
                             "ranks without one, as for data parallelism, ask for it: replicate: true or --replicate "
                             "for Kineto, ranks: N or --ranks N for Chakra)\n");
  EXPECT_FALSE(std::filesystem::exists(dir.path("x.json")));
  // A step that is not there; an option of the other importer; an existing --out.
  r = odcnsim(fmt::format("import kineto {} --replicate --step 99 --out {}", kKineto, dir.path("x.json")), dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err.rfind(kKineto + ": step: ", 0), 0u) << r.err;
  r = odcnsim(fmt::format("import kineto {} --groups g.json --out {}", kKineto, dir.path("x.json")), dir);
  EXPECT_EQ(r.err, "command line: --groups: is an option of 'import chakra'\n");
  dir.write("kept.json", "mine");
  r = odcnsim(fmt::format("import kineto {} --replicate --out {}", kKineto, dir.path("kept.json")), dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("exists and is not a job graph that 'odcnsim import kineto' wrote; pass --force to replace it"),
            std::string::npos);
  EXPECT_EQ(read_file(dir.path("kept.json")), "mine");
  // A truncated trace in a workload: one line naming the trace, nothing written.
  const std::string whole = read_file(kKineto);
  const auto cut = dir.write("cut.json.gz", whole.substr(0, whole.size() / 2));
  const auto p = dir.write("p.yaml", kTwoServers);
  const auto w = dir.write("w.yaml", "job_graphs:\n  - format: kineto\n    file: cut.json.gz\n    replicate: true\n"
                                     "    endpoints: [0, 1]\n");
  r = odcnsim(fmt::format("run --platform {} --workload {} --out {}", p, w, dir.path("o")), dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err.rfind(cut + ": (file): the gzip data ends early", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
  EXPECT_FALSE(std::filesystem::exists(dir.path("o")));
  // A trace named without its format: read as a job-graph file, refused with what it looks like.
  const auto plain = dir.write("w2.yaml", fmt::format("job_graphs:\n  - file: {}\n    endpoints: [0, 1]\n", kKineto));
  r = odcnsim(fmt::format("validate {} {}", p, plain), dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err.rfind(kKineto + ": ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("(this looks like a Kineto trace: add format: kineto to job_graphs[0])\n"), std::string::npos)
      << r.err;
}

TEST(Import, WorkloadEntriesOfTheWrongShapeAreRefused) {
  TempDir dir;
  const auto p = dir.write("p.yaml", kTwoServers);
  const auto refusal = [&](const std::string& entry) {
    const auto w = dir.write("w.yaml", "job_graphs:\n  - " + entry + "\n    endpoints: [0, 1]\n");
    const auto r = odcnsim(fmt::format("validate {} {}", p, w), dir);
    EXPECT_EQ(r.code, 2) << entry;
    return r.err.substr(w.size() + 2);
  };
  EXPECT_EQ(refusal("format: pytorch\n    file: a.json"),
            "job_graphs[0].format: unknown format 'pytorch' (expected job-graph, kineto or chakra)\n");
  EXPECT_EQ(refusal("format: chakra\n    file: a.et\n    step: 3"),
            "job_graphs[0].step: is an option of format kineto (this entry's format is chakra)\n");
  EXPECT_EQ(refusal("file: a.json\n    replicate: true"),
            "job_graphs[0].replicate: is an option of format kineto (this entry's format is job-graph)\n");
  EXPECT_EQ(refusal("files: [a.json, b.json]"),
            "job_graphs[0].files: a job-graph file holds every rank: give it as file: (files: lists one trace per "
            "rank, with format kineto or chakra)\n");
  EXPECT_EQ(refusal("format: kineto\n    file: a.json\n    files: [a.json]"),
            "job_graphs[0]: give the traces as files: [one per rank] (or one file:)\n");
  EXPECT_EQ(refusal("format: kineto\n    file: a.json\n    replicate: yes"), "job_graphs[0].replicate: must be true or false\n");
  EXPECT_EQ(refusal("format: chakra\n    file: a.et\n    compute: parallel"),
            "job_graphs[0].compute: must be serial or overlap (got 'parallel'; docs/traces.md)\n");
  EXPECT_EQ(refusal("format: kineto\n    file: a.json\n    compute: serial"),
            "job_graphs[0].compute: is an option of format chakra (this entry's format is kineto)\n");
  EXPECT_EQ(refusal("format: chakra\n    file: a.et\n    ctrl_deps: parent"),
            "job_graphs[0].ctrl_deps: must be order or caller (got 'parent'; docs/traces.md)\n");
}

TEST(Import, ChakraSampleAndExportRoundTrip) {
  TempDir dir;
  // The real ET file (one rank of a DDP job, no pg_name: every collective spans the job), as two ranks.
  auto r = odcnsim(fmt::format("import chakra {} --ranks 2 --ctrl-deps caller --out {}", kChakra, dir.path("c.json")), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("7 collectives (102441032 B)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  note              7 collective nodes name no process group (pg_name): read as every rank of "
                       "the job, 2 ranks (ASTRA-sim's default group)\n"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  note              1 of 2 ranks are copies of the 1 file given (--ranks)\n"), std::string::npos)
      << r.out;
  EXPECT_EQ(read_json(dir.path("c.json"))["name"], "chakra");
  // As one rank, the same collectives span that rank alone and move nothing: said, not silent.
  r = odcnsim(fmt::format("import chakra {} --ctrl-deps caller --out {}", kChakra, dir.path("c1.json")), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("  note              7 collective events of a one-rank group move nothing: kept as ordering only\n"),
            std::string::npos) << r.out;
  // Its ctrl_deps name callers: read as an order, they are refused with the hint.
  r = odcnsim(fmt::format("import chakra {} --ranks 2 --out {}", kChakra, dir.path("x.json")), dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("caller"), std::string::npos) << r.err;

  // For ASTRA-sim: the command says how ASTRA-sim reads the files; a reader it does not know is refused.
  ASSERT_EQ(odcnsim(fmt::format("generate torchtitan --quiet --out {}", dir.path("a.json")), dir).code, 0);
  r = odcnsim(fmt::format("export chakra {} --for astra-sim --out {}", dir.path("a.json"), dir.path("astra")), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find(fmt::format("  ASTRA-sim 2.x     --workload-configuration={} --comm-group-configuration={}\n",
                                   dir.path("astra/llama3-8b"), dir.path("astra/llama3-8b.groups.json"))),
            std::string::npos) << r.out;
  r = odcnsim(fmt::format("export chakra {} --for astra --out {}", dir.path("a.json"), dir.path("astra2")), dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "command line: --for: must be odcnsim or astra-sim (got 'astra')\n");
  EXPECT_FALSE(std::filesystem::exists(dir.path("astra2")));

  // A TorchTitan-like job (16 ranks, TP x FSDP x PP, sends and receives) through Chakra and back runs to the same
  // iteration times as the job itself.
  ASSERT_EQ(odcnsim(fmt::format("generate torchtitan --out {}", dir.path("t.json")), dir).code, 0);
  r = odcnsim(fmt::format("export chakra {} --out {}/", dir.path("t.json"), dir.path("et")), dir);  // "et/": et
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string name = read_json(dir.path("t.json"))["name"];
  for (int rank = 0; rank < 16; ++rank)
    EXPECT_TRUE(std::filesystem::exists(dir.path(fmt::format("et/{}.{}.et", name, rank)))) << rank;
  // Listed as a shell's glob lists them (.10.et before .2.et): the names give the ranks.
  std::string files;
  for (const char* rank : {"0", "1", "10", "11", "12", "13", "14", "15", "2", "3", "4", "5", "6", "7", "8", "9"})
    files += " " + dir.path(fmt::format("et/{}.{}.et", name, rank));
  r = odcnsim(fmt::format("import chakra{} --groups {} --compute overlap --out {}", files,
                          dir.path("et/" + name + ".groups.json"),
                          dir.path("back.json")),
              dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto p = dir.write("p.yaml", read_file(std::string(ODCNSIM_SOURCE_DIR) + "/platforms/electrical-rail-16.yaml"));
  for (const char* f : {"t", "back"}) {
    const auto w = dir.write(fmt::format("{}.yaml", f),
                             fmt::format("job_graphs:\n  - file: {}.json\n    name: job\n    endpoints: [{}]\n", f,
                                         "0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15"));
    ASSERT_EQ(odcnsim(fmt::format("run --platform {} --workload {} --out {}", p, w, dir.path(std::string("o-") + f)), dir).code, 0);
  }
  const auto a = ends(dir.path("o-t")), b = ends(dir.path("o-back"));
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(b[i], a[i], 1e-9 * a[i]);

  // Exporting again replaces what the earlier export wrote (its manifest lists the files), and gives the same bytes.
  const std::string before = read_file(dir.path(fmt::format("et/{}.0.et", name)));
  r = odcnsim(fmt::format("export chakra {} --quiet --out {}", dir.path("t.json"), dir.path("et")), dir);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(read_file(dir.path(fmt::format("et/{}.0.et", name))), before);
  // A file of the same name that no export wrote is the user's: refused unless --force, and left as it was.
  std::filesystem::create_directory(dir.path("mine"));
  dir.write(fmt::format("mine/{}.0.et", name), "mine");
  r = odcnsim(fmt::format("export chakra {} --out {}", dir.path("t.json"), dir.path("mine")), dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("exists and no earlier odcnsim export wrote it; pass --force to replace the files of job"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(read_file(dir.path(fmt::format("mine/{}.0.et", name))), "mine");
  // Into a folder whose parent is missing: refused, nothing created.
  r = odcnsim(fmt::format("export chakra {} --out {}", dir.path("t.json"), dir.path("no/such")), dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_FALSE(std::filesystem::exists(dir.path("no")));
}

// Kineto streams (docs/traces-kineto.md, "Streams"): tests/data/kineto/streams/two_streams.json (stream 7: compute
// [0, 1] and [1, 10 ms]; stream 20: an all-reduce of S = 25 MB [2, 8 ms]) copied to two ranks, on two servers of
// 2 x 50 Gb/s: the all-reduce takes T = S/B = 2 ms. With each stream a chain (the default) one iteration is
// max(1 + 9, 1 + 1 + T) = 10 ms, the recorded step, not 16 ms of compute and communication back to back;
// serially it is 2 + T + 2 = 6 ms.
TEST(Import, KinetoStreamsKeepTheOverlap) {
  TempDir dir;
  const std::string trace = std::string(ODCNSIM_SOURCE_DIR) + "/tests/data/kineto/streams/two_streams.json";
  const auto p = dir.write("p.yaml", kTwoServers);
  const double T = 25e6 / (100e9 / 8);
  const auto replay = [&](const std::string& options, const std::string& name) {
    const auto r = odcnsim(fmt::format("import kineto {} --replicate {} --out {}", trace, options, dir.path(name + ".json")), dir);
    EXPECT_EQ(r.code, 0) << r.err;
    const auto w = dir.write(name + ".yaml", fmt::format("job_graphs:\n  - file: {}.json\n    endpoints: [0, 1]\n", name));
    const auto run = odcnsim(fmt::format("run --platform {} --workload {} --out {}", p, w, dir.path(name)), dir);
    EXPECT_EQ(run.code, 0) << run.err;
    const auto e = ends(dir.path(name));
    EXPECT_EQ(e.size(), 1u);
    return std::make_pair(r.out, e.empty() ? -1.0 : e[0]);
  };
  const auto [out, iteration] = replay("", "default");
  EXPECT_NEAR(iteration, 10e-3, 1e-9);
  EXPECT_NEAR(replay("--streams concurrent", "concurrent").second, 10e-3, 1e-9);
  EXPECT_NE(out.find("  note              no Stream Wait Event (cuda_sync) in 1 of 1 file: 1 communication waits for "
                     "the GPU operation on another stream that ended last before it started (concurrent streams)\n"),
            std::string::npos) << out;
  EXPECT_NEAR(replay("--streams serial", "serial_again").second, 4e-3 + T, 1e-9);
}
