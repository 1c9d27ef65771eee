// fuzz_replay: runs files through the fuzz target's LLVMFuzzerTestOneInput without libFuzzer, so that the
// seed corpus and every input that ever crashed the fuzzer are checked by the normal (g++) build.
//
//   fuzz_replay PATH...
//
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
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace fs = std::filesystem;

namespace {

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
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--include-open") {
      include_open = true;
      continue;
    }
    std::error_code ec;
    if (fs::is_directory(arg, ec)) {
      std::vector<fs::path> in_dir;
      for (const auto& e : fs::directory_iterator(arg, ec)) {
        const std::string name = e.path().filename().string();
        if (!e.is_regular_file() || name.empty() || name[0] == '.' || name == "README.md") continue;
        in_dir.push_back(e.path());
      }
      if (ec) {
        std::fprintf(stderr, "fuzz_replay: %s: cannot list (%s)\n", arg.c_str(), ec.message().c_str());
        return 2;
      }
      std::sort(in_dir.begin(), in_dir.end());
      files.insert(files.end(), in_dir.begin(), in_dir.end());
    } else if (fs::is_regular_file(arg, ec)) {
      files.emplace_back(arg);
    } else {
      std::fprintf(stderr, "fuzz_replay: %s: no such file or folder\n", arg.c_str());
      return 2;
    }
  }
  if (files.empty()) {
    std::fprintf(stderr, "usage: fuzz_replay [--include-open] FILE_OR_FOLDER...\n");
    return 2;
  }
  int ran = 0, skipped = 0, failed = 0;
  for (const auto& f : files) {
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
      LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(data.data()), data.size());
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
