// The DLRM generator (TOPO-X, Hu et al., Table II) against the sizes and times worked out by hand from the
// layer shapes of FlexNet's DLRMsim and the A100 measurements TopoOpt's runs used.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "systems/topox/dlrm.hpp"
#include "support/graphs.hpp"
#include "graph/job_graph_file.hpp"

using namespace odcn;
using namespace odcn::workload;

namespace {

/// The compute-only critical path in ms: transfers, collectives and barriers take no time.
double compute_path_ms(const JobGraph& g) {
  return 1e3 * critical_path(g, [](const Task& t) { return t.kind == TaskKind::compute ? t.duration_s : 0.0; })
                   .length_s;
}

std::map<TaskKind, int> kinds(const JobGraph& g) {
  std::map<TaskKind, int> n;
  for (const auto& t : g.tasks) ++n[t.kind];
  return n;
}

int index_of(const JobGraph& g, const std::string& name) {
  for (std::size_t i = 0; i < g.tasks.size(); ++i)
    if (g.tasks[i].name == name) return static_cast<int>(i);
  ADD_FAILURE() << "no task " << name;
  return -1;
}

/// 4 servers, 2 tables (on servers 0 and 1), 2 bottom and 3 top layers: small enough to count by hand.
DlrmConfig small() {
  auto c = dlrm_preset("table2-2");
  c.name = "small";
  c.servers = 4;
  c.tables = 2;
  c.bottom_layers = 2;
  c.top_layers = 3;
  return c;
}

}  // namespace

TEST(Dlrm, PresetsAreTableTwo) {
  const auto c1 = dlrm_preset("table2-1");
  EXPECT_EQ(c1.servers, 128);
  EXPECT_EQ(c1.tables, 64);
  EXPECT_EQ(c1.embedding_dim, 128);
  EXPECT_EQ(dlrm_batch_per_server(c1), 512);       // 128 per GPU × 4
  EXPECT_EQ(dlrm_batch_per_server(c1) * c1.servers, 65'536);  // Table II's global batch
  EXPECT_EQ(dlrm_concat_width(c1), 10'240);        // 2048 + 64 · 128
  const auto c2 = dlrm_preset("table2-2");
  EXPECT_EQ(c2.servers, 16);
  EXPECT_EQ(c2.tables, 16);
  EXPECT_EQ(dlrm_batch_per_server(c2) * c2.servers, 16'384);  // 256 · 4 · 16
  EXPECT_EQ(dlrm_concat_width(c2), 5'120);         // 1024 + 16 · 256
  EXPECT_EQ(dlrm_presets(), (std::vector<std::string>{"table2-1", "table2-2"}));
}

TEST(Dlrm, ParameterCountsFromTheLayerShapes) {
  const auto c1 = dlrm_preset("table2-1");
  // Bottom: 7 × (2048 · 2048 + 2048) = 7 × 4,196,352.
  EXPECT_EQ(dlrm_bottom_params(c1), 29'374'464);
  // Top: (10240 · 4096 + 4096) + 14 × (4096 · 4096 + 4096) + (4096 · 1 + 1)
  //    = 41,947,136 + 14 × 16,781,312 + 4,097 = 41,947,136 + 234,938,368 + 4,097.
  EXPECT_EQ(dlrm_top_params(c1), 276'889'601);
  EXPECT_EQ(dlrm_dense_params(c1), 306'264'065);  // 29,374,464 + 276,889,601
  EXPECT_EQ(dlrm_embedding_params(c1), 81'920'000'000);  // 64 · 10,000,000 · 128
  const auto c2 = dlrm_preset("table2-2");
  // Bottom: 7 × (1024 · 1024 + 1024) = 7 × 1,049,600.
  EXPECT_EQ(dlrm_bottom_params(c2), 7'347'200);
  // Top: (5120 · 2048 + 2048) + 14 × (2048 · 2048 + 2048) + (2048 + 1)
  //    = 10,487,808 + 14 × 4,196,352 + 2,049 = 10,487,808 + 58,748,928 + 2,049.
  EXPECT_EQ(dlrm_top_params(c2), 69'238'785);
  EXPECT_EQ(dlrm_dense_params(c2), 76'585'985);
  EXPECT_EQ(dlrm_embedding_params(c2), 40'960'000'000);  // 16 · 10,000,000 · 256

  const auto layers = dlrm_dense_layers(c1);
  ASSERT_EQ(layers.size(), 23u);  // 7 bottom + 16 top
  EXPECT_EQ(layers[0].name, "bot1");
  EXPECT_EQ(layers[7].name, "top1");
  EXPECT_EQ(layers[7].in, 10'240);
  EXPECT_EQ(layers[22].out, 1);
  // The all-reduce of a layer is its weight and bias in FP32 (FlexNet's two tensors together).
  EXPECT_DOUBLE_EQ(dlrm_allreduce_bytes(c1, layers[0]), 16'777'216.0 + 8'192.0);
  EXPECT_DOUBLE_EQ(dlrm_allreduce_bytes(c1, layers[7]), 167'772'160.0 + 16'384.0);
  EXPECT_DOUBLE_EQ(dlrm_allreduce_bytes(c1, layers[8]), 67'108'864.0 + 16'384.0);
  EXPECT_DOUBLE_EQ(dlrm_allreduce_bytes(c1, layers[22]), 16'384.0 + 4.0);
  double total = 0;
  for (const auto& l : layers) total += dlrm_allreduce_bytes(c1, l);
  EXPECT_DOUBLE_EQ(total, 306'264'065.0 * 4);  // 1,225.1 MB
  const auto l2 = dlrm_dense_layers(c2);
  EXPECT_DOUBLE_EQ(dlrm_allreduce_bytes(c2, l2[7]), 41'943'040.0 + 8'192.0);
  EXPECT_DOUBLE_EQ(dlrm_allreduce_bytes(c2, l2[22]), 8'192.0 + 4.0);
}

TEST(Dlrm, AllToAllBytes) {
  const auto c1 = dlrm_preset("table2-1");
  EXPECT_DOUBLE_EQ(dlrm_pooled_bytes(c1), 262'144.0);      // 512 samples · 128 · 4 B
  EXPECT_DOUBLE_EQ(dlrm_alltoall_bytes(c1), 64.0 * 127 * 262'144);
  EXPECT_DOUBLE_EQ(dlrm_alltoall_bytes(c1), 2'130'706'432.0);  // 2.131 GB per direction
  const auto c2 = dlrm_preset("table2-2");
  EXPECT_DOUBLE_EQ(dlrm_pooled_bytes(c2), 1'048'576.0);    // 1024 samples · 256 · 4 B
  EXPECT_DOUBLE_EQ(dlrm_alltoall_bytes(c2), 251'658'240.0);  // 16 · 15 · 1 MiB = 0.2517 GB
  EXPECT_EQ(dlrm_table_owner(c1, 0), 0);
  EXPECT_EQ(dlrm_table_owner(c1, 63), 63);
  auto c = c2;
  c.servers = 5;
  EXPECT_EQ(dlrm_table_owner(c, 12), 2);  // 12 mod 5

  // The graph's transfers carry exactly these bytes, in each direction.
  const auto g = build_dlrm(c1);
  double fwd = 0, bwd = 0;
  for (const auto& t : g.tasks)
    if (t.kind == TaskKind::transfer) {
      EXPECT_DOUBLE_EQ(t.bytes, 262'144.0);
      (t.name.rfind("a2a.fwd.", 0) == 0 ? fwd : bwd) += t.bytes;
    }
  EXPECT_DOUBLE_EQ(fwd, 2'130'706'432.0);
  EXPECT_DOUBLE_EQ(bwd, 2'130'706'432.0);
}

TEST(Dlrm, TaskCountsOfASmallConfigByHand) {
  auto c = small();
  const auto g = build_dlrm(c);
  EXPECT_EQ(g.ranks, 4);
  // compute: forward and backward of 2 bottom and 3 top layers on 4 servers (2 · 4 · 5 = 40), a concat forward
  // and backward per server (8), an embedding forward and backward per table (4): 52.
  // transfers: each of 2 tables to and from the 3 other servers: 2 · 2 · 3 = 12.
  // collectives: one all-reduce per dense layer: 5. One barrier. 70 in all.
  auto n = kinds(g);
  EXPECT_EQ(n[TaskKind::compute], 52);
  EXPECT_EQ(n[TaskKind::transfer], 12);
  EXPECT_EQ(n[TaskKind::collective], 5);
  EXPECT_EQ(n[TaskKind::barrier], 1);
  EXPECT_EQ(g.tasks.size(), 70u);
  // With an update time, one update per server: 4 more compute tasks.
  c.update_ms = 0.5;
  const auto u = build_dlrm(c);
  EXPECT_EQ(kinds(u)[TaskKind::compute], 56);
  EXPECT_EQ(u.tasks.size(), 74u);
  for (int s = 0; s < 4; ++s) {
    const auto& t = u.tasks[static_cast<std::size_t>(index_of(u, "update@s" + std::to_string(s)))];
    EXPECT_EQ(t.rank, s);
    EXPECT_EQ(t.deps.size(), 5u);  // every all-reduce
  }
}

TEST(Dlrm, TaskCountsOfThePresets) {
  // table2-1: compute 2 · 128 · 23 + 2 · 128 + 2 · 64 = 5,888 + 256 + 128 = 6,272; transfers 2 · 64 · 127 = 16,256;
  // 23 all-reduces; 1 barrier: 22,552.
  const auto g1 = build_dlrm(dlrm_preset("table2-1"));
  auto n1 = kinds(g1);
  EXPECT_EQ(n1[TaskKind::compute], 6'272);
  EXPECT_EQ(n1[TaskKind::transfer], 16'256);
  EXPECT_EQ(n1[TaskKind::collective], 23);
  EXPECT_EQ(n1[TaskKind::barrier], 1);
  EXPECT_EQ(g1.tasks.size(), 22'552u);
  // table2-2: compute 2 · 16 · 23 + 2 · 16 + 2 · 16 = 736 + 64 = 800; transfers 2 · 16 · 15 = 480: 1,304.
  const auto g2 = build_dlrm(dlrm_preset("table2-2"));
  auto n2 = kinds(g2);
  EXPECT_EQ(n2[TaskKind::compute], 800);
  EXPECT_EQ(n2[TaskKind::transfer], 480);
  EXPECT_EQ(n2[TaskKind::collective], 23);
  EXPECT_EQ(n2[TaskKind::barrier], 1);
  EXPECT_EQ(g2.tasks.size(), 1'304u);
}

TEST(Dlrm, DependenciesFollowTheHybridStrategy) {
  const auto c = small();
  const auto g = build_dlrm(c);
  EXPECT_NO_THROW(validate(g, "small", ""));
  EXPECT_EQ(topological_order(g).size(), g.tasks.size());
  const auto& T = g.tasks;
  auto at = [&](const std::string& name) -> const Task& { return T[static_cast<std::size_t>(index_of(g, name))]; };
  auto names = [&](const Task& t) {
    std::set<std::string> s;
    for (int d : t.deps) s.insert(T[static_cast<std::size_t>(d)].name);
    return s;
  };
  for (const auto& t : T) {
    if (t.kind != TaskKind::transfer) continue;
    ASSERT_EQ(t.deps.size(), 1u);
    const auto& dep = T[static_cast<std::size_t>(t.deps[0])];
    if (t.name.rfind("a2a.fwd.", 0) == 0) {
      // Forward: from the table's owner, after its lookup.
      EXPECT_EQ(dep.name.rfind("emb.fwd.t", 0), 0u) << t.name;
      EXPECT_EQ(t.src, dep.rank) << t.name;
      EXPECT_EQ(t.src, dlrm_table_owner(c, std::stoi(dep.name.substr(9))));
    } else {
      // Backward: to the owner, after the sender's concat backward.
      EXPECT_EQ(dep.name, "bwd.cat@s" + std::to_string(t.src)) << t.name;
      EXPECT_EQ(t.dst, dlrm_table_owner(c, std::stoi(t.name.substr(t.name.find("->t") + 3))));
    }
    EXPECT_NE(t.src, t.dst);
  }
  // The concat of server 2 (owns no table) waits for its bottom MLP and both tables' flows; that of server 1
  // (owns table 1) for table 0's flow and its own lookup.
  EXPECT_EQ(names(at("fwd.cat@s2")), (std::set<std::string>{"fwd.bot2@s2", "a2a.fwd.t0->s2", "a2a.fwd.t1->s2"}));
  EXPECT_EQ(names(at("fwd.cat@s1")), (std::set<std::string>{"fwd.bot2@s1", "a2a.fwd.t0->s1", "emb.fwd.t1"}));
  EXPECT_EQ(names(at("fwd.top1@s1")), (std::set<std::string>{"fwd.cat@s1"}));
  EXPECT_EQ(names(at("bwd.top3@s1")), (std::set<std::string>{"fwd.top3@s1"}));
  EXPECT_EQ(names(at("bwd.cat@s1")), (std::set<std::string>{"bwd.top1@s1"}));
  EXPECT_EQ(names(at("bwd.bot2@s1")), (std::set<std::string>{"bwd.cat@s1"}));
  EXPECT_EQ(names(at("bwd.bot1@s1")), (std::set<std::string>{"bwd.bot2@s1"}));
  // The embedding backward of table 1 (on server 1): the three inbound gradients and its own concat backward.
  EXPECT_EQ(names(at("emb.bwd.t1")),
            (std::set<std::string>{"bwd.cat@s1", "a2a.bwd.s0->t1", "a2a.bwd.s2->t1", "a2a.bwd.s3->t1"}));
  EXPECT_EQ(at("emb.bwd.t1").rank, 1);
  // Each all-reduce: the whole job in rank order, after that layer's backward on every server.
  const auto& ar = at("allreduce.top2");
  EXPECT_EQ(ar.op, CollectiveOp::all_reduce);
  EXPECT_EQ(ar.algorithm, CollectiveAlgorithm::ring);
  EXPECT_EQ(ar.group, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(names(ar), (std::set<std::string>{"bwd.top2@s0", "bwd.top2@s1", "bwd.top2@s2", "bwd.top2@s3"}));
  EXPECT_DOUBLE_EQ(ar.bytes, (2048.0 * 2048 + 2048) * 4);
  EXPECT_DOUBLE_EQ(at("allreduce.top1").bytes, (1536.0 * 2048 + 2048) * 4);  // concat width 1024 + 2 · 256
  // The barrier is last and waits for every all-reduce (no update time) and every embedding backward.
  const auto& end = T.back();
  EXPECT_EQ(end.kind, TaskKind::barrier);
  EXPECT_EQ(names(end), (std::set<std::string>{"allreduce.bot1", "allreduce.bot2", "allreduce.top1", "allreduce.top2",
                                               "allreduce.top3", "emb.bwd.t0", "emb.bwd.t1"}));
  // Every task leads to the barrier: nothing of the iteration is left dangling.
  std::vector<char> used(T.size(), 0);
  for (const auto& t : T)
    for (int d : t.deps) used[static_cast<std::size_t>(d)] = 1;
  for (std::size_t i = 0; i + 1 < T.size(); ++i) EXPECT_TRUE(used[i]) << T[i].name;
}

TEST(Dlrm, ComputeCriticalPathIsTheEmbeddingAndTopChain) {
  // table2-1: emb fw 4.3086 + concat 0.2262 + top fw (0.6147 + 14 · 0.2698 + 0.0152 = 4.4071)
  //         + top bw (1.2109 + 14 · 0.5215 + 0.0404 = 8.5523) + concat bw 0.2264 + emb bw 8.6172 = 26.3378 ms.
  // (The bottom MLP, 7 · 0.1935 = 1.3545 ms forward and 7 · 0.2963 = 2.0741 ms backward, is off the path.)
  const auto g1 = build_dlrm(dlrm_preset("table2-1"));
  EXPECT_NEAR(compute_path_ms(g1), 4.3086 + 0.2262 + 4.4071 + 8.5523 + 0.2264 + 8.6172, 1e-9);
  EXPECT_NEAR(compute_path_ms(g1), 26.3378, 1e-9);
  // table2-2: 1.6130 + 0.0548 + (0.3261 + 14 · 0.1508 + 0.0137 = 2.4510) + (0.6193 + 14 · 0.2814 + 0.0433
  //         = 4.6022) + 0.0553 + 3.2260 = 12.0023 ms.
  const auto g2 = build_dlrm(dlrm_preset("table2-2"));
  EXPECT_NEAR(compute_path_ms(g2), 12.0023, 1e-9);
  // The path runs through a table's lookup, a concat and the top MLP of one server.
  const auto path = critical_path(g2, [](const Task& t) { return t.kind == TaskKind::compute ? t.duration_s : 0.0; });
  ASSERT_FALSE(path.tasks.empty());
  std::set<std::string> on_path;
  for (int i : path.tasks) on_path.insert(g2.tasks[static_cast<std::size_t>(i)].name.substr(0, 7));
  EXPECT_TRUE(on_path.count("emb.fwd"));
  EXPECT_TRUE(on_path.count("emb.bwd"));
  EXPECT_TRUE(on_path.count("fwd.top"));
  // Times stay per server when servers change (they were measured at the preset's N), so the path does too.
  auto c = dlrm_preset("table2-2");
  c.servers = 8;
  EXPECT_NEAR(compute_path_ms(build_dlrm(c)), 12.0023, 1e-9);
}

TEST(Dlrm, RoundTripsThroughAJobGraphFile) {
  auto c = small();
  c.update_ms = 0.25;
  c.iterations = 3;
  const auto g = build_dlrm(c);
  const auto back = parse_job_graph(job_graph_json(g), "dlrm.json");
  EXPECT_EQ(back.iterations, 3);
  test::expect_same_graph(g, back);
  // The large preset too: its text is read back to the same number of tasks and the same critical path.
  const auto g1 = build_dlrm(dlrm_preset("table2-1"));
  const auto back1 = parse_job_graph(job_graph_json(g1), "dlrm128.json");
  EXPECT_EQ(back1.tasks.size(), g1.tasks.size());
  EXPECT_NEAR(compute_path_ms(back1), 26.3378, 1e-9);
}

TEST(Dlrm, RefusesUnknownPresetsAndBadValues) {
  EXPECT_THROW(dlrm_preset("table2-3"), std::invalid_argument);
  auto refuses = [](const std::function<void(DlrmConfig&)>& change, const std::string& key) {
    auto c = dlrm_preset("table2-2");
    change(c);
    try {
      build_dlrm(c);
      ADD_FAILURE() << key << " was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
    }
  };
  refuses([](DlrmConfig& c) { c.servers = 1; }, "servers");
  refuses([](DlrmConfig& c) { c.tables = 0; }, "tables");
  refuses([](DlrmConfig& c) { c.top_layers = 1; }, "top_layers");
  refuses([](DlrmConfig& c) { c.bottom_layers = 0; }, "bottom_layers");
  refuses([](DlrmConfig& c) { c.embedding_dim = -4; }, "embedding_dim");
  refuses([](DlrmConfig& c) { c.batch_per_gpu = 0; }, "batch_per_gpu");
  refuses([](DlrmConfig& c) { c.bytes_per_value = 0; }, "bytes_per_value");
  refuses([](DlrmConfig& c) { c.iterations = 0; }, "iterations");
  refuses([](DlrmConfig& c) { c.embedding_fwd_ms = -1; }, "embedding_fwd_ms");
  refuses([](DlrmConfig& c) { c.top_middle_bwd_ms = 0; }, "top_middle_bwd_ms");
  refuses([](DlrmConfig& c) { c.concat_fwd_ms = std::nan(""); }, "concat_fwd_ms");
  refuses([](DlrmConfig& c) { c.update_ms = -0.1; }, "update_ms");
  refuses([](DlrmConfig& c) { c.table_rows = 1'000'000'000'000; c.tables = 10'000; }, "table_rows");
  // Too many tasks for a job-graph file that run can read: 10,000 tables on 1,000 servers.
  refuses([](DlrmConfig& c) { c.servers = 1'000; c.tables = 10'000; }, "tasks");
}
