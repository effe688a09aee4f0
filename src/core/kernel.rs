//! Kernels: the argument layout from ptxgen, a parameter buffer kept up to date by
//! clSetKernelArg, and the launch path (stack copy of the buffer, device pointers and implicit
//! arguments patched in, one cuLaunchKernel per launch; nothing allocated beyond the command's
//! closure).
use super::memory::Mem;
use super::program::{LoadedModule, Origin, Program};
use super::queue::Queue;
use crate::base::entry::{lock, CLResult};
use crate::base::handle::Cl;
use crate::cl::*;
use crate::cuda::module::Function;
use crate::cuda::sys::{CUfunction_attribute as FA, CUresult};
use ptxgen::{ArgKind, ImplicitKind, KernelInfo};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Arc, Mutex, Weak};

/// Parameter buffers up to this size are built on the stack at launch (CUDA's limit before 12.1;
/// larger ones, up to a device's max_param_buffer, on the heap).
const STACK_PARAMS: usize = 4096;
const SMALL_PARAMS: usize = 256;

/// The launch's copy of the parameter buffer, aligned like the largest parameter CUDA knows.
#[repr(C, align(16))]
struct ParamBuf<const N: usize>([u8; N]);
/// Offsets of __local arguments in the dynamic shared array are aligned to this: the largest
/// alignment of an OpenCL type (long16, double16), as the CTS's kernel_memory_alignment_local
/// checks; ptxgen declares the array itself aligned so.
pub const LOCAL_ALIGN: u32 = 128;
/// Above this much dynamic shared memory a function must opt in (cuFuncSetAttribute).
const DEFAULT_DYNAMIC_SHARED: u32 = 48 * 1024;

/// A memory-object argument: where its device address goes in the parameter buffer, and the
/// buffer (None for a NULL buffer argument, or until the argument is set). Weak: setting a
/// kernel argument does not retain the buffer (the CTS's retain_mem_object_set_kernel_arg
/// waits for the destructor callback of a buffer released while still set); a launch holds
/// what it uses (`Params::bind`).
#[derive(Clone)]
pub struct MemArg {
    /// Byte offset of the argument's slot in `Params::bytes`.
    pub offset: u32,
    /// A `__constant` argument: launches never write it.
    pub constant: bool,
    /// Weak: setting a kernel argument does not retain the buffer (the CTS's
    /// retain_mem_object_set_kernel_arg waits for the destructor callback of a buffer released
    /// while still set as an argument); an enqueue holds what it uses (`Params::bind`).
    pub mem: Option<Weak<Cl<Mem>>>,
    /// A raw address set with clSetKernelArgSVMPointer or clSetKernelArgDevicePointerEXT: the
    /// value launches pass (`mem` is then the buffer with fixed addresses that holds it, if
    /// any, kept coherent on the launching device like a buffer argument).
    pub raw: Option<u64>,
}

/// The local size chosen for a NULL local_work_size, remembered for the next launch with the
/// same shape.
#[derive(Clone, Copy)]
struct ChosenLocal {
    dev: usize,
    work_dim: u32,
    global: [usize; 3],
    local: [usize; 3],
}

/// What one device needs to launch the kernel.
pub struct DeviceFunc {
    pub func: Function,
    /// Keeps the module loaded while the kernel lives.
    pub _module: Arc<LoadedModule>,
    pub max_threads: u32,
    pub static_shared: u32,
    pub private_bytes: u32,
    /// The dynamic shared-memory size the function is opted in for.
    dyn_shared_optin: AtomicI32,
}

/// The arguments as last set: shared with launches in flight (copy on write).
#[derive(Clone)]
pub struct Params {
    pub bytes: Vec<u8>,
    /// Per user argument: was it set?
    pub set: Vec<bool>,
    pub unset: usize,
    /// Memory-object arguments, per pointer argument in order.
    pub mems: Vec<MemArg>,
    /// __local argument sizes (bytes wanted), per argument (0 for other kinds).
    pub local_sizes: Vec<u32>,
    /// Total dynamic shared bytes of the __local arguments (offsets aligned).
    pub dyn_shared: u32,
    /// Buffers the kernel reaches through device pointers not passed as arguments
    /// (CL_KERNEL_EXEC_INFO_DEVICE_PTRS_EXT): made valid on the launching device, and written
    /// there, like buffer arguments.
    pub indirect: Vec<Weak<Cl<Mem>>>,
}

/// Launches of kernels with up to this many buffer arguments hold them without allocating.
const INLINE_MEMS: usize = 8;

/// The memory objects a launch holds, per pointer argument (`Params::bind`).
pub enum BoundMems {
    /// The first `.1` entries.
    Inline([Option<Arc<Cl<Mem>>>; INLINE_MEMS], usize),
    Heap(Vec<Option<Arc<Cl<Mem>>>>),
}

impl std::ops::Deref for BoundMems {
    type Target = [Option<Arc<Cl<Mem>>>];
    fn deref(&self) -> &Self::Target {
        match self {
            BoundMems::Inline(a, n) => &a[..*n],
            BoundMems::Heap(v) => v,
        }
    }
}

impl Params {
    /// The memory objects for a launch, per pointer argument, held until it is done:
    /// CL_INVALID_KERNEL_ARGS when one was released since it was set.
    pub fn bind(&self) -> CLResult<BoundMems> {
        let one = |arg: &MemArg| match &arg.mem {
            Some(w) => w.upgrade().map(Some).ok_or(CL_INVALID_KERNEL_ARGS),
            None => Ok(None),
        };
        if self.mems.len() > INLINE_MEMS {
            return self.mems.iter().map(one).collect::<CLResult<_>>().map(BoundMems::Heap);
        }
        let mut held: [Option<Arc<Cl<Mem>>>; INLINE_MEMS] = Default::default();
        for (slot, arg) in held.iter_mut().zip(&self.mems) {
            *slot = one(arg)?;
        }
        Ok(BoundMems::Inline(held, self.mems.len()))
    }
}

/// A kernel argument's value as clSetKernelArg checked it (`Kernel::store_arg`).
pub enum ArgValue<'a> {
    /// A by-value argument's bytes (as many as its size).
    Bytes(&'a [u8]),
    /// An 8-byte word: a sampler's CLK_* bits.
    Word(u64),
    /// A buffer or image (None: a NULL buffer).
    Mem(Option<Weak<Cl<Mem>>>),
    /// A __local argument's size in bytes.
    Local(u32),
}

pub struct Kernel {
    pub program: Arc<Cl<Program>>,
    /// What every kernel object of this name and build shares (clCreateKernel's work).
    pub shape: Arc<KernelShape>,
    params: Mutex<Arc<Params>>,
}
crate::cl_object!(Kernel, cl_kernel, CL_INVALID_KERNEL);

impl Drop for Kernel {
    fn drop(&mut self) {
        self.program.kernels.fetch_sub(1, Ordering::AcqRel);
        // The implicit retain of the program taken at creation.
        let _ = Cl::<Program>::release(self.program.handle());
    }
}

/// What every kernel object of one name made from one build of a program shares: the work of
/// clCreateKernel (finding the function on each device, its attributes, the argument layout),
/// done by the first kernel object of that name and kept by the program (`Program::kernel_shape`)
/// until it is built again. OpenCV makes and releases a kernel object per operation.
pub struct KernelShape {
    pub info: KernelInfo,
    /// Per device of the context (None where the program is not built).
    pub funcs: Vec<Option<DeviceFunc>>,
    pub arg_info_available: bool,
    /// For each argument, its index in `Params::mems` (pointer args) or usize::MAX.
    mem_slot: Vec<usize>,
    /// The arguments of a new kernel object: none set.
    params: Arc<Params>,
    /// The last local size chosen for a NULL local_work_size (it depends on the function and
    /// the device only).
    chosen: Mutex<Option<ChosenLocal>>,
    goff: Option<u32>,
    wdim: Option<u32>,
    groups: Option<u32>,
}

impl KernelShape {
    /// The kernel `name` of a program that is executable on at least one device.
    pub fn new(program: &Arc<Cl<Program>>, name: &str) -> CLResult<KernelShape> {
        let exe = program.any_executable().ok_or(CL_INVALID_PROGRAM_EXECUTABLE)?;
        let info = exe.kernels.iter().find(|k| k.name == name).cloned().ok_or(CL_INVALID_KERNEL_NAME)?;
        let ctx = program.context.clone();
        if ctx.devices.iter().any(|d| info.param_size as usize > d.max_param_buffer()) {
            return Err(CL_OUT_OF_RESOURCES);
        }
        let mut funcs = Vec::with_capacity(ctx.devices.len());
        for i in 0..ctx.devices.len() {
            let f = match program.executable_for_context_device(i) {
                Some(b) => {
                    let Some(module) = b.module.clone() else {
                        funcs.push(None);
                        continue;
                    };
                    ctx.cuda[i].make_current().map_err(|_| CL_OUT_OF_RESOURCES)?;
                    // The kernel is in the program: a failure here is the driver's (lazy loading
                    // compiles the function now), reported through the context's callback.
                    let func = module.function(name).map_err(|e| {
                        ctx.notify(&format!("cudacl: cuModuleGetFunction({name}) failed: {}", e.name()));
                        CL_OUT_OF_RESOURCES
                    })?;
                    let dev_max = ctx.devices[i].max_work_group_size as i32;
                    let mt = func.attribute(FA::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
                    Some(DeviceFunc {
                        func,
                        _module: module,
                        max_threads: if mt > 0 {
                            mt.min(dev_max.max(1)) as u32
                        } else {
                            dev_max.max(1) as u32
                        },
                        static_shared: func.attribute(FA::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES).max(0) as u32,
                        private_bytes: func.attribute(FA::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES).max(0) as u32,
                        // CUDA's default: 48 KiB less the static shared memory.
                        dyn_shared_optin: AtomicI32::new(DEFAULT_DYNAMIC_SHARED.saturating_sub(
                            func.attribute(FA::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES).max(0) as u32,
                        ) as i32),
                    })
                }
                None => None,
            };
            funcs.push(f);
        }
        // Asked for at this build, or at the build that made the binary / compiled the objects;
        // never for SPIR-V, which carries no argument names or type names.
        let arg_info_available = program.origin != Origin::Il
            && (exe.has_arg_info()
                || program.builds().iter().any(|b| b.is_executable() && b.arg_info_asked()));
        let n = info.args.len();
        let mut mems = Vec::new();
        let mut mem_slot = vec![usize::MAX; n];
        for (i, a) in info.args.iter().enumerate() {
            if matches!(a.kind, ArgKind::GlobalPtr | ArgKind::ConstantPtr | ArgKind::Image { .. }) {
                mem_slot[i] = mems.len();
                // Images: `constant` is a read_only image, which launches never write.
                let constant = matches!(
                    a.kind,
                    ArgKind::ConstantPtr | ArgKind::Image { access: ptxgen::AccessQualifier::ReadOnly, .. }
                );
                mems.push(MemArg { offset: a.offset, constant, mem: None, raw: None });
            }
        }
        let params = Params {
            bytes: vec![0u8; info.param_size as usize],
            set: vec![false; n],
            unset: n,
            mems,
            local_sizes: vec![0; n],
            dyn_shared: 0,
            indirect: Vec::new(),
        };
        let goff = info.implicit.iter().find(|a| a.kind == ImplicitKind::GlobalOffset).map(|a| a.offset);
        let wdim = info.implicit.iter().find(|a| a.kind == ImplicitKind::WorkDim).map(|a| a.offset);
        let groups = info.implicit.iter().find(|a| a.kind == ImplicitKind::Groups).map(|a| a.offset);
        Ok(KernelShape {
            info,
            funcs,
            arg_info_available,
            mem_slot,
            params: Arc::new(params),
            chosen: Mutex::new(None),
            goff,
            wdim,
            groups,
        })
    }
}

impl Kernel {
    /// A kernel of a program that is executable on at least one device.
    pub fn new(program: Arc<Cl<Program>>, name: &str) -> CLResult<Kernel> {
        let shape = program.kernel_shape(name, || KernelShape::new(&program, name))?;
        Cl::<Program>::retain(program.handle())?;
        program.kernels.fetch_add(1, Ordering::AcqRel);
        Ok(Kernel { program, params: Mutex::new(shape.params.clone()), shape })
    }

    /// clCloneKernel: same program and function, a copy of the arguments.
    pub fn clone_kernel(&self) -> CLResult<Kernel> {
        let mut k = Kernel::new(self.program.clone(), &self.shape.info.name)?;
        k.params = Mutex::new(self.params());
        Ok(k)
    }

    pub fn num_args(&self) -> usize {
        self.shape.info.args.len()
    }

    /// The arguments as set now (shared; a later clSetKernelArg copies them).
    pub fn params(&self) -> Arc<Params> {
        lock(&self.params).clone()
    }

    /// Records argument `i`'s value, which api's clSetKernelArg checked
    /// (api/kernel_args.rs).
    pub fn store_arg(&self, i: usize, v: ArgValue<'_>) -> CLResult<()> {
        let a = self.shape.info.args.get(i).ok_or(CL_INVALID_ARG_INDEX)?;
        let mut guard = lock(&self.params);
        let p = Arc::make_mut(&mut guard);
        match v {
            ArgValue::Bytes(b) => {
                let off = a.offset as usize;
                p.bytes.get_mut(off..off + b.len()).ok_or(CL_OUT_OF_RESOURCES)?.copy_from_slice(b);
            }
            ArgValue::Word(w) => {
                let off = a.offset as usize;
                p.bytes.get_mut(off..off + 8).ok_or(CL_OUT_OF_RESOURCES)?.copy_from_slice(&w.to_le_bytes());
            }
            ArgValue::Mem(m) => {
                let slot = self.shape.mem_slot[i];
                if let Some(e) = p.mems.get_mut(slot) {
                    e.mem = m;
                    e.raw = None;
                }
            }
            ArgValue::Local(n) => {
                p.local_sizes[i] = n;
                // Re-lay out every __local argument: offsets into the one dynamic array.
                let mut total = 0u64;
                for (j, aj) in self.shape.info.args.iter().enumerate() {
                    if aj.kind == ArgKind::LocalPtr {
                        let off = total.div_ceil(LOCAL_ALIGN as u64) * LOCAL_ALIGN as u64;
                        let o = aj.offset as usize;
                        if let Some(slot) = p.bytes.get_mut(o..o + 4) {
                            slot.copy_from_slice(&(off.min(u32::MAX as u64) as u32).to_le_bytes());
                        }
                        total = off + p.local_sizes[j] as u64;
                    }
                }
                // Beyond any device's shared memory: the launch answers CL_OUT_OF_RESOURCES.
                p.dyn_shared = total.min(u32::MAX as u64) as u32;
            }
        }
        if !p.set[i] {
            p.set[i] = true;
            p.unset -= 1;
        }
        Ok(())
    }

    /// clSetKernelArgSVMPointer / clSetKernelArgDevicePointerEXT: a raw address for a
    /// `__global` or `__constant` pointer argument, with the buffer holding it (buffers with
    /// fixed device addresses; None for SVM memory, which needs no migration).
    pub fn set_arg_pointer(&self, index: u32, addr: u64, mem: Option<&Arc<Cl<Mem>>>) -> CLResult<()> {
        let i = index as usize;
        let a = self.shape.info.args.get(i).ok_or(CL_INVALID_ARG_INDEX)?;
        if !matches!(a.kind, ArgKind::GlobalPtr | ArgKind::ConstantPtr) {
            return Err(CL_INVALID_ARG_INDEX);
        }
        let mut guard = lock(&self.params);
        let p = Arc::make_mut(&mut guard);
        let e = p.mems.get_mut(self.shape.mem_slot[i]).ok_or(CL_INVALID_ARG_INDEX)?;
        e.mem = mem.map(Arc::downgrade);
        e.raw = Some(addr);
        if !p.set[i] {
            p.set[i] = true;
            p.unset -= 1;
        }
        Ok(())
    }

    /// CL_KERNEL_EXEC_INFO_DEVICE_PTRS_EXT: the buffers reached indirectly (replacing the list).
    pub fn set_indirect(&self, mems: &[Arc<Cl<Mem>>]) {
        let mut guard = lock(&self.params);
        Arc::make_mut(&mut guard).indirect = mems.iter().map(Arc::downgrade).collect();
    }

    /// Static plus dynamic shared memory a launch on context device `dev` uses now.
    pub fn local_mem_size(&self, dev: usize) -> u64 {
        let s = self.shape.funcs.get(dev).and_then(|f| f.as_ref()).map(|f| f.static_shared).unwrap_or(0);
        s as u64 + lock(&self.params).dyn_shared as u64
    }
}

/// The geometry of one launch, after validation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    pub work_dim: u32,
    pub offset: [u64; 3],
    pub grid: [u32; 3],
    pub block: [u32; 3],
}

/// Sub-groups: warps of 32 work-items of consecutive linear local id (ptxgen's subgroups.cl,
/// which has the same numbers on the device side).
pub mod sub_groups {
    /// The sub-group size: a warp.
    pub const SIZE: u64 = 32;

    /// The sub-groups of a work-group of `items` work-items (the last one partial when 32 does
    /// not divide it).
    pub fn count(items: u64) -> u64 {
        items.div_ceil(SIZE)
    }

    /// The largest sub-group of a work-group of `items` work-items.
    pub fn max_size(items: u64) -> u64 {
        items.min(SIZE)
    }

    /// The N of a kernel's `intel_reqd_sub_group_size(N)`, read from its CL_KERNEL_ATTRIBUTES
    /// string (ptxgen writes the attribute there), or 0 without one.
    pub fn required_size(attributes: &str) -> u64 {
        const KEY: &str = "intel_reqd_sub_group_size(";
        attributes
            .split_whitespace()
            .find_map(|a| a.strip_prefix(KEY)?.strip_suffix(')')?.parse().ok())
            .unwrap_or(0)
    }

    /// CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT: a local size giving `wanted` sub-groups (`wanted`
    /// full warps in x), or zeros when no work-group of the kernel can have that many: more
    /// work-items than the kernel or dimension x takes, none wanted, or a required work-group
    /// size with another count.
    pub fn local_size_for_count(
        wanted: u64,
        max_threads: u64,
        max_x: u64,
        reqd: Option<[u32; 3]>,
    ) -> [u64; 3] {
        if let Some(r) = reqd {
            let items: u64 = r.iter().map(|&v| v as u64).product();
            return if wanted > 0 && count(items) == wanted { r.map(|v| v as u64) } else { [0; 3] };
        }
        match wanted.checked_mul(SIZE) {
            Some(items) if wanted > 0 && items <= max_threads && items <= max_x => [items, 1, 1],
            _ => [0; 3],
        }
    }
}

/// Largest divisor of `n` that is <= `cap` (>= 1).
pub fn largest_divisor_at_most(n: u64, cap: u64) -> u64 {
    let cap = cap.min(n).max(1);
    (1..=cap).rev().find(|d| n.is_multiple_of(*d)).unwrap_or(1)
}

/// Limits the local-size choice and the checks work with.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// The function's (and device's) max work-group size.
    pub max_threads: u64,
    pub max_item: [u64; 3],
    pub max_grid: [u64; 3],
    pub compute_units: u64,
}

/// A local size for `global` when the application gave none: divides the global size, fits
/// the limits, about 256 work-items, and enough groups to fill the GPU for large 1-D ranges.
pub fn choose_local(global: &[u64], l: &Limits) -> [u64; 3] {
    let mut local = [1u64; 3];
    let budget = l.max_threads.clamp(1, 256);
    match global.len() {
        1 => {
            let g = global[0];
            let mut cap = budget.min(l.max_item[0]).max(1);
            // Keep at least ~2 groups per compute unit when the range allows groups >= 32.
            let want_groups = 2 * l.compute_units.max(1);
            if g / cap < want_groups {
                cap = (g / want_groups).max(32).min(cap);
            }
            local[0] = largest_divisor_at_most(g, cap);
            // Group counts beyond the grid limit: take the largest divisor that fits.
            if g / local[0] > l.max_grid[0] {
                local[0] = largest_divisor_at_most(g, budget.min(l.max_item[0]));
            }
        }
        n => {
            let xcap = 16.max(budget / 16).min(l.max_item[0]).min(32);
            local[0] = largest_divisor_at_most(global[0], xcap);
            let rest = budget / local[0];
            local[1] = largest_divisor_at_most(global[1], rest.min(l.max_item[1]));
            if n == 3 {
                let rest = budget / (local[0] * local[1]);
                local[2] = largest_divisor_at_most(global[2], rest.min(l.max_item[2]));
            }
            // Fewer groups where the grid limit needs it.
            for d in 1..n {
                if global[d] / local[d] > l.max_grid[d] {
                    let cap = (l.max_threads
                        / local
                            .iter()
                            .enumerate()
                            .filter(|(j, _)| *j != d)
                            .map(|(_, v)| *v)
                            .product::<u64>())
                    .min(l.max_item[d]);
                    local[d] = largest_divisor_at_most(global[d], cap);
                }
            }
        }
    }
    local
}

/// Validates an NDRange (OpenCL 1.2's rules, and 2.1's empty ranges) and computes the CUDA grid.
pub fn geometry(
    work_dim: u32,
    offset: Option<&[usize]>,
    global: Option<&[usize]>,
    local: Option<&[usize]>,
    reqd: Option<[u32; 3]>,
    l: &Limits,
) -> CLResult<Geometry> {
    if !(1..=3).contains(&work_dim) {
        return Err(CL_INVALID_WORK_DIMENSION);
    }
    let n = work_dim as usize;
    let mut g = [0u64; 3];
    if let Some(global) = global {
        for d in 0..n {
            g[d] = global[d] as u64;
        }
    }
    if g[..n].contains(&0) {
        // OpenCL 2.1 and later (the device reports 3.0): a global size of 0, or none at all, is
        // a command that runs no work-item and completes once its wait list has (the CTS's api
        // zero_sized_enqueue passes NULL). A local size given must still be one the device takes.
        if let Some(lw) = local {
            let v: Vec<u64> = lw[..n].iter().map(|&x| x as u64).collect();
            if v.contains(&0) || v.iter().product::<u64>() > l.max_threads {
                return Err(CL_INVALID_WORK_GROUP_SIZE);
            }
            if v.iter().zip(&l.max_item).any(|(size, max)| size > max) {
                return Err(CL_INVALID_WORK_ITEM_SIZE);
            }
        }
        return Ok(Geometry { work_dim, offset: [0; 3], grid: [0; 3], block: [1; 3] });
    }
    // Dimensions beyond work_dim count one work-item.
    g[n..].fill(1);
    // The work-items must be countable in a size_t: 2^33 x 2^33 is not an NDRange any device
    // could finish, and get_global_id's arithmetic would wrap.
    if g[..n].iter().try_fold(1u64, |total, &d| total.checked_mul(d)).is_none() {
        return Err(CL_INVALID_GLOBAL_WORK_SIZE);
    }
    let mut off = [0u64; 3];
    if let Some(o) = offset {
        for d in 0..n {
            off[d] = o[d] as u64;
            if o[d].checked_add(g[d] as usize).is_none() {
                return Err(CL_INVALID_GLOBAL_OFFSET);
            }
        }
    }
    let loc = match local {
        Some(lw) => {
            let mut v = [1u64; 3];
            for d in 0..n {
                v[d] = lw[d] as u64;
                if v[d] == 0 {
                    return Err(CL_INVALID_WORK_GROUP_SIZE);
                }
            }
            v
        }
        // OpenCL 1.2 (and NVIDIA's OpenCL on the H100): a kernel declared with
        // reqd_work_group_size must be given that size. The CTS's null_required_work_group_size
        // wants OpenCL 2.0's reading (NULL runs with the required size); NVIDIA fails it too.
        None if reqd.is_some() => return Err(CL_INVALID_WORK_GROUP_SIZE),
        None => choose_local(&g[..n], l),
    };
    if let Some(r) = reqd {
        for d in 0..3 {
            if loc[d] != r[d] as u64 {
                return Err(CL_INVALID_WORK_GROUP_SIZE);
            }
        }
    }
    for d in 0..n {
        if g[d] % loc[d] != 0 {
            return Err(CL_INVALID_WORK_GROUP_SIZE);
        }
    }
    if loc[0].saturating_mul(loc[1]).saturating_mul(loc[2]) > l.max_threads {
        return Err(CL_INVALID_WORK_GROUP_SIZE);
    }
    if loc.iter().zip(&l.max_item).any(|(size, max)| size > max) {
        return Err(CL_INVALID_WORK_ITEM_SIZE);
    }
    let mut grid = [1u32; 3];
    for d in 0..n {
        let groups = g[d] / loc[d];
        // x: CUDA's grid limit (2^31 - 1). y and z: any count the kernel's 32-bit group numbers
        // hold; beyond CUDA's limit there (65535) the launch is issued in pieces (Launch::run).
        let cap = if d == 0 { l.max_grid[0] } else { i32::MAX as u64 };
        if groups > cap {
            return Err(CL_INVALID_GLOBAL_WORK_SIZE);
        }
        grid[d] = groups as u32;
    }
    Ok(Geometry { work_dim, offset: off, grid, block: [loc[0] as u32, loc[1] as u32, loc[2] as u32] })
}

impl Kernel {
    /// `geometry` for a launch on context device `dev`, remembering the local size chosen for a
    /// NULL local_work_size (finding one can take a few hundred divisions).
    pub fn geometry(
        &self,
        dev: usize,
        f: &DeviceFunc,
        work_dim: u32,
        offset: Option<&[usize]>,
        global: Option<&[usize]>,
        local: Option<&[usize]>,
    ) -> CLResult<Geometry> {
        let limits = self.limits(dev, f);
        let reqd = self.shape.info.reqd_work_group_size;
        let (Some(g), None, 1..=3) = (global, local, work_dim) else {
            return geometry(work_dim, offset, global, local, reqd, &limits);
        };
        let n = work_dim as usize;
        let mut key = [1usize; 3];
        key[..n].copy_from_slice(&g[..n]);
        let cached = *lock(&self.shape.chosen);
        if let Some(c) = cached {
            if c.dev == dev && c.work_dim == work_dim && c.global == key {
                return geometry(work_dim, offset, global, Some(&c.local[..n]), reqd, &limits);
            }
        }
        let geo = geometry(work_dim, offset, global, None, reqd, &limits)?;
        let l = [geo.block[0] as usize, geo.block[1] as usize, geo.block[2] as usize];
        *lock(&self.shape.chosen) = Some(ChosenLocal { dev, work_dim, global: key, local: l });
        Ok(geo)
    }

    pub fn limits(&self, dev: usize, f: &DeviceFunc) -> Limits {
        let d = &self.program.context.devices[dev];
        Limits {
            max_threads: f.max_threads as u64,
            max_item: [
                d.max_work_item_sizes[0] as u64,
                d.max_work_item_sizes[1] as u64,
                d.max_work_item_sizes[2] as u64,
            ],
            max_grid: [d.max_grid[0].max(1), d.max_grid[1].max(1), d.max_grid[2].max(1)],
            compute_units: d.compute_units as u64,
        }
    }
}

/// A launch ready to be issued on a queue's stream.
pub struct Launch {
    pub kernel: Arc<Cl<Kernel>>,
    pub params: Arc<Params>,
    /// `params.bind()`: the memory objects, per pointer argument.
    pub mems: BoundMems,
    /// `params.indirect`, held (released ones dropped).
    pub indirect: Vec<Arc<Cl<Mem>>>,
    pub dev: usize,
    pub geo: Geometry,
}

fn launch_error(e: crate::cuda::CudaError) -> cl_int {
    match e.0 {
        CUresult::CUDA_ERROR_OUT_OF_MEMORY => CL_MEM_OBJECT_ALLOCATION_FAILURE,
        CUresult::CUDA_ERROR_INVALID_VALUE => CL_INVALID_WORK_GROUP_SIZE,
        _ => CL_OUT_OF_RESOURCES,
    }
}

impl Launch {
    /// A launch of `kernel` with its bound arguments on device `dev` of the context, checked
    /// against what depends on the arguments (shared memory).
    pub fn new(
        kernel: Arc<Cl<Kernel>>,
        params: Arc<Params>,
        mems: BoundMems,
        indirect: Vec<Arc<Cl<Mem>>>,
        dev: usize,
        geo: Geometry,
    ) -> CLResult<Launch> {
        let launch = Launch { kernel, params, mems, indirect, dev, geo };
        launch.check()?;
        Ok(launch)
    }

    /// Checks what depends on the arguments (shared memory) before enqueueing.
    fn check(&self) -> CLResult<()> {
        let f = self.kernel.shape.funcs[self.dev].as_ref().ok_or(CL_INVALID_PROGRAM_EXECUTABLE)?;
        let d = &self.kernel.program.context.devices[self.dev];
        if f.static_shared as u64 + self.params.dyn_shared as u64 > d.local_mem {
            return Err(CL_OUT_OF_RESOURCES);
        }
        Ok(())
    }

    /// Issues the launch on `q`'s stream (the queue's context is current).
    pub fn run(&self, q: &Queue) -> CLResult<()> {
        let f = self.kernel.shape.funcs[self.dev].as_ref().ok_or(CL_INVALID_PROGRAM_EXECUTABLE)?;
        let n = self.params.bytes.len();
        // Most kernels take a few words: a small stack buffer then, 4 KiB up to that, and the
        // heap above (16-byte aligned like the stack buffers: u128 words).
        if n <= SMALL_PARAMS {
            let mut buf = ParamBuf([0u8; SMALL_PARAMS]);
            self.run_with(q, f, &mut buf.0[..n])
        } else if n <= STACK_PARAMS {
            let mut buf = ParamBuf([0u8; STACK_PARAMS]);
            self.run_with(q, f, &mut buf.0[..n])
        } else {
            let mut words = vec![0u128; n.div_ceil(16)];
            // SAFETY: the u128 buffer spans at least n bytes; any byte pattern is a valid u8.
            let bytes = unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr().cast::<u8>(), n) };
            self.run_with(q, f, bytes)
        }
    }

    fn run_with(&self, q: &Queue, f: &DeviceFunc, params: &mut [u8]) -> CLResult<()> {
        let p = &*self.params;
        params.copy_from_slice(&p.bytes);
        let mut note_after = false;
        for (arg, m) in p.mems.iter().zip(self.mems.iter()) {
            let ptr = match m {
                Some(m) => {
                    let (ptr, later) = m.kernel_arg_ptr(q, arg.constant)?;
                    note_after |= later;
                    ptr
                }
                None => 0,
            };
            let ptr = arg.raw.unwrap_or(ptr);
            let o = arg.offset as usize;
            if let Some(s) = params.get_mut(o..o + 8) {
                s.copy_from_slice(&ptr.to_le_bytes());
            }
        }
        for m in &self.indirect {
            note_after |= m.kernel_arg_ptr(q, false)?.1;
        }
        if let Some(o) = self.kernel.shape.goff {
            let o = o as usize;
            for d in 0..3 {
                if let Some(s) = params.get_mut(o + 8 * d..o + 8 * d + 8) {
                    s.copy_from_slice(&self.geo.offset[d].to_le_bytes());
                }
            }
        }
        if let Some(o) = self.kernel.shape.wdim {
            let o = o as usize;
            if let Some(s) = params.get_mut(o..o + 4) {
                s.copy_from_slice(&self.geo.work_dim.to_le_bytes());
            }
        }
        let shared = p.dyn_shared;
        if f.dyn_shared_optin.load(Ordering::Relaxed) < shared as i32 {
            f.func.set_max_dynamic_shared(shared as i32).map_err(|_| CL_OUT_OF_RESOURCES)?;
            f.dyn_shared_optin.fetch_max(shared as i32, Ordering::Relaxed);
        }
        // More groups in y or z than CUDA's grid takes: pieces of at most that many, in stream
        // order, each told its first group and the NDRange's group counts (the kernel's
        // get_group_id, get_num_groups, get_global_size and get_global_id count from those).
        let max = &self.kernel.program.context.devices[self.dev].max_grid;
        let limit = |d: usize| max[d].clamp(1, u32::MAX as u64) as u32;
        let grid = self.geo.grid;
        let mut z0 = 0;
        while z0 < grid[2] {
            let gz = (grid[2] - z0).min(limit(2));
            let mut y0 = 0;
            while y0 < grid[1] {
                let gy = (grid[1] - y0).min(limit(1));
                if let Some(o) = self.kernel.shape.groups {
                    let words = [0, y0, z0, grid[0], grid[1], grid[2]];
                    for (i, w) in words.iter().enumerate() {
                        let at = o as usize + 4 * i;
                        if let Some(s) = params.get_mut(at..at + 4) {
                            s.copy_from_slice(&w.to_le_bytes());
                        }
                    }
                }
                f.func
                    .launch(&q.stream, [grid[0], gy, gz], self.geo.block, shared, params)
                    .map_err(launch_error)?;
                y0 += gy;
            }
            z0 += gz;
        }
        // Multi-device contexts: what the kernel may have written is recorded after the launch
        // (__constant buffers are not written by the kernel).
        if note_after {
            for (arg, m) in p.mems.iter().zip(self.mems.iter()) {
                if let (false, Some(m)) = (arg.constant, m) {
                    m.note_device_write(q);
                }
            }
            for m in &self.indirect {
                m.note_device_write(q);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod sub_group_tests {
    use super::sub_groups::*;

    #[test]
    fn warps_of_the_linear_local_id() {
        assert_eq!((count(32), max_size(32)), (1, 32));
        assert_eq!((count(48), max_size(48)), (2, 32));
        assert_eq!((count(100), max_size(100)), (4, 32));
        assert_eq!((count(7), max_size(7)), (1, 7));
        assert_eq!(count(1024), 32);
        assert_eq!(local_size_for_count(3, 1024, 1024, None), [96, 1, 1]);
        assert_eq!(local_size_for_count(33, 1024, 1024, None), [0; 3]);
        assert_eq!(local_size_for_count(0, 1024, 1024, None), [0; 3]);
        assert_eq!(local_size_for_count(8, 1024, 128, None), [0; 3]);
        assert_eq!(local_size_for_count(u64::MAX, 1024, 1024, None), [0; 3]);
        assert_eq!(local_size_for_count(2, 1024, 1024, Some([6, 7, 1])), [6, 7, 1]);
        assert_eq!(local_size_for_count(1, 1024, 1024, Some([6, 7, 1])), [0; 3]);
        assert_eq!(required_size("reqd_work_group_size(64,1,1) intel_reqd_sub_group_size(32)"), 32);
        assert_eq!(required_size("vec_type_hint(float4)"), 0);
        assert_eq!(required_size(""), 0);
    }
}
