//! Programs: source, SPIR-V (IL) or binary in, per-device PTX modules out. One ptxgen build per
//! distinct target among the devices asked for, then one JIT load (cuModuleLoadDataEx) per
//! device, whose log is appended to that device's build log.
//!
//! Every call into ptxgen runs under `catch_unwind`: a compiler panic becomes a failed build
//! with a log, never an abort of the host program.
use super::context::Context;
use super::device::Device;
use crate::base::entry::{lock, CLResult};
use crate::base::handle::Cl;
use crate::cl::*;
use crate::cuda::module::{Function, Module};
use crate::cuda::CudaError;
use std::any::Any;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

/// Runs a ptxgen call, turning a panic into an error message (ptxgen's `catch_panic`, the one
/// place compiler panics are caught).
pub fn guarded<T>(what: &str, f: impl FnOnce() -> T) -> Result<T, String> {
    ptxgen::catch_panic(f)
        .map_err(|msg| format!("cudacl: internal compiler error in ptxgen::{what}: {msg}\n"))
}

/// The step a ptxgen build error comes from, which decides its error code.
#[derive(Clone, Copy)]
enum Step {
    /// clBuildProgram (a build from source or IL, or the link of a binary's objects).
    Build,
    Compile,
    Link,
}

/// The error code of a failed ptxgen step (a compiler panic counts as a failed build): the
/// step's invalid-options code where ptxgen refused the options, its failure code otherwise.
fn error_code(e: Option<&ptxgen::BuildError>, step: Step) -> cl_int {
    let bad_options = matches!(e, Some(ptxgen::BuildError::InvalidOptions { .. }));
    match (step, bad_options) {
        (Step::Build, true) => CL_INVALID_BUILD_OPTIONS,
        (Step::Build, false) => CL_BUILD_PROGRAM_FAILURE,
        (Step::Compile, true) => CL_INVALID_COMPILER_OPTIONS,
        (Step::Compile, false) => CL_COMPILE_PROGRAM_FAILURE,
        (Step::Link, true) => CL_INVALID_LINKER_OPTIONS,
        (Step::Link, false) => CL_LINK_PROGRAM_FAILURE,
    }
}

/// A guarded ptxgen step as an entry point reports it: the result, or the error code
/// (`error_code`) and the log (a panic's message for a compiler panic).
fn build_result<T>(
    r: Result<Result<T, ptxgen::BuildError>, String>,
    step: Step,
) -> Result<Arc<T>, (cl_int, String)> {
    match r {
        Ok(Ok(p)) => Ok(Arc::new(p)),
        Ok(Err(e)) => {
            let code = error_code(Some(&e), step);
            let (ptxgen::BuildError::InvalidOptions { log } | ptxgen::BuildError::Failed { log }) = e;
            Err((code, log))
        }
        Err(log) => Err((error_code(None, step), log)),
    }
}

/// The ptxgen target of a device (ptxgen runs guarded).
pub fn target_of(d: &Device) -> Result<ptxgen::Target, String> {
    guarded("Target::for_device", || d.target())
}

/// A module loaded on one device, with its functions looked up by name on demand.
pub struct LoadedModule {
    pub module: Module,
    pub functions: std::sync::Mutex<HashMap<String, Function>>,
}

impl LoadedModule {
    pub fn function(&self, name: &str) -> Result<Function, CudaError> {
        let mut f = lock(&self.functions);
        if let Some(func) = f.get(name) {
            return Ok(*func);
        }
        let func = self.module.function(name)?;
        f.insert(name.to_string(), func);
        Ok(func)
    }
}

/// The state of one device's build of a program.
#[derive(Clone)]
pub struct DeviceBuild {
    pub status: cl_build_status,
    /// The options as given (CL_PROGRAM_BUILD_OPTIONS); `set_options` keeps `requested` in step.
    pub options: String,
    /// What `options` asks of the runtime itself (-cl-kernel-arg-info), read once.
    pub requested: ptxgen::options::RuntimeOptions,
    pub log: String,
    pub binary_type: cl_program_binary_type,
    /// Compiled objects: one for a compiled object, several for a library.
    pub objects: Vec<Arc<ptxgen::Object>>,
    /// The executable (PTX and kernel layout).
    pub exe: Option<Arc<ptxgen::Program>>,
    /// The executable loaded on the device.
    pub module: Option<Arc<LoadedModule>>,
    /// The program binary as given to clCreateProgramWithBinary or made from the build.
    pub binary: Option<Arc<Vec<u8>>>,
}

impl DeviceBuild {
    fn none() -> DeviceBuild {
        DeviceBuild {
            status: CL_BUILD_NONE,
            options: String::new(),
            requested: Default::default(),
            log: String::new(),
            binary_type: CL_PROGRAM_BINARY_TYPE_NONE as _,
            objects: Vec::new(),
            exe: None,
            module: None,
            binary: None,
        }
    }
    /// A build that has not started, with `options`.
    fn with_options(options: &str) -> DeviceBuild {
        let mut b = DeviceBuild::none();
        b.set_options(options);
        b
    }
    fn set_options(&mut self, options: &str) {
        self.options = options.to_string();
        self.requested = ptxgen::options::RuntimeOptions::of(options);
    }
    /// Whether this build's options, or those its objects were compiled with, asked for
    /// -cl-kernel-arg-info.
    pub fn arg_info_asked(&self) -> bool {
        self.requested.kernel_arg_info || self.objects.iter().any(|o| o.has_arg_info())
    }
    pub fn is_executable(&self) -> bool {
        self.status == (CL_BUILD_SUCCESS as cl_build_status) && self.module.is_some() && self.exe.is_some()
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    Source,
    /// clCreateProgramWithIL: SPIR-V, built through ptxgen's translator (`Program::il`).
    Il,
    Binary,
    Linked,
}

/// Kernel shapes by kernel name (`Program::shapes`).
type Shapes = HashMap<String, Arc<dyn Any + Send + Sync>>;

pub struct Program {
    pub context: Arc<Cl<Context>>,
    /// The devices the program is for (a subset of the context's, in its order as given).
    pub devices: Vec<Arc<Cl<Device>>>,
    pub source: String,
    /// The SPIR-V of an IL program (CL_PROGRAM_IL), else empty.
    pub il: Vec<u8>,
    /// clSetProgramSpecializationConstant's values, used by the next build or compile.
    spec: std::sync::Mutex<Vec<ptxgen::SpecConstant>>,
    /// The IL's specialization constants (id, size), read once when first asked for.
    spec_info: std::sync::OnceLock<Result<Vec<(u32, usize)>, String>>,
    pub origin: Origin,
    builds: std::sync::Mutex<Vec<DeviceBuild>>,
    building: AtomicBool,
    /// Kernel objects created from this program and not yet destroyed.
    pub kernels: AtomicUsize,
    /// clCreateKernel's work per kernel name, for the builds as they are now
    /// (`kernel_shape`), and the count of build changes that empty it. Each is kernel.rs's
    /// `KernelShape`, untyped here so that this file need not import kernel.rs, which imports it.
    shapes: std::sync::Mutex<(u64, Shapes)>,
}
crate::cl_object!(Program, cl_program, CL_INVALID_PROGRAM);

/// cudacl's container for compiled objects and libraries (executables use ptxgen's format).
const OBJ_MAGIC: &[u8] = b"cudacl-object\0v1\0";

pub fn objects_to_binary(objs: &[Arc<ptxgen::Object>], library: bool) -> Vec<u8> {
    let mut v = OBJ_MAGIC.to_vec();
    v.push(library as u8);
    v.extend_from_slice(&(objs.len() as u32).to_le_bytes());
    for o in objs {
        v.extend_from_slice(&(o.options.len() as u64).to_le_bytes());
        v.extend_from_slice(o.options.as_bytes());
        v.extend_from_slice(&(o.bitcode.len() as u64).to_le_bytes());
        v.extend_from_slice(&o.bitcode);
    }
    v
}

fn objects_from_binary(b: &[u8]) -> Option<(Vec<Arc<ptxgen::Object>>, bool)> {
    let rest = b.strip_prefix(OBJ_MAGIC)?;
    let (&lib, mut rest) = rest.split_first()?;
    let take = |r: &mut &[u8], n: usize| -> Option<Vec<u8>> {
        if r.len() < n {
            return None;
        }
        let (a, b) = r.split_at(n);
        *r = b;
        Some(a.to_vec())
    };
    let n = u32::from_le_bytes(take(&mut rest, 4)?.try_into().ok()?) as usize;
    let mut objs = Vec::new();
    for _ in 0..n {
        let ol = u64::from_le_bytes(take(&mut rest, 8)?.try_into().ok()?) as usize;
        let options = String::from_utf8(take(&mut rest, ol)?).ok()?;
        let bl = u64::from_le_bytes(take(&mut rest, 8)?.try_into().ok()?) as usize;
        let bitcode = take(&mut rest, bl)?;
        objs.push(Arc::new(ptxgen::Object { bitcode, options, log: String::new() }));
    }
    if !rest.is_empty() || objs.is_empty() {
        return None;
    }
    Some((objs, lib != 0))
}

/// What a binary given to clCreateProgramWithBinary holds.
pub enum ParsedBinary {
    Exe(ptxgen::Program),
    Objects(Vec<Arc<ptxgen::Object>>, bool),
}

/// Parses a binary for `device`: Err(reason) for another format, version or a newer target.
pub fn parse_binary(bytes: &[u8], device: &Device) -> Result<ParsedBinary, String> {
    if let Some((objs, lib)) = objects_from_binary(bytes) {
        return Ok(ParsedBinary::Objects(objs, lib));
    }
    let p = guarded("Program::from_binary", || ptxgen::Program::from_binary(bytes))??;
    let t = target_of(device)?;
    if p.target.sm > t.sm || p.target.ptx_isa > t.ptx_isa {
        return Err(format!(
            "binary is for sm_{} PTX {}.{}, device {} needs sm_{} PTX {}.{} or older",
            p.target.sm, p.target.ptx_isa.0, p.target.ptx_isa.1, device.name, t.sm, t.ptx_isa.0, t.ptx_isa.1
        ));
    }
    Ok(ParsedBinary::Exe(p))
}

/// Loads a built executable on `dev` and records the outcome in `nb` (JIT log appended,
/// status, module). False when the driver refused it.
fn load_into(ctx: &Context, dev: &Cl<Device>, exe: &ptxgen::Program, nb: &mut DeviceBuild) -> bool {
    let ctx_dev = ctx.device_index(dev).unwrap_or(0);
    match load_on(ctx, ctx_dev, exe) {
        Ok((m, info)) => {
            nb.log.push_str(&info);
            nb.status = CL_BUILD_SUCCESS as cl_build_status;
            nb.module = Some(Arc::new(m));
            true
        }
        Err(log) => {
            nb.log.push_str(&log);
            nb.status = CL_BUILD_ERROR;
            false
        }
    }
}

/// Loads an executable on device `dev` of the context. Returns the JIT info log, or the
/// error log on failure.
fn load_on(ctx: &Context, dev: usize, exe: &ptxgen::Program) -> Result<(LoadedModule, String), String> {
    ctx.cuda[dev]
        .make_current()
        .map_err(|e| format!("cudacl: cannot make the CUDA context current: {}\n", e.name()))?;
    let t0 = std::time::Instant::now();
    let loaded = Module::load_ptx(&exe.ptx);
    if report_build_times() {
        eprintln!("cudacl: build time: jit (device {dev}) {:.2} ms", t0.elapsed().as_secs_f64() * 1e3);
    }
    match loaded {
        Ok((m, info)) => Ok((LoadedModule { module: m, functions: Default::default() }, info)),
        Err((e, log)) => Err(format!("cudacl: CUDA JIT failed ({}):\n{}\n", e.name(), log)),
    }
}

/// Whether CUDACL_BUILD_TIMES=1 asks for the time of each build stage on stderr (a diagnostic
/// for the build benchmark: ptxgen's stages, then the driver's JIT per device).
fn report_build_times() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var("CUDACL_BUILD_TIMES").is_ok_and(|v| v == "1"))
}

/// ptxgen::build, printing its stage times when CUDACL_BUILD_TIMES=1.
fn build_reporting_times(
    source: &str,
    options: &str,
    t: &ptxgen::Target,
) -> Result<ptxgen::Program, ptxgen::BuildError> {
    if !report_build_times() {
        return ptxgen::build(source, options, t);
    }
    let (r, stages) = ptxgen::build_timed(source, options, t, true);
    let parts: Vec<String> = stages.iter().map(|s| format!("{} {:.2} ms", s.name, s.ms)).collect();
    eprintln!("cudacl: build time: {}", parts.join(", "));
    r
}

/// One ptxgen build's result: the executable, or the error code and build log.
type BuildOutcome = Result<Arc<ptxgen::Program>, (cl_int, String)>;

impl Program {
    pub fn new(
        context: Arc<Cl<Context>>,
        devices: Vec<Arc<Cl<Device>>>,
        source: String,
        origin: Origin,
    ) -> Program {
        let builds = devices.iter().map(|_| DeviceBuild::none()).collect();
        Program {
            context,
            devices,
            source,
            il: Vec::new(),
            spec: Default::default(),
            spec_info: Default::default(),
            origin,
            builds: std::sync::Mutex::new(builds),
            building: AtomicBool::new(false),
            kernels: AtomicUsize::new(0),
            shapes: Default::default(),
        }
    }

    /// A program from SPIR-V (clCreateProgramWithIL).
    pub fn with_il(context: Arc<Cl<Context>>, devices: Vec<Arc<Cl<Device>>>, il: Vec<u8>) -> Program {
        Program { il, ..Program::new(context, devices, String::new(), Origin::Il) }
    }

    /// clSetProgramSpecializationConstant: checks the id and size against the IL's constants
    /// and records the value for later builds (a later value for the same id replaces it).
    pub fn set_spec_constant(&self, id: u32, value: &[u8]) -> CLResult<()> {
        let info = self.spec_info.get_or_init(|| {
            let il = &self.il;
            guarded("il_spec_constants", || ptxgen::il_spec_constants(il)).and_then(|r| r)
        });
        // A malformed module has no constants to set.
        let Ok(info) = info else { return Err(CL_INVALID_SPEC_ID) };
        let &(_, size) = info.iter().find(|(i, _)| *i == id).ok_or(CL_INVALID_SPEC_ID)?;
        if size != value.len() {
            return Err(CL_INVALID_VALUE);
        }
        let mut spec = lock(&self.spec);
        spec.retain(|s| s.id != id);
        spec.push(ptxgen::SpecConstant { id, value: value.to_vec() });
        spec.sort_by_key(|s| s.id);
        Ok(())
    }

    /// A program from binaries already parsed (one per device).
    pub fn with_binaries(
        context: Arc<Cl<Context>>,
        devices: Vec<Arc<Cl<Device>>>,
        bins: Vec<(ParsedBinary, Vec<u8>)>,
    ) -> Program {
        let p = Program::new(context, devices, String::new(), Origin::Binary);
        {
            let mut b = lock(&p.builds);
            for (slot, (parsed, raw)) in b.iter_mut().zip(bins) {
                slot.binary = Some(Arc::new(raw));
                match parsed {
                    ParsedBinary::Exe(exe) => {
                        slot.binary_type = CL_PROGRAM_BINARY_TYPE_EXECUTABLE as _;
                        slot.set_options(&exe.options);
                        slot.exe = Some(Arc::new(exe));
                    }
                    ParsedBinary::Objects(objs, lib) => {
                        slot.binary_type = if lib {
                            CL_PROGRAM_BINARY_TYPE_LIBRARY
                        } else {
                            CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT
                        } as _;
                        slot.objects = objs;
                    }
                }
            }
            // An executable binary is usable at once, as on NVIDIA, rusticl and PoCL (piglit's
            // clCreateProgramWithBinary test makes a kernel before building): load it now. A
            // module that fails to load leaves the device unbuilt for clBuildProgram to report.
            for (slot, dev) in b.iter_mut().zip(&p.devices) {
                let (Some(exe), Some(ctx_dev)) = (slot.exe.clone(), p.context.device_index(dev)) else {
                    continue;
                };
                if let Ok((m, info)) = load_on(&p.context, ctx_dev, &exe) {
                    slot.log = info;
                    slot.status = CL_BUILD_SUCCESS as cl_build_status;
                    slot.module = Some(Arc::new(m));
                }
            }
        }
        p
    }

    pub fn device_pos(&self, d: &Cl<Device>) -> Option<usize> {
        self.devices.iter().position(|x| std::ptr::eq(&***x, &**d))
    }

    pub fn build_of(&self, pos: usize) -> Option<DeviceBuild> {
        lock(&self.builds).get(pos).cloned()
    }

    pub fn builds(&self) -> Vec<DeviceBuild> {
        lock(&self.builds).clone()
    }

    /// The build of the device at index `ctx_dev` in the context, if it is executable.
    pub fn executable_for_context_device(&self, ctx_dev: usize) -> Option<DeviceBuild> {
        let d = self.context.devices.get(ctx_dev)?;
        let pos = self.device_pos(d)?;
        self.build_of(pos).filter(|b| b.is_executable())
    }

    /// Any executable build (they all have the same kernels).
    pub fn any_executable(&self) -> Option<Arc<ptxgen::Program>> {
        lock(&self.builds).iter().find(|b| b.is_executable()).and_then(|b| b.exe.clone())
    }

    /// Marks the start of a build/compile; CL_INVALID_OPERATION when one is running or kernels
    /// are attached.
    fn begin(&self, positions: &[usize]) -> CLResult<BuildGuard<'_>> {
        if self.kernels.load(Ordering::Acquire) > 0 {
            return Err(CL_INVALID_OPERATION);
        }
        if self.building.swap(true, Ordering::AcqRel) {
            return Err(CL_INVALID_OPERATION);
        }
        let mut b = lock(&self.builds);
        for &p in positions {
            b[p].status = CL_BUILD_IN_PROGRESS;
        }
        drop(b);
        self.forget_kernel_shapes();
        Ok(BuildGuard(self))
    }

    fn store(&self, pos: usize, build: DeviceBuild) {
        lock(&self.builds)[pos] = build;
        self.forget_kernel_shapes();
    }

    /// The builds changed: kernels made from now on are made afresh.
    fn forget_kernel_shapes(&self) {
        let mut s = lock(&self.shapes);
        s.0 += 1;
        s.1.clear();
    }

    /// The shared part of a new kernel object named `name`: the one made for an earlier kernel
    /// object of that name, or `make`'s (kept unless the builds changed meanwhile).
    pub fn kernel_shape<T: Any + Send + Sync>(
        &self,
        name: &str,
        make: impl FnOnce() -> CLResult<T>,
    ) -> CLResult<Arc<T>> {
        let generation = {
            let s = lock(&self.shapes);
            if let Some(k) = s.1.get(name).and_then(|k| k.clone().downcast::<T>().ok()) {
                return Ok(k);
            }
            s.0
        };
        let k = Arc::new(make()?);
        let mut s = lock(&self.shapes);
        if s.0 == generation {
            s.1.insert(name.to_string(), k.clone());
        }
        Ok(k)
    }

    /// clBuildProgram for the devices at `positions`.
    pub fn build(&self, positions: &[usize], options: &str) -> CLResult<()> {
        let _g = self.begin(positions)?;
        let builds = self.builds();
        let mut result = Ok(());
        let fail = |r: &mut CLResult<()>, code| {
            if r.is_ok() || code == CL_INVALID_BUILD_OPTIONS {
                *r = Err(code);
            }
        };
        // Executables by target (one ptxgen build per distinct target).
        let mut by_target: Vec<(ptxgen::Target, BuildOutcome)> = Vec::new();
        for &pos in positions {
            let dev = &self.devices[pos];
            let prev = &builds[pos];
            let mut nb = DeviceBuild::with_options(options);
            let exe: Result<Arc<ptxgen::Program>, (cl_int, String)> = match self.origin {
                // Loaded at creation: nothing to do but record the options.
                Origin::Binary if prev.is_executable() => {
                    let mut b = prev.clone();
                    b.set_options(options);
                    self.store(pos, b);
                    continue;
                }
                Origin::Binary => match (&prev.exe, prev.objects.is_empty()) {
                    (Some(e), _) => Ok(e.clone()),
                    (None, false) => match target_of(dev) {
                        Ok(t) => {
                            let objs: Vec<&ptxgen::Object> = prev.objects.iter().map(|o| &**o).collect();
                            build_result(guarded("link", || ptxgen::link(&objs, options, &t)), Step::Build)
                        }
                        Err(log) => Err((CL_BUILD_PROGRAM_FAILURE, log)),
                    },
                    (None, true) => {
                        Err((CL_INVALID_BINARY, "cudacl: no valid binary for this device\n".into()))
                    }
                },
                _ => match target_of(dev) {
                    Err(log) => Err((CL_BUILD_PROGRAM_FAILURE, log)),
                    Ok(t) => {
                        if let Some((_, r)) = by_target.iter().find(|(tt, _)| *tt == t) {
                            r.clone()
                        } else {
                            let spec = lock(&self.spec).clone();
                            let r = build_result(
                                guarded("build", || match self.origin {
                                    Origin::Il => ptxgen::build_il(&self.il, &spec, options, &t),
                                    _ => build_reporting_times(&self.source, options, &t),
                                }),
                                Step::Build,
                            );
                            by_target.push((t, r.clone()));
                            r
                        }
                    }
                },
            };
            match exe {
                Err((code, log)) => {
                    nb.status = CL_BUILD_ERROR;
                    nb.log = log;
                    nb.binary = prev.binary.clone();
                    nb.binary_type = prev.binary_type;
                    nb.objects = prev.objects.clone();
                    nb.exe = prev.exe.clone();
                    fail(&mut result, code);
                }
                Ok(exe) => {
                    nb.log = exe.log.clone();
                    if self.origin == Origin::Binary && prev.exe.is_some() {
                        nb.binary = prev.binary.clone();
                    }
                    if !load_into(&self.context, dev, &exe, &mut nb) {
                        fail(&mut result, CL_BUILD_PROGRAM_FAILURE);
                    }
                    nb.binary_type = CL_PROGRAM_BINARY_TYPE_EXECUTABLE as _;
                    nb.exe = Some(exe);
                }
            }
            self.store(pos, nb);
        }
        result
    }

    /// clCompileProgram for the devices at `positions` (compilation is target independent).
    pub fn compile(&self, positions: &[usize], options: &str, headers: &[(String, String)]) -> CLResult<()> {
        let _g = self.begin(positions)?;
        let hs: Vec<(&str, &str)> = headers.iter().map(|(n, s)| (n.as_str(), s.as_str())).collect();
        let spec = lock(&self.spec).clone();
        let r = build_result(
            guarded("compile", || match self.origin {
                // SPIR-V has no preprocessor: the headers are not used.
                Origin::Il => ptxgen::compile_il(&self.il, &spec, options),
                _ => ptxgen::compile(&self.source, options, &hs),
            }),
            Step::Compile,
        );
        for &pos in positions {
            let mut nb = DeviceBuild::with_options(options);
            match &r {
                Ok(o) => {
                    nb.status = CL_BUILD_SUCCESS as cl_build_status;
                    nb.log = o.log.clone();
                    nb.binary_type = CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT as _;
                    nb.objects = vec![o.clone()];
                }
                Err((_, log)) => {
                    nb.status = CL_BUILD_ERROR;
                    nb.log = log.clone();
                }
            }
            self.store(pos, nb);
        }
        r.map(|_| ()).map_err(|(c, _)| c)
    }

    /// clLinkProgram's work on a new program: links `inputs[pos]` (objects per device) with
    /// `options`, which the caller parsed (`parsed`). Returns the first error, the program
    /// keeping the logs.
    pub fn link(
        &self,
        inputs: Vec<Vec<Arc<ptxgen::Object>>>,
        options: &str,
        parsed: &ptxgen::options::Options,
    ) -> CLResult<()> {
        let positions: Vec<usize> = (0..self.devices.len()).collect();
        let _g = self.begin(&positions)?;
        let library = parsed.create_library;
        let mut result = Ok(());
        let mut by_target: Vec<(ptxgen::Target, Vec<*const ptxgen::Object>, Arc<ptxgen::Program>)> =
            Vec::new();
        for (pos, objs) in inputs.into_iter().enumerate() {
            let mut nb = DeviceBuild::with_options(options);
            if library {
                nb.status = CL_BUILD_SUCCESS as cl_build_status;
                nb.binary_type = CL_PROGRAM_BINARY_TYPE_LIBRARY as _;
                nb.objects = objs;
                self.store(pos, nb);
                continue;
            }
            let dev = &self.devices[pos];
            let key: Vec<*const ptxgen::Object> = objs.iter().map(Arc::as_ptr).collect();
            let exe = match target_of(dev) {
                Err(log) => Err((CL_LINK_PROGRAM_FAILURE, log)),
                Ok(t) => {
                    if let Some((_, _, p)) = by_target.iter().find(|(tt, k, _)| *tt == t && *k == key) {
                        Ok(p.clone())
                    } else {
                        let refs: Vec<&ptxgen::Object> = objs.iter().map(|o| &**o).collect();
                        let r =
                            build_result(guarded("link", || ptxgen::link(&refs, options, &t)), Step::Link);
                        if let Ok(p) = &r {
                            by_target.push((t, key, p.clone()));
                        }
                        r
                    }
                }
            };
            match exe {
                Err((code, log)) => {
                    nb.status = CL_BUILD_ERROR;
                    nb.log = log;
                    if result.is_ok() {
                        result = Err(code);
                    }
                }
                Ok(exe) => {
                    nb.log = exe.log.clone();
                    if !load_into(&self.context, dev, &exe, &mut nb) && result.is_ok() {
                        result = Err(CL_LINK_PROGRAM_FAILURE);
                    }
                    nb.binary_type = CL_PROGRAM_BINARY_TYPE_EXECUTABLE as _;
                    nb.exe = Some(exe);
                }
            }
            // The objects it came from (their compile options say whether arg info was asked).
            nb.objects = objs;
            self.store(pos, nb);
        }
        result
    }

    /// CL_PROGRAM_BINARIES for the device at `pos` (empty when there is none).
    pub fn binary(&self, pos: usize) -> Vec<u8> {
        let Some(b) = self.build_of(pos) else { return Vec::new() };
        if let Some(bin) = &b.binary {
            return (**bin).clone();
        }
        let bytes = if let Some(exe) = &b.exe {
            guarded("Program::to_binary", || exe.to_binary()).unwrap_or_default()
        } else if !b.objects.is_empty() {
            objects_to_binary(
                &b.objects,
                b.binary_type == CL_PROGRAM_BINARY_TYPE_LIBRARY as cl_program_binary_type,
            )
        } else {
            return Vec::new();
        };
        if !bytes.is_empty() {
            let mut l = lock(&self.builds);
            if let Some(slot) = l.get_mut(pos) {
                if slot.binary.is_none() {
                    slot.binary = Some(Arc::new(bytes.clone()));
                }
            }
        }
        bytes
    }
}

struct BuildGuard<'a>(&'a Program);
impl Drop for BuildGuard<'_> {
    fn drop(&mut self) {
        self.0.building.store(false, Ordering::Release);
    }
}
