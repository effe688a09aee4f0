//! An OpenCL context: a set of devices, each with its CUDA primary context.
use super::device::Device;
use crate::base::handle::Cl;
use crate::cl::*;
use crate::cuda::context::PrimaryContext;
use std::ffi::{c_char, c_void};
use std::sync::Arc;

pub type NotifyFn = unsafe extern "C" fn(*const c_char, *const c_void, usize, *mut c_void);

pub struct Context {
    pub devices: Vec<Arc<Cl<Device>>>,
    /// One CUDA context per device, in the same order.
    pub cuda: Vec<Arc<PrimaryContext>>,
    /// The properties as given (without the terminating 0), for CL_CONTEXT_PROPERTIES.
    pub properties: Vec<cl_context_properties>,
    notify: Option<(NotifyFn, usize)>,
}
crate::cl_object!(Context, cl_context, CL_INVALID_CONTEXT);

impl Context {
    pub fn new(
        devices: Vec<Arc<Cl<Device>>>,
        properties: Vec<cl_context_properties>,
        notify: Option<(NotifyFn, *mut c_void)>,
    ) -> Result<Context, cl_int> {
        // A context is usually followed by a build: let ptxgen parse libclc meanwhile, starting
        // before the CUDA contexts, whose creation takes long enough to hide most of it.
        ptxgen::prewarm();
        let cuda = devices
            .iter()
            .map(|d| d.primary_context().map_err(|_| CL_OUT_OF_RESOURCES))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Context { devices, cuda, properties, notify: notify.map(|(f, d)| (f, d as usize)) })
    }

    /// The index of `device` in this context, if it belongs to it.
    pub fn device_index(&self, device: &Cl<Device>) -> Option<usize> {
        self.devices.iter().position(|d| std::ptr::eq(&***d, &**device))
    }

    /// Reports an asynchronous error through the pfn_notify the application gave.
    pub fn notify(&self, message: &str) {
        if let Some((f, data)) = self.notify {
            let msg = std::ffi::CString::new(message.replace('\0', " ")).unwrap_or_default();
            // SAFETY: the application's callback with its own user data.
            unsafe { f(msg.as_ptr(), std::ptr::null(), 0, data as *mut c_void) };
        }
    }
}
