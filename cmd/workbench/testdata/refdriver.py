"""Runs the reference checker on many cases in one process, for the differential test.

Usage: refdriver.py CHECKER CASES.json  — CASES is a list of [source, tasks-or-null]; prints a JSON
list of [stdout, exit code or "crash"]. The checker's own code does all the work; this only saves
starting Python once per case.
"""
import contextlib
import importlib.util
import io
import json
import sys

spec = importlib.util.spec_from_file_location("tool_design_check", sys.argv[1])
ref = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ref)
results = []
for source, tasks in json.load(open(sys.argv[2], encoding="utf-8")):
    ref.counts.update(PASS=0, WARN=0, FAIL=0)
    sys.argv = ["tool_design_check.py", source] + (["--tasks", tasks] if tasks else [])
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            rc = ref.main()
        except Exception as exc:  # the checker crashed: the workbench must refuse such input
            rc = "crash: %s" % type(exc).__name__
    results.append([out.getvalue(), rc])
json.dump(results, sys.stdout)
