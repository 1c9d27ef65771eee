// The key tables of spec/keys.hpp: one per kind of input document. A range, a word list or a default written
// here is the one its reader applies; where a default comes from a model's own table (the compute model's,
// Opus Table 3, FlexNet's options), the entry reads it from there.
#include <fmt/format.h>

#include <limits>

#include "core/limits.hpp"
#include "spec/fabric_kinds.hpp"
#include "spec/graph_workload.hpp"
#include "spec/keys.hpp"
#include "spec/ps_workload.hpp"
#include "spec/workload_spec.hpp"

namespace odcn::spec {

namespace {

using namespace limits;
using Words = std::vector<std::string>;

Key integer(std::string path, double lo, double hi, std::string fallback, std::string help, std::string unit = "") {
  return make_key(KeyType::integer, std::move(path), std::move(unit), lo, hi, std::move(fallback), std::move(help));
}
Key real(std::string path, std::string unit, double lo, double hi, std::string fallback, std::string help) {
  return make_key(KeyType::real, std::move(path), std::move(unit), lo, hi, std::move(fallback), std::move(help));
}
Key word(std::string path, Words words, std::string fallback, std::string help) {
  return make_key(KeyType::word, std::move(path), "", 0, 0, std::move(fallback), std::move(help), std::move(words));
}
Key text(std::string path, std::string fallback, std::string help) {
  return make_key(KeyType::text, std::move(path), "", 0, 0, std::move(fallback), std::move(help));
}
Key gbps(std::string path, std::string fallback, std::string help) {
  return real(std::move(path), "Gb/s", kMinGbps, kMaxGbps, std::move(fallback), std::move(help));
}
/// A duration given in one of two units: `<stem>_us` or `<stem>_ms` (YamlMap::duration reads the pair).
void duration(std::vector<Key>& keys, const std::string& stem, double lo_s, const std::string& help) {
  const std::string leaf = stem.substr(stem.rfind('.') + 1);
  keys.push_back(real(stem + "_us", "us", lo_s * 1e6, kMaxSeconds * 1e6, fmt::format("(or {}_ms)", leaf), help));
  keys.push_back(real(stem + "_ms", "ms", lo_s * 1e3, kMaxSeconds * 1e3, fmt::format("(or {}_us)", leaf), help));
}
std::string g(double x) { return fmt::format("{:g}", x); }

Key name_key() { return text("name", "(the file's path)", "a name for the outputs"); }

}  // namespace

const Schema& clos_ocs_keys() {
  static const Schema s = [] {
    std::vector<Key> k{
        word("kind", {"clos_ocs"}, "", "pods (ToRs) under OXC groups: TDM-4, INC-AOI"), name_key(),
        integer("pods.count", 1, kMaxPods, "", "pods (ToRs)"),
        integer("pods.gpus_per_pod", 1, kMaxGpusPerPod, "", "GPUs under each ToR"),
        gbps("pods.tor_gbps", "", "a ToR's switching capacity (B_tor)"),
        integer("pods.inc_jobs", 0, kMaxJobs, "0", "jobs whose aggregation a ToR can run in-network at once"),
        integer("pods.servers_per_pod", 1, kMaxGpusPerPod, "(none: each pod is one endpoint)",
                "servers under each ToR (with server_gbps)"),
        gbps("pods.server_gbps", "(none)", "each server's NIC (with servers_per_pod)"),
        integer("ocs.ports_per_pod", 1, kMaxPortsPerPod, "", "OCS ports of each ToR (its circuit budget)"),
        gbps("ocs.port_gbps", "", "one circuit's capacity"),
        integer("ocs.oxcs", 1, kMaxOxcs, "", "OXCs: pods / pods_per_group"),
        integer("ocs.ports_per_oxc", 1, kMaxPortsPerOxc, "", "an OXC's radix"),
        integer("ocs.pods_per_group", 2, kMaxPodsPerGroup, "", "pods cabled to one OXC"),
    };
    duration(k, "ocs.reconfig_delay", kMinSeconds, "the OCS reconfiguration delay (stalls the circuits that change)");
    k.push_back(word("ocs.duplex", {"full", "half"}, "half", "whether a circuit carries its capacity each way"));
    k.push_back(word("ocs.base_topology", {"none", "ring", "torus", "all-to-all"}, "none",
                     "circuits lit before any job (INC-AOI's policies)"));
    return Schema("clos_ocs", "platform: pods (ToRs) under OXC groups (TDM-4, INC-AOI)", std::move(k));
  }();
  return s;
}

const Schema& flat_ocs_keys() {
  static const Schema s = [] {
    const FlatOcsSpec::Flexnet f;
    std::vector<Key> k{
        word("kind", {"flat_ocs"}, "", "servers cabled straight to OCSes: TOPO-X"), name_key(),
        integer("servers.count", 2, kMaxPods, "", "servers"),
        integer("servers.gpus_per_server", 1, kMaxGpusPerPod, "4", "GPUs in each server"),
        integer("servers.nic_ports", 1, kMaxPortsPerPod, "", "ports of each server (d_S): one per OCS"),
        gbps("servers.nic_gbps", "", "one port's capacity (B)"),
        integer("ocs.count", 1, kMaxPortsPerPod, "", "OCSes (N_OCS)"),
        integer("ocs.ports", 2, kMaxPortsPerOxc, "", "an OCS's radix (d_OCS)"),
    };
    duration(k, "ocs.reconfig_delay", 0, "the OCS reconfiguration delay (0: an ideal OCS)");
    k.push_back(word("ocs.duplex", {"full", "half"}, "full", "whether a circuit carries its capacity each way"));
    duration(k, "slot", kMinSeconds, "TOPO-X's time slot (tau)");
    k.push_back(integer("flexnet.segment_kib", 1, 1 << 20, g(f.segment_bytes / 1024), "FlexNet's segment size",
                        "KiB"));
    k.push_back(real("flexnet.hop_latency_us", "us", 0, 1e6, g(f.hop_latency_s * 1e6), "FlexNet's network latency"));
    k.push_back(gbps("flexnet.nvlink_gbps", g(f.nvlink_bytes_per_s * 8 / 1e9), "FlexNet's inter-GPU bandwidth"));
    return Schema("flat_ocs", "platform: servers cabled straight to OCSes (TOPO-X)", std::move(k), {"flexnet"});
  }();
  return s;
}

const Schema& photonic_rail_keys() {
  static const Schema s = [] {
    const PhotonicRailSpec r;
    Words technologies;
    for (const auto& t : ocs_technologies()) technologies.push_back(t.name);
    std::vector<Key> k{
        word("kind", {"photonic_rail"}, "", "scale-up domains joined by one OCS per rail: Opus"), name_key(),
        integer("scaleup.domains", 2, kMaxPods, "", "scale-up domains (servers)"),
        integer("scaleup.gpus_per_domain", 1, kMaxGpusPerPod, "", "GPUs in a domain, and so the rails"),
        gbps("scaleup.gbps", "", "each GPU's scale-up bandwidth"),
        word("nic.split", {"1x400", "2x200", "4x100"}, "", "how a GPU's 400 Gb/s NIC is split into ports"),
        word("nic.rings", {"bidirectional", "one-way"}, r.counter_rotating_rings ? "bidirectional" : "one-way",
             "a ring's circuits"),
        word("nic.hop_circuits", {"whole-nic", "split"}, r.split_hop_circuits ? "split" : "whole-nic",
             "whether a hop takes the whole NIC or one port"),
        word("ocs.technology", technologies, "(custom: give reconfig_delay and radix)",
             "an OCS of Opus Table 3 (sets the delay and the radix)"),
    };
    duration(k, "ocs.reconfig_delay", 0, "the OCS reconfiguration delay (overrides the technology's)");
    k.push_back(integer("ocs.radix", 2, kMaxPortsPerOxc, "(the technology's)", "an OCS's ports"));
    k.push_back(word("ocs.duplex", {"full", "half"}, "full", "whether a circuit carries its capacity each way"));
    return Schema("photonic_rail", "platform: scale-up domains joined by one OCS per rail (Opus)", std::move(k));
  }();
  return s;
}

const Schema& electrical_keys() {
  static const Schema s = [] {
    std::vector<Key> k{
        word("kind", {"electrical"}, "", "servers under a non-blocking electrical switch: the baseline"), name_key(),
        integer("servers.count", 2, kMaxPods, "", "servers"),
        integer("servers.gpus_per_server", 1, kMaxGpusPerPod, "", "GPUs in each server"),
        integer("servers.nic_ports", 1, kMaxPortsPerPod, "", "ports of each server"),
        gbps("servers.nic_gbps", "", "one port's capacity"),
        gbps("servers.scaleup_gbps", "(none: GPUs of a server talk through the NIC)", "a server's scale-up fabric"),
        word("switch", {"single", "per_rail"}, "", "one switch, or one per rail"),
    };
    return Schema("electrical", "platform: servers under non-blocking electrical switches (baseline)", std::move(k));
  }();
  return s;
}

}  // namespace odcn::spec
