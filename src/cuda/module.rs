//! Loading PTX into a context and launching its kernels.
use super::error::{check, CudaError, CudaResult};
use super::stream::Stream;
use super::sys;
use std::ffi::{c_void, CString};
use std::sync::atomic::{AtomicBool, Ordering};

/// CU_JIT_SPLIT_COMPILE (CUDA 13.0's cuda.h): the JIT's optimisations on several threads, 0
/// meaning one per CPU. bench/jitbench.c on the H100 (driver 580, 8 processes each): the 6-kernel
/// benchmark's PTX took 46-55 ms with it, 62-70 ms without. Drivers that do not know it answer
/// CUDA_ERROR_INVALID_VALUE; the load is then retried without it, and it is not asked again.
const CU_JIT_SPLIT_COMPILE: u32 = 34;
static SPLIT_REFUSED: AtomicBool = AtomicBool::new(false);

pub struct Module(pub sys::CUmodule);

// SAFETY: the driver API is thread-safe for a module's handle.
unsafe impl Send for Module {}
// SAFETY: as for Send.
unsafe impl Sync for Module {}

impl Module {
    /// JIT-compiles `ptx` for the current context. On failure the driver's JIT log is returned
    /// with the error, for the build log.
    pub fn load_ptx(ptx: &str) -> Result<(Module, String), (CudaError, String)> {
        let image = CString::new(ptx).map_err(|_| {
            (CudaError(sys::CUresult::CUDA_ERROR_INVALID_IMAGE), "PTX contains a NUL byte".to_string())
        })?;
        let split = !SPLIT_REFUSED.load(Ordering::Relaxed);
        match Self::load_with(&image, split) {
            Err((e, _)) if split && e.0 == sys::CUresult::CUDA_ERROR_INVALID_VALUE => {
                // A driver that predates the option: never ask it again.
                SPLIT_REFUSED.store(true, Ordering::Relaxed);
                Self::load_with(&image, false)
            }
            r => r,
        }
    }

    fn load_with(image: &CString, split: bool) -> Result<(Module, String), (CudaError, String)> {
        const LOG: usize = 16 * 1024;
        let mut error_log = vec![0u8; LOG];
        let mut info_log = vec![0u8; LOG];
        // Raw option numbers: CU_JIT_SPLIT_COMPILE is not in the bindings of the oldest CUDA
        // cudacl supports, and the driver reads the array as plain integers.
        let mut opts: Vec<u32> = vec![
            sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER as u32,
            sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES as u32,
            sys::CUjit_option::CU_JIT_INFO_LOG_BUFFER as u32,
            sys::CUjit_option::CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES as u32,
        ];
        let mut vals = vec![
            error_log.as_mut_ptr() as *mut c_void,
            LOG as *mut c_void,
            info_log.as_mut_ptr() as *mut c_void,
            LOG as *mut c_void,
        ];
        if split {
            opts.push(CU_JIT_SPLIT_COMPILE);
            vals.push(std::ptr::null_mut()); // 0: one thread per CPU
        }
        let mut m = std::ptr::null_mut();
        // SAFETY: the option/value arrays match in length and the buffers outlive the call; the
        // option array is read by the driver as C enum (int) values.
        let r = unsafe {
            sys::cuModuleLoadDataEx(
                &mut m,
                image.as_ptr().cast(),
                opts.len() as u32,
                opts.as_mut_ptr().cast(),
                vals.as_mut_ptr(),
            )
        };
        let text = |b: &[u8]| {
            String::from_utf8_lossy(&b[..b.iter().position(|&c| c == 0).unwrap_or(b.len())]).into_owned()
        };
        match check(r) {
            Ok(()) => Ok((Module(m), text(&info_log))),
            Err(e) => Err((e, text(&error_log))),
        }
    }

    pub fn function(&self, name: &str) -> CudaResult<Function> {
        let name = CString::new(name).map_err(|_| CudaError(sys::CUresult::CUDA_ERROR_NOT_FOUND))?;
        let mut f = std::ptr::null_mut();
        // SAFETY: a local out-pointer; name is NUL-terminated; the module is loaded.
        check(unsafe { sys::cuModuleGetFunction(&mut f, self.0, name.as_ptr()) })?;
        Ok(Function(f))
    }
}

impl Drop for Module {
    fn drop(&mut self) {
        // SAFETY: loaded by this wrapper, unloaded once.
        unsafe { sys::cuModuleUnload(self.0) };
    }
}

#[derive(Clone, Copy)]
pub struct Function(pub sys::CUfunction);

// SAFETY: the driver API is thread-safe for a function's handle (launches are serialised per
// stream by the driver).
unsafe impl Send for Function {}
// SAFETY: as for Send.
unsafe impl Sync for Function {}

impl Function {
    pub fn attribute(&self, a: sys::CUfunction_attribute) -> i32 {
        let mut v = 0;
        // SAFETY: a local out-pointer; a function of a loaded module.
        unsafe { sys::cuFuncGetAttribute(&mut v, a, self.0) };
        v
    }

    /// Lets the kernel use up to `bytes` of dynamic shared memory (above 48 KiB needs opting in).
    pub fn set_max_dynamic_shared(&self, bytes: i32) -> CudaResult<()> {
        // SAFETY: a function of a loaded module; the attribute is a plain integer.
        check(unsafe {
            sys::cuFuncSetAttribute(
                self.0,
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                bytes,
            )
        })
    }

    /// Launches with the arguments packed in one parameter buffer (CU_LAUNCH_PARAM_BUFFER_POINTER),
    /// which is exactly how ptxgen lays them out.
    pub fn launch(
        &self,
        stream: &Stream,
        grid: [u32; 3],
        block: [u32; 3],
        shared: u32,
        params: &mut [u8],
    ) -> CudaResult<()> {
        let mut size = params.len();
        let mut extra = [
            std::ptr::dangling_mut::<c_void>(), // CU_LAUNCH_PARAM_BUFFER_POINTER
            params.as_mut_ptr() as *mut c_void,
            2usize as *mut c_void, // CU_LAUNCH_PARAM_BUFFER_SIZE
            &mut size as *mut usize as *mut c_void,
            std::ptr::null_mut(), // CU_LAUNCH_PARAM_END
        ];
        // SAFETY: `extra` is a well-formed, END-terminated list; params outlive the call
        // (the driver copies the buffer at launch).
        check(unsafe {
            sys::cuLaunchKernel(
                self.0,
                grid[0],
                grid[1],
                grid[2],
                block[0],
                block[1],
                block[2],
                shared,
                stream.0,
                std::ptr::null_mut(),
                extra.as_mut_ptr(),
            )
        })
    }
}
