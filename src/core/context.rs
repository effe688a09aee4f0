//! An OpenCL context: a set of devices, each with its CUDA primary context.
use super::device::Device;
use crate::base::entry::lock;
use crate::base::handle::Cl;
use crate::cl::*;
use crate::cuda::context::PrimaryContext;
use crate::cuda::error::CudaError;
use std::any::Any;
use std::ffi::{c_char, c_void};
use std::sync::{Arc, Mutex, Weak};

pub type NotifyFn = unsafe extern "C" fn(*const c_char, *const c_void, usize, *mut c_void);

pub struct Context {
    pub devices: Vec<Arc<Cl<Device>>>,
    /// One CUDA context per device, in the same order.
    pub cuda: Vec<Arc<PrimaryContext>>,
    /// The properties as given (without the terminating 0), for CL_CONTEXT_PROPERTIES.
    pub properties: Vec<cl_context_properties>,
    notify: Option<(NotifyFn, usize)>,
    /// clSetContextDestructorCallback's callbacks: (function, user data, the context's handle).
    destructors: Mutex<Vec<(DestructorFn, usize, usize)>>,
    /// The buffers with fixed device addresses (cl_ext_buffer_device_address), for finding the
    /// buffer behind a raw device pointer (clSetKernelArgDevicePointerEXT,
    /// CL_KERNEL_EXEC_INFO_DEVICE_PTRS_EXT). Weak: the list does not keep them alive. Each is a
    /// `Cl<Mem>`, kept and looked up by memory.rs (`Context::note_addressable`,
    /// `addressable_at`): untyped here so that this file need not import memory.rs, which
    /// imports it.
    pub(super) addressable: Mutex<Vec<Weak<dyn Any + Send + Sync>>>,
    /// Shared virtual memory allocations (clSVMAlloc) still live.
    pub svm: Mutex<Vec<SvmAlloc>>,
}

/// One clSVMAlloc allocation: memory the host and every device of the context address at the
/// same pointer (see api/svm.rs).
pub struct SvmAlloc {
    pub ptr: usize,
    pub size: usize,
    pub mem: crate::cuda::memory::SharedAlloc,
}
crate::cl_object!(Context, cl_context, CL_INVALID_CONTEXT);

/// A context destructor callback (clSetContextDestructorCallback).
pub type DestructorFn = unsafe extern "C" fn(cl_context, *mut c_void);

impl Drop for Context {
    /// The destructor callbacks, last registered first, once everything attached to the
    /// context is gone (the last internal reference goes with the last object that used it).
    fn drop(&mut self) {
        let cbs = std::mem::take(&mut *lock(&self.destructors));
        for (f, data, handle) in cbs.into_iter().rev() {
            // SAFETY: the application's callback with its own data.
            unsafe { f(handle as cl_context, data as *mut c_void) };
        }
    }
}

impl Context {
    pub fn new(
        devices: Vec<Arc<Cl<Device>>>,
        properties: Vec<cl_context_properties>,
        notify: Option<(NotifyFn, *mut c_void)>,
    ) -> Result<Context, cl_int> {
        // A context is usually followed by a build: let ptxgen parse libclc meanwhile, starting
        // before the CUDA contexts, whose creation takes long enough to hide most of it.
        ptxgen::prewarm();
        let notify = notify.map(|(f, d)| (f, d as usize));
        let mut cuda = Vec::with_capacity(devices.len());
        for (i, d) in devices.iter().enumerate() {
            match d.primary_context() {
                Ok(c) => cuda.push(c),
                Err(e) => {
                    report_context_failure(notify, i, &e);
                    return Err(CL_OUT_OF_RESOURCES);
                }
            }
        }
        crate::cuda::peer::enable_among(&cuda.iter().map(|c| (c.device, c.ctx)).collect::<Vec<_>>());
        for c in &cuda {
            super::transfer::prepin(c, cuda.len() > 1);
            c.prepare_pool();
        }
        Ok(Context {
            devices,
            cuda,
            properties,
            notify,
            destructors: Mutex::new(Vec::new()),
            addressable: Mutex::new(Vec::new()),
            svm: Mutex::new(Vec::new()),
        })
    }

    /// The index of `device` in this context, if it belongs to it.
    pub fn device_index(&self, device: &Cl<Device>) -> Option<usize> {
        self.devices.iter().position(|d| std::ptr::eq(&***d, &**device))
    }

    /// Registers a destructor callback for the context whose handle is `handle`.
    pub fn add_destructor(&self, f: DestructorFn, data: *mut c_void, handle: cl_context) {
        lock(&self.destructors).push((f, data as usize, handle as usize));
    }

    /// The SVM allocation holding [ptr, ptr + len): (its base, its size).
    pub fn svm_at(&self, ptr: usize, len: usize) -> Option<(usize, usize)> {
        lock(&self.svm)
            .iter()
            .find(|a| ptr >= a.ptr && ptr.checked_add(len).is_some_and(|e| e <= a.ptr + a.size))
            .map(|a| (a.ptr, a.size))
    }

    /// The managed SVM allocation holding [ptr, ptr + len): (its base, its size).
    pub fn svm_managed_at(&self, ptr: usize, len: usize) -> Option<(usize, usize)> {
        lock(&self.svm)
            .iter()
            .find(|a| ptr >= a.ptr && ptr.checked_add(len).is_some_and(|e| e <= a.ptr + a.size))
            .filter(|a| matches!(a.mem, crate::cuda::memory::SharedAlloc::Managed { .. }))
            .map(|a| (a.ptr, a.size))
    }

    /// Reports an asynchronous error through the pfn_notify the application gave.
    pub fn notify(&self, message: &str) {
        call_notify(self.notify, message);
    }
}

fn call_notify(notify: Option<(NotifyFn, usize)>, message: &str) {
    if let Some((f, data)) = notify {
        let msg = std::ffi::CString::new(message.replace('\0', " ")).unwrap_or_default();
        // SAFETY: the application's callback with its own user data.
        unsafe { f(msg.as_ptr(), std::ptr::null(), 0, data as *mut c_void) };
    }
}

/// Why a context could not be made: through the application's pfn_notify, else once per process
/// on stderr (never stdout). A sticky error (an earlier kernel fault) is the usual cause: NVIDIA's
/// driver keeps it for the whole process (driver 580 on an H100: cuCtxCreate beside the faulted
/// primary context, release and retain, and cuDevicePrimaryCtxReset then retain all answer
/// CUDA_ERROR_ILLEGAL_ADDRESS; conformance/cts/probes/cuda-fault-probe.c), so only a new process
/// can use the GPU again.
fn report_context_failure(notify: Option<(NotifyFn, usize)>, device: usize, e: &CudaError) {
    let msg = if e.is_sticky() {
        format!(
            "cudacl: cannot create a CUDA context on device {device}: the CUDA driver answers {}, a sticky \
             error left by an earlier kernel fault in this process; the driver keeps it for the whole \
             process, which must be restarted to use the GPU again",
            e.name()
        )
    } else {
        format!("cudacl: cannot create a CUDA context on device {device}: {}", e.name())
    };
    if notify.is_some() {
        call_notify(notify, &msg);
    } else {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| eprintln!("{msg}"));
    }
}
