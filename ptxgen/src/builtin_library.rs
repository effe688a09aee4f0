//! Built-in functions written in OpenCL C (images.cl, subgroups.cl): each library is compiled once
//! per process by the in-process clang into bitcode, and linked into the programs that call its
//! functions, before libclc, by a bridge function of its own.
use crate::pipeline::{failed, frontend, Ctx};
use crate::*;
use inkwell::module::Module;
use llvm_sys::prelude::LLVMModuleRef;
use std::os::raw::{c_char, c_int};
use std::sync::OnceLock;

/// One library: its source, the options it is compiled with (whatever the program's own), and
/// the bridge's test "does the module call any of it" and its link.
pub(crate) struct Library {
    /// what it holds, for messages ("image built-ins")
    pub what: &'static str,
    pub source: &'static str,
    pub options: &'static str,
    pub used: unsafe extern "C" fn(LLVMModuleRef) -> c_int,
    pub link: unsafe extern "C" fn(LLVMModuleRef, *const c_char, usize, *mut *mut c_char) -> c_int,
}

impl Library {
    /// The source as bitcode, compiled on first use (in a private context) and kept in `cell`.
    fn bitcode(&self, cell: &'static OnceLock<Result<Vec<u8>, String>>) -> Result<&'static [u8], BuildError> {
        let r = cell.get_or_init(|| {
            let opts = options::parse_build(self.options).map_err(|e| e.to_string())?;
            let ctx = Ctx::private();
            let (m, _, _) = frontend(&ctx, self.source, &opts, &[]).map_err(|e| match e {
                BuildError::Failed { log } | BuildError::InvalidOptions { log } => log,
            })?;
            let bc = m.write_bitcode_to_memory().as_slice().to_vec();
            Ok(bc)
        });
        match r {
            Ok(bc) => Ok(bc.as_slice()),
            Err(log) => Err(failed(format!("internal error: the {} do not compile:\n{log}", self.what))),
        }
    }

    /// Links what `m` calls of the library (`cell` keeps its bitcode); nothing to do for a
    /// program that calls none of it. Returns whether there was something to do.
    pub(crate) fn link_into(
        &self,
        m: &Module,
        cell: &'static OnceLock<Result<Vec<u8>, String>>,
    ) -> Result<bool, BuildError> {
        let mr = m.as_mut_ptr();
        // SAFETY: mr is the live module owned by `m`.
        if unsafe { (self.used)(mr) } == 0 {
            return Ok(false);
        }
        let bc = self.bitcode(cell)?;
        let mut log: *mut c_char = std::ptr::null_mut();
        // SAFETY: mr is live; bc outlives the call (static); log is a local out-pointer.
        let rc = unsafe { (self.link)(mr, bc.as_ptr() as *const c_char, bc.len(), &mut log) };
        let log = ffi::take_string(log);
        if rc != 0 {
            return Err(failed(if log.is_empty() {
                format!("linking the {} failed", self.what)
            } else {
                log
            }));
        }
        Ok(true)
    }
}
