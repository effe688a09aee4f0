//! `target` (and `target teams`) regions whose body is several statements, some of them loop
//! constructs and some plain code (the usual shape of real target code: a team-local counter, a
//! `parallel` + `for` that updates it, then a statement that stores the result):
//!
//! ```c
//! #pragma omp target teams map(from: out)
//! {
//!   int count = 0;                          -> the host (numbers only, no memory read): once
//!   #pragma omp parallel                    -> a kernel (count: shared, copied in and out)
//!   #pragma omp for reduction(+: count)
//!   for (...) count += ...;
//!   if (omp_get_team_num() == 0) out = count;   -> a kernel of one work-item
//! }
//! ```
//!
//! Each loop construct becomes a kernel; the other statements run in order between them, on the
//! device as kernels of one work-item (their data is the device's), except those that only compute
//! the body's own numeric locals from numbers, which the host runs (as for a `parallel` region of
//! several constructs, sequence.rs). The body's locals are the host's variables then, declared
//! before the first kernel: each kernel takes them by value, or copies them in and back when it
//! writes them, so every step sees the values the steps before it left, as the one thread running
//! the body would. The data the region maps stays on the device between the steps.
//!
//! With `teams`, every team would run the whole body: the region runs as one team (OpenMP 4.5
//! lets the implementation create fewer teams than `num_teams` asks, and at least one without the
//! clause), so `omp_get_team_num()` is 0 and `omp_get_num_teams()` 1 in every step.

use super::*;

/// `chain` (the directives from `target` down to the body) as one team: `teams` and `num_teams`
/// dropped (`thread_limit` still bounds the threads of its `parallel` regions).
pub(super) fn one_team(chain: &[Pragma]) -> Vec<Pragma> {
    chain
        .iter()
        .map(|p| {
            let mut q = p.clone();
            q.directive.retain(|w| w != "teams");
            q.clauses.retain(|c| c.name != "num_teams");
            q
        })
        .collect()
}

/// The `if` of a `parallel` inside the body (`if(c)` or `if(parallel: c)`) decides its team's
/// size: kept as `__if_parallel(c)` (false: one thread, what the kernel's thread queries say).
fn parallel_if(q: &mut Pragma) {
    for c in q.clauses.iter_mut().filter(|c| c.name == "if") {
        let Some(a) = c.arg.clone() else { continue };
        let e = a
            .split_once(':')
            .filter(|(m, _)| m.trim() == "parallel")
            .map_or(a.clone(), |(_, e)| e.trim().to_string());
        c.name = "__if_parallel".into();
        c.arg = Some(e);
    }
}

/// Whether statement `st` reads memory (an element, a dereference, a member through a pointer, an
/// array or a pointer): the host's copy of it may be older than the device's.
fn reads_memory(st: Node) -> bool {
    nodes_of(st).iter().any(|n| match n.kind() {
        CXCursor_ArraySubscriptExpr | CXCursor_MemberRefExpr => true,
        CXCursor_UnaryOperator => n.unop() == CXUnaryOperator_Deref,
        CXCursor_DeclRefExpr => n.referenced().is_some_and(|d| {
            matches!(d.kind(), CXCursor_VarDecl | CXCursor_ParmDecl) && !d.ty().canonical().is_arith()
        }),
        _ => false,
    })
}

impl Translator<'_> {
    /// The steps of a target body made of the statements `kids` (`inner`: the directives inside
    /// it; `chain`: the directives from `target` down), or why it stays on the host. `hoisted`
    /// gets the declarations of the body's locals that the host holds (see the module comment).
    pub(super) fn target_body_steps(
        &mut self,
        chain: &[Pragma],
        kids: &[Node],
        inner: &[usize],
        hoisted: &mut String,
    ) -> Result<Vec<Step>, String> {
        let chain = one_team(chain);
        self.stale_firstprivate(kids)?;
        let directive_of = |this: &Self, kid: &Node| {
            inner.iter().copied().find(|j| this.cx.assoc.get(j).is_some_and(|a| a.0.equals(kid)))
        };
        let mut locals: HashMap<String, String> = HashMap::new();
        let mut set: HashSet<String> = HashSet::new();
        let mut steps = Vec::new();
        for kid in kids.iter().filter(|k| k.kind() != CXCursor_NullStmt) {
            let (s, e) = kid.range();
            let (s, e) = (s.off, self.cx.stmt_end(e.off));
            let line = self.cx.text[..s].matches('\n').count() as u32 + 1;
            let Some(j) = directive_of(self, kid) else {
                if !self.pragmas_in(s, e).is_empty() {
                    return Err(
                        "a statement of the target body holds directives without being one construct".into(),
                    );
                }
                // the host runs it when it only computes the body's numeric locals from numbers
                let mut l2 = locals.clone();
                let mut s2 = set.clone();
                if !reads_memory(*kid) && sequence::replicable(*kid, &mut l2, &mut s2, &[]).is_ok() {
                    let text = self.hoist_locals(*kid, s, e, hoisted);
                    for name in l2.values() {
                        // a kernel that writes one copies it back to the host's variable
                        if let Some((_, _, from)) = self.target_scalars_out.as_mut() {
                            from.insert(name.clone());
                        }
                    }
                    (locals, set) = (l2, s2);
                    steps.push(Step::Host(HostStep { line, text, replicated: true, inner: Vec::new() }));
                    continue;
                }
                if kid.kind() == CXCursor_DeclStmt {
                    return Err("a declaration in the target body that the host cannot evaluate".into());
                }
                // on the device, by one work-item
                let id = self.next_kid;
                self.next_kid += 1;
                self.target_single = true;
                let k = self.loop_kernel(id, line, chain.clone(), *kid);
                self.target_single = false;
                steps.push(Step::Kernel { k: Box::new(k?), kid: id, line });
                continue;
            };
            let mut q = self.cx.pragmas[j].clone();
            if q.directive.first().is_some_and(|w| w == "parallel") {
                parallel_if(&mut q);
            }
            if let Some(u) = &q.unknown {
                return Err(format!("'{u}' is not translated to OpenCL"));
            }
            let id = self.next_kid;
            self.next_kid += 1;
            let mut ch = chain.clone();
            ch.push(q.clone());
            let loop_assoc = q.directive.iter().any(|w| w == "for" || w == "distribute" || w == "simd");
            if loop_assoc {
                let k = self.loop_kernel(id, q.line, ch, *kid)?;
                steps.push(Step::Kernel { k: Box::new(k), kid: id, line: q.line });
                continue;
            }
            if q.directive.last().map(String::as_str) != Some("parallel") {
                return Err(format!("'{}' in a target body of several statements", q.name()));
            }
            // a `parallel` holding one worksharing loop, or no worksharing at all (every thread
            // of the team runs it)
            let n = strip(*kid);
            let sub: Vec<Node> = if n.kind() == CXCursor_CompoundStmt {
                n.children().into_iter().filter(|k| k.kind() != CXCursor_NullStmt).collect()
            } else {
                vec![n]
            };
            let within = self.pragmas_in(q.end, e);
            let first = within.first().copied();
            if sub.len() == 1 && sub[0].kind() == CXCursor_ForStmt {
                if let Some(fi) = first.filter(|&fi| {
                    self.cx.pragmas[fi].is(&["for"])
                        && self.cx.assoc.get(&fi).is_some_and(|a| a.0.equals(&sub[0]))
                }) {
                    ch.push(self.cx.pragmas[fi].clone());
                    let k = self.loop_kernel(id, q.line, ch, sub[0])?;
                    steps.push(Step::Kernel { k: Box::new(k), kid: id, line: q.line });
                    continue;
                }
            }
            if within.iter().all(|&w| {
                matches!(
                    self.cx.pragmas[w].directive.first().map(String::as_str),
                    Some("atomic" | "critical" | "flush")
                )
            }) {
                self.target_single = true;
                self.target_spmd = true;
                let k = self.loop_kernel(id, q.line, ch, *kid);
                self.target_single = false;
                self.target_spmd = false;
                steps.push(Step::Kernel { k: Box::new(k?), kid: id, line: q.line });
                continue;
            }
            return Err("a 'parallel' region in a target body that is not one worksharing loop".into());
        }
        // a hoisted local declared after a use of an outer variable of the same name would take
        // that use's place
        for k in kids {
            for n in nodes_of(*k) {
                if n.kind() != CXCursor_DeclRefExpr {
                    continue;
                }
                let Some(d) = n.referenced() else { continue };
                if !locals.contains_key(&key_of(&d)) && locals.values().any(|v| *v == d.spelling()) {
                    return Err(format!("a local of the target body hides '{}'", d.spelling()));
                }
            }
        }
        if !steps.iter().any(|s| matches!(s, Step::Kernel { .. })) {
            return Err("a target body without device code".into());
        }
        Ok(steps)
    }

    /// A scalar from outside the body that one statement writes and a later one reads must reach
    /// it: kernels write their copy back only when the variable comes back to the host (mapped
    /// `from`/`tofrom`, `defaultmap(tofrom: scalar)`, a local of the body); a firstprivate one
    /// (`x = 5;` then a loop reading `x`) would reach the next kernel with the host's old value.
    fn stale_firstprivate(&self, kids: &[Node]) -> Result<(), String> {
        let Some((all, named, from)) = &self.target_scalars_out else { return Ok(()) };
        let (bs, be) = match (kids.first(), kids.last()) {
            (Some(a), Some(b)) => (a.range().0.off, b.range().1.off),
            _ => return Ok(()),
        };
        let file = self.cx.file.clone();
        // the loops of loop constructs: their variables are private there (their uses inside
        // are the loop's own copy)
        let private_loops: Vec<(usize, usize, String)> = self
            .pragmas_in(bs, be)
            .into_iter()
            .filter(|&q| {
                self.cx.pragmas[q]
                    .directive
                    .iter()
                    .any(|w| matches!(w.as_str(), "for" | "distribute" | "simd"))
            })
            .filter_map(|q| {
                let &(node, st, en) = self.cx.assoc.get(&q)?;
                let li = self.parse_loop(node).ok()?;
                Some((st, en, key_of(&li.loopvar)))
            })
            .collect();
        let private_at = |n: &Node, key: &str| {
            let at = n.range().0.off;
            private_loops.iter().any(|(st, en, k)| k == key && at >= *st && at < *en)
        };
        for (k, kid) in kids.iter().enumerate() {
            for n in nodes_of(*kid) {
                let Some(l) = assigned(n).map(strip) else { continue };
                let Some(d) = (l.kind() == CXCursor_DeclRefExpr).then(|| l.referenced()).flatten() else {
                    continue;
                };
                let at = d.loc();
                let in_body = at.file == file && at.off >= bs && at.off < be;
                let ty = d.ty().canonical();
                let name = d.spelling();
                let back = from.contains(&name) || (*all && !named.contains(&name));
                let key = key_of(&d);
                if in_body || back || !(ty.is_arith() || ty.kind() == CXType_Pointer) || private_at(&n, &key)
                {
                    continue;
                }
                let later = kids[k + 1..].iter().any(|o| {
                    nodes_of(*o).iter().any(|r| {
                        r.kind() == CXCursor_DeclRefExpr
                            && r.referenced().is_some_and(|x| key_of(&x) == key)
                            && !private_at(r, &key)
                    })
                });
                if later {
                    return Err(format!(
                        "'{name}' (firstprivate in the target region) is set by one statement of its body and used by a later one"
                    ));
                }
            }
        }
        Ok(())
    }

    /// The host text of statement `kid` (bytes `s..e`): a declaration's variables are declared in
    /// `hoisted` (before the region's first kernel, whose arguments may name them) and the
    /// statement keeps only their initialisations.
    fn hoist_locals(&self, kid: Node, s: usize, e: usize, hoisted: &mut String) -> String {
        if kid.kind() != CXCursor_DeclStmt {
            return self.cx.text[s..e].to_string();
        }
        let mut text = String::new();
        for d in kid.children().into_iter().filter(|d| d.kind() == CXCursor_VarDecl) {
            let ty = d.ty().spelling();
            let ty = ty.trim_start_matches("const ").trim_start_matches("volatile ");
            let name = d.spelling();
            let _ = write!(hoisted, "{ty} {name}; ");
            if let Some(init) = d.children().last().filter(|c| c.is_expr()) {
                let (a, b) = init.range();
                let _ = write!(text, "{name} = {}; ", &self.cx.text[a.off..b.off]);
            }
        }
        text
    }
}
