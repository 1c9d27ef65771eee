#include "sched/tdm4_ilp.hpp"

#include "core/error.hpp"

namespace odcn::sched {

TdmPlan plan_tdm4_ilp(const net::Fabric&, const std::vector<workload::Job>&, const IlpOptions&) {
  throw ConfigError("tdm4-ilp is not implemented yet");
}

}  // namespace odcn::sched
