//! The image formats cudacl supports, how each is stored in a CUDA array, and the host-side
//! conversion of a fill colour to a pixel's bytes (OpenCL 1.2 section 8.3).
//!
//! A pixel is stored as exactly OpenCL's host layout of it (BGRA as B,G,R,A; the kernel side
//! swizzles), in an array of 1, 2 or 4 unsigned channels of the channel's size.
use crate::cl::*;
use crate::cuda::sys::CUarray_format as F;

/// Every channel order cudacl offers, and for each the data types it offers.
const NORM_FLOAT: &[u32] =
    &[CL_UNORM_INT8, CL_UNORM_INT16, CL_SNORM_INT8, CL_SNORM_INT16, CL_HALF_FLOAT, CL_FLOAT];
const ALL_TYPES: &[u32] = &[
    CL_UNORM_INT8,
    CL_UNORM_INT16,
    CL_SNORM_INT8,
    CL_SNORM_INT16,
    CL_SIGNED_INT8,
    CL_SIGNED_INT16,
    CL_SIGNED_INT32,
    CL_UNSIGNED_INT8,
    CL_UNSIGNED_INT16,
    CL_UNSIGNED_INT32,
    CL_HALF_FLOAT,
    CL_FLOAT,
];
const INT8_TYPES: &[u32] = &[CL_UNORM_INT8, CL_SNORM_INT8, CL_SIGNED_INT8, CL_UNSIGNED_INT8];

/// (channel order, data types): the table clGetSupportedImageFormats answers, the same for every
/// image type and access flag.
pub const SUPPORTED: &[(u32, &[u32])] = &[
    (CL_R, ALL_TYPES),
    (CL_A, ALL_TYPES),
    (CL_RG, ALL_TYPES),
    (CL_RA, ALL_TYPES),
    (CL_RGBA, ALL_TYPES),
    (CL_BGRA, INT8_TYPES),
    (CL_INTENSITY, NORM_FLOAT),
    (CL_LUMINANCE, NORM_FLOAT),
];

/// How a supported format is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PixelFormat {
    pub order: u32,
    pub data_type: u32,
    /// Channels stored per pixel (1, 2 or 4).
    pub channels: u32,
    /// Bytes per channel (1, 2 or 4).
    pub channel_size: u32,
}

impl PixelFormat {
    pub fn element_size(&self) -> usize {
        (self.channels * self.channel_size) as usize
    }

    /// The CUDA array format: unsigned integers of the channel's size.
    pub fn array_format(&self) -> F {
        match self.channel_size {
            1 => F::CU_AD_FORMAT_UNSIGNED_INT8,
            2 => F::CU_AD_FORMAT_UNSIGNED_INT16,
            _ => F::CU_AD_FORMAT_UNSIGNED_INT32,
        }
    }
}

#[allow(non_upper_case_globals)] // cl.h's CL_Rx, CL_RGx, CL_RGBx
fn channel_count(order: u32) -> Option<u32> {
    Some(match order {
        CL_R | CL_A | CL_INTENSITY | CL_LUMINANCE | CL_Rx => 1,
        CL_RG | CL_RA | CL_RGx => 2,
        CL_RGB | CL_RGBx => 3,
        CL_RGBA | CL_BGRA | CL_ARGB => 4,
        _ => return None,
    })
}

fn channel_size(data_type: u32) -> Option<u32> {
    Some(match data_type {
        CL_SNORM_INT8 | CL_UNORM_INT8 | CL_SIGNED_INT8 | CL_UNSIGNED_INT8 => 1,
        CL_SNORM_INT16 | CL_UNORM_INT16 | CL_SIGNED_INT16 | CL_UNSIGNED_INT16 | CL_HALF_FLOAT => 2,
        CL_SIGNED_INT32 | CL_UNSIGNED_INT32 | CL_FLOAT => 4,
        CL_UNORM_SHORT_565 | CL_UNORM_SHORT_555 | CL_UNORM_INT_101010 => 0,
        _ => return None,
    })
}

/// Whether (order, type) is a format OpenCL 1.2 defines at all (else
/// CL_INVALID_IMAGE_FORMAT_DESCRIPTOR): known values, and the spec's pairing rules (packed types
/// with RGB/RGBx only, RGB/RGBx with packed types only, BGRA/ARGB with 8-bit types only,
/// INTENSITY/LUMINANCE with normalized and float types only).
#[allow(non_upper_case_globals)] // cl.h's CL_RGBx
pub fn is_valid(order: u32, data_type: u32) -> bool {
    let (Some(_), Some(size)) = (channel_count(order), channel_size(data_type)) else {
        return false;
    };
    let packed = size == 0;
    match order {
        CL_RGB | CL_RGBx => packed,
        _ if packed => false,
        CL_BGRA | CL_ARGB => INT8_TYPES.contains(&data_type),
        CL_INTENSITY | CL_LUMINANCE => NORM_FLOAT.contains(&data_type),
        _ => true,
    }
}

/// The storage of a supported format; None when cudacl does not offer it.
pub fn lookup(order: u32, data_type: u32) -> Option<PixelFormat> {
    let (_, types) = SUPPORTED.iter().find(|(o, _)| *o == order)?;
    if !types.contains(&data_type) {
        return None;
    }
    Some(PixelFormat {
        order,
        data_type,
        channels: channel_count(order)?,
        channel_size: channel_size(data_type)?,
    })
}

/// Every supported format, in table order.
pub fn all() -> Vec<cl_image_format> {
    SUPPORTED
        .iter()
        .flat_map(|(o, ts)| {
            ts.iter().map(move |t| cl_image_format { image_channel_order: *o, image_channel_data_type: *t })
        })
        .collect()
}

/// f32 to IEEE half, rounding to nearest even (overflow to infinity, NaN kept NaN).
pub fn f32_to_f16(f: f32) -> u16 {
    let b = f.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xff) as i32;
    let man = b & 0x7f_ffff;
    if exp == 0xff {
        return sign | 0x7c00 | if man != 0 { 0x200 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    if e <= 0 {
        // Subnormal half (or zero): shift the mantissa with its hidden bit in.
        if e < -10 {
            return sign;
        }
        let m = man | 0x80_0000;
        let shift = (14 - e) as u32;
        let half = m >> shift;
        let rem = m & ((1 << shift) - 1);
        let mid = 1 << (shift - 1);
        let round = rem > mid || (rem == mid && half & 1 == 1);
        return sign | (half + round as u32) as u16;
    }
    let half = ((e as u32) << 10) | (man >> 13);
    let rem = man & 0x1fff;
    let round = rem > 0x1000 || (rem == 0x1000 && half & 1 == 1);
    // A carry out of the mantissa rounds up the exponent (to infinity at the top): correct.
    sign | (half + round as u32) as u16
}

/// Rounds to the nearest integer, ties to even (NaN to 0), as convert_*_sat_rte does.
fn rte(f: f32) -> f32 {
    if f.is_nan() {
        return 0.0;
    }
    let r = f.round();
    if (f - f.trunc()).abs() == 0.5 && r % 2.0 != 0.0 {
        r - f.signum()
    } else {
        r
    }
}

/// One channel's bytes from a float colour component (normalized and float types).
fn float_channel(data_type: u32, f: f32) -> Vec<u8> {
    let sat = |v: f32, lo: f32, hi: f32| rte(v).clamp(lo, hi);
    match data_type {
        CL_UNORM_INT8 => vec![sat(f * 255.0, 0.0, 255.0) as u8],
        CL_UNORM_INT16 => (sat(f * 65535.0, 0.0, 65535.0) as u16).to_ne_bytes().to_vec(),
        CL_SNORM_INT8 => vec![sat(f * 127.0, -128.0, 127.0) as i8 as u8],
        CL_SNORM_INT16 => (sat(f * 32767.0, -32768.0, 32767.0) as i16).to_ne_bytes().to_vec(),
        CL_HALF_FLOAT => f32_to_f16(f).to_ne_bytes().to_vec(),
        _ => f.to_ne_bytes().to_vec(),
    }
}

/// One channel's bytes from an integer colour component (`v` as the API's int or uint).
fn int_channel(data_type: u32, v: u32) -> Vec<u8> {
    let (i, u) = (v as i32 as i64, v as u64);
    match data_type {
        CL_SIGNED_INT8 => vec![i.clamp(-128, 127) as i8 as u8],
        CL_SIGNED_INT16 => (i.clamp(-32768, 32767) as i16).to_ne_bytes().to_vec(),
        CL_SIGNED_INT32 => (i as i32).to_ne_bytes().to_vec(),
        CL_UNSIGNED_INT8 => vec![u.min(255) as u8],
        CL_UNSIGNED_INT16 => (u.min(65535) as u16).to_ne_bytes().to_vec(),
        _ => (u as u32).to_ne_bytes().to_vec(),
    }
}

/// The colour components a pixel of `order` stores, in storage order (indices into x,y,z,w).
fn stored_components(order: u32) -> &'static [usize] {
    match order {
        CL_R | CL_INTENSITY | CL_LUMINANCE => &[0],
        CL_A => &[3],
        CL_RG => &[0, 1],
        CL_RA => &[0, 3],
        CL_BGRA => &[2, 1, 0, 3],
        CL_ARGB => &[3, 0, 1, 2],
        _ => &[0, 1, 2, 3],
    }
}

/// clEnqueueFillImage's colour (four floats, ints or uints as the 16 bytes the API passes) as one
/// pixel's bytes: converted with round-to-nearest-even and saturation.
pub fn fill_pixel(f: &PixelFormat, color: &[u8; 16]) -> Vec<u8> {
    let word =
        |i: usize| u32::from_ne_bytes([color[4 * i], color[4 * i + 1], color[4 * i + 2], color[4 * i + 3]]);
    let integer = matches!(
        f.data_type,
        CL_SIGNED_INT8
            | CL_SIGNED_INT16
            | CL_SIGNED_INT32
            | CL_UNSIGNED_INT8
            | CL_UNSIGNED_INT16
            | CL_UNSIGNED_INT32
    );
    stored_components(f.order)
        .iter()
        .flat_map(|&c| {
            if integer {
                int_channel(f.data_type, word(c))
            } else {
                float_channel(f.data_type, f32::from_bits(word(c)))
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_conversion_rounds_to_nearest_even() {
        assert_eq!(f32_to_f16(1.0), 0x3c00);
        assert_eq!(f32_to_f16(-2.0), 0xc000);
        assert_eq!(f32_to_f16(65504.0), 0x7bff);
        assert_eq!(f32_to_f16(65520.0), 0x7c00);
        assert_eq!(f32_to_f16(f32::from_bits(0x3f80_1000)), 0x3c00); // tie, even stays
        assert_eq!(f32_to_f16(f32::from_bits(0x3f80_3000)), 0x3c02); // tie, odd rounds up
        assert_eq!(f32_to_f16(5.960_464_5e-8), 0x0001); // smallest subnormal
        assert_eq!(f32_to_f16(f32::NAN) & 0x7c00, 0x7c00);
    }

    #[test]
    fn fill_colours_convert_per_spec() {
        let f = |o, t| lookup(o, t).unwrap();
        let c = |v: [f32; 4]| {
            let mut b = [0u8; 16];
            for (i, x) in v.iter().enumerate() {
                b[4 * i..4 * i + 4].copy_from_slice(&x.to_ne_bytes());
            }
            b
        };
        assert_eq!(fill_pixel(&f(CL_RGBA, CL_UNORM_INT8), &c([0.5, 1.5, -1.0, 1.0])), [128, 255, 0, 255]);
        assert_eq!(fill_pixel(&f(CL_BGRA, CL_UNORM_INT8), &c([1.0, 0.0, 0.2, 0.0])), [51, 0, 255, 0]);
        assert_eq!(fill_pixel(&f(CL_R, CL_SNORM_INT8), &c([-1.0, 0.0, 0.0, 0.0])), [0x81]);
        let mut ints = [0u8; 16];
        ints[..4].copy_from_slice(&(-300i32).to_ne_bytes());
        ints[12..].copy_from_slice(&7i32.to_ne_bytes());
        assert_eq!(fill_pixel(&f(CL_RA, CL_SIGNED_INT8), &ints), [0x80, 7]);
        assert_eq!(fill_pixel(&f(CL_A, CL_UNSIGNED_INT16), &ints), 7u16.to_ne_bytes());
    }

    #[test]
    fn format_rules() {
        assert!(is_valid(CL_RGB, CL_UNORM_SHORT_565));
        assert!(!is_valid(CL_RGB, CL_UNORM_INT8));
        assert!(!is_valid(CL_RGBA, CL_UNORM_INT_101010));
        assert!(!is_valid(CL_BGRA, CL_FLOAT));
        assert!(!is_valid(CL_INTENSITY, CL_UNSIGNED_INT8));
        assert!(!is_valid(0x1234, CL_FLOAT));
        assert!(lookup(CL_RGB, CL_UNORM_SHORT_565).is_none());
        assert_eq!(lookup(CL_RGBA, CL_FLOAT).unwrap().element_size(), 16);
        assert_eq!(all().len(), 5 * 12 + 4 + 2 * 6);
    }
}
