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
