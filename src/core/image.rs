//! Images: geometry, storage and data movement (the interface with the kernel side, the
//! descriptor's layout, is written out in ptxgen/README.md, "Images").
//!
//! An image is a `Mem` whose `image` is set (one cl_mem handle type for buffers and images).
//! Every image but image1d_buffer keeps its pixels in one CUDA array per device of the context
//! (made on first use there, at creation in single-device contexts), each with a surface object
//! and a 64-byte descriptor in device memory that kernels receive. Which copies hold the latest
//! pixels (a host copy: the application's memory for CL_MEM_USE_HOST_PTR, pinned memory for
//! CL_MEM_ALLOC_HOST_PTR or a mirror made for maps; the arrays) is `coherence.rs`'s protocol,
//! as for buffers: a command brings the pixels to its device first (`ensure_valid`, peer
//! copies between devices) and marks what it changed (`written`).
//! An image1d_buffer shares its buffer's storage like a sub-buffer does; only its descriptors
//! (one per device, pointing at the buffer's memory there) are kept here.
use super::coherence::{bit, Coherence, Copies, ALL, HOST};
use super::context::Context;
use super::image_format::PixelFormat;
pub use super::image_shape::{Layout, Shape};
use super::queue::Queue;
use super::transfer::aux;
use crate::base::entry::{lock, CLResult};
use crate::cl::*;
use crate::cuda::array::{copy_box, Place, SurfaceArray};
use crate::cuda::context::PrimaryContext;
use crate::cuda::memory::{self as cm, DeviceAlloc, DevicePtr, PinnedAlloc};
use crate::cuda::stream::Stream;
use std::ffi::c_void;
use std::sync::{Arc, Mutex};

/// Bytes of a descriptor (the contract's table).
pub const DESCRIPTOR_SIZE: usize = 64;

pub(super) struct HostCopy {
    pub(super) ptr: usize,
    pub(super) layout: Layout,
    /// Ours (CL_MEM_ALLOC_HOST_PTR, or a mirror); None: the application's (USE_HOST_PTR).
    pub(super) _pinned: Option<PinnedAlloc>,
}

pub(super) struct DevCopy {
    pub(super) arr: SurfaceArray,
    pub(super) desc: DeviceAlloc,
}

pub(super) struct State {
    pub(super) host: Option<HostCopy>,
    pub(super) dev: Vec<Option<DevCopy>>,
    /// Which copies hold the latest pixels.
    pub(super) coh: Coherence,
}

/// An image's copies, as the coherence protocol moves them: the whole image at once.
struct ImageCopies<'a> {
    img: &'a Image,
    host: &'a Option<HostCopy>,
    dev: &'a [Option<DevCopy>],
}

impl ImageCopies<'_> {
    /// The whole of device i's array as a copy end, and the box in CUDA's terms.
    fn array(&self, i: usize) -> CLResult<(Place, [usize; 3])> {
        let a = self.dev.get(i).and_then(Option::as_ref).ok_or(CL_OUT_OF_RESOURCES)?;
        Ok(self.img.array_place(a.arr.array as usize, [0; 3], self.img.shape.extent()))
    }
}

impl Copies for ImageCopies<'_> {
    fn has_host(&self) -> bool {
        self.host.is_some()
    }

    fn has_device(&self, j: usize) -> bool {
        matches!(self.dev.get(j), Some(Some(_)))
    }

    fn host_to_device(&self, q: &Queue) -> CLResult<()> {
        let (to, b) = self.array(q.dev)?;
        if let Some(h) = self.host {
            let from = h.layout.host(&self.img.shape, h.ptr, [0; 3], self.img.element_size());
            // SAFETY: the image's own host copy, alive as long as the image.
            unsafe { host_array_copy(&q.stream, &q.cuda, false, from, to, b) }?;
        }
        Ok(())
    }

    fn device_to_device(&self, q: &Queue, j: usize) -> CLResult<()> {
        let (to, b) = self.array(q.dev)?;
        let (from, _) = self.array(j)?;
        let src_ctx = self.img.ctxs.get(j).ok_or(CL_OUT_OF_RESOURCES)?;
        // SAFETY: arrays of the context's own live CUDA contexts.
        Ok(unsafe { copy_box(&q.stream, from, to, b[0], b[1], b[2], Some((src_ctx.ctx, q.cuda.ctx))) }?)
    }
}

/// One mapping, from clEnqueueMapImage to clEnqueueUnmapMemObject.
pub(super) struct Mapping {
    pub(super) ptr: usize,
    pub(super) origin: [usize; 3],
    pub(super) region: [usize; 3],
    pub(super) write: bool,
}

pub struct Image {
    pub shape: Shape,
    pub format: PixelFormat,
    /// CL_IMAGE_ROW_PITCH / SLICE_PITCH: the host pointer's pitches, or tight ones.
    pub layout: Layout,
    /// False for image1d_buffer (no arrays; the buffer's memory holds the pixels).
    arrays: bool,
    multi: bool,
    ctxs: Vec<Arc<PrimaryContext>>,
    pub(super) state: Mutex<State>,
    /// image1d_buffer: the descriptor per device.
    linear_descs: Mutex<Vec<Option<DeviceAlloc>>>,
    pub(super) maps: Mutex<Vec<Mapping>>,
}

impl Drop for Image {
    fn drop(&mut self) {
        let ctxs = &self.ctxs;
        let st = self.state.get_mut().unwrap_or_else(|e| e.into_inner());
        let descs = self.linear_descs.get_mut().unwrap_or_else(|e| e.into_inner());
        crate::cuda::current::preserving_current_context(|| {
            for (i, c) in ctxs.iter().enumerate() {
                let has =
                    st.dev.get(i).is_some_and(|d| d.is_some()) || descs.get(i).is_some_and(|d| d.is_some());
                if has && c.make_current().is_ok() {
                    // A kernel or copy may still use the surface object: destroying it under a
                    // running kernel is undefined, so the device's work finishes first.
                    let _ = cm::synchronize_current();
                    if let Some(d) = st.dev.get_mut(i) {
                        *d = None;
                    }
                    if let Some(d) = descs.get_mut(i) {
                        *d = None;
                    }
                }
            }
            if let Some(c) = ctxs.first() {
                let _ = c.make_current();
            }
            st.host = None;
        });
    }
}

impl Image {
    pub fn has_arrays(&self) -> bool {
        self.arrays
    }

    pub fn element_size(&self) -> usize {
        self.format.element_size()
    }

    /// Bytes of the pixels, tightly packed (CL_MEM_SIZE).
    pub fn tight_size(&self) -> usize {
        let e = self.shape.extent();
        e[0] * e[1] * e[2] * self.element_size()
    }

    /// The descriptor kernels receive (see the contract's table): `texture` at byte 56 (0 when
    /// the image has none).
    fn descriptor(&self, surface: u64, data: u64, texture: u64) -> [u8; DESCRIPTOR_SIZE] {
        let s = &self.shape;
        let words: [u32; 9] = [
            s.width as u32,
            s.height as u32,
            s.depth as u32,
            s.layers as u32,
            self.format.order,
            self.format.data_type,
            self.element_size() as u32,
            self.format.channels,
            s.ty,
        ];
        let mut d = [0u8; DESCRIPTOR_SIZE];
        d[..8].copy_from_slice(&surface.to_le_bytes());
        d[8..16].copy_from_slice(&data.to_le_bytes());
        for (i, w) in words.iter().enumerate() {
            d[16 + 4 * i..20 + 4 * i].copy_from_slice(&w.to_le_bytes());
        }
        d[56..64].copy_from_slice(&texture.to_le_bytes());
        d
    }

    /// Whether kernels read this image through a texture object as well as its surface: 2-D
    /// RGBA FLOAT images, whose 16-byte texels a texture fetch reads faster than a surface load
    /// (a 3x3 filter in CUDA on the H100: 1755 against 1529 GB/s); the kernel side reads such
    /// images through it only (at integer texel coordinates: the same bits as a surface load).
    fn wants_texture(&self) -> bool {
        self.shape.ty == CL_MEM_OBJECT_IMAGE2D
            && self.format.order == CL_RGBA
            && self.format.data_type == CL_FLOAT
    }

    /// A new image's storage (the `Mem` around it is made by the caller). With `host` (the
    /// application's pointer and pitches) the flags say whether it is used in place or copied.
    /// Single-device contexts make the array at once, so allocation failures surface here.
    ///
    /// # Safety
    /// With CL_MEM_USE_HOST_PTR or CL_MEM_COPY_HOST_PTR, `host` names memory holding the whole
    /// image with its pitches; with USE_HOST_PTR it stays allocated while the image lives.
    pub unsafe fn new(
        context: &Context,
        flags: cl_mem_flags,
        shape: Shape,
        format: PixelFormat,
        host: Option<(*mut c_void, Layout)>,
    ) -> CLResult<Image> {
        let n = context.devices.len();
        if n == 0 || n > super::coherence::MAX_DEVICES {
            return Err(CL_OUT_OF_RESOURCES);
        }
        let e = format.element_size();
        let tight = shape.tight(shape.extent(), e);
        let linear = shape.ty == CL_MEM_OBJECT_IMAGE1D_BUFFER as cl_mem_object_type;
        let f = |b: u32| flags & b as cl_mem_flags != 0;
        let layout = match host {
            Some((_, l)) if f(CL_MEM_USE_HOST_PTR) => l,
            _ => tight,
        };
        let mut img = Image {
            shape,
            format,
            layout,
            arrays: !linear,
            multi: n > 1,
            ctxs: context.cuda.clone(),
            state: Mutex::new(State {
                host: None,
                dev: (0..n).map(|_| None).collect(),
                coh: Coherence::new(ALL, n > 1),
            }),
            linear_descs: Mutex::new((0..n).map(|_| None).collect()),
            maps: Mutex::new(Vec::new()),
        };
        if linear {
            return Ok(img);
        }
        let cuda0 = context.cuda.first().ok_or(CL_OUT_OF_RESOURCES)?;
        cuda0.make_current()?;
        let tight_size = img.tight_size();
        let st = img.state.get_mut().unwrap_or_else(|e| e.into_inner());
        let data = host.filter(|_| f(CL_MEM_USE_HOST_PTR) || f(CL_MEM_COPY_HOST_PTR));
        st.host = if f(CL_MEM_USE_HOST_PTR) {
            data.map(|(p, l)| HostCopy { ptr: p as usize, layout: l, _pinned: None })
        } else if f(CL_MEM_ALLOC_HOST_PTR) || (data.is_some() && n > 1) {
            let p = PinnedAlloc::new(tight_size).map_err(|e| e.alloc_code())?;
            if let Some((src, l)) = data {
                // SAFETY: the application's image (this function's contract) into our tight copy.
                unsafe { copy_host_rows(&shape, e, src as usize, l, p.host as usize, tight) };
            }
            Some(HostCopy { ptr: p.host as usize, layout: tight, _pinned: Some(p) })
        } else {
            None
        };
        if data.is_some() {
            st.coh.set(HOST, 0);
        }
        if n == 1 {
            let aux = aux(cuda0)?;
            let dev = img.make_array(&aux.stream)?;
            let st = img.state.get_mut().unwrap_or_else(|e| e.into_inner());
            if let Some((p, l)) = data {
                let (base, l) = match &st.host {
                    Some(h) => (h.ptr, h.layout),
                    None => (p as usize, l),
                };
                let (o, b) = img.shape.cuda_box([0; 3], img.shape.extent(), e);
                let arr = Place::Array { array: dev.arr.array as usize, x: o[0], y: o[1], z: o[2] };
                // SAFETY: the whole image in host memory (ours, or the application's per the
                // contract), read before the synchronisation below returns.
                unsafe {
                    host_array_copy(&aux.stream, cuda0, false, l.host(&img.shape, base, [0; 3], e), arr, b)
                }?;
                st.coh.set(bit(0) | if st.host.is_some() { HOST } else { 0 }, 0);
            }
            aux.stream.synchronize()?;
            st.dev[0] = Some(dev);
        }
        Ok(img)
    }

    /// The array, surface and descriptor for the current context's device; the descriptor is
    /// written on `stream` (from pageable memory: the driver takes it before returning).
    fn make_array(&self, stream: &Stream) -> CLResult<DevCopy> {
        let s = &self.shape;
        let (h, d) = match s.ty {
            CL_MEM_OBJECT_IMAGE1D => (0, 0),
            CL_MEM_OBJECT_IMAGE1D_ARRAY => (0, s.layers),
            CL_MEM_OBJECT_IMAGE2D => (s.height, 0),
            CL_MEM_OBJECT_IMAGE2D_ARRAY => (s.height, s.layers),
            _ => (s.height, s.depth),
        };
        let (fmt, channels) = (self.format.array_format(), self.format.channels);
        let arr = SurfaceArray::new(s.width, h, d, s.is_array(), fmt, channels, self.wants_texture())
            .map_err(|e| e.alloc_code())?;
        let desc = DeviceAlloc::new(DESCRIPTOR_SIZE).map_err(|e| e.alloc_code())?;
        let bytes = self.descriptor(arr.surface, 0, arr.texture);
        // SAFETY: a local array of DESCRIPTOR_SIZE bytes, taken by the driver before returning.
        unsafe { cm::copy_htod(stream, desc.ptr, bytes.as_ptr().cast(), DESCRIPTOR_SIZE) }?;
        Ok(DevCopy { arr, desc })
    }

    /// The array on q's device, made if needed (not brought up to date).
    pub(super) fn alloc<'a>(&self, st: &'a mut State, q: &Queue) -> CLResult<&'a DevCopy> {
        let i = q.dev;
        if st.dev.get(i).ok_or(CL_INVALID_DEVICE)?.is_none() {
            let d = self.make_array(&q.stream)?;
            st.dev[i] = Some(d);
        }
        st.dev[i].as_ref().ok_or(CL_OUT_OF_RESOURCES)
    }

    /// Makes the array on q's device hold the latest pixels (copies issued on q's stream).
    pub(super) fn ensure_valid(&self, st: &mut State, q: &Queue) -> CLResult<usize> {
        let dst = self.alloc(st, q)?.arr.array as usize;
        let copies = ImageCopies { img: self, host: &st.host, dev: &st.dev };
        st.coh.ensure(q, &copies, st.dev.len())?;
        Ok(dst)
    }

    /// A command on q changed the array there: it is now the only up-to-date copy.
    pub(super) fn written(&self, st: &mut State, q: &Queue) {
        st.coh.written(q, 0);
    }

    /// The array on q's device for a command that overwrites `region` at `origin`: brought up
    /// to date first unless the region is the whole image.
    pub(super) fn array_for_overwrite(
        &self,
        st: &mut State,
        q: &Queue,
        origin: [usize; 3],
        region: [usize; 3],
    ) -> CLResult<usize> {
        if self.shape.covers(origin, region) {
            Ok(self.alloc(st, q)?.arr.array as usize)
        } else {
            self.ensure_valid(st, q)
        }
    }

    pub(super) fn array_place(
        &self,
        array: usize,
        origin: [usize; 3],
        region: [usize; 3],
    ) -> (Place, [usize; 3]) {
        let (o, b) = self.shape.cuda_box(origin, region, self.element_size());
        (Place::Array { array, x: o[0], y: o[1], z: o[2] }, b)
    }

    /// `Mem::kernel_arg_ptr` of an image whose memory object has `flags`: the descriptor's
    /// address on q's device, and whether `note_device_write` is due after the launch (as for
    /// buffers). `buffer_arg` is the memory object's `buffer_arg_ptr` (an image1d_buffer's
    /// descriptor points at its buffer's memory).
    pub fn kernel_arg(
        &self,
        flags: cl_mem_flags,
        q: &Queue,
        read_only: bool,
        buffer_arg: impl FnOnce() -> CLResult<(DevicePtr, bool)>,
    ) -> CLResult<(DevicePtr, bool)> {
        let writes = !read_only && flags & CL_MEM_READ_ONLY as cl_mem_flags == 0;
        if !self.arrays {
            let (data, later) = buffer_arg()?;
            let mut descs = lock(&self.linear_descs);
            let slot = descs.get_mut(q.dev).ok_or(CL_INVALID_DEVICE)?;
            if slot.is_none() {
                let desc = DeviceAlloc::new(DESCRIPTOR_SIZE).map_err(|e| e.alloc_code())?;
                let bytes = self.descriptor(0, data, 0);
                // SAFETY: a local array, taken by the driver before returning (pageable).
                unsafe { cm::copy_htod(&q.stream, desc.ptr, bytes.as_ptr().cast(), DESCRIPTOR_SIZE) }?;
                *slot = Some(desc);
            }
            return Ok((slot.as_ref().map_or(0, |d| d.ptr), later));
        }
        let mut st = lock(&self.state);
        self.ensure_valid(&mut st, q)?;
        let desc = st.dev[q.dev].as_ref().map_or(0, |d| d.desc.ptr);
        if writes && !self.multi {
            self.written(&mut st, q);
        }
        Ok((desc, writes && self.multi))
    }

    /// A kernel on q's device may have written the image (after the launch).
    /// (`flags`: the memory object's.)
    pub fn note_device_write(&self, flags: cl_mem_flags, q: &Queue) {
        if flags & CL_MEM_READ_ONLY as cl_mem_flags != 0 {
            return;
        }
        let mut st = lock(&self.state);
        self.written(&mut st, q);
    }
}

/// Copies an image's rows between two host layouts (every row of every slice or layer).
///
/// # Safety
/// Both ranges hold the whole image with their layouts; the destination is writable.
unsafe fn copy_host_rows(shape: &Shape, e: usize, src: usize, sl: Layout, dst: usize, dl: Layout) {
    let ext = shape.extent();
    for z in 0..ext[2] {
        for y in 0..ext[1] {
            let (a, b) = (sl.offset(shape, [0, y, z], e), dl.offset(shape, [0, y, z], e));
            // SAFETY: one row inside both images (this function's contract).
            unsafe {
                std::ptr::copy_nonoverlapping((src + a) as *const u8, (dst + b) as *mut u8, ext[0] * e)
            };
        }
    }
}

/// A box between host memory and an array on `stream` (of `ctx`, current): staged when large
/// and pageable (`staged`), one cuMemcpy3D otherwise.
///
/// # Safety
/// `host` holds the box (writable for a read), valid until the copy is done on `stream`.
pub(super) unsafe fn host_array_copy(
    stream: &Stream,
    ctx: &PrimaryContext,
    to_host: bool,
    host: Place,
    arr: Place,
    b: [usize; 3],
) -> CLResult<()> {
    // SAFETY: this function's contract.
    if !unsafe { staged(stream, ctx, to_host, host, arr, b)? } {
        let (src, dst) = if to_host { (arr, host) } else { (host, arr) };
        // SAFETY: as above.
        unsafe { copy_box(stream, src, dst, b[0], b[1], b[2], None) }?;
    }
    Ok(())
}

/// A large transfer between pageable host memory and an array, through the staging chunks of
/// `transfer.rs` (pipelined, the host side spread over threads), one box of whole rows per
/// piece; false when staging does not apply (small, pinned memory, a chunk too small for a row).
///
/// # Safety
/// `host` holds the box (writable for a read), valid until the command completes.
pub(super) unsafe fn staged(
    stream: &Stream,
    ctx: &PrimaryContext,
    to_host: bool,
    host: Place,
    arr: Place,
    b: [usize; 3],
) -> CLResult<bool> {
    let (Place::Host { ptr, row, slice }, Place::Array { array, x, y, z }) = (host, arr) else {
        return Ok(false);
    };
    let span = (b[2] - 1) * slice + (b[1] - 1) * row + b[0];
    if cm::is_pinned(ptr as *const c_void, span) {
        return Ok(false);
    }
    // Rows one height apart (a 1-D array's layers, one-row slices) are a run of slices: pieces
    // then span slices, a box of (row, 1, n).
    let flat = b[1] == 1;
    let per_slice = if flat { b[2] } else { b[1] };
    let host_row = |r: usize| (ptr + (r / b[1]) * slice + (r % b[1]) * row) as *mut u8;
    let mut dma = |chunk: *mut c_void, first: usize, n: usize| -> CLResult<()> {
        let c = Place::Host { ptr: chunk as usize, row: b[0], slice: if flat { b[0] } else { b[0] * n } };
        let a = Place::Array { array, x, y: y + first % b[1], z: z + first / b[1] };
        let (src, dst) = if to_host { (a, c) } else { (c, a) };
        let (h, d) = if flat { (1, n) } else { (n, 1) };
        // SAFETY: the chunk holds n rows of b[0] bytes; the array box lies in the image.
        unsafe { copy_box(stream, src, dst, b[0], h, d, None) }.map_err(Into::into)
    };
    let rows = super::transfer::Rows { count: b[1] * b[2], bytes: b[0], per_slice };
    // SAFETY: host_row names the box's rows (this function's contract).
    unsafe { super::transfer::staged_rows(stream, ctx, to_host, rows, &host_row, &mut dma) }
}
