//! Reductions written by hand: every thread accumulates into a variable of its own over its share
//! of a worksharing loop, then combines that into the shared result in a `critical` section (or
//! with an `atomic` update). Code older than OpenMP 3.1's `max`/`min` reductions is full of it, and
//! much newer code too. The region becomes a worksharing reduction, which ompcl makes a reduction
//! kernel of (a critical section would keep it on the CPU):
//!
//! ```c
//!                                               { double lmax = -1e300; if (lmax > mx) mx = lmax; }
//! #pragma omp parallel                          #pragma omp parallel
//! {                                             {
//!   double loc = 0, lmax = -1e300;
//!   #pragma omp for                       ->      #pragma omp for reduction(+: sum) reduction(max: mx)
//!   for (i = 0; i < n; i++) {                     for (i = 0; i < n; i++) {
//!     loc += a[i] * b[i];                           sum += a[i] * b[i];
//!     if (a[i] > lmax) lmax = a[i];                 if (a[i] > mx) mx = a[i];
//!   }                                             }
//!   #pragma omp critical
//!   { sum += loc; if (lmax > mx) mx = lmax; }
//! }                                             }
//!                                               }
//! ```
//!
//! The two agree for every number of threads: each thread's accumulator is the private copy the
//! clause gives it, which starts at the operation's identity, takes the same updates from the
//! same iterations and is combined into the shared variable once. For the idempotent operations
//! (`max`, `min`, `&`, `|`, `&&`, `||`) the accumulator may start from any value: the original
//! combines that value into the shared variable once per thread, the rewrite once in all, in a
//! block before the region (above), and combining a value again changes nothing. The rewrite is
//! made on the source text before the translation, so the CPU version runs it too; a region it
//! does not bring to OpenCL (other statements the translation cannot take) is left as written.
//!
//! What must hold (else the region is left as it is, on the CPU, the warning saying why):
//! - the combines are the whole statements of `critical` sections (named or not, no clauses) and
//!   `atomic` (update) statements at the region's top level: `s op= l`, `s = s op l`, `s = l op s`
//!   (op commutative), `s -= l`, `s = s - l` (a sum, `l` subtracted), `if (l > s) s = l;`,
//!   `s = l > s ? l : s`, `s = fmax(s, l)` (and the mirrored comparisons, the min forms);
//! - each accumulator `l` is declared at the region's top level (not static), or is `private` on
//!   it and set once by a top-level `l = init;`, with the shared variable's own arithmetic type;
//!   for `+`, `*`, `^` its initial value is the identity (0, 1, 0); for the idempotent operations
//!   it may be any value computed from constants and from scalars declared outside the region
//!   that the region does not write and whose address is never taken;
//! - `l` appears only in its initialisation, its combine, and updates of its own operation (the
//!   forms above with `l` the target and an expression `e` reading neither `l` nor the shared
//!   variable; for max/min `e` is read twice, so it has no side effects), each a statement of its
//!   own (its value unused) in one top-level `omp for` loop before the combine, outside any
//!   directive nested in the loop;
//! - the shared variable `s` appears in the region only in combines, all of one operation and of
//!   accumulators of one loop; it is declared outside the region, shared there (not in the
//!   `parallel`'s private, firstprivate, lastprivate, reduction or copyin lists, not threadprivate),
//!   named by no directive inside, not declared again inside, its address never taken; a global
//!   (or static) one only where the region calls none of the program's functions (which could read
//!   it while the loop runs, where the original still holds its old value);
//! - the region is not nested in a target construct and has no `parallel` inside.

use super::sequence::written_variable;
use super::*;

/// A reduction operation, as the updates and the combine spell it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Op {
    Add,
    Mul,
    And,
    Or,
    Xor,
    LAnd,
    LOr,
    Max,
    Min,
}

impl Op {
    /// The operation's name in a reduction clause.
    fn clause(self) -> &'static str {
        match self {
            Op::Add => "+",
            Op::Mul => "*",
            Op::And => "&",
            Op::Or => "|",
            Op::Xor => "^",
            Op::LAnd => "&&",
            Op::LOr => "||",
            Op::Max => "max",
            Op::Min => "min",
        }
    }

    /// The value the private copies start from, where combining a value twice would count it
    /// twice (None: the operation is idempotent, any start combined once more does).
    fn identity(self) -> Option<f64> {
        match self {
            Op::Add | Op::Xor => Some(0.0),
            Op::Mul => Some(1.0),
            _ => None,
        }
    }

    /// The operation of `x op= e`, and whether `e` is subtracted.
    fn of_compound(binop: i32) -> Option<(Op, bool)> {
        Some(match binop {
            CXBinaryOperator_AddAssign => (Op::Add, false),
            CXBinaryOperator_SubAssign => (Op::Add, true),
            CXBinaryOperator_MulAssign => (Op::Mul, false),
            CXBinaryOperator_AndAssign => (Op::And, false),
            CXBinaryOperator_OrAssign => (Op::Or, false),
            CXBinaryOperator_XorAssign => (Op::Xor, false),
            _ => return None,
        })
    }

    /// The operation of `x = x op e`, and whether `e` is subtracted.
    fn of_binary(binop: i32) -> Option<(Op, bool)> {
        Some(match binop {
            CXBinaryOperator_Add => (Op::Add, false),
            CXBinaryOperator_Sub => (Op::Add, true),
            CXBinaryOperator_Mul => (Op::Mul, false),
            CXBinaryOperator_And => (Op::And, false),
            CXBinaryOperator_Or => (Op::Or, false),
            CXBinaryOperator_Xor => (Op::Xor, false),
            CXBinaryOperator_LAnd => (Op::LAnd, false),
            CXBinaryOperator_LOr => (Op::LOr, false),
            _ => return None,
        })
    }
}

/// A statement that updates a variable by a reduction operation (module comment: the loop's
/// updates of an accumulator, and the combine of the accumulator into the shared variable).
struct Form {
    /// the variable updated (its declaration)
    target: Node,
    op: Op,
    /// the operand is subtracted (`x -= e`, `x = x - e`, `x--`)
    negated: bool,
    /// the operand `e`; None for `x++`, `x--` (1)
    operand: Option<Node>,
    /// the references to the target in the statement
    target_refs: Vec<Node>,
    /// an `atomic` update may have this form (not the max/min ones, `&&`, `||`)
    atomic_ok: bool,
}

/// One accumulator of the region.
struct Acc {
    decl: Node,
    key: String,
    shared: Node,
    op: Op,
    /// the combine subtracts it (`s -= l`)
    negated: bool,
    /// the combine: its top-level statement's index and its text (with the `;`)
    combine_kid: usize,
    combine_text: String,
    /// the initial value
    init: Option<Node>,
    /// a `private` accumulator: its top-level `l = init;` (index)
    init_kid: Option<usize>,
    /// the loop updating it (top-level index)
    loop_kid: Option<usize>,
}

/// Why a region of the idiom's shape is not rewritten (None: it does not have the shape).
type Refusal = Option<String>;

fn refuse<T>(why: impl Into<String>) -> Result<T, Refusal> {
    Err(Some(why.into()))
}

/// The variable `n` refers to, if it is a plain variable (parentheses, implicit casts aside).
fn var_ref(n: Node) -> Option<(Node, Node)> {
    let n = strip(n);
    if n.kind() != CXCursor_DeclRefExpr {
        return None;
    }
    let d = n.referenced()?;
    matches!(d.kind(), CXCursor_VarDecl | CXCursor_ParmDecl).then_some((n, d))
}

/// Whether `n` is a reference to the declaration `key`.
fn is_ref_to(n: Node, key: &str) -> bool {
    var_ref(n).is_some_and(|(_, d)| key_of(&d) == key)
}

/// The children of `n` that are statements of their own (whose value nothing uses).
fn statement_children(n: Node) -> Vec<Node> {
    let ch = n.children();
    match n.kind() {
        CXCursor_CompoundStmt | CXCursor_LabelStmt | CXCursor_DefaultStmt => ch,
        CXCursor_IfStmt => ch.into_iter().skip(1).collect(),
        CXCursor_ForStmt | CXCursor_WhileStmt | CXCursor_SwitchStmt | CXCursor_CaseStmt => {
            ch.last().copied().into_iter().collect()
        }
        CXCursor_DoStmt => ch.first().copied().into_iter().collect(),
        _ => Vec::new(),
    }
}

/// Whether expressions `a` and `b` compute the same value: the same operators on the same
/// variables and constants (a max/min update names its operand twice).
fn same_expr(a: Node, b: Node) -> bool {
    let (a, b) = (strip(a), strip(b));
    if a.kind() != b.kind() {
        return false;
    }
    let kids = |n: Node| -> Vec<Node> { n.children().into_iter().filter(|c| c.is_expr()).collect() };
    let same_kids = || {
        let (ka, kb) = (kids(a), kids(b));
        ka.len() == kb.len() && ka.iter().zip(&kb).all(|(x, y)| same_expr(*x, *y))
    };
    let same_type = || a.ty().canonical().spelling() == b.ty().canonical().spelling();
    match a.kind() {
        CXCursor_IntegerLiteral | CXCursor_FloatingLiteral | CXCursor_CharacterLiteral => {
            same_type() && a.eval_number().is_some() && a.eval_number() == b.eval_number()
        }
        CXCursor_DeclRefExpr => {
            a.referenced().zip(b.referenced()).is_some_and(|(x, y)| key_of(&x) == key_of(&y))
        }
        CXCursor_BinaryOperator => a.binop() == b.binop() && same_kids(),
        CXCursor_UnaryOperator => a.unop() == b.unop() && same_kids(),
        CXCursor_MemberRefExpr => a.spelling() == b.spelling() && same_kids(),
        CXCursor_CStyleCastExpr => same_type() && same_kids(),
        CXCursor_ArraySubscriptExpr | CXCursor_CallExpr | CXCursor_ConditionalOperator => same_kids(),
        _ => false,
    }
}

/// Whether evaluating `e` changes nothing (no assignment, no call but of the C library's math).
fn pure(e: Node) -> bool {
    nodes_of(e).into_iter().all(|n| match n.kind() {
        CXCursor_CompoundAssignOperator => false,
        CXCursor_BinaryOperator => n.binop() != CXBinaryOperator_Assign,
        CXCursor_UnaryOperator => !(CXUnaryOperator_PostInc..=CXUnaryOperator_PreDec).contains(&n.unop()),
        CXCursor_CallExpr => n.referenced().is_some_and(|f| {
            let name = f.spelling();
            name.starts_with("__builtin_") || (f.in_system_header() && CL_BUILTINS.contains(&name.as_str()))
        }),
        _ => true,
    })
}

/// `a rel b` with one side the variable `key`: (its reference, the other side, whether the
/// comparison holds when the other side is the larger).
fn comparison(cond: Node, key: &str) -> Option<(Node, Node, bool)> {
    let c = strip(cond);
    if c.kind() != CXCursor_BinaryOperator {
        return None;
    }
    let a_larger = match c.binop() {
        CXBinaryOperator_GT | CXBinaryOperator_GE => true,
        CXBinaryOperator_LT | CXBinaryOperator_LE => false,
        _ => return None,
    };
    let ch = c.children();
    let (a, b) = (strip(ch[0]), strip(ch[1]));
    match (is_ref_to(a, key), is_ref_to(b, key)) {
        (false, true) => Some((b, a, a_larger)),
        (true, false) => Some((a, b, !a_larger)),
        _ => None,
    }
}

impl Translator<'_> {
    /// Statement `st` as an update by a reduction operation (`Form`), or None.
    fn form(&self, st: Node) -> Option<Form> {
        let f = self.form_parts(st)?;
        // the operand does not read the target (nor, for max/min, its copy in the comparison,
        // the same expression)
        let key = key_of(&f.target);
        f.operand.is_none_or(|e| !self.mentions(e, &key)).then_some(f)
    }

    /// `form` but for the operand's reading of the target.
    fn form_parts(&self, st: Node) -> Option<Form> {
        let ch = st.children();
        match st.kind() {
            CXCursor_CompoundAssignOperator => {
                let (r, target) = var_ref(ch[0])?;
                let (op, negated) = Op::of_compound(st.binop())?;
                Some(Form {
                    target,
                    op,
                    negated,
                    operand: Some(ch[1]),
                    target_refs: vec![r],
                    atomic_ok: true,
                })
            }
            CXCursor_UnaryOperator => {
                let negated = match st.unop() {
                    CXUnaryOperator_PostInc | CXUnaryOperator_PreInc => false,
                    CXUnaryOperator_PostDec | CXUnaryOperator_PreDec => true,
                    _ => return None,
                };
                let (r, target) = var_ref(ch[0])?;
                Some(Form {
                    target,
                    op: Op::Add,
                    negated,
                    operand: None,
                    target_refs: vec![r],
                    atomic_ok: true,
                })
            }
            CXCursor_BinaryOperator if st.binop() == CXBinaryOperator_Assign => {
                let (r, target) = var_ref(ch[0])?;
                let key = key_of(&target);
                let rhs = strip(ch[1]);
                let rc = rhs.children();
                match rhs.kind() {
                    CXCursor_BinaryOperator => {
                        let (op, negated) = Op::of_binary(rhs.binop())?;
                        let (t, e) = if is_ref_to(rc[0], &key) {
                            (rc[0], rc[1])
                        } else if !negated && is_ref_to(rc[1], &key) {
                            (rc[1], rc[0])
                        } else {
                            return None;
                        };
                        let atomic_ok = !matches!(op, Op::LAnd | Op::LOr);
                        Some(Form {
                            target,
                            op,
                            negated,
                            operand: Some(e),
                            target_refs: vec![r, strip(t)],
                            atomic_ok,
                        })
                    }
                    // x = e > x ? e : x  (max), x = e > x ? x : e  (min), and mirrored
                    CXCursor_ConditionalOperator if rc.len() == 3 => {
                        let (t, e, e_larger) = comparison(rc[0], &key)?;
                        let (op, branch_t, e2) = if is_ref_to(rc[2], &key) && same_expr(rc[1], e) {
                            (if e_larger { Op::Max } else { Op::Min }, rc[2], rc[1])
                        } else if is_ref_to(rc[1], &key) && same_expr(rc[2], e) {
                            (if e_larger { Op::Min } else { Op::Max }, rc[1], rc[2])
                        } else {
                            return None;
                        };
                        pure(e).then_some(Form {
                            target,
                            op,
                            negated: false,
                            operand: Some(e2),
                            target_refs: vec![r, t, strip(branch_t)],
                            atomic_ok: false,
                        })
                    }
                    // x = fmax(x, e), fmaxf, fmin, fminf: the C library's, on a floating x (fmaxf
                    // on a float one: a double would be rounded)
                    CXCursor_CallExpr if rhs.num_args() == 2 => {
                        let f = rhs.referenced().filter(|f| f.in_system_header())?;
                        let op = match f.spelling().as_str() {
                            "fmax" | "fmaxf" => Op::Max,
                            "fmin" | "fminf" => Op::Min,
                            _ => return None,
                        };
                        let tk = target.ty().canonical().kind();
                        if !(tk == CXType_Float || (tk == CXType_Double && !f.spelling().ends_with('f'))) {
                            return None;
                        }
                        let (a0, a1) = (rhs.arg(0), rhs.arg(1));
                        let (t, e) = if is_ref_to(a0, &key) { (a0, a1) } else { (a1, a0) };
                        if !is_ref_to(t, &key) {
                            return None;
                        }
                        Some(Form {
                            target,
                            op,
                            negated: false,
                            operand: Some(e),
                            target_refs: vec![r, strip(t)],
                            atomic_ok: false,
                        })
                    }
                    _ => None,
                }
            }
            // if (e > x) x = e;  (max), if (e < x) x = e;  (min), and mirrored
            CXCursor_IfStmt if ch.len() == 2 => {
                let mut then = strip(ch[1]);
                if then.kind() == CXCursor_CompoundStmt {
                    let k = then.children();
                    if k.len() != 1 {
                        return None;
                    }
                    then = k[0];
                }
                if then.kind() != CXCursor_BinaryOperator || then.binop() != CXBinaryOperator_Assign {
                    return None;
                }
                let tc = then.children();
                let (r, target) = var_ref(tc[0])?;
                let (t, e, e_larger) = comparison(ch[0], &key_of(&target))?;
                (same_expr(e, tc[1]) && pure(e)).then_some(Form {
                    target,
                    op: if e_larger { Op::Max } else { Op::Min },
                    negated: false,
                    operand: Some(tc[1]),
                    target_refs: vec![r, t],
                    atomic_ok: false,
                })
            }
            _ => None,
        }
    }

    /// The offset of reference `r` as written in the region `(s, e)` (a macro's argument: where
    /// the argument is), when renaming the text there renames this reference.
    fn ref_offset(&self, r: Node, (s, e): (usize, usize), name: &str) -> Option<usize> {
        let at = r.loc_spelling();
        let text = self.cx.text;
        let spelled = at.file == self.cx.file
            && at.off >= s
            && at.off < e
            && text.get(at.off..at.off + name.len()) == Some(name)
            && !text[at.off + name.len()..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_');
        // inside a macro's expansion: renaming its argument could change a string made of it
        // (`#x`); no macro of the file makes one
        let expanded = r.loc().off != at.off || r.loc().file != at.file;
        (spelled && !(expanded && self.macros_stringify())).then_some(at.off)
    }

    /// Whether a macro of the file stringifies or pastes its arguments (`#x`, `a##b`).
    fn macros_stringify(&self) -> bool {
        self.cx.text.replace("\\\n", " ").lines().any(|l| {
            let l = l.trim_start();
            l.strip_prefix('#')
                .map(str::trim_start)
                .is_some_and(|d| d.starts_with("define") && d.contains('#'))
        })
    }

    /// Whether `n`'s text is as written at its place (no macro around it).
    fn written_here(&self, n: Node) -> bool {
        let ((s, e), (ss, se)) = (n.range(), n.spelling_range());
        s.file == self.cx.file && (s.file, s.off, e.off) == (ss.file.clone(), ss.off, se.off) && s.off < e.off
    }

    /// The source text with every `parallel` region of the hand-written reduction form rewritten
    /// (but those of `skip`), per line of it the line of `self.cx.text` it comes from, and the
    /// regions rewritten (pragma indices); None when no region is. Also, per region of the form's
    /// shape left as it is, why (by the directive's line).
    pub(super) fn manual_reduction_rewrite(
        &self,
        tu: &clang::Tu,
        skip: &HashSet<usize>,
    ) -> (Option<(String, Vec<u32>, Vec<usize>)>, HashMap<u32, String>) {
        let mut edits = Vec::new();
        let mut done = Vec::new();
        let mut why = HashMap::new();
        let mut addr_taken: Option<HashSet<String>> = None;
        let targets = self.target_ranges();
        for (pi, p) in self.cx.pragmas.iter().enumerate() {
            if !p.is(&["parallel"]) || skip.contains(&pi) {
                continue;
            }
            if targets.iter().any(|&(s, e)| p.line_start >= s && p.line_start < e) {
                continue;
            }
            let taken = addr_taken.get_or_insert_with(|| address_taken(tu, &self.cx.file));
            match self.plan_manual(pi, taken) {
                Ok(mut e) => {
                    edits.append(&mut e);
                    done.push(pi);
                }
                Err(Some(w)) => {
                    why.insert(p.line, format!("not a reduction written by hand: {w}"));
                }
                Err(None) => {}
            }
        }
        if done.is_empty() {
            return (None, why);
        }
        let (text, lines) = super::interchange::apply_edits(self.cx.text, edits);
        (Some((text, lines, done)), why)
    }

    /// The edits that rewrite region `pi` (module comment), or why not.
    fn plan_manual(&self, pi: usize, addr_taken: &HashSet<String>) -> Result<Vec<Edit>, Refusal> {
        let p = &self.cx.pragmas[pi];
        let &(node, s, e) = self.cx.assoc.get(&pi).ok_or(None)?;
        let body = strip(node);
        if body.kind() != CXCursor_CompoundStmt || p.unknown.is_some() {
            return Err(None);
        }
        let kids = body.children();
        let inner = self.pragmas_in(s, e);
        let kid_of = |q: usize| -> Option<usize> {
            let a = self.cx.assoc.get(&q)?;
            kids.iter().position(|k| a.0.equals(k))
        };
        // the top-level worksharing loops and combines: (pragma, statement index)
        let top = |words: &[&str]| -> Vec<(usize, usize)> {
            inner
                .iter()
                .filter(|&&q| words.iter().any(|w| self.cx.pragmas[q].directive[0] == *w))
                .filter_map(|&q| kid_of(q).map(|k| (q, k)))
                .collect()
        };
        let loops: Vec<(usize, usize)> =
            top(&["for"]).into_iter().filter(|&(q, _)| self.cx.pragmas[q].is(&["for"])).collect();
        let combines = top(&["critical", "atomic"]);
        if loops.is_empty() || combines.is_empty() {
            return Err(None);
        }
        if inner.iter().any(|&q| self.cx.pragmas[q].directive[0] == "parallel") {
            return refuse("a 'parallel' region inside it");
        }
        let region = (p.line_start, e);
        let in_region = |d: &Node| {
            let l = d.loc();
            l.file == self.cx.file && l.off >= region.0 && l.off < region.1
        };

        // the combines: every statement of the top-level critical sections and atomics
        let mut accs: Vec<Acc> = Vec::new();
        for &(q, k) in &combines {
            let qp = &self.cx.pragmas[q];
            let atomic = qp.directive[0] == "atomic";
            let clauses_ok = if atomic {
                qp.is(&["atomic"])
                    && qp.clauses.iter().all(|c| ["update", "seq_cst", "relaxed"].contains(&c.name.as_str()))
            } else {
                qp.is(&["critical"]) && qp.clauses.is_empty()
            };
            if !clauses_ok {
                return refuse(format!("'{}' at line {} is not a plain update", qp.name(), qp.line));
            }
            let st = kids[k];
            let stmts: Vec<Node> = if st.kind() == CXCursor_CompoundStmt && !atomic {
                st.children().into_iter().filter(|c| c.kind() != CXCursor_NullStmt).collect()
            } else {
                vec![st]
            };
            for c in stmts {
                let line = self.cx.text[..c.range().0.off].matches('\n').count() + 1;
                let not_combine = || {
                    format!(
                        "the statement at line {line} (in '{}') is not a combine 'shared op= private'",
                        qp.name()
                    )
                };
                let f = self.form(c).ok_or_else(|| Some(not_combine()))?;
                let (_, l) = f.operand.and_then(var_ref).ok_or_else(|| Some(not_combine()))?;
                if atomic && !f.atomic_ok {
                    return refuse(not_combine());
                }
                let (ss, se) = c.range();
                let text = self.cx.text[ss.off..self.cx.stmt_end(se.off)].to_string();
                if accs.iter().any(|a| key_of(&a.decl) == key_of(&l)) {
                    return refuse(format!("'{}' is combined twice", l.spelling()));
                }
                accs.push(Acc {
                    key: key_of(&l),
                    decl: l,
                    shared: f.target,
                    op: f.op,
                    negated: f.negated,
                    combine_kid: k,
                    combine_text: text,
                    init: None,
                    init_kid: None,
                    loop_kid: None,
                });
            }
        }

        // the accumulators: their declarations, types and initial values
        let privates = p.list("private");
        let not_shared = not_shared(p);
        for a in accs.iter_mut() {
            let (l, sv) = (a.decl, a.shared);
            let (lname, sname) = (l.spelling(), sv.spelling());
            if in_region(&sv) {
                return refuse(format!(
                    "'{sname}', which '{lname}' is combined into, is declared inside the region"
                ));
            }
            let ty = sv.ty().canonical();
            let arith = matches!(
                ty.kind(),
                CXType_Char_S
                    | CXType_SChar
                    | CXType_Char_U
                    | CXType_UChar
                    | CXType_Short
                    | CXType_UShort
                    | CXType_Int
                    | CXType_UInt
                    | CXType_Long
                    | CXType_ULong
                    | CXType_LongLong
                    | CXType_ULongLong
                    | CXType_Float
                    | CXType_Double
            );
            if !arith || l.ty().canonical().spelling() != ty.spelling() {
                return refuse(format!("'{lname}' and '{sname}' are not of one arithmetic type"));
            }
            if in_region(&l) {
                // declared at the region's top level, with an initial value
                let decl_kid = kids
                    .iter()
                    .position(|k| k.kind() == CXCursor_DeclStmt && k.children().iter().any(|d| d.equals(&l)));
                let init = l.children().into_iter().rfind(|c| c.is_expr());
                match (decl_kid, init) {
                    (Some(_), Some(i)) if !l.storage_static() && !l.storage_extern() => a.init = Some(i),
                    _ => {
                        return refuse(format!(
                            "'{lname}' is not declared with an initial value at the region's top level"
                        ))
                    }
                }
            } else {
                // private on the region, set once at its top level
                let elsewhere = not_shared.iter().filter(|v| **v == lname).count() > 1;
                if !privates.contains(&lname) || elsewhere {
                    return refuse(format!("'{lname}' is neither declared in the region nor private on it"));
                }
                let sets: Vec<usize> = (0..kids.len())
                    .filter(|&k| {
                        let n = kids[k];
                        n.kind() == CXCursor_BinaryOperator
                            && n.binop() == CXBinaryOperator_Assign
                            && is_ref_to(n.children()[0], &a.key)
                    })
                    .collect();
                let [k] = sets[..] else {
                    return refuse(format!("private '{lname}' is not set once at the region's top level"));
                };
                a.init_kid = Some(k);
                a.init = Some(kids[k].children()[1]);
            }
            let init = a.init.expect("set above");
            match a.op.identity() {
                Some(id) if init.eval_number() != Some(id) => {
                    return refuse(format!(
                        "'{lname}' does not start at {id} (the identity of '{}')",
                        a.op.clause()
                    ));
                }
                Some(_) => {}
                // combined once more before the region: its value must be the same there
                None => self.invariant(init, region, body, p, addr_taken).map_err(|w| {
                    Some(format!("the initial value of '{lname}' ({w}) may differ before the region"))
                })?,
            }
        }

        // the shared variables
        let user_calls = nodes_of(body)
            .into_iter()
            .any(|n| n.kind() == CXCursor_CallExpr && !n.referenced().is_some_and(|f| f.in_system_header()));
        for a in &accs {
            let (sv, sname) = (a.shared, a.shared.spelling());
            if accs.iter().any(|b| key_of(&b.shared) == key_of(&sv) && b.op != a.op) {
                return refuse(format!("'{sname}' is combined by two operations"));
            }
            if not_shared.contains(&sname) || self.cx.threadprivate.contains(&sname) {
                return refuse(format!("'{sname}' is not shared in the region"));
            }
            if addr_taken.contains(&key_of(&sv)) {
                return refuse(format!("the address of '{sname}' is taken"));
            }
            let global = sv.semantic_parent().kind() == CXCursor_TranslationUnit || sv.storage_static();
            if global && user_calls {
                return refuse(format!(
                    "'{sname}' is global and the region calls functions (which may read it)"
                ));
            }
            let shadowed =
                nodes_of(body).into_iter().any(|n| n.kind() == CXCursor_VarDecl && n.spelling() == sname);
            if shadowed {
                return refuse(format!("a variable inside the region is named '{sname}' too"));
            }
        }
        // no directive inside names an accumulator or a shared variable (`flush(s)`, a loop's
        // `private(l)`)
        for &q in &inner {
            let qp = &self.cx.pragmas[q];
            let mut texts: Vec<&str> = qp.clauses.iter().filter_map(|c| c.arg.as_deref()).collect();
            if qp.directive[0] == "flush" {
                texts.extend(qp.dir_arg.as_deref());
            }
            for a in &accs {
                for name in [a.decl.spelling(), a.shared.spelling()] {
                    if texts.iter().any(|t| mentions(t, &name)) {
                        return refuse(format!("'{}' at line {} names '{name}'", qp.name(), qp.line));
                    }
                }
            }
        }

        // the updates, in the top-level loops (outside the directives nested in them)
        let mut accounted: Vec<Node> = Vec::new();
        let mut updates: Vec<(usize, Node, Form)> = Vec::new(); // (accumulator, statement, form)
        for &(q, k) in &loops {
            let lp = kids[k];
            let (ls, le) = (lp.range().0.off, lp.range().1.off);
            let nested: Vec<(usize, usize)> = self
                .pragmas_in(ls, le)
                .into_iter()
                .filter(|&o| o != q)
                .filter_map(|o| {
                    self.cx.assoc.get(&o).map(|&(_, s, e)| (self.cx.pragmas[o].line_start.min(s), e))
                })
                .collect();
            let mut stmts = vec![];
            for n in nodes_of(lp) {
                stmts.extend(statement_children(n));
            }
            for st in stmts {
                let Some(f) = self.form(st) else { continue };
                let Some(ai) = accs.iter().position(|a| a.key == key_of(&f.target)) else { continue };
                let a = &mut accs[ai];
                let at = st.range().0.off;
                if f.op != a.op || nested.iter().any(|&(s, e)| at >= s && at < e) {
                    continue;
                }
                if a.loop_kid.is_some_and(|lk| lk != k) {
                    return refuse(format!("'{}' is updated in two loops", a.decl.spelling()));
                }
                a.loop_kid = Some(k);
                accounted.extend(f.target_refs.iter().copied());
                updates.push((ai, st, f));
            }
        }
        // every reference to an accumulator or a shared variable in the region is one of those
        // accounted for: the updates', the combines', the initialisations'
        for a in &accs {
            let c = kids[a.combine_kid];
            for n in nodes_of(c) {
                if n.kind() == CXCursor_DeclRefExpr
                    && n.referenced().is_some_and(|d| key_of(&d) == a.key || key_of(&d) == key_of(&a.shared))
                {
                    accounted.push(n);
                }
            }
            if let Some(k) = a.init_kid {
                accounted.push(strip(kids[k].children()[0]));
            }
        }
        for n in nodes_of(body) {
            if n.kind() != CXCursor_DeclRefExpr {
                continue;
            }
            let Some(d) = n.referenced() else { continue };
            let key = key_of(&d);
            let Some(a) = accs.iter().find(|a| a.key == key || key_of(&a.shared) == key) else { continue };
            if !accounted.iter().any(|x| x.equals(&n)) {
                let line = self.cx.text[..n.range().0.off].matches('\n').count() + 1;
                let what = if a.key == key { "accumulator" } else { "shared variable" };
                return refuse(format!(
                    "the {what} '{}' is used at line {line} other than in an update of its operation or its combine",
                    d.spelling()
                ));
            }
        }

        for a in &accs {
            let lname = a.decl.spelling();
            match a.loop_kid {
                Some(lk) if lk < a.combine_kid => {}
                Some(_) => return refuse(format!("'{lname}' is combined before its loop")),
                None => {
                    return refuse(format!("'{lname}' is not updated in an 'omp for' loop of the region"))
                }
            }
            if a.init_kid.zip(a.loop_kid).is_some_and(|(i, l)| i > l) {
                return refuse(format!("private '{lname}' is set after its loop"));
            }
            let one_loop =
                accs.iter().all(|b| key_of(&b.shared) != key_of(&a.shared) || b.loop_kid == a.loop_kid);
            if !one_loop {
                return refuse(format!(
                    "'{}' is combined from the accumulators of two loops",
                    a.shared.spelling()
                ));
            }
        }
        self.manual_edits(p, region, &kids, (&loops, &combines), &accs, &updates)
    }

    /// Whether expression `init` has the same value before region `region` (whose body is
    /// `body`, directive `p`) as at its start: constants, and scalars declared outside that the
    /// region does not write and whose address is never taken; else what it reads.
    fn invariant(
        &self,
        init: Node,
        region: (usize, usize),
        body: Node,
        p: &Pragma,
        addr_taken: &HashSet<String>,
    ) -> Result<(), String> {
        let text = || self.src(init).to_string();
        let written: HashSet<String> =
            nodes_of(body).into_iter().filter_map(written_variable).map(|d| key_of(&d)).collect();
        let calls = nodes_of(body).into_iter().any(|n| n.kind() == CXCursor_CallExpr);
        for n in nodes_of(init) {
            let ok = match n.kind() {
                CXCursor_IntegerLiteral
                | CXCursor_FloatingLiteral
                | CXCursor_CharacterLiteral
                | CXCursor_StringLiteral
                | CXCursor_ParenExpr
                | CXCursor_UnexposedExpr
                | CXCursor_CStyleCastExpr
                | CXCursor_TypeRef
                | CXCursor_ConditionalOperator
                | CXCursor_UnaryExpr => true,
                CXCursor_UnaryOperator => matches!(
                    n.unop(),
                    CXUnaryOperator_Plus | CXUnaryOperator_Minus | CXUnaryOperator_Not | CXUnaryOperator_LNot
                ),
                CXCursor_BinaryOperator => {
                    !matches!(n.binop(), CXBinaryOperator_Assign | CXBinaryOperator_Comma)
                }
                // INFINITY, HUGE_VAL, NAN: the compiler's constants
                CXCursor_CallExpr => n.referenced().is_some_and(|f| f.spelling().starts_with("__builtin_")),
                CXCursor_DeclRefExpr => n.referenced().is_some_and(|d| match d.kind() {
                    CXCursor_EnumConstantDecl => true,
                    CXCursor_FunctionDecl => d.spelling().starts_with("__builtin_"),
                    CXCursor_VarDecl | CXCursor_ParmDecl => {
                        let l = d.loc();
                        let inside = l.file == self.cx.file && l.off >= region.0 && l.off < region.1;
                        let global =
                            d.semantic_parent().kind() == CXCursor_TranslationUnit || d.storage_static();
                        let name = d.spelling();
                        !inside
                            && d.ty().is_arith()
                            && !written.contains(&key_of(&d))
                            && !addr_taken.contains(&key_of(&d))
                            && !(global && calls)
                            && !self.cx.threadprivate.contains(&name)
                            && !not_shared(p).contains(&name)
                    }
                    _ => false,
                }),
                _ => false,
            };
            if !ok {
                return Err(text());
            }
        }
        Ok(())
    }

    /// Phase of `plan_manual`: the edits once every rule holds.
    fn manual_edits(
        &self,
        p: &Pragma,
        region: (usize, usize),
        kids: &[Node],
        (loops, combines): (&[(usize, usize)], &[(usize, usize)]),
        accs: &[Acc],
        updates: &[(usize, Node, Form)],
    ) -> Result<Vec<Edit>, Refusal> {
        let mut edits = Vec::new();
        // the loops' reduction clauses, one per operation, in the order of the combines
        for &(q, k) in loops {
            let mut clauses: Vec<(Op, Vec<String>)> = Vec::new();
            for a in accs.iter().filter(|a| a.loop_kid == Some(k)) {
                let name = a.shared.spelling();
                match clauses.iter_mut().find(|(op, _)| *op == a.op) {
                    Some((_, names)) if names.contains(&name) => {}
                    Some((_, names)) => names.push(name),
                    None => clauses.push((a.op, vec![name])),
                }
            }
            let text: String = clauses
                .iter()
                .map(|(op, names)| format!(" reduction({}: {})", op.clause(), names.join(", ")))
                .collect();
            if !text.is_empty() {
                let end = self.cx.pragmas[q].end;
                edits.push(Edit { start: end, end, text });
            }
        }
        // the updates act on the shared variable (the clause's private copy) instead
        let mut renamed: BTreeMap<usize, (usize, String)> = BTreeMap::new(); // offset -> (length, name)
        for (ai, st, f) in updates {
            let a = &accs[*ai];
            let (lname, sname) = (a.decl.spelling(), a.shared.spelling());
            if !a.negated {
                for r in &f.target_refs {
                    let off = self.ref_offset(*r, region, &lname).ok_or_else(|| {
                        Some(format!("'{lname}' is spelt inside a macro at line {}", r.loc().line))
                    })?;
                    renamed.insert(off, (lname.len(), sname.clone()));
                }
                continue;
            }
            // `s -= l`: each update's operand is subtracted from the shared variable instead
            let sign = if f.negated { '+' } else { '-' };
            let e = match f.operand {
                Some(e) if self.written_here(e) && self.written_here(*st) => self.src(e).to_string(),
                None if self.written_here(*st) => "1".into(),
                _ => return refuse(format!("an update of '{lname}' is inside a macro")),
            };
            let (s, t) = st.range();
            edits.push(Edit { start: s.off, end: t.off, text: format!("{sname} {sign}= ({e})") });
        }
        edits.extend(renamed.into_iter().map(|(off, (len, text))| Edit { start: off, end: off + len, text }));
        // the combines (from their directive's line), the accumulators' declarations (when they
        // declare nothing else) and their initialisations go
        let drop_kid = |k: usize| {
            let (s, e) = kids[k].range();
            let start =
                combines.iter().find(|c| c.1 == k).map_or(s.off, |&(q, _)| self.cx.pragmas[q].line_start);
            Edit { start, end: self.cx.stmt_end(e.off), text: String::new() }
        };
        let mut dropped: BTreeSet<usize> = accs.iter().map(|a| a.combine_kid).collect();
        dropped.extend(accs.iter().filter_map(|a| a.init_kid));
        for (k, kid) in kids.iter().enumerate() {
            if kid.kind() != CXCursor_DeclStmt {
                continue;
            }
            let vars = kid.children();
            if vars.iter().all(|v| accs.iter().any(|a| a.decl.equals(v))) {
                dropped.insert(k);
            }
        }
        edits.extend(dropped.into_iter().map(drop_kid));
        // the idempotent operations' initial values, combined once before the region (in a block
        // with it: the region may be the statement of an `if`)
        let mut before = String::new();
        for a in accs.iter().filter(|a| a.op.identity().is_none()) {
            let ty = a.decl.ty().canonical().spelling();
            let init = a.init.map_or("", |i| self.src(i));
            let _ = write!(before, "{{ {ty} {} = {init}; {} }} ", a.decl.spelling(), a.combine_text);
        }
        if !before.is_empty() {
            edits.push(Edit { start: p.line_start, end: p.line_start, text: format!("{{ {before}\n") });
            edits.push(Edit { start: region.1, end: region.1, text: " }".into() });
        }
        Ok(edits)
    }
}

/// The variables that `p`'s clauses make other than shared in its region, once per mention
/// (private, firstprivate, lastprivate, reduction, copyin, linear).
fn not_shared(p: &Pragma) -> Vec<String> {
    let mut v: Vec<String> = ["private", "firstprivate", "lastprivate", "copyin", "linear"]
        .iter()
        .flat_map(|c| p.list(c))
        .map(|x| x.split(':').next().unwrap_or("").trim().to_string())
        .collect();
    v.extend(p.reductions().into_iter().map(|(_, x)| x.split('[').next().unwrap_or("").trim().to_string()));
    v
}

/// The variables whose address the file's functions take (`&x`): a pointer could read or write
/// them anywhere.
fn address_taken(tu: &clang::Tu, file: &str) -> HashSet<String> {
    let mut taken = HashSet::new();
    for f in tu.root().children() {
        if f.kind() != CXCursor_FunctionDecl || f.range().0.file != file {
            continue;
        }
        f.walk(&mut |n| {
            if n.kind() == CXCursor_UnaryOperator && n.unop() == CXUnaryOperator_AddrOf {
                if let Some((_, d)) = n.children().first().and_then(|c| var_ref(*c)) {
                    taken.insert(key_of(&d));
                }
            }
        });
    }
    taken
}
