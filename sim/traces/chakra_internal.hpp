#pragma once
// Chakra internals shared by reading nodes (chakra_nodes.cpp), reading files (chakra.cpp) and writing them
// (chakra_write.cpp); private to traces/.
#include <string>

#include "et_def.pb.h"
#include "traces/chakra.hpp"

namespace odcn::workload::chakra_internal {

namespace pb = ChakraProtoMsg;
using Kind = RankEvent::Kind;

// Attributes odcnsim adds to plain Chakra so that its own graphs come back exactly (docs/traces-chakra.md).
// Other readers ignore attributes they do not know (chakra's feeder keeps them as "other attrs").
inline constexpr const char* kDurationAttr = "odcnsim_duration_s";    // double: the exact seconds of a compute node
inline constexpr const char* kRootAttr = "odcnsim_root";              // integer: a broadcast's root, as a global rank
inline constexpr const char* kEdgeAttr = "odcnsim_dependency_only";   // bool: a BARRIER that only carries dependencies
/// bool: an ALL_REDUCE of one byte standing for a BARRIER, in exports for ASTRA-sim (which does not implement
/// BARRIER); odcnsim reads it back as the barrier.
inline constexpr const char* kBarrierAttr = "odcnsim_barrier";
inline constexpr const char* kRankAttr = "odcnsim_rank";              // GlobalMetadata, integer: the rank written

// A Chakra attribute value kind, for messages ("string_val", "int64_list", ...).
std::string value_kind(const pb::AttributeProto& a);

// One node as an event (without its dependencies).
RankEvent event_of(const pb::Node& n, const std::string& file, const std::string& base, int rank,
                   const ChakraGroups& groups, int world);

}  // namespace odcn::workload::chakra_internal
