// The engine's controller interface, one test per trigger (a)-(e), with a scripted toy controller; and task
// graphs the engine runs as graphs (a DAG with parallel branches, a circuit that comes up mid-collective).
// Every expected time is a closed form written here from the platform's numbers.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "engine/simulation.hpp"
#include "policy/controller.hpp"
#include "systems/tdm4/plan.hpp"
#include "support/fabrics.hpp"
#include "graph/task_graph.hpp"

using namespace odcn;
using workload::Task;
using workload::TaskKind;
using workload::compute_task;
using workload::transfer_task;

namespace {

const double B = 150e9 / 8;  // one circuit (test::small_platform: 150 Gb/s ports)
const double kDelay = 200e-6;  // δ of test::small_platform

void expect_rel(double measured, double expected) { EXPECT_NEAR(measured, expected, 1e-9 * expected); }

/// A controller whose every callback is a script, and which logs when each was called.
struct Toy : sched::Controller {
  net::CircuitConfig initial;
  std::function<void(Seconds, sched::Actions&)> start, timer;
  std::function<bool(int, Seconds, sched::Actions&)> arrival;
  std::function<void(int, Seconds, sched::Actions&)> job_done;
  std::function<Gate(const sched::TaskRef&, const Task&, Seconds, sched::Actions&)> ready;
  std::function<void(const sched::TaskRef&, const Task&, Seconds, Seconds, sched::Actions&)> done;
  std::vector<std::pair<std::string, Seconds>> log;

  net::CircuitConfig initial_circuits() const override { return initial; }
  void on_start(Seconds now, sched::Actions& a) override {
    log.emplace_back("start", now);
    if (start) start(now, a);
  }
  void on_timer(Seconds now, sched::Actions& a) override {
    log.emplace_back("timer", now);
    if (timer) timer(now, a);
  }
  bool on_arrival(int job, Seconds now, sched::Actions& a) override {
    log.emplace_back("arrival " + std::to_string(job), now);
    return arrival ? arrival(job, now, a) : true;
  }
  void on_job_done(int job, Seconds now, sched::Actions& a) override {
    log.emplace_back("job done " + std::to_string(job), now);
    if (job_done) job_done(job, now, a);
  }
  Gate on_task_ready(const sched::TaskRef& r, const Task& t, Seconds now, sched::Actions& a) override {
    log.emplace_back("ready " + t.name, now);
    return ready ? ready(r, t, now, a) : Gate{};
  }
  void on_task_done(const sched::TaskRef& r, const Task& t, Seconds s, Seconds e, sched::Actions& a) override {
    log.emplace_back("done " + t.name, e);
    if (done) done(r, t, s, e, a);
  }
  Seconds when(const std::string& what) const {
    for (const auto& [w, t] : log)
      if (w == what) return t;
    ADD_FAILURE() << "never logged: " << what;
    return -1;
  }
};

/// A 4-pod fabric with one port per pod, so a pod's circuit goes to one other pod at a time.
net::Fabric four_pods() { return net::Fabric(test::small_platform(4, 1)); }

net::CircuitConfig with(const net::Fabric& f, std::vector<std::pair<int, int>> pairs) {
  auto c = f.empty_config();
  for (const auto& [a, b] : pairs) c.circuits[static_cast<std::size_t>(f.pair_index(a, b))] = 1;
  return c;
}

engine::JobToRun job(int id, const workload::JobGraph& g, std::vector<int> pods) {
  return {id, g.name, &g, std::move(pods), {}, {}};
}

}  // namespace

TEST(Controller, AtStartCircuitsSetUpWhileATransferRunsOnTheDarkCircuit) {
  // (a) on_start lights circuit 0-1; the transfer starts at once on it and crawls at 1 B/s for δ.
  const auto f = four_pods();
  workload::JobGraph g;
  g.name = "j";
  g.ranks = 2;
  const double S = 3e9;
  g.tasks = {transfer_task("send", 0, 1, S)};
  Toy c;
  c.initial = f.empty_config();
  c.start = [&](Seconds, sched::Actions& a) { a.configure(with(f, {{0, 1}}), "at start"); };
  const auto rec = engine::run(f, {job(0, g, {0, 1})}, c);
  EXPECT_EQ(c.when("start"), 0.0);
  ASSERT_EQ(rec.iterations.size(), 1u);
  expect_rel(rec.iterations[0].end_s, kDelay + (S - kDelay * 1.0) / B);
  expect_rel(rec.iterations[0].reconfig_stall_s, kDelay);
  EXPECT_EQ(rec.reconfigurations, 1);
  EXPECT_EQ(rec.circuits_changed, 1);
}

TEST(Controller, ATimerReleasesAHeldTaskAtItsTime) {
  // (b) the compute is held; the controller asks to be woken at 2 s and releases it then.
  const auto f = four_pods();
  workload::JobGraph g;
  g.name = "j";
  g.tasks = {compute_task("work", 0, 1.25)};
  Toy c;
  c.initial = f.empty_config();
  c.start = [](Seconds, sched::Actions& a) { a.wake_at(2.0); };
  c.ready = [](const sched::TaskRef&, const Task&, Seconds, sched::Actions&) { return sched::Controller::Gate{true}; };
  c.timer = [](Seconds, sched::Actions& a) { a.release({0, 0, nullptr}); };
  const auto rec = engine::run(f, {job(0, g, {0})}, c);
  EXPECT_DOUBLE_EQ(c.when("timer"), 2.0);
  ASSERT_EQ(rec.iterations.size(), 1u);
  EXPECT_DOUBLE_EQ(rec.iterations[0].start_s, 2.0);
  EXPECT_DOUBLE_EQ(rec.iterations[0].end_s, 3.25);
  EXPECT_DOUBLE_EQ(rec.makespan_s, 3.25);
}

TEST(Controller, ArrivalsWaitForAdmissionAndFinishesAreReported) {
  // (c) job 1 arrives at 5 s but is admitted only when job 0 (two 3 s iterations) has finished at 6 s.
  const auto f = four_pods();
  workload::JobGraph g0, g1;
  g0.name = "first";
  g0.iterations = 2;
  g0.tasks = {compute_task("work", 0, 3.0)};
  g1.name = "second";
  g1.arrival_s = 5.0;
  g1.tasks = {compute_task("work", 0, 3.0)};
  Toy c;
  c.initial = f.empty_config();
  c.arrival = [](int j, Seconds, sched::Actions&) { return j == 0; };
  c.job_done = [](int j, Seconds, sched::Actions& a) {
    if (j == 0) a.admit(1);
  };
  const auto rec = engine::run(f, {job(0, g0, {0}), job(1, g1, {1})}, c);
  EXPECT_DOUBLE_EQ(c.when("arrival 0"), 0.0);
  EXPECT_DOUBLE_EQ(c.when("arrival 1"), 5.0);
  EXPECT_DOUBLE_EQ(c.when("job done 0"), 6.0);
  EXPECT_DOUBLE_EQ(c.when("job done 1"), 9.0);
  ASSERT_EQ(rec.iterations.size(), 3u);
  EXPECT_DOUBLE_EQ(rec.iterations[2].start_s, 6.0);
  EXPECT_DOUBLE_EQ(rec.makespan_s, 9.0);
}

TEST(Controller, EveryJobOfTimeZeroHasArrivedWhenATimerAtTimeZeroFires) {
  // A slotted controller asks, at the first arrival, to be woken at 0: the wake-up must see all three jobs of
  // time 0 (issue 24: INC-AOI's slot 0 used to see only the first, since the timer ran between two arrivals).
  const auto f = four_pods();
  workload::JobGraph g;
  g.name = "j";
  g.tasks = {compute_task("work", 0, 1.0)};
  Toy c;
  c.initial = f.empty_config();
  int arrived = 0, seen_at_first_timer = -1;
  c.arrival = [&](int, Seconds now, sched::Actions& a) {
    if (arrived++ == 0) a.wake_at(now);
    return false;
  };
  c.timer = [&](Seconds, sched::Actions& a) {
    if (seen_at_first_timer < 0) seen_at_first_timer = arrived;
    for (int j = 0; j < 3; ++j) a.admit(j);
  };
  const auto rec = engine::run(f, {job(0, g, {0}), job(1, g, {1}), job(2, g, {2})}, c);
  EXPECT_EQ(seen_at_first_timer, 3);
  EXPECT_DOUBLE_EQ(rec.makespan_s, 1.0);
}

TEST(Controller, OnDemandHoldsATransferUntilItsCircuitIsUp) {
  // (d) when the transfer is ready the controller sets up its circuit, holds it for δ, then releases it: it
  // runs at the full rate and never stalls, ending at t_ready + δ + S/B.
  const auto f = four_pods();
  workload::JobGraph g;
  g.name = "j";
  g.ranks = 2;
  const double S = 3e9, c0 = 0.5;
  g.tasks = {compute_task("train", 0, c0), transfer_task("send", 0, 1, S, {0})};
  Toy c;
  c.initial = f.empty_config();
  c.ready = [&](const sched::TaskRef&, const Task& t, Seconds now, sched::Actions& a) {
    if (t.kind != TaskKind::transfer) return sched::Controller::Gate{};
    a.configure(with(f, {{0, 1}}), "on demand");
    a.wake_at(now + f.reconfig_delay_s());
    return sched::Controller::Gate{true};
  };
  c.timer = [](Seconds, sched::Actions& a) { a.release({0, 1, nullptr}); };
  const auto rec = engine::run(f, {job(0, g, {0, 1})}, c);
  EXPECT_DOUBLE_EQ(c.when("ready send"), c0);
  ASSERT_EQ(rec.iterations.size(), 1u);
  expect_rel(rec.iterations[0].end_s, c0 + kDelay + S / B);
  EXPECT_EQ(rec.iterations[0].reconfig_stall_s, 0.0);
  expect_rel(rec.iterations[0].comm_s, S / B);
  expect_rel(rec.iterations[0].wait_s, kDelay);
}

// (e) one port per pod: pod 0 reaches pod 1, then pod 2. With provisioning, the controller moves pod 0's
// circuit as soon as the first transfer completes; the δ hides behind the 1 s compute, so the second transfer
// runs at full rate: the iteration is c0 + S/B + c1 + S/B. On demand (moving the circuit when the second
// transfer is ready, holding it for δ) pays δ on top. (SimGrid's engine is one per process: two tests.)
namespace {
void provisioning_case(bool provision) {
  const auto f = four_pods();
  workload::JobGraph g;
  g.name = "j";
  g.ranks = 3;
  const double S = 2e9, c0 = 0.25, c1 = 1.0;
  g.tasks = {compute_task("a", 0, c0), transfer_task("x", 0, 1, S, {0}), compute_task("b", 0, c1, {1}), transfer_task("y", 0, 2, S, {2})};
  Toy c;
  c.initial = with(f, {{0, 1}});
  c.done = [&](const sched::TaskRef&, const Task& t, Seconds, Seconds, sched::Actions& a) {
    if (provision && t.name == "x") a.configure(with(f, {{0, 2}}), "provision");
  };
  c.ready = [&](const sched::TaskRef&, const Task& t, Seconds now, sched::Actions& a) {
    if (provision || t.name != "y") return sched::Controller::Gate{};
    a.configure(with(f, {{0, 2}}), "on demand");
    a.wake_at(now + f.reconfig_delay_s());
    return sched::Controller::Gate{true};
  };
  c.timer = [](Seconds, sched::Actions& a) { a.release({0, 3, nullptr}); };
  const auto rec = engine::run(f, {job(0, g, {0, 1, 2})}, c);
  ASSERT_EQ(rec.iterations.size(), 1u);
  expect_rel(rec.iterations[0].end_s, c0 + S / B + c1 + S / B + (provision ? 0.0 : kDelay));
  EXPECT_EQ(rec.iterations[0].reconfig_stall_s, 0.0);
  expect_rel(c.when("done x"), c0 + S / B);
  EXPECT_EQ(rec.reconfigurations, 1);
}
}  // namespace

TEST(Controller, ProvisioningSetsUpTheNextCircuitWhileTheJobComputes) { provisioning_case(true); }
TEST(Controller, OnDemandPaysTheReconfigurationDelayThatProvisioningHides) { provisioning_case(false); }

TEST(Controller, ParallelBranchesEndOnTheCriticalPath) {
  // A DAG: a (1 s on rank 0) -> x (S bytes 0->1); b (3 s on rank 1); both -> barrier. With S/B = 2.4 s the
  // path a, x (3.4 s) is longer than b (3 s); the iteration ends on it, as critical_path computes.
  const auto f = four_pods();
  workload::JobGraph g;
  g.name = "dag";
  g.ranks = 2;
  const double S = 2.4 * B;
  g.tasks = {compute_task("a", 0, 1.0), transfer_task("x", 0, 1, S, {0}), compute_task("b", 1, 3.0), Task{}};
  g.tasks[3].name = "join";
  g.tasks[3].kind = TaskKind::barrier;
  g.tasks[3].deps = {1, 2};
  g.iterations = 2;
  Toy c;
  c.initial = with(f, {{0, 1}});
  const auto rec = engine::run(f, {job(0, g, {0, 1})}, c);
  const auto path = workload::critical_path(g, [](const Task& t) {
    return t.kind == TaskKind::compute ? t.duration_s : t.kind == TaskKind::transfer ? t.bytes / B : 0.0;
  });
  expect_rel(path.length_s, 3.4);
  EXPECT_EQ(path.tasks, (std::vector<int>{0, 1, 3}));
  ASSERT_EQ(rec.iterations.size(), 2u);
  expect_rel(rec.iterations[0].end_s, path.length_s);
  expect_rel(rec.iterations[1].start_s, path.length_s);
  expect_rel(rec.iterations[1].end_s, 2 * path.length_s);
  // Compute is the time some computation ran (b's 3 s cover a's 1 s), communication the transfer's span, and
  // they overlap (x runs during b), so nothing is left as waiting.
  expect_rel(rec.iterations[0].compute_s, 3.0);
  expect_rel(rec.iterations[0].comm_s, 2.4);
  EXPECT_EQ(rec.iterations[0].wait_s, 0.0);
}

TEST(Controller, ACircuitComingUpMidCollectiveSlowsOnlyTheStepsThatUseIt) {
  // Ring all-reduce over pods 0, 1, 2 (ring algorithm: 2(n-1) = 4 steps of S/3 to the next rank). Circuits
  // 0-1 and 1-2 are lit; 2-0 is set up at t = 0, so step 1's flow 2->0 crawls for δ and the step ends at
  // δ + (S/3 - δ)/B; the three later steps take S/(3B) each.
  // Two ports per pod, so that a pod can be in two circuits of the ring.
  const net::Fabric f2(test::small_platform(4, 2));
  workload::JobGraph g;
  g.name = "ring";
  g.ranks = 3;
  const double S = 3 * 150e-6 * B;  // S/3 takes 150 µs, less than δ = 200 µs
  Task ar;
  ar.name = "all-reduce";
  ar.kind = TaskKind::collective;
  ar.op = workload::CollectiveOp::all_reduce;
  ar.algorithm = workload::CollectiveAlgorithm::ring;
  ar.group = {0, 1, 2};
  ar.bytes = S;
  g.tasks = {ar};
  Toy c;
  c.initial = with(f2, {{0, 1}, {1, 2}});
  c.start = [&](Seconds, sched::Actions& a) { a.configure(with(f2, {{0, 1}, {1, 2}, {0, 2}}), "third edge"); };
  const auto rec = engine::run(f2, {job(0, g, {0, 1, 2})}, c);
  ASSERT_EQ(rec.iterations.size(), 1u);
  const double step = S / 3 / B;
  const double first = kDelay + (S / 3 - kDelay * 1.0) / B;
  expect_rel(rec.iterations[0].end_s, first + 3 * step);
  expect_rel(rec.iterations[0].reconfig_stall_s, kDelay);
  EXPECT_DOUBLE_EQ(rec.iterations[0].circuit_bytes, 4 * S);  // 4 steps × 3 flows × S/3
}

TEST(Controller, AHeldTaskNeverReleasedFailsTheRunInsteadOfWritingPartialRows) {
  const auto f = four_pods();
  workload::JobGraph g;
  g.name = "j";
  g.tasks = {compute_task("work", 0, 1.0)};
  Toy c;
  c.initial = f.empty_config();
  c.ready = [](const sched::TaskRef&, const Task&, Seconds, sched::Actions&) { return sched::Controller::Gate{true}; };
  EXPECT_THROW(engine::run(f, {job(0, g, {0})}, c), std::runtime_error);
}

TEST(Controller, AConfigurationOverAPortBudgetIsAnErrorNotClipped) {
  const auto f = four_pods();  // one port per pod
  workload::JobGraph g;
  g.name = "j";
  g.tasks = {compute_task("work", 0, 1.0)};
  Toy c;
  c.initial = f.empty_config();
  c.start = [&](Seconds, sched::Actions& a) { a.configure(with(f, {{0, 1}, {0, 2}}), "too many"); };
  EXPECT_THROW(engine::run(f, {job(0, g, {0})}, c), ConfigError);
}

namespace {

/// W = 6 workers, two in each of pods 0, 1, 2; the parameter server is rank 0 (pod 0). Push then pull S.
workload::JobGraph ps_job(double S) {
  workload::JobGraph g;
  g.name = "ps";
  g.ranks = 6;
  Task push;
  push.name = "push";
  push.kind = TaskKind::collective;
  push.op = workload::CollectiveOp::ps_push;
  push.algorithm = workload::CollectiveAlgorithm::parameter_server;
  push.group = {0, 1, 2, 3, 4, 5};
  push.bytes = S;
  Task pull = push;
  pull.name = "pull";
  pull.op = workload::CollectiveOp::ps_pull;
  pull.deps = {0};
  g.tasks = {push, pull};
  return g;
}

/// Pods 0..3 with 2 ports each and INC-capable ToRs (inc_jobs each); circuits 0-1 and 0-2.
struct IncFabric {
  explicit IncFabric(int inc_jobs) : fabric([&] {
    auto p = test::small_platform(4, 2);
    p.inc_jobs = inc_jobs;
    return p;
  }()) {}
  net::Fabric fabric;
  net::CircuitConfig star() const { return with(fabric, {{0, 1}, {0, 2}}); }
};

void ps_case(bool inc) {
  // INC-AOI's closed forms (Xie et al.; notes §1): without INC, pods 1 and 2 each send their w_r = 2 workers'
  // S to the server's pod, 2S over one circuit: push 2S/B, pull the same; inter-pod bytes 2(W - w_r0)S = 8S.
  // With INC every ToR sends one partial aggregate: S/B each way, inter-pod bytes 2(R - 1)S = 4S.
  const IncFabric f(4);
  const double S = 3e9;
  const auto g = ps_job(S);
  Toy c;
  c.initial = f.star();
  c.ready = [&](const sched::TaskRef&, const Task&, Seconds, sched::Actions&) {
    sched::Controller::Gate gate;
    gate.in_network = inc;
    return gate;
  };
  const auto rec = engine::run(f.fabric, {job(0, g, {0, 0, 1, 1, 2, 2})}, c);
  ASSERT_EQ(rec.iterations.size(), 1u);
  expect_rel(rec.iterations[0].end_s, (inc ? 2 : 4) * S / B);
  EXPECT_DOUBLE_EQ(rec.iterations[0].circuit_bytes, (inc ? 4 : 8) * S);
}

}  // namespace

TEST(Controller, InNetworkAggregationTurnsEachPodsStreamsIntoOne) { ps_case(true); }
TEST(Controller, WithoutInNetworkAggregationEveryWorkersStreamCrosses) { ps_case(false); }

TEST(Controller, AToRNeverAggregatesForMoreJobsThanItsCapacity) {
  // inc_jobs = 1: two jobs whose INC pushes meet at pod 0 cannot run at once. A controller that holds the second
  // until the first is done gets S/B, then S/B more.
  const IncFabric f(1);
  const double S = 1.5e9;
  workload::JobGraph a = ps_job(S), b = ps_job(S);
  a.tasks.pop_back();  // push only
  b.tasks.pop_back();
  a.ranks = b.ranks = 2;
  a.tasks[0].group = b.tasks[0].group = {0, 1};
  Toy c;
  c.initial = f.star();
  bool first_running = false;
  c.ready = [&](const sched::TaskRef& r, const Task&, Seconds, sched::Actions&) {
    sched::Controller::Gate gate;
    gate.in_network = true;
    gate.hold = r.job == 1 && first_running;
    if (r.job == 0) first_running = true;
    return gate;
  };
  c.done = [&](const sched::TaskRef& r, const Task&, Seconds, Seconds, sched::Actions& act) {
    if (r.job == 0) act.release({1, 0, nullptr, true});
  };
  const auto rec = engine::run(f.fabric, {job(0, a, {1, 0}), job(1, b, {2, 0})}, c);
  ASSERT_EQ(rec.iterations.size(), 2u);
  expect_rel(rec.iterations[0].end_s, S / B);
  expect_rel(rec.iterations[1].start_s, S / B);
  expect_rel(rec.iterations[1].end_s, 2 * S / B);
}

TEST(Controller, AToROverItsIncCapacityIsAnError) {
  const IncFabric f(1);
  workload::JobGraph a = ps_job(1e9);
  a.tasks.pop_back();
  a.ranks = 2;
  a.tasks[0].group = {0, 1};
  Toy c;
  c.initial = f.star();
  c.ready = [&](const sched::TaskRef&, const Task&, Seconds, sched::Actions&) {
    sched::Controller::Gate gate;
    gate.in_network = true;
    return gate;
  };
  EXPECT_THROW(engine::run(f.fabric, {job(0, a, {1, 0}), job(1, a, {2, 0})}, c), ConfigError);
}

TEST(Controller, ReconfigurationsAskedForAtOneInstantByTwoJobsBothApply) {
  // Jobs a and b end equal transfers at the same instant, each in its own actor, and each adds a circuit for
  // later (4-5, then 6-7). Both changes count once, and job c, released at 1 s on 6-7, runs at the full rate.
  const net::Fabric f(test::small_platform(8, 1));
  const double S = 3e9;
  workload::JobGraph ga, gb, gc;
  ga.name = "a";
  gb.name = "b";
  gc.name = "c";
  ga.ranks = gb.ranks = gc.ranks = 2;
  ga.tasks = {transfer_task("a", 0, 1, S)};
  gb.tasks = {transfer_task("b", 0, 1, S)};
  gc.tasks = {transfer_task("c", 0, 1, S)};
  Toy c;
  c.initial = with(f, {{0, 1}, {2, 3}});
  std::vector<std::pair<int, int>> lit{{0, 1}, {2, 3}};
  c.start = [](Seconds, sched::Actions& a) { a.wake_at(1.0); };
  c.ready = [](const sched::TaskRef& r, const Task&, Seconds, sched::Actions&) {
    return sched::Controller::Gate{r.job == 2};
  };
  c.timer = [](Seconds, sched::Actions& a) { a.release({2, 0, nullptr}); };
  c.done = [&](const sched::TaskRef&, const Task& t, Seconds, Seconds, sched::Actions& a) {
    if (t.name == "c") return;
    lit.emplace_back(t.name == "a" ? 4 : 6, t.name == "a" ? 5 : 7);
    a.configure(with(f, lit), t.name);
  };
  const auto rec = engine::run(f, {job(0, ga, {0, 1}), job(1, gb, {2, 3}), job(2, gc, {6, 7})}, c);
  EXPECT_EQ(rec.reconfigurations, 2);
  EXPECT_EQ(rec.circuits_changed, 2);
  EXPECT_EQ(rec.circuits.size(), 4u);  // two initial rows, one per change
  ASSERT_EQ(rec.iterations.size(), 3u);
  expect_rel(rec.iterations[0].end_s, S / B);
  expect_rel(rec.iterations[1].end_s, S / B);
  expect_rel(rec.iterations[2].end_s, 1.0 + S / B);
  EXPECT_EQ(rec.iterations[2].reconfig_stall_s, 0.0);
}

TEST(Controller, ABatchsIterationEndsWithItsLongestTask) {
  // One job releases a long and a short transfer together; the iteration ends with the long one (2S/B), not
  // with whichever the batch lists last.
  const auto f = four_pods();
  workload::JobGraph g;
  g.name = "j";
  g.ranks = 4;
  const double S = 3e9;
  g.tasks = {transfer_task("long", 0, 1, 2 * S), transfer_task("short", 2, 3, S)};
  Toy c;
  c.initial = with(f, {{0, 1}, {2, 3}});
  c.ready = [](const sched::TaskRef& r, const Task&, Seconds, sched::Actions& a) {
    if (r.task == 1) a.release_together({{0, 0, nullptr}, {0, 1, nullptr}});
    return sched::Controller::Gate{true};
  };
  const auto rec = engine::run(f, {job(0, g, {0, 1, 2, 3})}, c);
  ASSERT_EQ(rec.iterations.size(), 1u);
  expect_rel(rec.iterations[0].end_s, 2 * S / B);
  expect_rel(rec.iterations[0].comm_s, 2 * S / B);
}

TEST(Controller, ParallelTransfersOnCircuitsSetUpTogetherStallOnce) {
  // Two transfers of one job run at once on circuits lit at t = 0: the iteration waited δ for circuits once.
  const auto f = four_pods();
  workload::JobGraph g;
  g.name = "j";
  g.ranks = 4;
  const double S = 3e9;
  g.tasks = {transfer_task("x", 0, 1, S), transfer_task("y", 2, 3, S)};
  Toy c;
  c.initial = f.empty_config();
  c.start = [&](Seconds, sched::Actions& a) { a.configure(with(f, {{0, 1}, {2, 3}}), "start"); };
  const auto rec = engine::run(f, {job(0, g, {0, 1, 2, 3})}, c);
  ASSERT_EQ(rec.iterations.size(), 1u);
  expect_rel(rec.iterations[0].reconfig_stall_s, kDelay);
  expect_rel(rec.iterations[0].end_s, kDelay + (S - kDelay * 1.0) / B);
}
