//! Buffers and the data movement behind them.
//!
//! A buffer's data can live in several places at once: a host copy (the application's memory
//! for CL_MEM_USE_HOST_PTR, pinned memory for CL_MEM_ALLOC_HOST_PTR or a pinned mirror made for
//! maps and multi-device contexts) and one allocation per device of the context. Which of them
//! hold the latest data is `coherence.rs`'s protocol, shared with images; a buffer brings its
//! data to a device with `State::ensure_valid` and marks a change with `State::written`. On
//! integrated GPUs, host-backed buffers are zero-copy: the device's "copy" is the host memory
//! itself (an alias), whose validity always equals the host's.
//!
//! Sub-buffers share their parent's `Storage` (validity is tracked for the whole allocation).
//! All work is issued on the queue's stream at submission time, in queue order; pageable host
//! memory goes through a pipelined set of pinned staging chunks (see `htod_on` / `dtoh_on`).
//! The transfers themselves (staging, pipelining) are in `transfer`.
use super::coherence::{bit, Coherence, Copies, ALL, HOST, MAX_DEVICES};
use super::context::Context;
use super::device::Device;
use super::fill::{fill_on, reduce_pattern};
use super::image::Image;
use super::par_copy::par_copy;
use super::queue::Queue;
use super::rect::{copy_rect, End, Pitched};
use super::transfer::{aux, dtoh_on, dtoh_small_sync, htod_on, SMALL_READ};
use crate::base::entry::{lock, CLResult};
use crate::base::handle::Cl;
use crate::cl::*;
use crate::cuda::context::PrimaryContext;
use crate::cuda::memory::{self as cm, DeviceAlloc, DevicePtr, HostRegistration, PinnedAlloc};
use std::any::Any;
use std::ffi::c_void;
use std::mem::ManuallyDrop;
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

pub type DestructorFn = unsafe extern "C" fn(cl_mem, *mut c_void);

/// CL_DEVICE_MEM_BASE_ADDR_ALIGN (2048 bits) in bytes: sub-buffer origins must be multiples.
/// cuMemAlloc guarantees 256-byte alignment, so a sub-buffer's device pointer keeps it; piglit's
/// clGetMemObjectInfo test makes a sub-buffer at byte 256 and fails on anything coarser.
pub const BASE_ADDR_ALIGN: usize = 256;
/// Buffers up to this size are read in whole by a map of part of them (see `map`).
const SMALL_WHOLE_MAP: usize = 64 << 10;
/// CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE: host memory used in place by kernels must be this aligned.
const MIN_ALIGN: usize = 128;

/// Host memory backing a buffer.
enum HostMem {
    /// The application's memory (CL_MEM_USE_HOST_PTR), page-locked in place when the driver
    /// allowed it.
    App { ptr: usize, reg: Option<HostRegistration> },
    /// Pinned memory of ours (CL_MEM_ALLOC_HOST_PTR, or a mirror).
    Pinned(PinnedAlloc),
    /// CL_MEM_USE_HOST_PTR with a pointer into a clSVMAlloc allocation: memory every device
    /// addresses at the same pointer, used in place by all of them (CL_MEM_USES_SVM_POINTER).
    Svm { ptr: usize },
}

impl HostMem {
    fn ptr(&self) -> *mut u8 {
        match self {
            HostMem::App { ptr, .. } | HostMem::Svm { ptr } => *ptr as *mut u8,
            HostMem::Pinned(p) => p.host.cast(),
        }
    }

    /// Its device address when the device can use it in place (page-locked and mapped).
    fn device_ptr(&self) -> Option<DevicePtr> {
        match self {
            HostMem::App { reg: Some(r), .. } => r.device_ptr().ok(),
            HostMem::App { reg: None, .. } => None,
            HostMem::Svm { ptr } => Some(*ptr as DevicePtr),
            HostMem::Pinned(p) => p.device_ptr().ok(),
        }
    }
}

/// A device's copy.
enum DevMem {
    Own(DeviceAlloc),
    /// Zero-copy: the host memory, as the device addresses it.
    Alias(DevicePtr),
}

impl DevMem {
    fn ptr(&self) -> DevicePtr {
        match self {
            DevMem::Own(a) => a.ptr,
            DevMem::Alias(p) => *p,
        }
    }
}

struct State {
    host: Option<HostMem>,
    dev: Vec<Option<DevMem>>,
    /// Which copies hold the latest data.
    coh: Coherence,
    /// `Storage::fast`, kept up to date with `coh` and `dev` (`refresh_fast`).
    fast: Arc<AtomicU64>,
}

/// A buffer's copies, as the coherence protocol moves them: all `size` bytes at once.
struct BufferCopies<'a> {
    host: &'a Option<HostMem>,
    dev: &'a [Option<DevMem>],
    size: usize,
}

impl Copies for BufferCopies<'_> {
    fn has_host(&self) -> bool {
        self.host.is_some()
    }

    fn has_device(&self, j: usize) -> bool {
        dev_ptr(self.dev, j).is_some()
    }

    fn aliases(&self) -> u64 {
        alias_bits(self.dev)
    }

    fn host_to_device(&self, q: &Queue) -> CLResult<()> {
        let dst = dev_ptr(self.dev, q.dev).ok_or(CL_OUT_OF_RESOURCES)?;
        match self.host {
            // SAFETY: the buffer's own host copy (`size` bytes), alive as long as the buffer.
            Some(h) => unsafe { htod_on(&q.stream, &q.cuda, dst, h.ptr(), self.size) },
            None => Ok(()),
        }
    }

    fn device_to_device(&self, q: &Queue, j: usize) -> CLResult<()> {
        let dst = dev_ptr(self.dev, q.dev).ok_or(CL_OUT_OF_RESOURCES)?;
        copy_between_devices(self.dev, q, j, dst, 0, self.size)
    }
}

fn dev_ptr(dev: &[Option<DevMem>], i: usize) -> Option<DevicePtr> {
    dev.get(i).and_then(|d| d.as_ref()).map(DevMem::ptr)
}

/// The devices whose copy is the host memory itself.
fn alias_bits(dev: &[Option<DevMem>]) -> u64 {
    dev.iter()
        .enumerate()
        .filter(|(_, d)| matches!(d, Some(DevMem::Alias(_))))
        .fold(0, |b, (i, _)| b | bit(i))
}

/// Copies [off, off+len) of device j's copy to the same range at `dst_base` (an allocation in
/// q's context), on q's stream.
fn copy_between_devices(
    dev: &[Option<DevMem>],
    q: &Queue,
    j: usize,
    dst_base: DevicePtr,
    off: usize,
    len: usize,
) -> CLResult<()> {
    let src = dev_ptr(dev, j).ok_or(CL_OUT_OF_RESOURCES)? + off as DevicePtr;
    copy_from_device(q, j, src, dst_base + off as DevicePtr, len)
}

/// Copies `len` bytes at `src` (memory of the context's device j) to `dst` (memory of q's
/// device), on q's stream: peer to peer between two devices (cuda/peer.rs).
fn copy_from_device(q: &Queue, j: usize, src: DevicePtr, dst: DevicePtr, len: usize) -> CLResult<()> {
    if len == 0 {
        return Ok(());
    }
    let src_ctx = q.context.cuda.get(j).ok_or(CL_OUT_OF_RESOURCES)?;
    if Arc::ptr_eq(src_ctx, &q.cuda) {
        Ok(cm::copy_dtod(&q.stream, dst, src, len)?)
    } else {
        // SAFETY: both are the context's own live CUDA contexts, which own the allocations.
        Ok(unsafe { cm::copy_peer(&q.stream, dst, q.cuda.ctx, src, src_ctx.ctx, len) }?)
    }
}

/// The allocation a buffer and its sub-buffers share.
pub struct Storage {
    size: usize,
    multi: bool,
    state: Mutex<State>,
    /// What a kernel launch may use without taking the lock, in single-device contexts: the
    /// device copy's address when it is allocated (not a zero-copy alias) and holds the latest
    /// data, with bit 0 set when it is the only copy that does (a kernel writing it changes
    /// nothing then); 0 otherwise.
    fast: Arc<AtomicU64>,
    /// The context's CUDA contexts (device order), current while the memory is freed.
    ctxs: Vec<Arc<PrimaryContext>>,
    /// cl_ext_buffer_device_address: allocated on every device of the context at creation, so
    /// each device's address is fixed for the buffer's life (device copies are never moved or
    /// freed before the storage goes) and can be queried.
    fixed: std::sync::atomic::AtomicBool,
}

impl Drop for Storage {
    fn drop(&mut self) {
        // This may run inside a command's submission on another context's stream.
        let ctxs = &self.ctxs;
        let st = self.state.get_mut().unwrap_or_else(|e| e.into_inner());
        crate::cuda::current::preserving_current_context(|| Storage::release(st, ctxs));
    }
}

impl Storage {
    fn release(st: &mut State, ctxs: &[Arc<PrimaryContext>]) {
        for (i, d) in st.dev.iter_mut().enumerate() {
            if let (Some(_), Some(c)) = (d.as_ref(), ctxs.get(i)) {
                let _ = c.make_current();
                *d = None;
            }
        }
        if let Some(c) = ctxs.first() {
            let _ = c.make_current();
            if matches!(st.host, Some(HostMem::App { reg: Some(_), .. })) {
                // The application may free or reuse its memory once the destructor callbacks
                // ran: no copy engine may still be using it when the registration goes.
                for c in ctxs {
                    if c.make_current().is_ok() {
                        let _ = cm::synchronize_current();
                    }
                }
            }
        }
        st.host = None;
    }
}

impl State {
    /// Sets the valid copies, keeping the aliases of the host memory in step with it.
    fn set_valid(&mut self, v: u64) {
        self.coh.set(v, alias_bits(&self.dev));
        self.refresh_fast();
    }

    /// Publishes `Storage::fast` after the valid set or `dev` changed.
    fn refresh_fast(&self) {
        let v = self.coh.valid();
        let f = match self.dev.as_slice() {
            [Some(DevMem::Own(a))] if v & bit(0) != 0 => a.ptr | (v == bit(0)) as u64,
            _ => 0,
        };
        self.fast.store(f, Ordering::Release);
    }

    fn is_alias(&self, i: usize) -> bool {
        matches!(self.dev.get(i), Some(Some(DevMem::Alias(_))))
    }

    fn dev_ptr(&self, i: usize) -> Option<DevicePtr> {
        dev_ptr(&self.dev, i)
    }

    /// Allocates device `i`'s copy (its CUDA context must be current).
    fn alloc(&mut self, i: usize, device: &Device, size: usize) -> CLResult<DevicePtr> {
        if let Some(p) = self.dev_ptr(i) {
            return Ok(p);
        }
        // Zero-copy only for memory aligned as kernels expect (CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE):
        // vector loads from a misaligned CL_MEM_USE_HOST_PTR pointer would fault.
        let alias = match &self.host {
            Some(h @ HostMem::Svm { .. }) => h.device_ptr(),
            Some(h) if device.integrated && (h.ptr() as usize).is_multiple_of(MIN_ALIGN) => h.device_ptr(),
            _ => None,
        };
        let m = match alias {
            Some(p) => DevMem::Alias(p),
            None => DevMem::Own(DeviceAlloc::new(size).map_err(|e| e.alloc_code())?),
        };
        let p = m.ptr();
        let is_alias = matches!(m, DevMem::Alias(_));
        if let Some(slot) = self.dev.get_mut(i) {
            *slot = Some(m);
        } else {
            return Err(CL_INVALID_DEVICE);
        }
        if is_alias {
            // The host memory's validity, whatever the device's was.
            let v = self.coh.valid() & !bit(i);
            self.set_valid(v);
        }
        self.refresh_fast();
        Ok(p)
    }

    /// Makes the copy on q's device valid, issuing the copy on q's stream; returns its base.
    fn ensure_valid(&mut self, q: &Queue, size: usize) -> CLResult<DevicePtr> {
        let dst = self.alloc(q.dev, &q.device, size)?;
        let copies = BufferCopies { host: &self.host, dev: &self.dev, size };
        self.coh.ensure(q, &copies, self.dev.len())?;
        self.refresh_fast();
        Ok(dst)
    }

    /// Where a command on q that only reads this buffer finds its data: (base address, device
    /// index). In a multi-device context where q's device has no valid copy but another device
    /// has (and the host has not), that device's copy is read in place, so a copy command moves
    /// only the bytes it copies, once, device to device; otherwise q's own copy, made valid.
    fn read_source(&mut self, q: &Queue, size: usize) -> CLResult<(DevicePtr, usize)> {
        if !self.coh.valid_on(q.dev) && !self.coh.host_valid() {
            if let Some(j) = self.valid_device().filter(|&j| !self.is_alias(j)) {
                let base = self.dev_ptr(j).ok_or(CL_OUT_OF_RESOURCES)?;
                self.coh.wait_last(q)?;
                return Ok((base, j));
            }
        }
        Ok((self.ensure_valid(q, size)?, q.dev))
    }

    /// A device whose copy is valid.
    fn valid_device(&self) -> Option<usize> {
        let copies = BufferCopies { host: &self.host, dev: &self.dev, size: 0 };
        self.coh.valid_device(&copies, self.dev.len())
    }

    /// A command on q changed the copy on q's device: it is now the only valid one.
    fn written(&mut self, q: &Queue) {
        self.coh.written(q, alias_bits(&self.dev));
        self.refresh_fast();
    }
}

impl Storage {
    /// The allocation of a new buffer: host memory per the flags, device memory at once in a
    /// single-device context (so allocation failures surface at clCreateBuffer), and the
    /// application's data uploaded before returning.
    ///
    /// # Safety
    /// With CL_MEM_USE_HOST_PTR or CL_MEM_COPY_HOST_PTR, `host_ptr` has `size` bytes (writable
    /// too with USE_HOST_PTR) that, with USE_HOST_PTR, stay allocated while the buffer lives.
    unsafe fn new(
        context: &Context,
        flags: cl_mem_flags,
        size: usize,
        host_ptr: *mut c_void,
    ) -> CLResult<Storage> {
        let n = context.devices.len();
        if n == 0 || n > MAX_DEVICES {
            return Err(CL_OUT_OF_RESOURCES);
        }
        let multi = n > 1;
        let f = |b: u32| flags & b as cl_mem_flags != 0;
        let (use_ptr, alloc_ptr, copy_ptr) =
            (f(CL_MEM_USE_HOST_PTR), f(CL_MEM_ALLOC_HOST_PTR), f(CL_MEM_COPY_HOST_PTR));
        let cuda0 = context.cuda.first().ok_or(CL_OUT_OF_RESOURCES)?;
        cuda0.make_current()?;
        // OpenCL 2.0: USE_HOST_PTR with a pointer clSVMAlloc returned and more bytes than that
        // allocation has is CL_INVALID_BUFFER_SIZE.
        if use_ptr
            && context.svm_at(host_ptr as usize, 0).is_some()
            && context.svm_at(host_ptr as usize, size).is_none()
        {
            return Err(CL_INVALID_BUFFER_SIZE);
        }
        let svm = use_ptr && context.svm_at(host_ptr as usize, size).is_some();
        let host = if svm {
            Some(HostMem::Svm { ptr: host_ptr as usize })
        } else if use_ptr {
            let reg = if context.devices.iter().any(|d| d.host_register) {
                // SAFETY: the application's `size` bytes live as long as the buffer (contract).
                unsafe { HostRegistration::new(host_ptr, size) }.ok()
            } else {
                None
            };
            Some(HostMem::App { ptr: host_ptr as usize, reg })
        } else if alloc_ptr || (copy_ptr && multi) {
            let p = PinnedAlloc::new(size).map_err(|e| e.alloc_code())?;
            if copy_ptr {
                // SAFETY: host_ptr has `size` readable bytes (API contract), p has `size` bytes.
                unsafe { par_copy(0, p.host.cast(), host_ptr as *const u8, size) };
            }
            Some(HostMem::Pinned(p))
        } else {
            None
        };
        let has_data = use_ptr || copy_ptr;
        let mut st = State {
            host,
            dev: (0..n).map(|_| None).collect(),
            coh: Coherence::new(if has_data { HOST } else { ALL }, multi),
            fast: Arc::new(AtomicU64::new(0)),
        };
        if !multi {
            let device = context.devices.first().ok_or(CL_OUT_OF_RESOURCES)?;
            let dst = st.alloc(0, device, size)?;
            if has_data && !st.is_alias(0) {
                let aux = aux(cuda0)?;
                let src = match &st.host {
                    Some(h) => h.ptr() as *const u8,
                    None => host_ptr as *const u8,
                };
                // SAFETY: `size` readable bytes (contract, or our pinned copy), read before the
                // stream synchronisation below returns.
                unsafe { htod_on(&aux.stream, cuda0, dst, src, size) }?;
                aux.stream.synchronize()?;
                st.coh.set(bit(0) | if st.host.is_some() { HOST } else { 0 }, 0);
                st.refresh_fast();
            }
        }
        let fast = st.fast.clone();
        Ok(Storage {
            size,
            multi,
            state: Mutex::new(st),
            fast,
            ctxs: context.cuda.clone(),
            fixed: Default::default(),
        })
    }

    /// The storage of an image kept in CUDA arrays: no buffer memory at all (buffer commands
    /// refuse images before they reach it).
    fn placeholder(context: &Context) -> Storage {
        let n = context.devices.len();
        let st = State {
            host: None,
            dev: (0..n).map(|_| None).collect(),
            coh: Coherence::new(ALL, n > 1),
            fast: Arc::new(AtomicU64::new(0)),
        };
        let fast = st.fast.clone();
        Storage {
            size: 0,
            multi: n > 1,
            state: Mutex::new(st),
            fast,
            ctxs: context.cuda.clone(),
            fixed: Default::default(),
        }
    }
}

/// One mapping of a buffer, from clEnqueueMapBuffer to clEnqueueUnmapMemObject.
struct Mapping {
    ptr: usize,
    /// Relative to the root allocation.
    offset: usize,
    len: usize,
    write: bool,
}

pub struct Mem {
    pub context: Arc<Cl<Context>>,
    /// As given at creation (CL_MEM_READ_WRITE added when no access flag was), or inherited.
    pub flags: cl_mem_flags,
    pub size: usize,
    /// Sub-buffers: the origin in the parent.
    pub offset: usize,
    pub parent: Option<Arc<Cl<Mem>>>,
    /// CL_MEM_HOST_PTR: the application's pointer (CL_MEM_USE_HOST_PTR), origin included.
    pub host_ptr: usize,
    storage: ManuallyDrop<Arc<Storage>>,
    maps: Mutex<Vec<Mapping>>,
    map_count: AtomicU32,
    destructors: Mutex<Vec<(DestructorFn, usize)>>,
    /// CL_MEM_PROPERTIES: the list given to clCreate{Buffer,Image}WithProperties with its 0,
    /// unset for a NULL list and for the other creation calls.
    pub properties: OnceLock<Vec<cl_mem_properties>>,
    /// The handle, for destructor callbacks.
    handle: AtomicUsize,
    /// Images: the image (a cl_mem is one handle type, so an image is a `Mem` with this set).
    /// An image1d_buffer shares its buffer's storage (like a sub-buffer); other images keep
    /// their pixels in CUDA arrays (`Image`) and have an empty placeholder storage.
    pub image: Option<Box<Image>>,
}
crate::cl_object!(Mem, cl_mem, CL_INVALID_MEM_OBJECT);

impl Drop for Mem {
    fn drop(&mut self) {
        // The memory is released first: the callbacks may free or reuse host_ptr.
        drop(self.image.take());
        // SAFETY: dropped exactly once, here, and never used afterwards.
        unsafe { ManuallyDrop::drop(&mut self.storage) };
        let h = self.handle.load(Ordering::Acquire) as cl_mem;
        let cbs = std::mem::take(&mut *lock(&self.destructors));
        for (f, data) in cbs.into_iter().rev() {
            // SAFETY: the application's callback with its own data.
            unsafe { f(h, data as *mut c_void) };
        }
    }
}

/// The host access flags an enqueue checks (CL_INVALID_OPERATION when violated).
pub const HOST_READ: u32 = 1;
pub const HOST_WRITE: u32 = 2;

impl Mem {
    /// clCreateBuffer, after argument checks.
    ///
    /// # Safety
    /// `host_ptr` as `Storage::new` requires for `flags`.
    pub unsafe fn new_buffer(
        context: Arc<Cl<Context>>,
        flags: cl_mem_flags,
        size: usize,
        host_ptr: *mut c_void,
    ) -> CLResult<Arc<Cl<Mem>>> {
        // SAFETY: this function's contract.
        let storage = unsafe { Storage::new(&context, flags, size, host_ptr) }?;
        let use_ptr = flags & CL_MEM_USE_HOST_PTR as cl_mem_flags != 0;
        let mem = Mem {
            context,
            flags,
            size,
            offset: 0,
            parent: None,
            host_ptr: if use_ptr { host_ptr as usize } else { 0 },
            storage: ManuallyDrop::new(Arc::new(storage)),
            maps: Mutex::new(Vec::new()),
            map_count: AtomicU32::new(0),
            destructors: Mutex::new(Vec::new()),
            properties: OnceLock::new(),
            handle: AtomicUsize::new(0),
            image: None,
        };
        Ok(Mem::publish(mem))
    }

    /// clCreateSubBuffer, after argument checks.
    pub fn new_sub(parent: &Arc<Cl<Mem>>, flags: cl_mem_flags, origin: usize, size: usize) -> Arc<Cl<Mem>> {
        let mem = Mem {
            context: parent.context.clone(),
            flags,
            size,
            offset: origin,
            parent: Some(parent.clone()),
            host_ptr: if parent.host_ptr != 0 { parent.host_ptr + origin } else { 0 },
            storage: ManuallyDrop::new(Arc::clone(&parent.storage)),
            maps: Mutex::new(Vec::new()),
            map_count: AtomicU32::new(0),
            destructors: Mutex::new(Vec::new()),
            properties: OnceLock::new(),
            handle: AtomicUsize::new(0),
            image: None,
        };
        Mem::publish(mem)
    }

    /// An image object: `buffer` for an image1d_buffer (whose storage it shares), else the
    /// pixels live in `image`'s arrays.
    pub fn new_image(
        context: Arc<Cl<Context>>,
        flags: cl_mem_flags,
        size: usize,
        host_ptr: usize,
        buffer: Option<&Arc<Cl<Mem>>>,
        image: Image,
    ) -> Arc<Cl<Mem>> {
        let storage = match buffer {
            Some(b) => Arc::clone(&b.storage),
            None => Arc::new(Storage::placeholder(&context)),
        };
        let mem = Mem {
            context,
            flags,
            size,
            offset: buffer.map_or(0, |b| b.offset),
            parent: buffer.cloned(),
            host_ptr,
            storage: ManuallyDrop::new(storage),
            maps: Mutex::new(Vec::new()),
            map_count: AtomicU32::new(0),
            destructors: Mutex::new(Vec::new()),
            properties: OnceLock::new(),
            handle: AtomicUsize::new(0),
            image: Some(Box::new(image)),
        };
        Mem::publish(mem)
    }

    /// cl_ext_buffer_device_address (CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT): allocates the buffer on
    /// every device of its context now (a single-device context already has), so that each
    /// device's address is fixed from here on, and marks it so.
    pub fn fix_device_addresses(&self) -> CLResult<()> {
        let ctx = &self.context;
        let mut st = lock(&self.storage.state);
        let size = self.storage.size;
        let r = crate::cuda::current::preserving_current_context(|| -> CLResult<()> {
            for (i, (d, c)) in ctx.devices.iter().zip(&ctx.cuda).enumerate() {
                if st.dev_ptr(i).is_none() {
                    c.make_current()?;
                    st.alloc(i, d, size)?;
                }
            }
            Ok(())
        });
        r?;
        self.storage.fixed.store(true, Ordering::Release);
        Ok(())
    }

    /// CL_MEM_DEVICE_ADDRESS_EXT: the buffer's address on each device of the context (sub-buffer
    /// origin included), or None when it was not created with CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT
    /// (nor is a sub-buffer of one).
    pub fn device_addresses(&self) -> Option<Vec<DevicePtr>> {
        if self.image.is_some() || !self.storage.fixed.load(Ordering::Acquire) {
            return None;
        }
        let st = lock(&self.storage.state);
        (0..self.context.devices.len()).map(|i| st.dev_ptr(i).map(|p| p + self.offset as DevicePtr)).collect()
    }

    /// CL_MEM_USES_SVM_POINTER: made with CL_MEM_USE_HOST_PTR on SVM memory (or a sub-buffer of
    /// such a buffer).
    pub fn uses_svm_pointer(&self) -> bool {
        self.image.is_none() && matches!(lock(&self.storage.state).host, Some(HostMem::Svm { .. }))
    }

    /// Whether [addr, addr + len) lies inside this buffer's fixed allocation on some device.
    pub fn holds_device_range(&self, addr: DevicePtr, len: u64) -> bool {
        self.device_addresses().is_some_and(|v| {
            v.iter()
                .any(|&b| addr >= b && addr.checked_add(len).is_some_and(|e| e <= b + self.size as DevicePtr))
        })
    }

    /// The image kept in CUDA arrays (None for buffers and image1d_buffer images).
    pub fn array_image(&self) -> Option<&Image> {
        self.image.as_deref().filter(|i| i.has_arrays())
    }

    /// Counts a mapping made (or, `up` false, undone) outside `map`/`unmap` (image maps).
    pub fn count_map(&self, up: bool) {
        if up {
            self.map_count.fetch_add(1, Ordering::AcqRel);
        } else {
            self.map_count.fetch_sub(1, Ordering::AcqRel);
        }
    }

    /// For a command that overwrites [offset, offset+len) of this buffer on q's device: runs
    /// `f` with that range's device address (the rest brought up to date unless the range is
    /// the whole allocation), then marks the copy there the only valid one. From the work.
    pub fn overwrite_with(
        &self,
        q: &Queue,
        offset: usize,
        len: usize,
        f: impl FnOnce(DevicePtr) -> CLResult<()>,
    ) -> CLResult<()> {
        let mut st = lock(&self.storage.state);
        let d = self.ptr_for_overwrite(&mut st, q, offset, len)?;
        f(d)?;
        st.written(q);
        Ok(())
    }

    fn publish(mem: Mem) -> Arc<Cl<Mem>> {
        let obj = Cl::publish(mem);
        obj.handle.store(obj.handle() as usize, Ordering::Release);
        obj
    }

    pub fn map_count(&self) -> u32 {
        self.map_count.load(Ordering::Acquire)
    }

    pub fn add_destructor(&self, f: DestructorFn, data: *mut c_void) {
        lock(&self.destructors).push((f, data as usize));
    }

    /// True when this and `other` share one allocation (a buffer and its sub-buffers).
    pub fn same_storage(&self, other: &Mem) -> bool {
        Arc::ptr_eq(&self.storage, &other.storage)
    }

    /// CL_INVALID_OPERATION when the host-access flags forbid `access` (HOST_READ/HOST_WRITE).
    pub fn check_host_access(&self, access: u32) -> CLResult<()> {
        let f = |b: u32| self.flags & b as cl_mem_flags != 0;
        let no_read = f(CL_MEM_HOST_WRITE_ONLY) || f(CL_MEM_HOST_NO_ACCESS);
        let no_write = f(CL_MEM_HOST_READ_ONLY) || f(CL_MEM_HOST_NO_ACCESS);
        if (access & HOST_READ != 0 && no_read) || (access & HOST_WRITE != 0 && no_write) {
            return Err(CL_INVALID_OPERATION);
        }
        Ok(())
    }

    /// Makes the buffer's data valid on `q`'s device (enqueuing any migration on q.stream) and
    /// returns its device address, sub-buffer offset included. Call it from the command's work
    /// (at submission time, with q's CUDA context current).
    pub fn device_ptr(&self, q: &Queue) -> CLResult<DevicePtr> {
        let mut st = lock(&self.storage.state);
        let base = st.ensure_valid(q, self.storage.size)?;
        Ok(base + self.offset as DevicePtr)
    }

    /// `device_ptr` for a kernel argument, under one lock: in a single-device context a buffer
    /// the kernel may write (not `__constant`, not CL_MEM_READ_ONLY) is marked written at once,
    /// since the launch follows in the same submission. Returns the address and whether
    /// `note_device_write` is still due after the launch (multi-device contexts, which record
    /// an event after it).
    pub fn kernel_arg_ptr(&self, q: &Queue, constant: bool) -> CLResult<(DevicePtr, bool)> {
        if let Some(img) = &self.image {
            return img.kernel_arg(self.flags, q, constant, || self.buffer_arg_ptr(q, constant));
        }
        self.buffer_arg_ptr(q, constant)
    }

    /// `kernel_arg_ptr` of a buffer (or of the buffer behind an image1d_buffer).
    pub fn buffer_arg_ptr(&self, q: &Queue, constant: bool) -> CLResult<(DevicePtr, bool)> {
        let writes = !constant && self.flags & CL_MEM_READ_ONLY as cl_mem_flags == 0;
        // The common case, lock-free: resident, current, and nothing to mark.
        let f = self.storage.fast.load(Ordering::Acquire);
        if f != 0 && (f & 1 != 0 || !writes) {
            return Ok(((f & !1) + self.offset as DevicePtr, false));
        }
        let mut st = lock(&self.storage.state);
        let base = st.ensure_valid(q, self.storage.size)?;
        if writes && !self.storage.multi {
            st.written(q);
        }
        Ok((base + self.offset as DevicePtr, writes && self.storage.multi))
    }

    /// A kernel on `q`'s device may have written the buffer: that device now holds the only
    /// up-to-date copy. Call it from the command's work, after the launch.
    pub fn note_device_write(&self, q: &Queue) {
        if let Some(img) = self.array_image() {
            img.note_device_write(self.flags, q);
            return;
        }
        if self.flags & CL_MEM_READ_ONLY as cl_mem_flags != 0 {
            // Kernels may not write CL_MEM_READ_ONLY buffers: every copy stays valid (a
            // USE_HOST_PTR input then maps without a copy back).
            return;
        }
        lock(&self.storage.state).written(q);
    }

    /// For a command captured into a CUDA graph (core/command_buffer.rs): the buffer's device
    /// address, sub-buffer offset included, when a command on the context's one device may use
    /// it with no step of its own outside the stream: a buffer (not an image), resident and up to
    /// date there, and for a command that `writes` it already the only up-to-date copy (nothing
    /// to mark). None otherwise.
    pub fn graph_address(&self, writes: bool) -> Option<DevicePtr> {
        if self.image.is_some() {
            return None;
        }
        let f = self.storage.fast.load(Ordering::Acquire);
        (f != 0 && (f & 1 != 0 || !writes)).then(|| (f & !1) + self.offset as DevicePtr)
    }

    /// The device address of [offset, offset+len) of this buffer on q's device, for a command
    /// that overwrites that range: the rest must stay intact, so the copy is brought up to date
    /// unless the range covers the whole allocation.
    fn ptr_for_overwrite(&self, st: &mut State, q: &Queue, offset: usize, len: usize) -> CLResult<DevicePtr> {
        let base = if self.offset == 0 && offset == 0 && len == self.storage.size {
            st.alloc(q.dev, &q.device, self.storage.size)?
        } else {
            st.ensure_valid(q, self.storage.size)?
        };
        Ok(base + (self.offset + offset) as DevicePtr)
    }
}

/// The memory commands' work (closures that keep the buffer alive until they ran).
impl Cl<Mem> {
    /// Work of clEnqueueReadBuffer.
    ///
    /// # Safety
    /// `dst` has `len` writable bytes that stay allocated, and untouched by the application,
    /// until the command completes.
    /// With `wait` (a blocking read) of at most SMALL_READ bytes, the work itself waits and
    /// returns with the data in `dst`.
    pub unsafe fn read(
        self: &Arc<Self>,
        offset: usize,
        len: usize,
        dst: *mut c_void,
        wait: bool,
    ) -> impl FnOnce(&Queue) -> CLResult<()> + Send + 'static {
        let (mem, dst) = (self.clone(), dst as usize);
        move |q: &Queue| {
            let mut st = lock(&mem.storage.state);
            let src = st.ensure_valid(q, mem.storage.size)? + (mem.offset + offset) as DevicePtr;
            if wait && len <= SMALL_READ {
                // SAFETY: the destination is valid until the command completes (contract).
                return unsafe { dtoh_small_sync(&q.stream, &q.cuda, dst as *mut u8, src, len) };
            }
            // SAFETY: the destination is valid until the command completes (contract).
            unsafe { dtoh_on(&q.stream, &q.cuda, dst as *mut u8, src, len) }
        }
    }

    /// Work of clEnqueueWriteBuffer. The source is read during submission or by the copy
    /// engine before the command completes, as the spec allows.
    ///
    /// # Safety
    /// `src` has `len` readable bytes that stay allocated, and unchanged, until the command
    /// completes.
    pub unsafe fn write(
        self: &Arc<Self>,
        offset: usize,
        len: usize,
        src: *const c_void,
    ) -> impl FnOnce(&Queue) -> CLResult<()> + Send + 'static {
        let (mem, src) = (self.clone(), src as usize);
        move |q: &Queue| {
            let mut st = lock(&mem.storage.state);
            let dst = mem.ptr_for_overwrite(&mut st, q, offset, len)?;
            // SAFETY: the source is valid until the command completes (contract).
            unsafe { htod_on(&q.stream, &q.cuda, dst, src as *const u8, len) }?;
            st.written(q);
            Ok(())
        }
    }

    /// Work of clEnqueueCopyBuffer.
    pub fn copy(
        src: &Arc<Cl<Mem>>,
        dst: &Arc<Cl<Mem>>,
        src_offset: usize,
        dst_offset: usize,
        len: usize,
    ) -> impl Fn(&Queue) -> CLResult<()> + Send + Sync + 'static {
        let (src, dst) = (src.clone(), dst.clone());
        move |q: &Queue| {
            let size = src.storage.size;
            if src.same_storage(&dst) {
                let mut st = lock(&src.storage.state);
                let base = st.ensure_valid(q, size)?;
                let s = base + (src.offset + src_offset) as DevicePtr;
                let d = base + (dst.offset + dst_offset) as DevicePtr;
                cm::copy_dtod(&q.stream, d, s, len)?;
                st.written(q);
                return Ok(());
            }
            let (s, from) = {
                let mut st = lock(&src.storage.state);
                let (base, from) = st.read_source(q, size)?;
                (base + (src.offset + src_offset) as DevicePtr, from)
            };
            let mut dt = lock(&dst.storage.state);
            let d = dst.ptr_for_overwrite(&mut dt, q, dst_offset, len)?;
            copy_from_device(q, from, s, d, len)?;
            dt.written(q);
            Ok(())
        }
    }

    /// Work of clEnqueueFillBuffer; `pattern` is copied now.
    pub fn fill(
        self: &Arc<Self>,
        pattern: &[u8],
        offset: usize,
        len: usize,
    ) -> impl Fn(&Queue) -> CLResult<()> + Send + Sync + 'static {
        let (mem, pattern) = (self.clone(), pattern.to_vec());
        move |q: &Queue| {
            if len == 0 {
                return Ok(());
            }
            let mut st = lock(&mem.storage.state);
            let dst = mem.ptr_for_overwrite(&mut st, q, offset, len)?;
            fill_on(&q.stream, dst, &reduce_pattern(&pattern), len)?;
            st.written(q);
            Ok(())
        }
    }

    /// Work of the rect reads and writes (`to_host`: read). Offsets and pitches were checked.
    ///
    /// # Safety
    /// `host_ptr` holds the bytes `host` and `region` describe (writable for a read), valid and
    /// left alone by the application until the command completes.
    pub unsafe fn rect_host(
        self: &Arc<Self>,
        to_host: bool,
        buf: Pitched,
        host: Pitched,
        host_ptr: *mut c_void,
        region: [usize; 3],
    ) -> impl FnOnce(&Queue) -> CLResult<()> + Send + 'static {
        let (mem, hp) = (self.clone(), host_ptr as usize);
        move |q: &Queue| {
            let mut st = lock(&mem.storage.state);
            let base = st.ensure_valid(q, mem.storage.size)? + mem.offset as DevicePtr;
            let dev = End::Dev(base + buf.origin as DevicePtr);
            let h = End::Host(hp + host.origin);
            // SAFETY: the host side is valid until the command completes (contract).
            if to_host {
                // SAFETY: the host side is valid until the command completes (the contract of rect_host).
                unsafe { copy_rect(&q.stream, dev, buf, h, host, region) }
            } else {
                // SAFETY: the host side is valid until the command completes (the contract of rect_host).
                unsafe { copy_rect(&q.stream, h, host, dev, buf, region) }?;
                st.written(q);
                Ok(())
            }
        }
    }

    /// Work of clEnqueueCopyBufferRect.
    pub fn copy_rect(
        src: &Arc<Cl<Mem>>,
        dst: &Arc<Cl<Mem>>,
        sp: Pitched,
        dp: Pitched,
        region: [usize; 3],
    ) -> impl Fn(&Queue) -> CLResult<()> + Send + Sync + 'static {
        let (src, dst) = (src.clone(), dst.clone());
        move |q: &Queue| {
            let s = {
                let mut st = lock(&src.storage.state);
                st.ensure_valid(q, src.storage.size)? + (src.offset + sp.origin) as DevicePtr
            };
            let mut dt = lock(&dst.storage.state);
            let d = dt.ensure_valid(q, dst.storage.size)? + (dst.offset + dp.origin) as DevicePtr;
            // SAFETY: both ends are device memory.
            unsafe { copy_rect(&q.stream, End::Dev(s), sp, End::Dev(d), dp, region) }?;
            dt.written(q);
            Ok(())
        }
    }

    /// clEnqueueMapBuffer, the part done at enqueue time: the host pointer (making a pinned
    /// mirror when the buffer has no host memory yet) and the bookkeeping. Returns the pointer
    /// and the work that fills the mapped region.
    pub fn map(
        self: &Arc<Self>,
        q: &Queue,
        flags: cl_map_flags,
        offset: usize,
        len: usize,
    ) -> CLResult<(*mut c_void, impl FnOnce(&Queue) -> CLResult<()> + Send + 'static)> {
        let root_off = self.offset + offset;
        let ptr = {
            let mut st = lock(&self.storage.state);
            if st.host.is_none() {
                q.make_current()?;
                let p = PinnedAlloc::new(self.storage.size).map_err(|_| CL_MAP_FAILURE)?;
                st.host = Some(HostMem::Pinned(p));
                st.coh.new_host_copy();
                st.refresh_fast();
            }
            let h = st.host.as_ref().ok_or(CL_MAP_FAILURE)?;
            // SAFETY: root_off + len <= size (checked by the caller).
            unsafe { h.ptr().add(root_off) }
        };
        let write = flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION) as cl_map_flags != 0;
        let read_in = flags & CL_MAP_WRITE_INVALIDATE_REGION as cl_map_flags == 0;
        lock(&self.maps).push(Mapping { ptr: ptr as usize, offset: root_off, len, write });
        self.map_count.fetch_add(1, Ordering::AcqRel);
        let (mem, hp) = (self.clone(), ptr as usize);
        let work = move |q: &Queue| {
            if !read_in {
                return Ok(());
            }
            let mut st = lock(&mem.storage.state);
            if st.coh.host_valid() {
                // The host memory holds the latest data already (zero-copy, or not changed on
                // a device since): the command's completion orders it after earlier work.
                return Ok(());
            }
            let base = st.ensure_valid(q, mem.storage.size)?;
            if st.is_alias(q.dev) {
                return Ok(());
            }
            // A small buffer of its own (no sub-buffers) with cudacl's own host copy, mapped
            // nowhere else: all of it comes over for about the price of the range, and later
            // maps need no copy until a device writes it again (unmaps keep the host copy valid).
            let size = mem.storage.size;
            let whole = len == size
                || (size <= SMALL_WHOLE_MAP
                    && matches!(st.host, Some(HostMem::Pinned(_)))
                    && Arc::strong_count(&mem.storage) == 1
                    && mem.map_count() == 1);
            let (dst, src, n) =
                if whole { (hp - root_off, base, size) } else { (hp, base + root_off as DevicePtr, len) };
            // SAFETY: the buffer's own host copy, which holds the mapped range (and, with
            // `whole`, the whole allocation from hp - root_off).
            unsafe { dtoh_on(&q.stream, &q.cuda, dst as *mut u8, src, n) }?;
            if whole {
                // The whole allocation is on the host now: later maps need no copy.
                let v = st.coh.valid() | HOST;
                st.set_valid(v);
                st.coh.note_last(q);
            }
            Ok(())
        };
        Ok((ptr.cast(), work))
    }

    /// clEnqueueUnmapMemObject, the enqueue-time part: finds and removes the mapping
    /// (CL_INVALID_VALUE when `ptr` is not mapped) and returns the work that writes it back.
    pub fn unmap(
        self: &Arc<Self>,
        ptr: *mut c_void,
    ) -> CLResult<impl FnOnce(&Queue) -> CLResult<()> + Send + 'static> {
        let m = {
            let mut maps = lock(&self.maps);
            let i = maps.iter().position(|m| m.ptr == ptr as usize).ok_or(CL_INVALID_VALUE)?;
            maps.remove(i)
        };
        self.map_count.fetch_sub(1, Ordering::AcqRel);
        let mem = self.clone();
        Ok(move |q: &Queue| {
            if !m.write {
                return Ok(());
            }
            let size = mem.storage.size;
            let mut st = lock(&mem.storage.state);
            let host_valid = st.coh.host_valid();
            let base = st.alloc(q.dev, &q.device, size)?;
            if st.is_alias(q.dev) && !host_valid && m.len != size {
                // Zero-copy device, but the host memory holds only the mapped region: bring
                // the rest of it up to date from a device copy, around the region.
                if let Some(j) = st.valid_device() {
                    st.coh.wait_last(q)?;
                    copy_between_devices(&st.dev, q, j, base, 0, m.offset)?;
                    let end = m.offset + m.len;
                    copy_between_devices(&st.dev, q, j, base, end, size - end)?;
                }
                st.set_valid(HOST);
                st.coh.note_last(q);
                return Ok(());
            }
            if st.is_alias(q.dev) || m.len == size {
                // The host copy is complete and current (a whole-buffer mapping holds every
                // byte: read in, or all written by the application): devices fetch it when
                // they next need it.
                st.set_valid(HOST);
                st.coh.note_last(q);
                return Ok(());
            }
            let dev_was_valid = st.coh.valid_on(q.dev);
            let base = st.ensure_valid(q, size)?;
            if dev_was_valid || !host_valid {
                // SAFETY: the mapping's host memory is this buffer's own (or the application's
                // USE_HOST_PTR memory, live while the buffer is), `m.len` bytes from `m.ptr`.
                unsafe {
                    htod_on(&q.stream, &q.cuda, base + m.offset as DevicePtr, m.ptr as *const u8, m.len)
                }?;
            }
            st.set_valid(bit(q.dev) | if host_valid { HOST } else { 0 });
            st.coh.note_last(q);
            Ok(())
        })
    }

    /// Work of clEnqueueMigrateMemObjects for one buffer.
    pub fn migrate(
        self: &Arc<Self>,
        to_host: bool,
        content_undefined: bool,
    ) -> impl FnOnce(&Queue) -> CLResult<()> + Send + 'static {
        let mem = self.clone();
        move |q: &Queue| {
            let size = mem.storage.size;
            let mut st = lock(&mem.storage.state);
            if content_undefined {
                st.alloc(q.dev, &q.device, size)?;
                if !to_host {
                    st.set_valid(bit(q.dev));
                }
                return Ok(());
            }
            if to_host {
                if !st.coh.host_valid() {
                    if let Some(hp) = st.host.as_ref().map(|h| h.ptr() as usize) {
                        let base = st.ensure_valid(q, size)?;
                        if !st.is_alias(q.dev) {
                            // SAFETY: the buffer's own host copy (`size` bytes).
                            unsafe { dtoh_on(&q.stream, &q.cuda, hp as *mut u8, base, size) }?;
                        }
                        let v = st.coh.valid() | HOST;
                        st.set_valid(v);
                    }
                }
                return Ok(());
            }
            st.ensure_valid(q, size).map(|_| ())
        }
    }
}

/// The context's buffers with fixed device addresses (`Context::addressable`, which holds them
/// untyped).
impl Context {
    /// Records a buffer with fixed device addresses (dropping the entries of released ones).
    pub fn note_addressable(&self, m: &Arc<Cl<Mem>>) {
        let mut v = lock(&self.addressable);
        v.retain(|w| w.strong_count() > 0);
        let any: Arc<dyn Any + Send + Sync> = m.clone();
        v.push(Arc::downgrade(&any));
    }

    /// The buffer with fixed device addresses whose allocation on some device holds
    /// [addr, addr + len).
    pub fn addressable_at(&self, addr: u64, len: u64) -> Option<Arc<Cl<Mem>>> {
        lock(&self.addressable)
            .iter()
            .filter_map(|w| w.upgrade()?.downcast::<Cl<Mem>>().ok())
            .find(|m| m.holds_device_range(addr, len))
    }
}
