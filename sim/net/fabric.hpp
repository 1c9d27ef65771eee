#pragma once
#include <utility>
#include <string>
#include <vector>

#include "core/units.hpp"
#include "net/circuit_config.hpp"
#include "spec/platform_spec.hpp"

namespace odcn::net {

/// The `clos_ocs` fabric as data (seed 001 §II.A). Pods are numbered 0..P-1; pod p belongs to OXC group
/// p / pods_per_group. Circuits exist only between pods of one group, so candidate pairs are enumerated
/// group by group: pair_index(a, b) is dense in [0, pair_count()).
class Fabric {
 public:
  explicit Fabric(spec::PlatformSpec spec);

  const spec::PlatformSpec& spec() const { return spec_; }
  int pods() const { return spec_.pods; }
  int groups() const { return spec_.oxcs; }
  int pods_per_group() const { return spec_.pods_per_group; }
  int group_of(int pod) const { return pod / spec_.pods_per_group; }
  int first_pod(int group) const { return group * spec_.pods_per_group; }
  int pairs_per_group() const { return pairs_per_group_; }
  int pair_count() const { return pairs_per_group_ * spec_.oxcs; }
  /// Dense index of the unordered pair {a, b}; -1 when the pods are in different groups or equal.
  int pair_index(int a, int b) const;
  std::pair<int, int> pair_pods(int index) const { return pair_pods_[static_cast<std::size_t>(index)]; }

  BytesPerSecond port_bytes_per_s() const { return spec_.port_bytes_per_s; }
  BytesPerSecond tor_bytes_per_s() const { return spec_.tor_bytes_per_s; }
  Seconds reconfig_delay_s() const { return spec_.reconfig_delay_s; }
  int ports_per_pod() const { return spec_.ports_per_pod; }

  CircuitConfig empty_config() const { return CircuitConfig{std::vector<int>(static_cast<std::size_t>(pair_count()), 0)}; }
  /// Raises ConfigError if a pod uses more than its port budget (Eq. 6) or an OXC more than its radix.
  void check(const CircuitConfig& config) const;
  /// The same without raising: the reason, or "" when the configuration fits.
  std::string violation(const CircuitConfig& config) const;

 private:
  spec::PlatformSpec spec_;
  int pairs_per_group_ = 0;
  std::vector<std::pair<int, int>> pair_pods_;
};

}  // namespace odcn::net
