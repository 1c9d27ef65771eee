#include "systems/tdm4/plan.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "policy/topology.hpp"
#include "systems/tdm4/stage_demand.hpp"

namespace odcn::sched {

const char* to_string(Activity a) {
  switch (a) {
    case Activity::communicate: return "communicate";
    case Activity::train: return "train";
    case Activity::aggregate: return "aggregate";
  }
  return "?";
}

Seconds pair_time_with_reconfig(Bytes bytes, int before, int after, BytesPerSecond port, Seconds delay) {
  if (bytes <= 0) return 0;
  const BytesPerSecond full = after * port;
  if (before == after) return bytes / full;
  const int kept = std::min(before, after);
  const BytesPerSecond early = kept > 0 ? kept * port : kDarkBytesPerSecond;
  if (bytes <= early * delay) return bytes / early;
  return delay + (bytes - early * delay) / full;
}

StageTiming time_stage(const net::Fabric& fabric, const std::vector<const StageWork*>& work,
                       const net::CircuitConfig& before, const net::CircuitConfig& after) {
  std::vector<Bytes> pair_load(static_cast<std::size_t>(fabric.pair_count()), 0.0);
  std::vector<Bytes> tor_load(static_cast<std::size_t>(fabric.pods()), 0.0);
  StageTiming r;
  for (const StageWork* w : work) {
    if (w->activity != Activity::communicate) r.compute = std::max(r.compute, w->compute_s);
    for (const auto& f : w->traffic.flows) pair_load[static_cast<std::size_t>(fabric.pair_index(f.src, f.dst))] += f.bytes;
    for (const auto& v : w->traffic.tor) tor_load[static_cast<std::size_t>(v.pod)] += v.bytes;
  }
  for (std::size_t p = 0; p < pair_load.size(); ++p) {
    if (pair_load[p] <= 0) continue;
    r.comm = std::max(r.comm, pair_time_with_reconfig(pair_load[p], before.circuits[p], after.circuits[p],
                                                      fabric.port_bytes_per_s(), fabric.reconfig_delay_s()));
    r.comm_no_reconfig = std::max(r.comm_no_reconfig, pair_load[p] / (after.circuits[p] * fabric.port_bytes_per_s()));
  }
  for (Bytes b : tor_load) {
    r.comm = std::max(r.comm, b / fabric.tor_bytes_per_s());
    r.comm_no_reconfig = std::max(r.comm_no_reconfig, b / fabric.tor_bytes_per_s());
  }
  r.predicted = std::max(r.comm, r.compute);
  r.bound = r.compute >= r.comm ? "compute" : r.comm > r.comm_no_reconfig ? "reconfig" : "comm";
  return r;
}

net::CircuitConfig held_config(const net::Fabric& fabric, const std::vector<workload::Job>& jobs,
                               const StagePlan& st, const std::vector<const StageWork*>& ran,
                               const net::CircuitConfig& current) {
  std::vector<char> sends(static_cast<std::size_t>(fabric.groups()), 0);
  for (const StageWork* w : ran)
    if (w->activity == Activity::communicate) sends[static_cast<std::size_t>(jobs[static_cast<std::size_t>(w->job)].group)] = 1;
  net::CircuitConfig held = current;
  const auto per_group = static_cast<std::ptrdiff_t>(fabric.pairs_per_group());
  for (int g = 0; g < fabric.groups(); ++g)
    if (sends[static_cast<std::size_t>(g)])
      std::copy(st.config.circuits.begin() + g * per_group, st.config.circuits.begin() + (g + 1) * per_group,
                held.circuits.begin() + g * per_group);
  return held;
}

namespace {

/// The communication that ran, per pod group (group-local pods), as Alg. 2 sees a stage's demand.
std::vector<GroupDemand> demands_of(const net::Fabric& fabric, const std::vector<workload::Job>& jobs,
                                    const std::vector<const StageWork*>& ran) {
  std::vector<GroupDemand> d(static_cast<std::size_t>(fabric.groups()), GroupDemand(0));
  for (const StageWork* w : ran) {
    if (w->activity != Activity::communicate) continue;
    const int g = jobs[static_cast<std::size_t>(w->job)].group;
    GroupDemand& gd = d[static_cast<std::size_t>(g)];
    if (gd.n == 0) gd = GroupDemand(fabric.pods_per_group());
    const int first = fabric.first_pod(g);
    for (const auto& f : w->traffic.flows) gd.add_flow(f.src - first, f.dst - first, f.bytes);
    for (const auto& v : w->traffic.tor) gd.tor_load[static_cast<std::size_t>(v.pod - first)] += v.bytes;
  }
  return d;
}

/// pod_group, bottleneck and comm_lower_bound_s of what ran, on the circuits it held (`after`): the pod group
/// whose Eq. (2) time is the longest (the first on a tie, as the planner explains a stage).
void explain_ran(const net::Fabric& fabric, const std::vector<workload::Job>& jobs,
                 const std::vector<const StageWork*>& ran, const net::CircuitConfig& after, trace::StageRow& row) {
  const TopologyLimits limits = limits_of(fabric);
  const auto demands = demands_of(fabric, jobs, ran);
  const auto per_group = static_cast<std::ptrdiff_t>(fabric.pairs_per_group());
  Seconds longest = 0;
  for (int g = 0; g < fabric.groups(); ++g) {
    const GroupDemand& d = demands[static_cast<std::size_t>(g)];
    if (d.n == 0) continue;
    row.comm_lower_bound_s = std::max(row.comm_lower_bound_s, fractional_comm_bound(d, limits, fabric.spec().ports_per_oxc));
    const std::vector<int> circuits(after.circuits.begin() + g * per_group, after.circuits.begin() + (g + 1) * per_group);
    const Bottleneck b = bottleneck_of(d, circuits, limits);
    if (row.pod_group >= 0 && b.t <= longest) continue;
    longest = b.t;
    row.pod_group = g;
    const int first = fabric.first_pod(g);
    if (b.pair >= 0) {
      const auto [x, y] = d.pair_ends(b.pair);
      row.bottleneck = fmt::format("pods {}-{}", first + x, first + y);
    } else {
      row.bottleneck = b.tor_pod >= 0 ? fmt::format("tor {}", first + b.tor_pod) : "";
    }
  }
}

}  // namespace

void describe_stage(const net::Fabric& fabric, const std::vector<workload::Job>& jobs, const StagePlan& st,
                    const std::vector<const StageWork*>& ran, const net::CircuitConfig& before,
                    const net::CircuitConfig& after, bool as_planned, trace::StageRow& row) {
  if (as_planned) {
    row.predicted_s = st.predicted_s;
    row.compute_s = st.compute_s;
    row.bound = st.bound;
    row.pod_group = st.bound_group;
    row.bottleneck = st.bound_at;
    row.comm_lower_bound_s = st.comm_lower_bound_s;
    return;
  }
  const StageTiming timing = time_stage(fabric, ran, before, after);
  row.predicted_s = timing.predicted;
  row.compute_s = timing.compute;
  row.bound = timing.bound;
  row.pod_group = -1;
  row.bottleneck.clear();
  row.comm_lower_bound_s = 0;
  explain_ran(fabric, jobs, ran, after, row);
}

std::optional<Seconds> measured_round_time(const std::vector<trace::StageRow>& stages) {
  int ran = 0;
  Seconds end = 0;
  for (const auto& st : stages) {
    if (st.round != 1) continue;
    if (!st.complete) return std::nullopt;
    ++ran;
    end = std::max(end, st.end_s);
  }
  // The run stops when every job has finished, so a round 1 with fewer than four stages was cut short.
  if (ran < 4) return std::nullopt;
  return end;
}

}  // namespace odcn::sched
