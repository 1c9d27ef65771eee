#pragma once
#include <vector>

namespace odcn::net {

/// Number of circuits between each pair of pods, indexed by Fabric::pair_index. Circuits are half-duplex
/// and undirected: the L circuits of pair {i,j} carry i→j and j→i traffic, which share their capacity.
struct CircuitConfig {
  std::vector<int> circuits;

  bool operator==(const CircuitConfig& o) const { return circuits == o.circuits; }
  bool operator!=(const CircuitConfig& o) const { return !(*this == o); }
  /// Σ_pairs |new − old|: circuits torn down plus circuits set up.
  static int changed(const CircuitConfig& from, const CircuitConfig& to);
};

}  // namespace odcn::net
