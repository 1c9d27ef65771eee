// Fuzz target `chakra_roundtrip`: a job-graph file (workload::parse_job_graph) exported as Chakra ET files
// (chakra_from_job_graph, for odcnsim and for ASTRA-sim) and imported again (import_chakra_bytes with compute
// overlap, as `odcnsim export chakra` says to read it back). The exporter may refuse a graph (InputError: a graph
// with no Chakra form); what it writes, the importer must read, to a graph that reads back (fuzz_graph.hpp). For
// the odcnsim reader, what docs/traces-chakra.md says is kept is checked: the ranks, the compute tasks and
// their times, and the compute path (every task's dependencies, with communication taking no time).
#include <algorithm>
#include <cmath>

#include "fuzz_common.hpp"
#include "fuzz_graph.hpp"
#include "traces/chakra.hpp"

namespace {

using namespace odcn::workload;

constexpr int kMaxRanks = 64;            // bounds of this harness (one ET file per rank), not of the readers
constexpr std::size_t kMaxTasks = 4096;

double compute_path(const JobGraph& g) {
  return critical_path(g, [](const Task& t) { return t.kind == TaskKind::compute ? t.duration_s : 0.0; }).length_s;
}

struct Compute {
  std::size_t count = 0;
  double seconds = 0;
};
Compute compute_of(const JobGraph& g) {
  Compute c;
  for (const auto& t : g.tasks)
    if (t.kind == TaskKind::compute) {
      ++c.count;
      c.seconds += t.duration_s;
    }
  return c;
}

bool close(double a, double b) { return std::fabs(a - b) <= 1e-9 * std::max(std::fabs(a), std::fabs(b)) + 1e-12; }

void round_trip(const JobGraph& g, ChakraReader reader) {
  ChakraFiles files;
  try {
    files = chakra_from_job_graph(g, "graph.json", reader);
  } catch (const odcn::InputError& e) {
    odcn_fuzz::check_message(e);  // no Chakra form: refused, as documented
    return;
  }
  const char* who = reader == ChakraReader::odcnsim ? "chakra_roundtrip (odcnsim)" : "chakra_roundtrip (astra-sim)";
  if (files.ranks.size() != static_cast<std::size_t>(g.ranks))
    odcn_fuzz::broken(who, "the export does not write one file per rank");
  ChakraOptions o;
  o.compute = ChakraCompute::overlap;
  JobGraph back;
  try {
    back = import_chakra_bytes(files, o);
  } catch (const odcn::InputError& e) {
    odcn_fuzz::broken((std::string(who) + ": the importer refuses what the exporter wrote").c_str(), e.what());
  }
  odcn_fuzz::reads_back(back, who);
  if (back.ranks != g.ranks) odcn_fuzz::broken(who, "the ranks differ after the round trip");
  if (reader != ChakraReader::odcnsim) return;
  const Compute a = compute_of(g), b = compute_of(back);
  if (a.count != b.count || !close(a.seconds, b.seconds))
    odcn_fuzz::broken(who, "the compute tasks or their times differ after the round trip");
  if (!close(compute_path(g), compute_path(back)))
    odcn_fuzz::broken(who, "the compute path differs after the round trip (a dependency lost or added)");
}

}  // namespace

ODCN_FUZZ_TARGET(chakra_roundtrip) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  JobGraph g;
  try {
    g = parse_job_graph(text, "graph.json");
  } catch (const odcn::InputError& e) {
    odcn_fuzz::check_message(e);
    return 0;
  }
  if (g.ranks > kMaxRanks || g.tasks.size() > kMaxTasks) return 0;
  round_trip(g, ChakraReader::odcnsim);
  round_trip(g, ChakraReader::astra_sim);
  return 0;
}
