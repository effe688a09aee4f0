//! Triangular nests spread over `(i, j)` pairs, as rectangular ones are (kernel.rs): the inner
//! loop's first or last value follows the parallel loop's variable,
//!
//! ```text
//! for (i = lo; i < n; i++)                        for (i = lo; i < n; i++)
//!   for (j = i + c; j < m; j++) ...      or         for (j = lo2; j <= i + c; j++) ...
//! ```
//!
//! (covariance and correlation fill a symmetric matrix this way; one work-item per row leaves most
//! of the GPU idle and the rows unbalanced). Work-items take the pairs of the rectangle that holds
//! the triangle (its `j` range: the bound at the first or last `i`) and skip those outside it.
//!
//! A nest whose pairs all lie on one side of the diagonal (`j >= i` or `j <= i`) may also write a
//! matrix at `[i][j]` and at `[j][i]` (a symmetric fill): distinct pairs never meet there, as long as
//! the map `(p, q) -> [p][q]` is one-to-one over the square that holds both loops' ranges
//! (`ompcl_disjoint` checks that at launch, affine.rs's `Disjoint::symmetric`).

use super::*;

/// How an inner loop's range depends on the parallel loop's variable `i`.
pub(super) struct Triangle {
    /// the first value is `i + c` (else the bound of the loop test is `i + c`)
    pub lower: bool,
    pub c: i128,
    /// every pair has `j >= i` (Some(true)) or `j <= i` (Some(false)), or neither
    pub side: Option<bool>,
    /// and none has `j == i`
    pub strict: bool,
}

/// `e` as `i + c` (`i`, `i + 3`, `3 + i`, `i - 1`), where `i` is `ivar`; None for anything else.
fn plus_const(e: Node, ivar: &Node) -> Option<i128> {
    let e = strip(e);
    let is_i = |n: Node| {
        let n = strip(n);
        n.kind() == CXCursor_DeclRefExpr && n.referenced().is_some_and(|d| d.equals(ivar))
    };
    if is_i(e) {
        return Some(0);
    }
    if e.kind() != CXCursor_BinaryOperator {
        return None;
    }
    let ch = e.children();
    if ch.len() != 2 {
        return None;
    }
    let konst = |n: Node| if decl_refs(n).is_empty() { n.eval_int() } else { None };
    match e.binop() {
        CXBinaryOperator_Add if is_i(ch[0]) => konst(ch[1]),
        CXBinaryOperator_Add if is_i(ch[1]) => konst(ch[0]),
        CXBinaryOperator_Sub if is_i(ch[0]) => konst(ch[1]).map(|c| -c),
        _ => None,
    }
}

/// The inner loop `jloop` (parsed as `li`) as a triangle over the parallel loop's variable `ivar`
/// (whose loop counts up by one: `outer_step`, `outer_cmp`), or None. `other_ok` says whether the
/// bound that does not follow `i` is invariant for the whole nest.
pub(super) fn triangle(
    jloop: Node,
    li: &LoopInfo,
    ivar: &Node,
    outer_step: &str,
    outer_cmp: i32,
    other_ok: &dyn Fn(Node) -> bool,
) -> Option<Triangle> {
    if outer_step != "1" || li.step != "1" || !matches!(outer_cmp, CXBinaryOperator_LT | CXBinaryOperator_LE)
    {
        return None;
    }
    let kids = jloop.children();
    let init = kids[0];
    let lb_node = if init.kind() == CXCursor_DeclStmt {
        *init.children().first()?.children().last()?
    } else {
        *strip(init).children().get(1)?
    };
    let cond = strip(kids[1]);
    let cc = cond.children();
    let is_j = |n: Node| {
        let n = strip(n);
        n.kind() == CXCursor_DeclRefExpr && n.referenced().is_some_and(|d| d.equals(&li.loopvar))
    };
    let ub_node = if is_j(cc[0]) { cc[1] } else { cc[0] };
    let refs_i = |n: Node| decl_refs(n).iter().any(|d| d.referenced().is_some_and(|r| r.equals(ivar)));
    let (lower, c) = match (refs_i(lb_node), refs_i(ub_node)) {
        (true, false) if other_ok(ub_node) && matches!(li.cmp, CXBinaryOperator_LT | CXBinaryOperator_LE) => {
            (true, plus_const(lb_node, ivar)?)
        }
        (false, true) if other_ok(lb_node) && matches!(li.cmp, CXBinaryOperator_LT | CXBinaryOperator_LE) => {
            (false, plus_const(ub_node, ivar)?)
        }
        _ => return None,
    };
    // the last j is i + c (<=) or i + c - 1 (<)
    let last = if li.cmp == CXBinaryOperator_LE { c } else { c - 1 };
    let (side, strict) =
        if lower { ((c >= 0).then_some(true), c >= 1) } else { ((last <= 0).then_some(false), last <= -1) };
    Some(Triangle { lower, c, side, strict })
}

impl Triangle {
    /// Host C of the rectangle's `j` bounds `(lb, ub)` (the outer loop's `__ompcl_lb`, `__ompcl_n`
    /// are known by then); `lb`, `ub`: the inner loop's own bounds' text.
    pub(super) fn hull(&self, lb: &str, ub: &str) -> (String, String) {
        if self.lower {
            (format!("(__ompcl_lb + ({}))", self.c), ub.to_string())
        } else {
            (lb.to_string(), format!("(__ompcl_lb + (__ompcl_n - 1) + ({}))", self.c))
        }
    }

    /// The kernel's test that skips a pair outside the triangle (`i`, `j`: the variables' names).
    pub(super) fn skip(&self, i: &str, j: &str, cmp: i32) -> String {
        if self.lower {
            format!("    if ((long)({j}) < (long)({i}) + ({})) continue;\n", self.c)
        } else {
            let op = if cmp == CXBinaryOperator_LE { "<=" } else { "<" };
            format!("    if (!((long)({j}) {op} (long)({i}) + ({}))) continue;\n", self.c)
        }
    }
}
