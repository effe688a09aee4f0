//! An image's geometry: its shape as OpenCL gives it and the pitches of linear memory holding it
//! (host copies, regions of host memory), and how both become CUDA's copy boxes.
use crate::base::entry::CLResult;
use crate::cl::*;
use crate::cuda::array::Place;
use crate::cuda::memory::DevicePtr;

/// An image's geometry as OpenCL gives it.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    /// CL_MEM_OBJECT_IMAGE1D ... IMAGE1D_BUFFER.
    pub ty: cl_mem_object_type,
    pub width: usize,
    /// 1 for 1-D images and 1-D arrays.
    pub height: usize,
    /// 1 unless 3-D.
    pub depth: usize,
    /// Layers; 1 unless an image array.
    pub layers: usize,
}

impl Shape {
    pub fn is_1d_array(&self) -> bool {
        self.ty == CL_MEM_OBJECT_IMAGE1D_ARRAY as cl_mem_object_type
    }

    pub fn is_array(&self) -> bool {
        self.is_1d_array() || self.ty == CL_MEM_OBJECT_IMAGE2D_ARRAY as cl_mem_object_type
    }

    /// The extent in OpenCL's origin/region terms: (w, layers, 1) for a 1-D array, (w, h,
    /// layers) for a 2-D array, (w, h, d) otherwise.
    pub fn extent(&self) -> [usize; 3] {
        if self.is_1d_array() {
            [self.width, self.layers, 1]
        } else if self.is_array() {
            [self.width, self.height, self.layers]
        } else {
            [self.width, self.height, self.depth]
        }
    }

    /// CL_INVALID_VALUE unless origin + region lies inside the image (region has no zero).
    pub fn check_region(&self, origin: [usize; 3], region: [usize; 3]) -> CLResult<()> {
        let e = self.extent();
        for d in 0..3 {
            match origin[d].checked_add(region[d]) {
                Some(end) if end <= e[d] && region[d] > 0 => {}
                _ => return Err(CL_INVALID_VALUE),
            }
        }
        Ok(())
    }

    pub fn covers(&self, origin: [usize; 3], region: [usize; 3]) -> bool {
        origin == [0, 0, 0] && region == self.extent()
    }

    /// The box a region is in CUDA's terms: (x in bytes, y, z) and (width in bytes, height,
    /// depth). A 1-D array's layers are CUDA's z.
    pub(crate) fn cuda_box(
        &self,
        origin: [usize; 3],
        region: [usize; 3],
        e: usize,
    ) -> ([usize; 3], [usize; 3]) {
        if self.is_1d_array() {
            ([origin[0] * e, 0, origin[1]], [region[0] * e, 1, region[1]])
        } else {
            ([origin[0] * e, origin[1], origin[2]], [region[0] * e, region[1], region[2]])
        }
    }

    /// Tight host pitches for a region (or the whole image) of this shape.
    pub fn tight(&self, region: [usize; 3], e: usize) -> Layout {
        let row = region[0] * e;
        Layout { row, slice: if self.is_1d_array() { row } else { row * region[1] } }
    }
}

/// Pitches of linear memory holding an image or a region: `row` bytes between rows, `slice`
/// between slices (between layers for a 1-D array, whose rows are its layers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub row: usize,
    pub slice: usize,
}

impl Layout {
    /// Byte offset of the pixel at `origin`.
    pub(crate) fn offset(&self, shape: &Shape, origin: [usize; 3], e: usize) -> usize {
        if shape.is_1d_array() {
            origin[0] * e + origin[1] * self.slice
        } else {
            origin[0] * e + origin[1] * self.row + origin[2] * self.slice
        }
    }

    /// Bytes from the first to one past the last byte of a region at the origin.
    pub fn span(&self, shape: &Shape, region: [usize; 3], e: usize) -> usize {
        let last = [region[0] - 1, region[1] - 1, region[2] - 1];
        self.offset(shape, last, e) + e
    }

    /// (row, slice) as a copy side sees them: a 1-D array's rows are its layers.
    pub(crate) fn pitches(&self, shape: &Shape) -> (usize, usize) {
        if shape.is_1d_array() {
            (self.slice, self.slice)
        } else {
            (self.row, self.slice)
        }
    }

    pub(crate) fn host(&self, shape: &Shape, base: usize, origin: [usize; 3], e: usize) -> Place {
        let (row, slice) = self.pitches(shape);
        Place::Host { ptr: base + self.offset(shape, origin, e), row, slice }
    }

    pub(crate) fn device(&self, shape: &Shape, base: DevicePtr, origin: [usize; 3], e: usize) -> Place {
        let (row, slice) = self.pitches(shape);
        Place::Device { ptr: base + self.offset(shape, origin, e) as DevicePtr, row, slice }
    }
}
