//! Shared elements kept in a register across an inner loop: in gemm's
//! `for (k = 0; k < n; k++) C[i][j] += alpha * A[i][k] * B[k][j];` every iteration reads and
//! writes `C[i][j]` in global memory, because for all the OpenCL compiler knows `C` may share
//! memory with `A` or `B`. When the kernel's pointers do not share blocks (`ompcl_no_alias`, checked
//! at launch: the caller emits the promoted code under that flag only) and every access to the
//! array inside the loop is the same element at an address the loop does not change (affine.rs),
//! the loop is rewritten
//!
//! ```text
//! { k = 0; if (k < n) { __global float *__p0 = &(C[i][j]); float __w0 = *__p0;
//!     do __w0 += alpha * A[i][k] * B[k][j]; while ((k++), (k < n));
//!     *__p0 = __w0; } }
//! ```
//!
//! (the element is loaded only if the loop runs, and only where the loop's first iteration surely
//! writes it — a statement of its body, not under a condition, before any `continue`/`break` — so
//! the address is one the program itself uses; `continue` in a `do` runs the increment and the
//! test, as in the `for`; `break` leaves the `do` before the store).
//! No other work-item touches that element while the loop runs: a program where one did would
//! have a data race.

use super::affine::Memory;
use super::*;

/// One array element promoted in one loop.
struct Promoted {
    /// the access expressions replaced by the register
    accesses: Vec<(usize, usize)>,
    /// the address (kernel text), the element's OpenCL type
    addr: String,
    ty: Type,
}

/// Whether the loop's first iteration surely writes the element (so that its address is valid
/// whenever the loop runs): a statement of the body, not inside a condition or a nested loop and
/// after no statement that could jump (`continue`, `break`...), assigns to one of the accesses.
fn first_iteration_writes(body: Node, acc: &[&super::affine::Access]) -> bool {
    let stmts = if body.kind() == CXCursor_CompoundStmt { body.children() } else { vec![body] };
    for s in stmts {
        let e = strip(s);
        let lhs = match e.kind() {
            CXCursor_BinaryOperator | CXCursor_CompoundAssignOperator
                if (CXBinaryOperator_Assign..=CXBinaryOperator_OrAssign).contains(&e.binop()) =>
            {
                Some(strip(e.children()[0]))
            }
            CXCursor_UnaryOperator
                if (CXUnaryOperator_PostInc..=CXUnaryOperator_PreDec).contains(&e.unop()) =>
            {
                e.children().first().map(|c| strip(*c))
            }
            _ => None,
        };
        if let Some(l) = lhs {
            if acc.iter().any(|a| a.write && a.node.equals(&l)) {
                return true;
            }
        }
        // a statement that could leave the iteration or the loop: nothing after it is sure
        let mut jumps = matches!(
            s.kind(),
            CXCursor_ContinueStmt | CXCursor_BreakStmt | CXCursor_GotoStmt | CXCursor_ReturnStmt
        );
        s.walk(&mut |c| {
            jumps |= matches!(
                c.kind(),
                CXCursor_ContinueStmt | CXCursor_BreakStmt | CXCursor_GotoStmt | CXCursor_ReturnStmt
            )
        });
        if jumps {
            return false;
        }
    }
    false
}

impl<'a> Translator<'a> {
    /// The edits (on top of `edits`) that keep shared elements in registers across the loops of
    /// `root`; empty if there is nothing to promote.
    pub(super) fn promotion_edits(&mut self, mem: &Memory, root: Node, edits: &[Edit]) -> Vec<Edit> {
        if mem.refused.is_some() {
            return vec![];
        }
        let text = self.cx.text;
        let mut loops = Vec::new();
        if root.kind() == CXCursor_ForStmt {
            loops.push(root);
        }
        root.walk(&mut |c| {
            if c.kind() == CXCursor_ForStmt {
                loops.push(c)
            }
        });
        let mut out: Vec<Edit> = Vec::new();
        let mut tails: Vec<Edit> = Vec::new();
        let mut taken: Vec<(String, usize, usize)> = Vec::new(); // (base, loop range) promoted
        let mut count = 0;
        for l in loops {
            let ch = l.children();
            if ch.len() != 4 {
                continue; // a part of the header is missing
            }
            let (init, cond, inc, body) = (ch[0], ch[1], ch[2], ch[3]);
            let (ls, le) = l.range();
            let (bs, be) = body.range();
            if ls.file != self.cx.file || bs.file != self.cx.file {
                continue;
            }
            let be = self.cx.stmt_end(be.off);
            let within = |n: &Node, s: usize, e: usize| {
                let p = n.range().0;
                p.file == ls.file && p.off >= s && p.off < e
            };
            let mut bases: Vec<&str> = mem
                .accesses
                .iter()
                .filter(|a| a.write && within(&a.node, bs.off, be))
                .map(|a| a.base.as_str())
                .collect();
            bases.sort();
            bases.dedup();
            let mut here: Vec<Promoted> = Vec::new();
            for w in bases {
                if mem.escaped.contains(w)
                    || mem.local_arrays.contains_key(w)
                    || taken.iter().any(|(b, s, e)| b == w && ls.off >= *s && ls.off < *e)
                {
                    continue;
                }
                let acc: Vec<_> =
                    mem.accesses.iter().filter(|a| a.base == w && within(&a.node, ls.off, le.off)).collect();
                let off = &acc[0].off;
                let same = (off.is_some() && acc.iter().all(|a| &a.off == off && a.size == acc[0].size))
                    || self.same_unchanged_expression(l, &acc);
                let in_body = acc.iter().all(|a| within(&a.node, bs.off, be));
                let ty = acc[0].node.ty();
                if !same || !in_body || !ty.is_arith() || !first_iteration_writes(body, &acc) {
                    continue;
                }
                let Some(ranges) =
                    acc.iter().map(|a| self.replaceable(a.node, edits)).collect::<Option<Vec<_>>>()
                else {
                    continue;
                };
                // the address, evaluated before the loop: no variable declared in its body
                let declared_in_body = decl_refs(acc[0].node).iter().any(|d| {
                    d.referenced().map(|r| {
                        let p = r.loc();
                        p.file == ls.file && p.off >= bs.off && p.off < be
                    }) == Some(true)
                });
                if declared_in_body {
                    continue;
                }
                let (s, e) = ranges[0];
                here.push(Promoted { accesses: ranges, addr: render(text, edits, s, e), ty });
                taken.push((w.to_string(), ls.off, le.off));
            }
            if here.is_empty() {
                continue;
            }
            let part = |n: Node| {
                let (s, e) = n.range();
                render(text, edits, s.off, e.off).trim().trim_end_matches(';').to_string()
            };
            let (init_t, cond_t, inc_t) = (part(init), part(cond), part(inc));
            if cond_t.is_empty() {
                continue;
            }
            let mut head = format!("{{ {init_t}; if ({cond_t}) {{ ");
            let mut tail = format!(" while (({inc_t}), ({cond_t}));");
            for p in &here {
                let (Ok(pd), Ok(wd)) = (
                    self.types.declr(p.ty, &format!("*__p{count}")),
                    self.types.declr(p.ty, &format!("__w{count}")),
                ) else {
                    continue;
                };
                let _ = write!(head, "__global {pd} = &({}); {wd} = *__p{count}; ", p.addr);
                let _ = write!(tail, " *__p{count} = __w{count};");
                for &(s, e) in &p.accesses {
                    out.push(Edit { start: s, end: e, text: format!("__w{count}") });
                }
                count += 1;
            }
            head.push_str("do ");
            tail.push_str(" } }");
            out.push(Edit { start: ls.off, end: bs.off, text: head });
            tails.push(Edit { start: be, end: be, text: tail });
        }
        // loops ending at the same place: the inner loop's tail first
        tails.reverse();
        out.extend(tails);
        out
    }

    /// Whether every access is the same expression (`sum[r][q][p]`) whose variables the loop `l`
    /// does not assign: the same element throughout the loop, where the affine offsets could not
    /// say so because a variable of the address (`p`, an enclosing loop's) changes elsewhere in
    /// the kernel.
    fn same_unchanged_expression(&self, l: Node, acc: &[&super::affine::Access]) -> bool {
        let text = |n: Node| {
            let (s, e) = n.range();
            self.cx.text.get(s.off..e.off).unwrap_or("").to_string()
        };
        let first = text(acc[0].node);
        if first.is_empty() || !acc.iter().all(|a| a.size == acc[0].size && text(a.node) == first) {
            return false;
        }
        let vars: HashSet<String> =
            decl_refs(acc[0].node).iter().filter_map(|r| r.referenced()).map(|d| key_of(&d)).collect();
        // assigned, or its address taken (a pointer could then change it)
        !nodes_of(l).into_iter().any(|n| {
            let target = match n.kind() {
                CXCursor_UnaryOperator if n.unop() == CXUnaryOperator_AddrOf => n.children().first().copied(),
                _ => assigned(n),
            };
            target.map(strip).is_some_and(|t| {
                t.kind() == CXCursor_DeclRefExpr && t.referenced().is_some_and(|d| vars.contains(&key_of(&d)))
            })
        })
    }

    /// The byte range of an access expression if its text is exactly that expression (not the
    /// expansion of a macro that holds more) and no other edit touches it.
    fn replaceable(&self, n: Node, edits: &[Edit]) -> Option<(usize, usize)> {
        let (s, e) = n.range();
        if s.file != self.cx.file || e.file != self.cx.file || s.off >= e.off {
            return None;
        }
        let spelled_inside = decl_refs(n).iter().all(|d| {
            let p = d.loc_spelling();
            p.file == s.file && p.off >= s.off && p.off < e.off
        });
        let touched = edits.iter().any(|x| x.start < e.off && x.end > s.off);
        (spelled_inside && !touched).then_some((s.off, e.off))
    }
}
