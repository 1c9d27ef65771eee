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
  const struct {
    std::string args, expect;
  } cases[] = {
      {"generate megatron --out x.json", "command line: (kind): unknown generator 'megatron' (expected torchtitan or dlrm)"},
      {"generate torchtitan --preset llama2 --out x.json", "command line: --preset: unknown preset 'llama2'"},
      {"generate torchtitan --set depth=3 --out x.json", "command line: --set depth: unknown key"},
      {"generate torchtitan --set tp=zero --out x.json", "command line: --set tp: must be a whole number"},
      {"generate torchtitan --set seq_len=8191 --out x.json", "command line: --set: seq_len 8191 is not divisible by tp 4"},
      {"generate torchtitan --out " + existing,
       "command line: --out: '" + existing + "' exists and is not a job graph that 'odcnsim generate torchtitan' wrote; pass --force"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.args);
    const auto r = odcnsim(c.args, dir);
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.err.find(c.expect), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  EXPECT_EQ(read_file(existing), "mine");
  EXPECT_FALSE(std::filesystem::exists(dir.path("x.json")));
  ASSERT_EQ(odcnsim("generate torchtitan --quiet --force --out " + existing, dir).code, 0);
  EXPECT_NE(read_file(existing), "mine");
}
