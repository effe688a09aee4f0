#![allow(non_upper_case_globals)]
//! The translator: OpenMP C (read through libclang) -> host C (runtime calls + the original
//! OpenMP region kept as the CPU version) + one OpenCL C program with a kernel per offloadable loop.

use crate::clang::{self, Node, Type};
use crate::pragma::{self, Pragma};
use clang_sys::*;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fmt::Write;

mod affine;
mod analysis;
mod atomic_reduction;
mod constant;
mod cpu;
mod critical;
mod host;
mod interchange;
mod kernel;
mod manual_array;
mod manual_reduction;
mod minmax_update;
mod owned_reduction;
mod promote;
mod races;
mod region_arrays;
mod row_pointers;
mod sequence;
mod shared;
mod target;
mod target_body;
mod thread_partials;
mod triangle;
mod types;
mod validate;

use constant::konst_flag;
use host::{command_line_macros, kernel_call, sequence_call};
use shared::*;
use types::{builtin_cl, Types};

pub struct Options {
    /// Arguments for libclang (-I, -D, -U, -std...).
    pub clang_args: Vec<String>,
    /// -D/-U options repeated into the OpenCL build options.
    pub cl_defines: Vec<String>,
    /// Rewrite every OpenMP construct for ompcl's pthreads runtime (else keep the pragmas for
    /// the C compiler's -fopenmp).
    pub pthreads: bool,
}

pub struct Output {
    pub host_c: String,
    pub kernels: String,
    /// Diagnostics, already formatted `file:line:col: warning|error: ...`.
    pub diags: Vec<String>,
    pub errors: bool,
    /// (line, offloaded, reason)
    pub regions: Vec<(u32, bool, String)>,
    /// With `pthreads`: a construct outside OpenMP 2.0 that ompcl's runtime cannot run
    /// (the driver then uses the C compiler's OpenMP for the whole program).
    pub needs_cc: Option<String>,
    /// The source was not UTF-8: it was read as Latin-1 (one char per byte), and `host_c` /
    /// `kernels` must be written back the same way (`host_bytes`, `kernel_bytes`).
    pub latin1: bool,
}

/// A source file's text: UTF-8 if it is, else every byte as the char of the same value
/// (Latin-1), which `encode` turns back into the same bytes. (C compilers take any bytes in
/// comments and strings; ompcl must pass them through unchanged.)
pub fn decode_source(bytes: Vec<u8>) -> (String, bool) {
    match String::from_utf8(bytes) {
        Ok(s) => (s, false),
        Err(e) => (e.into_bytes().iter().map(|&b| b as char).collect(), true),
    }
}

/// The bytes of text made by `decode_source` (generated code is ASCII).
pub fn encode(s: &str, latin1: bool) -> Vec<u8> {
    if !latin1 {
        return s.as_bytes().to_vec();
    }
    let mut out = Vec::with_capacity(s.len());
    for ch in s.chars() {
        match u8::try_from(ch as u32) {
            Ok(b) => out.push(b),
            Err(_) => out.extend_from_slice(ch.encode_utf8(&mut [0; 4]).as_bytes()),
        }
    }
    out
}

impl Output {
    pub fn host_bytes(&self) -> Vec<u8> {
        encode(&self.host_c, self.latin1)
    }
    pub fn kernel_bytes(&self) -> Vec<u8> {
        encode(&self.kernels, self.latin1)
    }
}

impl Output {
    /// A translation that stopped at errors: only its diagnostics.
    fn failed(diags: Vec<String>) -> Output {
        Output {
            host_c: String::new(),
            kernels: String::new(),
            diags,
            errors: true,
            regions: vec![],
            needs_cc: None,
            latin1: false,
        }
    }
}

struct Ctx<'a> {
    file: String,
    text: &'a str,
    pragmas: Vec<Pragma>,
    /// pragma index -> (statement node, start offset, end offset incl. trailing ';')
    assoc: HashMap<usize, (Node, usize, usize)>,
    threadprivate: HashSet<String>,
    diags: Vec<String>,
    file_texts: HashMap<String, String>,
}

fn kind_is_stmt_or_expr(n: &Node) -> bool {
    n.is_stmt() || n.is_expr() || n.kind() == CXCursor_DeclStmt
}

impl<'a> Ctx<'a> {
    fn warn(&mut self, line: u32, col: u32, msg: &str) {
        self.diags.push(format!("{}:{}:{}: warning: {}", self.file, line, col, msg));
    }
    fn stmt_end(&self, end: usize) -> usize {
        let b = self.text.as_bytes();
        let mut i = end;
        while i < b.len() && (b[i] as char).is_whitespace() {
            i += 1;
        }
        if i < b.len() && b[i] == b';' {
            i + 1
        } else {
            end
        }
    }
    fn file_text(&mut self, f: &str) -> String {
        if f == self.file {
            return self.text.to_string();
        }
        if !self.file_texts.contains_key(f) {
            let t = std::fs::read(f).map(|b| decode_source(b).0).unwrap_or_default();
            self.file_texts.insert(f.to_string(), t);
        }
        self.file_texts[f].clone()
    }
}

fn strip(n: Node) -> Node {
    // peel parens and implicit casts
    let mut n = n;
    loop {
        let k = n.kind();
        if k == CXCursor_ParenExpr || k == CXCursor_UnexposedExpr {
            let ch = n.children();
            if ch.len() == 1 {
                n = ch[0];
                continue;
            }
        }
        return n;
    }
}

/// `X[a][b]...` -> (X, [b, a, ...]): what the subscripts apply to, and the subscripts from the
/// last to the first (parens and implicit casts stripped throughout); a plain expression -> (it, []).
fn peel_subscripts(e: Node) -> (Node, Vec<Node>) {
    let mut e = strip(e);
    let mut subs = Vec::new();
    while e.kind() == CXCursor_ArraySubscriptExpr {
        let ch = e.children();
        subs.push(ch[1]);
        e = strip(ch[0]);
    }
    (e, subs)
}

fn decl_refs(n: Node) -> Vec<Node> {
    let mut v = Vec::new();
    if n.kind() == CXCursor_DeclRefExpr {
        v.push(n);
    }
    n.walk(&mut |c| {
        if c.kind() == CXCursor_DeclRefExpr {
            v.push(c)
        }
    });
    v
}

/// Every node of `n`, `n` included.
fn nodes_of(n: Node) -> Vec<Node> {
    let mut v = vec![n];
    n.walk(&mut |c| v.push(c));
    v
}

/// The left-hand side of an assignment, compound assignment or increment.
fn assigned(n: Node) -> Option<Node> {
    match n.kind() {
        CXCursor_BinaryOperator if n.binop() == CXBinaryOperator_Assign => Some(n.children()[0]),
        CXCursor_CompoundAssignOperator => Some(n.children()[0]),
        CXCursor_UnaryOperator if (CXUnaryOperator_PostInc..=CXUnaryOperator_PreDec).contains(&n.unop()) => {
            Some(n.children()[0])
        }
        _ => None,
    }
}

fn key_of(d: &Node) -> String {
    let p = d.loc();
    format!("{}:{}:{}", p.file, p.off, d.spelling())
}

// ---------------------------------------------------------------------------------------------
// Text edits

fn render_host(text: &str, edits: &mut [HEdit]) -> String {
    edits.sort_by(|a, b| {
        a.start.cmp(&b.start).then((a.end > a.start).cmp(&(b.end > b.start))).then(a.order.cmp(&b.order))
    });
    let mut out = String::new();
    let mut cur = 0;
    for ed in edits.iter() {
        if ed.start < cur {
            continue;
        }
        out.push_str(&text[cur..ed.start]);
        out.push_str(&ed.text);
        cur = ed.end;
    }
    out.push_str(&text[cur..]);
    out
}

fn render(text: &str, edits: &[Edit], s: usize, e: usize) -> String {
    let mut es: Vec<&Edit> = edits.iter().filter(|x| x.start >= s && x.end <= e).collect();
    // at one place: insertions first (in the order given), then the widest replacement
    es.sort_by(|a, b| {
        a.start.cmp(&b.start).then((a.end > a.start).cmp(&(b.end > b.start))).then(b.end.cmp(&a.end))
    });
    let mut out = String::new();
    let mut cur = s;
    for ed in es {
        if ed.start < cur {
            continue;
        }
        out.push_str(&text[cur..ed.start]);
        out.push_str(&ed.text);
        cur = ed.end;
    }
    out.push_str(&text[cur..e]);
    out
}

// ---------------------------------------------------------------------------------------------

const CL_BUILTINS: &[&str] = &[
    "sqrt",
    "sin",
    "cos",
    "tan",
    "exp",
    "log",
    "pow",
    "fabs",
    "floor",
    "ceil",
    "fmin",
    "fmax",
    "fmod",
    "atan",
    "atan2",
    "asin",
    "acos",
    "sinh",
    "cosh",
    "tanh",
    "exp2",
    "log2",
    "log10",
    "cbrt",
    "hypot",
    "round",
    "trunc",
    "copysign",
    "sqrtf",
    "sinf",
    "cosf",
    "tanf",
    "expf",
    "logf",
    "powf",
    "fabsf",
    "floorf",
    "ceilf",
    "fminf",
    "fmaxf",
    "fmodf",
    "atanf",
    "atan2f",
    "asinf",
    "acosf",
    "sinhf",
    "coshf",
    "tanhf",
    "exp2f",
    "log2f",
    "log10f",
    "cbrtf",
    "hypotf",
    "roundf",
    "truncf",
    "copysignf",
    "fma",
    "fmaf",
    "rsqrt",
    // OpenMP's device queries (OpenCL C macros of the prelude)
    "omp_is_initial_device",
    "omp_get_device_num",
];

/// OpenMP's team and thread queries: in a target region's kernel they are the work-group's and
/// work-item's numbers (kernel.rs); the kernel's NDRange then follows `num_teams`/`thread_limit`
const TEAM_QUERIES: &[&str] = &[
    "omp_get_num_teams",
    "omp_get_team_num",
    "omp_get_num_threads",
    "omp_get_thread_num",
    "omp_get_thread_limit",
];

const CL_RESERVED: &[&str] = &[
    "global",
    "local",
    "constant",
    "private",
    "kernel",
    "image2d_t",
    "image3d_t",
    "sampler_t",
    "event_t",
    "half",
    "read_only",
    "write_only",
    "read_write",
    "uchar",
    "ushort",
    "uint",
    "ulong",
    "vec_type_hint",
    "bool",
    "complex",
    "imaginary",
    "uniform",
    "pipe",
];

struct Translator<'a> {
    cx: Ctx<'a>,
    types: Types,
    /// functions to copy into the kernel source: key -> (node, name)
    funcs: BTreeMap<String, Node>,
    atomics: BTreeMap<String, String>,
    int64_atomics: bool,
    /// CPU versions use ompcl's pthreads runtime (else: the C compiler's OpenMP)
    pthreads: bool,
    /// call graph of kernel code: caller ("region:N" or a function key) -> callees
    calls: BTreeMap<String, BTreeSet<String>>,
    caller: String,
    /// functions that cannot go into a kernel, with the reason
    bad_funcs: HashMap<String, String>,
    /// while a region's kernels are made: its arrays and structs that are each work-item's own
    /// (region_arrays.rs), by key; a call that passes one gets a copy of the function whose
    /// parameter is `__private`
    private_arrays: HashSet<String>,
    /// the copies of kernel functions with `__private` pointer parameters: (function key, mask of
    /// those parameters)
    func_variants: BTreeSet<(String, u32)>,
    /// the calls of such copies: (file, offset of the callee's name) -> mask
    variant_calls: HashMap<(String, usize), u32>,
    /// next kernel id for regions made of several kernels (ids below it: one per region)
    next_kid: usize,
    /// source ranges of pointer members passed as pointers of their own (`s.d` -> `s__m_d`)
    member_ptr_ranges: Vec<(usize, usize)>,
    /// global variables a kernel function uses (itself or through its callees): they become extra
    /// parameters, passed at every call (OpenCL 1.2 has no program-scope __global variables).
    /// function key -> (declaration, written)
    func_globals: HashMap<String, Vec<(Node, bool)>>,
    /// notes about the region being translated, kept only if it is offloaded (e.g. that its
    /// critical sections need a device lock, so where it runs is decided at run time)
    pending_notes: Vec<String>,
    /// global arrays the device code writes or uses other than by subscript: never __constant
    not_constant: HashSet<String>,
    /// global arrays that may be __constant parameters: name -> bytes
    constant_sizes: BTreeMap<String, usize>,
    /// kernel id -> the global arrays it takes as parameters (candidates for __constant)
    kernel_constants: BTreeMap<usize, Vec<String>>,
    /// while a `target` region's kernels are made: the local arrays they use (name, written),
    /// mapped implicitly (see target.rs)
    in_target: Option<Vec<(String, bool)>>,
    /// the next kernel is a target region's sequential body (one work-item)
    target_single: bool,
    /// with target_single: the body is a `target parallel`'s, run by every thread of one team
    target_spmd: bool,
    /// the kernel being analysed calls one of TEAM_QUERIES in its own body (a target region)
    team_queries: bool,
    /// the names of the last map clauses read, with their map types (target.rs)
    map_names: Vec<(String, u32)>,
    /// in a target region: (defaultmap(tofrom: scalar), the scalars mapped `from`): the scalars
    /// whose writes go back to the host
    /// in a target region: (`defaultmap(tofrom: scalar)`, names in its map clauses, those of
    /// them mapped `from`/`tofrom`)
    target_scalars_out: Option<(bool, HashSet<String>, HashSet<String>)>,
    /// declarations of a target body's locals that the host holds (target_body.rs)
    target_hoisted: String,
    /// per directive line, why a region of the shape of a reduction written by hand was not
    /// rewritten as one (manual_reduction.rs): added to its warning
    manual_notes: HashMap<u32, String>,
}

pub fn translate(file: &str, opts: &Options) -> Result<Output, String> {
    clang::load()?;
    let abs = std::fs::canonicalize(file).map_err(|e| format!("{file}: {e}"))?;
    let file = abs.to_string_lossy().into_owned();
    let (text, latin1) = decode_source(std::fs::read(&file).map_err(|e| format!("{file}: {e}"))?);
    // `_Pragma("omp ...")` (in macros): its lines expanded, so the directive is a `#pragma` line
    let mut pp_args = opts.clang_args.clone();
    pp_args.push("-D_OPENMP=200203".into());
    let expanded = crate::pragma_op::expand(&file, &text, &pp_args);
    translate_text(&file, opts, text, latin1, expanded, Rewrites::All, &HashMap::new())
}

/// The source rewrites still to try on a text; each is made once and the rewritten text
/// translated in its place.
#[derive(Clone, Copy, PartialEq)]
enum Rewrites {
    /// reductions written by hand (manual_reduction.rs), then the accumulation forms
    All,
    /// loops accumulating into shared arrays (interchange.rs, owned_reduction.rs)
    Accumulation,
    None,
}

/// The translation of `text` (the file's, or the rewrite `expanded` of it, whose lines map back
/// to the file's). `rewrites`: the source rewrites to try first (reductions written by hand
/// become clauses: manual_reduction.rs; loops that accumulate into shared arrays are split:
/// interchange.rs), the rewritten text then translated in their place. `notes`: per directive
/// line, why a region was not rewritten as a reduction (added to its warning).
fn translate_text(
    file: &str,
    opts: &Options,
    text: String,
    latin1: bool,
    expanded: Option<crate::pragma_op::Expanded>,
    rewrites: Rewrites,
    notes: &HashMap<u32, String>,
) -> Result<Output, String> {
    let file = file.to_string();
    let (text, rewritten) = match &expanded {
        Some(x) => (x.text.clone(), true),
        None => (text, false),
    };
    let mut diags = Vec::new();
    let mut args = opts.clang_args.clone();
    args.push("-D_OPENMP=200203".into());
    // gcc (12, Debian 12's) only warns about what C99 removed and what clang 16+ makes errors:
    // implicit function declarations and `int`, K&R-era conversions. ompcl reads what gcc builds.
    args.extend(GCC_WARNINGS_NOT_ERRORS.iter().map(|w| format!("-Wno-error={w}")));
    // libclang reads an omp.h of ompcl's own (GCC's uses attributes clang rejects)
    // one folder per call: translations may run in several threads of one process (the tests)
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let inc = std::env::temp_dir().join(format!("ompcl-parse-include-{}-{call}", std::process::id()));
    let _ = std::fs::create_dir_all(&inc);
    let _ = std::fs::write(inc.join("omp.h"), PARSE_OMP_H);
    args.push("-isystem".into());
    args.push(inc.to_string_lossy().into_owned());
    // a Latin-1 file is parsed as the UTF-8 text ompcl reads, so that libclang's offsets are
    // offsets into `text`
    let tu = clang::Tu::parse(&file, &args, if latin1 || rewritten { Some(text.as_str()) } else { None });
    let _ = std::fs::remove_dir_all(&inc);
    let tu = tu?;
    let mut errors = false;
    for d in tu.diagnostics() {
        if d.severity >= 3 {
            errors = true;
            diags.push(d.text);
        } else if d.severity == 2 && !d.text.contains("unknown pragma") {
            // warnings are the C compiler's business; keep quiet
        }
    }
    if errors {
        return Ok(Output::failed(diags));
    }
    // pragmas: only those the preprocessor keeps (not inside `#ifdef UNDEFINED` ...) ...
    let mut visible = text.clone().into_bytes();
    for (s, e) in tu.skipped_ranges(&file) {
        for b in visible.iter_mut().take(e.min(text.len())).skip(s) {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    }
    // ... and not inside a comment
    let visible = pragma::blank_comments(&String::from_utf8_lossy(&visible));
    let pragmas = match pragma::scan(&visible) {
        Ok(mut p) => {
            if let Some(x) = &expanded {
                for p in p.iter_mut() {
                    p.line = x.orig_line(p.line);
                }
            }
            p
        }
        Err((off, msg)) => {
            let line = visible[..off].matches('\n').count() + 1;
            let line = expanded.as_ref().map_or(line, |x| x.orig_line(line as u32) as usize);
            diags.push(format!("{file}:{line}:1: error: {msg}"));
            return Ok(Output::failed(diags));
        }
    };
    let threadprivate: HashSet<String> = pragmas
        .iter()
        .filter(|p| p.is(&["threadprivate"]))
        .flat_map(|p| p.dir_arg.as_deref().map(pragma::split_list).unwrap_or_default())
        .collect();
    if opts.pthreads {
        // an OpenMP routine ompcl's pthreads runtime does not provide (5.0's allocators, affinity
        // ...): the program's CPU versions use the C compiler's OpenMP, which has it
        if let Some((name, line)) = unprovided_omp_call(&visible) {
            return Ok(Output {
                host_c: String::new(),
                kernels: String::new(),
                diags: vec![format!(
                    "{file}:{line}:1: warning: '{name}' is not provided by ompcl's CPU runtime: the CPU versions of this program use the C compiler's OpenMP (-fopenmp)"
                )],
                errors: false,
                regions: vec![],
                needs_cc: Some(name),
                latin1,
            });
        }
        let unknown = pragmas.iter().find(|p| {
            p.unknown.is_some()
                || p.clause("copyprivate").is_some()
                || pragma::is_device_construct(&p.directive)
        });
        if let Some(p) = unknown {
            let what = p.unknown.clone().unwrap_or_else(|| {
                if p.clause("copyprivate").is_some() {
                    "copyprivate".into()
                } else {
                    p.name()
                }
            });
            let msg = if p.unknown.is_none() && pragma::is_device_construct(&p.directive) {
                // expected: ompcl offloads device constructs itself; GCC runs their host fallback
                format!(
                    "{file}:{}:{}: note: device constructs ('{what}'): the CPU versions of this program use the C compiler's OpenMP (-fopenmp)",
                    p.line, p.col
                )
            } else {
                format!(
                    "{file}:{}:{}: warning: '{what}' is not OpenMP 2.0 (or not supported by ompcl's CPU runtime): the CPU versions of this program use the C compiler's OpenMP (-fopenmp)",
                    p.line, p.col
                )
            };
            return Ok(Output {
                host_c: String::new(),
                kernels: String::new(),
                diags: vec![msg],
                errors: false,
                regions: vec![],
                needs_cc: Some(what),
                latin1,
            });
        }
    }
    let mut t = Translator {
        cx: Ctx {
            file: file.clone(),
            text: &text,
            pragmas,
            assoc: HashMap::new(),
            threadprivate,
            diags,
            file_texts: HashMap::new(),
        },
        types: Types::default(),
        funcs: BTreeMap::new(),
        atomics: BTreeMap::new(),
        int64_atomics: false,
        pthreads: opts.pthreads,
        calls: BTreeMap::new(),
        caller: String::new(),
        bad_funcs: HashMap::new(),
        private_arrays: HashSet::new(),
        func_variants: BTreeSet::new(),
        variant_calls: HashMap::new(),
        next_kid: 0,
        member_ptr_ranges: Vec::new(),
        func_globals: HashMap::new(),
        pending_notes: Vec::new(),
        not_constant: HashSet::new(),
        constant_sizes: BTreeMap::new(),
        kernel_constants: BTreeMap::new(),
        in_target: None,
        target_single: false,
        target_spmd: false,
        team_queries: false,
        map_names: Vec::new(),
        target_scalars_out: None,
        target_hoisted: String::new(),
        manual_notes: notes.clone(),
    };
    t.associate(&tu);
    let nesting = {
        let assoc = &t.cx.assoc;
        crate::nesting::check(&file, &t.cx.pragmas, &|i| assoc.get(&i).map(|&(_, s, e)| (s, e)))
    };
    if !nesting.is_empty() {
        let mut diags = std::mem::take(&mut t.cx.diags);
        diags.extend(nesting);
        return Ok(Output::failed(diags));
    }
    let invalid = t.validate(&tu);
    if !invalid.is_empty() {
        let mut diags = std::mem::take(&mut t.cx.diags);
        diags.extend(invalid);
        return Ok(Output::failed(diags));
    }
    let orig = |l: u32| expanded.as_ref().map_or(l, |x| x.orig_line(l));
    if rewrites == Rewrites::All {
        // regions whose rewritten form still stays on the CPU are left as written (their warning
        // then says why): the rewrite is tried again without them
        let mut skip: HashSet<usize> = HashSet::new();
        loop {
            let (rewrite, refused) = t.manual_reduction_rewrite(&tu, &skip);
            t.manual_notes.extend(refused);
            let Some(rw) = rewrite else { break };
            let lines = rw.lines.into_iter().map(orig).collect();
            let (new_text, done) = (rw.text.clone(), rw.regions.clone());
            let x = crate::pragma_op::Expanded { text: new_text.clone(), lines };
            let out = translate_text(
                &file,
                opts,
                new_text,
                latin1,
                Some(x),
                Rewrites::Accumulation,
                &t.manual_notes,
            )?;
            let mut kept = false;
            for pi in done {
                let line = t.cx.pragmas[pi].line;
                let why = match out.regions.iter().find(|r| r.0 == line) {
                    Some((_, true, _)) => continue,
                    Some((_, false, why)) => why.clone(),
                    None => "it did not translate".into(),
                };
                let note = if rw.thread_partials.contains(&pi) {
                    format!("per-thread partial results, but with every update made on thread 0's slot the region stays on the CPU too: {why}")
                } else {
                    format!("a reduction written by hand, but as a reduction clause the region stays on the CPU too: {why}")
                };
                t.manual_notes.insert(line, note);
                skip.insert(pi);
                kept = true;
            }
            if !kept {
                return Ok(out);
            }
        }
    }
    if rewrites != Rewrites::None {
        let mut notes = HashMap::new();
        let rewrite = t.accumulation_rewrite(&tu, &orig, &mut notes);
        t.manual_notes.extend(notes);
        if let Some((new_text, lines)) = rewrite {
            let lines = lines.into_iter().map(orig).collect();
            let notes = std::mem::take(&mut t.manual_notes);
            drop(t);
            return translate_text(
                &file,
                opts,
                new_text.clone(),
                latin1,
                Some(crate::pragma_op::Expanded { text: new_text, lines }),
                Rewrites::None,
                &notes,
            );
        }
    }
    if opts.pthreads {
        // a reduction over an array section (or a whole array) left after the rewrite: ompcl's
        // pthreads runtime makes scalar private copies only; the C compiler's OpenMP has them
        if let Some((line, what)) = t.array_reduction(&tu) {
            return Ok(Output {
                host_c: String::new(),
                kernels: String::new(),
                diags: vec![format!(
                    "{file}:{line}:1: note: reduction over the array '{what}': the CPU versions of this program use the C compiler's OpenMP (-fopenmp)"
                )],
                errors: false,
                regions: vec![],
                needs_cc: Some(format!("reduction({what})")),
                latin1,
            });
        }
    }
    let mut out = t.run(&tu, opts)?;
    out.latin1 = latin1;
    Ok(out)
}

impl<'a> Translator<'a> {
    fn associate(&mut self, tu: &clang::Tu) {
        // Every statement/expression in a function body of the main file, by start offset.
        let mut nodes: Vec<(usize, usize, Node)> = Vec::new();
        let file = self.cx.file.clone();
        for top in tu.root().children() {
            if top.kind() != CXCursor_FunctionDecl {
                continue;
            }
            let (s, _) = top.range();
            if s.file != file {
                continue;
            }
            top.walk(&mut |c| {
                if kind_is_stmt_or_expr(&c) {
                    let (s, e) = c.range();
                    if s.file == file && e.file == file {
                        nodes.push((s.off, e.off, c));
                    }
                }
            });
        }
        nodes.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
        for (i, p) in self.cx.pragmas.iter().enumerate() {
            if !p.has_statement() {
                continue;
            }
            let idx = nodes.partition_point(|n| n.0 < p.end);
            if idx < nodes.len() {
                let (s, e, n) = nodes[idx];
                let end = self.cx.stmt_end(e);
                self.cx.assoc.insert(i, (n, s, end));
            }
        }
    }

    fn pragmas_in(&self, s: usize, e: usize) -> Vec<usize> {
        (0..self.cx.pragmas.len())
            .filter(|&i| self.cx.pragmas[i].line_start >= s && self.cx.pragmas[i].line_start < e)
            .collect()
    }

    /// Phase of `run`: the outermost `parallel` regions, each with its kernel id (the regions
    /// inside target regions belong to those: target.rs); a directive no statement follows is
    /// warned about and skipped.
    fn parallel_regions(&mut self) -> Vec<Region> {
        let mut regions: Vec<Region> = Vec::new();
        // parallel regions inside target regions are part of those (target.rs)
        let mut covered: Vec<(usize, usize)> = self.target_ranges();
        for i in 0..self.cx.pragmas.len() {
            let p = &self.cx.pragmas[i];
            if p.directive[0] != "parallel" {
                continue;
            }
            let Some(&(_, _, e)) = self.cx.assoc.get(&i) else {
                let (l, c) = (p.line, p.col);
                self.cx.warn(l, c, "no statement follows this OpenMP directive");
                continue;
            };
            if covered.iter().any(|&(s, ce)| p.line_start >= s && p.line_start < ce) {
                continue;
            }
            covered.push((p.line_start, e));
            regions.push(Region { pragma: i, id: regions.len() });
        }
        regions
    }

    /// Phase of `run`: one outermost `parallel` region: its kernels (appended to `kernels`, their
    /// ids to `offloaded`) and the host code around it that runs them or, when the region cannot
    /// be offloaded or they cannot run, the CPU version (`host_edits`); the region's outcome goes
    /// to `regions_out`, the reason it stays on the CPU to the diagnostics.
    fn parallel_region(
        &mut self,
        r: &Region,
        host_edits: &mut Vec<HEdit>,
        kernels: &mut String,
        regions_out: &mut Vec<(u32, bool, String)>,
        offloaded: &mut Vec<usize>,
    ) {
        let file = self.cx.file.clone();
        let p = self.cx.pragmas[r.pragma].clone();
        let (node, _s, e) = self.cx.assoc[&r.pragma];
        let target = match p.clause("target").and_then(|c| c.arg.clone()).as_deref() {
            Some("pthread") => 2,
            Some("opencl") => 1,
            Some(other) => {
                self.cx.warn(p.line, p.col, &format!("unknown target '{other}' ignored"));
                0
            }
            None => 0,
        };
        // strip target(...) for the C compiler
        if let Some(c) = p.clause("target") {
            if !self.pthreads {
                host_edits.push(HEdit {
                    start: c.start,
                    end: c.end,
                    text: " ".repeat(c.end - c.start),
                    order: 0,
                });
            }
        }
        self.pending_notes.clear();
        let res = if target == 2 {
            Err("its 'target(pthread)' clause asks for the CPU".into())
        } else {
            self.region_kernel(r, &p, node)
        };
        let notes = std::mem::take(&mut self.pending_notes);
        let rid = r.id;
        let line = p.line;
        let mut pre = String::new();
        let post = format!(" ompcl_cpu_end(&__ompcl_mod, {rid}, {line}, __ompcl_t0); }} }}");
        match res {
            Ok(steps) => {
                self.cx.diags.extend(notes);
                let cond = steps.iter().find_map(|st| match st {
                    Step::Kernel { k, .. } => k.ifcond.clone(),
                    Step::Host(_) => None,
                });
                let cond = cond.unwrap_or_else(|| "1".into());
                let _ = write!(pre, "{{ int __ompcl_ok = 0; double __ompcl_t0; if ({cond}) {{ ");
                emit_step_kernels(&steps, kernels, offloaded);
                if let [Step::Kernel { k, kid, line: kline }] = steps.as_slice() {
                    // one loop: its kernel, or the CPU version if it cannot run
                    pre.push_str(&kernel_call(k, *kid, *kline, target));
                } else {
                    // a sequence of kernels (and host code for single/master): all or nothing,
                    // decided before any of them runs
                    pre.push_str(&sequence_call(&steps, target, &file));
                }
                let _ = write!(
                    pre,
                    "}} if (!__ompcl_ok) {{ __ompcl_t0 = ompcl_now();\n#line {line} \"{file}\"\n"
                );
                regions_out.push((line, true, String::new()));
            }
            Err(reason) => {
                let reason = match self.manual_notes.get(&p.line) {
                    Some(note) => format!("{reason} ({note})"),
                    None => reason,
                };
                // every region kept on the CPU says why, once (a note when the program asked)
                let msg = format!(
                    "parallel region not offloaded to OpenCL: {reason}; it runs on the CPU (threads)"
                );
                if target == 2 {
                    self.cx.diags.push(format!("{}:{}:{}: note: {msg}", self.cx.file, p.line, p.col));
                } else {
                    self.cx.warn(p.line, p.col, &msg);
                }
                regions_out.push((line, false, reason));
                let _ = write!(
                    pre,
                    "{{ double __ompcl_t0; {{ __ompcl_t0 = ompcl_now();\n#line {line} \"{file}\"\n"
                );
            }
        }
        host_edits.push(HEdit { start: p.line_start, end: p.line_start, text: pre, order: -1000 });
        host_edits.push(HEdit { start: e, end: e, text: post, order: 1000 });
    }

    /// Phase of `run`: the host code registering the program's globals with the runtime (its
    /// allocation table: a kernel may use them), and edits aligning the big arrays of the file
    /// to pages.
    fn register_globals(&self, tu: &clang::Tu, file: &str, host_edits: &mut Vec<HEdit>) -> String {
        let mut regs = String::new();
        let mut aligned = HashSet::new();
        let mut reg_names = HashSet::new();
        for top in tu.root().children() {
            if top.kind() != CXCursor_VarDecl {
                continue;
            }
            let (s, _) = top.range();
            // the file's globals, and those a header of the program's own defines (SOLLVE's
            // `ompvv.h` defines the flag its `_Pragma` target region writes)
            let in_file = s.file == file;
            if (!in_file && top.in_system_header()) || top.storage_extern() {
                continue;
            }
            let name = top.spelling();
            if !reg_names.insert(name.clone()) {
                continue;
            }
            if self.cx.threadprivate.contains(&name) {
                continue;
            }
            let sz = top.ty().size_of();
            if sz <= 0 {
                continue;
            }
            let _ = writeln!(regs, "  ompcl_register_global((void*)&{name}, sizeof({name}));");
            if in_file && sz >= 16384 && aligned.insert(s.off) {
                host_edits.push(HEdit {
                    start: s.off,
                    end: s.off,
                    text: "__attribute__((aligned(4096))) ".into(),
                    order: 0,
                });
            }
        }
        regs
    }

    /// Phase of `run`: the OpenCL source: the extensions it needs, the preludes, the command
    /// line's macros, then, when a region was offloaded, the user's macros and types, the atomic
    /// helpers, the functions the kernels call and the kernels. Returns it (`long long` spelt
    /// `long`) and whether it uses `double`.
    fn kernel_source(
        &mut self,
        tu: &clang::Tu,
        opts: &Options,
        kernels: &str,
        offloaded: &[usize],
    ) -> Result<(String, bool), String> {
        let mut cl = String::new();
        let uses_fp64 = self.types.needs_fp64 || kernels.contains("double");
        if uses_fp64 {
            cl.push_str("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n");
        }
        if self.int64_atomics {
            cl.push_str("#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n");
        }
        cl.push_str(CL_PRELUDE);
        cl.push_str(constant::CONST_PRELUDE);
        cl.push_str(&command_line_macros(&opts.cl_defines));
        if !kernels.is_empty() {
            cl.push_str(&self.user_macros(tu, kernels));
            cl.push_str(&self.user_types());
            for a in self.atomics.values() {
                cl.push_str(a);
            }
            cl.push_str(&self.device_functions(offloaded)?);
            cl.push_str(kernels);
        }
        Ok((cl.replace("long long", "long"), uses_fp64))
    }

    /// Phase of `run` (`kernel_source`): the user's macros as `#define` lines (those of the
    /// file and of its own headers), so that the kernels' code reads as in the program; a
    /// variadic macro only when the kernels use it (OpenCL C 1.2 has none).
    fn user_macros(&mut self, tu: &clang::Tu, kernels: &str) -> String {
        let mut macros = String::new();
        let mut macro_nodes = Vec::new();
        {
            let root = tu.root();
            for c in root.children() {
                if c.kind() == CXCursor_MacroDefinition && !c.is_macro_builtin() && !c.in_system_header() {
                    let (s, e) = c.range();
                    if !s.file.is_empty() {
                        macro_nodes.push((s.file.clone(), s.off, e.off));
                    }
                }
            }
        }
        for (f, s, e) in macro_nodes {
            let ft = self.cx.file_text(&f);
            if e <= ft.len() && s < e {
                let body = ft[s..e].replace("\\\n", " \\\n");
                // OpenCL C 1.2 has no variadic macros (NVIDIA's compiler refuses the whole
                // program: every SOLLVE region fell back to the CPU there); the kernels need
                // one only if they use it, and then the build says so.
                if variadic_macro_name(&body).is_some_and(|name| !mentions(kernels, name)) {
                    continue;
                }
                let _ = writeln!(macros, "#define {body}");
            }
        }
        macros
    }

    /// Phase of `run` (`kernel_source`): the declarations of the user's types the kernels use
    /// (types.rs), in source order, each text once, pointer members as opaque 64-bit integers.
    fn user_types(&mut self) -> String {
        let file = self.cx.file.clone();
        let mut cl = String::new();
        let mut decls: Vec<(String, usize, usize)> =
            self.types.decls.iter().map(|((f, s), e)| (f.clone(), *s, *e)).collect();
        decls.sort_by(|a, b| (a.0 != file, &a.0, a.1).cmp(&(b.0 != file, &b.0, b.1)).reverse());
        decls.reverse();
        let mut last: Option<(String, usize)> = None;
        // the same text once: local types of several functions spelt alike (SOLLVE's
        // `enum { VAL1 = 1, ... }` in two functions) are one type at file scope
        let mut seen: HashSet<String> = HashSet::new();
        for (f, s, e) in decls {
            if let Some((lf, le)) = &last {
                if *lf == f && s < *le {
                    continue;
                }
            }
            let ft = self.cx.file_text(&f);
            if e <= ft.len() {
                // pointer members as opaque 64-bit integers (types.rs)
                let mut text = String::new();
                let mut at = s;
                for ((_, ms), (me, rep)) in self.types.member_edits.range((f.clone(), s)..(f.clone(), e)) {
                    if *ms >= at && *me <= e {
                        text.push_str(&ft[at..*ms]);
                        text.push_str(rep);
                        at = *me;
                    }
                }
                text.push_str(&ft[at..e]);
                let text = match self.types.anon_typedefs.get(&(f.clone(), s)) {
                    Some(td) => format!("typedef {text} {td}"),
                    None => text,
                };
                if seen.insert(text.split_whitespace().collect::<Vec<_>>().join(" ")) {
                    let _ = writeln!(cl, "{text};");
                }
            }
            last = Some((f, e));
        }
        cl
    }

    /// Phase of `run` (`kernel_source`): the functions reachable from the offloaded regions,
    /// prototypes then bodies, each guarded by the regions using it (OMPCL_ONLY=N builds one
    /// region alone when the whole file does not build).
    fn device_functions(&mut self, offloaded: &[usize]) -> Result<String, String> {
        // only functions reachable from offloaded regions, each guarded by the regions using
        // it (OMPCL_ONLY=N builds one region alone when the whole file does not build)
        let mut users: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for &rid in offloaded {
            for f in self.reachable(&format!("region:{rid}")) {
                users.entry(f).or_default().push(rid);
            }
        }
        let funcs: Vec<(String, Node)> =
            self.funcs.iter().filter(|(k, _)| users.contains_key(*k)).map(|(k, n)| (k.clone(), *n)).collect();
        let mut protos = String::new();
        let mut bodies = String::new();
        for (key, f) in funcs {
            let guard = users[&key].iter().map(|r| format!(" || OMPCL_ONLY == {r}")).collect::<String>();
            let variants: Vec<u32> =
                self.func_variants.iter().filter(|(k, _)| *k == key).map(|(_, m)| *m).collect();
            for mask in std::iter::once(0).chain(variants) {
                let (p, b) = self.render_function(f, mask)?;
                let _ = write!(protos, "#if !defined(OMPCL_ONLY){guard}\n{p}#endif\n");
                let _ = write!(bodies, "#if !defined(OMPCL_ONLY){guard}\n{b}#endif\n");
            }
        }
        Ok(protos + &bodies)
    }

    fn run(mut self, tu: &clang::Tu, opts: &Options) -> Result<Output, String> {
        let text = self.cx.text;
        let file = self.cx.file.clone();
        let mut host_edits: Vec<HEdit> = Vec::new();
        let mut kernels = String::new();
        let mut regions_out = Vec::new();
        let mut offloaded: Vec<usize> = Vec::new();

        let regions = self.parallel_regions();

        self.next_kid = regions.len();
        for r in &regions {
            self.parallel_region(r, &mut host_edits, &mut kernels, &mut regions_out, &mut offloaded);
        }

        // OpenMP 4.5 device constructs
        self.target_pass(tu, &mut host_edits, &mut kernels, &mut regions_out, &mut offloaded);

        // wrap allocation and I/O calls
        wrap_alloc_io_calls(tu, &file, text, &mut host_edits);

        // globals: register, align big arrays
        let regs = self.register_globals(tu, &file, &mut host_edits);

        // kernel source
        let (mut cl, uses_fp64) = self.kernel_source(tu, opts, &kernels, &offloaded)?;
        let (const_bytes, const_args) = self.settle_constants(&mut cl, &offloaded);

        // host prefix
        let mut host = String::new();
        host.push_str("#include \"ompcl_rt.h\"\n");
        let nk = self.next_kid;
        let _ = writeln!(
            host,
            "static const char __ompcl_src[] = {};",
            c_string(if kernels.is_empty() { "" } else { &cl })
        );
        // -D/-U reach the kernels as #define/#undef lines of the source (above), never as build
        // options: a value such as `-DFMT="%.9g "` is fine for the preprocessor but not for the
        // option parser of every OpenCL implementation
        let optstr = String::from("-cl-std=CL1.2");
        let _ = writeln!(
            host,
            "static ompcl_module __ompcl_mod = {{ {}, __ompcl_src, {}, {}, {}, 0, {const_bytes}, {const_args} }};",
            c_string(&file),
            c_string(&optstr),
            nk,
            if uses_fp64 { 1 } else { 0 }
        );
        let _ = writeln!(host, "#line 1 \"{file}\"");
        let mut edits = host_edits;
        if self.pthreads {
            match self.cpu_edits(tu) {
                Ok(cpu) => edits.extend(cpu),
                Err(d) => {
                    let mut diags = std::mem::take(&mut self.cx.diags);
                    diags.push(d);
                    return Ok(Output::failed(diags));
                }
            }
        }
        host.push_str(&render_host(text, &mut edits));
        self.settle_constant_flags(&mut host);
        let _ = writeln!(
            host,
            "\n__attribute__((constructor)) static void __ompcl_register_globals(void) {{\n{regs}}}"
        );
        let diags = std::mem::take(&mut self.cx.diags);
        Ok(Output {
            host_c: host,
            kernels: if kernels.is_empty() { String::new() } else { cl },
            diags,
            errors: false,
            regions: regions_out,
            needs_cc: None,
            latin1: false,
        })
    }
}

/// The C library's allocation and I/O functions whose host calls become the runtime's wrappers.
const HOST_WRAPPED: [&str; 14] = [
    "malloc",
    "calloc",
    "realloc",
    "free",
    "valloc",
    "aligned_alloc",
    "memalign",
    "posix_memalign",
    "fread",
    "read",
    "pread",
    "fwrite",
    "write",
    "pwrite",
];

/// Phase of `Translator::run`: the host's calls of the C library's allocation and I/O functions
/// (`malloc`, `free`, `fread`, `write`...) become calls of the runtime's wrappers
/// (`ompcl_malloc`...), which keep the allocation table and the device copies in step.
fn wrap_alloc_io_calls(tu: &clang::Tu, file: &str, text: &str, host_edits: &mut Vec<HEdit>) {
    let mut seen = HashSet::new();
    tu.root().walk(&mut |c| {
        if c.kind() != CXCursor_DeclRefExpr {
            return;
        }
        let Some(r) = c.referenced() else { return };
        if r.kind() != CXCursor_FunctionDecl || !r.in_system_header() {
            return;
        }
        let name = r.spelling();
        if !HOST_WRAPPED.contains(&name.as_str()) {
            return;
        }
        let p = c.loc_spelling();
        if p.file != file || !text[p.off..].starts_with(&name) || !seen.insert(p.off) {
            return;
        }
        host_edits.push(HEdit {
            start: p.off,
            end: p.off + name.len(),
            text: format!("ompcl_{name}"),
            order: 0,
        });
    });
}

fn pp_range(p: &Pragma) -> (usize, usize) {
    (p.line_start, p.end)
}

pub fn c_string(s: &str) -> String {
    let mut o = String::from("\"");
    for ch in s.chars() {
        match ch {
            '\\' => o.push_str("\\\\"),
            '"' => o.push_str("\\\""),
            '\n' => o.push_str("\\n\"\n\""),
            '\t' => o.push_str("\\t"),
            '?' => o.push_str("\\?"),
            c if (c as u32) < 0x20 => {
                let _ = write!(o, "\\{:03o}", c as u32);
            }
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

/// The kernels' prelude: C99's fixed-width types and float functions in OpenCL C's names, and C's
/// `long long` limits as the host has them (OpenCL C's clang makes `long long` 128 bits wide, so
/// its `__LONG_LONG_MAX__`, which a program's LLONG_MAX may expand to, is 2^127 - 1: libgomp's
/// loop-12 indexed an array with it).
const CL_PRELUDE: &str = "typedef char int8_t;\ntypedef uchar uint8_t;\ntypedef short int16_t;\ntypedef ushort uint16_t;\ntypedef int int32_t;\ntypedef uint uint32_t;\ntypedef long int64_t;\ntypedef ulong uint64_t;\n\
#define sqrtf sqrt\n#define sinf sin\n#define cosf cos\n#define tanf tan\n#define expf exp\n#define logf log\n#define powf pow\n#define fabsf fabs\n#define floorf floor\n#define ceilf ceil\n#define fminf fmin\n#define fmaxf fmax\n#define fmodf fmod\n#define atanf atan\n#define atan2f atan2\n#define asinf asin\n#define acosf acos\n#define sinhf sinh\n#define coshf cosh\n#define tanhf tanh\n#define exp2f exp2\n#define log2f log2\n#define log10f log10\n#define cbrtf cbrt\n#define hypotf hypot\n#define roundf round\n#define truncf trunc\n#define copysignf copysign\n#define fmaf fma\n#define omp_is_initial_device() 0\n#define omp_get_device_num() 0\n\
#undef __LONG_LONG_MAX__\n#define __LONG_LONG_MAX__ 0x7fffffffffffffffL\n#undef __SIZEOF_LONG_LONG__\n#define __SIZEOF_LONG_LONG__ 8\n\
#ifndef LLONG_MAX\n#define LLONG_MAX 0x7fffffffffffffffL\n#define LLONG_MIN (-LLONG_MAX - 1L)\n#define ULLONG_MAX 0xffffffffffffffffUL\n#endif\n";

/// clang diagnostics that are errors by default where gcc 12 warns.
const GCC_WARNINGS_NOT_ERRORS: &[&str] = &[
    "implicit-function-declaration",
    "implicit-int",
    "int-conversion",
    "incompatible-pointer-types",
    "incompatible-function-pointer-types",
    "return-type",
    "return-mismatch",
    "deprecated-non-prototype",
    "unknown-warning-option",
];

const PARSE_OMP_H: &str = include_str!("../runtime/omp.h");

/// The first call of an `omp_*` routine that ompcl's pthreads runtime lacks (omp.h declares those
/// it provides before its "not provided" part): (name, line).
fn unprovided_omp_call(text: &str) -> Option<(String, usize)> {
    let provided_part = crate::OMP_H.split("not provided by ompcl's runtime").next().unwrap_or("");
    let ident = |s: &str| -> String { s.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect() };
    let provided: HashSet<String> =
        provided_part.match_indices("omp_").map(|(i, _)| ident(&provided_part[i..])).collect();
    let b = text.as_bytes();
    for (i, _) in text.match_indices("omp_") {
        if i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_') {
            continue;
        }
        let name = ident(&text[i..]);
        if provided.contains(&name) || !text[i + name.len()..].trim_start().starts_with('(') {
            continue;
        }
        // not in a comment or a string: the line up to here has no `//`, `/*` or quote
        let ls = text[..i].rfind('\n').map_or(0, |p| p + 1);
        let before = &text[ls..i];
        if before.contains("//")
            || before.contains("/*")
            || before.contains('"')
            || before.trim_start().starts_with('*')
        {
            continue;
        }
        return Some((name, text[..i].matches('\n').count() + 1));
    }
    None
}

/// The name of a variadic function-like macro (`NAME(a, ...) body`, as libclang spans a macro
/// definition), None for any other.
fn variadic_macro_name(def: &str) -> Option<&str> {
    let end = def.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))?;
    let params = def[end..].strip_prefix('(')?;
    let close = params.find(')')?;
    params[..close].contains("...").then(|| &def[..end])
}

/// Whether `text` uses the identifier `name` (not as part of a longer one).
fn mentions(text: &str, name: &str) -> bool {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(name)
        .any(|(i, _)| !text[..i].ends_with(ident) && !text[i + name.len()..].starts_with(ident))
}

#[cfg(test)]
mod macro_tests {
    use super::*;

    #[test]
    fn variadic_macros_are_recognised() {
        assert_eq!(
            variadic_macro_name("OMPVV_ERROR(message, ...) { printf(message, __VA_ARGS__); }"),
            Some("OMPVV_ERROR")
        );
        assert_eq!(variadic_macro_name("LOG(...) f(__VA_ARGS__)"), Some("LOG"));
        assert_eq!(variadic_macro_name("MAX(a, b) ((a) > (b) ? (a) : (b))"), None);
        assert_eq!(variadic_macro_name("N 1024"), None);
        assert_eq!(variadic_macro_name("SPACED (x, ...) x"), None, "object-like: the ( is its body");
        assert!(
            mentions("a = LOG(1);", "LOG") && !mentions("a = LOGX(1);", "LOG") && !mentions("XLOG(1)", "LOG")
        );
    }
}
