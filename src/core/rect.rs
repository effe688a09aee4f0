//! Rectangular copies (clEnqueue{Read,Write,Copy}BufferRect): pitches with the spec's defaults,
//! the copy between two ends (host or device memory), and the overlap rule for copies inside
//! one buffer.
use crate::base::entry::CLResult;
use crate::cl::*;
use crate::cuda::memory::{self as cm, DevicePtr};
use crate::cuda::stream::Stream;
use crate::cuda::sys;
use std::ffi::c_void;

/// One side of a rect copy: the byte offset of its origin and its pitches (defaults applied).
#[derive(Clone, Copy, Debug)]
pub struct Pitched {
    pub origin: usize,
    pub row: usize,
    pub slice: usize,
}

impl Pitched {
    /// Applies the spec's defaults (0 -> tight) and checks them (CL_INVALID_VALUE).
    pub fn new(origin: [usize; 3], region: [usize; 3], row: usize, slice: usize) -> CLResult<Pitched> {
        let row = if row == 0 { region[0] } else { row };
        if row < region[0] {
            return Err(CL_INVALID_VALUE);
        }
        let min_slice = region[1].checked_mul(row).ok_or(CL_INVALID_VALUE)?;
        let slice = if slice == 0 { min_slice } else { slice };
        if slice < min_slice {
            return Err(CL_INVALID_VALUE);
        }
        let o = origin[2]
            .checked_mul(slice)
            .and_then(|z| origin[1].checked_mul(row).and_then(|y| z.checked_add(y)))
            .and_then(|v| v.checked_add(origin[0]))
            .ok_or(CL_INVALID_VALUE)?;
        Ok(Pitched { origin: o, row, slice })
    }

    /// One past the last byte the copy touches, relative to the start of the memory.
    pub fn end(&self, region: [usize; 3]) -> Option<usize> {
        let last =
            (region[2] - 1).checked_mul(self.slice)?.checked_add((region[1] - 1).checked_mul(self.row)?)?;
        self.origin.checked_add(last)?.checked_add(region[0])
    }
}

#[derive(Clone, Copy)]
pub(crate) enum End {
    Host(usize),
    Dev(DevicePtr),
}

/// # Safety
/// Host ends hold the bytes the pitches and region describe (writable for a destination), valid
/// until the copy on `stream` is done.
pub(crate) unsafe fn copy_rect(
    stream: &Stream,
    src: End,
    sp: Pitched,
    dst: End,
    dp: Pitched,
    region: [usize; 3],
) -> CLResult<()> {
    let whole = sp.slice.is_multiple_of(sp.row) && dp.slice.is_multiple_of(dp.row);
    let (depth_per_call, calls) = if whole { (region[2], 1) } else { (1, region[2]) };
    for z in 0..calls {
        let (src_type, src_host, src_dev) = match shift(src, z * sp.slice) {
            End::Host(h) => (sys::CUmemorytype::CU_MEMORYTYPE_HOST, h as *const c_void, 0),
            End::Dev(d) => (sys::CUmemorytype::CU_MEMORYTYPE_DEVICE, std::ptr::null(), d),
        };
        let (dst_type, dst_host, dst_dev) = match shift(dst, z * dp.slice) {
            End::Host(h) => (sys::CUmemorytype::CU_MEMORYTYPE_HOST, h as *mut c_void, 0),
            End::Dev(d) => (sys::CUmemorytype::CU_MEMORYTYPE_DEVICE, std::ptr::null_mut(), d),
        };
        let mut p = sys::CUDA_MEMCPY3D {
            srcXInBytes: 0,
            srcY: 0,
            srcZ: 0,
            srcLOD: 0,
            srcMemoryType: src_type,
            srcHost: src_host,
            srcDevice: src_dev,
            srcArray: std::ptr::null_mut(),
            reserved0: std::ptr::null_mut(),
            srcPitch: 0,
            srcHeight: 0,
            dstXInBytes: 0,
            dstY: 0,
            dstZ: 0,
            dstLOD: 0,
            dstMemoryType: dst_type,
            dstHost: dst_host,
            dstDevice: dst_dev,
            dstArray: std::ptr::null_mut(),
            reserved1: std::ptr::null_mut(),
            dstPitch: 0,
            dstHeight: 0,
            WidthInBytes: 0,
            Height: 0,
            Depth: 0,
        };
        p.srcPitch = sp.row;
        p.dstPitch = dp.row;
        p.srcHeight = if whole { sp.slice / sp.row } else { region[1] };
        p.dstHeight = if whole { dp.slice / dp.row } else { region[1] };
        p.WidthInBytes = region[0];
        p.Height = region[1];
        p.Depth = depth_per_call;
        // SAFETY: the host ends are valid (contract).
        if unsafe { cm::copy_3d(stream, &p) }.is_err() {
            // Pitches beyond what the copy engine takes: row by row.
            for zz in 0..depth_per_call {
                for y in 0..region[1] {
                    let so = (z + zz) * sp.slice + y * sp.row;
                    let doff = (z + zz) * dp.slice + y * dp.row;
                    // SAFETY: one row of the ranges this function's contract covers.
                    unsafe { copy_linear(stream, shift(src, so), shift(dst, doff), region[0]) }?;
                }
            }
        }
    }
    Ok(())
}

fn shift(e: End, by: usize) -> End {
    match e {
        End::Host(h) => End::Host(h + by),
        End::Dev(d) => End::Dev(d + by as DevicePtr),
    }
}

/// # Safety
/// Host ends have `n` bytes (writable for a destination), valid until the copy is done.
unsafe fn copy_linear(stream: &Stream, src: End, dst: End, n: usize) -> CLResult<()> {
    match (src, dst) {
        // SAFETY: valid host ranges (contract).
        (End::Host(s), End::Dev(d)) => unsafe { cm::copy_htod(stream, d, s as *const c_void, n) },
        // SAFETY: valid host ranges (contract).
        (End::Dev(s), End::Host(d)) => unsafe { cm::copy_dtoh(stream, d as *mut c_void, s, n) },
        (End::Dev(s), End::Dev(d)) => cm::copy_dtod(stream, d, s, n),
        (End::Host(s), End::Host(d)) => {
            // SAFETY: valid host ranges (contract).
            unsafe { std::ptr::copy(s as *const u8, d as *mut u8, n) };
            Ok(())
        }
    }
    .map_err(Into::into)
}

/// True when two rect regions in the same memory (same pitches) overlap: the OpenCL 1.2
/// specification's `check_copy_overlap` (appendix), which clEnqueueCopyBufferRect follows.
pub fn rects_overlap(src: [usize; 3], dst: [usize; 3], region: [usize; 3], row: usize, slice: usize) -> bool {
    let slice_size = (region[1] - 1) * row + region[0];
    let block_size = (region[2] - 1) * slice + slice_size;
    let src_start = src[2] * slice + src[1] * row + src[0];
    let dst_start = dst[2] * slice + dst[1] * row + dst[0];
    let (src_end, dst_end) = (src_start + block_size, dst_start + block_size);
    if dst_end <= src_start || src_end <= dst_start {
        return false;
    }
    // region[0] of one fits in the gap between region[0] and the row pitch of the other.
    let (sx, dx) = (src[0] % row, dst[0] % row);
    if (dx >= sx + region[0] && dx + region[0] <= sx + row)
        || (sx >= dx + region[0] && sx + region[0] <= dx + row)
    {
        return false;
    }
    // The same with rows in a slice.
    let (sy, dy) = ((src[1] * row + src[0]) % slice, (dst[1] * row + dst[0]) % slice);
    if (dy >= sy + slice_size && dy + slice_size <= sy + slice)
        || (sy >= dy + slice_size && sy + slice_size <= dy + slice)
    {
        return false;
    }
    true
}
