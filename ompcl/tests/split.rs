//! Regions split over several devices (OMPCL_DEVICES, runtime/rt_split.c), tested without a GPU:
//! `OMPCL_DEVICES=split:K` makes K logical devices of PoCL's CPU device, each with its own context,
//! so their memory is as separate as that of K GPUs. Every program in tests/split/ is built with
//! ompcl and with `gcc -fopenmp` and run with K = 1, 2, 3 (and `OMPCL_DEVICES=1`); outputs must
//! match gcc's (numbers with a '.' within a relative 1e-9). The header comment
//! `/* ompcl-split: split=L1,L2 one=L3 */` names the profile lines (`file.c:L`) of the regions that
//! must run split over all K devices, and of those that must stay on one device (with a reason),
//! checked from OMPCL_PROFILE, so a program whose regions silently stayed on one device fails.
//! `peer:K` runs the same programs on K PoCL devices of one context (`POCL_DEVICES`, K times
//! `pthread`) with `OMPCL_PEER=1`: data moves between the devices with clEnqueueCopyBuffer.
//!
//! Needs: gcc with libgomp, Debian's pocl-opencl-icd and ocl-icd-libopencl1, libclang-19.

mod common;
use common::*;
use std::path::PathBuf;

const TOL: f64 = 1e-9;

fn programs() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join("tests/split"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    v.sort();
    v
}

/// The line numbers after `key=` in the program's `ompcl-split:` header.
fn header_lines(src: &str, key: &str) -> Vec<u32> {
    let first = src.lines().next().unwrap_or("");
    assert!(first.contains("ompcl-split:"), "no ompcl-split header");
    first
        .split_whitespace()
        .filter_map(|w| w.strip_prefix(&format!("{key}=")))
        .flat_map(|l| l.split(',').map(|n| n.parse::<u32>().unwrap()).collect::<Vec<_>>())
        .collect()
}

/// The environment of a device configuration: `N`, `split:K` (K contexts on PoCL's one device) or
/// `peer:K` (K PoCL devices in one context, OMPCL_PEER=1): (OMPCL_DEVICES, POCL_DEVICES, OMPCL_PEER).
fn devices_env(devs: &str) -> (&str, String, &'static str) {
    match devs.strip_prefix("peer:") {
        Some(k) => ("all", vec!["pthread"; k.parse().unwrap()].join(" "), "1"),
        None => (devs, "pthread".to_string(), "0"),
    }
}

#[test]
fn split_regions_match_gcc() {
    let w = work("split");
    let icd = icd_dir(&w);
    let icd = icd.to_str().unwrap();
    let mut failures = Vec::new();
    let progs = programs();
    assert!(progs.len() >= 8, "tests/split holds the programs");
    for p in progs {
        let name = p.file_stem().unwrap().to_string_lossy().into_owned();
        let file = p.file_name().unwrap().to_string_lossy().into_owned();
        let src = std::fs::read_to_string(&p).unwrap();
        let (split, one) = (header_lines(&src, "split"), header_lines(&src, "one"));
        let gexe = w.join(format!("{name}.gcc"));
        gcc(&[p.to_str().unwrap(), "-o", gexe.to_str().unwrap()], &w);
        let (want, _) = exec(&gexe, &[]);
        let exe = w.join(&name);
        let (ok, err) = ompcl(&["-O2", p.to_str().unwrap(), "-o", exe.to_str().unwrap()], &w);
        assert!(ok, "{name}: ompcl failed:\n{err}");
        for devs in ["1", "split:1", "split:2", "split:3", "peer:2", "peer:3"] {
            let (ompcl_devices, pocl_devices, peer) = devices_env(devs);
            let env = [
                ("OCL_ICD_VENDORS", icd),
                ("OMPCL_DEVICE", "cpu"),
                ("OMPCL_DEVICES", ompcl_devices),
                ("POCL_DEVICES", pocl_devices.as_str()),
                ("OMPCL_PEER", peer),
                // every range several devices lack cut into pieces, however small
                ("OMPCL_PEER_MIN", "0"),
                ("OMPCL_PROFILE", "1"),
                // every run split, however short its kernels (the default keeps short ones on one
                // device after their first split run)
                ("OMPCL_SPLIT_MIN_MS", "0"),
                // overlapping written ranges with one writer per element merged (s10)
                ("OMPCL_SPLIT_MERGE", "1"),
            ];
            let (got, err) = exec(&exe, &env);
            if let Err(e) = same_numbers(&want, &got, TOL) {
                failures.push(format!(
                    "{name} OMPCL_DEVICES={devs}: output differs from gcc's ({e}):\n{want}\n{got}"
                ));
            }
            let k: usize = devs.split_once(':').map_or(1, |(_, k)| k.parse().unwrap());
            let profile: Vec<&str> = err.lines().filter(|l| l.starts_with("ompcl-profile:")).collect();
            let has = |s: &str| profile.iter().any(|l| l.contains(s));
            if k == 1 {
                // one device: no region is split, and none says why not
                if has(" devices: runs=") || has(" on 1 device: ") {
                    failures
                        .push(format!("{name} OMPCL_DEVICES={devs}: a split report with one device:\n{err}"));
                }
                continue;
            }
            for l in &split {
                if !has(&format!("{file}:{l} on {k} devices: runs=")) {
                    failures.push(format!("{name} OMPCL_DEVICES={devs}: the region at line {l} did not run on {k} devices:\n{err}"));
                }
                if has(&format!("{file}:{l} on 1 device: ")) {
                    failures.push(format!(
                        "{name} OMPCL_DEVICES={devs}: the region at line {l} also ran on one device:\n{err}"
                    ));
                }
            }
            for l in &one {
                if !has(&format!("{file}:{l} on 1 device: ")) || has(&format!("{file}:{l} on {k} devices")) {
                    failures.push(format!("{name} OMPCL_DEVICES={devs}: the region at line {l} should stay on one device:\n{err}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} failure(s):\n{}", failures.len(), failures.join("\n\n"));
}

/// `OMPCL_DEVICES=split:K` with more logical devices than iterations, and a list naming devices
/// of the platform: the program still gives gcc's answer.
#[test]
fn device_lists_and_small_loops() {
    let w = work("split-list");
    let icd = icd_dir(&w);
    let icd = icd.to_str().unwrap();
    let src = w.join("small.c");
    std::fs::write(
        &src,
        "#include <stdio.h>\nint main(void) {\n  double a[5] = {1, 2, 3, 4, 5}, s = 0;\n  int i;\n#pragma omp parallel for reduction(+ : s)\n  for (i = 0; i < 5; i++) s += a[i] * i;\n  printf(\"%.3f\\n\", s);\n  return 0;\n}\n",
    )
    .unwrap();
    let exe = w.join("small");
    let (ok, err) = ompcl(&[src.to_str().unwrap(), "-o", exe.to_str().unwrap()], &w);
    assert!(ok, "{err}");
    for devs in ["split:8", "0,0", "all", "7"] {
        let (got, err) = exec(
            &exe,
            &[
                ("OCL_ICD_VENDORS", icd),
                ("OMPCL_DEVICE", "cpu"),
                ("OMPCL_DEVICES", devs),
                ("OMPCL_PROFILE", "1"),
            ],
        );
        assert_eq!(got.trim(), "40.000", "OMPCL_DEVICES={devs}:\n{err}");
        assert!(
            err.contains("opencl runs=1"),
            "OMPCL_DEVICES={devs}: the region did not run on the device:\n{err}"
        );
    }
}

/// One program of tests/split built with gcc and with ompcl, run on PoCL's CPU device as
/// `devices` with OMPCL_SPLIT_MIN_MS=`min_ms` and the profile on; checks its output against gcc's
/// and returns the profile (stderr).
fn run_split_program(file: &str, devices: &str, min_ms: &str) -> String {
    let (ompcl_devices, pocl_devices, peer) = devices_env(devices);
    let name = file.trim_end_matches(".c");
    let w = work(&format!("split-{name}"));
    let icd = icd_dir(&w);
    let icd = icd.to_str().unwrap();
    let p = root().join("tests/split").join(file);
    let gexe = w.join(format!("{name}.gcc"));
    gcc(&[p.to_str().unwrap(), "-o", gexe.to_str().unwrap()], &w);
    let (want, _) = exec(&gexe, &[]);
    let exe = w.join(name);
    let (ok, err) = ompcl(&[p.to_str().unwrap(), "-o", exe.to_str().unwrap()], &w);
    assert!(ok, "{err}");
    let env = [
        ("OCL_ICD_VENDORS", icd),
        ("OMPCL_DEVICE", "cpu"),
        ("OMPCL_DEVICES", ompcl_devices),
        ("POCL_DEVICES", pocl_devices.as_str()),
        ("OMPCL_PEER", peer),
        ("OMPCL_PEER_MIN", "0"),
        ("OMPCL_PROFILE", "1"),
        ("OMPCL_SPLIT_MIN_MS", min_ms),
        // one `ompcl-split:` line per split launch: its steps' times and bytes
        ("OMPCL_SPLIT_TRACE", "1"),
    ];
    let (got, err) = exec(&exe, &env);
    same_numbers(&want, &got, 1e-9).unwrap_or_else(|e| panic!("{e}:\n{want}\n{got}"));
    err
}

/// By default a region whose devices' written ranges overlap (a symmetric fill) runs on one
/// device, with the reason in the profile; the results stay gcc's.
#[test]
fn overlapping_writes_stay_on_one_device_by_default() {
    let err = run_split_program("s10_symmetric.c", "split:3", "0");
    assert!(
        err.contains("s10_symmetric.c:13 on 1 device: the devices' written ranges of 'sym' overlap"),
        "{err}"
    );
    assert!(!err.contains("s10_symmetric.c:13 on 3 devices"), "{err}");
}

/// With one context over the devices (OMPCL_PEER) such a region is split by default: device 0 keeps
/// a copy of the block as it was and merges the other devices' written ranges into it (a kernel of
/// its own); the results stay gcc's.
#[test]
fn overlapping_writes_merge_on_device_zero_with_one_context() {
    let err = run_split_program("s10_symmetric.c", "peer:3", "0");
    assert!(err.contains("s10_symmetric.c:13 on 3 devices: runs="), "{err}");
    assert!(!err.contains("s10_symmetric.c:13 on 1 device"), "{err}");
}

/// A merged block the host never wrote (a fresh allocation: covariance's symmat) is zeroed on
/// every device instead of copied from device 0, and the merge compares with zero; the results
/// stay gcc's, elements written as zero included.
#[test]
fn fresh_blocks_merge_from_zero() {
    let err = run_split_program("s12_symmetric_fresh.c", "peer:3", "0");
    assert!(err.contains("s12_symmetric_fresh.c:19 on 3 devices: runs="), "{err}");
    let trace = err.lines().find(|l| l.starts_with("ompcl-split: s12_symmetric_fresh.c:19 on 3 devices"));
    let zeroed = trace.and_then(|l| l.split("zeroed=").nth(1)).and_then(|v| v.trim().parse::<u64>().ok());
    // device 0 zeroes the whole block (601 x 601 floats), the others their ranges
    assert!(zeroed.is_some_and(|z| z >= 601 * 601 * 4), "{err}");
}

/// A region whose split kernels are short (under OMPCL_SPLIT_MIN_MS) runs split once, then on one
/// device, with the reason in the profile; the results stay gcc's.
#[test]
fn short_kernels_stop_splitting() {
    let err = run_split_program("s4_stencil.c", "split:2", "100000");
    assert!(err.contains("s4_stencil.c:14 on 2 devices: runs=1,"), "{err}");
    assert!(
        err.contains("s4_stencil.c:14 on 1 device: its kernel took") && err.contains("(runs=5)"),
        "{err}"
    );
}

/// The bytes a profile says went `way` (`h2d`, `d2h`) inside the regions (its `total:` line has no
/// byte count: the regions' lines summed).
fn region_bytes(profile: &str, way: &str) -> u64 {
    let key = format!(" {way}=");
    profile
        .lines()
        .filter(|l| l.contains(" region ") && l.contains(&key))
        .map(|l| {
            let after = &l[l.find(&key).unwrap()..];
            let open = after.find('(').unwrap();
            let close = after.find(" B)").unwrap();
            after[open + 1..close].parse::<u64>().unwrap()
        })
        .sum()
}

/// With one context over the devices (OMPCL_PEER) a byte crosses from the host once: gemm's B,
/// which every device reads whole, is uploaded in pieces and the pieces copied between the
/// devices, and 2mm's second loop takes the rows of tmp that the first loop left on the other
/// devices from them. With one context per device each device uploads all it reads. The results
/// stay on the devices, gathered on the first, and reach the host on its first access (after the
/// regions), as a single device's do; with a context per device they come back inside the regions.
#[test]
fn one_context_moves_data_between_devices() {
    for file in ["s1_gemm.c", "s2_2mm.c"] {
        let one = region_bytes(&run_split_program(file, "1", "0"), "h2d");
        let separate_profile = run_split_program(file, "split:3", "0");
        let separate = region_bytes(&separate_profile, "h2d");
        let err = run_split_program(file, "peer:3", "0");
        let shared = region_bytes(&err, "h2d");
        let (back_separate, back_shared) =
            (region_bytes(&separate_profile, "d2h"), region_bytes(&err, "d2h"));
        assert!(
            back_shared < back_separate / 4 && err.contains("copied back on first host access"),
            "{file}: {back_shared} B copied back inside the regions with OMPCL_PEER, {back_separate} B with a context per device:\n{err}"
        );
        assert!(
            separate > one,
            "{file}: the test shows nothing: {separate} B uploaded over 3 contexts, {one} B on one device"
        );
        assert!(
            shared <= one,
            "{file}: {shared} B uploaded with OMPCL_PEER over 3 devices, {one} B on one device:\n{err}"
        );
        let between = err
            .lines()
            .filter_map(|l| l.split("between devices ").nth(1))
            .filter(|t| !t.contains("(0 B)"))
            .count();
        assert!(between > 0, "{file}: no copy between the devices:\n{err}");
    }
}
