#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "trace/file_writer.hpp"

namespace odcn::trace {

/// The files a run may write into its output folder. A folder holding only these, with a run.json that
/// odcnsim wrote, is an earlier result that a new run may replace.
const std::vector<std::string>& output_file_names();

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
  FileWriter open(const std::string& name) const;
  /// Moves the staging folder into place (re-checking --out first) and removes the result it replaced.
  void commit();
  const std::filesystem::path& path() const { return final_; }

 private:
  void check_target() const;
  void remove_created_parents();  ///< only those still empty
  std::filesystem::path final_;
  std::filesystem::path staging_;
  std::vector<std::filesystem::path> created_parents_;  ///< by this run, deepest last
  std::vector<std::filesystem::path> inputs_;
  bool force_ = false;
  bool committed_ = false;
};

}  // namespace odcn::trace
