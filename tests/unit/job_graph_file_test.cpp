// odcnsim's job-graph JSON: the documented example reads back as the graph it describes, and every class of
// bad file is an InputError naming the field (strict JSON: duplicate keys, 1e400, versions, ids, cycles).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "support/temp_files.hpp"
#include "graph/job_graph_file.hpp"

using namespace odcn;
using namespace odcn::workload;

namespace {

const std::string kHead = R"({"format": "odcnsim-job-graph", "version": 1, "name": "t", "ranks": 2, "tasks": [)";

std::string error_of(const std::string& text) {
  try {
    parse_job_graph(text, "g.json");
    return "ok";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    return e.what();
  }
}

std::string graph(const std::string& tasks) { return kHead + tasks + "]}"; }

}  // namespace

TEST(JobGraphFile, TheDocumentedExampleReadsAsWritten) {
  const auto g = load_job_graph(std::string(ODCNSIM_SOURCE_DIR) + "/docs/examples/job-graph-dp4.json");
  EXPECT_EQ(g.name, "dp4-toy");
  EXPECT_EQ(g.ranks, 4);
  EXPECT_EQ(g.iterations, 3);
  ASSERT_EQ(g.tasks.size(), 8u);
  const Task& ar = g.tasks[4];
  EXPECT_EQ(ar.kind, TaskKind::collective);
  EXPECT_EQ(ar.op, CollectiveOp::all_reduce);
  EXPECT_EQ(ar.algorithm, CollectiveAlgorithm::ring);
  EXPECT_EQ(ar.group, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_DOUBLE_EQ(ar.bytes, 1073741824.0);
  EXPECT_EQ(ar.deps, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(g.tasks[7].deps, (std::vector<int>{6, 5}));
  // Critical path: 0.25 s of compute, the all-reduce at 100 Gb/s (1.5 x 1 GiB / 12.5e9 B/s), then the
  // longer of the 1 MB checkpoint (80 us) and the 10 ms step.
  const auto cp = critical_path(g, [](const Task& t) {
    switch (t.kind) {
      case TaskKind::compute: return t.duration_s;
      case TaskKind::transfer: return t.bytes / 12.5e9;
      case TaskKind::collective: {
        const int n = static_cast<int>(t.group.size());
        return closed_form_seconds(lower_collective(t.op, t.algorithm, n, t.bytes, t.root), n, 12.5e9);
      }
      case TaskKind::barrier: return 0.0;
    }
    return 0.0;
  });
  EXPECT_NEAR(cp.length_s, 0.25 + 1.5 * 1073741824.0 / 12.5e9 + 0.01, 1e-12);
  EXPECT_EQ(cp.tasks, (std::vector<int>{0, 4, 6, 7}));
}

TEST(JobGraphFile, RefusesOtherFormatsAndVersions) {
  EXPECT_EQ(error_of(R"({"format": "chakra", "version": 1})"),
            "g.json: format: must be \"odcnsim-job-graph\" (got \"chakra\")");
  EXPECT_EQ(error_of(R"({"format": "odcnsim-job-graph", "version": 2})"),
            "g.json: version: this odcnsim reads job-graph version 1; the file is version 2 (written by a newer "
            "odcnsim?)");
  EXPECT_EQ(error_of(R"({"format": "odcnsim-job-graph"})"), "g.json: version: is required");
  EXPECT_EQ(error_of("[1, 2]"), "g.json: (root): must be a JSON object");
}

TEST(JobGraphFile, IsStrictJson) {
  EXPECT_EQ(error_of(R"({"format": "odcnsim-job-graph", "format": "x"})"), "g.json: format: duplicate key");
  EXPECT_EQ(error_of(graph(R"({"id": "a", "kind": "compute", "rank": 0, "rank": 1, "duration_s": 1})")),
            "g.json: tasks[0].rank: duplicate key");
  EXPECT_EQ(error_of(graph(R"({"id": "a", "kind": "transfer", "src": 0, "dst": 1, "bytes": 1e400})")),
            "g.json: tasks[0].bytes: is too large or too small for a number (got '1e400')");
  EXPECT_EQ(error_of(graph(R"({"id": "a", "kind": "compute", "rank": 1.0, "duration_s": 1})")),
            "g.json: tasks[0].rank: must be a whole number (got 1.0)");
  EXPECT_EQ(error_of(graph(R"({"id": "a", "kind": "compute", "rank": 2, "duration_s": 1})")),
            "g.json: tasks[0].rank: must be between 0 and 1 (got 2; see docs/limits.md)");
  EXPECT_EQ(error_of(kHead + "] } trailing").rfind("g.json: (file): not valid JSON at byte", 0), 0u);
  std::string deep = R"({"a": )";
  for (int i = 0; i < 100; ++i) deep += "[";
  EXPECT_NE(error_of(deep).find("nested more than 64 levels"), std::string::npos);
}

// Field names are made only when a check fails (a large graph has hundreds of thousands): each failure still names
// its own element, whichever list and position it is in.
TEST(JobGraphFile, ErrorsDeepInListsNameTheirElement) {
  const std::string ok = R"({"id": "a", "kind": "barrier"}, )";
  EXPECT_EQ(error_of(graph(ok + R"({"id": "b", "kind": "collective", "op": "all-gather", "algorithm": "ring", "group": [0, 5], "bytes": 8})")),
            "g.json: tasks[1].group[1]: must be between 0 and 1 (got 5; see docs/limits.md)");
  EXPECT_EQ(error_of(graph(ok + R"({"id": "b", "kind": "barrier", "deps": ["a", 3]})")),
            "g.json: tasks[1].deps[1]: must be a string");
  EXPECT_EQ(error_of(graph(ok + R"({"kind": "barrier"})")), "g.json: tasks[1].id: is required");
  EXPECT_EQ(error_of(graph(ok + R"({"id": 7, "kind": "barrier"})")), "g.json: tasks[1].id: must be a string");
  EXPECT_EQ(error_of(graph(ok + R"({"id": "b", "kind": "compute", "rank": 0, "duration_s": "x"})")),
            "g.json: tasks[1].duration_s: must be a number");
  EXPECT_EQ(error_of(graph(ok + R"({"id": "b", "kind": "compute", "rank": 0, "duration_s": 1, "duration_s": 2})")),
            "g.json: tasks[1].duration_s: duplicate key");
  EXPECT_EQ(error_of(graph(ok + R"({"id": "b", "kind": "transfer", "src": 0, "dst": 1, "bytes": [1e999]})")),
            "g.json: tasks[1].bytes[0]: is too large or too small for a number (got '1e999')");
  // An object of more than 16 keys is checked through a set rather than by scanning its keys.
  std::string many = R"({"format": "odcnsim-job-graph")";
  for (int k = 0; k < 20; ++k) many += fmt::format(R"(, "k{}": {})", k, k);
  EXPECT_EQ(error_of(many + R"(, "k3": 0})"), "g.json: k3: duplicate key");
  EXPECT_EQ(error_of(many + R"(, "k19": 0})"), "g.json: k19: duplicate key");
}

// Tasks are read as they are parsed once format, version, name and ranks are read; a file that gives any of them
// after its tasks is read whole first. Both give the same graph and the same errors.
TEST(JobGraphFile, TheHeadMayComeBeforeOrAfterTheTasks) {
  const std::string tasks = R"("tasks": [{"id": "a", "kind": "compute", "rank": 1, "duration_s": 0.5},
      {"id": "b", "kind": "transfer", "src": 1, "dst": 0, "bytes": 8, "deps": ["a", "c"]},
      {"id": "c", "kind": "barrier"}])";
  const std::string head = R"("format": "odcnsim-job-graph", "version": 1, "name": "t", "ranks": 2, "iterations": 3)";
  for (const std::string& text : {"{" + head + ", " + tasks + "}", "{" + tasks + ", " + head + "}",
                                  R"({"format": "odcnsim-job-graph", "version": 1, "ranks": 2, )" + tasks +
                                      R"(, "name": "t", "iterations": 3})"}) {
    const JobGraph g = parse_job_graph(text, "g.json");
    EXPECT_EQ(g.name, "t");
    EXPECT_EQ(g.iterations, 3);
    ASSERT_EQ(g.tasks.size(), 3u);
    EXPECT_EQ(g.tasks[0].rank, 1);
    EXPECT_DOUBLE_EQ(g.tasks[0].duration_s, 0.5);
    EXPECT_EQ(g.tasks[1].deps, (std::vector<int>{0, 2}));
    EXPECT_EQ(g.tasks[2].kind, TaskKind::barrier);
  }
  const std::string bad = R"("tasks": [{"id": "a", "kind": "barrier"}, {"id": "b", "kind": "compute", "rank": 2, "duration_s": 1}])";
  EXPECT_EQ(error_of("{" + head + ", " + bad + "}"), "g.json: tasks[1].rank: must be between 0 and 1 (got 2; see docs/limits.md)");
  EXPECT_EQ(error_of("{" + bad + ", " + head + "}"), "g.json: tasks[1].rank: must be between 0 and 1 (got 2; see docs/limits.md)");
  // A head that is wrong is reported before any task is read.
  EXPECT_EQ(error_of(R"({"format": "odcnsim-job-graph", "version": 2, "name": "t", "ranks": 2, )" + bad + "}"),
            "g.json: version: this odcnsim reads job-graph version 1; the file is version 2 (written by a newer "
            "odcnsim?)");
  EXPECT_EQ(error_of(R"({"format": "odcnsim-job-graph", "version": 1, "name": "t", "ranks": 0, )" + bad + "}"),
            "g.json: ranks: must be > 0 (got 0)");
}

TEST(JobGraphFile, ResolvesDependenciesByIdAndRefusesUnknownsAndCycles) {
  EXPECT_EQ(error_of(graph(R"({"id": "a", "kind": "barrier", "deps": ["b"]})")),
            "g.json: tasks[0].deps[0]: no task has the id 'b'");
  EXPECT_EQ(error_of(graph(R"({"id": "a", "kind": "barrier"}, {"id": "a", "kind": "barrier"})")),
            "g.json: tasks[1].id: 'a' is the id of an earlier task");
  EXPECT_EQ(error_of(graph(R"({"id": "a", "kind": "barrier", "deps": ["b"]}, {"id": "b", "kind": "barrier", "deps": ["a"]})")),
            "g.json: tasks[0].deps: task 'a' depends on itself through a cycle");
  EXPECT_EQ(error_of(graph(R"({"id": "a", "kind": "collective", "op": "all-to-all", "algorithm": "ring", "group": [0, 1], "bytes": 8})")),
            "g.json: tasks[0].algorithm: ring does not implement all-to-all");
  EXPECT_EQ(error_of(graph(R"({"id": "a", "kind": "sleep"})")),
            "g.json: tasks[0].kind: unknown task kind 'sleep' (expected compute, transfer, collective or barrier)");
  EXPECT_EQ(error_of(graph(R"({"id": "a", "kind": "barrier", "rank": 0})")),
            "g.json: tasks[0].rank: unknown key (allowed: id, kind, deps)");
}
