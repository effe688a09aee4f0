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
//!   that the region does not write and whose address is never taken, but a floating max/min
//!   starts at a constant that is a number (from a NaN it would never change: `if (e > l)` fails);
//! - `l` appears only in its initialisation, its combine, and updates of its own operation (the
//!   forms above with `l` the target and an expression `e` reading neither `l` nor the shared
//!   variable, and `l++`, `l--` for a sum; for max/min `e` is read twice and for `&&`/`||` it is
//!   skipped once `l` decides, so then it has no side effects), each a statement of its own (its
//!   value unused) in one top-level `omp for` loop before the combine, outside any directive
//!   nested in the loop; the updates are renamed where `l` is written (in a macro's argument too,
//!   unless a macro of the file stringifies or pastes its arguments), and where the combine
//!   subtracts `l` their sign is flipped (`l += e` becomes `s -= e`, `l = e + l` becomes
//!   `s = -(e) + s`);
//! - the shared variable `s` appears in the region only in combines, all of one operation and of
//!   accumulators of one loop; it is declared outside the region, shared there (not in the
//!   `parallel`'s private, firstprivate, lastprivate, reduction or copyin lists, not threadprivate),
//!   named by no directive inside, not declared again inside, its address never taken; a global
//!   (or static) one only where the region calls none of the program's functions (which could read
//!   it while the loop runs, where the original still holds its old value);
//! - the operators of the updates and combines are written out in the file, not made by a macro
//!   (`l = MAX(l, e)` is refused): libclang before 17 reads operators from the tokens, which a
//!   macro's expansion hides, and the translation must be the same with every libclang;
//! - the region is not nested in a target construct and has no `parallel` inside.
//!
//! Combines run once after the region. Mattson's pi tutorial combines `pi += sum * step`, which
//! is not `s op= l`. Where a combine statement is not of those forms, the region is rewritten
//! another way if every combine statement is one of those forms or `s += e`, `s -= e`,
//! `s = s + e`, `s = e + s`, `s = s - e` with `e` linear in accumulators: a sum or difference of
//! terms, each an accumulator, negated, times or (floating) divided by a value the region does
//! not write (constants, and scalars declared outside it that it does not write, address never
//! taken: `invariant`), each accumulator once, every operation in `s`'s type when that is an
//! integer (`l * 0.5` would truncate). The accumulators (declared at the region's top level, each
//! of its combine's variable's type) move before the region with their initial values, the loop
//! gets `reduction(op: l)` on them, and the combines' statements run once after the region, as
//! written and in their order, in a block with the declarations:
//!
//! ```c
//!                                            { double sum = 0.0;
//! #pragma omp parallel                       #pragma omp parallel
//! { double x, sum = 0.0;                     { double x;
//!   #pragma omp for                    ->      #pragma omp for reduction(+: sum)
//!   for (i = 0; ...) { ... sum += e; }         for (i = 0; ...) { ... sum += e; }
//!   #pragma omp critical
//!   pi += sum * step;
//! }                                          } pi += sum * step; }
//! ```
//!
//! With T threads the original adds `sum_t * step` for each thread's `sum_t`; the rewrite adds
//! `(sum_1 + ... + sum_T) * step`: the same by distributivity (up to rounding, as any reduction's
//! order), for every T, because the combine is linear in the accumulators and they start at the
//! identity. Combines that are not (`total += a * b`, a sum starting at 10, `n++`, a max that
//! also records its index) are refused: with one thread the rewrite would be a legal execution,
//! but gcc's and ompcl's CPU threads give another result with T threads, and the programs of
//! `c145` rely on that difference being kept. The other rules are the rename's: the start values
//! (identity for `+`, `*`, `^`), the accumulators appearing only in their declaration, updates
//! of their operation in one loop before their combine and the combine; the variables the
//! combines write (`s`) appearing nowhere else in the region, shared, address never taken, not
//! global where the region calls functions; no directive naming them or the accumulators; no
//! other variable of an accumulator's name read in the region (it would be the moved one), no
//! `default` clause but `default(shared)` (the moved accumulators are shared variables).

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
pub(super) fn statement_children(n: Node) -> Vec<Node> {
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

/// One accumulator of the region.
struct Acc {
    decl: Node,
    key: String,
    shared: Node,
    shared_key: String,
    op: Op,
    /// the combine subtracts it (`s -= l`)
    negated: bool,
    /// the combine: its top-level statement (index) and its text (with the `;`)
    combine_kid: usize,
    combine_text: String,
    /// the initial value
    init: Option<Node>,
    /// a `private` accumulator's top-level `l = init;` (index)
    init_kid: Option<usize>,
    /// the top-level loop updating it (index)
    loop_kid: Option<usize>,
}

/// An update of an accumulator (`acc`: its index) in a loop.
struct Update {
    acc: usize,
    stmt: Node,
    form: Form,
}

/// A `parallel` region of the idiom's shape: at its top level, `omp for` loops and combines.
struct Shape {
    /// its directive
    pi: usize,
    /// its bytes, from the directive's line to the end of its statement
    range: (usize, usize),
    body: Node,
    /// the top-level statements
    kids: Vec<Node>,
    /// the directives inside
    inner: Vec<usize>,
    /// the top-level `omp for` loops: (directive, statement index)
    loops: Vec<(usize, usize)>,
    /// the top-level `critical` sections and `atomic`s: (directive, statement index)
    combines: Vec<(usize, usize)>,
}

/// The source with the reductions written by hand rewritten (`manual_reduction_rewrite`).
pub(super) struct ManualRewrite {
    pub(super) text: String,
    /// per line of `text`, the line of the source it comes from
    pub(super) lines: Vec<u32>,
    /// the regions rewritten (their directives)
    pub(super) regions: Vec<usize>,
    /// those of them rewritten as per-thread partial results (thread_partials.rs)
    pub(super) thread_partials: HashSet<usize>,
}

/// Why a region of the idiom's shape is not rewritten (None: it does not have the shape).
type Refusal = Option<String>;

/// The refusal of `plan_rename` after which `plan_hoisted` is tried.
const NOT_A_COMBINE: &str = "is not a combine 'shared op= private'";

fn refuse<T>(why: impl Into<String>) -> Result<T, Refusal> {
    Err(Some(why.into()))
}

/// A floating max/min accumulator from a NaN stays NaN (`if (e > l)` never holds), where the
/// clause's copy would not: only a constant start that is a number.
fn floating_start(op: Op, lname: &str, init: Node, ty: clang::Type) -> Result<(), Refusal> {
    let floating = matches!(ty.kind(), CXType_Float | CXType_Double);
    if floating && matches!(op, Op::Max | Op::Min) && init.eval_number().is_none_or(|v| v.is_nan()) {
        return refuse(format!("'{lname}' (a floating max/min) does not start at a constant number"));
    }
    Ok(())
}

impl Translator<'_> {
    /// The source text with every `parallel` region of the form of a reduction written by hand
    /// rewritten (but those of `skip`); None when no region is. Also, per region of the form's
    /// shape left as it is, why (by the directive's line).
    pub(super) fn manual_reduction_rewrite(
        &self,
        tu: &clang::Tu,
        skip: &HashSet<usize>,
    ) -> (Option<ManualRewrite>, HashMap<u32, String>) {
        let mut edits = Vec::new();
        let mut regions = Vec::new();
        let mut why = HashMap::new();
        let mut addr_taken: Option<HashSet<String>> = None;
        let mut thread_partials = HashSet::new();
        let targets = self.target_ranges();
        for (pi, p) in self.cx.pragmas.iter().enumerate() {
            let combined = p.is(&["parallel", "for"]);
            if !(p.is(&["parallel"]) || combined) || skip.contains(&pi) {
                continue;
            }
            if targets.iter().any(|&(s, e)| p.line_start >= s && p.line_start < e) {
                continue;
            }
            // slots picked by the thread number, combined after the region (thread_partials.rs)
            let partials = match self.plan_thread_partials(pi) {
                Ok(mut e) => {
                    edits.append(&mut e);
                    regions.push(pi);
                    thread_partials.insert(pi);
                    continue;
                }
                Err(w) => w,
            };
            // a region asking for its thread number keeps that refusal as its note: the other
            // forms' would not say why it cannot offload
            let note = |why: &mut HashMap<u32, String>, w: String| {
                why.insert(
                    p.line,
                    partials.clone().unwrap_or_else(|| format!("not a reduction written by hand: {w}")),
                );
            };
            if let Some(w) = &partials {
                why.insert(p.line, w.clone());
            }
            if combined {
                continue;
            }
            // a private array added into a shared one (manual_array.rs)
            match self.plan_manual_array(pi, tu) {
                Ok(mut e) => {
                    edits.append(&mut e);
                    regions.push(pi);
                    continue;
                }
                Err(Some(w)) => {
                    note(&mut why, w);
                    continue;
                }
                Err(None) => {}
            }
            let taken = addr_taken.get_or_insert_with(|| self.address_taken(tu));
            match self.plan_manual(pi, taken) {
                Ok(mut e) => {
                    edits.append(&mut e);
                    regions.push(pi);
                }
                Err(Some(w)) => note(&mut why, w),
                Err(None) => {}
            }
        }
        if regions.is_empty() {
            return (None, why);
        }
        let (text, lines) = super::interchange::apply_edits(self.cx.text, edits);
        (Some(ManualRewrite { text, lines, regions, thread_partials }), why)
    }

    /// The edits that rewrite region `pi` (module comment), or why not.
    fn plan_manual(&self, pi: usize, addr_taken: &HashSet<String>) -> Result<Vec<Edit>, Refusal> {
        match self.plan_rename(pi, addr_taken) {
            // a combine of another shape: perhaps one that runs once after the region
            Err(Some(w)) if w.contains(NOT_A_COMBINE) => self.plan_hoisted(pi, addr_taken).map_err(|g| {
                Some(format!(
                    "{w}; nor a sum of accumulators run once after the region: {}",
                    g.unwrap_or_default()
                ))
            }),
            r => r,
        }
    }

    /// `plan_manual` where every combine is `s op= l` (or equivalent): the loops reduce into the
    /// shared variables themselves.
    fn plan_rename(&self, pi: usize, addr_taken: &HashSet<String>) -> Result<Vec<Edit>, Refusal> {
        let sh = self.shape(pi)?;
        let mut accs = self.combines(&sh)?;
        self.starts(&sh, &mut accs, addr_taken)?;
        self.check_shared(&sh, &accs, addr_taken)?;
        let (updates, accounted) = self.loop_updates(&sh, &mut accs)?;
        self.check_references(&sh, &accs, accounted)?;
        check_order(&accs)?;
        self.manual_edits(&sh, &accs, &updates)
    }

    /// Region `pi` as a `Shape`, or None when it does not have it.
    fn shape(&self, pi: usize) -> Result<Shape, Refusal> {
        let p = &self.cx.pragmas[pi];
        let &(node, s, e) = self.cx.assoc.get(&pi).ok_or(None)?;
        let body = strip(node);
        if body.kind() != CXCursor_CompoundStmt || p.unknown.is_some() {
            return Err(None);
        }
        let kids = body.children();
        let inner = self.pragmas_in(s, e);
        let top = |words: &[&str]| -> Vec<(usize, usize)> {
            inner
                .iter()
                .filter(|&&q| words.iter().any(|w| self.cx.pragmas[q].directive[0] == *w))
                .filter_map(|&q| {
                    let a = self.cx.assoc.get(&q)?;
                    kids.iter().position(|k| a.0.equals(k)).map(|k| (q, k))
                })
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
        Ok(Shape { pi, range: (p.line_start, e), body, kids, inner, loops, combines })
    }

    /// Whether declaration `d` is inside the bytes `(s, e)` of the file.
    pub(super) fn declared_in(&self, d: &Node, (s, e): (usize, usize)) -> bool {
        let l = d.loc();
        l.file == self.cx.file && l.off >= s && l.off < e
    }

    /// The line of the file at byte `off`.
    fn line_at(&self, off: usize) -> usize {
        self.cx.text[..off].matches('\n').count() + 1
    }

    /// Phase of `plan_manual`: the accumulators, as the statements of the combines name them.
    fn combines(&self, sh: &Shape) -> Result<Vec<Acc>, Refusal> {
        let mut accs: Vec<Acc> = Vec::new();
        for &(q, k) in &sh.combines {
            let qp = &self.cx.pragmas[q];
            let atomic = qp.directive[0] == "atomic";
            let plain = if atomic {
                qp.is(&["atomic"])
                    && qp.clauses.iter().all(|c| ["update", "seq_cst", "relaxed"].contains(&c.name.as_str()))
            } else {
                qp.is(&["critical"]) && qp.clauses.is_empty()
            };
            if !plain {
                return refuse(format!("'{}' at line {} is not a plain update", qp.name(), qp.line));
            }
            let st = sh.kids[k];
            let stmts: Vec<Node> = if st.kind() == CXCursor_CompoundStmt && !atomic {
                st.children().into_iter().filter(|c| c.kind() != CXCursor_NullStmt).collect()
            } else {
                vec![st]
            };
            for c in stmts {
                let not_combine = || {
                    let line = self.line_at(c.range().0.off);
                    Some(format!("the statement at line {line} (in '{}') {NOT_A_COMBINE}", qp.name()))
                };
                let f = self.form(c).ok_or_else(not_combine)?;
                let (_, l) = f.operand.and_then(var_ref).ok_or_else(not_combine)?;
                if atomic && !f.atomic_ok {
                    return Err(not_combine());
                }
                if accs.iter().any(|a| a.key == key_of(&l)) {
                    return refuse(format!("'{}' is combined twice", l.spelling()));
                }
                let (cs, ce) = c.range();
                accs.push(Acc {
                    key: key_of(&l),
                    decl: l,
                    shared_key: key_of(&f.target),
                    shared: f.target,
                    op: f.op,
                    negated: f.negated,
                    combine_kid: k,
                    combine_text: self.cx.text[cs.off..self.cx.stmt_end(ce.off)].to_string(),
                    init: None,
                    init_kid: None,
                    loop_kid: None,
                });
            }
        }
        Ok(accs)
    }

    /// Phase of `plan_manual`: each accumulator's type, declaration and initial value.
    fn starts(&self, sh: &Shape, accs: &mut [Acc], addr_taken: &HashSet<String>) -> Result<(), Refusal> {
        let p = &self.cx.pragmas[sh.pi];
        let privates = p.list("private");
        let not_shared = not_shared(p);
        for a in accs.iter_mut() {
            let (l, sv) = (a.decl, a.shared);
            let (lname, sname) = (l.spelling(), sv.spelling());
            if self.declared_in(&sv, sh.range) {
                return refuse(format!(
                    "'{sname}', which '{lname}' is combined into, is declared inside the region"
                ));
            }
            let ty = sv.ty().canonical();
            if !reduction_type(ty) || l.ty().canonical().spelling() != ty.spelling() {
                return refuse(format!("'{lname}' and '{sname}' are not of one arithmetic type"));
            }
            if self.declared_in(&l, sh.range) {
                // declared at the region's top level, with an initial value
                let top_level = sh
                    .kids
                    .iter()
                    .any(|k| k.kind() == CXCursor_DeclStmt && k.children().iter().any(|d| d.equals(&l)));
                a.init = l.children().into_iter().rfind(|c| c.is_expr());
                if !top_level || a.init.is_none() || l.storage_static() || l.storage_extern() {
                    return refuse(format!(
                        "'{lname}' is not declared with an initial value at the region's top level"
                    ));
                }
            } else {
                // private on the region, set once at its top level
                let elsewhere = not_shared.iter().filter(|v| **v == lname).count() > 1;
                if !privates.contains(&lname) || elsewhere {
                    return refuse(format!("'{lname}' is neither declared in the region nor private on it"));
                }
                let sets: Vec<usize> = (0..sh.kids.len())
                    .filter(|&k| {
                        let n = sh.kids[k];
                        n.kind() == CXCursor_BinaryOperator
                            && self.written_binop(n) == CXBinaryOperator_Assign
                            && is_ref_to(n.children()[0], &a.key)
                    })
                    .collect();
                let [k] = sets[..] else {
                    return refuse(format!("private '{lname}' is not set once at the region's top level"));
                };
                a.init_kid = Some(k);
                a.init = Some(sh.kids[k].children()[1]);
            }
            let init = a.init.expect("set above");
            self.start_value(a.op, &lname, init, sh, addr_taken)?;
            floating_start(a.op, &lname, init, ty)?;
        }
        Ok(())
    }

    /// Phase of `plan_manual`: whether every shared variable is one the loops may reduce into in
    /// place of the accumulators (module comment).
    fn check_shared(&self, sh: &Shape, accs: &[Acc], addr_taken: &HashSet<String>) -> Result<(), Refusal> {
        let p = &self.cx.pragmas[sh.pi];
        let not_shared = not_shared(p);
        let region_nodes = nodes_of(sh.body);
        let user_calls = region_nodes
            .iter()
            .any(|n| n.kind() == CXCursor_CallExpr && !n.referenced().is_some_and(|f| f.in_system_header()));
        for a in accs {
            let (sv, sname) = (a.shared, a.shared.spelling());
            if accs.iter().any(|b| b.shared_key == a.shared_key && b.op != a.op) {
                return refuse(format!("'{sname}' is combined by two operations"));
            }
            if not_shared.contains(&sname) || self.cx.threadprivate.contains(&sname) {
                return refuse(format!("'{sname}' is not shared in the region"));
            }
            if addr_taken.contains(&a.shared_key) {
                return refuse(format!("the address of '{sname}' is taken"));
            }
            if global_storage(&sv) && user_calls {
                return refuse(format!(
                    "'{sname}' is global and the region calls functions (which may read it)"
                ));
            }
            if region_nodes.iter().any(|n| n.kind() == CXCursor_VarDecl && n.spelling() == sname) {
                return refuse(format!("a variable inside the region is named '{sname}' too"));
            }
        }
        // no directive inside names an accumulator or a shared variable (`flush(s)`, a loop's
        // `private(l)`)
        for &q in &sh.inner {
            let qp = &self.cx.pragmas[q];
            let mut texts: Vec<&str> = qp.clauses.iter().filter_map(|c| c.arg.as_deref()).collect();
            if qp.directive[0] == "flush" {
                texts.extend(qp.dir_arg.as_deref());
            }
            for a in accs {
                for name in [a.decl.spelling(), a.shared.spelling()] {
                    if texts.iter().any(|t| mentions(t, &name)) {
                        return refuse(format!("'{}' at line {} names '{name}'", qp.name(), qp.line));
                    }
                }
            }
        }
        Ok(())
    }

    /// Phase of `plan_manual`: the accumulators' updates in the top-level loops (statements of
    /// their own, outside the directives nested in the loop), each accumulator's loop, and the
    /// references to the accumulators the updates hold.
    fn loop_updates(&self, sh: &Shape, accs: &mut [Acc]) -> Result<(Vec<Update>, Vec<Node>), Refusal> {
        let mut updates = Vec::new();
        let mut accounted = Vec::new();
        for &(q, k) in &sh.loops {
            let lp = sh.kids[k];
            let (ls, le) = (lp.range().0.off, lp.range().1.off);
            let nested: Vec<(usize, usize)> = self
                .pragmas_in(ls, le)
                .into_iter()
                .filter(|&o| o != q)
                .filter_map(|o| {
                    self.cx.assoc.get(&o).map(|&(_, s, e)| (self.cx.pragmas[o].line_start.min(s), e))
                })
                .collect();
            let all = nodes_of(lp);
            // (the last statement of a GNU statement expression is its value: no statement of its own)
            if all.iter().any(|n| n.kind() == CXCursor_StmtExpr) {
                return refuse(format!("a statement expression in the loop at line {}", self.line_at(ls)));
            }
            let stmts: Vec<Node> = all.into_iter().flat_map(statement_children).collect();
            for stmt in stmts {
                let Some(form) = self.form(stmt) else { continue };
                let Some(ai) = accs.iter().position(|a| a.key == key_of(&form.target)) else { continue };
                let a = &mut accs[ai];
                let at = stmt.range().0.off;
                if form.op != a.op || nested.iter().any(|&(s, e)| at >= s && at < e) {
                    continue;
                }
                if a.loop_kid.is_some_and(|lk| lk != k) {
                    return refuse(format!("'{}' is updated in two loops", a.decl.spelling()));
                }
                a.loop_kid = Some(k);
                accounted.extend(form.target_refs.iter().copied());
                updates.push(Update { acc: ai, stmt, form });
            }
        }
        Ok((updates, accounted))
    }

    /// Phase of `plan_manual`: whether every reference to an accumulator or a shared variable in
    /// the region is one accounted for: the updates' (`accounted`), the combines', the
    /// initialisations'.
    fn check_references(&self, sh: &Shape, accs: &[Acc], mut accounted: Vec<Node>) -> Result<(), Refusal> {
        for a in accs {
            let named = |n: &Node| {
                n.kind() == CXCursor_DeclRefExpr
                    && n.referenced().is_some_and(|d| key_of(&d) == a.key || key_of(&d) == a.shared_key)
            };
            accounted.extend(nodes_of(sh.kids[a.combine_kid]).into_iter().filter(named));
            if let Some(k) = a.init_kid {
                accounted.push(strip(sh.kids[k].children()[0]));
            }
        }
        for n in nodes_of(sh.body) {
            if n.kind() != CXCursor_DeclRefExpr {
                continue;
            }
            let Some(d) = n.referenced() else { continue };
            let key = key_of(&d);
            let Some(a) = accs.iter().find(|a| a.key == key || a.shared_key == key) else { continue };
            if !accounted.iter().any(|x| x.equals(&n)) {
                let what = if a.key == key { "accumulator" } else { "shared variable" };
                return refuse(format!(
                    "the {what} '{}' is used at line {} other than in an update of its operation or its combine",
                    d.spelling(),
                    self.line_at(n.range().0.off)
                ));
            }
        }
        Ok(())
    }

    /// Phase of `plan_manual`: the edits once every rule holds.
    fn manual_edits(&self, sh: &Shape, accs: &[Acc], updates: &[Update]) -> Result<Vec<Edit>, Refusal> {
        let mut edits = Vec::new();
        // the loops' reduction clauses, one per operation, in the order of the combines
        for &(q, k) in &sh.loops {
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
        // the updates act on the shared variable (the clause's private copy) instead; where the
        // combine subtracts, they subtract what they added
        let mut renamed: BTreeMap<usize, (usize, String)> = BTreeMap::new(); // offset -> (length, name)
        for u in updates {
            let a = &accs[u.acc];
            let (lname, sname) = (a.decl.spelling(), a.shared.spelling());
            for r in &u.form.target_refs {
                let off = self.ref_offset(*r, sh.range, &lname).ok_or_else(|| {
                    Some(format!(
                        "'{lname}' is spelt inside a macro at line {}",
                        self.line_at(r.range().0.off)
                    ))
                })?;
                renamed.insert(off, (lname.len(), sname.clone()));
            }
            if a.negated {
                edits.extend(self.flip_sign(u.stmt).ok_or_else(|| {
                    Some(format!(
                        "the update of '{lname}' at line {} is not one whose sign ompcl can flip ('{sname}' subtracts it)",
                        self.line_at(u.stmt.range().0.off)
                    ))
                })?);
            }
        }
        edits.extend(renamed.into_iter().map(|(off, (len, text))| Edit { start: off, end: off + len, text }));
        // the combines (from their directive's line), the accumulators' declarations (when they
        // declare nothing else) and their initialisations go
        let mut dropped: BTreeSet<usize> = accs.iter().map(|a| a.combine_kid).collect();
        dropped.extend(accs.iter().filter_map(|a| a.init_kid));
        for (k, kid) in sh.kids.iter().enumerate() {
            if kid.kind() == CXCursor_DeclStmt
                && kid.children().iter().all(|v| accs.iter().any(|a| a.decl.equals(v)))
            {
                dropped.insert(k);
            }
        }
        for k in dropped {
            let (s, e) = sh.kids[k].range();
            let directive =
                sh.combines.iter().find(|c| c.1 == k).map(|&(q, _)| self.cx.pragmas[q].line_start);
            edits.push(Edit {
                start: directive.unwrap_or(s.off),
                end: self.cx.stmt_end(e.off),
                text: String::new(),
            });
        }
        // the idempotent operations' initial values, combined once before the region (in a block
        // with it: the region may be the statement of an `if`)
        let mut before = String::new();
        for a in accs.iter().filter(|a| a.op.identity().is_none()) {
            let ty = a.decl.ty().canonical().spelling();
            let init = a.init.map_or("", |i| self.src(i));
            let _ = write!(before, "{{ {ty} {} = {init}; {} }} ", a.decl.spelling(), a.combine_text);
        }
        if !before.is_empty() {
            let (s, e) = sh.range;
            edits.push(Edit { start: s, end: s, text: format!("{{ {before}\n") });
            edits.push(Edit { start: e, end: e, text: " }".into() });
        }
        Ok(edits)
    }

    /// The edits that make `+` update `st` subtract what it added (or the reverse): its operator
    /// flipped (`+=`/`-=`, `l = l + e`/`l = l - e`, `++`/`--`), or for `l = e + l` the operand
    /// negated (`l = -(e) + l`); None where the operator or the operand is not written out plainly
    /// (a macro, a comment between).
    fn flip_sign(&self, st: Node) -> Option<Vec<Edit>> {
        let ch = st.children();
        let span = |a: Node, b: Node| (a.range().1.off, b.range().0.off);
        let (from, to) = match st.kind() {
            CXCursor_CompoundAssignOperator => span(ch[0], ch[1]),
            CXCursor_BinaryOperator => {
                let rhs = strip(ch[1]);
                let rc = rhs.children();
                if rhs.kind() != CXCursor_BinaryOperator {
                    return None;
                }
                if !is_ref_to(rc[0], &key_of(&var_ref(ch[0])?.1)) {
                    // l = e + l
                    let ((s, e), (ss, se)) = (rc[0].range(), rc[0].spelling_range());
                    let plain =
                        s.file == self.cx.file && (s.off, e.off) == (ss.off, se.off) && ss.file == s.file;
                    return plain.then(|| {
                        vec![
                            Edit { start: s.off, end: s.off, text: "-(".into() },
                            Edit { start: e.off, end: e.off, text: ")".into() },
                        ]
                    });
                }
                span(rc[0], rc[1])
            }
            CXCursor_UnaryOperator => {
                let ((s, e), (os, oe)) = (st.range(), ch[0].range());
                if os.off > s.off {
                    (s.off, os.off)
                } else {
                    (oe.off, e.off)
                }
            }
            _ => return None,
        };
        let between = self.cx.text.get(from..to)?;
        let op = between.trim();
        let flipped = match op {
            "+=" => "-=",
            "-=" => "+=",
            "+" => "-",
            "-" => "+",
            "++" => "--",
            "--" => "++",
            _ => return None,
        };
        let at = from + between.find(op)?;
        Some(vec![Edit { start: at, end: at + op.len(), text: flipped.into() }])
    }

    /// The operator of binary (or compound assignment) node `n` where it is written out between
    /// its operands, 0 elsewhere (an operator a macro expands to). libclang before 17 reads
    /// operators from the tokens, which a macro's expansion hides: the rewrite takes only the
    /// operators that every libclang reads alike (the translation must not depend on the version).
    pub(super) fn written_binop(&self, n: Node) -> i32 {
        let ch = n.children();
        let [l, r] = ch[..] else { return 0 };
        let (from, to) = (l.range().1, r.range().0);
        let here = from.file == self.cx.file && to.file == self.cx.file && from.off <= to.off;
        let k = n.binop();
        let written =
            here && self.cx.text.get(from.off..to.off).is_some_and(|t| clang::binop_kind(t.trim()) == k);
        if written {
            k
        } else {
            0
        }
    }

    /// The operator of unary node `n` where it is written out next to its operand, 0 elsewhere
    /// (`written_binop`).
    pub(super) fn written_unop(&self, n: Node) -> i32 {
        let ch = n.children();
        let [o] = ch[..] else { return 0 };
        let ((s, e), (os, oe)) = (n.range(), o.range());
        if [&s.file, &e.file, &os.file, &oe.file].iter().any(|f| **f != self.cx.file) {
            return 0;
        }
        let k = n.unop();
        let postfix = matches!(k, CXUnaryOperator_PostInc | CXUnaryOperator_PostDec);
        let text = if postfix { self.cx.text.get(oe.off..e.off) } else { self.cx.text.get(s.off..os.off) };
        let spelling = match k {
            CXUnaryOperator_PostInc | CXUnaryOperator_PreInc => "++",
            CXUnaryOperator_PostDec | CXUnaryOperator_PreDec => "--",
            CXUnaryOperator_AddrOf => "&",
            CXUnaryOperator_Deref => "*",
            CXUnaryOperator_Plus => "+",
            CXUnaryOperator_Minus => "-",
            CXUnaryOperator_Not => "~",
            CXUnaryOperator_LNot => "!",
            _ => return 0,
        };
        if text.is_some_and(|t| t.trim() == spelling) {
            k
        } else {
            0
        }
    }

    /// Whether expressions `a` and `b` compute the same value: the same operators on the same
    /// variables and constants (a max/min update names its operand twice).
    pub(super) fn same_expr(&self, a: Node, b: Node) -> bool {
        let (a, b) = (strip(a), strip(b));
        if a.kind() != b.kind() {
            return false;
        }
        let kids = |n: Node| -> Vec<Node> { n.children().into_iter().filter(|c| c.is_expr()).collect() };
        let same_kids = || {
            let (ka, kb) = (kids(a), kids(b));
            ka.len() == kb.len() && ka.iter().zip(&kb).all(|(x, y)| self.same_expr(*x, *y))
        };
        let same_type = || a.ty().canonical().spelling() == b.ty().canonical().spelling();
        match a.kind() {
            CXCursor_IntegerLiteral | CXCursor_FloatingLiteral | CXCursor_CharacterLiteral => {
                same_type() && a.eval_number().is_some() && a.eval_number() == b.eval_number()
            }
            CXCursor_DeclRefExpr => {
                a.referenced().zip(b.referenced()).is_some_and(|(x, y)| key_of(&x) == key_of(&y))
            }
            CXCursor_BinaryOperator => {
                let k = self.written_binop(a);
                k != 0 && k == self.written_binop(b) && same_kids()
            }
            CXCursor_UnaryOperator => {
                let k = self.written_unop(a);
                k != 0 && k == self.written_unop(b) && same_kids()
            }
            CXCursor_MemberRefExpr => a.spelling() == b.spelling() && same_kids(),
            CXCursor_CStyleCastExpr => same_type() && same_kids(),
            CXCursor_ArraySubscriptExpr | CXCursor_CallExpr | CXCursor_ConditionalOperator => same_kids(),
            _ => false,
        }
    }

    /// Whether evaluating `e` changes nothing: no assignment, no call but of the C library's math
    /// (or of `omp_get_thread_num()`, the same number every time in one thread), every operator
    /// written out (`written_binop`).
    pub(super) fn pure(&self, e: Node) -> bool {
        nodes_of(e).into_iter().all(|n| match n.kind() {
            CXCursor_CompoundAssignOperator => false,
            CXCursor_BinaryOperator => !matches!(self.written_binop(n), 0 | CXBinaryOperator_Assign),
            CXCursor_UnaryOperator => {
                let k = self.written_unop(n);
                k != 0 && !(CXUnaryOperator_PostInc..=CXUnaryOperator_PreDec).contains(&k)
            }
            CXCursor_CallExpr => n.referenced().is_some_and(|f| {
                let name = f.spelling();
                name.starts_with("__builtin_")
                    || (f.in_system_header()
                        && (CL_BUILTINS.contains(&name.as_str()) || name == "omp_get_thread_num"))
            }),
            _ => true,
        })
    }

    /// `a rel b` with one side the variable `key`: (its reference, the other side, whether the
    /// comparison holds when the other side is the larger).
    fn comparison(&self, cond: Node, key: &str) -> Option<(Node, Node, bool)> {
        let c = strip(cond);
        if c.kind() != CXCursor_BinaryOperator {
            return None;
        }
        let a_larger = match self.written_binop(c) {
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

    /// The variables the region's body `body` may write (assignments, increments, and operators
    /// not written out, which could be either).
    fn written_in(&self, body: Node) -> HashSet<String> {
        let mut w = HashSet::new();
        for n in nodes_of(body) {
            let writes = match n.kind() {
                CXCursor_CompoundAssignOperator => true,
                CXCursor_BinaryOperator => matches!(self.written_binop(n), 0 | CXBinaryOperator_Assign),
                CXCursor_UnaryOperator => {
                    let k = self.written_unop(n);
                    k == 0 || (CXUnaryOperator_PostInc..=CXUnaryOperator_PreDec).contains(&k)
                }
                _ => false,
            };
            if let Some((_, d)) = n.children().first().copied().and_then(var_ref).filter(|_| writes) {
                w.insert(key_of(&d));
            }
        }
        w
    }

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
                let (op, negated) = Op::of_compound(self.written_binop(st))?;
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
                let negated = match self.written_unop(st) {
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
            CXCursor_BinaryOperator if self.written_binop(st) == CXBinaryOperator_Assign => {
                let (r, target) = var_ref(ch[0])?;
                let key = key_of(&target);
                let rhs = strip(ch[1]);
                let rc = rhs.children();
                match rhs.kind() {
                    CXCursor_BinaryOperator => {
                        let (op, negated) = Op::of_binary(self.written_binop(rhs))?;
                        let (t, e) = if is_ref_to(rc[0], &key) {
                            (rc[0], rc[1])
                        } else if !negated && is_ref_to(rc[1], &key) {
                            (rc[1], rc[0])
                        } else {
                            return None;
                        };
                        // `l && e` skips `e` once `l` is false: from another start, `e` would
                        // run another number of times
                        let logical = matches!(op, Op::LAnd | Op::LOr);
                        if logical && !self.pure(e) {
                            return None;
                        }
                        let atomic_ok = !logical;
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
                        let (t, e, e_larger) = self.comparison(rc[0], &key)?;
                        let (op, branch_t, e2) = if is_ref_to(rc[2], &key) && self.same_expr(rc[1], e) {
                            (if e_larger { Op::Max } else { Op::Min }, rc[2], rc[1])
                        } else if is_ref_to(rc[1], &key) && self.same_expr(rc[2], e) {
                            (if e_larger { Op::Min } else { Op::Max }, rc[1], rc[2])
                        } else {
                            return None;
                        };
                        self.pure(e).then_some(Form {
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
                if then.kind() != CXCursor_BinaryOperator
                    || self.written_binop(then) != CXBinaryOperator_Assign
                {
                    return None;
                }
                let tc = then.children();
                let (r, target) = var_ref(tc[0])?;
                let (t, e, e_larger) = self.comparison(ch[0], &key_of(&target))?;
                (self.same_expr(e, tc[1]) && self.pure(e)).then_some(Form {
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
    pub(super) fn ref_offset(&self, r: Node, (s, e): (usize, usize), name: &str) -> Option<usize> {
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

    /// The variables whose address the file's functions take (`&x`; or may: an operator a macro
    /// expands to, `written_binop`): a pointer could read or write them anywhere.
    fn address_taken(&self, tu: &clang::Tu) -> HashSet<String> {
        let mut taken = HashSet::new();
        for f in tu.root().children() {
            if f.kind() != CXCursor_FunctionDecl || f.range().0.file != self.cx.file {
                continue;
            }
            f.walk(&mut |n| {
                if n.kind() == CXCursor_UnaryOperator
                    && matches!(self.written_unop(n), 0 | CXUnaryOperator_AddrOf)
                {
                    if let Some((_, d)) = n.children().first().and_then(|c| var_ref(*c)) {
                        taken.insert(key_of(&d));
                    }
                }
            });
        }
        taken
    }

    /// The rule for accumulator `lname`'s start `init`: the identity of `op` where it has one; else
    /// (combined once more before the region) a value that is the same there.
    fn start_value(
        &self,
        op: Op,
        lname: &str,
        init: Node,
        sh: &Shape,
        addr_taken: &HashSet<String>,
    ) -> Result<(), Refusal> {
        match op.identity() {
            Some(id) if init.eval_number() != Some(id) => {
                refuse(format!("'{lname}' does not start at {id} (the identity of '{}')", op.clause()))
            }
            Some(_) => Ok(()),
            None => self.invariant(init, sh, addr_taken).map_err(|what| {
                Some(format!("the initial value of '{lname}' ({what}) may differ before the region"))
            }),
        }
    }

    /// Whether expression `init` has the same value before region `sh` as at its start: constants,
    /// and scalars declared outside the region that it does not write; else its text.
    fn invariant(&self, init: Node, sh: &Shape, addr_taken: &HashSet<String>) -> Result<(), String> {
        // a constant (`INT_MIN`, `-DBL_MAX`, `-INFINITY`)
        if init.eval_number().is_some() {
            return Ok(());
        }
        let written = self.written_in(sh.body);
        let calls = nodes_of(sh.body).iter().any(|n| n.kind() == CXCursor_CallExpr);
        let not_shared = not_shared(&self.cx.pragmas[sh.pi]);
        let unchanged = |d: Node| {
            let key = key_of(&d);
            !(self.declared_in(&d, sh.range)
                || !d.ty().is_arith()
                || written.contains(&key)
                || addr_taken.contains(&key)
                // a function the region calls could change a global
                || (global_storage(&d) && calls)
                || self.cx.threadprivate.contains(&d.spelling())
                || not_shared.contains(&d.spelling()))
        };
        let ok = nodes_of(init).into_iter().all(|n| match n.kind() {
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
                self.written_unop(n),
                CXUnaryOperator_Plus | CXUnaryOperator_Minus | CXUnaryOperator_Not | CXUnaryOperator_LNot
            ),
            CXCursor_BinaryOperator => {
                !matches!(self.written_binop(n), 0 | CXBinaryOperator_Assign | CXBinaryOperator_Comma)
            }
            // INFINITY, HUGE_VAL, NAN: the compiler's constants
            CXCursor_CallExpr => n.referenced().is_some_and(|f| f.spelling().starts_with("__builtin_")),
            CXCursor_DeclRefExpr => n.referenced().is_some_and(|d| match d.kind() {
                CXCursor_EnumConstantDecl => true,
                CXCursor_FunctionDecl => d.spelling().starts_with("__builtin_"),
                CXCursor_VarDecl | CXCursor_ParmDecl => unchanged(d),
                _ => false,
            }),
            _ => false,
        });
        if ok {
            Ok(())
        } else {
            Err(self.src(init).to_string())
        }
    }
}

impl Translator<'_> {
    /// `plan_manual` where a combine is a sum of accumulators, each times values the region does
    /// not write (module comment, "Combines run once after the region"): the accumulators move
    /// before the region, the loop reduces into them, the combines follow the region.
    fn plan_hoisted(&self, pi: usize, addr_taken: &HashSet<String>) -> Result<Vec<Edit>, Refusal> {
        let sh = self.shape(pi)?;
        let p = &self.cx.pragmas[pi];
        if p.clauses.iter().any(|c| c.name == "default" && c.arg.as_deref().map(str::trim) != Some("shared"))
        {
            return refuse("the region has a 'default' clause other than 'default(shared)'");
        }
        let mut accs = self.hoisted_combines(&sh, addr_taken)?;
        self.hoisted_starts(&sh, &accs, addr_taken)?;
        self.check_shared(&sh, &accs, addr_taken)?;
        let (_, accounted) = self.loop_updates(&sh, &mut accs)?;
        self.check_references(&sh, &accs, accounted)?;
        check_order(&accs)?;
        // the accumulators' names mean them wherever they are read once they are moved before the
        // region: no other variable of these names is read in the region, none named by its directive
        let texts: Vec<&str> = p.clauses.iter().filter_map(|c| c.arg.as_deref()).collect();
        for a in &accs {
            let lname = a.decl.spelling();
            let other = nodes_of(sh.body).into_iter().any(|n| {
                n.kind() == CXCursor_DeclRefExpr
                    && n.referenced().is_some_and(|d| d.spelling() == lname && key_of(&d) != a.key)
            });
            if other || texts.iter().any(|t| mentions(t, &lname)) {
                return refuse(format!("another variable of the region is named '{lname}' too"));
            }
        }
        self.hoisted_edits(&sh, &accs)
    }

    /// Phase of `plan_hoisted`: the combines' statements, each `s op= l` (or equivalent) or a sum
    /// `s += e`, `s -= e`, `s = s + e`, `s = e + s`, `s = s - e` with `e` linear in accumulators;
    /// one `Acc` per accumulator (its `shared`: the variable its combine writes).
    fn hoisted_combines(&self, sh: &Shape, addr_taken: &HashSet<String>) -> Result<Vec<Acc>, Refusal> {
        let mut accs: Vec<Acc> = Vec::new();
        for &(q, k) in &sh.combines {
            let qp = &self.cx.pragmas[q];
            let atomic = qp.directive[0] == "atomic";
            let st = sh.kids[k];
            let stmts: Vec<Node> = if st.kind() == CXCursor_CompoundStmt && !atomic {
                st.children().into_iter().filter(|c| c.kind() != CXCursor_NullStmt).collect()
            } else {
                vec![st]
            };
            for c in stmts {
                let line = self.line_at(c.range().0.off);
                let mut found: Vec<(Node, Node, Op)> = Vec::new(); // (accumulator, target, operation)
                match self.form(c).filter(|f| f.operand.and_then(var_ref).is_some()) {
                    Some(f) if !atomic || f.atomic_ok => {
                        let (_, l) = f.operand.and_then(var_ref).expect("filtered");
                        found.push((l, f.target, f.op));
                    }
                    _ => {
                        let (target, e) = self.sum_update(c).ok_or_else(|| {
                            Some(format!(
                                "the statement at line {line} is not 's += e' (nor 's -= e', 's = s + e' ...)"
                            ))
                        })?;
                        let mut ls = Vec::new();
                        self.linear(e, target, sh, addr_taken, &mut ls)
                            .map_err(|what| Some(format!("at line {line}, {what}")))?;
                        found.extend(ls.into_iter().map(|l| (l, target, Op::Add)));
                    }
                }
                for (l, target, op) in found {
                    if !self.declared_in(&l, sh.range) {
                        return refuse(format!(
                            "'{}' (combined at line {line}) is not declared in the region",
                            l.spelling()
                        ));
                    }
                    if accs.iter().any(|a| a.key == key_of(&l)) {
                        return refuse(format!("'{}' is combined twice", l.spelling()));
                    }
                    accs.push(Acc {
                        key: key_of(&l),
                        decl: l,
                        shared_key: key_of(&target),
                        shared: target,
                        op,
                        negated: false,
                        combine_kid: k,
                        combine_text: String::new(),
                        init: None,
                        init_kid: None,
                        loop_kid: None,
                    });
                }
            }
        }
        Ok(accs)
    }

    /// Statement `c` as `s += e`, `s -= e`, `s = s + e`, `s = e + s` or `s = s - e`: (s, e).
    fn sum_update(&self, c: Node) -> Option<(Node, Node)> {
        let ch = c.children();
        match c.kind() {
            CXCursor_CompoundAssignOperator
                if matches!(
                    self.written_binop(c),
                    CXBinaryOperator_AddAssign | CXBinaryOperator_SubAssign
                ) =>
            {
                Some((var_ref(ch[0])?.1, ch[1]))
            }
            CXCursor_BinaryOperator if self.written_binop(c) == CXBinaryOperator_Assign => {
                let (_, target) = var_ref(ch[0])?;
                let key = key_of(&target);
                let rhs = strip(ch[1]);
                let rc = rhs.children();
                if rhs.kind() != CXCursor_BinaryOperator {
                    return None;
                }
                match self.written_binop(rhs) {
                    CXBinaryOperator_Add | CXBinaryOperator_Sub if is_ref_to(rc[0], &key) => {
                        Some((target, rc[1]))
                    }
                    CXBinaryOperator_Add if is_ref_to(rc[1], &key) => Some((target, rc[0])),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// Whether `e` is linear in variables declared in the region (pushed to `accs`): a sum or
    /// difference of such terms, each one of them, negated, times or (floating) divided by a value
    /// the region does not write (`invariant`); every operation in the type of `target` if that
    /// is an integer (`l * 0.5` would be truncated), a floating one if floating. Else what is not.
    fn linear(
        &self,
        e: Node,
        target: Node,
        sh: &Shape,
        addr_taken: &HashSet<String>,
        accs: &mut Vec<Node>,
    ) -> Result<(), String> {
        let e = strip(e);
        let not = || format!("'{}' is not accumulators times values the region does not write", self.src(e));
        let tt = target.ty().canonical();
        let floating = |t: Type| matches!(t.canonical().kind(), CXType_Float | CXType_Double);
        let typed =
            if floating(tt) { floating(e.ty()) } else { e.ty().canonical().spelling() == tt.spelling() };
        if let Some((_, d)) = var_ref(e).filter(|(_, d)| self.declared_in(d, sh.range)) {
            accs.push(d);
            return Ok(());
        }
        if !typed {
            return Err(not());
        }
        let ch: Vec<Node> = e.children();
        let factor = |x: Node| {
            self.invariant(x, sh, addr_taken)
                .map_err(|what| format!("'{what}' is not a value the region leaves unchanged"))
        };
        match e.kind() {
            CXCursor_BinaryOperator => match self.written_binop(e) {
                CXBinaryOperator_Add | CXBinaryOperator_Sub => {
                    self.linear(ch[0], target, sh, addr_taken, accs)?;
                    self.linear(ch[1], target, sh, addr_taken, accs)
                }
                CXBinaryOperator_Mul => {
                    if self.mentions_local(ch[0], sh) {
                        factor(ch[1])?;
                        self.linear(ch[0], target, sh, addr_taken, accs)
                    } else {
                        factor(ch[0])?;
                        self.linear(ch[1], target, sh, addr_taken, accs)
                    }
                }
                CXBinaryOperator_Div if floating(e.ty()) => {
                    factor(ch[1])?;
                    self.linear(ch[0], target, sh, addr_taken, accs)
                }
                _ => Err(not()),
            },
            CXCursor_UnaryOperator if self.written_unop(e) == CXUnaryOperator_Minus => {
                self.linear(ch[0], target, sh, addr_taken, accs)
            }
            _ => Err(not()),
        }
    }

    /// Whether `e` reads a variable declared in the region.
    fn mentions_local(&self, e: Node, sh: &Shape) -> bool {
        nodes_of(e).into_iter().any(|n| {
            n.kind() == CXCursor_DeclRefExpr && n.referenced().is_some_and(|d| self.declared_in(&d, sh.range))
        })
    }

    /// Phase of `plan_hoisted`: each accumulator declared at the region's top level with an
    /// initial value, of its combine's variable's type, starting where the rename would have it.
    fn hoisted_starts(&self, sh: &Shape, accs: &[Acc], addr_taken: &HashSet<String>) -> Result<(), Refusal> {
        let names: Vec<String> = accs.iter().map(|a| a.decl.spelling()).collect();
        for a in accs {
            let (l, sv) = (a.decl, a.shared);
            let (lname, sname) = (l.spelling(), sv.spelling());
            if self.declared_in(&sv, sh.range) {
                return refuse(format!(
                    "'{sname}', which '{lname}' is combined into, is declared inside the region"
                ));
            }
            let ty = sv.ty().canonical();
            let lty = l.ty().canonical().spelling();
            let qualified = ["const", "volatile", "_Atomic"].iter().any(|q| mentions(&lty, q));
            if !reduction_type(ty) || lty != ty.spelling() || qualified {
                return refuse(format!("'{lname}' and '{sname}' are not of one arithmetic type"));
            }
            let top_level = sh
                .kids
                .iter()
                .any(|k| k.kind() == CXCursor_DeclStmt && k.children().iter().any(|d| d.equals(&l)));
            let init = l.children().into_iter().rfind(|c| c.is_expr());
            let (_, le) = l.range();
            let spelled = l.loc().file == self.cx.file
                && le.file == self.cx.file
                && self.cx.text.get(l.loc().off..).is_some_and(|t| t.starts_with(&lname));
            let Some(init) =
                init.filter(|_| top_level && spelled && !l.storage_static() && !l.storage_extern())
            else {
                return refuse(format!(
                    "'{lname}' is not declared with an initial value at the region's top level"
                ));
            };
            self.start_value(a.op, &lname, init, sh, addr_taken)?;
            let reads_acc = nodes_of(init)
                .iter()
                .any(|n| n.kind() == CXCursor_DeclRefExpr && names.contains(&n.spelling()));
            if reads_acc {
                return refuse(format!("the initial value of '{lname}' names an accumulator"));
            }
            floating_start(a.op, &lname, init, ty)?;
        }
        Ok(())
    }

    /// Phase of `plan_hoisted`: the edits once every rule holds.
    fn hoisted_edits(&self, sh: &Shape, accs: &[Acc]) -> Result<Vec<Edit>, Refusal> {
        let mut edits = Vec::new();
        for &(q, k) in &sh.loops {
            let mut clauses: Vec<(Op, Vec<String>)> = Vec::new();
            for a in accs.iter().filter(|a| a.loop_kid == Some(k)) {
                let name = a.decl.spelling();
                match clauses.iter_mut().find(|(op, _)| *op == a.op) {
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
        // the accumulators' declarators go from the region (their declarations, when they declare
        // nothing else), the combines too (from their directive's line)
        let is_acc = |v: &Node| accs.iter().any(|a| a.decl.equals(v));
        let mut cut: Vec<(usize, usize)> = Vec::new();
        for kid in sh.kids.iter().filter(|k| k.kind() == CXCursor_DeclStmt) {
            let vs = kid.children();
            if !vs.iter().any(is_acc) {
                continue;
            }
            if vs.iter().all(is_acc) {
                let (s, e) = kid.range();
                cut.push((s.off, self.cx.stmt_end(e.off)));
                continue;
            }
            let unsure = || Some("an accumulator's declarator is not written out plainly".to_string());
            let text = self.cx.text;
            // after the comma following declarator j
            let after_comma = |j: usize| -> Option<usize> {
                let e = vs[j].range().1.off;
                let rest = text.get(e..)?;
                let t = rest.trim_start();
                t.starts_with(',').then(|| {
                    let at = e + (rest.len() - t.len()) + 1;
                    at + (text[at..].len() - text[at..].trim_start().len())
                })
            };
            let first_kept = vs.iter().position(|v| !is_acc(v)).expect("some declarator is kept");
            if first_kept > 0 {
                cut.push((vs[0].loc().off, after_comma(first_kept - 1).ok_or_else(unsure)?));
            }
            for j in (first_kept + 1)..vs.len() {
                if is_acc(&vs[j]) {
                    after_comma(j - 1).ok_or_else(unsure)?;
                    cut.push((vs[j - 1].range().1.off, vs[j].range().1.off));
                }
            }
        }
        let mut combines: Vec<usize> = accs.iter().map(|a| a.combine_kid).collect();
        combines.sort();
        combines.dedup();
        let mut after = String::new();
        for &k in &combines {
            let (s, e) = sh.kids[k].range();
            let end = self.cx.stmt_end(e.off);
            let q = sh.combines.iter().find(|c| c.1 == k).map(|&(q, _)| q).expect("a combine");
            cut.push((self.cx.pragmas[q].line_start, end));
            let _ = write!(after, " {}", &self.cx.text[s.off..end]);
        }
        edits.extend(cut.into_iter().map(|(start, end)| Edit { start, end, text: String::new() }));
        // before the region, the accumulators with their initial values (in a block with it and
        // the combines: the region may be the statement of an `if`)
        let mut decls: Vec<&Acc> = accs.iter().collect();
        decls.sort_by_key(|a| a.decl.loc().off);
        let mut before = String::new();
        for a in decls {
            let ty = a.decl.ty().canonical().spelling();
            let init = a.decl.children().into_iter().rfind(|c| c.is_expr()).map_or("", |i| self.src(i));
            let _ = write!(before, "{ty} {} = {init}; ", a.decl.spelling());
        }
        let (s, e) = sh.range;
        edits.push(Edit { start: s, end: s, text: format!("{{ {before}\n") });
        edits.push(Edit { start: e, end: e, text: format!("{after} }}") });
        Ok(edits)
    }
}

/// Whether every accumulator is updated in a loop before its combine (a private one set before
/// it), and every shared variable reduced in one loop.
fn check_order(accs: &[Acc]) -> Result<(), Refusal> {
    for a in accs {
        let lname = a.decl.spelling();
        match a.loop_kid {
            Some(lk) if lk < a.combine_kid => {}
            Some(_) => return refuse(format!("'{lname}' is combined before its loop")),
            None => return refuse(format!("'{lname}' is not updated in an 'omp for' loop of the region")),
        }
        if a.init_kid.zip(a.loop_kid).is_some_and(|(i, l)| i > l) {
            return refuse(format!("private '{lname}' is set after its loop"));
        }
        if accs.iter().any(|b| b.shared_key == a.shared_key && b.loop_kid != a.loop_kid) {
            return refuse(format!(
                "'{}' is combined from the accumulators of two loops",
                a.shared.spelling()
            ));
        }
    }
    Ok(())
}

/// Whether `t` is a type the reduction kernels take (the arithmetic types but `_Bool`, enums and
/// `long double`).
fn reduction_type(t: Type) -> bool {
    matches!(
        t.canonical().kind(),
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
    )
}

/// Whether variable `d` outlives its function's call (a global, a static local): a function can
/// reach it without its address.
pub(super) fn global_storage(d: &Node) -> bool {
    d.semantic_parent().kind() == CXCursor_TranslationUnit || d.storage_static()
}

/// The variables that `p`'s clauses make other than shared in its region, once per mention
/// (private, firstprivate, lastprivate, reduction, copyin, linear).
pub(super) fn not_shared(p: &Pragma) -> Vec<String> {
    let mut v: Vec<String> = ["private", "firstprivate", "lastprivate", "copyin", "linear"]
        .iter()
        .flat_map(|c| p.list(c))
        .map(|x| x.split(':').next().unwrap_or("").trim().to_string())
        .collect();
    v.extend(p.reductions().into_iter().map(|(_, x)| x.split('[').next().unwrap_or("").trim().to_string()));
    v
}
