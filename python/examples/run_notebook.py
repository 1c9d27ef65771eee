#!/usr/bin/python3
"""Runs a notebook's code cells in order, in one namespace, without Jupyter (Debian 12's python3 has no nbconvert
by default): each cell's printed text becomes its output. `--save` writes the outputs back into the notebook, so
that it shows them where it is read (GitHub, an editor); without it the notebook file is left as it is.

    /usr/bin/python3 python/examples/run_notebook.py python/examples/opus-table.ipynb [--save]

Exit 1 (with the cell's number and the error) when a cell raises. As a module: run(path) returns the namespace."""
import contextlib
import io
import json
import os
import sys
import traceback


def run(path, save=False):
    with open(path, encoding="utf-8") as f:
        notebook = json.load(f)
    namespace = {"__name__": "__notebook__"}
    count = 0
    for index, cell in enumerate(notebook["cells"]):
        if cell["cell_type"] != "code":
            continue
        count += 1
        printed = io.StringIO()
        source = "".join(cell["source"])
        try:
            with contextlib.redirect_stdout(printed):
                exec(compile(source, f"{path} cell {index}", "exec"), namespace)
        except Exception:
            raise RuntimeError(f"{path}: cell {index} raised:\n{traceback.format_exc()}") from None
        cell["execution_count"] = count
        text = printed.getvalue()
        cell["outputs"] = [{"name": "stdout", "output_type": "stream", "text": text.splitlines(True)}] if text else []
    if save:
        tmp = path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(notebook, f, indent=1, ensure_ascii=False)
            f.write("\n")
        os.replace(tmp, path)
    return namespace


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--save"]
    if len(args) != 1:
        sys.stderr.write("usage: run_notebook.py NOTEBOOK.ipynb [--save]\n")
        sys.exit(2)
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    try:
        run(args[0], "--save" in sys.argv[1:])
    except RuntimeError as e:
        sys.stderr.write(str(e))
        sys.exit(1)
