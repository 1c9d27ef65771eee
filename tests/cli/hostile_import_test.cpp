// Hostile inputs of `odcnsim import kineto|chakra` (issue 28): malformed JSON, gzip and protobuf, truncated and
// empty files, wrong types, huge numbers, bad ranks and groups, things that are not files, options of the other
// format, absurd --step and --ranks, --out paths that are folders or inputs. Each is exit 2, one line naming the
// trace (or groups) file or the option, and nothing written.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

#include "cli/hostile_support.hpp"

using namespace odcn::test;
using namespace odcn::test::hostile;
namespace fs = std::filesystem;

namespace {

const std::string kKineto = std::string(ODCNSIM_SOURCE_DIR) + "/tests/data/kineto/nccl_data.json.gz";
const std::string kChakra = ODCNSIM_CHAKRA_SAMPLE;

/// A Kineto trace of rank `rank` of `world` whose distributedInfo and events are as given.
std::string kineto(const std::string& info, const std::string& events = "[]") {
  return fmt::format(R"({{"schemaVersion": 1, "distributedInfo": {}, "traceEvents": {}}})", info, events);
}

}  // namespace

TEST(HostileImport, KinetoTracesAndOptions) {
  TempDir dir;
  const auto out = dir.path("g.json");  // never created by any case
  const auto t = [&](const std::string& name, const std::string& text) { return dir.write(name, text); };
  const std::string whole = read_file(kKineto);
  fs::create_directories(dir.path("folder.json"));
  ASSERT_EQ(::mkfifo(dir.path("fifo.json").c_str(), 0644), 0);
  const auto unreadable = t("unreadable.json", kineto(R"({"rank": 0, "world_size": 1})"));
  ::chmod(unreadable.c_str(), 0);
  const auto big = t("big.json", "");
  fs::resize_file(big, (64u << 20) + 1);
  // The unreadable file is read by nobody, whose --out must lie in a folder it may write into.
  fs::create_directories(dir.path("w"));
  ::chmod(dir.path("w").c_str(), 0777);
  const auto writable = dir.path("w/g.json");
  const auto kept = t("kept.json", "my notes, not a job graph\n");
  const auto imp = [&](const std::string& files, const std::string& rest = "") {
    return fmt::format("import kineto {} --out {}{}", files, q(out), rest);
  };
  const std::string ok = t("ok.json", kineto(R"({"rank": 0, "world_size": 1})",
                                              R"([{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 1, "dur": 5}])"));
  std::vector<Case> cases{
      // Files that are not traces.
      {imp(t("empty.json", "")), dir.path("empty.json") + ": (file): is empty"},
      {imp(t("junk.json", std::string("\x7f" "ELF\x02\x01\x01\0\0\0\xff\xfe\x01", 14))), dir.path("junk.json") + ": (file): "},
      {imp(t("cut.json", kineto(R"({"rank": 0, "world_size": 1})").substr(0, 40))),
       dir.path("cut.json") + ": (file): the JSON ends early"},
      {imp(t("cut.json.gz", whole.substr(0, whole.size() / 3))), dir.path("cut.json.gz") + ": (file): the gzip data ends early"},
      {imp(t("badgz.json.gz", std::string("\x1f\x8b\x08\0junkjunkjunkjunk", 20))), dir.path("badgz.json.gz") + ": (file): is not valid gzip data"},
      {imp(t("gzipped-junk.json.gz", std::string("\x1f\x8b", 2))), dir.path("gzipped-junk.json.gz") + ": (file): "},
      {imp(dir.path("folder.json")), dir.path("folder.json") + ": (file): is a folder"},
      {imp(dir.path("fifo.json")), dir.path("fifo.json") + ": (file): is not a regular file"},
      {imp("/dev/null"), "/dev/null: (file): is not a regular file"},
      {imp(dir.path("missing.json")), dir.path("missing.json") + ": (file): cannot be read"},
      {fmt::format("import kineto {} --out {}", unreadable, writable), unreadable + ": (file): cannot be read", "", true},
      {imp(big), big + ": (file): "},
      {imp(kChakra), kChakra + ": (file): "},
      {imp(t("array.json", "[1, 2]")), dir.path("array.json") + ": (root): must be a JSON object"},
      {imp(t("deep.json", std::string(100000, '['))), dir.path("deep.json") + ": (root): "},
      {imp(t("nested.json", [] {
         std::string s;
         for (int i = 0; i < 1000; ++i) s += "{\"a\": ";
         return s;
       }())),
       dir.path("nested.json") + ": ", "nested more than 64 levels"},
      {imp(t("twice.json", R"({"traceEvents": [], "traceEvents": []})")), dir.path("twice.json") + ": traceEvents: duplicate key"},
      {imp(t("longkey.json", "{\"" + std::string(100000, 'k') + "\": 1, \"" + std::string(100000, 'k') + "\": 2}")),
       dir.path("longkey.json") + ": kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk... (100000 characters): duplicate key"},
      {imp(t("longstr.json", "{\"traceEvents\": \"" + std::string(100000, 'a'))), dir.path("longstr.json") + ": "},
      {imp(t("events.json", kineto(R"({"rank": 0, "world_size": 1})", "7"))), dir.path("events.json") + ": traceEvents: must be a list"},
      {imp(t("event.json", kineto(R"({"rank": 0, "world_size": 1})", "[7]"))), dir.path("event.json") + ": traceEvents[0]: "},
      {imp(t("ts.json", kineto(R"({"rank": 0, "world_size": 1})", R"([{"ph": "X", "name": "a", "ts": 1e999, "dur": 1}])"))),
       dir.path("ts.json") + ": traceEvents[0].ts: "},
      {imp(t("dur.json", kineto(R"({"rank": 0, "world_size": 1})", R"([{"ph": "X", "name": "a", "ts": 1, "dur": -5}])"))),
       dir.path("dur.json") + ": traceEvents[0].dur: "},
      {imp(t("durstr.json", kineto(R"({"rank": 0, "world_size": 1})", R"([{"ph": "X", "name": "a", "ts": 1, "dur": "5"}])"))),
       dir.path("durstr.json") + ": traceEvents[0].dur: "},
      {imp(t("longnum.json", kineto(R"({"rank": 0, "world_size": 1})", "[" + std::string(100000, '9') + "]"))),
       dir.path("longnum.json") + ": traceEvents[0]: ", "(100000 characters)"},
      // Ranks: missing, negative, huge, of the wrong type, outside the world, twice, one of two without --replicate.
      {imp(t("noinfo.json", R"({"traceEvents": []})")), dir.path("noinfo.json") + ": distributedInfo: is required"},
      {imp(t("neg.json", kineto(R"({"rank": -1, "world_size": 2})"))), dir.path("neg.json") + ": distributedInfo.rank: "},
      {imp(t("huge.json", kineto(R"({"rank": 99999999999999999999999, "world_size": 2})"))),
       dir.path("huge.json") + ": distributedInfo.rank: "},
      {imp(t("str.json", kineto(R"({"rank": "0", "world_size": 2})"))), dir.path("str.json") + ": distributedInfo.rank: "},
      {imp(t("outside.json", kineto(R"({"rank": 3, "world_size": 2})"))), dir.path("outside.json") + ": distributedInfo.rank: "},
      {imp(t("world0.json", kineto(R"({"rank": 0, "world_size": 0})"))), dir.path("world0.json") + ": distributedInfo.world_size: "},
      {imp(t("worldbig.json", kineto(R"({"rank": 0, "world_size": 16777217})"))),
       dir.path("worldbig.json") + ": distributedInfo.world_size: "},
      {imp(kKineto + " " + kKineto), kKineto + ": distributedInfo.rank: rank 0 is also traced by"},
      {imp(kKineto), kKineto + ": ranks: no trace for rank 1 of 2"},
      {imp(t("nox.json", kineto(R"({"rank": 0, "world_size": 1})"))), dir.path("nox.json") + ": traceEvents: "},
      // The options: absurd steps, options of the other format, bad words, names and iterations.
      {imp(kKineto, " --replicate --step 99"), kKineto + ": step: there is no ProfilerStep#99"},
      {imp(kKineto, " --replicate --step -1"), "command line: --step: "},
      {imp(kKineto, " --replicate --step 99999999999999999999"), "command line: --step: "},
      {imp(kKineto, " --replicate --step 5x"), "command line: --step: must be a whole number"},
      {imp(kKineto, " --replicate --ranks 2"), "command line: --ranks: is an option of 'import chakra'"},
      {imp(kKineto, " --replicate --groups g.json"), "command line: --groups: is an option of 'import chakra'"},
      {imp(kKineto, " --replicate --ctrl-deps caller"), "command line: --ctrl-deps: is an option of 'import chakra'"},
      {imp(kKineto, " --replicate --compute overlap"), "command line: --compute: is an option of 'import chakra'"},
      {imp(kKineto, " --replicate --algorithm direct"), "command line: --algorithm: is an option of 'import chakra'"},
      {imp(kKineto, " --replicate --streams parallel"), "command line: --streams: must be serial or concurrent"},
      {imp(kKineto, " --replicate --name 'a,b'"), "command line: --name: "},
      {imp(kKineto, " --replicate --name " + std::string(5000, 'n')), "command line: --name: ", "(5000 characters)"},
      {imp(kKineto, " --replicate --iterations 0"), "command line: --iterations: "},
      {imp(kKineto, " --replicate --iterations 1e3"), "command line: --iterations: "},
      {imp(kKineto, " --replicate --replicate=maybe"), "command line: "},
      {fmt::format("import pytorch {} --out {}", kKineto, out), "command line: (format): unknown trace format 'pytorch'"},
      {fmt::format("import kineto --out {}", out), "command line: "},
      // --out: a folder, the input itself, a file of the user's, below a missing folder.
      {fmt::format("import kineto {} --out {}", ok, dir.path("folder.json")), "command line: --out: ", "is a folder"},
      {fmt::format("import kineto {} --out {}", ok, ok), "command line: --out: ", "exists and is not a job graph"},
      {fmt::format("import kineto {} --out {}", ok, kept), "command line: --out: ", "exists and is not a job graph"},
      {fmt::format("import kineto {} --out {}/", ok, dir.path("new")), "command line: --out: ", "is a folder"},
      {fmt::format("import kineto {} --out {}", ok, dir.path("no/such/g.json")), "command line: --out: ", "does not exist"},
      {fmt::format("import kineto {} --out {}/g.json", ok, kept), "command line: --out: "},
  };
  expect_hostile(cases, dir);
}

TEST(HostileImport, ChakraTracesGroupsAndOptions) {
  TempDir dir;
  const auto out = dir.path("g.json");
  const auto t = [&](const std::string& name, const std::string& text) { return dir.write(name, text); };
  const std::string whole = read_file(kChakra);
  fs::create_directories(dir.path("folder.et"));
  ASSERT_EQ(::mkfifo(dir.path("fifo.et").c_str(), 0644), 0);
  const auto unreadable = t("unreadable.et", whole.substr(0, 1000));
  ::chmod(unreadable.c_str(), 0);
  const auto big = t("big.et", "");
  fs::resize_file(big, (64u << 20) + 1);
  // The unreadable file is read by nobody, whose --out must lie in a folder it may write into.
  fs::create_directories(dir.path("w"));
  ::chmod(dir.path("w").c_str(), 0777);
  const auto writable = dir.path("w/g.json");
  const auto imp = [&](const std::string& files, const std::string& rest = "") {
    return fmt::format("import chakra {} --out {}{}", files, q(out), rest);
  };
  // The sample with the options it needs, and a groups file.
  const auto with_groups = [&](const std::string& name, const std::string& text) {
    return imp(kChakra, " --ctrl-deps caller --groups " + q(t(name, text)));
  };
  std::vector<Case> cases{
      // Files that are not ET files.
      {imp(t("empty.et", "")), dir.path("empty.et") + ": GlobalMetadata: the file is empty"},
      {imp(t("junk.et", std::string("\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\x02junk", 16))), dir.path("junk.et") + ": "},
      {imp(t("cut10.et", whole.substr(0, 10))), dir.path("cut10.et") + ": message 0 (byte 0): ", "a truncated file"},
      {imp(t("cut.et", whole.substr(0, whole.size() / 2))), dir.path("cut.et") + ": message ", "a truncated file"},
      {imp(t("json.et", R"({"traceEvents": []})")), dir.path("json.et") + ": "},
      {imp(t("text.et", "hello, world\n")), dir.path("text.et") + ": "},
      {imp(dir.path("folder.et")), dir.path("folder.et") + ": (file): is a folder"},
      {imp(dir.path("fifo.et")), dir.path("fifo.et") + ": (file): is not a regular file"},
      {imp("/dev/zero"), "/dev/zero: (file): is not a regular file"},
      {imp(dir.path("missing.et")), dir.path("missing.et") + ": (file): cannot be read"},
      {fmt::format("import chakra {} --out {}", unreadable, writable), unreadable + ": (file): cannot be read", "", true},
      {imp(big), big + ": (file): "},
      {imp(kKineto), kKineto + ": "},
      // Ranks: twice by name, zero, negative, absurd, too many copies; the sample's ctrl_deps read as an order.
      {imp(kChakra + " " + kChakra, " --ctrl-deps caller"), kChakra + ": (file): is rank 0 by its name, as is"},
      {imp(kChakra, " --ctrl-deps caller --ranks 0"), "command line: --ranks: "},
      {imp(kChakra, " --ctrl-deps caller --ranks -3"), "command line: --ranks: "},
      {imp(kChakra, " --ctrl-deps caller --ranks 99999999999"), "command line: --ranks: must be between 1 and 16777216"},
      {imp(kChakra, " --ctrl-deps caller --ranks 16777216"), kChakra + ": ranks: ", "above the limit of 10000000"},
      {imp(kChakra, " --ctrl-deps caller --ranks two"), "command line: --ranks: "},
      {imp(kChakra, " --ranks 2"), kChakra + ": ", "caller"},
      // Groups files: not JSON, not an object, ranks twice, outside the job, negative, not lists, huge, keys twice,
      // not files.
      {with_groups("g-cut.json", "{"), dir.path("g-cut.json") + ": (file): "},
      {with_groups("g-array.json", "[1, 2]"), dir.path("g-array.json") + ": (root): must be a JSON object"},
      {with_groups("g-twice.json", R"({"0": [0, 0]})"), dir.path("g-twice.json") + ": 0: lists rank 0 twice"},
      {with_groups("g-outside.json", R"({"0": [5]})"), dir.path("g-outside.json") + ": 0[0]: "},
      {with_groups("g-neg.json", R"({"0": [-1]})"), dir.path("g-neg.json") + ": 0[0]: "},
      {with_groups("g-word.json", R"({"0": "all"})"), dir.path("g-word.json") + ": 0: "},
      {with_groups("g-empty-list.json", R"({"0": []})"), dir.path("g-empty-list.json") + ": 0: "},
      {with_groups("g-huge.json", R"({"0": [1e400]})"), dir.path("g-huge.json") + ": 0[0]: "},
      {with_groups("g-dupkey.json", R"({"0": [0], "0": [0]})"), dir.path("g-dupkey.json") + ": 0: duplicate key"},
      {with_groups("g-empty.json", ""), dir.path("g-empty.json") + ": (file): "},
      {imp(kChakra, " --ctrl-deps caller --groups " + dir.path("folder.et")), dir.path("folder.et") + ": (file): is a folder"},
      {imp(kChakra, " --ctrl-deps caller --groups " + dir.path("fifo.et")), dir.path("fifo.et") + ": (file): is not a regular file"},
      {imp(kChakra, " --ctrl-deps caller --groups " + dir.path("none.json")), dir.path("none.json") + ": (file): cannot be read"},
      // Options: bad words, options of the other format.
      {imp(kChakra, " --ctrl-deps parent"), "command line: --ctrl-deps: must be order or caller"},
      {imp(kChakra, " --compute parallel"), "command line: --compute: must be serial or overlap"},
      {imp(kChakra, " --algorithm tree"), "command line: --algorithm: must be ring or direct"},
      {imp(kChakra, " --streams serial"), "command line: --streams: is an option of 'import kineto'"},
      {imp(kChakra, " --step 2"), "command line: --step: is an option of 'import kineto'"},
      {imp(kChakra, " --replicate"), "command line: --replicate: is an option of 'import kineto'"},
      // --out: the input itself, a folder.
      {fmt::format("import chakra {} --ctrl-deps caller --out {}", kChakra, kChakra), "command line: --out: "},
      {fmt::format("import chakra {} --ctrl-deps caller --out {}", kChakra, dir.path("folder.et")), "command line: --out: ",
       "is a folder"},
  };
  expect_hostile(cases, dir);
}
