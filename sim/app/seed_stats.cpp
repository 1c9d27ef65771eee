#include "app/seed_stats.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>

#include "core/error.hpp"
#include "core/numbers.hpp"
#include "core/text.hpp"

namespace odcn::app {

SampleStats sample_stats(const std::vector<std::optional<double>>& values) {
  SampleStats s;
  double sum = 0;
  for (const auto& v : values)
    if (v) {
      ++s.n;
      sum += *v;
    }
  if (s.n == 0) return s;
  s.mean = sum / s.n;
  if (s.n < 2) return s;
  double squares = 0;
  for (const auto& v : values)
    if (v) squares += (*v - *s.mean) * (*v - *s.mean);
  s.sd = std::sqrt(squares / (s.n - 1));
  const boost::math::students_t t(s.n - 1);
  s.ci95 = boost::math::quantile(t, 0.975) * *s.sd / std::sqrt(static_cast<double>(s.n));
  return s;
}

std::vector<std::optional<double>> paired_ratios(const std::vector<std::optional<double>>& values,
                                                 const std::vector<std::optional<double>>& baseline) {
  std::vector<std::optional<double>> out(values.size());
  for (std::size_t i = 0; i < values.size() && i < baseline.size(); ++i)
    if (values[i] && baseline[i] && *baseline[i] != 0) out[i] = *values[i] / *baseline[i];
  return out;
}

std::optional<double> ratio_of_means(const std::vector<std::optional<double>>& values,
                                     const std::vector<std::optional<double>>& baseline) {
  std::vector<std::optional<double>> a, b;  // the seeds where both are present
  for (std::size_t i = 0; i < values.size() && i < baseline.size(); ++i)
    if (values[i] && baseline[i]) {
      a.push_back(values[i]);
      b.push_back(baseline[i]);
    }
  const auto ma = sample_stats(a).mean, mb = sample_stats(b).mean;
  if (!ma || !mb || *mb == 0) return std::nullopt;
  return *ma / *mb;
}

std::vector<std::uint64_t> parse_seed_list(const std::string& text, const std::string& file, const std::string& field,
                                           std::size_t max_seeds) {
  std::vector<std::uint64_t> seeds;
  const auto add = [&](std::uint64_t s) {
    if (std::find(seeds.begin(), seeds.end(), s) != seeds.end())
      throw InputError(file, field, fmt::format("seed {} is listed twice", s));
    if (seeds.size() == max_seeds) throw InputError(file, field, fmt::format("lists more than {} seeds", max_seeds));
    seeds.push_back(s);
  };
  if (text.empty()) throw InputError(file, field, "must list seeds, as 1-5 or 1,3,7");
  for (const std::string& item : split_commas(text)) {
    const std::size_t dash = item.find('-', 1);  // (a leading '-' is parse_seed's to refuse)
    if (dash == std::string::npos) {
      add(parse_seed(item, file, field));
    } else {
      const std::uint64_t lo = parse_seed(item.substr(0, dash), file, field);
      const std::uint64_t hi = parse_seed(item.substr(dash + 1), file, field);
      if (hi < lo) throw InputError(file, field, fmt::format("'{}' runs backwards (write {}-{})", shown(item), hi, lo));
      if (hi - lo >= max_seeds) throw InputError(file, field, fmt::format("lists more than {} seeds", max_seeds));
      for (std::uint64_t s = lo;; ++s) {
        add(s);
        if (s == hi) break;
      }
    }
  }
  return seeds;
}

}  // namespace odcn::app
