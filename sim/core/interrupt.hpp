#pragma once
// Ctrl-C, SIGTERM and SIGHUP: remove what the run had half-written, say so in one line, and exit with
// 128 + the signal number (130, 143, 129), as shells expect.
//
// The signals are blocked in every thread and taken by one thread that waits for them (sigwait), so the
// cleanup runs as ordinary code, not inside a signal handler, and SimGrid's own SIGINT handler (which
// prints the actors' state and exits 1) never runs.
#include <mutex>
#include <string>

namespace odcn::interrupt {

/// Call first in main(), before any other thread exists. Also ignores SIGXFSZ, so that a file-size limit
/// makes a write fail with EFBIG (reported as an error) instead of killing the process silently.
void install();

/// Puts back the dispositions of SIGINT, SIGTERM and SIGHUP found by install(). The engine calls it after
/// creating SimGrid's Engine, which installs a SIGINT handler of its own; a signal the caller ignored
/// (nohup, a background job) then stays ignored.
void restore_dispositions();

/// While registered, an interrupt removes `path` (recursively) before the process exits.
void remove_on_interrupt(const std::string& path);
void forget(const std::string& path);

/// Held while outputs are moved into place: an interrupt waits for it, so it takes effect either before
/// the move (the old result stays) or after it (the new result is complete).
std::unique_lock<std::recursive_mutex> hold();

/// In a child between fork() and exec(): unblocks the signals that install() blocked.
void unblock_in_child();

}  // namespace odcn::interrupt
