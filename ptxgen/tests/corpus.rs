//! ptxgen's integration tests (one test binary: each links all of clang).
//!
//! The corpus (tests/corpus/*.cl) carries its expectations in comments:
//!   // OPTIONS: <build options>        // EXPECT: fail | invalid-options
//!   // KERNELS: <entry names>          // ERROR: <text the log must contain>
//!   // ATTRS: <kernel> <attributes>    // LOG: empty | <text the log must contain>
//! Every successful build is checked against its PTX: .version/.target (no texmode_independent),
//! the entries, every parameter's offset and size against the .param declarations, __local
//! arguments as u32 offsets with the dynamic shared array declared, and no call to anything
//! that is neither defined in the PTX nor vprintf.
use ptxgen::*;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Once;

const H100: Target = Target { sm: 90, ptx_isa: (8, 5) };

fn setup() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // Never touch the user's cache from the tests.
        let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ptxgen-test-cache");
        std::env::set_var("CUDACL_CACHE_DIR", d);
        // Programs with several kernels take the parallel path (split.rs) on every machine,
        // CI's two cores included; split_and_whole_builds_agree compares it with the whole one.
        set_build_threads(4);
    });
}

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus")
}

fn build_nc(src: &str, opts: &str, t: &Target) -> Result<Program, BuildError> {
    build_timed(src, opts, t, false).0
}

// ---------------------------------------------------------------------------------------------
// PTX parsing
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone)]
struct PtxParam {
    ty: String,
    align: u32,
    size: u32,
}

#[derive(Debug)]
struct PtxEntry {
    name: String,
    params: Vec<PtxParam>,
}

fn scalar_size(ty: &str) -> Option<u32> {
    Some(match ty {
        ".u8" | ".s8" | ".b8" => 1,
        ".u16" | ".s16" | ".b16" | ".f16" => 2,
        ".u32" | ".s32" | ".b32" | ".f32" => 4,
        ".u64" | ".s64" | ".b64" | ".f64" => 8,
        _ => return None,
    })
}

fn parse_param(decl: &str) -> Result<PtxParam, String> {
    // ".param .u64 name" | ".param .align 8 .b8 name[16]" | ".param .u64 .ptr .global .align 4 name"
    let toks: Vec<&str> = decl.split_whitespace().collect();
    if toks.first() != Some(&".param") {
        return Err(format!("not a param: {decl}"));
    }
    let mut align = None;
    let mut ty = None;
    let mut i = 1;
    let mut ptr = false;
    while i < toks.len() {
        match toks[i] {
            ".align" => {
                align = toks.get(i + 1).and_then(|a| a.parse::<u32>().ok());
                i += 2;
                continue;
            }
            ".ptr" => ptr = true,
            t if t.starts_with('.') && scalar_size(t).is_some() => ty = Some(t.to_string()),
            t if t.starts_with('.') => {}
            name => {
                let ty = ty.clone().ok_or(format!("no type in {decl}"))?;
                let es = scalar_size(&ty).unwrap_or(1);
                if let Some(open) = name.find('[') {
                    let n: u32 =
                        name[open + 1..name.len() - 1].parse().map_err(|_| format!("bad array {decl}"))?;
                    return Ok(PtxParam { ty, align: align.unwrap_or(es), size: n * es });
                }
                // For .ptr params .align is the pointee's alignment, not the slot's.
                let a = if ptr { es } else { align.unwrap_or(es) };
                return Ok(PtxParam { ty, align: a, size: es });
            }
        }
        i += 1;
    }
    Err(format!("no name in {decl}"))
}

fn parse_entries(ptx: &str) -> Result<Vec<PtxEntry>, String> {
    let mut out = Vec::new();
    let mut lines = ptx.lines();
    while let Some(l) = lines.next() {
        let t = l.trim();
        if let Some(rest) = t.strip_prefix(".visible .entry ").or_else(|| t.strip_prefix(".entry ")) {
            let name = rest.split('(').next().unwrap_or("").trim().to_string();
            let mut params = Vec::new();
            if !rest.trim_end().ends_with("()") {
                for pl in lines.by_ref() {
                    let p = pl.trim().trim_end_matches(',');
                    if p.starts_with(')') {
                        break;
                    }
                    if p.is_empty() {
                        continue;
                    }
                    params.push(parse_param(p)?);
                }
            }
            out.push(PtxEntry { name, params });
        }
    }
    Ok(out)
}

fn func_name_after(s: &str) -> String {
    // "(.param .b32 func_retval0) name(" or "name("
    let mut s = s.trim_start();
    if s.starts_with('(') {
        if let Some(c) = s.find(')') {
            s = s[c + 1..].trim_start();
        }
    }
    s.chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '$' || *c == '.').collect()
}

/// (defined functions, extern functions, call targets)
fn calls(ptx: &str) -> (BTreeSet<String>, BTreeSet<String>, BTreeSet<String>) {
    let mut defined = BTreeSet::new();
    let mut externs = BTreeSet::new();
    for l in ptx.lines() {
        let t = l.trim();
        if let Some(p) = t.find(".func") {
            let name = func_name_after(&t[p + 5..]);
            if t.starts_with(".extern") {
                externs.insert(name);
            } else if t.starts_with(".visible") || t.starts_with(".func") || t.starts_with(".weak") {
                defined.insert(name);
            }
        }
    }
    let mut targets = BTreeSet::new();
    let toks: Vec<&str> =
        ptx.split(|c: char| c.is_whitespace() || c == ',').filter(|t| !t.is_empty()).collect();
    for (i, t) in toks.iter().enumerate() {
        if *t == "call" || t.starts_with("call.") {
            for u in &toks[i + 1..] {
                if u.starts_with('(') || u.ends_with(')') || u.starts_with('{') {
                    continue;
                }
                targets.insert(u.trim_end_matches(';').to_string());
                break;
            }
        }
    }
    (defined, externs, targets)
}

/// NVIDIA's ptxas, when the machine has one ($PTXAS, or `ptxas` on PATH; e.g. from the
/// nvidia-cuda-nvcc-cu12 wheel): every PTX is then also assembled for its target.
fn ptxas() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("PTXAS").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    std::env::var_os("PATH")?
        .to_string_lossy()
        .split(':')
        .map(|d| Path::new(d).join("ptxas"))
        .find(|p| p.is_file())
}

fn ptxas_check(what: &str, ptx: &str, t: &Target) -> Option<String> {
    if t.sm < 50 {
        return None; // CUDA 12's ptxas no longer knows Kepler
    }
    let exe = ptxas()?;
    let f = std::env::temp_dir().join(format!(
        "ptxgen-ptxas-{}-{}.ptx",
        std::process::id(),
        what.replace(['/', ' '], "_")
    ));
    std::fs::write(&f, ptx).ok()?;
    let out = Command::new(exe)
        .arg(format!("-arch=sm_{}", t.sm))
        .arg(&f)
        .args(["-o", "/dev/null"])
        .output()
        .ok()?;
    let _ = std::fs::remove_file(&f);
    if out.status.success() {
        None
    } else {
        Some(format!("{what}: ptxas rejects the PTX:\n{}", String::from_utf8_lossy(&out.stderr)))
    }
}

fn align_up(x: u32, a: u32) -> u32 {
    x.div_ceil(a.max(1)) * a.max(1)
}

/// A load or store of .f32 data through %fd (double) registers, or of .f64 data through %f ones:
/// ptxas answers "Arguments mismatch for instruction 'ld'" (LLVM 19 folds an fpext of a loaded
/// float vector into `ld.global.v2.f32 {%fd1, %fd2}`).
fn float_register_mismatch(line: &str) -> bool {
    let l = line.trim();
    let Some(op) = l.split_whitespace().next() else { return false };
    if !(op.starts_with("ld.") || op.starts_with("st.")) {
        return false;
    }
    let regs: Vec<&str> = l[op.len()..]
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '%' || c == '_'))
        .filter(|t| t.starts_with('%'))
        .collect();
    let is_fd = |r: &&str| r.starts_with("%fd");
    let is_f = |r: &&str| r.starts_with("%f") && !r.starts_with("%fd");
    (op.ends_with(".f32") && regs.iter().any(is_fd)) || (op.ends_with(".f64") && regs.iter().any(is_f))
}

#[test]
fn float_register_mismatch_finds_the_extending_vector_load() {
    assert!(float_register_mismatch("\tld.global.v2.f32 \t{%fd17, %fd2}, [%rd46];"));
    assert!(!float_register_mismatch("\tld.global.v2.f32 \t{%f17, %f2}, [%rd46];"));
    assert!(!float_register_mismatch("\tld.global.f64 \t%fd1, [%rd4];"));
    assert!(float_register_mismatch("\tst.global.f64 \t[%rd4], %f1;"));
}

/// Checks a built program against its PTX. Returns the problems found.
fn check_program(file: &str, p: &Program, t: &Target, kernels: Option<&BTreeSet<String>>) -> Vec<String> {
    let mut errs = Vec::new();
    let ptx = &p.ptx;
    let want_version = format!(".version {}.{}", t.ptx_isa.0, t.ptx_isa.1);
    if !ptx.lines().any(|l| l.trim() == want_version) {
        errs.push(format!("{file}: missing '{want_version}'"));
    }
    let want_target = format!(".target sm_{}", t.sm);
    if !ptx.lines().any(|l| l.trim() == want_target) {
        errs.push(format!("{file}: missing '{want_target}' exactly"));
    }
    if ptx.contains("texmode_independent") {
        errs.push(format!("{file}: texmode_independent in PTX"));
    }
    for l in ptx.lines().filter(|l| float_register_mismatch(l)) {
        errs.push(format!("{file}: ptxas rejects (register class): {}", l.trim()));
    }
    let entries = match parse_entries(ptx) {
        Ok(e) => e,
        Err(e) => return vec![format!("{file}: {e}")],
    };
    let names: BTreeSet<String> = entries.iter().map(|e| e.name.clone()).collect();
    let info_names: BTreeSet<String> = p.kernels.iter().map(|k| k.name.clone()).collect();
    if names != info_names {
        errs.push(format!("{file}: PTX entries {names:?} != KernelInfo {info_names:?}"));
    }
    if let Some(k) = kernels {
        if &names != k {
            errs.push(format!("{file}: entries {names:?}, expected {k:?}"));
        }
    }
    let mut any_local = false;
    for k in &p.kernels {
        let Some(e) = entries.iter().find(|e| e.name == k.name) else { continue };
        // Expected slots: user args, then 3 x u64 offset, u32 work_dim, 6 x u32 groups.
        let mut want: Vec<(u32, u32, String)> = Vec::new();
        for (i, a) in k.args.iter().enumerate() {
            want.push((a.offset, a.size, format!("arg {i} ({})", a.name)));
            if a.kind == ArgKind::LocalPtr {
                any_local = true;
                if a.size != 4 || a.align != 4 || e.params.get(i).map(|p| p.ty.as_str()) != Some(".u32") {
                    errs.push(format!("{file}: {}: __local arg {i} is not a u32 slot", k.name));
                }
            }
        }
        let go = k.implicit.iter().find(|i| i.kind == ImplicitKind::GlobalOffset);
        let wd = k.implicit.iter().find(|i| i.kind == ImplicitKind::WorkDim);
        let gr = k.implicit.iter().find(|i| i.kind == ImplicitKind::Groups);
        match (go, wd, gr) {
            (Some(go), Some(wd), Some(gr)) if go.size == 24 && wd.size == 4 && gr.size == 24 => {
                for d in 0..3 {
                    want.push((go.offset + 8 * d, 8, format!("global_offset[{d}]")));
                }
                want.push((wd.offset, 4, "work_dim".into()));
                for w in 0..6 {
                    want.push((gr.offset + 4 * w, 4, format!("groups[{w}]")));
                }
            }
            _ => errs.push(format!("{file}: {}: implicit args missing", k.name)),
        }
        if want.len() != e.params.len() {
            errs.push(format!(
                "{file}: {}: {} PTX params, layout has {}",
                k.name,
                e.params.len(),
                want.len()
            ));
            continue;
        }
        let mut off = 0;
        let mut end = 0;
        for (pp, (wo, ws, what)) in e.params.iter().zip(&want) {
            let o = align_up(off, pp.align);
            if o != *wo || pp.size != *ws {
                errs.push(format!(
                    "{file}: {}: {what}: PTX says offset {o} size {}, layout says offset {wo} size {ws}",
                    k.name, pp.size
                ));
            }
            off = o + pp.size;
            end = off;
        }
        // The driver wants the exact end (a padded CU_LAUNCH_PARAM_BUFFER_SIZE fails the launch).
        if k.param_size != end {
            errs.push(format!("{file}: {}: param_size {} but params end at {end}", k.name, k.param_size));
        }
    }
    if any_local && !ptx.contains(".extern .shared .align 128 .b8 __cudacl_dynshared[]") {
        errs.push(format!("{file}: __local args but no dynamic shared array"));
    }
    let (defined, externs, targets) = calls(ptx);
    for x in &externs {
        if x != "vprintf" {
            errs.push(format!("{file}: extern function {x} in PTX"));
        }
    }
    for c in &targets {
        if !defined.contains(c) && c != "vprintf" {
            errs.push(format!("{file}: call to unresolved {c}"));
        }
    }
    errs
}

struct Case {
    file: String,
    source: String,
    options: String,
    expect: Option<String>,
    errors: Vec<String>,
    kernels: Option<BTreeSet<String>>,
    attrs: Vec<(String, String)>,
    log: Vec<String>,
}

fn directive<'a>(src: &'a str, key: &str) -> Vec<&'a str> {
    let tag = format!("// {key}:");
    src.lines().filter_map(|l| l.strip_prefix(tag.as_str())).map(|s| s.trim()).collect()
}

fn load_corpus() -> Vec<Case> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .expect("corpus dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().map(|e| e == "cl").unwrap_or(false))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let source = std::fs::read_to_string(&p).expect("read corpus file");
            let file = p.file_name().unwrap().to_string_lossy().into_owned();
            let options = directive(&source, "OPTIONS").first().map(|s| s.to_string()).unwrap_or_default();
            // -I paths in the corpus are relative to the crate.
            let options = options.replace("-I tests/", &format!("-I {}/tests/", env!("CARGO_MANIFEST_DIR")));
            let expect = directive(&source, "EXPECT").first().map(|s| s.to_string());
            let errors = directive(&source, "ERROR").iter().map(|s| s.to_string()).collect();
            let kernels = directive(&source, "KERNELS")
                .first()
                .map(|s| s.split_whitespace().map(|k| k.to_string()).collect());
            let attrs = directive(&source, "ATTRS")
                .iter()
                .filter_map(|s| s.split_once(' ').map(|(a, b)| (a.to_string(), b.to_string())))
                .collect();
            let log = directive(&source, "LOG").iter().map(|s| s.to_string()).collect();
            Case { file, source, options, expect, errors, kernels, attrs, log }
        })
        .collect()
}

#[test]
fn corpus_builds_and_matches_ptx() {
    setup();
    let cases = load_corpus();
    assert!(cases.len() >= 50, "corpus has only {} kernels", cases.len());
    let mut errs: Vec<String> = Vec::new();
    let (mut ok, mut failed_as_expected) = (0, 0);
    for c in &cases {
        let r = build_nc(&c.source, &c.options, &H100);
        match (&c.expect, r) {
            (None, Ok(p)) => {
                ok += 1;
                errs.extend(check_program(&c.file, &p, &H100, c.kernels.as_ref()));
                errs.extend(ptxas_check(&c.file, &p.ptx, &H100));
                for (k, a) in &c.attrs {
                    match p.kernels.iter().find(|x| &x.name == k) {
                        Some(ki) if &ki.attributes == a => {}
                        Some(ki) => {
                            errs.push(format!("{}: {k}: attributes '{}' != '{a}'", c.file, ki.attributes))
                        }
                        None => errs.push(format!("{}: no kernel {k}", c.file)),
                    }
                }
                for l in &c.log {
                    if l == "empty" {
                        if !p.log.is_empty() {
                            errs.push(format!("{}: log should be empty: {}", c.file, p.log));
                        }
                    } else if !p.log.contains(l.as_str()) {
                        errs.push(format!("{}: log lacks '{l}': {}", c.file, p.log));
                    }
                }
                // The binary container round-trips every corpus program.
                if Program::from_binary(&p.to_binary()).as_ref() != Ok(&p) {
                    errs.push(format!("{}: binary round trip differs", c.file));
                }
            }
            (None, Err(e)) => errs.push(format!("{}: build failed: {e:?}", c.file)),
            (Some(x), Ok(_)) => errs.push(format!("{}: expected {x}, built fine", c.file)),
            (Some(x), Err(e)) => {
                let (kind, log) = match &e {
                    BuildError::InvalidOptions { log } => ("invalid-options", log),
                    BuildError::Failed { log } => ("fail", log),
                };
                if kind != x {
                    errs.push(format!("{}: expected {x}, got {kind}: {log}", c.file));
                }
                for want in &c.errors {
                    if !log.contains(want.as_str()) {
                        errs.push(format!("{}: log lacks '{want}':\n{log}", c.file));
                    }
                }
                failed_as_expected += 1;
            }
        }
    }
    eprintln!(
        "corpus: {} files, {ok} built and checked, {failed_as_expected} failed as expected; ptxas: {}",
        cases.len(),
        ptxas().map(|p| p.display().to_string()).unwrap_or_else(|| "not found, skipped".into())
    );
    assert!(errs.is_empty(), "{} problems:\n{}", errs.len(), errs.join("\n"));
}

fn kernel<'a>(p: &'a Program, name: &str) -> &'a KernelInfo {
    p.kernels.iter().find(|k| k.name == name).unwrap_or_else(|| panic!("no kernel {name}"))
}

fn corpus_src(name: &str) -> String {
    std::fs::read_to_string(corpus_dir().join(name)).expect("corpus file")
}

#[test]
fn argument_layouts() {
    setup();
    let p = build_nc(&corpus_src("struct_packed.cl"), "", &H100).unwrap();
    let k = kernel(&p, "packed");
    let a: Vec<(ArgKind, u32, u32, u32)> =
        k.args.iter().map(|a| (a.kind, a.offset, a.size, a.align)).collect();
    assert_eq!(
        a,
        vec![
            (ArgKind::GlobalPtr, 0, 8, 8),
            (ArgKind::Scalar, 8, 1, 1),
            (ArgKind::Struct, 9, 5, 1),
            (ArgKind::Scalar, 14, 2, 2)
        ]
    );
    assert_eq!(k.implicit[0], ImplicitArg { kind: ImplicitKind::GlobalOffset, offset: 16, size: 24 });
    assert_eq!(k.implicit[1], ImplicitArg { kind: ImplicitKind::WorkDim, offset: 40, size: 4 });
    assert_eq!(k.implicit[2], ImplicitArg { kind: ImplicitKind::Groups, offset: 44, size: 24 });
    assert_eq!(k.param_size, 68);

    let p = build_nc(&corpus_src("struct_aligned.cl"), "", &H100).unwrap();
    let k = kernel(&p, "aligned16");
    assert_eq!(
        (k.args[2].kind, k.args[2].offset, k.args[2].size, k.args[2].align),
        (ArgKind::Struct, 16, 16, 16)
    );
    assert_eq!(k.args[3].offset, 32);

    let p = build_nc(&corpus_src("vec3_arg.cl"), "", &H100).unwrap();
    let k = kernel(&p, "vec3");
    // The 32-byte 3-vector is aligned at 16 like every wider vector (see wide_vector_args.cl).
    let a: Vec<(ArgKind, u32, u32, u32)> =
        k.args.iter().map(|a| (a.kind, a.offset, a.size, a.align)).collect();
    assert_eq!(
        a,
        vec![
            (ArgKind::GlobalPtr, 0, 8, 8),
            (ArgKind::Vector, 16, 16, 16),
            (ArgKind::Vector, 32, 4, 4),
            (ArgKind::Vector, 48, 32, 16)
        ]
    );
    assert_eq!(k.args[1].type_name, "float3");

    let p = build_nc(&corpus_src("qualifiers.cl"), "-cl-kernel-arg-info", &H100).unwrap();
    assert!(p.has_arg_info());
    let k = kernel(&p, "quals");
    let q: Vec<(&str, &str, AddressQualifier, u64, AccessQualifier)> = k
        .args
        .iter()
        .map(|a| {
            (a.name.as_str(), a.type_name.as_str(), a.address_qualifier, a.type_qualifier, a.access_qualifier)
        })
        .collect();
    assert_eq!(
        q,
        vec![
            ("a", "int*", AddressQualifier::Global, 1 | 2, AccessQualifier::None),
            ("v", "int*", AddressQualifier::Global, 4, AccessQualifier::None),
            ("c", "float*", AddressQualifier::Constant, 1, AccessQualifier::None),
            ("cv", "uint*", AddressQualifier::Global, 1 | 4, AccessQualifier::None),
            ("k", "int", AddressQualifier::Private, 0, AccessQualifier::None),
        ]
    );
    assert_eq!(k.args[2].kind, ArgKind::ConstantPtr);

    let p = build_nc(&corpus_src("local_args_mixed.cl"), "", &H100).unwrap();
    assert!(!p.has_arg_info());
    let k = kernel(&p, "mixed");
    let kinds: Vec<ArgKind> = k.args.iter().map(|a| a.kind).collect();
    use ArgKind::*;
    assert_eq!(kinds, vec![Scalar, LocalPtr, GlobalPtr, LocalPtr, Scalar, LocalPtr]);
    assert_eq!(k.args[1].address_qualifier, AddressQualifier::Local);
    // Names are filled in even without -cl-kernel-arg-info (has_arg_info() tells).
    assert_eq!(k.args[0].name, "c");

    let p = build_nc(&corpus_src("typedef_names.cl"), "", &H100).unwrap();
    let kinds: Vec<ArgKind> = kernel(&p, "names").args.iter().map(|a| a.kind).collect();
    assert_eq!(kinds, vec![GlobalPtr, Scalar, Struct]);

    let p = build_nc(&corpus_src("attrs_reqd.cl"), "", &H100).unwrap();
    let k = kernel(&p, "reqd");
    assert_eq!(k.reqd_work_group_size, Some([64, 2, 1]));
    assert!(p.ptx.contains(".maxntid 128, 1, 1"), "no .maxntid");
    let p = build_nc(&corpus_src("attrs_hint.cl"), "", &H100).unwrap();
    let k = kernel(&p, "hinted");
    assert_eq!(k.work_group_size_hint, Some([128, 1, 1]));
    assert_eq!(k.vec_type_hint.as_deref(), Some("float4"));
}

/// A kernel with char2/uchar2 parameters is replaced just before code generation (the bridge's
/// widenCharPairParams); with NVPTX's annotation cache left from the optimiser it was emitted now
/// and then as a .func, so the PTX had no .entry for it (the CTS's basic parameter_types at vector
/// size 2: CUDA_ERROR_NOT_FOUND from cuModuleGetFunction; about 1 build in 4 here). Many builds
/// of one such kernel, each a distinct source (no cache), must all have the entry.
#[test]
fn char_pair_kernels_stay_entries() {
    setup();
    let mut missing = Vec::new();
    for i in 0..24 {
        let src = format!(
            "__kernel void test_kernel(char2 c, uchar2 uc, short2 s, int2 n, float2 f, __global float2 *r) {{\n\
             r[0] = convert_float2(c) + {i}.0f; r[1] = convert_float2(uc); r[2] = convert_float2(s);\n\
             r[3] = convert_float2(n); r[4] = f; }}\n"
        );
        let p = build_nc(&src, "", &H100).unwrap();
        let entries: Vec<String> = parse_entries(&p.ptx).unwrap().into_iter().map(|e| e.name).collect();
        if entries != ["test_kernel"] {
            missing.push(format!("build {i}: entries {entries:?}"));
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

#[test]
fn rewrites_in_ptx() {
    setup();
    // work_group_barrier: bar.sync, after a membar.gl for a device-scope global fence; the
    // linear ids and get_enqueued_local_size defined.
    let p = build_nc(&corpus_src("cl30_work_items.cl"), "-cl-std=CL3.0", &H100).unwrap();
    assert!(p.ptx.contains("membar.gl") && p.ptx.matches("bar.sync").count() == 2, "{}", p.ptx);
    // printf -> vprintf with the format string in global memory.
    let p = build_nc(&corpus_src("printf.cl"), "", &H100).unwrap();
    assert!(p.ptx.contains(".extern .func  (.param .b32 func_retval0) vprintf"), "{}", p.ptx);
    assert!(!p.ptx.contains("printf,") || p.ptx.contains("vprintf"));
    // Vector conversions are expanded per element: "%v4f" -> "%f,%f,%f,%f"; "hh" (which CUDA's
    // vprintf misreads) becomes a plain conversion of the truncated value.
    let p = build_nc(&corpus_src("printf_vector.cl"), "", &H100).unwrap();
    let bytes = |s: &str| s.bytes().map(|b| b.to_string()).collect::<Vec<_>>().join(", ");
    assert!(
        p.ptx.contains(&bytes("f=%f,%f,%f,%f i=%d,%d c=%#x,%#x,%#x,%#x d=%lf,%lf done %d%%")),
        "{}",
        p.ptx
    );
    assert!(p.ptx.contains(&bytes("hl=%f,%f,%f,%f")), "{}", p.ptx);
    // __constant arguments and data are ordinary global memory (no ld.const through a pointer).
    let p = build_nc(&corpus_src("constant_arg.cl"), "", &H100).unwrap();
    assert!(!p.ptx.contains("ld.const"), "ld.const in:\n{}", p.ptx);
    assert!(!p.ptx.contains(".const "), ".const data in:\n{}", p.ptx);
    // 64-bit atomics become atom.*.u64/s64.
    let p = build_nc(&corpus_src("atom64.cl"), "", &H100).unwrap();
    assert!(p.ptx.contains("atom.global.add.u64"), "{}", p.ptx);
    assert!(p.ptx.contains("atom.global.cas.b64"), "{}", p.ptx);
    assert!(p.ptx.contains("atom.global.min.s64"), "{}", p.ptx);
    // get_global_id adds the implicit offset: the offset parameter is read.
    let p = build_nc(&corpus_src("vadd.cl"), "", &H100).unwrap();
    assert!(p.ptx.contains("ld.param.u64") && p.ptx.contains("vadd_param_4"), "{}", p.ptx);
    // Optimisation is on by default, off with -cl-opt-disable.
    let o3 = build_nc(&corpus_src("options_opt_disable.cl"), "", &H100).unwrap();
    let o0 = build_nc(&corpus_src("options_opt_disable.cl"), "-cl-opt-disable", &H100).unwrap();
    // (the function `helper` is called at -O0 and inlined at O3; sin's out-of-line path for huge
    // arguments is a call either way)
    assert!(o0.ptx.contains("call.uni") && o0.ptx.contains("helper"), "{}", o0.ptx);
    let o3_kernel = &o3.ptx[o3.ptx.find(".entry noopt").expect("the kernel")..];
    assert!(!o3_kernel.contains("helper"), "{}", o3.ptx);
    // -cl-denorms-are-zero: flush-to-zero f32 arithmetic.
    let dz = build_nc(&corpus_src("options_denorms.cl"), "-cl-denorms-are-zero", &H100).unwrap();
    assert!(dz.ptx.contains(".ftz.f32"), "{}", dz.ptx);
}

/// Float exp, exp2, exp10, log, log2, log10, sin, cos, pow, powr, tan, atan, atan2, asin, acos,
/// tanh, sinh, cosh, log1p, expm1, cbrt, erf and erfc come from mathlib.cl (scalar and vector): the
/// exponentials through ex2.approx.f32, nothing through a correctly rounded division (libclc's
/// forms have one each); double exp stays libclc's.
#[test]
fn math_library_in_ptx() {
    setup();
    for f in ["exp", "exp2", "exp10", "log", "log2", "log10", "sin", "cos"] {
        let src = format!(
            "__kernel void s(__global float *a) {{ a[get_global_id(0)] = {f}(a[get_global_id(0)]); }}\n\
             __kernel void v(__global float4 *a) {{ a[get_global_id(0)] = {f}(a[get_global_id(0)]); }}\n"
        );
        let p = build_nc(&src, "", &H100).unwrap();
        assert!(!p.ptx.contains("div.rn.f32"), "{f}: a correctly rounded division left:\n{}", p.ptx);
        let ex2 = p.ptx.matches("ex2.approx.f32").count();
        if f.starts_with("exp") {
            assert!(ex2 >= 5, "{f}: {ex2} ex2.approx.f32 for 5 lanes:\n{}", p.ptx);
        } else if f == "sin" || f == "cos" {
            // the reduction by x * 2/pi inline; arguments beyond 105615 through a call
            assert!(p.ptx.contains("0f3F22F983"), "{f}:\n{}", p.ptx);
            assert!(p.ptx.contains("__ml_sincos_big"), "{f}:\n{}", p.ptx);
        } else {
            assert_eq!(ex2, 0, "{f}:\n{}", p.ptx);
        }
    }
    // sqrt and rsqrt: the GPU's approximations (3 and 2 ulp allowed), sqrt correctly rounded
    // with -cl-fp32-correctly-rounded-divide-sqrt; native_ quotients div.approx, half_ ones div.full.
    let roots = "__kernel void r(__global float4 *a) { size_t i = get_global_id(0);\n\
                 a[i] = sqrt(a[i]) + rsqrt(a[i + 1]) + native_divide(a[i + 2], a[i + 3]) + half_recip(a[i + 4]); }\n";
    let p = build_nc(roots, "", &H100).unwrap();
    assert_eq!(p.ptx.matches("\tsqrt.approx.f32").count(), 4, "{}", p.ptx);
    assert_eq!(p.ptx.matches("rsqrt.approx.f32").count(), 4, "{}", p.ptx);
    assert_eq!(p.ptx.matches("div.approx.f32").count(), 4, "{}", p.ptx);
    assert_eq!(p.ptx.matches("div.full.f32").count(), 4, "half_recip: {}", p.ptx);
    for op in ["sqrt.rn", "rcp.rn", "div.rn"] {
        assert!(!p.ptx.contains(op), "{op} left:\n{}", p.ptx);
    }
    let p = build_nc(roots, "-cl-fp32-correctly-rounded-divide-sqrt", &H100).unwrap();
    assert_eq!(p.ptx.matches("\tsqrt.rn.f32").count(), 4, "{}", p.ptx);
    let p = build_nc(roots, "-cl-denorms-are-zero", &H100).unwrap();
    assert_eq!(p.ptx.matches("\tsqrt.approx.ftz.f32").count(), 4, "{}", p.ptx);
    // pow and powr: the fast path inline (through ex2.approx), libclc's __clc_pow/__clc_powr out of
    // line for the special cases
    for f in ["pow", "powr"] {
        let src = format!(
            "__kernel void s(__global float *a) {{ a[0] = {f}(a[1], a[2]); }}\n\
             __kernel void v(__global float2 *a) {{ a[0] = {f}(a[1], a[2]); }}\n"
        );
        let p = build_nc(&src, "", &H100).unwrap();
        assert_eq!(p.ptx.matches("ex2.approx.f32").count(), 3, "{f}:\n{}", p.ptx);
        assert!(p.ptx.contains("__ml_pow_other"), "{f}:\n{}", p.ptx);
    }
    // tan, the inverse and hyperbolic functions, log1p, expm1, cbrt, erf, erfc: mathlib.cl's (no
    // correctly rounded division; the GPU instruction each is built on; the out-of-line
    // fallbacks by name), not libclc's
    let marks: [(&str, &[&str]); 13] = [
        ("tan", &["0f3F22F983", "div.approx.f32", "__ml_tan_big"]),
        ("atan", &["div.approx.f32"]),
        ("asin", &["rsqrt.approx.f32"]),
        ("acos", &["rsqrt.approx.f32"]),
        ("tanh", &["div.approx.f32"]),
        ("sinh", &["div.approx.f32"]),
        ("cosh", &["div.approx.f32"]),
        ("log1p", &["0f3F317200"]),
        ("expm1", &["0f3FB8AA3B"]),
        ("cbrt", &["lg2.approx.f32", "ex2.approx.f32"]),
        ("erf", &["ex2.approx.f32"]),
        ("atan2", &["div.approx.f32", "__ml_atan2_other"]),
        ("erfc", &["ex2.approx.f32", "div.approx.f32"]),
    ];
    for (f, want) in marks {
        let call = if f == "atan2" { format!("{f}(a[i], a[i + 1])") } else { format!("{f}(a[i])") };
        let src = format!(
            "__kernel void s(__global float *a) {{ size_t i = get_global_id(0); a[i] = {call}; }}\n\
             __kernel void v(__global float4 *a) {{ size_t i = get_global_id(0); a[i] = {call}; }}\n"
        );
        let p = build_nc(&src, "", &H100).unwrap();
        for bad in ["div.rn.f32", "rcp.rn.f32", "sqrt.rn.f32"] {
            assert!(!p.ptx.contains(bad), "{f}: {bad} left:\n{}", p.ptx);
        }
        for w in want {
            assert!(p.ptx.contains(w), "{f}: no {w}:\n{}", p.ptx);
        }
        // erfc is no longer computed in double (fixFloatSubnormalCalls)
        assert!(f != "erfc" || !p.ptx.contains("cvt.f64.f32"), "{f}: a double path:\n{}", p.ptx);
    }
    // -cl-denorms-are-zero: mathlib's helpers are inlined as under the default (always_inline: the
    // kernel then has another denormal mode than the library, and LLVM does not inline plain
    // functions across that); only the out-of-line fallbacks are calls.
    let all = "__kernel void k(__global float *a) { size_t i = get_global_id(0);\n\
               a[i] = exp(a[i]) + log(a[i]) + pow(a[i], a[i + 1]) + atan(a[i]) + asin(a[i]) + tanh(a[i])\n\
               + cosh(a[i]) + expm1(a[i]) + log1p(a[i]) + erf(a[i]) + erfc(a[i]) + atan2(a[i], a[i + 1]); }\n";
    let p = build_nc(all, "-cl-denorms-are-zero", &H100).unwrap();
    for helper in
        ["__ml_exp_base", "__ml_log_base", "__ml_div", "__ml_atan01", "__ml_expm1_mid", "__ml_copysign"]
    {
        assert!(!p.ptx.contains(helper), "{helper} not inlined:\n{}", p.ptx);
    }
    let d = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n\
             __kernel void d(__global double *a) { a[get_global_id(0)] = exp(a[get_global_id(0)]); }\n";
    let p = build_nc(d, "", &H100).unwrap();
    assert!(!p.ptx.contains("ex2.approx"), "double exp through ex2.approx:\n{}", p.ptx);
}

/// A grid-stride loop under `#pragma unroll 4` steps each copy by the global size itself: the
/// size is one value opaque to ScalarEvolution (an inline-assembly mul.wide.u32), not the group
/// count times ntid that SCEV would factor into a separate 64-bit bound per copy (ptxas then
/// needed 40 registers for this loop, NVIDIA's compiler 20; 31 with the opaque size).
#[test]
fn unrolled_grid_stride_loops_step_by_the_global_size() {
    setup();
    let src = "kernel void k(global const float *in, global float *out, ulong n) { float acc = 0;\n\
               #pragma unroll 4\n for (size_t i = get_global_id(0); i < n; i += get_global_size(0)) acc += in[i]; \
               out[get_global_id(0)] = acc; }";
    let p = build_nc(src, "", &H100).unwrap();
    let asm =
        p.ptx.lines().filter(|l| l.trim_start().starts_with("mul.wide.u32") && l.contains(", %r")).count();
    assert!(p.ptx.contains("begin inline asm") && asm >= 1, "no opaque global size:\n{}", p.ptx);
    // Before: three `mul.lo.s64` by ntid rebuilt each copy's bound from the group id.
    let wide_muls = p.ptx.lines().filter(|l| l.trim_start().starts_with("mul.lo.s64")).count();
    assert!(wide_muls <= 2, "{wide_muls} 64-bit multiplies:\n{}", p.ptx);
    let loads = p.ptx.lines().filter(|l| l.trim_start().starts_with("ld.global")).count();
    assert!(loads >= 4, "not unrolled by 4:\n{}", p.ptx);
}

/// Loops stepping by a run-time stride that only read memory (bridge/stride_unroll.cpp) run four
/// iterations behind one test, their four loads before the adds that use them (in flight
/// together); a loop that stores, and one under `#pragma unroll 1`, keep one load per trip.
#[test]
fn run_time_stride_loops_load_in_chunks() {
    setup();
    // The loads of the loop's block (up to its back branch) that come before its first add.f64.
    let loads_before_first_add = |ptx: &str| {
        let mut best = 0;
        for block in ptx.split("$L__BB").skip(1) {
            let body: Vec<&str> = block.lines().map(str::trim).collect();
            let first_add = body.iter().position(|l| l.starts_with("add.rn.f64")).unwrap_or(body.len());
            best = best.max(body[..first_add].iter().filter(|l| l.starts_with("ld.global")).count());
        }
        best
    };
    let sum = |pragma: &str, store: &str| {
        format!(
            "kernel void k(global double *x, global double *out, ulong n) {{ double acc = 0;\n{pragma}\n\
             for (size_t i = get_global_id(0); i < n; i += get_global_size(0)) {{ acc += x[i]; {store} }}\n\
             out[get_global_id(0)] = acc; }}"
        )
    };
    let plain = build_nc(&sum("", ""), "", &H100).unwrap().ptx;
    assert_eq!(loads_before_first_add(&plain), 4, "not in chunks of 4:\n{plain}");
    let signed = build_nc(
        "kernel void k(global const float *x, global float *out, int n) { float m = 0;\n\
         for (int j = get_local_id(0); j < n; j += get_local_size(0)) m = fmax(m, x[j]);\n\
         out[get_global_id(0)] = m; }",
        "",
        &H100,
    )
    .unwrap()
    .ptx;
    assert!(signed.matches("ld.global").count() >= 5, "signed work-group stride not chunked:\n{signed}");
    let stores = build_nc(&sum("", "x[i] = 0;"), "", &H100).unwrap().ptx;
    assert_eq!(stores.matches("ld.global").count(), 1, "a storing loop was chunked:\n{stores}");
    let off = build_nc(&sum("#pragma unroll 1", ""), "", &H100).unwrap().ptx;
    assert_eq!(off.matches("ld.global").count(), 1, "#pragma unroll 1 ignored:\n{off}");
}

/// A volatile private variable (CLBlast's Xgemm: `volatile int tid`) is read and written through
/// its .local address, kept and in order, not as a generic `ld.volatile` (a system-scope strong
/// load in SASS); a volatile global access stays volatile.
#[test]
fn volatile_private_variables_go_through_local_memory() {
    setup();
    let src = "kernel void k(global int *o, volatile global int *g) { volatile int tid = get_local_id(0); \
               int s = 0; for (int i = 0; i < 4; i++) s += o[tid + i]; o[get_global_id(0)] = s + g[tid]; }";
    let p = build_nc(src, "", &H100).unwrap();
    let lines: Vec<&str> = p.ptx.lines().map(str::trim).collect();
    assert!(lines.iter().any(|l| l.starts_with("st.local.")), "no st.local:\n{}", p.ptx);
    assert!(lines.iter().any(|l| l.starts_with("ld.local.")), "no ld.local:\n{}", p.ptx);
    let generic_volatile = |l: &&&str| l.starts_with("ld.volatile.u") || l.starts_with("st.volatile.u");
    assert!(!lines.iter().any(|l| generic_volatile(&l)), "generic volatile access:\n{}", p.ptx);
    assert!(lines.iter().any(|l| l.starts_with("ld.volatile.global.")), "g lost volatile:\n{}", p.ptx);
}

/// OpenCL C 3.0's C11 atomics (bridge/atomics.cpp): a relaxed access is a bare PTX atomic; an
/// ordered one has membar fences of its scope around it (before: release and stronger; after:
/// acquire and stronger); the forms without _explicit are seq_cst at device scope.
#[test]
fn c11_atomics_in_ptx() {
    setup();
    let body = |stmt: &str| {
        let src = format!(
            "kernel void k(global atomic_int *a, local atomic_int *l, global int *o) {{ int x = 0; {stmt}; o[0] = x; }}"
        );
        let p = build_nc(&src, "-cl-std=CL3.0", &H100).unwrap_or_else(|e| panic!("{stmt}: {e:?}"));
        let body: Vec<String> = p
            .ptx
            .lines()
            .map(str::trim)
            .filter(|l| l.starts_with("atom.") || l.starts_with("membar") || l.contains(".volatile."))
            .map(|l| l.split_whitespace().next().unwrap_or("").to_string())
            .collect();
        body.join(" ")
    };
    let relaxed = "x = atomic_fetch_add_explicit(a, 1, memory_order_relaxed, memory_scope_work_group)";
    assert_eq!(body(relaxed), "atom.global.add.u32");
    assert_eq!(body("x = atomic_fetch_add(a, 1)"), "membar.gl; atom.global.add.u32 membar.gl;");
    assert_eq!(
        body("atomic_store_explicit(l, 1, memory_order_release, memory_scope_work_group)"),
        "membar.cta; st.volatile.shared.u32"
    );
    assert_eq!(
        body("x = atomic_load_explicit(a, memory_order_acquire, memory_scope_device)"),
        "ld.volatile.global.u32 membar.gl;"
    );
    assert_eq!(
        body("x = atomic_fetch_min_explicit((global atomic_uint *)a, 1u, memory_order_acq_rel)"),
        "membar.gl; atom.global.min.u32 membar.gl;"
    );
    assert_eq!(
        body("atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_relaxed, memory_scope_device)"),
        ""
    );
    assert_eq!(
        body("atomic_work_item_fence(CLK_LOCAL_MEM_FENCE, memory_order_acquire, memory_scope_work_group)"),
        "membar.cta;"
    );
    let cas = body("int e = 0; x = atomic_compare_exchange_strong_explicit(a, &e, 1, memory_order_relaxed, memory_order_relaxed, memory_scope_work_group)");
    assert_eq!(cas, "atom.global.cas.b32");
    // Not in OpenCL C 1.2.
    assert!(build_nc(
        "kernel void k(global int *a) { atomic_fetch_add((global atomic_int *)a, 1); }",
        "",
        &H100
    )
    .is_err());
}

/// cl_khr_fp16 (bridge/half.cpp): half arithmetic is native f16 PTX from sm_53 on (computed in
/// f32 before), conversions to half are one cvt with the rounding asked for, and the math
/// built-ins take their float forms.
#[test]
fn half_in_ptx() {
    setup();
    let src = "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n\
        kernel void k(global half *a, global half2 *v, global float *f, global int *i, global long *l) {\n\
          a[0] = fma(a[1], a[2], a[3]) + a[4] * a[5];\n\
          v[0] = v[1] * v[2] + v[3];\n\
          a[6] = convert_half_rtz(f[0]) + convert_half_rtp(i[0]) + convert_half_rtn(l[0]);\n\
          a[7] = sin(a[8]);\n\
          i[1] = convert_int_sat(a[9]);\n\
        }";
    let sm90 = build_nc(src, "", &H100).unwrap();
    for want in
        ["fma.rn.f16", "fma.rn.f16x2", "cvt.rz.f16.f32", "cvt.rp.f16.s32", "cvt.rm.f16.s64", "cvt.f32.f16"]
    {
        assert!(sm90.ptx.contains(want), "sm_90 PTX lacks {want}:\n{}", sm90.ptx);
    }
    let sm53 = build_nc(src, "", &Target { sm: 53, ptx_isa: (6, 5) }).unwrap();
    assert!(sm53.ptx.contains("fma.rn.f16"), "{}", sm53.ptx);
    // Before sm_53: f32 arithmetic, the same conversions, fma in double rounded to odd.
    let sm50 = build_nc(src, "", &Target { sm: 50, ptx_isa: (6, 5) }).unwrap();
    assert!(!sm50.ptx.contains("fma.rn.f16") && sm50.ptx.contains("cvt.rz.f16.f32"), "{}", sm50.ptx);
    for want in ["fma.rz.f64", "fma.rm.f64", "fma.rp.f64", "cvt.rn.f16.f64"] {
        assert!(sm50.ptx.contains(want), "sm_50 PTX lacks {want}:\n{}", sm50.ptx);
    }
    // Every half built-in family links on each target (fp16_builtins.cl is in the corpus too).
    for t in [Target { sm: 53, ptx_isa: (6, 5) }, Target { sm: 50, ptx_isa: (6, 5) }] {
        let p = build_nc(&corpus_src("fp16_builtins.cl"), "-cl-std=CL3.0", &t).unwrap();
        assert!(check_program("fp16_builtins.cl", &p, &t, None).is_empty());
    }
    // A half function that is no built-in stays undefined: the build says so.
    let e = build_nc(
        "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\nhalf nope(half);\nkernel void k(global half *a) { a[0] = nope(a[1]); }",
        "",
        &H100,
    )
    .unwrap_err();
    assert!(matches!(&e, BuildError::Failed { log } if log.contains("nope")), "{e:?}");
}

/// half16 built-ins computed in float (bridge/nvptx_workarounds.cpp, splitWideHalfExtends): LLVM
/// 19 loaded the sixteen halves as `ld.global.v4.b16` straight into f32 registers (raw bits, not
/// values), so every half16 math function gave zeros and garbage (the CTS's math_brute_force).
/// No 16-bit load may target a float register; the halves go through cvt.f32.f16.
#[test]
fn half16_loads_convert_each_half() {
    setup();
    let src = "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n\
        kernel void k(global half16 *o, global half16 *a, global double16 *d) {\n\
          size_t i = get_global_id(0);\n\
          o[i] = fabs(a[i]) + ceil(a[i + 1]);\n\
          d[i] = convert_double16(a[i + 2]);\n\
        }";
    let p = build_nc(src, "", &H100).unwrap();
    let bad: Vec<&str> = p.ptx.lines().filter(|l| l.contains(".b16") && l.contains("%f")).collect();
    assert!(bad.is_empty(), "16-bit loads into float registers: {bad:?}\n{}", p.ptx);
    assert!(p.ptx.contains("cvt.f32.f16"), "{}", p.ptx);
}

/// Half relational built-ins: half2 isequal built (NVPTX had no selection for a v2f16 compare),
/// and signbit/isnormal read the bits (through float, isnormal(0x0080) was 1 and signbit of a
/// negative NaN 0): no conversion to float in that kernel.
#[test]
fn half_relationals() {
    setup();
    let src = "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n\
        kernel void eq(global short2 *o, global half2 *x, global half2 *y) { o[0] = isequal(x[0], y[0]); }\n\
        kernel void bits(global int *o, global half *x, global short4 *v, global half4 *w) {\n\
          o[0] = isnormal(x[0]) + 2 * signbit(x[0]); v[0] = isnormal(w[0]) + signbit(w[0]); }";
    let p = build_nc(src, "", &H100).unwrap();
    let bits = p.ptx.split(".entry bits").nth(1).expect("kernel bits");
    assert!(!bits.contains("cvt.f32.f16"), "signbit/isnormal converted to float:\n{bits}");
}

/// Code quality (issue 12): what the PTX of small image kernels must and must not contain.
#[test]
fn image_kernel_code_in_ptx() {
    setup();
    let src = "__kernel void conv(__global const uchar *s, __global uchar *d, const float a) {\n\
               \x20 size_t i = get_global_id(0);\n\
               \x20 vstore4(convert_uchar4_sat_rte(convert_float4(vload4(i, s)) * a), i, d);\n\
               }\n\
               __kernel void sat(__global const float *x, __global int *o) {\n\
               \x20 size_t i = get_global_id(0);\n\
               \x20 o[i] = convert_char_sat(x[i]) + convert_ushort_sat_rtp(x[i]) + convert_int_sat_rtn(x[i]);\n\
               }\n";
    let p = build_nc(src, "", &H100).unwrap();
    // Saturating float -> integer conversions: one PTX cvt each, in the suffix's rounding mode
    // (round toward zero without one).
    for cvt in ["cvt.rni.sat.u8.f32", "cvt.rzi.sat.s8.f32", "cvt.rpi.sat.u16.f32", "cvt.rmi.sat.s32.f32"] {
        assert!(p.ptx.contains(cvt), "no {cvt} in:\n{}", p.ptx);
    }
    // The implicit offset and group base, read back in the kernel that stored them, are its
    // parameters: no .shared variable and no store of them is left.
    assert!(!p.ptx.contains("__cudacl_goff") && !p.ptx.contains("__cudacl_groups"), "{}", p.ptx);
    assert!(!p.ptx.contains("st.shared"), "{}", p.ptx);
    // Buffer arguments are 128-byte aligned: vload4/vstore4 of uchar at 4 i are 32-bit accesses.
    assert!(p.ptx.contains("ld.global.u32") && p.ptx.contains("st.global.u32"), "{}", p.ptx);
    assert!(!p.ptx.contains("ld.global.u8"), "{}", p.ptx);
    // A kernel that reads the offset after a barrier still gets it from its parameter; an access
    // at p + 1 is not taken for a 4-byte aligned one.
    let src = "__kernel void inner(__global uchar *p) { vstore4(vload4(0, p + 1) + (uchar)1, 0, p + 1); }\n\
               __kernel void outer(__global uchar *p) {\n\
               \x20 __local int t[64]; t[get_local_id(0)] = get_global_id(0);\n\
               \x20 barrier(CLK_LOCAL_MEM_FENCE);\n\
               \x20 p[get_global_id(0) + t[0]] = 1; inner(p);\n\
               }\n";
    let p = build_nc(src, "", &H100).unwrap();
    assert!(!p.ptx.contains("__cudacl_goff"), "{}", p.ptx);
    assert!(p.ptx.contains("ld.global.u8"), "inner's p + 1 is not 4-byte aligned:\n{}", p.ptx);
    // A bilinear gather (bench/appbench.c's remap): each of the 4 bounds-checked loads behind
    // one conditional branch (ptxas predicates those; with two, the loads stay branches and
    // run one after the other), plus the early return. LLVM's own bonus-inst-threshold (1)
    // leaves 9 (pipeline.rs, KNOBS).
    let src =
        "__kernel void remap(__global const uchar *src, const int w, const int h, __global uchar *dst,\n\
               \x20 __global const float *mx, __global const float *my) {\n\
               \x20 int x = get_global_id(0), y = get_global_id(1);\n\
               \x20 if (x >= w || y >= h) return;\n\
               \x20 float fx = mx[y * w + x], fy = my[y * w + x];\n\
               \x20 float x0f = floor(fx), y0f = floor(fy);\n\
               \x20 int x0 = (int)x0f, y0 = (int)y0f;\n\
               \x20 float ax = fx - x0f, ay = fy - y0f, v[4];\n\
               \x20 for (int k = 0; k < 4; k++) {\n\
               \x20   int xx = x0 + (k & 1), yy = y0 + (k >> 1);\n\
               \x20   v[k] = (xx >= 0 && xx < w && yy >= 0 && yy < h) ? (float)src[yy * w + xx] : 0.0f;\n\
               \x20 }\n\
               \x20 float top = v[0] + ax * (v[1] - v[0]), bot = v[2] + ax * (v[3] - v[2]);\n\
               \x20 dst[y * w + x] = convert_uchar_sat_rte(top + ay * (bot - top));\n\
               }\n";
    let p = build_nc(src, "", &H100).unwrap();
    let conditional = p.ptx.lines().filter(|l| l.trim_start().starts_with("@") && l.contains(" bra")).count();
    assert_eq!(p.ptx.matches("ld.global.u8").count(), 4, "{}", p.ptx);
    assert_eq!(conditional, 5, "remap's gathers are not one branch each:\n{}", p.ptx);
    // The taps share their address (bridge/codegen.cpp, shareGatherAddresses): two row addresses, each
    // loaded at +0 and +1; before, each tap computed its own (four registers, 91 SASS
    // instructions against 83).
    let mut taps: Vec<&str> = p
        .ptx
        .lines()
        .filter(|l| l.contains("ld.global.u8"))
        .filter_map(|l| l.split('[').nth(1)?.split(']').next())
        .collect();
    taps.sort();
    assert!(
        taps.len() == 4 && taps[0].to_string() + "+1" == taps[1] && taps[2].to_string() + "+1" == taps[3],
        "remap's taps do not share their addresses: {taps:?}\n{}",
        p.ptx
    );
    // No NaN select for (int)floor(x) of a float: PTX's cvt gives 0 for NaN itself there.
    assert!(!p.ptx.contains("setp.nan"), "{}", p.ptx);
    // A tap in the block where the taps meet: the shared address is made before it (it was made
    // at the block's end once, and the first load read a register not yet written).
    let src = "__kernel void k(__global const uchar *s, __global float *o, int w, int n) {\n\
               \x20 int x = get_global_id(0), y = get_global_id(1);\n\
               \x20 float v = s[y * w + x];\n\
               \x20 if (x + 1 < n) v += s[y * w + (x + 1)];\n\
               \x20 if (x + 2 < n) v += s[y * w + (x + 2)];\n\
               \x20 o[y * w + x] = v;\n\
               }\n";
    let p = build_nc(src, "", &H100).unwrap();
    let lines: Vec<&str> = p.ptx.lines().map(str::trim).collect();
    let mut loads = 0;
    for (i, l) in lines.iter().enumerate().filter(|(_, l)| l.starts_with("ld.global.u8")) {
        let reg = l.split('[').nth(1).and_then(|r| r.split(['+', ']']).next()).unwrap();
        let written = lines[..i].iter().any(|d| {
            let mut ops = d.split_whitespace().skip(1);
            !d.starts_with('@') && ops.next().map(|o| o.trim_end_matches(',')) == Some(reg)
        });
        assert!(written, "{l}: {reg} is read before it is written:\n{}", p.ptx);
        loads += 1;
    }
    assert_eq!(loads, 3, "{}", p.ptx);
    assert_eq!(
        p.ptx.matches("+1]").count() + p.ptx.matches("+2]").count(),
        2,
        "the taps share no address:\n{}",
        p.ptx
    );
}

/// Float-to-integer conversions give 0 for NaN (ptxgen's guarantee, which libclc's table
/// lookups rely on; OpenCL's _sat conversions require it, 6.2.3.3). PTX's cvt does so itself
/// from .f32/.f16 to 8, 16 and 32-bit integers; from .f64, and to 64-bit integers, it gives
/// 1 << (bits - 1) (PTX ISA 9.0, cvt), and the PTX must carry a NaN test and a select of 0 on
/// the converted register's source. Fails if a select goes missing (convert_int_sat(double)
/// lacked it) or if one comes back where the cvt needs none (remap's 2 SASS instructions each).
#[test]
fn conversions_of_nan_give_zero() {
    setup();
    let src = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n\
               __kernel void wide(__global const double *d, __global const float *f, __global int *o,\n\
               \x20                  __global long *l) {\n\
               \x20 size_t i = get_global_id(0); double v = d[i]; float x = f[i];\n\
               \x20 o[0] = (int)v; o[1] = (uint)v; o[2] = (short)v; o[3] = convert_int_sat(v);\n\
               \x20 o[4] = convert_uchar_sat_rte(v); o[5] = convert_uint_sat_rtn(v);\n\
               \x20 o[6] = convert_char2_sat((double2)(v, -v)).s1;\n\
               \x20 l[0] = (long)v; l[1] = (ulong)x; l[2] = convert_long(x);\n\
               }\n\
               __kernel void narrow(__global const float *f, __global const half *h, __global int *o) {\n\
               \x20 size_t i = get_global_id(0); float x = f[i];\n\
               \x20 o[0] = (int)x; o[1] = (uint)x; o[2] = (short)x; o[3] = (uchar)x; o[4] = (int)floor(x);\n\
               \x20 o[5] = convert_int_sat(x); o[6] = convert_uchar_sat_rte(x); o[7] = convert_short4_sat((float4)(x)).s2;\n\
               \x20 o[8] = (int)vload_half(i, h);\n\
               }\n";
    let p = build_nc(src, "", &H100).unwrap();
    let body = |name: &str| -> String {
        let at = p.ptx.find(&format!(".entry {name}(")).unwrap_or_else(|| panic!("no {name}:\n{}", p.ptx));
        let rest = &p.ptx[at..];
        rest[..rest.find("\n}").unwrap_or(rest.len())].to_string()
    };
    // wide: as many selects of 0 on a `setp.nan` predicate as conversions to an integer from
    // .f64 or to .s64/.u64 (the select's NaN test may be of the value before a negation).
    let wide = body("wide");
    let lines: Vec<&str> = wide.lines().map(str::trim).collect();
    let needing = lines
        .iter()
        .filter_map(|l| l.strip_prefix("cvt.r")?.split_whitespace().next())
        .filter(|ty| {
            let int_dst = [".s8.", ".u8.", ".s16.", ".u16.", ".s32.", ".u32.", ".s64.", ".u64."]
                .iter()
                .any(|t| ty.contains(t));
            int_dst && (ty.ends_with(".f64") || ty.contains(".s64.") || ty.contains(".u64."))
        })
        .count();
    let nan_preds: Vec<&str> = lines
        .iter()
        .filter(|l| l.starts_with("setp.nan."))
        .filter_map(|l| l.split_whitespace().nth(1).map(|p| p.trim_end_matches(',')))
        .collect();
    let selects = lines
        .iter()
        .filter(|l| {
            l.starts_with("selp.b")
                && l.contains(", 0, ")
                && nan_preds.iter().any(|p| l.ends_with(&format!(", {p};")))
        })
        .count();
    assert!(needing >= 10, "expected the conversions of `wide`, found {needing}:\n{wide}");
    assert!(selects >= needing, "{needing} conversions need a NaN select of 0, {selects} found:\n{wide}");
    // narrow: PTX's cvt gives 0 for NaN itself: no test, no select.
    let narrow = body("narrow");
    assert!(narrow.contains("cvt.rzi.s32.f32") && narrow.contains("cvt.rni.sat.u8.f32"), "{narrow}");
    assert!(
        !narrow.contains("setp.nan") && !narrow.contains("selp"),
        "a NaN select PTX's cvt does not need:\n{narrow}"
    );
}

#[test]
fn targets() {
    setup();
    assert_eq!(Target::for_device(9, 0, 13000), Target { sm: 90, ptx_isa: (8, 5) });
    assert_eq!(Target::for_device(8, 7, 11040), Target { sm: 87, ptx_isa: (7, 4) });
    assert_eq!(Target::for_device(7, 2, 10020), Target { sm: 72, ptx_isa: (6, 5) });
    assert_eq!(Target::for_device(5, 3, 10020), Target { sm: 53, ptx_isa: (6, 5) });
    assert_eq!(Target::for_device(12, 0, 12080), Target { sm: 90, ptx_isa: (8, 5) });
    let src = corpus_src("multi_kernel6.cl");
    for t in [
        Target::for_device(9, 0, 12020),
        Target::for_device(8, 7, 11040),
        Target::for_device(8, 6, 12000),
        Target::for_device(7, 2, 10020),
        Target::for_device(7, 5, 11040),
        Target::for_device(6, 2, 10020),
        Target::for_device(5, 3, 10020),
        Target::for_device(3, 5, 10020),
    ] {
        let p = build_nc(&src, "", &t).unwrap_or_else(|e| panic!("{t:?}: {e:?}"));
        let mut errs = check_program(&format!("multi_kernel6 {t:?}"), &p, &t, None);
        errs.extend(ptxas_check(&format!("multi_kernel6_sm{}", t.sm), &p.ptx, &t));
        assert!(errs.is_empty(), "{}", errs.join("\n"));
    }
    // A target LLVM 19 does not know is an error, not a crash.
    let bad = build_nc(&src, "", &Target { sm: 91, ptx_isa: (8, 5) });
    assert!(matches!(bad, Err(BuildError::Failed { .. })));
    let bad = build_nc(&src, "", &Target { sm: 90, ptx_isa: (7, 0) });
    assert!(matches!(bad, Err(BuildError::Failed { .. })));
}

#[test]
fn binary_container() {
    setup();
    let p = build_nc(&corpus_src("multi_kernel6.cl"), "-cl-mad-enable", &H100).unwrap();
    let b = p.to_binary();
    assert_eq!(&b[..8], b"CUDACLBN");
    assert_eq!(Program::from_binary(&b).unwrap(), p);
    let mut bad = b.clone();
    bad[0] = b'X';
    assert!(Program::from_binary(&bad).unwrap_err().contains("magic"));
    let mut bad = b.clone();
    bad[8] = 99; // format version
    assert!(Program::from_binary(&bad).unwrap_err().contains("format"));
    let mut bad = b.clone();
    let mid = bad.len() / 2;
    bad[mid] ^= 0x55;
    assert!(Program::from_binary(&bad).is_err());
    assert!(Program::from_binary(&b[..b.len() - 9]).is_err());
    assert!(Program::from_binary(b"").is_err());
    assert!(Program::from_binary(b"CUDACLBN").is_err());
}

#[test]
fn compile_and_link() {
    setup();
    let lib = "#include \"util/scale.h\"\nfloat scale(float x) { return x * SCALE; }\n";
    let main = "float scale(float x);\n__kernel void k(__global float *p, __local float *l) {\n\
                l[get_local_id(0)] = scale(p[get_global_id(0)]);\n barrier(CLK_LOCAL_MEM_FENCE);\n\
                p[get_global_id(0)] = l[0];\n}\n";
    let o1 = compile(lib, "-D EXTRA=1", &[("util/scale.h", "#define SCALE 3.0f\n")]).unwrap();
    let o2 = compile(main, "-cl-kernel-arg-info", &[]).unwrap();
    assert!(!o1.bitcode.is_empty());
    let p = link(&[&o1, &o2], "-cl-fast-relaxed-math", &H100).unwrap();
    let errs = check_program("link", &p, &H100, Some(&["k".to_string()].into_iter().collect()));
    assert!(errs.is_empty(), "{}", errs.join("\n"));
    assert_eq!(kernel(&p, "k").args[1].kind, ArgKind::LocalPtr);
    assert!(p.ptx.contains("3.0") || p.ptx.contains("0f40400000"), "{}", p.ptx);
    // Missing header -> compile failure with a log.
    match compile(lib, "", &[]) {
        Err(BuildError::Failed { log }) => assert!(log.contains("util/scale.h"), "{log}"),
        r => panic!("{r:?}"),
    }
    // Unresolved symbol at link time.
    match link(&[&o2], "", &H100) {
        Err(BuildError::Failed { log }) => assert!(log.contains("scale"), "{log}"),
        r => panic!("{r:?}"),
    }
    assert!(matches!(link(&[&o1, &o2], "-D X", &H100), Err(BuildError::InvalidOptions { .. })));
    assert!(matches!(link(&[], "", &H100), Err(BuildError::Failed { .. })));
    let junk = Object { bitcode: b"not bitcode".to_vec(), options: String::new(), log: String::new() };
    assert!(matches!(link(&[&junk], "", &H100), Err(BuildError::Failed { .. })));
    assert!(matches!(compile(main, "-bogus", &[]), Err(BuildError::InvalidOptions { .. })));
}

#[test]
fn failures_never_abort() {
    setup();
    let cases: &[(&str, &str)] = &[
        ("", ""),
        ("\u{0}\u{1}garbage\u{7f}", ""),
        ("#include \"does_not_exist.h\"\n", ""),
        ("__kernel void k(__global int *p) { p[0] = ", ""),
        ("__kernel void k(__global int *p) { recurse: goto recurse; }", ""),
        ("__kernel void k(__global int *p) { p[0] = 1; }", "-D"),
        ("__kernel void k(__global int *p) { p[0] = 1; }", "-I"),
        ("__kernel void k(__global int *p) { p[0] = 1; }", "-cl-std=CL2.0"),
        ("__kernel void k(__global int *p) { p[0] = 1; }", "\"unterminated"),
        ("__kernel void k(__global int *p) { p[0] = 1; }", "-Xclang -foo"),
        ("__kernel void k(image2d_t i) { }", ""),
        ("void f(void); __kernel void k(void) { f(); }", ""),
        ("__kernel void k(__global double *d) { d[0] = sin(d[1]); }", "-cl-opt-disable"),
        ("__kernel void a(void) {} __kernel void a(void) {}", ""),
        // NVPTX cannot select f64 cos: LLVM's report_fatal_error must become a build error.
        ("__kernel void k(__global double *p) { p[0] = __builtin_cos(p[1]); }", ""),
        ("__kernel void k(__global double *p) { p[0] = __builtin_cos(p[1]); }", "-cl-opt-disable"),
    ];
    for (src, opts) in cases {
        // Either result is fine: what matters is that it returns (with a log on failure).
        match build_nc(src, opts, &H100) {
            Ok(_) => {}
            Err(BuildError::Failed { log }) | Err(BuildError::InvalidOptions { log }) => {
                assert!(!log.trim().is_empty(), "empty log for {src:?} {opts:?}")
            }
        }
    }
    match build_nc("__kernel void k(__global double *p) { p[0] = __builtin_cos(p[1]); }", "", &H100) {
        Err(BuildError::Failed { log }) => assert!(log.contains("LLVM fatal error"), "{log}"),
        r => panic!("{r:?}"),
    }
    // ... and the process goes on building.
    let huge = format!("__kernel void k(__global int *p) {{ {} }}", "p[0] += 1;".repeat(20000));
    assert!(build_nc(&huge, "", &H100).is_ok());
    for _ in 0..3 {
        assert!(build_nc(&corpus_src("multi_kernel6.cl"), "", &H100).is_ok());
    }
}

// ---------------------------------------------------------------------------------------------
// The CLI, and the caches as a new process sees them
// ---------------------------------------------------------------------------------------------

fn cli() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ptxgen"));
    c.env_remove("CUDACL_LIBCLC").env_remove("CUDACL_CACHE");
    c
}

#[test]
fn cli_and_disk_cache() {
    setup();
    let dir = std::env::temp_dir().join(format!("ptxgen-cli-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let cache = dir.join("cache");
    let src = corpus_dir().join("multi_kernel6.cl");
    let out = dir.join("k.ptx");

    // Cold: compiles and stores.
    let r = cli()
        .env("CUDACL_CACHE_DIR", &cache)
        .args([src.to_str().unwrap(), "-o", out.to_str().unwrap(), "--sm", "90", "--time", "-D", "UNUSED=1"])
        .output()
        .unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(err.contains("time: clang") && err.contains("cache-store"), "{err}");
    let ptx = std::fs::read_to_string(&out).unwrap();
    assert!(ptx.contains(".target sm_90"));
    let mut entries: Vec<_> = std::fs::read_dir(&cache).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    assert_eq!(entries.len(), 2, "{entries:?}");
    assert!(entries[0].to_string_lossy().ends_with(".bin"), "{entries:?}");
    assert!(entries[1].to_string_lossy().ends_with(".deps"), "{entries:?}");

    // New process: disk hit, same PTX, no clang.
    let r = cli()
        .env("CUDACL_CACHE_DIR", &cache)
        .args([src.to_str().unwrap(), "-o", out.to_str().unwrap(), "--sm", "90", "--time", "-D", "UNUSED=1"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(err.contains("cache-hit-disk") && !err.contains("time: clang"), "{err}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), ptx);

    // A corrupt entry is ignored and replaced.
    std::fs::write(&entries[0], b"CUDACLBN garbage").unwrap();
    let r = cli()
        .env("CUDACL_CACHE_DIR", &cache)
        .args([src.to_str().unwrap(), "-o", out.to_str().unwrap(), "--sm", "90", "--time", "-D", "UNUSED=1"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(r.status.success() && err.contains("time: clang"), "{err}");
    assert!(Program::from_binary(&std::fs::read(&entries[0]).unwrap()).is_ok());

    // CUDACL_CACHE=0: nothing written.
    let cache2 = dir.join("cache2");
    let r = cli()
        .env("CUDACL_CACHE_DIR", &cache2)
        .env("CUDACL_CACHE", "0")
        .args([src.to_str().unwrap(), "-o", out.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(r.status.success());
    assert!(!cache2.exists());

    // --args prints the layout.
    let r = cli()
        .env("CUDACL_CACHE", "0")
        .args([corpus_dir().join("reduction.cl").to_str().unwrap(), "--args"])
        .output()
        .unwrap();
    let so = String::from_utf8_lossy(&r.stdout);
    assert!(so.contains("kernel reduce_sum param_size 76"), "{so}");
    assert!(so.contains("arg 2 local offset 16 size 4 align 4 type float* name scratch"), "{so}");
    assert!(so.contains("implicit global_offset offset 24 size 24"), "{so}");
    assert!(so.contains("implicit work_dim offset 48 size 4"), "{so}");
    assert!(so.contains("implicit groups offset 52 size 24"), "{so}");

    // Failures: non-zero exit, log on stderr.
    let bad = dir.join("bad.cl");
    std::fs::write(&bad, "__kernel void k(__global int *p) {\n  p[0] = nope;\n}\n").unwrap();
    let r = cli()
        .env("CUDACL_CACHE", "0")
        .args([bad.to_str().unwrap(), "-o", out.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!r.status.success());
    assert!(String::from_utf8_lossy(&r.stderr)
        .contains("<source>:2:10: error: use of undeclared identifier 'nope'"));
    let r =
        cli().env("CUDACL_CACHE", "0").args([src.to_str().unwrap(), "-cl-no-such-option"]).output().unwrap();
    assert!(!r.status.success());
    assert!(String::from_utf8_lossy(&r.stderr).contains("invalid build option '-cl-no-such-option'"));

    // A missing libclc is a build failure with a clear log, not a crash.
    let r = cli()
        .env("CUDACL_CACHE", "0")
        .env("CUDACL_LIBCLC", dir.join("nowhere.bc"))
        .args([src.to_str().unwrap(), "-o", out.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(r.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&r.stderr).contains("libclc"), "{}", String::from_utf8_lossy(&r.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn memory_cache() {
    setup();
    let nonce = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    let src = format!("// unique {} {nonce}\n{}", std::process::id(), corpus_src("vadd.cl"));
    let (a, s1) = build_timed(&src, "", &H100, true);
    let (b, s2) = build_timed(&src, "", &H100, true);
    assert_eq!(a.unwrap(), b.unwrap());
    assert!(s1.iter().any(|s| s.name == "clang"));
    assert!(s2.iter().any(|s| s.name == "cache-hit-memory"), "{s2:?}");
    // Options and target are part of the key.
    let (_, s3) = build_timed(&src, "-cl-mad-enable", &H100, true);
    assert!(s3.iter().any(|s| s.name == "clang"));
    let (_, s4) = build_timed(&src, "", &Target { sm: 80, ptx_isa: (7, 0) }, true);
    assert!(s4.iter().any(|s| s.name == "clang"));
    assert!(build(&src, "", &H100).is_ok());
}

#[test]
fn shared_and_private_contexts_agree() {
    setup();
    // The process-wide context (libclc cloned from a resident lazy module) and a private one
    // (libclc linked with Linker::LinkOnlyNeeded) must give the same PTX.
    let files =
        ["multi_kernel6.cl", "printf.cl", "atom64.cl", "constant_arg.cl", "math_float.cl", "async_copy.cl"];
    let shared: Vec<String> =
        files.iter().map(|f| build_nc(&corpus_src(f), "", &H100).unwrap().ptx).collect();
    set_shared_context(false);
    let private: Vec<String> = files
        .iter()
        .map(|f| build_nc(&corpus_src(f), "", &H100).map(|p| p.ptx))
        .collect::<Result<_, _>>()
        .unwrap();
    set_shared_context(true);
    // NVPTX numbers call sequences with a process-wide counter ("// callseq N"), and the two
    // linkers may order libclc's tables differently: compare the sorted lines without those.
    let norm = |s: &str| -> String {
        let mut v: Vec<&str> = s.lines().filter(|l| !l.contains("// callseq")).collect();
        v.sort_unstable();
        v.join("\n")
    };
    for ((f, a), b) in files.iter().zip(&shared).zip(&private) {
        if norm(a) != norm(b) {
            let d = std::env::temp_dir();
            let _ = std::fs::write(d.join(format!("{f}.shared.ptx")), a);
            let _ = std::fs::write(d.join(format!("{f}.private.ptx")), b);
            panic!("{f}: shared and private contexts differ (PTX in {})", d.display());
        }
    }
    // Many builds in a row: the shared context is recycled now and then, results stay equal.
    let src = corpus_src("reduction.cl");
    let first = build_nc(&src, "", &H100).unwrap();
    for i in 0..30 {
        let p = build_nc(&format!("{src}\n// {i}\n"), "", &H100).unwrap();
        assert_eq!(norm(&p.ptx), norm(&first.ptx));
    }
}

#[test]
fn cache_follows_included_files() {
    setup();
    let dir = std::env::temp_dir().join(format!("ptxgen-inc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let h = dir.join("val.h");
    std::fs::write(&h, "#define VAL 1111\n").unwrap();
    let nonce = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    let src = format!(
        "// {} {nonce}\n#include \"val.h\"\n__kernel void k(__global int *p) {{ p[0] = VAL; }}\n",
        std::process::id()
    );
    let opts = format!("-I {}", dir.display());
    let (a, _) = build_timed(&src, &opts, &H100, true);
    let a = a.unwrap();
    assert!(a.ptx.contains("1111"), "{}", a.ptx);
    let (_, s) = build_timed(&src, &opts, &H100, true);
    assert!(s.iter().any(|s| s.name == "cache-hit-memory"), "{s:?}");
    // The header changes: the cached program must not be used.
    std::fs::write(&h, "#define VAL 22222\n").unwrap();
    let (b, s) = build_timed(&src, &opts, &H100, true);
    assert!(s.iter().any(|s| s.name == "clang"), "{s:?}");
    assert!(b.unwrap().ptx.contains("22222"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn concurrent_builds() {
    setup();
    let files = ["vadd.cl", "reduction.cl", "atom64.cl", "printf.cl", "matmul_tiled.cl", "struct_nested.cl"];
    let want: Vec<usize> =
        files.iter().map(|f| build_nc(&corpus_src(f), "", &H100).unwrap().kernels.len()).collect();
    let handles: Vec<_> = (0..6)
        .map(|t| {
            let want = want.clone();
            std::thread::spawn(move || {
                for i in 0..4 {
                    let f = files[(t + i) % files.len()];
                    let src = format!("{}\n// thread {t} round {i}\n", corpus_src(f));
                    let p =
                        build_timed(&src, "", &H100, i % 2 == 0).0.unwrap_or_else(|e| panic!("{f}: {e:?}"));
                    let errs = check_program(f, &p, &H100, None);
                    assert!(errs.is_empty(), "{}", errs.join("\n"));
                    assert_eq!(p.kernels.len(), want[(t + i) % files.len()]);
                }
            })
        })
        .collect();
    for h in handles {
        h.join().expect("thread panicked");
    }
}

/// vload16/vstore16 of char at addresses only 1-aligned: LLVM 19's NVPTX lowered the <16 x i8>
/// load to ld.v4.u32 (a misaligned-address fault on the GPU, piglit's vload-char-*); every access
/// here must be element-wise, with and without optimisation.
#[test]
fn underaligned_vector_accesses_are_split() {
    setup();
    let src = "__kernel void c16(__global const char *in, __global char *out) {\n\
               vstore16(vload16(0, in + 1), 0, out + 3);\n}\n\
               __kernel void u16(__global const uchar *in, __global uchar *out) {\n\
               vstore16(vload16(1, in + 5), 0, out + 1);\n}\n\
               __kernel void s8(__global const short *in, __global short *out) {\n\
               vstore8(vload8(0, in + 1), 0, out + 1);\n}\n";
    for opts in ["", "-cl-opt-disable"] {
        let p = build_nc(src, opts, &H100).unwrap();
        let vec: Vec<&str> =
            p.ptx.lines().filter(|l| l.contains("ld.global.v") || l.contains("st.global.v")).collect();
        assert!(vec.is_empty(), "{opts}: vector accesses at element-aligned addresses:\n{}", vec.join("\n"));
    }
    // Aligned vectors keep their vector accesses.
    let p = build_nc("__kernel void a(__global char16 *p) { p[1] = p[0] + p[2]; }\n", "", &H100).unwrap();
    assert!(p.ptx.contains("ld.global.v4.u32"), "{}", p.ptx);
}

/// Vector arguments aligned above 16 are laid out with alignment 16 (the CUDA driver does not
/// follow larger .param alignments: float8 launches failed with CUDA error 701 on the H100).
#[test]
fn wide_vector_arguments_are_aligned_at_most_16() {
    setup();
    for opts in ["", "-cl-opt-disable"] {
        let p = build_nc(&corpus_src("wide_vector_args.cl"), opts, &H100).unwrap();
        let f8 = kernel(&p, "f8");
        assert_eq!(
            (f8.args[1].kind, f8.args[1].offset, f8.args[1].size, f8.args[1].align),
            (ArgKind::Vector, 16, 32, 16)
        );
        assert_eq!(f8.param_size, 100, "{opts}");
        let sa = kernel(&p, "sarg32");
        let a: Vec<(ArgKind, u32, u32, u32)> =
            sa.args.iter().map(|a| (a.kind, a.offset, a.size, a.align)).collect();
        assert_eq!(
            a,
            vec![
                (ArgKind::GlobalPtr, 0, 8, 8),
                (ArgKind::Struct, 16, 64, 16),
                (ArgKind::Scalar, 80, 1, 1),
                (ArgKind::Struct, 96, 64, 16)
            ]
        );
        let l3 = kernel(&p, "l3");
        assert_eq!(
            (l3.args[1].offset, l3.args[1].size, l3.args[2].offset, l3.args[2].size),
            (16, 32, 48, 32)
        );
        for k in &p.kernels {
            assert!(k.args.iter().all(|a| a.align <= 16), "{}: {:?}", k.name, k.args);
        }
        for a in [".align 32", ".align 64", ".align 128"] {
            assert!(
                !p.ptx.lines().any(|l| l.contains(".param") && l.contains(a)),
                "{opts}: {a} in\n{}",
                p.ptx
            );
        }
    }
}

#[test]
fn fast24_is_a_plain_multiply() {
    setup();
    let p = build_nc(&corpus_src("fast24.cl"), "", &H100).unwrap();
    // libclc's mul24 masks (0xFFFFFF) or sign-extends (shl 8, shr 8) each operand first.
    for bad in ["16777215", "0xFFFFFF", ", 8;"] {
        assert!(!p.ptx.contains(bad), "{bad} in:\n{}", p.ptx);
    }
    assert!(p.ptx.contains("mul.lo.s32") || p.ptx.contains("mad.lo.s32"), "{}", p.ptx);
}

#[test]
fn divisions_follow_the_build_options() {
    setup();
    let src = corpus_src("division.cl");
    // The count of each single-precision division form in one kernel's PTX.
    let count = |opts: &str, entry: &str, form: &str| {
        let p = build_nc(&src, opts, &H100).unwrap();
        let start = p.ptx.find(&format!(".entry {entry}(")).unwrap();
        let body = &p.ptx[start..];
        let body = &body[..body.find("\n}").unwrap()];
        body.matches(form).count()
    };
    assert_eq!(count("", "scalar", "div.full.f32"), 1);
    assert_eq!(count("", "vector", "div.full.f32"), 4);
    assert_eq!(count("", "scalar", "div.rn.f32"), 0);
    assert_eq!(count("-cl-denorms-are-zero", "scalar", "div.full.ftz.f32"), 1);
    assert_eq!(count("-cl-fp32-correctly-rounded-divide-sqrt", "vector", "div.rn.f32"), 4);
    assert_eq!(count("-cl-fp32-correctly-rounded-divide-sqrt", "vector", "div.full"), 0);
    assert_eq!(count("-cl-fast-relaxed-math", "scalar", "div.approx.f32"), 1);
    // libclc's atan2pi divides inside; its accuracy was worked out with exact divisions.
    assert!(count("", "libclc_atan2pi", "div.rn.f32") >= 1);
    assert_eq!(count("", "libclc_atan2pi", "div.full"), 0);
    assert_eq!(count("", "dbl", "div.rn.f64"), 1);
}

/// Run in a process of its own by `prewarm_is_waited_for` (the other tests share the context).
#[test]
#[ignore = "run by prewarm_is_waited_for in a fresh process"]
fn prewarm_child() {
    setup();
    prewarm();
    // Let the thread take the lock (parsing libclc then takes tens of milliseconds).
    std::thread::sleep(std::time::Duration::from_millis(3));
    let (r, stages) = build_timed(&corpus_src("vadd.cl"), "", &H100, false);
    r.unwrap();
    // A build that starts while the prewarm thread parses libclc waits for it and then uses
    // the shared context, instead of parsing libclc a second time in a private one.
    assert!(stages.iter().any(|s| s.name == "init-shared"), "{stages:?}");
}

/// Runs the ignored test `name` of this binary in a process of its own (for tests that change
/// process-wide state), failing with its output when it fails.
fn run_in_own_process(name: &str) {
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", name, "--ignored", "--nocapture"])
        .output()
        .unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success() && text.contains("1 passed"), "{text}");
}

#[test]
fn prewarm_is_waited_for() {
    run_in_own_process("prewarm_child");
}

/// Run in a process of its own by `split_and_whole_builds_agree` (the thread count is global).
#[test]
#[ignore = "run by split_and_whole_builds_agree in a fresh process"]
fn split_child() {
    setup();
    let mut errs = Vec::new();
    let mut split = 0;
    for c in load_corpus().iter().filter(|c| c.expect.is_none()) {
        set_build_threads(1);
        let whole = build_nc(&c.source, &c.options, &H100).unwrap();
        set_build_threads(4);
        let parts = build_nc(&c.source, &c.options, &H100).unwrap();
        if whole.ptx != parts.ptx {
            split += 1;
        }
        // Same kernels, same argument layouts, same entries; the joined PTX passes the checks.
        if whole.kernels != parts.kernels {
            errs.push(format!(
                "{}: kernel layouts differ:\n{:?}\n{:?}",
                c.file, whole.kernels, parts.kernels
            ));
        }
        let names = |ptx: &str| -> Vec<String> {
            let mut v: Vec<String> = parse_entries(ptx)
                .unwrap()
                .into_iter()
                .map(|e| format!("{}{:?}", e.name, e.params))
                .collect();
            v.sort();
            v
        };
        if names(&whole.ptx) != names(&parts.ptx) {
            errs.push(format!("{}: entries differ", c.file));
        }
        errs.extend(check_program(&c.file, &parts, &H100, c.kernels.as_ref()));
        errs.extend(ptxas_check(&c.file, &parts.ptx, &H100));
    }
    eprintln!("{split} programs built in parts");
    assert!(split >= 3, "only {split} corpus programs were built in parts");
    assert!(errs.is_empty(), "{}", errs.join("\n"));
}

#[test]
fn split_and_whole_builds_agree() {
    run_in_own_process("split_child");
}

/// The image built-ins are linked from ptxgen's images.cl: reads and writes are surface
/// instructions with the .zero out-of-range mode (never .trap, which would fault the context),
/// image and sampler arguments are 8-byte slots, a constant sampler folds to its bits, and the
/// only functions of images.cl left callable are the general code behind the fast paths
/// (read_imagef and write_imagef of 1-D, 2-D and 3-D images), which a read of a fast format
/// does not call.
#[test]
fn image_builtins_use_surface_instructions() {
    setup();
    let src = corpus_src("images_all_types.cl");
    let p = build_nc(&src, "", &H100).expect("images_all_types.cl builds");
    for geom in ["1d", "a1d", "2d", "a2d", "3d"] {
        for op in ["suld.b", "sust.b"] {
            let want = format!("{op}.{geom}.");
            assert!(p.ptx.contains(&want), "no {want} in the PTX");
        }
    }
    for l in p.ptx.lines().filter(|l| l.contains("suld.") || l.contains("sust.")) {
        assert!(l.contains(".zero "), "surface access without .zero: {l}");
    }
    assert!(!p.ptx.contains(".trap"), ".trap in the PTX");
    for l in p.ptx.lines().filter(|l| l.starts_with(".func")) {
        let name = l.trim_end_matches('(').split_whitespace().last().unwrap_or("");
        let general = ["sample_f_G", "load_f_G", "write_f_G"].iter().any(|g| name.starts_with(g));
        assert!(general, "an image function was not inlined: {l}");
    }
    // image1d_buffer: global memory, no surface.
    assert!(p.ptx.contains("ld.global") && p.ptx.contains("st.global"));
    let reads = kernel(&p, "reads");
    for a in &reads.args[..6] {
        assert!(matches!(a.kind, ArgKind::Image { .. }), "{}", a.name);
        assert_eq!((a.size, a.align), (8, 8), "{}", a.name);
        assert_eq!(a.access_qualifier, AccessQualifier::ReadOnly, "{}", a.name);
    }
    assert_eq!((reads.args[6].kind, reads.args[6].size, reads.args[6].align), (ArgKind::Sampler, 8, 8));
    let writes = kernel(&p, "writes");
    assert!(
        writes.args[..6]
            .iter()
            .all(|a| matches!(a.kind, ArgKind::Image { .. })
                && a.access_qualifier == AccessQualifier::WriteOnly)
    );

    // A constant sampler: the addressing and filter code folds away (no branch on the sampler
    // bits is left: with CLAMP_TO_EDGE + NEAREST + int coordinates only the clamp remains).
    let k = "__kernel void k(read_only image2d_t i, __global float4 *o) {\n\
             const sampler_t s = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;\n\
             o[get_global_id(0)] = read_imagef(i, s, (int2)(get_global_id(0), 0)); }";
    let p = build_nc(k, "", &H100).expect("constant sampler builds");
    assert!(p.ptx.contains("suld.b.2d.b32.zero"));
    assert!(!p.ptx.contains("__translate_sampler_initializer") && !p.ptx.contains(".func"));
    assert!(p.ptx.contains("max.s32") && p.ptx.contains("min.s32"), "no clamp to the edge");
    // The fast paths: a float-coordinate read with a sampler argument and a write of a 2-D image
    // test the descriptor's (order, type) word against RGBA UNORM_INT8 and RGBA FLOAT and read
    // and write those with one surface instruction (a 2-D RGBA FLOAT read: one texture fetch), in
    // line; the descriptor is loaded through
    // the non-coherent path (image arguments are noalias readonly dereferenceable); only other
    // formats and samplers call the general code. The kernel reads in a loop, so it is also
    // specialised (bridge/images.cpp): copies of its body for all-RGBA8 and all-RGBA-FLOAT
    // images with a fast sampler, fully unrolled, 9 loads each, no call.
    let f3 = "__kernel void f(read_only image2d_t in, sampler_t s, write_only image2d_t out) {\n\
              int x = get_global_id(0), y = get_global_id(1); float4 acc = (float4)(0.0f);\n\
              for (int dy = -1; dy <= 1; dy++) for (int dx = -1; dx <= 1; dx++)\n\
              acc += read_imagef(in, s, (float2)(x + dx + 0.5f, y + dy + 0.5f));\n\
              write_imagef(out, (int2)(x, y), acc); }";
    let p = build_nc(f3, "", &H100).expect("the 3x3 filter builds");
    let rgba8 = (0x10d2u64 << 32 | 0x10b5).to_string();
    let rgba32f = (0x10deu64 << 32 | 0x10b5).to_string();
    assert!(p.ptx.contains(&rgba8) && p.ptx.contains(&rgba32f), "no test of the fast formats");
    assert!(p.ptx.contains("ld.global.nc.u64"), "descriptor not loaded through .nc");
    let body = p.ptx.split(".entry f(").nth(1).expect("entry f");
    let b32 = body.matches("suld.b.2d.b32.zero").count();
    assert!(b32 > 9, "{b32} RGBA8 loads in line: no specialised, unrolled copy");
    // 2-D RGBA FLOAT texels come through the image's texture object, at integer coordinates.
    let v4 = body.matches("tex.2d.v4.f32.s32").count();
    assert!(v4 > 9, "{v4} RGBA FLOAT fetches in line: no specialised, unrolled copy");
    // A copy per pairing of the two images' formats (RGBA8 -> RGBA FLOAT has its own): three
    // stores of each format with the general body's own fast paths.
    let (s8, s32) =
        (body.matches("sust.b.2d.b32.zero").count(), body.matches("sust.b.2d.v4.b32.zero").count());
    assert!(s8 >= 3 && s32 >= 3, "{s8} RGBA8 and {s32} RGBA FLOAT stores: no copy per pairing of formats");
    assert!(body.contains("sample_f_G2D") && body.contains("write_f_G2D"));
    // Without images nothing of this is linked.
    let p = build_nc("__kernel void k(__global int *o) { o[0] = 1; }", "", &H100).expect("builds");
    assert!(!p.ptx.contains("suld") && !p.ptx.contains("sust"));
}
