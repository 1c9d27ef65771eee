// Closed-form oracles for the SimGrid engine, each to 1e-9 relative. Every TEST runs in its own process.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "engine/simulation.hpp"
#include "support/fabrics.hpp"

using namespace odcn;
using Kind = engine::ScriptTransfer::Kind;

namespace {

const double B = 150e9 / 8;     // bytes/s of one circuit
const double Btor = 600e9 / 8;  // bytes/s of a ToR <-> server link
const double delta = 200e-6;

void expect_rel(double measured, double expected) {
  EXPECT_NEAR(measured, expected, 1e-9 * expected) << "relative error " << (measured - expected) / expected;
}

net::CircuitConfig with(const net::Fabric& f, std::initializer_list<std::tuple<int, int, int>> circuits) {
  auto c = f.empty_config();
  for (const auto& [a, b, l] : circuits) c.circuits[static_cast<std::size_t>(f.pair_index(a, b))] = l;
  return c;
}

}  // namespace

TEST(Oracle, OneTransferTakesSizeOverBandwidth) {
  const net::Fabric f(test::small_platform());
  const double S = 7.3e9;
  const auto r = engine::run_script(f, with(f, {{0, 1, 1}}), {{0.0, Kind::circuit, 0, 1, S}}, {});
  expect_rel(r.finish_s[0], S / B);
}

TEST(Oracle, TwoCircuitsDoubleTheRate) {
  const net::Fabric f(test::small_platform());
  const double S = 5e9;
  const auto r = engine::run_script(f, with(f, {{2, 5, 2}}), {{0.0, Kind::circuit, 5, 2, S}}, {});
  expect_rel(r.finish_s[0], S / (2 * B));
}

TEST(Oracle, OppositeFlowsShareOneHalfDuplexCircuit) {
  const net::Fabric f(test::small_platform());
  const double S1 = 1e9, S2 = 3e9;
  const auto r = engine::run_script(f, with(f, {{0, 1, 1}}),
                                    {{0.0, Kind::circuit, 0, 1, S1}, {0.0, Kind::circuit, 1, 0, S2}}, {});
  // Both get B/2 until S1 is done (2·S1/B); then S2's remaining S2−S1 runs at B.
  expect_rel(r.finish_s[0], 2 * S1 / B);
  expect_rel(r.finish_s[1], (S1 + S2) / B);
}

TEST(Oracle, MaxMinSharingAtTorBottleneck) {
  const net::Fabric f(test::small_platform());
  const double S1 = 1e9, S2 = 3e9, S3 = 2e9;
  // Three transfers cross pod 0's ToR link: max-min gives each Btor/3 until the smallest ends, and so on.
  // A circuit transfer from the same pod is not on that link and is unaffected.
  const auto r = engine::run_script(f, with(f, {{0, 1, 1}}),
                                    {{0.0, Kind::tor, 0, 0, S1},
                                     {0.0, Kind::tor, 0, 0, S2},
                                     {0.0, Kind::tor, 0, 0, S3},
                                     {0.0, Kind::circuit, 0, 1, S1}},
                                    {});
  const double t1 = 3 * S1 / Btor;
  const double t3 = t1 + 2 * (S3 - S1) / Btor;
  expect_rel(r.finish_s[0], t1);
  expect_rel(r.finish_s[2], t3);
  expect_rel(r.finish_s[1], t3 + (S2 - S3) / Btor);
  expect_rel(r.finish_s[3], S1 / B);
}

TEST(Oracle, ReconfigurationStallsOnlyChangedCircuitsForDelta) {
  const net::Fabric f(test::small_platform(8, 4, 150, 600, delta * 1e6));
  const double S = 2e9, x = 0.01;
  // At x: pair {0,1} goes from 1 to 2 circuits (one kept lit, one dark for δ); pair {2,3} is untouched; pair
  // {4,6} is new (dark for δ, then lit) and a transfer starts on it at x.
  const auto r = engine::run_script(
      f, with(f, {{0, 1, 1}, {2, 3, 1}}),
      {{0.0, Kind::circuit, 0, 1, S}, {0.0, Kind::circuit, 2, 3, S}, {x, Kind::circuit, 4, 6, S}},
      {{x, with(f, {{0, 1, 2}, {2, 3, 1}, {4, 6, 1}})}});
  expect_rel(r.finish_s[0], x + delta + (S - B * (x + delta)) / (2 * B));
  expect_rel(r.finish_s[1], S / B);                              // unchanged circuit: no stall at all
  expect_rel(r.finish_s[2], x + delta + (S - 1.0 * delta) / B);  // dark (1 B/s) for exactly δ
  EXPECT_EQ(r.record.reconfigurations, 1);
  EXPECT_EQ(r.record.circuits_changed, 2);
  int rows_at_x = 0;
  for (const auto& c : r.record.circuits)
    if (c.time_s == x) {
      ++rows_at_x;
      EXPECT_TRUE((c.pod_a == 0 && c.pod_b == 1 && c.old_circuits == 1 && c.new_circuits == 2) ||
                  (c.pod_a == 4 && c.pod_b == 6 && c.old_circuits == 0 && c.new_circuits == 1));
    }
  EXPECT_EQ(rows_at_x, 2);
}

TEST(Oracle, CapacityIncreaseMidTransferSpeedsItUp) {
  const net::Fabric f(test::small_platform(8, 4, 150, 600, delta * 1e6));
  const double S = 4e9, x = 0.05;
  const auto r = engine::run_script(f, with(f, {{3, 7, 1}}), {{0.0, Kind::circuit, 7, 3, S}},
                                    {{x, with(f, {{3, 7, 3}})}});
  expect_rel(r.finish_s[0], x + delta + (S - B * (x + delta)) / (3 * B));
}

TEST(Oracle, RemovedCircuitsSlowTheTransferAtOnce) {
  const net::Fabric f(test::small_platform(8, 4, 150, 600, delta * 1e6));
  const double S = 4e9, x = 0.05;
  const auto r = engine::run_script(f, with(f, {{3, 7, 2}}), {{0.0, Kind::circuit, 3, 7, S}},
                                    {{x, with(f, {{3, 7, 1}})}});
  expect_rel(r.finish_s[0], x + (S - 2 * B * x) / B);
}

TEST(Oracle, PortBudgetOverflowIsRejected) {
  const net::Fabric f(test::small_platform(8, 2));
  EXPECT_THROW(engine::run_script(f, with(f, {{0, 1, 2}, {0, 2, 1}}), {}, {}), ConfigError);
}
