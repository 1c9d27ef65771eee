#include "core/text.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace odcn {

std::size_t first_bad_utf8(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const std::size_t n = s.size();
  std::size_t i = 0;
  while (i < n) {
    const unsigned c = p[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t len = 0;
    unsigned lo = 0x80, hi = 0xBF;  // allowed range of the second byte (RFC 3629, table 3-7 of Unicode)
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;  // no UTF-16 surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;  // nothing above U+10FFFF
    } else {
      return i;
    }
    if (i + len > n) return i;
    if (p[i + 1] < lo || p[i + 1] > hi) return i;
    for (std::size_t k = 2; k < len; ++k)
      if (p[i + k] < 0x80 || p[i + k] > 0xBF) return i;
    i += len;
  }
  return std::string_view::npos;
}

bool is_utf8(std::string_view s) { return first_bad_utf8(s) == std::string_view::npos; }

namespace {

/// C1 controls (U+0080-U+009F), line and paragraph separators, and the bidirectional formatting characters
/// that can make a line display as something else (U+200E/F, U+202A-U+202E, U+2066-U+2069).
bool is_hidden_control(char32_t cp) {
  return (cp >= 0x80 && cp <= 0x9F) || cp == 0x200E || cp == 0x200F || (cp >= 0x2028 && cp <= 0x202E) ||
         (cp >= 0x2066 && cp <= 0x2069);
}

}  // namespace

std::string escape_line(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  std::size_t i = 0;
  while (i < s.size()) {
    const std::size_t bad = first_bad_utf8(s.substr(i));
    const std::size_t good_end = bad == std::string_view::npos ? s.size() : i + bad;
    while (i < good_end) {
      const auto c = static_cast<unsigned char>(s[i]);
      if (c < 0x80) {
        if (c < 0x20 || c == 0x7F)
          out += fmt::format("\\x{:02x}", c);
        else
          out += static_cast<char>(c);
        ++i;
        continue;
      }
      // A well-formed multi-byte character: escape those that move or hide text on a terminal.
      const std::size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
      char32_t cp = c & (len == 2 ? 0x1F : len == 3 ? 0x0F : 0x07);
      for (std::size_t k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
      if (is_hidden_control(cp))
        out += fmt::format("\\u{:04x}", static_cast<unsigned>(cp));
      else
        out.append(s.substr(i, len));
      i += len;
    }
    if (i < s.size()) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(s[i]));
      ++i;
    }
  }
  return out;
}

std::string shown(std::string_view s, std::size_t max_chars) {
  std::string e = escape_line(s);
  if (e.size() <= max_chars) return e;
  std::size_t cut = max_chars;
  // Do not cut inside a multi-byte character or an escape.
  while (cut > 0 && (static_cast<unsigned char>(e[cut]) & 0xC0) == 0x80) --cut;
  return fmt::format("{}... ({} characters)", e.substr(0, cut), s.size());
}

namespace {

/// Levenshtein distance, for "did you mean" suggestions.
std::size_t distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

}  // namespace

/// "did you mean 'x'?" when a candidate is within a third of the word's length, else "".
std::string suggestion(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_d = word.size() / 3 + 1;
  bool tied = false;  // two candidates as near: no guess ('7B' is as near 1B as 8B)
  for (const auto& c : candidates) {
    const std::size_t d = distance(word, c);
    if (d < best_d || (d == best_d && best.empty() && d <= 2)) {
      best = c;
      best_d = d;
      tied = false;
    } else if (d == best_d && !best.empty() && c != best) {
      tied = true;
    }
  }
  return best.empty() || tied ? "" : fmt::format("did you mean '{}'?", best);
}

std::vector<std::string> split_commas(std::string_view text) {
  std::vector<std::string> pieces;
  for (std::size_t start = 0; start <= text.size();) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    pieces.emplace_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return pieces;
}

std::string with_hint(const std::string& word, const std::vector<std::string>& candidates) {
  const std::string hint = suggestion(word, candidates);
  return hint.empty() ? "" : "; " + hint;
}

}  // namespace odcn
