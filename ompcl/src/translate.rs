#![allow(non_upper_case_globals)]
//! The translator: OpenMP C (read through libclang) -> host C (runtime calls + the original
//! OpenMP region kept as the CPU version) + one OpenCL C program with a kernel per offloadable loop.

use crate::clang::{self, Node, Type};
use crate::pragma::{self, Pragma};
use clang_sys::*;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fmt::Write;

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
            let t = std::fs::read_to_string(f).unwrap_or_default();
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

fn key_of(d: &Node) -> String {
    let p = d.loc();
    format!("{}:{}:{}", p.file, p.off, d.spelling())
}

// ---------------------------------------------------------------------------------------------
// OpenCL type spelling

#[derive(Default)]
struct Types {
    /// declarations to copy into the kernel source: (file, start, end)
    decls: BTreeMap<(String, usize), usize>,
    /// anonymous record (decl key) -> typedef name
    anon: HashMap<String, String>,
    needs_fp64: bool,
}

fn builtin_cl(k: CXTypeKind) -> Option<&'static str> {
    Some(match k {
        CXType_Bool => "bool",
        CXType_Char_S | CXType_SChar => "char",
        CXType_Char_U | CXType_UChar => "uchar",
        CXType_Short => "short",
        CXType_UShort => "ushort",
        CXType_Int => "int",
        CXType_UInt => "uint",
        CXType_Long | CXType_LongLong => "long",
        CXType_ULong | CXType_ULongLong => "ulong",
        CXType_Float => "float",
        CXType_Double => "double",
        CXType_Void => "void",
        _ => return None,
    })
}

impl Types {
    /// Note a type used by kernel code; Err(reason) when OpenCL cannot express it.
    fn note(&mut self, t: Type, depth: u32) -> Result<(), String> {
        if depth > 16 {
            return Ok(());
        }
        match t.kind() {
            CXType_Pointer => return self.note(t.pointee(), depth + 1),
            CXType_ConstantArray | CXType_IncompleteArray | CXType_VariableArray => {
                return self.note(t.elem(), depth + 1)
            }
            CXType_Elaborated => return self.note(t.named(), depth + 1),
            CXType_Typedef => {
                let d = t.declaration();
                if !d.in_system_header() {
                    let (s, e) = d.range();
                    self.decls.insert((s.file.clone(), s.off), e.off);
                    let u = d.typedef_underlying();
                    if u.canonical().kind() == CXType_Record || u.canonical().kind() == CXType_Enum {
                        let rd = u.canonical().declaration();
                        self.anon.insert(key_of(&rd), d.spelling());
                    }
                    return self.note(u, depth + 1);
                }
                return self.note(t.canonical(), depth + 1);
            }
            _ => {}
        }
        let c = t.canonical();
        match c.kind() {
            CXType_Record => {
                let d = c.declaration();
                if d.in_system_header() {
                    return Err(format!("type '{}' from a system header", t.spelling()));
                }
                let d = d.definition().unwrap_or(d);
                let (s, e) = d.range();
                if let std::collections::btree_map::Entry::Vacant(slot) =
                    self.decls.entry((s.file.clone(), s.off))
                {
                    slot.insert(e.off);
                    for f in c.fields() {
                        if f.canonical().kind() == CXType_Pointer {
                            return Err(format!("'{}' has a pointer member", t.spelling()));
                        }
                        self.note(f, depth + 1)?;
                    }
                }
                Ok(())
            }
            CXType_Enum => {
                let d = c.declaration();
                if !d.in_system_header() {
                    let (s, e) = d.range();
                    self.decls.insert((s.file.clone(), s.off), e.off);
                }
                Ok(())
            }
            CXType_LongDouble => Err("long double".into()),
            CXType_Double => {
                self.needs_fp64 = true;
                Ok(())
            }
            CXType_FunctionProto | CXType_FunctionNoProto => Err("function pointer".into()),
            k if builtin_cl(k).is_some() => Ok(()),
            k => Err(format!("type '{}' (kind {k})", t.spelling())),
        }
    }

    fn base(&self, t: Type) -> Result<String, String> {
        let c = t.canonical();
        let konst = if c.is_const() { "const " } else { "" };
        if let Some(b) = builtin_cl(c.kind()) {
            return Ok(format!("{konst}{b}"));
        }
        match c.kind() {
            CXType_Enum => Ok(format!("{konst}int")),
            CXType_Record => {
                let d = c.declaration();
                let name = d.spelling();
                if let Some(td) = self.anon.get(&key_of(&d)) {
                    return Ok(format!("{konst}{td}"));
                }
                if name.is_empty() || name.contains('(') {
                    return Err(format!("anonymous type '{}'", t.spelling()));
                }
                let tag = if d.kind() == CXCursor_UnionDecl { "union" } else { "struct" };
                Ok(format!("{konst}{tag} {name}"))
            }
            k => Err(format!("type '{}' (kind {k})", t.spelling())),
        }
    }

    /// A declarator: `inner` named with type `t`; pointers get `__global`.
    fn declr(&self, t: Type, inner: &str) -> Result<String, String> {
        let c = t.canonical();
        match c.kind() {
            CXType_Pointer => {
                let p = if t.kind() == CXType_Pointer { t.pointee() } else { c.pointee() };
                let p = if p.kind() == CXType_Invalid { c.pointee() } else { p };
                let pc = p.canonical();
                if pc.kind() == CXType_Pointer {
                    return Err("pointer to pointer".into());
                }
                let inner2 = if matches!(pc.kind(), CXType_ConstantArray | CXType_IncompleteArray) {
                    format!("(*{inner})")
                } else {
                    format!("*{inner}")
                };
                let d = self.declr(p, &inner2)?;
                Ok(format!("__global {d}"))
            }
            CXType_ConstantArray => self.declr(c.elem(), &format!("{inner}[{}]", c.array_size())),
            CXType_IncompleteArray => self.declr(c.elem(), &format!("{inner}[]")),
            _ => Ok(format!("{} {inner}", self.base(t)?).trim_end().to_string()),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Text edits

#[derive(Clone)]
struct Edit {
    start: usize,
    end: usize,
    text: String,
}

/// Host-side edit with an order among edits at the same place (smaller first).
#[derive(Clone)]
struct HEdit {
    start: usize,
    end: usize,
    text: String,
    order: i32,
}

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
    es.sort_by(|a, b| a.start.cmp(&b.start).then(b.end.cmp(&a.end)));
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

#[derive(Clone, Copy, PartialEq, Debug)]
enum VK {
    LoopVar,
    Private,
    FirstPrivate,
    LastPrivate,
    Reduction,
    ByValue,
    Buf,
    TmpArr,
    Inout,
}

struct Var {
    name: String,
    decl: Node,
    ty: Type,
    global: bool,
    kind: VK,
    assigned: bool,
    written_through: bool,
    red_op: String,
}

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

struct LoopInfo {
    loopvar: Node,
    init: Node,
    body: Node,
    lb: String,
    ub: String,
    step: String,
    cmp: i32,
    in_init: bool,
}

struct Region {
    pragma: usize,
    id: usize,
}

struct KernelOut {
    code: String,
    host_args: Vec<String>,
    loopvar_after: Option<String>,
    lb: String,
    ub: String,
    step: String,
    cmp: i32,
    ifcond: Option<String>,
    /// collapse(n): the inner loops merged into the index space (lb, ub, step, comparison)
    inner: Vec<(String, String, String, i32)>,
    /// `inner[0]` is spread over work-items only when `ompcl_no_alias` allows (no collapse clause)
    auto_flat: bool,
}

/// What an offloaded region does, in order.
enum Step {
    /// a worksharing loop: kernel `kid` (the `for` is at `line`)
    Kernel { k: KernelOut, kid: usize, line: u32 },
    /// a `single`/`master` body that the host runs between kernels
    Host(HostStep),
}

struct HostStep {
    line: u32,
    text: String,
}

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
    /// next kernel id for regions made of several kernels (ids below it: one per region)
    next_kid: usize,
    /// global variables a kernel function uses (itself or through its callees): they become extra
    /// parameters, passed at every call (OpenCL 1.2 has no program-scope __global variables).
    /// function key -> (declaration, written)
    func_globals: HashMap<String, Vec<(Node, bool)>>,
}

pub fn translate(file: &str, opts: &Options) -> Result<Output, String> {
    clang::load()?;
    let abs = std::fs::canonicalize(file).map_err(|e| format!("{file}: {e}"))?;
    let file = abs.to_string_lossy().into_owned();
    let text = std::fs::read_to_string(&file).map_err(|e| format!("{file}: {e}"))?;
    let mut diags = Vec::new();
    let mut args = opts.clang_args.clone();
    args.push("-D_OPENMP=200203".into());
    // libclang reads an omp.h of ompcl's own (GCC's uses attributes clang rejects)
    let inc = std::env::temp_dir().join(format!("ompcl-parse-include-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&inc);
    let _ = std::fs::write(inc.join("omp.h"), PARSE_OMP_H);
    args.push("-isystem".into());
    args.push(inc.to_string_lossy().into_owned());
    let tu = clang::Tu::parse(&file, &args);
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
        return Ok(Output {
            host_c: String::new(),
            kernels: String::new(),
            diags,
            errors: true,
            regions: vec![],
            needs_cc: None,
        });
    }
    // pragmas: only those the preprocessor keeps (not inside `#ifdef UNDEFINED` ...)
    let mut visible = text.clone().into_bytes();
    for (s, e) in tu.skipped_ranges(&file) {
        for b in visible.iter_mut().take(e.min(text.len())).skip(s) {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    }
    let visible = String::from_utf8_lossy(&visible).into_owned();
    let pragmas = match pragma::scan(&visible) {
        Ok(p) => p,
        Err((off, msg)) => {
            let line = visible[..off].matches('\n').count() + 1;
            diags.push(format!("{file}:{line}:1: error: {msg}"));
            return Ok(Output {
                host_c: String::new(),
                kernels: String::new(),
                diags,
                errors: true,
                regions: vec![],
                needs_cc: None,
            });
        }
    };
    let threadprivate: HashSet<String> = pragmas
        .iter()
        .filter(|p| p.is(&["threadprivate"]))
        .flat_map(|p| p.dir_arg.as_deref().map(pragma::split_list).unwrap_or_default())
        .collect();
    if opts.pthreads {
        let unknown = pragmas.iter().find(|p| p.unknown.is_some() || p.clause("copyprivate").is_some());
        if let Some(p) = unknown {
            let what = p.unknown.clone().unwrap_or_else(|| "copyprivate".into());
            let msg = format!(
                "{file}:{}:{}: warning: '{what}' is not OpenMP 2.0 (or not supported by ompcl's CPU runtime): the CPU versions of this program use the C compiler's OpenMP (-fopenmp)",
                p.line, p.col
            );
            return Ok(Output {
                host_c: String::new(),
                kernels: String::new(),
                diags: vec![msg],
                errors: false,
                regions: vec![],
                needs_cc: Some(what),
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
        next_kid: 0,
        func_globals: HashMap::new(),
    };
    t.associate(&tu);
    let nesting = {
        let assoc = &t.cx.assoc;
        crate::nesting::check(&file, &t.cx.pragmas, &|i| assoc.get(&i).map(|&(_, s, e)| (s, e)))
    };
    if !nesting.is_empty() {
        let mut diags = std::mem::take(&mut t.cx.diags);
        diags.extend(nesting);
        return Ok(Output {
            host_c: String::new(),
            kernels: String::new(),
            diags,
            errors: true,
            regions: vec![],
            needs_cc: None,
        });
    }
    t.run(&tu, opts)
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

    fn run(mut self, tu: &clang::Tu, opts: &Options) -> Result<Output, String> {
        let text = self.cx.text;
        let file = self.cx.file.clone();
        let mut host_edits: Vec<HEdit> = Vec::new();
        let mut kernels = String::new();
        let mut regions_out = Vec::new();
        let mut offloaded: Vec<usize> = Vec::new();

        // outermost parallel regions
        let mut regions: Vec<Region> = Vec::new();
        let mut covered: Vec<(usize, usize)> = Vec::new();
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

        self.next_kid = regions.len();
        for r in &regions {
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
            let res = if target == 2 { Err(String::new()) } else { self.region_kernel(r, &p, node) };
            let rid = r.id;
            let line = p.line;
            let mut pre = String::new();
            let post = format!(" ompcl_cpu_end(&__ompcl_mod, {rid}, {line}, __ompcl_t0); }} }}");
            match res {
                Ok(steps) => {
                    let cond = steps.iter().find_map(|st| match st {
                        Step::Kernel { k, .. } => k.ifcond.clone(),
                        Step::Host(_) => None,
                    });
                    let cond = cond.unwrap_or_else(|| "1".into());
                    let _ = write!(pre, "{{ int __ompcl_ok = 0; double __ompcl_t0; if ({cond}) {{ ");
                    for st in &steps {
                        if let Step::Kernel { k, kid, .. } = st {
                            let _ = write!(
                                kernels,
                                "\n#if !defined(OMPCL_ONLY) || OMPCL_ONLY == {kid}{}#endif\n",
                                k.code
                            );
                            offloaded.push(*kid);
                        }
                    }
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
                    if !reason.is_empty() {
                        let msg = format!(
                            "parallel region not offloaded to OpenCL: {reason}; it runs on the CPU (threads)"
                        );
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

        // wrap allocation and I/O calls
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
            if !matches!(
                name.as_str(),
                "malloc"
                    | "calloc"
                    | "realloc"
                    | "free"
                    | "valloc"
                    | "aligned_alloc"
                    | "memalign"
                    | "posix_memalign"
                    | "fread"
                    | "read"
                    | "pread"
            ) {
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

        // globals: register, align big arrays
        let mut regs = String::new();
        let mut aligned = HashSet::new();
        let mut reg_names = HashSet::new();
        for top in tu.root().children() {
            if top.kind() != CXCursor_VarDecl {
                continue;
            }
            let (s, _) = top.range();
            if s.file != file || top.storage_extern() {
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
            if sz >= 16384 && aligned.insert(s.off) {
                host_edits.push(HEdit {
                    start: s.off,
                    end: s.off,
                    text: "__attribute__((aligned(4096))) ".into(),
                    order: 0,
                });
            }
        }

        // kernel source
        let mut cl = String::new();
        let uses_fp64 = self.types.needs_fp64 || kernels.contains("double");
        if uses_fp64 {
            cl.push_str("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n");
        }
        if self.int64_atomics {
            cl.push_str("#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n");
        }
        cl.push_str(CL_PRELUDE);
        cl.push_str(&command_line_macros(&opts.cl_defines));
        if !kernels.is_empty() {
            // user macros
            let mut macros = String::new();
            let mut macro_nodes = Vec::new();
            {
                let root = tu.root();
                for c in root.children() {
                    if c.kind() == CXCursor_MacroDefinition && !c.is_macro_builtin() && !c.in_system_header()
                    {
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
                    let _ = writeln!(macros, "#define {body}");
                }
            }
            cl.push_str(&macros);
            // user types
            let mut decls: Vec<(String, usize, usize)> =
                self.types.decls.iter().map(|((f, s), e)| (f.clone(), *s, *e)).collect();
            decls.sort_by(|a, b| (a.0 != file, &a.0, a.1).cmp(&(b.0 != file, &b.0, b.1)).reverse());
            decls.reverse();
            let mut last: Option<(String, usize)> = None;
            for (f, s, e) in decls {
                if let Some((lf, le)) = &last {
                    if *lf == f && s < *le {
                        continue;
                    }
                }
                let ft = self.cx.file_text(&f);
                if e <= ft.len() {
                    let _ = writeln!(cl, "{};", &ft[s..e]);
                }
                last = Some((f, e));
            }
            for a in self.atomics.values() {
                cl.push_str(a);
            }
            // functions: prototypes, then bodies
            // only functions reachable from offloaded regions, each guarded by the regions using
            // it (OMPCL_ONLY=N builds one region alone when the whole file does not build)
            let mut users: BTreeMap<String, Vec<usize>> = BTreeMap::new();
            for &rid in &offloaded {
                for f in self.reachable(&format!("region:{rid}")) {
                    users.entry(f).or_default().push(rid);
                }
            }
            let funcs: Vec<(String, Node)> = self
                .funcs
                .iter()
                .filter(|(k, _)| users.contains_key(*k))
                .map(|(k, n)| (k.clone(), *n))
                .collect();
            let mut protos = String::new();
            let mut bodies = String::new();
            for (key, f) in funcs {
                let guard = users[&key].iter().map(|r| format!(" || OMPCL_ONLY == {r}")).collect::<String>();
                let (p, b) = self.render_function(f)?;
                let _ = write!(protos, "#if !defined(OMPCL_ONLY){guard}\n{p}#endif\n");
                let _ = write!(bodies, "#if !defined(OMPCL_ONLY){guard}\n{b}#endif\n");
            }
            cl.push_str(&protos);
            cl.push_str(&bodies);
            cl.push_str(&kernels);
        }
        let cl = cl.replace("long long", "long");

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
            "static ompcl_module __ompcl_mod = {{ {}, __ompcl_src, {}, {}, {}, 0 }};",
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
                    return Ok(Output {
                        host_c: String::new(),
                        kernels: String::new(),
                        diags,
                        errors: true,
                        regions: vec![],
                        needs_cc: None,
                    });
                }
            }
        }
        host.push_str(&render_host(text, &mut edits));
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
        })
    }

    /// What an offloadable region does (one kernel, or a sequence of kernels and host steps), or the
    /// reason it stays on the CPU.
    fn region_kernel(&mut self, r: &Region, p: &Pragma, node: Node) -> Result<Vec<Step>, String> {
        if let Some(u) = &p.unknown {
            return Err(format!("'{u}' is not translated to OpenCL"));
        }
        let clauses: Vec<Pragma> = vec![p.clone()];
        if p.is(&["parallel", "for"]) {
            let k = self.loop_kernel(r.id, p.line, clauses, node)?;
            return Ok(vec![Step::Kernel { k, kid: r.id, line: p.line }]);
        }
        if !p.is(&["parallel"]) {
            return Err(format!("'{}' is not translated to OpenCL", p.name()));
        }
        let n = strip(node);
        let kids = if n.kind() == CXCursor_CompoundStmt { n.children() } else { vec![n] };
        let (_, s, e) = self.cx.assoc[&r.pragma];
        let inner = self.pragmas_in(s, e);
        if kids.len() == 1 && kids[0].kind() == CXCursor_ForStmt {
            let first = inner.first().map(|&i| self.cx.pragmas[i].clone());
            match first {
                Some(fp)
                    if fp.is(&["for"])
                        && self.cx.assoc.get(&inner[0]).map(|a| a.0.equals(&kids[0])).unwrap_or(false) =>
                {
                    let k = self.loop_kernel(r.id, fp.line, vec![p.clone(), fp], kids[0])?;
                    Ok(vec![Step::Kernel { k, kid: r.id, line: p.line }])
                }
                _ => Err("the region is not a worksharing loop ('parallel' without 'for')".into()),
            }
        } else {
            self.sequence(p, &kids, &inner)
        }
    }

    /// The kernel of one worksharing loop `lp` (kernel id `kid`), with the clauses of its
    /// directives (the `parallel`'s and the `for`'s), or the reason it cannot be one.
    fn loop_kernel(
        &mut self,
        kid: usize,
        line: u32,
        clauses: Vec<Pragma>,
        lp: Node,
    ) -> Result<KernelOut, String> {
        if lp.kind() != CXCursor_ForStmt {
            return Err("'parallel for' not followed by a for loop".into());
        }
        for c in &clauses {
            if c.clause("ordered").is_some() {
                return Err("'ordered' loops are not translated to OpenCL".into());
            }
            if c.clause("copyin").is_some() {
                return Err("'copyin' (threadprivate data) is not translated to OpenCL".into());
            }
        }
        let cl_list = |n: &str| -> Vec<String> { clauses.iter().flat_map(|c| c.list(n)).collect() };
        let private = cl_list("private");
        let firstprivate = cl_list("firstprivate");
        let lastprivate = cl_list("lastprivate");
        let reductions: Vec<(String, String)> = clauses.iter().flat_map(|c| c.reductions()).collect();
        let ifcond = clauses.iter().find_map(|c| c.clause("if").and_then(|x| x.arg.clone()));

        let LoopInfo { loopvar, init, body, lb, ub, step, cmp, .. } = self.parse_loop(lp)?;
        // collapse(n): the n nested loops become one flattened index space when they are
        // rectangular (bounds computable on the host before the loop); else only the outer loop
        // is spread over work-items and the inner loop variables are private, as OpenMP makes them
        let ncollapse: usize = clauses
            .iter()
            .find_map(|c| c.clause("collapse").and_then(|x| x.arg.clone()))
            .map(|a| a.trim().parse::<usize>().map_err(|_| format!("collapse({a}): not a constant")))
            .transpose()?
            .unwrap_or(1);
        let mut collapsed: Vec<LoopInfo> = Vec::new(); // inner loops merged into the index space
        let mut inner_private: Vec<Node> = Vec::new(); // their loop variables
        let mut body = body;
        {
            let mut cur = body;
            let mut outer_vars = vec![loopvar];
            for _ in 1..ncollapse {
                let st = strip(cur);
                let kids = if st.kind() == CXCursor_CompoundStmt { st.children() } else { vec![st] };
                if kids.len() != 1 || kids[0].kind() != CXCursor_ForStmt {
                    return Err("collapse: the loops are not perfectly nested".into());
                }
                let li = self.parse_loop(kids[0])?;
                inner_private.push(li.loopvar);
                // the bounds may use nothing declared inside the collapsed nest (the host computes them)
                let (ls, le) = lp.range();
                let rectangular = kids[0].children()[..3]
                    .iter()
                    .flat_map(|c| decl_refs(*c))
                    .filter_map(|d| d.referenced())
                    .filter(|d| !d.equals(&li.loopvar))
                    .all(|d| {
                        let at = d.loc();
                        let in_nest = at.file == ls.file && at.off >= ls.off && at.off < le.off;
                        !(outer_vars.iter().any(|o| o.equals(&d)) || in_nest)
                    });
                outer_vars.push(li.loopvar);
                cur = li.body;
                if rectangular && collapsed.len() + 1 == outer_vars.len() - 1 {
                    body = li.body;
                    collapsed.push(li);
                }
            }
        }
        // no collapse: when the loop's whole body is a rectangular loop whose iterations are
        // independent, work-items take (i, j) pairs (or whole rows if pointers alias at run time)
        let mut auto_flat = false;
        if ncollapse == 1 && reductions.is_empty() && lastprivate.is_empty() {
            let st = strip(body);
            let kids = if st.kind() == CXCursor_CompoundStmt { st.children() } else { vec![st] };
            let (ls, le) = lp.range();
            let no_directives = self.pragmas_in(ls.off, le.off).is_empty();
            if kids.len() == 1 && kids[0].kind() == CXCursor_ForStmt && no_directives {
                if let Ok(li) = self.parse_loop(kids[0]) {
                    let rectangular = kids[0].children()[..3]
                        .iter()
                        .flat_map(|c| decl_refs(*c))
                        .filter_map(|d| d.referenced())
                        .filter(|d| !d.equals(&li.loopvar))
                        .all(|d| {
                            let at = d.loc();
                            !(d.equals(&loopvar)
                                || (at.file == ls.file && at.off >= ls.off && at.off < le.off))
                        });
                    let (js, je) = li.body.range();
                    let local = |d: &Node| {
                        let p = d.loc();
                        p.file == js.file && p.off >= js.off && p.off < je.off
                    };
                    if rectangular && races::inner_loop_independent(li.body, &loopvar, &li.loopvar, &local) {
                        auto_flat = true;
                        inner_private.push(li.loopvar);
                        body = li.body;
                        collapsed.push(li);
                    }
                }
            }
        }
        if !collapsed.is_empty() && clauses.iter().any(|c| !c.list("lastprivate").is_empty()) {
            return Err("'lastprivate' with 'collapse' is not translated to OpenCL".into());
        }
        let lvname = loopvar.spelling();
        let lvty = loopvar.ty();
        if !lvty.is_arith()
            || matches!(lvty.canonical().kind(), CXType_Float | CXType_Double | CXType_LongDouble)
        {
            return Err("loop variable is not an integer".into());
        }

        // ---- analyse the body
        let (bs, be) = body.range();
        if bs.file != self.cx.file {
            return Err("loop body comes from a macro or another file".into());
        }
        let (bs, be) = (bs.off, self.cx.stmt_end(be.off));
        {
            let mut par_vars = vec![loopvar];
            par_vars.extend(collapsed.iter().map(|li| li.loopvar));
            let skip: Vec<(usize, usize)> = self
                .pragmas_in(bs, be)
                .into_iter()
                .filter(|&i| matches!(self.cx.pragmas[i].directive[0].as_str(), "atomic" | "critical"))
                .filter_map(|i| self.cx.assoc.get(&i).map(|a| (a.1, a.2)))
                .collect();
            let file = self.cx.file.clone();
            // the loop's locals and its private copies (private, firstprivate, lastprivate)
            let privs: HashSet<String> =
                private.iter().chain(&firstprivate).chain(&lastprivate).cloned().collect();
            let local = |d: &Node| {
                let p = d.loc();
                (p.file == file && p.off >= bs && p.off < be) || privs.contains(&d.spelling())
            };
            if let Some(a) = races::racy_write(body, &par_vars, &skip, &local) {
                return Err(format!(
                    "every iteration writes '{a}[...]' at an index that does not depend on the loop variable (a data race in the program: its result depends on the schedule)"
                ));
            }
        }
        let mut edits: Vec<Edit> = Vec::new();
        let mut vars: BTreeMap<String, Var> = BTreeMap::new();
        let mut local_ptr_writes = false;
        self.caller = format!("region:{kid}");
        self.analyse_code(body, bs, be, &mut vars, &mut edits, &mut local_ptr_writes, true)?;
        if let Some(f) = self.recursive_from(&self.caller.clone()) {
            return Err(format!("recursive function '{f}' (OpenCL has no recursion)"));
        }

        // classify outside variables
        for (_, v) in vars.iter_mut() {
            let n = v.name.as_str();
            if v.decl.equals(&loopvar) || collapsed.iter().any(|li| li.loopvar.equals(&v.decl)) {
                v.kind = VK::LoopVar;
            } else if inner_private.iter().any(|d| d.equals(&v.decl)) {
                v.kind = VK::Private;
            } else if reductions.iter().any(|(_, x)| x == n) {
                v.kind = VK::Reduction;
                v.red_op = reductions.iter().find(|(_, x)| x == n).unwrap().0.clone();
            } else if lastprivate.iter().any(|x| x == n) {
                v.kind = VK::LastPrivate;
            } else if private.iter().any(|x| x == n) {
                v.kind = VK::Private;
            } else if firstprivate.iter().any(|x| x == n) {
                v.kind = VK::FirstPrivate;
            } else if self.cx.threadprivate.contains(n) {
                return Err(format!("threadprivate variable '{n}' is not translated to OpenCL"));
            } else {
                let c = v.ty.canonical();
                v.kind = match c.kind() {
                    CXType_Pointer => {
                        if v.assigned {
                            return Err(format!("shared pointer '{n}' is assigned inside the loop"));
                        }
                        VK::Buf
                    }
                    CXType_ConstantArray | CXType_IncompleteArray | CXType_VariableArray => {
                        if c.kind() == CXType_VariableArray && c.elem().is_array() {
                            return Err(format!("multi-dimensional variable-length array '{n}'"));
                        }
                        // an array parameter is a pointer (`float C[N][M]` is `float (*C)[M]`):
                        // its block is found in the allocation table, never sized by `sizeof`
                        if v.global
                            || c.kind() == CXType_IncompleteArray
                            || v.decl.kind() == CXCursor_ParmDecl
                        {
                            VK::Buf
                        } else {
                            VK::TmpArr
                        }
                    }
                    CXType_Record => VK::Inout,
                    _ if v.assigned => VK::Inout,
                    _ => VK::ByValue,
                };
            }
            if CL_RESERVED.contains(&n) {
                return Err(format!("variable name '{n}' is reserved in OpenCL C"));
            }
            if local_ptr_writes && matches!(v.kind, VK::Buf | VK::TmpArr) {
                v.written_through = true;
            }
        }
        // the loop variable may also not be referenced in the body
        let lv_outside = init.kind() != CXCursor_DeclStmt;
        let loopvar_after =
            if lv_outside && lastprivate.contains(&lvname) { Some(lvname.clone()) } else { None };

        // rewrite references to variables living in buffers as (*x)
        let inout: HashSet<String> =
            vars.values().filter(|v| v.kind == VK::Inout).map(|v| key_of(&v.decl)).collect();
        if !inout.is_empty() {
            for d in decl_refs(body) {
                let Some(r) = d.referenced() else { continue };
                if inout.contains(&key_of(&r)) {
                    let ps = d.loc_spelling();
                    let name = r.spelling();
                    if ps.file != self.cx.file
                        || !self.cx.text[ps.off..].starts_with(&name)
                        || ps.off < bs
                        || ps.off >= be
                    {
                        return Err(format!("shared variable '{name}' used inside a macro"));
                    }
                    edits.push(Edit { start: ps.off, end: ps.off + name.len(), text: format!("(*{name})") });
                }
            }
        }
        // nested pragmas: atomic / critical / flush
        let buffers: HashSet<String> = vars
            .values()
            .filter(|v| matches!(v.kind, VK::Buf | VK::TmpArr | VK::Inout))
            .map(|v| key_of(&v.decl))
            .collect();
        for pi in self.pragmas_in(bs, be) {
            let pp = self.cx.pragmas[pi].clone();
            let d0 = pp.directive[0].as_str();
            match d0 {
                "flush" => edits.push(Edit { start: pp.line_start, end: pp.end, text: String::new() }),
                "atomic" | "critical" => {
                    let Some(&(st, _ss, se)) = self.cx.assoc.get(&pi) else {
                        return Err(format!("'{d0}' without a statement"));
                    };
                    let ed = self.atomic_edit(&pp, st, se, &edits, &buffers)?;
                    edits.push(ed);
                }
                _ => return Err(format!("'{}' inside the loop is not translated to OpenCL", pp.name())),
            }
        }

        // ---- kernel text
        let mut params = vec!["long __lb".to_string(), "long __st".to_string(), "long __n".to_string()];
        let mut host_args = Vec::new();
        for q in 1..=collapsed.len() {
            for x in ["lb", "st", "n"] {
                params.push(format!("long __{x}{q}"));
                host_args.push(format!("{{OMPCL_VAL, \"__{x}{q}\", (void*)&__ompcl_{x}{q}, 8, 0, 0, 0}}"));
            }
        }
        if auto_flat {
            params.push("int __flat".into());
            host_args.push("{OMPCL_VAL, \"__flat\", (void*)&__ompcl_flat, sizeof(int), 0, 0, 0}".into());
        }
        let mut setup = String::new();
        let mut privs = String::new();
        let mut reds_pre = String::new();
        let mut reds_post = String::new();
        let mut lp_post = String::new();
        for v in vars.values() {
            let n = &v.name;
            let w = v.written_through || v.assigned;
            self.types.note(v.ty, 0).map_err(|e| format!("variable '{n}': {e}"))?;
            match v.kind {
                VK::LoopVar => {}
                VK::Private => {
                    let _ = writeln!(privs, "    {};", self.types.declr(v.ty, n)?);
                }
                VK::LastPrivate => {
                    if v.ty.is_array() {
                        return Err(format!("lastprivate array '{n}' is not translated"));
                    }
                    if firstprivate.iter().any(|x| x == n) {
                        // firstprivate too: each work-item starts from the host value
                        params.push(self.types.declr(v.ty, &format!("{n}__fp"))?);
                        host_args.push(format!("{{OMPCL_VAL, \"{n}\", (void*)&{n}, sizeof({n}), 0, 0, 0}}"));
                        let _ = writeln!(privs, "    {} = {n}__fp;", self.types.declr(v.ty, n)?);
                    } else {
                        let _ = writeln!(privs, "    {};", self.types.declr(v.ty, n)?);
                    }
                    params.push(format!(
                        "__global {}",
                        self.types.declr(v.ty, &format!("*{n}__lp"))?.trim_start_matches("__global ")
                    ));
                    host_args.push(format!("{{OMPCL_LASTP, \"{n}\", (void*)&{n}, sizeof({n}), 0, 0, 0}}"));
                    let _ = writeln!(lp_post, "    if (__gid == __n - 1) *{n}__lp = {n};");
                }
                VK::FirstPrivate | VK::ByValue => {
                    if v.ty.is_array() {
                        return Err(format!("firstprivate array '{n}' is not translated"));
                    }
                    if v.ty.canonical().kind() == CXType_Bool {
                        return Err(format!("_Bool variable '{n}' cannot be a kernel argument"));
                    }
                    params.push(self.types.declr(v.ty, n)?);
                    host_args.push(format!("{{OMPCL_VAL, \"{n}\", (void*)&{n}, sizeof({n}), 0, 0, 0}}"));
                }
                VK::Reduction => {
                    let c = v.ty.canonical();
                    let (tcode, tname) = match c.kind() {
                        CXType_Int | CXType_Enum => (1, "int"),
                        CXType_UInt => (2, "uint"),
                        CXType_Long | CXType_LongLong => (3, "long"),
                        CXType_ULong | CXType_ULongLong => (4, "ulong"),
                        CXType_Float => (5, "float"),
                        CXType_Double => (6, "double"),
                        _ => return Err(format!("reduction variable '{n}' of type '{}'", v.ty.spelling())),
                    };
                    let (ocode, ident, comb) = match v.red_op.as_str() {
                        "+" => (1, "0", "+"),
                        "*" => (2, "1", "*"),
                        "-" => (3, "0", "+"),
                        "&" => (4, "~0", "&"),
                        "|" => (5, "0", "|"),
                        "^" => (6, "0", "^"),
                        "&&" => (7, "1", "&&"),
                        "||" => (8, "0", "||"),
                        o => return Err(format!("reduction operator '{o}'")),
                    };
                    if tcode >= 5 && matches!(ocode, 4..=6) {
                        return Err(format!("bitwise reduction on floating '{n}'"));
                    }
                    let ident = if tcode >= 5 && ident == "~0" { "0" } else { ident };
                    params.push(format!("__global {tname} *{n}__part"));
                    host_args.push(format!(
                        "{{OMPCL_RED, \"{n}\", (void*)&{n}, sizeof({n}), 0, {tcode}, {ocode}}}"
                    ));
                    // the work-group's scratch: static local memory (work-groups are at most 128)
                    let _ = writeln!(
                        reds_pre,
                        "  __local {tname} {n}__loc[128];\n  {tname} {n} = ({tname})({ident});"
                    );
                    let _ = write!(
                        reds_post,
                        "  {n}__loc[__l] = {n};\n  barrier(CLK_LOCAL_MEM_FENCE);\n  for (uint __s = (uint)get_local_size(0) >> 1; __s > 0; __s >>= 1) {{\n    if (__l < __s) {n}__loc[__l] = {n}__loc[__l] {comb} {n}__loc[__l + __s];\n    barrier(CLK_LOCAL_MEM_FENCE);\n  }}\n  if (__l == 0) {n}__part[get_group_id(0)] = {n}__loc[0];\n"
                    );
                }
                VK::Buf | VK::TmpArr | VK::Inout => {
                    // pointer to the element (arrays), the pointee (pointers) or the object itself
                    let c = v.ty.canonical();
                    let (decl, cast) = if c.kind() == CXType_Pointer {
                        (self.types.declr(v.ty, n)?, self.types.declr(v.ty, "")?)
                    } else if v.ty.is_array() {
                        let e = c.elem();
                        let inner_n = if e.is_array() { format!("(*{n})") } else { format!("*{n}") };
                        let inner_c = if e.is_array() { "(*)".to_string() } else { "*".to_string() };
                        (
                            format!("__global {}", self.types.declr(e, &inner_n)?),
                            format!("__global {}", self.types.declr(e, &inner_c)?),
                        )
                    } else {
                        (
                            format!("__global {}", self.types.declr(v.ty, &format!("*{n}"))?),
                            format!("__global {}", self.types.declr(v.ty, "*")?),
                        )
                    };
                    params.push(format!("__global char *{n}__b"));
                    params.push(format!("long {n}__o"));
                    let _ = writeln!(setup, "  {decl} = ({cast})({n}__b + {n}__o);");
                    let addr = if c.kind() == CXType_Pointer || v.ty.is_array() {
                        format!("(void*)({n})")
                    } else {
                        format!("(void*)&{n}")
                    };
                    let (kind, size) = if v.kind == VK::TmpArr || (v.kind == VK::Inout && !v.global) {
                        ("OMPCL_TMP", format!("sizeof({n})"))
                    } else {
                        ("OMPCL_BUF", "0".to_string())
                    };
                    host_args.push(format!(
                        "{{{kind}, \"{n}\", {addr}, {size}, {}, 0, 0}}",
                        if w { 1 } else { 0 }
                    ));
                }
            }
        }
        self.types.note(lvty, 0)?;
        let lvdecl = self.types.declr(lvty, &lvname)?;
        let body_text = render(self.cx.text, &edits, bs, be);
        let mut k = String::new();
        let _ = writeln!(
            k,
            "\n/* {}:{} */\n__kernel void ompcl_r{}({}) {{",
            self.cx.file,
            line,
            kid,
            params.join(", ")
        );
        k.push_str(&setup);
        k.push_str(&reds_pre);
        k.push_str("  long __gid = (long)get_global_id(0);\n");
        if !reds_post.is_empty() {
            k.push_str("  uint __l = (uint)get_local_id(0);\n");
        }
        let mut inner = Vec::new();
        let mut inner_loop = None;
        if auto_flat {
            let li = &collapsed[0];
            let ty = li.loopvar.ty();
            self.types.note(ty, 0)?;
            let d = self.types.declr(ty, &li.loopvar.spelling())?;
            let _ = writeln!(
                k,
                "  if (__gid < __n) {{\n    long __rem = __gid, __j0 = 0, __j1 = __n1;\n    if (__flat) {{ __j0 = __rem % __n1; __j1 = __j0 + 1; __rem /= __n1; }}\n    {lvdecl} = ({})(__lb + __rem * __st);",
                self.types.base(lvty)?
            );
            inner_loop = Some(format!(
                "    for (long __jj = __j0; __jj < __j1; __jj++) {{\n    {d} = ({})(__lb1 + __jj * __st1);\n",
                self.types.base(ty)?
            ));
            inner.push((li.lb.clone(), li.ub.clone(), li.step.clone(), li.cmp));
        } else if collapsed.is_empty() {
            let _ = writeln!(
                k,
                "  if (__gid < __n) {{\n    {lvdecl} = ({})(__lb + __gid * __st);",
                self.types.base(lvty)?
            );
        } else {
            // flattened index: gid = ((i0 * n1) + i1) * n2 + i2 ...
            k.push_str("  if (__gid < __n) {\n    long __rem = __gid;\n");
            let mut assigns = String::new();
            for (lvl, li) in collapsed.iter().enumerate().rev() {
                let q = lvl + 1;
                let ty = li.loopvar.ty();
                self.types.note(ty, 0)?;
                let d = self.types.declr(ty, &li.loopvar.spelling())?;
                let _ = writeln!(
                    assigns,
                    "    {d} = ({})(__lb{q} + (__rem % __n{q}) * __st{q});\n    __rem /= __n{q};",
                    self.types.base(ty)?
                );
                inner.push((li.lb.clone(), li.ub.clone(), li.step.clone(), li.cmp));
            }
            inner.reverse();
            k.push_str(&assigns);
            let _ = writeln!(k, "    {lvdecl} = ({})(__lb + __rem * __st);", self.types.base(lvty)?);
        }
        k.push_str(&privs);
        if let Some(h) = &inner_loop {
            k.push_str(h);
        }
        let _ = writeln!(k, "    do {{\n{body_text}\n    }} while (0);");
        if inner_loop.is_some() {
            k.push_str("    }\n");
        }
        k.push_str(&lp_post);
        k.push_str("  }\n");
        k.push_str(&reds_post);
        k.push_str("}\n");
        Ok(KernelOut { code: k, host_args, loopvar_after, lb, ub, step, cmp, ifcond, inner, auto_flat })
    }

    /// A loop in OpenMP's canonical form.
    fn parse_loop(&self, lp: Node) -> Result<LoopInfo, String> {
        if lp.kind() != CXCursor_ForStmt {
            return Err("a worksharing 'for' must be followed by a for loop".into());
        }
        let kids = lp.children();
        if kids.len() != 4 {
            return Err("loop is not in canonical form (init; test; increment)".into());
        }
        let (init, cond, inc, body) = (kids[0], strip(kids[1]), strip(kids[2]), kids[3]);
        let (loopvar, lb_node): (Node, Node) = if init.kind() == CXCursor_DeclStmt {
            let vd = init.children();
            if vd.len() != 1 || vd[0].kind() != CXCursor_VarDecl {
                return Err("loop is not in canonical form".into());
            }
            let ch = vd[0].children();
            let Some(ini) = ch.last() else { return Err("loop variable not initialised".into()) };
            (vd[0], *ini)
        } else {
            let i = strip(init);
            if i.kind() != CXCursor_BinaryOperator || i.binop() != CXBinaryOperator_Assign {
                return Err("loop is not in canonical form".into());
            }
            let ch = i.children();
            let lv = strip(ch[0]);
            if lv.kind() != CXCursor_DeclRefExpr {
                return Err("loop is not in canonical form".into());
            }
            (lv.referenced().ok_or("loop variable")?, ch[1])
        };
        let is_lv = |n: Node| -> bool {
            let n = strip(n);
            n.kind() == CXCursor_DeclRefExpr && n.referenced().map(|d| d.equals(&loopvar)).unwrap_or(false)
        };
        if cond.kind() != CXCursor_BinaryOperator {
            return Err("loop test is not a comparison".into());
        }
        let cc = cond.children();
        let mut cmp = cond.binop();
        let ub_node = if is_lv(cc[0]) {
            cc[1]
        } else if is_lv(cc[1]) {
            cmp = match cmp {
                CXBinaryOperator_LT => CXBinaryOperator_GT,
                CXBinaryOperator_GT => CXBinaryOperator_LT,
                CXBinaryOperator_LE => CXBinaryOperator_GE,
                CXBinaryOperator_GE => CXBinaryOperator_LE,
                x => x,
            };
            cc[0]
        } else {
            return Err("loop test does not compare the loop variable".into());
        };
        if !matches!(
            cmp,
            CXBinaryOperator_LT | CXBinaryOperator_LE | CXBinaryOperator_GT | CXBinaryOperator_GE
        ) {
            return Err("loop test is not <, <=, > or >=".into());
        }
        let txt = |n: Node| -> String {
            let (s, e) = n.range();
            self.cx.text[s.off..e.off].to_string()
        };
        let step = match inc.kind() {
            CXCursor_UnaryOperator if is_lv(inc.children()[0]) => match inc.unop() {
                CXUnaryOperator_PostInc | CXUnaryOperator_PreInc => "1".to_string(),
                CXUnaryOperator_PostDec | CXUnaryOperator_PreDec => "-1".to_string(),
                _ => return Err("loop increment is not canonical".into()),
            },
            CXCursor_CompoundAssignOperator if is_lv(inc.children()[0]) => match inc.binop() {
                CXBinaryOperator_AddAssign => format!("({})", txt(inc.children()[1])),
                CXBinaryOperator_SubAssign => format!("-({})", txt(inc.children()[1])),
                _ => return Err("loop increment is not canonical".into()),
            },
            CXCursor_BinaryOperator if inc.binop() == CXBinaryOperator_Assign && is_lv(inc.children()[0]) => {
                let rhs = strip(inc.children()[1]);
                let rc = rhs.children();
                if rhs.kind() == CXCursor_BinaryOperator
                    && rc.len() == 2
                    && is_lv(rc[0])
                    && rhs.binop() == CXBinaryOperator_Add
                {
                    format!("({})", txt(rc[1]))
                } else if rhs.kind() == CXCursor_BinaryOperator
                    && rc.len() == 2
                    && is_lv(rc[0])
                    && rhs.binop() == CXBinaryOperator_Sub
                {
                    format!("-({})", txt(rc[1]))
                } else if rhs.kind() == CXCursor_BinaryOperator
                    && rc.len() == 2
                    && is_lv(rc[1])
                    && rhs.binop() == CXBinaryOperator_Add
                {
                    format!("({})", txt(rc[0]))
                } else {
                    return Err("loop increment is not canonical".into());
                }
            }
            _ => return Err("loop increment is not canonical".into()),
        };
        let lb = txt(lb_node);
        let ub = txt(ub_node);
        Ok(LoopInfo { loopvar, init, body, lb, ub, step, cmp, in_init: init.kind() == CXCursor_DeclStmt })
    }

    /// Walk code that goes into the kernel: collect outside variables, functions called,
    /// and the edits (pointer declarations get __global, user functions are renamed).
    #[allow(clippy::too_many_arguments)]
    fn analyse_code(
        &mut self,
        root: Node,
        s: usize,
        e: usize,
        vars: &mut BTreeMap<String, Var>,
        edits: &mut Vec<Edit>,
        local_ptr_writes: &mut bool,
        is_region: bool,
    ) -> Result<(), String> {
        let mut nodes = vec![root];
        root.walk(&mut |c| nodes.push(c));
        // the file this code is in (a called function may come from a user header)
        let file = root.range().0.file;
        let ftext = self.cx.file_text(&file);
        let inside = |d: &Node| -> bool {
            let p = d.loc();
            p.file == file && p.off >= s && p.off < e
        };
        let mut written: Vec<(Node, bool)> = Vec::new(); // (lhs root, direct)
        for n in &nodes {
            let k = n.kind();
            // every type must be expressible
            let fnref = k == CXCursor_DeclRefExpr
                && n.referenced().map(|r| r.kind() == CXCursor_FunctionDecl).unwrap_or(false);
            if (n.is_expr() || k == CXCursor_VarDecl) && !fnref {
                let t = n.ty();
                let tc = t.canonical();
                let is_fn = matches!(tc.kind(), CXType_FunctionProto | CXType_FunctionNoProto)
                    || (tc.kind() == CXType_Pointer
                        && matches!(
                            tc.pointee().canonical().kind(),
                            CXType_FunctionProto | CXType_FunctionNoProto
                        )
                        && k != CXCursor_VarDecl);
                if t.kind() != CXType_Invalid && !is_fn {
                    self.types.note(t, 0).map_err(|x| format!("{x} used in the loop"))?;
                }
            }
            if k == CXCursor_FloatingLiteral && n.ty().canonical().kind() == CXType_Double {
                self.types.needs_fp64 = true;
            }
            match k {
                CXCursor_StringLiteral => return Err("string literal in the loop".into()),
                CXCursor_UnaryExpr => {
                    // sizeof of an array that is a pointer in the kernel: use the host's size
                    let ch = n.children();
                    if ch.len() == 1 {
                        let op = strip(ch[0]);
                        if op.kind() == CXCursor_DeclRefExpr {
                            if let Some(r) = op.referenced() {
                                if matches!(r.kind(), CXCursor_VarDecl | CXCursor_ParmDecl)
                                    && !inside(&r)
                                    && r.ty().is_array()
                                {
                                    let (ss, se) = n.range();
                                    let t = &ftext[ss.off..se.off];
                                    let sz = r.ty().size_of();
                                    if ss.file == file && t.starts_with("sizeof") && sz > 0 {
                                        edits.push(Edit {
                                            start: ss.off,
                                            end: se.off,
                                            text: format!("((ulong){sz})"),
                                        });
                                    } else {
                                        return Err(format!("sizeof/alignof of array '{}'", r.spelling()));
                                    }
                                }
                            }
                        }
                    }
                }
                CXCursor_ReturnStmt if is_region => return Err("return in the loop".into()),
                CXCursor_GotoStmt => return Err("goto in the loop".into()),
                CXCursor_VarDecl | CXCursor_ParmDecl => {
                    if k == CXCursor_VarDecl && n.storage_static() {
                        return Err(format!("static local variable '{}'", n.spelling()));
                    }
                    if n.ty().canonical().kind() == CXType_Pointer {
                        let ps = n.spelling_range().0;
                        if ps.file == file
                            && !edits.iter().any(|x| x.start == ps.off && x.text == "__global ")
                        {
                            edits.push(Edit { start: ps.off, end: ps.off, text: "__global ".into() });
                        }
                    }
                }
                CXCursor_CStyleCastExpr if n.ty().canonical().kind() == CXType_Pointer => {
                    // casts to pointers inside kernels point into buffers
                    let ps = n.spelling_range().0;
                    if ps.file == file && ftext[ps.off..].starts_with('(') {
                        edits.push(Edit { start: ps.off + 1, end: ps.off + 1, text: "__global ".into() });
                    }
                }
                CXCursor_BinaryOperator | CXCursor_CompoundAssignOperator => {
                    let op = n.binop();
                    if (CXBinaryOperator_Assign..=CXBinaryOperator_OrAssign).contains(&op) {
                        written.push((n.children()[0], true));
                    }
                }
                CXCursor_UnaryOperator => {
                    let op = n.unop();
                    if (CXUnaryOperator_PostInc..=CXUnaryOperator_PreDec).contains(&op) {
                        written.push((n.children()[0], true));
                    } else if op == CXUnaryOperator_AddrOf {
                        written.push((n.children()[0], false));
                    }
                }
                CXCursor_CallExpr => {
                    let Some(f) = n.referenced() else {
                        return Err("call through a function pointer".into());
                    };
                    let name = f.spelling();
                    let def = f.definition();
                    match def {
                        Some(d) if !d.in_system_header() && !d.loc().file.is_empty() => {
                            // pointer arguments may be written by the callee
                            for a in n.children().into_iter().skip(1) {
                                written.push((a, false));
                            }
                            let key = key_of(&d);
                            if let Some(why) = self.bad_funcs.get(&key) {
                                return Err(why.clone());
                            }
                            self.calls.entry(self.caller.clone()).or_default().insert(key.clone());
                            if !self.funcs.contains_key(&key) {
                                if d.is_variadic() {
                                    return Err(format!("call to variadic function '{name}'"));
                                }
                                if d.result_ty().canonical().kind() == CXType_Pointer {
                                    return Err(format!("function '{name}' returns a pointer"));
                                }
                                self.funcs.insert(key.clone(), d);
                                let (fs, fe) = d.range();
                                let mut fv: BTreeMap<String, Var> = BTreeMap::new();
                                let mut fedits = Vec::new();
                                let mut lpw = false;
                                let saved = std::mem::replace(&mut self.caller, key.clone());
                                let mut res = self.analyse_code(
                                    d,
                                    fs.off,
                                    fe.off,
                                    &mut fv,
                                    &mut fedits,
                                    &mut lpw,
                                    false,
                                );
                                self.caller = saved;
                                if res.is_ok() {
                                    match function_globals(&name, &fv, &self.cx.threadprivate) {
                                        Ok(g) => {
                                            self.func_globals.insert(key.clone(), g);
                                        }
                                        Err(e) => res = Err(e),
                                    }
                                    if res.is_err() {
                                    } else if (fs.file == self.cx.file
                                        && !self.pragmas_in(fs.off, fe.off).is_empty())
                                        || (fs.file != self.cx.file
                                            && self.cx.file_text(&fs.file)[fs.off..fe.off].contains("omp"))
                                    {
                                        res = Err(format!("function '{name}' contains OpenMP directives"));
                                    }
                                }
                                if let Err(why) = res {
                                    self.funcs.remove(&key);
                                    self.bad_funcs.insert(key, why.clone());
                                    return Err(why);
                                }
                                if lpw {
                                    *local_ptr_writes = true;
                                }
                            }
                            // the globals the callee uses: extra arguments at this call, and
                            // variables of the caller's code
                            let globals = self.func_globals.get(&key).cloned().unwrap_or_default();
                            if !globals.is_empty() {
                                let (_, ce) = n.range();
                                if ce.file != file || ce.off == 0 || ftext.as_bytes()[ce.off - 1] != b')' {
                                    return Err(format!(
                                        "call to '{name}' (which uses globals) inside a macro"
                                    ));
                                }
                                let names: Vec<String> = globals.iter().map(|(g, _)| g.spelling()).collect();
                                let sep = if n.num_args() > 0 { ", " } else { "" };
                                edits.push(Edit {
                                    start: ce.off - 1,
                                    end: ce.off - 1,
                                    text: format!("{sep}{}", names.join(", ")),
                                });
                                for (g, w) in globals {
                                    let v = vars.entry(key_of(&g)).or_insert_with(|| Var {
                                        name: g.spelling(),
                                        decl: g,
                                        ty: g.ty(),
                                        global: true,
                                        kind: VK::ByValue,
                                        assigned: false,
                                        written_through: false,
                                        red_op: String::new(),
                                    });
                                    v.written_through |= w;
                                }
                            }
                        }
                        _ => {
                            if !CL_BUILTINS.contains(&name.as_str()) {
                                return Err(format!("call to '{name}' (no body available for the kernel)"));
                            }
                        }
                    }
                }
                CXCursor_DeclRefExpr => {
                    let Some(r) = n.referenced() else { continue };
                    match r.kind() {
                        CXCursor_VarDecl | CXCursor_ParmDecl => {
                            if inside(&r) {
                                continue;
                            }
                            vars.entry(key_of(&r)).or_insert_with(|| Var {
                                name: r.spelling(),
                                decl: r,
                                ty: r.ty(),
                                global: r.semantic_parent().kind() == CXCursor_TranslationUnit,
                                kind: VK::ByValue,
                                assigned: false,
                                written_through: false,
                                red_op: String::new(),
                            });
                        }
                        CXCursor_FunctionDecl => {
                            // rename user functions copied into the kernel
                            if let Some(d) = r.definition() {
                                if !d.in_system_header() && !d.loc().file.is_empty() {
                                    let ps = n.loc_spelling();
                                    let name = r.spelling();
                                    if ps.file == file && ftext[ps.off..].starts_with(&name) {
                                        edits.push(Edit {
                                            start: ps.off,
                                            end: ps.off + name.len(),
                                            text: format!("ompcl_f_{name}"),
                                        });
                                    } else {
                                        return Err(format!("call to '{name}' inside a macro"));
                                    }
                                }
                            }
                        }
                        _ => {}
                    }
                }
                _ => {}
            }
        }
        // writes
        for (lhs, direct) in written {
            let root = strip(lhs);
            let whole = if root.kind() == CXCursor_DeclRefExpr { root.referenced() } else { None };
            for d in decl_refs(lhs) {
                let Some(r) = d.referenced() else { continue };
                if !matches!(r.kind(), CXCursor_VarDecl | CXCursor_ParmDecl) {
                    continue;
                }
                let is_whole = direct && whole.map(|w| w.equals(&r)).unwrap_or(false);
                if inside(&r) {
                    if !is_whole && (r.ty().is_pointer()) {
                        *local_ptr_writes = true;
                    }
                    continue;
                }
                if let Some(v) = vars.get_mut(&key_of(&r)) {
                    if is_whole {
                        v.assigned = true;
                    } else {
                        v.written_through = true;
                    }
                }
            }
        }
        Ok(())
    }

    fn atomic_edit(
        &mut self,
        pp: &Pragma,
        st: Node,
        se: usize,
        edits: &[Edit],
        buffers: &HashSet<String>,
    ) -> Result<Edit, String> {
        let what = pp.directive[0].clone();
        let mut n = strip(st);
        if n.kind() == CXCursor_CompoundStmt {
            let k = n.children();
            if k.len() != 1 {
                return Err(format!(
                    "'{what}' section is not a single update (cannot become an OpenCL atomic)"
                ));
            }
            n = strip(k[0]);
        }
        let text = self.cx.text;
        let rr = |x: Node| -> String {
            let (s, e) = x.range();
            render(text, edits, s.off, e.off)
        };
        let (lhs, op, rhs): (Node, &str, String) = match n.kind() {
            CXCursor_UnaryOperator => {
                let c = n.children()[0];
                match n.unop() {
                    CXUnaryOperator_PostInc | CXUnaryOperator_PreInc => (c, "add", "1".into()),
                    CXUnaryOperator_PostDec | CXUnaryOperator_PreDec => (c, "sub", "1".into()),
                    _ => return Err(format!("'{what}' statement is not an update")),
                }
            }
            CXCursor_CompoundAssignOperator => {
                let c = n.children();
                let op = match n.binop() {
                    CXBinaryOperator_AddAssign => "add",
                    CXBinaryOperator_SubAssign => "sub",
                    CXBinaryOperator_MulAssign => "mul",
                    CXBinaryOperator_DivAssign => "div",
                    CXBinaryOperator_AndAssign => "and",
                    CXBinaryOperator_OrAssign => "or",
                    CXBinaryOperator_XorAssign => "xor",
                    CXBinaryOperator_ShlAssign => "shl",
                    CXBinaryOperator_ShrAssign => "shr",
                    _ => return Err(format!("'{what}' statement is not an update")),
                };
                (c[0], op, rr(c[1]))
            }
            CXCursor_BinaryOperator if n.binop() == CXBinaryOperator_Assign && what == "critical" => {
                // x = x op e  /  x = e op x (commutative)
                let c = n.children();
                let r = strip(c[1]);
                let lt = rr(c[0]);
                let rc = r.children();
                if r.kind() != CXCursor_BinaryOperator || rc.len() != 2 {
                    return Err(
                        "'critical' section is not a single update (cannot become an OpenCL atomic)".into()
                    );
                }
                let op = match r.binop() {
                    CXBinaryOperator_Add => "add",
                    CXBinaryOperator_Mul => "mul",
                    CXBinaryOperator_Sub => "sub",
                    CXBinaryOperator_And => "and",
                    CXBinaryOperator_Or => "or",
                    CXBinaryOperator_Xor => "xor",
                    _ => {
                        return Err(
                            "'critical' section is not a single update (cannot become an OpenCL atomic)"
                                .into(),
                        )
                    }
                };
                if rr(rc[0]).trim() == lt.trim() {
                    (c[0], op, rr(rc[1]))
                } else if rr(rc[1]).trim() == lt.trim() && op != "sub" {
                    (c[0], op, rr(rc[0]))
                } else {
                    return Err(
                        "'critical' section is not a single update (cannot become an OpenCL atomic)".into()
                    );
                }
            }
            CXCursor_IfStmt if what == "critical" => {
                // if (v > x) x = v;  /  if (x < v) x = v;  (and min): an atomic max/min
                let c = n.children();
                let bad = || {
                    "'critical' section is not a single update (cannot become an OpenCL atomic)".to_string()
                };
                if c.len() != 2 {
                    return Err(bad());
                }
                let cond = strip(c[0]);
                let mut th = strip(c[1]);
                if th.kind() == CXCursor_CompoundStmt {
                    let k = th.children();
                    if k.len() != 1 {
                        return Err(bad());
                    }
                    th = strip(k[0]);
                }
                if cond.kind() != CXCursor_BinaryOperator
                    || th.kind() != CXCursor_BinaryOperator
                    || th.binop() != CXBinaryOperator_Assign
                {
                    return Err(bad());
                }
                let cc = cond.children();
                let tc = th.children();
                let (c0, c1, l, r) = (rr(cc[0]), rr(cc[1]), rr(tc[0]), rr(tc[1]));
                let (c0, c1, l, r) = (c0.trim(), c1.trim(), l.trim(), r.trim());
                let op = match cond.binop() {
                    CXBinaryOperator_GT | CXBinaryOperator_GE if c0 == r && c1 == l => "max",
                    CXBinaryOperator_GT | CXBinaryOperator_GE if c0 == l && c1 == r => "min",
                    CXBinaryOperator_LT | CXBinaryOperator_LE if c0 == l && c1 == r => "max",
                    CXBinaryOperator_LT | CXBinaryOperator_LE if c0 == r && c1 == l => "min",
                    _ => return Err(bad()),
                };
                (tc[0], op, r.to_string())
            }
            _ => {
                return Err(format!(
                    "'{what}' section is not a single update (cannot become an OpenCL atomic)"
                ))
            }
        };
        // target must live in a buffer
        let base = decl_refs(lhs)
            .into_iter()
            .filter_map(|d| d.referenced())
            .find(|r| matches!(r.kind(), CXCursor_VarDecl | CXCursor_ParmDecl));
        let in_buf = base.map(|b| buffers.contains(&key_of(&b))).unwrap_or(false);
        let (ls, _) = pp_range(pp);
        if !in_buf {
            // private target: a plain update is enough
            let (s, e) = st.range();
            return Ok(Edit {
                start: ls,
                end: se,
                text: format!(
                    "{};",
                    render(text, edits, s.off, self.cx.stmt_end(e.off).min(se)).trim_end_matches(';')
                ),
            });
        }
        let t = lhs.ty().canonical();
        let tn = builtin_cl(t.kind()).ok_or_else(|| format!("atomic on type '{}'", lhs.ty().spelling()))?;
        if !matches!(tn, "int" | "uint" | "long" | "ulong" | "float" | "double") {
            return Err(format!("atomic on type '{tn}'"));
        }
        if matches!(tn, "float" | "double") && matches!(op, "and" | "or" | "xor" | "shl" | "shr") {
            return Err("bitwise atomic on a floating type".into());
        }
        let fname = format!("ompcl_atomic_{op}_{tn}");
        if !self.atomics.contains_key(&fname) {
            let sym = match op {
                "add" => "+",
                "sub" => "-",
                "mul" => "*",
                "div" => "/",
                "and" => "&",
                "or" => "|",
                "xor" => "^",
                "shl" => "<<",
                _ => ">>",
            };
            let code = if matches!(op, "max" | "min") && !matches!(tn, "int" | "uint") {
                let (u, cas) = if matches!(tn, "long" | "ulong" | "double") {
                    ("ulong", "atom_cmpxchg")
                } else {
                    ("uint", "atomic_cmpxchg")
                };
                if u == "ulong" {
                    self.int64_atomics = true;
                }
                let cmp = if op == "max" { "<" } else { ">" };
                format!(
                    "void {fname}(volatile __global {tn} *p, {tn} v) {{\n  volatile __global {u} *q = (volatile __global {u} *)p;\n  {u} o;\n  do {{ o = *q; if (!(as_{tn}(o) {cmp} v)) return; }} while ({cas}(q, o, as_{u}(v)) != o);\n}}\n"
                )
            } else if matches!(tn, "int" | "uint")
                && matches!(op, "add" | "sub" | "and" | "or" | "xor" | "max" | "min")
            {
                format!("void {fname}(volatile __global {tn} *p, {tn} v) {{ atomic_{op}(p, v); }}\n")
            } else {
                let (u, cas) = if matches!(tn, "long" | "ulong" | "double") {
                    ("ulong", "atom_cmpxchg")
                } else {
                    ("uint", "atomic_cmpxchg")
                };
                if u == "ulong" {
                    self.int64_atomics = true;
                }
                format!(
                    "void {fname}(volatile __global {tn} *p, {tn} v) {{\n  volatile __global {u} *q = (volatile __global {u} *)p;\n  {u} o, n;\n  do {{ o = *q; n = as_{u}(({tn})(as_{tn}(o) {sym} v)); }} while ({cas}(q, o, n) != o);\n}}\n"
                )
            };
            self.atomics.insert(fname.clone(), code);
        }
        Ok(Edit { start: ls, end: se, text: format!("{fname}(&({}), ({}));", rr(lhs), rhs) })
    }

    /// Functions reachable from `from` in the kernel call graph.
    fn reachable(&self, from: &str) -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from.to_string()];
        while let Some(x) = stack.pop() {
            if let Some(cs) = self.calls.get(&x) {
                for c in cs {
                    if seen.insert(c.clone()) {
                        stack.push(c.clone());
                    }
                }
            }
        }
        seen
    }

    /// A function on a call cycle reachable from `from`, if any.
    fn recursive_from(&self, from: &str) -> Option<String> {
        self.reachable(from)
            .into_iter()
            .find(|f| self.reachable(f).contains(f))
            .map(|k| k.rsplit(':').next().unwrap_or("").to_string())
    }

    fn render_function(&mut self, f: Node) -> Result<(String, String), String> {
        let (fs, fe) = f.range();
        let mut vars = BTreeMap::new();
        let mut edits = Vec::new();
        let mut lpw = false;
        self.caller = key_of(&f);
        self.analyse_code(f, fs.off, fe.off, &mut vars, &mut edits, &mut lpw, false)?;
        // the function's own name
        let name = f.spelling();
        let np = f.loc_spelling();
        edits.push(Edit { start: np.off, end: np.off + name.len(), text: format!("ompcl_f_{name}") });
        let body = f
            .children()
            .into_iter()
            .find(|c| c.kind() == CXCursor_CompoundStmt)
            .ok_or("function without body")?;
        let bstart = body.range().0.off;
        let ftext = self.cx.file_text(&fs.file);
        let globals = self.func_globals.get(&key_of(&f)).cloned().unwrap_or_default();
        if !globals.is_empty() {
            // the globals become trailing parameters (same names: the body is unchanged)
            let mut ps = Vec::new();
            for (g, _) in &globals {
                let (ty, n) = (g.ty(), g.spelling());
                self.types.note(ty, 0)?;
                let c = ty.canonical();
                ps.push(if ty.is_array() {
                    let e = c.elem();
                    let inner = if e.is_array() { format!("(*{n})") } else { format!("*{n}") };
                    format!("__global {}", self.types.declr(e, &inner)?)
                } else {
                    self.types.declr(ty, &n)?
                });
            }
            let head = &ftext[fs.off..bstart];
            let close = fs.off + head.rfind(')').ok_or("function without a parameter list")?;
            if f.num_args() > 0 {
                edits.push(Edit { start: close, end: close, text: format!(", {}", ps.join(", ")) });
            } else {
                let open =
                    fs.off + head[..close - fs.off].rfind('(').ok_or("function without a parameter list")?;
                edits.push(Edit { start: open + 1, end: close, text: ps.join(", ") });
            }
        }
        let mut head = render(&ftext, &edits, fs.off, bstart);
        let mut all = render(&ftext, &edits, fs.off, fe.off);
        for h in [&mut head, &mut all] {
            if h.starts_with("inline ") {
                h.replace_range(0..7, "static inline ");
            }
        }
        Ok((format!("{};\n", head.trim_end()), format!("{all}\n")))
    }
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

/// The globals a kernel function uses (its outside variables `fv`), each with whether the function
/// may write it; or why they cannot be passed to it: arrays and pointers go as buffers, scalars
/// only read go by value.
fn function_globals(
    name: &str,
    fv: &BTreeMap<String, Var>,
    threadprivate: &HashSet<String>,
) -> Result<Vec<(Node, bool)>, String> {
    let mut out = Vec::new();
    for g in fv.values() {
        let w = g.assigned || g.written_through;
        if threadprivate.contains(&g.name) {
            return Err(format!("function '{name}' uses threadprivate variable '{}'", g.name));
        }
        match g.ty.canonical().kind() {
            CXType_ConstantArray | CXType_IncompleteArray => {}
            CXType_Pointer if !g.assigned => {}
            CXType_Record => return Err(format!("function '{name}' uses global struct '{}'", g.name)),
            k if g.ty.is_arith() && !w && k != CXType_Bool => {}
            _ => {
                return Err(format!(
                    "function '{name}' writes global variable '{}' (or it has a type passed by no argument)",
                    g.name
                ))
            }
        }
        out.push((g.decl, w));
    }
    Ok(out)
}

/// Host C that runs one kernel: bounds, iteration count, arguments, the launch (sets `__ompcl_ok`).
fn kernel_call(k: &KernelOut, kid: usize, line: u32, target: i32) -> String {
    let mut pre = String::new();
    let _ = write!(
        pre,
        "long long __ompcl_lb = (long long)({}); long long __ompcl_ub = (long long)({}); long long __ompcl_st = (long long)({}); ",
        k.lb, k.ub, k.step
    );
    let _ = write!(pre, "long long __ompcl_n = {}; ", host_count(k.cmp));
    for (q, (lb, ub, st, cmp)) in k.inner.iter().enumerate() {
        let q = q + 1;
        let c = host_count(*cmp)
            .replace("__ompcl_lb", &format!("__ompcl_lb{q}"))
            .replace("__ompcl_ub", &format!("__ompcl_ub{q}"))
            .replace("__ompcl_st", &format!("__ompcl_st{q}"));
        let mul = if k.auto_flat { String::new() } else { format!("__ompcl_n *= __ompcl_n{q}; ") };
        let _ = write!(
            pre,
            "long long __ompcl_lb{q} = (long long)({lb}); long long __ompcl_ub{q} = (long long)({ub}); long long __ompcl_st{q} = (long long)({st}); long long __ompcl_n{q} = {c}; {mul}"
        );
    }
    if k.auto_flat {
        pre.push_str("int __ompcl_flat = 0; ");
    }
    let n = k.host_args.len();
    let _ = write!(
        pre,
        "ompcl_arg __ompcl_a[{}] = {{ {} }}; ",
        n.max(1),
        if n == 0 { "{0}".to_string() } else { k.host_args.join(", ") }
    );
    if k.auto_flat {
        let _ = write!(
            pre,
            "__ompcl_flat = ompcl_no_alias(__ompcl_a, {n}); if (__ompcl_flat) __ompcl_n *= __ompcl_n1; "
        );
    }
    let _ = write!(
        pre,
        "__ompcl_ok = ompcl_region_opencl(&__ompcl_mod, {kid}, {line}, {target}, __ompcl_lb, __ompcl_st, __ompcl_n, __ompcl_a, {n}); "
    );
    if let Some(lv) = &k.loopvar_after {
        let _ = write!(pre, "if (__ompcl_ok) {lv} = __ompcl_lb + __ompcl_n * __ompcl_st; ");
    }
    pre
}

/// Host C for a region made of several steps: every kernel is made ready (built, its memory known
/// to the runtime) first; only then do they run, in order, with the host steps between them. A
/// kernel that fails after an earlier one ran cannot fall back to the CPU version: the program
/// stops with an error (never a wrong result).
fn sequence_call(steps: &[Step], target: i32, file: &str) -> String {
    let mut pre = String::new();
    let mut ready = Vec::new();
    for (i, st) in steps.iter().enumerate() {
        if let Step::Kernel { k, kid, line } = st {
            let mem: Vec<&String> = k
                .host_args
                .iter()
                .filter(|a| a.starts_with("{OMPCL_BUF") || a.starts_with("{OMPCL_TMP"))
                .collect();
            let n = mem.len();
            let list = if n == 0 {
                "{0}".to_string()
            } else {
                mem.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
            };
            let _ = write!(pre, "ompcl_arg __ompcl_m{i}[{}] = {{ {list} }}; ", n.max(1));
            ready.push(format!("ompcl_kernel_ready(&__ompcl_mod, {kid}, {line}, __ompcl_m{i}, {n})"));
        }
    }
    let _ = write!(pre, "__ompcl_ok = {}; if (__ompcl_ok) {{ ", ready.join(" && "));
    for st in steps {
        match st {
            Step::Kernel { k, kid, line } => {
                let _ = write!(
                    pre,
                    "{{ {}if (!__ompcl_ok) ompcl_sequence_failed(&__ompcl_mod, {line}); }} ",
                    kernel_call(k, *kid, *line, target)
                );
            }
            Step::Host(h) => {
                let _ = write!(pre, "\n#line {} \"{file}\"\n{}\n", h.line, h.text);
            }
        }
    }
    pre.push_str("} ");
    pre
}

/// Iteration count of a canonical loop from `__ompcl_lb`, `__ompcl_ub`, `__ompcl_st` (host C).
fn host_count(cmp: i32) -> &'static str {
    match cmp {
        CXBinaryOperator_LT => {
            "(__ompcl_ub > __ompcl_lb) ? (__ompcl_ub - __ompcl_lb + __ompcl_st - 1) / __ompcl_st : 0"
        }
        CXBinaryOperator_LE => "(__ompcl_ub >= __ompcl_lb) ? (__ompcl_ub - __ompcl_lb) / __ompcl_st + 1 : 0",
        CXBinaryOperator_GT => {
            "(__ompcl_lb > __ompcl_ub) ? (__ompcl_lb - __ompcl_ub - __ompcl_st - 1) / (-__ompcl_st) : 0"
        }
        _ => "(__ompcl_lb >= __ompcl_ub) ? (__ompcl_lb - __ompcl_ub) / (-__ompcl_st) + 1 : 0",
    }
}

/// `-DNAME`, `-DNAME=VALUE`, `-UNAME` as preprocessor lines of the kernel source.
fn command_line_macros(defs: &[String]) -> String {
    let mut out = String::new();
    for d in defs {
        if let Some(u) = d.strip_prefix("-U") {
            let _ = writeln!(out, "#undef {}", u.trim());
        } else if let Some(x) = d.strip_prefix("-D") {
            let x = x.trim_start();
            match x.split_once('=') {
                Some((n, v)) => {
                    let _ = writeln!(out, "#define {n} {}", v.replace('\n', " "));
                }
                None => {
                    let _ = writeln!(out, "#define {x} 1");
                }
            }
        }
    }
    out
}

const CL_PRELUDE: &str = "typedef char int8_t;\ntypedef uchar uint8_t;\ntypedef short int16_t;\ntypedef ushort uint16_t;\ntypedef int int32_t;\ntypedef uint uint32_t;\ntypedef long int64_t;\ntypedef ulong uint64_t;\n\
#define sqrtf sqrt\n#define sinf sin\n#define cosf cos\n#define tanf tan\n#define expf exp\n#define logf log\n#define powf pow\n#define fabsf fabs\n#define floorf floor\n#define ceilf ceil\n#define fminf fmin\n#define fmaxf fmax\n#define fmodf fmod\n#define atanf atan\n#define atan2f atan2\n#define asinf asin\n#define acosf acos\n#define sinhf sinh\n#define coshf cosh\n#define tanhf tanh\n#define exp2f exp2\n#define log2f log2\n#define log10f log10\n#define cbrtf cbrt\n#define hypotf hypot\n#define roundf round\n#define truncf trunc\n#define copysignf copysign\n#define fmaf fma\n";

mod cpu;
mod races;
mod sequence;

const PARSE_OMP_H: &str = include_str!("../runtime/omp.h");
