#pragma once
// The grid of `odcnsim sweep`: read from GRID.yaml or from the command line (the same Grid either way), and its
// points, the cross product of the set values, policies and seeds, each named by a folder-safe id.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/workflow.hpp"

namespace odcn::app::sweep {

struct Grid {
  std::string file;                          ///< the GRID.yaml, or "command line"
  std::string platform, workload;            ///< as the grid gives them
  std::string platform_path, workload_path;  ///< resolved against the grid's folder (the current one inline)
  std::vector<std::string> policies;
  std::vector<std::optional<std::uint64_t>> seeds{std::nullopt};
  int iterations = 0;
  bool slowdown = true;
  std::vector<std::pair<std::string, std::vector<std::string>>> sets;  ///< key → values, in the grid's order
  /// A grid on the command line: each set's --set as typed ("ocs.reconfig_delay_us=1,10"), for its errors.
  std::vector<std::string> set_texts;
  /// Where an error about set `k` points: the grid's key (set.KEY), or the --set the user typed.
  std::string set_field(std::size_t k) const;
  /// Where an error about the policies points: the grid's key, or --policies.
  std::string policies_field() const { return file == "command line" ? "--policies" : "policies"; }
};

/// Reads and checks GRID.yaml (platform, workload, policies, optional seeds, iterations, slowdown, set).
Grid parse_grid(const std::string& file);
/// The same from the file's text, named `file` in errors (tests/fuzz: target sweep_grid).
Grid parse_grid_text(const std::string& text, const std::string& file);
/// The grid of `sweep --platform P --workload W --policies A,B [--seeds 1-3] [--set KEY=V1,V2 ...]`, the same as a
/// GRID.yaml would give, its errors naming the command line.
Grid inline_grid(const InlineGrid& in);

struct Point {
  std::string id;
  std::string policy;
  std::optional<std::uint64_t> seed;
  std::vector<std::string> values;  ///< one per grid set key
};

/// The cross product: set values (the first key slowest), then policies, then seeds. Refuses more than 100,000
/// points, counted before any is made.
std::vector<Point> points_of(const Grid& g);

/// The arguments of `odcnsim run` for one point, into `out` (defined in cmd_sweep.cpp, beside the run options: this
/// file reads grids only, and is compiled into the fuzz targets as well).
std::vector<std::string> run_args(const Grid& g, const Point& p, const std::string& platform,
                                  const std::string& workload, const std::string& out, bool keep_traces);

}  // namespace odcn::app::sweep
