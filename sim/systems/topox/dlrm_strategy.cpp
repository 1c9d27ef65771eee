#include "systems/topox/dlrm_strategy.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace odcn::workload {

DlrmMeasurements dlrm_measurements(const std::string& preset) {
  DlrmMeasurements m;
  if (preset == "table2-2") {
    // measures/dlrm16.json: batch 16,384 over 16 servers of 4 A100s ("2-1-k": the batch split over k servers).
    m.source = "FlexNet measures/dlrm16.json (A100, 16 servers, batch 16384)";
    m.bottom = {{1, 0.924467, 1.89051}, {2, 0.489472, 0.972493}, {4, 0.281293, 0.522957},
                {8, 0.163738, 0.287846}, {16, 0.109363, 0.253542}};  // Dense_1024_1024
    m.concat = {{1, 0.20009, 0.25385}, {2, 0.128512, 0.156467}, {4, 0.0932864, 0.106496},
                {8, 0.0615424, 0.0648192}, {16, 0.054784, 0.055296}};  // Concat_1
    m.top_first = {{1, 4.72648, 9.23924}, {2, 2.36298, 4.65265}, {4, 1.18077, 2.35008},
                   {8, 0.603546, 1.21989}, {16, 0.326144, 0.619315}};  // Dense_5120_2048
    m.top_middle = {{1, 1.97663, 3.85372}, {2, 1.01161, 1.98021}, {4, 0.502989, 1.01233},
                    {8, 0.262246, 0.538317}, {16, 0.150835, 0.281395}};  // Dense_2048_2048
    m.top_last = {{1, 0.02816, 0.102093}, {2, 0.0169984, 0.0519168}, {4, 0.021504, 0.0520192},
                  {8, 0.0140288, 0.042496}, {16, 0.0137216, 0.0433152}};  // Dense_2048_1
    m.embedding = {1, 1.613, 3.226};  // Embed_10000000x256
    return m;
  }
  if (preset == "table2-1") {
    // measures/dlrm128.json: batch 65,536 over 128 servers of 4 A100s.
    m.source = "FlexNet measures/dlrm128.json (A100, 128 servers, batch 65536)";
    m.bottom = {{1, 7.66331, 14.9864},  {2, 3.83642, 7.50295},  {4, 3.70473, 4.76662},   {8, 1.84412, 3.57652},
                {16, 1.01519, 1.8007},  {32, 0.478822, 0.94167}, {64, 0.272896, 0.509235}, {128, 0.193536, 0.296346}};
    m.concat = {{1, 1.62109, 1.8646},    {2, 0.933171, 1.05667}, {4, 0.584294, 0.651776}, {8, 0.406118, 0.440832},
                {16, 0.323994, 0.33751}, {32, 0.270131, 0.284877}, {64, 0.229069, 0.225792},
                {128, 0.226202, 0.226406}};
    m.top_first = {{1, 73.6468, 146.103},  {2, 36.8247, 74.4173},  {4, 18.3764, 37.1814},  {8, 9.70353, 18.708},
                   {16, 4.89882, 9.25635}, {32, 2.64765, 4.69842}, {64, 1.21068, 2.37414}, {128, 0.614707, 1.21088}};
    m.top_middle = {{1, 30.0129, 58.5755},  {2, 14.9405, 30.1231},  {4, 7.48186, 15.0578},
                    {8, 4.05709, 7.51329},  {16, 1.98195, 3.75951}, {32, 1.09578, 1.90106},
                    {64, 0.495923, 0.971264}, {128, 0.269824, 0.521523}};
    m.top_last = {{1, 0.209408, 0.654848},   {2, 0.114381, 0.339763},   {4, 0.0635904, 0.180634},
                  {8, 0.0283648, 0.0968704}, {16, 0.0207872, 0.0482304}, {32, 0.020992, 0.0311296},
                  {64, 0.0150528, 0.050688}, {128, 0.0151552, 0.040448}};
    m.embedding = {1, 4.30858, 8.61716};  // Embed_10000000x128
    return m;
  }
  throw std::invalid_argument(fmt::format("no measured table for preset '{}' (table2-1 or table2-2)", preset));
}

std::vector<int> dlrm_group(int servers, const DlrmPlacement& p) {
  std::vector<int> g;
  for (int i = 0; i < p.degree; ++i) g.push_back(p.first + i * (servers / p.degree));
  return g;
}

DlrmStrategy dlrm_hybrid_strategy(const DlrmConfig& c) {
  DlrmStrategy s;
  s.dense.assign(static_cast<std::size_t>(c.bottom_layers + c.top_layers), DlrmPlacement{c.servers, 0});
  s.concat = {c.servers, 0};
  for (int t = 0; t < c.tables; ++t) s.table_server.push_back(dlrm_table_owner(c, t));
  return s;
}

const DlrmOpTimes& dlrm_times_at(const std::vector<DlrmOpTimes>& kind, int degree) {
  for (const auto& t : kind)
    if (t.degree == degree) return t;
  throw std::invalid_argument(fmt::format("degree {} was not measured", degree));
}

const DlrmOpTimes& dlrm_layer_times(const DlrmConfig& c, const DlrmMeasurements& m, int index, int degree) {
  if (index < c.bottom_layers) return dlrm_times_at(m.bottom, degree);
  const int top = index - c.bottom_layers;
  if (top == 0) return dlrm_times_at(m.top_first, degree);
  return dlrm_times_at(top == c.top_layers - 1 ? m.top_last : m.top_middle, degree);
}

void check_dlrm_strategy(const DlrmConfig& c, const DlrmStrategy& s, const DlrmMeasurements& m) {
  const auto layers = dlrm_dense_layers(c);
  if (s.dense.size() != layers.size() || s.table_server.size() != static_cast<std::size_t>(c.tables))
    throw std::invalid_argument(fmt::format("the strategy places {} dense layers and {} tables, the model has {} and {}",
                                            s.dense.size(), s.table_server.size(), layers.size(), c.tables));
  auto check = [&](const DlrmPlacement& p, const std::vector<DlrmOpTimes>& kind, const std::string& what) {
    if (p.degree < 1 || c.servers % p.degree != 0)
      throw std::invalid_argument(fmt::format("{}: degree {} does not divide {} servers", what, p.degree, c.servers));
    dlrm_times_at(kind, p.degree);  // throws when not measured
    if (p.first < 0 || p.first >= c.servers / p.degree)
      throw std::invalid_argument(
          fmt::format("{}: first server {} is not below N / degree = {}", what, p.first, c.servers / p.degree));
  };
  for (std::size_t l = 0; l < layers.size(); ++l) {
    const int i = static_cast<int>(l);
    const auto& kind = i < c.bottom_layers ? m.bottom
                       : i == c.bottom_layers ? m.top_first
                       : i == static_cast<int>(layers.size()) - 1 ? m.top_last
                                                                  : m.top_middle;
    check(s.dense[l], kind, layers[l].name);
  }
  check(s.concat, m.concat, "cat");
  for (int t = 0; t < c.tables; ++t) {
    const int server = s.table_server[static_cast<std::size_t>(t)];
    if (server < 0 || server >= c.servers)
      throw std::invalid_argument(fmt::format("emb.t{}: server {} is not one of 0..{}", t, server, c.servers - 1));
  }
}

std::vector<std::string> describe_dlrm_strategy(const DlrmConfig& c, const DlrmStrategy& s) {
  const auto layers = dlrm_dense_layers(c);
  auto where = [&](const DlrmPlacement& p) {
    if (p.degree == 1) return fmt::format("k = 1 on server {}", p.first);
    if (p.degree == c.servers) return fmt::format("k = {} (every server)", p.degree);
    return fmt::format("k = {} on servers {}, {}, ... (every {})", p.degree, p.first, p.first + c.servers / p.degree,
                       c.servers / p.degree);
  };
  std::vector<std::string> lines;
  auto run_of = [&](std::size_t from, std::size_t to) {  // layers [from, to) share one placement
    const std::string name =
        to - from == 1 ? layers[from].name : fmt::format("{}-{}", layers[from].name, layers[to - 1].name);
    lines.push_back(fmt::format("{:<12} {}", name, where(s.dense[from])));
  };
  const std::size_t bottom = static_cast<std::size_t>(c.bottom_layers);
  for (std::size_t from = 0; from < layers.size();) {
    std::size_t to = from + 1;
    while (to < layers.size() && to != bottom && s.dense[to] == s.dense[from]) ++to;
    if (from == bottom) lines.push_back(fmt::format("{:<12} {}", "cat", where(s.concat)));
    run_of(from, to);
    from = to;
  }
  std::vector<int> held(static_cast<std::size_t>(c.servers), 0);
  for (int server : s.table_server) ++held[static_cast<std::size_t>(server)];
  const auto most = std::max_element(held.begin(), held.end());
  lines.push_back(fmt::format("{:<12} {} tables on {} servers (at most {} on one)", "embeddings", c.tables,
                              c.servers - std::count(held.begin(), held.end(), 0), *most));
  return lines;
}

}  // namespace odcn::workload
