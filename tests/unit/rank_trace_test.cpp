// Assembling per-rank traces into one job graph (traces/rank_trace.hpp): matching by group and order, by
// (sender, receiver) and order, dependencies, and every way a set of traces can fail to match.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "core/error.hpp"
#include "core/text.hpp"
#include "graph/job_graph_file.hpp"
#include "traces/rank_trace.hpp"
#include "support/graphs.hpp"

using namespace odcn;
using namespace odcn::workload;
using Kind = RankEvent::Kind;

namespace {

RankEvent compute(double s, const char* name = "k") {
  RankEvent e;
  e.kind = Kind::compute;
  e.name = name;
  e.duration_s = s;
  e.field = name;
  return e;
}
RankEvent coll(CollectiveOp op, double bytes, std::vector<int> group, std::string pg = "0") {
  RankEvent e;
  e.kind = Kind::collective;
  e.name = "nccl";
  e.op = op;
  e.bytes = bytes;
  e.group = std::move(group);
  e.group_name = std::move(pg);
  e.field = "coll";
  return e;
}
RankEvent p2p(Kind k, int peer, double bytes) {
  RankEvent e;
  e.kind = k;
  e.peer = peer;
  e.bytes = bytes;
  e.field = k == Kind::send ? "send" : "recv";
  return e;
}
RankTrace rank(int r, std::vector<RankEvent> events) {
  RankTrace t;
  t.rank = r;
  t.file = "rank" + std::to_string(r) + ".json";
  t.events = std::move(events);
  return t;
}
AssembleOptions ranks(int n) {
  AssembleOptions o;
  o.ranks = n;
  return o;
}
int count(const JobGraph& g, TaskKind k) {
  return static_cast<int>(std::count_if(g.tasks.begin(), g.tasks.end(), [&](const Task& t) { return t.kind == k; }));
}
std::string error_of(const std::vector<RankTrace>& t, int n) {
  try {
    assemble_job_graph(t, ranks(n));
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(RankTrace, CollectivesMatchByGroupAndOrderAndWaitForEveryMember) {
  // Two ranks, two all-reduces; rank 1 computes longer before the first.
  const auto g = assemble_job_graph(
      {rank(0, {compute(0.1), coll(CollectiveOp::all_reduce, 1e6, {0, 1}), compute(0.2),
                coll(CollectiveOp::all_reduce, 2e6, {0, 1})}),
       rank(1, {compute(0.3), coll(CollectiveOp::all_reduce, 1e6, {0, 1}), compute(0.2),
                coll(CollectiveOp::all_reduce, 2e6, {0, 1})})},
      ranks(2));
  EXPECT_EQ(g.ranks, 2);
  EXPECT_EQ(count(g, TaskKind::compute), 4);
  ASSERT_EQ(count(g, TaskKind::collective), 2);
  // The first all-reduce depends on both ranks' first computes.
  const auto first = std::find_if(g.tasks.begin(), g.tasks.end(), [](const Task& t) {
    return t.kind == TaskKind::collective && t.bytes == 1e6;
  });
  ASSERT_NE(first, g.tasks.end());
  ASSERT_EQ(first->deps.size(), 2u);
  for (int d : first->deps) EXPECT_EQ(g.tasks[static_cast<std::size_t>(d)].kind, TaskKind::compute);
  EXPECT_EQ(first->group, (std::vector<int>{0, 1}));
  // Its critical path: max(0.1, 0.3) before it, 0.2 after it.
  const auto cp = critical_path(g, [](const Task& t) { return t.kind == TaskKind::compute ? t.duration_s : 0.0; });
  EXPECT_DOUBLE_EQ(cp.length_s, 0.5);
}

TEST(RankTrace, MessagesMatchBySenderReceiverAndOrder) {
  const auto g = assemble_job_graph({rank(0, {compute(0.1), p2p(Kind::send, 1, 64), p2p(Kind::send, 1, 32)}),
                                     rank(1, {p2p(Kind::recv, 0, 64), compute(0.1), p2p(Kind::recv, 0, 32)})},
                                    ranks(2));
  ASSERT_EQ(count(g, TaskKind::transfer), 2);
  for (const Task& t : g.tasks)
    if (t.kind == TaskKind::transfer) {
      EXPECT_EQ(t.src, 0);
      EXPECT_EQ(t.dst, 1);
    }
  // Critical path with 1 s per byte... messages in order: 0.1 (r0) -> 64 -> 0.1 (r1) -> 32.
  const auto cp = critical_path(g, [](const Task& t) {
    return t.kind == TaskKind::compute ? t.duration_s : t.kind == TaskKind::transfer ? t.bytes : 0.0;
  });
  EXPECT_DOUBLE_EQ(cp.length_s, 0.1 + 64 + 0.1 + 32);
}

TEST(RankTrace, ExplicitDependenciesReplaceTheChain) {
  RankEvent a = compute(1, "a"), b = compute(2, "b"), c = compute(0.5, "c");
  b.deps = std::vector<int>{};   // independent of a
  c.deps = std::vector<int>{0, 1};
  const auto g = assemble_job_graph({rank(0, {a, b, c})}, ranks(1));
  const auto cp = critical_path(g, [](const Task& t) { return t.duration_s; });
  EXPECT_DOUBLE_EQ(cp.length_s, 2.5);  // max(1, 2) + 0.5, not 1 + 2 + 0.5
}

TEST(RankTrace, ZeroTimeAndSingleRankEventsKeepTheOrderWithoutTakingTime) {
  const auto g = assemble_job_graph({rank(0, {compute(0), coll(CollectiveOp::all_reduce, 8, {0}, "self"), compute(1)})},
                                    ranks(1));
  EXPECT_EQ(count(g, TaskKind::barrier), 2);
  EXPECT_EQ(count(g, TaskKind::compute), 1);
}

TEST(RankTrace, ReplicationCopiesAnSpmdRankAndRefusesPointToPoint) {
  const auto copies = replicate_ranks({rank(0, {compute(0.1), coll(CollectiveOp::all_reduce, 100, {0, 1, 2})})}, 3);
  ASSERT_EQ(copies.size(), 3u);
  const auto g = assemble_job_graph(copies, ranks(3));
  EXPECT_EQ(count(g, TaskKind::collective), 1);
  EXPECT_EQ(count(g, TaskKind::compute), 3);
  EXPECT_THROW(replicate_ranks({rank(0, {p2p(Kind::send, 1, 8)})}, 2), InputError);
}

TEST(RankTrace, RefusesWhatDoesNotMatch) {
  // A rank without a trace.
  EXPECT_NE(error_of({rank(0, {compute(1)})}, 2).find("no trace for rank 1 of 2"), std::string::npos);
  // Two traces of one rank.
  EXPECT_NE(error_of({rank(0, {compute(1)}), rank(0, {compute(1)})}, 1).find("also traced"), std::string::npos);
  // A member that never joins.
  EXPECT_NE(error_of({rank(0, {coll(CollectiveOp::all_reduce, 8, {0, 1})}), rank(1, {compute(1)})}, 2)
                .find("rank 1 never joins collective #0"),
            std::string::npos);
  // Members that disagree on the bytes.
  EXPECT_NE(error_of({rank(0, {coll(CollectiveOp::all_reduce, 8, {0, 1})}),
                      rank(1, {coll(CollectiveOp::all_reduce, 16, {0, 1})})},
                     2)
                .find("all-reduce of 16 B"),
            std::string::npos);
  // Or on the operation.
  EXPECT_NE(error_of({rank(0, {coll(CollectiveOp::all_reduce, 8, {0, 1})}),
                      rank(1, {coll(CollectiveOp::all_gather, 8, {0, 1})})},
                     2),
            "");
  // A rank outside its own group, and a group beyond the job.
  EXPECT_NE(error_of({rank(0, {coll(CollectiveOp::all_reduce, 8, {1, 2})}), rank(1, {}), rank(2, {})}, 3)
                .find("not a member"),
            std::string::npos);
  EXPECT_NE(error_of({rank(0, {coll(CollectiveOp::all_reduce, 8, {0, 5})})}, 1).find("beyond"), std::string::npos);
  // A send without its receive.
  EXPECT_NE(error_of({rank(0, {p2p(Kind::send, 1, 8)}), rank(1, {compute(1)})}, 2).find("no matching receive"),
            std::string::npos);
  // A deadlock: each rank receives before it sends.
  EXPECT_NE(error_of({rank(0, {p2p(Kind::recv, 1, 8), p2p(Kind::send, 1, 8)}),
                      rank(1, {p2p(Kind::recv, 0, 8), p2p(Kind::send, 0, 8)})},
                     2)
                .find("cycle"),
            std::string::npos);
  // A dependency on a later event.
  RankEvent bad = compute(1);
  bad.deps = std::vector<int>{3};
  EXPECT_NE(error_of({rank(0, {bad})}, 1).find("not an earlier event"), std::string::npos);
}

TEST(RankTrace, BarriersSynchroniseTheirGroupAndRelaysLeaveOnlyTheirDependencies) {
  RankEvent b;
  b.kind = Kind::barrier;
  b.group = {0, 1};
  b.field = "barrier";
  // Rank 0 computes 1 s, rank 1 3 s; after the barrier each computes 2 s: 5 s in all.
  const auto with = [&](bool relay) {
    RankEvent x = b;
    x.relay_only = relay;
    return std::vector<RankTrace>{rank(0, {compute(1), x, compute(2)}), rank(1, {compute(3), x, compute(2)})};
  };
  const auto duration = [](const Task& t) { return t.duration_s; };
  const auto kept = assemble_job_graph(with(false), ranks(2));
  EXPECT_EQ(count(kept, TaskKind::barrier), 1);
  EXPECT_DOUBLE_EQ(critical_path(kept, duration).length_s, 5.0);
  const auto relayed = assemble_job_graph(with(true), ranks(2));
  EXPECT_EQ(count(relayed, TaskKind::barrier), 0);
  ASSERT_EQ(relayed.tasks.size(), 4u);
  EXPECT_DOUBLE_EQ(critical_path(relayed, duration).length_s, 5.0);  // each second compute waits for both firsts
  for (const Task& t : relayed.tasks)
    if (t.duration_s == 2) {
      EXPECT_EQ(t.deps.size(), 2u);
    }
  // Members must agree on what the barrier is.
  auto mixed = with(true);
  mixed[1].events[1].relay_only = false;
  EXPECT_NE(error_of(mixed, 2).find("is a barrier here but a relay-only barrier on rank 0"), std::string::npos)
      << error_of(mixed, 2);
}

TEST(RankTrace, DtypeSizes) {
  EXPECT_EQ(dtype_bytes("Float"), 4);
  EXPECT_EQ(dtype_bytes("c10::BFloat16"), 2);
  EXPECT_EQ(dtype_bytes("Long"), 8);
  EXPECT_EQ(dtype_bytes("torch.float16"), 2);
  EXPECT_EQ(dtype_bytes("Quaternion"), 0);
}

TEST(RankTrace, TaskNamesAreJobGraphIdsSoAnImportedGraphReadsBack) {
  // Trace names hold what job-graph ids refuse: commas, quotes, a line break, a byte that is not UTF-8, 300
  // bytes. Two groups of 17 of 18 ranks (without rank 2, without rank 3) would list their members with commas,
  // and their short labels are the same.
  const auto without = [](int gone) {
    std::vector<int> g;
    for (int r = 0; r < 18; ++r)
      if (r != gone) g.push_back(r);
    return g;
  };
  std::vector<RankTrace> t;
  const std::string longest(300, 'x');
  const std::string accents = std::string(250, 'y') + "\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9";  // 258 bytes, é at 250
  for (int r = 0; r < 18; ++r) {
    std::vector<RankEvent> ev{compute(0.1, "aten::mm, \"fast\"\nx\xFF"), compute(0.1, longest.c_str()),
                              compute(0.1, accents.c_str())};
    if (r != 2) ev.push_back(coll(CollectiveOp::all_reduce, 1e6, without(2), ""));
    if (r != 3) ev.push_back(coll(CollectiveOp::all_reduce, 2e6, without(3), ""));
    if (r <= 1) ev.push_back(coll(CollectiveOp::all_gather, 1e6, {0, 1}, "p,\"q\""));
    t.push_back(rank(r, ev));
  }
  const JobGraph g = assemble_job_graph(t, ranks(18));
  std::set<std::string> names;
  for (const Task& task : g.tasks) {
    EXPECT_TRUE(is_utf8(task.name)) << task.name;
    EXPECT_LE(task.name.size(), 256u);
    EXPECT_EQ(task.name.find_first_of(",\"\n"), std::string::npos) << task.name;
    EXPECT_TRUE(names.insert(task.name).second) << "twice: " << task.name;
  }
  EXPECT_EQ(g.tasks[0].name, "r0.0 aten::mm_ _fast__x_");
  EXPECT_EQ(g.tasks[1].name, "r0.1 " + std::string(243, 'x'));  // cut to 248 bytes
  EXPECT_EQ(g.tasks[2].name, "r0.2 " + std::string(243, 'y'));  // not inside the é
  EXPECT_EQ(g.tasks[3].name, "[0 1 .. 17; 17 ranks] all-reduce #0");
  EXPECT_EQ(g.tasks[4].name, "[0 1 .. 17; 17 ranks] all-reduce #0 ~2");
  EXPECT_EQ(g.tasks[5].name, "'p__q_' [0 1] all-gather #0");
  // Written and read back: the same tasks, bytes and dependencies.
  const JobGraph back = parse_job_graph(job_graph_json(g), "back.json");
  test::expect_same_graph(g, back);
}

// Copying one rank's trace to the ranks without a file is bounded before any copy: 10 events to 2,000,000 ranks
// (2 x 10^7 events) is refused naming the count and the limit; 100,000 ranks are made, rank by rank in order.
TEST(RankTrace, ReplicationIsBoundedBeforeCopying) {
  RankTrace model;
  model.rank = 0;
  model.file = "r0.json";
  for (int i = 0; i < 10; ++i) {
    RankEvent e;
    e.name = "c" + std::to_string(i);
    e.duration_s = 1e-3;
    model.events.push_back(e);
  }
  try {
    replicate_ranks({model}, 2'000'000);
    ADD_FAILURE() << "not refused";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "r0.json: ranks: replicating its 10 events to 1999999 more ranks gives 20000000 events, above the limit "
              "of 10000000 (see docs/limits.md)");
  }
  const auto out = replicate_ranks({model}, 100'000);
  ASSERT_EQ(out.size(), 100'000u);
  EXPECT_EQ(out.back().rank, 99'999);
  EXPECT_EQ(out[123].events.size(), 10u);
}

// Groups in error messages are bounded: a process group of 100,000 ranks is 9 numbers and a count, not 600 KB.
TEST(RankTrace, RanksInMessagesAreBounded) {
  EXPECT_EQ(ranks_text({0, 1, 2}), "0, 1, 2");
  std::vector<int> big(100000);
  for (int i = 0; i < 100000; ++i) big[static_cast<std::size_t>(i)] = i;
  EXPECT_EQ(ranks_text(big), "0, 1, 2, 3, 4, 5, 6, 7, ..., 99999 (100000 ranks)");
  std::vector<int> sixteen(big.begin(), big.begin() + 16), seventeen(big.begin(), big.begin() + 17);
  EXPECT_EQ(ranks_text(sixteen).size(), std::string("0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15").size());
  EXPECT_EQ(ranks_text(seventeen), "0, 1, 2, 3, 4, 5, 6, 7, ..., 16 (17 ranks)");
}
