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
  sigset_t handled;  ///< the signals of kSignals that were not ignored when install() ran
};

State& state() {
  static State s;
  return s;
}


const char* name_of(int sig) { return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "SIGHUP"; }

[[noreturn]] void waiter() {
  const sigset_t set = state().handled;
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
  // A signal the caller ignores (nohup, `trap '' INT`) stays ignored: Linux queues a blocked signal even
  // when it is ignored, so such signals are neither blocked nor waited for.
  sigemptyset(&s.handled);
  for (int i = 0; i < 3; ++i) {
    sigaction(kSignals[i], nullptr, &s.original[i]);
    if (s.original[i].sa_handler != SIG_IGN) sigaddset(&s.handled, kSignals[i]);
  }
  signal(SIGXFSZ, SIG_IGN);
  pthread_sigmask(SIG_BLOCK, &s.handled, nullptr);
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
  if (state().installed) pthread_sigmask(SIG_UNBLOCK, &state().handled, nullptr);
}

}  // namespace odcn::interrupt
