// `odcnsim export chakra GRAPH.json --out DIR`: a job-graph file as Chakra ET files, one per rank, and their
// process groups, written into a new folder (built beside it, then renamed into place) or beside files already
// there.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <set>

#include "app/commands.hpp"
#include "app/workflow.hpp"
#include "app/workflow_support.hpp"
#include "core/error.hpp"
#include "core/limits.hpp"
#include "core/interrupt.hpp"
#include "core/text.hpp"
#include "graph/job_graph_file.hpp"
#include "trace/output_dir.hpp"
#include "traces/chakra.hpp"

namespace odcn::app {

namespace {

namespace fs = std::filesystem;
using namespace workflow;

/// The files of one export: <name>.<rank>.et, then <name>.groups.json last.
std::vector<std::string> export_names(const ExportOptions& o, const workload::JobGraph& g, std::size_t ranks) {
  std::vector<std::string> names;
  for (std::size_t r = 0; r < ranks; ++r) names.push_back(fmt::format("{}.{}.et", g.name, r));
  for (const auto& n : names)
    if (n.find('/') != std::string::npos || n.rfind('.', 0) == 0)
      throw InputError(o.graph, "name",
                       fmt::format("'{}' cannot name files (it holds '/' or starts with '.')", shown(g.name)));
  names.push_back(g.name + ".groups.json");
  return names;
}

/// What export's manifests name as the command that wrote them.
constexpr const char* kExportCommand = "export chakra";

/// Checks an existing --out: a folder, where a file of ours may be replaced only when an earlier export listed it
/// in the folder's manifest, or with --force. Adds those earlier files to `manifest`, which lists them all.
void check_existing(const ExportOptions& o, const fs::path& dir, const workload::JobGraph& g,
                    const std::vector<std::string>& all, std::set<std::string>& manifest) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw InputError("command line", "--out", fmt::format("'{}' is not a folder", shown(o.out)));
  // Files an earlier export listed in the folder's manifest are odcnsim's: they may be replaced. The manifest
  // itself is replaced only when an export wrote it.
  const auto earlier = trace::manifest_files(dir, kExportCommand);
  if (earlier) manifest.insert(earlier->begin(), earlier->end());
  std::vector<std::string> replaced = all;
  replaced.emplace_back(trace::kManifestFile);
  for (const auto& n : replaced)
    if (fs::is_directory(dir / n, ec))
      throw InputError("command line", "--out", fmt::format("'{}' is a folder", shown((dir / n).string())));
  for (const auto& n : replaced)
    if (fs::exists(dir / n, ec) && !o.force && !(earlier && (earlier->count(n) || n == trace::kManifestFile)))
      throw InputError("command line", "--out",
                       fmt::format("'{}' exists and no earlier odcnsim export wrote it; pass --force to replace "
                                   "the files of job '{}' in '{}'",
                                   shown((dir / n).string()), shown(g.name), shown(o.out)));
}

/// The hidden folder the files are written into first: `.DIR.<pid>.partial` beside a new DIR (it becomes DIR),
/// or `DIR/.export.<pid>.partial` inside an existing one (its files are moved into DIR at the end).
fs::path staging_path(const fs::path& dir, bool fresh) {
  const long pid = static_cast<long>(::getpid());
  return fresh ? dir.parent_path() / fmt::format(".{}.{}.partial", dir.filename().string(), pid)
               : dir / fmt::format(".export.{}.partial", pid);
}

/// Writes every file and the manifest into the staging folder, then puts them in place: a new folder is renamed
/// into place, the files of an existing one are moved into it one by one. Nothing is in DIR until every file is
/// written; the staging folder is removed on any failure (StagingFolder).
void write_export(const ExportOptions& o, const workload::ChakraFiles& files, const std::vector<std::string>& all,
                  const std::set<std::string>& manifest, const fs::path& dir, bool fresh) {
  StagingFolder staging(staging_path(dir, fresh));
  const fs::path& into = staging.path();
  FolderSync sync(into, o.out);
  if (!o.quiet && files.ranks.size() >= 10000)  // (about 10 s per 50,000 files on the development machine)
    std::cerr << fmt::format("odcnsim export: writing {} files into {}\n", all.size() + 1, escape_line(o.out))
              << std::flush;
  // Errors name each file's place, not the staging folder. Nothing sees the staging folder, so its files are
  // written as they are and synced together once, before any is moved into place.
  for (std::size_t r = 0; r < files.ranks.size(); ++r) write_staged(into / all[r], files.ranks[r], dir / all[r]);
  write_staged(into / all.back(), files.groups_json, dir / all.back());
  write_staged(into / trace::kManifestFile, trace::manifest_text(manifest, kExportCommand), dir / trace::kManifestFile);
  sync.sync();
  const auto lock = interrupt::hold();  // an interrupt now waits until the files are in place
  std::error_code ec;
  if (fresh) {
    fs::rename(into, dir, ec);
    if (ec) throw IoError(o.out, "cannot be created: " + ec.message());
    staging.release();
    return;
  }
  std::vector<std::string> names(all);
  names.emplace_back(trace::kManifestFile);
  for (const auto& n : names) {
    fs::rename(into / n, dir / n, ec);
    if (ec) throw IoError((dir / n).string(), "cannot be replaced: " + ec.message());
  }
}

void print_export(const workload::JobGraph& g, const fs::path& dir, std::size_t ranks, const std::string& groups,
                  workload::ChakraReader reader) {
  std::cout << fmt::format("odcnsim export chakra: job '{}' -> {} and {}\n", escape_line(g.name),
                           escape_line((dir / fmt::format("{}.{{0..{}}}.et", g.name, ranks - 1)).string()),
                           escape_line(groups))
            << graph_report(g)
            << fmt::format("  read back with    odcnsim import chakra --compute overlap --groups {} {}\n",
                           escape_line((dir / groups).string()), escape_line((dir / (g.name + ".*.et")).string()));
  if (reader == workload::ChakraReader::astra_sim) {
    std::cout << fmt::format("  ASTRA-sim 2.x     --workload-configuration={} --comm-group-configuration={}\n",
                             escape_line((dir / g.name).string()), escape_line((dir / groups).string()));
    const auto broadcasts = std::count_if(g.tasks.begin(), g.tasks.end(), [](const workload::Task& t) {
      return t.kind == workload::TaskKind::collective && t.op == workload::CollectiveOp::broadcast;
    });
    if (broadcasts > 0)
      std::cout << fmt::format("  note              {} broadcast{}: ASTRA-sim 2.x replays a broadcast node's "
                               "duration_micros (1 ns when 0) instead of simulating it\n",
                               broadcasts, broadcasts == 1 ? "" : "s");
  } else {
    std::cout << "  for ASTRA-sim     export with --for astra-sim (ASTRA-sim 2.x does not implement BARRIER nodes)\n";
  }
}

}  // namespace

int export_command(const ExportOptions& o) {
  try {
    if (o.format != "chakra")
      throw InputError("command line", "(format)", fmt::format("unknown trace format '{}' (chakra)", shown(o.format)));
    if (o.reader != "odcnsim" && o.reader != "astra-sim")
      throw InputError("command line", "--for", fmt::format("must be odcnsim or astra-sim (got '{}')", shown(o.reader)));
    const auto reader = o.reader == "astra-sim" ? workload::ChakraReader::astra_sim : workload::ChakraReader::odcnsim;
    const workload::JobGraph g = workload::load_job_graph(o.graph);
    if (g.ranks > limits::kMaxExportRanks)  // before any rank is built: one file each, all held until written
      throw InputError(o.graph, "ranks",
                       fmt::format("{} ranks would be {} Chakra files, above the limit of {} (about 10 s per 50,000 "
                                   "files; see docs/limits.md)",
                                   g.ranks, g.ranks, limits::kMaxExportRanks));
    const workload::ChakraFiles files = workload::chakra_from_job_graph(g, o.graph, reader);
    const std::vector<std::string> all = export_names(o, g, files.ranks.size());
    fs::path dir = fs::path(o.out).lexically_normal();
    if (dir.filename().empty()) dir = dir.parent_path();  // "et/" is the folder et
    std::error_code ec;
    const bool fresh = !fs::exists(dir, ec);
    std::set<std::string> manifest(all.begin(), all.end());
    if (!fresh) {
      check_existing(o, dir, g, all, manifest);
    } else if (!dir.parent_path().empty() && !fs::is_directory(dir.parent_path(), ec)) {
      throw InputError("command line", "--out",
                       fmt::format("folder '{}' does not exist", shown(dir.parent_path().string())));
    }
    manifest.insert(trace::kManifestFile);
    write_export(o, files, all, manifest, dir, fresh);
    if (!o.quiet) print_export(g, dir, files.ranks.size(), all.back(), reader);
    return 0;
  } catch (...) {
    return report_failure();
  }
}

}  // namespace odcn::app
