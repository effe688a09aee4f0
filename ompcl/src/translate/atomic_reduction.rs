//! Sum, max and min reductions over an array (a section or the whole array) whose every use in
//! the loop is an update of one element, as in a histogram:
//!
//! ```c
//! #pragma omp parallel for reduction(+: hist[0:256])
//! for (int i = 0; i < N; i++) hist[data[i]]++;
//! ```
//!
//! The iterations do not own the elements (owned_reduction.rs), but every update only adds to
//! one: the reduction's result is the original plus all the updates, in whatever order they are
//! made. So the item is dropped from the clause and each update gets a `#pragma omp atomic` of
//! its own, on the source text before the translation: the kernel makes them OpenCL atomics, the
//! CPU version the C compiler's. For integers this is exact; for floating types it only reorders
//! the additions, as the reduction may. On a `target` construct the item is mapped `tofrom`
//! unless a map clause names the array already (as owned_reduction.rs does).
//!
//! Max and min likewise: the result is the larger (smaller) of the original and every update, in
//! any order. Each update (`if (v > a[e]) a[e] = v;`, the ternaries, `fmax`: minmax_update.rs)
//! is rewritten as `#pragma omp atomic compare` over `if ((v) > a[e]) { a[e] = (v); }`, OpenMP
//! 5.1's form, which the kernel makes an atomic max/min and gcc 12 takes where the CPU versions
//! use it; exact for every type (nothing is rounded).
//!
//! What must hold: a combined `parallel for` (or `target teams distribute parallel for`), so no
//! other statement of the region reads the array during the loop; one loop (no `collapse` above
//! 1), no nested directives, no calls of the program's functions (they could read the array), no
//! `ordered` or `linear`; the operation `+` (or `-`), `max` or `min`; for a sum every use of the
//! array an update `a[e] += v`,
//! `a[e] -= v`, `a[e]++`, `++a[e]`, `a[e]--`, `--a[e]`, `a[e] = a[e] + v` (or `- v`, `v + a[e]`)
//! that is a statement of its own, of a whole element of type int, unsigned, long, unsigned long,
//! float or double, `e` and `v` not reading the array and `e` without side effects; for a max
//! (min) every use a max (min) update of such an element, written out in the file (not by a
//! macro), `e` and `v` not reading the array. Otherwise the region keeps its reduction (and runs
//! on the CPU), the reason added to its warning.

use super::*;

impl Translator<'_> {
    /// The edits that make the array items of loop `node`'s reduction clause atomic updates
    /// (pragma `pi`, statement ending at `end`): Ok(None) when the clause has no array item,
    /// Err(why) when one cannot be.
    pub(super) fn plan_atomic(&self, pi: usize, node: Node, end: usize) -> Result<Option<Vec<Edit>>, String> {
        let p = &self.cx.pragmas[pi];
        let target = p.is(&["target", "teams", "distribute", "parallel", "for"]);
        if !(p.is(&["parallel", "for"]) || target) {
            return Ok(None);
        }
        let items: Vec<(String, String, String)> = p
            .reductions()
            .into_iter()
            .map(|(op, v)| {
                let name = v.split('[').next().unwrap_or("").trim().to_string();
                (op, v, name)
            })
            .collect();
        let Ok(info) = self.parse_loop(node) else { return Ok(None) };
        let all = nodes_of(info.body);
        // the array items: sections, and whole arrays (the declaration the body's references name)
        let decl_of = |name: &str| {
            all.iter()
                .find(|n| {
                    n.kind() == CXCursor_DeclRefExpr && n.referenced().is_some_and(|d| d.spelling() == name)
                })
                .and_then(|r| r.referenced())
        };
        let arrays: Vec<&(String, String, String)> = items
            .iter()
            .filter(|(_, v, name)| {
                v.contains('[') || decl_of(name).is_some_and(|d| d.ty().canonical().is_array())
            })
            .collect();
        if arrays.is_empty() {
            return Ok(None);
        }
        let why = |s: &str| Err(format!("its array reduction does not become atomic updates: {s}"));
        if ["ordered", "linear"].iter().any(|c| p.clause(c).is_some())
            || p.clause("collapse").is_some_and(|c| c.arg.as_deref().map(str::trim) != Some("1"))
        {
            return why("the loop is collapsed, ordered or linear");
        }
        let (fs, fe) = (node.range().0.off, end);
        if self.pragmas_in(fs, fe).iter().any(|&q| q != pi) {
            return why("the loop has nested directives");
        }
        let user_call = all.iter().any(|n| {
            n.kind() == CXCursor_CallExpr
                && n.referenced().and_then(|f| f.definition()).is_some_and(|d| !d.in_system_header())
        });
        if user_call {
            return why("the loop calls a function of the program");
        }
        // statements whose value is unused: items of a block, bodies of loops and ifs
        let mut stmts: HashSet<(usize, usize)> = HashSet::new();
        let mut mark = |n: Node| {
            let (s, e) = n.range();
            stmts.insert((s.off, e.off));
        };
        mark(info.body);
        for n in &all {
            let ch = n.children();
            match n.kind() {
                CXCursor_CompoundStmt => ch.iter().for_each(|c| mark(*c)),
                CXCursor_IfStmt => ch.iter().skip(1).for_each(|c| mark(*c)),
                CXCursor_ForStmt | CXCursor_WhileStmt | CXCursor_LabelStmt | CXCursor_CaseStmt
                | CXCursor_DefaultStmt => {
                    if let Some(c) = ch.last() {
                        mark(*c)
                    }
                }
                CXCursor_DoStmt => {
                    if let Some(c) = ch.first() {
                        mark(*c)
                    }
                }
                _ => {}
            }
        }
        let mut edits: Vec<Edit> = Vec::new();
        let mut dropped: Vec<String> = Vec::new();
        for (op, _, name) in arrays {
            let minmax = op == "max" || op == "min";
            if !(minmax || op == "+" || op == "-") {
                return why(&format!("'{op}' is not a sum, max or min"));
            }
            let Some(decl) = decl_of(name) else { return why(&format!("'{name}' is not used in the loop")) };
            let key = key_of(&decl);
            let refs = all
                .iter()
                .filter(|n| {
                    n.kind() == CXCursor_DeclRefExpr && n.referenced().is_some_and(|d| d.spelling() == *name)
                })
                .collect::<Vec<_>>();
            if refs.iter().any(|r| r.referenced().is_some_and(|d| key_of(&d) != key)) {
                return why(&format!("a local of the loop is named '{name}'"));
            }
            if minmax {
                match self.minmax_item_edits(op, name, &key, &all, &stmts, refs.len()) {
                    Ok(e) => edits.extend(e),
                    Err(s) => return why(&s),
                }
                dropped.push(name.clone());
                continue;
            }
            let mut updates = 0;
            for n in &all {
                let Some(lhs) = assigned(*n) else { continue };
                let l = strip(lhs);
                let (e, subs) = peel_subscripts(l);
                if !(e.kind() == CXCursor_DeclRefExpr && e.referenced().is_some_and(|d| key_of(&d) == key)) {
                    if self.mentions(lhs, &key) {
                        return why(&format!("'{name}' is written other than by an update of an element"));
                    }
                    continue;
                }
                let text = self.src(l).to_string();
                let unary = n.kind() == CXCursor_UnaryOperator;
                if !(unary || self.reduction_update(*n, "+", &text, &key)) {
                    return why(&format!("an update of '{name}' is not a sum or reads the array"));
                }
                if !matches!(
                    l.ty().canonical().kind(),
                    CXType_Int | CXType_UInt | CXType_Long | CXType_ULong | CXType_Float | CXType_Double
                ) {
                    return why(&format!("'{name}' has elements of type '{}'", l.ty().spelling()));
                }
                // the subscripts: no reads of the array, no side effects
                let effects = |s: Node| {
                    nodes_of(s).iter().any(|x| x.kind() == CXCursor_CallExpr || assigned(*x).is_some())
                };
                if subs.iter().any(|s| self.mentions(*s, &key) || effects(*s)) {
                    return why(&format!("a subscript of '{name}' reads it or has side effects"));
                }
                let (s, t) = n.range();
                // the update written out, not made by a macro (`INC(h[e])`): its text is the
                // element's and the operator's
                let squeeze = |x: &str| x.split_whitespace().collect::<String>();
                let (whole, el) = (squeeze(self.src(*n)), squeeze(&text));
                let written = [format!("{el}++"), format!("{el}--"), format!("++{el}"), format!("--{el}")]
                    .contains(&whole)
                    || whole.strip_prefix(el.as_str()).is_some_and(|r| {
                        !unary && (r.starts_with("+=") || r.starts_with("-=") || r.starts_with('='))
                    });
                if s.file != self.cx.file || t.file != self.cx.file || !written {
                    return why("an update is made by a macro");
                }
                if !stmts.contains(&(s.off, t.off)) {
                    return why(&format!("the value of an update of '{name}' is used"));
                }
                let se = self.cx.stmt_end(t.off);
                if se == t.off {
                    return why(&format!("the value of an update of '{name}' is used"));
                }
                edits.push(Edit { start: s.off, end: s.off, text: "{\n#pragma omp atomic\n".into() });
                edits.push(Edit { start: se, end: se, text: " }".into() });
                updates += if n.kind() == CXCursor_BinaryOperator { 2 } else { 1 };
            }
            if updates != refs.len() {
                return why(&format!("'{name}' is read in the loop"));
            }
            dropped.push(name.clone());
        }
        edits.extend(self.reduction_edits(p, &dropped));
        if target {
            let mapped = owned_reduction::mapped_names(p);
            for (_, v, name) in &items {
                if dropped.contains(name) && !mapped.contains(name) {
                    edits.push(Edit { start: p.end, end: p.end, text: format!(" map(tofrom: {v})") });
                }
            }
        }
        Ok(Some(edits))
    }

    /// The edits that make every max/min update of array `name` (declaration `key`) in the
    /// loop an OpenMP 5.1 `atomic compare` of the form `if (v > x) { x = v; }` (`<` for min),
    /// which gcc 12 accepts too; `all`: the loop's nodes; `stmts`: the ranges of its statements
    /// whose value is unused; `refs`: how many references to the array the loop has. The reason
    /// when some use of the array is not such an update of `op`.
    fn minmax_item_edits(
        &self,
        op: &str,
        name: &str,
        key: &str,
        all: &[Node],
        stmts: &HashSet<(usize, usize)>,
        refs: usize,
    ) -> Result<Vec<Edit>, String> {
        let mut edits = Vec::new();
        let mut updates: Vec<(usize, usize)> = Vec::new();
        let mut covered = 0;
        for n in all {
            if !matches!(n.kind(), CXCursor_IfStmt | CXCursor_BinaryOperator) {
                continue;
            }
            let (s, t) = n.range();
            if !stmts.contains(&(s.off, t.off)) {
                continue;
            }
            let Ok(u) = self.minmax_update(*n) else { continue };
            let (base, subs) = peel_subscripts(u.target);
            if !(base.kind() == CXCursor_DeclRefExpr && base.referenced().is_some_and(|d| key_of(&d) == key))
            {
                continue;
            }
            if u.op != op {
                return Err(format!("an update of '{name}' is a {} (the clause's operation is {op})", u.op));
            }
            if !matches!(
                u.target.ty().canonical().kind(),
                CXType_Int | CXType_UInt | CXType_Long | CXType_ULong | CXType_Float | CXType_Double
            ) {
                return Err(format!("'{name}' has elements of type '{}'", u.target.ty().spelling()));
            }
            if self.mentions(u.operand, key) || subs.iter().any(|x| self.mentions(*x, key)) {
                return Err(format!("a subscript or operand of an update of '{name}' reads it"));
            }
            if s.file != self.cx.file || t.file != self.cx.file {
                return Err("an update is made by a macro".into());
            }
            let (x, v) = (self.src(u.target), self.src(u.operand));
            let se = self.cx.stmt_end(t.off);
            edits.push(Edit { start: s.off, end: se, text: super::minmax_update::atomic_compare(x, v, op) });
            covered += nodes_of(*n)
                .iter()
                .filter(|r| {
                    r.kind() == CXCursor_DeclRefExpr && r.referenced().is_some_and(|d| key_of(&d) == key)
                })
                .count();
            updates.push((s.off, t.off));
        }
        // any other write of the array (`a[e] += v`, a max of another form) or read
        let inside = |n: &Node| {
            let (s, t) = n.range();
            updates.iter().any(|&(a, b)| s.off >= a && t.off <= b)
        };
        if all.iter().any(|n| assigned(*n).is_some_and(|l| self.mentions(l, key)) && !inside(n)) {
            return Err(format!("'{name}' is written other than by a {op} update of an element"));
        }
        if covered != refs {
            return Err(format!("'{name}' is read in the loop other than by its {op} updates"));
        }
        Ok(edits)
    }
}
