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

// Interleaved 1F1B through the engine, against its iteration time derived by hand. Two pipeline ranks, four model
// stages of one layer each (v 2), two micro-batches, no TP or FSDP, no optimizer step, no recomputation: stages
// 0–2 take f per forward, stage 3 (with the output projection) f3, backwards twice that. By the schedule
// (rank 0: F0 F0' F2 F2' B2 B2' B0 B0'; rank 1: F1 F1' F3 B3 F3' B3' B1 B1'), with f3 ≥ f:
//   F0 [0, f], F0' [f, 2f]; F1 [f, 2f], F1' [2f, 3f]; F2 [2f, 3f], F2' [3f, 4f]; F3 [3f, 3f + f3],
//   B3 [.., 3f + 3f3], F3' [.., 3f + 4f3], B3' [.., 3f + 6f3]; B2 [3f + 3f3, 5f + 3f3], B2' [3f + 6f3, 5f + 6f3];
//   B1 [3f + 6f3, 5f + 6f3], B1' [5f + 6f3, 7f + 6f3]; B0 [5f + 6f3, 7f + 6f3], B0' [7f + 6f3, 9f + 6f3]:
// the iteration is 9f + 6f3. 1F1B on the same model (two stages of two layers: 2f and f + f3 per forward) is
// F0 [0, 2f], F0' [2f, 4f]; F1 [2f, 3f + f3], B1 [.., 5f + 3f3], F1' [.., 6f + 4f3], B1' [.., 8f + 6f3];
// B0 [5f + 3f3, 9f + 3f3], B0' [8f + 6f3, 12f + 6f3]: 12f + 6f3. Communication (1 KiB messages) is negligible
// against seconds of compute at 1 MFLOP/s.
TEST(Generate, InterleavedIterationTimeThroughTheEngine) {
  TempDir dir;
  // Per token, a block of dim 64 (one head of 64, one KV head, SwiGLU 64): 2 · (4 · 64² + 3 · 64² + 2 · 64)
  // FLOPs of matmuls and 2 · seq 8 · 64 of attention; the output projection 2 · 64 · 64; 8 tokens per micro-batch.
  const double f = 8 * (2.0 * (7 * 64 * 64 + 128) + 2.0 * 8 * 64) / 1e6;
  const double f3 = f + 8 * 2.0 * 64 * 64 / 1e6;
  const std::string model = "--set layers=4 --set dim=64 --set heads=1 --set kv_heads=1 --set ffn_hidden=64 "
                            "--set vocab=64 --set seq_len=8 --set microbatch_size=1 --set microbatches=2 --set tp=1 "
                            "--set fsdp=1 --set pp=2 --set gpu_tflops=0.000001 --set utilisation=1 "
                            "--set optimizer_bytes_per_param=0 --set activation_checkpoint=none";
  const auto w = dir.write("w.yaml", "job_graphs:\n  - file: g.json\n    endpoints: [0, 4]\n");
  for (const auto& [v, expected] : {std::pair{2, 9 * f + 6 * f3}, std::pair{1, 12 * f + 6 * f3}}) {
    const auto gen = odcnsim(fmt::format("generate torchtitan --quiet --force {} --set virtual_stages={} --out {}",
                                         model, v, dir.path("g.json")),
                             dir);
    ASSERT_EQ(gen.code, 0) << gen.err;
    const auto out = dir.path(fmt::format("run{}", v));
    const auto run = odcnsim("run --platform platforms/electrical-rail-16.yaml --no-slowdown --workload " + w +
                                 " --out " + out,
                             dir);
    ASSERT_EQ(run.code, 0) << run.err;
    const double t = read_json(out + "/summary.json")["mean_iteration_s"].get<double>();
    EXPECT_NEAR(t, expected, 1e-4 * expected) << "virtual_stages " << v;
  }
}

TEST(Generate, InterleavingAndNewOptionsRefusals) {
  TempDir dir;
  const std::vector<Refusal> cases{
      {"generate torchtitan --set virtual_stages=2 --set microbatches=5 --out x.json",
       "command line: --set: interleaved 1F1B (virtual_stages 2) needs microbatches to be a multiple of its rounds, "
       "max(1, microbatches / pp) = 2 (got microbatches 5, pp 2)"},
      {"generate torchtitan --set pp=1 --set virtual_stages=2 --out x.json",
       "command line: --set: virtual_stages 2 needs pp of at least 2 (interleaved 1F1B)"},
      {"generate torchtitan --set virtual_stages=0 --out x.json", "command line: --set virtual_stages: "},
      {"generate torchtitan --preset llama3.1-405b --set virtual_stages=9 --out x.json",
       "command line: --set: pp 16 x virtual_stages 9 = 144 model stages exceed the 126 layers and the embedding and "
       "output stages"},
      // Llama 3's pp 16 x v 8 layout has 128 model stages: about 560,000 tasks at 1,024 GPUs and 16 micro-batches.
      {"generate torchtitan --preset llama3.1-405b --set virtual_stages=8 --out x.json",
       "command line: --set: tp 8 x fsdp 8 x pp 16 x virtual_stages 8 with 16 micro-batches gives more than 500000 "
       "tasks"},
      {"generate torchtitan --set activation_checkpoint=op --out x.json",
       "command line: --set activation_checkpoint: must be none, selective or full (got 'op')"},
      {"generate torchtitan --set tp_collectives=yes --out x.json",
       "command line: --set tp_collectives: must be true or false (got 'yes')"},
      {"generate torchtitan --set loss_allreduce=1 --out x.json",
       "command line: --set loss_allreduce: must be true or false (got '1')"},
  };
  expect_refusals(cases, dir);
  EXPECT_FALSE(std::filesystem::exists(dir.path("x.json")));
}

// generate and import end with the command that runs what they wrote; with a platform put in, it runs.
TEST(Generate, PrintsTheCommandThatRunsItsGraph) {
  TempDir dir;
  const std::string file = dir.path("8b.json");
  const std::string kineto = std::string(ODCNSIM_SOURCE_DIR) + "/tests/data/kineto/nccl_data.json.gz";
  for (const auto& [command, ranks] : std::vector<std::pair<std::string, int>>{
           {"generate torchtitan --out " + file, 16},
           {"import kineto " + kineto + " --replicate --force --out " + file, 2}}) {
    const auto g = odcnsim(command, dir);
    ASSERT_EQ(g.code, 0) << g.err;
    const std::string hint = "  run it            odcnsim run --platform PLATFORM --workload " + file + "   (one job, rank i "
                             "on endpoint i: any platform with at least " + std::to_string(ranks) + " endpoints;";
    ASSERT_NE(g.out.find(hint), std::string::npos) << g.out;
    const auto r = odcnsim("run --platform platforms/photonic-rail-16.yaml --workload " + file +
                               " --iterations 1 --no-slowdown --quiet --out " + dir.path("r" + std::to_string(ranks)),
                           dir);
    EXPECT_EQ(r.code, 0) << command << ": " << r.err;
  }
}
