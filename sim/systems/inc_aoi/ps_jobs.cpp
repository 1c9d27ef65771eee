#include "systems/inc_aoi/ps_jobs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>

#include "core/error.hpp"
#include "core/limits.hpp"
#include "core/text.hpp"
#include "core/rng.hpp"

namespace odcn::workload {

std::vector<std::pair<int, int>> PsJob::workers_per_rack() const {
  std::map<int, int> count;
  for (int r : rack_of_rank) ++count[r];
  return {count.begin(), count.end()};
}

PsLegs ps_legs(const std::vector<int>& group, int root, Bytes bytes, const std::vector<int>& rack_of_rank,
               const std::vector<int>& server_of_rank, bool inc, const spec::PsAt& at) {
  using spec::PsServer;
  PsLegs legs;
  const auto at_rank = [](const std::vector<int>& v, int rank) { return v[static_cast<std::size_t>(rank)]; };
  const int root_rank = group[static_cast<std::size_t>(root)];
  const int r0 = at_rank(rack_of_rank, root_rank);
  std::map<int, std::vector<int>> by_rack;  // rack -> the group's ranks there
  for (int rank : group) by_rack[at_rank(rack_of_rank, rank)].push_back(rank);
  const double w = static_cast<double>(group.size()), r = static_cast<double>(by_rack.size());
  const auto nic = [&](int rack, int copies, Bytes b) {
    if (copies > 0 && b > 0) legs.nics.push_back({rack, copies, b});
  };
  const auto between = [&](int from, int to, Bytes b) {
    if (from != to && b > 0) legs.racks.push_back({from, to, b});
  };
  const auto count = [](const std::vector<int>& ranks) { return static_cast<int>(ranks.size()); };
  const PsServer mode = inc ? PsServer::colocated : at.mode;
  if (inc) {  // every worker streams S to its ToR; each rack's ToR sends one partial sum to the root's
    for (const auto& [rack, ranks] : by_rack) nic(rack, count(ranks), bytes);
    for (const auto& [rack, ranks] : by_rack) between(rack, r0, bytes);
  } else if (mode == PsServer::colocated) {
    const int ps_server = at_rank(server_of_rank, root_rank);
    int to_ps = 0;
    for (const auto& [rack, ranks] : by_rack) {
      const auto off = static_cast<int>(std::count_if(ranks.begin(), ranks.end(), [&](int k) {
        return at_rank(server_of_rank, k) != ps_server;
      }));
      nic(rack, off, bytes);
      to_ps += off;
    }
    nic(r0, 1, to_ps * bytes);
    for (const auto& [rack, ranks] : by_rack) between(rack, r0, count(ranks) * bytes);
  } else if (mode == PsServer::dedicated) {
    for (const auto& [rack, ranks] : by_rack) nic(rack, count(ranks), bytes);
    nic(at.rack, 1, w * bytes);
    for (const auto& [rack, ranks] : by_rack) between(rack, at.rack, count(ranks) * bytes);
  } else {  // sharded: a shard of S/R on the first rank's server of each rack
    for (const auto& [rack, ranks] : by_rack) {
      nic(rack, count(ranks) - 1, bytes);
      nic(rack, 1, (r - 1) / r * bytes);  // the shard's host sends to the other shards
      nic(rack, 1, (w - 1) / r * bytes);  // the shard receives from every other worker
    }
    for (const auto& [from, ranks] : by_rack)
      for (const auto& [to, unused] : by_rack) between(from, to, count(ranks) * bytes / r);
  }
  return legs;
}

std::vector<int> servers_of(const PsJob& j) {
  std::vector<int> all = j.server_of_rank;
  if (j.ps.mode == spec::PsServer::dedicated && j.ps.server >= 0) all.push_back(j.ps.server);
  return all;
}

PsLegs job_legs(const PsJob& j, bool inc) {
  std::vector<int> all(static_cast<std::size_t>(j.workers()));
  std::iota(all.begin(), all.end(), 0);
  return ps_legs(all, 0, j.push_bytes, j.rack_of_rank, j.server_of_rank, inc, j.ps);
}

Bytes inter_rack_bytes(const PsJob& j, bool inc) {
  Bytes total = 0;
  for (const auto& leg : job_legs(j, inc).racks) total += leg.bytes;
  return total;
}

Bytes busiest_nic_bytes(const PsJob& j, bool inc) {
  Bytes most = j.push_bytes;
  for (const auto& leg : job_legs(j, inc).nics) most = std::max(most, leg.bytes);
  return most;
}

JobGraph ps_job_graph(const PsJob& j) {
  JobGraph g;
  g.name = j.name;
  g.ranks = j.workers();
  g.iterations = j.iterations;
  g.arrival_s = j.arrival_s;
  std::vector<int> all(static_cast<std::size_t>(g.ranks));
  std::iota(all.begin(), all.end(), 0);
  const Task compute = compute_task("compute", kAllRanks, j.compute_s);
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
    const std::string field = fmt::format("ps_jobs.jobs[{}].ps", i);
    if (w.ps_server != spec::PsServer::dedicated) {
      if (j.ps)
        throw InputError(w.file, field, fmt::format("a server of its own for the parameter server is for ps_server: "
                                                    "dedicated (this workload's is {})", spec::to_string(w.ps_server)));
      continue;
    }
    if (!j.ps)
      throw InputError(w.file, field, "ps_server is dedicated: give each job's parameter server as ps: [rack, server]");
    const auto [rack, server] = *j.ps;
    if (rack >= p.pods || server >= p.servers_per_pod)
      throw InputError(w.file, field, fmt::format("[{}, {}] does not exist ({} has {} racks of {} servers)", rack,
                                                  server, p.file, p.pods, p.servers_per_pod));
    if (seen.count(*j.ps)) throw InputError(w.file, field, "the parameter server's server also runs a worker");
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
    for (int s : chosen) {
      j.server_of_rank.push_back(s);
      j.rack_of_rank.push_back(s / p_.servers_per_pod);
    }
    if (j.ps.mode == spec::PsServer::dedicated) place_ps(j, free, per_rack);
    Seconds start = t;
    for (int s : servers_of(j)) start = std::max(start, free_at_[static_cast<std::size_t>(s)]);
    const Seconds alone = j.iterations * (j.compute_s + 2 * j.push_bytes / p_.server_bytes_per_s);
    for (int s : servers_of(j)) free_at_[static_cast<std::size_t>(s)] = start + alone;
  }

 private:
  /// ps_server dedicated: a free server in a random rack the job's workers do not use (the one that frees up
  /// first when none is free).
  void place_ps(PsJob& j, const std::vector<std::vector<int>>& free, const std::map<int, int>& worker_racks) {
    std::vector<int> racks;
    for (int r = 0; r < p_.pods; ++r)
      if (!worker_racks.count(r) && !free[static_cast<std::size_t>(r)].empty()) racks.push_back(r);
    int server = -1;
    if (!racks.empty()) {
      const int r = racks[static_cast<std::size_t>(rng_.uniform_int(0, static_cast<std::int64_t>(racks.size()) - 1))];
      server = free[static_cast<std::size_t>(r)].front();
    } else {
      for (int s = 0; s < static_cast<int>(free_at_.size()); ++s)
        if (!worker_racks.count(s / p_.servers_per_pod) &&
            (server < 0 || free_at_[static_cast<std::size_t>(s)] < free_at_[static_cast<std::size_t>(server)]))
          server = s;
    }
    for (int s = 0; server < 0 && s < static_cast<int>(free_at_.size()); ++s)  // every rack holds workers
      if (std::find(j.server_of_rank.begin(), j.server_of_rank.end(), s) == j.server_of_rank.end()) server = s;
    if (server < 0)
      throw InputError(p_.file, "pods", fmt::format("job {} fills every server: no server is left for its dedicated "
                                                    "parameter server", j.name));
    j.ps.server = server;
    j.ps.rack = server / p_.servers_per_pod;
  }

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
      j.ps.mode = w.ps_server;
      if (s.ps) j.ps = {w.ps_server, s.ps->first * p.servers_per_pod + s.ps->second, s.ps->first};
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
    j.ps.mode = w.ps_server;
    service.place(j, workers);
    jobs.push_back(std::move(j));
  }
  return jobs;
}

void check_slots(const std::vector<PsJob>& jobs, Seconds slot_s, const std::string& file, const std::string& field) {
  const PsJob* longest = nullptr;
  double end_s = 0;
  for (const auto& j : jobs)
    if (const double e = j.arrival_s + j.iterations * j.compute_s; e > end_s) {
      end_s = e;
      longest = &j;
    }
  if (longest && end_s / slot_s > static_cast<double>(limits::kMaxIncSlots))
    throw InputError(file, field,
                     fmt::format("job {} ends no earlier than {:g} s (arrival + iterations x compute), at least {:.0f} "
                                 "slots of {:g} s, above the limit of {} slots (see docs/limits.md)",
                                 escape_line(longest->name), end_s, std::ceil(end_s / slot_s), slot_s,
                                 limits::kMaxIncSlots));
}

}  // namespace odcn::workload
