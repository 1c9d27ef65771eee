#pragma once
// The documented limits of every input (docs/limits.md lists them with their reasons). They keep every
// number that reaches the planners or SimGrid finite and exact, and every run bounded in time and memory.
// A value outside them is refused with exit 2 and a message naming the limit; none is ever clipped.
#include <cstdint>

namespace odcn::limits {

// Sizes of a clos_ocs platform.
constexpr std::int64_t kMaxPods = 65'536;
constexpr std::int64_t kMaxPodsPerGroup = 1'024;      ///< SimGrid holds one circuit link per pod pair of a group
constexpr std::int64_t kMaxGpusPerPod = 65'536;       ///< per-GPU loops (unit layout) stay fast
constexpr std::int64_t kMaxPortsPerPod = 4'096;
constexpr std::int64_t kMaxPortsPerOxc = 1'048'576;
constexpr std::int64_t kMaxOxcs = 65'536;
constexpr std::int64_t kMaxTotalGpus = 16'777'216;    ///< pods x gpus_per_pod (32x the largest published fabric)
constexpr std::int64_t kMaxCandidateCircuits = 1'000'000;  ///< pod pairs inside groups; each is a SimGrid link

// flat_ocs and photonic_rail: every endpoint pair that may hold a circuit (server pairs; GPU pairs of one rail)
// has its entry in the fabric's and the engine's tables, and a few tables are indexed by endpoint pairs. Their
// memory, measured on odcnsim run (static, one small job graph; docs/limits.md): 12 B per endpoint pair (SimGrid's
// full-zone route table and the dense pair index) plus 72 B per candidate pair on flat_ocs, 86 B on
// photonic_rail; within 6 % at 4,096-16,384 servers and 1,024-4,096 domains of 4 or 8 GPUs. A platform whose
// estimate exceeds kMaxPairTableBytes is refused before anything is built.
constexpr double kFlatOcsBytesPerPair = 72;
constexpr double kPhotonicRailBytesPerPair = 86;
constexpr double kPairTableBytesPerEndpointPair = 12;
constexpr double kMaxPairTableBytes = 8.0 * 1024 * 1024 * 1024;  ///< 8 GiB
// electrical with per-rail switches: a route per GPU pair of a rail (and of a server), about 100 B each, in a
// table of every GPU pair (8 B each): within 5 % at 2,048 servers of 4 GPUs. The same 8 GiB limit applies.
constexpr double kRouteBytes = 100;
constexpr double kRouteTableBytesPerEndpointPair = 8;

// Workloads.
constexpr std::int64_t kMaxJobs = 1'000'000;          ///< explicit or generated jobs of one workload
constexpr std::int64_t kMaxGpusPerUnit = 65'536;
constexpr std::int64_t kMaxDegree = 65'536;           ///< parallel units of a generated job
constexpr std::int64_t kMaxJobNameBytes = 256;
constexpr std::int64_t kMaxEndpoints = kMaxTotalGpus;  ///< a job graph's rank placement (any platform kind)

// Runs.
constexpr std::int64_t kMaxIterations = 1'000'000;    ///< --iterations
constexpr std::int64_t kMaxIterationRows = 10'000'000;  ///< jobs x iterations: iterations.csv rows of one run
/// Job graphs: tasks x iterations summed over the jobs, the tasks the engine runs (about 2.6 us each on the 2-core
/// development machine: the limit is some 4-5 minutes of simulation).
constexpr std::int64_t kMaxTaskRuns = 100'000'000;
/// Job graphs: flows x iterations summed over the jobs, a collective counting the flows of its lowering
/// (workload::flow_count: a ring all-reduce over n ranks 2(n-1)n). Planning and the engine both walk a
/// collective's steps flow by flow: a ring all-reduce over 16,384 ranks (5.4e8 flows) took 12 s on the 2-core
/// development machine, so the limit is a minute or two of simulation (one ring over 44,000 ranks).
constexpr std::int64_t kMaxFlowRuns = 4'000'000'000;
/// INC-AOI's slots (ps_jobs.slot_s) until the last job can end: the controller decides every slot (about 12 us
/// each, and a row of slots.csv), so the limit is some two minutes.
constexpr std::int64_t kMaxIncSlots = 10'000'000;
/// odcnsim export chakra: one file per rank, all built before the first is written (50,000 files took 10.8 s on
/// the development machine, so this is about a minute).
constexpr std::int64_t kMaxExportRanks = 262'144;

// Real-valued quantities, in the units the engine uses after conversion.
constexpr double kMinGbps = 1e-3;                     ///< every bandwidth, in Gb/s
constexpr double kMaxGbps = 1e6;
constexpr double kMinSeconds = 1e-9;                  ///< every duration
constexpr double kMaxSeconds = 1e9;
constexpr double kMaxBytes = 1e15;                    ///< one job's parameters, or one GPU's output per collective
constexpr double kMaxParamsGb = kMaxBytes / 1e9;
constexpr double kMaxTokens = 1e9;                    ///< tokens per iteration (Eq. 8)
constexpr double kMaxRecomputeFactor = 1e3;           ///< K of Eq. 8
constexpr double kMinGpuTflops = 1e-6;
constexpr double kMaxGpuTflops = 1e6;

// Input files.
constexpr std::int64_t kMaxInputFileBytes = 64LL << 20;  ///< 64 MiB
constexpr int kMaxYamlDepth = 64;                        ///< nesting of mappings and lists
constexpr std::int64_t kMaxYamlNodes = 10'000'000;       ///< nodes visited, aliases expanded

// Generators (odcnsim generate). Written out, a task takes some 130 bytes, so above this many the job-graph
// file would pass the 64 MiB that run reads: such a graph could be generated but not simulated. At the bound a
// DLRM takes about 1.5 s and 600 MB to generate; generate also checks the file's exact size.
constexpr std::int64_t kMaxGeneratedTasks = 500'000;

// Traces: events after copying one rank's trace to the ranks without a file (import --replicate, --ranks).
constexpr std::int64_t kMaxReplicatedEvents = 10'000'000;

// bench.
constexpr std::int64_t kMaxRepeat = 1'000;

// TOPO-X's planner (systems/topox/topox.hpp) keeps every port's circuit in every time slot.
constexpr std::int64_t kMaxTopoxSlots = 1'000'000;          ///< time slots of one plan
constexpr std::int64_t kMaxTopoxPortSlots = 64'000'000;     ///< slots x servers x OCSes (256 MB of port state)

}  // namespace odcn::limits
