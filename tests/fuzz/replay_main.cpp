// fuzz_replay: runs files through the fuzz targets without libFuzzer, so that the seed corpora and every input
// that ever crashed a fuzzer are checked by the normal (g++) build. Every target of tests/fuzz/targets/ is linked
// in (fuzz_common.hpp registers each by name).
//
//   fuzz_replay [--include-open] --target NAME PATH... [--target NAME2 PATH...]...
//   fuzz_replay [--include-open] --tree DIR
//   fuzz_replay --list             (the targets, one a line)
//
// --tree DIR runs, for every target NAME, the folders DIR/corpus/NAME, DIR/crashes/NAME and DIR/slow/NAME that
// exist (what ctest fuzz.replay_corpus runs); a folder there that names no target, and a target without a seed
// corpus, are errors (exit 2).
//
// Each PATH runs through the target named by the --target before it.
// A folder stands for the regular files in it (sorted, not recursive, README.md files and names starting with
// "." left out); a file is run as given. Each file's name is printed before it runs. Files whose name starts
// with "open-" are findings not fixed yet (tests/fuzz/crashes/README.md): they are listed but only run with
// --include-open,. Exit status: 0 when every file ran, 1 when one raised an unexpected exception (the rest
// still run), 2 for a bad argument. A broken contract aborts the process (non-zero as well).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "fuzz_common.hpp"

namespace fs = std::filesystem;

namespace {

/// The regular files in a folder (sorted, not recursive, README.md files and names starting with "." left out).
bool files_in(const fs::path& dir, std::vector<fs::path>& out) {
  std::error_code ec;
  std::vector<fs::path> in_dir;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (!e.is_regular_file() || name.empty() || name[0] == '.' || name == "README.md") continue;
    in_dir.push_back(e.path());
  }
  if (ec) {
    std::fprintf(stderr, "fuzz_replay: %s: cannot list (%s)\n", dir.c_str(), ec.message().c_str());
    return false;
  }
  std::sort(in_dir.begin(), in_dir.end());
  out.insert(out.end(), in_dir.begin(), in_dir.end());
  return true;
}

bool read_file(const fs::path& p, std::string& out) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return false;
  out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return !in.bad();
}

bool is_open_finding(const fs::path& p) { return p.filename().string().rfind("open-", 0) == 0; }

}  // namespace

int main(int argc, char** argv) {
  bool include_open = false;
  std::vector<std::pair<fs::path, odcn_fuzz::Entry>> files;  // each with its target
  odcn_fuzz::Entry target = nullptr;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--include-open") {
      include_open = true;
      continue;
    }
    if (arg == "--list") {
      for (const auto& [name, entry] : odcn_fuzz::targets()) std::printf("%s\n", name.c_str());
      return 0;
    }
    if (arg == "--target") {
      const auto it = i + 1 < argc ? odcn_fuzz::targets().find(argv[i + 1]) : odcn_fuzz::targets().end();
      if (it == odcn_fuzz::targets().end()) {
        std::fprintf(stderr, "fuzz_replay: --target %s: no such target (--list names them)\n",
                     i + 1 < argc ? argv[i + 1] : "");
        return 2;
      }
      target = it->second;
      ++i;
      continue;
    }
    if (arg == "--tree" && i + 1 < argc) {
      const fs::path root = argv[++i];
      for (const char* kind : {"corpus", "crashes", "slow"}) {
        std::error_code ec;
        for (const auto& e : fs::directory_iterator(root / kind, ec))
          if (e.is_directory() && !odcn_fuzz::targets().count(e.path().filename().string())) {
            std::fprintf(stderr, "fuzz_replay: %s: names no fuzz target (--list names them)\n", e.path().c_str());
            return 2;
          }
        for (const auto& [name, entry] : odcn_fuzz::targets()) {
          const fs::path dir = root / kind / name;
          if (!fs::is_directory(dir, ec)) {
            if (std::string(kind) != "corpus") continue;
            std::fprintf(stderr, "fuzz_replay: target %s has no seed corpus %s\n", name.c_str(), dir.c_str());
            return 2;
          }
          std::vector<fs::path> in_dir;
          if (!files_in(dir, in_dir)) return 2;
          for (const auto& f : in_dir) files.emplace_back(f, entry);
        }
      }
      continue;
    }
    if (!target) {
      std::fprintf(stderr, "fuzz_replay: %s: give --target NAME before it\n", arg.c_str());
      return 2;
    }
    std::error_code ec;
    if (fs::is_directory(arg, ec)) {
      std::vector<fs::path> in_dir;
      if (!files_in(arg, in_dir)) return 2;
      for (const auto& f : in_dir) files.emplace_back(f, target);
    } else if (fs::is_regular_file(arg, ec)) {
      files.emplace_back(arg, target);
    } else {
      std::fprintf(stderr, "fuzz_replay: %s: no such file or folder\n", arg.c_str());
      return 2;
    }
  }
  if (files.empty()) {
    std::fprintf(stderr, "usage: fuzz_replay [--include-open] --target NAME FILE_OR_FOLDER... [--target ...]\n");
    return 2;
  }
  int ran = 0, skipped = 0, failed = 0;
  for (const auto& [f, entry] : files) {
    if (is_open_finding(f) && !include_open) {
      std::printf("skip %s (open finding, see crashes/README.md; --include-open runs it)\n", f.c_str());
      ++skipped;
      continue;
    }
    std::string data;
    if (!read_file(f, data)) {
      std::fprintf(stderr, "fuzz_replay: %s: cannot be read\n", f.c_str());
      ++failed;
      continue;
    }
    std::printf("run  %s (%zu bytes)\n", f.c_str(), data.size());
    std::fflush(stdout);
    try {
      entry(reinterpret_cast<const std::uint8_t*>(data.data()), data.size());
      ++ran;
    } catch (const std::exception& e) {
      std::printf("FAIL %s: unexpected exception: %s\n", f.c_str(), e.what());
      ++failed;
    } catch (...) {
      std::printf("FAIL %s: unexpected exception of unknown type\n", f.c_str());
      ++failed;
    }
  }
  std::printf("fuzz_replay: %d ran, %d failed, %d open findings skipped\n", ran, failed, skipped);
  return failed ? 1 : 0;
}
