//! SPIR-V specialization constants (clSetProgramSpecializationConstant), read and set in the
//! module's own words before the translator sees it.
//!
//! Why not the translator's `--spec-const id:type:value`: SPIRV-LLVM-Translator 15 parses the
//! value as a decimal integer of at most 62 bits ("can't convert" for 2^62 and up, negative
//! numbers too), so a 64-bit constant with its top bits set (every negative `long`) could not
//! be given. Writing the value as the constant's default is what specialization means, and the
//! translator then keeps it.
//!
//! The module: a header of 5 words, then instructions, each `word count << 16 | opcode` and its
//! operands. What matters here: OpDecorate (71) `target SpecId(1) id`; OpTypeBool (20),
//! OpTypeInt (21) `result width signedness`, OpTypeFloat (22) `result width`; OpSpecConstantTrue
//! (48) / OpSpecConstantFalse (49) `type result`; OpSpecConstant (50) `type result literal...`
//! (one word up to 32 bits, two for 64, low word first).
use std::collections::HashMap;

const OP_DECORATE: u32 = 71;
const DECORATION_SPEC_ID: u32 = 1;
const OP_TYPE_BOOL: u32 = 20;
const OP_TYPE_INT: u32 = 21;
const OP_TYPE_FLOAT: u32 = 22;
const OP_SPEC_TRUE: u32 = 48;
const OP_SPEC_FALSE: u32 = 49;
const OP_SPEC_CONSTANT: u32 = 50;

/// A specialization constant's value (clSetProgramSpecializationConstant): its SpecId and the
/// bytes the application gave (the constant's size, as the host holds them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecConstant {
    pub id: u32,
    pub value: Vec<u8>,
}

/// One instruction: where it starts (word index) and its opcode and word count.
struct Inst {
    at: usize,
    op: u32,
    count: usize,
}

fn words(il: &[u8]) -> Result<Vec<u32>, String> {
    if !il.len().is_multiple_of(4) || il.len() < 20 || il[..4] != [0x03, 0x02, 0x23, 0x07] {
        return Err("error: the program's IL is not a little-endian SPIR-V module\n".into());
    }
    Ok(il.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
}

fn instructions(w: &[u32]) -> Result<Vec<Inst>, String> {
    let mut out = Vec::new();
    let mut at = 5;
    while at < w.len() {
        let count = (w[at] >> 16) as usize;
        if count == 0 || at + count > w.len() {
            return Err("error: the SPIR-V module is malformed (an instruction runs past its end)\n".into());
        }
        out.push(Inst { at, op: w[at] & 0xffff, count });
        at += count;
    }
    Ok(out)
}

/// The module's specialization constants: (result id, SpecId, size in bytes, the instruction).
fn constants(w: &[u32], insts: &[Inst]) -> Vec<(u32, usize, usize)> {
    let mut spec_id: HashMap<u32, u32> = HashMap::new();
    let mut type_size: HashMap<u32, usize> = HashMap::new();
    for i in insts {
        let o = &w[i.at..i.at + i.count];
        match i.op {
            OP_DECORATE if i.count >= 4 && o[2] == DECORATION_SPEC_ID => {
                spec_id.insert(o[1], o[3]);
            }
            OP_TYPE_BOOL if i.count >= 2 => {
                type_size.insert(o[1], 1);
            }
            OP_TYPE_INT | OP_TYPE_FLOAT if i.count >= 3 => {
                type_size.insert(o[1], (o[2] as usize).div_ceil(8));
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    for (n, i) in insts.iter().enumerate() {
        if matches!(i.op, OP_SPEC_TRUE | OP_SPEC_FALSE | OP_SPEC_CONSTANT) && i.count >= 3 {
            let (ty, result) = (w[i.at + 1], w[i.at + 2]);
            if let (Some(&id), Some(&size)) = (spec_id.get(&result), type_size.get(&ty)) {
                out.push((id, size, n));
            }
        }
    }
    out
}

/// The module's specialization constants: (SpecId, size in bytes) of each, in module order.
pub fn list(il: &[u8]) -> Result<Vec<(u32, usize)>, String> {
    let w = words(il)?;
    let insts = instructions(&w)?;
    Ok(constants(&w, &insts).into_iter().map(|(id, size, _)| (id, size)).collect())
}

/// The module with each given value as its constant's default. Err: an id the module does not
/// have, or a value of another size than its constant.
pub fn apply(il: &[u8], spec: &[SpecConstant]) -> Result<Vec<u8>, String> {
    if spec.is_empty() {
        return Ok(il.to_vec());
    }
    let mut w = words(il)?;
    let insts = instructions(&w)?;
    let consts = constants(&w, &insts);
    for s in spec {
        let found: Vec<&(u32, usize, usize)> = consts.iter().filter(|c| c.0 == s.id).collect();
        if found.is_empty() {
            return Err(format!("error: the SPIR-V module has no specialization constant {}\n", s.id));
        }
        for &&(_, size, n) in &found {
            if size != s.value.len() {
                return Err(format!(
                    "error: specialization constant {} has {size} bytes, {} given\n",
                    s.id,
                    s.value.len()
                ));
            }
            let i = &insts[n];
            let mut bytes = [0u8; 8];
            bytes[..size.min(8)].copy_from_slice(&s.value[..size.min(8)]);
            let v = u64::from_le_bytes(bytes);
            match i.op {
                OP_SPEC_TRUE | OP_SPEC_FALSE => {
                    let op = if v != 0 { OP_SPEC_TRUE } else { OP_SPEC_FALSE };
                    w[i.at] = (w[i.at] & 0xffff_0000) | op;
                }
                _ => {
                    // Narrow integers and floats take the low bits of one word, zero-extended
                    // (OpenCL SPIR-V integers carry no signedness).
                    w[i.at + 3] = v as u32;
                    if i.count > 4 {
                        w[i.at + 4] = (v >> 32) as u32;
                    }
                }
            }
        }
    }
    Ok(w.iter().flat_map(|x| x.to_le_bytes()).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A module with a bool (SpecId 1), a ulong (2, default 5) and a float (3, default 1.0)
    /// specialization constant and a plain constant.
    fn module() -> Vec<u8> {
        let w: Vec<u32> = vec![
            0x0723_0203,
            0x0001_0000,
            0,
            20,
            0,
            (4 << 16) | OP_DECORATE,
            10,
            DECORATION_SPEC_ID,
            1,
            (4 << 16) | OP_DECORATE,
            11,
            DECORATION_SPEC_ID,
            2,
            (4 << 16) | OP_DECORATE,
            12,
            DECORATION_SPEC_ID,
            3,
            (2 << 16) | OP_TYPE_BOOL,
            1,
            (4 << 16) | OP_TYPE_INT,
            2,
            64,
            0,
            (3 << 16) | OP_TYPE_FLOAT,
            3,
            32,
            (3 << 16) | OP_SPEC_TRUE,
            1,
            10,
            (5 << 16) | OP_SPEC_CONSTANT,
            2,
            11,
            5,
            0,
            (4 << 16) | OP_SPEC_CONSTANT,
            3,
            12,
            1.0f32.to_bits(),
            (4 << 16) | 43,
            3,
            13,
            7,
        ];
        w.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    fn word(m: &[u8], i: usize) -> u32 {
        u32::from_le_bytes([m[4 * i], m[4 * i + 1], m[4 * i + 2], m[4 * i + 3]])
    }

    #[test]
    fn constants_are_listed_with_their_sizes() {
        assert_eq!(list(&module()).unwrap(), vec![(1, 1), (2, 8), (3, 4)]);
        assert!(list(b"not spirv at all....").is_err());
    }

    #[test]
    fn values_become_the_defaults() {
        let m = module();
        let s = [
            SpecConstant { id: 1, value: vec![0] },
            SpecConstant { id: 2, value: (-2i64).to_le_bytes().to_vec() },
            SpecConstant { id: 3, value: 2.5f32.to_le_bytes().to_vec() },
        ];
        let out = apply(&m, &s).unwrap();
        assert_eq!(word(&out, 26), (3 << 16) | OP_SPEC_FALSE, "bool false");
        assert_eq!((word(&out, 32), word(&out, 33)), (0xffff_fffe, 0xffff_ffff), "long -2");
        assert_eq!(word(&out, 37), 2.5f32.to_bits(), "float");
        assert_eq!(word(&out, 41), 7, "a plain constant is left alone");
        assert_eq!(apply(&m, &[]).unwrap(), m);
    }

    #[test]
    fn wrong_ids_and_sizes_are_errors() {
        let m = module();
        assert!(apply(&m, &[SpecConstant { id: 9, value: vec![0; 4] }]).is_err());
        assert!(apply(&m, &[SpecConstant { id: 3, value: vec![0; 8] }]).is_err());
    }
}
