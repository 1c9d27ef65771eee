// The TorchTitan-like generator (Opus §3.1) against the model shapes and message sizes worked out by hand from
// TorchTitan's Llama-3 arguments and parallelisation (shapes: params per layer = attention + SwiGLU + norms).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "graph/job_graph_file.hpp"
#include "systems/opus/torchtitan.hpp"
#include "systems/opus/torchtitan_schedule.hpp"
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
  // all-reduces: per stage 2 over TP and 4 over FSDP, then 8 over PP; TP's collectives, one per micro-batch,
  // direction, stage and FSDP rank: 2 × 2 × 2 × 2.
  EXPECT_EQ(kinds["collective"], 2 * 4 * 17 * 2 + 2 * (2 + 4) + 8 + 16);
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

// ---- Interleaved 1F1B, TP collectives, activation checkpointing, the loss all-reduce (issue 26, item 3) ----

namespace {

PipelineOp F(int s, int i) { return {s, false, i}; }
PipelineOp B(int s, int i) { return {s, true, i}; }

/// A small Llama-like model: dim 64, one head of 64, SwiGLU hidden 64, vocab 64, 8 tokens per micro-batch.
TorchTitanConfig tiny(int layers, int tp, int fsdp, int pp, int v, int m) {
  auto c = torchtitan_preset("llama3-8b");
  c.name = "tiny";
  c.model = {layers, 64, 1, 1, 64, 64};
  c.tp = tp;
  c.fsdp = fsdp;
  c.pp = pp;
  c.virtual_stages = v;
  c.microbatches = m;
  c.microbatch_size = 1;
  c.seq_len = 8;
  return c;
}

}  // namespace

// The per-rank order written out by hand from PyTorch's ScheduleInterleaved1F1B (schedules.py): rounds =
// max(1, m / pp), warm-up = min((v − 1) · m/rounds + 2 · (pp − 1 − rank), m · v) forwards, then 1F1B, then the
// rest of the backwards; forward step k on local stage (k / per_round) mod v, i.e. model stage local · pp + rank.
TEST(TorchTitanSchedule, InterleavedOrderAsPyTorchWritesIt) {
  // pp 2, v 2, m 2: per round 2; rank 0 warms up min(2 + 2, 4) = 4 forwards, rank 1 min(2 + 0, 4) = 2.
  EXPECT_EQ(pipeline_order(2, 2, 2, 0),
            (std::vector<PipelineOp>{F(0, 0), F(0, 1), F(2, 0), F(2, 1), B(2, 0), B(2, 1), B(0, 0), B(0, 1)}));
  EXPECT_EQ(pipeline_order(2, 2, 2, 1),
            (std::vector<PipelineOp>{F(1, 0), F(1, 1), F(3, 0), B(3, 0), F(3, 1), B(3, 1), B(1, 0), B(1, 1)}));
  // pp 4, v 2, m 4: rank 2 warms up min(4 + 2, 8) = 6, rank 3 min(4 + 0, 8) = 4.
  EXPECT_EQ(pipeline_order(4, 2, 4, 2),
            (std::vector<PipelineOp>{F(2, 0), F(2, 1), F(2, 2), F(2, 3), F(6, 0), F(6, 1), F(6, 2), B(6, 0), F(6, 3),
                                     B(6, 1), B(6, 2), B(6, 3), B(2, 0), B(2, 1), B(2, 2), B(2, 3)}));
  EXPECT_EQ(pipeline_order(4, 2, 4, 3),
            (std::vector<PipelineOp>{F(3, 0), F(3, 1), F(3, 2), F(3, 3), F(7, 0), B(7, 0), F(7, 1), B(7, 1), F(7, 2),
                                     B(7, 2), F(7, 3), B(7, 3), B(3, 0), B(3, 1), B(3, 2), B(3, 3)}));
  // v = 1 is Schedule1F1B, as before: stage 0 warms up one forward, stage 1 alternates.
  EXPECT_EQ(pipeline_order(2, 1, 2, 0), (std::vector<PipelineOp>{F(0, 0), F(0, 1), B(0, 0), B(0, 1)}));
  EXPECT_EQ(pipeline_order(2, 1, 2, 1), (std::vector<PipelineOp>{F(1, 0), B(1, 0), F(1, 1), B(1, 1)}));
}

// Every schedule the check accepts runs each (model stage, micro-batch) forward and backward once, on rank
// s mod pp, and builds into a graph (no rank waits for an op that never comes); the others are refused.
TEST(TorchTitanSchedule, EveryAcceptedScheduleCompletes) {
  int built = 0, refused = 0;
  for (int pp = 2; pp <= 4; ++pp)
    for (int v = 1; v <= 3; ++v)
      for (int m = 1; m <= 9; ++m) {
        if (!pipeline_schedule_error(pp, v, m).empty()) {
          ++refused;
          EXPECT_THROW(build_torchtitan(tiny(12, 1, 1, pp, v, m)), std::invalid_argument);
          continue;
        }
        std::set<std::tuple<int, bool, int>> seen;
        for (int r = 0; r < pp; ++r)
          for (const auto& op : pipeline_order(pp, v, m, r)) {
            EXPECT_EQ(op.stage % pp, r);
            EXPECT_TRUE(seen.insert({op.stage, op.backward, op.microbatch}).second);
          }
        EXPECT_EQ(seen.size(), static_cast<std::size_t>(2 * pp * v * m));
        EXPECT_NO_THROW(build_torchtitan(tiny(12, 1, 2, pp, v, m))) << pp << " " << v << " " << m;
        ++built;
      }
  // Refused: m not a multiple of max(1, m / pp) with v > 1, e.g. pp 2, m 5 (2 rounds); pp 4, m 9 (2 rounds).
  EXPECT_EQ(pipeline_schedule_error(2, 2, 5),
            "interleaved 1F1B (virtual_stages 2) needs microbatches to be a multiple of its rounds, max(1, "
            "microbatches / pp) = 2 (got microbatches 5, pp 2)");
  EXPECT_EQ(pipeline_schedule_error(1, 2, 4), "virtual_stages 2 needs pp of at least 2 (interleaved 1F1B)");
  EXPECT_NE(pipeline_schedule_error(4, 3, 9), "");  // 9 / 4 = 2 rounds, 9 % 2 = 1
  EXPECT_EQ(pipeline_schedule_error(4, 3, 8), "");  // 2 rounds of 4
  EXPECT_EQ(pipeline_schedule_error(4, 2, 3), "");  // fewer micro-batches than ranks: 1 round
  EXPECT_GT(built, 0);
  EXPECT_GT(refused, 0);
}

// pp 2 × v 2 model stages on TP 2 × FSDP 2 (ranks (p · 2 + d) · 2 + t), one layer per model stage: the graph's
// tasks counted by hand, activations wrapping from the last pipeline rank to the first (stage 1 on rank group 1
// to stage 2 on rank group 0), each rank's computes in the schedule's order, and all-gathers and reduce-scatters
// per model stage on one stream per rank.
TEST(TorchTitan, VirtualStagesGraph) {
  auto c = tiny(4, 2, 2, 2, 2, 2);
  c.prefetch = false;
  const JobGraph g = build_torchtitan(c);
  EXPECT_EQ(g.ranks, 8);
  std::map<std::string, int> kinds;
  std::map<std::string, const Task*> by_name;
  std::map<int, std::vector<std::string>> computes;
  for (const auto& t : g.tasks) {
    ++kinds[to_string(t.kind)];
    by_name[t.name] = &t;
    if (t.kind == TaskKind::compute) computes[t.rank].push_back(t.name);
  }
  // compute: 4 stages × 2 micro-batches × 4 (d, t) forwards and as many backwards, 8 optimizer steps;
  // transfers: 3 stage boundaries × 2 micro-batches × 4 (d, t) × (activation + gradient);
  // collectives: units (s0: embedding + layer0, s1, s2: a layer, s3: layer3 + output = 6) × 2 t all-gathered and
  // reduce-scattered, TP 4 stages × 2 d × 2 micro-batches × 2 directions, norms per rank group 2 over TP + 2 over
  // FSDP, then 4 over PP; one barrier.
  EXPECT_EQ(kinds["compute"], 32 + 32 + 8);
  EXPECT_EQ(kinds["transfer"], 3 * 2 * 4 * 2);
  EXPECT_EQ(kinds["collective"], 12 + 12 + 32 + 2 * 4 + 4);
  EXPECT_EQ(kinds["barrier"], 1);
  EXPECT_EQ(g.tasks.size(), 72u + 48u + 68u + 1u);
  const auto endpoints = [&](const std::string& name) {
    return std::pair{by_name.at(name)->src, by_name.at(name)->dst};
  };
  EXPECT_EQ(endpoints("s0.d0.t0.act0"), (std::pair{0, 4}));
  EXPECT_EQ(endpoints("s1.d0.t0.act0"), (std::pair{4, 0}));  // the wrap: last pipeline rank to the first
  EXPECT_EQ(endpoints("s2.d1.t1.act1"), (std::pair{3, 7}));
  EXPECT_EQ(endpoints("s2.d0.t0.grad0"), (std::pair{0, 4}));  // stage 2's gradient back to stage 1
  EXPECT_EQ(computes[0], (std::vector<std::string>{"s0.d0.t0.fwd0", "s0.d0.t0.fwd1", "s2.d0.t0.fwd0", "s2.d0.t0.fwd1",
                                                   "s2.d0.t0.bwd0", "s2.d0.t0.bwd1", "s0.d0.t0.bwd0", "s0.d0.t0.bwd1",
                                                   "p0.d0.t0.opt"}));  // a rank's own tasks: p{rank}
  EXPECT_EQ(computes[4], (std::vector<std::string>{"s1.d0.t0.fwd0", "s1.d0.t0.fwd1", "s3.d0.t0.fwd0", "s3.d0.t0.bwd0",
                                                   "s3.d0.t0.fwd1", "s3.d0.t0.bwd1", "s1.d0.t0.bwd0", "s1.d0.t0.bwd1",
                                                   "p1.d0.t0.opt"}));
  const auto deps_of = [&](const std::string& name) {
    std::set<std::string> out;
    for (int d : by_name.at(name)->deps) out.insert(g.tasks[static_cast<std::size_t>(d)].name);
    return out;
  };
  // Stage 2's micro-batch 0 on rank 0: after rank 0's previous op (ended by its TP collective), its activations
  // and its stage's all-gather, which waited for both FSDP ranks' activations and rank 0's earlier all-gathers.
  EXPECT_EQ(deps_of("s2.d0.t0.fwd0"), (std::set<std::string>{"s0.d0.tp.fwd1", "s1.d0.t0.act0", "s2.t0.ag.layer2"}));
  EXPECT_EQ(deps_of("s2.t0.ag.layer2"), (std::set<std::string>{"s1.d0.t0.act0", "s1.d1.t0.act0", "s0.t0.ag.layer0"}));
  // Rank 0 ends stage 2's backwards first: its reduce-scatters first, then stage 0's after them.
  EXPECT_EQ(deps_of("s2.t0.rs.layer2"),
            (std::set<std::string>{"s2.d0.tp.bwd1", "s2.d1.tp.bwd1", "s2.d0.t0.grad1", "s2.d1.t0.grad1"}));
  EXPECT_EQ(deps_of("s0.t0.rs.layer0"), (std::set<std::string>{"s0.d0.tp.bwd1", "s0.d1.tp.bwd1", "s2.t0.rs.layer2"}));
  EXPECT_EQ(deps_of("s0.t0.rs.embedding"), (std::set<std::string>{"s0.t0.rs.layer0"}));
  // The optimizer step of a rank covers both its model stages: rank group 0 holds the embedding, layer 0 and
  // layer 2, per TP rank / FSDP 2.
  const std::int64_t layer = params_per_layer(c.model) / 2, embedding = embedding_params(c.model) / 2;
  EXPECT_EQ(params_per_gpu(c, 0), (embedding + 2 * layer + 1) / 2);
}

// TP collectives: per micro-batch and direction, one all-reduce over the TP group (one scale-up domain) after the
// computes, of 2 · A per block (A = micro_batch · seq · dim · 2 bytes; 2 all-gathers + 2 reduce-scatters of A
// move what an all-reduce of 2 · A does), A / 2 for the embedding's reduce-scatter and the output's all-gather,
// and in backward the recomputed forward's: none 0, selective A (its all-gathers), full 2 · A per block.
TEST(TorchTitan, TensorParallelCollectives) {
  auto c = tiny(4, 2, 2, 2, 2, 2);
  const double a = 1.0 * 8 * 64 * 2;  // 1,024 B
  c.activation_checkpoint = ActivationCheckpoint::none;
  EXPECT_DOUBLE_EQ(tp_collective_bytes(c, 0, false), 2.5 * a);
  EXPECT_DOUBLE_EQ(tp_collective_bytes(c, 1, false), 2 * a);
  EXPECT_DOUBLE_EQ(tp_collective_bytes(c, 3, false), 2.5 * a);
  EXPECT_DOUBLE_EQ(tp_collective_bytes(c, 1, true), 2 * a);
  c.activation_checkpoint = ActivationCheckpoint::selective;
  EXPECT_DOUBLE_EQ(tp_collective_bytes(c, 1, true), 3 * a);
  c.activation_checkpoint = ActivationCheckpoint::full;
  EXPECT_DOUBLE_EQ(tp_collective_bytes(c, 1, true), 4 * a);
  c.recompute = 0.25;
  EXPECT_DOUBLE_EQ(tp_collective_bytes(c, 1, true), 2.5 * a);
  c.tp_collectives = false;
  EXPECT_EQ(tp_collective_bytes(c, 1, true), 0);
  c = tiny(4, 1, 2, 2, 1, 2);
  EXPECT_EQ(tp_collective_bytes(c, 0, false), 0);  // TP 1: none

  // The 8B preset: 2 directions × 2 micro-batches × 2 stages × 2 FSDP ranks = 16, each over one domain's 4 GPUs;
  // stage 0's forward (16 blocks and the embedding) 32.5 · 128 MiB, its backward (selective) 48.5 · 128 MiB.
  const auto b8 = torchtitan_preset("llama3-8b");
  const JobGraph g = build_torchtitan(b8);
  int tp = 0;
  std::map<std::string, const Task*> by_name;
  for (const auto& t : g.tasks) {
    by_name[t.name] = &t;
    if (t.kind == TaskKind::collective && t.name.find(".tp.") != std::string::npos) {
      ++tp;
      ASSERT_EQ(t.group.size(), 4u);
      EXPECT_EQ(t.group.front() / 4, t.group.back() / 4) << t.name;  // one scale-up domain of 4 GPUs
      EXPECT_EQ(t.op, CollectiveOp::all_reduce);
    }
  }
  EXPECT_EQ(tp, 16);
  EXPECT_DOUBLE_EQ(by_name.at("s0.d0.tp.fwd0")->bytes, 32.5 * 128 * kMiB);
  EXPECT_DOUBLE_EQ(by_name.at("s0.d1.tp.bwd1")->bytes, 48.5 * 128 * kMiB);
  EXPECT_DOUBLE_EQ(by_name.at("s1.d0.tp.fwd0")->bytes, 32.5 * 128 * kMiB);  // 16 blocks and the output
  EXPECT_EQ(by_name.at("s1.d0.tp.fwd1")->group, (std::vector<int>{8, 9, 10, 11}));
  // After the four TP ranks' last unit of micro-batch 0's forward; the activations leave after it.
  std::set<std::string> deps;
  for (int d : by_name.at("s0.d0.tp.fwd0")->deps) deps.insert(g.tasks[static_cast<std::size_t>(d)].name);
  EXPECT_EQ(deps, (std::set<std::string>{"s0.d0.t0.fwd0.layer15", "s0.d0.t1.fwd0.layer15", "s0.d0.t2.fwd0.layer15",
                                         "s0.d0.t3.fwd0.layer15"}));
  const Task* act = by_name.at("s0.d0.t2.act0");
  ASSERT_EQ(act->deps.size(), 1u);
  EXPECT_EQ(g.tasks[static_cast<std::size_t>(act->deps[0])].name, "s0.d0.tp.fwd0");
}

// Activation checkpointing by name (TorchTitan's modes, applied per transformer block): none recomputes nothing,
// full the block's forward, selective (op) every second matmul of the block, wk, wo, w3: for Llama-3 8B
// (4096 · 1024 + 4096² + 4096 · 14336) / (218,112,000 + 8192 · 4096) = 79,691,776 / 251,666,432 = 0.3167 of a
// block's forward FLOPs (attention's share is saved). The output projection is not recomputed.
TEST(TorchTitan, ActivationCheckpointModes) {
  auto c = torchtitan_preset("llama3-8b");
  EXPECT_EQ(c.activation_checkpoint, ActivationCheckpoint::selective);  // TorchTitan's llama3_8b.toml
  EXPECT_EQ(torchtitan_preset("llama3.1-405b").activation_checkpoint, ActivationCheckpoint::full);
  const double share = 79'691'776.0 / 251'666'432.0;
  EXPECT_DOUBLE_EQ(selective_recompute_share(c), share);
  EXPECT_NEAR(share, 0.3167, 0.00005);
  const double f0 = forward_flops(c, 0), f1 = forward_flops(c, 1);  // stage 0: 16 blocks; stage 1: 16 and output
  EXPECT_NEAR(backward_flops(c, 0), (2 + share) * f0, 1e-6 * f0);
  EXPECT_NEAR(backward_flops(c, 1), 2 * f1 + share * f0, 1e-6 * f0);
  c.activation_checkpoint = ActivationCheckpoint::none;
  EXPECT_DOUBLE_EQ(backward_flops(c, 1), 2 * f1);
  c.activation_checkpoint = ActivationCheckpoint::full;
  EXPECT_NEAR(backward_flops(c, 1), 2 * f1 + f0, 1e-6 * f0);
  c.recompute = 0.5;  // overrides the mode
  EXPECT_NEAR(backward_flops(c, 1), 2 * f1 + 0.5 * f0, 1e-6 * f0);
  ActivationCheckpoint mode{};
  EXPECT_TRUE(parse_activation_checkpoint("full", mode));
  EXPECT_EQ(mode, ActivationCheckpoint::full);
  EXPECT_FALSE(parse_activation_checkpoint("op", mode));
  // The graph's backward tasks take it: 8B stage 0, selective, at 312 TFLOP/s × 0.45.
  const JobGraph g = build_torchtitan(torchtitan_preset("llama3-8b"));
  for (const auto& t : g.tasks) {
    if (t.name == "s0.d0.t0.bwd0") {
      EXPECT_NEAR(t.duration_s, (2 + share) * f0 / (312e12 * 0.45), 1e-12);
    }
  }
}

// The loss all-reduces of a logging step: after each GPU's optimizer step, per (stage, TP rank) the FSDP pair
// all-reduces the mean, then the max (2 × 2 stages × 4 TP ranks = 16); the barrier follows the 8 max ones.
TEST(TorchTitan, LossAllReduceOnLoggingSteps) {
  auto c = torchtitan_preset("llama3-8b");
  EXPECT_FALSE(c.loss_allreduce);  // log_freq 10: 9 steps in 10 have none
  const auto plain = build_torchtitan(c);
  c.loss_allreduce = true;
  const auto g = build_torchtitan(c);
  EXPECT_EQ(g.tasks.size(), plain.tasks.size() + 16);
  std::map<std::string, const Task*> by_name;
  for (const auto& t : g.tasks) by_name[t.name] = &t;
  const Task* mean = by_name.at("s1.t2.loss.mean");
  EXPECT_EQ(mean->group, (std::vector<int>{10, 14}));
  std::set<std::string> deps;
  for (int d : mean->deps) deps.insert(g.tasks[static_cast<std::size_t>(d)].name);
  EXPECT_EQ(deps, (std::set<std::string>{"s1.d0.t2.opt", "s1.d1.t2.opt"}));
  EXPECT_EQ(g.tasks[static_cast<std::size_t>(by_name.at("s1.t2.loss.max")->deps.at(0))].name, "s1.t2.loss.mean");
  EXPECT_EQ(g.tasks.back().deps.size(), 8u);
}

// Llama 3 405B's interleaved layout: pp 16 × v 8 = 128 model stages over 126 layers, the first the embedding
// alone, the last the output alone (as TorchTitan's split and Llama 3 do); more stages are refused.
TEST(TorchTitan, EmbeddingAndOutputStagesOfTheirOwn) {
  auto c = torchtitan_preset("llama3.1-405b");
  c.virtual_stages = 8;
  const auto layers = layers_per_stage(c);
  ASSERT_EQ(layers.size(), 128u);
  EXPECT_EQ(layers.front(), 0);
  EXPECT_EQ(layers.back(), 0);
  EXPECT_EQ(std::count(layers.begin(), layers.end(), 1), 126);
  EXPECT_EQ(fsdp_units(c, 0).size(), 1u);
  EXPECT_EQ(fsdp_units(c, 127).back().name, "output");
  // The embedding alone: 1 · 8192 · 16384 · 2 B / TP 8 written at 3,350 GB/s.
  EXPECT_DOUBLE_EQ(compute_seconds(c, 0, false), 8192.0 * 16384 * 2 / 8 / 3350e9);
  c = tiny(4, 1, 1, 2, 3, 2);  // 6 stages over 4 layers: fine
  EXPECT_NO_THROW(build_torchtitan(c));
  c.virtual_stages = 4;  // 8 stages over 4 layers
  EXPECT_THROW(build_torchtitan(c), std::invalid_argument);
}
