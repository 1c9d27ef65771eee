// Fuzz target `kineto`: a PyTorch Kineto trace (JSON or gzip'd JSON; workload::parse_kineto) of one rank,
// copied to the other ranks of its world (replicate_ranks) and assembled into a job graph, with each CUDA stream a
// chain (the default) and with one chain per rank. A graph that imports must read back (fuzz_graph.hpp).
#include "fuzz_common.hpp"
#include "fuzz_graph.hpp"
#include "traces/kineto.hpp"
#include "traces/rank_trace.hpp"

ODCN_FUZZ_TARGET(kineto) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  using namespace odcn::workload;
  for (const auto streams : {KinetoStreams::concurrent, KinetoStreams::serial}) {
    odcn_fuzz::expect_input_error([&] {
      KinetoOptions ko;
      ko.streams = streams;
      KinetoTrace k = parse_kineto(text, "trace.json", ko);
      if (k.world_size > 64) return;  // replicated rank by rank: bounded here, not a reader's limit
      AssembleOptions o;
      o.ranks = k.world_size;
      o.name = "trace";
      odcn_fuzz::reads_back(assemble_job_graph(replicate_ranks({k.trace}, k.world_size), o), "kineto");
    });
  }
  return 0;
}
