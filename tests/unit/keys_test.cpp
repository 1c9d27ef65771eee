// The key tables (spec/keys.hpp) against the readers, key by key: every number is refused just outside the
// table's range and not refused for its range at the bounds; every word of the table is taken and any other is
// refused with the table's words; every section takes exactly the table's keys. So `odcnsim show --list-keys`,
// which prints the tables, says what the readers do.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <functional>
#include <limits>

#include "core/error.hpp"
#include "core/text.hpp"
#include "spec/fabric_kinds.hpp"
#include "spec/graph_workload.hpp"
#include "spec/keys.hpp"
#include "spec/overrides.hpp"
#include "spec/ps_workload.hpp"
#include "spec/workload_spec.hpp"
#include "spec/yaml_reader.hpp"
#include "traces/chakra.hpp"
#include "traces/kineto.hpp"

namespace odcn::spec {
namespace {

/// A kind of document: its table, the reader, and valid documents that between them use every section.
struct Kind {
  const Schema* schema;
  std::function<void(const YAML::Node&)> read;
  std::vector<std::string> bases;
};

std::vector<Kind> kinds() {
  const auto platform = [](const YAML::Node& d) { parse_any_platform(d, "f.yaml"); };
  return {
      {&clos_ocs_keys(), platform,
       {"kind: clos_ocs\npods: {count: 4, gpus_per_pod: 8, tor_gbps: 3200, servers_per_pod: 2, server_gbps: 400}\n"
        "ocs: {ports_per_pod: 4, port_gbps: 100, oxcs: 1, ports_per_oxc: 64, pods_per_group: 4, "
        "reconfig_delay_us: 10}\n"}},
      {&flat_ocs_keys(), platform,
       {"kind: flat_ocs\nservers: {count: 4, nic_ports: 2, nic_gbps: 40}\nocs: {count: 2, ports: 8, "
        "reconfig_delay_ms: 1}\nslot_ms: 1\nflexnet: {segment_kib: 64}\n"}},
      {&photonic_rail_keys(), platform,
       {"kind: photonic_rail\nscaleup: {domains: 4, gpus_per_domain: 4, gbps: 2400}\nnic: {split: 1x400}\n"
        "ocs: {technology: piezo}\n",
        "kind: photonic_rail\nscaleup: {domains: 4, gpus_per_domain: 4, gbps: 2400}\nnic: {split: 1x400}\n"
        "ocs: {reconfig_delay_us: 10, radix: 64}\n"}},
      {&electrical_keys(), platform,
       {"kind: electrical\nservers: {count: 4, gpus_per_server: 2, nic_ports: 2, nic_gbps: 40}\nswitch: single\n"}},
      {&tdm4_workload_keys(), [](const YAML::Node& d) { parse_workload(d, "f.yaml"); },
       {"version: 2\ntraining: {model: physical}\ntraffic: {tor: eq5}\njobs:\n  - {type: ps, model: 1B, "
        "gpus_per_unit: 1, placement: {0: 2, 1: 2}, ps_pod: 0}\n",
        "jobs:\n  - {type: ps, params_gb: 2, gpus_per_unit: 1, placement: {0: 2}, ps_pod: 0}\n",
        "generator: {jobs: 4, models: [1B], types: [rar], gpus_per_unit: {1B: 1}}\n"}},
      {&ps_workload_keys(), [](const YAML::Node& d) { parse_ps_workload(d, "f.yaml", ""); },
       {"ps_jobs:\n  scheduler: {ljf_key: workers}\n  jobs:\n    - {name: a, push_gb: 1, compute_ms: 5, "
        "servers: [[0, 0], [1, 0]]}\n",
        "ps_jobs:\n  generator:\n    jobs: 4\n    models: [{name: m, push_gb: 1, compute_ms: 5}]\n"}},
      {&graph_workload_keys(), [](const YAML::Node& d) { parse_graph_workload(d, "f.yaml", ""); },
       {"job_graphs:\n  - {file: g.json, endpoints: {start: 0, count: 4}}\n",
        "job_graphs:\n  - {format: kineto, file: t.json, endpoints: [0, 1]}\n",
        "job_graphs:\n  - {format: chakra, file: t.et, endpoints: [0, 1]}\n"}},
  };
}

/// The key's field in a document: its first list element where the table path goes through a list.
std::string field_of(const std::string& path) {
  std::string f = path;
  for (auto at = f.find("[]"); at != std::string::npos; at = f.find("[]")) f.replace(at, 2, "[0]");
  return f;
}
/// The same, as --set writes it.
std::string set_path(const std::string& path) {
  std::string f = path;
  for (auto at = f.find("[]"); at != std::string::npos; at = f.find("[]")) f.replace(at, 2, ".0");
  return f;
}

/// The reasons the reader gives about `field` for each base document with `path` set to `value` ("" for a
/// document it takes, or one it refuses for another field).
std::vector<std::string> reasons(const Kind& kind, const std::string& path, const std::string& value) {
  std::vector<std::string> out;
  for (const auto& base : kind.bases) {
    YAML::Node doc = parse_yaml(base, "f.yaml");
    Override o;
    o.path = set_path(path);
    o.value = value;
    o.text = o.path + "=" + value;
    o.platform = true;
    try {
      apply_overrides(doc, {o}, true);
      kind.read(doc);
      out.emplace_back();
    } catch (const InputError& e) {
      out.push_back(e.field() == field_of(path) ? e.reason() : "");
    }
  }
  return out;
}

bool is_range_error(const std::string& reason) {
  return reason.rfind("must be between", 0) == 0 || reason.rfind("must be >", 0) == 0;
}

std::string number(double x, bool whole) {
  if (whole) return std::to_string(static_cast<long long>(x));
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

TEST(KeyTable, EveryNumberIsRefusedJustOutsideItsRangeAndTakenAtItsBounds) {
  int checked = 0;
  for (const auto& kind : kinds())
    for (const auto& k : kind.schema->keys()) {
      if (k.type != KeyType::integer && k.type != KeyType::real && k.type != KeyType::positive) continue;
      SCOPED_TRACE(kind.schema->name() + ": " + k.path);
      const bool whole = k.type == KeyType::integer;
      const auto any = [](const std::vector<std::string>& rs, auto pred) {
        return std::any_of(rs.begin(), rs.end(), pred);
      };
      // Above hi, and below lo (0 itself for a positive key): refused by range, in some document.
      const double above = whole ? k.hi + 1 : std::nextafter(k.hi * (1 + 1e-12), HUGE_VAL);
      EXPECT_TRUE(any(reasons(kind, k.path, number(above, whole)), is_range_error)) << number(above, whole);
      const double below = k.type == KeyType::positive ? 0 : whole ? k.lo - 1 : k.lo == 0 ? -1e-9 : k.lo * (1 - 1e-9);
      EXPECT_TRUE(any(reasons(kind, k.path, number(below, whole)), is_range_error)) << number(below, whole);
      // At the bounds: never refused by range (another field may object to the value).
      const double low = k.type == KeyType::positive ? k.hi * 1e-12 : k.lo;
      for (const double v : {low, k.hi})
        EXPECT_FALSE(any(reasons(kind, k.path, number(v, whole)), is_range_error)) << number(v, whole);
      ++checked;
    }
  EXPECT_GE(checked, 60);
}

TEST(KeyTable, EveryWordIsTakenAndAnotherIsRefusedWithTheTablesWords) {
  int checked = 0;
  for (const auto& kind : kinds())
    for (const auto& k : kind.schema->keys()) {
      if (k.type != KeyType::word) continue;
      SCOPED_TRACE(kind.schema->name() + ": " + k.path);
      bool refused = false;
      for (const auto& r : reasons(kind, k.path, "zzz")) {
        if (r.find("'zzz'") == std::string::npos) continue;  // refused for another reason (model and params_gb)
        refused = true;
        for (const auto& w : k.words) EXPECT_NE(r.find(w), std::string::npos) << r;
      }
      EXPECT_TRUE(refused);
      for (const auto& w : k.words) {
        const auto rs = reasons(kind, k.path, w);
        EXPECT_TRUE(std::any_of(rs.begin(), rs.end(), [](const std::string& r) { return r.empty(); })) << w;
      }
      ++checked;
    }
  EXPECT_GE(checked, 25);
}

TEST(KeyTable, EverySectionTakesExactlyTheTablesKeys) {
  for (const auto& kind : kinds()) {
    std::vector<std::string> sections{""};
    for (const auto& k : kind.schema->keys())
      for (auto dot = k.path.find('.'); dot != std::string::npos; dot = k.path.find('.', dot + 1))
        if (std::find(sections.begin(), sections.end(), k.path.substr(0, dot)) == sections.end())
          sections.push_back(k.path.substr(0, dot));
    for (const auto& section : sections) {
      if (kind.schema->find(section)) continue;  // a key that may also be a mapping (endpoints)
      SCOPED_TRACE(kind.schema->name() + ": " + section);
      const std::string path = section.empty() ? "zzz" : section + ".zzz";
      std::string listed;
      for (const auto& c : kind.schema->children(section)) listed += (listed.empty() ? "" : ", ") + c;
      bool refused = false;
      for (const auto& r : reasons(kind, path, "1"))
        if (!r.empty()) {
          refused = true;
          EXPECT_EQ(r.rfind("unknown key (allowed: " + listed + ")", 0), 0u) << r;
        }
      EXPECT_TRUE(refused);
    }
  }
}

TEST(KeyTable, ImporterDefaultsAreTheImportersOwn) {
  using namespace odcn::workload;
  std::map<std::string, std::string> fallback;
  for (const auto& o : importer_options()) fallback[o.key] = o.fallback;
  KinetoStreams streams{};
  ASSERT_TRUE(parse_kineto_streams(fallback.at("streams"), streams));
  EXPECT_EQ(streams, KinetoOptions{}.streams);
  ChakraCtrlDeps deps{};
  ASSERT_TRUE(parse_chakra_ctrl_deps(fallback.at("ctrl_deps"), deps));
  EXPECT_EQ(deps, ChakraOptions{}.ctrl_deps);
  ChakraCompute compute{};
  ASSERT_TRUE(parse_chakra_compute(fallback.at("compute"), compute));
  EXPECT_EQ(compute, ChakraOptions{}.compute);
  CollectiveAlgorithm algorithm{};
  ASSERT_TRUE(parse_collective_algorithm(fallback.at("algorithm"), algorithm));
  EXPECT_EQ(algorithm, ChakraOptions{}.algorithm);
}

TEST(KeyTable, DefaultsThatDependOnTheComputeModelFollowIt) {
  const Key& tflops = *tdm4_workload_keys().find("training.gpu_tflops");
  EXPECT_EQ(tflops.default_in(parse_yaml("jobs: []\n", "f")), "26");              // TDM-4 §IV.A
  EXPECT_EQ(tflops.default_in(parse_yaml("version: 2\njobs: []\n", "f")), "312");  // A100 BF16
  EXPECT_EQ(tflops.default_in(parse_yaml("training: {model: physical}\n", "f")), "312");
  EXPECT_EQ(tflops.default_in(parse_yaml("training: {model: physical, precision: fp64}\n", "f")), "19.5");
  EXPECT_EQ(tflops.fallback, "(tang-eq8: 26; physical: 312)");
  EXPECT_EQ(tdm4_workload_keys().find("training.efficiency")->fallback, "0.4");  // the same under both
}

TEST(KeyTable, AReaderThatReadsAKeyOutsideItsTableIsABug) {
  const YamlMap m(parse_yaml("pods: {count: 1}\n", "f"), "f", "", &clos_ocs_keys());
  EXPECT_THROW(m.map("pods").integer("colour"), std::logic_error);
  EXPECT_THROW(m.map("pods").integer("count", 1, 2), std::logic_error);  // a range by hand beside the table's
  EXPECT_EQ(m.map("pods").integer("count"), 1);
}

TEST(KeyTable, AGuessIsMadeOnlyWhenOneWordIsNearest) {
  EXPECT_EQ(suggestion("70B", {"1B", "3B", "8B", "90B"}), "did you mean '90B'?");
  EXPECT_EQ(suggestion("7B", {"1B", "3B", "8B", "90B"}), "");  // three at distance 1
  EXPECT_EQ(suggestion("colocatd", {"colocated", "dedicated", "sharded"}), "did you mean 'colocated'?");
  EXPECT_EQ(suggestion("mesh", {"ps", "rar", "alltoall"}), "");
}

TEST(KeyTable, SchemaPathsDropListIndices) {
  EXPECT_EQ(schema_path("ps_jobs.jobs[3].servers"), "ps_jobs.jobs[].servers");
  EXPECT_EQ(schema_path("ocs.port_gbps"), "ocs.port_gbps");
  EXPECT_EQ(tdm4_workload_keys().children("jobs[]").front(), "name");
  EXPECT_TRUE(tdm4_workload_keys().knows("jobs"));
}

}  // namespace
}  // namespace odcn::spec
