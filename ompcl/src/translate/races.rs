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
        let (e, indices) = peel_subscripts(lhs);
        if indices.is_empty() || e.kind() != CXCursor_DeclRefExpr {
            continue;
        }
        let Some(arr) = e.referenced() else { continue };
        if local(&arr) {
            continue;
        }
        // an index computed by a call (`seen[omp_get_thread_num()]`) may well differ per thread
        let has_call = |i: Node| {
            let mut c = i.kind() == CXCursor_CallExpr;
            i.walk(&mut |x| c |= x.kind() == CXCursor_CallExpr);
            c
        };
        if !indices.iter().any(|i| uses_dep(*i) || has_call(*i)) && !store_only(body, n, &arr, indices.len())
        {
            return Some(arr.spelling());
        }
    }
    None
}

/// Whether the write `w` into array `arr` (`depth` subscripts) is a plain store of a whole element
/// of at most 8 bytes (a number or a pointer) into an array the loop body otherwise only stores
/// into the same way and never reads (`order[i] = ticket;` in a loop over `j`). The iterations then
/// race only on which store lands last: the element ends up with one iteration's value, as with CPU
/// threads (an aligned store of that size is never torn on a GPU either). An update (`+=`, `++`,
/// `y[k] = y[k] + ...`), a read anywhere, or a store of part of an element (a struct member) is not
/// of this kind: its result on a GPU is wrong, not merely one of the schedules'.
fn store_only(body: Node, w: Node, arr: &Node, depth: usize) -> bool {
    if !(w.kind() == CXCursor_BinaryOperator && w.binop() == CXBinaryOperator_Assign) {
        return false;
    }
    let lhs = strip(w.children()[0]);
    let elem = lhs.ty().canonical();
    if !(elem.is_arith() || elem.kind() == CXType_Pointer) || !(1..=8).contains(&elem.size_of()) {
        return false;
    }
    // every mention of the array is the base of a stored element: count the mentions and the
    // stores of whole elements (with as many subscripts as this one)
    let key = key_of(arr);
    let mut mentions = 0;
    let mut stores = 0;
    let mut nodes = vec![body];
    body.walk(&mut |c| nodes.push(c));
    for n in nodes {
        if n.kind() == CXCursor_DeclRefExpr && n.referenced().is_some_and(|r| key_of(&r) == key) {
            mentions += 1;
        }
        if n.kind() == CXCursor_BinaryOperator && n.binop() == CXBinaryOperator_Assign {
            let mut e = strip(n.children()[0]);
            let mut k = 0;
            while e.kind() == CXCursor_ArraySubscriptExpr {
                e = strip(e.children()[0]);
                k += 1;
            }
            if k == depth
                && e.kind() == CXCursor_DeclRefExpr
                && e.referenced().is_some_and(|r| key_of(&r) == key)
            {
                stores += 1;
            }
        }
    }
    mentions == stores
}

/// Whether the iterations of `inner` (the loop over `j` that is the whole body of the parallel loop
/// over `i`) are independent, so that work-items may take (i, j) pairs instead of whole rows
/// (MOMP's one-work-item-per-outer-iteration leaves most of a GPU idle on PolyBench's 2000-row
/// loops). Conservative: every shared array the body writes is only ever used as `X[..i..j..]`,
/// with `i` and `j` themselves at fixed subscript positions; the only scalars it writes are its
/// own locals and inner loop variables; no `break`, no calls to user functions. Distinct pointers
/// must also not share memory: that is checked at run time (ompcl_no_alias) before each launch.
pub(super) fn inner_loop_independent(body: Node, i: &Node, j: &Node, local: &dyn Fn(&Node) -> bool) -> bool {
    let mut nodes = vec![body];
    body.walk(&mut |c| nodes.push(c));
    let is_var = |n: Node, v: &Node| {
        let n = strip(n);
        n.kind() == CXCursor_DeclRefExpr && n.referenced().map(|r| r.equals(v)).unwrap_or(false)
    };
    // loop variables of the loops inside the body
    let mut inner_lvs: Vec<Node> = Vec::new();
    for n in &nodes {
        if n.kind() == CXCursor_ForStmt {
            let init = n.children()[0];
            let init = strip(init);
            if init.kind() == CXCursor_BinaryOperator {
                let lhs = strip(init.children()[0]);
                if let Some(r) = lhs.referenced() {
                    inner_lvs.push(r);
                }
            }
        }
    }
    // subscript chains: (array, subscripts), outermost chains only
    let mut inner_ase: HashSet<(usize, usize)> = HashSet::new();
    for n in &nodes {
        if n.kind() == CXCursor_ArraySubscriptExpr {
            let b = strip(n.children()[0]);
            if b.kind() == CXCursor_ArraySubscriptExpr {
                let (s, e) = b.range();
                inner_ase.insert((s.off, e.off));
            }
        }
    }
    let mut chains: Vec<(String, Vec<Node>)> = Vec::new();
    for n in &nodes {
        if n.kind() != CXCursor_ArraySubscriptExpr {
            continue;
        }
        let (s, e) = n.range();
        if inner_ase.contains(&(s.off, e.off)) {
            continue;
        }
        let mut subs = Vec::new();
        let mut x = *n;
        while x.kind() == CXCursor_ArraySubscriptExpr {
            let ch = x.children();
            subs.push(ch[1]);
            x = strip(ch[0]);
        }
        subs.reverse();
        if x.kind() == CXCursor_DeclRefExpr {
            if let Some(r) = x.referenced() {
                chains.push((key_of(&r), subs));
            }
        }
    }
    // writes
    let mut written: HashSet<String> = HashSet::new();
    for n in &nodes {
        match n.kind() {
            CXCursor_BreakStmt => return false,
            CXCursor_CallExpr => {
                if let Some(f) = n.referenced() {
                    if f.definition().map(|d| !d.in_system_header()).unwrap_or(false) {
                        return false;
                    }
                }
            }
            _ => {}
        }
        let lhs = match n.kind() {
            CXCursor_BinaryOperator | CXCursor_CompoundAssignOperator
                if (CXBinaryOperator_Assign..=CXBinaryOperator_OrAssign).contains(&n.binop()) =>
            {
                strip(n.children()[0])
            }
            CXCursor_UnaryOperator
                if (CXUnaryOperator_PostInc..=CXUnaryOperator_PreDec).contains(&n.unop()) =>
            {
                strip(n.children()[0])
            }
            _ => continue,
        };
        if lhs.kind() == CXCursor_DeclRefExpr {
            let Some(r) = lhs.referenced() else { return false };
            if !(local(&r) || inner_lvs.iter().any(|v| v.equals(&r))) {
                return false;
            }
            continue;
        }
        let mut x = lhs;
        while x.kind() == CXCursor_ArraySubscriptExpr {
            x = strip(x.children()[0]);
        }
        if lhs.kind() != CXCursor_ArraySubscriptExpr || x.kind() != CXCursor_DeclRefExpr {
            return false;
        }
        let Some(r) = x.referenced() else { return false };
        if !local(&r) {
            written.insert(key_of(&r));
        } else if !r.ty().canonical().is_array() {
            return false; // a local pointer may point into shared memory (affine.rs follows those)
        }
    }
    // every use of a written array: a chain with i and j at the same positions
    for w in &written {
        let uses: Vec<&Vec<Node>> = chains.iter().filter(|c| &c.0 == w).map(|c| &c.1).collect();
        let refs = nodes
            .iter()
            .filter(|n| {
                n.kind() == CXCursor_DeclRefExpr && n.referenced().map(|r| &key_of(&r) == w).unwrap_or(false)
            })
            .count();
        if uses.is_empty() || uses.len() != refs {
            return false; // used other than subscripted (passed on, pointer arithmetic ...)
        }
        let pos = |subs: &Vec<Node>| {
            (subs.iter().position(|s| is_var(*s, i)), subs.iter().position(|s| is_var(*s, j)), subs.len())
        };
        let p0 = pos(uses[0]);
        if p0.0.is_none() || p0.1.is_none() || uses.iter().any(|u| pos(u) != p0) {
            return false;
        }
    }
    true
}

/// The scalar half of the proof that the iterations of `jloop` (the loop over `j` inside the body
/// `ibody` of the parallel loop over `i`) are independent (the memory half is affine.rs): the only
/// scalars the body writes are those declared in the inner loop's body (fresh in every
/// iteration), the inner loop's own variable (in its header), and the variables of loops inside
/// it that each such loop sets before any use (`for (k = 0; ...)`, every use of `k` inside one
/// of those loops); no `break` (it would end the row early). Declarations before the inner loop
/// may only be read in it; memory written before it is affine.rs's to prove.
pub(super) fn scalars_private(ibody: Node, jloop: Node, jbody: Node) -> bool {
    let mut nodes = vec![ibody];
    ibody.walk(&mut |c| nodes.push(c));
    let (js, je) = jbody.range();
    let (ls, le) = jloop.range();
    let in_range = |n: &Node, s: usize, e: usize| {
        let p = n.range().0;
        p.file == js.file && p.off >= s && p.off < e
    };
    let declared_in_jbody = |d: &Node| {
        let p = d.loc();
        p.file == js.file && p.off >= js.off && p.off < je.off
    };
    let jvar = strip(jloop.children()[0]);
    let jvar = if jvar.kind() == CXCursor_DeclStmt {
        jvar.children().first().copied()
    } else if jvar.kind() == CXCursor_BinaryOperator {
        strip(jvar.children()[0]).referenced()
    } else {
        None
    };
    // loops inside the inner body that set their variable in their header: variable -> ranges
    let mut set_by_loop: HashMap<String, Vec<(usize, usize)>> = HashMap::new();
    for n in &nodes {
        if n.kind() == CXCursor_ForStmt && in_range(n, js.off, je.off) {
            let init = strip(n.children()[0]);
            if init.kind() == CXCursor_BinaryOperator && init.binop() == CXBinaryOperator_Assign {
                if let Some(r) = strip(init.children()[0]).referenced() {
                    let (s, e) = n.range();
                    set_by_loop.entry(key_of(&r)).or_default().push((s.off, e.off));
                }
            }
        }
    }
    let loop_private = |r: &Node| {
        let Some(ranges) = set_by_loop.get(&key_of(r)) else { return false };
        nodes.iter().filter(|n| n.kind() == CXCursor_DeclRefExpr).all(|n| {
            let is_r = n.referenced().map(|x| x.equals(r)).unwrap_or(false);
            let at = n.range().0.off;
            !is_r || ranges.iter().any(|&(s, e)| at >= s && at < e)
        })
    };
    for n in &nodes {
        if n.kind() == CXCursor_BreakStmt {
            return false;
        }
        let lhs = match n.kind() {
            CXCursor_BinaryOperator | CXCursor_CompoundAssignOperator
                if (CXBinaryOperator_Assign..=CXBinaryOperator_OrAssign).contains(&n.binop()) =>
            {
                strip(n.children()[0])
            }
            CXCursor_UnaryOperator
                if (CXUnaryOperator_PostInc..=CXUnaryOperator_PreDec).contains(&n.unop())
                    || n.unop() == CXUnaryOperator_AddrOf =>
            {
                match n.children().first() {
                    Some(c) => strip(*c),
                    None => return false,
                }
            }
            _ => continue,
        };
        if lhs.kind() != CXCursor_DeclRefExpr {
            if n.kind() == CXCursor_UnaryOperator && n.unop() == CXUnaryOperator_AddrOf {
                continue; // `&X[..]`: an address, not a write (affine.rs follows it)
            }
            if in_range(n, ls.off, le.off) && !in_range(n, js.off, je.off) {
                return false; // memory written in the inner loop's header
            }
            continue; // memory, in the inner body or before the inner loop: affine.rs
        }
        let Some(r) = lhs.referenced() else { return false };
        let in_header = in_range(n, ls.off, le.off) && !in_range(n, js.off, je.off);
        let is_j = jvar.map(|v| v.equals(&r)).unwrap_or(false);
        if in_header && is_j {
            continue;
        }
        if !in_range(n, js.off, je.off) {
            return false;
        }
        if declared_in_jbody(&r) || loop_private(&r) {
            continue;
        }
        return false;
    }
    true
}
