#pragma once
#include <cstdint>
#include <random>

namespace odcn {

/// Seeded generator whose draws are identical on every platform: std::mt19937_64 is fully specified by the
/// standard, but std::uniform_int_distribution is not, so the draws below are written out.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : engine_(seed) {}
  /// Uniform integer in [lo, hi] (inclusive), by rejection sampling so that it is unbiased.
  std::int64_t uniform_int(std::int64_t lo, std::int64_t hi) {
    const std::uint64_t span = static_cast<std::uint64_t>(hi - lo) + 1;
    const std::uint64_t limit = UINT64_MAX - (UINT64_MAX % span);
    std::uint64_t x;
    do {
      x = engine_();
    } while (x >= limit);
    return lo + static_cast<std::int64_t>(x % span);
  }
  /// Uniform double in [0, 1) with 53 random bits.
  double uniform01() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }

 private:
  std::mt19937_64 engine_;
};

}  // namespace odcn
