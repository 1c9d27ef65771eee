#pragma once
// Strict reading of numbers from text (YAML scalars and command-line values alike). Nothing is truncated,
// wrapped or rounded silently: a value is either read exactly and within its documented range, or it is
// refused with InputError("file: field: reason").
#include <cstdint>
#include <string>
#include <string_view>

namespace odcn {

/// A whole number in decimal notation: an optional sign and digits ("16", "-3", "+7"). Fractions ("1.5"),
/// exponents ("1e3"), hexadecimal and blanks are refused, and so is any value outside [lo, hi].
std::int64_t parse_integer(std::string_view text, std::int64_t lo, std::int64_t hi, const std::string& file,
                           const std::string& field);

/// A seed: a whole number in [0, 2^64 - 1].
std::uint64_t parse_seed(std::string_view text, const std::string& file, const std::string& field);

/// A finite real number in decimal or scientific notation ("150", "0.4", "1e-3"), within [lo, hi]; when
/// `lo_open` is set the lower bound itself is refused (for sizes that must be > 0). "inf", "nan", hexadecimal
/// floats and values that overflow a double are refused.
double parse_real(std::string_view text, double lo, double hi, bool lo_open, const std::string& file,
                  const std::string& field);

/// A bound check for a value computed from inputs (e.g. Eq. 8's training time): refuses non-finite values and
/// values outside [lo, hi], naming `what` in the reason.
void check_derived(double value, double lo, double hi, const std::string& file, const std::string& field,
                   const std::string& what);

}  // namespace odcn
