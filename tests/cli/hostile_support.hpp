#pragma once
// Hostile-input corpora (issue 28, "No internal error from any input"): every malformed input of a command is
// answered with exit 2 and exactly one printable, bounded line `origin: field: reason`, and nothing on disk
// changes: no output created, no staging left, an earlier result and the inputs byte-identical.
//
// A corpus is a table of cases run in one scratch folder, which holds every input and earlier result the cases
// need. The whole folder is snapshotted (every entry's type, mode, size, bytes or link target) before and after
// each case: the two snapshots must be equal, which covers "no output file or folder created", "no staging left"
// (.NAME.<pid>.partial, .runs.<pid>.partial, .export.<pid>.partial, .NAME.partial-XXXXXX) and "an earlier result
// untouched" at once. The command's own stdout and stderr go to another folder.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "cli/cli_support.hpp"

namespace odcn::test::hostile {

namespace fs = std::filesystem;

/// The source tree, and the small scenario the corpora refuse variations of.
inline const std::string kSrc = ODCNSIM_SOURCE_DIR;
inline const std::string kPlatform = kSrc + "/platforms/clos-8pod.yaml";
inline const std::string kWorkload = kSrc + "/workloads/small-mix.yaml";

/// One hostile input: `odcnsim ARGS` must exit 2 with one line starting with `expect` (its origin and field) and,
/// when given, holding `contains`.
struct Case {
  std::string args;
  std::string expect;
  std::string contains = "";
  /// Run without root's privileges (as nobody), so that a file's or folder's permissions apply even when the
  /// tests run as root (as in CI). The scratch folder is made traversable for it.
  bool unprivileged = false;
};

/// What a folder holds, recursively, without following links: type, permission bits, and bytes (regular files; of
/// a file above 1 MiB its size and modification time) or target (links). FIFOs and devices are recorded by type only, never opened.
inline std::map<std::string, std::string> snapshot(const fs::path& root) {
  std::map<std::string, std::string> s;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(root, fs::directory_options::none, ec), end; !ec && it != end;
       it.increment(ec)) {
    const fs::path& p = it->path();
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0) continue;
    std::string what = fmt::format("mode {:o} ", st.st_mode);
    if (S_ISREG(st.st_mode) && st.st_size > (1 << 20))  // (a large input: its size and time stand for its bytes)
      what += fmt::format("file of {} bytes, modified {}.{:09}", st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
    else if (S_ISREG(st.st_mode))
      what += "file " + read_file(p.string());
    else if (S_ISLNK(st.st_mode))
      what += "link " + fs::read_symlink(p, ec).string();
    s[fs::relative(p, root).string()] = what;
  }
  return s;
}

/// The entries that differ between two snapshots, for the failure message.
inline std::string differences(const std::map<std::string, std::string>& a, const std::map<std::string, std::string>& b) {
  std::string d;
  for (const auto& [k, v] : a) {
    if (!b.count(k))
      d += " removed:" + k;
    else if (b.at(k) != v)
      d += " changed:" + k;
  }
  for (const auto& [k, v] : b)
    if (!a.count(k)) d += " created:" + k;
  return d;
}

/// Words that only a library or a crash would print: never in a user's line.
inline const std::vector<std::string>& library_words() {
  static const std::vector<std::string> words{"json.exception", "[json.", "basic_string", "bad_alloc", "std::",
                                              "yaml-cpp", "YAML::", "internal error", "filesystem error",
                                              "terminate", "what():", "Aborted", "Segmentation", "stoi", "stod",
                                              "out of memory", "CLI::", "Assertion"};
  return words;
}

/// The longest line a refusal may be: the file or option, the field and the reason, with echoed values cut.
constexpr std::size_t kMaxLine = 1000;

/// Runs each case in `scratch` and checks the contract. `setup`, when given, runs before each case (to put back a
/// fixture the previous case may have needed removed; it must leave the same folder each time).
inline void expect_hostile(const std::vector<Case>& cases, const TempDir& scratch) {
  const TempDir harness;  // the command's stdout and stderr, outside the snapshotted folder
  const bool root = ::geteuid() == 0;
  // The unprivileged cases run as nobody, who must reach the source tree and the binary: a clone inside a private
  // folder (mktemp -d is 0700) does not let them, and those cases are then left out, saying so.
  static const bool nobody_runs = !root || std::system(fmt::format("cd '{}' && setpriv --reuid=65534 --regid=65534 "
                                                                   "--clear-groups test -x '{}' 2>/dev/null",
                                                                   ODCNSIM_SOURCE_DIR, ODCNSIM_BIN)
                                                           .c_str()) == 0;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.args);
    if (c.unprivileged && !nobody_runs) {
      std::cout << "[   NOTE   ] left out (user nobody cannot reach " << ODCNSIM_BIN << "): " << c.args << "\n";
      continue;
    }
    if (c.unprivileged) ::chmod(scratch.path("").c_str(), 0755);
    const auto before = snapshot(scratch.path(""));
    const std::string out = harness.path("stdout.txt"), err = harness.path("stderr.txt");
    if (c.unprivileged) ::chmod(harness.path("").c_str(), 0777);
    const std::string as = c.unprivileged && root ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : "";
    const std::string cmd = fmt::format("cd '{}' && {}timeout 60 '{}' {} > '{}' 2> '{}' < /dev/null",
                                        ODCNSIM_SOURCE_DIR, as, ODCNSIM_BIN, c.args, out, err);
    const int status = std::system(cmd.c_str());
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    const std::string e = without_sanitizer_notes(read_file(err));
    EXPECT_EQ(code, 2) << e;
    EXPECT_EQ(std::count(e.begin(), e.end(), '\n'), 1) << e;
    EXPECT_EQ(e.rfind(c.expect, 0), 0u) << "expected the line to start with: " << c.expect << "\n     got: " << e;
    if (!c.contains.empty()) {
      EXPECT_NE(e.find(c.contains), std::string::npos) << c.contains << "\n     got: " << e;
    }
    EXPECT_LE(e.size(), kMaxLine) << e.substr(0, 300) << "...";
    for (std::size_t i = 0; i + 1 < e.size(); ++i) {
      const auto b = static_cast<unsigned char>(e[i]);
      if (b < 0x20 || b == 0x7f) {
        ADD_FAILURE() << "control byte " << static_cast<int>(b) << " at " << i << ": " << e;
        break;
      }
    }
    for (const auto& w : library_words()) EXPECT_EQ(e.find(w), std::string::npos) << w << " in: " << e;
    EXPECT_EQ(read_file(out), "") << "nothing on stdout";
    const auto after = snapshot(scratch.path(""));
    EXPECT_TRUE(before == after) << "the scratch folder changed:" << differences(before, after);
  }
}

/// A quoted shell word (the cases' arguments go through `sh -c`).
inline std::string q(const std::string& s) {
  std::string r = "'";
  for (char ch : s) r += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return r + "'";
}

}  // namespace odcn::test::hostile
