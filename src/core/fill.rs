//! Filling device memory with a repeated pattern (clEnqueueFillBuffer, clEnqueueSVMMemFill).
use crate::base::entry::CLResult;
use crate::cuda::memory::{self as cm, DevicePtr};
use crate::cuda::stream::Stream;

/// The shortest pattern that repeats to the given one (a 16-byte pattern of equal words is a
/// 4-byte fill, which cuMemsetD32 does in one pass).
pub(crate) fn reduce_pattern(p: &[u8]) -> Vec<u8> {
    let mut n = p.len();
    while n > 1 && p[..n / 2] == p[n / 2..n] {
        n /= 2;
    }
    p[..n].to_vec()
}

pub(crate) fn fill_on(stream: &Stream, dst: DevicePtr, p: &[u8], len: usize) -> CLResult<()> {
    let word = |i: usize| u32::from_ne_bytes([p[i], p[i + 1], p[i + 2], p[i + 3]]);
    // cuMemsetD16/D32 want aligned addresses: zero-copy buffers over application memory
    // need not be.
    match p.len() {
        1 => cm::fill_u8(stream, dst, p[0], len),
        2 if dst.is_multiple_of(2) => cm::fill_u16(stream, dst, u16::from_ne_bytes([p[0], p[1]]), len / 2),
        4 if dst.is_multiple_of(4) => cm::fill_u32(stream, dst, word(0), len / 4),
        n => {
            // Write the pattern once, then double the filled prefix with device copies (a few
            // dozen copies at most, whatever the size; strided 2-D memsets would do 8- and
            // 16-byte patterns too, but their limits on the row count are not documented).
            // From pageable memory the driver stages the source before returning, so `p` may
            // go away right after.
            // SAFETY: `p` holds n bytes, and the driver reads pageable memory before returning.
            let mut r = unsafe { cm::copy_htod(stream, dst, p.as_ptr().cast(), n.min(len)) };
            let mut filled = n;
            while r.is_ok() && filled < len {
                let k = filled.min(len - filled);
                r = cm::copy_dtod(stream, dst + filled as DevicePtr, dst, k);
                filled += k;
            }
            r
        }
    }
    .map_err(Into::into)
}
