//! The build pipeline: options -> cache -> clang -> rewrites -> libclc -> O3 -> layout -> PTX.
use crate::*;
use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::module::Module;
use std::ffi::CString;
use std::os::raw::{c_char, c_int};
use std::time::Instant;

/// The extensions cudacl's devices report; the front end must accept what the device claims.
const CL_EXT: &str = "-cl-ext=+cl_khr_fp64,+cl_khr_int64_base_atomics,+cl_khr_int64_extended_atomics,\
+cl_khr_global_int32_base_atomics,+cl_khr_global_int32_extended_atomics,\
+cl_khr_local_int32_base_atomics,+cl_khr_local_int32_extended_atomics,+cl_khr_byte_addressable_store";

/// The time one stage of a build took (for the CLI's --time and the benchmark).
#[derive(Clone, Debug)]
pub struct Stage {
    pub name: &'static str,
    pub ms: f64,
}

struct Timer {
    stages: Vec<Stage>,
    t: Instant,
}
impl Timer {
    fn new() -> Self {
        Timer { stages: Vec::new(), t: Instant::now() }
    }
    fn lap(&mut self, name: &'static str) {
        let now = Instant::now();
        self.stages.push(Stage { name, ms: (now - self.t).as_secs_f64() * 1e3 });
        self.t = now;
    }
}

fn failed(log: impl Into<String>) -> BuildError {
    BuildError::Failed { log: log.into() }
}

/// An inkwell Context whose LLVM diagnostics go to a log instead of stderr/exit.
struct Ctx(Context);
impl Ctx {
    fn new() -> Ctx {
        // SAFETY: pg_init is idempotent; pg_context_setup installs a handler on a live context.
        unsafe {
            ffi::pg_init();
            let c = Context::create();
            ffi::pg_context_setup(c.raw());
            Ctx(c)
        }
    }
    fn take_log(&self) -> (String, bool) {
        let mut err: c_int = 0;
        // SAFETY: live context; the returned string is taken over by take_string.
        let s = ffi::take_string(unsafe { ffi::pg_context_take_log(self.0.raw(), &mut err) });
        (s, err != 0)
    }
}
impl Drop for Ctx {
    fn drop(&mut self) {
        // SAFETY: every Module borrowed from this context is gone (lifetimes), the context lives.
        unsafe { ffi::pg_context_teardown(self.0.raw()) }
    }
}

fn cstrings(v: &[String]) -> Result<Vec<CString>, BuildError> {
    v.iter()
        .map(|s| CString::new(s.as_str()).map_err(|_| BuildError::InvalidOptions { log: "NUL byte in options".into() }))
        .collect()
}

/// clang: OpenCL C -> Module. Returns the module and clang's diagnostics (warnings).
fn frontend<'c>(
    ctx: &'c Ctx,
    source: &str,
    opts: &options::Options,
    headers: &[(&str, &str)],
) -> Result<(Module<'c>, String), BuildError> {
    let mut args: Vec<String> = [
        "-triple",
        "nvptx64-nvidia-cuda",
        "-finclude-default-header",
        "-fdeclare-opencl-builtins",
        CL_EXT,
        "-cl-kernel-arg-info",
        "-nostdsysteminc",
        "-nobuiltininc",
        "-internal-isystem",
        headers::RESOURCE_INCLUDE,
        "-discard-value-names",
        "-disable-llvm-passes",
        "-ferror-limit",
        "50",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.push(if opts.opt_disable { "-O0".into() } else { "-O2".into() });
    if !headers.is_empty() {
        args.push("-I".into());
        args.push(headers::USER_HEADERS.into());
    }
    args.extend(opts.cc1.iter().cloned());
    let cargs = cstrings(&args)?;
    let argv: Vec<*const c_char> = cargs.iter().map(|c| c.as_ptr()).collect();

    let mut names: Vec<CString> = Vec::new();
    let mut datas: Vec<&[u8]> = Vec::new();
    for (n, d) in headers::EMBEDDED {
        names.push(CString::new(format!("{}/{}", headers::RESOURCE_INCLUDE, n)).map_err(|_| failed("bad header name"))?);
        datas.push(d.as_bytes());
    }
    for (n, d) in headers {
        let n = n.trim_start_matches("./");
        names.push(
            CString::new(format!("{}/{}", headers::USER_HEADERS, n))
                .map_err(|_| failed(format!("invalid header name '{n}'")))?,
        );
        datas.push(d.as_bytes());
    }
    let name_ptrs: Vec<*const c_char> = names.iter().map(|c| c.as_ptr()).collect();
    let data_ptrs: Vec<*const c_char> = datas.iter().map(|d| d.as_ptr() as *const c_char).collect();
    let lens: Vec<usize> = datas.iter().map(|d| d.len()).collect();

    let mut m: llvm_sys::prelude::LLVMModuleRef = std::ptr::null_mut();
    let mut log: *mut c_char = std::ptr::null_mut();
    // SAFETY: every pointer/length pair is valid for the call; the bridge copies what it keeps.
    let rc = unsafe {
        ffi::pg_compile(
            ctx.0.raw(),
            source.as_ptr() as *const c_char,
            source.len(),
            argv.as_ptr(),
            argv.len() as c_int,
            name_ptrs.as_ptr(),
            data_ptrs.as_ptr(),
            lens.as_ptr(),
            names.len() as c_int,
            &mut m,
            &mut log,
        )
    };
    let log = ffi::take_string(log);
    match rc {
        0 if !m.is_null() => {
            // SAFETY: the bridge hands over ownership of a module created in ctx.
            Ok((unsafe { Module::new(m) }, log))
        }
        2 => Err(BuildError::InvalidOptions { log: format!("invalid build options:\n{log}") }),
        _ => Err(failed(if log.is_empty() { "compilation failed".to_string() } else { log })),
    }
}

fn stage(rc: c_int, log: *mut c_char, what: &str) -> Result<(), BuildError> {
    let log = ffi::take_string(log);
    if rc != 0 {
        return Err(failed(if log.is_empty() { format!("{what} failed") } else { log }));
    }
    Ok(())
}

/// lower -> libclc -> optimise -> layout -> PTX, on a module of `ctx`.
fn backend(
    ctx: &Ctx,
    m: Module,
    opts: &options::Options,
    target: &Target,
    t: &mut Timer,
) -> Result<(String, Vec<KernelInfo>, String), BuildError> {
    let mr = m.as_mut_ptr();
    let mut log: *mut c_char = std::ptr::null_mut();
    // SAFETY (all bridge calls below): `mr` is the live module owned by `m`.
    stage(unsafe { ffi::pg_lower(mr, &mut log) }, log, "the IR rewrites")?;
    t.lap("lower");
    let lib = libclc::get().map_err(failed)?;
    t.lap("libclc-read");
    let mut log: *mut c_char = std::ptr::null_mut();
    stage(
        unsafe { ffi::pg_link_libclc(mr, lib.bitcode.as_ptr() as *const c_char, lib.bitcode.len(), &mut log) },
        log,
        "linking libclc",
    )?;
    t.lap("libclc-link");
    let sm = target.sm as c_int;
    let ptx = (target.ptx_isa.0 * 10 + target.ptx_isa.1) as c_int;
    let opt = if opts.opt_disable { 0 } else { 3 };
    let fma = opts.fast_fma as c_int;
    let mut log: *mut c_char = std::ptr::null_mut();
    stage(unsafe { ffi::pg_optimize(mr, sm, ptx, opt, fma, &mut log) }, log, "optimisation")?;
    t.lap("optimize");
    let kernels = info::kernels(&m).map_err(failed)?;
    t.lap("layout");
    let mut log: *mut c_char = std::ptr::null_mut();
    let mut out: *mut c_char = std::ptr::null_mut();
    stage(unsafe { ffi::pg_codegen(mr, sm, ptx, opt, fma, &mut out, &mut log) }, log, "PTX code generation")?;
    let ptx_text = ffi::take_string(out);
    t.lap("codegen");
    let (ctxlog, err) = ctx.take_log();
    if err {
        return Err(failed(ctxlog));
    }
    drop(m);
    Ok((ptx_text, kernels, ctxlog))
}

fn guarded<T>(f: impl FnOnce() -> Result<T, BuildError>) -> Result<T, BuildError> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(_) => Err(failed("internal error in ptxgen (panic)")),
    }
}

pub fn build(source: &str, options: &str, target: &Target, _unused: Option<()>) -> Result<Program, BuildError> {
    build_timed(source, options, target, true).0
}

/// build() with the time of each stage; `use_cache: false` skips both caches (benchmarks).
pub fn build_timed(
    source: &str,
    options: &str,
    target: &Target,
    use_cache: bool,
) -> (Result<Program, BuildError>, Vec<Stage>) {
    let mut t = Timer::new();
    let r = guarded(|| {
        let opts = options::parse_build(options).map_err(|e| BuildError::InvalidOptions { log: format!("error: {e}\n") })?;
        target::validate(target).map_err(|e| failed(format!("error: {e}\n")))?;
        let (_, clc_id) = libclc::locate().map_err(failed)?;
        let tgt = format!("sm_{}:ptx{}.{}", target.sm, target.ptx_isa.0, target.ptx_isa.1);
        let key = cache::key(&[
            VERSION.as_bytes(),
            b"build",
            source.as_bytes(),
            options.as_bytes(),
            tgt.as_bytes(),
            clc_id.as_bytes(),
        ]);
        if use_cache {
            if let Some(p) = cache::mem_get(&key) {
                t.lap("cache-hit-memory");
                return Ok(p);
            }
            if let Some(p) = cache::disk_get(&key) {
                if p.target == *target {
                    cache::mem_put(key, &p);
                    t.lap("cache-hit-disk");
                    return Ok(p);
                }
            }
            t.lap("cache-miss");
        }
        let ctx = Ctx::new();
        t.lap("init");
        let (m, mut log) = frontend(&ctx, source, &opts, &[])?;
        t.lap("clang");
        let (ptx, kernels, blog) = backend(&ctx, m, &opts, target, &mut t)?;
        log.push_str(&blog);
        let p = Program { ptx, target: target.clone(), options: options.to_string(), log, kernels };
        if use_cache {
            cache::mem_put(key, &p);
            cache::disk_put(&key, &p);
            t.lap("cache-store");
        }
        Ok(p)
    });
    (r, t.stages)
}

pub fn compile(source: &str, options: &str, headers: &[(&str, &str)]) -> Result<Object, BuildError> {
    guarded(|| {
        let opts = options::parse_build(options).map_err(|e| BuildError::InvalidOptions { log: format!("error: {e}\n") })?;
        let ctx = Ctx::new();
        let (m, log) = frontend(&ctx, source, &opts, headers)?;
        let bitcode = m.write_bitcode_to_memory().as_slice().to_vec();
        Ok(Object { bitcode, options: options.to_string(), log })
    })
}

pub fn link(objects: &[&Object], options: &str, target: &Target) -> Result<Program, BuildError> {
    guarded(|| {
        let mut opts = options::parse_link(options).map_err(|e| BuildError::InvalidOptions { log: format!("error: {e}\n") })?;
        target::validate(target).map_err(|e| failed(format!("error: {e}\n")))?;
        if objects.is_empty() {
            return Err(failed("error: no objects to link\n"));
        }
        opts.opt_disable = objects
            .iter()
            .all(|o| options::parse_build(&o.options).map(|p| p.opt_disable).unwrap_or(false));
        let ctx = Ctx::new();
        let mut dst: Option<Module> = None;
        for (i, o) in objects.iter().enumerate() {
            let buf = MemoryBuffer::create_from_memory_range_copy(&o.bitcode, "object");
            let m = Module::parse_bitcode_from_buffer(&buf, &ctx.0)
                .map_err(|e| failed(format!("error: object {i} is not a valid compiled program: {e}\n")))?;
            match &dst {
                None => dst = Some(m),
                Some(d) => {
                    let mut log: *mut c_char = std::ptr::null_mut();
                    let src = m.as_mut_ptr();
                    std::mem::forget(m); // pg_link_modules takes ownership
                    // SAFETY: both modules live in ctx; src ownership moves to the bridge.
                    stage(unsafe { ffi::pg_link_modules(d.as_mut_ptr(), src, &mut log) }, log, "linking")?;
                }
            }
        }
        let m = dst.ok_or_else(|| failed("error: no objects to link\n"))?;
        let mut t = Timer::new();
        let (ptx, kernels, blog) = backend(&ctx, m, &opts, target, &mut t)?;
        let mut log: String = objects.iter().map(|o| o.log.as_str()).collect();
        log.push_str(&blog);
        Ok(Program { ptx, target: target.clone(), options: options.to_string(), log, kernels })
    })
}
