#!/usr/bin/env python3
"""Writes the corpus programs c141-c143: reductions written by hand (private accumulators combined
into shared variables after an `omp for`), every operation x type x combine x loop schedule.

  c141: unnamed `critical`, one accumulator per region
  c142: named `critical`, the combine's other spellings (s = s op l, s = l op s, s = l > s ? l : s)
  c143: `atomic` (the operations OpenMP's atomic allows), in each spelling

Each region prints its result; the data make every result exact in every type and thread count
(sums of multiples of 0.25 far below 2^24, products of powers of two), so ompcl's kernels, its CPU
threads and gcc print the same text. Run from the repository root:
    python3 ompcl/tests/corpus/gen/manual_reduction.py
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.dirname(HERE)

TYPES = ["int", "long", "float", "double"]
INTS = {"int", "long"}
FMT = {"int": "%d", "long": "%ld", "float": "%.3f", "double": "%.3f"}
# the loop's clauses, cycled over the regions so that each operation meets several
LOOPS = ["", " nowait", " schedule(static)", " schedule(dynamic)", " schedule(static) nowait",
         " schedule(dynamic, 7) nowait", " schedule(guided)"]

# name: (types, initial shared value, accumulator's initial value, loop update, combines)
# `{x}` is the element read (`{m}` a factor), `{l}` the accumulator, `{s}` the shared variable; a combine list gives the
# spellings (c141 uses the first, c142 cycles through them all).
def ops():
    big = {"int": "-1000000", "long": "-1000000000L", "float": "-1e30f", "double": "-1e300"}
    small = {"int": "1000000", "long": "1000000000L", "float": "1e30f", "double": "1e300"}
    fmax = {"float": "fmaxf", "double": "fmax"}
    fmin = {"float": "fminf", "double": "fmin"}
    return [
        ("add", TYPES, lambda t: "10", lambda t: "0", lambda t: "{l} += {x} * 2;",
         ["{s} += {l};", "{s} = {s} + {l};", "{s} = {l} + {s};"]),
        ("sub_update", TYPES, lambda t: "10", lambda t: "0", lambda t: "{l} -= {x};",
         ["{s} += {l};", "{s} = {l} + {s};"]),
        ("sub_combine", TYPES, lambda t: "10", lambda t: "0", lambda t: "{l} += {x};",
         ["{s} -= {l};", "{s} = {s} - {l};"]),
        ("sub_both", TYPES, lambda t: "10", lambda t: "0", lambda t: "{l} = {l} - {x};",
         ["{s} -= {l};", "{s} = {s} - {l};"]),
        ("mul", TYPES, lambda t: "3", lambda t: "1", lambda t: "{l} *= {m};",
         ["{s} *= {l};", "{s} = {s} * {l};", "{s} = {l} * {s};"]),
        ("band", INTS, lambda t: "~0", lambda t: "~0", lambda t: "{l} &= {x} | 0x30;",
         ["{s} &= {l};", "{s} = {s} & {l};", "{s} = {l} & {s};"]),
        ("bor", INTS, lambda t: "0x100", lambda t: "0", lambda t: "{l} |= {x};",
         ["{s} |= {l};", "{s} = {s} | {l};", "{s} = {l} | {s};"]),
        ("bxor", INTS, lambda t: "5", lambda t: "0", lambda t: "{l} ^= {x} * 3;",
         ["{s} ^= {l};", "{s} = {s} ^ {l};", "{s} = {l} ^ {s};"]),
        ("land", TYPES, lambda t: "1", lambda t: "1", lambda t: "{l} = {l} && ({x} < 50);",
         ["{s} = {s} && {l};", "{s} = {l} && {s};"]),
        ("land_false", TYPES, lambda t: "1", lambda t: "1", lambda t: "{l} = ({x} < 4) && {l};",
         ["{s} = {s} && {l};", "{s} = {l} && {s};"]),
        ("lor", TYPES, lambda t: "0", lambda t: "0", lambda t: "{l} = {l} || ({x} > 15);",
         ["{s} = {s} || {l};", "{s} = {l} || {s};"]),
        ("lor_false", TYPES, lambda t: "0", lambda t: "0", lambda t: "{l} = ({x} > 100) || {l};",
         ["{s} = {s} || {l};", "{s} = {l} || {s};"]),
        ("max_if", TYPES, lambda t: "-5", lambda t: big[t], lambda t: "if ({x} > {l}) {l} = {x};",
         ["if ({l} > {s}) {s} = {l};", "if ({s} < {l}) {s} = {l};", "if ({l} >= {s}) {{ {s} = {l}; }}"]),
        ("max_sel", TYPES, lambda t: "-5", lambda t: big[t], lambda t: "{l} = {x} > {l} ? {x} : {l};",
         ["{s} = {l} > {s} ? {l} : {s};", "{s} = {s} < {l} ? {l} : {s};", "{s} = ({s} > {l}) ? {s} : {l};"]),
        ("max_call", ["float", "double"], lambda t: "-5", lambda t: big[t],
         lambda t: f"{{l}} = {fmax[t]}({{l}}, {{x}});", [lambda t: f"{{s}} = {fmax[t]}({{s}}, {{l}});", lambda t: f"{{s}} = {fmax[t]}({{l}}, {{s}});"]),
        ("min_if", TYPES, lambda t: "1000", lambda t: small[t], lambda t: "if ({x} < {l}) {l} = {x};",
         ["if ({l} < {s}) {s} = {l};", "if ({s} > {l}) {s} = {l};", "if ({l} <= {s}) {{ {s} = {l}; }}"]),
        ("min_sel", TYPES, lambda t: "1000", lambda t: small[t], lambda t: "{l} = {l} < {x} ? {l} : {x};",
         ["{s} = {l} < {s} ? {l} : {s};", "{s} = {s} > {l} ? {l} : {s};", "{s} = ({s} < {l}) ? {s} : {l};"]),
        ("min_call", ["float", "double"], lambda t: "1000", lambda t: small[t],
         lambda t: f"{{l}} = {fmin[t]}({{x}}, {{l}});", [lambda t: f"{{s}} = {fmin[t]}({{s}}, {{l}});", lambda t: f"{{s}} = {fmin[t]}({{l}}, {{s}});"]),
    ]


ATOMIC_OPS = {"add", "sub_update", "sub_combine", "sub_both", "mul", "band", "bor", "bxor"}


def fill(code, t, **names):
    return (code(t) if callable(code) else code).format(**names)


def program(tag, title, combine_kind):
    body = []
    n = 0
    for name, types, s0, l0, update, combines in ops():
        if combine_kind == "atomic" and name not in ATOMIC_OPS:
            continue
        for t in types:
            s, l = f"{name}_{t[0]}", f"loc_{name}_{t[0]}"
            x = f"x_{t[0]}[i]"
            m = f"m_{t[0]}[i]"
            loop = LOOPS[(n + (3 if combine_kind == "named" else 0)) % len(LOOPS)]
            spelling = combines[0] if combine_kind == "unnamed" else combines[n % len(combines)]
            comb = fill(spelling, t, s=s, l=l, x=x, m=m)
            upd = fill(update, t, s=s, l=l, x=x, m=m)
            body.append(f"    {t} {s} = {s0(t)};")
            body.append("#pragma omp parallel")
            body.append("    {")
            body.append(f"        {t} {l} = {l0(t)};")
            body.append(f"#pragma omp for{loop}")
            body.append("        for (int i = 0; i < N; i++)")
            body.append(f"            {upd}")
            if combine_kind == "unnamed":
                body.append("#pragma omp critical")
                body.append(f"        {comb}" if n % 2 else f"        {{ {comb} }}")
            elif combine_kind == "named":
                body.append(f"#pragma omp critical({name})")
                body.append(f"        {{ {comb} }}" if n % 2 else f"        {comb}")
            else:
                # (`atomic update`, OpenMP 3.1, sends the CPU versions to gcc's OpenMP: c146)
                body.append("#pragma omp atomic")
                body.append(f"        {comb}")
            body.append("    }")
            fmt = FMT[t]
            body.append(f'    printf("{s} {fmt}\\n", {s});')
            n += 1
    header = (f"/* ompcl-test: offload=all */\n"
              f"/* Generated by gen/manual_reduction.py: {title}.\n"
              f" * Every region is a reduction written by hand (manual_reduction.rs); ompcl makes each a\n"
              f" * reduction clause on its loop and offloads it. {n} regions: the operations +, - (subtracted\n"
              + (f" * in the update, the combine or both), *, &, |, ^ (those of OpenMP's atomic) x int, long,\n"
                 f" * float, double where C has them,"
                 if combine_kind == "atomic" else
                 f" * in the update, the combine or both), *, &, |, ^, &&, || (true and false results), max and\n"
                 f" * min (if, ?: and fmax/fmin forms) x int, long, float, double where C has them,")
              + f"\n * the loop's schedule and nowait cycled over them. Data: sums of multiples of 0.25, products\n"
              f" * of powers of two, so every order gives the same result. */\n")
    text = header + """#include <stdio.h>
#include <math.h>
#define N 1000
int x_i[N], m_i[N];
long x_l[N], m_l[N];
float x_f[N], m_f[N];
double x_d[N], m_d[N];
int main(void) {
    for (int i = 0; i < N; i++) {
        int v = (i * 7 + 3) % 41;
        x_i[i] = v; x_l[i] = v; x_f[i] = v * 0.25f; x_d[i] = v * 0.25;
        int mv = i % 100 == 0 ? 2 : 1;
        m_i[i] = mv; m_l[i] = mv; m_f[i] = mv; m_d[i] = mv;
        if (i % 100 == 50) { m_f[i] = 0.5f; m_d[i] = 0.5; }
    }
""" + "\n".join(body) + "\n    return 0;\n}\n"
    with open(os.path.join(CORPUS, tag + ".c"), "w") as f:
        f.write(text)


program("c141_manual_reduction_critical", "combines in an unnamed 'critical' (braced or not)", "unnamed")
program("c142_manual_reduction_named", "combines in a named 'critical', in each spelling", "named")
program("c143_manual_reduction_atomic", "combines by 'atomic', in each spelling", "atomic")
