#include "systems/topox/topoopt.hpp"

#include <fmt/format.h>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/visitors.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>

#include "core/error.hpp"
#include "spec/fabric_kinds.hpp"

namespace odcn::sched {

DegreeSplit parse_degree_split(const std::string& variant) {
  return variant == "proportional" ? DegreeSplit::proportional : DegreeSplit::released;
}


namespace {

const char* const kWho = "TopoOpt's TopologyFinder";

// ---------------------------------------------------------------------------------------------------------
// Maximum-weight matching. Boost 1.74's maximum_weighted_matching (Debian 12's Boost) is not used: on the
// complete graphs built here it does not terminate for some inputs (tried: 32 vertices, weights 10^6 + a
// sparse demand; boostorg/graph#223, #399), as graph_static.cpp notes too. This is Edmonds' blossom algorithm
// in the primal-dual form of Z. Galil, "Efficient Algorithms for Finding Maximum Matching in Graphs" (ACM
// Computing Surveys, 1986), laid out as in J. van Rantwijk's mwmatching: vertices 0..n-1, blossoms n..2n-1,
// edge k has endpoints 2k and 2k+1, and all dual variables are doubled so that integer weights keep them
// integers.
// ---------------------------------------------------------------------------------------------------------
class BlossomMatching {
 public:
  struct Edge {
    int i = 0, j = 0;
    std::int64_t w = 0;
  };

  BlossomMatching(int n, std::vector<Edge> edges) : n_(n), edges_(std::move(edges)) {
    const auto nn = static_cast<std::size_t>(2 * n);
    endpoint_.resize(2 * edges_.size());
    neighbend_.resize(static_cast<std::size_t>(n));
    std::int64_t maxweight = 0;
    for (std::size_t k = 0; k < edges_.size(); ++k) {
      endpoint_[2 * k] = edges_[k].i;
      endpoint_[2 * k + 1] = edges_[k].j;
      neighbend_[static_cast<std::size_t>(edges_[k].i)].push_back(static_cast<int>(2 * k + 1));
      neighbend_[static_cast<std::size_t>(edges_[k].j)].push_back(static_cast<int>(2 * k));
      maxweight = std::max(maxweight, edges_[k].w);
    }
    mate_.assign(static_cast<std::size_t>(n), -1);
    label_.assign(nn, 0);
    labelend_.assign(nn, -1);
    inblossom_.resize(static_cast<std::size_t>(n));
    std::iota(inblossom_.begin(), inblossom_.end(), 0);
    blossomparent_.assign(nn, -1);
    blossomchilds_.assign(nn, {});
    blossomendps_.assign(nn, {});
    blossombase_.assign(nn, -1);
    std::iota(blossombase_.begin(), blossombase_.begin() + n, 0);
    bestedge_.assign(nn, -1);
    blossombestedges_.assign(nn, {});
    has_bestedges_.assign(nn, 0);
    for (int b = 2 * n - 1; b >= n; --b) unused_.push_back(b);
    dualvar_.assign(nn, 0);
    std::fill(dualvar_.begin(), dualvar_.begin() + n, maxweight);
    allowedge_.assign(edges_.size(), 0);
  }

  /// mate of every vertex, -1 for an unmatched one.
  std::vector<int> solve() {
    for (int stage = 0; stage < n_; ++stage) {
      if (!run_stage()) break;
    }
    std::vector<int> result(static_cast<std::size_t>(n_), -1);
    for (int v = 0; v < n_; ++v)
      if (mate_[idx(v)] >= 0) result[idx(v)] = endpoint_[idx(mate_[idx(v)])];
    return result;
  }

 private:
  static std::size_t idx(int i) { return static_cast<std::size_t>(i); }
  /// Element j of a blossom's cyclic list, j in (-size, size) as the algorithm walks both ways around it.
  static int cyclic(const std::vector<int>& v, int j) { return v[idx(j < 0 ? j + static_cast<int>(v.size()) : j)]; }
  static int position(const std::vector<int>& v, int x) {
    return static_cast<int>(std::find(v.begin(), v.end(), x) - v.begin());
  }

  std::int64_t slack(int k) const {
    const auto& e = edges_[idx(k)];
    return dualvar_[idx(e.i)] + dualvar_[idx(e.j)] - 2 * e.w;
  }

  void leaves(int b, std::vector<int>& out) const {
    if (b < n_) {
      out.push_back(b);
      return;
    }
    for (int t : blossomchilds_[idx(b)]) leaves(t, out);
  }

  /// Labels the top-level blossom of w with t (1 = S, 2 = T), reached through endpoint p; a T blossom's mate
  /// becomes S.
  void assign_label(int w, int t, int p) {
    const int b = inblossom_[idx(w)];
    label_[idx(w)] = label_[idx(b)] = t;
    labelend_[idx(w)] = labelend_[idx(b)] = p;
    bestedge_[idx(w)] = bestedge_[idx(b)] = -1;
    if (t == 1) {
      leaves(b, queue_);
    } else {
      const int base = blossombase_[idx(b)];
      const int m = mate_[idx(base)];
      assign_label(endpoint_[idx(m)], 1, m ^ 1);
    }
  }

  /// Walks from v and w up their alternating trees: the base of a new blossom, or -1 for an augmenting path.
  int scan_blossom(int v, int w) {
    std::vector<int> path;
    int base = -1;
    while (v != -1 || w != -1) {
      int b = inblossom_[idx(v)];
      if (label_[idx(b)] & 4) {
        base = blossombase_[idx(b)];
        break;
      }
      path.push_back(b);
      label_[idx(b)] = 5;
      if (labelend_[idx(b)] == -1) {
        v = -1;
      } else {
        v = endpoint_[idx(labelend_[idx(b)])];
        b = inblossom_[idx(v)];
        v = endpoint_[idx(labelend_[idx(b)])];
      }
      if (w != -1) std::swap(v, w);
    }
    for (int b : path) label_[idx(b)] = 1;
    return base;
  }

  /// Shrinks the odd cycle closed by edge k, with the given base, into a new S blossom.
  void add_blossom(int base, int k) {
    int v = edges_[idx(k)].i, w = edges_[idx(k)].j;
    const int bb = inblossom_[idx(base)];
    int bv = inblossom_[idx(v)], bw = inblossom_[idx(w)];
    const int b = unused_.back();
    unused_.pop_back();
    blossombase_[idx(b)] = base;
    blossomparent_[idx(b)] = -1;
    blossomparent_[idx(bb)] = b;
    auto& path = blossomchilds_[idx(b)];
    auto& endps = blossomendps_[idx(b)];
    path.clear();
    endps.clear();
    while (bv != bb) {
      blossomparent_[idx(bv)] = b;
      path.push_back(bv);
      endps.push_back(labelend_[idx(bv)]);
      v = endpoint_[idx(labelend_[idx(bv)])];
      bv = inblossom_[idx(v)];
    }
    path.push_back(bb);
    std::reverse(path.begin(), path.end());
    std::reverse(endps.begin(), endps.end());
    endps.push_back(2 * k);
    while (bw != bb) {
      blossomparent_[idx(bw)] = b;
      path.push_back(bw);
      endps.push_back(labelend_[idx(bw)] ^ 1);
      w = endpoint_[idx(labelend_[idx(bw)])];
      bw = inblossom_[idx(w)];
    }
    label_[idx(b)] = 1;
    labelend_[idx(b)] = labelend_[idx(bb)];
    dualvar_[idx(b)] = 0;
    std::vector<int> inside;
    leaves(b, inside);
    for (int x : inside) {
      if (label_[idx(inblossom_[idx(x)])] == 2) queue_.push_back(x);  // former T vertices become S
      inblossom_[idx(x)] = b;
    }
    // The least-slack edge from the new blossom to each other S blossom.
    std::vector<int> bestedgeto(idx(2 * n_), -1);
    for (int c : path) {
      std::vector<int> candidates;
      if (has_bestedges_[idx(c)]) {
        candidates = blossombestedges_[idx(c)];
      } else {
        std::vector<int> cl;
        leaves(c, cl);
        for (int x : cl)
          for (int p : neighbend_[idx(x)]) candidates.push_back(p / 2);
      }
      for (int kk : candidates) {
        int i = edges_[idx(kk)].i, j = edges_[idx(kk)].j;
        if (inblossom_[idx(j)] == b) std::swap(i, j);
        const int bj = inblossom_[idx(j)];
        if (bj != b && label_[idx(bj)] == 1 && (bestedgeto[idx(bj)] == -1 || slack(kk) < slack(bestedgeto[idx(bj)])))
          bestedgeto[idx(bj)] = kk;
      }
      blossombestedges_[idx(c)].clear();
      has_bestedges_[idx(c)] = 0;
      bestedge_[idx(c)] = -1;
    }
    auto& mine = blossombestedges_[idx(b)];
    mine.clear();
    for (int kk : bestedgeto)
      if (kk != -1) mine.push_back(kk);
    has_bestedges_[idx(b)] = 1;
    bestedge_[idx(b)] = -1;
    for (int kk : mine)
      if (bestedge_[idx(b)] == -1 || slack(kk) < slack(bestedge_[idx(b)])) bestedge_[idx(b)] = kk;
  }

  /// Dissolves blossom b: at the end of a stage (endstage, recursively for zero-dual sub-blossoms), or
  /// during one when its dual reaches zero as a T blossom, relabelling its children.
  void expand_blossom(int b, bool endstage) {
    for (int s : blossomchilds_[idx(b)]) {
      blossomparent_[idx(s)] = -1;
      if (s < n_) {
        inblossom_[idx(s)] = s;
      } else if (endstage && dualvar_[idx(s)] == 0) {
        expand_blossom(s, endstage);
      } else {
        std::vector<int> inside;
        leaves(s, inside);
        for (int x : inside) inblossom_[idx(x)] = s;
      }
    }
    if (!endstage && label_[idx(b)] == 2) {
      const auto& childs = blossomchilds_[idx(b)];
      const auto& endps = blossomendps_[idx(b)];
      const int entrychild = inblossom_[idx(endpoint_[idx(labelend_[idx(b)] ^ 1)])];
      int j = position(childs, entrychild);
      int jstep = -1, endptrick = 1;
      if (j & 1) {
        j -= static_cast<int>(childs.size());
        jstep = 1;
        endptrick = 0;
      }
      // From the entry child to the base: relabel along the even-length path.
      int p = labelend_[idx(b)];
      while (j != 0) {
        label_[idx(endpoint_[idx(p ^ 1)])] = 0;
        label_[idx(endpoint_[idx(cyclic(endps, j - endptrick) ^ endptrick ^ 1)])] = 0;
        assign_label(endpoint_[idx(p ^ 1)], 2, p);
        allowedge_[idx(cyclic(endps, j - endptrick) / 2)] = 1;
        j += jstep;
        p = cyclic(endps, j - endptrick) ^ endptrick;
        allowedge_[idx(p / 2)] = 1;
        j += jstep;
      }
      const int bv = cyclic(childs, j);
      label_[idx(endpoint_[idx(p ^ 1)])] = label_[idx(bv)] = 2;
      labelend_[idx(endpoint_[idx(p ^ 1)])] = labelend_[idx(bv)] = p;
      bestedge_[idx(bv)] = -1;
      // The other children: those reachable from a T vertex inside become T again.
      j += jstep;
      while (cyclic(childs, j) != entrychild) {
        const int c = cyclic(childs, j);
        if (label_[idx(c)] == 1) {
          j += jstep;
          continue;
        }
        std::vector<int> inside;
        leaves(c, inside);
        int v = -1;
        for (int x : inside) {
          v = x;
          if (label_[idx(x)] != 0) break;
        }
        if (label_[idx(v)] != 0) {
          label_[idx(v)] = 0;
          label_[idx(endpoint_[idx(mate_[idx(blossombase_[idx(c)])])])] = 0;
          assign_label(v, 2, labelend_[idx(v)]);
        }
        j += jstep;
      }
    }
    label_[idx(b)] = labelend_[idx(b)] = -1;
    blossomchilds_[idx(b)].clear();
    blossomendps_[idx(b)].clear();
    blossombase_[idx(b)] = -1;
    blossombestedges_[idx(b)].clear();
    has_bestedges_[idx(b)] = 0;
    bestedge_[idx(b)] = -1;
    unused_.push_back(b);
  }

  /// Swaps matched and unmatched edges inside blossom b so that vertex v becomes its base.
  void augment_blossom(int b, int v) {
    int t = v;
    while (blossomparent_[idx(t)] != b) t = blossomparent_[idx(t)];
    if (t >= n_) augment_blossom(t, v);
    auto& childs = blossomchilds_[idx(b)];
    auto& endps = blossomendps_[idx(b)];
    const int i = position(childs, t);
    int j = i, jstep = -1, endptrick = 1;
    if (i & 1) {
      j -= static_cast<int>(childs.size());
      jstep = 1;
      endptrick = 0;
    }
    while (j != 0) {
      j += jstep;
      t = cyclic(childs, j);
      const int p = cyclic(endps, j - endptrick) ^ endptrick;
      if (t >= n_) augment_blossom(t, endpoint_[idx(p)]);
      j += jstep;
      t = cyclic(childs, j);
      if (t >= n_) augment_blossom(t, endpoint_[idx(p ^ 1)]);
      mate_[idx(endpoint_[idx(p)])] = p ^ 1;
      mate_[idx(endpoint_[idx(p ^ 1)])] = p;
    }
    std::rotate(childs.begin(), childs.begin() + i, childs.end());
    std::rotate(endps.begin(), endps.begin() + i, endps.end());
    blossombase_[idx(b)] = blossombase_[idx(childs[0])];
  }

  /// Flips the augmenting path through edge k, from both its ends back to their trees' roots.
  void augment_matching(int k) {
    const std::pair<int, int> ends[2] = {{edges_[idx(k)].i, 2 * k + 1}, {edges_[idx(k)].j, 2 * k}};
    for (auto [s, p] : ends) {
      while (true) {
        const int bs = inblossom_[idx(s)];
        if (bs >= n_) augment_blossom(bs, s);
        mate_[idx(s)] = p;
        if (labelend_[idx(bs)] == -1) break;  // reached a root
        const int t = endpoint_[idx(labelend_[idx(bs)])];
        const int bt = inblossom_[idx(t)];
        s = endpoint_[idx(labelend_[idx(bt)])];
        const int jj = endpoint_[idx(labelend_[idx(bt)] ^ 1)];
        if (bt >= n_) augment_blossom(bt, jj);
        mate_[idx(jj)] = labelend_[idx(bt)];
        p = labelend_[idx(bt)] ^ 1;
      }
    }
  }

  /// One stage: grow alternating trees from the free vertices, changing duals, until an augmenting path is
  /// found (true) or no augmentation can raise the weight (false: the matching is optimal).
  bool run_stage() {
    std::fill(label_.begin(), label_.end(), 0);
    std::fill(bestedge_.begin(), bestedge_.end(), -1);
    for (int b = n_; b < 2 * n_; ++b) {
      blossombestedges_[idx(b)].clear();
      has_bestedges_[idx(b)] = 0;
    }
    std::fill(allowedge_.begin(), allowedge_.end(), 0);
    queue_.clear();
    for (int v = 0; v < n_; ++v)
      if (mate_[idx(v)] == -1 && label_[idx(inblossom_[idx(v)])] == 0) assign_label(v, 1, -1);
    bool augmented = false;
    while (true) {
      while (!queue_.empty() && !augmented) {
        const int v = queue_.back();
        queue_.pop_back();
        for (int p : neighbend_[idx(v)]) {
          const int k = p / 2, w = endpoint_[idx(p)];
          if (inblossom_[idx(v)] == inblossom_[idx(w)]) continue;
          std::int64_t kslack = 0;
          if (!allowedge_[idx(k)]) {
            kslack = slack(k);
            if (kslack <= 0) allowedge_[idx(k)] = 1;
          }
          if (allowedge_[idx(k)]) {
            if (label_[idx(inblossom_[idx(w)])] == 0) {
              assign_label(w, 2, p ^ 1);
            } else if (label_[idx(inblossom_[idx(w)])] == 1) {
              const int base = scan_blossom(v, w);
              if (base >= 0) {
                add_blossom(base, k);
              } else {
                augment_matching(k);
                augmented = true;
                break;
              }
            } else if (label_[idx(w)] == 0) {
              label_[idx(w)] = 2;  // w is inside a T blossom but not yet reached: remember how
              labelend_[idx(w)] = p ^ 1;
            }
          } else if (label_[idx(inblossom_[idx(w)])] == 1) {
            const int b = inblossom_[idx(v)];
            if (bestedge_[idx(b)] == -1 || kslack < slack(bestedge_[idx(b)])) bestedge_[idx(b)] = k;
          } else if (label_[idx(w)] == 0) {
            if (bestedge_[idx(w)] == -1 || kslack < slack(bestedge_[idx(w)])) bestedge_[idx(w)] = k;
          }
        }
      }
      if (augmented) return true;
      // The largest dual change that keeps every slack >= 0 (types 2-4), or the end (type 1: some vertex
      // dual reaches zero).
      int deltatype = 1, deltaedge = -1, deltablossom = -1;
      std::int64_t delta = *std::min_element(dualvar_.begin(), dualvar_.begin() + n_);
      for (int v = 0; v < n_; ++v)
        if (label_[idx(inblossom_[idx(v)])] == 0 && bestedge_[idx(v)] != -1) {
          const auto d = slack(bestedge_[idx(v)]);
          if (d < delta) delta = d, deltatype = 2, deltaedge = bestedge_[idx(v)];
        }
      for (int b = 0; b < 2 * n_; ++b)
        if (blossomparent_[idx(b)] == -1 && label_[idx(b)] == 1 && bestedge_[idx(b)] != -1) {
          const auto d = slack(bestedge_[idx(b)]) / 2;  // even: both ends are S, duals move together
          if (d < delta) delta = d, deltatype = 3, deltaedge = bestedge_[idx(b)];
        }
      for (int b = n_; b < 2 * n_; ++b)
        if (blossombase_[idx(b)] >= 0 && blossomparent_[idx(b)] == -1 && label_[idx(b)] == 2 &&
            dualvar_[idx(b)] < delta)
          delta = dualvar_[idx(b)], deltatype = 4, deltablossom = b;
      for (int v = 0; v < n_; ++v) {
        const int l = label_[idx(inblossom_[idx(v)])];
        if (l == 1) dualvar_[idx(v)] -= delta;
        if (l == 2) dualvar_[idx(v)] += delta;
      }
      for (int b = n_; b < 2 * n_; ++b)
        if (blossombase_[idx(b)] >= 0 && blossomparent_[idx(b)] == -1) {
          if (label_[idx(b)] == 1) dualvar_[idx(b)] += delta;
          if (label_[idx(b)] == 2) dualvar_[idx(b)] -= delta;
        }
      if (deltatype == 1) return false;
      if (deltatype == 2) {
        allowedge_[idx(deltaedge)] = 1;
        int i = edges_[idx(deltaedge)].i;
        if (label_[idx(inblossom_[idx(i)])] == 0) i = edges_[idx(deltaedge)].j;
        queue_.push_back(i);
      } else if (deltatype == 3) {
        allowedge_[idx(deltaedge)] = 1;
        queue_.push_back(edges_[idx(deltaedge)].i);
      } else {
        expand_blossom(deltablossom, false);
      }
    }
  }

  int n_;
  std::vector<Edge> edges_;
  std::vector<int> endpoint_;
  std::vector<std::vector<int>> neighbend_;
  std::vector<int> mate_;  ///< the remote endpoint of each vertex's matched edge, -1 when free
  std::vector<int> label_, labelend_, inblossom_, blossomparent_, blossombase_, bestedge_;
  std::vector<std::vector<int>> blossomchilds_, blossomendps_, blossombestedges_;
  std::vector<char> has_bestedges_;
  std::vector<int> unused_;
  std::vector<std::int64_t> dualvar_;
  std::vector<char> allowedge_;
  std::vector<int> queue_;
};

using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;

Graph graph_of(const TopoOptTopology& t) {
  const int n = t.servers();
  Graph g(static_cast<std::size_t>(n));
  for (int a = 0; a < n; ++a)
    for (int b : t.neighbours[static_cast<std::size_t>(a)])
      if (a < b) boost::add_edge(static_cast<std::size_t>(a), static_cast<std::size_t>(b), g);
  return g;
}

/// Hop counts from `src` to every server (Boost.Graph's breadth-first search); -1 where unreachable.
std::vector<int> hops_from(const Graph& g, int src) {
  std::vector<int> dist(boost::num_vertices(g), -1);
  dist[static_cast<std::size_t>(src)] = 0;
  boost::breadth_first_search(
      g, static_cast<std::size_t>(src),
      boost::visitor(boost::make_bfs_visitor(boost::record_distances(dist.data(), boost::on_tree_edge()))));
  return dist;
}

void check_server(const TopoOptTopology& t, int s) {
  if (s < 0 || s >= t.servers())
    throw ConfigError(fmt::format("{}: server {} does not exist ({} servers)", kWho, s, t.servers()));
}

void check_input(const TopologyFinderInput& in) {
  const int n = in.servers;
  if (n < 2) throw ConfigError(fmt::format("{}: needs at least 2 servers (got {})", kWho, n));
  if (n % 2 != 0)
    throw ConfigError(
        fmt::format("{}: {} servers is odd: a ring through all of them is an odd cycle, which two "
                    "OCSes (one port per server each) cannot hold, and no perfect matching exists",
                    kWho, n));
  if (n > 4096) throw ConfigError(fmt::format("{}: at most 4096 servers (got {})", kWho, n));
  if (in.degree < 1) throw ConfigError(fmt::format("{}: degree d_S must be >= 1 (got {})", kWho, in.degree));
  if (in.ocs_ports < n)
    throw ConfigError(
        fmt::format("{}: every OCS holds a perfect matching of the {} servers, which needs {} ports, "
                    "but d_OCS = {}",
                    kWho, n, n, in.ocs_ports));
  for (std::size_t g = 0; g < in.dp_groups.size(); ++g) {
    const auto& grp = in.dp_groups[g];
    if (!(grp.bytes >= 0) || !std::isfinite(grp.bytes))
      throw ConfigError(fmt::format("{}: DP group {} has bytes {} (must be finite and >= 0)", kWho, g, grp.bytes));
    std::set<int> seen;
    for (int m : grp.members) {
      if (m < 0 || m >= n)
        throw ConfigError(fmt::format("{}: DP group {} names server {} ({} servers)", kWho, g, m, n));
      if (!seen.insert(m).second) throw ConfigError(fmt::format("{}: DP group {} names server {} twice", kWho, g, m));
    }
  }
  for (const auto& [pair, bytes] : in.mp_demand) {
    const auto [a, b] = pair;
    if (a < 0 || b < 0 || a >= n || b >= n || a == b)
      throw ConfigError(fmt::format("{}: MP demand ({}, {}) must join two different servers below {}", kWho, a, b, n));
    if (!(bytes >= 0) || !std::isfinite(bytes))
      throw ConfigError(
          fmt::format("{}: MP demand ({}, {}) has bytes {} (must be finite and >= 0)", kWho, a, b, bytes));
  }
}

/// Step 1, get_dp_mp_degree.
std::pair<int, int> split_degree(const TopologyFinderInput& in) {
  const int d = in.degree;
  if (in.split == DegreeSplit::released) {
    // The released code: `dp_degree = if_cnt; mp_degree = 0;`, every port on rings.
    if (d % 2 != 0)
      throw ConfigError(
          fmt::format("{}: d_S = {} is odd, but with the released degree split every port goes to "
                      "bidirectional rings, which take two ports per server each",
                      kWho, d));
    return {d, 0};
  }
  // The proportional split as the released code carries it commented out: the ring all-reduce traffic
  // counts S(2g-1) per group (its `total_dp_traffic += xfer_size * (2 * group_size - 1)`; the /g of
  // dpgrpsz_xfersize, which step 2 uses, is not applied here), the MP traffic all bytes. The DP share is
  // rounded, made even for bidirectional rings (up, unless that exceeds d), and kept >= 2 so that a ring
  // connects every server; MP takes the rest (the code rounds both shares separately and asserts that they
  // sum to d, which rounding can break; here mp = d - dp).
  if (d < 2)
    throw ConfigError(
        fmt::format("{}: d_S = {} leaves no room for the one bidirectional ring that connects the "
                    "servers (2 ports)",
                    kWho, d));
  double dp_traffic = 0, mp_traffic = 0;
  for (const auto& g : in.dp_groups)
    if (g.members.size() >= 2) dp_traffic += g.bytes * (2.0 * static_cast<double>(g.members.size()) - 1.0);
  for (const auto& [pair, bytes] : in.mp_demand) mp_traffic += bytes;
  int dp = d;
  if (dp_traffic + mp_traffic > 0) dp = static_cast<int>(std::lround(dp_traffic / (dp_traffic + mp_traffic) * d));
  if (dp % 2 != 0) dp = dp + 1 <= d ? dp + 1 : dp - 1;
  dp = std::max(dp, 2);
  return {dp, d - dp};
}

/// compute_mp_satified (step 3): MP bytes whose two servers a ring joins directly.
Bytes mp_on_rings(const TopologyFinderInput& in, const std::vector<int>& strides) {
  Bytes sum = 0;
  for (const auto& [pair, bytes] : in.mp_demand) {
    const int offset = ((pair.second - pair.first) % in.servers + in.servers) % in.servers;
    if (std::find(strides.begin(), strides.end(), offset) != strides.end()) sum += bytes;
  }
  return sum;
}

}  // namespace

int TopoOptTopology::circuits_between(int a, int b) const {
  check_server(*this, a);
  check_server(*this, b);
  const auto& near = neighbours[static_cast<std::size_t>(a)];
  const auto [lo, hi] = std::equal_range(near.begin(), near.end(), b);
  return static_cast<int>(hi - lo);
}

std::vector<int> TopoOptTopology::route(int src, int dst) const {
  check_server(*this, src);
  check_server(*this, dst);
  if (src == dst) return {src};
  const auto to_dst = hops_from(graph_of(*this), dst);
  if (to_dst[static_cast<std::size_t>(src)] < 0) return {};
  // One hash per flow, as ECMP hashes a flow's addresses; the same at every hop, so a flow keeps one path.
  const auto hash = static_cast<std::size_t>(src) * static_cast<std::size_t>(servers()) + static_cast<std::size_t>(dst);
  std::vector<int> path{src};
  for (int at = src; at != dst;) {
    std::vector<int> closer;  // distinct, ascending: neighbours are sorted
    for (int v : neighbours[static_cast<std::size_t>(at)])
      if (to_dst[static_cast<std::size_t>(v)] == to_dst[static_cast<std::size_t>(at)] - 1 &&
          (closer.empty() || closer.back() != v))
        closer.push_back(v);
    at = closer[hash % closer.size()];
    path.push_back(at);
  }
  return path;
}

int TopoOptTopology::diameter() const {
  const auto g = graph_of(*this);
  int longest = 0;
  for (int s = 0; s < servers(); ++s)
    for (int h : hops_from(g, s)) {
      if (h < 0) return -1;
      longest = std::max(longest, h);
    }
  return longest;
}

std::vector<int> totient_strides(int servers, int group_size) {
  if (servers < 2 || group_size < 2 || servers % group_size != 0)
    throw ConfigError(fmt::format("{}: ring strides need a group size g >= 2 dividing N (got N = {}, g = {})", kWho,
                                  servers, group_size));
  std::vector<int> strides;
  for (int k = 1; k <= group_size; ++k)
    if (std::gcd(k, group_size) == 1) strides.push_back(servers / group_size * k);
  return strides;
}

std::vector<int> choose_geometric(const std::vector<int>& candidates, int count) {
  if (count < 1 || static_cast<std::size_t>(count) > candidates.size())
    throw ConfigError(
        fmt::format("{}: {} ring strides asked, but only {} exist (the strides coprime with N: d_S/2 "
                    "rings at most)",
                    kWho, count, candidates.size()));
  if (count == 1) return {candidates.front()};
  // choose_n_geo with bidir = true: the exponent is 1/n (1/(n-1) for unidirectional rings), so the last
  // target stays below the largest candidate.
  const double ratio = std::pow(static_cast<double>(candidates.back()) / candidates.front(), 1.0 / count);
  std::set<int> chosen;
  double current = candidates.front();
  for (int i = 0; i < count; ++i) {
    auto it = std::lower_bound(candidates.begin(), candidates.end(), current);
    while (it != candidates.end() && chosen.count(*it)) ++it;
    // The released code walks past the end here (undefined behaviour); no stride set of this size exists.
    if (it == candidates.end())
      throw ConfigError(
          fmt::format("{}: the geometric choice of {} ring strides among {} candidates runs past the "
                      "largest one",
                      kWho, count, candidates.size()));
    chosen.insert(*it);
    current *= ratio;
  }
  return {chosen.begin(), chosen.end()};
}

std::vector<int> max_weight_perfect_matching(const std::vector<std::vector<std::int64_t>>& weight) {
  const int n = static_cast<int>(weight.size());
  if (n < 2 || n % 2 != 0 || n > 4096)
    throw std::invalid_argument(fmt::format("perfect matching: {} vertices (need an even count in [2, 4096])", n));
  constexpr std::int64_t kMaxWeight = std::int64_t{1} << 40;
  std::int64_t heaviest = 0;
  for (int i = 0; i < n; ++i) {
    if (weight[static_cast<std::size_t>(i)].size() != static_cast<std::size_t>(n))
      throw std::invalid_argument("perfect matching: the weight matrix is not square");
    for (int j = 0; j < n; ++j) {
      const auto w = weight[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)];
      if (i != j && (w < 0 || w >= kMaxWeight || w != weight[static_cast<std::size_t>(j)][static_cast<std::size_t>(i)]))
        throw std::invalid_argument(
            fmt::format("perfect matching: weight ({}, {}) = {} must be symmetric and in [0, 2^40)", i, j, w));
      if (i != j) heaviest = std::max(heaviest, w);
    }
  }
  // A perfect matching has n/2 edges of weight >= K; any other has at most n/2 - 1 of weight <= K + heaviest.
  // K > (n/2 - 1) * heaviest therefore makes every maximum-weight matching perfect, and among perfect
  // matchings (all gaining n/2 * K) the maximum is the same as without K: the minimum-cost perfect matching
  // with cost = max - w that TopoOpt asks its blossom_match solver for.
  const std::int64_t k = static_cast<std::int64_t>(n / 2) * heaviest + 1;
  std::vector<BlossomMatching::Edge> edges;
  edges.reserve(static_cast<std::size_t>(n) * static_cast<std::size_t>(n - 1) / 2);
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      edges.push_back({i, j, k + weight[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)]});
  auto mate = BlossomMatching(n, std::move(edges)).solve();
  for (int v = 0; v < n; ++v)
    if (mate[static_cast<std::size_t>(v)] < 0 || mate[static_cast<std::size_t>(mate[static_cast<std::size_t>(v)])] != v)
      throw std::logic_error(fmt::format("perfect matching: vertex {} left unmatched", v));
  return mate;
}

TopoOptTopology topology_finder(const TopologyFinderInput& in) {
  check_input(in);
  const int n = in.servers;
  TopoOptTopology t;
  std::tie(t.dp_degree, t.mp_degree) = split_degree(in);

  // Step 2, ring budget. The released code gives every ring link to the DP group size with the most traffic
  // (its `nlink = total_traffic * dp_degree / traffic_g` is >= dp_degree for every group, then clipped), and,
  // when that size is not N, keeps 2 links for a stride-1 ring through all servers. Here only groups that
  // span all N servers get rings (TopologyFinderInput::dp_groups says why), so all dp_degree links go to
  // rings through all servers: exactly the released code when the heaviest groups span N (DLRM: every
  // all-reduce is over all servers), and otherwise a superset of its connectivity ring, since the geometric
  // choice always starts at stride 1.
  //
  // Step 3, TotientPerms: candidates for g = N are the strides coprime with N; dp_degree / 2 of them, chosen
  // geometrically. The released code evaluates one candidate set only (its loop over rotations with
  // choose_n is commented out), keeps it whatever compute_mp_satisfied says, and reports that value: so
  // does this code, in mp_bytes_on_ring_links.
  const auto chosen = choose_geometric(totient_strides(n, n), t.dp_degree / 2);
  for (int s : chosen) {
    t.strides.push_back(s);
    t.strides.push_back(n - s);  // the same ring, walked the other way
  }
  std::sort(t.strides.begin(), t.strides.end());
  t.mp_bytes_on_ring_links = mp_on_rings(in, t.strides);

  // Port level: the ring of stride s is gcd(N, s) cycles of N / gcd(N, s) servers (one cycle here, s being
  // coprime with N), each of even length since N is even; alternate edges go to OCS 2i and OCS 2i+1, so each
  // server has one port on each of the two. (N = 2: the "ring" 0 -> 1 -> 0 is two parallel circuits, as
  // TopoOpt's add_ring counts it.)
  for (std::size_t i = 0; i < chosen.size(); ++i) {
    const int s = chosen[i];
    const int cycles = std::gcd(n, s), length = n / cycles;
    for (int start = 0; start < cycles; ++start)
      for (int e = 0; e < length; ++e) {
        const int a = (start + e * s) % n;
        t.circuits.push_back({static_cast<int>(2 * i) + e % 2, a, (a + s) % n});
      }
  }

  // Step 5, generate_mp_matching: mp_degree maximum-weight perfect matchings on the complete graph, weight =
  // demand(i, j) + demand(j, i); after each, a matched pair's remaining demand is scaled by c / (c + 1), c =
  // the MP links it now has (ring links do not count: the released code keeps MP links in a connection matrix
  // of their own). (The released code builds the graph with AddEdge(i, j) for both orders, which
  // keeps one edge per pair, and sets its cost twice, the second time from demand(j, i) with j > i: for the
  // symmetric all-to-all demand of DLRM that is half of this weight, the same matchings.) Weights are
  // quantised to 2^30 steps of the largest remaining demand, so that the matching works on exact integers.
  if (t.mp_degree > 0) {
    std::vector<std::vector<double>> residual(static_cast<std::size_t>(n),
                                              std::vector<double>(static_cast<std::size_t>(n), 0.0));
    for (const auto& [pair, bytes] : in.mp_demand) {
      const auto a = static_cast<std::size_t>(std::min(pair.first, pair.second));
      const auto b = static_cast<std::size_t>(std::max(pair.first, pair.second));
      residual[a][b] += bytes;
    }
    std::vector<std::vector<int>> links(static_cast<std::size_t>(n), std::vector<int>(static_cast<std::size_t>(n), 0));
    for (int r = 0; r < t.mp_degree; ++r) {
      double heaviest = 0;
      for (const auto& row : residual) heaviest = std::max(heaviest, *std::max_element(row.begin(), row.end()));
      std::vector<std::vector<std::int64_t>> weight(static_cast<std::size_t>(n),
                                                    std::vector<std::int64_t>(static_cast<std::size_t>(n), 0));
      if (heaviest > 0)
        for (std::size_t a = 0; a < weight.size(); ++a)
          for (std::size_t b = a + 1; b < weight.size(); ++b)
            weight[a][b] = weight[b][a] = std::llround(residual[a][b] / heaviest * static_cast<double>(1 << 30));
      const auto mate = max_weight_perfect_matching(weight);
      for (int a = 0; a < n; ++a) {
        const int b = mate[static_cast<std::size_t>(a)];
        if (b < a) continue;
        t.circuits.push_back({t.dp_degree + r, a, b});
        const int c = ++links[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)];
        residual[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)] *= static_cast<double>(c) / (c + 1);
      }
    }
  }

  t.neighbours.assign(static_cast<std::size_t>(n), {});
  for (const auto& c : t.circuits) {
    t.neighbours[static_cast<std::size_t>(c.a)].push_back(c.b);
    t.neighbours[static_cast<std::size_t>(c.b)].push_back(c.a);
  }
  for (auto& near : t.neighbours) std::sort(near.begin(), near.end());

  spec::FlatOcsSpec platform;
  platform.servers = n;
  platform.nic_ports = in.degree;
  platform.ocs_count = in.degree;
  platform.ocs_ports = in.ocs_ports;
  net::check_flat_ocs(platform, t.circuits);  // Eq. (7)-(10): one port per server on each OCS
  return t;
}

}  // namespace odcn::sched
