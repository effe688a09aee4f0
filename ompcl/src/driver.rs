//! The `ompcl` compiler driver: translate each .c, compile the host C with the system `cc`
//! (-fopenmp: the CPU version of each region runs on OpenMP threads), link with the ompcl runtime.

use crate::translate::{self, Options};
use std::path::{Path, PathBuf};
use std::process::Command;

const USAGE: &str = "usage: ompcl [options] file.c ... [-o output]
  -o FILE            output executable (default a.out)
  -c                 compile only (one .o per .c)
  --emit-opencl      write FILE.host.c and FILE.cl (generated host C and OpenCL C) and stop
  -I DIR, -D M[=V], -U M, -O*, -g, -std=*, -W*, -f*, -m*   passed to the C compiler (and -D/-U to OpenCL)
  -L DIR, -l LIB     passed to the linker
  --cpu=ompcl|cc     CPU versions of the regions: ompcl's pthreads runtime (default with GCC)
                     or the C compiler's own OpenMP (-fopenmp; the default when cc is clang)
  -v                 show the commands run
Environment at run time: OMPCL_DEVICE=gpu|cpu|host, OMPCL_PROFILE=1, OMP_NUM_THREADS";

pub fn main(args: &[String]) -> i32 {
    match run(args) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("ompcl: error: {e}");
            1
        }
    }
}

fn run(args: &[String]) -> Result<i32, String> {
    let mut inputs: Vec<String> = Vec::new();
    let mut cflags: Vec<String> = Vec::new();
    let mut clang_args: Vec<String> = Vec::new();
    let mut cl_defines: Vec<String> = Vec::new();
    let mut ldflags: Vec<String> = Vec::new();
    let mut out: Option<String> = None;
    let mut emit = false;
    let mut compile_only = false;
    let mut verbose = false;
    let mut pthreads: Option<bool> = match std::env::var("OMPCL_CPU").ok().as_deref() {
        Some("cc") => Some(false),
        Some("ompcl") => Some(true),
        _ => None,
    };
    let mut i = 0;
    let take = |i: &mut usize, a: &str, flag: &str| -> Result<String, String> {
        if a.len() > flag.len() {
            Ok(a[flag.len()..].to_string())
        } else {
            *i += 1;
            args.get(*i).cloned().ok_or_else(|| format!("missing argument to {flag}"))
        }
    };
    if args.is_empty() {
        eprintln!("{USAGE}");
        return Ok(1);
    }
    while i < args.len() {
        let a = args[i].as_str();
        match a {
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(0);
            }
            "--emit-opencl" => emit = true,
            "-c" => compile_only = true,
            "-v" => verbose = true,
            "--cpu=cc" => pthreads = Some(false),
            "--cpu=ompcl" => pthreads = Some(true),
            "-fopenmp" | "-pthread" => {}
            _ if a.starts_with("-o") => out = Some(take(&mut i, a, "-o")?),
            _ if a.starts_with("-I") => {
                let d = take(&mut i, a, "-I")?;
                cflags.push(format!("-I{d}"));
                clang_args.push(format!("-I{d}"));
            }
            _ if a.starts_with("-D") || a.starts_with("-U") => {
                let f = &a[..2];
                let d = take(&mut i, a, f)?;
                cflags.push(format!("{f}{d}"));
                clang_args.push(format!("{f}{d}"));
                cl_defines.push(format!("{f}{d}"));
            }
            _ if a.starts_with("-L") => {
                let d = take(&mut i, a, "-L")?;
                ldflags.push(format!("-L{d}"));
            }
            _ if a.starts_with("-l") => {
                let d = take(&mut i, a, "-l")?;
                ldflags.push(format!("-l{d}"));
            }
            // the language: the libclang parse reads the dialect the C compiler reads
            _ if a.starts_with("-std=")
                || matches!(
                    a,
                    "-ansi"
                        | "-funsigned-char"
                        | "-fsigned-char"
                        | "-fshort-enums"
                        | "-fshort-wchar"
                        | "-fms-extensions"
                        | "-fgnu89-inline"
                        | "-trigraphs"
                ) =>
            {
                cflags.push(a.to_string());
                clang_args.push(a.to_string());
            }
            // options with a separate argument that both the parse and the compiler need
            "-include" | "-imacros" | "-isystem" | "-idirafter" | "-iquote" => {
                let d = take(&mut i, a, a)?;
                for v in [&mut cflags, &mut clang_args] {
                    v.push(a.to_string());
                    v.push(d.clone());
                }
            }
            _ if a.starts_with("-Wl,") || a == "-static" || a == "-rdynamic" => ldflags.push(a.to_string()),
            "-Xlinker" => {
                let d = take(&mut i, a, a)?;
                ldflags.push(a.to_string());
                ldflags.push(d);
            }
            _ if a.starts_with('-') => cflags.push(a.to_string()),
            _ => inputs.push(a.to_string()),
        }
        i += 1;
    }
    if inputs.is_empty() {
        return Err("no input files".into());
    }
    let tmp = std::env::temp_dir().join(format!("ompcl-{}-{}", std::process::id(), nanos()));
    std::fs::create_dir_all(&tmp).map_err(|e| e.to_string())?;
    // GCC nested functions carry the pthreads CPU versions; clang has none
    let pthreads = pthreads.unwrap_or_else(|| {
        Command::new("cc")
            .arg("--version")
            .output()
            .map(|o| !String::from_utf8_lossy(&o.stdout).contains("clang"))
            .unwrap_or(true)
    });
    let res = build(
        &inputs,
        &cflags,
        &clang_args,
        &cl_defines,
        &ldflags,
        out,
        emit,
        compile_only,
        verbose,
        pthreads,
        &tmp,
    );
    let _ = std::fs::remove_dir_all(&tmp);
    res
}

fn nanos() -> u128 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0)
}

#[allow(clippy::too_many_arguments)]
fn build(
    inputs: &[String],
    cflags: &[String],
    clang_args: &[String],
    cl_defines: &[String],
    ldflags: &[String],
    out: Option<String>,
    emit: bool,
    compile_only: bool,
    verbose: bool,
    pthreads: bool,
    tmp: &Path,
) -> Result<i32, String> {
    std::fs::write(tmp.join("ompcl_rt.h"), crate::RT_H).map_err(|e| e.to_string())?;
    std::fs::create_dir_all(tmp.join("ompinc")).map_err(|e| e.to_string())?;
    std::fs::write(tmp.join("ompinc/omp.h"), crate::OMP_H).map_err(|e| e.to_string())?;
    let mut objs: Vec<PathBuf> = Vec::new();
    let mut failed = false;
    let opts = Options { clang_args: clang_args.to_vec(), cl_defines: cl_defines.to_vec(), pthreads };
    // translate everything first: one construct ompcl's CPU runtime cannot run switches the
    // whole program to the C compiler's OpenMP
    let mut outs = Vec::new();
    let mut opts = opts;
    for pass in 0..2 {
        outs.clear();
        let mut redo = false;
        for input in inputs.iter().filter(|i| i.ends_with(".c")) {
            let o = translate::translate(input, &opts)?;
            if o.needs_cc.is_some() && opts.pthreads && pass == 0 {
                for d in &o.diags {
                    eprintln!("{d}");
                }
                redo = true;
                break;
            }
            outs.push(o);
        }
        if !redo {
            break;
        }
        opts.pthreads = false;
    }
    let pthreads = opts.pthreads;
    let omp_flags: Vec<String> = if pthreads {
        // -fopenmp-simd: the `simd` pragmas left in the host C (a plain loop's) are gcc's
        // vectorisation hints, no unknown-pragma warnings
        vec!["-D_OPENMP=200203".into(), format!("-I{}", tmp.join("ompinc").display()), "-fopenmp-simd".into()]
    } else if cc_is_gcc() {
        // ompcl does the offloading (target regions): GCC's own offload compilers stay out, its
        // target regions are the host fallback
        vec!["-fopenmp".into(), "-foffload=disable".into()]
    } else {
        vec!["-fopenmp".into()]
    };
    let mut outs = outs.into_iter();
    let mut n = 0;
    for input in inputs {
        if !input.ends_with(".c") {
            objs.push(PathBuf::from(input));
            continue;
        }
        n += 1;
        let o = outs.next().unwrap();
        for d in &o.diags {
            eprintln!("{d}");
        }
        if o.errors {
            failed = true;
            continue;
        }
        let stem = Path::new(input).file_stem().unwrap().to_string_lossy().into_owned();
        if emit {
            let dir = match &out {
                Some(p) if Path::new(p).is_dir() => PathBuf::from(p),
                Some(p) => Path::new(p).parent().map(|x| x.to_path_buf()).unwrap_or_default(),
                None => PathBuf::from("."),
            };
            let dir = if dir.as_os_str().is_empty() { PathBuf::from(".") } else { dir };
            let h = dir.join(format!("{stem}.host.c"));
            let k = dir.join(format!("{stem}.cl"));
            std::fs::write(&h, o.host_bytes()).map_err(|e| e.to_string())?;
            std::fs::write(&k, o.kernel_bytes()).map_err(|e| e.to_string())?;
            eprintln!("ompcl: wrote {} and {}", h.display(), k.display());
            continue;
        }
        let hc = tmp.join(format!("{n}_{stem}.host.c"));
        std::fs::write(&hc, o.host_bytes()).map_err(|e| e.to_string())?;
        let obj = if compile_only && inputs.len() == 1 && out.is_some() {
            PathBuf::from(out.clone().unwrap())
        } else if compile_only {
            PathBuf::from(format!("{stem}.o"))
        } else {
            tmp.join(format!("{n}_{stem}.o"))
        };
        let srcdir = Path::new(input).parent().map(|p| p.to_path_buf()).unwrap_or_default();
        let srcdir = if srcdir.as_os_str().is_empty() { PathBuf::from(".") } else { srcdir };
        let mut cmd = Command::new("cc");
        cmd.args(&omp_flags)
            .args(cflags)
            .arg("-iquote")
            .arg(&srcdir)
            .arg("-I")
            .arg(tmp)
            .arg("-c")
            .arg(&hc)
            .arg("-o")
            .arg(&obj);
        if !exec(&mut cmd, verbose)? {
            failed = true;
        }
        objs.push(obj);
    }
    if failed {
        return Ok(1);
    }
    if emit || compile_only {
        return Ok(0);
    }
    let rt_c = tmp.join("ompcl_rt.c");
    std::fs::write(&rt_c, crate::RT_C).map_err(|e| e.to_string())?;
    let rt_o = tmp.join("ompcl_rt.o");
    let mut cmd = Command::new("cc");
    cmd.args(["-O2", "-c"])
        .args(if pthreads {
            vec!["-DOMPCL_PTHREADS".to_string(), format!("-I{}", tmp.join("ompinc").display())]
        } else {
            vec!["-fopenmp".to_string()]
        })
        .arg(&rt_c)
        .arg("-I")
        .arg(tmp)
        .arg("-o")
        .arg(&rt_o);
    if !exec(&mut cmd, verbose)? {
        return Ok(1);
    }
    let mut cmd = Command::new("cc");
    if pthreads {
        // the outlined regions are nested functions; their trampolines live on the stack
        cmd.arg("-Wl,-z,execstack");
    } else {
        cmd.args(&omp_flags);
    }
    cmd.args(&objs)
        .arg(&rt_o)
        .args(WRAPPED.iter().map(|f| format!("-Wl,--wrap={f}")))
        .args(ldflags)
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(out.unwrap_or_else(|| "a.out".into()));
    if !exec(&mut cmd, verbose)? {
        return Ok(1);
    }
    Ok(0)
}

/// The allocation functions whose calls from the program's objects the linker sends to the
/// runtime's `__wrap_*` (ompcl_malloc & co., runtime/rt_base.c says why): a block freed or moved
/// behind the runtime's back could still have protected pages.
const WRAPPED: [&str; 8] =
    ["malloc", "calloc", "realloc", "free", "posix_memalign", "aligned_alloc", "memalign", "valloc"];

fn cc_is_gcc() -> bool {
    Command::new("cc")
        .arg("--version")
        .output()
        .map(|o| !String::from_utf8_lossy(&o.stdout).contains("clang"))
        .unwrap_or(false)
}

fn exec(cmd: &mut Command, verbose: bool) -> Result<bool, String> {
    if verbose {
        eprintln!("{:?}", cmd);
    }
    let st = cmd.status().map_err(|e| format!("cannot run cc: {e}"))?;
    Ok(st.success())
}
