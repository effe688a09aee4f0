//! Partial results kept per thread by hand: every thread updates a slot of a shared array chosen
//! by its thread number, and the host combines the slots after the region (Rodinia's kmeans):
//!
//! ```c
//! #pragma omp parallel                          #pragma omp parallel
//! {                                             {
//!   int tid = omp_get_thread_num();               int tid = 0;
//!   #pragma omp for                       ->      #pragma omp for
//!   for (i = 0; i < n; i++)                       for (i = 0; i < n; i++)
//!     part[tid * K + label[i]] += x[i];             { #pragma omp atomic
//! }                                                   part[tid * K + label[i]] += x[i]; }
//! for (t = 0; t < nthreads; t++) ...            }
//! ```
//!
//! Which thread runs which iteration is OpenMP's to choose (the schedule, and the team's size,
//! which `num_threads` only requests), so a program whose output is defined reads the slots only
//! through their combination over the threads, by the operation of the updates. Where every use
//! of the array in the region is a commutative update of the current thread's slot, that
//! combination is the slots' start values combined with every update, however the updates are
//! spread over the slots: the rewrite gives them all to thread 0's slot (the thread number
//! becomes 0), as atomic updates since every work-item now shares it (the kernel makes them
//! OpenCL atomics, the CPU version the C compiler's; a max/min becomes OpenMP 5.1's
//! `atomic compare`, as in atomic_reduction.rs). The other threads' slots keep their start
//! values, as they would had those threads run no iteration: the host's combine then sees the
//! same total. ompcl's kernels cannot ask for the thread number or count (analysis.rs refuses
//! the calls), so without the rewrite such a region stays on the CPU.
//!
//! A region that resets its slots itself at its top (`for (int k = 0; k < K; k++)
//! part[tid * K + k] = 0;`, before its loops) would have each work-item reset thread 0's slot
//! while others update it: those statements move before the region, run for every thread number
//! of the team the region would have (its `num_threads`, else `omp_get_max_threads()`), so every
//! slot a thread of the original resets is reset once, before any update.
//!
//! What must hold (else the region is left as written, on the CPU, the warning saying why):
//! - the thread number is `omp_get_thread_num()`, called in place or held in a variable whose
//!   declaration in the region initialises it so (an integer, written nowhere else); every use
//!   of either is inside a subscript of the target of an update below, or of a reset, once in
//!   that target, whose subscript naming it is linear in it (`own_slot`: `tid * K + k`,
//!   `(tid * C + c) * F + f`, `k * nt + tid`; not `(tid + 1) % nt`, `idx[tid]`);
//! - the updates: `s += v`, `s -= v`, `s++`, `s--` (a sum), `s |= v`, `s &= v`, `s ^= v`, and
//!   the max/min updates of minmax_update.rs, each a statement of its own (its value unused), its
//!   operator written out (not made by a macro), inside the body of one of the region's
//!   worksharing loops (every iteration runs once, however many threads or work-items there are),
//!   no directive nested in that loop; `s` a whole element of type int, unsigned, long, unsigned
//!   long, float or double of an array (or pointer) declared outside the region, shared (named by
//!   no clause, not threadprivate), its subscripts without side effects; `v` and the subscripts
//!   read neither the thread number nor any such array; all updates of one array of one
//!   operation (a sum may mix `+=`, `-=`, `++`, `--`);
//! - the array appears in the region only in those updates and resets; where it is global (or
//!   static) the region calls none of the program's functions (they could read it);
//! - a reset is a top-level statement of a `parallel` region (not a combined `parallel for`)
//!   before its worksharing loops: `s = c;` with `c` a constant, or `for` loops declaring their
//!   variable in their header around such assignments (braces allowed), reading only variables
//!   declared outside the region that the region does not write; the region has no `if` clause,
//!   a `num_threads` without side effects, and is not nested in another `parallel` (its team
//!   would have one thread);
//! - the region asks for no thread count (`omp_get_num_threads()`, `omp_get_max_threads()`: on
//!   the device they could not agree with the host's), has no `parallel` inside (such a region
//!   is not taken for this form) and is not in a target construct (manual_reduction_rewrite
//!   skips those).
//!
//! Pointers the region reads are taken not to alias the array, as everywhere in ompcl's kernels.
//! With OMP_DYNAMIC the team may have fewer threads than `omp_get_max_threads()`: the hoisted
//! reset then resets slots no thread would have, which a program combining the slots of threads
//! that did not run would read indeterminate values from anyway.

use super::manual_reduction::{global_storage, not_shared, statement_children};
use super::minmax_update::atomic_compare;
use super::*;

/// The element types whose updates become OpenCL atomics (as atomic_reduction.rs's).
fn atomic_element(t: Type) -> bool {
    matches!(
        t.canonical().kind(),
        CXType_Int | CXType_UInt | CXType_Long | CXType_ULong | CXType_Float | CXType_Double
    )
}

fn refuse<T>(why: impl Into<String>) -> Result<T, Option<String>> {
    Err(Some(format!("per-thread partial results, but {}", why.into())))
}

/// Whether byte range `(s, e)` lies inside `(a, b)`.
fn within((s, e): (usize, usize), (a, b): (usize, usize)) -> bool {
    s >= a && e <= b
}

fn span(n: Node) -> (usize, usize) {
    let (s, e) = n.range();
    (s.off, e.off)
}

/// One update of a thread's slot in a worksharing loop.
struct SlotUpdate {
    stmt: Node,
    /// the element updated
    target: Node,
    /// the value combined into it (None: `++`, `--`)
    operand: Option<Node>,
    /// "sum", "|", "&", "^", "max", "min"
    op: &'static str,
    /// a max/min update (rewritten as `atomic compare`)
    minmax: bool,
}

/// The statements resetting slots at a region's top.
struct Resets {
    /// their bytes (with the `;`)
    ranges: Vec<(usize, usize)>,
    /// the block running them for every thread number of the team, before the region (None:
    /// no resets)
    hoisted: Option<String>,
}

/// The thread-number expressions of a region.
struct Sites {
    /// the `omp_get_thread_num()` calls not initialising a thread-number variable
    calls: Vec<(usize, usize)>,
    /// the initialisers of the thread-number variables
    inits: Vec<(usize, usize)>,
    /// the thread-number variables (declaration keys)
    vars: Vec<String>,
    /// every use: the calls and the references to the variables
    uses: Vec<(usize, usize)>,
}

impl Sites {
    /// How many uses of the thread number `n` holds.
    fn count_in(&self, n: Node) -> usize {
        self.uses.iter().filter(|&&u| within(u, span(n))).count()
    }
}

impl Translator<'_> {
    /// The edits that give every update of a per-thread slot in region `pi` to thread 0's slot
    /// (module comment); Err(None) when the region does not ask for its thread number.
    pub(super) fn plan_thread_partials(&self, pi: usize) -> Result<Vec<Edit>, Option<String>> {
        let p = &self.cx.pragmas[pi];
        let combined = p.is(&["parallel", "for"]);
        if p.unknown.is_some() || !(p.is(&["parallel"]) || combined) {
            return Err(None);
        }
        let &(node, rs, re) = self.cx.assoc.get(&pi).ok_or(None)?;
        let all = nodes_of(node);
        let sites = self.thread_sites(&all)?;
        let inner = self.pragmas_in(rs, re);
        // (not this form: a nested region's own thread numbers are its business)
        if inner.iter().any(|&q| self.cx.pragmas[q].directive[0] == "parallel") {
            return Err(None);
        }
        let asks_count = all.iter().any(|n| {
            n.kind() == CXCursor_CallExpr
                && matches!(n.spelling().as_str(), "omp_get_num_threads" | "omp_get_max_threads")
        });
        if asks_count {
            return refuse(
                "it asks for the number of threads (on the device that number would not be the host's)",
            );
        }
        // the worksharing loops, whose iterations each run once whatever the team
        let loops: Vec<(usize, usize)> = if combined {
            vec![(span(node).0, re)]
        } else {
            inner
                .iter()
                .filter(|&&q| self.cx.pragmas[q].is(&["for"]))
                .filter_map(|q| self.cx.assoc.get(q).map(|a| (a.1, a.2)))
                .collect()
        };
        let mut stmts: HashSet<(usize, usize)> = HashSet::new();
        for n in &all {
            stmts.extend(statement_children(*n).into_iter().map(span));
        }
        let updates = self.slot_updates(&all, &stmts, &sites)?;
        if updates.is_empty() {
            return refuse("the thread number picks no slot of an update");
        }
        // the arrays of the slots, each of one operation
        let mut arrays: Vec<(String, Node, &'static str)> = Vec::new();
        for u in &updates {
            let (base, _) = peel_subscripts(u.target);
            let Some(d) =
                base.referenced().filter(|d| matches!(d.kind(), CXCursor_VarDecl | CXCursor_ParmDecl))
            else {
                return refuse(format!("the slot '{}' is not an element of a variable", self.src(u.target)));
            };
            let key = key_of(&d);
            match arrays.iter().find(|a| a.0 == key) {
                Some(a) if a.2 != u.op => {
                    return refuse(format!(
                        "'{}' takes updates of two operations ({} and {})",
                        d.spelling(),
                        a.2,
                        u.op
                    ))
                }
                Some(_) => {}
                None => arrays.push((key, d, u.op)),
            }
        }
        let named = not_shared(p);
        for (_, d, _) in &arrays {
            let name = d.spelling();
            if self.declared_in(d, (rs, re)) {
                return refuse(format!("'{name}' is declared in the region"));
            }
            if named.contains(&name) || self.cx.threadprivate.contains(&name) {
                return refuse(format!("'{name}' is not shared in the region"));
            }
        }
        let keys: Vec<&str> = arrays.iter().map(|a| a.0.as_str()).collect();
        let reads_array = |n: Node| keys.iter().any(|k| self.mentions(n, k));
        for u in &updates {
            let line = self.line_of(u.stmt);
            if !loops.iter().any(|&l| within(span(u.stmt), l)) {
                return refuse(format!("the update of a slot at line {line} is not in a worksharing loop"));
            }
            let (_, subs) = peel_subscripts(u.target);
            if subs.iter().any(|s| reads_array(*s) || !self.pure(*s)) {
                return refuse(format!(
                    "a subscript of the slot at line {line} reads a slot array or has side effects"
                ));
            }
            if u.operand.is_some_and(|v| reads_array(v) || sites.count_in(v) > 0) {
                return refuse(format!(
                    "the value of the update at line {line} reads a slot array or the thread number"
                ));
            }
        }
        for &l in &loops {
            if self.pragmas_in(l.0, l.1).iter().any(|&q| q != pi) {
                return refuse("a directive is nested in its worksharing loop");
            }
        }
        if arrays.iter().any(|a| global_storage(&a.1)) {
            let user_call = all.iter().any(|n| {
                n.kind() == CXCursor_CallExpr
                    && n.referenced().and_then(|f| f.definition()).is_some_and(|d| !d.in_system_header())
            });
            if user_call {
                return refuse("a slot array is global and the region calls a function of the program");
            }
        }
        // resets at the region's top, moved before it
        let Resets { ranges: resets, hoisted } = self.slot_resets(pi, node, &loops, &keys, &sites)?;
        // every use of the thread number and of the arrays accounted for
        let covered = |r: (usize, usize)| {
            updates.iter().any(|u| within(r, span(u.stmt)))
                || resets.iter().any(|&x| within(r, x))
                || sites.inits.contains(&r)
        };
        if let Some(&u) = sites.uses.iter().find(|&&u| !covered(u)) {
            return refuse(format!(
                "the thread number is used at line {} other than to pick the slot updated",
                self.line_at_off(u.0)
            ));
        }
        for n in &all {
            if n.kind() == CXCursor_DeclRefExpr
                && n.referenced().is_some_and(|d| keys.contains(&key_of(&d).as_str()))
                && !covered(span(*n))
            {
                return refuse(format!(
                    "'{}' is used at line {} other than by an update of the thread's slot",
                    n.spelling(),
                    self.line_of(*n)
                ));
            }
        }
        // the edits: thread number 0, atomic updates, resets moved
        let mut edits: Vec<Edit> = Vec::new();
        for &(s, e) in &sites.inits {
            edits.push(Edit { start: s, end: e, text: "0".into() });
        }
        for u in &updates {
            let (s, t) = span(u.stmt);
            let se = self.cx.stmt_end(t);
            if u.minmax {
                let x = self.with_thread_zero(span(u.target), &sites.calls);
                let v = self.src(u.operand.expect("a max/min update has an operand"));
                edits.push(Edit { start: s, end: se, text: atomic_compare(&x, v, u.op) });
                continue;
            }
            edits.push(Edit { start: s, end: s, text: "{\n#pragma omp atomic\n".into() });
            for &c in sites.calls.iter().filter(|&&c| within(c, (s, t))) {
                edits.push(Edit { start: c.0, end: c.1, text: "0".into() });
            }
            edits.push(Edit { start: se, end: se, text: " }".into() });
        }
        if let Some(h) = hoisted {
            for &(s, e) in &resets {
                edits.push(Edit { start: s, end: e, text: String::new() });
            }
            edits.push(Edit { start: p.line_start, end: p.line_start, text: format!("{{\n{h}\n") });
            edits.push(Edit { start: re, end: re, text: "\n}".into() });
        }
        Ok(edits)
    }

    /// The region's thread-number expressions: its `omp_get_thread_num()` calls and the variables
    /// its declarations initialise with one (Err(None): it has none).
    fn thread_sites(&self, all: &[Node]) -> Result<Sites, Option<String>> {
        let is_call = |n: Node| {
            let n = strip(n);
            n.kind() == CXCursor_CallExpr && n.num_args() == 0 && n.spelling() == "omp_get_thread_num"
        };
        let calls: Vec<Node> =
            all.iter().copied().filter(|n| n.kind() == CXCursor_CallExpr && is_call(*n)).collect();
        if calls.is_empty() {
            return Err(None);
        }
        let mut sites = Sites { calls: Vec::new(), inits: Vec::new(), vars: Vec::new(), uses: Vec::new() };
        for d in all.iter().filter(|n| n.kind() == CXCursor_VarDecl) {
            let Some(init) = d.var_initializer().filter(|i| is_call(*i)) else { continue };
            if !matches!(
                d.ty().canonical().kind(),
                CXType_Int | CXType_UInt | CXType_Long | CXType_ULong | CXType_Short | CXType_UShort
            ) || d.storage_static()
            {
                return refuse(format!(
                    "the thread number is held in '{}', not an integer variable of the region",
                    d.spelling()
                ));
            }
            sites.inits.push(span(strip(init)));
            sites.vars.push(key_of(d));
        }
        for c in calls {
            let r = span(c);
            if !sites.inits.contains(&r) {
                sites.calls.push(r);
                sites.uses.push(r);
            }
        }
        for n in all {
            if let Some(l) = assigned(*n) {
                let (b, _) = peel_subscripts(l);
                if b.referenced().is_some_and(|d| sites.vars.contains(&key_of(&d))) {
                    return refuse(format!(
                        "the thread-number variable '{}' is written in the region",
                        b.spelling()
                    ));
                }
            }
            if n.kind() == CXCursor_DeclRefExpr
                && n.referenced().is_some_and(|d| sites.vars.contains(&key_of(&d)))
            {
                sites.uses.push(span(*n));
            }
        }
        Ok(sites)
    }

    /// The statements of the region that update an element whose subscripts name the thread
    /// number (module comment's forms), in source order.
    fn slot_updates(
        &self,
        all: &[Node],
        stmts: &HashSet<(usize, usize)>,
        sites: &Sites,
    ) -> Result<Vec<SlotUpdate>, Option<String>> {
        let mut out = Vec::new();
        for &n in all {
            if !stmts.contains(&span(n)) {
                continue;
            }
            let n = strip(n);
            let update = match n.kind() {
                CXCursor_CompoundAssignOperator => {
                    let op = match self.written_binop(n) {
                        CXBinaryOperator_AddAssign | CXBinaryOperator_SubAssign => "sum",
                        CXBinaryOperator_OrAssign => "|",
                        CXBinaryOperator_AndAssign => "&",
                        CXBinaryOperator_XorAssign => "^",
                        _ => continue,
                    };
                    let c = n.children();
                    SlotUpdate { stmt: n, target: strip(c[0]), operand: Some(c[1]), op, minmax: false }
                }
                CXCursor_UnaryOperator
                    if (CXUnaryOperator_PostInc..=CXUnaryOperator_PreDec).contains(&self.written_unop(n)) =>
                {
                    SlotUpdate {
                        stmt: n,
                        target: strip(n.children()[0]),
                        operand: None,
                        op: "sum",
                        minmax: false,
                    }
                }
                CXCursor_IfStmt | CXCursor_BinaryOperator => match self.minmax_update(n) {
                    Ok(u) => SlotUpdate {
                        stmt: n,
                        target: strip(u.target),
                        operand: Some(u.operand),
                        op: u.op,
                        minmax: true,
                    },
                    Err(_) => continue,
                },
                _ => continue,
            };
            let (_, subs) = peel_subscripts(update.target);
            if subs.iter().all(|s| sites.count_in(*s) == 0) {
                continue;
            }
            let line = self.line_of(n);
            if !self.own_slot(&subs, sites) {
                return refuse(format!(
                    "the slot at line {line} is not plainly the thread's own (its number once, in one subscript linear in it)"
                ));
            }
            let (s, t) = n.range();
            if s.file != self.cx.file || t.file != self.cx.file {
                return refuse(format!("the update of a slot at line {line} is made by a macro"));
            }
            if !atomic_element(update.target.ty()) {
                return refuse(format!(
                    "the slot at line {line} has type '{}' (atomic updates take int, unsigned, long, unsigned long, float, double)",
                    update.target.ty().spelling()
                ));
            }
            if !update.minmax && self.cx.stmt_end(t.off) == t.off {
                return refuse(format!("the value of the update at line {line} is used"));
            }
            out.push(update);
        }
        Ok(out)
    }

    /// The top-level statements of `parallel` region `pi` (statement `node`) that reset slots
    /// before its worksharing loops `loops`: their ranges (with the `;`) and, when there are any,
    /// the block that runs them for every thread number of the team before the region.
    fn slot_resets(
        &self,
        pi: usize,
        node: Node,
        loops: &[(usize, usize)],
        keys: &[&str],
        sites: &Sites,
    ) -> Result<Resets, Option<String>> {
        let p = &self.cx.pragmas[pi];
        let &(_, rs, re) = self.cx.assoc.get(&pi).ok_or(None)?;
        let body = strip(node);
        if p.is(&["parallel", "for"]) || body.kind() != CXCursor_CompoundStmt {
            return Ok(Resets { ranges: Vec::new(), hoisted: None });
        }
        let first_loop = loops.iter().map(|l| l.0).min().unwrap_or(re);
        // (a statement using the thread number but no slot array is refused as such later)
        let touches = |n: Node| keys.iter().any(|k| self.mentions(n, k));
        // what the region writes: a reset reading it would read another value before the region
        let mut written: HashSet<String> = HashSet::new();
        for n in nodes_of(node) {
            if let Some(l) = assigned(n) {
                if let Some(d) = peel_subscripts(l).0.referenced() {
                    written.insert(key_of(&d));
                }
            }
        }
        let mut resets = Vec::new();
        let mut texts = Vec::new();
        for kid in body.children() {
            let (s, e) = span(kid);
            if s >= first_loop || !touches(kid) || loops.iter().any(|&l| within((s, e), l)) {
                continue;
            }
            let line = self.line_of(kid);
            if let Err(why) = self.reset_form(kid, (s, e), keys, sites, (rs, re), &written) {
                return refuse(format!(
                    "the statement at line {line} is not a reset of the thread's slots: {why}"
                ));
            }
            let end = self.cx.stmt_end(e);
            resets.push((s, end));
            // the thread number is the loop's variable in the moved text
            let uses: Vec<(usize, usize)> =
                sites.uses.iter().copied().filter(|&u| within(u, (s, end))).collect();
            texts.push(self.replaced(s, end, &uses, "__ompcl_tid"));
        }
        if resets.is_empty() {
            return Ok(Resets { ranges: resets, hoisted: None });
        }
        if p.clause("if").is_some() {
            return refuse(
                "it resets its slots and has an 'if' clause (the team's size is not known before it)",
            );
        }
        let nested = self.cx.pragmas.iter().enumerate().any(|(q, o)| {
            q != pi
                && o.directive[0] == "parallel"
                && self.cx.assoc.get(&q).is_some_and(|a| p.line_start > a.1 && p.line_start < a.2)
        });
        if nested {
            return refuse("it resets its slots and is nested in another 'parallel' region");
        }
        let team = match p.clause("num_threads").and_then(|c| c.arg.clone()) {
            Some(a) => {
                let plain = a.chars().all(|c| c.is_ascii_alphanumeric() || " _+-*/()".contains(c))
                    && !a.contains("++")
                    && !a.contains("--")
                    && !a.contains('(');
                if !plain {
                    return refuse("it resets its slots and its 'num_threads' is not a plain expression");
                }
                format!("({})", a.trim())
            }
            None => "omp_get_max_threads()".into(),
        };
        let h = format!(
            "{{ int __ompcl_team = {team};\nfor (int __ompcl_tid = 0; __ompcl_tid < __ompcl_team; __ompcl_tid++) {{\n{}\n}} }}",
            texts.join("\n")
        );
        Ok(Resets { ranges: resets, hoisted: Some(h) })
    }

    /// Whether `n` (in the top-level statement `stmt`) only sets elements of the slot arrays
    /// `keys` at the thread's slots to constants, in `for` loops declaring their variables
    /// (module comment), reading only variables declared in `stmt`, or outside the region
    /// `range` and not written in it (`written`).
    fn reset_form(
        &self,
        n: Node,
        stmt: (usize, usize),
        keys: &[&str],
        sites: &Sites,
        range: (usize, usize),
        written: &HashSet<String>,
    ) -> Result<(), String> {
        let n = strip(n);
        let outside = |e: Node| {
            decl_refs(e).iter().all(|r| {
                let Some(d) = r.referenced() else { return true };
                let k = key_of(&d);
                sites.vars.contains(&k)
                    || keys.contains(&k.as_str())
                    || d.kind() == CXCursor_EnumConstantDecl
                    || !(d.kind() == CXCursor_VarDecl || d.kind() == CXCursor_ParmDecl)
                    || (!written.contains(&k) && !self.declared_in(&d, range))
                    || self.declared_in(&d, stmt)
            })
        };
        match n.kind() {
            CXCursor_CompoundStmt => n
                .children()
                .into_iter()
                .try_for_each(|c| self.reset_form(c, stmt, keys, sites, range, written)),
            CXCursor_ForStmt => {
                let ch = n.children();
                let [init, cond, inc, body] = ch[..] else {
                    return Err("a 'for' without all its parts".into());
                };
                if init.kind() != CXCursor_DeclStmt {
                    return Err("its loop does not declare its variable".into());
                }
                for part in [init, cond, inc] {
                    if keys.iter().any(|k| self.mentions(part, k)) || !outside(part) {
                        return Err("its loop reads a slot array or a variable the region writes".into());
                    }
                }
                self.reset_form(body, stmt, keys, sites, range, written)
            }
            CXCursor_BinaryOperator if self.written_binop(n) == CXBinaryOperator_Assign => {
                let c = n.children();
                let (base, subs) = peel_subscripts(c[0]);
                let on_array = base.referenced().is_some_and(|d| keys.contains(&key_of(&d).as_str()));
                if !on_array || !self.own_slot(&subs, sites) {
                    return Err("it writes something else than a slot of the thread".into());
                }
                if subs
                    .iter()
                    .any(|s| !self.pure(*s) || keys.iter().any(|k| self.mentions(*s, k)) || !outside(*s))
                {
                    return Err("a subscript has side effects or reads what the region writes".into());
                }
                if c[1].eval_number().is_none() {
                    return Err("the value set is not a constant".into());
                }
                Ok(())
            }
            _ => Err("it is not an assignment or a 'for' loop of them".into()),
        }
    }

    /// Whether subscripts `subs` pick a slot of the current thread in the plain way the layouts
    /// of per-thread arrays do (`[tid][k]`, `[tid * K + k]`, `[(tid * C + c) * F + f]`,
    /// `[k * nt + tid]`, `[tid]`): the thread number appears once, in one subscript, which is
    /// linear in it (`linear_in_thread`). Thread 0's slot is then the subscript with the thread
    /// number 0; a subscript that computes another thread's slot (`(tid + 1) % nt`,
    /// `nt - 1 - tid`) or reads through it (`idx[tid]`) is refused.
    fn own_slot(&self, subs: &[Node], sites: &Sites) -> bool {
        let with: Vec<&Node> = subs.iter().filter(|s| sites.count_in(**s) > 0).collect();
        let [sub] = with[..] else { return false };
        sites.count_in(*sub) == 1 && self.linear_in_thread(*sub, sites)
    }

    /// Whether `e` (naming the thread number once) is the thread number, or a sum, difference or
    /// product whose operand naming it is such an expression (as the minuend of a difference):
    /// its other operands, which do not name it, are the layout's strides and offsets.
    fn linear_in_thread(&self, e: Node, sites: &Sites) -> bool {
        let e = strip(e);
        if sites.uses.contains(&span(e)) {
            return true;
        }
        let kids = e.children();
        let [l, r] = kids[..] else { return false };
        let on_left = sites.count_in(l) > 0;
        match self.written_binop(e) {
            CXBinaryOperator_Add | CXBinaryOperator_Mul => {
                self.linear_in_thread(if on_left { l } else { r }, sites)
            }
            CXBinaryOperator_Sub => on_left && self.linear_in_thread(l, sites),
            _ => false,
        }
    }

    /// The source bytes `s..e` with the ranges `uses` (inside them) replaced by `by`.
    fn replaced(&self, s: usize, e: usize, uses: &[(usize, usize)], by: &str) -> String {
        let mut uses = uses.to_vec();
        uses.sort();
        let mut out = String::new();
        let mut cur = s;
        for (a, b) in uses {
            if a < cur {
                continue;
            }
            out.push_str(&self.cx.text[cur..a]);
            out.push_str(by);
            cur = b;
        }
        out.push_str(&self.cx.text[cur..e]);
        out
    }

    /// The text of the slot at `r` with the thread-number calls in it made 0.
    fn with_thread_zero(&self, r: (usize, usize), calls: &[(usize, usize)]) -> String {
        let inside: Vec<(usize, usize)> = calls.iter().copied().filter(|&c| within(c, r)).collect();
        self.replaced(r.0, r.1, &inside, "0")
    }

    fn line_of(&self, n: Node) -> usize {
        self.line_at_off(span(n).0)
    }

    fn line_at_off(&self, off: usize) -> usize {
        self.cx.text[..off.min(self.cx.text.len())].matches('\n').count() + 1
    }
}
