#!/usr/bin/python3
"""`odcnsim report DIR`: pages of real run and compare folders made by the binary ($ODCNSIM): the HTML parses,
holds the sections each kind must have (and says why for those left out), refers to nothing outside itself,
shows summary.json's values, is byte-identical when made again, and refusals are one line with exit 2."""
import html.parser
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TMP = tempfile.mkdtemp(prefix="odcnsim-report-test-")
MIX = ["--platform", "platforms/clos-8pod.yaml", "--workload", "workloads/small-mix.yaml"]
GRAPHS = ["--platform", "platforms/electrical-16.yaml", "--workload", "workloads/graphs-dp4.yaml"]
FOLDERS = {}


def binary():
    path = os.environ.get("ODCNSIM") or os.path.join(ROOT, "build", "odcnsim")
    if not os.access(path, os.X_OK):
        raise unittest.SkipTest(f"no odcnsim binary at {path}: set ODCNSIM")
    return path


def odcnsim(*args):
    return subprocess.run([binary(), *args], cwd=ROOT, capture_output=True, text=True, timeout=120)


def made(kind):
    """The folder of `kind` (tdm4, graphs, compare) with its report, made once."""
    if kind not in FOLDERS:
        out = os.path.join(TMP, kind)
        args = {"tdm4": ["run", *MIX, "--policy", "tdm4"], "graphs": ["run", *GRAPHS],
                "compare": ["compare", *MIX, "--policies", "static,tdm4"]}[kind]
        done = odcnsim(*args, "--iterations", "1", "--out", out, "--quiet")
        assert done.returncode == 0, done.stderr
        done = odcnsim("report", out)
        assert done.returncode == 0, done.stderr
        assert done.stdout == os.path.join(out, "report.html") + "\n", done.stdout
        FOLDERS[kind] = out
    return FOLDERS[kind]


def page(kind):
    with open(os.path.join(made(kind), "report.html"), encoding="utf-8") as f:
        return f.read()


class Page(html.parser.HTMLParser):
    """Every element's tag and attributes, the text of each table row by its data-key, and every section's class."""

    def __init__(self, text):
        super().__init__()
        self.elements, self.rows, self.sections, self.stack, self._row = [], {}, {}, [], None
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.elements.append((tag, a))
        if tag == "section":
            self.sections[a.get("id")] = a.get("class") or ""
        if tag == "tr" and a.get("data-key"):
            self._row = (self.current_table(), a["data-key"])
            self.rows[self._row] = []
        if tag in ("td", "th") and self._row:
            self.rows[self._row].append("")
        if tag not in ("img", "meta", "br", "link", "input"):
            self.stack.append((tag, a))

    def handle_endtag(self, tag):
        while self.stack and self.stack.pop()[0] != tag:
            pass
        if tag == "tr":
            self._row = None

    def handle_data(self, data):
        if self._row and self.rows[self._row]:
            self.rows[self._row][-1] += data

    def current_table(self):
        return next((a.get("id") for t, a in reversed(self.stack) if t == "table"), None)

    def ids(self):
        return {a["id"] for _, a in self.elements if "id" in a}


def shown(v):
    """A value as the page promises to write it (docs/workflow.md): n/a, true/false, integers without a point,
    other numbers to 6 significant digits."""
    if v is None:
        return "n/a"
    if v is True or v is False:
        return str(v).lower()
    if isinstance(v, float) and v == math.floor(v) and abs(v) < 1e15:
        return "%d" % v
    if isinstance(v, float):
        return "%.6g" % v
    return str(v)


class ReportTest(unittest.TestCase):
    def assert_self_contained(self, text):
        p = Page(text)
        for tag, a in p.elements:
            for name in ("src", "href", "srcset", "action", "data", "poster"):
                value = a.get(name)
                if value is None:
                    continue
                ok = value.startswith("data:") if name != "href" else value.startswith("#")
                self.assertTrue(ok, f"<{tag} {name}={value[:60]}>")
            self.assertNotIn(tag, ("script", "link", "iframe", "object", "embed"))
        lowered = re.sub(r'"data:image/png;base64,[a-z0-9+/=]*"', '""', text.lower())  # base64 holds '//'
        for needle in ("http:", "https:", "//", "@import", "url("):
            self.assertNotIn(needle, lowered)
        return p

    def test_a_tdm4_run_has_every_section_and_summary_json_s_values(self):
        p = self.assert_self_contained(page("tdm4"))
        for sid in ("header", "summary", "inputs", "jobs", "timeline", "circuits", "cdf", "stages"):
            self.assertEqual(p.sections.get(sid), "", sid)  # there and not left out
        for fig in ("timeline-figure", "circuits-figure", "cdf-figure", "stages-figure"):
            self.assertIn(fig, p.ids())
        images = [a["src"] for t, a in p.elements if t == "img"]
        self.assertEqual(len(images), 4)
        self.assertTrue(all(s.startswith("data:image/png;base64,") for s in images))
        with open(os.path.join(made("tdm4"), "summary.json")) as f:
            summary = json.load(f)
        checked = 0
        for key, value in summary.items():
            if isinstance(value, (list, dict)):
                continue
            self.assertEqual(p.rows[("summary-table", key)][-1], shown(value), key)
            checked += 1
        self.assertGreater(checked, 20)
        self.assertEqual(p.rows[("summary-table", "makespan_s")][0], "makespan (s)")
        # The inputs are run.json's.
        with open(os.path.join(made("tdm4"), "run.json")) as f:
            run = json.load(f)
        self.assertIn(run["platform"]["hash"], page("tdm4"))
        self.assertIn(run["command"], page("tdm4"))

    def test_a_job_graph_run_has_a_rank_timeline_and_says_why_it_has_no_circuits(self):
        text = page("graphs")
        p = self.assert_self_contained(text)
        self.assertIn("Per-rank timeline", text)
        self.assertEqual(p.sections.get("timeline"), "")
        self.assertEqual(p.sections.get("circuits"), "absent")
        self.assertEqual(p.sections.get("stages"), "absent")
        self.assertIn("circuits.csv has no rows", text)
        self.assertIn("runs no TDM stages", text)
        self.assertEqual(p.sections.get("cdf"), "")

    def test_a_compare_folder_has_the_table_and_a_section_per_policy(self):
        p = self.assert_self_contained(page("compare"))
        for sid in ("header", "summary", "inputs", "cdf", "policy-static", "policy-tdm4", "policy-tdm4-stages",
                    "policy-static-timeline", "policy-tdm4-circuits"):
            self.assertIn(sid, p.sections)
        self.assertEqual(p.sections["policy-static-stages"], "absent")
        self.assertEqual(p.sections["policy-tdm4-stages"], "")
        with open(os.path.join(made("compare"), "compare.json")) as f:
            info = json.load(f)
        for i, entry in enumerate(info["policies"]):
            for key, value in entry["metrics"].items():
                cells = p.rows[("summary-table", key)]
                self.assertEqual(cells[1 + 2 * i], shown(value), (entry["policy"], key))
                self.assertEqual(cells[2 + 2 * i], shown(entry["ratio_to_baseline"][key]), (entry["policy"], key))

    def test_the_same_folder_gives_the_same_bytes(self):
        first = page("tdm4")
        again = os.path.join(TMP, "again.html")
        done = odcnsim("report", made("tdm4"), "--out", again, "--quiet")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stdout, "")
        with open(again, encoding="utf-8") as f:
            self.assertEqual(f.read(), first)

    def test_refusals_are_one_line_and_exit_2(self):
        other = os.path.join(TMP, "not-a-result")
        os.makedirs(other, exist_ok=True)
        with open(os.path.join(other, "notes.txt"), "w") as f:
            f.write("mine\n")
        mine = os.path.join(TMP, "mine.html")
        with open(mine, "w") as f:
            f.write("<p>my own page</p>\n")
        cases = [([os.path.join(TMP, "missing")], "does not exist"),
                 ([other], "not an odcnsim result folder"),
                 ([made("tdm4"), "--out", mine], "is not a page odcnsim report wrote"),
                 ([made("tdm4"), "--out", os.path.join(TMP, "no", "such.html")], "does not exist")]
        for args, reason in cases:
            done = odcnsim("report", *args)
            self.assertEqual(done.returncode, 2, args)
            self.assertEqual(done.stderr.count("\n"), 1, done.stderr)
            self.assertIn(reason, done.stderr)
        self.assertEqual(os.listdir(other), ["notes.txt"])
        with open(mine) as f:
            self.assertEqual(f.read(), "<p>my own page</p>\n")

    def test_a_missing_matplotlib_names_debian_s_package(self):
        fake = os.path.join(TMP, "no-matplotlib")
        os.makedirs(os.path.join(fake, "matplotlib"), exist_ok=True)
        with open(os.path.join(fake, "matplotlib", "__init__.py"), "w") as f:
            f.write("raise ModuleNotFoundError(\"No module named 'matplotlib'\", name='matplotlib')\n")
        env = dict(os.environ, ODCNSIM_PYTHON_DIR=fake + ":" + os.path.join(ROOT, "python"))
        done = subprocess.run([binary(), "report", made("graphs"), "--out", os.path.join(TMP, "x.html")], cwd=ROOT,
                              capture_output=True, text=True, env=env, timeout=60)
        self.assertEqual(done.returncode, 2)
        self.assertEqual(done.stderr.count("\n"), 1, done.stderr)
        self.assertIn("python3-matplotlib", done.stderr)
        self.assertFalse(os.path.exists(os.path.join(TMP, "x.html")))


class BrowserTest(unittest.TestCase):
    """The pages in Debian's chromium, headless: they load, log no console error, and every image decodes."""

    PROBE = ("<script>addEventListener('load', function () { var i = document.images, n = 0;"
             " for (var k = 0; k < i.length; k++) if (i[k].complete && i[k].naturalWidth > 0) n++;"
             " document.title = 'decoded ' + n + ' of ' + i.length; });</script>")

    def chromium(self):
        if os.environ.get("ODCNSIM_NO_BROWSER") == "1":
            self.skipTest("ODCNSIM_NO_BROWSER=1: the headless-browser check is skipped")
        path = shutil.which("chromium") or shutil.which("chromium-browser")
        self.assertIsNotNone(path, "no chromium on the PATH: install Debian's chromium (scripts/test.sh does), or "
                                   "set ODCNSIM_NO_BROWSER=1 to skip this check")
        return path

    def load(self, kind):
        """(the DOM chromium dumps, its stderr) for `kind`'s page with the probe added (the page holds no script)."""
        text = page(kind)
        probed = os.path.join(TMP, f"probe-{kind}.html")
        with open(probed, "w", encoding="utf-8") as f:
            f.write(text.replace("</body>", self.PROBE + "</body>", 1))
        profile = tempfile.mkdtemp(prefix="chromium-", dir=TMP)
        done = subprocess.run([self.chromium(), "--headless=new", "--no-sandbox", "--disable-gpu",
                               "--enable-logging=stderr", "--v=0", f"--user-data-dir={profile}",
                               "--virtual-time-budget=5000", "--dump-dom", "file://" + probed],
                              capture_output=True, text=True, timeout=60)
        self.assertEqual(done.returncode, 0, done.stderr[-2000:])
        return done.stdout, done.stderr

    def test_each_page_loads_without_console_errors_and_every_image_decodes(self):
        for kind, ids in (("tdm4", ("summary", "circuits", "stages", "cdf")), ("graphs", ("timeline", "cdf")),
                          ("compare", ("summary", "cdf", "policy-tdm4-stages"))):
            with self.subTest(kind=kind):
                dom, log = self.load(kind)
                console = [line for line in log.splitlines() if "CONSOLE" in line or "Uncaught" in line
                           or ":ERROR:" in line and "file://" in line]
                self.assertEqual(console, [])
                p = Page(dom)
                images = sum(1 for t, _ in p.elements if t == "img")
                self.assertGreater(images, 0)
                titles = [d for d in dom.split("<title>")[1:2]]
                self.assertEqual(titles[0].split("</title>")[0], f"decoded {images} of {images}")
                for sid in ids:
                    self.assertIn(sid, p.sections)
                self.assertIn("summary-table", p.ids())


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1] + sys.argv[1:], verbosity=2)
