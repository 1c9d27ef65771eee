#pragma once
// sweep.json, the record of a sweep's points that `odcnsim sweep` writes into its folder, and what is read back
// from it: `sweep --collect` gathers sweep.csv from it, `diff` pairs two sweeps' points by it. Pure text and
// JSON, no files: compiled into odcnsim and into the fuzz targets sweep_grid and sweep_collect (tests/fuzz).
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "app/sweep_grid.hpp"
#include "app/workflow_support.hpp"

namespace odcn::app::sweep {

/// What a sweep folder's points were run with (sweep.json's base): a folder of another grid's points is not
/// resumed.
workflow::Json sweep_base(const Grid& g, bool keep_traces);

/// sweep.json of a grid's points.
workflow::Json sweep_json(const Grid& g, const std::vector<Point>& points, bool keep_traces);

/// A sweep.json's text read back: a JSON object (else InputError, as workflow::read_json_file), which
/// workflow::check_sweep_json accepts.
workflow::Json parse_sweep_json(const std::string& text, const std::string& file);

/// A point's summary.json by its id, or nullopt when the point has none (not run yet, or failed).
using SummaryOf = std::function<std::optional<workflow::Json>(const std::string& id)>;

/// sweep.csv of a checked sweep.json: a row per point that has a summary. `missing` counts those that have none.
std::string sweep_csv(const workflow::Json& sweep, const SummaryOf& summary_of, std::size_t& missing);

}  // namespace odcn::app::sweep
