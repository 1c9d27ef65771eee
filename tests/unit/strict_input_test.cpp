// Strict reading of every input: exact 64-bit integers with documented limits, finite bounded reals, one
// YAML document with scalar, unique keys, regular UTF-8 files of bounded size, and messages that are one
// printable line whatever the input held. Each case names the field it must blame.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "core/numbers.hpp"
#include "core/text.hpp"
#include "spec/platform_spec.hpp"
#include "spec/workload_spec.hpp"
#include "spec/yaml_reader.hpp"
#include "support/temp_files.hpp"
#include "systems/tdm4/scenario.hpp"

using namespace odcn;

namespace {

const char* kPlatform = R"(kind: clos_ocs
pods: {count: 8, gpus_per_pod: 16, tor_gbps: 600}
ocs: {ports_per_pod: 4, port_gbps: 150, oxcs: 1, ports_per_oxc: 32, pods_per_group: 8, reconfig_delay_us: 250}
)";
const char* kJobs = R"(training: {recompute_factor: 8, context_tokens: 8192, gpu_tflops: 26, efficiency: 0.4}
jobs:
  - {name: a, type: ps, model: 1B, gpus_per_unit: 2, placement: {0: 4, 1: 4}, ps_pod: 0, aggregate_s: 1,
     output_bytes_per_gpu: 1000, train_s: 2}
)";
const char* kGenerator = "generator: {jobs: 5, seed: 3, degree: [2, 4], gpus_per_unit: {1B: 1}}\n";

std::string replace(std::string s, const std::string& from, const std::string& to) {
  const auto at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? s : s.replace(at, from.size(), to);
}

/// Loads platform and workload text the way `run` does; returns the error line, or "ok".
std::string error_of(const std::string& platform, const std::string& workload) {
  try {
    workload::scenario_from_text(platform, "p.yaml", workload, "w.yaml");
    return "ok";
  } catch (const InputError& e) {
    const std::string line = e.what();
    EXPECT_EQ(line.find('\n'), std::string::npos) << "one line: " << line;
    return line;
  }
}

/// One field of the inputs: where its value stands in the text, and the field name errors must use.
struct Field {
  const char* field;
  bool platform;       ///< the value is in the platform text (else the workload text)
  const char* base;    ///< the text with the field's value
  const char* from;    ///< the field's text in `base`, replaced by the value under test
};

const std::vector<Field>& integer_fields() {
  static const std::vector<Field> f{
      {"pods.count", true, kPlatform, "count: 8"},
      {"pods.gpus_per_pod", true, kPlatform, "gpus_per_pod: 16"},
      {"ocs.ports_per_pod", true, kPlatform, "ports_per_pod: 4"},
      {"ocs.oxcs", true, kPlatform, "oxcs: 1"},
      {"ocs.ports_per_oxc", true, kPlatform, "ports_per_oxc: 32"},
      {"ocs.pods_per_group", true, kPlatform, "pods_per_group: 8"},
      {"jobs[0].gpus_per_unit", false, kJobs, "gpus_per_unit: 2"},
      {"jobs[0].placement.1", false, kJobs, "1: 4}"},
      {"jobs[0].ps_pod", false, kJobs, "ps_pod: 0"},
      {"generator.jobs", false, kGenerator, "jobs: 5"},
      {"generator.degree[0]", false, kGenerator, "[2, 4]"},
      {"generator.degree[1]", false, kGenerator, "[2, 4]"},
      {"generator.gpus_per_unit.1B", false, kGenerator, "1B: 1"},
  };
  return f;
}

/// The text of `f` with its value set to `v`.
std::string with_value(const Field& f, const std::string& v) {
  const std::string from = f.from;
  std::string to;
  if (from == "1: 4}") to = "1: " + v + "}";
  else if (from == "[2, 4]") to = std::string(f.field).back() == ']' && std::string(f.field).find("[0]") != std::string::npos
                                     ? "[" + v + ", 4]" : "[2, " + v + "]";
  else to = from.substr(0, from.find(':') + 2) + v;
  return replace(f.base, from, to);
}

}  // namespace

TEST(StrictNumbers, EveryIntegerFieldRefusesWhatItCannotHoldExactly) {
  // 2^31, 2^32 + 8 (which used to wrap to 8), 2^63 (beyond int64), 2^64 + 1, a negative, a fraction, an exponent.
  for (const Field& f : integer_fields())
    for (const std::string v : {"2147483648", "4294967304", "9223372036854775808", "18446744073709551617", "-1",
                                "2.5", "1e3", "0x10"}) {
      const std::string text = with_value(f, v);
      const std::string err = f.platform ? error_of(text, kJobs) : error_of(kPlatform, text);
      const std::string file = f.platform ? "p.yaml" : "w.yaml";
      EXPECT_EQ(err.rfind(file + ": " + f.field + ": ", 0), 0u) << f.field << " = " << v << ": " << err;
      const bool range = v != "2.5" && v != "1e3" && v != "0x10";
      EXPECT_NE(err.find(range ? (v == "-1" ? "must be " : "see docs/limits.md") : "must be a whole number"),
                std::string::npos)
          << f.field << " = " << v << ": " << err;
    }
}

TEST(StrictNumbers, PlacementPodIndexIsCheckedBeforeItCanIndexAnArray) {
  // 4294967288 used to become -8 as an int, pass the range check and write outside an array.
  EXPECT_EQ(error_of(kPlatform, replace(kJobs, "{0: 4, 1: 4}", "{0: 4, 4294967288: 4}")),
            "w.yaml: jobs[0].placement.4294967288 (pod index): must be between 0 and 65535 (got 4294967288; see "
            "docs/limits.md)");
  EXPECT_EQ(error_of(kPlatform, replace(kJobs, "{0: 4, 1: 4}", "{0: 4, 00: 4}")),
            "w.yaml: jobs[0].placement.00: pod 0 is given twice");
}

TEST(StrictNumbers, SeedTakesTheWholeUnsigned64BitRangeExactly) {
  const auto seed = [](const std::string& v) {
    return workload::scenario_from_text(kPlatform, "p.yaml", replace(kGenerator, "seed: 3", "seed: " + v), "w.yaml")
        .workload.generator->seed;
  };
  EXPECT_EQ(seed("9223372036854775808"), 9223372036854775808ULL);
  EXPECT_EQ(seed("18446744073709551615"), 18446744073709551615ULL);
  for (const std::string v : {"-1", "18446744073709551616", "1e23", "1.0", ""})
    EXPECT_EQ(error_of(kPlatform, replace(kGenerator, "seed: 3", "seed: '" + v + "'")).rfind("w.yaml: generator.seed: ", 0),
              0u)
        << v;
}

TEST(StrictNumbers, EveryRealFieldRefusesHugeInfiniteAndNotANumber) {
  const std::vector<Field> reals{
      {"pods.tor_gbps", true, kPlatform, "tor_gbps: 600"},
      {"ocs.port_gbps", true, kPlatform, "port_gbps: 150"},
      {"ocs.reconfig_delay_us", true, kPlatform, "reconfig_delay_us: 250"},
      {"training.recompute_factor", false, kJobs, "recompute_factor: 8"},
      {"training.context_tokens", false, kJobs, "context_tokens: 8192"},
      {"training.gpu_tflops", false, kJobs, "gpu_tflops: 26"},
      {"training.efficiency", false, kJobs, "efficiency: 0.4"},
      {"jobs[0].train_s", false, kJobs, "train_s: 2"},
      {"jobs[0].aggregate_s", false, kJobs, "aggregate_s: 1"},
      {"jobs[0].output_bytes_per_gpu", false, kJobs, "output_bytes_per_gpu: 1000"},
  };
  for (const Field& f : reals)
    for (const std::string v : {"1e308", "1e400", "-1e308", "inf", ".inf", "-.inf", "nan", ".nan", "0x1p3", "1e-400"}) {
      const std::string text = with_value(f, v);
      const std::string err = f.platform ? error_of(text, kJobs) : error_of(kPlatform, text);
      EXPECT_EQ(err.rfind(std::string(f.platform ? "p.yaml" : "w.yaml") + ": " + f.field + ": ", 0), 0u)
          << f.field << " = " << v << ": " << err;
    }
  // params_gb stands in for model.
  EXPECT_EQ(error_of(kPlatform, replace(kJobs, "model: 1B", "params_gb: 1e308")),
            "w.yaml: jobs[0].params_gb: must be > 0 and at most 1000000 (got 1e308; see docs/limits.md)");
}

TEST(StrictNumbers, DocumentedLimitsAreInclusive) {
  EXPECT_EQ(error_of(replace(kPlatform, "port_gbps: 150", "port_gbps: 1e6"), kJobs), "ok");
  EXPECT_EQ(error_of(replace(kPlatform, "port_gbps: 150", "port_gbps: 1000000.001"), kJobs),
            "p.yaml: ocs.port_gbps: must be between 0.001 and 1000000 (got 1000000.001; see docs/limits.md)");
  EXPECT_EQ(error_of(replace(kPlatform, "port_gbps: 150", "port_gbps: 0.001"), kJobs), "ok");
  EXPECT_EQ(error_of(replace(kPlatform, "port_gbps: 150", "port_gbps: 0.0009"), kJobs).rfind("p.yaml: ocs.port_gbps:", 0),
            0u);
  EXPECT_EQ(error_of(replace(kPlatform, "pods_per_group: 8", "pods_per_group: 1025"), kJobs),
            "p.yaml: ocs.pods_per_group: must be between 2 and 1024 (got 1025; see docs/limits.md)");
}

TEST(StrictNumbers, DerivedQuantitiesAreBoundedToo) {
  // Each factor of Eq. (8) is within its limit, but K x tokens x Phi / (F x eff) = 1e3 x 1e9 x 1e9 / 1e6 = 1e15 s.
  const std::string w = R"(training: {recompute_factor: 1000, context_tokens: 1e9, gpu_tflops: 0.000001, efficiency: 1}
jobs:
  - {type: rar, params_gb: 1, gpus_per_unit: 1, placement: {0: 2, 1: 2}}
)";
  const std::string err = error_of(kPlatform, w);
  EXPECT_EQ(err.rfind("w.yaml: jobs[0].train_s: the training time by Eq. (8)", 0), 0u) << err;
  // Total GPUs and candidate circuits of the platform.
  EXPECT_EQ(error_of(replace(replace(replace(kPlatform, "count: 8", "count: 1024"), "gpus_per_pod: 16",
                                     "gpus_per_pod: 65536"),
                             "oxcs: 1", "oxcs: 128"),
                     kJobs)
                .rfind("p.yaml: pods.gpus_per_pod: the platform holds 67108864 GPUs, above the limit", 0),
            0u);
}

TEST(StrictNumbers, CoreParsersAgreeWithTheirDocumentation) {
  EXPECT_EQ(parse_integer("+7", 0, 10, "f", "x"), 7);
  EXPECT_EQ(parse_integer("-9223372036854775808", INT64_MIN, 0, "f", "x"), INT64_MIN);
  EXPECT_THROW(parse_integer(" 7", 0, 10, "f", "x"), InputError);
  EXPECT_THROW(parse_integer("7 ", 0, 10, "f", "x"), InputError);
  EXPECT_THROW(parse_integer("", 0, 10, "f", "x"), InputError);
  EXPECT_THROW(parse_integer("-", 0, 10, "f", "x"), InputError);
  EXPECT_DOUBLE_EQ(parse_real("1e-3", 0, 1, true, "f", "x"), 1e-3);
  EXPECT_THROW(parse_real("0", 0, 1, true, "f", "x"), InputError);
  EXPECT_DOUBLE_EQ(parse_real("1.", 0, 1, true, "f", "x"), 1.0);  // YAML's core schema allows "1."
  EXPECT_THROW(parse_real("1e", 0, 1, true, "f", "x"), InputError);
  EXPECT_THROW(parse_real("--1", -2, 1, false, "f", "x"), InputError);
}

TEST(StrictYaml, RefusesDuplicateKeysAtAnyDepth) {
  EXPECT_EQ(error_of(std::string(kPlatform) + "kind: clos_ocs\n", kJobs), "p.yaml: kind: duplicate key");
  EXPECT_EQ(error_of(replace(kPlatform, "count: 8", "count: 8, count: 4"), kJobs), "p.yaml: pods.count: duplicate key");
  EXPECT_EQ(error_of(kPlatform, replace(kJobs, "type: ps", "type: ps, type: rar")), "w.yaml: jobs[0].type: duplicate key");
}

TEST(StrictYaml, RefusesKeysThatAreNotScalars) {
  EXPECT_EQ(error_of("{}:", kJobs),
            "p.yaml: (root): has a key that is a mapping, a list or empty; keys must be plain text");
  EXPECT_EQ(error_of(kPlatform, std::string(kJobs) + "[a, b]: 1\n"),
            "w.yaml: (root): has a key that is a mapping, a list or empty; keys must be plain text");
  EXPECT_EQ(error_of(replace(kPlatform, "count: 8", "count: 8, {x: 1}: 2"), kJobs),
            "p.yaml: pods: has a key that is a mapping, a list or empty; keys must be plain text");
}

TEST(StrictYaml, RefusesASecondDocumentAndAnEmptyOne) {
  EXPECT_EQ(error_of(std::string(kPlatform) + "---\nkind: clos_ocs\n", kJobs),
            "p.yaml: (file): holds 2 YAML documents; give exactly one");
  EXPECT_EQ(error_of("", kJobs), "p.yaml: (root): must be a YAML mapping");
  EXPECT_EQ(error_of("---\n", kJobs), "p.yaml: (root): must be a YAML mapping");
}

TEST(StrictYaml, InputThatMakesYamlCppLoopForeverIsRefused) {
  // yaml-cpp 0.7's LoadAll never returns on these (found by the fuzzer; jbeder/yaml-cpp#1040).
  for (const std::string text : {",", "!x ,", ",]]", "&a ,", "a: 1\n,"})
    EXPECT_EQ(error_of(text, kJobs).rfind("p.yaml: (file): not valid YAML at line ", 0), 0u) << text;
}

TEST(StrictYaml, RefusesDeepNestingSelfReferenceAndAliasBombs) {
  std::string deep = "a: ";
  for (int i = 0; i < 100; ++i) deep += "[";
  for (int i = 0; i < 100; ++i) deep += "]";
  EXPECT_NE(error_of(kPlatform, deep + "\n").find("nested more than 64 levels"), std::string::npos);
  EXPECT_NE(error_of(kPlatform, "a: &x [*x]\n").rfind("w.yaml: ", 0), std::string::npos);
  // Nine levels of ten aliases each expand to 10^9 nodes; the walk stops at the node limit.
  std::string bomb = "l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i <= 9; ++i) {
    bomb += "l" + std::to_string(i) + ": &l" + std::to_string(i) + " [";
    for (int k = 0; k < 10; ++k) bomb += (k ? ", *l" : "*l") + std::to_string(i - 1);
    bomb += "]\n";
  }
  EXPECT_NE(error_of(kPlatform, bomb).find("expands to more than"), std::string::npos);
}

TEST(StrictYaml, RefusesTextThatIsNotUtf8) {
  EXPECT_EQ(error_of(kPlatform, replace(kJobs, "name: a", "name: a\xff")),
            "w.yaml: (file): is not UTF-8 text (byte 105 is 0xff)");
  EXPECT_EQ(error_of(replace(kPlatform, "kind: clos_ocs", "kind: clos_ocs # \xc3\x28"), kJobs),
            "p.yaml: (file): is not UTF-8 text (byte 17 is 0xc3)");
  EXPECT_EQ(error_of(replace(kPlatform, "kind: clos_ocs", "kind: clos_ocs # caf\xc3\xa9"), kJobs), "ok");
}

TEST(StrictYaml, InputFilesMustBeRegularAndBounded) {
  test::TempDir dir;
  const auto reason = [](const std::string& path) {
    try {
      spec::read_input_file(path);
      return std::string("ok");
    } catch (const InputError& e) {
      return std::string(e.what()).substr(path.size());
    }
  };
  EXPECT_EQ(reason("/dev/zero"), ": (file): is not a regular file (a device, pipe or socket)");
  EXPECT_EQ(reason(dir.path("")), ": (file): is a folder, not a file");
  const auto fifo = dir.path("fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(reason(fifo), ": (file): is not a regular file (a device, pipe or socket)");  // and does not block
  const auto big = dir.path("big.yaml");
  std::ofstream(big) << "kind: clos_ocs\n";
  std::filesystem::resize_file(big, (64u << 20) + 1);  // sparse: takes no disk space
  EXPECT_EQ(reason(big), ": (file): is 67108865 bytes, above the limit of 67108864 bytes (64 MiB)");
  std::filesystem::resize_file(big, 64u << 20);
  EXPECT_EQ(reason(big), "ok");  // exactly at the limit is read (then refused by the YAML reader: NUL bytes)
}

TEST(OneLine, EchoedTextIsEscapedAndShortened) {
  EXPECT_EQ(escape_line("a\nb\r\x1b[31m\x7f"), "a\\x0ab\\x0d\\x1b[31m\\x7f");
  EXPECT_EQ(escape_line("\xff\xfe ok \xc3\xa9"), "\\xff\\xfe ok \xc3\xa9");
  EXPECT_EQ(escape_line(escape_line("x\ny")), escape_line("x\ny"));
  // U+0085 (next line), U+2028 (line separator), U+202E (right-to-left override) are escaped; U+00E9 is not.
  EXPECT_EQ(escape_line("a\xc2\x85" "b\xe2\x80\xa8" "c\xe2\x80\xae" "d\xc3\xa9"), "a\\u0085b\\u2028c\\u202ed\xc3\xa9");
  EXPECT_EQ(shown(std::string(300, '9')), std::string(40, '9') + "... (300 characters)");
  const InputError e("f\nile", "fi\teld", "reason\x1b");
  EXPECT_STREQ(e.what(), "f\\x0aile: fi\\x09eld: reason\\x1b");
  EXPECT_TRUE(is_utf8("µs"));
  EXPECT_FALSE(is_utf8("\xed\xa0\x80"));  // a UTF-16 surrogate
  EXPECT_FALSE(is_utf8("\xc0\xaf"));      // an overlong '/'
}

TEST(Text, SplitCommasKeepsEveryPieceEmptyOnesIncluded) {
  EXPECT_EQ(odcn::split_commas("static,tdm4"), (std::vector<std::string>{"static", "tdm4"}));
  EXPECT_EQ(odcn::split_commas("a,,b,"), (std::vector<std::string>{"a", "", "b", ""}));
  EXPECT_EQ(odcn::split_commas(""), (std::vector<std::string>{""}));
}
