// The exact one-slot model of INC-AOI (Xie, Tang, Chen, Zhu, "Accelerating DML Training in OCS-based DCNs",
// §II.B; the ILP is ours, the paper gives none): hand-computed cases, the ILP against an independent brute force,
// and the heuristics' first-slot decisions scored against the ILP's optimum.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <random>

#include "net/fabric.hpp"
#include "net/network.hpp"
#include "spec/platform_spec.hpp"
#include "systems/inc_aoi/inc_aoi.hpp"
#include "systems/inc_aoi/inc_ilp.hpp"
#include "support/fabrics.hpp"
#include "systems/inc_aoi/ps_jobs.hpp"

using namespace odcn;
using namespace odcn::sched::inc_ilp;

namespace {

constexpr double GB = 1e9;

/// B = b = 5 GB/s, δ = 0.05 s, slot 1 s.
SlotProblem base(int racks, int ports, int inc_jobs) {
  SlotProblem pb;
  pb.racks = racks;
  pb.ports = ports;
  pb.inc_jobs = inc_jobs;
  pb.circuit_bytes_per_s = 5 * GB;
  pb.server_bytes_per_s = 5 * GB;
  pb.reconfig_delay_s = 0.05;
  pb.slot_s = 1;
  return pb;
}

SlotJob job(std::vector<std::pair<int, int>> per_rack, int root, double s, double compute, int iterations,
            std::vector<int> servers) {
  return {std::move(per_rack), root, s, compute, iterations, std::move(servers)};
}

SlotDecision decision(std::vector<char> start, std::vector<char> inc, std::vector<int> circuits) {
  return {std::move(start), std::move(inc), std::move(circuits)};
}

}  // namespace

TEST(IncIlp, OneJobOverTwoRacksWithAndWithoutInc) {
  // 3 workers: the root rack 0 holds rank 0 (the PS) and rack 1 two; S = 5 GB, compute 0.5 s, 2 iterations.
  auto pb = base(2, 1, 1);
  pb.jobs = {job({{0, 1}, {1, 2}}, 0, 5 * GB, 0.5, 2, {0, 8, 9})};
  // Without INC: the PS's NIC takes 2·S = 10 GB (2 s), the pair 10 GB on one circuit (2 s):
  //   C = δ + 2·(0.5 + 2·2) = 0.05 + 9 = 9.05 s.
  EXPECT_NEAR(evaluate(pb, decision({1}, {0}, {1})).objective, 9.05, 1e-12);
  // With INC: the NIC and the pair carry S each (1 s): C = 0.05 + 2·(0.5 + 2·1) = 5.05 s.
  EXPECT_NEAR(evaluate(pb, decision({1}, {1}, {1})).objective, 5.05, 1e-12);
  // Waiting: slot + 2·(0.5 + 2·1) = 6 s.
  EXPECT_NEAR(evaluate(pb, decision({0}, {0}, {0})).objective, 6.0, 1e-12);
  const auto ilp = solve_ilp(pb);
  ASSERT_TRUE(ilp.optimal);
  EXPECT_NEAR(ilp.objective, 5.05, 1e-9);
  EXPECT_EQ(ilp.decision.start, std::vector<char>{1});
  EXPECT_EQ(ilp.decision.inc, std::vector<char>{1});
  EXPECT_EQ(ilp.decision.circuits, std::vector<int>{1});
  // A circuit lit now: no stall, 5 s.
  pb.circuits = {1};
  EXPECT_NEAR(solve_ilp(pb).objective, 5.0, 1e-9);
  // ToRs without INC: start through the PS (9.05 s) rather than wait (1 + 2·(0.5 + 2·2) = 10 s).
  pb.circuits = {};
  pb.inc_jobs = 0;
  EXPECT_FALSE(evaluate(pb, decision({1}, {1}, {1})).feasible);
  EXPECT_NEAR(solve_ilp(pb).objective, 9.05, 1e-9);
  EXPECT_NEAR(brute_force(pb).objective, 9.05, 1e-9);
}

TEST(IncIlp, APortBudgetOfOneForbidsStartingTwoJobsAtTheirCommonRoot) {
  // Racks 0-1 and 0-2, both rooted at rack 0, 2 workers each (one per rack), S = 5 GB, no compute, 1 iteration.
  // Started alone (g = 2 units of 2.5 GB/s, both on its pair): NIC S/b = 1 s, pair S/B = 1 s, with or without INC:
  //   C = 0.05 + 2·1 = 2.05 s. Waiting: 1 + 2·1 = 3 s. Rack 0 has one port: one job starts, 2.05 + 3 = 5.05 s.
  auto pb = base(3, 1, 2);
  pb.jobs = {job({{0, 1}, {1, 1}}, 0, 5 * GB, 0, 1, {0, 8}), job({{0, 1}, {2, 1}}, 0, 5 * GB, 0, 1, {1, 16})};
  const auto both = decision({1, 1}, {1, 1}, {1, 1, 0});
  EXPECT_FALSE(evaluate(pb, both).feasible);
  EXPECT_NEAR(evaluate(pb, decision({1, 0}, {1, 0}, {1, 0, 0})).objective, 5.05, 1e-12);
  const auto ilp = solve_ilp(pb);
  ASSERT_TRUE(ilp.optimal);
  EXPECT_NEAR(ilp.objective, 5.05, 1e-9);
  EXPECT_EQ(std::count(ilp.decision.start.begin(), ilp.decision.start.end(), 1), 1);
  // Two ports: both start, 2 × 2.05 s.
  pb.ports = 2;
  EXPECT_NEAR(evaluate(pb, both).objective, 4.1, 1e-12);
  EXPECT_NEAR(solve_ilp(pb).objective, 4.1, 1e-9);
}

TEST(IncIlp, IncCapacityOneGoesToTheJobThatGainsFromIt) {
  // Racks 0 (root) and 1, 2 ports, INC for one job. g = 2: units of 2.5 GB/s, 4 units on 2 circuits.
  // Job A: 1 + 2 workers, job B: 1 + 1, S = 5 GB, no compute, 1 iteration.
  //   A with INC, B without, 2 units each: A: NIC 1 s, pair 5/5 = 1 s; B: NIC (2-1)·5/5 = 1 s, pair 1 s.
  //     0.05 + 2 + 0.05 + 2 = 4.1 s.
  //   B with INC, A without: A's NIC carries 2·S (2 s): 0.05 + 4 + (B: 0.05 + 2) = 6.1 s at best.
  //   Only A, with INC: 2.05 + B waiting (1 + 2·1) = 5.05 s.
  auto pb = base(2, 2, 1);
  pb.jobs = {job({{0, 1}, {1, 2}}, 0, 5 * GB, 0, 1, {0, 8, 9}), job({{0, 1}, {1, 1}}, 0, 5 * GB, 0, 1, {1, 10})};
  EXPECT_FALSE(evaluate(pb, decision({1, 1}, {1, 1}, {2})).feasible);
  EXPECT_NEAR(evaluate(pb, decision({1, 1}, {1, 0}, {2})).objective, 4.1, 1e-12);
  EXPECT_NEAR(evaluate(pb, decision({1, 1}, {0, 1}, {2})).objective, 6.1, 1e-12);
  const auto ilp = solve_ilp(pb);
  ASSERT_TRUE(ilp.optimal);
  EXPECT_NEAR(ilp.objective, 4.1, 1e-9);
  EXPECT_EQ(ilp.decision.start, (std::vector<char>{1, 1}));
  EXPECT_EQ(ilp.decision.inc, (std::vector<char>{1, 0}));
  EXPECT_EQ(ilp.decision.circuits, std::vector<int>{2});
}

TEST(IncIlp, JobsSharingAServerOrOnABusyServerDoNotStart) {
  // Two one-rack jobs on server 0 (W = 2, S = 5 GB, no compute, 1 iteration; INC: 2·S/b = 2 s, C = 2 s, no
  // pair); waiting costs 1 + 2 = 3 s. One starts: 2 + 3 = 5 s. Server 0 busy: both wait, 6 s.
  auto pb = base(2, 1, 2);
  pb.jobs = {job({{0, 2}}, 0, 5 * GB, 0, 1, {0, 1}), job({{0, 2}}, 0, 5 * GB, 0, 1, {0, 2})};
  EXPECT_FALSE(evaluate(pb, decision({1, 1}, {1, 1}, {0})).feasible);
  EXPECT_NEAR(solve_ilp(pb).objective, 5.0, 1e-9);
  pb.busy_servers = {0};
  EXPECT_NEAR(solve_ilp(pb).objective, 6.0, 1e-9);
  EXPECT_NEAR(brute_force(pb).objective, 6.0, 1e-9);
}

namespace {

int draw(std::mt19937& rng, int lo, int hi) { return lo + static_cast<int>(rng() % static_cast<unsigned>(hi - lo + 1)); }

/// A job of 2..4 workers over 1..min(3, ports + 1) racks of `racks`, rank 0 in the first; servers 0..3 of a
/// rack (8 per rack in the numbering), so that jobs sometimes share one.
workload::PsJob random_job(std::mt19937& rng, int id, int racks, int ports) {
  workload::PsJob j;
  j.id = id;
  j.name = fmt::format("j{}", id);
  j.push_bytes = std::vector<double>{0.5 * GB, 2 * GB, 5 * GB}[static_cast<std::size_t>(draw(rng, 0, 2))];
  j.compute_s = 0.05 * draw(rng, 0, 20);
  j.iterations = draw(rng, 1, 4);
  std::vector<int> order(static_cast<std::size_t>(racks));
  for (int r = 0; r < racks; ++r) order[static_cast<std::size_t>(r)] = r;
  std::shuffle(order.begin(), order.end(), rng);
  const int span = draw(rng, 1, std::min({3, racks, ports + 1}));
  const int workers = draw(rng, std::max(2, span), 4);
  std::vector<int> used;
  for (int w = 0; w < workers; ++w) {
    const int rack = order[static_cast<std::size_t>(w < span ? w : draw(rng, 0, span - 1))];
    int server;
    do server = rack * 8 + draw(rng, 0, 3);
    while (std::count(used.begin(), used.end(), server));
    used.push_back(server);
    j.rack_of_rank.push_back(rack);
    j.server_of_rank.push_back(server);
  }
  return j;
}

std::vector<workload::PsJob> random_jobs(std::mt19937& rng, int n, int racks, int ports) {
  std::vector<workload::PsJob> jobs;
  for (int i = 0; i < n; ++i) jobs.push_back(random_job(rng, i, racks, ports));
  return jobs;
}

}  // namespace

TEST(IncIlp, IlpEqualsTheBruteForceOnRandomTinyInstances) {
  std::mt19937 rng(24007);
  for (int seed = 0; seed < 30; ++seed) {
    auto pb = base(draw(rng, 2, 3), draw(rng, 1, 2), draw(rng, 0, 2));
    pb.circuit_bytes_per_s = std::vector<double>{2.5 * GB, 5 * GB, 10 * GB}[static_cast<std::size_t>(draw(rng, 0, 2))];
    const auto jobs = random_jobs(rng, draw(rng, 2, 4), pb.racks, pb.ports);
    for (const auto& j : jobs)
      pb.jobs.push_back({j.workers_per_rack(), j.root_rack(), j.push_bytes, j.compute_s, j.iterations, j.server_of_rank});
    if (draw(rng, 0, 2) == 0) pb.busy_servers = {pb.jobs.front().servers.back()};
    if (draw(rng, 0, 1) == 0) pb.circuits.assign(static_cast<std::size_t>(pb.pairs()), 0), pb.circuits[0] = 1;
    const auto exact = brute_force(pb);
    const auto ilp = solve_ilp(pb);
    ASSERT_TRUE(ilp.optimal) << "instance " << seed;
    EXPECT_NEAR(ilp.objective, exact.objective, 1e-9) << "instance " << seed;
    // The ILP's decision, scored by the evaluator, is worth what CBC says, within CBC's tolerances.
    EXPECT_NEAR(ilp.cbc_objective, ilp.objective, 1e-6) << "instance " << seed;
  }
}

namespace {

/// The controller's first-slot decision: the jobs it admits, the circuits it configures (none: nothing lit) and
/// the INC of each admitted job's first push.
SlotDecision heuristic_decision(const net::Network& n, int ports, const std::vector<workload::PsJob>& jobs,
                                sched::IncPolicy policy, const SlotProblem& pb) {
  sched::IncAoiController c(n, ports, jobs, policy, pb.slot_s);
  sched::Actions act;
  for (int j = 0; j < static_cast<int>(jobs.size()); ++j) c.on_arrival(j, 0, act);
  act.take();
  c.on_timer(0, act);
  SlotDecision d{std::vector<char>(jobs.size(), 0), std::vector<char>(jobs.size(), 0),
                 std::vector<int>(static_cast<std::size_t>(pb.pairs()), 0)};
  for (const auto& a : act.take()) {
    if (a.kind == sched::Actions::Kind::admit) d.start[static_cast<std::size_t>(a.job)] = 1;
    if (a.kind == sched::Actions::Kind::configure)
      for (std::size_t p = 0; p < a.config.circuits.size(); ++p)
        d.circuits[static_cast<std::size_t>(pb.pair(n.pairs[p].first, n.pairs[p].second))] = a.config.circuits[p];
  }
  for (std::size_t j = 0; j < jobs.size(); ++j)
    if (d.start[j]) {
      const auto push = workload::ps_job_graph(jobs[j]).tasks[workload::kPsPush];
      d.inc[j] = c.on_task_ready({static_cast<int>(j), 0, workload::kPsPush}, push, 0, act).in_network;
    }
  return d;
}

}  // namespace

TEST(IncIlp, TheHeuristicsFirstSlotIsNeverBetterThanTheOptimum) {
  // Each heuristic's first slot, scored by the evaluator, against the optimum of its kind: with INC for inc-*,
  // with ToRs that cannot aggregate for noinc-* (that optimum is never below the one with INC). The counts and
  // largest gaps are printed; docs/inc-aoi.md ("An exact one-slot model") gives those measured.
  const sched::IncPolicy policies[] = {sched::IncPolicy::inc_ljf, sched::IncPolicy::inc_fcfs,
                                       sched::IncPolicy::noinc_ljf, sched::IncPolicy::noinc_fcfs};
  int optimal[4] = {0, 0, 0, 0};
  double worst[4] = {0, 0, 0, 0}, worst_inc[4] = {0, 0, 0, 0};
  const int instances = 24;
  std::mt19937 rng(70024);
  for (int i = 0; i < instances; ++i) {
    const int ports = draw(rng, 2, 3);
    const auto spec = test::inc_platform(ports, draw(rng, 1, 2));
    const net::Fabric fabric(spec);
    const net::Network n = net::network_of(fabric);
    const auto jobs = random_jobs(rng, draw(rng, 3, 5), 4, ports);
    const auto pb = slot_problem(n, ports, jobs, 1.0);
    auto pb_noinc = pb;
    pb_noinc.inc_jobs = 0;
    // CBC proves these optimal in well under a second, but now and then takes about 10 s on one of them (seen when
    // other CBC tests ran before in the same process, with fixed seeds too): a limit that does not make it fail.
    const auto with_inc = solve_ilp(pb, 120), without = solve_ilp(pb_noinc, 120);
    ASSERT_TRUE(with_inc.optimal && without.optimal) << "instance " << i;
    EXPECT_LE(with_inc.objective, without.objective + 1e-9) << "instance " << i;
    for (int k = 0; k < 4; ++k) {
      const bool inc = sched::uses_inc(policies[k]);
      const auto d = heuristic_decision(n, ports, jobs, policies[k], pb);
      // Scored in its own kind's problem (waiting jobs are costed with or without INC), and in the one with INC.
      const auto own = evaluate(inc ? pb : pb_noinc, d), in_inc = evaluate(pb, d);
      ASSERT_TRUE(own.feasible) << to_string(policies[k]) << " instance " << i << ": " << own.why;
      const double best = inc ? with_inc.objective : without.objective;
      EXPECT_LE(best, own.objective + 1e-9) << to_string(policies[k]) << " instance " << i;
      EXPECT_LE(with_inc.objective, in_inc.objective + 1e-9) << to_string(policies[k]) << " instance " << i;
      if (own.objective <= best + 1e-9) ++optimal[k];
      worst[k] = std::max(worst[k], own.objective / best - 1);
      worst_inc[k] = std::max(worst_inc[k], in_inc.objective / with_inc.objective - 1);
    }
  }
  for (int k = 0; k < 4; ++k)
    std::printf("[ inc-ilp ] %-10s optimal for its kind on %2d of %d first slots, largest gap %5.1f %% (%5.1f %% to "
                "the optimum with INC)\n",
                to_string(policies[k]), optimal[k], instances, 100 * worst[k], 100 * worst_inc[k]);
}
