//! OpenGL sharing (cl_khr_gl_sharing). cudacl does not offer it (it is not in the extension
//! list), so no context is created from a GL context: the calls check their handles and answer
//! the spec's code for that case.
use crate::base::entry::{entry, entry_ret, CLResult};
use crate::base::handle::Cl;
use crate::cl::*;
use crate::core::context::Context;
use crate::core::queue::Queue;
use std::ffi::c_void;

fn not_gl_context(context: cl_context) -> CLResult<*mut _cl_mem> {
    Cl::<Context>::get(context)?;
    Err(CL_INVALID_CONTEXT)
}

#[no_mangle]
pub unsafe extern "C" fn clCreateFromGLBuffer(
    context: cl_context,
    _flags: cl_mem_flags,
    _bufobj: cl_GLuint,
    errcode_ret: *mut ::std::os::raw::c_int,
) -> cl_mem {
    let body = || not_gl_context(context);
    // SAFETY: errcode_ret is NULL or points to a cl_int, as the spec requires of the caller.
    unsafe { entry_ret(errcode_ret, body) }
}

#[no_mangle]
pub unsafe extern "C" fn clCreateFromGLTexture(
    context: cl_context,
    _flags: cl_mem_flags,
    _target: cl_GLenum,
    _miplevel: cl_GLint,
    _texture: cl_GLuint,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    let body = || not_gl_context(context);
    // SAFETY: errcode_ret is NULL or points to a cl_int, as the spec requires of the caller.
    unsafe { entry_ret(errcode_ret, body) }
}

#[no_mangle]
pub unsafe extern "C" fn clCreateFromGLTexture2D(
    context: cl_context,
    _flags: cl_mem_flags,
    _target: cl_GLenum,
    _miplevel: cl_GLint,
    _texture: cl_GLuint,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    let body = || not_gl_context(context);
    // SAFETY: errcode_ret is NULL or points to a cl_int, as the spec requires of the caller.
    unsafe { entry_ret(errcode_ret, body) }
}

#[no_mangle]
pub unsafe extern "C" fn clCreateFromGLTexture3D(
    context: cl_context,
    _flags: cl_mem_flags,
    _target: cl_GLenum,
    _miplevel: cl_GLint,
    _texture: cl_GLuint,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    let body = || not_gl_context(context);
    // SAFETY: errcode_ret is NULL or points to a cl_int, as the spec requires of the caller.
    unsafe { entry_ret(errcode_ret, body) }
}

#[no_mangle]
pub unsafe extern "C" fn clCreateFromGLRenderbuffer(
    context: cl_context,
    _flags: cl_mem_flags,
    _renderbuffer: cl_GLuint,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    let body = || not_gl_context(context);
    // SAFETY: errcode_ret is NULL or points to a cl_int, as the spec requires of the caller.
    unsafe { entry_ret(errcode_ret, body) }
}

/// No memory object was created from a GL object.
#[no_mangle]
pub unsafe extern "C" fn clGetGLObjectInfo(
    _memobj: cl_mem,
    _gl_object_type: *mut cl_gl_object_type,
    _gl_object_name: *mut cl_GLuint,
) -> cl_int {
    CL_INVALID_GL_OBJECT
}

/// No memory object was created from a GL object.
#[no_mangle]
pub unsafe extern "C" fn clGetGLTextureInfo(
    _memobj: cl_mem,
    _param_name: cl_gl_texture_info,
    _param_value_size: usize,
    _param_value: *mut c_void,
    _param_value_size_ret: *mut usize,
) -> cl_int {
    CL_INVALID_GL_OBJECT
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueAcquireGLObjects(
    command_queue: cl_command_queue,
    _num_objects: cl_uint,
    _mem_objects: *const cl_mem,
    _num_events_in_wait_list: cl_uint,
    _event_wait_list: *const cl_event,
    _event: *mut cl_event,
) -> cl_int {
    entry(|| {
        Cl::<Queue>::get(command_queue)?;
        Err(CL_INVALID_CONTEXT)
    })
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueReleaseGLObjects(
    command_queue: cl_command_queue,
    _num_objects: cl_uint,
    _mem_objects: *const cl_mem,
    _num_events_in_wait_list: cl_uint,
    _event_wait_list: *const cl_event,
    _event: *mut cl_event,
) -> cl_int {
    entry(|| {
        Cl::<Queue>::get(command_queue)?;
        Err(CL_INVALID_CONTEXT)
    })
}

#[no_mangle]
pub unsafe extern "C" fn clGetGLContextInfoKHR(
    _properties: *const cl_context_properties,
    _param_name: cl_gl_context_info,
    _param_value_size: usize,
    _param_value: *mut c_void,
    _param_value_size_ret: *mut usize,
) -> cl_int {
    CL_INVALID_GL_SHAREGROUP_REFERENCE_KHR
}

#[no_mangle]
pub unsafe extern "C" fn clCreateEventFromGLsyncKHR(
    context: cl_context,
    _sync: cl_GLsync,
    errcode_ret: *mut cl_int,
) -> cl_event {
    let body = || {
        not_gl_context(context)?;
        Ok(std::ptr::null_mut::<_cl_event>())
    };
    // SAFETY: errcode_ret is NULL or points to a cl_int, as the spec requires of the caller.
    unsafe { entry_ret(errcode_ret, body) }
}
