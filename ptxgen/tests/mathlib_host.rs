//! src/mathlib.cl's float functions checked on the host: tests/mathlib/host.c compiles the same
//! mathlib.cl text as C (the GPU's approximate instructions emulated at their documented worst
//! error, in both directions) and measures each function's ulp error against the C library's
//! double functions over a sample of every float (every 1021st: about 4 million per function, and
//! 16 million random atan2 pairs), with the special cases of section 7.5.1 bit for bit. It fails
//! when a function exceeds OpenCL 1.2's bound (table 7.1) or gets a special case wrong. The full
//! sweep (every float) is the same program run by hand: `host 1`.
use std::path::Path;
use std::process::Command;

#[test]
fn mathlib_within_bounds_on_host() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mathlib");
    let exe = Path::new(env!("CARGO_TARGET_TMPDIR")).join("mathlib-host");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    // -ffp-contract=off: only mathlib.cl's explicit fmas fuse, as in its OpenCL build
    let out = Command::new(&cc)
        .args(["-O2", "-ffp-contract=off", "-std=gnu11", "-Wall", "-Wno-unknown-pragmas", "-o"])
        .arg(&exe)
        .arg(dir.join("host.c"))
        .arg("-lm")
        .output()
        .unwrap_or_else(|e| panic!("{cc}: {e}"));
    assert!(out.status.success(), "{cc} host.c:\n{}", String::from_utf8_lossy(&out.stderr));
    let out = Command::new(&exe).arg("1021").output().expect("running the host check");
    let report = String::from_utf8_lossy(&out.stdout);
    println!("{report}");
    assert!(out.status.success(), "a function beyond its bound or a special case wrong:\n{report}");
    // every function reported
    for f in [
        "tan", "atan", "asin", "acos", "tanh", "sinh", "cosh", "log1p", "expm1", "cbrt", "erf", "erfc",
        "atan2", "sin", "cos", "exp", "exp10", "log", "log2", "log10",
    ] {
        assert!(report.lines().any(|l| l.starts_with(&format!("{f:<6} max"))), "{f} missing:\n{report}");
    }
}
