//! Builds from SPIR-V (clCreateProgramWithIL): the translator (spirv.rs) gives LLVM bitcode,
//! the bridge's pg_import_spirv makes it an nvptx module as clang would have, and from there the
//! pipeline is the OpenCL C one (pipeline.rs's backend: rewrites, libclc, O3, layout, PTX).
use crate::pipeline::{backend, failed, guarded, stage, tuning_key, Ctx, Timer};
use crate::spec_constants::SpecConstant;
use crate::spirv;
use crate::*;
use inkwell::module::Module;
use std::ffi::CString;
use std::os::raw::c_char;

/// The options of an IL build: those of clBuildProgram (the preprocessor's -D/-I have nothing
/// to act on and are ignored, as the specification allows for IL programs; the rest shape
/// optimisation and code generation as for source).
fn parse(options: &str) -> Result<options::Options, BuildError> {
    options::build_options(options)
}

/// SPIR-V -> a module of `ctx` ready for the back end.
fn import<'c>(ctx: &'c Ctx, il: &[u8], spec: &[SpecConstant]) -> Result<Module<'c>, BuildError> {
    let bc = spirv::to_bitcode(il, spec).map_err(failed)?;
    let mut m: llvm_sys::prelude::LLVMModuleRef = std::ptr::null_mut();
    let mut log: *mut c_char = std::ptr::null_mut();
    // SAFETY: ctx is live; bc outlives the call (the bridge copies what it keeps); m and log
    // are local out-pointers.
    let rc =
        unsafe { ffi::pg_import_spirv(ctx.raw(), bc.as_ptr() as *const c_char, bc.len(), &mut m, &mut log) };
    stage(rc, log, "importing the SPIR-V module")?;
    if m.is_null() {
        return Err(failed("error: importing the SPIR-V module gave no module\n"));
    }
    Ok(ctx.module(m))
}

/// The bytes of the specialization constants, for the cache key.
fn spec_key(spec: &[SpecConstant]) -> Vec<u8> {
    let mut v = Vec::new();
    for s in spec {
        v.extend_from_slice(&s.id.to_le_bytes());
        v.extend_from_slice(&(s.value.len() as u32).to_le_bytes());
        v.extend_from_slice(&s.value);
    }
    v
}

/// clBuildProgram of a program made with clCreateProgramWithIL. Cached like source builds, the
/// key holding the IL bytes, the specialization constants and the translator's identity.
pub fn build_il(
    il: &[u8],
    spec: &[SpecConstant],
    options: &str,
    target: &Target,
) -> Result<Program, BuildError> {
    guarded(|| {
        let opts = parse(options)?;
        let (tgt, clc_id) = crate::pipeline::target_and_libclc(target)?;
        let key = cache::key(&[
            VERSION.as_bytes(),
            cache::code_id(),
            b"build-il",
            spirv::translator_id().as_bytes(),
            tuning_key().as_bytes(),
            il,
            &spec_key(spec),
            options.as_bytes(),
            tgt.as_bytes(),
            clc_id.as_bytes(),
        ]);
        if let Some(p) = cache::mem_get(&key) {
            return Ok(p);
        }
        if let Some((p, stamps)) = cache::disk_get(&key) {
            if p.target == *target {
                cache::mem_put(key, &p, &stamps);
                return Ok(p);
            }
        }
        let clc = libclc::get().ok().and_then(|p| CString::new(p.to_string_lossy().as_bytes()).ok());
        let ctx = Ctx::shared_or_private(clc.as_ref());
        let m = import(&ctx, il, spec).inspect_err(|_| ctx.poison())?;
        let mut t = Timer::new();
        let (ptx, kernels, log) = backend(&ctx, m, &opts, target, &mut t).inspect_err(|_| ctx.poison())?;
        let p = Program { ptx, target: target.clone(), options: options.to_string(), log, kernels };
        let stamps = cache::stamp(&[]);
        cache::mem_put(key, &p, &stamps);
        cache::disk_put(&key, &p, &stamps);
        Ok(p)
    })
}

/// clCompileProgram of an IL program: the imported module as an `Object`, which `link` takes
/// like one compiled from source.
pub fn compile_il(il: &[u8], spec: &[SpecConstant], options: &str) -> Result<Object, BuildError> {
    guarded(|| {
        parse(options)?;
        let ctx = Ctx::private();
        let m = import(&ctx, il, spec)?;
        let bitcode = m.write_bitcode_to_memory().as_slice().to_vec();
        let (log, err) = ctx.take_log();
        if err {
            return Err(failed(log));
        }
        Ok(Object { bitcode, options: options.to_string(), log })
    })
}
