// INC-AOI's topology-engineered OXC (X. Xie, B. Tang, X. Chen, Z. Zhu, "Accelerating DML Training in OCS-based
// DCNs", §II: "OCS switches ... provide diverse connectivity (all-to-all, Torus, etc.) among ToRs"): a base
// topology (the platform's ocs.base_topology) lit at time 0 and never taken down, streams between racks without a
// circuit of their own forwarded through the ToRs of the base ring or torus, and the rule that gives such a pair a
// circuit (docs/inc-aoi.md, "Base topology and forwarding"). Pure: no SimGrid.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "core/error.hpp"
#include "spec/platform_spec.hpp"
#include "systems/inc_aoi/inc_aoi.hpp"

namespace odcn::sched {

namespace {

/// The steps from position a to b on a cycle of n, the shorter way (upwards at a tie), b included.
std::vector<int> cycle_steps(int a, int b, int n) {
  const int up = ((b - a) % n + n) % n;
  const int step = up <= n - up ? 1 : n - 1;
  std::vector<int> out;
  for (int x = a; x != b;) out.push_back(x = (x + step) % n);
  return out;
}

}  // namespace

/// The base topology's circuits: one per ring edge (ring), per torus edge (torus: each rack to the next one in
/// its row and in its column, spec::torus_shape) or per rack pair (all-to-all), within the ports.
void IncAoiController::build_base() {
  base_ = network_.empty_config();
  forwarded_.assign(network_.pairs.size(), 0);
  const std::string& kind = network_.base_topology;
  if (kind == "none") return;
  const int racks = network_.endpoints;
  const auto light = [&](int a, int b) {
    const int p = network_.pair_index(a, b);
    if (p < 0)
      throw ConfigError(fmt::format("base topology {}: racks {} and {} are in different OXC groups", kind, a, b));
    base_.circuits[static_cast<std::size_t>(p)] = 1;
  };
  torus_cols_ = racks;  // a ring is a torus of one row
  if (kind == "torus") torus_cols_ = spec::torus_shape(racks).second;
  if (kind == "ring" || kind == "torus") {
    const int cols = torus_cols_, rows = racks / cols;
    for (int r = 0; r < racks; ++r) {
      const int row = r / cols, col = r % cols;
      if (cols > 1 && (col + 1 < cols || cols > 2)) light(r, row * cols + (col + 1) % cols);
      if (rows > 1 && (row + 1 < rows || rows > 2)) light(r, ((row + 1) % rows) * cols + col);
    }
    forwards_ = racks > 3 || (kind == "ring" && racks > 2);
  } else {
    for (int a = 0; a < racks; ++a)
      for (int b = a + 1; b < racks; ++b) light(a, b);
  }
  for (int r = 0; r < racks; ++r)
    if (circuits_at(base_, r, false) > ports_)
      throw ConfigError(fmt::format("base topology {} needs {} ports at rack {}, which has {}", kind,
                                    circuits_at(base_, r, false), r, ports_));
}

/// The racks from a to b over the base ring or torus: along a's row to b's column, then along that column to b,
/// each the shorter way (upwards at a tie): dimension-order routing, one path per pair.
std::vector<int> IncAoiController::base_path(int a, int b) const {
  const int cols = torus_cols_, rows = network_.endpoints / cols;
  std::vector<int> path{a};
  const int row = a / cols;
  for (int col : cycle_steps(a % cols, b % cols, cols)) path.push_back(row * cols + col);
  for (int r : cycle_steps(row, b / cols, rows)) path.push_back(r * cols + b % cols);
  return path;
}

/// A forwarded pair's path is the same both ways: base_path from the pair's lower rack (hop_load counts it so).
std::vector<int> IncAoiController::forward_path(int from, int to) const {
  const int p = network_.pair_index(from, to);
  if (p < 0 || !forwarded_[static_cast<std::size_t>(p)] || config_.circuits[static_cast<std::size_t>(p)] > 0) return {};
  const auto [a, b] = network_.pairs[static_cast<std::size_t>(p)];
  auto path = base_path(a, b);
  if (from != a) std::reverse(path.begin(), path.end());
  return path;
}

bool IncAoiController::needs_circuit(std::size_t p) const { return need_[p] > 0 && !forwarded_[p]; }

std::vector<int> IncAoiController::committed_ports() const {
  std::vector<int> n(static_cast<std::size_t>(network_.endpoints), 0);
  for (std::size_t p = 0; p < need_.size(); ++p)
    if (base_.circuits[p] > 0 || needs_circuit(p)) {
      n[static_cast<std::size_t>(network_.pairs[p].first)] += std::max(1, base_.circuits[p]);
      n[static_cast<std::size_t>(network_.pairs[p].second)] += std::max(1, base_.circuits[p]);
    }
  return n;
}

/// Streams over each base edge: a base pair in use, and every forwarded pair's path.
std::vector<int> IncAoiController::hop_load() const {
  std::vector<int> load(network_.pairs.size(), 0);
  for (std::size_t q = 0; q < need_.size(); ++q) {
    if (need_[q] == 0) continue;
    if (base_.circuits[q] > 0) ++load[q];
    if (!forwarded_[q]) continue;
    const auto path = base_path(network_.pairs[q].first, network_.pairs[q].second);
    for (std::size_t h = 0; h + 1 < path.size(); ++h)
      ++load[static_cast<std::size_t>(network_.pair_index(path[h], path[h + 1]))];
  }
  return load;
}

/// Whether a circuit of its own pays its delay back for pair p (forwarded now, or about to be): its streams' bytes
/// still to come B (remaining iterations × push and pull), forwarded over hops carrying h streams at most
/// (counting p's), take B·h/c; on a circuit of their own δ + B/c. It pays back when B·(h - 1)/c > δ.
bool IncAoiController::pays_back(std::size_t p, const std::vector<int>& load, int starting) const {
  Bytes remaining = 0;
  std::vector<int> jobs(running_.begin(), running_.end());
  if (starting >= 0 && !running_.count(starting)) jobs.push_back(starting);  // FCFS: the job being started
  for (int j : jobs)
    for (const auto& q : pairs_[static_cast<std::size_t>(j)])
      if (static_cast<std::size_t>(q.index) == p && in_use(j, q))
        remaining += 2.0 * (jobs_[static_cast<std::size_t>(j)].iterations - iterations_done_[static_cast<std::size_t>(j)]) *
                     pair_bytes(j, q);
  const auto path = base_path(network_.pairs[p].first, network_.pairs[p].second);
  int h = 0;
  for (std::size_t k = 0; k + 1 < path.size(); ++k)
    h = std::max(h, load[static_cast<std::size_t>(network_.pair_index(path[k], path[k + 1]))] + (forwarded_[p] ? 0 : 1));
  return remaining * (h - 1) / network_.circuit_bytes_per_s > network_.reconfig_delay_s;
}

/// Each slot: a pair in use without a circuit of its own is forwarded over the base ring or torus, unless a circuit pays
/// back (pays_back) and both racks have a free port; a pair no job uses any more is forgotten.
void IncAoiController::decide_forwarding(const net::CircuitConfig& next, int job) {
  if (!forwards_) return;
  std::vector<char> mine(need_.size(), job < 0);
  if (job >= 0)
    for (const auto& q : pairs_[static_cast<std::size_t>(job)]) mine[static_cast<std::size_t>(q.index)] = 1;
  for (std::size_t p = 0; p < need_.size(); ++p)
    if (need_[p] == 0) forwarded_[p] = 0;
  std::vector<int> committed = committed_ports();  // LJF: kept up to date as pairs are decided
  for (std::size_t p = 0; p < need_.size(); ++p) {
    if (!mine[p] || need_[p] == 0 || base_.circuits[p] > 0 || next.circuits[p] > 0) continue;
    if (job >= 0 && forwarded_[p]) continue;  // FCFS never revisits an earlier allocation
    const auto [a, b] = network_.pairs[p];
    // The pair being decided holds no port yet (committed_ports counts a new pair as needing a circuit).
    const int before = needs_circuit(p);
    committed[static_cast<std::size_t>(a)] -= before;
    committed[static_cast<std::size_t>(b)] -= before;
    const auto used = [&](int r) {
      return is_ljf(policy_) ? committed[static_cast<std::size_t>(r)] : circuits_at(next, r, true);
    };
    const bool room = used(a) < ports_ && used(b) < ports_;
    forwarded_[p] = !(room && pays_back(p, hop_load(), job));
    committed[static_cast<std::size_t>(a)] += needs_circuit(p);
    committed[static_cast<std::size_t>(b)] += needs_circuit(p);
  }
}

}  // namespace odcn::sched
