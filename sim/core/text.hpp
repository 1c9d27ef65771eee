#pragma once
// Text that odcnsim echoes back to the user (file names, keys, values) can hold anything: line breaks,
// terminal escape sequences, bytes that are not UTF-8, or a 300-digit number. These helpers make such text
// safe to print on one line.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace odcn {

/// True if `s` is well-formed UTF-8 (no overlong forms, no surrogates, nothing above U+10FFFF).
bool is_utf8(std::string_view s);

/// Position of the first byte that breaks UTF-8, or std::string_view::npos.
std::size_t first_bad_utf8(std::string_view s);

/// Copies `s`, writing every control character (U+0000–U+001F, U+007F) and every byte that is not part of
/// well-formed UTF-8 as `\xNN`, and C1 controls, line/paragraph separators and bidirectional formatting
/// characters as `\uNNNN`, so the result prints on one line as what it is. Escaping twice changes nothing.
std::string escape_line(std::string_view s);

/// escape_line(s), cut to at most `max_chars` bytes with "..." and the full length appended when longer,
/// for values echoed inside error messages.
std::string shown(std::string_view s, std::size_t max_chars = 40);

/// "did you mean 'x'?" when one of `candidates` is within about a third of the word's length (Levenshtein
/// distance) and no other is as near, else "".
std::string suggestion(const std::string& word, const std::vector<std::string>& candidates);
/// The pieces of a comma-separated list, empty ones included ("" is one empty piece), for options such as
/// --policies a,b and --jobs 100,1000; each caller checks its pieces.
std::vector<std::string> split_commas(std::string_view text);
/// "; did you mean 'x'?" to end a message, or "" (suggestion's rule).
std::string with_hint(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace odcn
