#pragma once
// TDM-4's outputs beyond the common ones (Tang, Chen, Zhu, "Scheduling Multiple AI Models in Optical Data Center
// Networks with a Time-Division Multiplexing-based Multi-Stage Strategy"): run.json's description of the clos_ocs
// platform, the training model and the deployed jobs; summary.json's round, grouping and stage fields; stages.csv;
// and the console lines about the round. Pure: no SimGrid.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "spec/platform_spec.hpp"
#include "spec/workload_spec.hpp"
#include "systems/tdm4/job.hpp"
#include "systems/tdm4/plan.hpp"
#include "trace/output_dir.hpp"
#include "trace/rows.hpp"

namespace odcn::sched {

using Json = nlohmann::ordered_json;

/// run.json: the platform as built, the training model, the deployed jobs.
Json platform_json(const spec::PlatformSpec& p);
Json training_json(const spec::TrainingParams& t);
Json jobs_json(const std::vector<workload::Job>& jobs);

/// summary.json's fields of a TDM policy (tdm4, aggregate, tdm4-ilp), and stages.csv into `out`. A note is added
/// when no full round was measured.
Json tdm_extras(trace::OutputDir& out, const TdmPlan& plan, const trace::RunRecord& rec,
                const std::vector<workload::Job>& jobs, std::vector<std::string>& notes);
/// The console lines about the round, its groups and its stages' bottlenecks.
void print_tdm(const TdmPlan& plan, const Json& extras, bool searched);

}  // namespace odcn::sched
