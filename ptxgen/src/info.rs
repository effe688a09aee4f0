//! Kernel argument layout and attributes, read with inkwell from the final IR: the rewritten
//! kernel signature (what NVPTX turns into the .param list) plus clang's !kernel_arg_* and
//! attribute metadata.
use crate::*;
use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::module::Module;
use inkwell::targets::TargetData;
use inkwell::types::{AnyType, AnyTypeEnum, BasicMetadataTypeEnum};
use inkwell::values::{AsValueRef, FunctionValue};
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMTypeKind;

const CC_PTX_KERNEL: u32 = 71;
const CC_SPIR_KERNEL: u32 = 76;

/// One metadata operand, as far as ptxgen needs it.
#[derive(Debug, Clone)]
enum Md {
    Str(String),
    Int(u64),
    Type(LLVMTypeRef),
    Other,
}

unsafe fn md_operands(ctx: LLVMContextRef, md: LLVMMetadataRef) -> Vec<Md> {
    let v = LLVMMetadataAsValue(ctx, md);
    let n = LLVMGetMDNodeNumOperands(v) as usize;
    let mut ops: Vec<LLVMValueRef> = vec![std::ptr::null_mut(); n];
    if n > 0 {
        LLVMGetMDNodeOperands(v, ops.as_mut_ptr());
    }
    ops.into_iter()
        .map(|o| {
            if o.is_null() {
                return Md::Other;
            }
            if !LLVMIsAMDString(o).is_null() {
                let mut len = 0u32;
                let p = LLVMGetMDString(o, &mut len);
                if p.is_null() {
                    return Md::Str(String::new());
                }
                let b = std::slice::from_raw_parts(p as *const u8, len as usize);
                return Md::Str(String::from_utf8_lossy(b).into_owned());
            }
            if !LLVMIsAConstantInt(o).is_null() {
                return Md::Int(LLVMConstIntGetZExtValue(o));
            }
            if !LLVMIsAConstant(o).is_null() {
                return Md::Type(LLVMTypeOf(o));
            }
            Md::Other
        })
        .collect()
}

/// All metadata attached to a function, by kind name.
fn function_md(ctx: LLVMContextRef, f: FunctionValue) -> Vec<(String, Vec<Md>)> {
    let mut out = Vec::new();
    // SAFETY: plain LLVM-C queries on a live function; the entries array is disposed below.
    unsafe {
        let mut n: usize = 0;
        let entries = LLVMGlobalCopyAllMetadata(f.as_value_ref(), &mut n);
        if entries.is_null() {
            return out;
        }
        for i in 0..n as u32 {
            let kind = LLVMValueMetadataEntriesGetKind(entries, i);
            let md = LLVMValueMetadataEntriesGetMetadata(entries, i);
            let name = kind_name(ctx, kind);
            out.push((name, md_operands(ctx, md)));
        }
        LLVMDisposeValueMetadataEntries(entries);
    }
    out
}

fn kind_name(ctx: LLVMContextRef, kind: u32) -> String {
    const NAMES: &[&str] = &[
        "kernel_arg_addr_space",
        "kernel_arg_access_qual",
        "kernel_arg_type",
        "kernel_arg_base_type",
        "kernel_arg_type_qual",
        "kernel_arg_name",
        "reqd_work_group_size",
        "work_group_size_hint",
        "vec_type_hint",
        "intel_reqd_sub_group_size",
    ];
    for n in NAMES {
        // SAFETY: LLVMGetMDKindIDInContext only reads the name.
        let id = unsafe { LLVMGetMDKindIDInContext(ctx, n.as_ptr() as *const _, n.len() as u32) };
        if id == kind {
            return n.to_string();
        }
    }
    String::new()
}

fn strs(md: &[(String, Vec<Md>)], key: &str) -> Vec<String> {
    md.iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.iter().map(|m| if let Md::Str(s) = m { s.clone() } else { String::new() }).collect())
        .unwrap_or_default()
}

fn ints(md: &[(String, Vec<Md>)], key: &str) -> Vec<u64> {
    md.iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.iter().map(|m| if let Md::Int(i) = m { *i } else { 0 }).collect())
        .unwrap_or_default()
}

fn dims(md: &[(String, Vec<Md>)], key: &str) -> Option<[u32; 3]> {
    let v = ints(md, key);
    if v.len() == 3 {
        Some([v[0] as u32, v[1] as u32, v[2] as u32])
    } else {
        None
    }
}

/// OpenCL name of a vec_type_hint type (e.g. <4 x float> + signed -> "float4").
fn cl_type_name(t: LLVMTypeRef, signed: bool) -> String {
    // SAFETY: type queries on a live type.
    unsafe {
        let (elem, n) = if LLVMGetTypeKind(t) == LLVMTypeKind::LLVMVectorTypeKind {
            (LLVMGetElementType(t), LLVMGetVectorSize(t))
        } else {
            (t, 1)
        };
        let base = match LLVMGetTypeKind(elem) {
            LLVMTypeKind::LLVMHalfTypeKind => "half".to_string(),
            LLVMTypeKind::LLVMFloatTypeKind => "float".to_string(),
            LLVMTypeKind::LLVMDoubleTypeKind => "double".to_string(),
            LLVMTypeKind::LLVMIntegerTypeKind => {
                let b = match LLVMGetIntTypeWidth(elem) {
                    8 => "char",
                    16 => "short",
                    32 => "int",
                    64 => "long",
                    _ => "int",
                };
                if signed {
                    b.to_string()
                } else {
                    format!("u{b}")
                }
            }
            _ => "int".to_string(),
        };
        if n > 1 {
            format!("{base}{n}")
        } else {
            base
        }
    }
}

fn align_up(x: u32, a: u32) -> u32 {
    let a = a.max(1);
    x.div_ceil(a) * a
}

fn type_qual_bits(s: &str) -> u64 {
    let mut b = 0;
    for w in s.split_whitespace() {
        match w {
            "const" => b |= 1,
            "restrict" => b |= 2,
            "volatile" => b |= 4,
            _ => {}
        }
    }
    b
}

pub(crate) fn is_kernel(f: FunctionValue) -> bool {
    let cc = f.get_call_conventions();
    (cc == CC_SPIR_KERNEL || cc == CC_PTX_KERNEL) && f.count_basic_blocks() > 0
}

/// The kernels of a lowered module, in module order.
pub fn kernels(module: &Module) -> Result<Vec<KernelInfo>, String> {
    let ctx = module.get_context().raw();
    let td = TargetData::create(module.get_data_layout().as_str().to_str().map_err(|e| e.to_string())?);
    let byval = Attribute::get_named_enum_kind_id("byval");
    let align_kind = Attribute::get_named_enum_kind_id("align");
    let mut out = Vec::new();
    for f in module.get_functions() {
        if !is_kernel(f) {
            continue;
        }
        let name = f.get_name().to_string_lossy().into_owned();
        let nuser = f
            .get_string_attribute(AttributeLoc::Function, "cudacl-user-args")
            .and_then(|a| a.get_string_value().to_str().ok().and_then(|s| s.parse::<usize>().ok()))
            .ok_or_else(|| format!("internal error: kernel {name} was not lowered"))?;
        let md = function_md(ctx, f);
        let addr = ints(&md, "kernel_arg_addr_space");
        let access = strs(&md, "kernel_arg_access_qual");
        let tnames = strs(&md, "kernel_arg_type");
        let tquals = strs(&md, "kernel_arg_type_qual");
        let anames = strs(&md, "kernel_arg_name");
        let ptypes = f.get_type().get_param_types();
        if ptypes.len() != nuser + 10 {
            return Err(format!("internal error: kernel {name} has an unexpected signature"));
        }
        let mut off = 0u32;
        let mut args = Vec::with_capacity(nuser);
        for (i, pt) in ptypes.iter().enumerate().take(nuser) {
            let type_name = tnames.get(i).cloned().unwrap_or_default();
            let aspace = addr.get(i).copied().unwrap_or(0);
            let access_qualifier = match access.get(i).map(|s| s.as_str()) {
                Some("read_only") => AccessQualifier::ReadOnly,
                Some("write_only") => AccessQualifier::WriteOnly,
                Some("read_write") => AccessQualifier::ReadWrite,
                _ => AccessQualifier::None,
            };
            let bv = f.get_enum_attribute(AttributeLoc::Param(i as u32), byval);
            let (kind, size, align) = if let Some(bv) = bv {
                let t = bv.get_type_value();
                let sz = td.get_abi_size(&t) as u32;
                let attr_align = f
                    .get_enum_attribute(AttributeLoc::Param(i as u32), align_kind)
                    .map(|a| a.get_enum_value() as u32)
                    .filter(|a| a.is_power_of_two())
                    .unwrap_or(1);
                let al = td.get_abi_alignment(&t).max(attr_align);
                let kind = if type_name == "sampler_t" { ArgKind::Sampler } else { ArgKind::Struct };
                (kind, sz, al)
            } else {
                let t: AnyTypeEnum = match pt {
                    BasicMetadataTypeEnum::ArrayType(t) => t.as_any_type_enum(),
                    BasicMetadataTypeEnum::FloatType(t) => t.as_any_type_enum(),
                    BasicMetadataTypeEnum::IntType(t) => t.as_any_type_enum(),
                    BasicMetadataTypeEnum::PointerType(t) => t.as_any_type_enum(),
                    BasicMetadataTypeEnum::StructType(t) => t.as_any_type_enum(),
                    BasicMetadataTypeEnum::VectorType(t) => t.as_any_type_enum(),
                    _ => return Err(format!("kernel {name}: argument {i} has an unsupported type")),
                };
                let sz = td.get_abi_size(&t) as u32;
                let al = td.get_abi_alignment(&t);
                let kind = match (pt, ImageDim::of_type_name(&type_name)) {
                    _ if aspace == 3 => ArgKind::LocalPtr,
                    (_, Some(dim)) => ArgKind::Image { dim, access: access_qualifier },
                    _ if type_name == "sampler_t" => ArgKind::Sampler,
                    (BasicMetadataTypeEnum::PointerType(_), _) if aspace == 2 => ArgKind::ConstantPtr,
                    (BasicMetadataTypeEnum::PointerType(_), _) => ArgKind::GlobalPtr,
                    (BasicMetadataTypeEnum::VectorType(_), _) => ArgKind::Vector,
                    // A vector aligned above 16, passed as 16-byte chunks (see the bridge).
                    (BasicMetadataTypeEnum::ArrayType(t), _) if t.get_element_type().is_vector_type() => {
                        ArgKind::Vector
                    }
                    (BasicMetadataTypeEnum::StructType(_) | BasicMetadataTypeEnum::ArrayType(_), _) => {
                        ArgKind::Struct
                    }
                    _ => ArgKind::Scalar,
                };
                (kind, sz, al)
            };
            let offset = align_up(off, align);
            off = offset + size;
            args.push(ArgInfo {
                kind,
                size,
                align,
                offset,
                name: anames.get(i).cloned().unwrap_or_default(),
                type_name,
                address_qualifier: match aspace {
                    1 => AddressQualifier::Global,
                    2 => AddressQualifier::Constant,
                    3 => AddressQualifier::Local,
                    _ => AddressQualifier::Private,
                },
                access_qualifier,
                type_qualifier: type_qual_bits(tquals.get(i).map(|s| s.as_str()).unwrap_or("")),
            });
        }
        // Implicit: 3 x i64 global offset (contiguous, 8-aligned), the i32 work_dim, then 6 x i32
        // groups (first group of this launch, groups of the NDRange).
        let goff = align_up(off, 8);
        let wdim = goff + 24;
        let groups = wdim + 4;
        off = groups + 24;
        let implicit = vec![
            ImplicitArg { kind: ImplicitKind::GlobalOffset, offset: goff, size: 24 },
            ImplicitArg { kind: ImplicitKind::WorkDim, offset: wdim, size: 4 },
            ImplicitArg { kind: ImplicitKind::Groups, offset: groups, size: 24 },
        ];
        let reqd = dims(&md, "reqd_work_group_size");
        let hint = dims(&md, "work_group_size_hint");
        let vth = md.iter().find(|(k, _)| k == "vec_type_hint").and_then(|(_, v)| match v.as_slice() {
            [Md::Type(t), Md::Int(s), ..] => Some(cl_type_name(*t, *s != 0)),
            [Md::Type(t)] => Some(cl_type_name(*t, true)),
            _ => None,
        });
        let mut attrs = Vec::new();
        if let Some(d) = reqd {
            attrs.push(format!("reqd_work_group_size({},{},{})", d[0], d[1], d[2]));
        }
        if let Some(d) = hint {
            attrs.push(format!("work_group_size_hint({},{},{})", d[0], d[1], d[2]));
        }
        if let Some(v) = &vth {
            attrs.push(format!("vec_type_hint({v})"));
        }
        // cl_intel_required_subgroup_size: sub-groups are warps, so 32 is the one size there is.
        if let Some(&n) = ints(&md, "intel_reqd_sub_group_size").first() {
            if n != 32 {
                return Err(format!(
                    "error: kernel '{name}': intel_reqd_sub_group_size({n}) is not supported: the only \
                     sub-group size is 32 (CL_DEVICE_SUB_GROUP_SIZES_INTEL)\n"
                ));
            }
            attrs.push(format!("intel_reqd_sub_group_size({n})"));
        }
        out.push(KernelInfo {
            name,
            args,
            implicit,
            // The exact end of the last parameter: the driver compares CU_LAUNCH_PARAM_BUFFER_SIZE
            // with it, and a padded size fails the launch (CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,
            // seen on an H100 with driver 580).
            param_size: off,
            reqd_work_group_size: reqd,
            work_group_size_hint: hint,
            vec_type_hint: vth,
            attributes: attrs.join(" "),
        });
    }
    Ok(out)
}
