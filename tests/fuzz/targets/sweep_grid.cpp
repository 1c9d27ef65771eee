// Fuzz target `sweep_grid`: the GRID.yaml of `odcnsim sweep GRID` (app::sweep::parse_grid_text) and its points
// (points_of, at most 100,000). What sweep writes for a grid's points, sweep.json, must be what `sweep
// --collect` reads back (parse_sweep_json), and the points' folder names (their ids) must differ.
#include <set>

#include "app/sweep_grid.hpp"
#include "app/sweep_json.hpp"
#include "fuzz_common.hpp"

ODCN_FUZZ_TARGET(sweep_grid) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  using namespace odcn::app;
  odcn_fuzz::expect_input_error([&] {
    const sweep::Grid g = sweep::parse_grid_text(text, "grids/GRID.yaml");
    const std::vector<sweep::Point> points = sweep::points_of(g);
    std::set<std::string> ids;
    for (const auto& p : points)
      if (!ids.insert(p.id).second) odcn_fuzz::broken("sweep_grid: two points share a folder", p.id);
    const std::string written = workflow::json_text(sweep::sweep_json(g, points, false));
    try {
      const workflow::Json back = sweep::parse_sweep_json(written, "sweep.json");
      std::size_t missing = 0;
      sweep::sweep_csv(back, [](const std::string&) { return std::nullopt; }, missing);
      if (missing != points.size()) odcn_fuzz::broken("sweep_grid: sweep.csv counts the points wrong", "");
    } catch (const odcn::InputError& e) {
      odcn_fuzz::broken("sweep_grid: sweep --collect refuses the sweep.json sweep wrote", e.what());
    }
  });
  return 0;
}
