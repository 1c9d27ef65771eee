#pragma once
// The researcher's workflow around `run`: `compare` (one workload under several policies, one table) and
// `sweep` (a grid of --set values × policies × seeds, run here in parallel or handed to GNU parallel or Slurm,
// gathered into one tidy CSV). Both run each point as a child `odcnsim run` (SimGrid's engine is one per
// process) into its own output folder, so every point is an ordinary, reproducible run. Also the commands that
// write job-graph files: `generate`, `import` and `export`. Each command is defined in its own sim/app/cmd_*.cpp;
// what they share is in app/workflow_support.hpp.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "spec/overrides.hpp"

namespace odcn::app {

struct CompareOptions {
  std::string platform;
  std::string workload;
  std::vector<std::string> policies;
  std::string baseline;  ///< empty: the first policy
  int iterations = 0;    ///< 0: run's default
  std::optional<std::uint64_t> seed;
  std::vector<std::uint64_t> seeds;  ///< --seeds: each policy once per seed, with statistics (not with seed)
  std::vector<spec::Override> overrides;
  std::string out;
  bool force = false;  ///< write into a folder that holds other files (they are kept)
  int parallel = 0;    ///< runs at once; 0: one per policy, at most the number of CPUs
  std::string trace = "none";
  bool slowdown = true;
  bool quiet = false;
  std::string self;  ///< this executable
};
int compare_command(const CompareOptions& o);

/// A grid given on the command line instead of a GRID.yaml (sweep --platform ... --set KEY=V1,V2 ...).
struct InlineGrid {
  std::string platform, workload;
  std::vector<std::string> policies;
  std::vector<std::uint64_t> seeds;  ///< empty: none
  std::vector<std::string> sets;     ///< KEY=V1,V2,...: the values of KEY to sweep
  int iterations = 0;                ///< 0: run's default
  bool slowdown = true;
};

struct SweepOptions {
  std::string grid;     ///< GRID.yaml (empty with an inline grid)
  std::optional<InlineGrid> inline_grid;
  std::string out;      ///< folder of the sweep
  std::string collect;  ///< --collect DIR: only gather DIR's finished points into DIR/sweep.csv
  std::string emit;     ///< "", "parallel" or "slurm": write the commands instead of running them
  int parallel = 0;     ///< -j; 0: the number of CPUs
  bool keep_traces = false;
  bool force = false;
  bool quiet = false;
  std::string self;
  /// --emit slurm: each task's time limit (minutes) and memory (MiB); 0: estimated from probe runs here.
  int slurm_minutes = 0;
  int slurm_mib = 0;
};
int sweep_command(const SweepOptions& o);

/// `odcnsim diff A B [--json]`: two run, compare or sweep folders side by side (app/diff.hpp). Reads only.
struct DiffOptions {
  std::string a, b;
  bool json = false;  ///< one JSON document instead of text
};
int diff_command(const DiffOptions& o);

/// `odcnsim report DIR [--out FILE]`: one self-contained HTML page of a run or compare folder, written by
/// python/odcnsim/report.py run with /usr/bin/python3 (app/cmd_report.cpp).
struct ReportOptions {
  std::string dir;
  std::string out;     ///< empty: DIR/report.html
  bool force = false;  ///< replace a file at --out that is not an earlier report
  bool quiet = false;
};
int report_command(const ReportOptions& o);

/// `odcnsim generate torchtitan|dlrm --preset NAME [--set KEY=VALUE ...] --out FILE`: a TorchTitan-like training
/// iteration (systems/opus/torchtitan.hpp) or a DLRM iteration of TOPO-X's Table II (systems/topox/dlrm.hpp) written as a
/// job-graph file.
struct GenerateOptions {
  std::string kind;                 ///< torchtitan or dlrm
  std::string preset;               ///< empty: the kind's default, llama3-8b (torchtitan) or table2-2 (dlrm)
  std::vector<std::string> sets;    ///< KEY=VALUE, applied in order
  std::string out;
  bool force = false;               ///< replace an existing file
  bool quiet = false;
  /// dlrm: search the parallelisation for this flat_ocs platform (systems/topox/dlrm_search.hpp); empty: none.
  std::string search;
  int search_budget = 5000;
  std::uint64_t search_seed = 1;
  std::string search_mode = "anneal";  ///< anneal (ours) or flexnet (FlexNet's MCMC as released)
  std::string search_cost = "topox";   ///< topox (TOPO-X's lower bound) or topoopt (FlexNet's estimate of TopoOpt)
  /// topox cost: the cheapest strategies TOPO-X's planner judges at the end (with the hybrid); unset: 4.
  std::optional<int> search_finalists;
};
int generate_command(const GenerateOptions& o);

/// `odcnsim import kineto|chakra FILE... --out GRAPH.json`: per-rank traces (traces/graph_source.hpp) written as
/// one job-graph file, with what was imported on stdout.
struct ImportOptions {
  std::string format;               ///< kineto or chakra
  std::vector<std::string> files;
  std::optional<int> step;          ///< kineto
  bool replicate = false;           ///< kineto
  std::string streams;              ///< kineto: serial or concurrent
  std::string groups;               ///< chakra
  std::string ctrl_deps;            ///< chakra: order or caller
  int ranks = 0;                    ///< chakra
  std::string algorithm;            ///< chakra: ring or direct
  std::string compute;              ///< chakra: serial or overlap
  std::string name;                 ///< "": the importer's default
  int iterations = 0;               ///< 0: the importer's default (1)
  std::string out;
  bool force = false;
  bool quiet = false;
};
int import_command(const ImportOptions& o);

/// `odcnsim export chakra GRAPH.json --out DIR`: a job-graph file as Chakra ET files, DIR/<name>.<rank>.et, and
/// their process groups, DIR/<name>.groups.json (ASTRA-sim's --comm-group-configuration).
struct ExportOptions {
  std::string format;  ///< chakra
  std::string graph;
  std::string out;
  std::string reader = "odcnsim";  ///< --for: odcnsim (exact round trip) or astra-sim
  bool force = false;
  bool quiet = false;
};
int export_command(const ExportOptions& o);

}  // namespace odcn::app
