//! A `parallel` region made of several worksharing loops (PolyBench's and most real code's style):
//!
//! ```c
//! #pragma omp parallel
//! {
//!   #pragma omp for            -> kernel 1
//!   for (...) ...
//!   #pragma omp barrier        -> nothing (kernels run one after the other)
//!   #pragma omp single         -> the host runs the body between kernel 1 and kernel 2
//!   { ... }
//!   #pragma omp for nowait     -> kernel 2
//!   for (...) ...
//! }
//! ```
//!
//! Every loop becomes its own kernel; they run in program order, each finished before the next
//! starts. That is one of the executions OpenMP allows (a `nowait` only permits threads to run
//! ahead; a barrier between loops is always a legal schedule). A `single` or `master` body runs
//! exactly once, on the host, at its place in the sequence, with the data the kernels wrote already
//! copied back (the runtime's write tracking then re-sends what the host changed). The region's data
//! stays on the device between kernels: blocks are only sent when the host dirtied them.

use super::*;

impl<'a> Translator<'a> {
    /// The steps of a `parallel` region `p` whose body statements are `kids` (`inner`: the
    /// directives inside it), or the reason it stays on the CPU.
    pub(super) fn sequence(
        &mut self,
        p: &Pragma,
        kids: &[Node],
        inner: &[usize],
    ) -> Result<Vec<Step>, String> {
        for c in ["firstprivate", "lastprivate", "reduction", "copyin"] {
            if p.clause(c).is_some() {
                return Err(format!(
                    "'{c}' on a 'parallel' holding several constructs is not translated to OpenCL"
                ));
            }
        }
        let ranges: Vec<(usize, usize)> = kids
            .iter()
            .map(|k| {
                let (s, e) = k.range();
                (s.off, self.cx.stmt_end(e.off))
            })
            .collect();
        // the directives at the region's top level (not inside one of its statements)
        let top: Vec<usize> = inner
            .iter()
            .copied()
            .filter(|&i| {
                let at = self.cx.pragmas[i].line_start;
                !ranges.iter().any(|&(s, e)| at >= s && at < e)
            })
            .collect();
        // `single`/`master` whose body is only a `taskloop` loop: a worksharing loop
        let taskloop_of = |i: usize| -> Option<usize> {
            let (sp, j) = (&self.cx.pragmas[i], i + 1);
            let tp = self.cx.pragmas.get(j)?;
            let same =
                self.cx.assoc.get(&i).zip(self.cx.assoc.get(&j)).is_some_and(|(a, b)| a.0.equals(&b.0));
            ((sp.is(&["single"]) || sp.is(&["master"]))
                && sp.clauses.iter().all(|c| c.name == "nowait")
                && (tp.is(&["taskloop"]) || tp.is(&["taskloop", "simd"]))
                && same
                && top.contains(&j))
            .then_some(j)
        };
        let idiom: HashMap<usize, usize> =
            top.iter().filter_map(|&i| taskloop_of(i).map(|j| (i, j))).collect();
        let in_idiom: HashSet<usize> = idiom.values().copied().collect();
        for &i in &top {
            let q = &self.cx.pragmas[i];
            if in_idiom.contains(&i) {
                continue;
            }
            if !(q.is(&["for"])
                || q.is(&["single"])
                || q.is(&["master"])
                || q.is(&["barrier"])
                || q.is(&["flush"]))
            {
                return Err(format!("'{}' inside 'parallel' is not translated to OpenCL", q.name()));
            }
        }
        // statements outside the worksharing constructs, which every thread runs: those that only
        // compute the region's own local variables (declared at its top level: each thread has
        // its copy) from values no thread changes meanwhile give every thread the same copies, so
        // the host runs them once, at their place between the kernels, and the kernels take the
        // variables as firstprivate (private when no such statement sets them)
        let mut locals: HashMap<String, String> = HashMap::new(); // key -> name
        let mut set_on_host: HashSet<String> = HashSet::new();
        let mut serial: Vec<bool> = Vec::new();
        // the region's locals a worksharing construct before has written: each thread's own value
        // then, which a statement run once on the host cannot see
        let mut set_by_threads: HashSet<String> = HashSet::new();
        for kid in kids {
            let directive = top.iter().any(|i| self.cx.assoc.get(i).is_some_and(|a| a.0.equals(kid)));
            serial.push(!directive && kid.kind() != CXCursor_NullStmt);
            if kid.kind() == CXCursor_NullStmt {
                continue;
            }
            if directive {
                kid.walk(&mut |c| {
                    let target = match c.kind() {
                        CXCursor_BinaryOperator if c.binop() == CXBinaryOperator_Assign => {
                            c.children().first().copied()
                        }
                        CXCursor_CompoundAssignOperator => c.children().first().copied(),
                        CXCursor_UnaryOperator
                            if (CXUnaryOperator_PostInc..=CXUnaryOperator_PreDec).contains(&c.unop()) =>
                        {
                            c.children().first().copied()
                        }
                        _ => None,
                    };
                    if let Some(d) = target
                        .map(strip)
                        .filter(|t| t.kind() == CXCursor_DeclRefExpr)
                        .and_then(|t| t.referenced())
                    {
                        if locals.contains_key(&key_of(&d)) {
                            set_by_threads.insert(key_of(&d));
                        }
                    }
                });
                continue;
            }
            // ... unless the statement sets it first: its first mention (in the text) is the left
            // side of a plain `=` that runs unconditionally (`for (j = 0; ...)` after a loop
            // over `j`)
            let mut conditional: Vec<(usize, usize)> = Vec::new();
            let mut assigned_at: HashMap<usize, String> = HashMap::new();
            let mut mentions: Vec<(usize, String)> = Vec::new();
            let mut all = vec![*kid];
            kid.walk(&mut |c| all.push(c));
            for c in &all {
                let (cs, ce) = c.range();
                match c.kind() {
                    CXCursor_IfStmt
                    | CXCursor_SwitchStmt
                    | CXCursor_WhileStmt
                    | CXCursor_DoStmt
                    | CXCursor_ConditionalOperator => conditional.push((cs.off, ce.off)),
                    CXCursor_ForStmt => {
                        let init_end = c.children().first().map_or(cs.off, |i| i.range().1.off);
                        conditional.push((init_end, ce.off));
                    }
                    CXCursor_BinaryOperator if c.binop() == CXBinaryOperator_Assign => {
                        if let Some(l) = c.children().first().map(|l| strip(*l)) {
                            if let Some(d) =
                                (l.kind() == CXCursor_DeclRefExpr).then(|| l.referenced()).flatten()
                            {
                                assigned_at.insert(l.range().0.off, key_of(&d));
                            }
                        }
                    }
                    CXCursor_DeclRefExpr => {
                        if let Some(d) = c.referenced() {
                            if set_by_threads.contains(&key_of(&d)) {
                                mentions.push((cs.off, key_of(&d)));
                            }
                        }
                    }
                    _ => {}
                }
            }
            mentions.sort();
            let mut uses = None;
            let mut seen: HashSet<String> = HashSet::new();
            for (at, k) in &mentions {
                if !seen.insert(k.clone()) {
                    continue;
                }
                let sets_first = assigned_at.get(at) == Some(k)
                    && !conditional.iter().any(|&(cs, ce)| *at >= cs && *at < ce);
                if !sets_first {
                    uses.get_or_insert(locals.get(k).cloned().unwrap_or_default());
                }
            }
            if let Some(v) = uses {
                return Err(format!(
                    "a statement outside any worksharing construct (every thread runs it): it uses '{v}', which a loop before it set (each thread its own value)"
                ));
            }
            replicable(*kid, &mut locals, &mut set_on_host).map_err(|why| {
                format!("a statement outside any worksharing construct (every thread runs it): {why}")
            })?;
        }
        let mut steps = Vec::new();
        for (n, kid) in kids.iter().enumerate() {
            let dir =
                top.iter().copied().find(|i| self.cx.assoc.get(i).map(|a| a.0.equals(kid)).unwrap_or(false));
            let Some(i) = dir else {
                if serial[n] {
                    let (s, e) = ranges[n];
                    let text = self.cx.text[s..e].to_string();
                    let line = self.cx.text[..s].matches('\n').count() as u32 + 1;
                    steps.push(Step::Host(HostStep { line, text, replicated: true }));
                }
                continue;
            };
            let q = match idiom.get(&i).copied() {
                Some(j) => kernel::taskloop_as_for(&self.cx.pragmas[j])?,
                None => self.cx.pragmas[i].clone(),
            };
            if q.is(&["for"]) {
                let id = self.next_kid;
                self.next_kid += 1;
                // the region's locals are the loop's firstprivate (or private) variables, but
                // for its loop variable (private by OpenMP's rules)
                let mut par = p.clone();
                if !locals.is_empty() {
                    let lv = strip(*kid)
                        .children()
                        .first()
                        .and_then(|init| {
                            let mut v = None;
                            init.walk(&mut |c| {
                                if v.is_none() && c.kind() == CXCursor_DeclRefExpr {
                                    v = c.referenced().map(|d| key_of(&d));
                                }
                            });
                            v
                        })
                        .unwrap_or_default();
                    let mut fp: Vec<&String> = locals
                        .iter()
                        .filter(|(k, _)| **k != lv && set_on_host.contains(*k))
                        .map(|(_, n)| n)
                        .collect();
                    let mut pr: Vec<&String> = locals
                        .iter()
                        .filter(|(k, _)| **k != lv && !set_on_host.contains(*k))
                        .map(|(_, n)| n)
                        .collect();
                    fp.sort();
                    pr.sort();
                    for (name, list) in [("firstprivate", fp), ("private", pr)] {
                        if !list.is_empty() {
                            par.clauses.push(crate::pragma::Clause {
                                name: name.into(),
                                arg: Some(list.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")),
                                start: 0,
                                end: 0,
                            });
                        }
                    }
                }
                let k = self.loop_kernel(id, q.line, vec![par, q.clone()], *kid)?;
                steps.push(Step::Kernel { k: Box::new(k), kid: id, line: q.line });
            } else {
                // single / master: the host runs the body once
                if !p.list("private").is_empty() {
                    return Err(format!("'{}' in a 'parallel' with private variables", q.name()));
                }
                if q.clause("copyprivate").is_some() {
                    return Err("'copyprivate' is not translated to OpenCL".into());
                }
                let (s, e) = ranges[n];
                if !self.pragmas_in(s, e).is_empty() {
                    return Err(format!("directives inside '{}' are not translated to OpenCL", q.name()));
                }
                let text = self.cx.text[s..e].to_string();
                // the host copy of the body does not get the host rewrites (allocation calls,
                // fread ...) nor a team: keep such bodies on the CPU
                if ["alloc", "free", "read", "omp_"].iter().any(|w| text.contains(w)) {
                    return Err(format!(
                        "'{}' body calls the allocator, I/O that ompcl wraps, or the OpenMP library",
                        q.name()
                    ));
                }
                let line = self.cx.text[..s].matches('\n').count() as u32 + 1;
                steps.push(Step::Host(HostStep { line, text, replicated: false }));
            }
        }
        if !steps.iter().any(|s| matches!(s, Step::Kernel { .. })) {
            return Err("'parallel' region without a worksharing loop".into());
        }
        Ok(steps)
    }
}

/// Whether statement `st`, which every thread of a team runs, may run once instead: it writes
/// only variables of the region's own (`locals`, which its top-level declarations add to: numbers,
/// not `static`) or of its own blocks, and calls only OpenCL's math built-ins (no I/O, no
/// `omp_*`). `set` gets the region's locals it gives a value.
pub(super) fn replicable(
    st: Node,
    locals: &mut HashMap<String, String>,
    set: &mut HashSet<String>,
) -> Result<(), String> {
    let (ss, se) = st.range();
    let inside = |d: &Node| {
        let p = d.loc();
        p.file == ss.file && p.off >= ss.off && p.off < se.off
    };
    let mut why: Option<String> = None;
    let target =
        |n: Node, why: &mut Option<String>, set: &mut HashSet<String>, locals: &HashMap<String, String>| {
            let t = strip(n);
            let d = (t.kind() == CXCursor_DeclRefExpr).then(|| t.referenced()).flatten();
            match d {
                Some(d) if locals.contains_key(&key_of(&d)) => {
                    set.insert(key_of(&d));
                }
                Some(d) if inside(&d) => {}
                _ => {
                    why.get_or_insert_with(|| "it writes shared data".into());
                }
            }
        };
    let visit =
        |c: Node, why: &mut Option<String>, set: &mut HashSet<String>, locals: &HashMap<String, String>| {
            match c.kind() {
                CXCursor_CallExpr => {
                    let name = c.spelling();
                    if name.starts_with("omp_") || !CL_BUILTINS.contains(&name.as_str()) {
                        why.get_or_insert_with(|| format!("it calls '{name}'"));
                    }
                }
                CXCursor_BinaryOperator if c.binop() == CXBinaryOperator_Assign => {
                    if let Some(l) = c.children().first() {
                        target(*l, why, set, locals);
                    }
                }
                CXCursor_CompoundAssignOperator => {
                    if let Some(l) = c.children().first() {
                        target(*l, why, set, locals);
                    }
                }
                CXCursor_UnaryOperator
                    if matches!(
                        c.unop(),
                        CXUnaryOperator_PostInc
                            | CXUnaryOperator_PostDec
                            | CXUnaryOperator_PreInc
                            | CXUnaryOperator_PreDec
                    ) =>
                {
                    if let Some(l) = c.children().first() {
                        target(*l, why, set, locals);
                    }
                }
                CXCursor_UnaryOperator if c.unop() == CXUnaryOperator_AddrOf => {
                    why.get_or_insert_with(|| "it takes an address".into());
                }
                CXCursor_ReturnStmt | CXCursor_GotoStmt | CXCursor_AsmStmt | CXCursor_IndirectGotoStmt => {
                    why.get_or_insert_with(|| "it leaves the region or is assembly".into());
                }
                CXCursor_VarDecl if c.storage_static() || c.storage_extern() => {
                    why.get_or_insert_with(|| "a static or extern declaration".into());
                }
                _ => {}
            }
        };
    visit(st, &mut why, set, locals);
    st.walk(&mut |c| visit(c, &mut why, set, locals));
    if let Some(w) = why {
        return Err(w);
    }
    // the region's locals it declares
    if st.kind() == CXCursor_DeclStmt {
        for d in st.children() {
            if d.kind() != CXCursor_VarDecl {
                continue;
            }
            if !d.ty().is_arith() {
                return Err(format!("'{}' is not a number", d.spelling()));
            }
            if !d.children().is_empty() {
                set.insert(key_of(&d));
            }
            locals.insert(key_of(&d), d.spelling());
        }
    }
    Ok(())
}
