//! The OpenCL image built-ins (read_image*, write_image*, get_image_*): `images.cl`, compiled
//! once per process by the in-process clang into bitcode, and linked into the programs that call
//! them before libclc (bridge/images.cpp), which also turns clang's sampler initialisers into
//! the sampler bits. See images.cl for how images and samplers reach a kernel.
use crate::builtin_library::Library;
use crate::*;
use inkwell::module::Module;
use std::sync::OnceLock;

/// The source of the image built-ins (part of the cache key through cache.rs).
pub(crate) const SOURCE: &str = include_str!("images.cl");

/// How images.cl is compiled: OpenCL C 1.2, whatever the program's own options.
const OPTIONS: &str = "-cl-std=CL1.2";

/// The library (builtin_library.rs).
const LIBRARY: Library = Library {
    what: "image built-ins",
    source: SOURCE,
    options: OPTIONS,
    used: ffi::pg_images_used,
    link: ffi::pg_link_images,
};

/// Links the image built-ins `m` calls (and defines its sampler initialisers); nothing to do for
/// a program without images. Returns whether there was something to do.
pub(crate) fn link(m: &Module) -> Result<bool, BuildError> {
    static BITCODE: OnceLock<Result<Vec<u8>, String>> = OnceLock::new();
    LIBRARY.link_into(m, &BITCODE)
}

#[cfg(test)]
mod tests {
    /// images.cl's `div_norm`: c * hi + c * lo with one rounding (an FMA over an exact product),
    /// where hi is 1 / d cut to 24 - b significant bits (b: the channel's bits, so c * hi is
    /// exact) and lo = 1 / d - hi, gives the correctly rounded quotient c / d for every channel
    /// value of the normalized formats; multiplying by the reciprocal alone would not (126 of the
    /// 256 UNORM_INT8 values differ). Derives hi and lo here and checks that images.cl has them.
    #[test]
    fn div_norm_equals_the_division_for_every_normalized_channel_value() {
        for (d, lo, hi, bits, name) in [
            (255.0f32, 0, 255, 8, "DIV255"),
            (65535.0, 0, 65535, 16, "DIV65535"),
            (127.0, -128, 127, 8, "DIV127"),
            (32767.0, -32768, 32767, 16, "DIV32767"),
        ] {
            let r = 1.0f64 / f64::from(d);
            // 1 / d to 24 - bits significant bits (truncated), then the rest.
            let keep = 24 - bits;
            let rh = f32::from_bits((r as f32).to_bits() & !((1u32 << (24 - keep)) - 1));
            let rl = (r - f64::from(rh)) as f32;
            let mut mul_only_differs = 0;
            for i in lo..=hi {
                let c = i as f32;
                let p = c * rh;
                assert_eq!(f64::from(p), f64::from(c) * f64::from(rh), "{c} * hi is not exact");
                let q = c.mul_add(rl, p);
                assert_eq!(q.to_bits(), (c / d).to_bits(), "{c} / {d}");
                mul_only_differs += usize::from((c * (1.0 / d)).to_bits() != (c / d).to_bits());
            }
            assert!(mul_only_differs > 0, "the two-part reciprocal is needed for {d}");
            let def = |part: &str, v: f32| format!("#define {name}_{part} {}f", hex_float(v));
            for line in [def("HI", rh), def("LO", rl)] {
                assert!(super::SOURCE.contains(&line), "images.cl lacks `{line}`");
            }
        }
        assert!(super::SOURCE.contains("__builtin_fmaf(c, lo, c * hi)"));
    }

    /// images.cl's conversions without I2F/F2I: with M = 1.5 * 2^23 (ulp 1 over [2^23, 2^24)),
    /// the float of bits bits(M) | c minus M is c for every byte c, and the low byte of
    /// sat(f) * 255 + M (an FP32 add, rounding to nearest even) is what cvt.rni gives for
    /// sat(f) * 255, for every 16th float in [0, 1.5] and the special values.
    #[test]
    fn magic_float_conversions_are_exact() {
        const M: f32 = 12582912.0;
        assert_eq!(M.to_bits(), 0x4B40_0000);
        assert!(
            super::SOURCE.contains("#define MAGIC 12582912.0f")
                && super::SOURCE.contains("#define MAGIC_BITS 0x4B400000u")
        );
        for c in 0u32..256 {
            assert_eq!(f32::from_bits(0x4B40_0000 | c) - M, c as f32);
        }
        let sat = |f: f32| if f.is_nan() { 0.0 } else { f.clamp(0.0, 1.0) };
        let specials = [-0.0f32, -1.0, f32::NEG_INFINITY, f32::INFINITY, f32::NAN, 2.0, 1e30, 0.5 / 255.0];
        let sample = (0..0x3fc0_0000u32).step_by(16).map(f32::from_bits).chain(specials);
        for f in sample {
            let x = sat(f) * 255.0;
            let low = (x + M).to_bits() & 0xff;
            assert_eq!(low, x.round_ties_even() as u32, "{f}");
        }
    }

    /// images.cl's unorm8_f: byte c in bits 16..23 of an otherwise zero word is the float
    /// c * 2^-133 (subnormal below 128), and with the parts of 1 / 255 scaled by 2^133,
    /// fma(v, lo', v * hi') is the correctly rounded c / 255 for every byte, as div_norm is.
    /// Rust's f32 arithmetic keeps subnormals (no flush to zero), as PTX's mul.rn/fma.rn do.
    #[test]
    fn unorm8_through_a_subnormal_equals_the_division() {
        let hi = f32::from_bits(0x3b80_8000); // DIV255_HI, 0x1.01p-8
        let lo = (1.0f64 / 255.0 - f64::from(hi)) as f32;
        // hi and lo times 2^133 (not an f32 itself), exactly.
        let (hs, ls) = ((f64::from(hi) * 2f64.powi(133)) as f32, (f64::from(lo) * 2f64.powi(133)) as f32);
        assert_eq!(f64::from(hs), f64::from(hi) * 2f64.powi(133));
        assert_eq!(f64::from(ls), f64::from(lo) * 2f64.powi(133));
        for c in 0u32..256 {
            let v = f32::from_bits(c << 16);
            assert_eq!(f64::from(v), f64::from(c) * 2f64.powi(-133), "{c}");
            let q = v.mul_add(ls, v * hs);
            assert_eq!(q.to_bits(), (c as f32 / 255.0).to_bits(), "{c} / 255");
        }
        for (name, v) in [("HI_S", hs), ("LO_S", ls)] {
            let line = format!("#define DIV255_{name} {}f", hex_float(v));
            assert!(super::SOURCE.contains(&line), "images.cl lacks `{line}`");
        }
        assert!(super::SOURCE.contains("__nvvm_prmt(w, 0u, 0x4044u | k << 8)"));
        assert!(super::SOURCE.contains("mul.rn.f32 t, %1, %2;\\n\\tfma.rn.f32 %0, %1, %3, t;"));
    }

    /// A normal f32 as a C hexadecimal float literal without trailing zero digits (0x1.01p-8).
    fn hex_float(v: f32) -> String {
        let bits = v.to_bits();
        let exp = ((bits >> 23) & 0xff) as i32 - 127;
        let mut frac = format!("{:06x}", (bits & 0x7f_ffff) << 1);
        while frac.ends_with('0') {
            frac.pop();
        }
        if frac.is_empty() {
            format!("0x1p{exp}")
        } else {
            format!("0x1.{frac}p{exp}")
        }
    }
}
