// Reading platform and workload files: good files load with the right units; each class of bad input
// raises InputError naming the file and the field.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "net/fabric.hpp"
#include "spec/platform_spec.hpp"
#include "spec/workload_spec.hpp"
#include "support/temp_files.hpp"
#include "systems/tdm4/job.hpp"

using namespace odcn;

namespace {

const char* kPlatform = R"(kind: clos_ocs
name: t
pods: {count: 8, gpus_per_pod: 16, tor_gbps: 600}
ocs: {ports_per_pod: 4, port_gbps: 150, oxcs: 1, ports_per_oxc: 32, pods_per_group: 8, reconfig_delay_us: 250}
)";

std::string replace(std::string s, const std::string& from, const std::string& to) {
  const auto at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return s.replace(at, from.size(), to);
}

/// Expects loading `text` as a platform to fail with "file: field: ..." containing `reason`.
void expect_platform_error(const std::string& text, const std::string& field, const std::string& reason) {
  test::TempDir dir;
  const auto path = dir.write("p.yaml", text);
  try {
    spec::load_platform(path);
    FAIL() << "no error for field " << field;
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_EQ(e.field(), field);
    EXPECT_NE(std::string(e.what()).find(reason), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << "one line";
  }
}

}  // namespace

TEST(PlatformSpec, LoadsUnitsExactly) {
  test::TempDir dir;
  const auto p = spec::load_platform(dir.write("p.yaml", kPlatform));
  EXPECT_EQ(p.pods, 8);
  EXPECT_DOUBLE_EQ(p.port_bytes_per_s, 150e9 / 8);  // Gb/s -> bytes/s
  EXPECT_DOUBLE_EQ(p.tor_bytes_per_s, 75e9);
  EXPECT_DOUBLE_EQ(p.reconfig_delay_s, 250e-6);
  EXPECT_EQ(p.pods_per_group, 8);
}

TEST(PlatformSpec, IncCapableTorsAreOptional) {
  test::TempDir dir;
  EXPECT_EQ(spec::load_platform(dir.write("p.yaml", kPlatform)).inc_jobs, 0);
  EXPECT_EQ(spec::load_platform(dir.write("q.yaml", replace(kPlatform, "tor_gbps: 600", "tor_gbps: 600, inc_jobs: 4")))
                .inc_jobs,
            4);
  expect_platform_error(replace(kPlatform, "tor_gbps: 600", "tor_gbps: 600, inc_jobs: -1"), "pods.inc_jobs",
                        "must be >= 0");
}

TEST(PlatformSpec, RejectsUnreadableFile) {
  EXPECT_THROW(spec::load_platform("/nonexistent/p.yaml"), InputError);
}

TEST(PlatformSpec, RejectsNonYaml) { expect_platform_error("kind: [unclosed\n  - {", "(file)", "not valid YAML"); }

TEST(PlatformSpec, RejectsUnknownKey) {
  expect_platform_error(replace(kPlatform, "tor_gbps: 600", "tor_gbps: 600, colour: red"), "pods.colour",
                        "unknown key");
}

TEST(PlatformSpec, RejectsWrongType) {
  expect_platform_error(replace(kPlatform, "ports_per_pod: 4", "ports_per_pod: four"), "ocs.ports_per_pod",
                        "must be a whole number (got 'four')");
  expect_platform_error(replace(kPlatform, "ports_per_pod: 4", "ports_per_pod: 2.5"), "ocs.ports_per_pod",
                        "must be a whole number");
}

TEST(PlatformSpec, RejectsZeroAndNegativeSizes) {
  expect_platform_error(replace(kPlatform, "port_gbps: 150", "port_gbps: 0"), "ocs.port_gbps", "must be > 0");
  expect_platform_error(replace(kPlatform, "tor_gbps: 600", "tor_gbps: -5"), "pods.tor_gbps", "must be > 0");
  expect_platform_error(replace(kPlatform, "ports_per_pod: 4", "ports_per_pod: -4"), "ocs.ports_per_pod",
                        "must be > 0 (got -4)");
}

TEST(PlatformSpec, RejectsPortBudgetOverflow) {
  expect_platform_error(replace(kPlatform, "ports_per_pod: 4", "ports_per_pod: 5"), "ocs.ports_per_pod",
                        "port budget overflow");
}

TEST(PlatformSpec, RejectsInconsistentGroups) {
  expect_platform_error(replace(kPlatform, "oxcs: 1", "oxcs: 2"), "ocs.oxcs", "must equal pods / pods_per_group");
  expect_platform_error(replace(kPlatform, "reconfig_delay_us: 250", "reconfig_delay_us: 250, reconfig_delay_ms: 1"),
                        "ocs.reconfig_delay_us", "exactly one");
}

// The base topology's torus (INC-AOI §II, "Torus"): the most square rows × columns, and the ports each ToR gives it.
TEST(PlatformSpec, ATorusIsTheMostSquareGridOfTheRacks) {
  EXPECT_EQ(spec::torus_shape(64), std::make_pair(8, 8));
  EXPECT_EQ(spec::torus_shape(9), std::make_pair(3, 3));
  EXPECT_EQ(spec::torus_shape(12), std::make_pair(3, 4));
  EXPECT_EQ(spec::torus_shape(7), std::make_pair(1, 7));  // a prime: one row, a ring
  // Each ToR: 2 per dimension of more than 2 racks, 1 per dimension of 2, none for a dimension of 1.
  EXPECT_EQ(spec::base_topology_ports("torus", 64), 4);
  EXPECT_EQ(spec::base_topology_ports("torus", 6), 3);  // 2 x 3
  EXPECT_EQ(spec::base_topology_ports("torus", 4), 2);  // 2 x 2: a square
  EXPECT_EQ(spec::base_topology_ports("torus", 7), 2);
  EXPECT_EQ(spec::base_topology_ports("ring", 64), 2);
  EXPECT_EQ(spec::base_topology_ports("ring", 2), 1);
  EXPECT_EQ(spec::base_topology_ports("all-to-all", 64), 63);
  EXPECT_EQ(spec::base_topology_ports("none", 64), 0);
}

namespace {

const char* kWorkload = R"(jobs:
  - name: a
    type: ps
    model: 1B
    gpus_per_unit: 2
    placement: {0: 4, 1: 4}
    ps_pod: 0
)";

std::string workload_error(const std::string& text, const char* platform = kPlatform) {
  test::TempDir dir;
  const auto wpath = dir.write("w.yaml", text);
  const net::Fabric fabric(spec::load_platform(dir.write("p.yaml", platform)));
  try {
    workload::make_jobs(spec::load_workload(wpath), fabric);
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), wpath);
    return std::string(e.what()).substr(wpath.size());
  }
  return "no error";
}

}  // namespace

TEST(WorkloadSpec, LoadsJobsWithEq8TrainingTime) {
  test::TempDir dir;
  const net::Fabric fabric(spec::load_platform(dir.write("p.yaml", kPlatform)));
  const auto jobs = workload::make_jobs(spec::load_workload(dir.write("w.yaml", kWorkload)), fabric);
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].gpus(), 8);
  EXPECT_EQ(jobs[0].units(), 4);
  EXPECT_DOUBLE_EQ(jobs[0].model_bytes, 2.46e9);       // Table III
  EXPECT_DOUBLE_EQ(jobs[0].per_gpu_bytes, 1.23e9);     // Φ / U
  // Eq. (8): K=8, 8192 tokens, Φ=2.46e9, F_GPU=26 TFLOP/s, efficiency 0.4
  EXPECT_NEAR(jobs[0].train_s, 8.0 * 8192 * 2.46e9 / (26e12 * 0.4), 1e-12);
  EXPECT_NEAR(jobs[0].train_s, 15.501784615384615, 1e-12);
}

TEST(WorkloadSpec, ComputeModelFollowsTheVersionUnlessNamed) {
  test::TempDir dir;
  const net::Fabric fabric(spec::load_platform(dir.write("p.yaml", kPlatform)));
  auto train = [&](const std::string& text) {
    return workload::make_jobs(spec::load_workload(dir.write("w.yaml", text)), fabric)[0].train_s;
  };
  const double eq8 = 8.0 * 8192 * 2.46e9 / (26e12 * 0.4);
  // 1B, U = 2: 1.23e9 parameters, the replica's 8,192 tokens shared by 2 GPUs at 0.4 x 312 TFLOP/s.
  const double physical = 8.0 * 8192 * 1.23e9 / (2 * 312e12 * 0.4);
  EXPECT_DOUBLE_EQ(train(kWorkload), eq8);  // no version: format 1, the literal model, unchanged
  auto tor_of = [&](const std::string& text) { return spec::load_workload(dir.write("w.yaml", text)).training.tor; };
  EXPECT_EQ(tor_of(kWorkload), spec::TorModel::eq5);
  EXPECT_EQ(tor_of(std::string("version: 2\n") + kWorkload), spec::TorModel::physical);
  EXPECT_EQ(tor_of(std::string("version: 2\ntraffic: {tor: eq5}\n") + kWorkload), spec::TorModel::eq5);
  EXPECT_EQ(tor_of(std::string("traffic: {tor: physical}\n") + kWorkload), spec::TorModel::physical);
  EXPECT_DOUBLE_EQ(train(std::string("version: 2\n") + kWorkload), physical);
  EXPECT_DOUBLE_EQ(train(std::string("version: 2\ntraining: {model: tang-eq8}\n") + kWorkload), eq8);
  EXPECT_DOUBLE_EQ(train(std::string("training: {model: physical}\n") + kWorkload), physical);
  // precision picks the A100 peak; gpu_tflops given beside it wins.
  EXPECT_DOUBLE_EQ(train(std::string("training: {model: physical, precision: tf32}\n") + kWorkload),
                   physical * 312 / 156);
  EXPECT_DOUBLE_EQ(train(std::string("training: {model: physical, precision: tf32, gpu_tflops: 624}\n") + kWorkload),
                   physical / 2);
  EXPECT_DOUBLE_EQ(
      train(std::string("training: {model: physical, bytes_per_param: 4, sequences_per_replica: 8, "
                        "split_over_unit: false, efficiency: 0.5, recompute_factor: 6, context_tokens: 4096}\n") +
            kWorkload),
      6.0 * 4096 * 8 * (2.46e9 / 4) / (312e12 * 0.5));
}

TEST(WorkloadSpec, RejectsBadComputeModels) {
  EXPECT_EQ(workload_error(std::string("training: {model: roofline}\n") + kWorkload),
            ": training.model: unknown compute model 'roofline' (expected tang-eq8 or physical)");
  EXPECT_EQ(workload_error(std::string("training: {bytes_per_param: 2}\n") + kWorkload),
            ": training.bytes_per_param: only for model: physical (tang-eq8 is the TDM-4 paper's Eq. (8) read "
            "literally)");
  EXPECT_EQ(workload_error(std::string("version: 2\ntraining: {precision: fp8}\n") + kWorkload),
            ": training.precision: unknown precision 'fp8' (expected fp64, tf32, bf16 or fp16: A100 peaks; give "
            "gpu_tflops for another GPU)");
  EXPECT_EQ(workload_error(std::string("version: 2\ntraining: {split_over_unit: yes}\n") + kWorkload),
            ": training.split_over_unit: must be true or false");
  EXPECT_EQ(workload_error(std::string("traffic: {tor: incast}\n") + kWorkload),
            ": traffic.tor: unknown ToR model 'incast' (expected eq5 or physical)");
  EXPECT_EQ(workload_error(std::string("version: 3\n") + kWorkload), ": version: workload format 3 is newer than this odcnsim reads (1 or 2); see docs/model.md");
}

TEST(WorkloadSpec, RejectsBadJobs) {
  EXPECT_EQ(workload_error(replace(kWorkload, "model: 1B", "model: 7B")),
            ": jobs[0].model: unknown model '7B' (expected 1B, 3B, 8B or 90B: TDM-4's Table III)");
  EXPECT_EQ(workload_error(replace(kWorkload, "type: ps", "type: mesh")),
            ": jobs[0].type: unknown job type 'mesh' (expected ps, rar or alltoall)");
  EXPECT_EQ(workload_error(replace(kWorkload, "gpus_per_unit: 2", "gpus_per_unit: 3")),
            ": jobs[0].gpus_per_unit: 8 GPUs cannot be split into units of 3");
  EXPECT_EQ(workload_error(replace(kWorkload, "ps_pod: 0", "ps_pod: 5")),
            ": jobs[0].ps_pod: parameter server pod 5 holds none of the job's GPUs");
  EXPECT_EQ(workload_error(replace(kWorkload, "{0: 4, 1: 4}", "{0: 4, 1: 0}")),
            ": jobs[0].placement.1: must be > 0 (got 0)");
  EXPECT_EQ(workload_error(replace(kWorkload, "    ps_pod: 0\n", "    ps_pod: 0\n    color: 1\n")),
            ": jobs[0].color: unknown key (allowed: name, type, model, params_gb, gpus_per_unit, placement, ps_pod, "
            "train_s, aggregate_s, output_bytes_per_gpu)");
}

TEST(WorkloadSpec, RejectsJobsThatDoNotFit) {
  EXPECT_EQ(workload_error(replace(kWorkload, "{0: 4, 1: 4}", "{0: 20, 1: 4}")),
            ": jobs[0].placement.0: job does not fit: 20 GPUs requested, 16 free in pod 0");
  EXPECT_EQ(workload_error(replace(kWorkload, "{0: 4, 1: 4}", "{0: 4, 9: 4}")),
            ": jobs[0].placement.9: pod 9 does not exist (the platform has 8 pods)");
  // Two jobs that each fit but not together.
  const std::string two = std::string(kWorkload) + R"(  - name: b
    type: rar
    model: 1B
    gpus_per_unit: 1
    placement: {0: 14}
)";
  EXPECT_EQ(workload_error(two), ": jobs[1].placement.0: job does not fit: 14 GPUs requested, 12 free in pod 0");
}

TEST(WorkloadSpec, RejectsJobsAcrossOxcGroups) {
  const std::string two_groups = replace(replace(kPlatform, "oxcs: 1", "oxcs: 2"), "pods_per_group: 8",
                                         "pods_per_group: 4");
  EXPECT_EQ(workload_error(replace(kWorkload, "{0: 4, 1: 4}", "{0: 4, 5: 4}"), two_groups.c_str()),
            ": jobs[0].placement.5: pod 5 is in OXC group 1 but the job's other pods are in group 0; a job must stay "
            "inside one OXC group");
}

TEST(WorkloadSpec, RejectsBadGeneratorLists) {
  EXPECT_EQ(workload_error("generator: {jobs: 5, models: [1B, 70B]}\n"),
            ": generator.models[1]: unknown model '70B' (expected 1B, 3B, 8B or 90B: TDM-4's Table III); did you "
            "mean '90B'?");
  EXPECT_EQ(workload_error("generator: {jobs: 5, types: []}\n"), ": generator.types: must be a non-empty list");
  EXPECT_EQ(workload_error("generator: {jobs: 5, types: [ps, [rar]]}\n"), ": generator.types[1]: must be a string");
  EXPECT_EQ(workload_error("generator: {jobs: 5, degree: [4, 2]}\n"), ": generator.degree: needs min <= max");
}

TEST(WorkloadSpec, RejectsMissingOrDoubleJobSources) {
  EXPECT_EQ(workload_error("training: {K: 8}\n").rfind(": training.K: unknown key", 0), 0u);
  EXPECT_EQ(workload_error("training: {efficiency: 0.4}\n"),
            ": jobs: give exactly one of jobs (explicit list) and generator");
}
