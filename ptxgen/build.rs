//! Builds the C++ bridge over clang/LLVM 19 and links clang + LLVM statically (NVPTX only).
//!
//! LLVM is found with `llvm-config-19` (or $PTXGEN_LLVM_CONFIG), which Debian's llvm-19-dev
//! provides. inkwell/llvm-sys are used with `no-llvm-linking`, so this script is the one place
//! where the LLVM libraries are linked: one copy, shared by the bridge and inkwell.
use std::path::Path;
use std::process::Command;

const COMPONENTS: &[&str] = &[
    "nvptx",
    "bitreader",
    "bitwriter",
    "linker",
    "passes",
    "ipo",
    "irreader",
    "option",
    "frontendopenmp",
    "frontenddriver",
    "frontendhlsl",
    "coverage",
    "lto",
    "target",
    "mc",
];

const CLANG_LIBS: &[&str] = &[
    "clangCodeGen",
    "clangFrontend",
    "clangDriver",
    "clangSerialization",
    "clangParse",
    "clangSema",
    "clangAPINotes",
    "clangEdit",
    "clangAnalysis",
    "clangASTMatchers",
    "clangAST",
    "clangLex",
    "clangBasic",
    "clangSupport",
];

fn llvm_config(cfg: &str, args: &[&str]) -> String {
    let out = Command::new(cfg)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("ptxgen: cannot run {cfg}: {e} (install llvm-19-dev)"));
    if !out.status.success() {
        panic!("ptxgen: {cfg} {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn main() {
    println!("cargo:rerun-if-env-changed=PTXGEN_LLVM_CONFIG");
    println!("cargo:rerun-if-changed=bridge");
    println!("cargo:rerun-if-changed=bridge/link");
    let cfg = std::env::var("PTXGEN_LLVM_CONFIG").unwrap_or_else(|_| {
        if Path::new("/usr/lib/llvm-19/bin/llvm-config").exists() {
            "/usr/lib/llvm-19/bin/llvm-config".into()
        } else {
            "llvm-config-19".into()
        }
    });
    let version = llvm_config(&cfg, &["--version"]);
    if !version.starts_with("19.") {
        panic!("ptxgen needs LLVM 19, {cfg} reports {version}");
    }
    let incdir = llvm_config(&cfg, &["--includedir"]);
    let libdir = llvm_config(&cfg, &["--libdir"]);
    let clang_include = format!("{libdir}/clang/19/include");
    // The headers embedded into the library (see src/headers.rs).
    println!("cargo:rustc-env=PTXGEN_CLANG_INCLUDE={clang_include}");
    println!("cargo:rustc-env=PTXGEN_LLVM_VERSION={version}");

    let mut b = cc::Build::new();
    b.cpp(true)
        .std("c++17")
        .include(&incdir)
        .define("_GNU_SOURCE", None)
        .define("__STDC_CONSTANT_MACROS", None)
        .define("__STDC_FORMAT_MACROS", None)
        .define("__STDC_LIMIT_MACROS", None)
        .flag("-fno-rtti")
        .flag("-fexceptions")
        .flag_if_supported("-Wno-unused-parameter")
        .flag_if_supported("-Wno-deprecated-declarations")
        .opt_level(2)
        .debug(false)
        .cpp_link_stdlib(None)
        .warnings(false);
    for f in std::fs::read_dir("bridge").expect("bridge/") {
        let p = f.expect("bridge entry").path();
        if p.extension().map(|e| e == "cpp").unwrap_or(false) {
            b.file(p);
        }
    }
    b.compile("ptxgen_bridge");

    // LLVM's C API for inkwell, taken before the LLVM libraries (see bridge/link/llvm_c_api.cpp):
    // a whole archive, so that nothing has to refer to it.
    cc::Build::new()
        .cpp(true)
        .std("c++17")
        .include(&incdir)
        .file("bridge/link/llvm_c_api.cpp")
        .opt_level(2)
        .debug(false)
        .cpp_link_stdlib(None)
        .warnings(false)
        .cargo_metadata(false)
        .compile("ptxgen_llvm_c_api");
    let out_dir = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    println!("cargo:rustc-link-search=native={out_dir}");
    println!("cargo:rustc-link-lib=static:+whole-archive,-bundle=ptxgen_llvm_c_api");

    println!("cargo:rustc-link-search=native={libdir}");
    // clang libraries first (they depend on LLVM), in dependency order.
    for l in CLANG_LIBS {
        println!("cargo:rustc-link-lib=static:-bundle={l}");
    }
    let mut args = vec!["--link-static", "--libs"];
    args.extend_from_slice(COMPONENTS);
    for l in llvm_config(&cfg, &args).split_whitespace() {
        if let Some(name) = l.strip_prefix("-l") {
            println!("cargo:rustc-link-lib=static:-bundle={name}");
        }
    }
    // PTXGEN_STATIC_RUNTIME=1 (scripts/build-aarch64.sh): a build that must load on older
    // systems than the one it is built on (Jetson: glibc 2.31, GCC 9/11's libstdc++). libstdc++,
    // zlib and zstd are linked statically, and bridge/link/glibc_compat.c defines the few
    // glibc >= 2.32 functions the static objects reference; the link is made against an old glibc.
    println!("cargo:rerun-if-env-changed=PTXGEN_STATIC_RUNTIME");
    let static_runtime = std::env::var("PTXGEN_STATIC_RUNTIME").is_ok_and(|v| v == "1");
    if static_runtime {
        cc::Build::new()
            .file("bridge/link/glibc_compat.c")
            .opt_level(2)
            .debug(false)
            .warnings(false)
            .cargo_metadata(false)
            .compile("ptxgen_glibc_compat");
        // Whole archive: its definitions must be there whatever the position of the libraries
        // that reference them on the link line.
        println!("cargo:rustc-link-lib=static:+whole-archive,-bundle=ptxgen_glibc_compat");
        for l in ["z", "zstd", "stdc++"] {
            println!("cargo:rustc-link-lib=static:-bundle={l}");
        }
        for l in ["rt", "dl", "m", "pthread"] {
            println!("cargo:rustc-link-lib=dylib={l}");
        }
    } else {
        // LLVM brings ~240k relative relocations; packed (DT_RELR, glibc >= 2.36) they cost the
        // dynamic loader far less at every start of the CLI. (Libraries embedding ptxgen should
        // link the same way.) Not on aarch64: a native build on a Jetson has glibc <= 2.35.
        if std::env::var("CARGO_CFG_TARGET_ARCH").is_ok_and(|a| a == "x86_64") {
            println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
        }
        // System libraries: only what the NVPTX + clang subset needs at run time.
        for l in ["z", "zstd", "rt", "dl", "m", "pthread", "stdc++"] {
            println!("cargo:rustc-link-lib=dylib={l}");
        }
    }
}
