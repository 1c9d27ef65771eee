#pragma once
// Small fabrics and jobs built in code for tests.
#include <map>

#include "net/fabric.hpp"
#include "spec/fabric_kinds.hpp"
#include "spec/platform_spec.hpp"
#include "systems/tdm4/job.hpp"

namespace odcn::test {

/// A flat_ocs platform (TOPO-X) of `servers` servers with `ports` ports each, one OCS per port with a port per
/// server, ports of 1e9 B/s (so that 1e6 bytes take 1 ms), time slot `slot` and reconfiguration delay `delay`.
inline spec::FlatOcsSpec flat_ocs(int servers, int ports, Seconds slot, Seconds delay = 0) {
  spec::FlatOcsSpec f;
  f.file = "test";
  f.servers = servers;
  f.nic_ports = ports;
  f.ocs_count = ports;
  f.ocs_ports = servers;
  f.port_bytes_per_s = 1e9;
  f.slot_s = slot;
  f.reconfig_delay_s = delay;
  f.duplex = spec::Duplex::full;
  return f;
}

/// One OXC group of `pods` pods; B = port_gbps, B_tor = tor_gbps.
inline spec::PlatformSpec small_platform(int pods = 8, int ports_per_pod = 4, double port_gbps = 150,
                                         double tor_gbps = 600, double delay_us = 200, int groups = 1) {
  spec::PlatformSpec p;
  p.file = "test-platform";
  p.name = "test";
  p.pods = pods * groups;
  p.gpus_per_pod = 64;
  p.tor_bytes_per_s = gbps_to_bytes_per_s(tor_gbps);
  p.ports_per_pod = ports_per_pod;
  p.port_bytes_per_s = gbps_to_bytes_per_s(port_gbps);
  p.oxcs = groups;
  p.pods_per_group = pods;
  p.ports_per_oxc = pods * ports_per_pod;
  p.reconfig_delay_s = microseconds(delay_us);
  return p;
}

/// INC-AOI's small clos_ocs platform (Xie, Tang, Chen, Zhu): 4 racks of 8 servers in one OXC group, NICs and
/// OCS ports of 5 GB/s (40 Gb/s) each way on duplex circuits, δ = 50 ms, `ports` ports a rack, INC for
/// `inc_jobs` jobs per ToR.
inline spec::PlatformSpec inc_platform(int ports = 4, int inc_jobs = 1) {
  spec::PlatformSpec p;
  p.file = "p.yaml";
  p.pods = 4;
  p.gpus_per_pod = 8;
  p.tor_bytes_per_s = 8 * 5e9;
  p.ports_per_pod = ports;
  p.port_bytes_per_s = 5e9;
  p.oxcs = 1;
  p.ports_per_oxc = 16;
  p.pods_per_group = 4;
  p.reconfig_delay_s = 0.05;
  p.inc_jobs = inc_jobs;
  p.servers_per_pod = 8;
  p.server_bytes_per_s = 5e9;
  p.duplex = spec::Duplex::full;
  return p;
}

/// A job placed explicitly; training time given (not Eq. 8) so tests can pick round numbers.
inline workload::Job make_test_job(const net::Fabric& fabric, int id, spec::JobType type, double params_gb,
                                   int gpus_per_unit, std::map<int, int> placement, int ps_pod = -1,
                                   double train_s = 1.0, double aggregate_s = 0.5) {
  spec::JobSpec js;
  js.name = "job" + std::to_string(id);
  js.type = type;
  js.params_gb = params_gb;
  js.gpus_per_unit = gpus_per_unit;
  js.placement = std::move(placement);
  js.ps_pod = ps_pod;
  js.train_s = train_s;
  if (type == spec::JobType::ps) js.aggregate_s = aggregate_s;
  std::vector<int> free_gpus(static_cast<std::size_t>(fabric.pods()), fabric.spec().gpus_per_pod);
  return workload::make_job(js, id, spec::TrainingParams{}, fabric, free_gpus, "test", "job");
}

}  // namespace odcn::test
