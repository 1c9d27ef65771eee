// INC-AOI (Xie, Tang, Chen, Zhu, "Accelerating DML Training in OCS-based DCNs") without SimGrid: the closed forms
// of a push with and without in-network aggregation, the large-job-first order, the generator and its placement,
// and the slotted controller's decisions on scripted arrivals.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "core/error.hpp"
#include "net/fabric.hpp"
#include "net/network.hpp"
#include "systems/inc_aoi/inc_aoi.hpp"
#include "spec/platform_spec.hpp"
#include "spec/ps_workload.hpp"
#include "spec/yaml_reader.hpp"
#include "support/fabrics.hpp"
#include "systems/inc_aoi/ps_jobs.hpp"

using namespace odcn;

namespace {

constexpr double S = 5e9;

/// 5 workers: rack 0 holds the PS (rank 0) and one more, rack 1 two, rack 2 one.
workload::PsJob five_workers() {
  workload::PsJob j;
  j.name = "five";
  j.push_bytes = S;
  j.rack_of_rank = {0, 0, 1, 1, 2};
  j.server_of_rank = {0, 1, 8, 9, 16};
  return j;
}

workload::PsJob job(int id, double arrival, std::vector<std::pair<int, int>> servers, double bytes = S) {
  workload::PsJob j;
  j.id = id;
  j.name = "j" + std::to_string(id);
  j.arrival_s = arrival;
  j.push_bytes = bytes;
  j.iterations = 1;
  for (const auto& [rack, server] : servers) {
    j.rack_of_rank.push_back(rack);
    j.server_of_rank.push_back(rack * 8 + server);
  }
  return j;
}

std::vector<int> admitted(sched::Actions& act) {
  std::vector<int> jobs;
  for (const auto& a : act.take())
    if (a.kind == sched::Actions::Kind::admit) jobs.push_back(a.job);
  return jobs;
}

}  // namespace

TEST(IncAoi, PushLegsWithoutIncAreTheIncastAndEveryRemoteWorkersBytes) {
  const auto j = five_workers();
  const auto legs = workload::ps_legs({0, 1, 2, 3, 4}, 0, S, j.rack_of_rank, j.server_of_rank, false);
  // Every worker but the one on the PS's server sends S through its NIC; the PS's NIC takes all four.
  EXPECT_EQ(legs.nics, (std::vector<workload::NicLeg>{{0, 1, S}, {1, 2, S}, {2, 1, S}, {0, 1, 4 * S}}));
  EXPECT_EQ(legs.racks, (std::vector<workload::RackLeg>{{1, 0, 2 * S}, {2, 0, S}}));
  EXPECT_DOUBLE_EQ(workload::inter_rack_bytes(j, false), 3 * S);  // (W - w_r0)·S = (5 - 2)·S
  EXPECT_DOUBLE_EQ(workload::busiest_nic_bytes(j, false), 4 * S);  // (W - 1)·S
}

TEST(IncAoi, PushLegsWithIncAreOneStreamPerRack) {
  const auto j = five_workers();
  const auto legs = workload::ps_legs({0, 1, 2, 3, 4}, 0, S, j.rack_of_rank, j.server_of_rank, true);
  EXPECT_EQ(legs.nics, (std::vector<workload::NicLeg>{{0, 2, S}, {1, 2, S}, {2, 1, S}}));  // all 5 workers
  EXPECT_EQ(legs.racks, (std::vector<workload::RackLeg>{{1, 0, S}, {2, 0, S}}));
  EXPECT_DOUBLE_EQ(workload::inter_rack_bytes(j, true), 2 * S);  // (R - 1)·S = (3 - 1)·S
  EXPECT_DOUBLE_EQ(workload::busiest_nic_bytes(j, true), S);
  // All in one rack: nothing between racks either way.
  auto local = j;
  local.rack_of_rank = {3, 3, 3, 3, 3};
  EXPECT_DOUBLE_EQ(workload::inter_rack_bytes(local, true), 0);
  EXPECT_DOUBLE_EQ(workload::inter_rack_bytes(local, false), 0);
}

TEST(IncAoi, ADedicatedParameterServerTakesEveryWorkersBytesIntoItsOwnRack) {
  auto j = five_workers();  // w = 2, 2, 1 in racks 0, 1, 2
  j.ps = {spec::PsServer::dedicated, 3 * 8 + 5, 3};
  const auto legs = workload::job_legs(j, false);
  // All W workers send S; the PS's NIC takes W·S = 5·S; every rack sends w_r·S to rack 3.
  EXPECT_EQ(legs.nics, (std::vector<workload::NicLeg>{{0, 2, S}, {1, 2, S}, {2, 1, S}, {3, 1, 5 * S}}));
  EXPECT_EQ(legs.racks, (std::vector<workload::RackLeg>{{0, 3, 2 * S}, {1, 3, 2 * S}, {2, 3, S}}));
  EXPECT_DOUBLE_EQ(workload::inter_rack_bytes(j, false), 5 * S);  // W·S
  EXPECT_DOUBLE_EQ(workload::busiest_nic_bytes(j, false), 5 * S);
  EXPECT_EQ(workload::servers_of(j), (std::vector<int>{0, 1, 8, 9, 16, 29}));
  // With INC the dedicated server stays out of it: the legs are INC's.
  EXPECT_EQ(workload::job_legs(j, true).racks, (std::vector<workload::RackLeg>{{1, 0, S}, {2, 0, S}}));
}

TEST(IncAoi, AShardedParameterServerSpreadsSOverRShardsOneARack) {
  auto j = five_workers();
  j.ps.mode = spec::PsServer::sharded;
  const auto legs = workload::job_legs(j, false);
  // R = 3 shards of S/3, on the first rank's server of each rack. A rack's other workers send S; the shard's host
  // sends the 2 shards elsewhere 2·S/3; each shard takes S/3 from the W - 1 = 4 other workers: 4·S/3.
  const double out = 2.0 / 3 * S, in = 4.0 / 3 * S;
  EXPECT_EQ(legs.nics, (std::vector<workload::NicLeg>{{0, 1, S}, {0, 1, out}, {0, 1, in}, {1, 1, S}, {1, 1, out},
                                                      {1, 1, in}, {2, 1, out}, {2, 1, in}}));
  // w_r·S/R from each rack to each other rack.
  EXPECT_EQ(legs.racks, (std::vector<workload::RackLeg>{{0, 1, 2 * S / 3}, {0, 2, 2 * S / 3}, {1, 0, 2 * S / 3},
                                                        {1, 2, 2 * S / 3}, {2, 0, S / 3}, {2, 1, S / 3}}));
  EXPECT_NEAR(workload::inter_rack_bytes(j, false), 5 * S * 2 / 3, 1e-6);  // W·S·(R - 1)/R
  EXPECT_DOUBLE_EQ(workload::busiest_nic_bytes(j, false), in);
  // One rack: one shard, which is the colocated PS.
  auto local = j;
  local.rack_of_rank = {3, 3, 3, 3, 3};
  auto colocated = local;
  colocated.ps.mode = spec::PsServer::colocated;
  EXPECT_EQ(workload::job_legs(local, false).nics, workload::job_legs(colocated, false).nics);
}

TEST(IncAoi, LargeJobFirstOrdersByWorkersThenPushSizeThenArrivalThenId) {
  std::vector<workload::PsJob> jobs{job(0, 0.0, {{0, 0}, {0, 1}}),                       // 2 workers, 5 GB
                                    job(1, 0.1, {{0, 2}, {0, 3}, {0, 4}, {0, 5}}, 1e9),  // 4 workers, 1 GB
                                    job(2, 0.2, {{1, 0}, {1, 1}}, 9e9),                  // 2 workers, 9 GB
                                    job(3, 0.0, {{2, 0}, {2, 1}, {2, 2}, {2, 3}}, 1e9),  // 4 workers, 1 GB, earlier
                                    job(4, 0.0, {{3, 0}, {3, 1}})};                      // a tie with job 0 but id
  EXPECT_EQ(sched::ljf_order(jobs, {0, 1, 2, 3, 4}), (std::vector<int>{3, 1, 2, 0, 4}));
  // ljf_key volume: workers × push size (18, 10, 10, 4, 4 GB), then workers, arrival, id.
  EXPECT_EQ(sched::ljf_order(jobs, {0, 1, 2, 3, 4}, true), (std::vector<int>{2, 0, 4, 3, 1}));
}

TEST(IncAoi, FcfsStartsInArrivalOrderAndTheFirstBlockedJobBlocksTheRest) {
  const auto p = test::inc_platform();
  const net::Fabric fabric(p);
  const net::Network n = net::network_of(fabric);
  // Job 1 wants job 0's server; job 2 would fit but waits behind job 1 (no backfilling).
  const std::vector<workload::PsJob> jobs{job(0, 0, {{0, 0}, {0, 1}}), job(1, 0, {{0, 1}, {0, 2}}),
                                          job(2, 0, {{1, 0}, {1, 1}})};
  sched::IncAoiController fcfs(n, p.ports_per_pod, jobs, sched::IncPolicy::noinc_fcfs, 1.0);
  sched::Actions act;
  for (int j = 0; j < 3; ++j) EXPECT_FALSE(fcfs.on_arrival(j, 0, act));
  act.take();
  fcfs.on_timer(0, act);
  EXPECT_EQ(admitted(act), (std::vector<int>{0}));
  fcfs.on_job_done(0, 0.5, act);
  fcfs.on_timer(1, act);
  EXPECT_EQ(admitted(act), (std::vector<int>{1, 2}));
  // The same under large-job-first: job 2 is passed over to no one, it starts at once beside job 0.
  sched::IncAoiController ljf(n, p.ports_per_pod, jobs, sched::IncPolicy::noinc_ljf, 1.0);
  for (int j = 0; j < 3; ++j) ljf.on_arrival(j, 0, act);
  act.take();
  ljf.on_timer(0, act);
  EXPECT_EQ(admitted(act), (std::vector<int>{0, 2}));
}

TEST(IncAoi, LjfGivesIncToTheLargestJobsAndNoToRBeyondItsCapacity) {
  const auto p = test::inc_platform(4, 1);  // each ToR aggregates for one job at a time
  const net::Fabric fabric(p);
  const net::Network n = net::network_of(fabric);
  // Jobs 0 and 1 share rack 0; job 1 is larger, so it gets rack 0's INC; job 2 (rack 1) gets its own.
  const std::vector<workload::PsJob> jobs{job(0, 0, {{0, 0}, {0, 1}}), job(1, 0, {{0, 2}, {0, 3}, {0, 4}}),
                                          job(2, 0, {{1, 0}, {1, 1}})};
  sched::IncAoiController c(n, p.ports_per_pod, jobs, sched::IncPolicy::inc_ljf, 1.0);
  sched::Actions act;
  for (int j = 0; j < 3; ++j) c.on_arrival(j, 0, act);
  act.take();
  c.on_timer(0, act);
  EXPECT_EQ(admitted(act), (std::vector<int>{1, 0, 2}));
  workload::Task push;
  push.kind = workload::TaskKind::collective;
  push.op = workload::CollectiveOp::ps_push;
  EXPECT_FALSE(c.on_task_ready({0, 0, workload::kPsPush}, push, 0, act).in_network);
  EXPECT_TRUE(c.on_task_ready({1, 0, workload::kPsPush}, push, 0, act).in_network);
  EXPECT_TRUE(c.on_task_ready({2, 0, workload::kPsPush}, push, 0, act).in_network);
  EXPECT_EQ(c.peak_inc_per_tor(), 1);
  EXPECT_EQ(c.slots().at(0).inc_max_per_tor, 1);
  EXPECT_EQ(c.slots().at(0).inc_assigned, 2);
}

TEST(IncAoi, IncPoliciesNeedIncCapableToRs) {
  const auto p = test::inc_platform(4, 0);
  const net::Fabric fabric(p);
  const net::Network n = net::network_of(fabric);
  const std::vector<workload::PsJob> jobs{job(0, 0, {{0, 0}, {1, 1}})};
  EXPECT_THROW(sched::IncAoiController(n, p.ports_per_pod, jobs, sched::IncPolicy::inc_ljf, 1.0), ConfigError);
  EXPECT_NO_THROW(sched::IncAoiController(n, p.ports_per_pod, jobs, sched::IncPolicy::noinc_ljf, 1.0));
}

TEST(IncAoi, GeneratorIsSeededPoissonAndPlacesEachWorkerOnItsOwnServer) {
  auto p = test::inc_platform();
  p.pods = 64;
  p.servers_per_pod = 64;
  p.pods_per_group = 64;
  p.ports_per_oxc = 64 * 4;
  spec::PsWorkloadSpec w;
  w.file = "w.yaml";
  spec::PsGeneratorSpec g;
  g.jobs = 4000;
  g.seed = 7;
  g.workers = spec::worker_weights("uniform");
  g.models = spec::inc_aoi_models();
  w.generator = g;
  const auto a = workload::make_ps_jobs(w, p);
  const auto b = workload::make_ps_jobs(w, p);
  ASSERT_EQ(a.size(), 4000u);
  std::map<int, int> sizes;
  double last = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].server_of_rank, b[i].server_of_rank);
    EXPECT_EQ(a[i].arrival_s, b[i].arrival_s);
    EXPECT_GT(a[i].arrival_s, last);
    last = a[i].arrival_s;
    ++sizes[a[i].workers()];
    EXPECT_EQ(std::set<int>(a[i].server_of_rank.begin(), a[i].server_of_rank.end()).size(), a[i].server_of_rank.size());
    // Rank 0 (the PS) is in the rack holding most of the job's workers.
    int most = 0;
    for (const auto& [rack, k] : a[i].workers_per_rack()) most = std::max(most, k);
    int in_root = 0;
    for (int r : a[i].rack_of_rank) in_root += r == a[i].root_rack();
    EXPECT_EQ(in_root, most);
  }
  // 20 jobs per second on average: 4,000 exponential gaps of mean 50 ms (sd of the mean 0.8 ms).
  EXPECT_NEAR(last / 4000, 0.05, 0.003);
  EXPECT_EQ(sizes.size(), 4u);
  for (const auto& [workers, count] : sizes) EXPECT_NEAR(count, 1000, 120) << workers;
  // Another seed, other jobs.
  const auto c = workload::make_ps_jobs(w, p, 8);
  EXPECT_NE(c[0].arrival_s, a[0].arrival_s);
}

TEST(IncAoi, WorkloadErrorsNameTheField) {
  const auto parse = [](const std::string& text) {
    return spec::parse_ps_workload(spec::parse_yaml(text, "w.yaml"), "w.yaml", "");
  };
  try {
    parse("ps_jobs: {jobs: [{name: a, push_gb: 1, compute_ms: 1, servers: [[0, 0]]}]}");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "w.yaml: ps_jobs.jobs[0].servers: must list at least 2 workers as [rack, server] (rank 0's "
                           "server runs the parameter server)");
  }
  try {
    parse("ps_jobs: {generator: {jobs: 5, workers: zipf}}");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "w.yaml: ps_jobs.generator.workers: must be uniform, philly or a map of worker counts to "
                           "weights (got 'zipf')");
  }
  const auto w = parse("ps_jobs: {generator: {jobs: 5, workers: {2: 1, 16: 3}}}");
  EXPECT_EQ(w.generator->workers, (std::map<int, double>{{2, 1}, {16, 3}}));
  EXPECT_EQ(w.generator->models.size(), 3u);
  EXPECT_THROW(parse("ps_jobs: {generator: {jobs: 5}, jobs: []}"), InputError);
}
