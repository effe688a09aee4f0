//! The commands on images (clEnqueueRead/Write/Copy/FillImage, the copies between images and
//! buffers, map and unmap, migration): the work each enqueues, on the `Mem` whose `image` is set.
//! Apart from image.rs (the image's storage and coherence) so that image.rs, which memory.rs
//! holds, need not import memory.rs.
use super::coherence::{bit, HOST};
use super::image::{host_array_copy, HostCopy, Image, Layout, Mapping, Shape};
use super::memory::Mem;
use super::queue::Queue;
use crate::base::entry::{lock, CLResult};
use crate::base::handle::Cl;
use crate::cl::*;
use crate::cuda::array::{copy_box, Place};
use crate::cuda::memory::{DeviceAlloc, DevicePtr, PinnedAlloc};
use std::ffi::c_void;
use std::sync::Arc;

fn image_of(mem: &Mem) -> CLResult<&Image> {
    mem.image.as_deref().ok_or(CL_INVALID_MEM_OBJECT)
}

/// Work of clEnqueueReadImage / clEnqueueWriteImage (`to_host`: read) on an image kept in
/// arrays. `host` is the application's pointer (at the region's first pixel) and pitches.
///
/// # Safety
/// `host` holds the region with those pitches (writable for a read), valid and left alone until
/// the command completes.
pub unsafe fn host_transfer(
    mem: &Arc<Cl<Mem>>,
    to_host: bool,
    origin: [usize; 3],
    region: [usize; 3],
    host: *mut c_void,
    layout: Layout,
) -> impl FnOnce(&Queue) -> CLResult<()> + Send + 'static {
    let (mem, hp) = (mem.clone(), host as usize);
    move |q: &Queue| {
        let img = image_of(&mem)?;
        let e = img.element_size();
        let h = layout.host(&img.shape, hp, [0; 3], e);
        let mut st = lock(&img.state);
        let a = if to_host {
            img.ensure_valid(&mut st, q)?
        } else {
            img.array_for_overwrite(&mut st, q, origin, region)?
        };
        let (arr, b) = img.array_place(a, origin, region);
        // SAFETY: the host side is valid until the command completes (contract).
        unsafe { host_array_copy(&q.stream, &q.cuda, to_host, h, arr, b) }?;
        if !to_host {
            img.written(&mut st, q);
        }
        Ok(())
    }
}

/// One end of an image or buffer copy.
pub enum End {
    /// An image kept in arrays, at `origin`.
    Image(Arc<Cl<Mem>>, [usize; 3]),
    /// Linear memory: a buffer (or an image1d_buffer) at byte `offset` from its start; the
    /// region is tightly packed there in the other end's shape.
    Linear(Arc<Cl<Mem>>, usize),
}

/// Work of clEnqueueCopyImage, clEnqueueCopyImageToBuffer and clEnqueueCopyBufferToImage, for
/// any mix of array images and linear memory. `shape` is for linear ends (the image end's).
pub fn copy_work(
    src: End,
    dst: End,
    region: [usize; 3],
    e: usize,
    linear_shape: Shape,
) -> impl Fn(&Queue) -> CLResult<()> + Send + Sync + 'static {
    move |q: &Queue| {
        let tight = linear_shape.tight(region, e);
        // The source: made valid on q's device, its place and box.
        let (sp, sb) = match &src {
            End::Image(m, o) => {
                let img = image_of(m)?;
                let mut st = lock(&img.state);
                let a = img.ensure_valid(&mut st, q)?;
                img.array_place(a, *o, region)
            }
            End::Linear(m, off) => {
                let base = m.device_ptr(q)? + *off as DevicePtr;
                let (_, b) = linear_shape.cuda_box([0; 3], region, e);
                (tight.device(&linear_shape, base, [0; 3], e), b)
            }
        };
        match &dst {
            End::Image(m, o) => {
                // Array to array goes through linear device memory: on the H100 (CUDA 13) a
                // copy between two places of one layered array left the destination unchanged.
                let bounce = match &src {
                    End::Image(..) => {
                        let t = DeviceAlloc::new(sb[0] * sb[1] * sb[2]).map_err(|e| e.alloc_code())?;
                        let tp = Place::Device { ptr: t.ptr, row: sb[0], slice: sb[0] * sb[1] };
                        copy_boxes(q, sp, sb, tp, sb, e)?;
                        Some(t)
                    }
                    End::Linear(..) => None,
                };
                let img = image_of(m)?;
                let mut st = lock(&img.state);
                let a = img.array_for_overwrite(&mut st, q, *o, region)?;
                let (dp, db) = img.array_place(a, *o, region);
                match &bounce {
                    Some(t) => {
                        let tp = Place::Device { ptr: t.ptr, row: db[0], slice: db[0] * db[1] };
                        copy_boxes(q, tp, db, dp, db, e)?;
                        // The temporary is freed when this returns: the copies must be done.
                        q.stream.synchronize()?;
                    }
                    None => copy_boxes(q, sp, sb, dp, db, e)?,
                }
                img.written(&mut st, q);
                Ok(())
            }
            End::Linear(m, off) => {
                let len = tight.span(&linear_shape, region, e);
                let (_, db) = linear_shape.cuda_box([0; 3], region, e);
                m.overwrite_with(q, *off, len, |d| {
                    copy_boxes(q, sp, sb, tight.device(&linear_shape, d, [0; 3], e), db, e)
                })
            }
        }
    }
}

/// Copies between two places whose boxes hold the same pixels: one call when the boxes have
/// the same shape, else (a 1-D array's layers against another image's rows) row by row.
fn copy_boxes(q: &Queue, sp: Place, sb: [usize; 3], dp: Place, db: [usize; 3], e: usize) -> CLResult<()> {
    if sb == db {
        // SAFETY: device memory and arrays only.
        return unsafe { copy_box(&q.stream, sp, dp, sb[0], sb[1], sb[2], None) }.map_err(Into::into);
    }
    let _ = e;
    let rows = |b: [usize; 3]| (0..b[2]).flat_map(move |z| (0..b[1]).map(move |y| (y, z)));
    for ((sy, sz), (dy, dz)) in rows(sb).zip(rows(db)) {
        // SAFETY: device memory and arrays only.
        unsafe { copy_box(&q.stream, row_of(sp, sy, sz), row_of(dp, dy, dz), sb[0], 1, 1, None) }?;
    }
    Ok(())
}

/// The place of row `y` of slice `z` of a box starting at `p`.
fn row_of(p: Place, y: usize, z: usize) -> Place {
    match p {
        Place::Array { array, x, y: y0, z: z0 } => Place::Array { array, x, y: y0 + y, z: z0 + z },
        Place::Device { ptr, row, slice } => {
            Place::Device { ptr: ptr + (y * row + z * slice) as DevicePtr, row, slice }
        }
        Place::Host { ptr, row, slice } => Place::Host { ptr: ptr + y * row + z * slice, row, slice },
    }
}

/// Work of clEnqueueFillImage on an image kept in arrays: `pixel` (already converted) repeated
/// over the region in host memory, then copied.
pub fn fill_work(
    mem: &Arc<Cl<Mem>>,
    pixel: Vec<u8>,
    origin: [usize; 3],
    region: [usize; 3],
) -> impl Fn(&Queue) -> CLResult<()> + Send + Sync + 'static {
    let mem = mem.clone();
    move |q: &Queue| {
        let img = image_of(&mem)?;
        let e = img.element_size();
        let tight = img.shape.tight(region, e);
        let n = region[0] * region[1] * region[2];
        let data: Vec<u8> = pixel.iter().copied().cycle().take(n * e).collect();
        let mut st = lock(&img.state);
        let a = img.array_for_overwrite(&mut st, q, origin, region)?;
        let (arr, b) = img.array_place(a, origin, region);
        let h = tight.host(&img.shape, data.as_ptr() as usize, [0; 3], e);
        // SAFETY: `data` holds the region; the stream is synchronised before it is freed.
        unsafe { host_array_copy(&q.stream, &q.cuda, false, h, arr, b) }?;
        q.stream.synchronize()?;
        img.written(&mut st, q);
        Ok(())
    }
}

/// clEnqueueMapImage on an image kept in arrays, the enqueue-time part: the host pointer
/// (making a pinned mirror when the image has no host memory yet), its pitches, and the work
/// that brings the region there.
pub fn map(
    mem: &Arc<Cl<Mem>>,
    q: &Queue,
    flags: cl_map_flags,
    origin: [usize; 3],
    region: [usize; 3],
) -> CLResult<(*mut c_void, Layout, impl FnOnce(&Queue) -> CLResult<()> + Send + 'static)> {
    let img = image_of(mem)?;
    let e = img.element_size();
    let (ptr, layout) = {
        let mut st = lock(&img.state);
        if st.host.is_none() {
            q.make_current()?;
            let p = PinnedAlloc::new(img.tight_size()).map_err(|_| CL_MAP_FAILURE)?;
            let tight = img.shape.tight(img.shape.extent(), e);
            st.host = Some(HostCopy { ptr: p.host as usize, layout: tight, _pinned: Some(p) });
            st.coh.new_host_copy();
        }
        let h = st.host.as_ref().ok_or(CL_MAP_FAILURE)?;
        (h.ptr + h.layout.offset(&img.shape, origin, e), h.layout)
    };
    let write = flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION) as cl_map_flags != 0;
    let read_in = flags & CL_MAP_WRITE_INVALIDATE_REGION as cl_map_flags == 0;
    lock(&img.maps).push(Mapping { ptr, origin, region, write });
    mem.count_map(true);
    let m = mem.clone();
    let work = move |q: &Queue| {
        let img = image_of(&m)?;
        let mut st = lock(&img.state);
        if !read_in || st.coh.host_valid() {
            return Ok(());
        }
        let a = img.ensure_valid(&mut st, q)?;
        let (arr, b) = img.array_place(a, origin, region);
        let h = layout.host(
            &img.shape,
            ptr - layout.offset(&img.shape, origin, img.element_size()),
            origin,
            img.element_size(),
        );
        // SAFETY: the image's own host copy (or the application's USE_HOST_PTR memory), which
        // holds the mapped region.
        unsafe { host_array_copy(&q.stream, &q.cuda, true, h, arr, b) }?;
        if img.shape.covers(origin, region) {
            let v = st.coh.valid() | HOST;
            st.coh.set(v, 0);
            st.coh.note_last(q);
        }
        Ok(())
    };
    Ok((ptr as *mut c_void, layout, work))
}

/// Undoes a mapping that was never made (its command failed to enqueue).
pub fn forget_map(mem: &Mem, ptr: *mut c_void) {
    if let Some(img) = mem.array_image() {
        let mut maps = lock(&img.maps);
        if let Some(i) = maps.iter().position(|m| m.ptr == ptr as usize) {
            maps.remove(i);
            mem.count_map(false);
        }
    }
}

/// clEnqueueUnmapMemObject on an image kept in arrays: finds the mapping (CL_INVALID_VALUE when
/// `ptr` is not mapped) and returns the work that writes it back.
pub fn unmap(
    mem: &Arc<Cl<Mem>>,
    ptr: *mut c_void,
) -> CLResult<impl FnOnce(&Queue) -> CLResult<()> + Send + 'static> {
    let img = image_of(mem)?;
    let m = {
        let mut maps = lock(&img.maps);
        let i = maps.iter().position(|m| m.ptr == ptr as usize).ok_or(CL_INVALID_VALUE)?;
        maps.remove(i)
    };
    mem.count_map(false);
    let mem = mem.clone();
    Ok(move |q: &Queue| {
        if !m.write {
            return Ok(());
        }
        let img = image_of(&mem)?;
        let e = img.element_size();
        let mut st = lock(&img.state);
        let host_valid = st.coh.host_valid();
        if img.shape.covers(m.origin, m.region) {
            // Every pixel is on the host now: devices fetch it when they next need it.
            st.coh.set(HOST, 0);
            st.coh.note_last(q);
            return Ok(());
        }
        let a = img.ensure_valid(&mut st, q)?;
        let (arr, b) = img.array_place(a, m.origin, m.region);
        let layout = st.host.as_ref().ok_or(CL_INVALID_VALUE)?.layout;
        let h = layout.host(&img.shape, m.ptr - layout.offset(&img.shape, m.origin, e), m.origin, e);
        // SAFETY: the mapped region of the image's host memory, live while the image is.
        unsafe { host_array_copy(&q.stream, &q.cuda, false, h, arr, b) }?;
        st.coh.set(bit(q.dev) | if host_valid { HOST } else { 0 }, 0);
        st.coh.note_last(q);
        Ok(())
    })
}

/// Work of clEnqueueMigrateMemObjects for an image kept in arrays.
pub fn migrate(
    mem: &Arc<Cl<Mem>>,
    to_host: bool,
    undefined: bool,
) -> impl FnOnce(&Queue) -> CLResult<()> + Send + 'static {
    let mem = mem.clone();
    move |q: &Queue| {
        let img = image_of(&mem)?;
        let mut st = lock(&img.state);
        if undefined {
            img.alloc(&mut st, q)?;
            if !to_host {
                st.coh.set(bit(q.dev), 0);
            }
            return Ok(());
        }
        if to_host && !st.coh.host_valid() {
            if let Some((hp, layout)) = st.host.as_ref().map(|h| (h.ptr, h.layout)) {
                let a = img.ensure_valid(&mut st, q)?;
                let ext = img.shape.extent();
                let (arr, b) = img.array_place(a, [0; 3], ext);
                let h = layout.host(&img.shape, hp, [0; 3], img.element_size());
                // SAFETY: the image's own host copy, which holds the whole image.
                unsafe { host_array_copy(&q.stream, &q.cuda, true, h, arr, b) }?;
                let v = st.coh.valid() | HOST;
                st.coh.set(v, 0);
                st.coh.note_last(q);
            }
            return Ok(());
        }
        img.ensure_valid(&mut st, q).map(|_| ())
    }
}
