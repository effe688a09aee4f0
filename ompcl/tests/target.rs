//! OpenMP 4.5 device data environment: the map clauses drive the transfers (checked from the
//! `OMPCL_PROFILE` byte counts of `tests/corpus/c90_target_data.c` on PoCL).

mod common;
use common::*;

/// `(h2d bytes, d2h bytes)` of a profile line.
fn bytes(line: &str) -> (u64, u64) {
    let grab = |key: &str| -> u64 {
        let i = line.find(key).unwrap_or_else(|| panic!("no {key} in {line}")) + key.len();
        let rest = &line[i..];
        let open = rest.find('(').unwrap() + 1;
        rest[open..].split_whitespace().next().unwrap().parse().unwrap()
    };
    (grab("h2d="), grab("d2h="))
}

#[test]
fn arrays_stay_on_the_device_inside_target_data() {
    let w = work("target");
    let icd = icd_dir(&w);
    let src = root().join("tests/corpus/c90_target_data.c");
    let exe = w.join("c90");
    let (ok, err) = ompcl(&[&src.to_string_lossy(), "-o", &exe.to_string_lossy()], &w);
    assert!(ok, "{err}");
    let (out, err) = exec(
        &exe,
        &[("OCL_ICD_VENDORS", &icd.to_string_lossy()), ("OMPCL_DEVICE", "cpu"), ("OMPCL_PROFILE", "1")],
    );
    assert!(out.contains("t=16381.0"), "{out}");
    let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("ompcl-profile:")).collect();
    let region = |at: &str| -> (u64, u64) {
        bytes(lines.iter().find(|l| l.contains(at)).unwrap_or_else(|| panic!("no region {at}:\n{err}")))
    };
    // inside `target data`: the kernels neither send nor copy back the mapped arrays
    assert_eq!(region("c90_target_data.c:16 "), (0, 0), "{err}");
    assert_eq!(region("c90_target_data.c:19 "), (0, 0), "{err}");
    // after `enter data`, the kernel uses the device copy of d as it is
    assert_eq!(region("c90_target_data.c:31 "), (0, 0), "{err}");
    // the data constructs: a, b, c (16 KiB each) and d in; the half of c updated, c at the end and
    // d at `exit data` out
    let data = bytes(lines.iter().find(|l| l.contains("target data:")).unwrap_or_else(|| panic!("{err}")));
    assert_eq!(data, (4 * 16384, 8192 + 2 * 16384), "{err}");
    let _ = std::fs::remove_dir_all(&w);
}
