// The output folder: what --out may replace, atomic replacement, cleanup of failed runs, permissions,
// and checked writes. (The command-level cases, `.` and signals among them, are in tests/cli/safety_test.cpp.)
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <atomic>
#include <csignal>
#include <filesystem>
#include <thread>

#include "core/error.hpp"
#include "support/temp_files.hpp"
#include "trace/file_writer.hpp"
#include "trace/output_dir.hpp"

using namespace odcn;
namespace fs = std::filesystem;

namespace {

/// Writes a minimal complete result (run.json naming odcnsim, and summary.json) with `tag` in it, and commits.
void write_result(const std::string& out, const std::string& tag, bool force = false) {
  trace::OutputDir dir(out, force, {});
  auto run = dir.open("run.json");
  run << "{\"odcnsim_version\": \"test\"}\n";
  run.close();
  auto summary = dir.open("summary.json");
  summary << tag;
  summary.close();
  dir.commit();
}

std::string refusal(const std::string& out, bool force = false, const std::vector<std::string>& inputs = {}) {
  try {
    trace::OutputDir dir(out, force, inputs);
    return "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "command line");
    EXPECT_EQ(e.field(), "--out");
    return e.what();
  }
}

bool has_staging(const std::string& parent) {
  for (const auto& e : fs::directory_iterator(parent))
    if (e.path().filename().string().find(".partial-") != std::string::npos) return true;
  return false;
}

}  // namespace

TEST(OutputDir, NewFolderAppearsOnlyOnCommit) {
  test::TempDir tmp;
  const auto out = tmp.path("a/b/out");
  {
    trace::OutputDir dir(out, false, {});
    auto f = dir.open("run.json");
    f << "{}";
    f.close();
    EXPECT_FALSE(fs::exists(out));
    EXPECT_TRUE(has_staging(tmp.path("a/b")));
  }  // not committed: staging and the parents this run created are gone
  EXPECT_FALSE(fs::exists(tmp.path("a")));
  write_result(out, "one");
  EXPECT_EQ(test::read_file(out + "/summary.json"), "one");
  EXPECT_FALSE(has_staging(tmp.path("a/b")));
}

TEST(OutputDir, ReplacesAnEarlierResultButNothingElseWithoutForce) {
  test::TempDir tmp;
  const auto out = tmp.path("out");
  write_result(out, "one");
  write_result(out, "two");  // an earlier result is replaced
  EXPECT_EQ(test::read_file(out + "/summary.json"), "two");

  const auto file = tmp.write("notes.txt", "keep me");
  EXPECT_NE(refusal(file).find("exists and is not a folder"), std::string::npos);
  fs::create_directory(tmp.path("mine"));
  tmp.write("mine/data.csv", "keep me");
  EXPECT_NE(refusal(tmp.path("mine")).find("holds files that odcnsim did not write (data.csv)"), std::string::npos);
  tmp.write("out/extra.txt", "the user's");  // an earlier result the user added a file to is theirs now
  EXPECT_NE(refusal(out).find("(extra.txt)"), std::string::npos);
  fs::remove(out + "/extra.txt");
  tmp.write("out/run.json", "{\"tool\": \"other\"}");  // a run.json that odcnsim did not write
  EXPECT_NE(refusal(out).find("(run.json)"), std::string::npos);
  fs::create_directory_symlink(tmp.path("mine"), tmp.path("link"));
  EXPECT_NE(refusal(tmp.path("link")).find("is a symbolic link"), std::string::npos);
  fs::create_directory(tmp.path("empty"));
  EXPECT_EQ(refusal(tmp.path("empty")), "accepted");
  EXPECT_EQ(test::read_file(file), "keep me");
  EXPECT_EQ(test::read_file(tmp.path("mine/data.csv")), "keep me");
}

TEST(OutputDir, ForceReplacesFilesAndForeignFoldersButNeverTheCurrentFolderOrTheInputs) {
  test::TempDir tmp;
  const auto file = tmp.write("notes.txt", "old");
  write_result(file, "forced", true);
  EXPECT_TRUE(fs::is_directory(file));
  EXPECT_EQ(test::read_file(file + "/summary.json"), "forced");
  fs::create_directory(tmp.path("mine"));
  const auto input = tmp.write("mine/platform.yaml", "kind: clos_ocs\n");
  EXPECT_NE(refusal(tmp.path("mine"), true, {input}).find("holds the input file"), std::string::npos);
  EXPECT_NE(refusal(tmp.path("mine/platform.yaml"), true, {input}).find("holds the input file"), std::string::npos);
  EXPECT_NE(refusal(fs::current_path().string(), true).find("is the current folder"), std::string::npos);
  EXPECT_NE(refusal(fs::current_path().parent_path().string(), true).find("is the current folder"), std::string::npos);
  EXPECT_NE(refusal("/", true).find("the root"), std::string::npos);
  EXPECT_NE(refusal("", true).find("must name a folder"), std::string::npos);
  EXPECT_TRUE(fs::exists(input));
}

TEST(OutputDir, ReplacementIsAtomic) {
  // With rename-aside-then-rename, a reader polling the result sees it missing between the two renames;
  // with RENAME_EXCHANGE there is no such instant.
  test::TempDir tmp;
  const auto out = tmp.path("out");
  write_result(out, "0");
  std::atomic<bool> stop{false};
  std::atomic<long> looks{0}, missing{0};
  std::thread reader([&] {
    while (!stop) {
      ++looks;
      if (!fs::exists(out + "/summary.json") || !fs::exists(out + "/run.json")) ++missing;
    }
  });
  for (int i = 1; i <= 300; ++i) write_result(out, std::to_string(i));
  stop = true;
  reader.join();
  EXPECT_GT(looks, 1000);
  EXPECT_EQ(missing, 0);
  EXPECT_EQ(test::read_file(out + "/summary.json"), "300");
  EXPECT_FALSE(has_staging(tmp.path("")));
}

TEST(OutputDir, FoldersGetTheUmaskNotPrivateModes) {
  test::TempDir tmp;
  const mode_t old = ::umask(027);
  write_result(tmp.path("out"), "x");
  ::umask(022);
  write_result(tmp.path("out2"), "x");
  ::umask(old);
  struct stat st {};
  ASSERT_EQ(::stat(tmp.path("out").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0750u);
  ASSERT_EQ(::stat(tmp.path("out2").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0755u);
}

namespace {

[[noreturn]] void write_past_the_limit(const std::string& path) {
  std::signal(SIGXFSZ, SIG_IGN);
  const rlimit lim{4096, 4096};
  setrlimit(RLIMIT_FSIZE, &lim);
  trace::FileWriter f(path, "out/big.csv");
  try {
    for (int i = 0; i < 10000; ++i) f << "0123456789\n";
    f.close();
  } catch (const IoError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    std::exit(3);
  }
  std::exit(0);
}

}  // namespace

TEST(FileWriterDeathTest, AFailedWriteIsAnErrorNamingTheFileAndTheReason) {
  // RLIMIT_FSIZE makes write() fail with EFBIG past 4 KiB, as a full disk fails it with ENOSPC; in a child
  // process, so that the limit does not reach the other tests.
  test::TempDir tmp;
  const auto path = tmp.path("big.csv");
  EXPECT_EXIT(write_past_the_limit(path),
      ::testing::ExitedWithCode(3), "^out/big.csv: \\(write\\): write failed: File too large\n$");
}
