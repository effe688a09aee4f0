//! Issue 21, item 2: the clause x construct matrix. Generated, not hand-written: every data-sharing
//! clause (`private`, `firstprivate`, `lastprivate`, both, of an `int`, a `double` and a local
//! array; `shared`, `default(shared|none)`, `reduction(op:..)` for 10 operators x 5 types) meets every construct and loop form ompcl accepts
//! (`parallel for`, `parallel` + `for` [`nowait`], the clause on the `parallel` around a `for`,
//! `collapse(2|3)`, `ordered` [with `collapse`], `sections` [`nowait`], `parallel sections`,
//! `single` [`nowait`], `parallel for simd`, `for simd`); the loop variables declared in the `for` or before it, unlisted or listed
//! `private` / `lastprivate`, and the eight schedules, are cycled so that each meets every form
//! and every clause kind. The valid combinations are batched into one program per form (one
//! function per combination, each printing only schedule-independent values: checksums,
//! reductions, lastprivate values, an ordered sequence hash); each program is built with ompcl,
//! run on PoCL's CPU device and on CPU threads, and compared line by line with `gcc -fopenmp`'s
//! build. The combinations gcc rejects (a clause not allowed on a construct, `&` on a float, a
//! variable in two clauses, `default(none)` missing a variable, `ordered` without the clause...)
//! are one small program each: ompcl must refuse them with an error at gcc's `file:line:col`.
//! `OMPCL_MATRIX_KEEP=DIR` keeps the generated programs in DIR.

mod common;
use common::*;
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

const N: usize = 97;
const N2: (usize, usize) = (9, 11);
const N3: (usize, usize, usize) = (4, 5, 6);
const TYPES: [&str; 5] = ["int", "unsigned", "long", "float", "double"];
const OPS: [&str; 10] = ["+", "-", "*", "&", "|", "^", "&&", "||", "max", "min"];
const SCHEDULES: [&str; 8] =
    ["", "static", "static, 5", "dynamic", "dynamic, 3", "guided", "guided, 2", "runtime"];

#[derive(Clone, Copy, PartialEq, Debug)]
enum Form {
    ParFor,
    ParThenFor,
    ParThenForNowait,
    /// the clause on the `parallel`, a plain `for` inside
    ParClauseFor,
    ParForCollapse2,
    ParForCollapse3,
    ParThenForCollapse2,
    ParForOrdered,
    ParThenForOrderedCollapse2,
    ParThenSections,
    ParSections,
    ParThenSectionsNowait,
    ParThenSingle,
    ParThenSingleNowait,
    ParForSimd,
    ParThenForSimd,
}

const FORMS: [Form; 16] = [
    Form::ParFor,
    Form::ParThenFor,
    Form::ParThenForNowait,
    Form::ParClauseFor,
    Form::ParForCollapse2,
    Form::ParForCollapse3,
    Form::ParThenForCollapse2,
    Form::ParForOrdered,
    Form::ParThenForOrderedCollapse2,
    Form::ParThenSections,
    Form::ParSections,
    Form::ParThenSectionsNowait,
    Form::ParThenSingle,
    Form::ParThenSingleNowait,
    Form::ParForSimd,
    Form::ParThenForSimd,
];

impl Form {
    /// loops associated with the worksharing construct (0: sections / single)
    fn depth(self) -> usize {
        match self {
            Form::ParForCollapse2 | Form::ParThenForCollapse2 | Form::ParThenForOrderedCollapse2 => 2,
            Form::ParForCollapse3 => 3,
            Form::ParThenSections
            | Form::ParSections
            | Form::ParThenSectionsNowait
            | Form::ParThenSingle
            | Form::ParThenSingleNowait => 0,
            _ => 1,
        }
    }
    /// the directive that carries the data clause
    fn clause_directive(self) -> &'static str {
        match self {
            Form::ParFor | Form::ParForCollapse2 | Form::ParForCollapse3 | Form::ParForOrdered => {
                "parallel for"
            }
            Form::ParClauseFor => "parallel",
            Form::ParSections => "parallel sections",
            Form::ParThenSections | Form::ParThenSectionsNowait => "sections",
            Form::ParThenSingle | Form::ParThenSingleNowait => "single",
            _ => "for",
        }
    }
    fn ordered(self) -> bool {
        matches!(self, Form::ParForOrdered | Form::ParThenForOrderedCollapse2)
    }
    fn name(self) -> String {
        format!("{self:?}").to_lowercase()
    }
}

#[derive(Clone, PartialEq, Debug)]
enum Clause {
    Private,
    Firstprivate,
    Lastprivate,
    FirstLast,
    Shared,
    DefaultShared,
    DefaultNone,
    Reduction(&'static str, &'static str),
    /// a local array `int v[4]` (read only in the construct)
    FirstprivateArray,
    /// a local array written by every iteration
    LastprivateArray,
    PrivateArray,
    /// a `double z`
    PrivateDouble,
    LastprivateDouble,
    FirstLastDouble,
}

fn clauses() -> Vec<Clause> {
    let mut v = vec![
        Clause::Private,
        Clause::Firstprivate,
        Clause::Lastprivate,
        Clause::FirstLast,
        Clause::Shared,
        Clause::DefaultShared,
        Clause::DefaultNone,
        Clause::FirstprivateArray,
        Clause::LastprivateArray,
        Clause::PrivateArray,
        Clause::PrivateDouble,
        Clause::LastprivateDouble,
        Clause::FirstLastDouble,
    ];
    for op in OPS {
        for ty in TYPES {
            v.push(Clause::Reduction(op, ty));
        }
    }
    v
}

fn is_float(ty: &str) -> bool {
    ty == "float" || ty == "double"
}

impl Clause {
    fn kind(&self) -> &'static str {
        match self {
            Clause::Private | Clause::PrivateArray | Clause::PrivateDouble => "private",
            Clause::Firstprivate | Clause::FirstprivateArray => "firstprivate",
            Clause::Lastprivate
            | Clause::FirstLast
            | Clause::LastprivateArray
            | Clause::LastprivateDouble
            | Clause::FirstLastDouble => "lastprivate",
            Clause::Shared => "shared",
            Clause::DefaultShared | Clause::DefaultNone => "default",
            Clause::Reduction(..) => "reduction",
        }
    }
    /// the clause text (`extra`: more variables a `default(none)` must list)
    fn text(&self, extra: &str) -> String {
        match self {
            Clause::Private => "private(x)".into(),
            Clause::Firstprivate => "firstprivate(x)".into(),
            Clause::Lastprivate => "lastprivate(x)".into(),
            Clause::FirstLast => "firstprivate(x) lastprivate(x)".into(),
            Clause::Shared => "shared(x, y)".into(),
            Clause::DefaultShared => "default(shared)".into(),
            Clause::DefaultNone => format!("default(none) shared(A, x, y{extra})"),
            Clause::Reduction(op, _) => format!("reduction({op}:r)"),
            Clause::FirstprivateArray => "firstprivate(v)".into(),
            Clause::LastprivateArray => "lastprivate(v)".into(),
            Clause::PrivateArray => "private(v)".into(),
            Clause::PrivateDouble => "private(z)".into(),
            Clause::LastprivateDouble => "lastprivate(z)".into(),
            Clause::FirstLastDouble => "lastprivate(z) firstprivate(z)".into(),
        }
    }
    /// what the case prints besides the checksum, x and y: (printf format, arguments)
    fn extra_print(&self) -> Option<(&'static str, &'static str)> {
        match self {
            Clause::FirstprivateArray | Clause::LastprivateArray | Clause::PrivateArray => {
                Some((" %d %d %d %d", ", v[0], v[1], v[2], v[3]"))
            }
            Clause::PrivateDouble | Clause::LastprivateDouble | Clause::FirstLastDouble => {
                Some((" %.17g", ", z"))
            }
            _ => None,
        }
    }
    /// gcc accepts the clause on the directive
    fn allowed_on(&self, dir: &str) -> bool {
        if let Clause::Reduction(op, ty) = self {
            if matches!(*op, "&" | "|" | "^") && is_float(ty) {
                return false;
            }
        }
        match (self.kind(), dir) {
            (_, "parallel for") | (_, "parallel sections") => true,
            ("lastprivate", "parallel") => false,
            (_, "parallel") => true,
            ("shared" | "default", _) => false,
            ("lastprivate" | "reduction", "single") => false,
            _ => true,
        }
    }
    /// the statements of one iteration (`idx`: its number in the sequential order)
    fn body(&self, idx: &str) -> String {
        match self {
            Clause::Private => format!("x = {idx} * 2; A[{idx}] = x + 1;"),
            Clause::Firstprivate => format!("A[{idx}] = x + {idx};"),
            Clause::Lastprivate => format!("x = {idx} * 3 + 1; A[{idx}] = x;"),
            Clause::FirstLast => {
                format!("A[{idx}] = (x == 4 || x >= 10000) ? {idx} + 1 : -1; x = 10000 + {idx};")
            }
            Clause::Shared | Clause::DefaultShared | Clause::DefaultNone => {
                format!("A[{idx}] = x + {idx};\n#pragma omp atomic\n      y += {idx} % 5;\n")
            }
            Clause::FirstprivateArray => format!("A[{idx}] = v[({idx}) % 4] * 10 + {idx};"),
            Clause::LastprivateArray => {
                // every element written: the copy-out takes the whole private array
                format!("v[0] = {idx}; v[1] = {idx} + 1; v[2] = {idx} * 2 + v[0]; v[3] = v[1] - 5; A[{idx}] = v[2];")
            }
            Clause::PrivateArray => format!("v[1] = {idx} + 1; v[3] = v[1] * 2; A[{idx}] = v[3];"),
            Clause::PrivateDouble => format!("z = {idx} * 0.5; A[{idx}] = (int)(z * 2) + 1;"),
            Clause::LastprivateDouble => format!("z = {idx} * 0.25; A[{idx}] = {idx} + 2;"),
            Clause::FirstLastDouble => {
                format!("A[{idx}] = (z == 1.5 || z >= 10000) ? {idx} + 1 : -1; z = 10000.5 + {idx};")
            }
            Clause::Reduction(op, ty) => {
                let v = format!("(({ty})(({idx}) % 7 + 1))");
                let v2 = format!("(({ty})((({idx}) * 37) % 101))");
                let s = match *op {
                    // `&` on a float: invalid (gcc refuses the clause), the statement stays C
                    "&" | "|" | "^" if is_float(ty) => format!("r += {v};"),
                    "+" => format!("r += {v};"),
                    "-" => format!("r -= {v};"),
                    "*" => format!("r *= (({idx}) % 13 == 0) ? 2 : 1;"),
                    "&" => format!("r &= ~(({ty})1 << (({idx}) % 20));"),
                    "|" => format!("r |= ({ty})1 << (({idx}) % 20);"),
                    "^" => format!("r ^= ({ty})((({idx}) * 37) & 1023);"),
                    "&&" => format!("r = r && ({idx} >= 0);"),
                    "||" => format!("r = r || ({idx} < 0);"),
                    "max" => format!("r = r > {v2} ? r : {v2};"),
                    _ => format!("r = r < {v2} ? r : {v2};"),
                };
                format!("{s} A[{idx}] = {idx} + 1;")
            }
        }
    }
    fn r_init(&self) -> Option<(&'static str, String)> {
        let Clause::Reduction(op, ty) = self else { return None };
        let v = match *op {
            "+" | "-" => "10".to_string(),
            "*" => "3".into(),
            "&" => format!("({ty})~0"),
            "|" => "0x100000".into(),
            "^" => "5".into(),
            "&&" => "1".into(),
            "||" => "0".into(),
            "max" => "2".into(),
            _ => "1000".into(),
        };
        Some((ty, v))
    }
}

fn printf_of(ty: &str, e: &str) -> (String, String) {
    match ty {
        "int" => ("%d".into(), e.into()),
        "unsigned" => ("%u".into(), e.into()),
        "long" => ("%ld".into(), e.into()),
        _ => ("%.17g".into(), format!("(double)({e})")),
    }
}

/// How the loop variables are declared and listed.
#[derive(Clone, Copy, PartialEq, Debug)]
enum LoopVar {
    Inside,
    Outside,
    OutsidePrivate,
    OutsideLastprivate,
}
const LOOPVARS: [LoopVar; 4] =
    [LoopVar::Inside, LoopVar::Outside, LoopVar::OutsidePrivate, LoopVar::OutsideLastprivate];

struct Case {
    id: usize,
    form: Form,
    clause: Clause,
    sched: &'static str,
    lv: LoopVar,
    /// loop shape (SHAPES) of the first associated loop; the inner ones take the next shapes
    shape: usize,
    /// type of the loop variables (LOOP_TYPES)
    vty: &'static str,
    /// the clause's variables are globals (else locals of the function)
    global: bool,
    /// a clause of the `parallel` directive (TEAMS): `num_threads`, `if` true or false
    team: &'static str,
}

const TEAMS: [&str; 4] = ["", " num_threads(2)", " if(x < 100)", " if(x > 100)"];

/// Canonical loop forms, each running `b` iterations: (header with V and B, the iteration's
/// number in sequential order from V). `>=` down to 0 needs a signed variable.
const SHAPES: [(&str, &str); 8] = [
    ("V = 0; V < B; V++", "V"),
    ("V = B - 1; V >= 0; V--", "V"),
    ("V = 3; V <= 2 * B + 1; V += 2", "(V - 3) / 2"),
    ("V = B; V > 0; V = V - 1", "(V - 1)"),
    ("V = 5; V < 5 + 3 * B; V = V + 3", "(V - 5) / 3"),
    ("V = 2 * B; V > 0; V -= 2", "(V / 2 - 1)"),
    ("V = 0; V != B; V++", "V"),
    ("V = B; V != 0; V--", "(V - 1)"),
];
const LOOP_TYPES: [&str; 3] = ["int", "long", "unsigned"];

impl Case {
    fn describe(&self) -> String {
        format!(
            "{:?} {:?} schedule({}) loop variables {:?} {} shape {}{}{}",
            self.form,
            self.clause,
            self.sched,
            self.lv,
            self.vty,
            self.shape,
            if self.global { " globals" } else { "" },
            self.team
        )
    }
}

const LOOP_NAMES: [&str; 3] = ["i", "j", "l"];

/// One combination as a C function `case_ID` printing `case ID ...`.
fn case_c(c: &Case) -> String {
    let f = c.form;
    let d = f.depth();
    let mut s = String::new();
    let _ = writeln!(s, "/* {} */\nstatic void case_{}(void)\n{{", c.describe(), c.id);
    let mut globals = String::new();
    if c.global {
        // the clause's variables at file scope (renamed per case below), set at the start
        globals.push_str("static int x, y;\nstatic int v[4];\nstatic double z;\n");
        s.push_str("  int k;\n  x = 4; y = 0; v[0] = 1; v[1] = 2; v[2] = 3; v[3] = 4; z = 1.5;\n");
        if let Some((ty, v)) = c.clause.r_init() {
            let _ = writeln!(globals, "static {ty} r;");
            let _ = writeln!(s, "  r = {v};");
        }
    } else {
        s.push_str("  int x = 4, y = 0, k;\n  int v[4] = { 1, 2, 3, 4 };\n  double z = 1.5;\n");
        if let Some((ty, v)) = c.clause.r_init() {
            let _ = writeln!(s, "  {ty} r = {v};");
        }
    }
    let outside = d > 0 && c.lv != LoopVar::Inside;
    if outside {
        let _ = writeln!(s, "  {} {} = 7;", c.vty, LOOP_NAMES[..d].join(" = 7, "));
    }
    s.push_str("  for (k = 0; k < 128; k++) A[k] = 0;\n  H = 0;\n");
    // the clauses of each directive
    let extra = if f.ordered() { ", H" } else { "" };
    let clause = c.clause.text(extra);
    let mut loop_clause = String::new();
    if !c.sched.is_empty() && d > 0 {
        let _ = write!(loop_clause, " schedule({})", c.sched);
    }
    match d {
        2 => loop_clause.push_str(" collapse(2)"),
        3 => loop_clause.push_str(" collapse(3)"),
        _ => {}
    }
    if f.ordered() {
        loop_clause.push_str(" ordered");
    }
    if outside {
        let vars = LOOP_NAMES[..d].join(", ");
        match c.lv {
            LoopVar::OutsidePrivate => {
                let _ = write!(loop_clause, " private({vars})");
            }
            LoopVar::OutsideLastprivate => {
                let _ = write!(loop_clause, " lastprivate({vars})");
            }
            _ => {}
        }
    }
    let bounds: Vec<usize> = match d {
        0 | 1 => vec![N],
        2 => vec![N2.0, N2.1],
        _ => vec![N3.0, N3.1, N3.2],
    };
    // each loop's shape; an unsigned variable only counts up: `>=` down to 0 never ends, and
    // gcc 12 runs no iteration of `for (unsigned i = n; i > 0; i--)` with a dynamic or guided
    // schedule (libgomp's unsigned long long loops; sequentially and with schedule(static)
    // it runs n), so gcc's output is no reference there
    let shape_of = |k: usize| {
        let sh = (c.shape + k) % SHAPES.len();
        if c.vty == "unsigned" && matches!(sh, 1 | 3 | 5 | 7) {
            sh - 1
        } else {
            sh
        }
    };
    let idx = if d == 0 {
        "i".to_string()
    } else {
        // the combined iteration number: row-major over the collapsed loops
        let mut e = String::new();
        for k in 0..d {
            let one = SHAPES[shape_of(k)].1.replace('V', LOOP_NAMES[k]);
            e = if k == 0 { format!("({one})") } else { format!("({e} * {} + {one})", bounds[k]) };
        }
        format!("(int){e}")
    };
    let mut body = c.clause.body(&idx);
    if f.ordered() {
        let _ = write!(body, "\n#pragma omp ordered\n      H = H * 31u + (unsigned)({idx});\n");
    }
    let loops = |s: &mut String| {
        for (k, b) in bounds.iter().enumerate() {
            let v = LOOP_NAMES[k];
            let decl = if c.lv == LoopVar::Inside { format!("{} ", c.vty) } else { String::new() };
            let head = SHAPES[shape_of(k)].0.replace('V', v).replace('B', &b.to_string());
            let _ = writeln!(s, "  for ({decl}{head})");
        }
        let _ = writeln!(s, "  {{\n      {body}\n  }}");
    };
    let nowait =
        matches!(f, Form::ParThenForNowait | Form::ParThenSectionsNowait | Form::ParThenSingleNowait);
    let nw = if nowait { " nowait" } else { "" };
    match f {
        Form::ParFor | Form::ParForCollapse2 | Form::ParForCollapse3 | Form::ParForOrdered => {
            let _ = writeln!(s, "#pragma omp parallel for {clause}{loop_clause}");
            loops(&mut s);
        }
        Form::ParForSimd => {
            let _ = writeln!(s, "#pragma omp parallel for simd {clause}{loop_clause} safelen(4)");
            loops(&mut s);
        }
        Form::ParThenForSimd => {
            let _ = writeln!(
                s,
                "#pragma omp parallel\n  {{\n#pragma omp for simd {clause}{loop_clause} simdlen(2)"
            );
            loops(&mut s);
            s.push_str("  }\n");
        }
        Form::ParThenFor
        | Form::ParThenForNowait
        | Form::ParThenForCollapse2
        | Form::ParThenForOrderedCollapse2 => {
            let _ = writeln!(s, "#pragma omp parallel\n  {{\n#pragma omp for {clause}{loop_clause}{nw}");
            loops(&mut s);
            s.push_str("  }\n");
        }
        Form::ParClauseFor => {
            let _ = writeln!(s, "#pragma omp parallel {clause}\n  {{\n#pragma omp for{loop_clause}");
            loops(&mut s);
            s.push_str("  }\n");
        }
        Form::ParThenSections | Form::ParThenSectionsNowait | Form::ParSections => {
            if f == Form::ParSections {
                let _ = writeln!(s, "#pragma omp parallel sections {clause}\n  {{");
            } else {
                let _ = writeln!(s, "#pragma omp parallel\n  {{\n#pragma omp sections {clause}{nw}\n  {{");
            }
            for k in 0..3 {
                let _ = writeln!(s, "#pragma omp section\n    {{ {} }}", c.clause.body(&k.to_string()));
            }
            s.push_str("  }\n");
            if f != Form::ParSections {
                s.push_str("  }\n");
            }
        }
        Form::ParThenSingle | Form::ParThenSingleNowait => {
            let _ = writeln!(s, "#pragma omp parallel\n  {{\n#pragma omp single {clause}{nw}\n  {{ int i;");
            let _ = writeln!(s, "  for (i = 0; i < {N}; i++) {{ {} }}\n  }}\n  }}", c.clause.body("i"));
        }
    }
    // the team: a clause at the end of the `parallel` directive's line
    if let Some(pos) = s.find("#pragma omp parallel") {
        let eol = s[pos..].find('\n').map_or(s.len(), |i| pos + i);
        s.insert_str(eol, c.team);
    }
    // schedule-independent results: a weighted checksum, x, y, r, the loop variables when
    // lastprivate, the ordered sequence
    let mut fmt = format!("case {} %lld %d %d", c.id);
    let mut args = String::from("sum, x, y");
    if let Some((ty, _)) = c.clause.r_init() {
        let (f1, a1) = printf_of(ty, "r");
        let _ = write!(fmt, " {f1}");
        let _ = write!(args, ", {a1}");
    }
    if let Some((f1, a1)) = c.clause.extra_print() {
        fmt.push_str(f1);
        args.push_str(a1);
    }
    if outside && c.lv == LoopVar::OutsideLastprivate {
        for v in &LOOP_NAMES[..d] {
            let _ = write!(fmt, " %lld");
            let _ = write!(args, ", (long long){v}");
        }
    }
    if f.ordered() {
        fmt.push_str(" %u");
        args.push_str(", H");
    }
    let _ = writeln!(
        s,
        "  {{ long long sum = 0; for (k = 0; k < 128; k++) sum += (long long)A[k] * (k % 7 + 1);\n    printf(\"{fmt}\\n\", {args}); }}\n}}\n"
    );
    if c.global {
        rename_globals(&format!("{globals}{s}"), c.id)
    } else {
        s
    }
}

/// The clause variables x, y, r, v, z become globals g<id>_x ... (identifiers only: `0x10`
/// and format strings are left alone).
fn rename_globals(text: &str, id: usize) -> String {
    let b = text.as_bytes();
    let mut out = String::new();
    let mut i = 0;
    while i < b.len() {
        let ch = b[i];
        if ch == b'"' {
            let st = i;
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i = (i + 1).min(b.len());
            out.push_str(&text[st..i]);
        } else if ch.is_ascii_alphanumeric() || ch == b'_' {
            let st = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let w = &text[st..i];
            if !ch.is_ascii_digit() && matches!(w, "x" | "y" | "r" | "v" | "z") {
                let _ = write!(out, "g{id}_{w}");
            } else {
                out.push_str(w);
            }
        } else {
            out.push(ch as char);
            i += 1;
        }
    }
    out
}

fn program(cases: &[Case]) -> String {
    let mut s = String::from("#include <stdio.h>\nint A[128];\nunsigned H;\n\n");
    for c in cases {
        s.push_str(&case_c(c));
    }
    s.push_str("int main(void)\n{\n");
    for c in cases {
        let _ = writeln!(s, "  case_{}();", c.id);
    }
    s.push_str("  return 0;\n}\n");
    s
}

/// A program gcc must reject, and the `line` of its error (the one ompcl must name).
struct Invalid {
    name: String,
    src: String,
}

/// The invalid combinations: every (form, clause kind) gcc refuses, and a list of semantic
/// errors of the data clauses and loop forms.
fn invalid_programs() -> Vec<Invalid> {
    let mut v = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for f in FORMS {
        for cl in clauses() {
            if cl.allowed_on(f.clause_directive()) {
                continue;
            }
            // one per (directive, clause kind, float bitwise)
            let fb = matches!(cl, Clause::Reduction(op, ty) if matches!(op, "&" | "|" | "^") && is_float(ty));
            let key = (f.clause_directive(), cl.kind(), fb);
            if !seen.insert(key) {
                continue;
            }
            let c = Case {
                id: 0,
                form: f,
                clause: cl.clone(),
                sched: "",
                lv: LoopVar::Inside,
                shape: 0,
                vty: "int",
                global: false,
                team: "",
            };
            let src = format!("#include <stdio.h>\nint A[128];\nunsigned H;\n\n{}int main(void)\n{{\n  case_0();\n  return 0;\n}}\n", case_c(&c));
            v.push(Invalid {
                name: format!("{}_{:?}", f.name(), cl).replace(|c: char| !c.is_alphanumeric(), "_"),
                src,
            });
        }
    }
    let head = "#include <stdio.h>\nint A[128];\nint G;\nint main(void)\n{\n  int i, j, x = 1, y = 0;\n  float fl = 0;\n";
    let tail = "  printf(\"%d %d %d\\n\", A[3], x, y);\n  return 0;\n}\n";
    let snippets: [(&str, &str); 24] = [
        ("empty_private", "#pragma omp parallel for private()\n  for (i = 0; i < 10; i++) A[i] = i;\n"),
        ("empty_reduction_list", "#pragma omp parallel for reduction(+:)\n  for (i = 0; i < 10; i++) A[i] = i;\n"),
        ("bad_default", "#pragma omp parallel default(nne)\n  x = 2;\n"),
        ("subscript_in_list", "#pragma omp parallel for firstprivate(A[1])\n  for (i = 0; i < 10; i++) A[i] = i;\n"),
        ("empty_if", "#pragma omp parallel for if()\n  for (i = 0; i < 10; i++) A[i] = i;\n"),
        ("empty_num_threads", "#pragma omp parallel num_threads()\n  x = 2;\n"),
        ("empty_chunk", "#pragma omp parallel for schedule(dynamic,)\n  for (i = 0; i < 10; i++) A[i] = i;\n"),
        ("undeclared", "#pragma omp parallel for lastprivate(nosuch)\n  for (i = 0; i < 10; i++) A[i] = i;\n"),
        ("ne_step_3", "#pragma omp parallel for\n  for (i = 0; i != 30; i += 3) A[i / 3] = i;\n"),
        ("collapse_zero", "#pragma omp parallel for collapse(0)\n  for (i = 0; i < 10; i++) A[i] = i;\n"),
        ("twice", "#pragma omp parallel for private(x) firstprivate(x)\n  for (i = 0; i < 10; i++) A[i] = x;\n"),
        ("twice_shared", "#pragma omp parallel shared(x) private(x)\n  x = 2;\n"),
        ("twice_reduction", "#pragma omp parallel for reduction(+:y) lastprivate(y)\n  for (i = 0; i < 10; i++) y += i;\n"),
        ("none_local", "#pragma omp parallel for default(none) shared(A)\n  for (i = 0; i < 10; i++) A[i] = x;\n"),
        ("none_global", "#pragma omp parallel default(none) shared(x)\n  x = G;\n"),
        ("ordered_no_clause", "#pragma omp parallel for\n  for (i = 0; i < 10; i++) {\n#pragma omp ordered\n    A[i] = i;\n  }\n"),
        ("nowait_parallel_for", "#pragma omp parallel for nowait\n  for (i = 0; i < 10; i++) A[i] = i;\n"),
        ("schedule_sections", "#pragma omp parallel sections schedule(static)\n  {\n    x = 3;\n  }\n"),
        ("collapse_single", "#pragma omp parallel\n  {\n#pragma omp single collapse(2)\n    x = 3;\n  }\n"),
        ("ordered_sections", "#pragma omp parallel\n  {\n#pragma omp sections ordered\n    {\n      x = 3;\n    }\n  }\n"),
        ("firstprivate_inner", "#pragma omp parallel for firstprivate(j) collapse(2)\n  for (i = 0; i < 10; i++)\n    for (j = 0; j < 3; j++)\n      A[i] = j;\n"),
        ("float_xor", "#pragma omp parallel for reduction(^:fl)\n  for (i = 0; i < 10; i++) fl += 1;\n"),
        ("bad_schedule", "#pragma omp parallel for schedule(often)\n  for (i = 0; i < 10; i++) A[i] = i;\n"),
        ("num_threads_for", "#pragma omp parallel\n  {\n#pragma omp for num_threads(2)\n  for (i = 0; i < 10; i++) A[i] = i;\n  }\n"),
    ];
    for (name, body) in snippets {
        v.push(Invalid { name: name.to_string(), src: format!("{head}{body}{tail}") });
    }
    v
}

/// Valid programs near the rules (gcc accepts them): ompcl must too, with gcc's output.
fn edge_programs() -> Vec<Invalid> {
    let head = "#include <stdio.h>\n#include <omp.h>\nint A[128];\nstatic int tp = 5;\n#pragma omp threadprivate(tp)\nint main(void)\n{\n  int i, j, t = 0, x = 1, s = 0;\n  const int c = 3;\n";
    let tail = "  for (i = 0; i < 128; i++) s += A[i] * (i % 5 + 1);\n  printf(\"%d %d %d\\n\", s, x, t);\n  return 0;\n}\n";
    let snippets: [(&str, &str); 7] = [
        ("header_global", "#pragma omp parallel default(none) shared(stdout)\n  {\n#pragma omp master\n    fflush(stdout);\n  }\n"),
        ("none_sizeof", "#pragma omp parallel default(none) shared(A)\n  {\n#pragma omp single\n    A[1] = (int)sizeof(x);\n  }\n"),
        ("none_nested_private", "#pragma omp parallel default(none) shared(A)\n  {\n#pragma omp for private(t)\n    for (i = 0; i < 100; i++) { t = i * 2; A[i] = t; }\n  }\n"),
        ("none_inner_loop_variable", "#pragma omp parallel default(none) shared(A)\n  {\n#pragma omp for collapse(2)\n    for (i = 0; i < 10; i++)\n      for (j = 0; j < 10; j++) A[i * 10 + j] = i + j;\n  }\n"),
        ("none_const_shared", "#pragma omp parallel for default(none) shared(A, c)\n  for (i = 0; i < 100; i++) A[i] = i * c;\n"),
        ("none_threadprivate", "#pragma omp parallel default(none) shared(A)\n  {\n#pragma omp master\n    A[2] = tp;\n  }\n"),
        ("ordered_in_ordered_loop_in_parallel", "#pragma omp parallel\n  {\n#pragma omp for ordered schedule(dynamic)\n    for (i = 0; i < 50; i++) {\n      A[i] = i;\n#pragma omp ordered\n      x = x * 3 % 1000003 + i;\n    }\n  }\n"),
    ];
    snippets.iter().map(|(n, b)| Invalid { name: n.to_string(), src: format!("{head}{b}{tail}") }).collect()
}

fn check_edge(e: &Invalid, w: &Path, icd: &Path) -> Result<(), String> {
    let src = w.join(format!("edge_{}.c", e.name));
    std::fs::write(&src, &e.src).unwrap();
    let g = w.join(format!("edge_{}.gcc", e.name));
    gcc_build(&src, &g, w).map_err(|x| format!("{}: gcc rejects it (a generator bug): {x}", e.name))?;
    let (ok, d) = ompcl(&[src.to_str().unwrap(), "-w", "-o", &format!("edge_{}.ompcl", e.name)], w);
    if !ok {
        return Err(format!("{}: ompcl rejects what gcc builds:\n{d}", e.name));
    }
    let want = run_prog(&g, &[])?;
    let exe = w.join(format!("edge_{}.ompcl", e.name));
    let icd_s = icd.to_str().unwrap();
    for (how, env) in [
        ("PoCL", vec![("OCL_ICD_VENDORS", icd_s), ("OMPCL_DEVICE", "cpu")]),
        ("threads", vec![("OMPCL_DEVICE", "host")]),
    ] {
        let got = run_prog(&exe, &env)?;
        if got != want {
            return Err(format!("{} on {how}: gcc `{want}`, ompcl `{got}`", e.name));
        }
    }
    Ok(())
}

/// All valid combinations, numbered, grouped by form.
fn valid_cases() -> Vec<(Form, Vec<Case>)> {
    let mut out = Vec::new();
    let mut id = 0;
    for f in FORMS {
        let mut v = Vec::new();
        let mut n = 0usize;
        // every clause twice per form; the other dimensions cycle: every 32 cases of a form see
        // all 8 x 4 (schedule, loop variable declaration) pairs, and the loop shapes and loop
        // variable types turn at other rates
        for _pass in 0..2 {
            for cl in clauses() {
                if !cl.allowed_on(f.clause_directive()) {
                    continue;
                }
                // under `simd` a lastprivate variable is private to each SIMD lane, with no
                // defined value before the lane writes it: the firstprivate+lastprivate bodies
                // (which read it first) are undefined there (gcc's vector lanes read garbage)
                if matches!(f, Form::ParForSimd | Form::ParThenForSimd)
                    && matches!(cl, Clause::FirstLast | Clause::FirstLastDouble)
                {
                    continue;
                }
                let lv = if f.depth() == 0 { LoopVar::Inside } else { LOOPVARS[n % 4] };
                let sched = SCHEDULES[(n / 4) % 8];
                let shape = (n + n / 4) % SHAPES.len();
                let vty = LOOP_TYPES[(n / 3 + n / 7) % LOOP_TYPES.len()];
                let global = (n + n / 9) % 3 == 2;
                let team = TEAMS[(n / 2 + n / 5) % TEAMS.len()];
                v.push(Case { id, form: f, clause: cl, sched, lv, shape, vty, global, team });
                id += 1;
                n += 1;
            }
        }
        out.push((f, v));
    }
    out
}

fn gcc_build(src: &Path, exe: &Path, w: &Path) -> Result<(), String> {
    let o =
        run(Command::new("gcc").args(["-O1", "-fopenmp", "-w"]).arg(src).arg("-o").arg(exe).current_dir(w));
    if o.status.success() {
        Ok(())
    } else {
        Err(txt(&o.stderr))
    }
}

fn run_prog(exe: &Path, env: &[(&str, &str)]) -> Result<String, String> {
    // a deadlock fails the test instead of stopping it
    let mut c = Command::new("timeout");
    c.arg("120").arg(exe);
    c.env_remove("OMPCL_DEVICE").env_remove("OMPCL_PROFILE").env("OMP_NUM_THREADS", "3");
    c.env("OMP_SCHEDULE", "dynamic,2");
    for (k, v) in env {
        c.env(k, v);
    }
    let o = run(&mut c);
    if o.status.success() {
        Ok(txt(&o.stdout))
    } else {
        Err(format!("{} failed ({}): {}", exe.display(), o.status, txt(&o.stderr)))
    }
}

/// Build and run one form's program: the failed case ids with why.
fn check_form(form: Form, cases: &[Case], w: &Path, icd: &Path) -> Vec<(usize, String)> {
    let name = form.name();
    let src = w.join(format!("{name}.c"));
    std::fs::write(&src, program(cases)).unwrap();
    let all_fail = |why: String| cases.iter().map(|c| (c.id, why.clone())).collect::<Vec<_>>();
    if let Err(e) = gcc_build(&src, &w.join(format!("{name}.gcc")), w) {
        return all_fail(format!("gcc rejects the generated program (a generator bug): {e}"));
    }
    let (ok, diags) = ompcl(&[src.to_str().unwrap(), "-w", "-o", &format!("{name}.ompcl")], w);
    if !ok {
        return all_fail(format!("ompcl failed:\n{diags}"));
    }
    let expect = match run_prog(&w.join(format!("{name}.gcc")), &[]) {
        Ok(o) => o,
        Err(e) => return all_fail(e),
    };
    let exe = w.join(format!("{name}.ompcl"));
    let icd_s = icd.to_str().unwrap();
    let runs = [
        (
            "PoCL",
            run_prog(
                &exe,
                &[("OCL_ICD_VENDORS", icd_s), ("OMPCL_DEVICE", "cpu"), ("OMPCL_DEVICE_LOCKS", "1")],
            ),
        ),
        ("threads", run_prog(&exe, &[("OMPCL_DEVICE", "host")])),
    ];
    let mut failed = Vec::new();
    for c in cases {
        let tag = format!("case {} ", c.id);
        let want = expect.lines().find(|l| l.starts_with(&tag));
        for (how, got) in &runs {
            let line = match got {
                Ok(o) => o.lines().find(|l| l.starts_with(&tag)).map(|s| s.to_string()),
                Err(e) => Some(format!("(run failed: {e})")),
            };
            if want.map(|s| s.to_string()) != line || want.is_none() {
                failed.push((
                    c.id,
                    format!(
                        "{} on {how}: gcc `{}`, ompcl `{}`",
                        c.describe(),
                        want.unwrap_or("-"),
                        line.unwrap_or_default()
                    ),
                ));
                break;
            }
        }
    }
    failed
}

/// `file:line:col` of gcc's first error.
fn first_error(stderr: &str) -> Option<(u32, u32)> {
    for l in stderr.lines() {
        if let Some(i) = l.find(": error: ") {
            let head = &l[..i];
            let mut parts = head.rsplitn(3, ':');
            let col = parts.next()?.parse().ok()?;
            let line = parts.next()?.parse().ok()?;
            return Some((line, col));
        }
    }
    None
}

fn check_invalid(inv: &Invalid, w: &Path) -> Result<(), String> {
    let src = w.join(format!("inv_{}.c", inv.name));
    std::fs::write(&src, &inv.src).unwrap();
    // not -fsyntax-only: gcc checks default(none) when it lowers the OpenMP constructs
    let o = run(Command::new("gcc").args(["-fopenmp", "-c", "-o", "/dev/null"]).arg(&src).current_dir(w));
    let g = txt(&o.stderr);
    if o.status.success() {
        return Err(format!("{}: gcc accepts it (a generator bug)", inv.name));
    }
    let Some((line, col)) = first_error(&g) else {
        return Err(format!("{}: no gcc error line in {g}", inv.name));
    };
    let (ok, d) = ompcl(&[src.to_str().unwrap(), "-w", "-o", &format!("inv_{}", inv.name)], w);
    if ok {
        return Err(format!("{}: ompcl accepts what gcc rejects:\n{g}", inv.name));
    }
    let f = src.canonicalize().unwrap().to_string_lossy().into_owned();
    let want_line = format!("{f}:{line}:");
    let at = d.lines().find(|l| l.contains(": error: ")).unwrap_or("");
    if !at.starts_with(&want_line) {
        return Err(format!(
            "{}: ompcl's error is not at gcc's line {line}:\nompcl: {d}\ngcc: {g}",
            inv.name
        ));
    }
    if !at.starts_with(&format!("{f}:{line}:{col}: ")) {
        return Err(format!(
            "{}: ompcl's error is not at gcc's column {line}:{col}:\nompcl: {at}\ngcc: {g}",
            inv.name
        ));
    }
    if d.contains(".host.c") {
        return Err(format!("{}: broken generated C:\n{d}", inv.name));
    }
    Ok(())
}

#[test]
fn clause_matrix() {
    let keep = std::env::var_os("OMPCL_MATRIX_KEEP").map(PathBuf::from);
    let w = match &keep {
        Some(d) => {
            std::fs::create_dir_all(d).unwrap();
            d.canonicalize().unwrap()
        }
        None => work("clause-matrix"),
    };
    let icd = icd_dir(&w);
    let forms = valid_cases();
    let invalid = invalid_programs();
    let nvalid: usize = forms.iter().map(|(_, c)| c.len()).sum();
    // two workers (CI has two cores)
    let jobs = std::sync::Mutex::new(forms.iter().collect::<Vec<_>>());
    let failures = std::sync::Mutex::new(Vec::<String>::new());
    std::thread::scope(|sc| {
        for _ in 0..2 {
            sc.spawn(|| loop {
                let job = jobs.lock().unwrap().pop();
                let Some((f, cases)) = job else { break };
                for (_, why) in check_form(*f, cases, &w, &icd) {
                    failures.lock().unwrap().push(why);
                }
            });
        }
    });
    let mut failures = failures.into_inner().unwrap();
    let nfail_valid = failures.len();
    for inv in &invalid {
        if let Err(e) = check_invalid(inv, &w) {
            failures.push(e);
        }
    }
    let nfail_invalid = failures.len() - nfail_valid;
    let edges = edge_programs();
    for e in &edges {
        if let Err(x) = check_edge(e, &w, &icd) {
            failures.push(x);
        }
    }
    let total = nvalid + invalid.len() + edges.len();
    println!(
        "clause matrix: {total} combinations, {} passed, {} failed",
        total - failures.len(),
        failures.len()
    );
    println!(
        "  ({nvalid} valid in {} programs: {nfail_valid} failed; {} invalid, one program each: {nfail_invalid} failed; {} valid near the rules: {} failed)",
        forms.len(),
        invalid.len(),
        edges.len(),
        failures.len() - nfail_valid - nfail_invalid
    );
    if keep.is_none() {
        let _ = std::fs::remove_dir_all(&w);
    }
    assert!(failures.is_empty(), "{} combinations differ:\n{}", failures.len(), failures.join("\n"));
}
