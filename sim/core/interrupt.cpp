#include "core/interrupt.hpp"

#include <signal.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <set>
#include <thread>

namespace odcn::interrupt {

namespace {

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

struct State {
  std::recursive_mutex mutex;  // recursive: a commit holds it while it forgets its staging folder
  std::set<std::string> paths;
  bool installed = false;
  struct sigaction original[3] {};
};

State& state() {
  static State s;
  return s;
}

sigset_t signal_set() {
  sigset_t set;
  sigemptyset(&set);
  for (int s : kSignals) sigaddset(&set, s);
  return set;
}

const char* name_of(int sig) { return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "SIGHUP"; }

[[noreturn]] void waiter() {
  const sigset_t set = signal_set();
  int sig = 0;
  while (sigwait(&set, &sig) != 0) {
  }
  State& s = state();
  s.mutex.lock();  // never released: the process ends here, after any commit in progress
  bool removed = false;
  for (const auto& p : s.paths) {
    std::error_code ec;
    removed = std::filesystem::remove_all(p, ec) > 0 || removed;
  }
  const std::string line = std::string("odcnsim: interrupted by ") + name_of(sig) +
                           (removed ? "; the unfinished output was removed, earlier results are untouched\n" : "\n");
  const ssize_t ignored = ::write(STDERR_FILENO, line.data(), line.size());
  (void)ignored;
  ::_exit(128 + sig);
}

}  // namespace

void install() {
  State& s = state();
  if (s.installed) return;
  for (int i = 0; i < 3; ++i) sigaction(kSignals[i], nullptr, &s.original[i]);
  signal(SIGXFSZ, SIG_IGN);
  const sigset_t set = signal_set();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::thread(waiter).detach();
  s.installed = true;
}

void restore_dispositions() {
  State& s = state();
  if (!s.installed) return;
  for (int i = 0; i < 3; ++i) sigaction(kSignals[i], &s.original[i], nullptr);
}

void remove_on_interrupt(const std::string& path) {
  std::lock_guard<std::recursive_mutex> lock(state().mutex);
  state().paths.insert(path);
}

void forget(const std::string& path) {
  std::lock_guard<std::recursive_mutex> lock(state().mutex);
  state().paths.erase(path);
}

std::unique_lock<std::recursive_mutex> hold() { return std::unique_lock<std::recursive_mutex>(state().mutex); }

void unblock_in_child() {
  const sigset_t set = signal_set();
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

}  // namespace odcn::interrupt
