#pragma once
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "trace/file_writer.hpp"

namespace odcn::trace {

/// Every result folder lists the files odcnsim wrote into it in manifest.json ({"written_by": "odcnsim", "command":
/// "run", "manifest_version": 1, "files": [...]}); a folder whose every file is listed there by the same command is
/// an earlier result that this command may replace (a run never replaces an export's folder, nor the reverse). A `plots/` subfolder of images (written by analysis/'s plot tools) is
/// recognised as well, and goes with the result it plots.
inline constexpr const char* kManifestFile = "manifest.json";
inline constexpr const char* kPlotsFolder = "plots";
/// The page `odcnsim report` writes into a result folder by default; a later run or compare keeps the folder
/// valid (a run replaces it with the rest of the folder).
inline constexpr const char* kReportFile = "report.html";
/// Whether `e` is the page `odcnsim report` wrote into a result folder: report.html, whose first KiB names that
/// generator (a user's own report.html is not).
bool is_report_page(const std::filesystem::directory_entry& e);

/// The command an OutputDir's manifest names: `run` (compare's and sweep's points are runs too).
inline constexpr const char* kRunCommand = "run";
/// The files `dir`'s manifest.json lists, or nothing when it has none that odcnsim's `command` wrote.
std::optional<std::set<std::string>> manifest_files(const std::filesystem::path& dir, const std::string& command);
/// The text of a manifest.json of `command` listing `files` (sorted).
std::string manifest_text(const std::set<std::string>& files, const std::string& command);

/// The files a run wrote before manifests existed: a folder holding only these, with a run.json that odcnsim
/// wrote and no manifest, is an earlier result too.
const std::vector<std::string>& output_file_names();

/// Folder `from` becomes `to`: renamed into an empty name (never replacing one that appeared meanwhile), or
/// swapped with the folder there in one step (renameat2 RENAME_EXCHANGE), which is then removed; on a file
/// system without the swap, the old folder is moved aside first. Raises IoError naming `to`. OutputDir::commit
/// and compare's runs use it.
void move_folder_into_place(const std::filesystem::path& from, const std::filesystem::path& to);

/// A run's output folder, written safely:
/// - `--out` must not exist, be an empty folder, or be an earlier odcnsim result (see output_file_names);
///   anything else (a file, a symbolic link, `.`, a folder holding other files) is refused with
///   InputError("command line", "--out", ...) unless `force` is set. Even with `force`, the current folder,
///   its parents, `/` and a folder holding the run's own input files are refused.
/// - Files are written into a hidden sibling folder `.NAME.partial-XXXXXX` (with the user's umask), which an
///   interrupt or a failure removes, together with any parent folders this run created.
/// - commit() moves the result into place atomically: with renameat2(RENAME_EXCHANGE) the old and the new
///   folder swap in one step, so at every instant --out holds either the old or the new complete result.
class OutputDir {
 public:
  OutputDir(const std::string& out, bool force, const std::vector<std::string>& input_files);
  ~OutputDir();
  OutputDir(const OutputDir&) = delete;
  OutputDir& operator=(const OutputDir&) = delete;

  /// A checked writer for `name` inside the staging folder; errors name the final path.
  /// The name is recorded in the folder's manifest.
  FileWriter open(const std::string& name);
  /// Writes manifest.json, moves the staging folder into place (re-checking --out first) and removes the result
  /// it replaced.
  void commit();
  const std::filesystem::path& path() const { return final_; }

 private:
  void check_target() const;
  void write_manifest();
  void remove_created_parents();  ///< only those still empty
  std::filesystem::path final_;
  std::filesystem::path staging_;
  std::vector<std::filesystem::path> created_parents_;  ///< by this run, deepest last
  std::vector<std::filesystem::path> inputs_;
  std::set<std::string> written_;  ///< every file opened, for the manifest
  bool force_ = false;
  bool committed_ = false;
};

}  // namespace odcn::trace
