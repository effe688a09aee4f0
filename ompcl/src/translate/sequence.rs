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
        for &i in &top {
            let q = &self.cx.pragmas[i];
            if !(q.is(&["for"])
                || q.is(&["single"])
                || q.is(&["master"])
                || q.is(&["barrier"])
                || q.is(&["flush"]))
            {
                return Err(format!("'{}' inside 'parallel' is not translated to OpenCL", q.name()));
            }
        }
        let mut steps = Vec::new();
        for (n, kid) in kids.iter().enumerate() {
            let dir =
                top.iter().copied().find(|i| self.cx.assoc.get(i).map(|a| a.0.equals(kid)).unwrap_or(false));
            let Some(i) = dir else {
                if kid.kind() == CXCursor_NullStmt {
                    continue;
                }
                return Err("a statement outside any worksharing construct (every thread runs it)".into());
            };
            let q = self.cx.pragmas[i].clone();
            if q.is(&["for"]) {
                let id = self.next_kid;
                self.next_kid += 1;
                let k = self.loop_kernel(id, q.line, vec![p.clone(), q.clone()], *kid)?;
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
                steps.push(Step::Host(HostStep { line, text }));
            }
        }
        if !steps.iter().any(|s| matches!(s, Step::Kernel { .. })) {
            return Err("'parallel' region without a worksharing loop".into());
        }
        Ok(steps)
    }
}
