//! The ompcl corpus: every program in tests/corpus/ (MOMP's four examples included) is built with ompcl and with
//! `gcc -fopenmp`, then run on PoCL's CPU device (OMPCL_DEVICE=cpu) and on CPU threads
//! (OMPCL_DEVICE=host); outputs must match the gcc build. Integers must match exactly; numbers
//! written with a '.' or an exponent match within a relative tolerance of 1e-5 (see TOL).
//!
//! The header comment `/* ompcl-test: offload=all|some|none [warn="text"]... */` of each program says
//! where its regions must run with OMPCL_DEVICE=cpu (checked from the OMPCL_PROFILE report, so a
//! program that silently fell back to the CPU fails) and which translation warnings must appear
//! (each `warn=` names one).
//! `serial`: the program races as written; gcc's reference runs it on one thread.
//! `devlock`: the program has critical sections under a device lock; PoCL's CPU device does not
//! claim the forward progress they need, so they are run twice there: with OMPCL_DEVICE_LOCKS=1
//! (regions where `offload=` says) and without (those regions on the CPU, with the run-time warning).
//!
//! Needs: gcc with libgomp, Debian's pocl-opencl-icd (/etc/OpenCL/vendors/pocl.icd) and
//! ocl-icd-libopencl1, libclang-19.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};

const TOL: f64 = 1e-5;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn work(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ompcl-test-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn icd_dir(w: &Path) -> PathBuf {
    let d = w.join("icd");
    std::fs::create_dir_all(&d).unwrap();
    let src = Path::new("/etc/OpenCL/vendors/pocl.icd");
    assert!(src.exists(), "PoCL is needed: apt-get install pocl-opencl-icd");
    std::fs::copy(src, d.join("pocl.icd")).unwrap();
    d
}

fn programs() -> Vec<PathBuf> {
    let mut v = Vec::new();
    // tests/corpus holds MOMP's four examples too (symbolic links to examples/)
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("tests/corpus"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().map(|e| e == "c").unwrap_or(false))
        .collect();
    // OMPCL_TEST_ONLY=c76: only the programs whose name contains it (while working on them)
    if let Ok(only) = std::env::var("OMPCL_TEST_ONLY") {
        files.retain(|p| p.file_name().unwrap().to_string_lossy().contains(only.as_str()));
    }
    files.sort();
    v.extend(files);
    v
}

struct Spec {
    offload: String,
    devlock: bool,
    /// `serial`: the program races as written; its defined result is one thread's, so gcc's
    /// reference build runs on one (ompcl's loops computing exactly that: interchange.rs)
    serial: bool,
    warn: Vec<String>,
    runwarn: Option<String>,
    /// `spread="LINE:K ..."`: the region at LINE ran K launches over (i, j) pairs (or more
    /// loops: a multi-dimensional NDRange), the others with one work-item per row
    spread: Vec<(u32, u32)>,
}

fn spec(src: &str) -> Spec {
    let mut s = Spec {
        offload: "all".into(),
        devlock: false,
        serial: false,
        warn: Vec::new(),
        runwarn: None,
        spread: vec![],
    };
    if let Some(i) = src.find("ompcl-test:") {
        let line = src[i..].lines().next().unwrap();
        s.devlock = line.split_whitespace().any(|w| w == "devlock");
        s.serial = line.split_whitespace().any(|w| w == "serial");
        if let Some(j) = line.find("offload=") {
            s.offload = line[j + 8..].split_whitespace().next().unwrap().to_string();
        }
        for (j, _) in line.match_indices(" warn=\"") {
            let rest = &line[j + 7..];
            s.warn.push(rest[..rest.find('"').unwrap()].to_string());
        }
        if let Some(j) = line.find("runwarn=\"") {
            let rest = &line[j + 9..];
            s.runwarn = Some(rest[..rest.find('"').unwrap()].to_string());
        }
        if let Some(j) = line.find("spread=\"") {
            let rest = &line[j + 8..];
            for w in rest[..rest.find('"').unwrap()].split_whitespace() {
                let (l, k) = w.split_once(':').unwrap();
                s.spread.push((l.parse().unwrap(), k.parse().unwrap()));
            }
        }
    }
    s
}

fn run(cmd: &mut Command) -> Output {
    cmd.output().unwrap_or_else(|e| panic!("cannot run {:?}: {e}", cmd))
}

fn txt(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Compare program outputs token by token; floating tokens within TOL.
fn same_output(a: &str, b: &str) -> bool {
    let ta: Vec<&str> = a.split_whitespace().collect();
    let tb: Vec<&str> = b.split_whitespace().collect();
    if ta.len() != tb.len() {
        return false;
    }
    ta.iter().zip(&tb).all(|(x, y)| {
        if x == y {
            return true;
        }
        fn strip(s: &str) -> &str {
            s.trim_matches(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+' || c == 'e'))
        }
        let (sx, sy) = (strip(x), strip(y));
        let floaty = |s: &str| s.contains('.') || s.contains('e');
        match (sx.parse::<f64>(), sy.parse::<f64>()) {
            (Ok(fx), Ok(fy)) if floaty(sx) || floaty(sy) => {
                (fx - fy).abs() <= TOL * fx.abs().max(fy.abs()).max(1e-300) || (fx - fy).abs() < 1e-12
            }
            _ => false,
        }
    })
}

/// (name, pass, message)
fn check_program(src: &Path, w: &Path, icd: &Path) -> Result<String, String> {
    let name = src.file_stem().unwrap().to_string_lossy().into_owned();
    let text = std::fs::read_to_string(src).unwrap();
    let sp = spec(&text);
    // reference: gcc -fopenmp, MOMP's target() clause removed
    let refsrc = w.join(format!("{name}.ref.c"));
    let mut stripped = text.clone();
    for t in ["target(opencl)", "target(pthread)"] {
        stripped = stripped.replace(t, "");
    }
    std::fs::write(&refsrc, stripped).unwrap();
    let refexe = w.join(format!("{name}.ref"));
    // the reference is gcc's host run: no offload image (where gcc's nvptx offload compiler is
    // installed, its link fails on some programs, e.g. 16-bit atomics for a `short` reduction)
    let o = run(Command::new("gcc")
        .args(["-fopenmp", "-foffload=disable", "-O2", "-iquote"])
        .arg(src.parent().unwrap())
        .arg(&refsrc)
        .arg("-o")
        .arg(&refexe)
        .arg("-lm"));
    if !o.status.success() {
        return Err(format!("gcc build failed:\n{}", txt(&o.stderr)));
    }
    let exe = w.join(format!("{name}.ompcl"));
    let o = run(Command::new(env!("CARGO_BIN_EXE_ompcl")).arg("-O2").arg(src).arg("-o").arg(&exe));
    let cc_err = txt(&o.stderr);
    if !o.status.success() {
        return Err(format!("ompcl build failed:\n{cc_err}"));
    }
    for l in cc_err.lines() {
        let ok = l.contains(": warning: ") || l.contains(": note: ");
        if !ok {
            return Err(format!("unexpected ompcl output line: {l}"));
        }
        // file:line:col: warning:
        let parts: Vec<&str> = l.splitn(4, ':').collect();
        if parts.len() < 4 || parts[1].parse::<u32>().is_err() || parts[2].parse::<u32>().is_err() {
            return Err(format!("diagnostic not in file:line:col form: {l}"));
        }
    }
    for wt in &sp.warn {
        if !cc_err.contains(wt.as_str()) {
            return Err(format!("expected a diagnostic naming {wt}, got:\n{cc_err}"));
        }
    }
    // offload=all: no diagnostics, or only the notes that `warn=` names
    if sp.offload == "all" && !cc_err.is_empty() && (sp.warn.is_empty() || cc_err.contains(": warning: ")) {
        return Err(format!("unexpected diagnostics:\n{cc_err}"));
    }
    let env = |c: &mut Command| {
        c.env("OMP_NUM_THREADS", "4").env_remove("OMPCL_DEVICE").env_remove("OMPCL_PROFILE");
    };
    let mut c = Command::new(&refexe);
    env(&mut c);
    if sp.serial {
        c.env("OMP_NUM_THREADS", "1");
    }
    let r = run(&mut c);
    let expect = txt(&r.stdout);
    // PoCL's CPU device
    let mut c = Command::new(&exe);
    env(&mut c);
    // every offloadable region on the device, whatever the runtime's placement would choose: the
    // header's offload= says what the translation must offload (placement has its own test)
    c.env("OCL_ICD_VENDORS", icd)
        .env("OMPCL_DEVICE", "cpu")
        .env("OMPCL_PROFILE", "1")
        .env("OMPCL_PLACEMENT", "device");
    if sp.devlock {
        // without the override, PoCL's device gets no device locks: the regions holding them run
        // their CPU version, saying so once
        let mut c2 = Command::new(&exe);
        env(&mut c2);
        c2.env("OCL_ICD_VENDORS", icd)
            .env("OMPCL_DEVICE", "cpu")
            .env("OMPCL_PROFILE", "1")
            .env("OMPCL_PLACEMENT", "device");
        let r = run(&mut c2);
        let (got, err) = (txt(&r.stdout), txt(&r.stderr));
        if !r.status.success() || !same_output(&expect, &got) {
            return Err(format!(
                "run without device locks differs\n  gcc:   {expect}\n  ompcl: {got}\n{err}"
            ));
        }
        let warned = err.matches("need a device lock").count();
        let on_cpu = err.lines().filter(|l| l.contains(" region ") && l.contains(": cpu ")).count();
        if warned == 0 || warned != on_cpu {
            return Err(format!(
                "without device locks: {warned} warnings for {on_cpu} regions on the CPU:\n{err}"
            ));
        }
        c.env("OMPCL_DEVICE_LOCKS", "1");
    }
    let r = run(&mut c);
    let got = txt(&r.stdout);
    let err = txt(&r.stderr);
    if !r.status.success() {
        return Err(format!("OMPCL_DEVICE=cpu run failed ({}):\n{err}", r.status));
    }
    if !same_output(&expect, &got) {
        return Err(format!("OMPCL_DEVICE=cpu output differs\n  gcc:   {expect}\n  ompcl: {got}\n{err}"));
    }
    let places: Vec<String> = err
        .lines()
        .filter(|l| l.starts_with("ompcl-profile:") && l.contains(" region "))
        .map(|l| l.split(": ").nth(2).unwrap_or("").split_whitespace().next().unwrap_or("").to_string())
        .collect();
    if !err.contains("ompcl-profile: device: ") || err.contains("ompcl-profile: device: none") {
        return Err(format!("no OpenCL CPU device chosen:\n{err}"));
    }
    let n_cl = places.iter().filter(|p| p.starts_with("opencl")).count();
    let ok = match sp.offload.as_str() {
        "all" => {
            !places.is_empty() && places.iter().all(|p| p == "opencl") && !err.contains("ompcl: warning")
        }
        "some" => n_cl > 0,
        _ => n_cl == 0 && !places.is_empty(),
    };
    if !ok {
        return Err(format!("regions ran on {places:?}, expected offload={}:\n{err}", sp.offload));
    }
    let name = src.file_name().unwrap().to_string_lossy();
    for (line, k) in &sp.spread {
        let at = format!("ompcl-profile: {name}:{line} region ");
        let want = format!(" spread={k}");
        if !err.lines().any(|l| l.starts_with(&at) && l.split_whitespace().any(|w| w == want.trim())) {
            return Err(format!("expected the region at line {line} to show{want}:\n{err}"));
        }
    }
    if let Some(rw) = &sp.runwarn {
        if !err.contains(rw.as_str()) {
            return Err(format!("expected a run-time warning containing {rw}:\n{err}"));
        }
    }
    // CPU threads only
    let mut c = Command::new(&exe);
    env(&mut c);
    c.env("OMPCL_DEVICE", "host");
    let r = run(&mut c);
    let got = txt(&r.stdout);
    if !r.status.success() || !same_output(&expect, &got) {
        return Err(format!(
            "OMPCL_DEVICE=host output differs\n  gcc:   {expect}\n  ompcl: {got}\n{}",
            txt(&r.stderr)
        ));
    }
    Ok(format!("{} regions, {} on opencl", places.len(), n_cl))
}

#[test]
fn corpus_matches_gcc_on_pocl_and_cpu_threads() {
    let w = work("corpus");
    let icd = icd_dir(&w);
    let progs = programs();
    assert!(
        progs.len() >= 44 || std::env::var("OMPCL_TEST_ONLY").is_ok(),
        "corpus too small: {}",
        progs.len()
    );
    let queue = Arc::new(Mutex::new(progs.clone()));
    let results = Arc::new(Mutex::new(Vec::new()));
    let workers: usize = std::env::var("OMPCL_TEST_JOBS").ok().and_then(|s| s.parse().ok()).unwrap_or(2);
    let mut hs = Vec::new();
    for _ in 0..workers {
        let (q, res, w, icd) = (queue.clone(), results.clone(), w.clone(), icd.clone());
        hs.push(std::thread::spawn(move || loop {
            let Some(p) = q.lock().unwrap().pop() else { break };
            let r = check_program(&p, &w, &icd);
            res.lock().unwrap().push((p.file_stem().unwrap().to_string_lossy().into_owned(), r));
        }));
    }
    for h in hs {
        h.join().unwrap();
    }
    let mut res = results.lock().unwrap().drain(..).collect::<Vec<_>>();
    res.sort_by(|a, b| a.0.cmp(&b.0));
    let mut failed = 0;
    for (n, r) in &res {
        match r {
            Ok(m) => eprintln!("PASS {n:32} {m}"),
            Err(e) => {
                failed += 1;
                eprintln!("FAIL {n:32} {e}");
            }
        }
    }
    eprintln!("{} programs, {} passed, {} failed", res.len(), res.len() - failed, failed);
    let _ = std::fs::remove_dir_all(&w);
    assert_eq!(failed, 0, "{failed} corpus programs failed");
}

/// With no OpenCL platform at all, the program still runs (CPU threads) and says why.
#[test]
fn runs_without_any_opencl() {
    let w = work("noocl");
    std::fs::create_dir_all(w.join("empty")).unwrap();
    let src = root().join("tests/corpus/c01_vector_add.c");
    let exe = w.join("c01");
    let o = run(Command::new(env!("CARGO_BIN_EXE_ompcl")).arg(&src).arg("-o").arg(&exe));
    assert!(o.status.success(), "{}", txt(&o.stderr));
    let r = run(Command::new(&exe)
        .env("OCL_ICD_VENDORS", w.join("empty"))
        .env("OMPCL_DEVICE", "gpu")
        .env("OMPCL_PROFILE", "1"));
    assert!(r.status.success());
    let err = txt(&r.stderr);
    assert!(err.contains("ompcl: warning: OMPCL_DEVICE=gpu"), "{err}");
    assert!(err.contains("region 0: cpu"), "{err}");
    assert_eq!(txt(&r.stdout).trim(), "30000500000 1 299998");
    let _ = std::fs::remove_dir_all(&w);
}

/// --emit-opencl writes the host C and the OpenCL C; the kernel has the two-stage reduction.
#[test]
fn emit_opencl_writes_both_files() {
    let w = work("emit");
    std::fs::create_dir_all(&w).unwrap();
    let src = root().join("examples/sor.c");
    let o = run(Command::new(env!("CARGO_BIN_EXE_ompcl")).arg("--emit-opencl").arg(&src).arg("-o").arg(&w));
    assert!(o.status.success(), "{}", txt(&o.stderr));
    let cl = std::fs::read_to_string(w.join("sor.cl")).unwrap();
    let host = std::fs::read_to_string(w.join("sor.host.c")).unwrap();
    assert!(cl.contains("__kernel void ompcl_r0("));
    assert!(cl.contains("cl_khr_fp64"));
    assert!(cl.contains("barrier(CLK_LOCAL_MEM_FENCE)"));
    assert!(cl.contains("__global double (*G)[512]"));
    assert!(host.contains("ompcl_region_opencl(") && host.contains("ompc_parallel(__ompc_par_"));
    assert!(!host.contains("#pragma omp"));
    assert!(host.contains("ompcl_register_global((void*)&G"));
    let _ = std::fs::remove_dir_all(&w);
}

/// A C error is reported in file:line:col form and the build fails.
#[test]
fn c_errors_are_reported() {
    let w = work("err");
    std::fs::create_dir_all(&w).unwrap();
    let src = w.join("bad.c");
    std::fs::write(&src, "int main(void) {\n  int x = ;\n  return 0;\n}\n").unwrap();
    let o = run(Command::new(env!("CARGO_BIN_EXE_ompcl")).arg(&src).arg("-o").arg(w.join("bad")));
    assert!(!o.status.success());
    let e = txt(&o.stderr);
    assert!(e.contains("bad.c:2:11: error:"), "{e}");
    // an OpenMP loop that is not in canonical form is an error at the directive
    std::fs::write(&src, "int main(void) {\n  int i, a[10];\n#pragma omp parallel for\n  for (i = 1; i < 10; i *= 2) a[i] = i;\n  return a[3];\n}\n").unwrap();
    let o = run(Command::new(env!("CARGO_BIN_EXE_ompcl")).arg(&src).arg("-o").arg(w.join("bad")));
    assert!(!o.status.success());
    let e = txt(&o.stderr);
    assert!(e.contains("bad.c:3:1: error: loop increment is not canonical"), "{e}");
    // `!=` (OpenMP 5.0) with a step other than 1 or -1: at the increment, as gcc
    std::fs::write(&src, "int main(void) {\n  int i, a[10];\n#pragma omp parallel for\n  for (i = 0; i != 10; i += 2) a[i] = i;\n  return a[3];\n}\n").unwrap();
    let o = run(Command::new(env!("CARGO_BIN_EXE_ompcl")).arg(&src).arg("-o").arg(w.join("bad")));
    assert!(!o.status.success());
    let e = txt(&o.stderr);
    assert!(e.contains("bad.c:4:26: error: increment is not constant 1 or -1 for '!=' condition"), "{e}");
    let _ = std::fs::remove_dir_all(&w);
}

/// `--cpu=cc` keeps the pragmas for the C compiler's own OpenMP (-fopenmp) instead of ompcl's
/// pthreads runtime; the OpenCL side is the same.
#[test]
fn cpu_versions_through_the_c_compilers_openmp() {
    let w = work("cc");
    let icd = icd_dir(&w);
    for name in ["c29_single_master", "c22_red_multi"] {
        let src = root().join(format!("tests/corpus/{name}.c"));
        let exe = w.join(name);
        let o = run(Command::new(env!("CARGO_BIN_EXE_ompcl")).arg("--cpu=cc").arg(&src).arg("-o").arg(&exe));
        assert!(o.status.success(), "{}", txt(&o.stderr));
        let refexe = w.join(format!("{name}.ref"));
        let o = run(Command::new("gcc").args(["-fopenmp", "-O2"]).arg(&src).arg("-o").arg(&refexe));
        assert!(o.status.success());
        let expect = txt(&run(Command::new(&refexe).env("OMP_NUM_THREADS", "4")).stdout);
        for dev in ["cpu", "host"] {
            let r = run(Command::new(&exe)
                .env("OMP_NUM_THREADS", "4")
                .env("OCL_ICD_VENDORS", &icd)
                .env("OMPCL_DEVICE", dev));
            assert!(same_output(&expect, &txt(&r.stdout)), "{name} {dev}: {} vs {expect}", txt(&r.stdout));
        }
    }
    let _ = std::fs::remove_dir_all(&w);
}

fn profile_bytes(err: &str, region_line: &str, what: &str) -> u64 {
    let l = err
        .lines()
        .find(|l| l.contains(region_line))
        .unwrap_or_else(|| panic!("no profile line {region_line}:\n{err}"));
    let i = l.find(&format!("{what}=")).or_else(|| l.find(&format!("{what} "))).unwrap();
    let rest = &l[i..];
    let open = rest.find('(').unwrap();
    rest[open + 1..].split_whitespace().next().unwrap().parse().unwrap()
}

/// `src` (relative to ompcl/) built by ompcl into `w/name`.
fn build(w: &Path, src: &str, name: &str) -> PathBuf {
    let exe = w.join(name);
    let o = run(Command::new(env!("CARGO_BIN_EXE_ompcl")).arg(root().join(src)).arg("-o").arg(&exe));
    assert!(o.status.success(), "{}", txt(&o.stderr));
    exe
}

/// `exe` on PoCL's CPU device with the profile on, and `env`.
fn on_pocl(exe: &Path, icd: &Path, env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(exe);
    c.env("OCL_ICD_VENDORS", icd).env("OMPCL_DEVICE", "cpu").env("OMPCL_PROFILE", "1");
    for (k, v) in env {
        c.env(k, v);
    }
    run(&mut c)
}

/// Max/min updates in forms gcc's `atomic compare` rejects (tests/minmax) run as OpenCL atomics
/// on PoCL and give the serial run's output (gcc without -fopenmp: the pragmas ignored).
#[test]
fn max_min_forms_gcc_rejects_match_the_serial_run() {
    let w = work("minmax");
    let icd = icd_dir(&w);
    let src = "tests/minmax/compare_forms_gcc_rejects.c";
    let exe = build(&w, src, "forms");
    let serial = w.join("forms-serial");
    let o = run(Command::new("gcc")
        .args(["-O2", "-Wno-unknown-pragmas"])
        .arg(root().join(src))
        .arg("-o")
        .arg(&serial)
        .arg("-lm"));
    assert!(o.status.success(), "{}", txt(&o.stderr));
    let want = txt(&run(&mut Command::new(&serial)).stdout);
    let o = on_pocl(&exe, &icd, &[]);
    let err = txt(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert_eq!(txt(&o.stdout), want, "{err}");
    assert_eq!(
        err.lines().filter(|l| l.contains(" region ") && l.contains(": opencl runs=")).count(),
        2,
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&w);
}

/// Data that stays on the device is not sent again (SOR: 100 sweeps, the grid goes over once) and
/// comes back only when the host touches it (once, after the last sweep); data the host changes is
/// sent again (c43 re-sends exactly the dirtied blocks).
#[test]
fn unchanged_device_data_is_not_copied_again() {
    let w = work("reuse");
    let icd = icd_dir(&w);
    let exe = w.join("sor");
    let o = run(Command::new(env!("CARGO_BIN_EXE_ompcl"))
        .arg("-O2")
        .arg(root().join("examples/sor.c"))
        .arg("-o")
        .arg(&exe));
    assert!(o.status.success(), "{}", txt(&o.stderr));
    let r = on_pocl(&exe, &icd, &[("OMPCL_LAZY", "1")]);
    let err = txt(&r.stderr);
    assert!(err.contains("region 0: opencl runs=100"), "{err}");
    assert_eq!(profile_bytes(&err, "sor.c:26", "h2d"), 512 * 512 * 8, "{err}");
    // written each sweep, read by the host once at the end: only the reduction's partials come
    // back after each sweep, the grid once, on the host's first access (lazy copy-back)
    assert!(profile_bytes(&err, "sor.c:26", "d2h") < 100 * 4096, "{err}");
    assert!(err.contains("copied back on first host access: 1 blocks"), "{err}");
    assert_eq!(profile_bytes(&err, "copied back on first host access", "ms"), 512 * 512 * 8, "{err}");
    // by default (OMPCL_LAZY=0): the grid comes back after every sweep; the same output
    let eager = on_pocl(&exe, &icd, &[("OMPCL_LAZY", "0")]);
    let eerr = txt(&eager.stderr);
    assert!(profile_bytes(&eerr, "sor.c:26", "d2h") >= 100 * 512 * 512 * 8, "{eerr}");
    assert!(!eerr.contains("copied back on first host access"), "{eerr}");
    assert_eq!(txt(&r.stdout), txt(&eager.stdout));

    let exe = w.join("c43");
    let o = run(Command::new(env!("CARGO_BIN_EXE_ompcl"))
        .arg(root().join("tests/corpus/c43_host_writes_between.c"))
        .arg("-o")
        .arg(&exe));
    assert!(o.status.success(), "{}", txt(&o.stderr));
    let r = run(Command::new(&exe)
        .env("OCL_ICD_VENDORS", &icd)
        .env("OMPCL_DEVICE", "cpu")
        .env("OMPCL_PROFILE", "1"));
    let err = txt(&r.stderr);
    // first run: a, G (2 x 160000 B), not b, which the host never wrote since malloc; a re-sent 3
    // times (store, memset, store through another pointer); G's last partial page (256 B) every run
    // after the first; b (written by the kernel, then only read by the host) never
    assert_eq!(
        profile_bytes(&err, "c43_host_writes_between.c:15", "h2d"),
        2 * 160000 + 3 * 160000 + 5 * 256,
        "{err}"
    );
    // OMPCL_TRACK=0: no tracking, every block every time; same output
    let r2 = run(Command::new(&exe)
        .env("OCL_ICD_VENDORS", &icd)
        .env("OMPCL_DEVICE", "cpu")
        .env("OMPCL_PROFILE", "1")
        .env("OMPCL_TRACK", "0"));
    let err2 = txt(&r2.stderr);
    assert_eq!(profile_bytes(&err2, "c43_host_writes_between.c:15", "h2d"), 6 * 3 * 160000, "{err2}");
    assert_eq!(txt(&r.stdout), txt(&r2.stdout));
    let _ = std::fs::remove_dir_all(&w);
}

/// A large block the host never wrote since malloc is not sent (its bytes are indeterminate): c85's
/// first kernel sends `a` and the global `G`, not `b` or `never`, which it only writes. And c85 with
/// lazy copy-back (OMPCL_LAZY=1) gives the CPU threads' output.
#[test]
fn blocks_the_host_never_wrote_are_not_sent() {
    let w = work("unwritten");
    let icd = icd_dir(&w);
    let exe = build(&w, "tests/corpus/c85_lazy_copy_back.c", "c85");
    let r = on_pocl(&exe, &icd, &[("OMPCL_PLACEMENT", "device")]);
    let err = txt(&r.stderr);
    assert_eq!(profile_bytes(&err, "c85_lazy_copy_back.c:19", "h2d"), 2 * 300000 * 8, "{err}");
    // and every way the host reaches results left on the device (OMPCL_LAZY=1) sees the kernels'
    // values: the same output as CPU threads
    let lazy = on_pocl(&exe, &icd, &[("OMPCL_PLACEMENT", "device"), ("OMPCL_LAZY", "1")]);
    let lerr = txt(&lazy.stderr);
    assert!(lazy.status.success(), "{lerr}");
    assert!(lerr.contains("copied back on first host access: "), "{lerr}");
    let host = run(Command::new(&exe).env("OMPCL_DEVICE", "host"));
    assert_eq!(txt(&lazy.stdout), txt(&host.stdout));
    assert_eq!(txt(&r.stdout), txt(&host.stdout));
    let _ = std::fs::remove_dir_all(&w);
}

/// A result left on the device comes back 2 MiB at a time as the host touches it (c135): one
/// write and one read of a 32 MiB array bring back their two chunks alone, the written chunk goes
/// back to the device before the next kernel, and reading the whole array afterwards takes every
/// chunk in turn; no whole-block copy at all, and the CPU threads' output.
#[test]
fn results_left_on_the_device_come_back_by_the_chunk() {
    let w = work("chunks");
    let icd = icd_dir(&w);
    let exe = build(&w, "tests/corpus/c135_lazy_chunks.c", "c135");
    let r = on_pocl(&exe, &icd, &[("OMPCL_PLACEMENT", "device"), ("OMPCL_LAZY", "1")]);
    let err = txt(&r.stderr);
    assert!(r.status.success(), "{err}");
    let host = run(Command::new(&exe).env("OMPCL_DEVICE", "host"));
    assert_eq!(txt(&r.stdout), txt(&host.stdout), "{err}");
    let line = err
        .lines()
        .find(|l| l.contains("copied back on first host access"))
        .unwrap_or_else(|| panic!("{err}"));
    let chunks: u64 = line.split(", ").last().unwrap().split_whitespace().next().unwrap().parse().unwrap();
    assert!(line.contains("access: 0 blocks") && chunks >= 17, "{line}");
    let _ = std::fs::remove_dir_all(&w);
}

/// Blocks allocated, grown and freed where the translator cannot rewrite the call (a header's
/// macros, function pointers) are still the runtime's (the linker's --wrap): c110's kernels all run on
/// the device, and with lazy copy-back libc's free never meets a block whose pages are protected
/// (the fault would come with libc's allocator lock held and the handler's OpenCL calls would wait
/// on it forever: the program hung, as PolyBench's gesummv and gemver did on the GPU).
#[test]
fn allocations_through_macros_and_pointers_are_tracked() {
    let w = work("wrap");
    let icd = icd_dir(&w);
    let exe = build(&w, "tests/corpus/c110_alloc_through_macros.c", "c110");
    let host = run(Command::new(&exe).env("OMPCL_DEVICE", "host"));
    for lazy in ["0", "1"] {
        let mut c = Command::new("timeout");
        c.arg("120").arg(&exe);
        c.env("OCL_ICD_VENDORS", &icd)
            .env("OMPCL_DEVICE", "cpu")
            .env("OMPCL_PROFILE", "1")
            .env("OMPCL_PLACEMENT", "device")
            .env("OMPCL_LAZY", lazy);
        let r = run(&mut c);
        let err = txt(&r.stderr);
        assert!(r.status.success(), "OMPCL_LAZY={lazy}: exit {:?} (124: hung)\n{err}", r.status.code());
        for region in 0..3 {
            assert!(err.contains(&format!("region {region}: opencl runs=6")), "OMPCL_LAZY={lazy}:\n{err}");
        }
        assert!(!err.contains("does not point into memory ompcl knows"), "{err}");
        assert_eq!(txt(&r.stdout), txt(&host.stdout), "OMPCL_LAZY={lazy}");
    }
    let _ = std::fs::remove_dir_all(&w);
}

/// Placement from measurements: a light kernel (one add per element) whose 8 MiB would first have
/// to cross to the device runs on the CPU; a kernel whose work-items loop runs on the device; a light
/// kernel whose data is already there runs on the device. Each decision is in the profile, and the
/// output is the CPU threads' (and OMPCL_PLACEMENT=device puts all three on the device).
#[test]
fn placement_keeps_light_kernels_with_data_to_send_on_the_cpu() {
    let w = work("place");
    let icd = icd_dir(&w);
    let exe = build(&w, "tests/placement/light_and_heavy.c", "pl");
    let go = |place: &str| {
        let r = on_pocl(&exe, &icd, &[("OMPCL_PLACEMENT", place)]);
        assert!(r.status.success(), "{}", txt(&r.stderr));
        (txt(&r.stdout), txt(&r.stderr))
    };
    let (out, err) = go("measure");
    assert!(err.contains("light_and_heavy.c:14 region 0: cpu runs=1"), "{err}");
    assert!(err.contains("light_and_heavy.c:14 placed on the cpu: light kernel, 8388608 B to send"), "{err}");
    assert!(err.contains("light_and_heavy.c:16 region 1: opencl runs=1"), "{err}");
    assert!(err.contains("light_and_heavy.c:16 placed on the device: a work-item loops or calls"), "{err}");
    assert!(err.contains("light_and_heavy.c:23 region 2: opencl runs=1"), "{err}");
    assert!(err.contains("light_and_heavy.c:23 placed on the device: its data is on the device"), "{err}");
    let (out_dev, err_dev) = go("device");
    assert!(err_dev.contains("light_and_heavy.c:14 region 0: opencl runs=1"), "{err_dev}");
    let host = run(Command::new(&exe).env("OMPCL_DEVICE", "host"));
    assert_eq!(out, txt(&host.stdout));
    assert_eq!(out_dev, out);
    let _ = std::fs::remove_dir_all(&w);
}

/// A device without fp64 (simulated with OMPCL_FP64=0): regions of files whose kernels use double
/// run on the CPU with a one-line warning; float-only files still offload.
#[test]
fn no_fp64_device_keeps_double_code_on_the_cpu() {
    let w = work("fp64");
    let icd = icd_dir(&w);
    for (name, expect_where) in [("c12_red_add_double", "cpu"), ("c20_red_add_float", "opencl")] {
        let exe = w.join(name);
        let o = run(Command::new(env!("CARGO_BIN_EXE_ompcl"))
            .arg(root().join(format!("tests/corpus/{name}.c")))
            .arg("-o")
            .arg(&exe));
        assert!(o.status.success(), "{}", txt(&o.stderr));
        let host = run(Command::new(&exe).env("OMPCL_DEVICE", "host"));
        let r = run(Command::new(&exe)
            .env("OCL_ICD_VENDORS", &icd)
            .env("OMPCL_DEVICE", "cpu")
            .env("OMPCL_PROFILE", "1")
            .env("OMPCL_FP64", "0"));
        let err = txt(&r.stderr);
        assert!(err.contains(&format!("region 0: {expect_where} ")), "{name}: {err}");
        assert_eq!(err.contains("has no fp64"), expect_where == "cpu", "{name}: {err}");
        assert!(same_output(&txt(&host.stdout), &txt(&r.stdout)));
    }
    let _ = std::fs::remove_dir_all(&w);
}

/// Uploads staged through pinned buffers (runtime/rt_stage.c, OMPCL_STAGE=1) give the same results: c123's arrays of 9 MiB and odd sizes go in several chunks.
#[test]
fn staged_uploads() {
    let w = work("stage");
    let icd = icd_dir(&w);
    let src = root().join("tests/corpus/c123_large_uploads.c");
    let exe = w.join("c123");
    let o = run(Command::new(env!("CARGO_BIN_EXE_ompcl")).arg("-O2").arg(&src).arg("-o").arg(&exe));
    assert!(o.status.success(), "{}", txt(&o.stderr));
    let refexe = w.join("c123.ref");
    let o = run(Command::new("gcc").args(["-fopenmp", "-O2"]).arg(&src).arg("-o").arg(&refexe));
    assert!(o.status.success());
    let expect = txt(&run(&mut Command::new(&refexe)).stdout);
    for stage in ["1", "0"] {
        let r = run(Command::new(&exe)
            .env("OCL_ICD_VENDORS", &icd)
            .env("OMPCL_DEVICE", "cpu")
            .env("OMPCL_PLACEMENT", "device")
            .env("OMPCL_PROFILE", "1")
            .env("OMPCL_STAGE", stage));
        let err = txt(&r.stderr);
        assert!(err.contains("region 0: opencl"), "OMPCL_STAGE={stage}: not on the device:\n{err}");
        assert!(same_output(&expect, &txt(&r.stdout)), "OMPCL_STAGE={stage}: {} vs {expect}", txt(&r.stdout));
    }
    let _ = std::fs::remove_dir_all(&w);
}

/// A reduction's kernel loops by the global size (OMPCL_HINT_STRIDE): the runtime launches a few
/// work-groups per compute unit, so the host reads back a few partials, not one per 128
/// iterations (c175: a million iterations). OMPCL_STRIDE_GROUPS=0 (one iteration per work-item)
/// reads back hundreds of KB for the same region; both give gcc's results.
#[test]
fn reductions_read_back_few_partials() {
    let w = work("stride");
    let icd = icd_dir(&w);
    let src = root().join("tests/corpus/c175_reduction_grid_stride.c");
    let exe = w.join("c175");
    let o = run(Command::new(env!("CARGO_BIN_EXE_ompcl")).arg("-O2").arg(&src).arg("-o").arg(&exe));
    assert!(o.status.success(), "{}", txt(&o.stderr));
    let refexe = w.join("c175.ref");
    let o = run(Command::new("gcc").args(["-fopenmp", "-O2"]).arg(&src).arg("-o").arg(&refexe));
    assert!(o.status.success());
    let expect = txt(&run(&mut Command::new(&refexe)).stdout);
    let mut partials = Vec::new();
    for groups in ["", "0"] {
        let mut c = Command::new(&exe);
        c.env("OCL_ICD_VENDORS", &icd)
            .env("OMPCL_DEVICE", "cpu")
            .env("OMPCL_PLACEMENT", "device")
            .env("OMPCL_PROFILE", "1");
        if !groups.is_empty() {
            c.env("OMPCL_STRIDE_GROUPS", groups);
        }
        let r = run(&mut c);
        let err = txt(&r.stderr);
        assert!(
            same_output(&expect, &txt(&r.stdout)),
            "OMPCL_STRIDE_GROUPS={groups}: {} vs {expect}",
            txt(&r.stdout)
        );
        // "region 0: opencl ... d2h=T ms (B B)": the partials read back
        let line = err.lines().find(|l| l.contains("c175_reduction_grid_stride.c:24 region 0: opencl"));
        let line = line.unwrap_or_else(|| panic!("region 0 not on the device:\n{err}"));
        let bytes: u64 = line
            .split("d2h=")
            .nth(1)
            .and_then(|t| t.split('(').nth(1))
            .and_then(|t| t.split(' ').next())
            .and_then(|t| t.parse().ok())
            .unwrap_or_else(|| panic!("no d2h bytes: {line}"));
        partials.push(bytes);
    }
    // six reduction variables of at most 8 bytes, 16 groups per compute unit (PoCL: a unit per core)
    let units = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
    assert!(partials[0] <= 6 * 8 * 16 * units.max(4), "{partials:?}");
    assert!(partials[1] > 100_000, "{partials:?}");
    let _ = std::fs::remove_dir_all(&w);
}
