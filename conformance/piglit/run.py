#!/usr/bin/env python3
"""Runs piglit's OpenCL test list (the 'cl' profile, tests/cl.xml.gz) against whatever OpenCL the
environment selects (OCL_ICD_VENDORS), the way piglit's runner does: one process per test,
result taken from its 'PIGLIT: {"result": ...}' lines. Prints one line per test and the counts.

    run.py PIGLIT_DIR [--timeout S] [--jobs N] [--filter SUBSTRING]
"""
import argparse, ast, gzip, json, os, re, subprocess, sys, xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor

def tests(root):
    tree = ET.parse(gzip.open(os.path.join(root, "tests", "cl.xml.gz")))
    for t in tree.getroot().iter("Test"):
        opts = {o.get("name"): o.get("value") for o in t.iter("option")}
        if "command" in opts:  # type "cl": a program and its arguments, as a Python list literal
            yield t.get("name"), ast.literal_eval(opts["command"])
        elif "filename" in opts:  # type "cl_prog": a .cl program test run by cl-program-tester
            yield t.get("name"), ["cl-program-tester", ast.literal_eval(opts["filename"])]

def run(root, name, cmd, timeout):
    exe = os.path.join(root, "bin", cmd[0])
    args = [a if not a.startswith(("tests/", "generated_tests/")) else os.path.join(root, a) for a in cmd[1:]]
    env = dict(os.environ, LD_LIBRARY_PATH=os.path.join(root, "lib") + ":" + os.environ.get("LD_LIBRARY_PATH", ""))
    try:
        p = subprocess.run([exe] + args, cwd=root, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return name, "timeout", ""
    out = p.stdout + p.stderr
    results = [json.loads(m)["result"] for m in re.findall(r'PIGLIT: (\{.*?\})', out) if '"result"' in m]
    if p.returncode < 0:
        res = "crash"
    elif not results:
        res = "fail" if p.returncode else "pass"
    elif "fail" in results:
        res = "fail"
    elif "warn" in results:
        res = "warn"
    elif all(r == "skip" for r in results):
        res = "skip"
    else:
        res = "pass"
    return name, res, out[-2000:]

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("root")
    ap.add_argument("--timeout", type=int, default=60)
    ap.add_argument("--jobs", type=int, default=4)
    ap.add_argument("--filter", default="")
    ap.add_argument("--log", default="")
    a = ap.parse_args()
    todo = [(n, c) for n, c in tests(a.root) if a.filter in n]
    counts = {}
    log = open(a.log, "w") if a.log else None
    with ThreadPoolExecutor(a.jobs) as ex:
        for name, res, out in ex.map(lambda t: run(a.root, t[0], t[1], a.timeout), todo):
            counts[res] = counts.get(res, 0) + 1
            print(f"{res:8} {name}")
            if log and res not in ("pass", "skip"):
                log.write(f"==== {res} {name}\n{out}\n")
    total = sum(counts.values())
    summary = ", ".join(f"{counts.get(k, 0)} {k}" for k in ("pass", "fail", "skip", "warn", "crash", "timeout"))
    print(f"piglit cl: {total} tests: {summary}")

if __name__ == "__main__":
    main()
