//! The build options (OpenCL 1.2's, with -cl-std=CL3.0 and the 2.x options a 3.0 device takes)
//! and their translation into clang cc1 arguments.

/// Parsed build (or link) options.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// cc1 arguments (after the fixed ones).
    pub cc1: Vec<String>,
    pub opt_disable: bool,
    /// Fuse multiply-add freely (-cl-mad-enable, -cl-unsafe-math-optimizations, -cl-fast-relaxed-math).
    pub fast_fma: bool,
    pub kernel_arg_info: bool,
    /// Link only: -create-library (the result is a library, not an executable).
    pub create_library: bool,
    /// Link only: -enable-link-options (allowed with -create-library alone).
    pub enable_link_options: bool,
}

/// The options the runtime acts on itself, read once from an option string of any kind (build,
/// compile or link): a word counts as given when it is one of the string's words (quoted words
/// count as one), whether or not the rest of the string is valid, since the runtime asks this of
/// strings no build checked (clBuildProgram's options of a loaded binary). A string that does
/// not tokenize asks for nothing; building with it reports the error.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RuntimeOptions {
    /// -cl-kernel-arg-info: clGetKernelArgInfo answers.
    pub kernel_arg_info: bool,
    /// -create-library: clLinkProgram makes a library, not an executable.
    pub create_library: bool,
}

impl RuntimeOptions {
    pub fn of(options: &str) -> RuntimeOptions {
        let words = tokenize(options).unwrap_or_default();
        let has = |flag: &str| words.iter().any(|w| w == flag);
        RuntimeOptions { kernel_arg_info: has("-cl-kernel-arg-info"), create_library: has("-create-library") }
    }
}

/// Splits an option string like a shell would, for the simple cases OpenCL programs use:
/// blanks separate, '...' and "..." quote, a backslash escapes the next character.
pub fn tokenize(s: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut have = false;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if have {
                    out.push(std::mem::take(&mut cur));
                    have = false;
                }
            }
            '\'' | '"' => {
                have = true;
                let q = c;
                let mut closed = false;
                while let Some(d) = chars.next() {
                    if d == q {
                        closed = true;
                        break;
                    }
                    if d == '\\' && q == '"' {
                        match chars.next() {
                            Some(e) => cur.push(e),
                            None => break,
                        }
                    } else {
                        cur.push(d);
                    }
                }
                if !closed {
                    return Err(format!("unterminated quote in build options: {s}"));
                }
            }
            '\\' => {
                have = true;
                if let Some(e) = chars.next() {
                    cur.push(e);
                }
            }
            c => {
                have = true;
                cur.push(c);
            }
        }
    }
    if have {
        out.push(cur);
    }
    Ok(out)
}

const FLAGS: &[&str] = &[
    "-cl-mad-enable",
    "-cl-no-signed-zeros",
    "-cl-unsafe-math-optimizations",
    "-cl-finite-math-only",
    "-cl-fast-relaxed-math",
    "-cl-denorms-are-zero",
    "-cl-single-precision-constant",
    // Accepted because the devices report CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT: clang then leaves
    // the divisions exact (no !fpmath), and sqrt is always sqrt.rn.
    "-cl-fp32-correctly-rounded-divide-sqrt",
];

/// clBuildProgram / clCompileProgram options. Errors carry the reason for the build log.
pub fn parse_build(s: &str) -> Result<Options, String> {
    let toks = tokenize(s)?;
    let mut o = Options::default();
    let mut std = None;
    let mut i = 0;
    while i < toks.len() {
        let t = toks[i].as_str();
        i += 1;
        match t {
            "-D" | "-I" => {
                let v = toks.get(i).ok_or_else(|| format!("option {t} needs an argument"))?;
                i += 1;
                if v.is_empty() || (t == "-D" && v.starts_with('=')) {
                    return Err(format!("option {t} has an invalid argument '{v}'"));
                }
                o.cc1.push(t.to_string());
                o.cc1.push(v.clone());
            }
            _ if (t.starts_with("-D") || t.starts_with("-I")) && t.len() > 2 => {
                if t.starts_with("-D=") {
                    return Err(format!("invalid macro definition '{t}'"));
                }
                o.cc1.push(t[..2].to_string());
                o.cc1.push(t[2..].to_string());
            }
            "-w" | "-Werror" => o.cc1.push(t.to_string()),
            "-cl-std=CL1.0" | "-cl-std=CL1.1" | "-cl-std=CL1.2" | "-cl-std=CL3.0" => {
                std = Some(t.to_string())
            }
            _ if t.starts_with("-cl-std=") => {
                return Err(format!("unsupported OpenCL C version '{t}' (CL1.0, CL1.1, CL1.2, CL3.0)"))
            }
            // OpenCL 2.x options, valid for a 3.0 device: work-groups are always uniform here
            // (no non-uniform work-group support), and there are no subgroups to make progress.
            "-cl-uniform-work-group-size" | "-cl-no-subgroup-ifp" => {}
            "-cl-opt-disable" => o.opt_disable = true,
            "-cl-kernel-arg-info" => o.kernel_arg_info = true,
            "-cl-strict-aliasing" => {}
            _ if FLAGS.contains(&t) => {
                if t != "-cl-denorms-are-zero" {
                    o.cc1.push(t.to_string());
                }
                match t {
                    "-cl-mad-enable" | "-cl-unsafe-math-optimizations" | "-cl-fast-relaxed-math" => {
                        o.fast_fma = true
                    }
                    "-cl-denorms-are-zero" => {
                        o.cc1.push("-fdenormal-fp-math-f32=preserve-sign,preserve-sign".into())
                    }
                    _ => {}
                }
            }
            _ => return Err(format!("invalid build option '{t}'")),
        }
    }
    let std = std.unwrap_or_else(|| "-cl-std=CL1.2".into());
    if std == "-cl-std=CL3.0" {
        // The reported features clang 19 has no -cl-ext switch for: __opencl_c_atomic_scope_device
        // (opencl-c-base.h defines it for SPIR only; it makes the atomics without an explicit
        // scope available) and __opencl_c_fp16 (the 3.0 feature of cl_khr_fp16).
        o.cc1.push("-D__opencl_c_atomic_scope_device=1".into());
        o.cc1.push("-D__opencl_c_fp16=1".into());
        // Sub-groups (subgroups.cl); clang's -cl-ext=+__opencl_c_subgroups would do the same.
        o.cc1.push("-D__opencl_c_subgroups=1".into());
    }
    o.cc1.push(std);
    Ok(o)
}

/// parse_build for a build or compile: a refused string is BuildError::InvalidOptions, its
/// reason the log.
pub(crate) fn build_options(s: &str) -> Result<Options, crate::BuildError> {
    parse_build(s).map_err(invalid)
}

/// parse_link for a link, as `build_options`.
pub(crate) fn link_options(s: &str) -> Result<Options, crate::BuildError> {
    parse_link(s).map_err(invalid)
}

fn invalid(reason: String) -> crate::BuildError {
    crate::BuildError::InvalidOptions { log: format!("error: {reason}\n") }
}

/// clLinkProgram options (OpenCL 1.2 5.6.5.2/3).
pub fn parse_link(s: &str) -> Result<Options, String> {
    let mut o = Options::default();
    for t in tokenize(s)? {
        match t.as_str() {
            "-create-library" => o.create_library = true,
            "-enable-link-options" => o.enable_link_options = true,
            "-cl-denorms-are-zero" | "-cl-no-signed-zeros" | "-cl-finite-math-only" => {}
            "-cl-unsafe-math-optimizations" | "-cl-fast-relaxed-math" => o.fast_fma = true,
            _ => return Err(format!("invalid link option '{t}'")),
        }
    }
    if o.enable_link_options && !o.create_library {
        return Err("-enable-link-options is allowed only with -create-library".into());
    }
    Ok(o)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn parses() {
        let o = parse_build("-D A=1 -DB -I /x -Iy -cl-mad-enable -w -cl-std=CL1.1").unwrap();
        assert_eq!(
            o.cc1,
            vec!["-D", "A=1", "-D", "B", "-I", "/x", "-I", "y", "-cl-mad-enable", "-w", "-cl-std=CL1.1"]
        );
        assert!(o.fast_fma);
        assert!(parse_build("-O3").is_err());
        assert!(parse_build("-cl-std=CL2.0").is_err());
        let cl3 = parse_build("-cl-std=CL3.0 -cl-uniform-work-group-size").unwrap();
        assert_eq!(
            cl3.cc1,
            vec![
                "-D__opencl_c_atomic_scope_device=1",
                "-D__opencl_c_fp16=1",
                "-D__opencl_c_subgroups=1",
                "-cl-std=CL3.0"
            ]
        );
        assert_eq!(parse_build("").unwrap().cc1, vec!["-cl-std=CL1.2"]);
        assert!(parse_build("-D").is_err());
        assert_eq!(tokenize(r#"-D X="a b" -D 'Y=c'"#).unwrap(), vec!["-D", "X=a b", "-D", "Y=c"]);
        assert!(parse_link("-create-library -cl-fast-relaxed-math").unwrap().fast_fma);
        assert!(parse_link("-create-library").unwrap().create_library);
        assert!(parse_link("-enable-link-options").is_err());
        assert!(RuntimeOptions::of("-D 'X=-cl-kernel-arg-info' -cl-kernel-arg-info").kernel_arg_info);
        assert!(!RuntimeOptions::of("-D 'X=-cl-kernel-arg-info'").kernel_arg_info);
        assert!(!RuntimeOptions::of("-D \"X -create-library").create_library);
        assert!(RuntimeOptions::of("-create-library -bogus").create_library);
        assert!(parse_link("-D X").is_err());
    }
}
