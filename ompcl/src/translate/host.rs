//! Host C of an offloaded region: the launch of a kernel (bounds, counts, arguments), sequences of
//! kernels made ready before any runs, and the kernel source's command-line macros.

use super::*;

/// Host C that runs one kernel: bounds, iteration count, arguments, the launch (sets `__ompcl_ok`).
pub(super) fn kernel_call(k: &KernelOut, kid: usize, line: u32, target: i32) -> String {
    let mut pre = String::new();
    pre.push_str(&wide_bounds("__ompcl_", "", &k.lb, &k.ub, &k.step));
    let _ = write!(
        pre,
        "long long __ompcl_n = {}; ",
        trip_count(k.cmp, "__ompcl_lbw", "__ompcl_ubw", "__ompcl_stw")
    );
    for (q, (lb, ub, st, cmp)) in k.inner.iter().enumerate() {
        let q = q + 1;
        let c = trip_count(
            *cmp,
            &format!("__ompcl_lbw{q}"),
            &format!("__ompcl_ubw{q}"),
            &format!("__ompcl_stw{q}"),
        );
        // a flattened collapse: one work-item per iteration of the whole nest
        let mul =
            if k.auto_flat || k.nd != 1 { String::new() } else { format!("__ompcl_n *= __ompcl_n{q}; ") };
        pre.push_str(&wide_bounds("__ompcl_", &q.to_string(), lb, ub, st));
        let _ = write!(pre, "long long __ompcl_n{q} = {c}; {mul}");
    }
    if k.auto_flat {
        pre.push_str("int __ompcl_flat = 0; ");
    }
    if k.spread_checks.iter().any(|c| c.over == affine::Over::Square) {
        pre.push_str(
            "long long __ompcl_sq = (__ompcl_lb + __ompcl_n > __ompcl_lb1 + __ompcl_n1 ? __ompcl_lb + __ompcl_n : __ompcl_lb1 + __ompcl_n1) - (__ompcl_lb < __ompcl_lb1 ? __ompcl_lb : __ompcl_lb1); ",
        );
    }
    if k.noalias_flag {
        pre.push_str("int __ompcl_noalias = 0; ");
    }
    let n = k.host_args.len();
    let _ = write!(
        pre,
        "ompcl_arg __ompcl_a[{}] = {{ {} }}; ",
        n.max(1),
        if n == 0 { "{0}".to_string() } else { k.host_args.join(", ") }
    );
    if k.noalias_flag {
        // the kernel's promoted code (elements in registers) runs only if no pointers alias
        let _ = write!(pre, "__ompcl_noalias = ompcl_no_alias(__ompcl_a, {n}); ");
    }
    if k.auto_flat {
        // (i, j) pairs only if no two pointers share memory and the elements written are disjoint
        let _ = write!(pre, "__ompcl_flat = ompcl_no_alias(__ompcl_a, {n})");
        for d in &k.spread_checks {
            let (a, b, size) = (&d.a, &d.b, d.size);
            let _ = match d.over {
                affine::Over::Pairs => write!(
                    pre,
                    " && ompcl_disjoint({a}, __ompcl_st, __ompcl_n, {b}, __ompcl_st1, __ompcl_n1, {size})"
                ),
                // [i][j] and [j][i] (a triangle, unit steps): one-to-one over the square holding
                // both loops' ranges
                affine::Over::Square => {
                    write!(pre, " && ompcl_disjoint({a}, 1, __ompcl_sq, {b}, 1, __ompcl_sq, {size})")
                }
                // one element per outer iteration
                affine::Over::Rows => {
                    write!(pre, " && ompcl_disjoint({a}, __ompcl_st, __ompcl_n, 0, 1, 1, {size})")
                }
            };
        }
        pre.push_str("; ");
    }
    // hints: bit 0 = a light kernel (see KernelOut::light), then MOMP's target clause; 256 =
    // OMPCL_HINT_SPLIT (see KernelOut::split); 1024 = OMPCL_HINT_STRIDE (KernelOut::strided)
    let hints =
        (target << 1) | i32::from(k.light) | if k.split { 256 } else { 0 } | if k.strided { 1024 } else { 0 };
    // 512 = OMPCL_HINT_ONE_WRITER: the (i, j) pairs' proof held (each element one writer)
    let hints = if k.auto_flat { format!("({hints} | (__ompcl_flat ? 512 : 0))") } else { hints.to_string() };
    // the NDRange: dimensions, and the extents of dimensions 0 and 1 (the outer loop's count
    // __ompcl_n is the last dimension's)
    let (nd, e0, e1) = match (k.auto_flat, k.nd, &k.teams) {
        // a league: at most e0 groups of at most e1 work-items
        (_, _, Some((g, t))) => ("-1", g.as_str(), t.as_str()),
        (true, _, _) => ("(__ompcl_flat ? 2 : 1)", "__ompcl_n1", "0"),
        (false, 2, _) => ("2", "__ompcl_n1", "0"),
        (false, 3, _) => ("3", "__ompcl_n2", "__ompcl_n1"),
        _ => ("1", "0", "0"),
    };
    let _ = write!(
        pre,
        "__ompcl_ok = ompcl_region_opencl(&__ompcl_mod, {kid}, {line}, {hints}, __ompcl_lb, __ompcl_st, __ompcl_n, {nd}, {e0}, {e1}, __ompcl_a, {n}); "
    );
    if let Some(lv) = &k.loopvar_after {
        let _ = write!(pre, "if (__ompcl_ok) {lv} = __ompcl_lb + __ompcl_n * __ompcl_st; ");
    }
    pre
}

/// Host C for a region made of several steps: every kernel is made ready (built, its memory known
/// to the runtime) first; only then do they run, in order, with the host steps between them. A
/// kernel that fails after an earlier one ran cannot fall back to the CPU version: the program
/// stops with an error (never a wrong result).
pub(super) fn sequence_call(steps: &[Step], target: i32, file: &str) -> String {
    let mut pre = String::new();
    let mut ready = Vec::new();
    let all = steps.iter().flat_map(|st| match st {
        Step::Kernel { k, kid, line } => vec![(k, *kid, *line)],
        Step::Host(h) => h.inner.iter().map(|i| (&i.k, i.kid, i.line)).collect(),
    });
    for (k, kid, line) in all {
        let mem: Vec<&String> = k
            .ready_args
            .as_ref()
            .unwrap_or(&k.host_args)
            .iter()
            .filter(|a| {
                ["{OMPCL_BUF", "{OMPCL_TMP", "{OMPCL_LOCKS", "{OMPCL_ROWS"].iter().any(|k| a.starts_with(k))
            })
            .collect();
        let n = mem.len();
        let list = if n == 0 {
            "{0}".to_string()
        } else {
            mem.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
        };
        let _ = write!(pre, "ompcl_arg __ompcl_m{kid}[{}] = {{ {list} }}; ", n.max(1));
        ready.push(format!("ompcl_kernel_ready(&__ompcl_mod, {kid}, {line}, __ompcl_m{kid}, {n})"));
    }
    let launch = |k: &KernelOut, kid: usize, line: u32| {
        format!(
            "{{ {}if (!__ompcl_ok) ompcl_sequence_failed(&__ompcl_mod, {line}); }} ",
            kernel_call(k, kid, line, target)
        )
    };
    let _ = write!(pre, "__ompcl_ok = {}; if (__ompcl_ok) {{ ", ready.join(" && "));
    for st in steps {
        match st {
            Step::Kernel { k, kid, line } => pre.push_str(&launch(k, *kid, *line)),
            Step::Host(h) => {
                // the launches of the loops inside, where their markers are; the source's line
                // numbers resume after each
                let mut text = h.text.clone();
                for i in &h.inner {
                    let call = format!("{}\n#line {} \"{file}\"\n", launch(&i.k, i.kid, i.line), i.resume);
                    text = text.replacen(&sequence::inner_marker(i.kid), &call, 1);
                }
                let _ = write!(pre, "\n#line {} \"{file}\"\n{}\n", h.line, text);
            }
        }
    }
    pre.push_str("} ");
    pre
}

/// Iteration count (C, a `long long`) of a canonical loop whose bounds and step are the C
/// variables `lb`, `ub`, `st` of type `ompcl_i128` (see `wide_bounds`).
pub(super) fn trip_count(cmp: i32, lb: &str, ub: &str, st: &str) -> String {
    match cmp {
        CXBinaryOperator_LT => format!("(long long)(({ub} > {lb}) ? ({ub} - {lb} + {st} - 1) / {st} : 0)"),
        CXBinaryOperator_LE => format!("(long long)(({ub} >= {lb}) ? ({ub} - {lb}) / {st} + 1 : 0)"),
        CXBinaryOperator_GT => format!("(long long)(({lb} > {ub}) ? ({lb} - {ub} - {st} - 1) / (-{st}) : 0)"),
        _ => format!("(long long)(({lb} >= {ub}) ? ({lb} - {ub}) / (-{st}) + 1 : 0)"),
    }
}

/// A loop step as a 128-bit C expression: a decrement (`-(x)`, parse_loop's form of `i -= x`) is
/// negated in 128 bits, so an unsigned `x` gives a negative step.
pub(super) fn wide_step(step: &str) -> String {
    match step.strip_prefix("-(").and_then(|s| s.strip_suffix(')')) {
        Some(x) => format!("-(ompcl_i128)({x})"),
        None => format!("(ompcl_i128)({step})"),
    }
}

/// C declaring a loop's bounds and step twice: in 128 bits (`{pre}lbw{suf}`, `{pre}ubw{suf}`, `{pre}stw{suf}`:
/// every 64-bit bound and step, signed or unsigned, keeps its value, so comparisons and the trip
/// count are exact), and as `long long` (`{pre}lb{suf}`, `{pre}ub{suf}`, `{pre}st{suf}`: the same
/// values modulo 2^64, what the loop variable is computed from).
pub(super) fn wide_bounds(pre: &str, suf: &str, lb: &str, ub: &str, step: &str) -> String {
    let stw = wide_step(step);
    format!(
        "ompcl_i128 {pre}lbw{suf} = (ompcl_i128)({lb}), {pre}ubw{suf} = (ompcl_i128)({ub}), {pre}stw{suf} = {stw}; long long {pre}lb{suf} = (long long){pre}lbw{suf}, {pre}ub{suf} = (long long){pre}ubw{suf}, {pre}st{suf} = (long long){pre}stw{suf}; "
    )
}

/// `-DNAME`, `-DNAME=VALUE`, `-UNAME` as preprocessor lines of the kernel source.
pub(super) fn command_line_macros(defs: &[String]) -> String {
    let mut out = String::new();
    for d in defs {
        if let Some(u) = d.strip_prefix("-U") {
            let _ = writeln!(out, "#undef {}", u.trim());
        } else if let Some(x) = d.strip_prefix("-D") {
            let x = x.trim_start();
            match x.split_once('=') {
                Some((n, v)) => {
                    let _ = writeln!(out, "#define {n} {}", v.replace('\n', " "));
                }
                None => {
                    let _ = writeln!(out, "#define {x} 1");
                }
            }
        }
    }
    out
}
