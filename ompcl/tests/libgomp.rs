//! libgomp's own OpenMP tests (Debian 12's gcc-12 source package), in two sets: the device tests
//! (every C `libgomp.c/target*.c` and `libgomp.c-c++-common/target*.c`) and the others of
//! `libgomp.c` (loops, reductions, atomics, locks, tasks, nesting: programs ompcl was not written
//! against). Each is built with `gcc -fopenmp` (target regions run on the host) and with ompcl,
//! then run through ompcl on PoCL's CPU device and on host threads (`OMPCL_DEVICE=host`). The
//! tests check themselves (abort() on a wrong value).
//!
//! The source package is fetched once into `<target>/libgomp-src` with a private apt
//! configuration (a `deb-src` line for the archive the system uses); if that is impossible the
//! test prints `skipped: ...` and passes. It fails when a count drops below its floor.

mod common;
use common::*;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Counts this test must reach (measured 2026-11-27 and 2026-11-28 on the 2-core build machine, PoCL 5).
const FLOOR_GCC: usize = 54;
const FLOOR_TRANSLATED: usize = 54;
const FLOOR_POCL: usize = 53;
const FLOOR_HOST: usize = 54;
/// Of the programs passing on PoCL, how many ran at least one target region as an OpenCL kernel.
const FLOOR_OFFLOADED: usize = 25;
/// The same counts for the other `libgomp.c` tests (measured 2026-11-28, session 27): gcc builds
/// and passes, ompcl translates, passes on PoCL, of those runs at least one region as OpenCL,
/// passes on host threads.
const HOST_FLOORS: Floors = Floors { gcc: 276, translated: 260, pocl: 248, offloaded: 28, host: 249 };

/// The least each count of a set must reach.
struct Floors {
    gcc: usize,
    translated: usize,
    pocl: usize,
    offloaded: usize,
    host: usize,
}

/// Cargo's target folder: this test runs as `<target>/<profile>/deps/libgomp-...`.
fn target_dir() -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|e| e.ancestors().nth(3).map(Path::to_path_buf))
        .unwrap_or_else(|| root().join("../target"))
}

/// The archive of the system's apt sources (deb822 `URIs:` or a `deb` line).
fn archive() -> Option<String> {
    let mut texts = Vec::new();
    if let Ok(t) = std::fs::read_to_string("/etc/apt/sources.list") {
        texts.push(t);
    }
    if let Ok(d) = std::fs::read_dir("/etc/apt/sources.list.d") {
        for e in d.flatten() {
            let p = e.path();
            let n = p.to_string_lossy().into_owned();
            if n.ends_with(".list") || n.ends_with(".sources") {
                texts.push(std::fs::read_to_string(&p).unwrap_or_default());
            }
        }
    }
    for t in &texts {
        for l in t.lines() {
            let l = l.trim();
            if let Some(u) = l.strip_prefix("URIs:") {
                let u = u.trim();
                if u.contains("debian") && !u.contains("security") {
                    return Some(u.split_whitespace().next()?.to_string());
                }
            }
            if let Some(r) = l.strip_prefix("deb ") {
                let u = r.split_whitespace().find(|w| w.contains("://"))?;
                if u.contains("debian") && !u.contains("security") {
                    return Some(u.to_string());
                }
            }
        }
    }
    None
}

/// The folder holding `libgomp/testsuite`, fetching and extracting the source package if needed.
fn testsuite() -> Result<PathBuf, String> {
    let cache = target_dir().join("libgomp-src");
    let suite = cache.join("x/gcc-12.2.0/libgomp/testsuite");
    // (a cache from before the non-target tests were extracted too lacks loop-5.c)
    if suite.join("libgomp.c/loop-5.c").is_file() {
        return Ok(suite);
    }
    std::fs::create_dir_all(cache.join("lists/partial")).map_err(|e| e.to_string())?;
    let orig = |c: &Path| -> Option<PathBuf> {
        std::fs::read_dir(c).ok()?.flatten().map(|e| e.path()).find(|p| {
            let n = p.file_name().unwrap_or_default().to_string_lossy().into_owned();
            n.starts_with("gcc-12_") && n.ends_with(".orig.tar.gz")
        })
    };
    if orig(&cache).is_none() {
        let uri = archive().ok_or("no Debian archive in the apt sources")?;
        std::fs::write(cache.join("sources.list"), format!("deb-src {uri} bookworm main\n"))
            .map_err(|e| e.to_string())?;
        let apt = |args: &[&str]| -> Result<(), String> {
            let o = Command::new("apt-get")
                .current_dir(&cache)
                .arg("-o")
                .arg(format!("Dir::Etc::SourceList={}", cache.join("sources.list").display()))
                .args(["-o", "Dir::Etc::SourceParts=/dev/null", "-o", "Debug::NoLocking=1"])
                .arg("-o")
                .arg(format!("Dir::State::Lists={}", cache.join("lists").display()))
                .arg("-o")
                .arg(format!("Dir::Cache={}", cache.join("cache").display()))
                .args(args)
                .output()
                .map_err(|e| format!("apt-get: {e}"))?;
            if o.status.success() {
                Ok(())
            } else {
                Err(format!("apt-get {}: {}", args.join(" "), txt(&o.stderr).lines().last().unwrap_or("")))
            }
        };
        apt(&["update"])?;
        apt(&["source", "--download-only", "gcc-12"])?;
    }
    let orig = orig(&cache).ok_or("gcc-12 source package not downloaded")?;
    let x = cache.join("x");
    std::fs::create_dir_all(&x).map_err(|e| e.to_string())?;
    let tar = |args: &[&str]| -> Result<(), String> {
        let o = Command::new("tar").current_dir(&x).args(args).output().map_err(|e| e.to_string())?;
        if o.status.success() {
            Ok(())
        } else {
            Err(format!("tar: {}", txt(&o.stderr)))
        }
    };
    let inner = "gcc-12-12.2.0/gcc-12.2.0-dfsg.tar.xz";
    tar(&["xzf", &orig.to_string_lossy(), inner])?;
    tar(&[
        "xJf",
        inner,
        "--wildcards",
        "gcc-12.2.0/libgomp/testsuite/libgomp.c/*.c",
        "gcc-12.2.0/libgomp/testsuite/libgomp.c/*.h",
        "gcc-12.2.0/libgomp/testsuite/libgomp.c-c++-common/target*.c",
    ])?;
    let _ = std::fs::remove_file(x.join(inner));
    Ok(suite)
}

/// Whether a test is meant to run here: not compile-only, not multi-file, not expected to fail,
/// not needing a device with its own memory (gcc's host fallback cannot pass those either).
fn runnable(src: &str) -> bool {
    ![
        "dg-do compile",
        "dg-do link",
        "dg-additional-sources",
        "dg-shouldfail",
        "offload_device_nonshared_as",
        "dg-output",
    ]
    .iter()
    .any(|w| src.contains(w))
}

fn run_ok(exe: &Path, env: &[(&str, &str)]) -> (bool, String) {
    let mut c = Command::new("timeout");
    c.arg("120").arg(exe);
    for (k, v) in env {
        c.env(k, v);
    }
    let o = run(&mut c);
    (o.status.success(), txt(&o.stderr))
}

#[test]
fn libgomp_target_tests() {
    let floors = Floors {
        gcc: FLOOR_GCC,
        translated: FLOOR_TRANSLATED,
        pocl: FLOOR_POCL,
        offloaded: FLOOR_OFFLOADED,
        host: FLOOR_HOST,
    };
    run_set("target", &["libgomp.c", "libgomp.c-c++-common"], |n| n.starts_with("target"), &floors);
}

/// The rest of `libgomp.c`: OpenMP as CPU programs use it (target and declare-variant tests are the
/// set above's or need a GPU of gcc's kind).
#[test]
fn libgomp_host_tests() {
    run_set(
        "host",
        &["libgomp.c"],
        |n| !n.starts_with("target") && !n.starts_with("declare-variant"),
        &HOST_FLOORS,
    );
}

/// Builds and runs the tests of `dirs` whose file name `pick` accepts; fails when a count drops
/// below its floor.
fn run_set(set: &str, dirs: &[&str], pick: impl Fn(&str) -> bool, floors: &Floors) {
    let suite = match testsuite() {
        Ok(s) => s,
        Err(e) => {
            println!("skipped: libgomp's testsuite (Debian's gcc-12 source package) is not available: {e}");
            return;
        }
    };
    let w = work(&format!("libgomp-{set}"));
    let icd = icd_dir(&w);
    let icd = icd.to_string_lossy().into_owned();
    let mut files: Vec<PathBuf> = Vec::new();
    for d in dirs {
        let mut v: Vec<PathBuf> = std::fs::read_dir(suite.join(d))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                let n = p.file_name().unwrap().to_string_lossy().into_owned();
                pick(&n) && n.ends_with(".c")
            })
            .collect();
        v.sort();
        files.extend(v);
    }
    let (mut built, mut translated, mut pocl, mut host, mut offloaded, mut considered) = (0, 0, 0, 0, 0, 0);
    let mut failures = Vec::new();
    for f in &files {
        let src = std::fs::read_to_string(f).unwrap_or_default();
        let name = format!(
            "{}/{}",
            f.parent().unwrap().file_name().unwrap().to_string_lossy(),
            f.file_name().unwrap().to_string_lossy()
        );
        if !runnable(&src) {
            continue;
        }
        considered += 1;
        let tag = name.replace(['/', '.'], "_");
        let g = w.join(format!("{tag}.gcc"));
        let o = Command::new("gcc")
            .args(["-fopenmp", "-foffload=disable", "-w"])
            .arg(format!("-I{}", f.parent().unwrap().display()))
            .arg(f)
            .arg("-o")
            .arg(&g)
            .arg("-lm")
            .output()
            .unwrap();
        if !o.status.success() {
            continue; // OpenMP 5.x beyond gcc 12, or a C++-only construct
        }
        let (gok, _) = run_ok(&g, &[]);
        if !gok {
            continue;
        }
        built += 1;
        let exe = w.join(format!("{tag}.ompcl"));
        let inc = format!("-I{}", f.parent().unwrap().display());
        let (ok, err) = ompcl(&[&f.to_string_lossy(), &inc, "-w", "-o", &exe.to_string_lossy(), "-lm"], &w);
        if !ok {
            let first = err.lines().find(|l| l.contains("error")).unwrap_or("").to_string();
            failures.push(format!("{name}: not built by ompcl: {first}"));
            continue;
        }
        translated += 1;
        let (ok, err) =
            run_ok(&exe, &[("OCL_ICD_VENDORS", &icd), ("OMPCL_DEVICE", "cpu"), ("OMPCL_PROFILE", "1")]);
        if ok {
            pocl += 1;
            if err.lines().any(|l| l.starts_with("ompcl-profile:") && l.contains(": opencl")) {
                offloaded += 1;
            }
        } else {
            failures.push(format!("{name}: failed on PoCL"));
        }
        let (ok, _) = run_ok(&exe, &[("OMPCL_DEVICE", "host")]);
        if ok {
            host += 1;
        } else {
            failures.push(format!("{name}: failed on host threads"));
        }
    }
    println!(
        "libgomp {set} tests: {considered} runnable, {built} built by gcc (and passing there), {translated} translated, {pocl} passed on PoCL ({offloaded} with regions run as OpenCL kernels), {host} passed on host threads"
    );
    for f in &failures {
        println!("  {f}");
    }
    let _ = std::fs::remove_dir_all(&w);
    assert!(built >= floors.gcc, "gcc built {built} < {}", floors.gcc);
    assert!(translated >= floors.translated, "translated {translated} < {}", floors.translated);
    assert!(pocl >= floors.pocl, "passed on PoCL {pocl} < {}", floors.pocl);
    assert!(offloaded >= floors.offloaded, "offloaded {offloaded} < {}", floors.offloaded);
    assert!(host >= floors.host, "passed on host {host} < {}", floors.host);
}
