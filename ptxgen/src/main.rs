//! ptxgen CLI: `ptxgen kernel.cl -o kernel.ptx --sm 90 [--ptx 8.5] [--args] [--time] [build options]`
//!
//! Everything that is not one of the CLI's own flags is passed on as an OpenCL build option.
use std::process::ExitCode;

fn usage() -> ExitCode {
    eprintln!(
        "usage: ptxgen FILE.cl|FILE.spv [-o FILE.ptx] [--sm N] [--ptx X.Y] [--driver N] [--args] [--time]\n\
         \x20             [--no-cache] [OpenCL build options...]\n\
         --sm N       target sm_N (default 90); --ptx X.Y the PTX ISA (default: the lowest\n\
         \x20            sm_N needs, or what --driver N (cuDriverGetVersion) allows)\n\
         FILE.spv     a SPIR-V module (by its magic number), built as clCreateProgramWithIL's\n\
         --args       print each kernel's argument layout\n\
         --time       print the time of each stage\n\
         --no-cache   bypass the in-process and disk caches\n\
         --bench      time cold and warm builds of FILE (in process, and a new process hitting\n\
         \x20            the disk cache); prints a report, writes no PTX"
    );
    ExitCode::from(2)
}

fn kind(k: ptxgen::ArgKind) -> &'static str {
    use ptxgen::ArgKind::*;
    match k {
        GlobalPtr => "global",
        ConstantPtr => "constant",
        LocalPtr => "local",
        Scalar => "scalar",
        Vector => "vector",
        Struct => "struct",
        Sampler => "sampler",
        Image { .. } => "image",
    }
}

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let mut input = None;
    let mut output = None;
    let mut sm: Option<u32> = None;
    let mut ptx: Option<(u32, u32)> = None;
    let mut driver: Option<i32> = None;
    let (mut show_args, mut time, mut no_cache, mut bench) = (false, false, false, false);
    let mut opts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < argv.len() {
        let a = argv[i].as_str();
        i += 1;
        let mut val = || {
            let v = argv.get(i).cloned();
            i += 1;
            v
        };
        match a {
            "-o" => output = val(),
            "--sm" => match val().and_then(|v| v.trim_start_matches("sm_").parse().ok()) {
                Some(v) => sm = Some(v),
                None => return usage(),
            },
            "--ptx" => match val().and_then(|v| {
                let (a, b) = v.split_once('.')?;
                Some((a.parse().ok()?, b.parse().ok()?))
            }) {
                Some(v) => ptx = Some(v),
                None => return usage(),
            },
            "--driver" => match val().and_then(|v| v.parse().ok()) {
                Some(v) => driver = Some(v),
                None => return usage(),
            },
            "--args" => show_args = true,
            "--time" => time = true,
            "--no-cache" => no_cache = true,
            "--bench" => bench = true,
            "-h" | "--help" => return usage(),
            "-D" | "-I" => {
                opts.push(a.to_string());
                match val() {
                    Some(v) => opts.push(v),
                    None => return usage(),
                }
            }
            _ if a.starts_with('-') => opts.push(a.to_string()),
            _ if input.is_none() => input = Some(a.to_string()),
            _ => return usage(),
        }
    }
    let Some(input) = input else { return usage() };
    let bytes = match std::fs::read(&input) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("ptxgen: {input}: {e}");
            return ExitCode::from(1);
        }
    };
    // A SPIR-V module (its magic number, little-endian) is built as clCreateProgramWithIL's.
    let spirv = bytes.starts_with(&[0x03, 0x02, 0x23, 0x07]);
    if spirv && (bench || time || no_cache) {
        eprintln!("ptxgen: --bench, --time and --no-cache are for OpenCL C sources");
        return ExitCode::from(2);
    }
    let source = if spirv {
        String::new()
    } else {
        match String::from_utf8(bytes.clone()) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("ptxgen: {input}: {e}");
                return ExitCode::from(1);
            }
        }
    };
    let sm = sm.unwrap_or(90);
    let ptx_isa = ptx.unwrap_or_else(|| {
        let min = ptxgen::target::min_ptx_for_sm(sm);
        match driver {
            Some(d) => ptxgen::target::ptx_for_driver(d).max(min),
            None => min,
        }
    });
    let target = ptxgen::Target { sm, ptx_isa };
    // Options with blanks are quoted again for the option parser.
    let options: Vec<String> = opts
        .iter()
        .map(|o| {
            if o.contains(char::is_whitespace) {
                format!("\"{}\"", o.replace('"', "\\\""))
            } else {
                o.clone()
            }
        })
        .collect();
    let options = options.join(" ");
    if bench {
        return run_bench(&input, &source, &options, &target, &opts);
    }
    let t0 = std::time::Instant::now();
    let c0 = thread_cpu_ms();
    let (r, stages) = if spirv {
        (ptxgen::build_il(&bytes, &[], &options, &target), Vec::new())
    } else {
        ptxgen::build_timed(&source, &options, &target, !no_cache)
    };
    let total = t0.elapsed().as_secs_f64() * 1e3;
    let cpu = thread_cpu_ms() - c0;
    if time {
        for s in &stages {
            eprintln!("time: {:<18} {:8.2} ms", s.name, s.ms);
        }
        eprintln!("time: {:<18} {:8.2} ms", "total", total);
        eprintln!("time: {:<18} {:8.2} ms", "total-cpu", cpu);
    }
    let p = match r {
        Ok(p) => p,
        Err(ptxgen::BuildError::InvalidOptions { log }) => {
            eprint!("{log}");
            return ExitCode::from(1);
        }
        Err(ptxgen::BuildError::Failed { log }) => {
            eprint!("{log}");
            return ExitCode::from(1);
        }
    };
    if !p.log.is_empty() {
        eprint!("{}", p.log);
    }
    if show_args {
        for k in &p.kernels {
            println!(
                "kernel {} param_size {}{}",
                k.name,
                k.param_size,
                if k.attributes.is_empty() { String::new() } else { format!(" attributes {}", k.attributes) }
            );
            for (n, a) in k.args.iter().enumerate() {
                println!(
                    "  arg {n} {} offset {} size {} align {} type {} name {}",
                    kind(a.kind),
                    a.offset,
                    a.size,
                    a.align,
                    a.type_name.replace(' ', "_"),
                    if a.name.is_empty() { "-" } else { &a.name }
                );
            }
            for im in &k.implicit {
                let n = match im.kind {
                    ptxgen::ImplicitKind::GlobalOffset => "global_offset",
                    ptxgen::ImplicitKind::WorkDim => "work_dim",
                    ptxgen::ImplicitKind::Groups => "groups",
                };
                println!("  implicit {n} offset {} size {}", im.offset, im.size);
            }
        }
    }
    match output.as_deref() {
        Some("-") => print!("{}", p.ptx),
        Some(o) => {
            if let Err(e) = std::fs::write(o, &p.ptx) {
                eprintln!("ptxgen: {o}: {e}");
                return ExitCode::from(1);
            }
        }
        None if !show_args => print!("{}", p.ptx),
        None => {}
    }
    ExitCode::SUCCESS
}

#[repr(C)]
struct Timespec {
    tv_sec: i64,
    tv_nsec: i64,
}
extern "C" {
    fn clock_gettime(clk: i32, tp: *mut Timespec) -> i32;
}

/// CPU time of the calling thread in ms (Linux CLOCK_THREAD_CPUTIME_ID): what a build costs
/// without the waiting a loaded machine adds to wall time.
fn thread_cpu_ms() -> f64 {
    let mut t = Timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes the struct; 3 = CLOCK_THREAD_CPUTIME_ID on Linux.
    unsafe { clock_gettime(3, &mut t) };
    t.tv_sec as f64 * 1e3 + t.tv_nsec as f64 / 1e6
}

fn ms(d: std::time::Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// "median M ms (min m)" of a set of timings.
fn median(mut v: Vec<f64>) -> String {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    if v.is_empty() {
        return "n/a".into();
    }
    format!("median {:.3} ms (min {:.3})", v[v.len() / 2], v[0])
}

fn run_bench(
    input: &str,
    source: &str,
    options: &str,
    target: &ptxgen::Target,
    raw_opts: &[String],
) -> ExitCode {
    use std::time::Instant;
    let nk = match ptxgen::build_timed(source, options, target, false).0 {
        Ok(p) => p.kernels.len(),
        Err(e) => {
            eprintln!("ptxgen: bench source does not build: {e:?}");
            return ExitCode::from(1);
        }
    };
    // (The build above was the first in this process: measured again below in a fresh process.)
    let exe = std::env::current_exe().ok();
    let dir = std::env::temp_dir().join(format!("ptxgen-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let child = |extra: &[&str], cache: bool| -> Option<(f64, String)> {
        let exe = exe.as_ref()?;
        let mut c = std::process::Command::new(exe);
        c.arg(input).args(["-o", "/dev/null", "--time", "--sm", &target.sm.to_string()]);
        c.args(["--ptx", &format!("{}.{}", target.ptx_isa.0, target.ptx_isa.1)]);
        c.args(extra).args(raw_opts);
        c.env("CUDACL_CACHE_DIR", &dir);
        if !cache {
            c.env("CUDACL_CACHE", "0");
        }
        let t = Instant::now();
        let out = c.output().ok()?;
        let wall = ms(t.elapsed());
        Some((wall, String::from_utf8_lossy(&out.stderr).into_owned()))
    };
    let total_of = |log: &str| -> f64 { field_of(log, "time: total ") };
    let cpu_of = |log: &str| -> f64 { field_of(log, "time: total-cpu") };
    fn field_of(log: &str, key: &str) -> f64 {
        log.lines()
            .filter_map(|l| l.strip_prefix(key))
            .filter_map(|r| r.trim().trim_end_matches("ms").trim().parse::<f64>().ok())
            .next()
            .unwrap_or(f64::NAN)
    }
    println!(
        "ptxgen bench: {input}: {nk} kernels, sm_{} PTX {}.{}, options '{options}'",
        target.sm, target.ptx_isa.0, target.ptx_isa.1
    );

    // 1. Cold, first build in a new process (no cache): the build call's own time.
    let mut first = Vec::new();
    let mut first_cpu = Vec::new();
    let mut first_log = String::new();
    for _ in 0..9 {
        if let Some((_, log)) = child(&[], false) {
            first.push(total_of(&log));
            first_cpu.push(cpu_of(&log));
            first_log = log;
        }
    }
    println!(
        "cold build, first in a new process (no cache), {} runs: wall {}; cpu {}",
        first.len(),
        median(first),
        median(first_cpu)
    );
    for l in first_log.lines().filter(|l| l.starts_with("time:")) {
        println!("    {l}");
    }
    // 2. Cold, later builds in this process (libclc resident in the shared context).
    let (mut later, mut later_cpu) = (Vec::new(), Vec::new());
    for _ in 0..10 {
        let t = Instant::now();
        let c = thread_cpu_ms();
        let _ = ptxgen::build_timed(source, options, target, false);
        later.push(ms(t.elapsed()));
        later_cpu.push(thread_cpu_ms() - c);
    }
    println!(
        "cold build, libclc already resident (no cache), 10 runs: wall {}; cpu {}",
        median(later),
        median(later_cpu)
    );
    // 3. Private context (another thread holds the shared one): libclc parsed lazily per build.
    ptxgen::set_shared_context(false);
    let mut private = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        let _ = ptxgen::build_timed(source, options, target, false);
        private.push(ms(t.elapsed()));
    }
    ptxgen::set_shared_context(true);
    println!("cold build, private context (concurrent builds), 5 runs: {}", median(private));
    // 4. Warm, in-process cache.
    let _ = ptxgen::build_timed(source, options, target, true);
    let mut warm = Vec::new();
    for _ in 0..1000 {
        let t = Instant::now();
        let _ = ptxgen::build_timed(source, options, target, true);
        warm.push(ms(t.elapsed()));
    }
    println!("warm build, in-process cache hit, 1000 runs: {}", median(warm));
    // 5. New process, disk-cache hit.
    let _ = child(&[], true); // populate
    let (mut call, mut wall) = (Vec::new(), Vec::new());
    for _ in 0..10 {
        if let Some((w, log)) = child(&[], true) {
            if log.contains("cache-hit-disk") {
                call.push(total_of(&log));
                wall.push(w);
            }
        }
    }
    println!(
        "new process, disk-cache hit, {} runs: build call {}; whole process incl. exec/load {}",
        call.len(),
        median(call),
        median(wall)
    );
    let _ = std::fs::remove_dir_all(&dir);
    ExitCode::SUCCESS
}
