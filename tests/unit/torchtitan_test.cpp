// The TorchTitan-like generator (Opus §3.1) against the model shapes and message sizes worked out by hand from
// TorchTitan's Llama-3 arguments and parallelisation (shapes: params per layer = attention + SwiGLU + norms).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "graph/job_graph_file.hpp"
#include "systems/opus/torchtitan.hpp"
#include "support/graphs.hpp"

using namespace odcn;
using namespace odcn::workload;

namespace {
constexpr double kMiB = 1024.0 * 1024.0;
}

TEST(TorchTitan, Llama3ShapesAndParameterCounts) {
  EXPECT_EQ(ffn_hidden_dim(4096, 1024, 1.3), 14336);   // 4·4096·2/3 = 10922, ×1.3 = 14198, up to 1024·14
  EXPECT_EQ(ffn_hidden_dim(16384, 4096, 1.2), 53248);  // 43690 ×1.2 = 52428, up to 4096·13
  const auto b8 = torchtitan_preset("llama3-8b").model;
  // 2·4096² + 2·4096·1024 (GQA: 8 kv heads of 128) + 3·4096·14336 + 2·4096
  EXPECT_EQ(params_per_layer(b8), 41'943'040 + 176'160'768 + 8'192);
  EXPECT_EQ(params_per_layer(b8), 218'112'000);
  EXPECT_EQ(embedding_params(b8), 525'336'576);
  EXPECT_EQ(total_params(b8), 8'030'261'248);
  const auto b405 = torchtitan_preset("llama3.1-405b").model;
  EXPECT_EQ(params_per_layer(b405), 3'187'703'808);
  EXPECT_EQ(total_params(b405), 405'853'388'800);
  EXPECT_THROW(torchtitan_preset("llama2-7b"), std::invalid_argument);
}

TEST(TorchTitan, Llama3_8bMessageSizesPerStage) {
  const auto c = torchtitan_preset("llama3-8b");
  EXPECT_EQ(layers_per_stage(c), (std::vector<int>{16, 16}));
  const auto s0 = fsdp_units(c, 0);
  ASSERT_EQ(s0.size(), 17u);  // embedding + 16 blocks
  EXPECT_EQ(s0[0].name, "embedding");
  EXPECT_EQ(s0[1].params, 54'528'000);                    // a block over TP 4
  EXPECT_DOUBLE_EQ(s0[1].gather_bytes, 109'056'000);      // bf16 output: 104.0 MiB
  EXPECT_DOUBLE_EQ(s0[1].gather_received, 54'528'000);    // half comes from the FSDP peer: 52.0 MiB
  EXPECT_DOUBLE_EQ(s0[1].scatter_bytes, 218'112'000);     // fp32 input: 208.0 MiB
  double gathered = 0, scattered = 0;
  for (const auto& u : s0) {
    gathered += u.gather_received;
    scattered += u.scatter_bytes;
  }
  // Opus Fig. 4: 957 MB all-gathered and 3829 MB reduce-scattered per stage.
  EXPECT_DOUBLE_EQ(gathered, 16 * 54'528'000.0 + 131'334'144.0);
  EXPECT_NEAR(gathered / kMiB, 957.3, 0.05);
  EXPECT_DOUBLE_EQ(scattered, 16 * 218'112'000.0 + 525'336'576.0);
  EXPECT_NEAR(scattered / kMiB, 3829.1, 0.05);
  const auto s1 = fsdp_units(c, 1);
  EXPECT_EQ(s1.back().name, "output");  // [norm, output]
  EXPECT_EQ(s1.back().params, (525'336'576 + 4096) / 4);
  // Pipeline: micro-batch 2 · (8192 / TP 4) · 4096 · 2 bytes, sequence-sharded.
  EXPECT_DOUBLE_EQ(pipeline_bytes(c), 2.0 * 2048 * 4096 * 2);
  EXPECT_EQ(pipeline_bytes(c) / kMiB, 32.0);
  // Forward FLOPs per GPU and micro-batch: 33.0 TFLOP on stage 0, 37.3 with the output projection.
  const double tokens = 2 * 8192.0;
  EXPECT_DOUBLE_EQ(forward_flops(c, 0), (2.0 * 16 * 218'112'000.0 * tokens + 2.0 * 8192 * 4096 * tokens * 16) / 4);
  EXPECT_NEAR(forward_flops(c, 0) / 1e12, 33.0, 0.05);
  EXPECT_NEAR(forward_flops(c, 1) / 1e12, 37.3, 0.05);
}

TEST(TorchTitan, Llama405bMessageSizesAndStages) {
  const auto c = torchtitan_preset("llama3.1-405b");
  std::vector<int> expected(16, 8);
  expected.front() = expected.back() = 7;  // 126 = 7 + 14·8 + 7
  EXPECT_EQ(layers_per_stage(c), expected);
  const auto u = fsdp_units(c, 1)[0];
  EXPECT_EQ(u.params, 398'462'976);
  EXPECT_DOUBLE_EQ(u.gather_bytes, 398'462'976.0 * 2);
  EXPECT_NEAR(u.gather_bytes / kMiB, 760.0, 0.05);
  EXPECT_DOUBLE_EQ(u.gather_received, 398'462'976.0 * 2 * 7 / 8);  // 7/8 from the 7 FSDP peers
  EXPECT_NEAR(u.gather_received / kMiB, 665.0, 0.05);
  EXPECT_DOUBLE_EQ(u.scatter_bytes, 398'462'976.0 * 4);
  EXPECT_NEAR(u.scatter_bytes / kMiB, 1520.0, 0.05);
  EXPECT_DOUBLE_EQ(pipeline_bytes(c) / kMiB, 32.0);  // 1 · (8192 / 8) · 16384 · 2
}

TEST(TorchTitan, Llama3_8bGraphFollowsTorchTitansLayoutAnd1F1B) {
  auto c = torchtitan_preset("llama3-8b");
  c.prefetch = false;  // micro-batch 0's forward as one task, after every all-gather (tested below with it)
  c.lazy_gather = false;
  const JobGraph g = build_torchtitan(c);
  EXPECT_EQ(g.ranks, 16);
  std::map<std::string, int> kinds;
  std::map<int, std::vector<std::string>> computes;  // rank -> its compute tasks in order
  for (const auto& t : g.tasks) {
    ++kinds[to_string(t.kind)];
    if (t.kind == TaskKind::compute) computes[t.rank].push_back(t.name);
    if (t.kind == TaskKind::collective && t.op == CollectiveOp::all_gather) {
      EXPECT_EQ(t.group.size(), 2u);  // FSDP pairs {0,4}, {8,12}, ... on one rail
    }
  }
  // 2 stages × 4 TP ranks × 17 units of all-gather and of reduce-scatter; 16 ranks × (4 compute tasks and an
  // optimizer step); 2 micro-batches × (activation + gradient) × 8 stage-0/stage-1 pairs; gradient-norm
  // all-reduces: per stage 2 over TP and 4 over FSDP, then 8 over PP.
  EXPECT_EQ(kinds["collective"], 2 * 4 * 17 * 2 + 2 * (2 + 4) + 8);
  EXPECT_EQ(kinds["compute"], 16 * 5);
  EXPECT_EQ(kinds["transfer"], 32);
  EXPECT_EQ(kinds["barrier"], 1);
  // 1F1B: stage 0 warms up one forward; stage 1 alternates.
  EXPECT_EQ(computes[0], (std::vector<std::string>{"s0.d0.t0.fwd0", "s0.d0.t0.fwd1", "s0.d0.t0.bwd0", "s0.d0.t0.bwd1",
                                                   "s0.d0.t0.opt"}));
  EXPECT_EQ(computes[8], (std::vector<std::string>{"s1.d0.t0.fwd0", "s1.d0.t0.bwd0", "s1.d0.t0.fwd1", "s1.d0.t0.bwd1",
                                                   "s1.d0.t0.opt"}));
  // Rank 8 (stage 1, dp 0, tp 0) receives micro-batch 0's activations from rank 0, on rail 0.
  bool found = false;
  for (const auto& t : g.tasks)
    if (t.name == "s0.d0.t0.act0") {
      found = true;
      EXPECT_EQ(t.src, 0);
      EXPECT_EQ(t.dst, 8);
      EXPECT_DOUBLE_EQ(t.bytes, 32 * kMiB);
    }
  EXPECT_TRUE(found);
}

// Opus §3.1 as TorchTitan runs it (the defaults): micro-batch 0's forward unit by unit, each after its own
// all-gather (FSDP's prefetch: stage 0's 16 layers, stage 1's 16 layers and the output; the embedding lookup
// computes nothing), the units' times adding up to the whole forward; and stage 1's all-gathers waiting for
// micro-batch 0's activations (lazy), not starting with the iteration.
TEST(TorchTitan, PrefetchedAndLazyAllGathers) {
  const auto c = torchtitan_preset("llama3-8b");
  const JobGraph g = build_torchtitan(c);
  std::map<std::string, const Task*> by_name;
  for (const auto& t : g.tasks) by_name[t.name] = &t;
  const auto name_of = [&](int i) { return g.tasks[static_cast<std::size_t>(i)].name; };
  double stage0 = 0, stage1 = 0;
  int units0 = 0, units1 = 0;
  for (const auto& t : g.tasks) {
    if (t.rank == 0 && t.name.rfind("s0.d0.t0.fwd0.", 0) == 0) stage0 += t.duration_s, ++units0;
    if (t.rank == 8 && t.name.rfind("s1.d0.t0.fwd0.", 0) == 0) stage1 += t.duration_s, ++units1;
  }
  EXPECT_EQ(units0, 16);
  EXPECT_EQ(units1, 17);
  const double flops_per_s = c.gpu_tflops * 1e12 * c.utilisation;
  EXPECT_NEAR(stage0, forward_flops(c, 0) / flops_per_s, 1e-12);
  EXPECT_NEAR(stage1, forward_flops(c, 1) / flops_per_s, 1e-12);
  // Layer 3's forward waits for layer 2's and for its own all-gather.
  const Task* l3 = by_name.at("s0.d0.t0.fwd0.layer3");
  std::set<std::string> deps;
  for (int d : l3->deps) deps.insert(name_of(d));
  EXPECT_EQ(deps, (std::set<std::string>{"s0.d0.t0.fwd0.layer2", "s0.t0.ag.layer3"}));
  // Stage 0 gathers at once; stage 1 once both of its FSDP ranks have micro-batch 0's activations.
  EXPECT_TRUE(by_name.at("s0.t0.ag.embedding")->deps.empty());
  deps.clear();
  for (int d : by_name.at("s1.t0.ag.layer16")->deps) deps.insert(name_of(d));
  EXPECT_EQ(deps, (std::set<std::string>{"s0.d0.t0.act0", "s0.d1.t0.act0"}));
}

// The optimizer step: AdamW over each GPU's shard of fp32 parameters moves 28 B per parameter at the memory's
// bandwidth. Llama3-8B stage 0 holds the embedding and 16 layers, / TP 4 / FSDP 2 per GPU; at A100 40 GB's
// 1,555 GB/s that is 9.0 ms. Each GPU's step follows its own PP gradient-norm all-reduce, and the iteration's
// barrier follows every step; optimizer_bytes_per_param 0 leaves the step out.
TEST(TorchTitan, AdamWStepFromParametersPerGpu) {
  auto c = torchtitan_preset("llama3-8b");
  const std::int64_t stage0 = (525336576LL + 16LL * 218112000LL) / 4 / 2;
  EXPECT_EQ(params_per_gpu(c, 0), stage0);
  EXPECT_DOUBLE_EQ(optimizer_seconds(c, 0), stage0 * 28.0 / 1555e9);
  EXPECT_NEAR(optimizer_seconds(c, 0), 9.0e-3, 0.05e-3);
  const JobGraph g = build_torchtitan(c);
  int steps = 0;
  for (const auto& t : g.tasks)
    if (t.kind == TaskKind::compute && t.name.size() > 4 && t.name.substr(t.name.size() - 4) == ".opt") {
      ++steps;
      ASSERT_EQ(t.deps.size(), 1u);
      const auto& norm = g.tasks[static_cast<std::size_t>(t.deps[0])];
      EXPECT_EQ(norm.name.substr(norm.name.size() - 11), "gradnorm.pp");
      EXPECT_NE(std::find(norm.group.begin(), norm.group.end(), t.rank), norm.group.end());
    }
  EXPECT_EQ(steps, 16);
  EXPECT_EQ(g.tasks.back().deps.size(), 16u);  // the barrier "step"
  c.optimizer_bytes_per_param = 0;
  const JobGraph none = build_torchtitan(c);
  EXPECT_EQ(none.tasks.size(), g.tasks.size() - 16);
}

TEST(TorchTitan, JobGraphFileRoundTrip) {
  auto c = torchtitan_preset("llama3-8b");
  c.iterations = 3;
  const JobGraph g = build_torchtitan(c);
  const JobGraph back = parse_job_graph(job_graph_json(g), "round-trip");
  EXPECT_EQ(back.iterations, 3);
  test::expect_same_graph(g, back);
}

TEST(TorchTitan, RefusesConfigurationsItCannotLayOut) {
  auto c = torchtitan_preset("llama3-8b");
  c.seq_len = 8191;
  EXPECT_THROW(build_torchtitan(c), std::invalid_argument);
  c = torchtitan_preset("llama3-8b");
  c.pp = 40;  // more stages than 32 layers
  EXPECT_THROW(build_torchtitan(c), std::invalid_argument);
  c = torchtitan_preset("llama3-8b");
  c.utilisation = 1.5;
  EXPECT_THROW(build_torchtitan(c), std::invalid_argument);
  // Without FSDP or PP there is nothing to gather or pipe, and the graph is still valid.
  c = torchtitan_preset("llama3-8b");
  c.fsdp = 1;
  c.pp = 1;
  const auto g = build_torchtitan(c);
  for (const auto& t : g.tasks) EXPECT_NE(t.kind, TaskKind::transfer);
}
