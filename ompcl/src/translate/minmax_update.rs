//! Max/min updates of one variable or array element, in the spellings C programs use:
//!
//! ```c
//! if (v > x) x = v;          if (x < v) { x = v; }        // max (`<`/`>` swapped: min)
//! x = v > x ? v : x;         x = x < v ? v : x;           // max, OpenMP 5.1's `atomic compare`
//! x = x > v ? x : v;         x = fmax(x, v);              // max, other spellings of it
//! ```
//!
//! (`>=`/`<=` too, and the mirrored forms of min.) Each writes `v` into `x` only when `v` is
//! strictly greater (max) or less (min) than `x`, or leaves `x` as it is: it is one atomic max
//! or min of `x` with `v` (analysis.rs's `atomic_function`, a compare-and-swap loop that writes
//! only then, so a NaN operand never replaces, as C's comparison never holds with one). Used by
//! `atomic compare`, `critical` sections of one update and array max/min reductions
//! (atomic_reduction.rs).
//!
//! What must hold: `x` and `v` each spelt as the same expression where they appear twice (the
//! operators written out, not made by a macro: manual_reduction.rs's `same_expr`), neither with
//! side effects (the atomic evaluates them once, the statement once or twice); the comparison
//! made in `x`'s own type or in a floating type that holds every value of `x` exactly
//! (converting `v` to `x`'s type keeps the order then; `unsigned x` against a `long v` compares in
//! long, where `(unsigned)v` would not, and an int against a float rounds the int);
//! `fmax`/`fmin` (C's, not a macro) only on a floating `x` (`fmaxf`/`fminf` on a float: a double
//! `x` would be rounded). NaNs are where the spellings differ from the atomic: `fmax` replaces a
//! NaN already in `x` by `v`, and `x = x > v ? x : v` (the target in the first arm) writes a NaN
//! `v`, where the atomic keeps `x` (as the `if` forms and OpenMP's own forms do).

use super::*;

/// A max/min update: `target` (the variable or element, as written in the assignment) becomes
/// the larger (`op` "max") or smaller ("min") of itself and `operand`.
pub(super) struct MinMaxUpdate {
    pub target: Node,
    pub op: &'static str,
    pub operand: Node,
}

impl Translator<'_> {
    /// Statement `st` as a max/min update (module comment), or the reason it is not one.
    pub(super) fn minmax_update(&self, st: Node) -> Result<MinMaxUpdate, String> {
        let st = strip(st);
        let bad = || Err("the statement is not a max/min update".to_string());
        let ch = st.children();
        let u = match st.kind() {
            // if (v > x) x = v;  /  if (x < v) { x = v; }
            CXCursor_IfStmt if ch.len() == 2 => {
                let mut then = strip(ch[1]);
                if then.kind() == CXCursor_CompoundStmt {
                    let k = then.children();
                    if k.len() != 1 {
                        return bad();
                    }
                    then = strip(k[0]);
                }
                let Some((target, operand)) = self.written_assignment(then) else { return bad() };
                let Some(v_larger) = self.orders(ch[0], target, operand) else { return bad() };
                MinMaxUpdate { target, op: if v_larger { "max" } else { "min" }, operand }
            }
            CXCursor_BinaryOperator => {
                let Some((target, rhs)) = self.written_assignment(st) else { return bad() };
                let rhs = strip(rhs);
                let rc = rhs.children();
                match rhs.kind() {
                    // x = c ? v : x  /  x = c ? x : v, c comparing x and v
                    CXCursor_ConditionalOperator if rc.len() == 3 => {
                        let (v_if_true, operand) = if self.same_expr(rc[2], target) {
                            (true, rc[1])
                        } else if self.same_expr(rc[1], target) {
                            (false, rc[2])
                        } else {
                            return bad();
                        };
                        let Some(v_larger) = self.orders(rc[0], target, operand) else { return bad() };
                        // v taken when it is the larger: max; when it is not: min
                        let max = v_larger == v_if_true;
                        MinMaxUpdate { target, op: if max { "max" } else { "min" }, operand }
                    }
                    // x = fmax(x, v), fmax(v, x), fmaxf, fmin, fminf: C's, on a floating x
                    CXCursor_CallExpr if rhs.num_args() == 2 => {
                        let Some(f) = rhs.referenced().filter(|f| f.in_system_header()) else { return bad() };
                        let name = f.spelling();
                        let op = match name.as_str() {
                            "fmax" | "fmaxf" => "max",
                            "fmin" | "fminf" => "min",
                            _ => return bad(),
                        };
                        let tk = target.ty().canonical().kind();
                        if !(tk == CXType_Float || (tk == CXType_Double && !name.ends_with('f'))) {
                            return Err(format!("'{name}' on a target of type '{}'", target.ty().spelling()));
                        }
                        let (a0, a1) = (rhs.arg(0), rhs.arg(1));
                        let operand = if self.same_expr(a0, target) {
                            a1
                        } else if self.same_expr(a1, target) {
                            a0
                        } else {
                            return bad();
                        };
                        MinMaxUpdate { target, op, operand }
                    }
                    _ => return bad(),
                }
            }
            _ => return bad(),
        };
        if !(self.pure(u.target) && self.pure(u.operand)) {
            return Err("the target or the operand of a max/min update has side effects".into());
        }
        Ok(u)
    }

    /// `n` as an assignment `x = e` written out (not made by a macro): (x, e).
    fn written_assignment(&self, n: Node) -> Option<(Node, Node)> {
        let n = strip(n);
        (n.kind() == CXCursor_BinaryOperator && self.written_binop(n) == CXBinaryOperator_Assign).then(|| {
            let c = n.children();
            (strip(c[0]), c[1])
        })
    }

    /// Comparison `cond` between `target` and (the same expression as) `operand`: whether it holds
    /// when the operand is the larger (`v > x`, `x < v`, `>=`/`<=` alike), None when it is no such
    /// comparison or compares in a type where converting the operand to the target's type would
    /// not keep the order (module comment).
    fn orders(&self, cond: Node, target: Node, operand: Node) -> Option<bool> {
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
        let v_larger = if self.same_expr(ch[0], operand) && self.same_expr(ch[1], target) {
            a_larger
        } else if self.same_expr(ch[0], target) && self.same_expr(ch[1], operand) {
            !a_larger
        } else {
            return None;
        };
        // the type both sides are converted to (the operands' implicit casts): the target's own,
        // or a floating type that holds every value of it exactly (an int against a float is
        // rounded: `16777217 > 16777216.0f` is false where the atomic's int max would write)
        let cmp = ch[0].ty().canonical().kind();
        let tk = target.ty().canonical().kind();
        let exact = cmp == tk
            || matches!(
                (tk, cmp),
                (CXType_Float, CXType_Float | CXType_Double | CXType_LongDouble)
                    | (CXType_Double | CXType_Int | CXType_UInt, CXType_Double | CXType_LongDouble)
                    | (CXType_Long | CXType_ULong, CXType_LongDouble)
            );
        exact.then_some(v_larger)
    }
}

/// Max/min update `x = max(x, v)` (`op` "max"; "min": the smaller) in the one form every
/// compiler's OpenMP 5.1 `atomic compare` takes (the CPU versions may go through gcc's), which
/// the kernel makes an atomic max/min; a block, so it stands where the update's statement did.
pub(super) fn atomic_compare(x: &str, v: &str, op: &str) -> String {
    let rel = if op == "max" { ">" } else { "<" };
    format!("{{\n#pragma omp atomic compare\nif (({v}) {rel} {x}) {{ {x} = ({v}); }}\n}}")
}
