#include "systems/inc_aoi/ps_jobs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>

#include "core/error.hpp"
#include "core/rng.hpp"

namespace odcn::workload {

std::vector<std::pair<int, int>> PsJob::workers_per_rack() const {
  std::map<int, int> count;
  for (int r : rack_of_rank) ++count[r];
  return {count.begin(), count.end()};
}

Bytes inter_rack_bytes(const PsJob& j, bool inc) {
  const auto per_rack = j.workers_per_rack();
  if (inc) return static_cast<double>(per_rack.size() - 1) * j.push_bytes;
  int in_root = 0;
  for (const auto& [rack, n] : per_rack)
    if (rack == j.root_rack()) in_root = n;
  return static_cast<double>(j.workers() - in_root) * j.push_bytes;
}

Bytes busiest_nic_bytes(const PsJob& j, bool inc) {
  return (inc ? 1 : std::max(1, j.workers() - 1)) * j.push_bytes;
}

PsLegs ps_legs(const std::vector<int>& group, int root, Bytes bytes, const std::vector<int>& rack_of_rank,
               const std::vector<int>& server_of_rank, bool inc) {
  PsLegs legs;
  legs.worker_nic_bytes = bytes;
  const int ps = group[static_cast<std::size_t>(root)];
  const int r0 = rack_of_rank[static_cast<std::size_t>(ps)];
  const int ps_server = server_of_rank[static_cast<std::size_t>(ps)];
  std::map<int, int> nics, remote;  // rack -> NICs that carry S; rack != r0 -> workers there
  int to_ps = 0;
  for (int rank : group) {
    const int rack = rack_of_rank[static_cast<std::size_t>(rank)];
    const bool on_ps_server = server_of_rank[static_cast<std::size_t>(rank)] == ps_server;
    if (inc || !on_ps_server) ++nics[rack];  // with INC every worker streams to its ToR
    if (!inc && !on_ps_server) ++to_ps;
    if (rack != r0) ++remote[rack];
  }
  legs.worker_nics.assign(nics.begin(), nics.end());
  legs.ps_nic_bytes = to_ps * bytes;
  for (const auto& [rack, n] : remote) legs.racks.emplace_back(rack, (inc ? 1 : n) * bytes);
  return legs;
}

JobGraph ps_job_graph(const PsJob& j) {
  JobGraph g;
  g.name = j.name;
  g.ranks = j.workers();
  g.iterations = j.iterations;
  g.arrival_s = j.arrival_s;
  std::vector<int> all(static_cast<std::size_t>(g.ranks));
  std::iota(all.begin(), all.end(), 0);
  Task compute;
  compute.name = "compute";
  compute.kind = TaskKind::compute;
  compute.rank = kAllRanks;
  compute.duration_s = j.compute_s;
  Task push;
  push.name = "push";
  push.kind = TaskKind::collective;
  push.op = CollectiveOp::ps_push;
  push.algorithm = CollectiveAlgorithm::direct;
  push.group = all;
  push.root = 0;
  push.bytes = j.push_bytes;
  push.deps = {kPsCompute};
  Task pull = push;
  pull.name = "pull";
  pull.op = CollectiveOp::ps_pull;
  pull.deps = {kPsPush};
  g.tasks = {compute, push, pull};
  return g;
}

namespace {

void check_explicit(const spec::PsWorkloadSpec& w, const spec::PlatformSpec& p) {
  for (std::size_t i = 0; i < w.jobs.size(); ++i) {
    const auto& j = w.jobs[i];
    std::set<std::pair<int, int>> seen;
    for (std::size_t r = 0; r < j.servers.size(); ++r) {
      const std::string field = fmt::format("ps_jobs.jobs[{}].servers[{}]", i, r);
      const auto [rack, server] = j.servers[r];
      if (rack >= p.pods)
        throw InputError(w.file, field, fmt::format("rack {} does not exist ({} has {} pods)", rack, p.file, p.pods));
      if (server >= p.servers_per_pod)
        throw InputError(w.file, field,
                         fmt::format("server {} does not exist (a rack of {} has {} servers)", server, p.file,
                                     p.servers_per_pod));
      if (!seen.insert(j.servers[r]).second)
        throw InputError(w.file, field, "two workers of a job on one server (each worker has its own server)");
    }
  }
}

/// INC-AOI §IV: "the workers were randomly placed ..., but we attempted to co-locate the workers of each job in
/// the same rack". The service layer places jobs in arrival order; it deems a server busy until the end it
/// estimates for the job there (alone, with INC: iterations × (compute + 2·S/b)), so the placement is the same
/// under every policy.
class ServiceLayer {
 public:
  ServiceLayer(const spec::PlatformSpec& p, Rng& rng)
      : p_(p), rng_(rng), free_at_(static_cast<std::size_t>(p.pods) * p.servers_per_pod, 0.0) {}

  void place(PsJob& j, int workers) {
    const Seconds t = j.arrival_s;
    std::vector<std::vector<int>> free(static_cast<std::size_t>(p_.pods));
    for (int s = 0; s < static_cast<int>(free_at_.size()); ++s)
      if (free_at_[static_cast<std::size_t>(s)] <= t) free[static_cast<std::size_t>(s / p_.servers_per_pod)].push_back(s);
    std::vector<int> chosen;
    std::vector<int> fits;
    for (int r = 0; r < p_.pods; ++r)
      if (static_cast<int>(free[static_cast<std::size_t>(r)].size()) >= workers) fits.push_back(r);
    if (!fits.empty()) {  // co-located: a random rack with room for every worker
      const int r = fits[static_cast<std::size_t>(rng_.uniform_int(0, static_cast<std::int64_t>(fits.size()) - 1))];
      chosen.assign(free[static_cast<std::size_t>(r)].begin(), free[static_cast<std::size_t>(r)].begin() + workers);
    } else {
      // Spread over the fewest racks: the racks with most free servers first (ties in a random order).
      std::vector<int> racks(static_cast<std::size_t>(p_.pods));
      std::iota(racks.begin(), racks.end(), 0);
      for (std::size_t i = racks.size(); i > 1; --i)
        std::swap(racks[i - 1], racks[static_cast<std::size_t>(rng_.uniform_int(0, static_cast<std::int64_t>(i) - 1))]);
      std::stable_sort(racks.begin(), racks.end(), [&](int a, int b) {
        return free[static_cast<std::size_t>(a)].size() > free[static_cast<std::size_t>(b)].size();
      });
      for (int r : racks)
        for (int s : free[static_cast<std::size_t>(r)])
          if (static_cast<int>(chosen.size()) < workers) chosen.push_back(s);
      if (static_cast<int>(chosen.size()) < workers) {
        // The cluster is full: the servers that free up first (the job waits for them to be admitted).
        std::vector<int> busy;
        for (int s = 0; s < static_cast<int>(free_at_.size()); ++s)
          if (free_at_[static_cast<std::size_t>(s)] > t) busy.push_back(s);
        std::stable_sort(busy.begin(), busy.end(), [&](int a, int b) {
          return free_at_[static_cast<std::size_t>(a)] < free_at_[static_cast<std::size_t>(b)];
        });
        for (int s : busy)
          if (static_cast<int>(chosen.size()) < workers) chosen.push_back(s);
      }
    }
    // Rank 0 (the PS, the INC root) in the rack that holds most of the job's workers (the lowest such rack).
    std::map<int, int> per_rack;
    for (int s : chosen) ++per_rack[s / p_.servers_per_pod];
    int root = per_rack.begin()->first;
    for (const auto& [r, n] : per_rack)
      if (n > per_rack[root]) root = r;
    std::stable_partition(chosen.begin(), chosen.end(), [&](int s) { return s / p_.servers_per_pod == root; });
    Seconds start = t;
    for (int s : chosen) start = std::max(start, free_at_[static_cast<std::size_t>(s)]);
    const Seconds alone = j.iterations * (j.compute_s + 2 * j.push_bytes / p_.server_bytes_per_s);
    for (int s : chosen) {
      free_at_[static_cast<std::size_t>(s)] = start + alone;
      j.server_of_rank.push_back(s);
      j.rack_of_rank.push_back(s / p_.servers_per_pod);
    }
  }

 private:
  const spec::PlatformSpec& p_;
  Rng& rng_;
  std::vector<Seconds> free_at_;
};

int draw_workers(const std::map<int, double>& weights, Rng& rng) {
  double total = 0;
  for (const auto& [n, w] : weights) total += w;
  double x = rng.uniform01() * total;
  for (const auto& [n, w] : weights) {
    if (x < w) return n;
    x -= w;
  }
  for (auto it = weights.rbegin(); it != weights.rend(); ++it)
    if (it->second > 0) return it->first;
  return weights.rbegin()->first;
}

}  // namespace

std::vector<PsJob> make_ps_jobs(const spec::PsWorkloadSpec& w, const spec::PlatformSpec& p,
                                std::optional<std::uint64_t> seed) {
  if (p.servers_per_pod <= 0)
    throw InputError(p.file, "pods.servers_per_pod",
                     fmt::format("{}'s parameter-server jobs are placed on servers: give the platform's "
                                 "pods.servers_per_pod and pods.server_gbps",
                                 w.file));
  std::vector<PsJob> jobs;
  if (!w.generator) {
    check_explicit(w, p);
    for (std::size_t i = 0; i < w.jobs.size(); ++i) {
      const auto& s = w.jobs[i];
      PsJob j;
      j.id = static_cast<int>(i);
      j.name = s.name;
      j.model = s.model;
      j.arrival_s = s.arrival_s;
      j.push_bytes = s.push_bytes;
      j.compute_s = s.compute_s;
      j.iterations = s.iterations;
      for (const auto& [rack, server] : s.servers) {
        j.rack_of_rank.push_back(rack);
        j.server_of_rank.push_back(rack * p.servers_per_pod + server);
      }
      jobs.push_back(std::move(j));
    }
    return jobs;
  }
  const auto& g = *w.generator;
  const int largest = g.workers.rbegin()->first;
  if (static_cast<std::int64_t>(largest) > static_cast<std::int64_t>(p.pods) * p.servers_per_pod)
    throw InputError(w.file, "ps_jobs.generator.workers",
                     fmt::format("a job of {} workers does not fit {} ({} servers)", largest, p.file,
                                 static_cast<std::int64_t>(p.pods) * p.servers_per_pod));
  Rng rng(seed.value_or(g.seed));
  ServiceLayer service(p, rng);
  Seconds t = 0;
  for (int i = 0; i < g.jobs; ++i) {
    PsJob j;
    j.id = i;
    t += -std::log1p(-rng.uniform01()) / g.arrivals_per_s;  // Poisson arrivals: exponential gaps
    j.arrival_s = t;
    const int workers = draw_workers(g.workers, rng);
    const auto& m = g.models[static_cast<std::size_t>(rng.uniform_int(0, static_cast<std::int64_t>(g.models.size()) - 1))];
    j.model = m.name;
    j.name = fmt::format("{}-{}", m.name, i);
    j.push_bytes = m.push_bytes;
    j.compute_s = m.compute_s;
    j.iterations = g.iterations;
    service.place(j, workers);
    jobs.push_back(std::move(j));
  }
  return jobs;
}

}  // namespace odcn::workload
