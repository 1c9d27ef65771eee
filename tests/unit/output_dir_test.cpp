// The output folder: what --out may replace, atomic replacement, cleanup of failed runs, permissions,
// and checked writes. (The command-level cases, `.` and signals among them, are in tests/cli/safety_test.cpp.)
// Also the trace writer's processes (job groups), which no command sets yet (tests/cli/trace_test.cpp has the rest).
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <atomic>
#include <csignal>
#include <filesystem>
#include <map>
#include <thread>

#include "core/error.hpp"
#include "support/temp_files.hpp"
#include "trace/file_writer.hpp"
#include "trace/output_dir.hpp"
#include "trace/writers.hpp"

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

TEST(ChromeTraceWriter, JobGroupsAreProcessesNamedBeforeTheirFirstEvent) {
  using E = trace::TraceEvent;
  test::TempDir tmp;
  const std::string path = tmp.path("trace.json");
  {
    trace::ChromeTraceWriter w(trace::FileWriter(path, path), {"a", "b", "c", "d"});
    w.set_job_groups({"group A", "group B", "group A"});
    w.event({E::Track::fabric, E::Phase::label, 0, "OXC 0", "", 0, 0, ""});
    w.event({E::Track::job, E::Phase::complete, 2, "train", "compute", 0, 1, "\"job\":2"});
    w.event({E::Track::fabric, E::Phase::counter, 0, "lit circuits", "circuits", 0, 0, "\"value\":4"});
    w.event({E::Track::scheduler, E::Phase::complete, 0, "stage 1", "stage", 0, 2, ""});
    w.event({E::Track::job, E::Phase::complete, 0, "push", "comm", 1, 0.5, ""});
    w.event({E::Track::job, E::Phase::complete, 3, "pull", "comm", 2, 0.5, ""});  // beyond the groups: "jobs"
    w.event({E::Track::fabric, E::Phase::instant, 0, "reconfigure", "reconfigure", 2, 0, ""});
    w.close();
  }
  const auto doc = nlohmann::json::parse(test::read_file(path));
  std::map<int, std::string> process;
  std::map<int, int> sort;
  std::map<int, std::pair<int, std::string>> thread;  // tid -> (pid, name)
  std::vector<std::string> order;                     // what each element is, in file order
  for (const auto& e : doc["traceEvents"]) {
    const int pid = e["pid"];
    if (e["name"] == "process_name") process[pid] = e["args"]["name"];
    if (e["name"] == "process_sort_index") sort[pid] = e["args"]["sort_index"];
    if (e["name"] == "thread_name") thread[e["tid"]] = {pid, e["args"]["name"]};
    order.push_back(e["ph"] == "M" ? e["name"].get<std::string>() + " " + e["args"].dump() : e["name"].get<std::string>());
  }
  // Group B has no events: no process. Job 3 has no group: process "jobs".
  std::map<std::string, int> pid;
  for (const auto& [p, name] : process) pid[name] = p;
  ASSERT_EQ(pid.size(), 4u);
  for (const char* name : {"group A", "jobs", "OXC 0", "scheduler"}) EXPECT_EQ(pid.count(name), 1u) << name;
  EXPECT_EQ(thread.at(3), std::make_pair(pid["group A"], std::string("c")));
  EXPECT_EQ(thread.at(1), std::make_pair(pid["group A"], std::string("a")));
  EXPECT_EQ(thread.at(4), std::make_pair(pid["jobs"], std::string("d")));
  EXPECT_EQ(thread.at(pid["scheduler"]).second, "stages");
  EXPECT_EQ(thread.count(2), 0u);
  EXPECT_EQ(thread.size(), 4u);  // no thread for the switch: its counter and instant belong to the process
  for (const auto& [p, name] : process) EXPECT_GT(p, 4) << "pids follow the job threads' tids";
  EXPECT_LT(sort[pid["group A"]], sort[pid["OXC 0"]]);
  EXPECT_LT(sort[pid["jobs"]], sort[pid["OXC 0"]]);
  EXPECT_LT(sort[pid["OXC 0"]], sort[pid["scheduler"]]);
  const std::vector<std::string> expected{
      "process_name {\"name\":\"group A\"}", "process_sort_index {\"sort_index\":0}", "thread_name {\"name\":\"c\"}",
      "train", "process_name {\"name\":\"OXC 0\"}", "process_sort_index {\"sort_index\":3}", "lit circuits",
      "process_name {\"name\":\"scheduler\"}", "process_sort_index {\"sort_index\":4}",
      "thread_name {\"name\":\"stages\"}", "stage 1", "thread_name {\"name\":\"a\"}", "push",
      "process_name {\"name\":\"jobs\"}", "process_sort_index {\"sort_index\":2}", "thread_name {\"name\":\"d\"}",
      "pull", "reconfigure"};
  EXPECT_EQ(order, expected);
}
