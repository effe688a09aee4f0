//! PolyBench-ACC's OpenMP programs (13 of them, in `<repo>/../shared/corpora/polybench-acc`; not
//! copied into this repository): each is translated by ompcl, built with gcc, run with the MINI
//! dataset on PoCL's CPU device and on CPU threads, and its arrays (dumped to stderr with
//! -DPOLYBENCH_DUMP_ARRAYS) compared numerically with `gcc -fopenmp`'s build run on one thread
//! (atax and bicg parallelise loops that share a temporary, so their results depend on the thread
//! count; one thread is the reference for all). Every region must run on the OpenCL device, except
//! atax's and bicg's: ompcl must find their race and keep them on the CPU, with a warning.
//! Where the corpus is missing the test says so and passes.

mod common;
use common::*;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

const PROGRAMS: &[&str] = &[
    "2mm",
    "3mm",
    "atax",
    "bicg",
    "correlation",
    "covariance",
    "doitgen",
    "gemm",
    "gemver",
    "gesummv",
    "mvt",
    "syr2k",
    "syrk",
];

/// Upstream's atax and bicg race (each iteration of a parallel loop updates a whole shared vector).
const RACY: &[&str] = &["atax", "bicg"];

fn corpus() -> Option<PathBuf> {
    // OMPCL_POLYBENCH names another copy (e.g. /work/corpora/polybench-acc)
    let d = match std::env::var_os("OMPCL_POLYBENCH") {
        Some(p) => PathBuf::from(p),
        None => root().join("..").join("..").join("shared/corpora/polybench-acc"),
    };
    d.join("utilities/polybench.c").exists().then_some(d)
}

/// The dump, with anything the runtime appended (profile report) cut off.
fn dump(stderr: &str) -> String {
    stderr
        .lines()
        .map(|l| match l.find("ompcl") {
            Some(i) => &l[..i],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Values printed with two decimals: equal within 1e-4 relative, or the print's granularity.
fn close(a: &str, b: &str) -> Result<(), String> {
    let ta: Vec<&str> = a.split_whitespace().collect();
    let tb: Vec<&str> = b.split_whitespace().collect();
    if ta.len() != tb.len() || ta.is_empty() {
        return Err(format!("{} values vs {}", ta.len(), tb.len()));
    }
    for (k, (x, y)) in ta.iter().zip(&tb).enumerate() {
        let (fx, fy) =
            (x.parse::<f64>().map_err(|_| x.to_string())?, y.parse::<f64>().map_err(|_| y.to_string())?);
        if (fx - fy).abs() > 1e-4 * fx.abs().max(fy.abs()) + 0.011 {
            return Err(format!("value {k}: {x} vs {y}"));
        }
    }
    Ok(())
}

fn check(pb: &Path, name: &str, w: &Path, icd: &Path) -> Result<String, String> {
    let u = pb.join("utilities");
    let d = pb.join(name);
    let (inc_u, inc_d) = (format!("-I{}", u.display()), format!("-I{}", d.display()));
    let (pbc, src) = (u.join("polybench.c"), d.join(format!("{name}.c")));
    let (pbc, src) = (pbc.to_str().unwrap(), src.to_str().unwrap());
    let mut flags = vec!["-DPOLYBENCH_DUMP_ARRAYS", "-DMINI_DATASET"];
    if name == "correlation" {
        flags.extend(["-DN=32", "-DM=32"]); // correlation.c defines EXTRALARGE_DATASET itself
    }
    let exe = format!("{name}.ompcl");
    let mut a = vec!["-O2", &inc_u, &inc_d, pbc, src, "-o", &exe];
    a.extend(&flags);
    let (ok, diags) = ompcl(&a, w);
    if !ok {
        return Err(format!("ompcl failed:\n{diags}"));
    }
    let refe = format!("{name}.ref");
    let mut g = vec![inc_u.as_str(), &inc_d, pbc, src, "-o", &refe];
    g.extend(&flags);
    gcc(&g, w);
    let (_, expect) = exec(&w.join(&refe), &[("OMP_NUM_THREADS", "1")]);
    let icd_s = icd.to_str().unwrap();
    let (_, err) =
        exec(&w.join(&exe), &[("OCL_ICD_VENDORS", icd_s), ("OMPCL_DEVICE", "cpu"), ("OMPCL_PROFILE", "1")]);
    close(&dump(&expect), &dump(&err)).map_err(|e| format!("PoCL run differs from gcc: {e}\n{diags}"))?;
    let places = placements(&err);
    if RACY.contains(&name) {
        // every iteration of their second loop writes all of y[] / s[]: ompcl must see the race
        // and keep the region on the CPU (on a GPU it gives wrong values), saying why
        if places.iter().any(|(_, p)| p != "cpu") || !diags.contains("a data race in the program") {
            return Err(format!("the racy region must stay on the CPU with a warning: {places:?}\n{diags}"));
        }
    } else if places.is_empty() || places.iter().any(|(_, p)| p != "opencl") {
        return Err(format!("not every region ran on OpenCL: {places:?}\n{diags}{err}"));
    }
    let threads = if RACY.contains(&name) { "1" } else { "4" };
    let (_, err_h) = exec(&w.join(&exe), &[("OMPCL_DEVICE", "host"), ("OMP_NUM_THREADS", threads)]);
    close(&dump(&expect), &dump(&err_h)).map_err(|e| format!("CPU-threads run differs from gcc: {e}"))?;
    Ok(format!(
        "{} kernels on opencl: {}",
        places.len(),
        places.iter().map(|p| p.0.as_str()).collect::<Vec<_>>().join(" ")
    ))
}

#[test]
fn polybench_acc_matches_gcc_on_pocl_and_cpu_threads() {
    let Some(pb) = corpus() else {
        eprintln!("skipped: PolyBench-ACC corpus not found at <repo>/../shared/corpora/polybench-acc");
        return;
    };
    let w = work("polybench");
    let icd = icd_dir(&w);
    let queue = Arc::new(Mutex::new(PROGRAMS.to_vec()));
    let results = Arc::new(Mutex::new(Vec::new()));
    let mut hs = Vec::new();
    for _ in 0..2 {
        let (q, res, w, icd, pb) = (queue.clone(), results.clone(), w.clone(), icd.clone(), pb.clone());
        hs.push(std::thread::spawn(move || loop {
            let Some(p) = q.lock().unwrap().pop() else { break };
            let r = check(&pb, p, &w, &icd);
            res.lock().unwrap().push((p, r));
        }));
    }
    for h in hs {
        h.join().unwrap();
    }
    let mut res = results.lock().unwrap().drain(..).collect::<Vec<_>>();
    res.sort();
    let mut failed = 0;
    for (n, r) in &res {
        match r {
            Ok(m) => eprintln!("PASS {n:12} {m}"),
            Err(e) => {
                failed += 1;
                eprintln!("FAIL {n:12} {e}");
            }
        }
    }
    eprintln!("{} programs, {} passed, {} failed", res.len(), res.len() - failed, failed);
    let _ = std::fs::remove_dir_all(&w);
    assert_eq!(res.len(), PROGRAMS.len());
    assert_eq!(failed, 0, "{failed} PolyBench programs failed");
}
