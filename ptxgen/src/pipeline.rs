//! The build pipeline: options -> cache -> clang -> rewrites -> libclc -> O3 -> layout -> PTX.
use crate::*;
use inkwell::context::{Context, ContextRef};
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::module::Module;
use llvm_sys::prelude::LLVMContextRef;
use std::cell::Cell;
use std::ffi::CString;
use std::os::raw::{c_char, c_int};
use std::sync::{Mutex, MutexGuard, TryLockError};
use std::time::Instant;

/// The extensions cudacl's devices report; the front end must accept what the device claims.
/// Then the OpenCL C 3.0 features of `OPENCL_C_FEATURES` that clang does not enable for nvptx by
/// itself (it does __opencl_c_fp64 and __opencl_c_int64; __opencl_c_atomic_scope_device has no
/// switch: options.rs defines it for -cl-std=CL3.0). The others stay off, so their macros are
/// undefined and clang rejects what they guard.
const CL_EXT: &str = "-cl-ext=+cl_khr_fp64,+cl_khr_int64_base_atomics,+cl_khr_int64_extended_atomics,\
+cl_khr_global_int32_base_atomics,+cl_khr_global_int32_extended_atomics,\
+cl_khr_local_int32_base_atomics,+cl_khr_local_int32_extended_atomics,+cl_khr_byte_addressable_store,\
+cl_khr_3d_image_writes,+__opencl_c_images,+__opencl_c_3d_image_writes,+__opencl_c_atomic_order_acq_rel,\
+__opencl_c_atomic_order_seq_cst,+cl_khr_fp16";

/// The sub-group extensions (subgroups.cl): clang declares their built-ins when these macros
/// are defined (opencl-c-base.h defines them for SPIR only; clang's own cl_khr_subgroups macro
/// exists only from OpenCL C 2.0 on, and cudacl offers the extension to 1.x programs too). For
/// -cl-std=CL3.0, options.rs adds __opencl_c_subgroups. In the cache key (PREDEFINED below is;
/// these are part of pipeline.rs, which the code digest covers).
const SUBGROUP_MACROS: [&str; 9] = [
    "-Dcl_khr_subgroups=1",
    "-Dcl_khr_subgroup_extended_types=1",
    "-Dcl_khr_subgroup_non_uniform_vote=1",
    "-Dcl_khr_subgroup_ballot=1",
    "-Dcl_khr_subgroup_non_uniform_arithmetic=1",
    "-Dcl_khr_subgroup_shuffle=1",
    "-Dcl_khr_subgroup_shuffle_relative=1",
    "-Dcl_khr_subgroup_clustered_reduce=1",
    "-Dcl_khr_subgroup_rotate=1",
];

/// The device's OpenCL version (OpenCL C 6.10): clang defines __OPENCL_C_VERSION__, CL_VERSION_*
/// and __ENDIAN_LITTLE__ itself but leaves __OPENCL_VERSION__ (the device's version, 3.0, whatever
/// -cl-std says) and __IMAGE_SUPPORT__ (cudacl's devices support images) to the implementation.
/// Part of the cache key, so builds cached without them are not reused.
pub(crate) const PREDEFINED: [&str; 2] = ["-D__OPENCL_VERSION__=300", "-D__IMAGE_SUPPORT__=1"];

/// Knobs of LLVM's optimiser, each an LLVM option set for the whole process from an environment
/// variable (read once): `(variable, LLVM option, default)`. A default of `None` leaves LLVM's
/// own value (the O3 values in the comments); `Some(n)` sets it without any variable, so
/// changing a default is one edit here. A value that is not an unsigned integer is ignored. The
/// values in effect are part of the cache key (`tuning_key`), so PTX built with other knobs is
/// never reused. For measuring kernels (issue 12), not for users to tune.
const KNOBS: [(&str, &str, Option<u32>); 9] = [
    // Full unrolling of loops with a constant trip count: the cost they may have (LLVM: 300 at
    // O3; partial/runtime unrolling gets a quarter of it on NVPTX). CLBlast's 16-trip Xgemm
    // inner loop (32 FMAs a trip) stays a loop below about 1000.
    ("PTXGEN_UNROLL_THRESHOLD", "unroll-threshold", None),
    // How far a fully unrolled loop's analysed savings may raise the threshold, in percent (400).
    ("PTXGEN_UNROLL_BOOST", "unroll-max-percent-threshold-boost", None),
    // SimplifyCFG: instructions a branch may speculate into its predecessor when it folds a
    // chain of conditions into one (LLVM: 1). 2 folds each of remap's `xx >= 0 && xx < w &&
    // yy >= 0 && yy < h` gathers into one condition and one branch around its load, which
    // ptxas predicates (SASS: 7 branches -> none besides the early exit, all 4 loads in flight
    // at once, as NVIDIA's); LLVM's 1 leaves a shared `xx >= 0` test as a branch of its own.
    ("PTXGEN_BONUS_INST_THRESHOLD", "bonus-inst-threshold", Some(2)),
    // SimplifyCFG: cost of instructions speculated to fold a phi into a select (2).
    ("PTXGEN_PHI_FOLD_THRESHOLD", "phi-node-folding-threshold", None),
    // SimplifyCFG: the same for an if/else diamond's two-entry phi (4).
    ("PTXGEN_TWO_ENTRY_PHI_FOLD_THRESHOLD", "two-entry-phi-node-folding-threshold", None),
    // SimplifyCFG: how deep a chain of instructions it may speculate (10).
    ("PTXGEN_MAX_SPECULATION_DEPTH", "max-speculation-depth", None),
    // ptxgen's own (bridge/codegen.cpp, volatilePrivateToLocal), 0 or 1: volatile accesses of
    // private variables through .local addresses instead of generic ones (CLBlast's `volatile int
    // tid`). On by default: CLBlast's DGEMM 4096 went from 0.983x / 0.996x NVIDIA's TFLOPS to
    // 1.010x / 1.005x with it, SGEMM from 1.057x to 1.057x / 1.041x (H100, 2026-11-23).
    ("PTXGEN_VOLATILE_PRIVATE_LOCAL", "ptxgen-volatile-private-local", Some(1)),
    // ptxgen's own (bridge/abi.cpp, OpaqueGlobalSize), 0 or 1: get_global_size's multiply kept
    // out of ScalarEvolution's sight, so unrolled grid-stride loops step by one opaque value. On
    // by default: bench/reducevariants on an H200 (2026-11-28), `#pragma unroll 4` 40 -> 31
    // registers and 2158 -> 3269 GB/s (NVIDIA 3274), unrolled by 8 by hand 3202 -> 3654 (3613),
    // the plain loop level; appbench's kernels and CLBlast unchanged.
    ("PTXGEN_OPAQUE_GLOBAL_SIZE", "ptxgen-opaque-global-size", Some(1)),
    // ptxgen's own (bridge/stride_unroll.cpp), the chunk: loops stepping by a run-time stride
    // (grid-stride, work-group-stride) that only read memory run `n` iterations at a time
    // behind one test that proves they all run, so their loads are in flight together. 0 or 1
    // leaves them alone. 4 by default: on an H200 (2026-11-28) the issue-23 grid-stride fp64 sum
    // 3192 -> 3466-3513 GB/s (NVIDIA 3264; 2: 3504, 8: 3513), OpenCV's sum 0.82x, norm_L2
    // 0.85x, countNonZero 0.89x, meanStdDev 0.89x, minMaxLoc 0.92x the time with 0; the other
    // 99 of OpenCV's 103 programs, appbench and imagebench unchanged.
    ("PTXGEN_STRIDE_UNROLL", "ptxgen-stride-unroll", Some(4)),
];

/// The LLVM options the knobs set (`-option=value`, in KNOBS order), from the environment and
/// the defaults; computed once per process.
fn tuning_args() -> &'static [String] {
    static ARGS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    ARGS.get_or_init(|| knob_args(|var| std::env::var(var).ok()))
}

/// The LLVM options of KNOBS, with `var` giving each variable's value (the environment).
fn knob_args(var: impl Fn(&str) -> Option<String>) -> Vec<String> {
    KNOBS
        .iter()
        .filter_map(|&(name, opt, default)| {
            let set = var(name).and_then(|v| v.trim().parse::<u32>().ok());
            set.or(default).map(|n| format!("-{opt}={n}"))
        })
        .collect()
}

/// The knobs in effect, for the cache key ("" with LLVM's defaults everywhere).
pub(crate) fn tuning_key() -> String {
    tuning_args().join(" ")
}

/// Sets the knobs' LLVM options once per process, before the first optimisation (they are
/// global to LLVM; every later build reads them). Err: LLVM refused one (the log).
fn apply_tuning() -> Result<(), BuildError> {
    static APPLIED: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
    let r = APPLIED.get_or_init(|| {
        let args = cstrings(tuning_args()).map_err(|_| "NUL byte in an LLVM option".to_string())?;
        let argv: Vec<*const c_char> = args.iter().map(|c| c.as_ptr()).collect();
        let mut log: *mut c_char = std::ptr::null_mut();
        // SAFETY: pg_init is idempotent; argv holds `argv.len()` C strings that outlive the call;
        // log is a local out-pointer.
        let rc = unsafe {
            ffi::pg_init();
            ffi::pg_set_llvm_options(argv.as_ptr(), argv.len() as c_int, &mut log)
        };
        let log = ffi::take_string(log);
        if rc != 0 {
            return Err(log);
        }
        Ok(())
    });
    r.clone().map_err(failed)
}

/// The time one stage of a build took (for the CLI's --time and the benchmark).
#[derive(Clone, Debug)]
pub struct Stage {
    pub name: &'static str,
    pub ms: f64,
}

pub(crate) struct Timer {
    stages: Vec<Stage>,
    t: Instant,
}
impl Timer {
    pub(crate) fn new() -> Self {
        Timer { stages: Vec::new(), t: Instant::now() }
    }
    pub(crate) fn lap(&mut self, name: &'static str) {
        let now = Instant::now();
        self.stages.push(Stage { name, ms: (now - self.t).as_secs_f64() * 1e3 });
        self.t = now;
    }
}

pub(crate) fn failed(log: impl Into<String>) -> BuildError {
    BuildError::Failed { log: log.into() }
}

static USE_SHARED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

/// Tests and benchmarks: whether builds may use the process-wide context (default true).
#[doc(hidden)]
pub fn set_shared_context(enabled: bool) {
    USE_SHARED.store(enabled, std::sync::atomic::Ordering::Relaxed);
}

/// The lock of the bridge's process-wide context (see bridge/link.cpp, `Shared`).
static SHARED: Mutex<()> = Mutex::new(());

enum Owner {
    Own(#[allow(dead_code)] Context),
    Shared(#[allow(dead_code)] MutexGuard<'static, ()>),
}

/// An LLVM context for one build whose diagnostics go to a log (never stderr/exit): the
/// process-wide one when it is free (libclc already parsed there), else a private one.
pub(crate) struct Ctx {
    raw: LLVMContextRef,
    owner: Owner,
    poisoned: Cell<bool>,
}

impl Ctx {
    pub(crate) fn private() -> Ctx {
        // SAFETY: pg_init is idempotent; pg_context_setup installs a handler on a live context.
        unsafe {
            ffi::pg_init();
            let c = Context::create();
            let raw = c.raw();
            ffi::pg_context_setup(raw);
            Ctx { raw, owner: Owner::Own(c), poisoned: Cell::new(false) }
        }
    }

    pub(crate) fn shared_or_private(libclc: Option<&CString>) -> Ctx {
        let Some(path) = libclc else { return Ctx::private() };
        if !USE_SHARED.load(std::sync::atomic::Ordering::Relaxed) {
            return Ctx::private();
        }
        let guard = match SHARED.try_lock() {
            Ok(g) => g,
            Err(TryLockError::Poisoned(p)) => Ctx::recover(p.into_inner()),
            // The prewarm thread is parsing libclc there: waiting for it is quicker than
            // parsing it again in a private context.
            Err(TryLockError::WouldBlock) if PREWARMING.load(std::sync::atomic::Ordering::Acquire) => {
                SHARED.lock().unwrap_or_else(|p| Ctx::recover(p.into_inner()))
            }
            // Another build is using it.
            Err(TryLockError::WouldBlock) => return Ctx::private(),
        };
        Ctx::shared(guard, path).unwrap_or_else(Ctx::private)
    }

    /// A poisoned lock: a build panicked while holding it, so the context may hold half-built
    /// state. Dropped, to be made again.
    fn recover(g: MutexGuard<'static, ()>) -> MutexGuard<'static, ()> {
        // SAFETY: we hold the lock; no module of the shared context is alive.
        unsafe { ffi::pg_shared_reset() };
        g
    }

    /// The process-wide context (made and libclc parsed in it if needed), under `guard`.
    fn shared(guard: MutexGuard<'static, ()>, path: &CString) -> Option<Ctx> {
        let mut log: *mut c_char = std::ptr::null_mut();
        // SAFETY: lock held; path is a valid C string.
        let raw = unsafe {
            ffi::pg_init();
            ffi::pg_shared_acquire(path.as_ptr(), &mut log)
        };
        let _ = ffi::take_string(log);
        if raw.is_null() {
            return None;
        }
        Some(Ctx { raw, owner: Owner::Shared(guard), poisoned: Cell::new(false) })
    }

    /// Discard the shared context after this build (a failure may have left state in it).
    pub(crate) fn poison(&self) {
        self.poisoned.set(true);
    }

    pub(crate) fn raw(&self) -> LLVMContextRef {
        self.raw
    }

    pub(crate) fn context_ref(&self) -> ContextRef<'_> {
        // SAFETY: the context outlives the borrow of self.
        unsafe { ContextRef::new(self.raw) }
    }

    /// Takes ownership of a module the bridge created in this context.
    pub(crate) fn module(&self, m: llvm_sys::prelude::LLVMModuleRef) -> Module<'_> {
        // SAFETY: m is a module of this context, handed over by the bridge.
        unsafe { Module::new(m) }
    }

    pub(crate) fn take_log(&self) -> (String, bool) {
        let mut err: c_int = 0;
        // SAFETY: live context; the returned string is taken over by take_string.
        let s = ffi::take_string(unsafe { ffi::pg_context_take_log(self.raw, &mut err) });
        (s, err != 0)
    }
}

impl Drop for Ctx {
    fn drop(&mut self) {
        match &self.owner {
            // SAFETY: every Module borrowed from this context is gone (lifetimes); the
            // inkwell Context is disposed after this (field drop).
            Owner::Own(_) => unsafe { ffi::pg_context_teardown(self.raw) },
            Owner::Shared(_) => {
                if self.poisoned.get() {
                    // SAFETY: lock still held (the guard drops after this).
                    unsafe { ffi::pg_shared_reset() }
                }
            }
        }
    }
}

/// Starts parsing libclc in the process-wide context on a background thread, so that the
/// first build does not wait for it. Optional (the runtime calls it when it creates a
/// context); harmless if called more than once.
///
/// The process must not exit while that thread is inside LLVM: exit runs LLVM's static
/// destructors, and a program that creates a context and exits at once (clinfo does) crashed
/// that way on the H100 machine. An atexit handler, registered after LLVM's own destructors and
/// so run before them, waits for the thread.
pub fn prewarm() {
    static STARTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if STARTED.swap(true, std::sync::atomic::Ordering::SeqCst) {
        return;
    }
    PREWARMING.store(true, std::sync::atomic::Ordering::Release);
    let spawned = std::thread::Builder::new().name("ptxgen-prewarm".into()).spawn(|| {
        let _ = std::panic::catch_unwind(|| {
            let _ = cache::code_id(); // hashed here rather than in the first build
            let Ok(path) = libclc::get() else { return };
            let Ok(c) = CString::new(path.to_string_lossy().as_bytes()) else { return };
            // A build that got there first parses libclc itself.
            if let Ok(guard) = SHARED.try_lock() {
                let _ctx = Ctx::shared(guard, &c);
            }
        });
        PREWARMING.store(false, std::sync::atomic::Ordering::Release);
    });
    match spawned {
        Ok(handle) => {
            *PREWARM.lock().unwrap_or_else(|e| e.into_inner()) = Some(handle);
            // SAFETY: registering a plain extern "C" function with the C library.
            unsafe { atexit(join_prewarm) };
        }
        Err(_) => PREWARMING.store(false, std::sync::atomic::Ordering::Release),
    }
}

/// True while the prewarm thread may hold (or is about to take) the shared context's lock.
static PREWARMING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

static PREWARM: std::sync::Mutex<Option<std::thread::JoinHandle<()>>> = std::sync::Mutex::new(None);

extern "C" {
    fn atexit(f: extern "C" fn()) -> std::os::raw::c_int;
}

extern "C" fn join_prewarm() {
    let handle = PREWARM.lock().unwrap_or_else(|e| e.into_inner()).take();
    if let Some(h) = handle {
        let _ = h.join();
    }
}

fn cstrings(v: &[String]) -> Result<Vec<CString>, BuildError> {
    v.iter()
        .map(|s| {
            CString::new(s.as_str())
                .map_err(|_| BuildError::InvalidOptions { log: "NUL byte in options".into() })
        })
        .collect()
}

/// clang: OpenCL C -> Module. Returns the module and clang's diagnostics (warnings).
pub(crate) fn frontend<'c>(
    ctx: &'c Ctx,
    source: &str,
    opts: &options::Options,
    headers: &[(&str, &str)],
) -> Result<(Module<'c>, String, Vec<String>), BuildError> {
    let mut args: Vec<String> = [
        "-triple",
        "nvptx64-nvidia-cuda",
        "-finclude-default-header",
        "-fdeclare-opencl-builtins",
        CL_EXT,
        PREDEFINED[0],
        PREDEFINED[1],
        "-cl-kernel-arg-info",
        "-nostdsysteminc",
        "-nobuiltininc",
        "-internal-isystem",
        headers::RESOURCE_INCLUDE,
        "-discard-value-names",
        "-disable-llvm-passes",
        // `inline` definitions are emitted (see pg_compile: they become linkonce_odr).
        "-fgnu89-inline",
        "-ferror-limit",
        "50",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.extend(SUBGROUP_MACROS.iter().map(|s| s.to_string()));
    // The front end always runs as at -O2 (LLVM passes are off here; -cl-opt-disable picks the
    // O0 pipeline later): at -O0 clang would not emit C99 `inline` definitions at all.
    args.push("-O2".into());
    if !headers.is_empty() {
        args.push("-I".into());
        args.push(headers::USER_HEADERS.into());
    }
    args.extend(opts.cc1.iter().cloned());
    args.push("-include".into());
    args.push(format!("{}/{}", headers::RESOURCE_INCLUDE, headers::ROTATE.0));
    let ctz = source.contains("ctz");
    if ctz {
        args.push("-include".into());
        args.push(format!("{}/{}", headers::RESOURCE_INCLUDE, headers::CTZ.0));
    }
    let cargs = cstrings(&args)?;
    let argv: Vec<*const c_char> = cargs.iter().map(|c| c.as_ptr()).collect();

    let mut names: Vec<CString> = Vec::new();
    let mut datas: Vec<&[u8]> = Vec::new();
    let extra: &[(&str, &str)] = if ctz { &[headers::ROTATE, headers::CTZ] } else { &[headers::ROTATE] };
    for (n, d) in headers::EMBEDDED.iter().chain(extra) {
        names.push(
            CString::new(format!("{}/{}", headers::RESOURCE_INCLUDE, n))
                .map_err(|_| failed("bad header name"))?,
        );
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
    let mut deps: *mut c_char = std::ptr::null_mut();
    // SAFETY: every pointer/length pair is valid for the call; the bridge copies what it keeps.
    let rc = unsafe {
        ffi::pg_compile(
            ctx.raw,
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
            &mut deps,
        )
    };
    let log = ffi::take_string(log);
    let deps: Vec<String> = ffi::take_string(deps).lines().map(|l| l.to_string()).collect();
    match rc {
        0 if !m.is_null() => Ok((ctx.module(m), log, deps)),
        2 => Err(BuildError::InvalidOptions { log: format!("invalid build options:\n{log}") }),
        _ => Err(failed(if log.is_empty() { "compilation failed".to_string() } else { log })),
    }
}

pub(crate) fn stage(rc: c_int, log: *mut c_char, what: &str) -> Result<(), BuildError> {
    let log = ffi::take_string(log);
    if rc != 0 {
        return Err(failed(if log.is_empty() { format!("{what} failed") } else { log }));
    }
    Ok(())
}

/// lower -> libclc -> optimise -> layout -> PTX, on a module of `ctx`.
pub(crate) fn backend(
    ctx: &Ctx,
    m: Module,
    opts: &options::Options,
    target: &Target,
    t: &mut Timer,
) -> Result<(String, Vec<KernelInfo>, String), BuildError> {
    // The knobs first: some are read by the IR rewrites (abi.cpp's OpaqueGlobalSize).
    apply_tuning()?;
    let mr = m.as_mut_ptr();
    let mut log: *mut c_char = std::ptr::null_mut();
    // SAFETY (all bridge calls below): `mr` is the live module owned by `m`.
    // cl_khr_fp16's built-ins (bridge/half.cpp) first: the float built-ins they call then get
    // pg_lower's fixes of libclc like any call of the program, and images and libclc after.
    // SAFETY: mr is the live module owned by `m`.
    if unsafe { ffi::pg_define_half(mr, target.sm as c_int) } > 0 {
        t.lap("half");
    }
    // SAFETY: mr is a live module reference; log is a local out-pointer.
    stage(unsafe { ffi::pg_lower(mr, &mut log) }, log, "the IR rewrites")?;
    t.lap("lower");
    if images::link(&m)? {
        t.lap("images");
    }
    if subgroups::link(&m)? {
        t.lap("subgroups");
    }
    if mathlib::link(&m)? {
        t.lap("mathlib");
    }
    let lib = libclc::get().map_err(failed)?;
    let lib = CString::new(lib.to_string_lossy().as_bytes()).map_err(|_| failed("bad libclc path"))?;
    let mut log: *mut c_char = std::ptr::null_mut();
    // SAFETY: mr is live; lib is a NUL-terminated path that outlives the call; log is local.
    stage(unsafe { ffi::pg_link_libclc(mr, lib.as_ptr(), &mut log) }, log, "linking libclc")?;
    t.lap("libclc-link");
    // Several kernels: optimised and emitted side by side (split.rs); else here, whole.
    let (ptx_text, kernels, part_logs) = match split::build_kernels_in_parallel(&m, opts, target, t)? {
        Some(r) => r,
        None => {
            let (ptx, kernels) = optimize_and_emit(&m, opts, target, t)?;
            (ptx, kernels, String::new())
        }
    };
    let (mut ctxlog, err) = ctx.take_log();
    if err {
        return Err(failed(ctxlog));
    }
    drop(m);
    ctxlog.push_str(&part_logs);
    Ok((ptx_text, kernels, ctxlog))
}

/// The target half of a build, on a module with libclc linked: O3 (O0 for -cl-opt-disable),
/// the argument layout from the optimised signatures, then PTX.
pub(crate) fn optimize_and_emit(
    m: &Module,
    opts: &options::Options,
    target: &Target,
    t: &mut Timer,
) -> Result<(String, Vec<KernelInfo>), BuildError> {
    let mr = m.as_mut_ptr();
    let sm = target.sm as c_int;
    let ptx = (target.ptx_isa.0 * 10 + target.ptx_isa.1) as c_int;
    let opt = if opts.opt_disable { 0 } else { 3 };
    let fma = opts.fast_fma as c_int;
    apply_tuning()?;
    let mut log: *mut c_char = std::ptr::null_mut();
    // SAFETY (both bridge calls): `mr` is the live module owned by `m`.
    // SAFETY: mr is live; log is a local out-pointer.
    stage(unsafe { ffi::pg_optimize(mr, sm, ptx, opt, fma, &mut log) }, log, "optimisation")?;
    t.lap("optimize");
    let kernels = info::kernels(m).map_err(failed)?;
    t.lap("layout");
    let mut log: *mut c_char = std::ptr::null_mut();
    let mut out: *mut c_char = std::ptr::null_mut();
    // SAFETY: mr is live; out and log are local out-pointers.
    stage(unsafe { ffi::pg_codegen(mr, sm, ptx, opt, fma, &mut out, &mut log) }, log, "PTX code generation")?;
    // The same module must give the same text, whatever was compiled before it (callseq.rs).
    let ptx_text = crate::callseq::renumber(&ffi::take_string(out));
    t.lap("codegen");
    Ok((ptx_text, kernels))
}

/// Runs `f`, a panic becoming Err(its message): the one place where a compiler panic is
/// caught, for ptxgen's entry points (`guarded`), the build's worker threads (split.rs) and the
/// runtime's calls into ptxgen.
pub fn catch_panic<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|p| {
        p.downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into())
    })
}

/// A build step under `catch_panic`: a panic is a failed build.
pub(crate) fn guarded<T>(f: impl FnOnce() -> Result<T, BuildError>) -> Result<T, BuildError> {
    catch_panic(f).unwrap_or_else(|_| Err(failed("internal error in ptxgen (panic)")))
}

pub fn build(source: &str, options: &str, target: &Target) -> Result<Program, BuildError> {
    build_timed(source, options, target, true).0
}

/// The start of every build for a device: the target checked, and the two identities the cache
/// key holds besides the program: "sm_N:ptxX.Y" and the libclc file's.
pub(crate) fn target_and_libclc(target: &Target) -> Result<(String, String), BuildError> {
    target::validate(target).map_err(|e| failed(format!("error: {e}\n")))?;
    let (_, clc_id) = libclc::locate().map_err(failed)?;
    Ok((format!("sm_{}:ptx{}.{}", target.sm, target.ptx_isa.0, target.ptx_isa.1), clc_id))
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
        let opts = options::build_options(options)?;
        let (tgt, clc_id) = target_and_libclc(target)?;
        let key = cache::key(&[
            VERSION.as_bytes(),
            cache::code_id(),
            b"build",
            PREDEFINED.concat().as_bytes(),
            tuning_key().as_bytes(),
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
            if let Some((p, stamps)) = cache::disk_get(&key) {
                if p.target == *target {
                    cache::mem_put(key, &p, &stamps);
                    t.lap("cache-hit-disk");
                    return Ok(p);
                }
            }
            t.lap("cache-miss");
        }
        let clc = libclc::get().ok().and_then(|p| CString::new(p.to_string_lossy().as_bytes()).ok());
        let ctx = Ctx::shared_or_private(clc.as_ref());
        t.lap(if matches!(ctx.owner, Owner::Shared(_)) { "init-shared" } else { "init-private" });
        let (m, mut log, deps) = frontend(&ctx, source, &opts, &[])?;
        t.lap("clang");
        let (ptx, kernels, blog) = backend(&ctx, m, &opts, target, &mut t).inspect_err(|_| ctx.poison())?;
        log.push_str(&blog);
        let p = Program { ptx, target: target.clone(), options: options.to_string(), log, kernels };
        if use_cache {
            let stamps = cache::stamp(&deps);
            cache::mem_put(key, &p, &stamps);
            cache::disk_put(&key, &p, &stamps);
            t.lap("cache-store");
        }
        Ok(p)
    });
    (r, t.stages)
}

pub fn compile(source: &str, options: &str, headers: &[(&str, &str)]) -> Result<Object, BuildError> {
    guarded(|| {
        let opts = options::build_options(options)?;
        let ctx = Ctx::private();
        let (m, log, _) = frontend(&ctx, source, &opts, headers)?;
        let bitcode = m.write_bitcode_to_memory().as_slice().to_vec();
        Ok(Object { bitcode, options: options.to_string(), log })
    })
}

pub fn link(objects: &[&Object], options: &str, target: &Target) -> Result<Program, BuildError> {
    guarded(|| {
        let mut opts = options::link_options(options)?;
        target::validate(target).map_err(|e| failed(format!("error: {e}\n")))?;
        if objects.is_empty() {
            return Err(failed("error: no objects to link\n"));
        }
        opts.opt_disable =
            objects.iter().all(|o| options::parse_build(&o.options).map(|p| p.opt_disable).unwrap_or(false));
        let ctx = Ctx::private();
        let mut dst: Option<Module> = None;
        for (i, o) in objects.iter().enumerate() {
            let buf = MemoryBuffer::create_from_memory_range_copy(&o.bitcode, "object");
            let m = Module::parse_bitcode_from_buffer(&buf, ctx.context_ref())
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn knobs_default_to_the_constants_and_follow_valid_variables() {
        let defaults: Vec<String> =
            KNOBS.iter().filter_map(|&(_, o, d)| d.map(|n| format!("-{o}={n}"))).collect();
        assert_eq!(knob_args(|_| None), defaults);
        assert!(defaults.contains(&"-bonus-inst-threshold=2".to_string()));
        let env = |v: &str| match v {
            "PTXGEN_UNROLL_THRESHOLD" => Some(" 2000 ".to_string()),
            "PTXGEN_BONUS_INST_THRESHOLD" => Some("1".to_string()),
            "PTXGEN_PHI_FOLD_THRESHOLD" => Some("many".to_string()), // ignored
            _ => None,
        };
        assert_eq!(
            knob_args(env),
            [
                "-unroll-threshold=2000",
                "-bonus-inst-threshold=1",
                "-ptxgen-volatile-private-local=1",
                "-ptxgen-opaque-global-size=1",
                "-ptxgen-stride-unroll=4"
            ]
        );
    }
}
