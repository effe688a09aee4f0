//! Issue 11's bugs, one test each (tests/issue11/bN_*.c): found building PolyBench-ACC's OpenMP
//! programs with ompcl. Every program is built with ompcl and with `gcc -fopenmp`, run on PoCL's CPU
//! device and on CPU threads, and must print what gcc's build prints; where each region ran is
//! checked from the OMPCL_PROFILE report.

mod common;
use common::*;
use std::path::PathBuf;

fn src(name: &str) -> PathBuf {
    root().join("tests/issue11").join(name)
}

/// Build `name` with ompcl and gcc (same extra flags), run both; returns the region placements of
/// the PoCL run and ompcl's translation diagnostics.
fn build_and_compare(name: &str, flags: &[&str]) -> (Vec<(String, String)>, String) {
    let w = work(name.trim_end_matches(".c"));
    let icd = icd_dir(&w);
    let s = src(name);
    let s = s.to_str().unwrap();
    let mut a: Vec<&str> = vec!["-O2", s, "-o", "prog"];
    a.extend(flags);
    let (ok, diags) = ompcl(&a, &w);
    assert!(ok, "ompcl failed on {name}:\n{diags}");
    let mut g: Vec<&str> = vec![s, "-o", "ref"];
    g.extend(flags);
    gcc(&g, &w);
    let (expect, _) = exec(&w.join("ref"), &[]);
    let icd_s = icd.to_str().unwrap();
    let (got, err) =
        exec(&w.join("prog"), &[("OCL_ICD_VENDORS", icd_s), ("OMPCL_DEVICE", "cpu"), ("OMPCL_PROFILE", "1")]);
    same_numbers(&expect, &got, 1e-5)
        .unwrap_or_else(|e| panic!("{name} on PoCL: {e}\ngcc:   {expect}\nompcl: {got}\n{err}"));
    let (got_h, _) = exec(&w.join("prog"), &[("OMPCL_DEVICE", "host")]);
    same_numbers(&expect, &got_h, 1e-5)
        .unwrap_or_else(|e| panic!("{name} on threads: {e}\ngcc: {expect}\nompcl: {got_h}"));
    let _ = std::fs::remove_dir_all(&w);
    (placements(&err), format!("{diags}{err}"))
}

fn all_on_opencl(p: &[(String, String)], n: usize, log: &str) {
    assert_eq!(p.len(), n, "expected {n} regions:\n{log}");
    assert!(p.iter().all(|(_, w)| w == "opencl"), "not every region ran on OpenCL: {p:?}\n{log}");
}

#[test]
fn b1_macro_loop_bound_keeps_its_text() {
    let (p, log) = build_and_compare("b1_macro_bound.c", &[]);
    all_on_opencl(&p, 1, &log);
}

#[test]
fn b2_pragmas_in_skipped_code_are_ignored() {
    let (p, log) = build_and_compare("b2_ifdef_pragma.c", &[]);
    all_on_opencl(&p, 1, &log);
}

#[test]
fn b3_array_parameter_is_a_pointer_never_8_bytes() {
    let (p, log) = build_and_compare("b3_array_param.c", &[]);
    // one region, run three times: twice on the device (global, heap), once on the CPU (stack array)
    assert_eq!(p.len(), 1, "{log}");
    assert_eq!(p[0].1, "opencl+cpu", "{log}");
    assert!(log.contains("'C' does not point into memory ompcl knows"), "{log}");
    assert!(log.contains("runs=3") || log.contains("runs=2"), "{log}");
}

#[test]
fn b4_nesting_rules_are_errors() {
    let w = work("b4");
    let s = src("b4_nesting.c");
    let (ok, diags) = ompcl(&[s.to_str().unwrap(), "-o", "prog"], &w);
    let _ = std::fs::remove_dir_all(&w);
    assert!(!ok, "ompcl accepted invalid nesting:\n{diags}");
    let f = s.to_str().unwrap();
    for want in [
        format!("{f}:10:1: error: worksharing 'for' may not be closely nested inside 'master'"),
        format!("{f}:15:1: error: 'barrier' may not be closely nested inside 'single'"),
        format!("{f}:19:1: error: worksharing 'for' may not be closely nested inside 'for'"),
    ] {
        assert!(diags.contains(&want), "missing `{want}` in:\n{diags}");
    }
    assert_eq!(diags.matches(": error: ").count(), 3, "the `parallel for` in a `for` is valid:\n{diags}");
}

#[test]
fn b5_string_defines_do_not_break_the_opencl_build() {
    let (p, log) = build_and_compare("b5_string_define.c", &["-DFMT=\"%.9g \"", "-DSCALE=3", "-DFLAG"]);
    all_on_opencl(&p, 1, &log);
}

#[test]
fn b6_collapse_in_both_forms() {
    let (p, log) = build_and_compare("b6_collapse.c", &[]);
    all_on_opencl(&p, 4, &log); // three regions, the second one two kernels
                                // the rectangular nests get one work-item per (i, j[, k]): one NDRange
                                // dimension per loop, the innermost fastest; the triangular one not
    let w = work("b6emit");
    let (ok, d) = ompcl(&["--emit-opencl", src("b6_collapse.c").to_str().unwrap(), "-o", "."], &w);
    assert!(ok, "{d}");
    let cl = std::fs::read_to_string(w.join("b6_collapse.cl")).unwrap();
    let _ = std::fs::remove_dir_all(&w);
    // dimensions above 0 are loops by the global size (at most 65535 groups are launched there)
    let two = "  if (get_global_id(0) < (ulong)__n1)\n  for (ulong __p1 = get_global_id(1); __p1 < (ulong)__n; __p1 += get_global_size(1))\n";
    assert_eq!(cl.matches(two).count(), 2, "{cl}");
    let three = "  if (get_global_id(0) < (ulong)__n2)\n  for (ulong __p2 = get_global_id(2); __p2 < (ulong)__n; __p2 += get_global_size(2))\n  for (ulong __p1 = get_global_id(1); __p1 < (ulong)__n1; __p1 += get_global_size(1))\n";
    assert!(cl.contains(three), "collapse(3) on a 3-D NDRange:\n{cl}");
    assert!(!cl.contains("__rem"), "a flattened index:\n{cl}");
}
