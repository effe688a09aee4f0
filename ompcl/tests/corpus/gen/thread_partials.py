#!/usr/bin/env python3
"""Writes the corpus programs c221-c223: partial results kept per thread by hand (a slot of a shared
array per thread, picked by omp_get_thread_num(), combined on the host after the region), which
thread_partials.rs makes atomic updates of thread 0's slot.

  c221: sums (+=, ++, -=), every type x layout, the thread number held in a variable or called
  c222: max, min (the if, ternary and fmax spellings), |, ^
  c223: slots reset by the region itself at its top (moved before it, for every thread), with
        num_threads, again and again over stale slots (kmeans's loop); a combined `parallel for`

Layouts: `part[tid]` (one slot per thread), `part[tid * K + k]`, `part[k * nt + tid]`, and a static
`part[MAXT][K]`. Slots start from calloc, a host loop, or the region's reset. Every result is exact
in every type and thread count (sums of multiples of 0.25 far below 2^24), so ompcl's kernels, its
CPU threads and gcc print the same text. Run from the repository root:
    python3 ompcl/tests/corpus/gen/thread_partials.py
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.dirname(HERE)

TYPES = ["int", "long", "float", "double"]
FMT = {"int": "%d", "long": "%ld", "float": "%.3f", "double": "%.3f"}
VAL = {"int": "(i % 17)", "long": "((long)(i % 17) * 100000L)", "float": "((float)(i % 17) * 0.25f)",
       "double": "((i % 17) * 0.25)"}
MAXV = {"int": "(i * 37 % 1001)", "long": "((long)(i * 37 % 1001) * 100000L)",
        "float": "((float)(i * 37 % 1001) * 0.5f)", "double": "((i * 37 % 1001) * 0.5)"}
LOW = {"int": "-1000000", "long": "-1000000000L", "float": "-1e30f", "double": "-1e300"}
HIGH = {"int": "1000000", "long": "1000000000L", "float": "1e30f", "double": "1e300"}
LAYOUTS = ["scalar", "flat", "minor", "rows"]
SCHEDULES = ["", " schedule(dynamic, 64)", " schedule(static)", " nowait"]

HEAD = """#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <omp.h>
#define N 10007
#define K 5
#define MAXT 64
int lab[N];
"""

MAIN_INIT = "  for (int i = 0; i < N; i++) lab[i] = (i * 7 + i / 3) % K;\n"


def slot(layout, tid, k):
    return {"scalar": f"part[{tid}]", "flat": f"part[{tid} * K + {k}]", "minor": f"part[{k} * nt + {tid}]",
            "rows": f"part[{tid}][{k}]"}[layout]


def region(name, t, layout, tid_var, init, start, update, combine, sched="", clauses="", rounds=1,
           combined=False):
    """One function: a parallel region updating per-thread slots, the host's combine, a line of output.
    `update(S, i)` the statement updating slot S; `combine(tot, s)` the host's combining statement; `init`:
    calloc (slots start at 0), host (a host loop sets `start`), region (the region resets them to `start`
    at its top, over slots the host filled with 77)."""
    tid = "tid" if tid_var else "omp_get_thread_num()"
    nk = 1 if layout == "scalar" else "K"
    c = [f"static void {name}(void)\n{{\n  int nt = omp_get_max_threads(), i, r;\n"]
    if layout == "rows":
        c[0] = f"static {t} {name}_part[MAXT][K];\n" + c[0]
        c.append(f"  {t} (*part)[K] = {name}_part;\n")
    elif init == "calloc":
        c.append(f"  {t} *part = calloc(nt * K, sizeof({t}));\n")
    else:
        c.append(f"  {t} *part = malloc(nt * K * sizeof({t}));\n")
    flat = "part[0]" if layout != "rows" else "part[0]"
    if init == "host":
        c.append(f"  for (i = 0; i < nt * K; i++) (&{flat}[0])[i] = {start};\n" if layout == "rows"
                 else f"  for (i = 0; i < nt * K; i++) part[i] = {start};\n")
    if init == "region":
        c.append(f"  for (i = 0; i < nt * K; i++) (&{flat}[0])[i] = 77;\n" if layout == "rows"
                 else f"  for (i = 0; i < nt * K; i++) part[i] = 77;\n")
    c.append(f"  for (r = 0; r < {rounds}; r++) {{\n")
    c.append(f"  {t} tot[K];\n  for (int k = 0; k < K; k++) tot[k] = {start};\n")
    k_of = "lab[i]" if layout != "scalar" else "0"
    if combined:
        c.append(f"#pragma omp parallel for{sched}{clauses}\n")
        c.append(f"  for (i = 0; i < N; i++) {{\n    {update(slot(layout, tid, k_of), 'i')}\n  }}\n")
    else:
        c.append(f"#pragma omp parallel{clauses}\n  {{\n")
        if tid_var:
            c.append("    int tid = omp_get_thread_num();\n")
        if init == "region":
            if layout == "scalar":
                c.append(f"    {slot(layout, tid, '0')} = {start};\n")
            else:
                c.append(f"    for (int kk = 0; kk < K; kk++)\n      {slot(layout, tid, 'kk')} = {start};\n")
        c.append(f"#pragma omp for{sched}\n    for (i = 0; i < N; i++) {{\n")
        c.append(f"      int k = {k_of};\n      {update(slot(layout, tid, 'k'), 'i + r')}\n    }}\n  }}\n")
    c.append(f"  for (int t = 0; t < nt; t++)\n    for (int k = 0; k < {nk}; k++) {{\n")
    s = slot(layout, "t", "k")
    c.append(f"      {combine('tot[k]', s)}\n    }}\n")
    c.append(f"  printf(\"{name}\");\n  for (int k = 0; k < {nk}; k++) printf(\" {FMT[t]}\", tot[k]);\n")
    c.append("  printf(\"\\n\");\n  }\n")
    if layout != "rows":
        c.append("  free(part);\n")
    c.append("}\n")
    return "".join(c)


def sums():
    out = []
    n = 0
    for t in TYPES:
        for op in ["+=", "++", "-="]:
            for layout in LAYOUTS:
                init = ["calloc", "host"][n % 2] if layout != "rows" else "host"
                tid_var = n % 3 != 1
                if op == "++":
                    upd = lambda s, i: f"{s}++;"
                else:
                    upd = lambda s, i, op=op, t=t: f"{s} {op} {VAL[t].replace('i', '(' + i + ')') if i != 'i' else VAL[t]};"
                out.append((f"sum_{t}_{'pp' if op == '++' else 'mm' if op == '-=' else 'pe'}_{layout}",
                            dict(t=t, layout=layout, tid_var=tid_var, init=init, start="0", update=upd,
                                 combine=lambda a, s: f"{a} += {s};", sched=SCHEDULES[n % 4])))
                n += 1
    return out


def minmax_and_bits():
    out = []
    n = 0
    for t in TYPES:
        for op in ["max", "min"]:
            layout = LAYOUTS[n % 4]
            rel = ">" if op == "max" else "<"
            start = LOW[t] if op == "max" else HIGH[t]
            spelling = n % 3
            if spelling == 0:
                upd = lambda s, i, rel=rel, t=t: f"if ({MAXV[t]} {rel} {s}) {s} = {MAXV[t]};"
            elif spelling == 1 or t in ("int", "long"):
                upd = lambda s, i, rel=rel, t=t: f"{s} = {MAXV[t]} {rel} {s} ? {MAXV[t]} : {s};"
            else:
                f = ("fmax" if op == "max" else "fmin") + ("f" if t == "float" else "")
                upd = lambda s, i, f=f, t=t: f"{s} = {f}({s}, {MAXV[t]});"
            comb = lambda a, s, rel=rel: f"if ({s} {rel} {a}) {a} = {s};"
            out.append((f"{op}_{t}_{layout}", dict(t=t, layout=layout, tid_var=n % 2 == 0, init="host",
                                                    start=start, update=upd, combine=comb,
                                                    sched=SCHEDULES[n % 4])))
            n += 1
    for t in ["int", "long"]:
        one = "1L" if t == "long" else "1"
        for op, upd, comb in [("or", lambda s, i, one=one: f"{s} |= {one} << (i % 29);", lambda a, s: f"{a} |= {s};"),
                              ("xor", lambda s, i: f"{s} ^= i * 7;", lambda a, s: f"{a} ^= {s};")]:
            layout = LAYOUTS[n % 4]
            out.append((f"{op}_{t}_{layout}", dict(t=t, layout=layout, tid_var=n % 2 == 1, init="calloc"
                                                    if layout != "rows" else "host", start="0", update=upd,
                                                    combine=comb, sched=SCHEDULES[n % 4])))
            n += 1
    return out


def resets():
    out = []
    for n, (t, layout) in enumerate([("double", "flat"), ("int", "minor"), ("float", "rows"), ("long", "scalar")]):
        out.append((f"reset_{t}_{layout}", dict(t=t, layout=layout, tid_var=n % 2 == 0, init="region", start="0",
                                               update=lambda s, i, t=t: f"{s} += {VAL[t]};",
                                               combine=lambda a, s: f"{a} += {s};", rounds=3,
                                               sched=SCHEDULES[n % 4])))
    out.append(("reset_max_num_threads", dict(t="double", layout="flat", tid_var=True, init="region",
                                              start=LOW["double"], clauses=" num_threads(nt)", rounds=2,
                                              update=lambda s, i: f"if ({MAXV['double']} > {s}) {s} = {MAXV['double']};",
                                              combine=lambda a, s: f"if ({s} > {a}) {a} = {s};")))
    out.append(("combined_inline", dict(t="double", layout="flat", tid_var=False, init="calloc", start="0",
                                        combined=True, update=lambda s, i: f"{s} += {VAL['double']};",
                                        combine=lambda a, s: f"{a} += {s};")))
    out.append(("combined_inline_count", dict(t="int", layout="minor", tid_var=False, init="calloc", start="0",
                                              combined=True, sched=" schedule(dynamic, 100)",
                                              update=lambda s, i: f"{s}++;", combine=lambda a, s: f"{a} += {s};")))
    return out


def write(num, name, doc, cases):
    src = [f"/* ompcl-test: offload=all */\n/* {doc} (written by gen/thread_partials.py) */\n", HEAD]
    for cname, kw in cases:
        src.append(region(cname, **kw))
    src.append("int main(void)\n{\n" + MAIN_INIT)
    for cname, _ in cases:
        src.append(f"  {cname}();\n")
    src.append("  return 0;\n}\n")
    with open(os.path.join(CORPUS, f"c{num}_{name}.c"), "w") as f:
        f.write("".join(src))


write(221, "thread_partial_sums", "Per-thread partial sums (+=, ++, -=) combined on the host, every type and layout",
      sums())
write(222, "thread_partial_minmax", "Per-thread partial max, min, |, ^ combined on the host", minmax_and_bits())
write(223, "thread_partial_resets",
      "Per-thread slots the region resets at its top, over stale slots; combined parallel for", resets())
