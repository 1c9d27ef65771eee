#include "net/circuit_config.hpp"

#include <cstdlib>

namespace odcn::net {

int CircuitConfig::changed(const CircuitConfig& from, const CircuitConfig& to) {
  int n = 0;
  for (std::size_t p = 0; p < to.circuits.size(); ++p)
    n += std::abs(to.circuits[p] - (p < from.circuits.size() ? from.circuits[p] : 0));
  return n;
}

}  // namespace odcn::net
