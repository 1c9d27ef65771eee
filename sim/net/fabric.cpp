#include "net/fabric.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace odcn::net {

Fabric::Fabric(spec::PlatformSpec spec) : spec_(std::move(spec)) {
  const int n = spec_.pods_per_group;
  pairs_per_group_ = n * (n - 1) / 2;
  pair_pods_.reserve(static_cast<std::size_t>(pair_count()));
  for (int g = 0; g < spec_.oxcs; ++g)
    for (int a = 0; a < n; ++a)
      for (int b = a + 1; b < n; ++b) pair_pods_.emplace_back(first_pod(g) + a, first_pod(g) + b);
}

int Fabric::pair_index(int a, int b) const {
  if (a == b || a < 0 || b < 0 || a >= pods() || b >= pods() || group_of(a) != group_of(b)) return -1;
  if (a > b) std::swap(a, b);
  const int n = spec_.pods_per_group;
  const int g = group_of(a);
  const int la = a - first_pod(g);
  const int lb = b - first_pod(g);
  return g * pairs_per_group_ + la * n - la * (la + 1) / 2 + (lb - la - 1);
}

std::string Fabric::violation(const CircuitConfig& config) const {
  if (static_cast<int>(config.circuits.size()) != pair_count())
    return (fmt::format("circuit configuration has {} pairs, fabric has {}", config.circuits.size(),
                                  pair_count()));
  std::vector<int> ports(static_cast<std::size_t>(pods()), 0);
  std::vector<int> oxc_ports(static_cast<std::size_t>(groups()), 0);
  for (int p = 0; p < pair_count(); ++p) {
    const int l = config.circuits[static_cast<std::size_t>(p)];
    if (l < 0) return (fmt::format("negative circuit count on pair {}", p));
    const auto [a, b] = pair_pods(p);
    ports[static_cast<std::size_t>(a)] += l;
    ports[static_cast<std::size_t>(b)] += l;
    oxc_ports[static_cast<std::size_t>(group_of(a))] += 2 * l;  // a circuit joins two OXC ports
  }
  for (int i = 0; i < pods(); ++i)
    if (ports[static_cast<std::size_t>(i)] > spec_.ports_per_pod)  // Eq. (6)
      return (fmt::format("pod {} needs {} OCS ports but has {} (Eq. 6)", i,
                                    ports[static_cast<std::size_t>(i)], spec_.ports_per_pod));
  for (int g = 0; g < groups(); ++g)
    if (oxc_ports[static_cast<std::size_t>(g)] > spec_.ports_per_oxc)
      return (fmt::format("OXC {} needs {} ports but has {}", g, oxc_ports[static_cast<std::size_t>(g)],
                                    spec_.ports_per_oxc));
  return {};
}

void Fabric::check(const CircuitConfig& config) const {
  if (auto v = violation(config); !v.empty()) throw ConfigError(v);
}

}  // namespace odcn::net
