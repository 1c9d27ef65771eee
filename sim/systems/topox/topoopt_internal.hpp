#pragma once
// What TopoOpt's files share (systems/topox/topoopt.hpp); private to systems/topox.

namespace odcn::sched::topoopt_internal {

inline const char* const kWho = "TopoOpt's TopologyFinder";

}  // namespace odcn::sched::topoopt_internal
