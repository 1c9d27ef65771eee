// Fuzz target `chakra`: a Chakra ET file (workload::import_chakra_bytes) as rank 0 of two, the other rank a copy
// and process group "1" both ranks, under each ctrl-deps and compute mode; and the same bytes as an ASTRA-sim
// groups file (parse_chakra_groups). A graph that imports must read back (fuzz_graph.hpp).
#include "fuzz_common.hpp"
#include "fuzz_graph.hpp"
#include "traces/chakra.hpp"

ODCN_FUZZ_TARGET(chakra) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  using namespace odcn::workload;
  for (const auto ctrl : {ChakraCtrlDeps::order, ChakraCtrlDeps::caller}) {
    odcn_fuzz::expect_input_error([&] {
      ChakraOptions o;
      o.ranks = 2;
      o.ctrl_deps = ctrl;
      o.compute = ctrl == ChakraCtrlDeps::order ? ChakraCompute::serial : ChakraCompute::overlap;
      odcn_fuzz::reads_back(import_chakra_bytes({{text}, R"({"1": [0, 1]})"}, o, {"rank0.et"}), "chakra");
    });
  }
  odcn_fuzz::expect_input_error([&] { parse_chakra_groups(text, "groups.json", 8); });
  return 0;
}
