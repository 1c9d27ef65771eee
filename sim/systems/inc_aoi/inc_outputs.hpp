#pragma once
// INC-AOI's outputs beyond the common ones (Xie, Tang, Chen, Zhu, "Accelerating DML Training in OCS-based DCNs"):
// ps_jobs.csv (each job's shape, placement, INC use, measured inter-rack bytes and the closed forms), slots.csv
// (the controller's decisions per slot), summary.json's inc_aoi block, run.json's jobs, and the console line. Pure.
#include <vector>

#include <nlohmann/json.hpp>

#include "net/network.hpp"
#include "systems/inc_aoi/inc_aoi.hpp"
#include "systems/inc_aoi/ps_jobs.hpp"
#include "trace/output_dir.hpp"
#include "trace/rows.hpp"

namespace odcn::sched {

/// run.json's jobs: each job's model, arrival, push size, compute, iterations and servers.
nlohmann::ordered_json ps_jobs_json(const std::vector<workload::PsJob>& jobs);
/// ps_jobs.csv and slots.csv into `out`, and summary.json's inc_aoi block.
nlohmann::ordered_json inc_extras(trace::OutputDir& out, const std::vector<workload::PsJob>& jobs,
                                  const IncAoiController& c, const net::Network& network, const trace::RunRecord& rec,
                                  Seconds slot_s);
/// The console line about the batch and in-network aggregation.
void print_inc(const nlohmann::ordered_json& extras, const trace::RunRecord& rec, const net::Network& network);

}  // namespace odcn::sched
