// `odcnsim diff A B`: two run, compare or sweep folders side by side: the inputs that differ (run.json) and every
// metric of summary.json with its ratio, per policy (compare) or per point (sweep). Reads only; writes nothing.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "app/commands.hpp"
#include "app/diff.hpp"
#include "app/workflow.hpp"
#include "app/workflow_support.hpp"
#include "core/error.hpp"
#include "core/text.hpp"

namespace odcn::app {

namespace {

namespace fs = std::filesystem;
using diff::Json;

/// A folder given on the command line and what wrote it: "run", "compare" or "sweep".
struct Folder {
  std::string given;
  fs::path dir;
  std::string kind;
};

/// The folder's kind, told by the file each command writes (a sweep's or compare's own file first: their runs
/// are run folders too).
Folder open_folder(const std::string& given) {
  const std::string name = given.empty() ? "''" : given;
  std::error_code ec;
  const fs::path dir(given);
  if (!fs::exists(dir, ec)) throw InputError(name, "(folder)", "does not exist");
  if (!fs::is_directory(dir, ec))
    throw InputError(name, "(folder)", "is not a folder (give the --out folder of odcnsim run, compare or sweep)");
  for (const auto& [file, kind] : {std::pair{"sweep.json", "sweep"}, {"compare.json", "compare"},
                                   {"run.json", "run"}, {"summary.json", "run"}})
    if (fs::exists(dir / file, ec)) return {given, dir, kind};
  throw InputError(name, "(folder)",
                   "is not an odcnsim output: it holds no run.json, compare.json or sweep.json (give the --out "
                   "folder of odcnsim run, compare or sweep)");
}

/// A JSON object odcnsim wrote, which must hold `key` (every run.json and summary.json do).
Json read_result(const fs::path& p, const char* key) {
  std::error_code ec;
  if (!fs::exists(p, ec)) throw InputError(p.string(), "(file)", "is missing: every odcnsim result folder holds it");
  if (!fs::is_regular_file(p, ec)) throw InputError(p.string(), "(file)", "is not a file");
  if (!std::ifstream(p)) throw InputError(p.string(), "(file)", "cannot be read");
  Json j = workflow::read_json_file(p);
  if (!j.contains(key))
    throw InputError(p.string(), key, fmt::format("is missing: not a {} odcnsim wrote", p.filename().string()));
  return j;
}

/// One run folder against another.
Json diff_runs(const fs::path& a, const fs::path& b) {
  const Json run_a = read_result(a / "run.json", "odcnsim_version");
  const Json summary_a = read_result(a / "summary.json", "makespan_s");
  const Json run_b = read_result(b / "run.json", "odcnsim_version");
  const Json summary_b = read_result(b / "summary.json", "makespan_s");
  return diff::run_pair(run_a, summary_a, run_b, summary_b);
}

/// compare.json's policies, in its order: each a name that is a folder of runs/, listed once.
std::vector<std::string> compare_policies(const Json& c, const std::string& file) {
  if (!c.contains("policies") || !c["policies"].is_array())
    throw InputError(file, "policies", "must be a list of the policies compared");
  std::vector<std::string> names;
  for (std::size_t i = 0; i < c["policies"].size(); ++i) {
    const Json& p = c["policies"][i];
    const std::string field = fmt::format("policies[{}].policy", i);
    if (!p.is_object() || !p.contains("policy") || !p["policy"].is_string())
      throw InputError(file, field, "must be a string");
    const std::string name = p["policy"].get<std::string>();
    if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos)
      throw InputError(file, field, fmt::format("'{}' is not a folder name of runs/", shown(name)));
    if (std::find(names.begin(), names.end(), name) != names.end())
      throw InputError(file, field, fmt::format("'{}' is listed twice", shown(name)));
    names.push_back(name);
  }
  return names;
}

/// The names of `of` that are not in `in`, in `of`'s order.
Json missing_from(const std::vector<std::string>& of, const std::vector<std::string>& in) {
  Json names = Json::array();
  for (const auto& n : of)
    if (std::find(in.begin(), in.end(), n) == in.end()) names.push_back(n);
  return names;
}

/// The run folders of a compare under runs/: each policy's, or with --seeds each policy's per seed
/// ("POLICY/seed-K", in compare.json's order).
std::vector<std::string> compare_runs(const Json& c, const std::string& file) {
  const auto policies = compare_policies(c, file);
  if (!c.contains("seeds")) return policies;
  if (!c["seeds"].is_array()) throw InputError(file, "seeds", "must be a list of whole numbers");
  std::vector<std::string> runs;
  for (const auto& p : policies)
    for (std::size_t i = 0; i < c["seeds"].size(); ++i) {
      if (!c["seeds"][i].is_number_unsigned())
        throw InputError(file, fmt::format("seeds[{}]", i), "must be a whole number");
      runs.push_back(fmt::format("{}/seed-{}", p, c["seeds"][i].get<std::uint64_t>()));
    }
  return runs;
}

/// Two compare folders: compare.json's own fields, then each policy both ran (each policy and seed, for compares
/// over seeds), in A's order.
Json diff_compares(const Folder& a, const Folder& b) {
  const Json ca = read_result(a.dir / "compare.json", "policies");
  const Json cb = read_result(b.dir / "compare.json", "policies");
  if (ca.contains("seeds") != cb.contains("seeds"))
    throw InputError(b.given, "(folder)",
                     fmt::format("{} over seeds (compare --seeds) and A ({}) {}: diff compares like with like",
                                 cb.contains("seeds") ? "compares" : "does not compare", a.given,
                                 ca.contains("seeds") ? "does" : "does not"));
  const auto pa = compare_runs(ca, (a.dir / "compare.json").string());
  const auto pb = compare_runs(cb, (b.dir / "compare.json").string());
  Json d = {{"inputs", diff::differing_fields(ca, cb, {"policies"})},
            {"only_in_a", missing_from(pa, pb)},
            {"only_in_b", missing_from(pb, pa)},
            {"policies", Json::array()}};
  for (const auto& p : pa)
    if (std::find(pb.begin(), pb.end(), p) != pb.end()) {
      Json one = {{"policy", p}};
      one.update(diff_runs(a.dir / "runs" / p, b.dir / "runs" / p));
      d["policies"].push_back(std::move(one));
    }
  return d;
}

/// A sweep folder's sweep.json, checked as sweep --collect checks it, and its point ids in order.
std::pair<Json, std::vector<std::string>> sweep_points(const Folder& f) {
  const fs::path file = f.dir / "sweep.json";
  Json s = read_result(file, "points");
  workflow::check_sweep_json(s, file.string());
  std::vector<std::string> ids;
  for (const auto& p : s["points"]) ids.push_back(p["id"].get<std::string>());
  return {std::move(s), ids};
}

bool has_result(const Folder& f, const std::string& id) {
  std::error_code ec;
  return fs::exists(f.dir / "points" / id / "summary.json", ec);
}

/// Two sweep folders: sweep.json's own fields, then each point both list and both finished, in A's order.
Json diff_sweeps(const Folder& a, const Folder& b) {
  const auto [sa, ia] = sweep_points(a);
  const auto [sb, ib] = sweep_points(b);
  Json d = {{"inputs", diff::differing_fields(sa, sb, {"points"})},
            {"only_in_a", missing_from(ia, ib)},
            {"only_in_b", missing_from(ib, ia)},
            {"no_result_in_a", Json::array()},
            {"no_result_in_b", Json::array()},
            {"points", Json::array()}};
  for (const auto& id : ia) {
    if (std::find(ib.begin(), ib.end(), id) == ib.end()) continue;
    const bool in_a = has_result(a, id), in_b = has_result(b, id);
    if (!in_a) d["no_result_in_a"].push_back(id);
    if (!in_b) d["no_result_in_b"].push_back(id);
    if (!in_a || !in_b) continue;
    Json one = {{"point", id}};
    one.update(diff_runs(a.dir / "points" / id, b.dir / "points" / id));
    d["points"].push_back(std::move(one));
  }
  return d;
}

}  // namespace

int diff_command(const DiffOptions& o) {
  try {
    const Folder a = open_folder(o.a), b = open_folder(o.b);
    if (a.kind != b.kind)
      throw InputError(b.given, "(folder)",
                       fmt::format("is a {} folder but A ({}) is a {} folder: diff compares two of one kind", b.kind,
                                   shown(a.given, 80), a.kind));
    Json d = {{"kind", a.kind}, {"a", o.a}, {"b", o.b}};
    d.update(a.kind == "run" ? diff_runs(a.dir, b.dir) : a.kind == "compare" ? diff_compares(a, b) : diff_sweeps(a, b));
    std::cout << (o.json ? workflow::json_text(d) : diff::text(d)) << std::flush;
    return 0;
  } catch (...) {
    return report_failure();
  }
}

}  // namespace odcn::app
