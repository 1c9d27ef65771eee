#include "trace/output_dir.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <algorithm>
#include <fstream>
#include <optional>
#include <set>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/interrupt.hpp"

namespace odcn::trace {

namespace fs = std::filesystem;

const std::vector<std::string>& output_file_names() {
  static const std::vector<std::string> names{"run.json",   "summary.json", "jobs.csv",  "iterations.csv",
                                              "stages.csv", "circuits.csv", "trace.json"};
  return names;
}

namespace {

[[noreturn]] void refuse(const std::string& reason) { throw InputError("command line", "--out", reason); }

mode_t current_umask() {
  const mode_t m = ::umask(0);
  ::umask(m);
  return m;
}

/// A `plots/` folder that odcnsim's plot tools wrote into a result folder (analysis/): images only.
bool is_plots_folder(const fs::directory_entry& e) {
  std::error_code ec;
  if (e.path().filename() != kPlotsFolder || e.is_symlink(ec) || !e.is_directory(ec)) return false;
  for (fs::directory_iterator it(e.path(), ec), end; !ec && it != end; it.increment(ec)) {
    const std::string ext = it->path().extension().string();
    if (it->is_symlink(ec) || !it->is_regular_file(ec) || (ext != ".png" && ext != ".svg" && ext != ".pdf"))
      return false;
  }
  return !ec;
}


}  // namespace

bool is_report_page(const fs::directory_entry& e) {
  std::error_code ec;
  if (e.path().filename() != kReportFile || e.is_symlink(ec) || !e.is_regular_file(ec)) return false;
  std::ifstream in(e.path(), std::ios::binary);
  std::string head(1024, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  return head.find("<meta name=\"generator\" content=\"odcnsim report\">") != std::string::npos;
}

std::optional<std::set<std::string>> manifest_files(const fs::path& dir, const std::string& command) {
  std::ifstream in(dir / kManifestFile);
  if (!in) return std::nullopt;
  const auto doc = nlohmann::json::parse(in, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || doc.value("written_by", "") != "odcnsim" ||
      doc.value("command", "") != command || !doc.contains("files") || !doc["files"].is_array())
    return std::nullopt;
  std::set<std::string> files;
  for (const auto& f : doc["files"])
    if (f.is_string()) files.insert(f.get<std::string>());
  return files;
}

std::string manifest_text(const std::set<std::string>& files, const std::string& command) {
  const nlohmann::ordered_json doc = {{"written_by", "odcnsim"},
                                      {"command", command},
                                      {"manifest_version", 1},
                                      {"files", nlohmann::ordered_json(files)}};  // a std::set: sorted, deterministic
  return doc.dump(2) + "\n";
}

namespace {

/// An earlier odcnsim result: a folder whose manifest.json lists every file in it (besides a plots/ folder of
/// images and odcnsim report's page), or, for results written before manifests, a run.json naming odcnsim and nothing but the files
/// such a run wrote.
bool is_earlier_result(const fs::path& dir, std::string& foreign) {
  const auto listed = manifest_files(dir, kRunCommand);  // only a run's result: never an export's folder
  bool has_run = false;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (is_plots_folder(*it) || is_report_page(*it)) continue;
    const auto& legacy = output_file_names();
    const bool known = listed ? listed->count(name) > 0
                              : std::find(legacy.begin(), legacy.end(), name) != legacy.end();
    if (!known || it->is_symlink(ec) || !it->is_regular_file(ec)) {
      foreign = name;
      return false;
    }
    has_run = has_run || name == "run.json";
  }
  if (ec) {
    foreign = "it cannot be read: " + ec.message();
    return false;
  }
  if (!has_run) {
    if (listed) return true;  // a result of a command that writes no run.json
    foreign = "(no run.json)";
    return false;
  }
  std::ifstream in(dir / "run.json");  // a run.json replaced by another tool's makes the folder the user's
  const auto doc = nlohmann::json::parse(in, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("odcnsim_version")) {
    foreign = "run.json";
    return false;
  }
  return true;
}

/// True if `inner` is `outer` or lies inside it (both absolute and normal).
bool within(const fs::path& inner, const fs::path& outer) {
  auto i = inner.begin();
  for (auto o = outer.begin(); o != outer.end(); ++o, ++i) {
    if (o->empty()) continue;  // a trailing separator
    if (i == inner.end() || *i != *o) return false;
  }
  return true;
}

void fsync_dir(const fs::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);  // best effort: some file systems refuse fsync on folders
  ::close(fd);
}

}  // namespace

OutputDir::OutputDir(const std::string& out, bool force, const std::vector<std::string>& input_files) : force_(force) {
  if (out.empty()) refuse("must name a folder");
  std::error_code ec;
  final_ = fs::absolute(out, ec).lexically_normal();
  if (ec) refuse(fmt::format("'{}' cannot be resolved ({})", out, ec.message()));
  while (final_.has_parent_path() && final_.filename().empty() && final_ != final_.root_path())
    final_ = final_.parent_path();  // "out/" names out
  for (const auto& f : input_files) {
    const fs::path p = fs::weakly_canonical(fs::absolute(f, ec), ec);
    if (!ec) inputs_.push_back(p);
  }
  check_target();

  // Create missing parents, remembering which, so that a failed run leaves nothing behind.
  std::vector<fs::path> missing;
  for (fs::path p = final_.parent_path(); !p.empty() && !fs::exists(p, ec); p = p.parent_path()) {
    missing.push_back(p);
    if (p == p.root_path()) break;
  }
  try {
    for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
      if (!fs::create_directory(*it, ec) && ec)
        refuse(fmt::format("cannot create folder '{}' ({})", it->string(), ec.message()));
      created_parents_.push_back(*it);
    }
    std::string pattern = (final_.parent_path() / ("." + final_.filename().string() + ".partial-XXXXXX")).string();
    if (!::mkdtemp(pattern.data()))
      refuse(fmt::format("cannot write next to '{}' ({})", final_.string(), std::strerror(errno)));
    staging_ = pattern;
  } catch (...) {
    remove_created_parents();  // a constructor that throws runs no destructor
    throw;
  }
  interrupt::remove_on_interrupt(staging_.string());
  // mkdtemp makes the folder private (0700); outputs get the user's umask like any other new folder.
  ::chmod(staging_.c_str(), 0777 & ~current_umask());
}

void OutputDir::check_target() const {
  std::error_code ec;
  const fs::path cwd = fs::current_path(ec);
  const fs::path resolved = fs::weakly_canonical(final_, ec);
  if (final_ == final_.root_path() || (!cwd.empty() && within(cwd, ec ? final_ : resolved)))
    refuse(fmt::format("'{}' is the current folder, one of its parents or the root; choose a new folder for the "
                       "outputs (not even --force replaces it)",
                       final_.string()));
  for (const auto& in : inputs_)
    if (within(in, ec ? final_ : resolved))
      refuse(fmt::format("'{}' holds the input file '{}'; choose another folder (not even --force replaces it)",
                         final_.string(), in.string()));
  struct stat st {};
  if (::lstat(final_.c_str(), &st) != 0) {
    if (errno == ENOENT) return;
    if (errno == ENOTDIR)
      refuse(fmt::format("'{}' cannot be created: a part of its path is a file, not a folder", final_.string()));
    refuse(fmt::format("cannot inspect '{}' ({})", final_.string(), std::strerror(errno)));
  }
  if (force_) return;
  if (S_ISLNK(st.st_mode))
    refuse(fmt::format("'{}' is a symbolic link; give the folder itself, or pass --force to replace the link",
                       final_.string()));
  if (!S_ISDIR(st.st_mode))
    refuse(fmt::format("'{}' exists and is not a folder; choose another name, or pass --force to replace it",
                       final_.string()));
  std::string foreign;
  if (fs::is_empty(final_, ec) || is_earlier_result(final_, foreign)) return;
  refuse(fmt::format("'{}' holds files that odcnsim did not write ({}); choose a new folder, or pass --force to "
                     "replace it with this run's outputs",
                     final_.string(), foreign));
}

FileWriter OutputDir::open(const std::string& name) {
  written_.insert(name);
  return FileWriter((staging_ / name).string(), (final_ / name).string());
}

void OutputDir::write_manifest() {
  written_.insert(kManifestFile);
  FileWriter w((staging_ / kManifestFile).string(), (final_ / kManifestFile).string());
  w << manifest_text(written_, kRunCommand);
  w.close();
}

void move_folder_into_place(const fs::path& from, const fs::path& to) {
  // Either swap with what is there (atomic), or move into the empty name without replacing anything that
  // appeared meanwhile.
  if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) return;
  const int first = errno;
  if (first == EEXIST) {
    if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_EXCHANGE) == 0) {
      // `from` now holds the previous result.
      std::error_code ec;
      fs::remove_all(from, ec);
    } else if (errno == EINVAL || errno == ENOSYS || errno == ENOTSUP) {
      // A file system without RENAME_EXCHANGE: move the old result aside, then the new one in. Not
      // atomic; a crash between the two renames leaves the old result in `FROM.old`.
      fs::path old = from;
      old += ".old";
      if (std::rename(to.c_str(), old.c_str()) != 0 || std::rename(from.c_str(), to.c_str()) != 0)
        throw IoError(to.string(), fmt::format("cannot move the result into place: {}", std::strerror(errno)));
      std::error_code ec;
      fs::remove_all(old, ec);
    } else {
      throw IoError(to.string(), fmt::format("cannot move the result into place: {}", std::strerror(errno)));
    }
  } else if (first == EINVAL || first == ENOSYS || first == ENOTSUP) {
    if (std::rename(from.c_str(), to.c_str()) != 0)
      throw IoError(to.string(), fmt::format("cannot move the result into place: {}", std::strerror(errno)));
  } else {
    throw IoError(to.string(), fmt::format("cannot move the result into place: {}", std::strerror(first)));
  }
}

void OutputDir::commit() {
  write_manifest();
  const auto lock = interrupt::hold();
  fsync_dir(staging_);
  check_target();  // --out may have changed while the run was simulating
  move_folder_into_place(staging_, final_);
  committed_ = true;
  interrupt::forget(staging_.string());
  fsync_dir(final_.parent_path());
}

OutputDir::~OutputDir() {
  if (committed_) return;
  std::error_code ec;
  if (!staging_.empty()) {
    fs::remove_all(staging_, ec);
    interrupt::forget(staging_.string());
  }
  remove_created_parents();
}

void OutputDir::remove_created_parents() {
  std::error_code ec;
  for (auto it = created_parents_.rbegin(); it != created_parents_.rend(); ++it) fs::remove(*it, ec);
  created_parents_.clear();
}

}  // namespace odcn::trace
