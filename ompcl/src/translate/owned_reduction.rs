//! Reductions over an array (a section or the whole array) whose elements the iterations own:
//! every use of the array in the loop is an update `y[i] op= e` (or `y[i] = y[i] op e`) of the
//! clause's operation at a subscript that is the parallel loop's variable itself, as in
//!
//! ```c
//! #pragma omp target teams distribute parallel for reduction(+: total[0:n]) private(j)
//! for (i = 0; i < n; i++)
//!   for (j = 0; j < m; j++) total[i] += a[i][j];
//! ```
//!
//! Distinct iterations then touch distinct elements, and no iteration reads one except through
//! its own updates: the private copies (starting at the operation's identity) combined with the
//! original give exactly what the updates made on the original directly give. So the item is
//! dropped from the clause, on the source text before the translation (the CPU version and the
//! kernel both run the loop without it): the array is an ordinary shared array, one element per
//! work-item, instead of a private copy of the whole array per work-item, which a GPU cannot
//! afford. On a `target` construct the item is then mapped `tofrom` (where a reduction's result
//! goes; OpenMP 5.0 maps reduction items so), unless a map clause names the array already.
//!
//! What must hold: the loop is one loop (no `collapse` above 1: the pairs of a collapsed nest share
//! the outer variable), no nested directives, no calls of the program's functions (they could use
//! the array), no `ordered` or `linear`; the updates are of the whole element (a number).

use super::*;

impl Translator<'_> {
    /// The edits that drop the owned array items of loop `node`'s reduction clauses (pragma `pi`,
    /// statement ending at `end`), or None when none is owned.
    pub(super) fn plan_owned(&self, pi: usize, node: Node, end: usize) -> Option<Vec<Edit>> {
        let p = &self.cx.pragmas[pi];
        if ["ordered", "linear"].iter().any(|c| p.clause(c).is_some())
            || p.clause("collapse").is_some_and(|c| c.arg.as_deref().map(str::trim) != Some("1"))
        {
            return None;
        }
        let items: Vec<(String, String)> = p
            .reductions()
            .into_iter()
            .map(|(op, v)| (op, v.split('[').next().unwrap_or("").trim().to_string()))
            .collect();
        if items.is_empty() {
            return None;
        }
        let info = self.parse_loop(node).ok()?;
        let (fs, fe) = (node.range().0.off, end);
        if self.pragmas_in(fs, fe).iter().any(|&q| q != pi) {
            return None;
        }
        let all = nodes_of(info.body);
        let user_call = all.iter().any(|n| {
            n.kind() == CXCursor_CallExpr
                && n.referenced().and_then(|f| f.definition()).is_some_and(|d| !d.in_system_header())
        });
        if user_call {
            return None;
        }
        let ivar = key_of(&info.loopvar);
        let mut owned: Vec<String> = Vec::new();
        for (op, name) in &items {
            // the array's declaration: the one the body's references name
            let refs: Vec<Node> = all
                .iter()
                .copied()
                .filter(|n| {
                    n.kind() == CXCursor_DeclRefExpr && n.referenced().is_some_and(|d| d.spelling() == *name)
                })
                .collect();
            let Some(decl) = refs.first().and_then(|r| r.referenced()) else { continue };
            let key = key_of(&decl);
            // a local of the body with the same name (declared inside the loop) is not the item
            if refs.iter().any(|r| r.referenced().is_some_and(|d| key_of(&d) != key)) {
                continue;
            }
            if !decl.ty().canonical().is_array() && decl.ty().canonical().kind() != CXType_Pointer {
                continue;
            }
            // every reference is the base of an updated element (`y[..i..]` on the left of an
            // update of the clause's operation; a second one on its right, `y[i] = y[i] + e`)
            let mut updates = 0;
            let mut ok = true;
            for n in &all {
                let Some(lhs) = assigned(*n) else { continue };
                if n.kind() == CXCursor_UnaryOperator {
                    if self.mentions(lhs, &key) {
                        ok = false;
                    }
                    continue;
                }
                let l = strip(lhs);
                let (e, subs) = peel_subscripts(l);
                let base_is =
                    e.kind() == CXCursor_DeclRefExpr && e.referenced().is_some_and(|d| key_of(&d) == key);
                if !base_is {
                    continue;
                }
                let at_i = subs.iter().any(|s| {
                    let s = strip(*s);
                    s.kind() == CXCursor_DeclRefExpr && s.referenced().is_some_and(|d| key_of(&d) == ivar)
                });
                let whole = l.ty().canonical().is_arith();
                let text = self.src(l).to_string();
                if !(at_i && whole && self.reduction_update(*n, op, &text, &key)) {
                    ok = false;
                    continue;
                }
                // the subscripts themselves must not read the array (`y[y[i]]`)
                if subs.iter().any(|s| self.mentions(*s, &key)) {
                    ok = false;
                }
                updates += usize::from(n.kind() == CXCursor_CompoundAssignOperator)
                    + 2 * usize::from(n.kind() != CXCursor_CompoundAssignOperator);
            }
            if ok && updates > 0 && refs.len() == updates {
                owned.push(name.clone());
            }
        }
        if owned.is_empty() {
            return None;
        }
        let mut edits = self.reduction_edits(p, &owned);
        if p.directive.first().is_some_and(|d| d == "target") {
            let mapped = mapped_names(p);
            for (_, v) in p.reductions() {
                let name = v.split('[').next().unwrap_or("").trim().to_string();
                if owned.contains(&name) && !mapped.contains(&name) {
                    edits.push(Edit { start: p.end, end: p.end, text: format!(" map(tofrom: {v})") });
                }
            }
        }
        Some(edits)
    }
}

/// The variables the map clauses of `p` name (the base of each item).
pub(super) fn mapped_names(p: &Pragma) -> Vec<String> {
    p.clauses
        .iter()
        .filter(|c| c.name == "map")
        .filter_map(|c| c.arg.as_deref())
        .flat_map(|a| {
            // the modifiers end at the first ':' outside brackets (`a[0:n]` has one too)
            let mut depth = 0i32;
            let colon = a.char_indices().find(|&(_, c)| {
                depth += i32::from(c == '[' || c == '(') - i32::from(c == ']' || c == ')');
                c == ':' && depth == 0
            });
            let list = colon.map_or(a, |(k, _)| &a[k + 1..]);
            pragma::split_list(list)
                .into_iter()
                .map(|v| v.split(['[', '.']).next().unwrap_or("").trim().to_string())
                .collect::<Vec<_>>()
        })
        .collect()
}
