//! Issue 21, item 1: what gcc builds, ompcl builds. Each program of `tests/front/` is built with
//! ompcl and with `gcc -fopenmp` (the same flags), run on PoCL's CPU device and on CPU threads
//! (`OMPCL_DEVICE=host`); outputs must be byte for byte gcc's.

mod common;
use common::*;
use std::path::PathBuf;

fn src(name: &str) -> PathBuf {
    root().join("tests/front").join(name)
}

/// Build `name` with ompcl and gcc (both with `flags`), run both, compare the bytes of stdout;
/// returns the placements of the PoCL run and ompcl's diagnostics.
fn build_and_compare(name: &str, tag: &str, flags: &[&str]) -> (Vec<(String, String)>, String) {
    let w = work(&format!("front-{tag}"));
    let icd = icd_dir(&w);
    let s = src(name);
    let s = s.to_str().unwrap();
    let mut a: Vec<&str> = vec!["-O2", s, "-o", "prog"];
    a.extend(flags);
    let (ok, diags) = ompcl(&a, &w);
    assert!(ok, "ompcl {flags:?} failed on {name}:\n{diags}");
    let mut g: Vec<&str> = vec![s, "-o", "ref"];
    g.extend(flags);
    gcc(&g, &w);
    let (expect, _) = exec_bytes(&w.join("ref"), &[]);
    let icd_s = icd.to_str().unwrap();
    let (got, err) = exec_bytes(
        &w.join("prog"),
        &[("OCL_ICD_VENDORS", icd_s), ("OMPCL_DEVICE", "cpu"), ("OMPCL_PROFILE", "1")],
    );
    assert_eq!(txt(&expect), txt(&got), "{name} {flags:?} on PoCL:\n{err}");
    assert_eq!(expect, got, "{name} {flags:?} on PoCL: the bytes differ");
    let (got_h, _) = exec_bytes(&w.join("prog"), &[("OMPCL_DEVICE", "host")]);
    assert_eq!(expect, got_h, "{name} {flags:?} on threads:\n{}\n{}", txt(&expect), txt(&got_h));
    let _ = std::fs::remove_dir_all(&w);
    (placements(&err), format!("{diags}{err}"))
}

fn place(p: &[(String, String)], at: &str) -> String {
    p.iter()
        .find(|(a, _)| a == at)
        .map(|(_, w)| w.clone())
        .unwrap_or_else(|| format!("no region at {at}: {p:?}"))
}

#[test]
fn f1_collapse_with_a_private_inner_loop_variable() {
    // `private(j) collapse(2)` with j declared outside: "redeclaration of 'j'" before
    let (p, log) = build_and_compare("f1_collapse_private.c", "f1", &[]);
    assert_eq!(place(&p, "f1_collapse_private.c:16"), "opencl", "{log}");
    assert_eq!(place(&p, "f1_collapse_private.c:20"), "opencl", "{log}");
    // lastprivate(i, j) with collapse: the CPU version, j's value after its last loop
    assert_eq!(place(&p, "f1_collapse_private.c:27"), "cpu", "{log}");
}

#[test]
fn f2_implicit_declarations_implicit_int_and_knr_definitions() {
    for (tag, flags) in [
        ("f2", vec![]),
        ("f2w", vec!["-Wno-implicit-function-declaration", "-Wno-implicit-int"]),
        ("f2g89", vec!["-std=gnu89"]),
        ("f2g99", vec!["-std=gnu99", "-w"]),
    ] {
        let (p, log) = build_and_compare("f2_old_c.c", tag, &flags);
        assert!(!log.contains("error"), "{flags:?}: {log}");
        // a K&R function of numbers goes into the kernel with a prototype
        assert_eq!(place(&p, "f2_old_c.c:33"), "opencl", "{log}");
        // an implicit-int function too: `int` is spelled out in the kernel source
        assert_eq!(place(&p, "f2_old_c.c:36"), "opencl", "{log}");
        // a K&R function with a pointer parameter does not (its address space): said at translation
        assert!(log.contains("function 'put' has an old-style (K&R) definition with a parameter"), "{log}");
        assert_eq!(place(&p, "f2_old_c.c:44"), "cpu", "{log}");
    }
}

#[test]
fn f3_latin1_bytes_pass_through() {
    let s = src("f3_latin1.c");
    let bytes = std::fs::read(&s).unwrap();
    assert!(std::str::from_utf8(&bytes).is_err(), "the test program must not be UTF-8");
    let (p, log) = build_and_compare("f3_latin1.c", "f3", &[]);
    assert_eq!(place(&p, "f3_latin1.c:11"), "opencl", "{log}");
    // the generated host C holds the source's bytes unchanged
    let w = work("front-f3emit");
    let (ok, d) = ompcl(&["--emit-opencl", s.to_str().unwrap(), "-o", "."], &w);
    assert!(ok, "{d}");
    let host = std::fs::read(w.join("f3_latin1.host.c")).unwrap();
    let _ = std::fs::remove_dir_all(&w);
    for needle in
        [&b"Fran\xe7ois, d\xe9cembre"[..], b"\"r\xe9sultat \xb1 \xe0 v\xe9rifier\"", b"parall\xe8le"]
    {
        assert!(host.windows(needle.len()).any(|x| x == needle), "{:?} not in the host C", txt(needle));
    }
}

#[test]
fn f4_c89_dialects() {
    // the generated host C compiles in the user's dialect (no `for (int ...)` of ompcl's own)
    for (tag, flags) in [
        ("f4c89", vec!["-std=c89"]),
        ("f4ansi", vec!["-ansi"]),
        ("f4g89", vec!["-std=gnu89"]),
        ("f4c99", vec!["-std=c99"]),
        ("f4ped", vec!["-std=c89", "-pedantic"]),
    ] {
        let (p, log) = build_and_compare("f4_c89.c", tag, &flags);
        assert_eq!(place(&p, "f4_c89.c:14"), "opencl", "{flags:?}: {log}");
        assert_eq!(place(&p, "f4_c89.c:26"), "opencl", "{flags:?}: {log}");
        assert_eq!(place(&p, "f4_c89.c:30"), "cpu", "{flags:?}: {log}");
    }
}

#[test]
fn f5_simd_is_a_plain_loop() {
    // `parallel for simd`, `for simd` with hints, `simd` alone: every region on the device, and
    // no switch of the whole program to the C compiler's OpenMP
    let (p, log) = build_and_compare("f5_simd.c", "f5", &[]);
    assert!(!log.contains("not OpenMP 2.0"), "{log}");
    for at in ["f5_simd.c:15", "f5_simd.c:18", "f5_simd.c:24"] {
        assert_eq!(place(&p, at), "opencl", "{at}: {log}");
    }
}

#[test]
fn f6_crlf_line_ends() {
    let bytes = std::fs::read(src("f6_crlf.c")).unwrap();
    assert!(bytes.windows(3).any(|w| w == b"\\\r\n"), "the test program must have CRLF line ends");
    let (p, log) = build_and_compare("f6_crlf.c", "f6", &[]);
    assert_eq!(place(&p, "f6_crlf.c:8"), "opencl", "{log}");
    assert_eq!(place(&p, "f6_crlf.c:14"), "cpu", "{log}");
}

#[test]
fn f7_openmp5_routines() {
    // omp_init_allocator / omp_alloc / omp_get_supported_active_levels: the parse knows their
    // types, and the CPU versions go to the C compiler's OpenMP (before: undeclared
    // 'omp_alloctrait_t', or an undefined reference at the link)
    let (p, log) = build_and_compare("f7_omp5_routines.c", "f7", &[]);
    assert!(log.contains("is not provided by ompcl's CPU runtime"), "{log}");
    // omp_alloc's memory is libgomp's, not in ompcl's allocation table: the loop runs on the
    // CPU, with the run-time warning, and the same output
    assert_eq!(place(&p, "f7_omp5_routines.c:14"), "cpu", "{log}");
    assert!(log.contains("'v' does not point into memory ompcl knows"), "{log}");
}
