"""Human labels with units for every key the plotting tools may put on an axis, a legend or a title.

Not a command. `label(key)` gives the label ("OCS reconfiguration delay δ (µs)" for `ocs.reconfig_delay_us`,
"makespan (s)" for `makespan_s`); `name(key)` the label without its unit, for titles. The table holds every
`--set` path of the platform and workload readers (sim/spec/*.cpp: what a sweep may vary), every metric of
summary.json and sweep.csv (docs/outputs.md) and the columns of the per-run CSVs the tools read. A key the table
does not know is turned into words, with its unit taken from the suffix (`_s` → "(s)", `_us` → "(µs)", ...)
and its parent path in brackets: `ps_jobs.scheduler.group_delay_s` → "group delay (s) [ps_jobs.scheduler]".
"""
import textwrap

# The comparable metrics in the order odcnsim writes them (the labels of sim/app/metrics.cpp), then the TDM
# policies' extra columns of sweep.csv and the other numbers of summary.json.
METRICS = {
    "makespan_s": "makespan (s)",
    "job_completion_mean_s": "mean job completion (s)",
    "job_completion_median_s": "median job completion (s)",
    "job_completion_p95_s": "p95 job completion (s)",
    "job_completion_max_s": "max job completion (s)",
    "mean_iteration_s": "mean iteration (s)",
    "throughput_iterations_per_hour": "throughput (iterations/h)",
    "slowdown_mean": "mean slowdown",
    "slowdown_p95": "p95 slowdown",
    "slowdown_max": "max slowdown",
    "reconfigurations": "reconfigurations",
    "circuits_changed": "circuits changed",
    "share_compute": "compute share",
    "share_communication": "communication share",
    "share_reconfiguration_stall": "reconfiguration-stall share",
    "share_waiting": "waiting share",
    "share_hidden_communication": "hidden communication share",
}
EXTRAS = {
    "rounds": "TDM rounds",
    "round_time_s": "TDM round time (s)",
    "predicted_round_time_s": "predicted round time (s)",
    "seed_round_time_s": "Eq. (1) round time + ε (s)",
    "epsilon_s": "ε (s)",
    "hill_climb_moves": "hill-climb moves",
    "training_to_comm_ratio": "training / communication time",
    "group_a_jobs": "jobs in group A",
    "group_b_jobs": "jobs in group B",
    "pair_moves": "two-job moves",
    "neighbour_evaluations": "neighbours evaluated",
    "search": "TDM-4 search",
    "ilp_objective_s": "ILP optimum round (s)",
    "tdm4_round_time_s": "hill-climb round (s)",
    "tdm4_gap": "hill climb's gap to the ILP",
    "iteration_rows": "iteration rows",
    "unplaced_jobs": "unplaced jobs",
    "jobs": "jobs",
    "iterations": "iterations per job",
}
# Columns of a run's CSVs (jobs.csv, iterations.csv, stages.csv, circuits.csv) and of the figure scripts' CSVs.
COLUMNS = {
    "arrival_s": "arrival (s)",
    "admitted_s": "admission (s)",
    "done_s": "end (s)",
    "completion_s": "job completion time (s)",
    "service_s": "service time (s)",
    "alone_s": "time alone (s)",
    "slowdown": "slowdown (completion / alone)",
    "compute_s": "compute (s)",
    "communication_s": "communication (s)",
    "reconfiguration_stall_s": "reconfiguration stall (s)",
    "waiting_s": "waiting (s)",
    "hidden_communication_s": "hidden communication (s)",
    "duration_s": "duration (s)",
    "circuit_bytes": "bytes over circuits",
    "tor_bytes": "bytes over ToR links",
    "time_s": "time (s)",
    "old_circuits": "circuits before",
    "new_circuits": "circuits after",
    "delay_ms": "OCS reconfiguration delay (ms)",
    "window_s": "window between parallelism phases (s)",
    "next_bytes": "traffic after the window (bytes)",
    "electrical_s": "iteration on electrical rails (s)",
    "on_demand_s": "iteration, on-demand circuits (s)",
    "provisioned_s": "iteration, provisioned circuits (s)",
}
# Every --set path of the platform kinds (sim/spec/platform_spec.cpp, fabric_kinds.cpp).
PLATFORM = {
    "pods.count": "pods",
    "pods.gpus_per_pod": "GPUs per pod",
    "pods.tor_gbps": "ToR bandwidth (Gb/s)",
    "pods.inc_jobs": "in-network aggregation jobs per ToR",
    "pods.servers_per_pod": "servers per pod",
    "pods.server_gbps": "server NIC rate (Gb/s)",
    "ocs.ports_per_pod": "OCS ports per pod",
    "ocs.port_gbps": "OCS port rate (Gb/s)",
    "ocs.oxcs": "OXCs",
    "ocs.ports_per_oxc": "ports per OXC",
    "ocs.pods_per_group": "pods per OXC group",
    "ocs.reconfig_delay_us": "OCS reconfiguration delay δ (µs)",
    "ocs.reconfig_delay_ms": "OCS reconfiguration delay δ (ms)",
    "ocs.duplex": "OCS ports' duplex",
    "ocs.base_topology": "base topology",
    "ocs.technology": "OCS technology",
    "ocs.count": "OCSes",
    "ocs.ports": "ports per OCS",
    "ocs.radix": "OCS radix",
    "servers.count": "servers",
    "servers.gpus_per_server": "GPUs per server",
    "servers.nic_ports": "NIC ports per server",
    "servers.nic_gbps": "NIC port rate (Gb/s)",
    "servers.scaleup_gbps": "scale-up bandwidth (Gb/s)",
    "scaleup.domains": "scale-up domains",
    "scaleup.gpus_per_domain": "GPUs per scale-up domain",
    "scaleup.gbps": "scale-up bandwidth (Gb/s)",
    "nic.split": "NIC split",
    "nic.rings": "rings per NIC",
    "nic.hop_circuits": "circuits per hop",
    "switch": "electrical switching",
    "slot_us": "slot (µs)",
    "slot_ms": "slot (ms)",
    "flexnet.segment_kib": "FlexNet segment (KiB)",
    "flexnet.hop_latency_us": "FlexNet hop latency (µs)",
    "flexnet.nvlink_gbps": "NVLink bandwidth (Gb/s)",
}
# Every --set path of the workload kinds (sim/spec/workload_spec.cpp, ps_workload.cpp).
WORKLOAD = {
    "generator.jobs": "generated jobs",
    "generator.seed": "generator seed",
    "generator.models": "models drawn",
    "generator.degree": "parallelism degree",
    "generator.types": "job types",
    "training.model": "compute model",
    "training.recompute_factor": "recompute factor",
    "training.context_tokens": "context length (tokens)",
    "training.gpu_tflops": "GPU peak (TFLOP/s)",
    "training.efficiency": "GPU efficiency (MFU)",
    "training.precision": "precision",
    "training.bytes_per_param": "bytes per parameter",
    "training.sequences_per_replica": "sequences per replica",
    "training.split_over_unit": "split over the unit",
    "traffic.tor": "ToR traffic model",
    "ps_jobs.slot_s": "scheduling slot (s)",
    "ps_jobs.ps_server": "parameter-server placement",
    "ps_jobs.generator.jobs": "generated jobs",
    "ps_jobs.generator.seed": "generator seed",
    "ps_jobs.generator.arrivals_per_s": "arrival rate (jobs/s)",
    "ps_jobs.generator.workers": "workers per job",
    "ps_jobs.generator.iterations": "iterations per job",
    "ps_jobs.scheduler.ljf_key": "LJF ordering key",
    "ps_jobs.scheduler.reserve": "reserved ports",
    "ps_jobs.scheduler.group_delay": "group delay",
    "ps_jobs.scheduler.group_gate": "group gate",
    "ps_jobs.scheduler.group_cohorts": "group cohorts",
}
LABELS = {**METRICS, **EXTRAS, **COLUMNS, **PLATFORM, **WORKLOAD}

# Unit suffixes of names, longest first.
UNITS = [("_per_hour", " per hour"), ("_per_s", " per second"), ("_bytes", " (bytes)"), ("_gbps", " (Gb/s)"),
         ("_kib", " (KiB)"), ("_us", " (µs)"), ("_ms", " (ms)"), ("_s", " (s)"), ("_pct", " (%)")]


def _words(name):
    """`foo_bar_us` → `foo bar (µs)`, `share_x` → `x share`."""
    if name.startswith("share_") and len(name) > len("share_"):
        return name[len("share_"):].replace("_", " ") + " share"
    for suffix, unit in UNITS:
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)].replace("_", " ") + unit
    return name.replace("_", " ")


def label(key):
    """The human label of a key, with its unit: the table, else words from the name (the parent path of a
    dotted key in brackets, so that two keys never read the same)."""
    key = str(key)
    for k in (key, key[len("platform."):] if key.startswith("platform.") else None,
              key[len("workload."):] if key.startswith("workload.") else None):
        if k is not None and k in LABELS:
            return LABELS[k]
    parent, _, last = key.rpartition(".")
    words = _words(last)
    return f"{words} [{parent}]" if parent else words


def name(key):
    """The label without its unit: `makespan (s)` → `makespan`, for titles."""
    text = label(key)
    if " [" in text and text.endswith("]"):
        text = text[: text.rindex(" [")]
    if text.endswith(")") and " (" in text:
        return text[: text.rindex(" (")]
    for suffix in (" per hour", " per second"):
        if text.endswith(suffix):
            return text[: -len(suffix)]
    return text


def wrap(text, width):
    """Long text broken into lines of at most `width` characters (existing line breaks kept)."""
    return "\n".join(line for part in str(text).split("\n") for line in (textwrap.wrap(part, width) or [""]))


def unit(key):
    """The unit of a key's label without brackets (`µs` for `ocs.reconfig_delay_us`), or ''."""
    text = label(key)
    if " [" in text and text.endswith("]"):
        text = text[: text.rindex(" [")]
    if text.endswith(")") and " (" in text:
        return text[text.rindex(" (") + 2: -1]
    return ""


def setting(key, value):
    """A key's value for a legend: `OCS ports per pod = 8`, `OCS reconfiguration delay δ = 1000 µs`."""
    u = unit(key)
    return f"{name(key)} = {value}" + (f" {u}" if u else "")
