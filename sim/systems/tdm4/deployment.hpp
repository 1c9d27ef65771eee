#pragma once
#include <string>
#include <vector>

#include "net/fabric.hpp"
#include "systems/tdm4/generator.hpp"
#include "systems/tdm4/job.hpp"

namespace odcn::workload {

struct Deployment {
  std::vector<Job> jobs;              ///< placed jobs, ids dense from 0 in request order
  std::vector<std::string> unplaced;  ///< names of requests that fit in no pod group, with the reason
};

/// Seed 001 §IV.B. Each job goes, whole, to the OXC pod group with the least total traffic among those
/// with room for all its units; inside that group each unit (never split across pods) goes to the pod with
/// the least traffic so far that has U free GPUs. A PS job's server sits in the group's least-loaded pod
/// among the job's pods. A job that fits nowhere is listed in `unplaced`, never dropped silently.
Deployment deploy(const std::vector<JobRequest>& requests, const spec::TrainingParams& training,
                  const net::Fabric& fabric, const std::string& file);

}  // namespace odcn::workload
