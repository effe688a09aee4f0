//! A check for the commonest data race of real OpenMP loops (PolyBench's atax and bicg have it):
//! every iteration of the parallel loop writes a shared array element at an index that does not
//! depend on the loop variable (`y[j] = y[j] + A[i][j] * tmp[i]` in a loop over `i`). Such a
//! program's result depends on the schedule; with thousands of work-items racing on a GPU it is
//! simply wrong, so the region stays on the CPU (where it races as gcc's build does), with a warning.

use super::*;

/// Variables whose value depends on the parallel loop variables: those, and any variable assigned
/// (or initialised) from an expression that uses one, to a fixed point.
fn dependent_vars(body: Node, loopvars: &[Node]) -> HashSet<String> {
    let mut dep: HashSet<String> = loopvars.iter().map(key_of).collect();
    let uses_dep = |n: Node, dep: &HashSet<String>| {
        decl_refs(n).iter().any(|d| d.referenced().map(|r| dep.contains(&key_of(&r))).unwrap_or(false))
    };
    for _ in 0..8 {
        let mut grew = false;
        let mut nodes = vec![body];
        body.walk(&mut |c| nodes.push(c));
        for n in nodes {
            let (target, src): (Option<Node>, Vec<Node>) = match n.kind() {
                CXCursor_VarDecl => (Some(n), n.children()),
                CXCursor_BinaryOperator | CXCursor_CompoundAssignOperator
                    if (CXBinaryOperator_Assign..=CXBinaryOperator_OrAssign).contains(&n.binop()) =>
                {
                    let ch = n.children();
                    let lhs = strip(ch[0]);
                    let t = if lhs.kind() == CXCursor_DeclRefExpr { lhs.referenced() } else { None };
                    (t, ch.into_iter().skip(1).collect())
                }
                _ => (None, vec![]),
            };
            if let Some(t) = target {
                let k = key_of(&t);
                if !dep.contains(&k) && src.iter().any(|s| uses_dep(*s, &dep)) {
                    dep.insert(k);
                    grew = true;
                }
            }
        }
        if !grew {
            break;
        }
    }
    dep
}

/// The name of a shared array that every iteration writes at an index independent of the loop
/// variables, if any. `skip`: byte ranges not to look into (atomic / critical statements);
/// `local`: whether a declaration belongs to the loop body (its arrays are private).
pub(super) fn racy_write(
    body: Node,
    loopvars: &[Node],
    skip: &[(usize, usize)],
    local: &dyn Fn(&Node) -> bool,
) -> Option<String> {
    let dep = dependent_vars(body, loopvars);
    let uses_dep = |n: Node| {
        decl_refs(n).iter().any(|d| d.referenced().map(|r| dep.contains(&key_of(&r))).unwrap_or(false))
    };
    let mut nodes = vec![body];
    body.walk(&mut |c| nodes.push(c));
    for n in nodes {
        let lhs = match n.kind() {
            CXCursor_BinaryOperator | CXCursor_CompoundAssignOperator
                if (CXBinaryOperator_Assign..=CXBinaryOperator_OrAssign).contains(&n.binop()) =>
            {
                n.children()[0]
            }
            CXCursor_UnaryOperator
                if (CXUnaryOperator_PostInc..=CXUnaryOperator_PreDec).contains(&n.unop()) =>
            {
                n.children()[0]
            }
            _ => continue,
        };
        let at = n.range().0.off;
        if skip.iter().any(|&(s, e)| at >= s && at < e) {
            continue;
        }
        // A[x][y]...: the subscripts, and the array
        let mut e = strip(lhs);
        let mut indices = Vec::new();
        while e.kind() == CXCursor_ArraySubscriptExpr {
            let ch = e.children();
            indices.push(ch[1]);
            e = strip(ch[0]);
        }
        if indices.is_empty() || e.kind() != CXCursor_DeclRefExpr {
            continue;
        }
        let Some(arr) = e.referenced() else { continue };
        if local(&arr) {
            continue;
        }
        if !indices.iter().any(|i| uses_dep(*i)) {
            return Some(arr.spelling());
        }
    }
    None
}
