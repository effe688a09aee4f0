//! SPIR-V programs (build_il, compile_il): the kernels of tests/spirv/*.cl made into SPIR-V at
//! test time by the toolchains that emit OpenCL SPIR-V here (clang 15 + llvm-spirv, and clang
//! 15's own `-target spirv64`, which runs llvm-spirv itself), built by ptxgen and checked
//! against the PTX and against ptxgen's build of the same source.
//!
//! Needs clang-15 and llvm-spirv-15 (scripts/setup.sh installs both); a missing one fails the
//! tests, since without them nothing here would be tested.
use ptxgen::*;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Once;

const H100: Target = Target { sm: 90, ptx_isa: (8, 5) };

fn setup() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ptxgen-spirv-cache");
        std::env::set_var("CUDACL_CACHE_DIR", d);
    });
}

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/spirv")
}

fn tmp(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("spirv-inputs");
    std::fs::create_dir_all(&d).expect("temporary folder");
    d.join(name)
}

fn translator() -> PathBuf {
    assert!(il_supported(), "no SPIR-V translator: install llvm-spirv-15 (scripts/setup.sh)");
    ["/usr/bin/llvm-spirv-15", "/usr/lib/llvm-15/bin/llvm-spirv"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
        .expect("llvm-spirv-15 is installed")
}

fn run(cmd: &mut Command) {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(out.status.success(), "{cmd:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// How the SPIR-V of a test source is made.
#[derive(Clone, Copy, Debug)]
enum Tool {
    /// clang-15 -emit-llvm for spir64, then llvm-spirv-15 (the usual offline path).
    ClangThenTranslator,
    /// clang-15 -target spirv64 -c: clang runs `llvm-spirv` from PATH itself.
    ClangSpirv64,
}

/// `tests/spirv/<name>.cl` as SPIR-V (OpenCL C 2.0, as `-cl-std=CL2.0 -target spirv64` users
/// compile it).
fn spirv_of(name: &str, tool: Tool) -> Vec<u8> {
    // Made once per (source, tool): the tests run on parallel threads, and two writing the same
    // file at once would hand one of them a half-written module.
    static MADE: std::sync::Mutex<Vec<(String, Vec<u8>)>> = std::sync::Mutex::new(Vec::new());
    let key = format!("{name}-{tool:?}");
    let mut made = MADE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, spv)) = made.iter().find(|(k, _)| *k == key) {
        return spv.clone();
    }
    let spv = make_spirv(name, tool);
    made.push((key, spv.clone()));
    spv
}

fn make_spirv(name: &str, tool: Tool) -> Vec<u8> {
    let src = dir().join(format!("{name}.cl"));
    let spv = tmp(&format!("{name}-{tool:?}.spv"));
    match tool {
        Tool::ClangThenTranslator => {
            let bc = tmp(&format!("{name}.bc"));
            run(Command::new("clang-15")
                .args([
                    "-cl-std=CL2.0",
                    "-target",
                    "spir64",
                    "-emit-llvm",
                    "-c",
                    "-Xclang",
                    "-finclude-default-header",
                ])
                .arg(&src)
                .arg("-o")
                .arg(&bc));
            run(Command::new(translator()).arg(&bc).arg("-o").arg(&spv));
        }
        Tool::ClangSpirv64 => {
            // clang looks for a binary named exactly llvm-spirv.
            let bin = tmp("bin");
            std::fs::create_dir_all(&bin).expect("bin folder");
            let link = bin.join("llvm-spirv");
            if !link.exists() {
                std::os::unix::fs::symlink(translator(), &link).expect("symlink");
            }
            let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
            run(Command::new("clang-15")
                .env("PATH", path)
                .args(["-cl-std=CL2.0", "-target", "spirv64", "-c"])
                .arg(&src)
                .arg("-o")
                .arg(&spv));
        }
    }
    std::fs::read(&spv).expect("SPIR-V written")
}

/// The `.param` declarations of each `.entry` in the PTX: (name, count).
fn entries(ptx: &str) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    let mut lines = ptx.lines();
    while let Some(l) = lines.next() {
        let Some(rest) = l.trim().strip_prefix(".visible .entry ") else { continue };
        let name = rest.split('(').next().unwrap_or("").to_string();
        let mut n = 0;
        for p in lines.by_ref() {
            let p = p.trim();
            if p.starts_with(')') {
                break;
            }
            if p.starts_with(".param") {
                n += 1;
            }
        }
        out.push((name, n));
    }
    out
}

/// Kernels, argument kinds, sizes, alignments and offsets, and the implicit parameters must be
/// those of the OpenCL C build of the same source: the runtime's clSetKernelArg relies on them.
fn same_layout(file: &str, il: &Program, src: &Program) {
    let names = |p: &Program| p.kernels.iter().map(|k| k.name.clone()).collect::<Vec<_>>();
    assert_eq!(names(il), names(src), "{file}: kernels");
    for (a, b) in il.kernels.iter().zip(&src.kernels) {
        assert_eq!(a.param_size, b.param_size, "{file}: {} param_size", a.name);
        assert_eq!(a.implicit, b.implicit, "{file}: {} implicit", a.name);
        assert_eq!(a.args.len(), b.args.len(), "{file}: {} args", a.name);
        for (i, (x, y)) in a.args.iter().zip(&b.args).enumerate() {
            assert_eq!(
                (x.kind, x.size, x.align, x.offset, x.address_qualifier),
                (y.kind, y.size, y.align, y.offset, y.address_qualifier),
                "{file}: {} arg {i}",
                a.name
            );
        }
    }
}

/// Every kernel is an entry with its arguments and the 10 implicit parameters, and the PTX
/// calls nothing it does not define but vprintf.
fn check_ptx(file: &str, p: &Program) {
    assert!(p.ptx.contains(".target sm_90"), "{file}: target");
    let es = entries(&p.ptx);
    for k in &p.kernels {
        let e = es.iter().find(|e| e.0 == k.name).unwrap_or_else(|| panic!("{file}: no .entry {}", k.name));
        assert_eq!(e.1, k.args.len() + 10, "{file}: {} .param count", k.name);
    }
    for l in p.ptx.lines() {
        let Some(rest) = l.trim().strip_prefix("call") else { continue };
        // "call.uni (retval0), name, (params);" or "call.uni name, (params);"
        let mut rest = rest.trim_start_matches(".uni").trim_start();
        if rest.starts_with('(') {
            rest = rest.split_once("),").map(|x| x.1).unwrap_or("").trim_start();
        }
        let n: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '$').collect();
        assert!(
            n == "vprintf" || p.ptx.contains(&format!(" {n}(")),
            "{file}: calls {n}, which the PTX does not define"
        );
    }
}

#[test]
fn spirv_kernels_build_with_the_source_layout() {
    setup();
    for (file, std) in [("basic", "-cl-std=CL3.0"), ("types", ""), ("images", "")] {
        let src = std::fs::read_to_string(dir().join(format!("{file}.cl"))).expect("source");
        let from_src = build(&src, std, &H100).unwrap_or_else(|e| panic!("{file} from source: {e:?}"));
        for tool in [Tool::ClangThenTranslator, Tool::ClangSpirv64] {
            let il = spirv_of(file, tool);
            let p = build_il(&il, &[], "", &H100).unwrap_or_else(|e| panic!("{file} ({tool:?}): {e:?}"));
            check_ptx(file, &p);
            same_layout(file, &p, &from_src);
        }
    }
}

fn kernel_ptx<'a>(ptx: &'a str, name: &str) -> &'a str {
    let start = ptx.find(&format!(".entry {name}(")).unwrap_or_else(|| panic!("no entry {name}"));
    let rest = &ptx[start..];
    let end = rest[1..].find(".entry ").map(|e| e + 1).unwrap_or(rest.len());
    &rest[..end]
}

#[test]
fn spirv_kernels_do_what_their_source_says() {
    setup();
    let p = build_il(&spirv_of("basic", Tool::ClangThenTranslator), &[], "", &H100).expect("basic");
    let mixed = kernel_ptx(&p.ptx, "mixed");
    // __local argument: an offset into the dynamic shared array; constant: a global load.
    assert!(p.ptx.contains("__cudacl_dynshared"), "dynamic shared memory");
    assert!(mixed.contains("bar.sync"), "barrier");
    assert!(mixed.contains("ld.shared.f32"), "local loads");
    // sqrt as the instruction (correctly rounded: the translator's calls carry no !fpmath); exp
    // from ptxgen's math library (ex2.approx), inlined, nothing called.
    assert!(mixed.contains("sqrt.rn.f32") && mixed.contains("ex2.approx.f32"), "{mixed}");
    assert!(!mixed.contains("call"), "{mixed}");
    let hist = kernel_ptx(&p.ptx, "histogram");
    assert!(hist.contains("atom.shared") && hist.contains("atom.global.add"), "atomics: {hist}");
    let ids = kernel_ptx(&p.ptx, "ids");
    assert!(ids.contains("%ntid.y") && ids.contains("%tid.x"), "work-item functions");
    // A float division as accurate as the source's, and made alike (the CTS's spirv_new op_fdiv
    // compares the IL kernel with the source one bit for bit).
    let quot = kernel_ptx(&p.ptx, "quot");
    assert!(quot.contains("div.full.f32") && !quot.contains("div.rn.f32"), "{quot}");

    let p = build_il(&spirv_of("cl20", Tool::ClangThenTranslator), &[], "", &H100).expect("cl20");
    check_ptx("cl20", &p);
    let names: Vec<&str> = p.kernels.iter().map(|k| k.name.as_str()).collect();
    assert_eq!(names, ["gen", "c11", "tiles", "longatom", "hello"]);
    assert!(kernel_ptx(&p.ptx, "c11").contains("atom"), "C11 atomics");
    assert!(kernel_ptx(&p.ptx, "longatom").contains("atom.global.cas.b64"), "64-bit atomics");
    assert!(kernel_ptx(&p.ptx, "hello").contains("vprintf"), "printf");
    assert!(kernel_ptx(&p.ptx, "tiles").contains(".shared"), "kernel-scope local array");

    // SPIR's constant (AS2) vload4 and its generic (AS4) one: nvptx spells the constant one as
    // SPIR spells the generic one, so the renaming must not merge them.
    let p = build_il(&spirv_of("builtins", Tool::ClangThenTranslator), &[], "", &H100).expect("builtins");
    check_ptx("builtins", &p);
    assert!(p.ptx.contains(".global .align 4 .u32 counter;"), "program-scope variable: {}", p.ptx);

    let p = build_il(&spirv_of("subgroups", Tool::ClangThenTranslator), &[], "", &H100).expect("subgroups");
    check_ptx("subgroups", &p);
    assert!(kernel_ptx(&p.ptx, "sg").contains("shfl.sync"), "sub-group reduction on warp shuffles");
    let m = kernel_ptx(&p.ptx, "m");
    assert!(m.contains("min.s32") && m.contains("min.u32") && m.contains("max.u32"), "signedness: {m}");

    let p = build_il(&spirv_of("images", Tool::ClangSpirv64), &[], "", &H100).expect("images");
    assert!(kernel_ptx(&p.ptx, "copy").contains("sust"), "image write");
    assert!(kernel_ptx(&p.ptx, "ints").contains("suld"), "image read");
}

/// A SPIR-V module with `value` (a 32-bit OpConstant the kernel stores) made a specialization
/// constant with SpecId `id`: OpConstant (43) becomes OpSpecConstant (50) and an OpDecorate
/// SpecId goes in front of the module's first decoration.
fn with_spec_constant(spv: &[u8], value: u32, id: u32) -> Vec<u8> {
    let mut w: Vec<u32> = spv.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    let mut i = 5;
    let (mut constant, mut first_decoration) = (None, None);
    while i < w.len() {
        let (count, op) = ((w[i] >> 16) as usize, w[i] & 0xffff);
        if op == 71 && first_decoration.is_none() {
            first_decoration = Some(i);
        }
        if op == 43 && count == 4 && w[i + 3] == value {
            w[i] = (4 << 16) | 50;
            constant = Some(w[i + 2]);
        }
        i += count.max(1);
    }
    let (c, at) = (constant.expect("the constant"), first_decoration.expect("a decoration"));
    w.splice(at..at, [(4 << 16) | 71, c, 1, id]);
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}

#[test]
fn specialization_constants() {
    setup();
    let src = "kernel void s(global int *o) { o[get_global_id(0)] = 1234567; }";
    let cl = tmp("spec.cl");
    std::fs::write(&cl, src).expect("write");
    let bc = tmp("spec.bc");
    run(Command::new("clang-15")
        .args(["-cl-std=CL2.0", "-target", "spir64", "-emit-llvm", "-c", "-O2"])
        .arg(&cl)
        .arg("-o")
        .arg(&bc));
    let spv = tmp("spec.spv");
    run(Command::new(translator()).arg(&bc).arg("-o").arg(&spv));
    let il = with_spec_constant(&std::fs::read(&spv).expect("spv"), 1234567, 7);
    assert_eq!(il_spec_constants(&il).expect("spec info"), vec![(7, 4)]);
    let default = build_il(&il, &[], "", &H100).expect("default value");
    assert!(default.ptx.contains("1234567"), "the default value: {}", default.ptx);
    let set = [SpecConstant { id: 7, value: 7654321i32.to_le_bytes().to_vec() }];
    let p = build_il(&il, &set, "", &H100).expect("specialised");
    assert!(p.ptx.contains("7654321") && !p.ptx.contains("1234567"), "specialised: {}", p.ptx);
    // A wrong size or id is a build log.
    for bad in [SpecConstant { id: 7, value: vec![1, 2] }, SpecConstant { id: 8, value: vec![0; 4] }] {
        match build_il(&il, &[bad], "", &H100) {
            Err(BuildError::Failed { log }) => assert!(log.contains("specialization constant"), "{log}"),
            other => panic!("wrong constant accepted: {other:?}"),
        }
    }
    assert!(il_spec_constants(&spirv_of("basic", Tool::ClangThenTranslator)).expect("info").is_empty());
}

#[test]
fn bad_il_is_a_build_log() {
    setup();
    for (what, il) in [
        ("OpenCL C text", b"kernel void k() {}".to_vec()),
        ("empty", Vec::new()),
        ("truncated", spirv_of("basic", Tool::ClangThenTranslator)[..64].to_vec()),
    ] {
        match build_il(&il, &[], "", &H100) {
            Err(BuildError::Failed { log }) => assert!(log.contains("error"), "{what}: {log}"),
            other => panic!("{what}: {other:?}"),
        }
    }
    let il = spirv_of("basic", Tool::ClangThenTranslator);
    assert!(matches!(
        build_il(&il, &[], "-cl-no-such-option", &H100),
        Err(BuildError::InvalidOptions { .. })
    ));
}

#[test]
fn il_objects_link_with_source_objects() {
    setup();
    let il = compile_il(&spirv_of("basic", Tool::ClangThenTranslator), &[], "").expect("compile il");
    let src = compile("kernel void other(global int *p) { p[0] = 1; }", "", &[]).expect("compile source");
    let p = link(&[&il, &src], "", &H100).expect("link");
    let names: Vec<&str> = p.kernels.iter().map(|k| k.name.as_str()).collect();
    assert_eq!(names, ["vadd", "mixed", "histogram", "ids", "quot", "other"]);
    check_ptx("linked", &p);
}

#[test]
fn builds_are_cached_by_il_and_spec_constants() {
    setup();
    let il = spirv_of("types", Tool::ClangThenTranslator);
    let a = build_il(&il, &[], "", &H100).expect("first");
    let b = build_il(&il, &[], "", &H100).expect("second");
    assert_eq!(a, b);
    let o2 = build_il(&il, &[], "-cl-opt-disable", &H100).expect("O0");
    assert_ne!(a.ptx, o2.ptx, "options are in the key");
}

#[test]
fn cli_builds_spirv_and_needs_a_translator() {
    setup();
    let spv = tmp("cli.spv");
    std::fs::write(&spv, spirv_of("basic", Tool::ClangThenTranslator)).expect("write");
    let out = Command::new(env!("CARGO_BIN_EXE_ptxgen")).arg(&spv).arg("--args").output().expect("ptxgen");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("kernel mixed"));
    let out = Command::new(env!("CARGO_BIN_EXE_ptxgen"))
        .env("CUDACL_LLVM_SPIRV", "")
        .env("CUDACL_CACHE", "0")
        .arg(&spv)
        .output()
        .expect("ptxgen");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no SPIR-V translator"));
}
