//! What the translator says and writes, without building or running anything (libclang only):
//! every region kept on the CPU says why, once, at translation time; critical sections that are
//! not one update become device-locked kernels; read-only global arrays become `__constant`.

use ompcl::translate::{translate, Options, Output};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Translate as the driver does: ompcl's pthreads runtime, or the C compiler's OpenMP when the
/// program uses constructs beyond OpenMP 2.0.
fn tr(path: &Path) -> Output {
    // one translation at a time: the driver translates in one thread, and libclang's run-time
    // loading (clang-sys) is per thread
    static ONE: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one = ONE.lock().unwrap_or_else(|e| e.into_inner());
    let mut opts = Options { clang_args: vec![], cl_defines: vec![], pthreads: true };
    let o = translate(path.to_str().unwrap(), &opts).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    if o.needs_cc.is_none() {
        return o;
    }
    opts.pthreads = false;
    translate(path.to_str().unwrap(), &opts).unwrap()
}

/// The diagnostics saying that the region at `line` stays on the CPU.
fn cpu_diags(o: &Output, line: u32) -> Vec<&String> {
    let at = format!(":{line}:");
    o.diags
        .iter()
        .filter(|d| {
            d.contains(&at)
                && (d.contains("parallel region not offloaded to OpenCL")
                    || d.contains("target region not offloaded to OpenCL"))
        })
        .collect()
}

/// Every region: kept on the CPU -> exactly one diagnostic at its line, naming the reason it
/// recorded; offloaded -> none. And no such diagnostic without a region.
fn check_regions(path: &Path, o: &Output) -> Vec<String> {
    let mut bad = Vec::new();
    let name = path.file_name().unwrap().to_string_lossy();
    for (line, offloaded, reason) in &o.regions {
        let d = cpu_diags(o, *line);
        if *offloaded && !d.is_empty() {
            bad.push(format!("{name}:{line}: offloaded, yet {d:?}"));
        }
        if !*offloaded {
            if d.len() != 1 {
                bad.push(format!("{name}:{line}: kept on the CPU with {} diagnostics: {d:?}", d.len()));
            } else if reason.is_empty() || !d[0].contains(reason.as_str()) {
                bad.push(format!("{name}:{line}: diagnostic does not give the reason '{reason}': {}", d[0]));
            }
        }
    }
    let all = o
        .diags
        .iter()
        .filter(|d| {
            d.contains("parallel region not offloaded to OpenCL")
                || d.contains("target region not offloaded to OpenCL")
        })
        .count();
    let expected = o.regions.iter().filter(|r| !r.1).count();
    if all != expected {
        bad.push(format!("{name}: {all} 'not offloaded' diagnostics for {expected} regions on the CPU"));
    }
    bad
}

fn c_files(dir: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().map(|e| e == "c").unwrap_or(false))
        .collect();
    v.sort();
    v
}

#[test]
fn every_region_kept_on_the_cpu_says_why_once() {
    let mut bad = Vec::new();
    let mut cpu_regions = 0;
    let files: Vec<PathBuf> = c_files("tests/corpus").into_iter().chain(c_files("tests/issue11")).collect();
    assert!(files.len() > 70, "only {} programs", files.len());
    for f in &files {
        let o = tr(f);
        if o.errors {
            continue; // nesting errors (b4): nothing is translated
        }
        cpu_regions += o.regions.iter().filter(|r| !r.1).count();
        bad.extend(check_regions(f, &o));
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert!(cpu_regions >= 20, "only {cpu_regions} regions on the CPU: the check saw too little");
}

#[test]
fn each_reason_is_given_at_its_region() {
    let f = root().join("tests/issue11/b7_cpu_reasons.c");
    let text = std::fs::read_to_string(&f).unwrap();
    let o = tr(&f);
    assert!(!o.errors, "{:?}", o.diags);
    let bad = check_regions(&f, &o);
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    // `expect-cpu: TEXT` on the line before a region's pragma
    let lines: Vec<&str> = text.lines().collect();
    let mut expected = 0;
    for (line, offloaded, _) in &o.regions {
        let above = lines[*line as usize - 2];
        match above.split_once("expect-cpu: ") {
            Some((_, want)) => {
                expected += 1;
                let want = want.trim_end_matches("*/").trim();
                assert!(!offloaded, "line {line}: expected on the CPU ({want})");
                let d = cpu_diags(&o, *line);
                assert!(d[0].contains(want), "line {line}: expected '{want}' in {}", d[0]);
            }
            None => assert!(offloaded, "line {line}: expected offloaded: {:?}", o.diags),
        }
    }
    assert_eq!(expected, 10, "regions with expect-cpu: {:?}", o.regions);
    // target(pthread) is what the program asked for: a note, not a warning
    assert!(o.diags.iter().any(|d| d.contains(": note: ") && d.contains("target(pthread)")), "{:?}", o.diags);
}

#[test]
fn critical_sections_become_device_locks() {
    let f = root().join("tests/corpus/c72_critical_lock.c");
    let o = tr(&f);
    assert!(o.regions.iter().all(|r| r.1), "{:?}", o.regions);
    // one note for the region, none per critical section
    let notes: Vec<&String> = o.diags.iter().filter(|d| d.contains("device lock")).collect();
    assert_eq!(notes.len(), 1, "{:?}", o.diags);
    assert!(notes[0].contains(": note: ") && notes[0].contains("sm_70"), "{}", notes[0]);
    let k = &o.kernels;
    assert!(k.contains("__global int *__ompcl_locks"), "{k}");
    // three critical sections, three names (unnamed, acc, hist): three locks
    for i in 0..3 {
        let take = format!("atomic_cmpxchg(&__ompcl_locks[{i}], 0, 1) == 0");
        let give = format!("atomic_xchg(&__ompcl_locks[{i}], 0)");
        assert_eq!(k.matches(&take).count(), 1, "{take}\n{k}");
        assert_eq!(k.matches(&give).count(), 1, "{give}\n{k}");
        // the body's effects are fenced before the release
        let (s, e) = (k.find(&take).unwrap(), k.find(&give).unwrap());
        assert_eq!(k[s..e].matches("OMPCL_LOCK_FENCE();").count(), 2, "{}", &k[s..e]);
    }
    assert!(!k.contains("__ompcl_locks[3]"), "{k}");
    assert!(k.contains("membar.gl"), "NVIDIA's gpu-scope fence missing:\n{k}");
    assert!(o.diags.iter().all(|d| !d.contains("not offloaded")), "{:?}", o.diags);
    // the host passes the locks to the runtime, which decides where the region runs
    assert!(o.host_c.contains("OMPCL_LOCKS"), "no OMPCL_LOCKS argument in the host C");
}

#[test]
fn read_only_global_arrays_become_constant() {
    let f = root().join("tests/corpus/c74_constant_globals.c");
    let o = tr(&f);
    assert!(o.regions.iter().all(|r| r.1), "{:?}", o.regions);
    let k = &o.kernels;
    assert!(k.contains("#define OMPCL_CONST __constant"), "{k}");
    // read only, in the loop and in the functions it calls: __constant
    for p in ["OMPCL_CONST char *coef__b", "OMPCL_CONST char *table__b", "OMPCL_CONST char *weights__b"] {
        assert!(k.contains(p), "missing {p}:\n{k}");
    }
    assert!(k.contains("ompcl_f_lookup(int k, OMPCL_CONST float *table)"), "{k}");
    assert!(k.contains("ompcl_f_poly(double x, OMPCL_CONST double *coef)"), "{k}");
    // written by the kernel: __global
    assert!(k.contains("__global char *out_g__b"), "{k}");
    assert!(!k.contains("OMPCL_CONST char *out_g__b"), "{k}");
    assert!(!k.contains("__ompcl_as_"), "placeholder left:\n{k}");
    assert!(!o.host_c.contains("__ompcl_konst_"), "placeholder left in the host C");
    // the module records what one kernel takes: coef 40 B + table 256 B + weights 32 B, 3 arguments
    assert!(
        o.host_c.contains(", 328, 3 };"),
        "module record:\n{}",
        o.host_c.lines().find(|l| l.contains("__ompcl_mod =")).unwrap_or("")
    );
    // a global array written by the device code, or passed on as a pointer, stays __global
    let f = root().join("tests/corpus/c69_function_globals.c");
    let o = tr(&f);
    assert!(!o.kernels.contains("__ompcl_as_"), "{}", o.kernels);
}

/// The kernel `ompcl_rN` of a translation's OpenCL source.
fn kernel_text(o: &Output, n: usize) -> String {
    let start =
        o.kernels.find(&format!("__kernel void ompcl_r{n}(")).unwrap_or_else(|| panic!("no ompcl_r{n}"));
    let rest = &o.kernels[start..];
    rest[..rest[1..].find("\n__kernel ").map(|e| e + 1).unwrap_or(rest.len())].to_string()
}

#[test]
fn flat_indexed_gemm_is_spread_over_i_j_pairs() {
    let f = root().join("tests/corpus/c76_flat_gemm.c");
    let o = tr(&f);
    assert!(o.regions.iter().all(|r| r.1), "{:?}", o.regions);
    let k = kernel_text(&o, 0);
    // (i, j) from a 2-D NDRange, j fastest, 32-bit index arithmetic; rows only as the fall-back
    let pairs = &k[k.find("if (__flat) {").expect("no (i, j) branch")..k.find("} else {").unwrap()];
    assert!(
        pairs
            .contains("for (ulong __p1 = get_global_id(1); __p1 < (ulong)__n; __p1 += get_global_size(1)) {"),
        "{k}"
    );
    assert!(pairs.contains("int i = (int)((uint)__lb + (uint)(__p1) * (uint)__st);"), "{k}");
    assert!(pairs.contains("int j = (int)((uint)__lb1 + (uint)(get_global_id(0)) * (uint)__st1);"), "{k}");
    assert!(!pairs.contains("for (long __jj"), "the (i, j) branch loops over j:\n{k}");
    assert!(!k.contains('%') && !k.contains("/ __n1") && !k.contains("/= __n1"), "division:\n{k}");
    assert!(pairs.contains("C[i * n + j] = c;"), "{k}");
    // the host spreads only if the pointers do not alias and the written elements are disjoint
    let call =
        o.host_c.lines().find(|l| l.contains("ompcl_region_opencl(&__ompcl_mod, 0,")).expect("no launch");
    assert!(call.contains("__ompcl_flat = ompcl_no_alias(__ompcl_a, "), "{call}");
    assert!(
        call.contains("ompcl_disjoint(((4LL) * (long long)(n)), __ompcl_st, __ompcl_n, ((4LL)), __ompcl_st1, __ompcl_n1, 4)"),
        "{call}"
    );
    assert!(call.contains("(__ompcl_flat ? 2 : 1), __ompcl_n1, 0,"), "{call}");
    // gemm2: C[(i)*(ld)+(j)] += ... in the loop over k stays in a register in the (i, j) branch
    let k = kernel_text(&o, 1);
    let pairs = &k[k.find("if (__flat) {").expect("no (i, j) branch")..k.find("} else {").unwrap()];
    assert!(pairs.contains("double __w0 = *__p0; do __w0 += A[i * ld + k] * B[k * ld + j];"), "{k}");
    assert!(pairs.contains("*__p0 = __w0;"), "{k}");
}

#[test]
fn dependent_inner_iterations_are_not_spread() {
    let f = root().join("tests/corpus/c78_spread_refused.c");
    let o = tr(&f);
    assert!(o.regions.iter().all(|r| r.1), "{:?}", o.regions);
    // X[i*m + j] reads X[i*m + j - 1]; p[j] reads p[j - 1] through a pointer declared in the loop
    for n in [0, 2] {
        let k = kernel_text(&o, n);
        assert!(!k.contains("__flat"), "ompcl_r{n} spread:\n{k}");
    }
    // Y[i*m + j*s]: decided at launch (s == 0 writes one element per row)
    let k = kernel_text(&o, 1);
    assert!(k.contains("if (__flat) {"), "{k}");
    assert!(o.host_c.contains("ompcl_disjoint(((8LL) * (long long)(m)), __ompcl_st, __ompcl_n, ((8LL) * (long long)(s)), __ompcl_st1, __ompcl_n1, 8)"), "{}", o.host_c);
}

#[test]
fn row_sums_stay_in_registers_when_nothing_aliases() {
    let f = root().join("tests/corpus/c79_register_sums.c");
    let o = tr(&f);
    let k = kernel_text(&o, 0);
    assert!(k.contains("int __noalias"), "{k}");
    assert!(
        k.contains("if (__noalias) do {") && k.contains("{ j = 0; if (j < m) { __global double *__p0 = &(x[i]); double __w0 = *__p0; do __w0 = __w0 + A[i * n + j] * y[j]; while ((j++), (j < m)); *__p0 = __w0; } }"),
        "{k}"
    );
    // the code as written when pointers share memory
    assert!(k.contains("for (j = 0; j < m; j++) x[i] = x[i] + A[i * n + j] * y[j];"), "{k}");
    assert!(o.host_c.contains("__ompcl_noalias = ompcl_no_alias(__ompcl_a, "), "{}", o.host_c);
}

/// Max/min updates become OpenCL atomic max/min, in the forms gcc's `atomic compare` takes and in
/// those it does not (tests/minmax: an `if` without braces, `>=`, the target in the ternary's
/// first arm, fmaxf/fminf), under `atomic compare` and as array max/min reductions; the
/// compare-and-swap loops swap only while the value found is strictly beyond the operand.
#[test]
fn max_min_updates_become_atomic_max_min() {
    let f = root().join("tests/minmax/compare_forms_gcc_rejects.c");
    let o = tr(&f);
    assert!(o.regions.iter().all(|r| r.1), "{:?} {:?}", o.regions, o.diags);
    let k = &o.kernels;
    for (call, n) in [
        ("ompcl_atomic_max_int(&", 2),
        ("ompcl_atomic_max_long(&", 1),
        ("ompcl_atomic_min_long(&", 1),
        ("ompcl_atomic_max_float(&", 1),
        ("ompcl_atomic_min_float(&", 1),
        ("ompcl_atomic_min_double(&", 2),
    ] {
        assert_eq!(k.matches(call).count(), n, "{call}\n{k}");
    }
    assert!(k.contains("{ atomic_max(p, v); }"), "{k}");
    assert!(k.contains("#ifdef cl_khr_int64_extended_atomics") && k.contains("{ atom_max(p, v); }"), "{k}");
    assert!(k.contains("if (!(as_double(o) > v)) return;"), "{k}");
    assert!(k.contains("if (!(as_float(o) < v)) return;"), "{k}");
    // the reductions left the clauses: no partials, no private copies of the arrays
    assert!(!o.diags.iter().any(|d| d.contains("not offloaded")), "{:?}", o.diags);
}

#[test]
fn tables_of_row_pointers_become_rows_and_offsets() {
    let f = root().join("tests/corpus/c206_rows_matmul_alias.c");
    let o = tr(&f);
    assert!(o.regions.iter().all(|r| r.1), "{:?}", o.regions);
    let k = kernel_text(&o, 0);
    // each table: the rows' buffer and one element offset per row (row_pointers.rs)
    for t in ["A", "B", "C"] {
        assert!(k.contains(&format!("__global double *{t}__rows, __global const long *{t}__off")), "{k}");
    }
    assert!(
        k.contains("(C__rows + C__off[i])[j] += (A__rows + A__off[i])[k] * (B__rows + B__off[k])[j];"),
        "{k}"
    );
    // the runtime's argument: the table pointer, the element size, written or not
    assert!(o.host_c.contains("{OMPCL_ROWS, \"C\", (void*)(C), sizeof(**C), 1, 0, 0}"), "{}", o.host_c);
    assert!(o.host_c.contains("{OMPCL_ROWS, \"A\", (void*)(A), sizeof(**A), 0, 0, 0}"), "{}", o.host_c);
    // any other use of a table keeps its region on the CPU, saying so
    let o = tr(&root().join("tests/corpus/c204_rows_refused.c"));
    assert!(
        o.diags.iter().any(|d| d.contains("pointer to pointer 'p' used other than as 'p[i][j]'")),
        "{:?}",
        o.diags
    );
}
