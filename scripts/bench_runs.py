"""Shared by the bench-*.sh scripts: run odcnsim commands, each in its own process, and report the median wall
time and the largest peak memory (max RSS from wait4) of REPEAT repetitions against a target."""
import os
import statistics
import subprocess
import sys
import time


def timed(commands, script):
    """Wall time of the commands run one after another, and the largest max RSS (MiB) among them."""
    t0, peak = time.monotonic(), 0.0
    for argv in commands:
        p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(p.pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            sys.exit(f"{script}: failed: {' '.join(argv)}\n{p.stderr.read().decode()}")
        peak = max(peak, usage.ru_maxrss / 1024)
    return time.monotonic() - t0, peak


def clos_platform(name, pods, group, tor_gbps):
    """A clos_ocs platform file's text: `pods` pods of one GPU in groups of `group`, one OXC per group, a 100 Gb/s
    port on each pod for every other pod of its group (one circuit per pod pair), delta = 1 us."""
    return (f"kind: clos_ocs\nname: {name}\npods: {{count: {pods}, gpus_per_pod: 1, tor_gbps: {tor_gbps}}}\n"
            f"ocs: {{ports_per_pod: {group - 1}, port_gbps: 100, oxcs: {pods // group}, "
            f"ports_per_oxc: {group * (group - 1)}, pods_per_group: {group}, reconfig_delay_us: 1}}\n")


def report(cases, repeat, script, width=8):
    """cases: (name, commands, wall target s or None, memory target MiB or None). One line per case."""
    print(f"{'case':<{width}} {'runs':>4} {'median wall s':>14} {'min':>8} {'max':>8} {'peak MiB':>9}  target")
    for name, commands, wall_target, mem_target in cases:
        samples = [timed(commands, script) for _ in range(repeat)]
        walls = [w for w, _ in samples]
        peak = max(m for _, m in samples)
        target = []
        if wall_target is not None:
            target.append(f"<= {wall_target:g} s {'ok' if statistics.median(walls) <= wall_target else 'MISSED'}")
        if mem_target is not None:
            target.append(f"<= {mem_target:g} MiB {'ok' if peak <= mem_target else 'MISSED'}")
        print(f"{name:<{width}} {len(commands):>4} {statistics.median(walls):>14.3f} {min(walls):>8.3f} "
              f"{max(walls):>8.3f} {peak:>9.1f}  {', '.join(target)}", flush=True)
