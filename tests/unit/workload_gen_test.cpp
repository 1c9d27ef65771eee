// The TDM-4 §IV.A generator and §IV.B deployment.
#include <gtest/gtest.h>

#include <set>

#include "support/fabrics.hpp"
#include "systems/tdm4/deployment.hpp"
#include "systems/tdm4/generator.hpp"

using namespace odcn;

namespace {
spec::GeneratorSpec gen(int n, std::uint64_t seed) {
  spec::GeneratorSpec g;
  g.jobs = n;
  g.seed = seed;
  g.models = spec::table3_models();
  g.types = {spec::JobType::ps, spec::JobType::rar, spec::JobType::alltoall};
  g.gpus_per_unit = {{"1B", 1}, {"3B", 1}, {"8B", 2}, {"90B", 8}};
  return g;
}
}  // namespace

TEST(Generator, SameSeedSameJobsAndDrawsCoverTheRanges) {
  const auto a = workload::generate_jobs(gen(600, 3));
  const auto b = workload::generate_jobs(gen(600, 3));
  const auto c = workload::generate_jobs(gen(600, 4));
  std::set<int> degrees;
  std::set<std::string> models;
  std::set<int> types;
  int differ = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].spec.name, b[i].spec.name);
    EXPECT_EQ(a[i].units, b[i].units);
    differ += a[i].spec.name != c[i].spec.name;
    EXPECT_GE(a[i].units, 2);
    EXPECT_LE(a[i].units, 16);
    degrees.insert(a[i].units);
    models.insert(a[i].spec.model);
    types.insert(static_cast<int>(a[i].spec.type));
    EXPECT_DOUBLE_EQ(a[i].spec.params_gb, spec::table3_params_gb(a[i].spec.model));
  }
  EXPECT_EQ(degrees.size(), 15u);
  EXPECT_EQ(models.size(), 4u);
  EXPECT_EQ(types.size(), 3u);
  EXPECT_GT(differ, 500);
}

TEST(Deployment, JobsStayInOneGroupAndFit) {
  const net::Fabric fabric(test::small_platform(8, 16, 150, 2400, 500, 4));
  const auto d = workload::deploy(workload::generate_jobs(gen(60, 9)), spec::TrainingParams{}, fabric, "gen");
  std::vector<int> used(static_cast<std::size_t>(fabric.pods()), 0);
  std::vector<int> per_group(4, 0);
  for (const auto& j : d.jobs) {
    for (const auto& [pod, g] : j.placement) {
      EXPECT_EQ(fabric.group_of(pod), j.group);
      EXPECT_EQ(g % j.gpus_per_unit, 0) << "units are never split across pods";
      used[static_cast<std::size_t>(pod)] += g;
    }
    per_group[static_cast<std::size_t>(j.group)]++;
  }
  for (int u : used) EXPECT_LE(u, 64);
  EXPECT_EQ(d.jobs.size() + d.unplaced.size(), 60u);
  for (int n : per_group) EXPECT_GT(n, 0) << "least-traffic group first spreads jobs over every group";
}

TEST(Deployment, ReportsJobsThatFitNowhere) {
  const net::Fabric fabric(test::small_platform(2, 1, 150, 150, 500, 1));  // 2 pods x 64 GPUs
  const auto d = workload::deploy(workload::generate_jobs(gen(40, 2)), spec::TrainingParams{}, fabric, "gen");
  EXPECT_FALSE(d.unplaced.empty());
  EXPECT_EQ(d.jobs.size() + d.unplaced.size(), 40u);
  EXPECT_NE(d.unplaced[0].find("no OXC pod group has room"), std::string::npos);
}
