#include "traces/rank_trace.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <tuple>

#include "core/error.hpp"
#include "core/limits.hpp"
#include "core/text.hpp"

namespace odcn::workload {

namespace {

using Kind = RankEvent::Kind;

// A collective's identity across ranks: its group (name and members) and its order within that group.
struct CollectiveKey {
  std::string group_name;
  std::vector<int> group;
  int order = 0;
  bool operator<(const CollectiveKey& o) const {
    return std::tie(group_name, group, order) < std::tie(o.group_name, o.group, o.order);
  }
};

struct Pending {
  int task = 0;
  std::vector<int> joined;  // ranks that have joined, in the order they were read
  const RankTrace* first = nullptr;
  const RankEvent* event = nullptr;
};

std::string group_text(const RankEvent& e) {
  return e.group_name.empty() ? fmt::format("[{}]", ranks_text(e.group))
                              : fmt::format("'{}' [{}]", shown(e.group_name), ranks_text(e.group));
}

/// A group as a task name shows it: its name and members without commas ("'tp0' [0 1 2 3]"), and for groups of
/// more than 8 ranks their first and last member and their size.
std::string group_label(const RankEvent& e) {
  const std::string members =
      e.group.size() <= 8 ? fmt::format("[{}]", fmt::join(e.group, " "))
                          : fmt::format("[{} {} .. {}; {} ranks]", e.group[0], e.group[1], e.group.back(), e.group.size());
  return e.group_name.empty() ? members : fmt::format("'{}' {}", e.group_name, members);
}

/// Makes every task name a job-graph id (spec::checked_name): the characters that ids refuse (commas, double
/// quotes, control characters) and bytes that are not UTF-8 become '_', names are cut to kMaxJobNameBytes at a
/// character boundary, and a name already taken gets " ~2", " ~3", ... So an imported graph written with
/// job_graph_json reads back.
void make_names_ids(JobGraph& g) {
  std::set<std::string> taken;
  const std::size_t max = static_cast<std::size_t>(limits::kMaxJobNameBytes) - 8;  // room for " ~NNNNNN"
  for (Task& t : g.tasks) {
    std::string clean = name_part(t.name, max);
    if (clean.empty()) clean = "task";
    std::string name = clean;
    for (int k = 2; !taken.insert(name).second; ++k) name = fmt::format("{} ~{}", clean, k);
    t.name = std::move(name);
  }
}

std::string what(const RankEvent& e) {
  if (e.kind == RankEvent::Kind::barrier) return e.relay_only ? "a relay-only barrier" : "a barrier";
  return fmt::format("{} of {} B", to_string(e.op), e.bytes);
}

/// Removes the relay-only barriers: in topological order, each stands for the other tasks it depends on.
void leave_out_relays(JobGraph& g, const std::set<int>& relays, const std::string& file) {
  std::vector<std::vector<int>> resolved(g.tasks.size());
  for (int i : topological_order(g, file)) {
    std::vector<int> deps;
    for (int d : g.tasks[static_cast<std::size_t>(i)].deps) {
      if (relays.count(d)) {
        const auto& r = resolved[static_cast<std::size_t>(d)];
        deps.insert(deps.end(), r.begin(), r.end());
      } else {
        deps.push_back(d);
      }
    }
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    resolved[static_cast<std::size_t>(i)] = std::move(deps);
  }
  std::vector<int> new_index(g.tasks.size(), -1);
  std::vector<Task> kept;
  for (std::size_t i = 0; i < g.tasks.size(); ++i)
    if (!relays.count(static_cast<int>(i))) {
      new_index[i] = static_cast<int>(kept.size());
      kept.push_back(std::move(g.tasks[i]));
      kept.back().deps = std::move(resolved[i]);
    }
  for (Task& t : kept)
    for (int& d : t.deps) d = new_index[static_cast<std::size_t>(d)];
  g.tasks = std::move(kept);
  if (g.tasks.empty()) throw InputError(file, "(file)", "holds nothing but dependency-only barriers");
}

}  // namespace

JobGraph assemble_job_graph(const std::vector<RankTrace>& traces, const AssembleOptions& options) {
  const std::string whole = traces.empty() ? std::string("(traces)") : traces.front().file;
  if (options.ranks < 1) throw InputError(whole, "ranks", "must be > 0");
  // Every rank exactly once.
  std::vector<const RankTrace*> by_rank(static_cast<std::size_t>(options.ranks), nullptr);
  for (const RankTrace& t : traces) {
    if (t.rank < 0 || t.rank >= options.ranks)
      throw InputError(t.file, "rank", fmt::format("{} is not a rank of a {}-rank job", t.rank, options.ranks));
    if (by_rank[static_cast<std::size_t>(t.rank)])
      throw InputError(t.file, "rank", fmt::format("rank {} is also traced by {}", t.rank,
                                                   by_rank[static_cast<std::size_t>(t.rank)]->file));
    by_rank[static_cast<std::size_t>(t.rank)] = &t;
  }
  for (int r = 0; r < options.ranks; ++r)
    if (!by_rank[static_cast<std::size_t>(r)])
      throw InputError(whole, "ranks",
                       fmt::format("no trace for rank {} of {} (give one file per rank; to copy the first file to "
                                   "the ranks without one, as for data parallelism, ask for it: replicate: true or "
                                   "--replicate for Kineto, ranks: N or --ranks N for Chakra)",
                                   r, options.ranks));

  JobGraph g;
  g.name = options.name;
  g.ranks = options.ranks;
  g.iterations = options.iterations;

  std::map<CollectiveKey, Pending> collectives;
  std::set<int> relays;  // tasks of relay-only barriers
  std::map<std::tuple<int, int, int>, Pending> transfers;  // (src, dst, order)
  std::vector<std::vector<int>> task_of(static_cast<std::size_t>(options.ranks));
  long one_rank = 0;  // collective events whose group is their own rank alone

  // Pass 1: create one task per compute event and per matched communication; record which task each event is.
  for (const RankTrace* t : by_rank) {
    std::map<std::pair<std::string, std::vector<int>>, int> seen_in_group;
    std::map<std::pair<int, int>, int> seen_pair;
    auto& mine = task_of[static_cast<std::size_t>(t->rank)];
    mine.reserve(t->events.size());
    for (const RankEvent& e : t->events) {
      const auto barrier = [&](const std::string& name) {
        Task b;
        b.name = name;
        b.kind = TaskKind::barrier;
        g.tasks.push_back(std::move(b));
        return static_cast<int>(g.tasks.size()) - 1;
      };
      switch (e.kind) {
        case Kind::compute: {
          const std::string name = fmt::format("r{}.{} {}", t->rank, mine.size(), e.name);
          if (!(e.duration_s > 0)) {
            mine.push_back(barrier(name));  // keeps the ordering, takes no time
            break;
          }
          Task c;
          c.name = name;
          c.kind = TaskKind::compute;
          c.rank = t->rank;
          c.duration_s = e.duration_s;
          g.tasks.push_back(std::move(c));
          mine.push_back(static_cast<int>(g.tasks.size()) - 1);
          break;
        }
        case Kind::collective:
        case Kind::barrier: {
          const bool sync = e.kind == Kind::barrier;
          if (!std::is_sorted(e.group.begin(), e.group.end()) ||
              std::adjacent_find(e.group.begin(), e.group.end()) != e.group.end())
            throw InputError(t->file, e.field, fmt::format("group {} must list distinct ranks", group_text(e)));
          if (!std::binary_search(e.group.begin(), e.group.end(), t->rank))
            throw InputError(t->file, e.field,
                             fmt::format("rank {} is not a member of its group {}", t->rank, group_text(e)));
          for (int m : e.group)
            if (m < 0 || m >= options.ranks)
              throw InputError(t->file, e.field,
                               fmt::format("group {} names rank {}, beyond the job's {} ranks", group_text(e), m,
                                           options.ranks));
          const int order = seen_in_group[{e.group_name, e.group}]++;
          if (e.group.size() < 2) {  // a collective of one rank moves nothing
            if (!sync) ++one_rank;
            mine.push_back(barrier(fmt::format("r{}.{} {}", t->rank, mine.size(), e.name)));
            if (sync && e.relay_only) relays.insert(mine.back());
            break;
          }
          auto [it, fresh] = collectives.try_emplace(CollectiveKey{e.group_name, e.group, order});
          Pending& p = it->second;
          if (fresh && sync) {
            g.tasks.push_back({});
            g.tasks.back().name = fmt::format("{} barrier #{}", group_label(e), order);
            g.tasks.back().kind = TaskKind::barrier;
            p.task = static_cast<int>(g.tasks.size()) - 1;
            p.first = t;
            p.event = &e;
            if (e.relay_only) relays.insert(p.task);
          } else if (fresh) {
            Task c;
            c.name = fmt::format("{} {} #{}", group_label(e), to_string(e.op), order);
            c.kind = TaskKind::collective;
            c.op = e.op;
            c.bytes = e.bytes;
            c.group = e.group;
            c.root = e.root;
            c.algorithm = e.op == CollectiveOp::all_to_all ? CollectiveAlgorithm::direct : options.algorithm;
            if (!supports(c.op, c.algorithm)) c.algorithm = CollectiveAlgorithm::direct;
            if (!(e.bytes > 0))
              throw InputError(t->file, e.field, "a collective of 0 bytes (importers skip those)");
            g.tasks.push_back(std::move(c));
            p.task = static_cast<int>(g.tasks.size()) - 1;
            p.first = t;
            p.event = &e;
          } else if (sync || p.event->kind == Kind::barrier) {
            if (e.kind != p.event->kind || e.relay_only != p.event->relay_only)
              throw InputError(t->file, e.field,
                               fmt::format("collective #{} of group {} is {} here but {} on rank {} ({}: {})", order,
                                           group_text(e), what(e), what(*p.event), p.first->rank, p.first->file,
                                           p.event->field));
          } else {
            const Task& c = g.tasks[static_cast<std::size_t>(p.task)];
            if (c.op != e.op || c.bytes != e.bytes || c.root != e.root)
              throw InputError(t->file, e.field,
                               fmt::format("collective #{} of group {} is {} of {} B with root {} here but {} of {} "
                                           "B with root {} on rank {} ({}: {})",
                                           order, group_text(e), to_string(e.op), e.bytes, e.root, to_string(c.op),
                                           c.bytes, c.root, p.first->rank, p.first->file, p.event->field));
          }
          p.joined.push_back(t->rank);
          mine.push_back(p.task);
          break;
        }
        case Kind::send:
        case Kind::recv: {
          const bool send = e.kind == Kind::send;
          if (e.peer < 0 || e.peer >= options.ranks || e.peer == t->rank)
            throw InputError(t->file, e.field,
                             fmt::format("{} rank {} is not another rank of the job", send ? "to" : "from", e.peer));
          const int src = send ? t->rank : e.peer, dst = send ? e.peer : t->rank;
          const int order = seen_pair[{send ? 0 : 1, e.peer}]++;
          auto [it, fresh] = transfers.try_emplace(std::make_tuple(src, dst, order));
          Pending& p = it->second;
          if (fresh) {
            if (!(e.bytes > 0)) throw InputError(t->file, e.field, "a message of 0 bytes (importers skip those)");
            Task x;
            x.name = fmt::format("{}->{} #{}", src, dst, order);
            x.kind = TaskKind::transfer;
            x.src = src;
            x.dst = dst;
            x.bytes = e.bytes;
            g.tasks.push_back(std::move(x));
            p.task = static_cast<int>(g.tasks.size()) - 1;
            p.first = t;
            p.event = &e;
          } else if (g.tasks[static_cast<std::size_t>(p.task)].bytes != e.bytes) {
            throw InputError(t->file, e.field,
                             fmt::format("message #{} from rank {} to rank {} is {} B here but {} B on rank {} ({}: {})",
                                         order, src, dst, e.bytes, g.tasks[static_cast<std::size_t>(p.task)].bytes,
                                         p.first->rank, p.first->file, p.event->field));
          }
          p.joined.push_back(t->rank);
          mine.push_back(p.task);
          break;
        }
      }
    }
  }

  // Every member joined every collective; every message was both sent and received.
  for (const auto& [key, p] : collectives) {
    if (p.joined.size() == key.group.size()) continue;
    for (int m : key.group)
      if (std::find(p.joined.begin(), p.joined.end(), m) == p.joined.end())
        throw InputError(p.first->file, p.event->field,
                         fmt::format("rank {} never joins collective #{} of group {} (rank {} does; ranks join a "
                                     "group's collectives in the same order)",
                                     m, key.order, group_text(*p.event), p.first->rank));
  }
  for (const auto& [key, p] : transfers)
    if (p.joined.size() != 2) {
      const auto [src, dst, order] = key;
      throw InputError(p.first->file, p.event->field,
                       fmt::format("message #{} from rank {} to rank {} has no matching {}", order, src, dst,
                                   p.first->rank == src ? "receive" : "send"));
    }

  // Pass 2: dependencies, each event's on its own rank's earlier events, unioned over a task's members.
  for (const RankTrace* t : by_rank) {
    const auto& mine = task_of[static_cast<std::size_t>(t->rank)];
    for (std::size_t i = 0; i < t->events.size(); ++i) {
      const RankEvent& e = t->events[i];
      auto& deps = g.tasks[static_cast<std::size_t>(mine[i])].deps;
      const auto add = [&](int j) {
        if (j < 0 || static_cast<std::size_t>(j) >= i)
          throw InputError(t->file, e.field,
                           fmt::format("depends on event {}, which is not an earlier event of this rank", j));
        const int task = mine[static_cast<std::size_t>(j)];
        if (task != mine[i] && std::find(deps.begin(), deps.end(), task) == deps.end()) deps.push_back(task);
      };
      if (e.deps) {
        for (int j : *e.deps) add(j);
      } else if (i > 0) {
        add(static_cast<int>(i) - 1);
      }
    }
  }
  for (Task& task : g.tasks) std::sort(task.deps.begin(), task.deps.end());
  if (!relays.empty()) leave_out_relays(g, relays, whole);
  make_names_ids(g);
  validate(g, whole, "");
  if (one_rank > 0)
    g.notes.push_back(fmt::format("{} collective event{} of a one-rank group move{} nothing: kept as ordering only",
                                  one_rank, one_rank == 1 ? "" : "s", one_rank == 1 ? "s" : ""));
  return g;
}

std::vector<RankTrace> replicate_ranks(const std::vector<RankTrace>& traces, int ranks) {
  if (traces.empty()) throw InputError("(traces)", "ranks", "no trace to replicate");
  std::vector<RankTrace> out = traces;
  const RankTrace& model = traces.front();
  for (const RankEvent& e : model.events)
    if (e.kind == Kind::send || e.kind == Kind::recv)
      throw InputError(model.file, e.field,
                       "point-to-point messages name their peer, so this rank's trace cannot stand for other ranks "
                       "(give one file per rank)");
  std::vector<bool> have(static_cast<std::size_t>(std::max(ranks, 0)), false);
  std::int64_t events = 0;
  for (const RankTrace& t : traces) {
    if (t.rank >= 0 && t.rank < ranks) have[static_cast<std::size_t>(t.rank)] = true;
    events += static_cast<std::int64_t>(t.events.size());
  }
  // Bounded before any copy is made: every copy holds all of the model's events.
  const std::int64_t copies = std::count(have.begin(), have.end(), false);
  const std::int64_t total = events + copies * static_cast<std::int64_t>(model.events.size());
  if (total > limits::kMaxReplicatedEvents)
    throw InputError(model.file, "ranks",
                     fmt::format("replicating its {} events to {} more ranks gives {} events, above the limit of {} "
                                 "(see docs/limits.md)",
                                 model.events.size(), copies, total, limits::kMaxReplicatedEvents));
  for (int r = 0; r < ranks; ++r) {
    if (have[static_cast<std::size_t>(r)]) continue;
    RankTrace copy = model;
    copy.rank = r;
    copy.file = fmt::format("{} (replicated as rank {})", model.file, r);
    out.push_back(std::move(copy));
  }
  std::sort(out.begin(), out.end(), [](const RankTrace& a, const RankTrace& b) { return a.rank < b.rank; });
  return out;
}

std::string ranks_text(const std::vector<int>& ranks) {
  if (ranks.size() <= 16) return fmt::format("{}", fmt::join(ranks, ", "));
  return fmt::format("{}, ..., {} ({} ranks)", fmt::join(ranks.begin(), ranks.begin() + 8, ", "), ranks.back(),
                     ranks.size());
}

std::string name_part(std::string_view s, std::size_t max_bytes) {
  std::string clean;
  clean.reserve(std::min(s.size(), max_bytes));
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t bad = first_bad_utf8(s.substr(i));
    const std::size_t good = bad == std::string_view::npos ? s.size() - i : bad;
    for (std::size_t k = i; k < i + good; ++k) {
      const auto c = static_cast<unsigned char>(s[k]);
      clean += (c < 0x20 || c == 0x7F || c == ',' || c == '"') ? '_' : s[k];
    }
    i += good;
    if (i < s.size()) {  // a byte that is not part of well-formed UTF-8
      clean += '_';
      ++i;
    }
  }
  if (clean.size() > max_bytes) {
    std::size_t cut = max_bytes;
    while (cut > 0 && (static_cast<unsigned char>(clean[cut]) & 0xC0) == 0x80) --cut;  // not inside a character
    clean.resize(cut);
  }
  return clean;
}

std::string job_name_of_file(const std::string& path, std::initializer_list<const char*> endings,
                             const std::string& fallback) {
  std::string s = path.substr(path.find_last_of('/') + 1);
  for (bool cut = true; cut;) {
    cut = false;
    for (const char* ending : endings) {
      const std::size_t n = std::char_traits<char>::length(ending);
      if (s.size() > n && s.compare(s.size() - n, n, ending) == 0) {
        s.erase(s.size() - n);
        cut = true;
      }
    }
  }
  std::size_t digits = s.size();
  while (digits > 0 && std::isdigit(static_cast<unsigned char>(s[digits - 1]))) --digits;
  if (digits < s.size() && digits > 0) {
    if (s[digits - 1] == '.' || s[digits - 1] == '_' || s[digits - 1] == '-') {
      s.erase(digits - 1);
    } else if (digits >= 5 && s.compare(digits - 4, 4, "rank") == 0) {
      s.erase(digits - 4);
      while (!s.empty() && (s.back() == '.' || s.back() == '_' || s.back() == '-')) s.pop_back();
    }
  }
  s = name_part(s, static_cast<std::size_t>(limits::kMaxJobNameBytes));
  return s.empty() ? fallback : s;
}

int dtype_bytes(const std::string& raw) {
  std::string d;
  for (char c : raw) d += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* prefix : {"c10::", "torch."})
    if (d.rfind(prefix, 0) == 0) d = d.substr(std::char_traits<char>::length(prefix));
  static const std::map<std::string, int> sizes{
      {"float", 4},         {"float32", 4},      {"double", 8},      {"float64", 8},   {"half", 2},
      {"float16", 2},       {"bfloat16", 2},     {"long", 8},        {"int64", 8},     {"int", 4},
      {"int32", 4},         {"short", 2},        {"int16", 2},       {"char", 1},      {"int8", 1},
      {"byte", 1},          {"uint8", 1},        {"bool", 1},        {"float8_e4m3fn", 1},
      {"float8_e5m2", 1},   {"complexfloat", 8}, {"complexdouble", 16}};
  const auto it = sizes.find(d);
  return it == sizes.end() ? 0 : it->second;
}

}  // namespace odcn::workload
