// TOPO-X's planner on the 16-server rows of Table III (Hu et al., "TOPO-X: Co-optimize Flow Scheduling, Topology,
// and ML Training Parallelism"): the DLRM of Table II configuration 2 on 16 servers with 4 or 8 ports of 10, 25,
// 40, 100 and 200 Gb/s, τ = 1 ms, δ = 0 or 1 ms, planned as `--policy topox` plans it (heuristics only; the MIP
// does not fit these rows). Two properties of the plans, not of any one number:
//   - more bandwidth never makes a plan longer (rows 5-9 and 10-14 each, at both δ);
//   - at δ = 0 every plan ends within 10 % of topox_lower_bound (docs/topox.md, "A lower bound").
// Every plan also keeps Eq. 6-10 (plan_violation) and stays at or above the bound.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>

#include "systems/topox/dlrm.hpp"
#include "systems/topox/topox.hpp"
#include "support/fabrics.hpp"

using namespace odcn;
using namespace odcn::sched;

namespace {

struct Row {
  int number = 0, ports = 0;
  double gbps = 0;
};

TEST(TopoxTable3, PlansAreMonotoneInBandwidthAndWithinTenPercentOfTheBoundAtNoDelay) {
  const auto graph = workload::build_dlrm(workload::dlrm_preset("table2-2"));
  std::vector<int> endpoints;
  for (int s = 0; s < 16; ++s) endpoints.push_back(s);
  const Row rows[] = {{5, 4, 10},  {6, 4, 25},  {7, 4, 40},  {8, 4, 100},  {9, 4, 200},
                      {10, 8, 10}, {11, 8, 25}, {12, 8, 40}, {13, 8, 100}, {14, 8, 200}};
  for (const Seconds delay : {0.0, 1e-3}) {
    Seconds previous = 0;
    int previous_ports = 0;
    for (const Row& row : rows) {
      auto f = test::flat_ocs(16, row.ports, 1e-3, delay);
      f.port_bytes_per_s = row.gbps * 1e9 / 8;
      RingPaths rings;  // as policy topox lowers a ring all-reduce: half the ports each way round the ring
      for (int r = 0; r < row.ports; ++r) rings.strides.push_back(r % 2 == 0 ? 1 : -1);
      const auto flows = flow_graph(graph, endpoints, rings, "dlrm", "job_graphs[0]");
      TopoxOptions o;
      o.slot_s = f.slot_s;
      o.reconfig_delay_s = delay;
      o.mip = "never";
      o.aligned = false;  // both heuristics, the shorter plan (policy topox; topox:aligned keeps Eq. 4 only)
      const auto plan = plan_topox(f, flows, o);
      const Seconds bound = topox_lower_bound(f, flows, delay);
      const std::string what = fmt::format("row {}, δ = {} ms: planned {:.3f} ms, bound {:.3f} ms", row.number,
                                           1e3 * delay, 1e3 * plan.makespan_s, 1e3 * bound);
      EXPECT_EQ(plan_violation(f, flows, plan), "") << what;
      EXPECT_GE(plan.makespan_s, bound - 1e-12) << what;
      if (delay == 0) {
        EXPECT_LE(plan.makespan_s, 1.10 * bound) << what;
      }
      if (row.ports == previous_ports) {
        EXPECT_LE(plan.makespan_s, previous + 1e-12) << what << ", slower than the row before";
      }
      RecordProperty(fmt::format("row{}_delay{}_gap_percent", row.number, 1e3 * delay),
                     fmt::format("{:.1f}", 100 * (plan.makespan_s / bound - 1)));
      previous = plan.makespan_s;
      previous_ports = row.ports;
    }
  }
}

}  // namespace
