#pragma once
// What several of the workflow commands (compare, sweep, generate, import, export) share: writing a file
// whole, checking where they write, running child `odcnsim run`s with progress, and reading their JSON results.
// It lives in its own namespace so that these short names cannot meet names of the run command's files.
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "app/child.hpp"
#include "graph/task_graph.hpp"

namespace odcn::app::workflow {

using Json = nlohmann::ordered_json;

/// A text file written whole beside its place (a hidden file named after it and this process, so that one left
/// by a killed process never blocks a later write; removed on any failure and on SIGINT/SIGTERM/SIGHUP), then
/// moved onto it: a reader sees the old file or the new one, never a part. With `replace` false the move refuses
/// a file that appeared meanwhile (another command writing the same new file): InputError on --out.
/// `named_as`, when given, is the path errors name (export writes into a staging folder, but names the file's place).
void write_atomically(const std::filesystem::path& path, const std::string& text, bool replace = true,
                      const std::filesystem::path& named_as = {});

/// A file of a staging folder (nothing else can see it): written whole and closed, not synced one by one; the
/// folder is synced once (FolderSync) before it is moved into place. `named_as` is the path errors name.
void write_staged(const std::filesystem::path& path, const std::string& text, const std::filesystem::path& named_as);
/// One flush of every file written to a folder's file system (syncfs: one call instead of an fsync per file; a
/// 50,000-rank Chakra export spent 74 % of its 31 s in fsync). Opened before the files are written, so that a
/// write-back error raised after that is reported here whoever else syncs the file system meanwhile.
class FolderSync {
 public:
  FolderSync(const std::filesystem::path& dir, std::string named_as);  ///< raises IoError naming `named_as`
  ~FolderSync();
  FolderSync(const FolderSync&) = delete;
  FolderSync& operator=(const FolderSync&) = delete;
  /// Raises IoError naming `named_as` on a write-back error (a full disk found late).
  void sync();

 private:
  int fd_ = -1;
  std::string named_as_;
};

/// A hidden folder a command writes into before moving its contents into place (export, compare), named after
/// the process so that one left by a killed command never blocks a later one. Created empty; removed by an
/// interrupt (SIGINT/SIGTERM/SIGHUP) and by the destructor, unless release() says it was renamed into place.
/// A folder that cannot be created (its parent read-only, or not a place for files) is InputError on --out.
class StagingFolder {
 public:
  explicit StagingFolder(std::filesystem::path path);
  ~StagingFolder();
  StagingFolder(const StagingFolder&) = delete;
  StagingFolder& operator=(const StagingFolder&) = delete;
  const std::filesystem::path& path() const { return path_; }
  void release();

 private:
  std::filesystem::path path_;
  bool released_ = false;
};

/// A job-graph file's text that run can read back: refuses (InputError("command line", field, ...)) a text above
/// the 64 MiB that run reads (limits::kMaxInputFileBytes).
void check_job_graph_size(const std::string& text, const std::string& field);

/// --out FILE of a command that writes one job-graph file: not empty, not a folder, in a folder that exists, and
/// not there yet unless it is a job graph that the same `command` ("odcnsim generate torchtitan") wrote
/// (generated_by) or `force`; then it is replaced, atomically. `replace` says whether it was there: a file that
/// was not is written with write_atomically(path, text, false), so two commands writing one new file cannot
/// both succeed.
struct OutFile {
  std::filesystem::path path;
  bool replace = false;
};
OutFile checked_out_file(const std::string& path, bool force, const std::string& command);

/// A compare or sweep folder: new, empty, or holding only what such a command writes. Anything else is
/// refused unless `force`; even then odcnsim only adds its own files and never deletes others.
void check_collection(const std::filesystem::path& dir, const std::vector<std::string>& ours, bool force,
                      const char* word);

/// Progress of many runs: a redrawn bar on a terminal, else a line per run finished.
class Progress {
 public:
  Progress(const char* what, int total, bool enabled, bool terminal)
      : what_(what), total_(total), enabled_(enabled && total > 0), terminal_(terminal), t0_(Clock::now()) {}
  void done(const std::string& label);

 private:
  using Clock = std::chrono::steady_clock;
  static std::string duration(double s);
  const char* what_;
  int total_;
  int done_ = 0;
  bool enabled_, terminal_;
  Clock::time_point t0_;
};

/// One child `odcnsim run`: its arguments, the label progress and errors name it by, and its --out.
struct ChildJob {
  std::vector<std::string> args;
  std::string label;
  std::string out;  ///< its --out
};

struct ChildOutcome {
  bool ran = false;
  ChildRun run;
  std::string error_line;  ///< the child's first stderr line when it failed
};

/// Runs the jobs as children, at most `parallel` at once. After a child reports bad input (exit 2), no new
/// one is started (the rest would most likely fail alike); those running are let finish.
std::vector<ChildOutcome> run_children(const std::string& self, const std::vector<ChildJob>& jobs, int parallel,
                                       Progress& progress);

/// The first failure among the outcomes as this command's exit: the child's own line for bad input (2),
/// else a line naming the run (1). 0 when all succeeded.
int first_failure(const std::vector<ChildJob>& jobs, const std::vector<ChildOutcome>& outcomes, const char* command);

/// Runs at once when none is asked for: the number of CPUs.
int default_parallel();

/// A JSON document as odcnsim writes it: indented by two, ending in a newline.
std::string json_text(const Json& j);

/// A JSON object odcnsim wrote (a run's summary.json, sweep.json); anything else is bad input.
Json read_json_file(const std::filesystem::path& p);

/// A sweep.json read back (sweep --collect, diff) holds what sweep_json wrote: its keys (strings), base platform and
/// workload (strings), and points whose id is a folder name point_id could have made (so that the point's folder
/// lies inside points/), whose policy is a string, seed null or a whole number, and set a string per key. Raises
/// InputError(file, field, ...) naming the first field that does not.
void check_sweep_json(const Json& sweep, const std::string& file);

/// A metric as CSV or table text: the shortest exact number, or empty for null.
std::string cell(const Json& v);

/// A table (rows of cells, the first row its header) as markdown and as aligned text: the first column
/// left-aligned, the others right-aligned (compare's table, diff's metrics).
std::pair<std::string, std::string> render_table(const std::vector<std::vector<std::string>>& rows);

/// What a job graph holds, for the import and export commands' reports.
std::string graph_report(const workload::JobGraph& g);

/// A word as a POSIX shell reads it back.
std::string shell_quote(const std::string& s);

/// The line that says how to run a job-graph file just written (import, generate): it runs as one job, rank i on
/// endpoint i, on any platform with at least that many endpoints.
std::string run_hint(const workload::JobGraph& g, const std::string& file);

/// A metric in a table: an integer as it is, else four significant figures or four decimals; null is n/a.
std::string table_number(const Json& v);

}  // namespace odcn::app::workflow
