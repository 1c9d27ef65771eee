#pragma once
// The one table of policies (policy_table.cpp): every policy odcnsim runs is one row, with its variants, the line
// `--help` prints, the workload kinds and platform kinds it accepts, and the pipeline that plans and runs it.
// `run`, `validate`, `compare`, `sweep` and `--help` read this table and nothing else (SimGrid's model tables
// and ns-3's TypeId registry have the same shape: a name, a description, and what to build).
#include <optional>
#include <string>
#include <vector>

#include "spec/fabric_kinds.hpp"

namespace odcn::app {

/// The workload kinds a file can hold (docs/policies.md has the matrix).
enum class WorkloadKind {
  tdm4_jobs,   ///< the TDM-4 paper's jobs: explicit jobs or a generator (spec/workload_spec.hpp)
  ps_jobs,     ///< INC-AOI's parameter-server jobs (spec/ps_workload.hpp)
  job_graphs,  ///< job-graph files and traces placed on endpoints (spec/graph_workload.hpp)
};
std::string to_string(WorkloadKind k);

/// Which planner and controller a row builds. The pipelines in sim/app switch on this, never on a name.
enum class PolicyId { static_circuits, alone, tdm4, aggregate, tdm4_ilp, inc_aoi, opus, topox, topoopt };

struct PolicyEntry {
  std::string name;
  PolicyId id;
  /// NAME:VARIANT spellings; the first is what NAME alone means. Empty: no variants.
  std::vector<std::string> variants;
  std::string help;
  std::vector<WorkloadKind> workloads;
  std::vector<spec::PlatformKind> platforms;  ///< empty: every kind
  /// Why a workload or platform kind is refused, after "policy NAME ...": what the policy schedules.
  std::string schedules;
  /// Whether run measures each job's slowdown against policy alone (a second process beside it). INC-AOI's and
  /// TOPO-X's rows report completion times without it; alone is the baseline itself.
  bool measures_slowdown = true;
};

/// Every row, in the order --help lists them.
const std::vector<PolicyEntry>& policy_table();
/// The first row of a kind (for the rows of one kind, as INC-AOI's five, the first).
const PolicyEntry& entry_of(PolicyId id);

/// A policy as a user names it: the row and the variant ("" when the row has none).
struct PolicyChoice {
  const PolicyEntry* entry = nullptr;
  std::string variant;
  /// NAME, or NAME:VARIANT when a variant was named.
  std::string spelled;
};

/// The row for NAME or NAME:VARIANT, or nothing when there is none.
std::optional<PolicyChoice> find_policy(const std::string& name);
/// The same, raising InputError(file, field, "unknown policy ...; did you mean ...") when there is none.
PolicyChoice policy_or_throw(const std::string& name, const std::string& file, const std::string& field);
/// "static, tdm4, ..." for error messages.
std::string policy_names();
/// --help's text: a line per row with its variants.
std::string policy_help();

/// Raises InputError(workload_file, "jobs", ...) when the workload kind cannot be on this platform kind under any
/// policy (the TDM-4 paper's jobs need clos_ocs). `run` (through check_accepts) and `validate` both say it so.
void check_workload_platform(WorkloadKind workload, const std::string& workload_file, spec::PlatformKind platform);

/// Raises check_workload_platform's refusal, or InputError(origin, field, ...) in one line naming both when the row
/// does not accept this workload kind or platform kind (origin and field: where the user named the policy).
void check_accepts(const PolicyChoice& p, WorkloadKind workload, const std::string& workload_file,
                   spec::PlatformKind platform, const std::string& platform_file,
                   const std::string& origin = "command line", const std::string& field = "--policy");

}  // namespace odcn::app
