#pragma once
#include <utility>
#include <vector>

namespace odcn::sched {

/// Algorithm 3 of seed 001 (the 001 version): form a directed ring over `members` (pods, ascending) that
/// reuses as many already-linked pairs as possible. `linked` is the m×m (m = members.size()) row-major
/// matrix of pairs that already have a circuit, symmetric. Start from every linked pair as arcs in both
/// directions; cap each node's in-degree at 1 by deleting the arc from the neighbour with the highest
/// out-degree, then its out-degree at 1 by deleting the arc to the neighbour with the highest in-degree (ties:
/// lowest index); cut every sub-ring at the arc entering its smallest node; join the remaining paths in order
/// of their first node. Returns the ring's arcs in pods; empty when fewer than two members.
std::vector<std::pair<int, int>> form_ring(const std::vector<int>& members, const std::vector<char>& linked);

}  // namespace odcn::sched
