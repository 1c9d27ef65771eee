#pragma once
// What every fuzz target shares (tests/fuzz/README.md): the entry point, the contract checks and verbosity.
//
// Each target is one source under tests/fuzz/targets/, `ODCN_FUZZ_TARGET(name) { ... }` its body. It is built
// twice:
//   * by clang++ with -DODCN_FUZZ_LIBFUZZER and -fsanitize=fuzzer,address,undefined into its own libFuzzer
//     binary fuzz_<name> (tests/fuzz/libfuzzer/CMakeLists.txt): the macro defines LLVMFuzzerTestOneInput;
//   * by g++ into fuzz_replay, with every other target (tests/fuzz/CMakeLists.txt): the macro defines a
//     function registered under `name`, which `fuzz_replay --target name` runs files through.
// Expected outcomes of bad input: odcn::InputError (exit 2 in the CLI). Anything else escaping is a finding, and a
// broken contract calls broken(), which prints why and aborts.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>

#include "core/error.hpp"
#include "core/text.hpp"

namespace odcn_fuzz {

using Entry = int (*)(const std::uint8_t*, std::size_t);

/// The targets linked into this binary (fuzz_replay), by name.
inline std::map<std::string, Entry>& targets() {
  static std::map<std::string, Entry> all;
  return all;
}
struct Registration {
  Registration(const char* name, Entry e) { targets()[name] = e; }
};

/// ODCN_FUZZ_VERBOSE=1 in the environment prints what happened to each input (for fuzz_replay by hand).
inline bool verbose() {
  static const bool on = std::getenv("ODCN_FUZZ_VERBOSE") != nullptr;
  return on;
}

[[noreturn]] inline void broken(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz: %s: %s\n", what, detail.c_str());
  std::fflush(stderr);
  std::abort();
}

/// core/error.hpp: an InputError's message is always exactly one printable line, whatever the input held.
inline void check_message(const odcn::InputError& e) {
  const std::string_view m = e.what();
  if (m.empty()) broken("InputError with an empty message", "");
  if (odcn::first_bad_utf8(m) != std::string_view::npos)
    broken("InputError message is not UTF-8", odcn::escape_line(m));
  for (char c : m) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7F) broken("InputError message holds a control character", odcn::escape_line(m));
  }
  if (verbose()) std::fprintf(stderr, "  InputError: %s\n", e.what());
}

/// Runs `f`; an InputError is an expected outcome (its message checked), anything else escapes.
template <class F>
void expect_input_error(F&& f) {
  try {
    f();
  } catch (const odcn::InputError& e) {
    check_message(e);
  }
}

}  // namespace odcn_fuzz

#ifdef ODCN_FUZZ_LIBFUZZER
#define ODCN_FUZZ_TARGET(name) extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
#else
#define ODCN_FUZZ_TARGET(name)                                                                     \
  static int odcn_fuzz_##name(const std::uint8_t* data, std::size_t size);                        \
  static const ::odcn_fuzz::Registration odcn_fuzz_registration_##name(#name, &odcn_fuzz_##name); \
  static int odcn_fuzz_##name(const std::uint8_t* data, std::size_t size)
#endif
