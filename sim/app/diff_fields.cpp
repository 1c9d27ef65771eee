// diff: two JSON documents compared leaf by leaf (app/diff.hpp).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>

#include "app/diff.hpp"
#include "app/metrics.hpp"

namespace odcn::app::diff {

namespace {

/// What the walk calls for each leaf: its path and its value on each side (nullptr where missing).
using Leaf = std::function<void(const std::string& path, const Json* a, const Json* b)>;

const Json* member(const Json* doc, const std::string& key) {
  if (!doc || !doc->is_object()) return nullptr;
  const auto it = doc->find(key);
  return it == doc->end() ? nullptr : &*it;
}

const Json* element(const Json* doc, std::size_t i) {
  return doc && doc->is_array() && i < doc->size() ? &(*doc)[i] : nullptr;
}

/// Whether the walk goes into a and b rather than comparing them whole.
bool descends(const Json* a, const Json* b) {
  if (a && b)
    return (a->is_object() && b->is_object()) || (a->is_array() && b->is_array() && a->size() == b->size());
  const Json* one = a ? a : b;
  return (one->is_object() || one->is_array()) && !one->empty();
}

std::string joined(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }

void walk(const std::string& path, const Json* a, const Json* b, const Leaf& leaf,
          const std::vector<std::string>& skip = {}) {
  if (!descends(a, b)) return leaf(path, a, b);
  const Json& shape = a ? *a : *b;
  if (shape.is_array()) {
    for (std::size_t i = 0; i < shape.size(); ++i)
      walk(path + "[" + std::to_string(i) + "]", element(a, i), element(b, i), leaf);
    return;
  }
  const auto skipped = [&](const std::string& k) { return std::find(skip.begin(), skip.end(), k) != skip.end(); };
  if (a)
    for (const auto& [k, v] : a->items())
      if (!skipped(k)) walk(joined(path, k), &v, member(b, k), leaf);
  if (b)
    for (const auto& [k, v] : b->items())
      if (!skipped(k) && !member(a, k)) walk(joined(path, k), nullptr, &v, leaf);
}

/// {key: path, "a": ..., "b": ...}, a side left out where it is missing.
Json row(const char* key, const std::string& path, const Json* a, const Json* b) {
  Json r = {{key, path}};
  if (a) r["a"] = *a;
  if (b) r["b"] = *b;
  return r;
}

bool same(const Json* a, const Json* b) { return a && b && *a == *b; }

/// A whole number held exactly as a 64-bit signed integer, if it is one.
std::optional<std::int64_t> as_int64(const Json& v) {
  if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)) return std::nullopt;
  if (v.is_number_integer()) return v.get<std::int64_t>();
  return std::nullopt;
}

/// B - A: exact for two whole numbers, else as doubles; null for anything that is not two numbers.
Json difference(const Json* a, const Json* b) {
  if (!a || !b || !a->is_number() || !b->is_number()) return nullptr;
  const auto x = as_int64(*a), y = as_int64(*b);
  std::int64_t d = 0;
  if (x && y && !__builtin_sub_overflow(*y, *x, &d)) return d;
  const double r = b->get<double>() - a->get<double>();
  return std::isfinite(r) ? Json(r) : Json(nullptr);
}

/// B / A: 1 when both are 0, null when only A is 0 or it is not two numbers.
Json ratio(const Json* a, const Json* b) {
  if (!a || !b || !a->is_number() || !b->is_number()) return nullptr;
  const double x = a->get<double>(), y = b->get<double>();
  if (x == 0) return y == 0 ? Json(1.0) : Json(nullptr);
  const double r = y / x;
  return std::isfinite(r) ? Json(r) : Json(nullptr);
}

bool numeric(const Json* v) { return !v || v->is_number() || v->is_null(); }

/// The rows with the comparable metrics first, in the order compare and sweep print them (app/metrics.hpp), then
/// the others (jobs, rounds, stages...) in the file's order.
Json in_metric_order(const Json& rows) {
  const auto& keys = metric_keys();
  const auto rank = [&](const Json& r) {
    const auto it = std::find_if(keys.begin(), keys.end(), [&](const auto& k) { return k.first == r["metric"]; });
    return it - keys.begin();
  };
  std::vector<Json> sorted(rows.begin(), rows.end());
  std::stable_sort(sorted.begin(), sorted.end(), [&](const Json& x, const Json& y) { return rank(x) < rank(y); });
  return sorted;
}

}  // namespace

Json differing_fields(const Json& a, const Json& b, const std::vector<std::string>& skip) {
  Json rows = Json::array();
  walk("", &a, &b, [&](const std::string& path, const Json* x, const Json* y) {
    if (!same(x, y)) rows.push_back(row("field", path, x, y));
  }, skip);
  return rows;
}

Json metrics(const Json& a, const Json& b) {
  Json rows = Json::array(), other = Json::array();
  walk("", &a, &b, [&](const std::string& path, const Json* x, const Json* y) {
    if (numeric(x) && numeric(y)) {
      Json r = row("metric", path, x, y);
      r["ratio"] = ratio(x, y);
      r["difference"] = difference(x, y);
      rows.push_back(std::move(r));
    } else if (!same(x, y)) {
      other.push_back(row("field", path, x, y));
    }
  });
  return {{"metrics", in_metric_order(rows)}, {"other", other}};
}

Json run_pair(const Json& run_a, const Json& summary_a, const Json& run_b, const Json& summary_b) {
  Json pair = {{"inputs", differing_fields(run_a, run_b)}};
  pair.update(metrics(summary_a, summary_b));
  return pair;
}

}  // namespace odcn::app::diff
