// diff: the diff document (app/diff.hpp) as plain aligned text.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "app/diff.hpp"
#include "app/workflow_support.hpp"
#include "core/text.hpp"
#include "trace/writers.hpp"

namespace odcn::app::diff {

namespace {

/// Lines shown per top-level field of a document (a thousand jobs may each differ); --json lists every one.
constexpr int kLinesPerField = 10;

/// A value on one line: numbers as the shortest text that reads back the same, strings as they are (escaped),
/// lists and objects as compact JSON, cut when long.
std::string value(const Json& v) {
  if (v.is_null()) return "null";
  if (v.is_string()) return escape_line(v.get<std::string>());
  if (v.is_number_float()) return trace::num(v.get<double>());
  return shown(v.dump(-1, ' ', false, Json::error_handler_t::replace), 120);
}

/// A row's value on side "a" or "b", or "(missing)".
std::string side(const Json& row, const char* s) { return row.contains(s) ? value(row[s]) : "(missing)"; }

/// "platform.hash" -> "platform"; "jobs[3].name" -> "jobs".
std::string top_field(const std::string& path) { return path.substr(0, path.find_first_of(".[")); }

/// `  field: A -> B`, the values aligned, at most kLinesPerField per top-level field.
std::string field_lines(const Json& rows) {
  std::map<std::string, int> count;
  std::vector<const Json*> shown_rows;
  for (const auto& r : rows)
    if (++count[top_field(r["field"].get<std::string>())] <= kLinesPerField) shown_rows.push_back(&r);
  std::size_t width = 0;
  for (const Json* r : shown_rows) width = std::max(width, escape_line((*r)["field"].get<std::string>() + ":").size());
  std::string out;
  for (const Json* r : shown_rows)
    out += fmt::format("  {:<{}} {} -> {}\n", escape_line((*r)["field"].get<std::string>() + ":"), width, side(*r, "a"),
                       side(*r, "b"));
  for (const auto& [field, n] : count)  // (std::map: in name order)
    if (n > kLinesPerField)
      out += fmt::format("  ... and {} more under {} (odcnsim diff --json lists every one)\n", n - kLinesPerField,
                         escape_line(field));
  return out;
}

/// "TITLE: identical", or TITLE and a line per field that differs.
std::string fields_block(const std::string& title, const Json& rows) {
  return rows.empty() ? title + ": identical\n" : title + "\n" + field_lines(rows);
}

/// B/A or B-A: n/a for null, a whole number exactly, else six significant figures (--json holds them exact).
std::string figure(const Json& v) {
  if (v.is_null()) return "n/a";
  return v.is_number_float() ? fmt::format("{:.6g}", v.get<double>()) : value(v);
}

/// summary.json's numbers as a table: metric, A, B, B/A, B-A.
std::string metrics_table(const Json& rows) {
  std::vector<std::vector<std::string>> cells{{"metric", "A", "B", "B/A", "B-A"}};
  for (const auto& r : rows)
    cells.push_back({escape_line(r["metric"].get<std::string>()), side(r, "a"), side(r, "b"),
                     figure(r["ratio"]), figure(r["difference"])});
  std::string out;
  const std::string table = workflow::render_table(cells).second;
  for (std::size_t at = 0; at < table.size();) {
    const std::size_t end = table.find('\n', at) + 1;
    out += "  " + table.substr(at, end - at);
    at = end;
  }
  return out;
}

/// One run against another: its inputs, its metrics, and the summary's other fields that differ.
std::string run_block(const Json& pair) {
  std::string out = fields_block("inputs (run.json)", pair["inputs"]);
  out += "metrics (summary.json)\n" + metrics_table(pair["metrics"]);
  if (!pair["other"].empty()) out += "other fields of summary.json that differ\n" + field_lines(pair["other"]);
  return out;
}

/// The lists of names on one side only, or without a result on one side (sweep), and how the text says each.
const std::pair<const char*, const char*> kOneSided[] = {{"only_in_a", "only in A"},
                                                         {"only_in_b", "only in B"},
                                                         {"no_result_in_a", "without a result in A"},
                                                         {"no_result_in_b", "without a result in B"}};

/// compare's policies or sweep's points: those on one side only, then each pair under its own heading.
std::string collection_blocks(const Json& d, const char* list, const char* name, const std::string& what) {
  std::string out;
  for (const auto& [key, label] : kOneSided) {
    if (!d.contains(key) || d[key].empty()) continue;
    std::string names;
    for (const auto& n : d[key]) names += (names.empty() ? "" : ", ") + escape_line(n.get<std::string>());
    out += fmt::format("{} {}: {}\n", what, label, names);
  }
  for (const auto& one : d[list])
    out += fmt::format("\n== {} {} ==\n", name, escape_line(one[name].get<std::string>())) + run_block(one);
  return out;
}

}  // namespace

std::string text(const Json& d) {
  const std::string kind = d["kind"].get<std::string>();
  std::string out = fmt::format("odcnsim diff: two {} folders\n  A  {}\n  B  {}\n\n", kind,
                                escape_line(d["a"].get<std::string>()), escape_line(d["b"].get<std::string>()));
  if (kind == "run") return out + run_block(d);
  if (kind == "compare")
    return out + fields_block("compare (compare.json)", d["inputs"]) + collection_blocks(d, "policies", "policy", "policies");
  return out + fields_block("sweep (sweep.json)", d["inputs"]) + collection_blocks(d, "points", "point", "points");
}

}  // namespace odcn::app::diff
