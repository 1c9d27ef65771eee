// `odcnsim generate torchtitan`: the job-graph file it writes, that run replays it, and one-line refusals.
#include <gtest/gtest.h>

#include "cli/cli_support.hpp"

using namespace odcn::test;

TEST(Generate, Llama3_8bFileIsTheCommittedExampleAndRuns) {
  TempDir dir;
  const auto out = dir.path("8b.json");
  const auto r = odcnsim("generate torchtitan --preset llama3-8b --out " + out, dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("all-gather 957.3 MiB received, reduce-scatter 3829.1 MiB in"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("32.0 MiB per micro-batch"), std::string::npos);
  // Deterministic, and the example the workload names is what the generator writes today.
  EXPECT_TRUE(read_file(out) == read_file(std::string(ODCNSIM_SOURCE_DIR) + "/docs/examples/llama3-8b-torchtitan.json"))
      << "docs/examples/llama3-8b-torchtitan.json is not what the generator writes: regenerate it";
  const auto run = odcnsim("run --platform platforms/photonic-rail-16.yaml --workload workloads/opus-llama3-8b.yaml "
                           "--no-slowdown --out " + dir.path("run"),
                           dir);
  ASSERT_EQ(run.code, 0) << run.err;
  // Rank 8 (stage 1) computes two forwards and two backwards: 2 · 3 · 37.3 TFLOP / (312 TFLOP/s · 0.45) at least.
  const double flops = (2.0 * (16 * 218'112'000.0 + 525'336'576.0) * 16384 + 2.0 * 8192 * 4096 * 16384 * 16) / 4;
  const double stage1 = 2 * 3 * flops / (312e12 * 0.45);
  const auto s = read_json(dir.path("run") + "/summary.json");
  EXPECT_GE(s["mean_iteration_s"].get<double>(), stage1);
  EXPECT_GT(s["share_communication"].get<double>(), 0);
}

TEST(Generate, RefusalsAreOneLineAndLeaveFilesAlone) {
  TempDir dir;
  const auto existing = dir.write("keep.json", "mine");
  const std::vector<Refusal> cases{
      {"generate megatron --out x.json", "command line: (kind): unknown generator 'megatron' (expected torchtitan or dlrm)"},
      {"generate torchtitan --preset llama2 --out x.json", "command line: --preset: unknown preset 'llama2'"},
      {"generate torchtitan --set depth=3 --out x.json", "command line: --set depth: unknown key"},
      {"generate torchtitan --set tp=zero --out x.json", "command line: --set tp: must be a whole number"},
      {"generate torchtitan --set seq_len=8191 --out x.json", "command line: --set: seq_len 8191 is not divisible by tp 4"},
      // Stopped at 500,000 tasks, in about a second, where it ran out of memory before.
      {"generate torchtitan --preset llama3.1-405b --set microbatches=10000 --out x.json",
       "command line: --set: tp 8 x fsdp 8 x pp 16 with 10000 micro-batches gives more than 500000 tasks"},
      {"generate torchtitan --out " + existing,
       "command line: --out: '" + existing + "' exists and is not a job graph that 'odcnsim generate torchtitan' wrote; pass --force"},
  };
  expect_refusals(cases, dir);
  EXPECT_EQ(read_file(existing), "mine");
  EXPECT_FALSE(std::filesystem::exists(dir.path("x.json")));
  ASSERT_EQ(odcnsim("generate torchtitan --quiet --force --out " + existing, dir).code, 0);
  EXPECT_NE(read_file(existing), "mine");
}

// A single job-graph file is written beside its place under a name of this process, so a hidden file left by a
// killed earlier command never blocks a later one; an empty --out is refused; ten commands writing one new file at
// once each end with 0 or a one-line refusal (exit 2), the file is whole, and no hidden staging file is left.
TEST(Generate, StaleStagingEmptyOutAndConcurrentWritersLeaveOneWholeFile) {
  TempDir dir;
  dir.write(".stale.json.partial", "");  // what SIGKILL left behind before this change
  ASSERT_EQ(odcnsim("generate torchtitan --quiet --out " + dir.path("stale.json"), dir).code, 0);
  const auto empty = odcnsim("generate torchtitan --out ''", dir);
  EXPECT_EQ(empty.code, 2);
  EXPECT_EQ(empty.err, "command line: --out: is empty\n");
  const auto r = run_script(fmt::format("for i in $(seq 10); do ( '{}' generate torchtitan --quiet --out shared.json "
                                        "2> err.$i; echo $? > rc.$i ) & done; wait",
                                        ODCNSIM_BIN),
                            dir);
  ASSERT_EQ(r.code, 0) << r.err;
  int ok = 0;
  for (int i = 1; i <= 10; ++i) {
    const std::string rc = read_file(dir.path(fmt::format("rc.{}", i)));
    const std::string err = read_file(dir.path(fmt::format("err.{}", i)));
    ASSERT_TRUE(rc == "0\n" || rc == "2\n") << rc << err;
    if (rc == "0\n") {
      ++ok;
    } else {
      EXPECT_EQ(err, "command line: --out: 'shared.json' was created by another command meanwhile; pass --force to "
                     "replace it\n");
    }
  }
  EXPECT_GE(ok, 1);
  EXPECT_EQ(read_file(dir.path("shared.json")), read_file(dir.path("stale.json")));
  for (const auto& e : std::filesystem::directory_iterator(dir.path("")))
    EXPECT_EQ(e.path().filename().string().find(".shared.json"), std::string::npos) << e.path();
}

// A --set whose text is huge is echoed cut, with its length, in one short line (run and generate alike).
TEST(Generate, HugeSetKeysAreEchoedCut) {
  TempDir dir;
  const std::string key(100000, 'k');
  for (const std::string& cmd : {"run --platform platforms/clos-8pod.yaml --workload workloads/small-mix.yaml --out " +
                                    dir.path("o") + " --set " + key + "=3",
                                "generate dlrm --out " + dir.path("x.json") + " --set " + key + "=3"}) {
    const auto r = odcnsim(cmd, dir);
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err.substr(0, 300);
    EXPECT_LT(r.err.size(), 1000u) << r.err.substr(0, 300);
    EXPECT_EQ(r.err.rfind("command line: --set kkkk", 0), 0u) << r.err.substr(0, 300);
    EXPECT_NE(r.err.find("characters)"), std::string::npos) << r.err.substr(0, 300);
  }
  EXPECT_FALSE(std::filesystem::exists(dir.path("x.json")));
}
