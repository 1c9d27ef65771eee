#include "core/numbers.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

#include "core/error.hpp"
#include "core/text.hpp"

namespace odcn {

namespace {

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

[[noreturn]] void out_of_range(const std::string& file, const std::string& field, const std::string& lo,
                               const std::string& hi, bool below, std::string_view text) {
  if (below && (lo == "1" || lo == "0"))
    throw InputError(file, field, fmt::format("must be {} 0 (got {})", lo == "1" ? ">" : ">=", shown(text)));
  throw InputError(file, field, fmt::format("must be between {} and {} (got {}; see docs/limits.md)", lo, hi,
                                            shown(text)));
}

}  // namespace

std::int64_t parse_integer(std::string_view text, std::int64_t lo, std::int64_t hi, const std::string& file,
                           const std::string& field) {
  std::string_view digits = text;
  const bool negative = !digits.empty() && digits.front() == '-';
  if (!digits.empty() && (digits.front() == '-' || digits.front() == '+')) digits.remove_prefix(1);
  if (!all_digits(digits)) throw InputError(file, field, fmt::format("must be a whole number (got '{}')", shown(text)));
  std::uint64_t magnitude = 0;
  const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), magnitude);
  const bool huge = ec == std::errc::result_out_of_range || ptr != digits.data() + digits.size();
  const std::string lo_s = std::to_string(lo), hi_s = std::to_string(hi);
  if (huge) out_of_range(file, field, lo_s, hi_s, negative, text);
  // Compare in 128 bits: the magnitude may exceed int64 although the text is a valid uint64.
  const __int128 v = negative ? -static_cast<__int128>(magnitude) : static_cast<__int128>(magnitude);
  if (v < lo || v > hi) out_of_range(file, field, lo_s, hi_s, v < lo, text);
  return static_cast<std::int64_t>(v);
}

std::uint64_t parse_seed(std::string_view text, const std::string& file, const std::string& field) {
  std::string_view digits = text;
  if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
  std::uint64_t v = 0;
  const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (!all_digits(digits) || ec != std::errc() || ptr != digits.data() + digits.size())
    throw InputError(file, field,
                     fmt::format("must be a whole number between 0 and 18446744073709551615 (got '{}')", shown(text)));
  return v;
}

double parse_real(std::string_view text, double lo, double hi, bool lo_open, const std::string& file,
                  const std::string& field) {
  std::string_view s = text;
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  // Only decimal and scientific notation: digits, one point, an exponent. from_chars would also take
  // "inf", "nan" and (with a flag) hexadecimal, none of which belongs in an input file.
  bool ok = !s.empty();
  for (char c : s) ok = ok && ((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+');
  double v = 0;
  if (ok) {
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v, std::chars_format::general);
    if (ec == std::errc::result_out_of_range)
      throw InputError(file, field, fmt::format("is too large or too small for a number (got '{}')", shown(text)));
    ok = ec == std::errc() && ptr == s.data() + s.size() && std::isfinite(v);
  }
  if (!ok) throw InputError(file, field, fmt::format("must be a number (got '{}')", shown(text)));
  if (v == 0) v = 0;  // no negative zero
  if (v <= 0 && (lo > 0 || (lo == 0 && lo_open)))
    throw InputError(file, field, fmt::format("must be > 0 (got {})", v));
  if (v < 0 && lo == 0) throw InputError(file, field, fmt::format("must be >= 0 (got {})", v));
  if (v < lo || (lo_open && v == lo) || v > hi)
    throw InputError(file, field,
                     lo_open ? fmt::format("must be > {} and at most {} (got {}; see docs/limits.md)", lo, hi, shown(text))
                             : fmt::format("must be between {} and {} (got {}; see docs/limits.md)", lo, hi, shown(text)));
  return v;
}

void check_derived(double value, double lo, double hi, const std::string& file, const std::string& field,
                   const std::string& what) {
  if (!std::isfinite(value) || value < lo || value > hi)
    throw InputError(file, field,
                     fmt::format("{} is {}, outside the supported range {} to {} (see docs/limits.md)", what, value,
                                 lo, hi));
}

}  // namespace odcn
