#pragma once
// What the INC-AOI command-line tests share: a 4-rack platform, reading a CSV output, and running one policy.
#include <fmt/format.h>

#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_support.hpp"

namespace odcn::test {


// 4 racks of 8 servers; NICs and OCS ports of 40 Gb/s = 5 GB/s; 50 ms reconfiguration; INC for 1 job per ToR.
inline constexpr const char* kPlatform = R"(kind: clos_ocs
pods: {count: 4, gpus_per_pod: 8, tor_gbps: 320, inc_jobs: 1, servers_per_pod: 8, server_gbps: 40}
ocs: {ports_per_pod: 4, port_gbps: 40, oxcs: 1, ports_per_oxc: 16, pods_per_group: 4, reconfig_delay_ms: 50, duplex: full}
)";

inline std::vector<std::vector<std::string>> csv(const std::string& path) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(read_file(path));
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cells;
    std::stringstream s(line);
    for (std::string cell; std::getline(s, cell, ',');) cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}

inline int column(const std::vector<std::vector<std::string>>& rows, const std::string& name) {
  for (std::size_t i = 0; i < rows.at(0).size(); ++i)
    if (rows[0][i] == name) return static_cast<int>(i);
  ADD_FAILURE() << "no column " << name;
  return 0;
}

/// The number in row `row` (1: the first after the header) and column `name`.
inline double cell(const std::vector<std::vector<std::string>>& rows, std::size_t row, const std::string& name) {
  return std::stod(rows.at(row).at(static_cast<std::size_t>(column(rows, name))));
}

/// kPlatform with the OCS's base topology (ocs.base_topology) set to `kind`.
inline std::string with_base(const std::string& kind, std::string platform = kPlatform) {
  return platform.replace(platform.find("duplex: full}"), 13, "duplex: full, base_topology: " + kind + "}");
}

inline nlohmann::json run(const TempDir& dir, const std::string& workload, const std::string& policy,
                          const std::string& name, const std::string& platform = kPlatform) {
  const auto r = odcnsim(fmt::format("run --platform '{}' --workload '{}' --policy {} --quiet --out '{}'",
                                     dir.write("p.yaml", platform), dir.write(name + ".yaml", workload), policy,
                                     dir.path(name)),
                         dir);
  EXPECT_EQ(r.code, 0) << r.err;
  return read_json(dir.path(name) + "/summary.json");
}


}  // namespace odcn::test
