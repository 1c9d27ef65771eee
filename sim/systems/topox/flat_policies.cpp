#include "systems/topox/flat_policies.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <iostream>
#include <stdexcept>

#include "core/error.hpp"
#include "trace/writers.hpp"

namespace odcn::sched {

namespace {

using Json = nlohmann::ordered_json;

/// slots.csv: per TOPO-X slot, its start, the circuits carrying traffic, those set up and torn down at its start
/// (what the fabric holds, with the next slots' circuits being set up), and the transfers planned to start.
void write_slots_csv(trace::FileWriter csv, const TopoxPlan& plan) {
  csv.write("slot,start_s,circuits,lit,set_up,torn_down,transfers_started\n");
  std::vector<int> started(plan.slots.size(), 0);
  for (int s : plan.start_slot)
    if (s >= 0 && s < static_cast<int>(started.size())) ++started[static_cast<std::size_t>(s)];
  std::vector<net::PortCircuit> before;
  for (std::size_t t = 0; t < plan.slots.size(); ++t) {
    const auto lit = plan.lit_during(static_cast<int>(t));
    int kept = 0;
    for (const auto& c : lit)
      for (const auto& b : before)
        if (b.ocs == c.ocs && b.a == c.a && b.b == c.b) {
          ++kept;
          break;
        }
    csv.write(fmt::format("{},{},{},{},{},{},{}\n", t, trace::num(static_cast<double>(t) * plan.slot_s),
                          plan.slots[t].size(), lit.size(), t == 0 ? 0 : static_cast<int>(lit.size()) - kept,
                          t == 0 ? 0 : static_cast<int>(before.size()) - kept, started[t]));
    before = lit;
  }
  csv.close();
}

/// slot_circuits.csv: every circuit of every slot.
void write_slot_circuits_csv(trace::FileWriter port, const TopoxPlan& plan) {
  port.write("slot,ocs,server_a,server_b\n");
  for (std::size_t t = 0; t < plan.slots.size(); ++t)
    for (const auto& c : plan.slots[t]) port.write(fmt::format("{},{},{},{}\n", t, c.ocs, c.a, c.b));
  port.close();
}

/// TOPO-X: each server's d_S ports as ring paths (half towards its successor, half towards its predecessor), the
/// slot-aligned plan (and its MIP) and the continuous-start plan, the shorter of which runs. topox:paper plans by
/// the paper's reading: Eq. 6 per transfer (no circuit capacity), no reconfiguration term (δ = 0 in the plan,
/// whatever the platform's), slot-aligned starts (Eq. 4); the engine then runs that plan on the fabric as it is.
void plan_topox_job(FlatPlan& p, const spec::FlatOcsSpec& flat, const workload::JobGraph& graph, const GraphJob& job,
                    double mip_seconds, const std::string& file) {
  p.flows = flow_graph(graph, job.endpoints, topox_ring_paths(flat.nic_ports), file, job.field);
  TopoxOptions opt;
  opt.slot_s = flat.slot_s;
  opt.reconfig_delay_s = flat.reconfig_delay_s;
  opt.mip = topox_mip_mode(p.variant);
  opt.time_limit_s = mip_seconds;
  opt.aligned = p.variant == "aligned";  // topox:aligned: Eq. 4's slot-aligned starts only (a sensitivity)
  if (p.variant == "paper") {
    opt.per_transfer = true;
    opt.reconfig_delay_s = 0;
    opt.aligned = true;
  }
  if (p.variant == "eq8") opt.server_circuits = flat.nic_ports / 2;  // Eq. 8's count: in + out <= d_S (plan_flat checks d_S >= 2)
  p.plan = plan_topox(flat, p.flows, opt);
  // The bound for the circuits a server can hold at once. Under Eq. 8's count a server has more ports than
  // circuits, and a spare port can be set up while the others carry traffic: the bound then leaves δ out.
  spec::FlatOcsSpec counted = flat;
  counted.nic_ports = server_circuits_of(flat, opt);
  p.lower_bound_s = topox_lower_bound(counted, p.flows, opt.server_circuits > 0 ? 0.0 : opt.reconfig_delay_s);
  const std::string why = plan_violation(flat, p.flows, p.plan);
  if (!why.empty()) throw std::logic_error("TOPO-X plan breaks a constraint: " + why);
}

/// TopoOpt: TopologyFinder's inputs (each ring all-reduce a data-parallel group, each transfer model-parallel
/// demand), its topology, and the transfers without a direct circuit forwarded hop by hop.
void plan_topoopt_job(FlatPlan& p, const spec::FlatOcsSpec& flat, const workload::JobGraph& graph, const GraphJob& job,
                      const std::string& file) {
  TopologyFinderInput tf;
  tf.servers = flat.servers;
  tf.degree = flat.nic_ports;
  tf.ocs_ports = flat.ocs_ports;
  tf.split = parse_degree_split(p.variant);
  const auto server = [&](int rank) { return job.endpoints[static_cast<std::size_t>(rank)]; };
  for (const auto& t : graph.tasks) {
    if (t.kind == workload::TaskKind::collective) {
      DpGroup g{{}, t.bytes};
      for (int r : t.group) g.members.push_back(server(r));
      tf.dp_groups.push_back(std::move(g));
    } else if (t.kind == workload::TaskKind::transfer && server(t.src) != server(t.dst)) {
      tf.mp_demand[{server(t.src), server(t.dst)}] += t.bytes;
    }
  }
  p.topology = topology_finder(tf);
  const workload::JobGraph lowered = flow_graph(graph, job.endpoints, RingPaths{p.topology.strides}, file, job.field);
  // FlexNet's estimate of the same topology, with the platform's flexnet block (by default TopoOpt's DLRM scripts'
  // --inter-gpu-bandwidth 200 Gb/s and --network-latency 1 µs, FlexNet's 1 MiB segments; k = gpus_per_server).
  p.flexnet = flat.flexnet;
  RingPaths intra{p.topology.strides};
  intra.intra_seconds_per_byte = 2.0 / (flat.gpus_per_server * p.flexnet.nvlink_bytes_per_s);
  p.estimate = flexnet_estimate(
      flow_graph(graph, job.endpoints, intra, file, job.field), [&](int a, int b) { return p.topology.route(a, b); },
      [&](int a, int b) { return p.topology.circuits_between(a, b) * flat.port_bytes_per_s; }, p.flexnet);
  p.hops = multi_hop(
      lowered, [&](int a, int b) { return p.topology.circuits_between(a, b) > 0; },
      [&](int a, int b) { return p.topology.route(a, b); });
  p.flows = std::move(p.hops.graph);
}

Json topox_block(const FlatPlan& p, int late_releases) {
  const TopoxPlan& plan = p.plan;
  const auto if_solved = [&](double v) { return plan.mip.objective_s > 0 ? Json(v) : Json(nullptr); };
  return {{"method", plan.method},
          {"reading", plan.per_transfer ? "paper" : "capacity"},
          {"port_count", plan.server_circuits > 0 ? "in + out (Eq. 8 as written)" : "duplex circuit once"},
          {"planned_iteration_s", plan.makespan_s},
          {"lower_bound_s", p.lower_bound_s},
          {"heuristic_iteration_s", plan.heuristic_makespan_s},
          {"continuous_iteration_s", plan.continuous_makespan_s},
          {"mip_status", plan.mip.status},
          {"mip_objective_s", if_solved(plan.mip.objective_s)},
          {"mip_bound_s", if_solved(plan.mip.bound_s)},
          {"mip_gap", if_solved(plan.mip.gap)},
          {"mip_columns", plan.mip.columns},
          {"mip_rows", plan.mip.rows},
          {"slot_s", plan.slot_s},
          {"slots", plan.slots.size()},
          {"reconfig_slots", plan.reconfig_slots},
          {"late_releases", late_releases},
          {"flow_tasks", p.flows.tasks.size()},
          {"transfers", p.transfers()}};
}

Json topoopt_block(const FlatPlan& p) {
  Json circuits = Json::array();
  for (const auto& c : p.topology.circuits) circuits.push_back({c.ocs, c.a, c.b});
  return {{"degree_split", p.variant},
          {"dp_degree", p.topology.dp_degree},
          {"mp_degree", p.topology.mp_degree},
          {"ring_strides", p.topology.strides},
          {"diameter", p.topology.diameter()},
          {"forwarded_transfers", p.hops.forwarded},
          {"hop_transfers", p.hops.legs},
          {"forwarded_bytes", p.hops.forwarded_bytes},
          {"hop_bytes", p.hops.hop_bytes},
          {"flow_tasks", p.flows.tasks.size()},
          {"transfers", p.transfers()},
          {"flexnet_estimate_s", p.estimate.iteration_s},
          {"flexnet", {{"segment_bytes", p.flexnet.segment_bytes},
                       {"hop_latency_s", p.flexnet.hop_latency_s},
                       {"nvlink_gbps", p.flexnet.nvlink_bytes_per_s * 8 / 1e9},
                       {"segments", p.estimate.segments}}},
          {"circuits", circuits}};
}

void print_topox(const FlatPlan& p, int late_releases, const trace::RunRecord& rec) {
  const TopoxPlan& plan = p.plan;
  std::cout << fmt::format("  TOPO-X plan       {} slots of {:.3f} ms, {} for {} transfers; planned iteration "
                           "{:.6f} s (slot-aligned heuristic {:.6f} s, continuous starts {:.6f} s)\n",
                           plan.slots.size(), plan.slot_s * 1e3, plan.method, p.transfers(), plan.makespan_s,
                           plan.heuristic_makespan_s, plan.continuous_makespan_s)
            << fmt::format("  lower bound       {:.6f} s for any plan that respects capacity (critical path with "
                           "all-to-all slots, each server's port time and port slots; docs/topox.md); the plan is "
                           "{:.1f} % {}\n",
                           p.lower_bound_s, p.lower_bound_s > 0 ? 100 * std::abs(plan.makespan_s / p.lower_bound_s - 1) : 0.0,
                           plan.makespan_s < p.lower_bound_s ? "below it (it shares circuits at full rate)" : "above it")
            << fmt::format("  MIP               {}{}\n", plan.mip.status,
                           plan.mip.columns > 0 && plan.mip.rows > 0
                               ? fmt::format(" ({} columns, {} rows, {:.1f} s)", plan.mip.columns, plan.mip.rows,
                                             plan.mip.wall_s)
                               : "");
  if (late_releases > 0)
    std::cout << fmt::format("  late transfers    {} started after their planned time\n", late_releases);
  if (plan.per_transfer) {  // the paper's reading: the plan shares circuits at full rate; the engine cannot
    Seconds longest = 0;
    for (const auto& row : rec.iterations) longest = std::max(longest, row.end_s - row.start_s);
    std::cout << fmt::format("  paper's reading   Eq. 6 per transfer, no reconfiguration term: planned {:.6f} s, "
                             "executed on the fabric's capacities {:.6f} s (longest iteration)\n",
                             plan.makespan_s, longest);
    return;
  }
  for (const auto& row : rec.iterations)
    if (row.end_s - row.start_s > plan.makespan_s + plan.reconfig_slots * plan.slot_s + 1e-9) {
      std::cerr << fmt::format("odcnsim: warning: iteration {} took {:.6f} s on the engine, longer than TOPO-X's "
                               "plan ({:.6f} s): the plan's bound does not hold (please report it)\n",
                               row.iteration, row.end_s - row.start_s, plan.makespan_s);
      break;
    }
}

}  // namespace

int FlatPlan::transfers() const {
  int n = 0;
  for (const auto& t : flows.tasks) n += t.kind == workload::TaskKind::transfer ? 1 : 0;
  return n;
}

FlatPlan plan_flat(const spec::FlatOcsSpec& flat, const std::string& platform_file, const workload::JobGraph& graph,
                   const GraphJob& job, bool topox, const std::string& variant, double mip_seconds,
                   const std::string& file) {
  const char* policy = topox ? "topox" : "topoopt";
  if (flat.duplex != spec::Duplex::full)
    throw InputError(platform_file, "ocs.duplex",
                     fmt::format("policy {} needs full-duplex circuits (TOPO-X and TopoOpt's links carry B each way; "
                                 "got half)",
                                 policy));
  if (topox && !(flat.slot_s > 0))
    throw InputError(platform_file, "slot_ms", "policy topox needs the time slot τ (slot_ms or slot_us)");
  if (topox && variant == "eq8" && flat.nic_ports < 2)
    throw InputError(platform_file, "servers.nic_ports",
                     fmt::format("policy topox:eq8 counts a circuit once in and once out (Eq. 8, in + out <= d_S) "
                                 "and needs at least 2 ports per server, not {}",
                                 flat.nic_ports));
  FlatPlan p;
  p.topox = topox;
  p.variant = variant;
  if (topox)
    plan_topox_job(p, flat, graph, job, mip_seconds, file);
  else
    plan_topoopt_job(p, flat, graph, job, file);
  return p;
}

Json flat_extras(trace::OutputDir& out, const FlatPlan& p, int late_releases) {
  if (!p.topox) return {{"topoopt", topoopt_block(p)}};
  write_slots_csv(out.open("slots.csv"), p.plan);
  write_slot_circuits_csv(out.open("slot_circuits.csv"), p.plan);
  return {{"topox", topox_block(p, late_releases)}};
}

void print_flat(const FlatPlan& p, int late_releases, const trace::RunRecord& rec) {
  if (p.topox) {
    print_topox(p, late_releases, rec);
    return;
  }
  std::cout << fmt::format("  TopoOpt topology  ring strides {{{}}}, dp degree {}, mp degree {}, diameter {}\n",
                           fmt::join(p.topology.strides, ","), p.topology.dp_degree, p.topology.mp_degree,
                           p.topology.diameter())
            << fmt::format("  forwarding        {} transfers without a direct circuit became {} hop transfers\n",
                           p.hops.forwarded, p.hops.legs)
            << fmt::format("  FlexNet estimate  {:.6f} s per iteration (TopoOpt's own cost model: exclusive links, "
                           "{:g} KiB segments, {:g} us per hop, the intra-server all-reduce term; docs/topox.md)\n",
                           p.estimate.iteration_s, p.flexnet.segment_bytes / 1024, p.flexnet.hop_latency_s * 1e6);
}

}  // namespace odcn::sched
