#pragma once
// Opus's outputs beyond the common ones (Ouyang, Ding, Singh, "Photonic Rails in ML Datacenters", §3.1, §4):
// windows.csv (every window between two parallelism phases of a GPU, marked steady or not), summary.json's fields
// (reconfigurations per iteration; windows per GPU and iteration, the share above 1 ms and the largest, in the
// steady state, overall and per rail), and the console lines. Pure.
#include <vector>

#include <nlohmann/json.hpp>

#include "net/network.hpp"
#include "policy/graph_static.hpp"
#include "systems/opus/opus.hpp"
#include "trace/output_dir.hpp"
#include "trace/rows.hpp"

namespace odcn::sched {

/// windows.csv into `out`, and the summary's fields. `reconfigures` is false on an electrical platform, where
/// Opus only observes (opus_mode "observe").
nlohmann::ordered_json opus_outputs(trace::OutputDir& out, const OpusController& c, const RailGroups& groups,
                                    const std::vector<GraphJob>& jobs, const net::Network& network,
                                    const trace::RunRecord& rec, OpusMode mode, bool reconfigures);
void print_opus(const nlohmann::ordered_json& extras);

}  // namespace odcn::sched
