// The Chakra ET importer and writer (traces/chakra.hpp): the real sample of tests/data/chakra (counts from its
// README), hand-made traces for each rule and each refusal, and round trips job graph -> Chakra -> job graph.
#include "traces/chakra.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <tuple>

#include "core/error.hpp"
#include "et_def.pb.h"
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/util/delimited_message_util.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include "systems/opus/torchtitan.hpp"

using namespace odcn;
using namespace odcn::workload;
namespace pb = ChakraProtoMsg;

namespace {

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

const std::string& sample() {
  static const std::string bytes = read_bytes(ODCNSIM_CHAKRA_SAMPLE);
  return bytes;
}

// A small ET file built with the generated protobuf classes.
struct Et {
  pb::GlobalMetadata meta;
  std::vector<pb::Node> nodes;
  std::string bytes() const {
    std::string out;
    auto put = [&](const google::protobuf::Message& m) {
      std::string body = m.SerializeAsString();
      std::uint64_t n = body.size();
      do {  // the varint length prefix, as chakra's protolib.encodeMessage writes it
        const auto b = static_cast<unsigned char>(n & 0x7F);
        n >>= 7;
        out += static_cast<char>(n ? (b | 0x80) : b);
      } while (n);
      out += body;
    };
    put(meta);
    for (const auto& node : nodes) put(node);
    return out;
  }
  pb::Node& add(std::uint64_t id, pb::NodeType type, std::vector<std::uint64_t> data_deps = {}) {
    nodes.emplace_back();
    auto& n = nodes.back();
    n.set_id(id);
    n.set_name("n" + std::to_string(id));
    n.set_type(type);
    for (auto d : data_deps) n.add_data_deps(d);
    return n;
  }
};
pb::Node& i64(pb::Node& n, const char* name, std::int64_t v) {
  auto* a = n.add_attr();
  a->set_name(name);
  a->set_int64_val(v);
  return n;
}
pb::Node& i32(pb::Node& n, const char* name, std::int32_t v) {
  auto* a = n.add_attr();
  a->set_name(name);
  a->set_int32_val(v);
  return n;
}
pb::Node& str(pb::Node& n, const char* name, const std::string& v) {
  auto* a = n.add_attr();
  a->set_name(name);
  a->set_string_val(v);
  return n;
}
pb::Node& flag(pb::Node& n, const char* name, bool v) {
  auto* a = n.add_attr();
  a->set_name(name);
  a->set_bool_val(v);
  return n;
}
pb::Node& comp(Et& et, std::uint64_t id, std::uint64_t us, std::vector<std::uint64_t> deps = {}) {
  auto& n = et.add(id, pb::COMP_NODE, std::move(deps));
  n.set_duration_micros(us);
  return n;
}
pb::Node& coll(Et& et, std::uint64_t id, pb::CollectiveCommType type, std::int64_t size,
               std::vector<std::uint64_t> deps = {}) {
  auto& n = et.add(id, pb::COMM_COLL_NODE, std::move(deps));
  i64(n, "comm_type", type);
  return i64(n, "comm_size", size);
}

RankTrace parse(const std::string& bytes, int world = 1, const ChakraGroups& groups = {}, int rank = 0,
                ChakraCtrlDeps c = ChakraCtrlDeps::order, ChakraCompute compute = ChakraCompute::serial) {
  return parse_chakra_rank(bytes, "r.et", rank, groups, world, c, compute);
}
// "field: reason" of the InputError that `f` raises, or "" (any other exception fails the test).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.field() + ": " + e.reason();
  }
  return "";
}
std::string parse_error(const std::string& bytes, int world = 1, const ChakraGroups& groups = {}) {
  return error_of([&] { parse(bytes, world, groups); });
}

int count(const JobGraph& g, TaskKind k) {
  return static_cast<int>(std::count_if(g.tasks.begin(), g.tasks.end(), [&](const Task& t) { return t.kind == k; }));
}

// What a round trip must keep: tasks by kind, each collective's operation, bytes, members and root, each
// transfer, each compute's rank and exact time.
struct Summary {
  std::map<TaskKind, int> kinds;
  std::multiset<std::tuple<int, double, std::vector<int>, int>> collectives;
  std::multiset<std::tuple<int, int, double>> transfers;
  std::multiset<std::pair<int, double>> computes;
};
Summary summary(const JobGraph& g) {
  Summary s;
  for (const Task& t : g.tasks) {
    ++s.kinds[t.kind];
    if (t.kind == TaskKind::collective) {
      std::vector<int> members = t.group;
      std::sort(members.begin(), members.end());
      s.collectives.emplace(static_cast<int>(t.op), t.bytes, members, t.group[static_cast<std::size_t>(t.root)]);
    } else if (t.kind == TaskKind::transfer) {
      s.transfers.emplace(t.src, t.dst, t.bytes);
    } else if (t.kind == TaskKind::compute) {
      s.computes.emplace(t.rank, t.duration_s);
    }
  }
  return s;
}
// Two ways to time the tasks, so that two graphs whose dependencies differ are unlikely to have the same
// critical paths under both.
Seconds time_a(const Task& t) {
  switch (t.kind) {
    case TaskKind::compute: return t.duration_s;
    case TaskKind::transfer: return t.bytes / 25e9;
    case TaskKind::collective: {
      const double n = static_cast<double>(t.group.size());
      return (t.op == CollectiveOp::all_reduce ? 2.0 : 1.0) * (n - 1) / n * t.bytes / 25e9 + 5e-6;
    }
    case TaskKind::barrier: return 0;
  }
  return 0;
}
Seconds time_b(const Task& t) {
  switch (t.kind) {
    case TaskKind::compute: return 0.5 * t.duration_s + 1e-4 * (1 + t.rank);
    case TaskKind::transfer: return 2e-3 * (1 + t.src) + 1e-3 * t.dst;
    case TaskKind::collective: return 1e-3 * (1 + *std::min_element(t.group.begin(), t.group.end())) + t.bytes * 1e-12;
    case TaskKind::barrier: return 0;
  }
  return 0;
}

// Every task's earliest finish when each starts as soon as its dependencies are done, sorted: a much finer
// fingerprint of the dependencies than the critical path alone.
std::vector<double> finish_times(const JobGraph& g, Seconds (*time)(const Task&)) {
  std::vector<double> f(g.tasks.size(), 0);
  for (int i : topological_order(g)) {
    double start = 0;
    for (int d : g.tasks[static_cast<std::size_t>(i)].deps) start = std::max(start, f[static_cast<std::size_t>(d)]);
    f[static_cast<std::size_t>(i)] = start + time(g.tasks[static_cast<std::size_t>(i)]);
  }
  std::sort(f.begin(), f.end());
  return f;
}

void expect_same_graph(const JobGraph& a, const JobGraph& b) {
  const Summary sa = summary(a), sb = summary(b);
  EXPECT_EQ(sa.kinds, sb.kinds);
  EXPECT_EQ(sa.collectives, sb.collectives);
  EXPECT_EQ(sa.transfers, sb.transfers);
  EXPECT_EQ(sa.computes, sb.computes);
  EXPECT_EQ(a.ranks, b.ranks);
  EXPECT_EQ(a.iterations, b.iterations);
  for (auto* time : {&time_a, &time_b}) {
    const double la = critical_path(a, *time).length_s, lb = critical_path(b, *time).length_s;
    EXPECT_GT(la, 0);
    EXPECT_NEAR(lb, la, 1e-12 * la);
    const auto fa = finish_times(a, time), fb = finish_times(b, time);
    ASSERT_EQ(fa.size(), fb.size());
    int differ = 0;
    for (std::size_t i = 0; i < fa.size(); ++i) differ += std::abs(fa[i] - fb[i]) > 1e-12 * std::max(fa[i], 1e-9);
    EXPECT_EQ(differ, 0) << "tasks whose earliest finish moved";
  }
}

JobGraph round_trip(const JobGraph& g) {
  const ChakraFiles files = chakra_from_job_graph(g);
  EXPECT_EQ(files.ranks.size(), static_cast<std::size_t>(g.ranks));
  ChakraOptions o;
  o.name = g.name;
  o.iterations = g.iterations;
  o.compute = ChakraCompute::overlap;  // a job graph's compute tasks overlap as their dependencies allow
  return import_chakra_bytes(files, o);
}

Task task(const char* name, TaskKind kind, std::vector<int> deps = {}) {
  Task t;
  t.name = name;
  t.kind = kind;
  t.deps = std::move(deps);
  return t;
}
Task compute_task(const char* name, int rank, double s, std::vector<int> deps = {}) {
  Task t = task(name, TaskKind::compute, std::move(deps));
  t.rank = rank;
  t.duration_s = s;
  return t;
}
Task coll_task(const char* name, CollectiveOp op, std::vector<int> group, double bytes, std::vector<int> deps = {},
               int root = 0) {
  Task t = task(name, TaskKind::collective, std::move(deps));
  t.op = op;
  t.algorithm = op == CollectiveOp::all_to_all ? CollectiveAlgorithm::direct : CollectiveAlgorithm::ring;
  t.group = std::move(group);
  t.bytes = bytes;
  t.root = root;
  return t;
}
Task transfer_task(const char* name, int src, int dst, double bytes, std::vector<int> deps = {}) {
  Task t = task(name, TaskKind::transfer, std::move(deps));
  t.src = src;
  t.dst = dst;
  t.bytes = bytes;
  return t;
}

// Two ranks, every kind of task and operation, a dependency that no communication carries (rank 1 waits for
// rank 0's compute directly) and a chain of barriers.
JobGraph two_rank_graph() {
  JobGraph g;
  g.name = "two-ranks";
  g.ranks = 2;
  g.iterations = 3;
  auto& t = g.tasks;
  t.push_back(compute_task("c0", 0, 1.5e-3));                                              // 0
  t.push_back(compute_task("c1", 1, 2.25e-3 + 1e-13));                                     // 1: below a µs
  t.push_back(coll_task("ar", CollectiveOp::all_reduce, {0, 1}, 1e6, {0, 1}));             // 2
  t.push_back(coll_task("ag", CollectiveOp::all_gather, {0, 1}, 2e6, {2}));                // 3
  t.push_back(coll_task("bc", CollectiveOp::broadcast, {0, 1}, 4096, {3}, 1));             // 4: root rank 1
  t.push_back(coll_task("rs", CollectiveOp::reduce_scatter, {0, 1}, 8e5, {4}));            // 5
  t.push_back(coll_task("a2a", CollectiveOp::all_to_all, {0, 1}, 6e5, {5}));               // 6
  t.push_back(transfer_task("x", 0, 1, 3e5, {6}));                                         // 7
  t.push_back(transfer_task("y", 1, 0, 1e5, {1}));                                         // 8
  t.push_back(compute_task("s0", 0, 1e-4, {7, 8}));                                        // 9
  t.push_back(compute_task("s1", 1, 7e-5, {7}));                                           // 10
  t.push_back(compute_task("cross", 1, 3e-6, {0}));                                        // 11: waits for rank 0
  t.push_back(task("b", TaskKind::barrier, {9, 10, 11}));                                  // 12
  t.push_back(compute_task("after", 0, 1e-6, {12}));                                       // 13
  t.push_back(task("b2", TaskKind::barrier, {12}));                                        // 14
  t.push_back(compute_task("after2", 1, 2e-6, {14}));                                      // 15
  t.push_back(compute_task("late", 1, 4e-2, {0, 8}));                                      // 16: one carried, one not
  validate(g, "two-ranks", "");
  return g;
}

}  // namespace

// ---------------------------------------------------------------------------------------------------------------
// The real sample (tests/data/chakra/README.md): one rank, schema 1.0.1, 3,665 messages = GlobalMetadata + 3,664
// nodes (COMP_NODE 3,643, COMM_COLL_NODE 21: 14 CPU-side c10d calls without comm attributes, 7 NCCL kernels),
// no pg_name. Its ctrl_deps are the PyTorch caller, so it is read with ctrl_deps 'caller'.

namespace {
constexpr int kSampleNodes = 3'664;
constexpr int kSampleCollectives = 7;
const std::multiset<double> kSampleBroadcasts{212'480, 424};
const std::multiset<double> kSampleAllReduces{8'196'000, 31'502'336, 26'255'360, 26'550'272, 9'724'160};
}  // namespace

TEST(ChakraSample, SevenNcclCollectivesWithTheirSizes) {
  const RankTrace t = parse(sample(), 2, {}, 0, ChakraCtrlDeps::caller);
  ASSERT_EQ(t.events.size(), static_cast<std::size_t>(kSampleNodes));
  std::multiset<double> broadcasts, all_reduces;
  int collectives = 0, computes = 0;
  for (const RankEvent& e : t.events) {
    ASSERT_TRUE(e.deps.has_value());
    for (int d : *e.deps) EXPECT_LT(static_cast<std::size_t>(d), static_cast<std::size_t>(&e - t.events.data()));
    if (e.kind == RankEvent::Kind::compute) {
      ++computes;
      continue;
    }
    ASSERT_EQ(e.kind, RankEvent::Kind::collective) << e.field;
    ++collectives;
    EXPECT_EQ(e.group, (std::vector<int>{0, 1})) << "no pg_name: every rank of the job";
    EXPECT_EQ(e.group_name, "");
    if (e.op == CollectiveOp::broadcast) broadcasts.insert(e.bytes);
    else if (e.op == CollectiveOp::all_reduce) all_reduces.insert(e.bytes);
    else ADD_FAILURE() << "unexpected " << to_string(e.op);
  }
  EXPECT_EQ(collectives, kSampleCollectives);
  EXPECT_EQ(computes, 3'643 + 14);  // COMP_NODEs and the CPU-side c10d launches
  EXPECT_EQ(broadcasts, kSampleBroadcasts);
  EXPECT_EQ(all_reduces, kSampleAllReduces);
}

TEST(ChakraSample, SerialComputeRunsTheGpuKernelsOneAfterAnother) {
  // Decoded independently (protoc --decode over the sample's messages): the 1,209 GPU COMP_NODEs take 292.828 ms
  // in all, the 2,448 CPU operations and c10d launches 52.252 ms. Serial: the GPU kernels form one chain, so a
  // rank's compute path is at least their sum and at most everything's; overlap: far shorter than either.
  const auto path = [](ChakraCompute c) {
    AssembleOptions a;
    a.ranks = 1;
    const JobGraph g = assemble_job_graph({parse(sample(), 1, {}, 0, ChakraCtrlDeps::caller, c)}, a);
    return critical_path(g, [](const Task& t) { return t.kind == TaskKind::compute ? t.duration_s : 0.0; }).length_s;
  };
  const double serial = path(ChakraCompute::serial), overlap = path(ChakraCompute::overlap);
  EXPECT_GE(serial, 0.292828 - 1e-9);
  EXPECT_LE(serial, 0.292828 + 0.052252 + 1e-9);
  EXPECT_LT(overlap, 0.1);
}

TEST(ChakraRead, SerialComputeChainsEachUnitInTheRanksOrder) {
  // Independent nodes: CPU op 1 ms, GPU kernels 2 and 3 ms, a memory load 4 ms, a collective launch (CPU) 5 ms.
  Et et;
  flag(comp(et, 1, 1000), "is_cpu_op", true);
  comp(et, 2, 2000);
  flag(comp(et, 3, 3000), "is_cpu_op", false);
  et.add(4, pb::MEM_LOAD_NODE, {}).set_duration_micros(4000);
  flag(et.add(5, pb::COMM_COLL_NODE, {}), "is_cpu_op", true).set_duration_micros(5000);
  comp(et, 6, 0);  // an ordering point: in no chain
  const RankTrace s = parse(et.bytes());
  ASSERT_EQ(s.events.size(), 6u);
  EXPECT_EQ(*s.events[0].deps, std::vector<int>{});
  EXPECT_EQ(*s.events[1].deps, std::vector<int>{});
  EXPECT_EQ(*s.events[2].deps, std::vector<int>{1});  // the second GPU kernel after the first
  EXPECT_EQ(*s.events[3].deps, std::vector<int>{});
  EXPECT_EQ(*s.events[4].deps, std::vector<int>{0});  // the launch after the CPU op
  EXPECT_EQ(*s.events[5].deps, std::vector<int>{});
  AssembleOptions a;
  a.ranks = 1;
  const auto length = [&](const RankTrace& t) {
    return critical_path(assemble_job_graph({t}, a), [](const Task& x) { return x.duration_s; }).length_s;
  };
  EXPECT_NEAR(length(s), 0.006, 1e-12);  // CPU 1 + 5 ms
  const RankTrace o = parse(et.bytes(), 1, {}, 0, ChakraCtrlDeps::order, ChakraCompute::overlap);
  for (const auto& e : o.events) EXPECT_TRUE(e.deps->empty());
  EXPECT_NEAR(length(o), 0.005, 1e-12);  // the longest node
}

TEST(ChakraSample, ImportedAsAnSpmdJobOfTwoRanks) {
  const auto dir = std::filesystem::path(ODCNSIM_CHAKRA_SAMPLE);
  ChakraOptions o;
  o.ranks = 2;  // the one traced rank stands for both ranks of a data-parallel job
  o.ctrl_deps = ChakraCtrlDeps::caller;
  o.name = "resnet-ddp";
  const JobGraph g = import_chakra({dir.string()}, o);
  EXPECT_EQ(g.ranks, 2);
  EXPECT_EQ(g.name, "resnet-ddp");
  EXPECT_EQ(count(g, TaskKind::collective), kSampleCollectives);  // matched across the two ranks
  EXPECT_EQ(count(g, TaskKind::transfer), 0);
  EXPECT_EQ(count(g, TaskKind::compute) + count(g, TaskKind::barrier), 2 * (kSampleNodes - kSampleCollectives));
  std::multiset<double> bytes;
  for (const Task& t : g.tasks)
    if (t.kind == TaskKind::collective) {
      EXPECT_EQ(t.group, (std::vector<int>{0, 1}));
      bytes.insert(t.bytes);
    }
  std::multiset<double> expected = kSampleBroadcasts;
  expected.insert(kSampleAllReduces.begin(), kSampleAllReduces.end());
  EXPECT_EQ(bytes, expected);
  // And back: the sample's graph written as Chakra and read again is the same graph.
  expect_same_graph(g, round_trip(g));
}

TEST(ChakraSample, CallerCtrlDepsAreRefusedAsOrderingWithAHint) {
  const std::string e = error_of([] { parse(sample(), 1); });
  EXPECT_NE(e.find(".ctrl_deps: "), std::string::npos) << e;
  EXPECT_NE(e.find("'caller'"), std::string::npos) << e;
}

TEST(ChakraSample, TruncatedCopiesAreRefused) {
  const std::string& s = sample();
  for (std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{100}, std::size_t{5'000}, s.size() / 2,
                        s.size() - 1}) {
    const std::string e = error_of([&] { parse(s.substr(0, n), 1, {}, 0, ChakraCtrlDeps::caller); });
    EXPECT_NE(e.find("truncated"), std::string::npos) << n << " bytes: " << e;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Reading: each node type and its attributes.

TEST(ChakraRead, NodeTypesBecomeEvents) {
  Et et;
  comp(et, 10, 250);
  et.add(11, pb::METADATA_NODE, {10}).set_duration_micros(99);  // takes no time, whatever it says
  et.add(12, pb::MEM_LOAD_NODE, {11}).set_duration_micros(7);
  flag(et.add(13, pb::COMM_COLL_NODE, {12}), "is_cpu_op", true).set_duration_micros(30);  // c10d launch
  coll(et, 14, pb::ALL_GATHER, 1000, {13});
  coll(et, 15, pb::REDUCE_SCATTER_BLOCK, 4000, {14});
  coll(et, 16, pb::ALL_TO_ALL, 4000, {15});
  coll(et, 17, pb::BARRIER, 0, {16});
  coll(et, 18, pb::ALL_REDUCE, 0, {17});  // NCCL returns at once for 0 bytes
  auto& send = et.add(19, pb::COMM_SEND_NODE, {18});
  i32(i32(send, "comm_dst", 3), "comm_src", 0);
  i64(send, "comm_size", 512);
  auto& recv = et.add(20, pb::COMM_RECV_NODE, {18});
  i64(i32(recv, "comm_src", 2), "comm_size", 256);
  const RankTrace t = parse(et.bytes(), 4);
  ASSERT_EQ(t.events.size(), 11u);
  using K = RankEvent::Kind;
  EXPECT_EQ(t.events[0].kind, K::compute);
  EXPECT_DOUBLE_EQ(t.events[0].duration_s, 250e-6);
  EXPECT_EQ(t.events[1].duration_s, 0);
  EXPECT_DOUBLE_EQ(t.events[2].duration_s, 7e-6);
  EXPECT_EQ(t.events[3].kind, K::compute);
  EXPECT_DOUBLE_EQ(t.events[3].duration_s, 30e-6);
  EXPECT_EQ(t.events[4].op, CollectiveOp::all_gather);
  EXPECT_EQ(t.events[4].bytes, 4 * 1000);  // comm_size is each rank's input; S is each rank's output
  EXPECT_EQ(t.events[4].group, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(t.events[5].op, CollectiveOp::reduce_scatter);
  EXPECT_EQ(t.events[5].bytes, 4000);
  EXPECT_EQ(t.events[6].op, CollectiveOp::all_to_all);
  EXPECT_EQ(t.events[7].kind, K::barrier);  // matched across the group like its collectives
  EXPECT_EQ(t.events[8].kind, K::compute);
  EXPECT_EQ(t.events[8].duration_s, 0);
  EXPECT_EQ(t.events[9].kind, K::send);
  EXPECT_EQ(t.events[9].peer, 3);
  EXPECT_EQ(t.events[9].bytes, 512);
  EXPECT_EQ(t.events[10].kind, K::recv);
  EXPECT_EQ(t.events[10].peer, 2);
  EXPECT_EQ(*t.events[10].deps, (std::vector<int>{8}));
}

TEST(ChakraRead, NodesAreOrderedByTheirDependenciesThenByFileOrder) {
  Et et;
  comp(et, 5, 1, {7});     // waits for a node further down
  comp(et, 6, 2);
  comp(et, 7, 3, {6});
  comp(et, 8, 4);
  et.nodes[0].add_ctrl_deps(8);  // a control dependency orders like a data dependency
  const RankTrace t = parse(et.bytes());
  std::vector<std::string> names;
  for (const auto& e : t.events) names.push_back(e.name);
  EXPECT_EQ(names, (std::vector<std::string>{"node 6 n6", "node 7 n7", "node 8 n8", "node 5 n5"}));
  EXPECT_EQ(*t.events[3].deps, (std::vector<int>{1, 2}));
  // Read as the caller, the ctrl_deps entry is not an ordering.
  const RankTrace c = parse(et.bytes(), 1, {}, 0, ChakraCtrlDeps::caller);
  EXPECT_EQ(*c.events[2].deps, (std::vector<int>{1}));
  EXPECT_EQ(c.events[2].name, "node 5 n5");
}

TEST(ChakraRead, ProcessGroupsComeFromTheGroupsFile) {
  const ChakraGroups groups = parse_chakra_groups(R"({"7": [3, 1], "world": [0, 1, 2, 3]})", "g.json", 4);
  Et et;
  str(coll(et, 1, pb::ALL_REDUCE, 64), "pg_name", "7");
  str(coll(et, 2, pb::ALL_REDUCE, 64, {1}), "pg_name", "0");  // PyTorch's and ASTRA-sim's default group
  auto& b = str(coll(et, 3, pb::BROADCAST, 32, {2}), "pg_name", "7");
  i64(b, "odcnsim_root", 3);
  const RankTrace t = parse(et.bytes(), 4, groups, 1);
  EXPECT_EQ(t.events[0].group_name, "7");
  EXPECT_EQ(t.events[0].group, (std::vector<int>{1, 3}));
  EXPECT_EQ(t.events[1].group, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(t.events[2].root, 1);  // rank 3 is member 1 of [1, 3]
}

// ---------------------------------------------------------------------------------------------------------------
// Refusals: one line naming the file, the node and the reason.

TEST(ChakraRefuse, NotAnEtFile) {
  EXPECT_EQ(parse_error(""), "GlobalMetadata: the file is empty (a Chakra ET file starts with one)");
  EXPECT_NE(parse_error("hello, world: not protobuf at all").find("message 0 (byte 0): "), std::string::npos);
  EXPECT_NE(parse_error(std::string(64, '\xff')).find("not a varint"), std::string::npos);
  Et only_meta;
  EXPECT_EQ(parse_error(only_meta.bytes()), "(file): has no nodes after its GlobalMetadata");
  // A first message that is a Node, not a GlobalMetadata.
  Et et;
  comp(et, 3, 10);
  std::string no_meta = et.bytes().substr(1);  // drop the empty GlobalMetadata: the Node comes first
  EXPECT_NE(parse_error(no_meta).find("message 0 (byte 0): "), std::string::npos) << parse_error(no_meta);
  // A length prefix far beyond the file.
  EXPECT_NE(parse_error(std::string("\x00\xff\xff\xff\xff\x0f", 6)).find("only 0 remain (a truncated file)"),
            std::string::npos);
}

TEST(ChakraRefuse, DependenciesMustNameEarlierOrLaterNodesOfTheFile) {
  Et missing;
  comp(missing, 1, 10);
  comp(missing, 2, 10, {1, 9});
  EXPECT_EQ(parse_error(missing.bytes()), "node 2.data_deps: names node 9, which is not in this file");
  Et dup;
  comp(dup, 1, 10);
  comp(dup, 1, 10);
  EXPECT_EQ(parse_error(dup.bytes()), "node 1.id: message 2 has the same id as message 1");
  Et self;
  comp(self, 4, 10, {4});
  EXPECT_EQ(parse_error(self.bytes()), "node 4.data_deps: names the node itself");
  Et cycle;
  comp(cycle, 1, 10);
  comp(cycle, 2, 10, {1, 3});
  comp(cycle, 3, 10, {2});
  EXPECT_EQ(parse_error(cycle.bytes()),
            "node 2: depends on itself through a cycle of data and control dependencies (node 2 -> 3 -> 2, each "
            "waiting for the next)");
}

TEST(ChakraRefuse, ProcessGroupsThatCannotBeResolved) {
  Et et;
  str(coll(et, 1, pb::ALL_REDUCE, 64), "pg_name", "12");
  EXPECT_NE(parse_error(et.bytes(), 4).find("node 1.pg_name: no process-group information for '12'"),
            std::string::npos);
  EXPECT_EQ(parse_error(et.bytes(), 4, {{"12", {2, 3}}}),
            "node 1.pg_name: rank 0 is not a member of its process group '12' [2, 3]");
  // Groups files are read strictly.
  EXPECT_NE(error_of([] { parse_chakra_groups(R"({"1": [0, 0]})", "g.json", 4); }).find("lists rank 0 twice"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_chakra_groups(R"({"1": [0, 4]})", "g.json", 4); }), "");
  EXPECT_NE(error_of([] { parse_chakra_groups(R"({"1": 3})", "g.json", 4); }).find("non-empty list"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_chakra_groups(R"({"1": [0], "1": [1]})", "g.json", 4); }), "");
}

TEST(ChakraRefuse, CollectivesOdcnsimCannotModel) {
  for (auto type : {pb::REDUCE, pb::GATHER, pb::SCATTER}) {
    Et et;
    coll(et, 8, type, 1024).set_name("ncclKernel_Reduce");
    const std::string e = parse_error(et.bytes(), 2);
    EXPECT_NE(e.find("node 8.comm_type: " + pb::CollectiveCommType_Name(type)), std::string::npos) << e;
    EXPECT_NE(e.find("node 'ncclKernel_Reduce' cannot be modelled"), std::string::npos) << e;
  }
  Et unknown;
  coll(unknown, 1, pb::ALL_REDUCE, 1);
  unknown.nodes[0].mutable_attr(0)->set_int64_val(42);
  EXPECT_EQ(parse_error(unknown.bytes()), "node 1.comm_type: 42 is not a CollectiveCommType");
  Et text_type;
  str(text_type.add(1, pb::COMM_COLL_NODE), "comm_type", "ALL_REDUCE");
  EXPECT_EQ(parse_error(text_type.bytes()), "node 1.comm_type: must be an integer (got string_val)");
  Et no_size;
  i64(no_size.add(1, pb::COMM_COLL_NODE), "comm_type", pb::ALL_REDUCE);
  EXPECT_NE(parse_error(no_size.bytes()).find("node 1.comm_size: is missing"), std::string::npos);
  Et negative;
  coll(negative, 1, pb::ALL_REDUCE, -5);
  EXPECT_EQ(parse_error(negative.bytes()), "node 1.comm_size: must be >= 0 (got -5)");
  Et huge;
  coll(huge, 1, pb::ALL_REDUCE, std::int64_t{1} << 62);
  EXPECT_NE(parse_error(huge.bytes()).find("above the limit"), std::string::npos);
  Et gpu_without_attrs;
  gpu_without_attrs.add(1, pb::COMM_COLL_NODE);
  EXPECT_NE(parse_error(gpu_without_attrs.bytes()).find("without comm_type and comm_size"), std::string::npos);
  Et twice;
  i64(coll(twice, 1, pb::ALL_REDUCE, 5), "comm_size", 6);
  EXPECT_EQ(parse_error(twice.bytes()), "node 1.comm_size: appears twice in the node's attributes");
}

TEST(ChakraRefuse, MessagesWithoutTheirPeer) {
  Et send;
  i64(send.add(1, pb::COMM_SEND_NODE), "comm_size", 10);
  EXPECT_EQ(parse_error(send.bytes(), 2), "node 1.comm_dst: is missing: a send needs its peer rank");
  Et recv;
  i64(recv.add(1, pb::COMM_RECV_NODE), "comm_size", 10);
  EXPECT_EQ(parse_error(recv.bytes(), 2), "node 1.comm_src: is missing: a receive needs its peer rank");
  Et to_self;
  i64(i32(to_self.add(1, pb::COMM_SEND_NODE), "comm_dst", 0), "comm_size", 10);
  EXPECT_EQ(parse_error(to_self.bytes(), 2), "node 1.comm_dst: 0 is not another rank of the 2-rank job");
  Et wrong_src;
  i64(i32(i32(wrong_src.add(1, pb::COMM_SEND_NODE), "comm_dst", 1), "comm_src", 1), "comm_size", 10);
  EXPECT_EQ(parse_error(wrong_src.bytes(), 2), "node 1.comm_src: is 1, but this file is rank 0");
}

TEST(ChakraRefuse, UnknownTypesFieldsAndInconsistentTimes) {
  Et type;
  type.add(1, static_cast<pb::NodeType>(99));
  EXPECT_EQ(parse_error(type.bytes()), "node 1.type: 99 is not a NodeType of et_def.proto");
  Et extra;
  comp(extra, 1, 10);
  extra.nodes[0].GetReflection()->MutableUnknownFields(&extra.nodes[0])->AddVarint(77, 1);
  EXPECT_NE(parse_error(extra.bytes()).find("holds fields that et_def.proto"), std::string::npos);
  Et time;
  auto& n = comp(time, 1, 10);
  auto* a = n.add_attr();
  a->set_name("odcnsim_duration_s");
  a->set_double_val(0.5);
  EXPECT_NE(parse_error(time.bytes()).find("disagrees with duration_micros 10"), std::string::npos);
  Et rank;
  auto* r = rank.meta.add_attr();
  r->set_name("odcnsim_rank");
  r->set_int64_val(1);
  comp(rank, 1, 10);
  EXPECT_NE(parse_error(rank.bytes(), 2).find("written as rank 1, but is read as rank 0"), std::string::npos);
}

// ---------------------------------------------------------------------------------------------------------------
// Assembling several ranks' files.

TEST(ChakraImport, RanksFromFilesWithAGroupsFile) {
  // Rank 0 and rank 2 all-gather in group "5", then rank 0 sends to rank 1; every rank meets at a BARRIER.
  const auto dir = std::filesystem::temp_directory_path() / ("odcnsim-chakra-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::vector<Et> ranks(3);
  comp(ranks[0], 1, 100);
  str(coll(ranks[0], 2, pb::ALL_GATHER, 300, {1}), "pg_name", "5");
  i64(i32(ranks[0].add(3, pb::COMM_SEND_NODE, {2}), "comm_dst", 1), "comm_size", 77);
  coll(ranks[0], 4, pb::BARRIER, 0, {3});
  i64(i32(ranks[1].add(1, pb::COMM_RECV_NODE), "comm_src", 0), "comm_size", 77);
  coll(ranks[1], 2, pb::BARRIER, 0, {1});
  comp(ranks[1], 3, 40, {2});
  str(coll(ranks[2], 9, pb::ALL_GATHER, 300), "pg_name", "5");
  coll(ranks[2], 10, pb::BARRIER, 0, {9});
  std::vector<std::string> files;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    files.push_back((dir / ("t." + std::to_string(r) + ".et")).string());
    std::ofstream(files.back(), std::ios::binary) << ranks[r].bytes();
  }
  ChakraOptions o;
  o.groups_file = (dir / "groups.json").string();
  std::ofstream(o.groups_file) << R"({"5": [0, 2]})";
  const JobGraph g = import_chakra(files, o);
  std::filesystem::remove_all(dir);
  EXPECT_EQ(g.ranks, 3);
  EXPECT_EQ(count(g, TaskKind::compute), 2);
  EXPECT_EQ(count(g, TaskKind::collective), 1);
  EXPECT_EQ(count(g, TaskKind::transfer), 1);
  EXPECT_EQ(count(g, TaskKind::barrier), 1);  // one barrier of the three ranks
  for (const Task& t : g.tasks) {
    if (t.kind == TaskKind::collective) {
      EXPECT_EQ(t.group, (std::vector<int>{0, 2}));
      EXPECT_EQ(t.bytes, 600);
    }
    if (t.kind == TaskKind::compute && t.rank == 1) {  // after the barrier, so after rank 0's send
      ASSERT_EQ(t.deps.size(), 1u);
      EXPECT_EQ(g.tasks[static_cast<std::size_t>(t.deps[0])].kind, TaskKind::barrier);
      // The barrier waits for the message (rank 0's send, rank 1's receive) and rank 2's all-gather.
      EXPECT_EQ(g.tasks[static_cast<std::size_t>(t.deps[0])].deps.size(), 2u);
    }
  }
  // The same files in the wrong order are caught by the collective matching.
  std::swap(files[0], files[2]);
  EXPECT_NE(error_of([&] { import_chakra(files, o); }), "");
}

// ---------------------------------------------------------------------------------------------------------------
namespace {

/// Four ranks: a dependency two ranks away, a chain of barriers, a barrier with no neighbours, a message and a
/// broadcast rooted at rank 2.
JobGraph four_rank_graph() {
  JobGraph g;
  g.name = "four-ranks";
  g.ranks = 4;
  auto& t = g.tasks;
  t.push_back(compute_task("a0", 0, 1e-3));                                                   // 0
  t.push_back(compute_task("a1", 1, 2e-3));                                                   // 1
  t.push_back(compute_task("a3", 3, 5e-4, {0, 1}));                                           // 2: two ranks away
  t.push_back(coll_task("ar", CollectiveOp::all_reduce, {1, 2}, 5e5, {0, 2}));                // 3: a0 is on rank 0
  t.push_back(task("b1", TaskKind::barrier, {3}));                                            // 4
  t.push_back(task("b2", TaskKind::barrier, {4}));                                            // 5
  t.push_back(task("b3", TaskKind::barrier, {5}));                                            // 6
  t.push_back(compute_task("z", 0, 1e-5, {6}));                                               // 7
  t.push_back(task("alone", TaskKind::barrier));                                              // 8: no neighbours
  t.push_back(transfer_task("m", 2, 3, 1e3, {1}));                                            // 9: a1 is on rank 1
  t.push_back(coll_task("bc", CollectiveOp::broadcast, {3, 0, 2}, 777, {9, 7}, 2));          // 10: root rank 2
  validate(g, "four-ranks", "");
  return g;
}

}  // namespace

// The writer, and round trips through it.

TEST(ChakraRoundTrip, TwoRanksEveryKindOfTask) {
  const JobGraph g = two_rank_graph();
  const JobGraph back = round_trip(g);
  expect_same_graph(g, back);
  EXPECT_EQ(count(back, TaskKind::barrier), 2);  // the dependency-only barrier for 'cross' is gone again
  EXPECT_EQ(back.iterations, 3);
}

TEST(ChakraRoundTrip, TorchTitanLlama3_8b) {
  const JobGraph g = build_torchtitan(torchtitan_preset("llama3-8b"));
  const JobGraph back = round_trip(g);
  expect_same_graph(g, back);
}

TEST(ChakraRoundTrip, FourRanksCrossRankDependenciesAndBarrierChains) {
  const JobGraph g = four_rank_graph();
  const JobGraph back = round_trip(g);
  expect_same_graph(g, back);
  EXPECT_EQ(count(back, TaskKind::barrier), 4);
  for (const Task& x : back.tasks)
    if (x.kind == TaskKind::collective && x.op == CollectiveOp::broadcast) {
      EXPECT_EQ(x.group, (std::vector<int>{0, 2, 3})) << "groups come back in ascending order";
      EXPECT_EQ(x.group[static_cast<std::size_t>(x.root)], 2);
    }
  // The importer's algorithm applies to every collective but all-to-all.
  ChakraOptions direct;
  direct.algorithm = CollectiveAlgorithm::direct;
  for (const Task& x : import_chakra_bytes(chakra_from_job_graph(g), direct).tasks)
    if (x.kind == TaskKind::collective) {
      EXPECT_EQ(x.algorithm, CollectiveAlgorithm::direct);
    }
}

namespace {

/// One rank's file decoded with Chakra's schema (et_def.proto) and protobuf's own delimited reader, independently
/// of odcnsim's importer.
std::vector<pb::Node> decode(const std::string& bytes) {
  google::protobuf::io::ArrayInputStream raw(bytes.data(), static_cast<int>(bytes.size()));
  pb::GlobalMetadata meta;
  bool clean_eof = false;
  EXPECT_TRUE(google::protobuf::util::ParseDelimitedFromZeroCopyStream(&meta, &raw, &clean_eof));
  std::vector<pb::Node> nodes;
  for (;;) {
    pb::Node n;
    if (!google::protobuf::util::ParseDelimitedFromZeroCopyStream(&n, &raw, &clean_eof)) break;
    nodes.push_back(std::move(n));
  }
  EXPECT_TRUE(clean_eof);
  return nodes;
}

const pb::AttributeProto* attr(const pb::Node& n, const std::string& name) {
  for (const auto& a : n.attr())
    if (a.name() == name) return &a;
  return nullptr;
}

/// Checks what ASTRA-sim 2.x's workload layer (astra-sim 518bd51, Workload.cc: issue_coll_comm, issue_send_comm,
/// issue_recv_comm, extract_comm_group) relies on, and that every rank issues the communications it shares with
/// another in the same order: each communication node waits for its rank's previous one, and the sequences agree.
void expect_astra_sim_conventions(const ChakraFiles& f, int world) {
  const auto groups = nlohmann::json::parse(f.groups_json);
  std::map<int, std::vector<std::string>> issued;  // rank -> its communications, in order, named across ranks
  std::map<std::tuple<int, int, int>, int> sends, recvs;  // (src, dst, tag)
  for (int r = 0; r < world; ++r) {
    const auto nodes = decode(f.ranks[static_cast<std::size_t>(r)]);
    std::map<std::string, int> seen_in_group;
    std::int64_t previous = -1;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      const pb::Node& n = nodes[i];
      ASSERT_EQ(n.id(), i);
      for (auto d : n.data_deps()) EXPECT_LT(d, n.id()) << "rank " << r << " node " << i;
      const bool comm = n.type() == pb::COMM_COLL_NODE || n.type() == pb::COMM_SEND_NODE || n.type() == pb::COMM_RECV_NODE;
      if (!comm) continue;
      if (previous >= 0) {
        const auto& d = n.data_deps();
        EXPECT_NE(std::find(d.begin(), d.end(), static_cast<std::uint64_t>(previous)), d.end())
            << "rank " << r << " node " << i << " does not wait for the rank's previous communication";
      }
      previous = static_cast<std::int64_t>(i);
      const auto* size = attr(n, "comm_size");
      ASSERT_NE(size, nullptr);
      EXPECT_GT(size->int64_val(), 0);
      if (n.type() == pb::COMM_COLL_NODE) {
        const auto* type = attr(n, "comm_type");
        ASSERT_NE(type, nullptr);
        const auto ct = type->int64_val();
        EXPECT_TRUE(ct == pb::ALL_REDUCE || ct == pb::ALL_TO_ALL || ct == pb::ALL_GATHER || ct == pb::REDUCE_SCATTER ||
                    ct == pb::BROADCAST)
            << "comm_type " << ct << " is not one ASTRA-sim issues";
        const auto* pg = attr(n, "pg_name");
        ASSERT_NE(pg, nullptr);
        ASSERT_TRUE(groups.contains(pg->string_val())) << pg->string_val();
        const auto members = groups[pg->string_val()].get<std::vector<int>>();
        EXPECT_NE(std::find(members.begin(), members.end(), r), members.end());
        issued[r].push_back(fmt::format("{}#{}", pg->string_val(), seen_in_group[pg->string_val()]++));
      } else {
        for (const char* a : {"comm_src", "comm_dst", "comm_tag"}) ASSERT_NE(attr(n, a), nullptr) << a;
        const int src = attr(n, "comm_src")->int32_val(), dst = attr(n, "comm_dst")->int32_val();
        const int tag = attr(n, "comm_tag")->int32_val();
        EXPECT_EQ(n.type() == pb::COMM_SEND_NODE ? src : dst, r);
        ++(n.type() == pb::COMM_SEND_NODE ? sends : recvs)[{src, dst, tag}];
        issued[r].push_back(fmt::format("p2p{}", tag));
      }
    }
  }
  EXPECT_EQ(sends, recvs);
  // Two ranks issue the communications they share in the same order.
  for (int a = 0; a < world; ++a)
    for (int b = a + 1; b < world; ++b) {
      const auto& x = issued[a];
      const auto& y = issued[b];
      std::vector<std::string> x_shared, y_shared;
      for (const auto& k : x)
        if (std::find(y.begin(), y.end(), k) != y.end()) x_shared.push_back(k);
      for (const auto& k : y)
        if (std::find(x.begin(), x.end(), k) != x.end()) y_shared.push_back(k);
      EXPECT_EQ(x_shared, y_shared) << "ranks " << a << " and " << b;
    }
}

}  // namespace

// `export --for astra-sim`: no BARRIER (ASTRA-sim throws "Unsupported collective comm type"); a barrier over
// several ranks is a 1-byte ALL_REDUCE that odcnsim reads back as the barrier, one on a single rank a COMP_NODE of
// no time; and every rank issues its communications in one order. On the Llama3-8B TorchTitan-like job and on
// four ranks with cross-rank dependencies, barrier chains and a barrier with no neighbours.
TEST(ChakraForAstraSim, TheFilesFollowTheConventionsAstraSimReliesOn) {
  const JobGraph titan = build_torchtitan(torchtitan_preset("llama3-8b"));
  const JobGraph four = four_rank_graph();
  for (const JobGraph* g : std::vector<const JobGraph*>{&titan, &four}) {
    const JobGraph& graph = *g;
    SCOPED_TRACE(graph.name);
    const ChakraFiles f = chakra_from_job_graph(graph, "g", ChakraReader::astra_sim);
    expect_astra_sim_conventions(f, graph.ranks);
    // Read back by odcnsim: the same barriers and communications as the exact export gives.
    ChakraOptions o;
    o.name = graph.name;
    o.compute = ChakraCompute::overlap;
    const JobGraph back = import_chakra_bytes(f, o);
    const JobGraph exact = round_trip(graph);
    EXPECT_EQ(count(back, TaskKind::barrier), count(exact, TaskKind::barrier));
    EXPECT_EQ(count(back, TaskKind::collective) + count(back, TaskKind::transfer),
              count(exact, TaskKind::collective) + count(exact, TaskKind::transfer));
  }
}

TEST(ChakraRoundTrip, SendRecvCollectivesComeBackAsTransfers) {
  JobGraph g;
  g.name = "p2p";
  g.ranks = 2;
  g.tasks.push_back(compute_task("c", 1, 1e-3));
  Task sr = coll_task("sr", CollectiveOp::send_recv, {1, 0}, 4096, {0});
  sr.algorithm = CollectiveAlgorithm::direct;
  g.tasks.push_back(sr);
  const JobGraph back = round_trip(g);
  ASSERT_EQ(count(back, TaskKind::transfer), 1);
  for (const Task& x : back.tasks)
    if (x.kind == TaskKind::transfer) {
      EXPECT_EQ(std::make_tuple(x.src, x.dst, x.bytes), std::make_tuple(1, 0, 4096.0));
      EXPECT_EQ(x.deps.size(), 1u);
    }
}

TEST(ChakraRoundTrip, WhatTheWriterWrites) {
  const ChakraFiles f = chakra_from_job_graph(two_rank_graph());
  EXPECT_EQ(f.groups_json, "{\n  \"1\": [0, 1]\n}\n");  // every collective and barrier spans both ranks
  // Rank 1's file, read alone: its all-gather has comm_size S/n, its compute its exact time.
  const RankTrace t = parse(f.ranks[1], 2, parse_chakra_groups(f.groups_json, "g", 2), 1);
  bool gather = false, below_a_microsecond = false;
  for (const auto& e : t.events) {
    if (e.kind == RankEvent::Kind::collective && e.op == CollectiveOp::all_gather) gather = e.bytes == 2e6;
    if (e.kind == RankEvent::Kind::compute && e.duration_s == 2.25e-3 + 1e-13) below_a_microsecond = true;
  }
  EXPECT_TRUE(gather);
  EXPECT_TRUE(below_a_microsecond);
  // Written twice, the same bytes.
  EXPECT_EQ(chakra_from_job_graph(two_rank_graph()).ranks, f.ranks);
}

TEST(ChakraRoundTrip, GraphsWithoutAChakraFormAreRefused) {
  JobGraph g = two_rank_graph();
  g.tasks[3].bytes = 2e6 + 1;  // all-gather over 2 ranks: comm_size would be 1,000,000.5
  EXPECT_NE(error_of([&] { chakra_from_job_graph(g); }).find("tasks[3].bytes: Chakra's all-gather comm_size"),
            std::string::npos);
  g = two_rank_graph();
  g.tasks[7].bytes = 0.5;
  EXPECT_NE(error_of([&] { chakra_from_job_graph(g); }).find("not a whole number"), std::string::npos);
  g = two_rank_graph();
  g.tasks[2].op = CollectiveOp::ps_push;
  g.tasks[2].algorithm = CollectiveAlgorithm::parameter_server;
  EXPECT_NE(error_of([&] { chakra_from_job_graph(g); }).find("no parameter-server operation"), std::string::npos);
  // A rank that runs nothing would get an ET file without nodes, which the importer refuses (fuzzer finding,
  // tests/fuzz/crashes/chakra_roundtrip): the writer refuses the graph instead, for either reader.
  g = two_rank_graph();
  g.ranks = 3;
  for (const auto reader : {ChakraReader::odcnsim, ChakraReader::astra_sim})
    EXPECT_NE(error_of([&] { chakra_from_job_graph(g, "g", reader); }).find("ranks: rank 2 of 3 runs no task"),
              std::string::npos);
}

// ---------------------------------------------------------------------------------------------------------------
// Damaged files end in one InputError, never another exception or a crash (the fuzzer's property, run here on
// a few thousand deterministic mutations of a small trace).

TEST(ChakraFuzz, MutatedTracesEndInInputError) {
  const ChakraFiles good = chakra_from_job_graph(two_rank_graph());
  std::mt19937 rng(20240613);
  int refused = 0, read = 0;
  for (int round = 0; round < 3000; ++round) {
    ChakraFiles f = good;
    std::string& s = f.ranks[static_cast<std::size_t>(round % 2)];
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < edits && !s.empty(); ++k) {
      const std::size_t at = rng() % s.size();
      switch (rng() % 4) {
        case 0: s[at] = static_cast<char>(rng() & 0xFF); break;
        case 1: s.erase(at, 1 + rng() % 8); break;
        case 2: s.insert(at, 1, static_cast<char>(rng() & 0xFF)); break;
        case 3: s.resize(at); break;
      }
    }
    try {
      import_chakra_bytes(f, ChakraOptions{});
      ++read;
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
      ++refused;
    }
  }
  EXPECT_GT(refused, 1000);
  EXPECT_EQ(refused + read, 3000);
}
