// DLRM strategies in FlexNet's measured space (systems/topox/dlrm_strategy.hpp) and their search
// (dlrm_search.hpp): the hybrid strategy against the hand-built generator, re-sharding bytes worked out by hand,
// and the search against exhaustive enumeration on a small model.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "systems/topox/dlrm_search.hpp"
#include "systems/topox/dlrm_strategy.hpp"
#include "systems/topox/topox.hpp"

using namespace odcn;
using namespace odcn::workload;

namespace {

spec::FlatOcsSpec fabric(int servers, int ports, double gbps) {
  spec::FlatOcsSpec f;
  f.servers = servers;
  f.nic_ports = ports;
  f.ocs_count = ports;
  f.ocs_ports = servers;
  f.port_bytes_per_s = gbps * 1e9 / 8;
  f.slot_s = 1e-3;
  return f;
}

/// Transfers as (src, dst, bytes), sorted.
std::vector<std::tuple<int, int, Bytes>> transfers(const JobGraph& g) {
  std::vector<std::tuple<int, int, Bytes>> out;
  for (const auto& t : g.tasks)
    if (t.kind == TaskKind::transfer) out.emplace_back(t.src, t.dst, t.bytes);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::pair<std::vector<int>, Bytes>> rings(const JobGraph& g) {
  std::vector<std::pair<std::vector<int>, Bytes>> out;
  for (const auto& t : g.tasks)
    if (t.kind == TaskKind::collective) out.emplace_back(t.group, t.bytes);
  std::sort(out.begin(), out.end());
  return out;
}

std::map<int, double> compute_ms_per_rank(const JobGraph& g) {
  std::map<int, double> out;
  for (const auto& t : g.tasks)
    if (t.kind == TaskKind::compute) out[t.rank] += 1e3 * t.duration_s;
  return out;
}

double compute_path_ms(const JobGraph& g) {
  return 1e3 * critical_path(g, [](const Task& t) { return t.kind == TaskKind::compute ? t.duration_s : 0.0; })
                   .length_s;
}

const Task& task_named(const JobGraph& g, const std::string& name) {
  for (const auto& t : g.tasks)
    if (t.name == name) return t;
  throw std::runtime_error("no task " + name);
}

Seconds bound_of(const spec::FlatOcsSpec& f, const JobGraph& g) {
  std::vector<int> servers;
  for (int i = 0; i < g.ranks; ++i) servers.push_back(i);
  return sched::topox_lower_bound(f, sched::flow_graph(g, servers, sched::topox_ring_paths(f.nic_ports), "", ""), 0);
}

}  // namespace

TEST(DlrmStrategy, HybridStrategyIsTheHandBuiltGraphForBothConfigurations) {
  // The presets round FlexNet's times to four decimals (docs/dlrm.md); with the measured times at k = N set into
  // the configuration, the two builders must agree exactly.
  for (const std::string preset : {"table2-2", "table2-1"}) {
    DlrmConfig c = dlrm_preset(preset);
    const DlrmMeasurements m = dlrm_measurements(preset);
    const auto at_n = [&](const std::vector<DlrmOpTimes>& kind, double& fwd, double& bwd) {
      fwd = dlrm_times_at(kind, c.servers).fwd_ms;
      bwd = dlrm_times_at(kind, c.servers).bwd_ms;
    };
    at_n(m.bottom, c.bottom_fwd_ms, c.bottom_bwd_ms);
    at_n(m.concat, c.concat_fwd_ms, c.concat_bwd_ms);
    at_n(m.top_first, c.top_first_fwd_ms, c.top_first_bwd_ms);
    at_n(m.top_middle, c.top_middle_fwd_ms, c.top_middle_bwd_ms);
    at_n(m.top_last, c.top_last_fwd_ms, c.top_last_bwd_ms);
    c.embedding_fwd_ms = m.embedding.fwd_ms;
    c.embedding_bwd_ms = m.embedding.bwd_ms;
    const JobGraph hand = build_dlrm(c);
    const JobGraph general = build_dlrm(c, dlrm_hybrid_strategy(c), m);
    EXPECT_EQ(transfers(general), transfers(hand)) << preset;
    EXPECT_EQ(rings(general), rings(hand)) << preset;
    const auto a = compute_ms_per_rank(general), b = compute_ms_per_rank(hand);
    ASSERT_EQ(a.size(), b.size());
    for (const auto& [rank, ms] : b) EXPECT_NEAR(a.at(rank), ms, 1e-9) << preset << " rank " << rank;
    EXPECT_NEAR(compute_path_ms(general), compute_path_ms(hand), 1e-9) << preset;
    if (preset == "table2-2") {
      EXPECT_NEAR(bound_of(fabric(16, 4, 10), general), bound_of(fabric(16, 4, 10), hand), 1e-12);
    }
  }
}

TEST(DlrmStrategy, TopLayersOnOneServerGatherTheConcatAndDropTheirRings) {
  // table2-2, every top layer at k = 1 on server 3: the concat's 16 parts (1,024 samples of 5,120 values each)
  // go to server 3, 15 of them over the network; the gradient comes back the same way; the top layers' 16 rings
  // disappear; server 3 computes them on the whole batch (measures/dlrm16.json at "2-1-1").
  const DlrmConfig c = dlrm_preset("table2-2");
  const DlrmMeasurements m = dlrm_measurements("table2-2");
  DlrmStrategy s = dlrm_hybrid_strategy(c);
  for (int l = c.bottom_layers; l < c.bottom_layers + c.top_layers; ++l) s.dense[static_cast<std::size_t>(l)] = {1, 3};
  const JobGraph g = build_dlrm(c, s, m);
  const Bytes part = 1024LL * 5120 * 4;
  int to3 = 0, from3 = 0;
  for (const auto& t : g.tasks) {
    if (t.kind != TaskKind::transfer || t.name.find("top1") == std::string::npos) continue;
    EXPECT_EQ(t.bytes, part) << t.name;
    to3 += t.dst == 3;
    from3 += t.src == 3;
  }
  EXPECT_EQ(to3, 15);
  EXPECT_EQ(from3, 15);
  EXPECT_EQ(rings(g).size(), 7u);  // the bottom MLP's only
  EXPECT_DOUBLE_EQ(task_named(g, "fwd.top1@s3").duration_s, 4.72648e-3);
  EXPECT_DOUBLE_EQ(task_named(g, "bwd.top16@s3").duration_s, 0.102093e-3);
  EXPECT_DOUBLE_EQ(task_named(g, "fwd.top2@s3").duration_s, 1.97663e-3);
}

TEST(DlrmStrategy, StridedGroupsReshardByOverlap) {
  // The bottom MLP at k = 4 from server 1: servers 1, 5, 9, 13, each on 4,096 samples. Concat part j (server j,
  // 1,024 samples) needs bot7's part j / 4, on server 1 + 4 (j / 4): 12 of 16 parts are remote, each 1,024 x
  // 1,024 x 4 B, and the gradient goes back the same way. The ring of each bottom layer is its group of 4.
  const DlrmConfig c = dlrm_preset("table2-2");
  DlrmStrategy s = dlrm_hybrid_strategy(c);
  for (int l = 0; l < c.bottom_layers; ++l) s.dense[static_cast<std::size_t>(l)] = {4, 1};
  const JobGraph g = build_dlrm(c, s, dlrm_measurements("table2-2"));
  EXPECT_EQ(dlrm_group(16, {4, 1}), (std::vector<int>{1, 5, 9, 13}));
  std::vector<std::tuple<int, int, Bytes>> want;
  for (int j = 0; j < 16; ++j) {
    const int src = 1 + 4 * (j / 4);
    if (src == j) continue;
    want.emplace_back(src, j, 1024LL * 1024 * 4);  // activations, forward
    want.emplace_back(j, src, 1024LL * 1024 * 4);  // their gradient
  }
  std::sort(want.begin(), want.end());
  std::vector<std::tuple<int, int, Bytes>> got;
  for (const auto& t : g.tasks)
    if (t.kind == TaskKind::transfer && t.name.find("bot7") != std::string::npos) got.emplace_back(t.src, t.dst, t.bytes);
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, want);
  for (const auto& [group, bytes] : rings(g))
    if (bytes == (1024LL * 1024 + 1024) * 4) {
      EXPECT_EQ(group, (std::vector<int>{1, 5, 9, 13}));
    }
  EXPECT_DOUBLE_EQ(task_named(g, "fwd.bot1@s5").duration_s, 0.281293e-3);  // "2-1-4"
}

TEST(DlrmStrategy, TablesOnOneServerSendEveryConcatPartItsSamples) {
  const DlrmConfig c = dlrm_preset("table2-2");
  DlrmStrategy s = dlrm_hybrid_strategy(c);
  std::fill(s.table_server.begin(), s.table_server.end(), 5);
  const JobGraph g = build_dlrm(c, s, dlrm_measurements("table2-2"));
  int out_of_5 = 0, into_5 = 0;
  for (const auto& t : g.tasks) {
    if (t.kind != TaskKind::transfer || t.name.find("emb.t") == std::string::npos) continue;
    EXPECT_EQ(t.bytes, 1024LL * 256 * 4) << t.name;
    out_of_5 += t.src == 5;
    into_5 += t.dst == 5;
  }
  EXPECT_EQ(out_of_5, 16 * 15);
  EXPECT_EQ(into_5, 16 * 15);
  // One server looks its 16 tables up one after another, forward and backward (measures/dlrm16.json: 1.613 and
  // 3.226 ms each); between them the concat and the top MLP at k = 16.
  const double top_fwd = 0.054784 + 0.326144 + 14 * 0.150835 + 0.0137216;
  const double top_bwd = 0.0433152 + 14 * 0.281395 + 0.619315 + 0.055296;
  EXPECT_NEAR(1e3 * critical_path(g, [](const Task& t) { return t.kind == TaskKind::compute ? t.duration_s : 0.0; })
                        .length_s,
              16 * (1.613 + 3.226) + top_fwd + top_bwd, 1e-9);
}

TEST(DlrmStrategy, PlacementsOutsideTheMeasuredSpaceAreRefused) {
  const DlrmConfig c = dlrm_preset("table2-2");
  const DlrmMeasurements m = dlrm_measurements("table2-2");
  auto refused = [&](DlrmStrategy s) { EXPECT_THROW(check_dlrm_strategy(c, s, m), std::invalid_argument); };
  DlrmStrategy s = dlrm_hybrid_strategy(c);
  s.dense[0] = {3, 0};  // not measured, does not divide 16
  refused(s);
  s = dlrm_hybrid_strategy(c);
  s.dense[2] = {4, 4};  // first must be below 16 / 4
  refused(s);
  s = dlrm_hybrid_strategy(c);
  s.concat = {32, 0};
  refused(s);
  s = dlrm_hybrid_strategy(c);
  s.table_server[0] = 16;
  refused(s);
  s = dlrm_hybrid_strategy(c);
  s.dense.pop_back();
  refused(s);
  EXPECT_THROW(dlrm_measurements("table2-3"), std::invalid_argument);
}

namespace {

/// A model small enough to enumerate: 4 servers, one bottom layer, three top layers, one table (at k = 1, 2, 4
/// an operator has 4 + 2 + 1 = 7 placements, a table 4 servers: 7^5 x 4 = 67,228 strategies), on 64 samples
/// per server, so that activations are cheap beside the rings and the hybrid strategy is not optimal.
DlrmConfig small_model() {
  DlrmConfig c = dlrm_preset("table2-2");
  c.servers = 4;
  c.batch_per_gpu = 16;
  c.bottom_layers = 1;
  c.top_layers = 3;
  c.tables = 1;
  return c;
}

std::vector<DlrmPlacement> placements(int servers) {
  std::vector<DlrmPlacement> out;
  for (int k : {1, 2, 4})
    for (int first = 0; first < servers / k; ++first) out.push_back({k, first});
  return out;
}

}  // namespace

TEST(DlrmSearch, BothSearchesFindTheExhaustiveOptimumOfASmallModel) {
  const DlrmConfig c = small_model();
  const DlrmMeasurements m = dlrm_measurements("table2-2");
  const spec::FlatOcsSpec f = fabric(4, 2, 10);
  const auto cost = [&](const DlrmStrategy& s) { return sched::dlrm_strategy_bound(f, c, m, s); };
  Seconds optimum = 1e9;
  DlrmStrategy s = dlrm_hybrid_strategy(c);
  const auto all = placements(4);
  for (const auto& a : all)
    for (const auto& b : all)
      for (const auto& d : all)
        for (const auto& e : all)
          for (const auto& h : all)
            for (int server = 0; server < 4; ++server) {
              s.dense = {a, d, e, h};
              s.concat = b;
              s.table_server = {server};
              optimum = std::min(optimum, cost(s));
            }
  const Seconds hybrid = cost(dlrm_hybrid_strategy(c));
  ASSERT_LT(optimum, hybrid);  // the instance has something to find
  const auto anneal = sched::dlrm_anneal_options(3000);
  const auto r = sched::search_dlrm_strategy(c, m, dlrm_hybrid_strategy(c), cost, anneal);
  EXPECT_NEAR(r.best_cost_s, optimum, 1e-12);
  EXPECT_NEAR(cost(r.best), r.best_cost_s, 1e-12);
  sched::DlrmSearchOptions flexnet;
  flexnet.budget = 3000;
  const auto q = sched::search_dlrm_strategy(c, m, dlrm_hybrid_strategy(c), cost, flexnet);
  EXPECT_NEAR(q.best_cost_s, optimum, 1e-12);
}

TEST(DlrmSearch, SameSeedSameStrategy) {
  const DlrmConfig c = dlrm_preset("table2-2");
  const DlrmMeasurements m = dlrm_measurements("table2-2");
  const spec::FlatOcsSpec f = fabric(16, 4, 10);
  const auto cost = [&](const DlrmStrategy& s) { return sched::dlrm_strategy_bound(f, c, m, s); };
  auto o = sched::dlrm_anneal_options(150);
  o.finalists = 5;
  const auto a = sched::search_dlrm_strategy(c, m, dlrm_hybrid_strategy(c), cost, o);
  const auto b = sched::search_dlrm_strategy(c, m, dlrm_hybrid_strategy(c), cost, o);
  EXPECT_TRUE(a.best == b.best);
  EXPECT_EQ(a.best_cost_s, b.best_cost_s);
  EXPECT_EQ(a.evaluations, b.evaluations);
  EXPECT_LE(a.best_cost_s, a.start_cost_s);
  // The finalists: the 5 cheapest distinct strategies, cheapest first, each at its own cost.
  ASSERT_EQ(a.finalists.size(), 5u);
  EXPECT_EQ(a.finalists.front().first, a.best_cost_s);
  for (std::size_t i = 0; i < a.finalists.size(); ++i) {
    EXPECT_EQ(a.finalists[i].first, cost(a.finalists[i].second));
    if (i > 0) {
      EXPECT_LE(a.finalists[i - 1].first, a.finalists[i].first);
    }
    for (std::size_t j = 0; j < i; ++j) EXPECT_FALSE(a.finalists[i].second == a.finalists[j].second);
  }
}

TEST(DlrmSearch, TheBoundHoldsForTheTopoxPlanOfAReshardedStrategy) {
  // Row 5 of Table III (16 servers, 4 ports of 10 Gb/s). The bottom MLP, the concat and top1-top8 at k = 8 on the
  // even servers, top9-top16 at k = 8 on the odd ones: each server joins half the rings, and the activations
  // cross between the two groups. Its bound is below the hybrid strategy's, and TOPO-X's planner never plans
  // below it.
  const DlrmConfig c = dlrm_preset("table2-2");
  const DlrmMeasurements m = dlrm_measurements("table2-2");
  const spec::FlatOcsSpec f = fabric(16, 4, 10);
  DlrmStrategy s = dlrm_hybrid_strategy(c);
  for (int l = 0; l < c.bottom_layers + c.top_layers; ++l)
    s.dense[static_cast<std::size_t>(l)] = {8, l < c.bottom_layers + 8 ? 0 : 1};
  s.concat = {8, 0};
  const Seconds bound = sched::dlrm_strategy_bound(f, c, m, s);
  EXPECT_LT(bound, sched::dlrm_strategy_bound(f, c, m, dlrm_hybrid_strategy(c)));
  const JobGraph g = build_dlrm(c, s, m);
  std::vector<int> servers;
  for (int i = 0; i < 16; ++i) servers.push_back(i);
  const auto flows = sched::flow_graph(g, servers, sched::topox_ring_paths(4), "", "");
  sched::TopoxOptions to;
  to.mip = "never";
  to.aligned = false;
  const auto plan = sched::plan_topox(f, flows, to);
  EXPECT_GE(plan.makespan_s, bound - 1e-9);
  EXPECT_EQ(sched::plan_violation(f, flows, plan), "");
}
