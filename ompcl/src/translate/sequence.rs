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
//!
//! A statement every thread runs may hold worksharing loops itself: the time loop of a stencil
//! that keeps its team alive across the steps (Rodinia's hotspot3D),
//!
//! ```c
//! #pragma omp parallel
//! {
//!   float *in = a, *out = b;            -> the host, once
//!   do {                                -> the host, once
//!     #pragma omp for                   -> a kernel, launched from the host's loop
//!     for (...) out[..] = f(in[..]);
//!     float *t = in; in = out; out = t; -> the host (each thread's copies are the same)
//!   } while (++count < steps);
//! }
//! ```
//!
//! runs as that statement on the host with each such loop replaced by its kernel's launch. This
//! holds under the same condition as for the statements around the loops: the statement computes
//! only the region's locals and values no thread changes, so every thread's copies are the same;
//! and the loops do not set the region's locals.

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
        // the serial statements holding worksharing loops (by their index in `kids`)
        let mut wrapped: HashMap<usize, Vec<InnerLoop>> = HashMap::new();
        for (n, kid) in kids.iter().enumerate() {
            let directive = top.iter().any(|i| self.cx.assoc.get(i).is_some_and(|a| a.0.equals(kid)));
            serial.push(!directive && kid.kind() != CXCursor_NullStmt);
            if kid.kind() == CXCursor_NullStmt {
                continue;
            }
            if directive {
                kid.walk(&mut |c| {
                    if let Some(d) = written_variable(c) {
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
            let loops = self.loops_inside(p, ranges[n], &locals)?;
            let skip: Vec<(usize, usize)> = loops.iter().map(|l| l.range).collect();
            replicable(*kid, &mut locals, &mut set_on_host, &skip).map_err(|why| {
                format!("a statement outside any worksharing construct (every thread runs it): {why}")
            })?;
            if !loops.is_empty() {
                wrapped.insert(n, loops);
            }
        }
        // the region's arrays and structs: each work-item's own copy must do what each thread's does
        let aggregates = region_arrays::declared(kids, &serial);
        if !aggregates.is_empty() {
            let mut loops: Vec<Node> = Vec::new();
            let mut singles: Vec<Node> = Vec::new();
            for &i in &top {
                let Some(node) = self.cx.assoc.get(&i).map(|a| a.0) else { continue };
                let q = &self.cx.pragmas[i];
                if q.is(&["for"]) || idiom.contains_key(&i) {
                    loops.push(node);
                } else if !in_idiom.contains(&i) {
                    singles.push(node);
                }
            }
            let mut inside: Vec<(usize, usize)> = Vec::new();
            for l in wrapped.values().flatten() {
                inside.push(l.range);
                if l.body_from.is_some() {
                    singles.push(l.node)
                } else {
                    loops.push(l.node)
                }
            }
            let outside: Vec<Node> = kids.iter().zip(&serial).filter(|(_, s)| **s).map(|(k, _)| *k).collect();
            region_arrays::check(&aggregates, &loops, &singles, &outside, &inside)?;
        }
        // calls passing them get the functions' copies with `__private` parameters (the keys
        // are declarations inside this region: no other code names them, nothing to clear)
        self.private_arrays.extend(aggregates.keys().cloned());
        let mut steps = Vec::new();
        for (n, kid) in kids.iter().enumerate() {
            let dir =
                top.iter().copied().find(|i| self.cx.assoc.get(i).map(|a| a.0.equals(kid)).unwrap_or(false));
            let Some(i) = dir else {
                if serial[n] {
                    let (s, e) = ranges[n];
                    let line = self.cx.text[..s].matches('\n').count() as u32 + 1;
                    // each worksharing loop inside: a marker where it was, its kernel in `inner`
                    let mut text = String::new();
                    let mut inner = Vec::new();
                    let mut at = s;
                    for l in wrapped.remove(&n).unwrap_or_default() {
                        if let Some(from) = l.body_from {
                            // a single/master: its body, without the directive
                            text.push_str(&self.cx.text[at..l.range.0]);
                            text.push_str(&self.cx.text[from..l.range.1]);
                            at = l.range.1;
                            continue;
                        }
                        let q = self.cx.pragmas[l.pragma].clone();
                        let id = self.next_kid;
                        self.next_kid += 1;
                        let par = with_locals(p, &locals, &set_on_host, l.node);
                        let k = self.loop_kernel(id, q.line, vec![par, q.clone()], l.node)?;
                        let resume = self.cx.text[..l.range.1].matches('\n').count() as u32 + 1;
                        text.push_str(&self.cx.text[at..l.range.0]);
                        text.push_str(&inner_marker(id));
                        at = l.range.1;
                        inner.push(InnerKernel { k: Box::new(k), kid: id, line: q.line, resume });
                    }
                    text.push_str(&self.cx.text[at..e]);
                    steps.push(Step::Host(HostStep { line, text, replicated: true, inner }));
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
                let par = with_locals(p, &locals, &set_on_host, *kid);
                let k = self.loop_kernel(id, q.line, vec![par, q.clone()], *kid)?;
                steps.push(Step::Kernel { k: Box::new(k), kid: id, line: q.line });
            } else {
                // single / master: the host runs the body once
                if q.clause("copyprivate").is_some() {
                    return Err("'copyprivate' is not translated to OpenCL".into());
                }
                let (s, e) = ranges[n];
                self.host_body(p, &q, (s, e))?;
                let text = self.cx.text[s..e].to_string();
                let line = self.cx.text[..s].matches('\n').count() as u32 + 1;
                steps.push(Step::Host(HostStep { line, text, replicated: false, inner: Vec::new() }));
            }
        }
        // pointers the host sets between the kernels do not exist yet when the kernels are made
        // ready: each stands for the variables outside the region it takes its values from
        let sources = pointer_sources(kids, &serial);
        for st in steps.iter_mut() {
            match st {
                Step::Kernel { k, .. } => late_pointers(k, &sources)?,
                Step::Host(h) => h.inner.iter_mut().try_for_each(|i| late_pointers(&mut i.k, &sources))?,
            }
        }
        // an initialised aggregate is declared by a host step, after the kernels are made ready:
        // each work-item's copy starts from it, nothing to know of it before
        if !aggregates.is_empty() {
            for st in steps.iter_mut() {
                match st {
                    Step::Kernel { k, .. } => region_arrays::unready(k, &aggregates),
                    Step::Host(h) => {
                        h.inner.iter_mut().for_each(|i| region_arrays::unready(&mut i.k, &aggregates))
                    }
                }
            }
        }
        let launches = |s: &Step| match s {
            Step::Kernel { .. } => true,
            Step::Host(h) => !h.inner.is_empty(),
        };
        if !steps.iter().any(launches) {
            return Err("'parallel' region without a worksharing loop".into());
        }
        Ok(steps)
    }
}

/// A worksharing loop inside a statement that every thread runs: its `for` directive, the loop,
/// and the bytes from the directive's line to the loop's end (which its kernel's launch replaces).
pub(super) struct InnerLoop {
    pragma: usize,
    node: Node,
    range: (usize, usize),
    /// a `single`/`master`: the host runs its body (from here to the range's end) in place
    body_from: Option<usize>,
}

/// The pointers declared in the region's serial statements (`kids` where `serial`), by name: the
/// variables declared outside the region their values come from (through other such pointers),
/// or None where some value is not a plain variable (`p = a + 1`, a call, a name declared twice).
fn pointer_sources(kids: &[Node], serial: &[bool]) -> HashMap<String, Option<Vec<String>>> {
    // pointer declarations inside the region, and each one's assigned values
    let mut decls: HashMap<String, String> = HashMap::new(); // key -> name
    let mut names: HashMap<String, usize> = HashMap::new(); // name -> declarations
    let mut values: Vec<(String, Node)> = Vec::new(); // (key, value)
    let mut moved: HashSet<String> = HashSet::new(); // `p += n`, `p++`: arithmetic on a pointer
    for (kid, _) in kids.iter().zip(serial).filter(|(_, s)| **s) {
        let mut all = vec![*kid];
        kid.walk(&mut |c| all.push(c));
        for c in all {
            match c.kind() {
                CXCursor_VarDecl if c.ty().canonical().kind() == CXType_Pointer => {
                    decls.insert(key_of(&c), c.spelling());
                    *names.entry(c.spelling()).or_default() += 1;
                    if let Some(init) = c.children().last().filter(|i| i.kind() != CXCursor_TypeRef) {
                        values.push((key_of(&c), *init));
                    }
                }
                CXCursor_BinaryOperator if c.binop() == CXBinaryOperator_Assign => {
                    let ch = c.children();
                    let lhs = ch.first().map(|l| strip(*l));
                    if let (Some(l), Some(r)) = (lhs, ch.get(1)) {
                        if let Some(d) = (l.kind() == CXCursor_DeclRefExpr).then(|| l.referenced()).flatten()
                        {
                            values.push((key_of(&d), *r));
                        }
                    }
                }
                CXCursor_CompoundAssignOperator | CXCursor_UnaryOperator => {
                    if let Some(d) = written_variable(c) {
                        moved.insert(key_of(&d));
                    }
                }
                _ => {}
            }
        }
    }
    // each pointer's direct sources: ("outside", name) or ("inside", key); None: not a plain name
    let mut direct: HashMap<String, Option<Vec<(bool, String)>>> =
        decls.keys().map(|k| (k.clone(), Some(Vec::new()))).collect();
    for k in &moved {
        if let Some(entry) = direct.get_mut(k) {
            *entry = None;
        }
    }
    for (k, v) in values {
        let Some(entry) = direct.get_mut(&k) else { continue };
        let v = strip(v);
        let d = (v.kind() == CXCursor_DeclRefExpr).then(|| v.referenced()).flatten();
        match (entry.as_mut(), d) {
            (Some(list), Some(d)) if decls.contains_key(&key_of(&d)) => list.push((false, key_of(&d))),
            (Some(list), Some(d)) => list.push((true, d.spelling())),
            _ => *entry = None,
        }
    }
    let mut out = HashMap::new();
    for (k, name) in &decls {
        // the closure over pointers declared inside
        let mut seen: HashSet<String> = HashSet::new();
        let mut todo = vec![k.clone()];
        let mut srcs: Option<Vec<String>> = Some(Vec::new());
        while let Some(x) = todo.pop() {
            if !seen.insert(x.clone()) {
                continue;
            }
            match direct.get(&x).cloned().flatten() {
                None => srcs = None,
                Some(list) => {
                    for (outside, v) in list {
                        if outside {
                            if let Some(s) = srcs.as_mut() {
                                if !s.contains(&v) {
                                    s.push(v);
                                }
                            }
                        } else {
                            todo.push(v);
                        }
                    }
                }
            }
        }
        let twice = names.get(name).copied().unwrap_or(0) > 1;
        out.insert(name.clone(), if twice { None } else { srcs });
    }
    out
}

/// Kernel `k`'s arguments for `ompcl_kernel_ready` where it takes a pointer the region sets
/// (`sources`, from `pointer_sources`): that pointer's sources instead; or the reason it cannot.
fn late_pointers(k: &mut KernelOut, sources: &HashMap<String, Option<Vec<String>>>) -> Result<(), String> {
    let mut ready = Vec::new();
    let mut changed = false;
    for a in &k.host_args {
        // a table of row pointers (row_pointers.rs) the region sets: its rows are read at the
        // kernel's launch, which the checks before the first kernel could not follow
        let rows = a.strip_prefix("{OMPCL_ROWS, \"").and_then(|r| r.split_once('"')).map(|(n, _)| n);
        if let Some(n) = rows.filter(|n| sources.contains_key(*n)) {
            return Err(format!("table of row pointers '{n}' set by the region (a kernel uses it)"));
        }
        let name = a.strip_prefix("{OMPCL_BUF, \"").and_then(|r| r.split_once('"')).map(|(n, _)| n);
        match name.and_then(|n| sources.get(n).map(|s| (n, s))) {
            Some((n, None)) => {
                return Err(format!(
                    "pointer '{n}', which the region sets, takes a value other than a variable's (a kernel uses it)"
                ))
            }
            Some((_, Some(srcs))) => {
                changed = true;
                for s in srcs {
                    ready.push(format!("{{OMPCL_BUF, \"{s}\", (void*)({s}), 0, 0, 0, 0}}"));
                }
            }
            None => ready.push(a.clone()),
        }
    }
    if changed {
        k.ready_args = Some(ready);
    }
    Ok(())
}

/// Whether host C `text` names one of the functions whose host calls ompcl wraps (`malloc`,
/// `fread` ...: `HOST_WRAPPED`), as a whole identifier.
fn names_wrapped_call(text: &str) -> bool {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).any(|w| HOST_WRAPPED.contains(&w))
}

/// Whether host C `text` names an `omp_` routine other than `omp_get_thread_num` and
/// `omp_get_num_threads`. Those two a `single`/`master` body run on the host may call: there they
/// answer 0 and 1, what a team of one thread answers, and a team of one is an execution OpenMP
/// allows (a region's team size is the implementation's choice when dynamic adjustment is on).
fn omp_calls_beyond_team(text: &str) -> bool {
    text.match_indices("omp_").any(|(at, _)| {
        let name: String =
            text[at..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
        let starts_word = text[..at].chars().last().is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_'));
        starts_word && name != "omp_get_thread_num" && name != "omp_get_num_threads"
    })
}

/// The name of the variable a `for` loop `lp` starts by setting (its loop variable), if any.
fn loop_variable(lp: Node) -> Option<String> {
    let init = strip(lp).children().first().copied()?;
    let mut v = None;
    init.walk(&mut |c| {
        if v.is_none() && c.kind() == CXCursor_DeclRefExpr {
            v = c.referenced().map(|d| d.spelling());
        }
    });
    v
}

/// The variable (its declaration) that node `c` writes by name: the left side of `=` or of a
/// compound assignment, the operand of `++`/`--`; None for other nodes.
fn written_variable(c: Node) -> Option<Node> {
    let target = match c.kind() {
        CXCursor_BinaryOperator if c.binop() == CXBinaryOperator_Assign => c.children().first().copied(),
        CXCursor_CompoundAssignOperator => c.children().first().copied(),
        CXCursor_UnaryOperator if (CXUnaryOperator_PostInc..=CXUnaryOperator_PreDec).contains(&c.unop()) => {
            c.children().first().copied()
        }
        _ => None,
    };
    target.map(strip).filter(|t| t.kind() == CXCursor_DeclRefExpr).and_then(|t| t.referenced())
}

/// Where the host code of a serial statement launches inner kernel `kid` (host.rs replaces it by
/// the launch).
pub(super) fn inner_marker(kid: usize) -> String {
    format!("\u{1}{kid}\u{1}")
}

/// `p` with the region's locals (`locals`: key -> name) as the clauses of a loop `lp` of it: those
/// the host sets (`set`) firstprivate, the others private; not the loop's own variable (private
/// by OpenMP's rules).
fn with_locals(p: &Pragma, locals: &HashMap<String, String>, set: &HashSet<String>, lp: Node) -> Pragma {
    let mut par = p.clone();
    if locals.is_empty() {
        return par;
    }
    let lv = strip(lp)
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
    let mut fp: Vec<&String> =
        locals.iter().filter(|(k, _)| **k != lv && set.contains(*k)).map(|(_, n)| n).collect();
    let mut pr: Vec<&String> =
        locals.iter().filter(|(k, _)| **k != lv && !set.contains(*k)).map(|(_, n)| n).collect();
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
    par
}

impl<'a> Translator<'a> {
    /// Whether the body (bytes `(s, e)`) of `single`/`master` `q` in `parallel` region `p` may run
    /// on the host: the region has no private variables, the body no directives, and it calls
    /// nothing ompcl's host rewrites would have changed (allocation, fread ...; they do not reach
    /// the copied body) nor `omp_*` routines a team of one would answer differently.
    fn host_body(&self, p: &Pragma, q: &Pragma, (s, e): (usize, usize)) -> Result<(), String> {
        if !p.list("private").is_empty() {
            return Err(format!("'{}' in a 'parallel' with private variables", q.name()));
        }
        if !self.pragmas_in(s, e).is_empty() {
            return Err(format!("directives inside '{}' are not translated to OpenCL", q.name()));
        }
        let text = &self.cx.text[s..e];
        if names_wrapped_call(text) || omp_calls_beyond_team(text) {
            return Err(format!(
                "'{}' body calls the allocator, I/O that ompcl wraps, or the OpenMP library",
                q.name()
            ));
        }
        Ok(())
    }

    /// The worksharing loops and `single`/`master` constructs inside the serial statement at bytes
    /// `(s, e)`, outermost only (the directives inside a loop are its kernel's); any other
    /// directive there but `barrier` and `flush` (nothing between kernels), or a construct that
    /// sets one of the region's `locals` (each thread would have its own value), refuses the
    /// region.
    fn loops_inside(
        &self,
        p: &Pragma,
        (s, e): (usize, usize),
        locals: &HashMap<String, String>,
    ) -> Result<Vec<InnerLoop>, String> {
        let mut loops: Vec<InnerLoop> = Vec::new();
        for i in self.pragmas_in(s, e) {
            let q = &self.cx.pragmas[i];
            if loops.iter().any(|l| q.line_start >= l.range.0 && q.line_start < l.range.1) {
                continue;
            }
            if q.is(&["barrier"]) || q.is(&["flush"]) {
                continue;
            }
            let node = self.cx.assoc.get(&i).map(|a| a.0);
            let single = q.is(&["single"]) || q.is(&["master"]);
            let Some(node) = node.filter(|_| q.is(&["for"]) || single) else {
                return Err(format!(
                    "'{}' inside a statement that every thread runs is not translated to OpenCL",
                    q.name()
                ));
            };
            let (from, end) = (node.range().0.off, self.cx.stmt_end(node.range().1.off));
            if single {
                // run once per encounter, on the host, as at the region's top level (the same
                // conditions, and it may not set the region's locals: OpenMP would change one
                // thread's copy only)
                if q.clauses.iter().any(|c| c.name != "nowait") {
                    return Err(format!("a clause other than 'nowait' on '{}' inside a loop", q.name()));
                }
                self.host_body(p, q, (from, end))?;
            }
            loops.push(InnerLoop {
                pragma: i,
                node,
                range: (q.line_start, end),
                body_from: single.then_some(from),
            });
        }
        for l in &loops {
            // a loop's own variable and those its clauses make private are each thread's anyway
            let q = &self.cx.pragmas[l.pragma];
            let own: HashSet<String> = ["private", "firstprivate", "lastprivate"]
                .iter()
                .flat_map(|c| q.list(c))
                .chain((l.body_from.is_none()).then(|| loop_variable(l.node)).flatten())
                .collect();
            let mut set = None;
            let mut check = |c: Node| {
                if let Some(d) = written_variable(c) {
                    if let Some(name) = locals.get(&key_of(&d)).filter(|n| !own.contains(*n)) {
                        set.get_or_insert_with(|| name.clone());
                    }
                }
            };
            // the statement itself (a single's `x = ...;`), then everything inside it
            check(l.node);
            l.node.walk(&mut check);
            if let Some(v) = set {
                let what = if l.body_from.is_some() { "a 'single'/'master'" } else { "a worksharing loop" };
                return Err(format!(
                    "{what} inside a statement that every thread runs sets the region's variable '{v}'"
                ));
            }
        }
        Ok(loops)
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
    skip: &[(usize, usize)],
) -> Result<(), String> {
    let (ss, se) = st.range();
    let skipped = |c: &Node| {
        let at = c.range().0.off;
        skip.iter().any(|&(a, b)| at >= a && at < b)
    };
    let inside = |d: &Node| {
        let p = d.loc();
        p.file == ss.file && p.off >= ss.off && p.off < se.off
    };
    let mut why: Option<String> = None;
    let target =
        |n: Node, why: &mut Option<String>, set: &mut HashSet<String>, locals: &HashMap<String, String>| {
            let t = strip(n);
            let d = (t.kind() == CXCursor_DeclRefExpr).then(|| t.referenced()).flatten();
            // an element of one of the region's arrays or structs: that aggregate
            let d = d.or_else(|| region_arrays::aggregate_of(t));
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
    st.walk(&mut |c| {
        if !skipped(&c) {
            visit(c, &mut why, set, locals)
        }
    });
    if let Some(w) = why {
        return Err(w);
    }
    // the region's locals it declares
    if st.kind() == CXCursor_DeclStmt {
        for d in st.children() {
            if d.kind() != CXCursor_VarDecl {
                continue;
            }
            // numbers, and pointers (kernels take a pointer the host set as they take a shared
            // one: the memory it points into)
            if !d.ty().is_arith()
                && d.ty().canonical().kind() != CXType_Pointer
                && !super::region_arrays::is_private_aggregate(d.ty())
            {
                return Err(format!("'{}' is not a number", d.spelling()));
            }
            // (an array's children hold its size: only an initializer gives it a value)
            let initialised = if region_arrays::is_private_aggregate(d.ty()) {
                d.var_initializer().is_some()
            } else {
                !d.children().is_empty()
            };
            if initialised {
                set.insert(key_of(&d));
            }
            locals.insert(key_of(&d), d.spelling());
        }
    }
    Ok(())
}
