// `odcnsim report DIR`: the page lands at DIR/report.html or at --out, an earlier page is replaced and a run into
// the folder again still works, and bad input is one line with exit 2 and writes nothing. The page's contents
// are checked by tests/analysis/test_report.py (analysis.report).
#include <filesystem>

#include "cli/cli_support.hpp"

namespace odcn::test {
namespace {

namespace fs = std::filesystem;

const std::string kTiny = "--platform platforms/electrical-16.yaml --workload workloads/graphs-dp4.yaml";
const std::string kFast = "--iterations 1 --no-slowdown --quiet";

/// A run folder of the smallest scenario in `scratch`.
std::string tiny_run(const TempDir& scratch) {
  const std::string dir = scratch.path("run");
  const auto r = odcnsim("run " + kTiny + " " + kFast + " --out '" + dir + "'", scratch);
  EXPECT_EQ(r.code, 0) << r.err;
  return dir;
}

bool is_page(const std::string& path) {
  const std::string text = read_file(path);
  return text.rfind("<!DOCTYPE html>", 0) == 0 && text.find("</html>") != std::string::npos &&
         text.find("id=\"summary\"") != std::string::npos;
}

TEST(Report, WritesDirReportHtmlAndPrintsItsPath) {
  TempDir scratch;
  const std::string dir = tiny_run(scratch);
  const auto r = odcnsim("report '" + dir + "'", scratch);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, dir + "/report.html\n");
  EXPECT_EQ(r.err, "");
  EXPECT_TRUE(is_page(dir + "/report.html"));
  // An earlier page is replaced, and a run into the folder again is not refused: it replaces the page too.
  EXPECT_EQ(odcnsim("report '" + dir + "' --quiet", scratch).code, 0);
  const auto again = odcnsim("run " + kTiny + " " + kFast + " --out '" + dir + "'", scratch);
  EXPECT_EQ(again.code, 0) << again.err;
  EXPECT_FALSE(fs::exists(dir + "/report.html"));
}

TEST(Report, OutNamesThePage) {
  TempDir scratch;
  const std::string dir = tiny_run(scratch), page = scratch.path("page.html");
  const auto r = odcnsim("report '" + dir + "' --out '" + page + "'", scratch);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, page + "\n");
  EXPECT_TRUE(is_page(page));
  EXPECT_FALSE(fs::exists(dir + "/report.html"));
}

TEST(Report, BadInputIsOneLineAndWritesNothing) {
  TempDir scratch;
  const std::string dir = tiny_run(scratch);
  fs::create_directory(scratch.path("empty"));
  const std::string mine = scratch.write("mine.html", "mine\n");
  expect_refusals({{"report '" + scratch.path("missing") + "'", scratch.path("missing") + ": (folder): does not exist"},
                   {"report '" + scratch.path("empty") + "'", scratch.path("empty") + ": (folder): holds no summary.json"},
                   {"report '" + dir + "/summary.json'", dir + "/summary.json: (folder): is not a folder"},
                   {"report '" + dir + "' --out '" + mine + "'", mine + ": --out: exists and is not a page"},
                   {"report '" + dir + "' --out '" + scratch.path("no/page.html") + "'", scratch.path("no/page.html")},
                   {"report '" + dir + "' --out '" + scratch.path("empty") + "'", scratch.path("empty") + ": --out: is a folder"},
                   {"report", "command line: report: "},
                   {"report '" + dir + "' --outt x", "command line: --outt: unknown option"}},
                  scratch);
  EXPECT_EQ(read_file(mine), "mine\n");
  EXPECT_TRUE(fs::is_empty(scratch.path("empty")));
  EXPECT_FALSE(fs::exists(dir + "/report.html"));
  EXPECT_FALSE(fs::exists(scratch.path("no")));
}

}  // namespace
}  // namespace odcn::test
