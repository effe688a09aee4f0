//! cudacl's program binary: "CUDACLBN", format version, then the program, then a checksum.
use crate::*;

pub const MAGIC: &[u8; 8] = b"CUDACLBN";
/// Bump when the layout of the container or the kernel ABI (implicit args...) changes.
/// 2: param_size is the exact end of the parameters (format 1 padded it, which the driver refuses).
pub const FORMAT_VERSION: u32 = 3;

fn fnv1a64(data: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf29ce484222325;
    for &b in data {
        h ^= b as u64;
        h = h.wrapping_mul(0x100000001b3);
    }
    h
}

struct W(Vec<u8>);
impl W {
    fn u8(&mut self, v: u8) {
        self.0.push(v)
    }
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes())
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes())
    }
    fn s(&mut self, v: &str) {
        self.u32(v.len() as u32);
        self.0.extend_from_slice(v.as_bytes())
    }
    fn dims(&mut self, v: &Option<[u32; 3]>) {
        match v {
            None => self.u8(0),
            Some(d) => {
                self.u8(1);
                d.iter().for_each(|&x| self.u32(x))
            }
        }
    }
}

struct R<'a>(&'a [u8], usize);
impl<'a> R<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self.1.checked_add(n).ok_or("truncated binary")?;
        let s = self.0.get(self.1..end).ok_or("truncated binary")?;
        self.1 = end;
        Ok(s)
    }
    fn u8(&mut self) -> Result<u8, String> {
        Ok(self.take(1)?[0])
    }
    fn u32(&mut self) -> Result<u32, String> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn u64(&mut self) -> Result<u64, String> {
        let b = self.take(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }
    fn s(&mut self) -> Result<String, String> {
        let n = self.u32()? as usize;
        let b = self.take(n)?;
        String::from_utf8(b.to_vec()).map_err(|_| "invalid UTF-8 in binary".to_string())
    }
    fn dims(&mut self) -> Result<Option<[u32; 3]>, String> {
        Ok(match self.u8()? {
            0 => None,
            1 => Some([self.u32()?, self.u32()?, self.u32()?]),
            _ => return Err("corrupt binary (dims)".into()),
        })
    }
}

fn kind_code(k: ArgKind) -> u8 {
    match k {
        ArgKind::GlobalPtr => 0,
        ArgKind::ConstantPtr => 1,
        ArgKind::LocalPtr => 2,
        ArgKind::Scalar => 3,
        ArgKind::Vector => 4,
        ArgKind::Struct => 5,
        ArgKind::Sampler => 6,
        ArgKind::Image { .. } => 7,
    }
}
/// The kind of code `c`; an image's dimension and access come from its type name and access
/// qualifier, stored beside it.
fn kind_of(c: u8, type_name: &str, access: AccessQualifier) -> Result<ArgKind, String> {
    Ok(match c {
        0 => ArgKind::GlobalPtr,
        1 => ArgKind::ConstantPtr,
        2 => ArgKind::LocalPtr,
        3 => ArgKind::Scalar,
        4 => ArgKind::Vector,
        5 => ArgKind::Struct,
        6 => ArgKind::Sampler,
        7 => ArgKind::Image { dim: ImageDim::of_type_name(type_name).unwrap_or(ImageDim::Other), access },
        _ => return Err("corrupt binary (arg kind)".into()),
    })
}
fn aq_code(a: AddressQualifier) -> u8 {
    match a {
        AddressQualifier::Global => 0,
        AddressQualifier::Constant => 1,
        AddressQualifier::Local => 2,
        AddressQualifier::Private => 3,
    }
}
fn aq_of(c: u8) -> Result<AddressQualifier, String> {
    Ok(match c {
        0 => AddressQualifier::Global,
        1 => AddressQualifier::Constant,
        2 => AddressQualifier::Local,
        3 => AddressQualifier::Private,
        _ => return Err("corrupt binary (address qualifier)".into()),
    })
}
fn acc_code(a: AccessQualifier) -> u8 {
    match a {
        AccessQualifier::ReadOnly => 0,
        AccessQualifier::WriteOnly => 1,
        AccessQualifier::ReadWrite => 2,
        AccessQualifier::None => 3,
    }
}
fn acc_of(c: u8) -> Result<AccessQualifier, String> {
    Ok(match c {
        0 => AccessQualifier::ReadOnly,
        1 => AccessQualifier::WriteOnly,
        2 => AccessQualifier::ReadWrite,
        3 => AccessQualifier::None,
        _ => return Err("corrupt binary (access qualifier)".into()),
    })
}

pub fn to_binary(p: &Program) -> Vec<u8> {
    let mut w = W(Vec::with_capacity(p.ptx.len() + 1024));
    w.0.extend_from_slice(MAGIC);
    w.u32(FORMAT_VERSION);
    w.s(crate::VERSION);
    w.u32(p.target.sm);
    w.u32(p.target.ptx_isa.0);
    w.u32(p.target.ptx_isa.1);
    w.s(&p.options);
    w.s(&p.log);
    w.s(&p.ptx);
    w.u32(p.kernels.len() as u32);
    for k in &p.kernels {
        w.s(&k.name);
        w.u32(k.args.len() as u32);
        for a in &k.args {
            w.u8(kind_code(a.kind));
            w.u32(a.size);
            w.u32(a.align);
            w.u32(a.offset);
            w.s(&a.name);
            w.s(&a.type_name);
            w.u8(aq_code(a.address_qualifier));
            w.u8(acc_code(a.access_qualifier));
            w.u64(a.type_qualifier);
        }
        w.u32(k.implicit.len() as u32);
        for i in &k.implicit {
            w.u8(match i.kind {
                ImplicitKind::GlobalOffset => 0,
                ImplicitKind::WorkDim => 1,
                ImplicitKind::Groups => 2,
            });
            w.u32(i.offset);
            w.u32(i.size);
        }
        w.u32(k.param_size);
        w.dims(&k.reqd_work_group_size);
        w.dims(&k.work_group_size_hint);
        match &k.vec_type_hint {
            None => w.u8(0),
            Some(s) => {
                w.u8(1);
                w.s(s)
            }
        }
        w.s(&k.attributes);
    }
    let sum = fnv1a64(&w.0);
    w.u64(sum);
    w.0
}

pub fn from_binary(b: &[u8]) -> Result<Program, String> {
    if b.len() < 8 || &b[..8] != MAGIC {
        return Err("not a cudacl program binary (bad magic)".into());
    }
    if b.len() < 8 + 4 + 8 {
        return Err("truncated cudacl program binary".into());
    }
    let (body, sum) = b.split_at(b.len() - 8);
    let mut r = R(body, 8);
    let ver = r.u32()?;
    if ver != FORMAT_VERSION {
        return Err(format!(
            "cudacl program binary format {ver} is not supported (this ptxgen reads format {FORMAT_VERSION})"
        ));
    }
    let mut s8 = [0u8; 8];
    s8.copy_from_slice(sum);
    if u64::from_le_bytes(s8) != fnv1a64(body) {
        return Err("corrupt cudacl program binary (checksum mismatch)".into());
    }
    let _made_by = r.s()?;
    let target = Target { sm: r.u32()?, ptx_isa: (r.u32()?, r.u32()?) };
    crate::target::validate(&target)?;
    let options = r.s()?;
    let log = r.s()?;
    let ptx = r.s()?;
    let nk = r.u32()? as usize;
    let mut kernels = Vec::with_capacity(nk.min(4096));
    for _ in 0..nk {
        let name = r.s()?;
        let na = r.u32()? as usize;
        let mut args = Vec::with_capacity(na.min(4096));
        for _ in 0..na {
            let (code, size, align, offset) = (r.u8()?, r.u32()?, r.u32()?, r.u32()?);
            let (name, type_name) = (r.s()?, r.s()?);
            let address_qualifier = aq_of(r.u8()?)?;
            let access_qualifier = acc_of(r.u8()?)?;
            args.push(ArgInfo {
                kind: kind_of(code, &type_name, access_qualifier)?,
                size,
                align,
                offset,
                name,
                type_name,
                address_qualifier,
                access_qualifier,
                type_qualifier: r.u64()?,
            });
        }
        let ni = r.u32()? as usize;
        let mut implicit = Vec::with_capacity(ni.min(16));
        for _ in 0..ni {
            let kind = match r.u8()? {
                0 => ImplicitKind::GlobalOffset,
                1 => ImplicitKind::WorkDim,
                2 => ImplicitKind::Groups,
                _ => return Err("corrupt binary (implicit kind)".into()),
            };
            implicit.push(ImplicitArg { kind, offset: r.u32()?, size: r.u32()? });
        }
        let param_size = r.u32()?;
        let reqd_work_group_size = r.dims()?;
        let work_group_size_hint = r.dims()?;
        let vec_type_hint = match r.u8()? {
            0 => None,
            1 => Some(r.s()?),
            _ => return Err("corrupt binary (vec_type_hint)".into()),
        };
        let attributes = r.s()?;
        kernels.push(KernelInfo {
            name,
            args,
            implicit,
            param_size,
            reqd_work_group_size,
            work_group_size_hint,
            vec_type_hint,
            attributes,
        });
    }
    if r.1 != body.len() {
        return Err("corrupt cudacl program binary (trailing bytes)".into());
    }
    Ok(Program { ptx, target, options, log, kernels })
}
