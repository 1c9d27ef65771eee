"""Calling the odcnsim binary: `run` builds the command line of `odcnsim run`, waits for it and returns the loaded
result. Paths are taken as the command line takes them (relative to the current folder)."""
import os
import shutil
import subprocess
import tempfile

from .results import Run

REPOSITORY = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class RunError(RuntimeError):
    """odcnsim refused or failed: its one-line message (`file: field: reason`) and exit status (2: bad input,
    1: an output could not be written or an internal error; docs/limits.md)."""

    def __init__(self, message, status, command):
        super().__init__(message)
        self.status = status
        self.command = command


def binary():
    """The odcnsim to call: $ODCNSIM, else this repository's build/odcnsim, else odcnsim on the PATH."""
    for candidate in (os.environ.get("ODCNSIM"), os.path.join(REPOSITORY, "build", "odcnsim"), shutil.which("odcnsim")):
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    raise RunError("no odcnsim binary: build it (bash scripts/run-default.sh) or set ODCNSIM to its path", 127, [])


def _sets(sets):
    if sets is None:
        return []
    items = sets.items() if isinstance(sets, dict) else (s.split("=", 1) for s in sets)
    out = []
    for key, value in items:
        if isinstance(value, bool):  # Python's True/False as the files spell them
            value = "true" if value else "false"
        out += ["--set", f"{key}={value}"]
    return out


def run(platform, workload, policy=None, out=None, sets=None, iterations=None, seed=None, slowdown=True, trace=None,
        force=False, extra=(), timeout=None):
    """Runs `odcnsim run` and returns its result as a Run. `sets`: {key: value} or ["key=value"] (--set each);
    `out`: the result folder (default: a new temporary folder, kept; Run.path says where); `extra`: any other
    arguments, as a list. Raises RunError with odcnsim's message when it exits with a non-zero status."""
    if out is None:
        out = os.path.join(tempfile.mkdtemp(prefix="odcnsim-"), "run")
    command = [binary(), "run", "--platform", os.fspath(platform), "--workload", os.fspath(workload),
               "--out", os.fspath(out), "--quiet"]
    if policy is not None:
        command += ["--policy", policy]
    if iterations is not None:
        command += ["--iterations", str(iterations)]
    if seed is not None:
        command += ["--seed", str(seed)]
    if not slowdown:
        command.append("--no-slowdown")
    if trace is not None:
        command += ["--trace", trace]
    if force:
        command.append("--force")
    command += _sets(sets) + [str(a) for a in extra]
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        message = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit status {done.returncode}"
        raise RunError(message, done.returncode, command)
    return Run(out)
