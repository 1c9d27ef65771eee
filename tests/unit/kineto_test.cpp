// The PyTorch profiler (Kineto) importer (traces/kineto.hpp): the real sample of tests/data/kineto, whose
// numbers come from its README and from the trace's own annotations (read here with nlohmann::json, apart
// from the importer), and small hand-made traces for every refusal.
#include "traces/kineto.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>
#include <set>

#include "core/error.hpp"

using namespace odcn;
using namespace odcn::workload;
using Kind = RankEvent::Kind;

namespace {

const std::string kSample = std::string(ODCNSIM_SOURCE_DIR) + "/tests/data/kineto/nccl_data.json.gz";

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string gunzip_file(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  EXPECT_NE(f, nullptr);
  std::string out;
  char buf[1 << 16];
  for (int n; (n = gzread(f, buf, sizeof buf)) > 0;) out.append(buf, static_cast<std::size_t>(n));
  gzclose(f);
  return out;
}

std::string gzip(const std::string& text) {
  z_stream zs{};
  EXPECT_EQ(deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&zs, static_cast<uLong>(text.size())) + 32, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  zs.avail_in = static_cast<uInt>(text.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

std::string write_temp(const std::string& name, const std::string& content) {
  const std::string path = testing::TempDir() + "kineto_test_" + name;
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

struct Refusal {
  std::string file, field, reason;
};
Refusal refusal(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return {e.file(), e.field(), e.reason()};
  }
  return {"", "(accepted)", ""};
}

std::vector<const RankEvent*> of_kind(const RankTrace& t, Kind k) {
  std::vector<const RankEvent*> out;
  for (const RankEvent& e : t.events)
    if (e.kind == k) out.push_back(&e);
  return out;
}

double compute_sum(const RankTrace& t) {
  double s = 0;
  for (const RankEvent* e : of_kind(t, Kind::compute)) s += e->duration_s;
  return s;
}

// ----- the sample ------------------------------------------------------------------------------------------

// Per step, from the README: 2 broadcasts (53,120 Float, 53 Long), 5 all-reduces of Float.
const std::vector<double> kStepBytes{212'480, 424, 8'196'000, 31'502'336, 26'255'360, 26'550'272, 9'724'160};

void expect_sample_step(const KinetoTrace& k, int step) {
  EXPECT_EQ(k.step, step);
  EXPECT_EQ(k.trace.rank, 0);
  EXPECT_EQ(k.world_size, 2);
  EXPECT_EQ(k.collectives, 7);
  EXPECT_EQ(k.messages, 0);
  EXPECT_EQ(k.skipped, 2);  // the step's two "wait" entries (6 in the three steps)
  const auto colls = of_kind(k.trace, Kind::collective);
  ASSERT_EQ(colls.size(), 7u);
  for (std::size_t i = 0; i < colls.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(colls[i]->bytes, kStepBytes[i]);
    EXPECT_EQ(colls[i]->op, i < 2 ? CollectiveOp::broadcast : CollectiveOp::all_reduce);
    EXPECT_EQ(colls[i]->group, (std::vector<int>{0, 1}));
    EXPECT_EQ(colls[i]->group_name, "0");
    EXPECT_EQ(colls[i]->root, 0);
  }
}

/// The sample read apart from the importer: a step's duration and the NCCL kernels of its collectives.
struct SampleStep {
  double dur_us = 0;
  double kernel_us = 0;  // the kernels paired with the step's record_param_comms by External id
  int kernels = 0;
};
SampleStep sample_step(int n) {
  const auto doc = nlohmann::json::parse(gunzip_file(kSample));
  SampleStep s;
  double ts = 0;
  for (const auto& e : doc["traceEvents"])
    if (e.value("name", "") == "ProfilerStep#" + std::to_string(n) && e.value("cat", "") == "user_annotation") {
      ts = e["ts"].get<double>();
      s.dur_us = e["dur"].get<double>();
    }
  std::set<long long> ids;
  for (const auto& e : doc["traceEvents"])
    if (e.value("name", "") == "record_param_comms" && e["ts"].get<double>() >= ts &&
        e["ts"].get<double>() < ts + s.dur_us && e["args"]["In msg nelems"].get<long long>() > 0)
      ids.insert(e["args"]["External id"].get<long long>());
  for (const auto& e : doc["traceEvents"])
    if (e.value("cat", "") == "kernel" && e["args"].contains("Collective name") &&
        ids.count(e["args"]["External id"].get<long long>())) {
      s.kernel_us += e["dur"].get<double>();
      ++s.kernels;
    }
  return s;
}

TEST(KinetoSample, FirstCompleteStepIsStep4WithItsSevenCollectives) {
  const KinetoTrace k = read_kineto(kSample, {});
  expect_sample_step(k, 4);
  EXPECT_NEAR(k.window_s, 0.2224, 0.00005);  // README: 222.4 ms
  EXPECT_EQ(k.timed_by_kernel, 7);           // every collective has its NCCL kernel
  // Issue order: compute, then each collective, with compute between them where there is a gap.
  EXPECT_EQ(k.trace.events.front().kind, Kind::compute);
  EXPECT_EQ(k.trace.events.back().kind, Kind::compute);
  EXPECT_EQ(k.trace.file, kSample);
}

TEST(KinetoSample, ComputeAndCommunicationAddUpToTheStep) {
  const SampleStep s = sample_step(4);
  ASSERT_NEAR(s.dur_us, 222'400, 50);  // README: 222.4 ms
  ASSERT_EQ(s.kernels, 7);
  KinetoOptions serially;  // compute is the time between communications
  serially.streams = KinetoStreams::serial;
  const KinetoTrace k = read_kineto(kSample, serially);
  EXPECT_NEAR(k.window_s, s.dur_us * 1e-6, 1e-12);
  // The kernels lie inside the step one after another on one stream, so the time they cover is their sum,
  // and compute is the rest of the step.
  EXPECT_NEAR(k.comm_s, s.kernel_us * 1e-6, 1e-9);
  EXPECT_NEAR(k.comm_s, 0.012, 0.001);  // README: all-reduce kernels of 2.1-3.3 ms
  EXPECT_NEAR(compute_sum(k.trace), (s.dur_us - s.kernel_us) * 1e-6, 1e-9);
  EXPECT_NEAR(compute_sum(k.trace), k.compute_s, 1e-12);
  EXPECT_NEAR(k.compute_s + k.comm_s, s.dur_us * 1e-6, 1e-9);
}

TEST(KinetoSample, Step5CanBeChosen) {
  KinetoOptions o;
  o.step = 5;
  o.streams = KinetoStreams::serial;  // compute is the time between communications
  const KinetoTrace k = read_kineto(kSample, o);
  expect_sample_step(k, 5);
  const SampleStep s = sample_step(5);
  EXPECT_NEAR(s.dur_us, 219'700, 50);  // README: 219.7 ms
  EXPECT_NEAR(k.window_s, s.dur_us * 1e-6, 1e-12);
  EXPECT_NEAR(k.compute_s + k.comm_s, s.dur_us * 1e-6, 1e-9);
  EXPECT_NEAR(k.comm_s, s.kernel_us * 1e-6, 1e-9);
}

TEST(KinetoSample, AStepThatIsNotThereIsRefused) {
  KinetoOptions o;
  o.step = 9;
  const Refusal r = refusal([&] { read_kineto(kSample, o); });
  EXPECT_EQ(r.file, kSample);
  EXPECT_EQ(r.field, "step");
  EXPECT_NE(r.reason.find("no ProfilerStep#9"), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find("its steps: 4, 5, 6"), std::string::npos) << r.reason;
}

TEST(KinetoSample, PlainJsonReadsLikeGzip) {
  const std::string plain = gunzip_file(kSample);
  ASSERT_EQ(plain[plain.find_first_not_of(" \n")], '{');
  const KinetoTrace a = parse_kineto(plain, "plain.json", {});
  const KinetoTrace b = parse_kineto(read_bytes(kSample), "sample.json.gz", {});
  expect_sample_step(a, 4);
  ASSERT_EQ(a.trace.events.size(), b.trace.events.size());
  for (std::size_t i = 0; i < a.trace.events.size(); ++i) {
    EXPECT_EQ(a.trace.events[i].kind, b.trace.events[i].kind);
    EXPECT_EQ(a.trace.events[i].duration_s, b.trace.events[i].duration_s);
    EXPECT_EQ(a.trace.events[i].bytes, b.trace.events[i].bytes);
  }
}

TEST(KinetoSample, ReplicatedToTwoRanksAssemblesSevenCollectives) {
  KinetoOptions o;
  o.replicate = true;
  const JobGraph g = import_kineto({kSample}, o);
  EXPECT_EQ(g.name, "nccl_data");
  EXPECT_EQ(g.ranks, 2);
  EXPECT_EQ(g.iterations, 1);
  std::vector<double> bytes;
  int compute = 0;
  for (const Task& t : g.tasks) {
    if (t.kind == TaskKind::collective) {
      bytes.push_back(t.bytes);
      EXPECT_EQ(t.group, (std::vector<int>{0, 1}));
    }
    if (t.kind == TaskKind::compute) ++compute;
  }
  EXPECT_EQ(bytes, kStepBytes);
  const KinetoTrace k = read_kineto(kSample, {});
  EXPECT_EQ(compute, 2 * static_cast<int>(of_kind(k.trace, Kind::compute).size()));
}

TEST(KinetoSample, AMissingRankIsRefusedUnlessReplicated) {
  const Refusal r = refusal([&] { import_kineto({kSample}, {}); });
  EXPECT_EQ(r.field, "ranks");
  EXPECT_NE(r.reason.find("no trace for rank 1 of 2"), std::string::npos) << r.reason;
}

TEST(KinetoSample, TwoFilesForTheSameRankAreRefused) {
  const std::string copy = write_temp("copy.json.gz", read_bytes(kSample));
  const Refusal r = refusal([&] { import_kineto({kSample, copy}, {}); });
  EXPECT_EQ(r.file, copy);
  EXPECT_EQ(r.field, "distributedInfo.rank");
  EXPECT_NE(r.reason.find("rank 0 is also traced by " + kSample), std::string::npos) << r.reason;
  std::remove(copy.c_str());
}

TEST(KinetoSample, TruncatedGzipIsRefused) {
  const std::string bytes = read_bytes(kSample);
  ASSERT_EQ(bytes.size(), 749'757u);  // README
  const Refusal r = refusal([&] { parse_kineto(bytes.substr(0, bytes.size() / 2), "half.json.gz", {}); });
  EXPECT_EQ(r.file, "half.json.gz");
  EXPECT_EQ(r.field, "(file)");
  EXPECT_NE(r.reason.find("gzip data ends early"), std::string::npos) << r.reason;
}

// ----- hand-made traces ------------------------------------------------------------------------------------

const char* kDist2 = R"("distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 2,
  "pg_config": [{"pg_name": "0", "pg_desc": "default_pg", "pg_size": 2, "ranks": [0, 1]}]},)";

std::string trace(const std::string& events, const std::string& dist = kDist2) {
  return "{\"schemaVersion\": 1, " + dist + "\"traceEvents\": [" + events + "]}";
}

/// traceEvents[0] of every hand-made trace: ProfilerStep#1 from 0 to 1000 us.
const std::string kStep = R"({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "ts": 0, "dur": 1000})";

std::string comm(double ts, double dur, const std::string& args) {
  return fmt::format(
      R"({{"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "ts": {}, "dur": {}, "args": {{{}}}}})", ts, dur,
      args);
}

std::string allreduce_args(const std::string& extra = "", const std::string& ranks = "\"[0, 1]\"",
                           const std::string& dtype = "Float") {
  return R"("Collective name": "allreduce", "In msg nelems": 1000, "Out msg nelems": 1000, "dtype": ")" + dtype +
         R"(", "Process Group Name": "0", "Process Group Ranks": )" + ranks + R"(, "Group size": 2)" + extra;
}

Refusal refusal_of(const std::string& text, KinetoOptions o = {}) {
  return refusal([&] { parse_kineto(text, "t.json", o); });
}

TEST(KinetoTimeline, ComputeIsTheTimeBetweenCommunications) {
  // One all-reduce issued at 100 us; its kernel (same External id) runs from 120 to 400 us.
  const std::string kernel =
      R"({"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce", "ts": 120, "dur": 280,
          "args": {"External id": 7, "Collective name": "allreduce", "In msg nelems": 1000, "Out msg nelems": 1000,
                   "dtype": "Float", "Group size": 2}})";
  const KinetoTrace k = parse_kineto(
      trace(kStep + "," + comm(100, 50, allreduce_args(R"(, "External id": 7)")) + "," + kernel), "t.json",
      KinetoOptions{std::nullopt, false, "", 1, KinetoStreams::serial});
  ASSERT_EQ(k.trace.events.size(), 3u);
  EXPECT_EQ(k.trace.events[0].kind, Kind::compute);
  EXPECT_NEAR(k.trace.events[0].duration_s, 120e-6, 1e-15);
  EXPECT_EQ(k.trace.events[1].kind, Kind::collective);
  EXPECT_EQ(k.trace.events[1].bytes, 4000);
  EXPECT_EQ(k.trace.events[1].field, "traceEvents[1]");
  EXPECT_NEAR(k.trace.events[2].duration_s, 600e-6, 1e-15);
  EXPECT_NEAR(k.comm_s, 280e-6, 1e-15);
  EXPECT_EQ(k.timed_by_kernel, 1);

  // Without the kernel, the CPU op times it.
  const KinetoTrace c = parse_kineto(trace(kStep + "," + comm(100, 50, allreduce_args())), "t.json", {});
  EXPECT_NEAR(c.trace.events[0].duration_s, 100e-6, 1e-15);
  EXPECT_NEAR(c.trace.events[2].duration_s, 850e-6, 1e-15);
  EXPECT_EQ(c.timed_by_kernel, 0);
}

// Older PyTorch profilers write absolute Unix-epoch timestamps (1.68e15 us in 2023): the same trace shifted there
// reads exactly as at 0 (times are exact nanoseconds); beyond 3e15 us a timestamp is refused.
TEST(KinetoTimeline, AbsoluteEpochTimestampsReadExactly) {
  const double t0 = 1.68e15;
  const std::string step = fmt::format(
      R"({{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "ts": {:.3f}, "dur": 1000}})", t0);
  const std::string events = step + "," + comm(t0 + 100, 50, allreduce_args());
  const KinetoTrace k = parse_kineto(trace(events), "t.json", {});
  ASSERT_EQ(k.trace.events.size(), 3u);
  EXPECT_DOUBLE_EQ(k.trace.events[0].duration_s, 100e-6);
  EXPECT_DOUBLE_EQ(k.trace.events[2].duration_s, 850e-6);
  EXPECT_DOUBLE_EQ(k.window_s, 1e-3);
  const Refusal r = refusal_of(trace(R"({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "ts": 3.1e15, "dur": 1000})"));
  EXPECT_EQ(r.field, "traceEvents[0].ts");
  EXPECT_EQ(r.reason, "is out of range (at most 3e+15 microseconds; got '3.1e15')");
  const Refusal d = refusal_of(trace(R"({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "ts": 0, "dur": 2e15})"));
  EXPECT_EQ(d.reason, "is out of range (at most 1e+15 microseconds; got '2e15')");
}

TEST(KinetoTimeline, WaitBarrierAndEmptyEntriesAreSkipped) {
  const std::string events =
      kStep + "," +
      comm(100, 10, R"("Collective name": "wait", "In msg nelems": 0, "Out msg nelems": 0, "dtype": "Byte",
                      "Process Group Ranks": "[]", "Group size": 1)") +
      "," + comm(200, 10, R"("Collective name": "barrier", "In msg nelems": 1, "Out msg nelems": 1, "dtype": "Float",
                             "Process Group Ranks": "[0, 1]", "Group size": 2)") +
      "," + comm(300, 10, R"("Collective name": "allreduce", "In msg nelems": 0, "Out msg nelems": 0,
                             "dtype": "NoSuchType", "Group size": 2)");
  const KinetoTrace k = parse_kineto(trace(events), "t.json", {});
  EXPECT_EQ(k.skipped, 3);
  EXPECT_EQ(k.collectives, 0);
  ASSERT_EQ(k.trace.events.size(), 1u);  // the whole step is compute
  EXPECT_NEAR(k.trace.events[0].duration_s, 1e-3, 1e-15);
}

TEST(KinetoTimeline, WithoutStepAnnotationsTheWholeTraceIsImported) {
  const std::string events = comm(100, 50, allreduce_args()) + "," +
                             R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 20, "dur": 500.5})";
  const KinetoTrace k = parse_kineto(trace(events), "t.json", {});
  EXPECT_FALSE(k.step);
  EXPECT_NEAR(k.window_s, 500.5e-6, 1e-15);
  EXPECT_NEAR(k.compute_s, 450.5e-6, 1e-15);  // 20..100 and 150..520.5
  EXPECT_EQ(k.collectives, 1);
  KinetoOptions o;
  o.step = 1;
  const Refusal r = refusal_of(trace(events), o);
  EXPECT_EQ(r.field, "step");
  EXPECT_NE(r.reason.find("no ProfilerStep annotation"), std::string::npos) << r.reason;
}

TEST(KinetoCollectives, NamesMapToOperationsWithTheirBytes) {
  const auto one = [](const std::string& name, const std::string& extra = "") {
    const std::string args = R"("Collective name": ")" + name +
                             R"(", "In msg nelems": 100, "Out msg nelems": 200, "dtype": "BFloat16",
                               "Process Group Name": "0", "Process Group Ranks": "[0, 1]", "Group size": 2)" +
                             extra;
    const KinetoTrace k = parse_kineto(trace(kStep + "," + comm(10, 1, args)), "t.json", {});
    return *of_kind(k.trace, Kind::collective).at(0);
  };
  EXPECT_EQ(one("allreduce").op, CollectiveOp::all_reduce);
  EXPECT_EQ(one("allreduce").bytes, 200);  // the input: 100 x 2 B
  for (const char* n : {"allgather", "_allgather_base", "all_gather_into_tensor"}) {
    EXPECT_EQ(one(n).op, CollectiveOp::all_gather) << n;
    EXPECT_EQ(one(n).bytes, 400) << n;  // the output
  }
  for (const char* n : {"reduce_scatter", "_reduce_scatter_base", "reduce_scatter_tensor"}) {
    EXPECT_EQ(one(n).op, CollectiveOp::reduce_scatter) << n;
    EXPECT_EQ(one(n).bytes, 200) << n;  // the input
  }
  for (const char* n : {"all_to_all", "alltoall_base"}) EXPECT_EQ(one(n).op, CollectiveOp::all_to_all) << n;
  EXPECT_EQ(one("broadcast").op, CollectiveOp::broadcast);
  EXPECT_EQ(one("broadcast", R"(, "Rank": 1)").root, 1);  // PyTorch records a broadcast's root as "Rank"
}

TEST(KinetoCollectives, BroadcastRootIsMappedWhenTheListIsNotSorted) {
  const std::string dist = R"("distributedInfo": {"rank": 1, "world_size": 4},)";
  const std::string args = R"("Collective name": "broadcast", "In msg nelems": 8, "Out msg nelems": 8,
      "dtype": "Long", "Process Group Name": "5", "Process Group Ranks": "[3, 1]", "Group size": 2, "Rank": 0)";
  const KinetoTrace k = parse_kineto(trace(kStep + "," + comm(10, 1, args), dist), "t.json", {});
  const RankEvent& e = *of_kind(k.trace, Kind::collective).at(0);
  EXPECT_EQ(e.group, (std::vector<int>{1, 3}));
  EXPECT_EQ(e.root, 1);  // global rank 3
  EXPECT_EQ(e.bytes, 64);
}

TEST(KinetoCollectives, SendAndRecvNameTheirPeer) {
  const std::string send = R"("Collective name": "send", "In msg nelems": 10, "Out msg nelems": 10,
      "dtype": "Half", "Process Group Name": "0", "Process Group Ranks": "[0, 1]", "Group size": 2, "Dst Rank": 1)";
  const KinetoTrace k = parse_kineto(trace(kStep + "," + comm(10, 1, send)), "t.json", {});
  const RankEvent& e = *of_kind(k.trace, Kind::send).at(0);
  EXPECT_EQ(e.peer, 1);
  EXPECT_EQ(e.bytes, 20);
  EXPECT_EQ(k.messages, 1);
}

TEST(KinetoCollectives, ACutRanksListIsCompletedFromStartAndStride) {
  // The profiler prints lists of more than 30 ranks as their first 29, "...", and the last.
  std::string shown = "[";
  for (int r = 0; r < 29; ++r) shown += std::to_string(2 * r) + ", ";
  shown += "..., 78]";
  const std::string dist = R"("distributedInfo": {"rank": 0, "world_size": 80},)";
  const std::string args = R"("Collective name": "allreduce", "In msg nelems": 1, "Out msg nelems": 1,
      "dtype": "Float", "Process Group Name": "7", "Process Group Ranks": ")" +
                           shown + R"(", "Group size": 40, "Global rank start": 0, "Global rank stride": 2)";
  const KinetoTrace k = parse_kineto(trace(kStep + "," + comm(10, 1, args), dist), "t.json", {});
  const RankEvent& e = *of_kind(k.trace, Kind::collective).at(0);
  ASSERT_EQ(e.group.size(), 40u);
  EXPECT_EQ(e.group[39], 78);
  EXPECT_EQ(e.group[20], 40);

  // Without start and stride, and no pg_config entry: refused.
  const std::string bare = R"("Collective name": "allreduce", "In msg nelems": 1, "Out msg nelems": 1,
      "dtype": "Float", "Process Group Name": "7", "Process Group Ranks": ")" +
                           shown + R"(", "Group size": 40)";
  const Refusal r = refusal_of(trace(kStep + "," + comm(10, 1, bare), dist));
  EXPECT_EQ(r.field, "traceEvents[1].args.Process Group Ranks");
  EXPECT_NE(r.reason.find("cuts lists longer than 30"), std::string::npos) << r.reason;
}

TEST(KinetoCollectives, TwoRanksAssembleIntoOneCollective) {
  const auto rank_file = [](int rank) {
    const std::string dist = fmt::format(R"("distributedInfo": {{"rank": {}, "world_size": 2}},)", rank);
    return write_temp(fmt::format("rank{}.json", rank),
                      trace(kStep + "," + comm(100 + rank, 50, allreduce_args()), dist));
  };
  const std::string f0 = rank_file(0), f1 = rank_file(1);
  KinetoOptions o;
  o.name = "two";
  o.iterations = 3;
  const JobGraph g = import_kineto({f1, f0}, o);
  EXPECT_EQ(g.name, "two");
  EXPECT_EQ(g.ranks, 2);
  EXPECT_EQ(g.iterations, 3);
  const auto n =
      std::count_if(g.tasks.begin(), g.tasks.end(), [](const Task& t) { return t.kind == TaskKind::collective; });
  EXPECT_EQ(n, 1);
  std::remove(f0.c_str());
  std::remove(f1.c_str());
}

// ----- refusals ----------------------------------------------------------------------------------------------

TEST(KinetoRefusals, NoDistributedInfo) {
  const Refusal r = refusal_of(trace(kStep + "," + comm(10, 1, allreduce_args()), ""));
  EXPECT_EQ(r.file, "t.json");
  EXPECT_EQ(r.field, "distributedInfo");
  EXPECT_NE(r.reason.find("no process-group information"), std::string::npos) << r.reason;
}

TEST(KinetoRefusals, UnknownDtype) {
  const Refusal r = refusal_of(trace(kStep + "," + comm(10, 1, allreduce_args("", "\"[0, 1]\"", "Float7"))));
  EXPECT_EQ(r.field, "traceEvents[1].args.dtype");
  EXPECT_NE(r.reason.find("unknown dtype 'Float7'"), std::string::npos) << r.reason;
}

TEST(KinetoRefusals, UnknownCollective) {
  const std::string args = R"("Collective name": "reduce", "In msg nelems": 4, "Out msg nelems": 4, "dtype": "Float",
      "Process Group Ranks": "[0, 1]", "Group size": 2)";
  const Refusal r = refusal_of(trace(kStep + "," + comm(10, 1, args)));
  EXPECT_EQ(r.field, "traceEvents[1].args.Collective name");
  EXPECT_NE(r.reason.find("unknown collective 'reduce'"), std::string::npos) << r.reason;
  // An older trace that does not name its collectives.
  const Refusal o = refusal_of(trace(kStep + "," + comm(10, 1, R"("In msg nelems": 4, "Out msg nelems": 4)")));
  EXPECT_EQ(o.field, "traceEvents[1].args.Collective name");
  EXPECT_NE(o.reason.find("is required"), std::string::npos) << o.reason;
}

TEST(KinetoRefusals, CollectiveWithoutProcessGroupRanks) {
  // Missing, and empty, with no pg_config entry for its group to fall back on.
  const std::string dist = R"("distributedInfo": {"rank": 0, "world_size": 2},)";
  const std::string missing = R"("Collective name": "allreduce", "In msg nelems": 4, "Out msg nelems": 4,
      "dtype": "Float", "Process Group Name": "0", "Group size": 2)";
  Refusal r = refusal_of(trace(kStep + "," + comm(10, 1, missing), dist));
  EXPECT_EQ(r.field, "traceEvents[1].args.Process Group Ranks");
  EXPECT_NE(r.reason.find("no process-group information"), std::string::npos) << r.reason;
  r = refusal_of(trace(kStep + "," + comm(10, 1, allreduce_args("", "\"[]\"")), dist));
  EXPECT_EQ(r.field, "traceEvents[1].args.Process Group Ranks");
  EXPECT_NE(r.reason.find("no process-group information"), std::string::npos) << r.reason;
  // With distributedInfo.pg_config naming the group, its ranks are used.
  const KinetoTrace k = parse_kineto(trace(kStep + "," + comm(10, 1, missing)), "t.json", {});
  EXPECT_EQ(of_kind(k.trace, Kind::collective).at(0)->group, (std::vector<int>{0, 1}));
}

TEST(KinetoRefusals, GroupSizeMismatch) {
  const std::string args = R"("Collective name": "allreduce", "In msg nelems": 4, "Out msg nelems": 4,
      "dtype": "Float", "Process Group Name": "0", "Process Group Ranks": "[0, 1]", "Group size": 3)";
  const Refusal r = refusal_of(trace(kStep + "," + comm(10, 1, args)));
  EXPECT_EQ(r.field, "traceEvents[1].args.Group size");
  EXPECT_NE(r.reason.find("is 3 but the group has 2 ranks"), std::string::npos) << r.reason;
}

TEST(KinetoRefusals, RankTwiceInAGroup) {
  const Refusal r = refusal_of(trace(kStep + "," + comm(10, 1, allreduce_args("", "\"[1, 1]\""))));
  EXPECT_EQ(r.field, "traceEvents[1].args.Process Group Ranks");
  EXPECT_NE(r.reason.find("lists rank 1 twice"), std::string::npos) << r.reason;
}

TEST(KinetoRefusals, SendWithoutItsPeer) {
  const std::string send = R"("Collective name": "send", "In msg nelems": 10, "Out msg nelems": 10,
      "dtype": "Half", "Process Group Name": "0", "Process Group Ranks": "[0, 1]", "Group size": 2)";
  const Refusal r = refusal_of(trace(kStep + "," + comm(10, 1, send)));
  EXPECT_EQ(r.field, "traceEvents[1].args.Dst Rank");
  EXPECT_NE(r.reason.find("which rank"), std::string::npos) << r.reason;
}

TEST(KinetoRefusals, TruncatedJson) {
  const std::string whole = trace(kStep + "," + comm(10, 1, allreduce_args()));
  for (std::size_t cut : {whole.size() - 1, whole.size() / 2, std::size_t{1}}) {
    SCOPED_TRACE(cut);
    const Refusal r = refusal_of(whole.substr(0, cut));
    EXPECT_EQ(r.field, "(file)");
    EXPECT_NE(r.reason.find("ends early"), std::string::npos) << r.reason;
  }
  // The same, gzip'd: the JSON inside is cut, not the gzip data.
  const Refusal r = refusal_of(gzip(whole.substr(0, whole.size() / 2)));
  EXPECT_EQ(r.field, "(file)");
  EXPECT_NE(r.reason.find("JSON ends early"), std::string::npos) << r.reason;
}

TEST(KinetoRefusals, BadGzipAndTrailingBytes) {
  const std::string whole = trace(kStep + "," + comm(10, 1, allreduce_args()));
  Refusal r = refusal_of(std::string("\x1f\x8b", 2) + "not deflate data at all");
  EXPECT_EQ(r.field, "(file)");
  EXPECT_NE(r.reason.find("not valid gzip data"), std::string::npos) << r.reason;
  r = refusal_of(gzip(whole) + "xyz");
  EXPECT_EQ(r.field, "(file)");
  EXPECT_NE(r.reason.find("3 bytes after the end of its gzip data"), std::string::npos) << r.reason;
  // Two gzip members back to back (files joined with cat) are one trace.
  const KinetoTrace k = parse_kineto(gzip(whole.substr(0, 40)) + gzip(whole.substr(40)), "t.json.gz", {});
  EXPECT_EQ(k.collectives, 1);
}

TEST(KinetoRefusals, StrictJson) {
  Refusal r = refusal_of(R"({"traceEvents": [], "traceEvents": []})");
  EXPECT_EQ(r.field, "traceEvents");
  EXPECT_EQ(r.reason, "duplicate key");
  r = refusal_of(trace(R"({"ph": "X", "name": "a", "ts": 1, "dur": 2, "ts": 3})"));
  EXPECT_EQ(r.field, "traceEvents[0].ts");
  EXPECT_EQ(r.reason, "duplicate key");
  r = refusal_of(trace(kStep + R"(, {"ph": "X", "name": "a", "ts": 1e999, "dur": 2})"));
  EXPECT_EQ(r.field, "traceEvents[1].ts");
  r = refusal_of(trace(kStep + R"(, {"ph": "X", "name": "a", "ts": 1, "dur": -2})"));
  EXPECT_EQ(r.field, "traceEvents[1].dur");
  r = refusal_of(trace(kStep + R"(, 7)"));
  EXPECT_EQ(r.field, "traceEvents[1]");
  r = refusal_of(trace(kStep + "," + comm(10, 1, allreduce_args()) + "," + kStep));
  EXPECT_EQ(r.field, "traceEvents[2].name");
  EXPECT_NE(r.reason.find("ProfilerStep#1 appears twice"), std::string::npos) << r.reason;
  r = refusal_of("");
  EXPECT_EQ(r.field, "(file)");
  r = refusal_of(trace(kStep) + "x");  // not cut short: something after the end
  EXPECT_EQ(r.field, "(file)");
  EXPECT_NE(r.reason.find("not valid JSON"), std::string::npos) << r.reason;
  r = refusal_of("[1, 2]");
  EXPECT_EQ(r.field, "(root)");
  r = refusal_of(trace(kStep, R"("distributedInfo": {"rank": 2, "world_size": 2},)"));
  EXPECT_EQ(r.field, "distributedInfo.rank");
}

TEST(KinetoRefusals, FilesDisagreeOnWorldSize) {
  const std::string a = write_temp("ws2.json", trace(kStep, R"("distributedInfo": {"rank": 0, "world_size": 2},)"));
  const std::string b = write_temp("ws4.json", trace(kStep, R"("distributedInfo": {"rank": 1, "world_size": 4},)"));
  const Refusal r = refusal([&] { import_kineto({a, b}, {}); });
  EXPECT_EQ(r.file, b);
  EXPECT_EQ(r.field, "distributedInfo.world_size");
  EXPECT_NE(r.reason.find("is 4 here but 2 in " + a), std::string::npos) << r.reason;
  std::remove(a.c_str());
  std::remove(b.c_str());
}

TEST(KinetoRefusals, EveryFileAtTheFirstFilesStep) {
  // Rank 1's trace has no ProfilerStep#1, which the first file's default chose.
  const std::string a = write_temp("s0.json", trace(kStep, R"("distributedInfo": {"rank": 0, "world_size": 2},)"));
  const std::string other = R"({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "ts": 0, "dur": 1000})";
  const std::string b = write_temp("s1.json", trace(other, R"("distributedInfo": {"rank": 1, "world_size": 2},)"));
  const Refusal r = refusal([&] { import_kineto({a, b}, {}); });
  EXPECT_EQ(r.file, b);
  EXPECT_EQ(r.field, "step");
  EXPECT_NE(r.reason.find("no ProfilerStep#1"), std::string::npos) << r.reason;
  std::remove(a.c_str());
  std::remove(b.c_str());
}

}  // namespace

// ----- streams (KinetoStreams::concurrent) -------------------------------------------------------------------
//
// tests/data/kineto/streams: hand-written traces of one rank (rank 0 of 2), described in their README.

namespace {

const std::string kTwoStreams = std::string(ODCNSIM_SOURCE_DIR) + "/tests/data/kineto/streams/two_streams.json";
const std::string kStreamWait = std::string(ODCNSIM_SOURCE_DIR) + "/tests/data/kineto/streams/stream_wait.json";

KinetoOptions concurrent() {
  KinetoOptions o;
  o.streams = KinetoStreams::concurrent;
  return o;
}

KinetoOptions serial() {
  KinetoOptions o;
  o.streams = KinetoStreams::serial;
  return o;
}

/// One iteration of `g` when compute takes its duration and a collective of S bytes on a ring of two ranks takes
/// S / B (all-reduce: 2(n-1)/n S/B = S/B; all-gather and reduce-scatter: (n-1)/n S/B = S/2B; collective.hpp).
double iteration(const JobGraph& g, double B) {
  return critical_path(g, [&](const Task& t) {
           if (t.kind == TaskKind::compute) return t.duration_s;
           return t.op == CollectiveOp::all_reduce ? t.bytes / B : t.bytes / (2 * B);
         }).length_s;
}

}  // namespace

TEST(KinetoStreams, OptionNames) {
  KinetoStreams s = KinetoStreams::serial;
  EXPECT_TRUE(parse_kineto_streams("concurrent", s));
  EXPECT_EQ(s, KinetoStreams::concurrent);
  EXPECT_STREQ(to_string(s), "concurrent");
  EXPECT_TRUE(parse_kineto_streams("serial", s));
  EXPECT_EQ(s, KinetoStreams::serial);
  EXPECT_FALSE(parse_kineto_streams("overlap", s));
  EXPECT_EQ(KinetoOptions{}.streams, KinetoStreams::concurrent);  // the recorded overlap, by default
}

// two_streams.json, ProfilerStep#1 = [0, 10 ms]: stream 7 runs gemm_a [0, 1 ms] and gemm_b [1, 10 ms]; stream 20
// runs the all-reduce's NCCL kernel [2, 8 ms]. No Stream Wait Event: the all-reduce waits for gemm_a (the GPU
// operation of another stream that ended last before it started, at 1 ms), then for the 1 ms the trace shows
// between that end and its start.
TEST(KinetoStreams, TwoStreamsAreTwoChainsJoinedByTheFallback) {
  const KinetoTrace k = read_kineto(kTwoStreams, concurrent());
  EXPECT_EQ(k.streams, 2);
  EXPECT_FALSE(k.sync_recorded);
  EXPECT_EQ(k.recorded_waits, 0);
  EXPECT_EQ(k.inferred_waits, 1);
  ASSERT_EQ(k.trace.events.size(), 4u);
  const auto& e = k.trace.events;
  EXPECT_EQ(e[0].kind, Kind::compute);  // gemm_a, stream 7
  EXPECT_NEAR(e[0].duration_s, 1e-3, 1e-15);
  EXPECT_EQ(e[0].deps, std::vector<int>{});
  EXPECT_EQ(e[0].field, "ProfilerStep#1 stream 7 traceEvents[3]");
  EXPECT_EQ(e[1].kind, Kind::compute);  // gemm_b after gemm_a, stream 7
  EXPECT_NEAR(e[1].duration_s, 9e-3, 1e-15);
  EXPECT_EQ(e[1].deps, std::vector<int>{0});
  EXPECT_EQ(e[2].kind, Kind::compute);  // stream 20: from gemm_a's end (1 ms) to the kernel's start (2 ms)
  EXPECT_EQ(e[2].name, "idle");
  EXPECT_NEAR(e[2].duration_s, 1e-3, 1e-15);
  EXPECT_EQ(e[2].deps, std::vector<int>{0});
  EXPECT_EQ(e[3].kind, Kind::collective);
  EXPECT_EQ(e[3].bytes, 25e6);  // 6,250,000 Float
  EXPECT_EQ(e[3].deps, std::vector<int>{2});
  EXPECT_NEAR(k.compute_s, 11e-3, 1e-15);
  EXPECT_NEAR(k.comm_s, 6e-3, 1e-15);

  // The same trace serially: compute is the time between communications, one chain (2 ms, the all-reduce, 2 ms).
  const KinetoTrace s = read_kineto(kTwoStreams, serial());
  ASSERT_EQ(s.trace.events.size(), 3u);
  EXPECT_NEAR(s.trace.events[0].duration_s, 2e-3, 1e-15);
  EXPECT_EQ(s.trace.events[1].kind, Kind::collective);
  EXPECT_NEAR(s.trace.events[2].duration_s, 2e-3, 1e-15);
  for (const RankEvent& x : s.trace.events) EXPECT_FALSE(x.deps.has_value());
  EXPECT_EQ(s.streams, 0);
}

// One iteration of two_streams.json copied to rank 1, with the all-reduce taking T = S/B = 25 MB / B:
// concurrent: max(1 + 9, 1 + 1 + T) ms; serial: 2 + T + 2 ms.
TEST(KinetoStreams, OverlapSurvivesTheImport) {
  KinetoOptions o = concurrent();
  o.replicate = true;
  const JobGraph g = import_kineto({kTwoStreams}, o);
  KinetoOptions so = serial();
  so.replicate = true;
  const JobGraph serial = import_kineto({kTwoStreams}, so);
  for (const double B : {12.5e9, 1.25e9}) {  // 100 Gb/s: T = 2 ms; 10 Gb/s: T = 20 ms
    SCOPED_TRACE(B);
    const double T = 25e6 / B;
    EXPECT_NEAR(iteration(g, B), std::max(10e-3, 2e-3 + T), 1e-9);
    EXPECT_NEAR(iteration(serial, B), 4e-3 + T, 1e-9);
  }
  EXPECT_NEAR(iteration(g, 12.5e9), 10e-3, 1e-9);  // not the 16 ms of compute + communication in a row
  // The fallback is said, with its count.
  EXPECT_NE(std::find(g.notes.begin(), g.notes.end(),
                      "no Stream Wait Event (cuda_sync) in 1 of 1 file: 1 communication waits for the GPU operation on "
                      "another stream that ended last before it started (concurrent streams)"),
            g.notes.end());
  for (const std::string& n : serial.notes) EXPECT_EQ(n.find("Stream Wait Event"), std::string::npos) << n;
}

// stream_wait.json, ProfilerStep#1 = [0, 12 ms], FSDP-like, with the profiler's Stream Wait Events: stream 7 runs
// forward_0 [0, 2 ms] and forward_1 [3, 9 ms]; stream 20 the all-gather [0, 3 ms] and the reduce-scatter
// [9, 12 ms]. forward_1 waits for the all-gather (it was launched after the cudaStreamWaitEvent, correlation 203,
// on the event recorded after the all-gather, 202); the reduce-scatter waits for forward_1 (206 on 205).
TEST(KinetoStreams, RecordedStreamWaitsJoinTheStreams) {
  const KinetoTrace k = read_kineto(kStreamWait, concurrent());
  EXPECT_EQ(k.streams, 2);
  EXPECT_TRUE(k.sync_recorded);
  EXPECT_EQ(k.recorded_waits, 2);
  EXPECT_EQ(k.inferred_waits, 0);
  ASSERT_EQ(k.trace.events.size(), 4u);
  const auto& e = k.trace.events;
  EXPECT_EQ(e[0].kind, Kind::compute);  // forward_0
  EXPECT_NEAR(e[0].duration_s, 2e-3, 1e-15);
  EXPECT_EQ(e[0].deps, std::vector<int>{});
  EXPECT_EQ(e[1].kind, Kind::collective);  // the all-gather: 2,500,000 BFloat16 out
  EXPECT_EQ(e[1].op, CollectiveOp::all_gather);
  EXPECT_EQ(e[1].bytes, 5e6);
  EXPECT_EQ(e[1].deps, std::vector<int>{});
  EXPECT_EQ(e[2].kind, Kind::compute);  // forward_1 after forward_0 and the all-gather
  EXPECT_NEAR(e[2].duration_s, 6e-3, 1e-15);
  EXPECT_EQ(e[2].deps, (std::vector<int>{0, 1}));
  EXPECT_EQ(e[3].op, CollectiveOp::reduce_scatter);  // 2,500,000 Float in
  EXPECT_EQ(e[3].bytes, 10e6);
  EXPECT_EQ(e[3].deps, (std::vector<int>{1, 2}));

  // One iteration: max(2 ms, T_ag) + 6 ms + T_rs with T_ag = 5 MB / 2B and T_rs = 10 MB / 2B.
  KinetoOptions o = concurrent();
  o.replicate = true;
  const JobGraph g = import_kineto({kStreamWait}, o);
  for (const double B : {12.5e9, 1.25e9}) {  // T_ag = 0.2 ms, T_rs = 0.4 ms; T_ag = 2 ms, T_rs = 4 ms
    SCOPED_TRACE(B);
    EXPECT_NEAR(iteration(g, B), std::max(2e-3, 5e6 / (2 * B)) + 6e-3 + 10e6 / (2 * B), 1e-9);
  }
  EXPECT_NEAR(iteration(g, 0.625e9), 4e-3 + 6e-3 + 8e-3, 1e-9);  // 5 Gb/s: the all-gather holds forward_1 back
  for (const std::string& n : g.notes) EXPECT_EQ(n.find("Stream Wait Event"), std::string::npos) << n;
}

// A Stream Wait Event whose producer ran before the window (an earlier step) joins nothing; the step's end after
// the last GPU operation is idle time that every stream's chain reaches.
TEST(KinetoStreams, WaitsOutsideTheWindowAndTheStepsEnd) {
  const std::string text = R"({"distributedInfo": {"rank": 0, "world_size": 1}, "traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "ts": 100, "dur": 900},
    {"ph": "X", "cat": "kernel", "name": "k_prev", "ts": 50, "dur": 100, "args": {"stream": 20, "correlation": 1}},
    {"ph": "X", "cat": "cuda_sync", "name": "Stream Wait Event", "ts": 150, "dur": 1,
     "args": {"stream": 7, "correlation": 3, "wait_on_stream": 20, "wait_on_cuda_event_record_corr_id": 2}},
    {"ph": "X", "cat": "kernel", "name": "k", "tid": 7, "ts": 200, "dur": 300, "args": {"correlation": 4}}]})";
  const KinetoTrace k = parse_kineto(text, "t.json", concurrent());
  EXPECT_EQ(k.streams, 1);  // k_prev started before ProfilerStep#2 and has no launch event: not in the window
  EXPECT_EQ(k.recorded_waits, 0);
  ASSERT_EQ(k.trace.events.size(), 2u);
  EXPECT_NEAR(k.trace.events[0].duration_s, 400e-6, 1e-15);  // k (stream from its tid), 100 us after the start
  EXPECT_EQ(k.trace.events[1].name, "idle");
  EXPECT_NEAR(k.trace.events[1].duration_s, 500e-6, 1e-15);  // 500 to 1000 us
  EXPECT_EQ(k.trace.events[1].deps, std::vector<int>{0});
}

TEST(KinetoStreams, AGpuOperationWithoutItsStreamIsRefused) {
  const std::string text = R"({"distributedInfo": {"rank": 0, "world_size": 1}, "traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "k", "ts": 0, "dur": 10, "args": {"correlation": 4}}]})";
  const Refusal r = refusal([&] { parse_kineto(text, "t.json", concurrent()); });
  EXPECT_EQ(r.field, "traceEvents[0].args.stream");
  EXPECT_NE(r.reason.find("import with streams serial otherwise"), std::string::npos) << r.reason;
  EXPECT_EQ(parse_kineto(text, "t.json", serial()).trace.events.size(), 1u);  // serially it needs no stream
}

TEST(KinetoStreams, SameTraceSameEvents) {
  const KinetoTrace a = read_kineto(kSample, concurrent()), b = read_kineto(kSample, concurrent());
  ASSERT_EQ(a.trace.events.size(), b.trace.events.size());
  for (std::size_t i = 0; i < a.trace.events.size(); ++i) {
    EXPECT_EQ(a.trace.events[i].field, b.trace.events[i].field);
    EXPECT_EQ(a.trace.events[i].deps, b.trace.events[i].deps);
    EXPECT_EQ(a.trace.events[i].duration_s, b.trace.events[i].duration_s);
  }
}

// The DDP sample (ProfilerStep#4, no Stream Wait Events) copied to two ranks: stream 7 (compute) and stream 40
// (NCCL). Compute never waits for a communication under the fallback, so with communication taking no time one
// iteration is the step (stream 7's chain spans it, with the idle time before its first kernel and after its last
// operation); with each collective taking its recorded kernel time the rank replays its timeline, the step again.
// Any collective times between the two give the step: at 200 Gb/s every S/B is below its recorded kernel time.
TEST(KinetoStreams, TheSampleReplaysItsStep) {
  const auto doc = nlohmann::json::parse(gunzip_file(kSample));
  double ts = 0, dur = 0;
  for (const auto& e : doc["traceEvents"])
    if (e.value("name", "") == "ProfilerStep#4" && e.value("cat", "") == "user_annotation") {
      ts = e["ts"].get<double>();
      dur = e["dur"].get<double>();
    }
  std::map<long long, double> bytes_of_id;  // External id -> S (all of this step's collectives: broadcast, all-reduce)
  for (const auto& e : doc["traceEvents"])
    if (e.value("name", "") == "record_param_comms" && e["ts"].get<double>() >= ts && e["ts"].get<double>() < ts + dur &&
        e["args"]["In msg nelems"].get<long long>() > 0)
      bytes_of_id[e["args"]["External id"].get<long long>()] =
          static_cast<double>(e["args"]["In msg nelems"].get<long long>()) * (e["args"]["dtype"] == "Float" ? 4 : 8);
  std::map<double, double> recorded_s;  // S -> its NCCL kernel's duration (the 7 sizes differ)
  for (const auto& e : doc["traceEvents"])
    if (e.value("cat", "") == "kernel" && e["args"].contains("Collective name"))
      if (const auto it = bytes_of_id.find(e["args"]["External id"].get<long long>()); it != bytes_of_id.end())
        recorded_s[it->second] = e["dur"].get<double>() * 1e-6;
  ASSERT_EQ(recorded_s.size(), 7u);

  const KinetoTrace k = read_kineto(kSample, concurrent());
  EXPECT_EQ(k.streams, 2);
  EXPECT_FALSE(k.sync_recorded);
  EXPECT_EQ(k.inferred_waits, 7);
  expect_sample_step(k, 4);
  KinetoOptions o = concurrent();
  o.replicate = true;
  const JobGraph g = import_kineto({kSample}, o);
  const auto length = [&](const std::function<double(const Task&)>& comm) {
    return critical_path(g, [&](const Task& t) { return t.kind == TaskKind::compute ? t.duration_s : comm(t); }).length_s;
  };
  const double step = dur * 1e-6;
  EXPECT_NEAR(length([](const Task&) { return 0.0; }), step, 1e-9);
  EXPECT_NEAR(length([&](const Task& t) { return recorded_s.at(t.bytes); }), step, 1e-9);
  const double B = 200e9 / 8;  // a ring of two ranks: all-reduce 2(n-1)/n S/B = S/B, broadcast S/B
  for (const auto& [S, recorded] : recorded_s) EXPECT_LT(S / B, recorded) << S;
  EXPECT_NEAR(length([&](const Task& t) { return t.bytes / B; }), step, 1e-9);
}

// Two Stream Wait Events that make stream 7 wait for stream 20 and stream 20 for stream 7, each for the other's
// only kernel: no order can satisfy them.
TEST(KinetoStreams, StreamWaitsInACycleAreRefused) {
  const std::string text = R"({"distributedInfo": {"rank": 0, "world_size": 1}, "traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "a", "ts": 0, "dur": 10, "args": {"stream": 7, "correlation": 10}},
    {"ph": "X", "cat": "kernel", "name": "b", "ts": 0, "dur": 10, "args": {"stream": 20, "correlation": 11}},
    {"ph": "X", "cat": "cuda_sync", "name": "Stream Wait Event", "ts": 0, "dur": 1,
     "args": {"stream": 7, "correlation": 5, "wait_on_stream": 20, "wait_on_cuda_event_record_corr_id": 12}},
    {"ph": "X", "cat": "cuda_sync", "name": "Stream Wait Event", "ts": 0, "dur": 1,
     "args": {"stream": 20, "correlation": 6, "wait_on_stream": 7, "wait_on_cuda_event_record_corr_id": 12}}]})";
  const Refusal r = refusal([&] { parse_kineto(text, "t.json", concurrent()); });
  EXPECT_EQ(r.field, "traceEvents[2]");
  EXPECT_NE(r.reason.find("in a cycle"), std::string::npos) << r.reason;
}
