"""odcnsim from Python: load a run, a compare or a sweep folder as pandas DataFrames and dicts, run the simulator
and get its result loaded, and draw the figures of the repository's analysis/ tools.

    import odcnsim
    r = odcnsim.run(platform="platforms/clos-8pod.yaml", workload="workloads/small-mix.yaml", policy="tdm4",
                    out="out/mix")
    r.summary["makespan_s"], r.jobs.head()          # summary.json as a dict, jobs.csv as a DataFrame
    c = odcnsim.load_compare("out/cmp"); c.table    # compare.csv; c.runs["tdm4"] is that policy's run
    s = odcnsim.load_sweep("out/delay"); s.table    # sweep.csv; s.point(s.table.point[0]) loads one point
    odcnsim.plots.sweep("out/delay/sweep.csv", x="ocs.reconfig_delay_us", y=["makespan_s"])

Errors: a folder that is not an odcnsim result raises ResultError; a run the simulator refuses raises RunError
with its one-line message (`file: field: reason`) and exit status.
"""
from .results import Compare, ResultError, Run, Sweep, load_compare, load_run, load_sweep
from .runner import RunError, binary, run
from . import plots

__all__ = ["Compare", "ResultError", "Run", "Sweep", "load_compare", "load_run", "load_sweep", "RunError", "binary",
           "run", "plots"]
