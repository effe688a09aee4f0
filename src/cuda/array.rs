//! CUDA arrays with one surface object each (the storage of OpenCL images), optionally a texture
//! object too, and the 3-D copies between arrays, device memory and host memory.
use super::error::{check, CudaResult};
use super::memory::DevicePtr;
use super::stream::Stream;
use super::sys;
use std::ffi::c_void;

/// A CUDA array made for surface loads and stores, with its surface object and, when asked for,
/// a texture object (0 when not made). The context that made it must be current when it is
/// dropped.
pub struct SurfaceArray {
    pub array: sys::CUarray,
    pub surface: sys::CUsurfObject,
    pub texture: sys::CUtexObject,
}

// SAFETY: the handles are plain driver handles, usable from any thread whose current context
// owns them; the struct only hands them out and destroys them once.
unsafe impl Send for SurfaceArray {}
// SAFETY: as for Send: shared access reads the handles only.
unsafe impl Sync for SurfaceArray {}

impl SurfaceArray {
    /// cuArray3DCreate with CUDA_ARRAY3D_SURFACE_LDST (plus CUDA_ARRAY3D_LAYERED for image
    /// arrays) and cuSurfObjectCreate on it. `height` and `depth` are 0 where CUDA wants them
    /// absent (1-D: (w, 0, 0); 1-D array: (w, 0, layers)). The owning context must be current.
    /// With `texture`, also a texture object for texel fetches at integer coordinates (see
    /// `texel_fetch_texture`): kernels rely on it, so failing to make it fails the whole.
    pub fn new(
        width: usize,
        height: usize,
        depth: usize,
        layered: bool,
        format: sys::CUarray_format,
        channels: u32,
        texture: bool,
    ) -> CudaResult<SurfaceArray> {
        let desc = sys::CUDA_ARRAY3D_DESCRIPTOR {
            Width: width,
            Height: height,
            Depth: depth,
            Format: format,
            NumChannels: channels,
            Flags: sys::CUDA_ARRAY3D_SURFACE_LDST | if layered { sys::CUDA_ARRAY3D_LAYERED } else { 0 },
        };
        let mut array: sys::CUarray = std::ptr::null_mut();
        // SAFETY: a valid descriptor and a local out-pointer.
        check(unsafe { sys::cuArray3DCreate_v2(&mut array, &desc) })?;
        // SAFETY: the resource descriptor is plain data; all-zero is its "unset" state.
        let mut res: sys::CUDA_RESOURCE_DESC = unsafe { std::mem::zeroed() };
        res.resType = sys::CUresourcetype::CU_RESOURCE_TYPE_ARRAY;
        res.res.array = sys::CUDA_RESOURCE_DESC_st__bindgen_ty_1__bindgen_ty_1 { hArray: array };
        let mut surface: sys::CUsurfObject = 0;
        // SAFETY: a resource descriptor naming the array just made, a local out-value.
        if let Err(e) = check(unsafe { sys::cuSurfObjectCreate(&mut surface, &res) }) {
            // SAFETY: made above, destroyed once.
            unsafe { sys::cuArrayDestroy(array) };
            return Err(e);
        }
        let mut made = SurfaceArray { array, surface, texture: 0 };
        if texture {
            // On failure `made` is dropped here, destroying the surface and the array.
            made.texture = texel_fetch_texture(&res)?;
        }
        Ok(made)
    }
}

/// A texture object over `res` for fetching whole texels at integer coordinates: unnormalized
/// coordinates, point filtering, the element type as stored, and a zero border outside the array
/// (as the surface loads' .zero mode). Kernels use it where a texture fetch is faster than a
/// surface load (16-byte texels: ptxgen's images.cl); the results are the same bits.
fn texel_fetch_texture(res: &sys::CUDA_RESOURCE_DESC) -> CudaResult<sys::CUtexObject> {
    // SAFETY: the texture descriptor is plain data; all-zero is its "unset" state (no flags:
    // unnormalized coordinates, a border colour of zeros).
    let mut td: sys::CUDA_TEXTURE_DESC = unsafe { std::mem::zeroed() };
    td.addressMode = [sys::CUaddress_mode::CU_TR_ADDRESS_MODE_BORDER; 3];
    td.filterMode = sys::CUfilter_mode::CU_TR_FILTER_MODE_POINT;
    td.flags = sys::CU_TRSF_READ_AS_INTEGER;
    let mut tex: sys::CUtexObject = 0;
    // SAFETY: valid resource and texture descriptors, no view, a local out-value.
    check(unsafe { sys::cuTexObjectCreate(&mut tex, res, &td, std::ptr::null()) })?;
    Ok(tex)
}

impl Drop for SurfaceArray {
    fn drop(&mut self) {
        // SAFETY: made by `new`, destroyed once, the objects before their array.
        unsafe {
            if self.texture != 0 {
                sys::cuTexObjectDestroy(self.texture);
            }
            sys::cuSurfObjectDestroy(self.surface);
            sys::cuArrayDestroy(self.array);
        }
    }
}

/// One side of a 3-D copy.
#[derive(Clone, Copy, Debug)]
pub enum Place {
    /// Host memory at `ptr` (the first byte copied), rows `row` and slices `slice` bytes apart.
    Host { ptr: usize, row: usize, slice: usize },
    /// Linear device memory, likewise.
    Device { ptr: DevicePtr, row: usize, slice: usize },
    /// A CUDA array, from byte `x` of row `y` of slice (or layer) `z`.
    Array { array: usize, x: usize, y: usize, z: usize },
}

impl Place {
    /// The same place `z` slices further on (linear memory only; arrays by their z).
    fn at_slice(self, z: usize) -> Place {
        match self {
            Place::Host { ptr, row, slice } => Place::Host { ptr: ptr + z * slice, row, slice },
            Place::Device { ptr, row, slice } => {
                Place::Device { ptr: ptr + (z * slice) as DevicePtr, row, slice }
            }
            Place::Array { array, x, y, z: z0 } => Place::Array { array, x, y, z: z0 + z },
        }
    }

    /// Whether slices are a whole number of rows apart (one copy call covers every slice).
    fn whole_rows(&self) -> bool {
        match *self {
            Place::Host { row, slice, .. } | Place::Device { row, slice, .. } => {
                row != 0 && slice.is_multiple_of(row)
            }
            Place::Array { .. } => true,
        }
    }
}

/// The parameters of one side, as (memory type, host, device, array, x, y, z, pitch, height).
type Side = (sys::CUmemorytype, usize, DevicePtr, usize, usize, usize, usize, usize, usize);

fn side(p: Place, width: usize, height: usize) -> Side {
    use sys::CUmemorytype as T;
    match p {
        Place::Host { ptr, row, slice } => {
            let pitch = row.max(width);
            (T::CU_MEMORYTYPE_HOST, ptr, 0, 0, 0, 0, 0, pitch, if row == 0 { height } else { slice / pitch })
        }
        Place::Device { ptr, row, slice } => {
            let pitch = row.max(width);
            (
                T::CU_MEMORYTYPE_DEVICE,
                0,
                ptr,
                0,
                0,
                0,
                0,
                pitch,
                if row == 0 { height } else { slice / pitch },
            )
        }
        Place::Array { array, x, y, z } => (T::CU_MEMORYTYPE_ARRAY, 0, 0, array, x, y, z, 0, 0),
    }
}

/// Copies a box of `width` bytes x `height` rows x `depth` slices from `src` to `dst` on
/// `stream` (cuMemcpy3DAsync), or between contexts when both are given (cuMemcpy3DPeerAsync).
///
/// # Safety
/// Host places hold the bytes the box covers (writable for the destination), valid and left
/// alone until the copy is done on `stream`; arrays and device memory belong to the given
/// contexts (or to the current one).
pub unsafe fn copy_box(
    stream: &Stream,
    src: Place,
    dst: Place,
    width: usize,
    height: usize,
    depth: usize,
    peer: Option<(sys::CUcontext, sys::CUcontext)>,
) -> CudaResult<()> {
    if width == 0 || height == 0 || depth == 0 {
        return Ok(());
    }
    // Slices that are not a whole number of rows apart cannot be one call: one per slice.
    let (calls, per_call) = if src.whole_rows() && dst.whole_rows() { (1, depth) } else { (depth, 1) };
    for z in 0..calls {
        let (s, d) = (side(src.at_slice(z), width, height), side(dst.at_slice(z), width, height));
        let r = match peer {
            None => {
                let p = sys::CUDA_MEMCPY3D {
                    srcXInBytes: s.4,
                    srcY: s.5,
                    srcZ: s.6,
                    srcLOD: 0,
                    srcMemoryType: s.0,
                    srcHost: s.1 as *const c_void,
                    srcDevice: s.2,
                    srcArray: s.3 as sys::CUarray,
                    reserved0: std::ptr::null_mut(),
                    srcPitch: s.7,
                    srcHeight: s.8,
                    dstXInBytes: d.4,
                    dstY: d.5,
                    dstZ: d.6,
                    dstLOD: 0,
                    dstMemoryType: d.0,
                    dstHost: d.1 as *mut c_void,
                    dstDevice: d.2,
                    dstArray: d.3 as sys::CUarray,
                    reserved1: std::ptr::null_mut(),
                    dstPitch: d.7,
                    dstHeight: d.8,
                    WidthInBytes: width,
                    Height: height,
                    Depth: per_call,
                };
                // SAFETY: the places are valid (this function's contract).
                unsafe { sys::cuMemcpy3DAsync_v2(&p, stream.0) }
            }
            Some((src_ctx, dst_ctx)) => {
                let p = sys::CUDA_MEMCPY3D_PEER {
                    srcXInBytes: s.4,
                    srcY: s.5,
                    srcZ: s.6,
                    srcLOD: 0,
                    srcMemoryType: s.0,
                    srcHost: s.1 as *const c_void,
                    srcDevice: s.2,
                    srcArray: s.3 as sys::CUarray,
                    srcContext: src_ctx,
                    srcPitch: s.7,
                    srcHeight: s.8,
                    dstXInBytes: d.4,
                    dstY: d.5,
                    dstZ: d.6,
                    dstLOD: 0,
                    dstMemoryType: d.0,
                    dstHost: d.1 as *mut c_void,
                    dstDevice: d.2,
                    dstArray: d.3 as sys::CUarray,
                    dstContext: dst_ctx,
                    dstPitch: d.7,
                    dstHeight: d.8,
                    WidthInBytes: width,
                    Height: height,
                    Depth: per_call,
                };
                // SAFETY: the places are valid and owned by these contexts (this function's contract).
                unsafe { sys::cuMemcpy3DPeerAsync(&p, stream.0) }
            }
        };
        check(r)?;
    }
    Ok(())
}
