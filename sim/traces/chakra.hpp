#pragma once
// MLCommons Chakra execution traces (ET): the importer and the writer (docs/traces-chakra.md).
//
// An ET file holds one rank's trace: length-delimited protobuf messages (et_def.proto), a GlobalMetadata then
// one Node per message. The importer reads each file with protobuf's own CodedInputStream into a RankTrace:
//   * COMP_NODE, MEM_LOAD_NODE, MEM_STORE_NODE: compute of duration_micros (0: an ordering point that takes no
//     time); METADATA_NODE and INVALID_NODE: ordering points (ASTRA-sim skips them the same way);
//   * COMM_COLL_NODE with comm_type and comm_size: a collective of its process group (pg_name, looked up in
//     the groups file; no pg_name: every rank of the job); BARRIER: an ordering point across the group;
//     REDUCE, GATHER and SCATTER are refused (odcnsim's algorithm library has none); a COMM_COLL_NODE without
//     comm attributes is the CPU-side launch of a collective (is_cpu_op true) and computes for its duration;
//   * COMM_SEND_NODE / COMM_RECV_NODE: a message to comm_dst / from comm_src of comm_size bytes;
//   * dependencies: data_deps, and ctrl_deps unless told they are the caller (chakra's PyTorch converter).
// assemble_job_graph (rank_trace.hpp) then joins the ranks. Anything the importer cannot read exactly (a
// truncated file, a dependency on a node that is not in the file, a process group it cannot resolve, an
// operation it cannot model) is refused with InputError(file, field, reason); nothing is guessed.
//
// The writer is the inverse: one ET file per rank and a groups file, which import_chakra reads back to a graph
// with the same tasks of each kind, the same bytes per collective and group, and the same dependencies
// (docs/traces-chakra.md says what it adds to plain Chakra to keep them exact).
#include <map>
#include <string>
#include <vector>

#include "graph/collective.hpp"
#include "traces/rank_trace.hpp"
#include "graph/task_graph.hpp"

namespace odcn::workload {

/// What a node's ctrl_deps mean.
enum class ChakraCtrlDeps {
  /// A dependency, like data_deps: the schema's "control dependency", as ASTRA-sim's feeder resolves it
  /// (astra-sim/chakra src/feeder_v3: common.h USE_CTRL_DEPS = true, and dependancy_solver.cpp puts data_deps and
  /// ctrl_deps alike into the layer that decides when a node may issue). An entry naming a node that is not in
  /// the file is refused (in that feeder such a node would never issue).
  order,
  /// The node's caller, as chakra's PyTorch converter writes them (its convert_ctrl_dep_to_data_dep turns the
  /// call stack into data_deps and keeps the parent in ctrl_deps); not an ordering, so ignored. Chakra's own
  /// feeder (src/feeder/et_feeder.cpp) schedules on data_deps only.
  caller,
};
/// "order" or "caller"; false for anything else.
bool parse_chakra_ctrl_deps(const std::string& name, ChakraCtrlDeps& out);
const char* to_string(ChakraCtrlDeps c);

/// Whether a rank's compute nodes may run at the same time.
enum class ChakraCompute {
  /// One at a time per kind, in the rank's order (topological, file order among nodes ready together): CPU
  /// operations (is_cpu_op, and the CPU-side launches of collectives), GPU kernels (the other COMP_NODEs) and
  /// memory nodes each form one chain, as on one CPU thread and one CUDA stream. ASTRA-sim's HardwareResource
  /// (astra-sim/workload/HardwareResource.cc at 043f2ec) likewise keeps at most one CPU, one GPU and one memory operation per NPU in flight (it picks among the ready
  /// ones as they come; this order is fixed when the trace is read).
  serial,
  /// As the dependencies allow: nodes that do not depend on each other overlap, however many.
  overlap,
};
bool parse_chakra_compute(const std::string& name, ChakraCompute& out);
const char* to_string(ChakraCompute c);

struct ChakraOptions {
  /// Optional JSON object {"<pg_name>": [global ranks...], ...}, ASTRA-sim's --comm-group-configuration file.
  /// A collective whose pg_name is neither in it nor "0" (the default group) is refused.
  std::string groups_file;
  /// Job name; empty: the first file's name without its directory, its .et ending and its rank number
  /// ("chakra.0.et": "chakra"; job_name_of_file).
  std::string name;
  int iterations = 1;
  /// 0: file i is rank i and the job has one rank per file. More: the files are ranks 0..k-1 of an SPMD job of
  /// this many ranks, and the others are copies of the first (replicate_ranks); only when asked for.
  int ranks = 0;
  ChakraCtrlDeps ctrl_deps = ChakraCtrlDeps::order;
  ChakraCompute compute = ChakraCompute::serial;
  /// For all-reduce, reduce-scatter, all-gather and broadcast (Chakra leaves the algorithm to the simulator;
  /// all-to-all is always direct).
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::ring;
};

/// Process groups by pg_name: their global ranks as the groups file lists them.
using ChakraGroups = std::map<std::string, std::vector<int>>;

/// Reads a groups file's text (named `file` in errors): a JSON object of non-empty lists of distinct ranks
/// below `world`. Raises InputError.
ChakraGroups parse_chakra_groups(const std::string& text, const std::string& file, int world);

/// One rank's ET file (its bytes; named `file` in errors) as a RankTrace of global rank `rank` in a job of
/// `world` ranks: one event per node, in a topological order of the node dependencies (file order among
/// independent nodes), every event with explicit deps. Raises InputError. Entry point for fuzzing.
RankTrace parse_chakra_rank(const std::string& bytes, const std::string& file, int rank, const ChakraGroups& groups,
                            int world, ChakraCtrlDeps ctrl_deps = ChakraCtrlDeps::order,
                            ChakraCompute compute = ChakraCompute::serial);

/// The files in rank order: when they are one workload's files named as ASTRA-sim names them,
/// <prefix>.0.et ... <prefix>.<n-1>.et (as a shell's glob lists them: .10.et before .2.et), by the rank in
/// their names; otherwise as given. The same rank named twice is refused.
std::vector<std::string> chakra_rank_order(const std::vector<std::string>& files);
/// Imports a job from its ranks' ET files: file i of chakra_rank_order(files) is rank i (read_input_file's
/// limits: 64 MiB each), the groups file from options.groups_file. Raises InputError.
JobGraph import_chakra(const std::vector<std::string>& files, const ChakraOptions& options);

/// Serialized ET files: ranks[i] is rank i's file, groups_json the groups file (ASTRA-sim's format).
struct ChakraFiles {
  std::vector<std::string> ranks;
  std::string groups_json;
};

/// The same as import_chakra from memory: rank i's bytes are files.ranks[i], named names[i] in errors
/// ("rank<i>.et" when `names` is empty); files.groups_json is the groups file ("" for none; named
/// "groups.json"); options.groups_file is not read.
JobGraph import_chakra_bytes(const ChakraFiles& files, const ChakraOptions& options,
                             const std::vector<std::string>& names = {});

/// A job graph as Chakra ET files (one per rank) and their groups file, which import_chakra_bytes reads back
/// to an equivalent graph (docs/traces-chakra.md: what is kept exactly and what is not). Raises InputError
/// (named `file`) for a graph that has no Chakra form: a ps-push or ps-pull collective, bytes that are not a
/// whole number, an all-gather whose S is not a multiple of its group size, a rank that runs no task.
///
/// For ASTRA-sim 2.x (`astra_sim`), whose feeder does not implement BARRIER and matches a GPU's collectives in
/// the order it issues them: a barrier over several ranks is an ALL_REDUCE of one byte (marked odcnsim_barrier,
/// so odcnsim reads it back as the barrier), one on a single rank a COMP_NODE of no time, and every
/// communication node of a rank also waits for the rank's previous one, so that all ranks issue their shared
/// communications in one order (the item order, a topological order of the graph).
enum class ChakraReader { odcnsim, astra_sim };
ChakraFiles chakra_from_job_graph(const JobGraph& g, const std::string& file = "(job graph)",
                                  ChakraReader reader = ChakraReader::odcnsim);

}  // namespace odcn::workload
