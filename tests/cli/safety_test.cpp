// The command's contract with a user's files and terminal: it never destroys what it did not create, never
// reports success for output it failed to write, cleans up when interrupted, and answers every bad command
// line with exit 2 and exactly one line.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "cli/cli_support.hpp"

using namespace odcn::test;
namespace fs = std::filesystem;

namespace {

const std::string kSmall = "--platform platforms/clos-8pod.yaml --workload workloads/small-mix.yaml";

std::string abs_path(const std::string& rel) { return std::string(ODCNSIM_SOURCE_DIR) + "/" + rel; }
const std::string kSmallAbs =
    "--platform " + abs_path("platforms/clos-8pod.yaml") + " --workload " + abs_path("workloads/small-mix.yaml");

/// Runs a shell command line (not through odcnsim()'s cd) and captures its output.
Result shell(const std::string& script, const TempDir& scratch) {
  const std::string out = scratch.path("sh-stdout.txt"), err = scratch.path("sh-stderr.txt");
  const int status = std::system(fmt::format("bash -c '{}' > '{}' 2> '{}' < /dev/null", script, out, err).c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_file(out), without_sanitizer_notes(read_file(err))};
}

int lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

bool staging_left(const std::string& folder) {
  for (const auto& e : fs::directory_iterator(folder))
    if (e.path().filename().string().find(".partial-") != std::string::npos) return true;
  return false;
}

void expect_one_line_exit2(const Result& r, const std::string& starts_with, const std::string& contains = "") {
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_EQ(r.err.rfind(starts_with, 0), 0u) << r.err;
  EXPECT_NE(r.err.find(contains), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

}  // namespace

TEST(Safety, OutDotIsRefusedAndNothingIsDeleted) {
  TempDir dir;
  dir.write("precious.txt", "mine");
  const auto r = shell(fmt::format("cd {} && {} run {} --out . --quiet", dir.path(""), ODCNSIM_BIN, kSmallAbs), dir);
  expect_one_line_exit2(r, "command line: --out: ", "is the current folder");
  EXPECT_EQ(read_file(dir.path("precious.txt")), "mine");
  const auto forced =
      shell(fmt::format("cd {} && {} run {} --out . --force --quiet", dir.path(""), ODCNSIM_BIN, kSmallAbs), dir);
  expect_one_line_exit2(forced, "command line: --out: ", "not even --force");
  EXPECT_EQ(read_file(dir.path("precious.txt")), "mine");
  EXPECT_FALSE(staging_left(dir.path("")));
}

TEST(Safety, AnExistingFileOrForeignFolderNeedsForce) {
  TempDir dir;
  const auto file = dir.write("report.pdf", "not mine to delete");
  expect_one_line_exit2(odcnsim(fmt::format("run {} --out {}", kSmall, file), dir), "command line: --out: ",
                        "exists and is not a folder; choose another name, or pass --force");
  EXPECT_EQ(read_file(file), "not mine to delete");
  fs::create_directory(dir.path("data"));
  dir.write("data/measurements.csv", "1,2,3");
  expect_one_line_exit2(odcnsim(fmt::format("run {} --out {}", kSmall, dir.path("data")), dir),
                        "command line: --out: ", "holds files that odcnsim did not write (measurements.csv)");
  EXPECT_EQ(read_file(dir.path("data/measurements.csv")), "1,2,3");

  // --force replaces both, as documented.
  ASSERT_EQ(odcnsim(fmt::format("run {} --out {} --force --quiet", kSmall, file), dir).code, 0);
  EXPECT_TRUE(fs::exists(file + "/summary.json"));
  ASSERT_EQ(odcnsim(fmt::format("run {} --out {} --force --quiet", kSmall, dir.path("data")), dir).code, 0);
  EXPECT_FALSE(fs::exists(dir.path("data/measurements.csv")));
  EXPECT_TRUE(fs::exists(dir.path("data/run.json")));
}

TEST(Safety, AnEarlierResultIsReplacedWithoutForce) {
  TempDir dir;
  const auto out = dir.path("out");
  ASSERT_EQ(odcnsim(fmt::format("run {} --policy static --out {} --quiet", kSmall, out), dir).code, 0);
  ASSERT_FALSE(fs::exists(out + "/stages.csv"));
  ASSERT_EQ(odcnsim(fmt::format("run {} --policy tdm4 --out {} --quiet", kSmall, out), dir).code, 0);
  EXPECT_TRUE(fs::exists(out + "/stages.csv"));
  EXPECT_EQ(read_json(out + "/summary.json")["policy"], "tdm4");
  EXPECT_FALSE(staging_left(dir.path("")));
}

TEST(Safety, AFailedWriteExitsNonZeroAndKeepsTheEarlierResult) {
  // A file-size limit makes the run's writes fail part-way (EFBIG), exactly as a full disk does (ENOSPC).
  TempDir dir;
  const auto out = dir.path("out");
  ASSERT_EQ(odcnsim(fmt::format("run {} --policy tdm4 --out {} --quiet", kSmall, out), dir).code, 0);
  const std::string before = read_file(out + "/summary.json") + read_file(out + "/trace.json");
  const auto r = shell(fmt::format("ulimit -f 16 && {} run {} --policy tdm4 --iterations 40 --out {}", ODCNSIM_BIN,
                                   kSmallAbs, out),
                       dir);
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_EQ(r.err.rfind(out + "/", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(": (write): write failed: File too large"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "") << "no success summary";
  EXPECT_EQ(read_file(out + "/summary.json") + read_file(out + "/trace.json"), before);
  EXPECT_FALSE(staging_left(dir.path("")));
}

TEST(Safety, AFullDiskExitsNonZeroAndKeepsTheEarlierResult) {
  // A real 200 KiB tmpfs in a private mount namespace; needs root (as in CI), otherwise skipped with reason.
  TempDir dir;
  const auto probe = shell("unshare -m true", dir);
  if (probe.code != 0) GTEST_SKIP() << "unshare -m is not permitted here: " << probe.err;
  const auto mnt = dir.path("mnt");
  fs::create_directory(mnt);
  const std::string script = fmt::format(
      "set -e; mount -t tmpfs -o size=200k tmpfs {0}; "
      "{1} run {2} --policy tdm4 --out {0}/out --quiet; cp {0}/out/summary.json {3}/before.json; "
      "dd if=/dev/zero of={0}/filler bs=1k count=1000 2>/dev/null || true; "
      "set +e; {1} run {2} --policy tdm4 --iterations 20 --out {0}/out; echo \\$? > {3}/code; "
      "cp {0}/out/summary.json {3}/after.json; ls -a {0} > {3}/listing",
      mnt, ODCNSIM_BIN, kSmallAbs, dir.path(""));
  const auto r = shell(fmt::format("unshare -m bash -c \"{}\"", script), dir);
  EXPECT_EQ(read_file(dir.path("code")), "1\n") << r.err;
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find(": (write): write failed: No space left on device"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "") << "no success summary";
  EXPECT_EQ(read_file(dir.path("after.json")), read_file(dir.path("before.json")));
  EXPECT_EQ(read_file(dir.path("listing")), ".\n..\nfiller\nout\n") << "no staging folder left";
}

namespace {

/// Starts a long run, waits until it is simulating (its staging folder exists and it has run a little),
/// sends `sig`, and returns the exit code and stderr.
Result interrupt_run(int sig, const TempDir& dir, const std::string& out) {
  const std::string err = dir.path("interrupted-stderr.txt");
  const pid_t pid = fork();
  if (pid == 0) {
    if (!freopen(err.c_str(), "w", stderr) || !freopen("/dev/null", "w", stdout)) _exit(126);
    if (chdir(ODCNSIM_SOURCE_DIR) != 0) _exit(126);
    execl(ODCNSIM_BIN, "odcnsim", "run", "--platform", "platforms/clos-256pod.yaml", "--workload",
          "workloads/llama3-1000.yaml", "--policy", "static", "--iterations", "200", "--out", out.c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!staging_left(fs::path(out).parent_path().string()) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // into planning or simulation
  kill(pid, sig);
  int status = 0;
  waitpid(pid, &status, 0);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1000 - WTERMSIG(status), "", without_sanitizer_notes(read_file(err))};
}

}  // namespace

TEST(Safety, SignalsRemoveTheUnfinishedOutputAndExitWith128PlusTheSignal) {
  TempDir dir;
  const auto out = dir.path("out");
  ASSERT_EQ(odcnsim(fmt::format("run {} --out {} --quiet", kSmall, out), dir).code, 0);
  const std::string before = read_file(out + "/summary.json");
  for (const auto& [sig, code, name] : {std::tuple{SIGINT, 130, "SIGINT"}, std::tuple{SIGTERM, 143, "SIGTERM"},
                                        std::tuple{SIGHUP, 129, "SIGHUP"}}) {
    const Result r = interrupt_run(sig, dir, out);
    EXPECT_EQ(r.code, code) << name << ": " << r.err;
    EXPECT_EQ(r.err, fmt::format("odcnsim: interrupted by {}; the unfinished output was removed, earlier results are "
                                 "untouched\n",
                                 name));
    EXPECT_FALSE(staging_left(dir.path(""))) << name;
    EXPECT_EQ(read_file(out + "/summary.json"), before) << name;
  }
}

TEST(Safety, ASignalTheCallerIgnoresStaysIgnored) {
  // As under nohup or `trap '' INT`: SimGrid's own SIGINT handler must not take the signal back either.
  TempDir dir;
  const auto r = shell(fmt::format("cd {} && trap \"\" INT && {{ {} run --platform platforms/clos-256pod.yaml --workload "
                                   "workloads/llama3-1000.yaml --iterations 4 --out {} --quiet & }} && p=$! && "
                                   "sleep 0.3 && kill -INT $p; wait $p",
                                   ODCNSIM_SOURCE_DIR, ODCNSIM_BIN, dir.path("o")),
                       dir);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_TRUE(fs::exists(dir.path("o/summary.json")));
}

TEST(Safety, OutputFoldersFollowTheUmask) {
  TempDir dir;
  const auto r = shell(fmt::format("umask 027 && {} run {} --out {} --quiet", ODCNSIM_BIN, kSmallAbs, dir.path("o")), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  struct stat st {};
  ASSERT_EQ(::stat(dir.path("o").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0750u);
  ASSERT_EQ(::stat(dir.path("o/run.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
}

TEST(Safety, RunJsonIgnoresDisplayFlags) {
  TempDir dir;
  ASSERT_EQ(odcnsim(fmt::format("run {} --policy tdm4 --out {} --quiet", kSmall, dir.path("a")), dir).code, 0);
  ASSERT_EQ(odcnsim(fmt::format("run {} --out={} --progress --policy tdm4", kSmall, dir.path("b")), dir).code, 0);
  EXPECT_EQ(read_file(dir.path("a/run.json")), read_file(dir.path("b/run.json")));
  EXPECT_EQ(read_json(dir.path("a/run.json"))["command"],
            "odcnsim run --platform platforms/clos-8pod.yaml --workload workloads/small-mix.yaml --policy tdm4 "
            "--iterations 3");
}

TEST(Safety, PathsAndNamesThatAreNotPlainTextNeverBreakTheOutputs) {
  TempDir dir;
  const std::string odd = dir.write("w\xff\n.yaml", read_file(abs_path("workloads/small-mix.yaml")));
  const auto r = shell(fmt::format("{} run --platform {} --workload \"$(printf \"{}\\377\\n.yaml\")\" --out {} --quiet",
                                   ODCNSIM_BIN, abs_path("platforms/clos-8pod.yaml"), dir.path("w"), dir.path("o")),
                       dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(read_json(dir.path("o/run.json"))["workload"]["file"].get<std::string>().find("\xef\xbf\xbd"),
            std::string::npos)
      << "not UTF-8: written as U+FFFD";
  // An error about that file is one line, with the bytes escaped.
  const auto bad = shell(fmt::format("{} validate \"$(printf \"{}\\377\\n.yaml\")\"", ODCNSIM_BIN, dir.path("missing")), dir);
  expect_one_line_exit2(bad, dir.path("missing\\xff\\x0a.yaml: (file): cannot be read"));
  (void)odd;
}

TEST(Safety, ManyUnplacedJobsAreOneWarningLine) {
  TempDir dir;
  const auto w = dir.write("w.yaml", "generator: {jobs: 200, seed: 1, models: [90B], degree: [4, 4]}\n");
  const auto r = odcnsim(fmt::format("run --platform platforms/clos-8pod.yaml --workload {} --out {}", w, dir.path("o")), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_EQ(r.err.rfind("odcnsim: warning: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(" of 200 generated jobs do not fit the platform"), std::string::npos) << r.err;
  const auto quiet = odcnsim(fmt::format("run --platform platforms/clos-8pod.yaml --workload {} --out {} --quiet", w,
                                         dir.path("o")),
                             dir);
  EXPECT_EQ(quiet.err, "");
  // A run that fails after loading prints its error line alone, not the warning too.
  const auto file = dir.write("taken", "x");
  expect_one_line_exit2(
      odcnsim(fmt::format("run --platform platforms/clos-8pod.yaml --workload {} --out {}", w, file), dir),
      "command line: --out: ");
  // When none fits, the error alone.
  const auto none = dir.write("n.yaml", "generator: {jobs: 100000, seed: 1, degree: [65536, 65536]}\n");
  expect_one_line_exit2(
      odcnsim(fmt::format("run --platform platforms/clos-8pod.yaml --workload {} --out {}", none, dir.path("n")), dir),
      none + ": generator.jobs: none of the 100000 generated jobs fits the platform");
}

TEST(CliErrors, EveryParseErrorIsOneLineWithExit2) {
  TempDir dir;
  const std::string out = " --out " + dir.path("o");
  // (arguments, expected start of the line, expected text in it)
  const std::vector<std::tuple<std::string, std::string, std::string>> cases{
      {"", "command line: odcnsim: a subcommand is required", "odcnsim --help"},
      {"frob", "command line: frob: unknown subcommand;",
       "run, compare, sweep, diff, report, generate, import, export, validate, show or bench"},
      {"rnu", "command line: rnu: unknown subcommand, did you mean 'run'?", ""},
      {"run --platfrom x", "command line: --platfrom: unknown option of 'odcnsim run'; did you mean '--platform'?", ""},
      {"validate --strict x", "command line: --strict: unknown option of 'odcnsim validate'", ""},
      {"bench --job 5", "command line: --job: unknown option of 'odcnsim bench'; did you mean '--jobs'?", ""},
      {"run --workload w.yaml" + out, "command line: run: --platform is required", "odcnsim run --help"},
      {"run " + kSmall, "command line: run: --out is required", ""},
      {"run " + kSmall + " --out", "command line: run: --out: 1 required", ""},
      {"run " + kSmall + out + " extra", "command line: run: the following argument", "extra"},
      {"validate", "command line: validate: files is required", ""},
      {"--nope", "command line: --nope: unknown option; give a subcommand first", "run, compare, sweep, diff, report, generate, import, export, validate, show or bench"},
      {"run " + kSmall + out + " --iterations 2147483648", "command line: --iterations: must be between 1 and 1000000", ""},
      {"run " + kSmall + out + " --iterations 4294967297", "command line: --iterations: must be between", ""},
      {"run " + kSmall + out + " --iterations 9223372036854775808", "command line: --iterations: must be between", ""},
      {"run " + kSmall + out + " --iterations -3", "command line: --iterations: must be > 0 (got -3)", ""},
      {"run " + kSmall + out + " --iterations 0", "command line: --iterations: must be > 0 (got 0)", ""},
      {"run " + kSmall + out + " --iterations 1.5", "command line: --iterations: must be a whole number", ""},
      {"run " + kSmall + out + " --iterations " + std::string(300, '9'), "command line: --iterations: must be between",
       "(300 characters)"},
      {"run " + kSmall + out + " --seed -1", "command line: --seed: must be a whole number between 0 and", ""},
      {"run " + kSmall + out + " --seed 18446744073709551616", "command line: --seed: must be a whole number", ""},
      {"run " + kSmall + out + " --seed 1e23", "command line: --seed: must be a whole number", ""},
      {"run " + kSmall + out + " --policy 'a\x1b[31mb'", "command line: --policy: unknown policy 'a\\x1b[31mb'", ""},
      {"bench --jobs 0", "command line: --jobs: must be > 0 (got 0)", ""},
      {"bench --jobs 10,,20", "command line: --jobs: must be a whole number (got '')", ""},
      {"bench --jobs 2000000", "command line: --jobs: must be between 1 and 1000000", ""},
      {"bench --repeat x", "command line: --repeat: must be a whole number (got 'x')", ""},
      {"bench --context 1e9", "command line: --context: must be a whole number", ""},
      {"bench --platform /nonexistent.yaml", "/nonexistent.yaml: (file): cannot be read", ""},
      {"bench --collective allreduce", "command line: --collective: unknown operation 'allreduce'", ""},
      {"bench --collective all-to-all --algorithm ring", "command line: --algorithm: 'ring' does not implement all-to-all", ""},
      {"bench --collective send-recv --ranks 3", "command line: --ranks: send-recv needs exactly 2 endpoints", ""},
      {"bench --collective all-reduce --ranks 1", "command line: --ranks: all-reduce needs at least 2 endpoints", ""},
      {"bench --collective all-reduce --bytes 1e400", "command line: --bytes: is too large", ""},
  };
  for (const auto& [args, start, contains] : cases) {
    SCOPED_TRACE(args);
    expect_one_line_exit2(odcnsim(args, dir), start, contains);
  }
  // Help and version are not errors.
  EXPECT_EQ(odcnsim("run --help", dir).code, 0);
  EXPECT_NE(odcnsim("run --help", dir).out.find("--force"), std::string::npos);
  EXPECT_EQ(odcnsim("--version", dir).code, 0);
}

TEST(CliErrors, TooManyIterationRowsAreRefusedBeforeSimulating) {
  TempDir dir;
  expect_one_line_exit2(odcnsim(fmt::format("run --platform platforms/clos-256pod.yaml --workload "
                                            "workloads/llama3-1000.yaml --iterations 1000000 --out {}",
                                            dir.path("o")),
                                dir),
                        "command line: --iterations: 1000000 iterations of ", "above the limit of 10000000");
  EXPECT_FALSE(fs::exists(dir.path("o")));
}
