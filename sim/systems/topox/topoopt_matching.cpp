// Maximum-weight perfect matching (Edmonds' blossom algorithm), as TopoOpt's blossom_match solver.
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

#include "systems/topox/topoopt_internal.hpp"

namespace odcn::sched {

using topoopt_internal::kWho;

namespace {

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
    start_stage();
    while (true) {
      if (grow_from_queue()) return true;
      if (!adjust_duals()) return false;
    }
  }

  /// A stage's start: no labels, no best edges; every free vertex's blossom labelled S.
  void start_stage() {
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
  }

  /// Grows the alternating trees from the queued S vertices: labels, new blossoms, or an augmenting path
  /// (then the matching is augmented and true returned).
  bool grow_from_queue() {
    bool augmented = false;
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
    return augmented;
  }

  /// Moves the duals by the largest change that keeps every slack >= 0 and acts on what it made tight; false
  /// when a vertex dual reached zero (the stage, and the search, end).
  bool adjust_duals() {
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
    return true;
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

}  // namespace

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

std::vector<int> max_weight_matching(int n, const std::vector<WeightedEdge>& edges) {
  if (n < 0 || n > 4096) throw std::invalid_argument(fmt::format("matching: {} vertices (need [0, 4096])", n));
  std::vector<BlossomMatching::Edge> es;
  es.reserve(edges.size());
  for (const auto& e : edges) {
    if (e.i < 0 || e.j < 0 || e.i >= n || e.j >= n || e.i == e.j || e.w <= 0 || e.w >= (std::int64_t{1} << 40))
      throw std::invalid_argument(fmt::format("matching: edge ({}, {}) of weight {} (need distinct vertices in [0, {}) "
                                              "and a weight in (0, 2^40))", e.i, e.j, e.w, n));
    es.push_back({e.i, e.j, e.w});
  }
  if (n == 0 || es.empty()) return std::vector<int>(static_cast<std::size_t>(n), -1);
  return BlossomMatching(n, std::move(es)).solve();
}

}  // namespace odcn::sched
