#pragma once
// `odcnsim generate dlrm --search PLATFORM`: the DLRM iteration under the parallelisation strategy found by the
// search of systems/topox/dlrm_search.hpp, for one flat_ocs fabric.
#include <string>
#include <vector>

#include "app/workflow.hpp"
#include "graph/task_graph.hpp"
#include "systems/topox/dlrm.hpp"

namespace odcn::app {

struct SearchReport {
  std::vector<std::string> lines;  ///< what generate prints after its own report
};

/// Refuses (InputError) a --set other than name or iterations, a platform that is not flat_ocs or whose servers
/// differ from the DLRM's, an unknown --search-mode; then searches from FlexNet's hybrid strategy and returns the
/// best strategy's job graph. Progress goes to stderr unless o.quiet.
workload::JobGraph searched_dlrm(const GenerateOptions& o, const std::string& preset, workload::DlrmConfig& c,
                                 SearchReport& report);

}  // namespace odcn::app
