// The one table of policies: names and variants, "did you mean", and the one-line refusal of a combination it does
// not accept, which names the policies that do run it.
#include <gtest/gtest.h>

#include <set>

#include "app/policy_table.hpp"
#include "core/error.hpp"

using namespace odcn;
using namespace odcn::app;

namespace {

std::string refusal(const std::string& policy, WorkloadKind w, spec::PlatformKind p) {
  try {
    check_accepts(*find_policy(policy), w, "w.yaml", p, "p.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "accepted";
}

}  // namespace

TEST(PolicyTable, NamesAndVariants) {
  EXPECT_EQ(find_policy("tdm4")->variant, "multistart");  // NAME alone is the first variant
  EXPECT_EQ(find_policy("tdm4:paper")->variant, "paper");
  EXPECT_EQ(find_policy("tdm4:paper")->entry->id, PolicyId::tdm4);
  EXPECT_EQ(find_policy("opus")->variant, "provisioned");
  EXPECT_EQ(find_policy("opus:on-demand")->entry->id, PolicyId::opus);
  EXPECT_EQ(find_policy("static")->variant, "");
  EXPECT_FALSE(find_policy("tdm4:greedy"));
  EXPECT_FALSE(find_policy("static:x"));
  EXPECT_FALSE(find_policy("fastest"));
  EXPECT_EQ(find_policy("noinc-fcfs")->entry->id, PolicyId::inc_aoi);
  // Names are unique, and every row names the workload kinds it accepts.
  std::set<std::string> names;
  for (const auto& e : policy_table()) {
    EXPECT_TRUE(names.insert(e.name).second) << e.name;
    EXPECT_FALSE(e.workloads.empty()) << e.name;
    EXPECT_EQ(entry_of(e.id).id, e.id);
  }
  EXPECT_EQ(names.size(), 13u);
}

TEST(PolicyTable, UnknownNamesSuggestTheNearest) {
  try {
    policy_or_throw("tdm5", "command line", "--policy");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown policy 'tdm5'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("did you mean 'tdm4'?"), std::string::npos) << e.what();
  }
  try {
    policy_or_throw("opus:ondemand", "grid.yaml", "policies[1]");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("grid.yaml: policies[1]: unknown policy", 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find("did you mean 'opus:on-demand'?"), std::string::npos) << e.what();
  }
}

TEST(PolicyTable, ARefusalNamesBothAndThePoliciesThatRunIt) {
  using W = WorkloadKind;
  using P = spec::PlatformKind;
  EXPECT_EQ(refusal("static", W::job_graphs, P::flat_ocs), "accepted");
  EXPECT_EQ(refusal("opus:on-demand", W::job_graphs, P::electrical), "accepted");
  EXPECT_EQ(refusal("inc-group", W::ps_jobs, P::clos_ocs), "accepted");
  EXPECT_EQ(refusal("inc-ljf", W::job_graphs, P::clos_ocs), "accepted");  // parameter-server graphs
  // The TDM-4 paper's jobs run on pods behind ToRs under every policy: the workload's line, not a policy's.
  EXPECT_EQ(refusal("static", W::tdm4_jobs, P::photonic_rail),
            "w.yaml: jobs: the TDM-4 paper's jobs run on clos_ocs platforms; on this photonic_rail platform, list job "
            "graphs under job_graphs (docs/job-graph.md)");
  EXPECT_EQ(refusal("inc-ljf", W::tdm4_jobs, P::clos_ocs),
            "command line: --policy: policy inc-ljf schedules INC-AOI's parameter-server jobs on racks of servers "
            "(docs/inc-aoi.md), and w.yaml holds the TDM-4 paper's jobs (policies that accept it here: static, tdm4, "
            "aggregate, tdm4-ilp, alone)");
  EXPECT_EQ(refusal("inc-ljf", W::job_graphs, P::photonic_rail),
            "command line: --policy: policy inc-ljf schedules INC-AOI's parameter-server jobs on racks of servers "
            "(docs/inc-aoi.md), and p.yaml is a platform of kind photonic_rail (policies that accept it here: static, opus, "
            "alone)");
  EXPECT_EQ(refusal("topox", W::job_graphs, P::photonic_rail),
            "command line: --policy: policy topox schedules circuits of a flat layer of OCSes (TOPO-X §V) for one job "
            "graph, and p.yaml is a platform of kind photonic_rail (policies that accept it here: static, opus, alone)");
  EXPECT_EQ(refusal("tdm4:paper", W::ps_jobs, P::flat_ocs),
            "command line: --policy: policy tdm4:paper plans the TDM-4 paper's jobs (PS, ring all-reduce, all-to-all) "
            "on pods, and w.yaml holds ps_jobs (no policy accepts it on this platform)");
}
