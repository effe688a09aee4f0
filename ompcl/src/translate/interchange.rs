//! Parallel loops whose iterations accumulate into shared array elements that an inner loop
//! indexes: PolyBench's atax and bicg (`for (j ...) y[j] = y[j] + A[i][j] * tmp[i];` inside
//! `#pragma omp for` over `i`), and the same loop made legal with an OpenMP 4.5 array-section
//! reduction (`reduction(+: y[0:n])`). Every iteration of the parallel loop updates every `y[j]`:
//! as written the loop races (or, with the reduction, needs a private copy of the whole array per
//! thread, which a GPU cannot afford). Run in the program's sequential order, the updates of one
//! `y[j]` happen in ascending `i` and nothing else in the loop reads `y`, so the loop can be split
//! in two (distribution) and the second part's loops swapped (interchange):
//!
//! ```text
//! #pragma omp for private(j)            #pragma omp for private(j)
//! for (i ...) {                         for (i ...) { tmp[i] = ...; }
//!   tmp[i] = ...;               ->      #pragma omp for private(i)
//!   for (j ...) y[j] += f(i, j);        for (j ...) for (i ...) { y[j] += f(i, j); }
//! }
//! ```
//!
//! which makes the updates of each `y[j]` one iteration's, in the sequential order: exactly the
//! result of one thread, race-free, and a kernel whose work-items own one `y[j]` each (consecutive
//! work-items read consecutive `A[i][j]`). The rewrite is made on the source text before the
//! translation, so the CPU version and the kernels both run the split loops.
//!
//! What must hold (else the loop is left as it is): the accumulation statement is a top-level
//! statement of a `for (j ...)` loop that is itself a top-level statement of the parallel loop,
//! with bounds that do not change inside it; it writes `y[..j..]` (one subscript `j` or `j +/- c`,
//! the others invariant), reads `y` only there, and reads otherwise only the loop variables,
//! arrays and scalars the loop does not write, and arrays the loop writes only at `[i]` before
//! the statement (`tmp[i]`); `y` appears nowhere else in the loop; no calls, jumps or nested
//! directives in the loop; no `nowait`, `ordered`, `collapse`, `linear`. Under a reduction clause
//! the statement must be the clause's operation (`y[j] += e`, `y[j] = y[j] + e`). Aliasing between
//! `y` and the arrays the loop reads does not change what the rewrite may do: it would be a race
//! (no clause), or, under the clause, an access to the original list item inside the region,
//! whose value the spec leaves unspecified.

use super::*;

/// `X[a][b]...` -> (X's declaration, [a, b, ...]); a plain variable -> (it, []).
fn base_and_subscripts(e: Node) -> Option<(Node, Vec<Node>)> {
    let (e, mut subs) = peel_subscripts(e);
    subs.reverse();
    if e.kind() != CXCursor_DeclRefExpr {
        return None;
    }
    Some((e.referenced()?, subs))
}

/// The statements of a loop body (a compound statement's children, or the one statement).
fn statements(body: Node) -> Vec<Node> {
    if body.kind() == CXCursor_CompoundStmt {
        body.children()
    } else {
        vec![body]
    }
}

/// What the parallel loop's body writes: declaration key -> the subscripts of every write.
type Writes = HashMap<String, Vec<Vec<Node>>>;

fn writes_in(n: Node) -> Writes {
    let mut w: Writes = HashMap::new();
    for c in nodes_of(n) {
        if let Some((d, subs)) = assigned(c).and_then(base_and_subscripts) {
            w.entry(key_of(&d)).or_default().push(subs);
        }
    }
    w
}

/// One accumulation statement found: its byte range (with the `;`) and text.
struct Accumulation {
    start: usize,
    end: usize,
    text: String,
}

/// The plan for one inner `for (j ...)` loop holding accumulations.
struct ColumnLoop {
    /// the whole loop statement's range (blanked when every statement of it moves)
    start: usize,
    end: usize,
    header: String,
    moved: Vec<Accumulation>,
    all_moved: bool,
}

impl Translator<'_> {
    pub(super) fn src(&self, n: Node) -> &str {
        let (s, e) = n.range();
        &self.cx.text[s.off..e.off]
    }

    /// The source text with every loop of the accumulation form split and interchanged, and per
    /// line of it the line of `self.cx.text` it comes from; None when no loop has that form.
    /// `orig_line` maps a line of the text to the file's line (for `#line`). Array reductions
    /// made atomic updates (atomic_reduction.rs) are edits of the text too; where one cannot be,
    /// `notes` gets why, per directive line.
    pub(super) fn accumulation_rewrite(
        &self,
        tu: &clang::Tu,
        orig_line: &dyn Fn(u32) -> u32,
        notes: &mut HashMap<u32, String>,
    ) -> Option<(String, Vec<u32>)> {
        let mut edits: Vec<Edit> = Vec::new();
        // statements that are the body of an if/loop/label, not an item of a block: a loop added
        // after one would not be under its if (clang does not see the pragmas: the parallel loop
        // is the if's own statement)
        let mut sole: HashSet<usize> = HashSet::new();
        tu.root().walk(&mut |n| {
            if matches!(
                n.kind(),
                CXCursor_IfStmt
                    | CXCursor_ForStmt
                    | CXCursor_WhileStmt
                    | CXCursor_DoStmt
                    | CXCursor_SwitchStmt
                    | CXCursor_LabelStmt
                    | CXCursor_CaseStmt
                    | CXCursor_DefaultStmt
            ) {
                for c in n.children() {
                    if c.kind() == CXCursor_ForStmt {
                        sole.insert(c.range().0.off);
                    }
                }
            }
        });
        for (pi, p) in self.cx.pragmas.iter().enumerate() {
            let Some(&(node, _, end)) = self.cx.assoc.get(&pi) else { continue };
            // reductions over arrays whose elements the iterations own (owned_reduction.rs), on
            // any loop construct
            if p.directive.iter().any(|w| w == "for" || w == "distribute") && p.clause("reduction").is_some()
            {
                if let Some(mut e) = self.plan_owned(pi, node, end) {
                    edits.append(&mut e);
                    continue;
                }
            }
            if let Some(mut e) = self.interchange_of(pi, node, end, &sole, orig_line) {
                edits.append(&mut e);
                continue;
            }
            // array reductions whose uses are updates of one element each: atomic updates
            // (atomic_reduction.rs), where the loop is not split
            if p.clause("reduction").is_some() {
                match self.plan_atomic(pi, node, end) {
                    Ok(Some(mut e)) => edits.append(&mut e),
                    Ok(None) => {}
                    Err(why) => {
                        notes.insert(p.line, why);
                    }
                }
            }
        }
        if edits.is_empty() {
            return None;
        }
        Some(apply_edits(self.cx.text, edits))
    }

    /// The edits that split loop `node` of pragma `pi`, where the construct allows it (`sole`:
    /// statements that are the body of an if or loop) and the loop has the form.
    fn interchange_of(
        &self,
        pi: usize,
        node: Node,
        end: usize,
        sole: &HashSet<usize>,
        orig_line: &dyn Fn(u32) -> u32,
    ) -> Option<Vec<Edit>> {
        let p = &self.cx.pragmas[pi];
        let target = target_loop(p);
        if !(p.is(&["for"]) || p.is(&["parallel", "for"]) || target) {
            return None;
        }
        // (a target construct's split is put in braces of its own)
        if sole.contains(&node.range().0.off) && !target {
            return None;
        }
        // `#pragma omp parallel` whose statement is the loop itself (no braces): a loop added
        // after it would be outside the parallel region
        let fs = node.range().0.off;
        if self.cx.pragmas.iter().enumerate().any(|(q, o)| {
            q != pi && o.is(&["parallel"]) && self.cx.assoc.get(&q).is_some_and(|&(_, s, _)| s == fs)
        }) {
            return None;
        }
        self.plan_interchange(pi, node, end, orig_line)
    }

    /// The edits that split loop `node` of pragma `pi`, if it has the form (module comment).
    fn plan_interchange(
        &self,
        pi: usize,
        node: Node,
        end: usize,
        orig_line: &dyn Fn(u32) -> u32,
    ) -> Option<Vec<Edit>> {
        let p = &self.cx.pragmas[pi];
        let target = target_loop(p);
        // a target construct's `if` with a modifier names one constituent; `depend` orders it
        // among tasks
        let modified_if =
            p.clauses.iter().any(|c| c.name == "if" && c.arg.as_deref().is_some_and(|a| a.contains(':')));
        if target && (modified_if || p.clause("depend").is_some()) {
            return None;
        }
        if ["nowait", "ordered", "linear"].iter().any(|c| p.clause(c).is_some())
            || p.clause("collapse").is_some_and(|c| c.arg.as_deref().map(str::trim) != Some("1"))
        {
            return None;
        }
        let info = self.parse_loop(node).ok()?;
        let (fs, fe) = (node.range().0.off, end);
        let bs = info.body.range().0.off;
        // the text is edited: the loop must be written out in this file, not made by a macro
        let written_here = |n: Node| {
            let (a, b) = n.range();
            a.file == self.cx.file
                && b.file == self.cx.file
                && self.cx.text.get(a.off..).is_some_and(|t| t.starts_with("for"))
        };
        if !written_here(node) || bs <= fs || fe > self.cx.text.len() {
            return None;
        }
        // nested directives (atomic, critical, ...) or jumps: the loop's order matters to them
        if self.pragmas_in(fs, fe).iter().any(|&q| q != pi) {
            return None;
        }
        let all = nodes_of(info.body);
        if all.iter().any(|n| {
            matches!(
                n.kind(),
                CXCursor_CallExpr
                    | CXCursor_GotoStmt
                    | CXCursor_ReturnStmt
                    | CXCursor_BreakStmt
                    | CXCursor_ContinueStmt
                    | CXCursor_IndirectGotoStmt
            )
        }) {
            return None;
        }
        // names with a data-sharing clause here or on the enclosing parallel construct: private
        // values the moved statements could not see
        let enclosing = self.enclosing_parallel(pi, fs);
        let mut clause_names: HashSet<String> = HashSet::new();
        for q in std::iter::once(pi).chain(enclosing) {
            for c in ["private", "firstprivate", "lastprivate", "copyin", "linear"] {
                clause_names.extend(self.cx.pragmas[q].list(c));
            }
        }
        // reduction items (op, array name): an accumulation into one of them must be its operation
        let mut reductions: Vec<(String, String)> = Vec::new();
        let mut sections: Vec<String> = Vec::new();
        for (op, v) in p.reductions() {
            let name = v.split('[').next().unwrap_or("").trim().to_string();
            if v.contains('[') {
                sections.push(name.clone());
            }
            clause_names.insert(name.clone());
            reductions.push((op, name));
        }
        if let Some(q) = enclosing {
            for (_, v) in self.cx.pragmas[q].reductions() {
                clause_names.insert(v.split('[').next().unwrap_or("").trim().to_string());
            }
        }
        let ivar = key_of(&info.loopvar);
        let body_writes = writes_in(info.body);
        let file = self.cx.file.clone();
        let inside = |d: &Node| {
            let l = d.loc();
            l.file == file && l.off >= fs && l.off < fe
        };
        let stmts = statements(info.body);
        let mut loops: Vec<ColumnLoop> = Vec::new();
        let mut moved_arrays: Vec<String> = Vec::new();
        for (k, s) in stmts.iter().enumerate() {
            if s.kind() != CXCursor_ForStmt {
                continue;
            }
            let Ok(j) = self.parse_loop(*s) else { continue };
            let jvar = key_of(&j.loopvar);
            // j must be visible after the parallel loop: declared in its own header or outside
            if !j.in_init && inside(&j.loopvar) {
                continue;
            }
            let invariant = |n: Node| {
                decl_refs(n).iter().all(|r| {
                    r.referenced().is_some_and(|d| {
                        let key = key_of(&d);
                        key != ivar
                            && key != jvar
                            && !body_writes.contains_key(&key)
                            && !inside(&d)
                            && !clause_names.contains(&d.spelling())
                    })
                })
            };
            // the inner loop's header: j and what the parallel loop does not change
            let header_ok = |n: Node| {
                decl_refs(n)
                    .iter()
                    .all(|r| r.referenced().is_some_and(|d| key_of(&d) == jvar || invariant(*r)))
            };
            if !s.children()[..3].iter().all(|n| header_ok(*n)) {
                continue;
            }
            let later: Vec<Node> = stmts[k + 1..].to_vec();
            let jstmts = statements(j.body);
            let mut moved = Vec::new();
            for t in &jstmts {
                let Some(acc) = self.accumulation(
                    *t,
                    &ivar,
                    &jvar,
                    &invariant,
                    &body_writes,
                    &inside,
                    &clause_names,
                    &reductions,
                    *s,
                    &later,
                    info.body,
                ) else {
                    continue;
                };
                moved.push(acc);
            }
            if moved.is_empty() {
                continue;
            }
            for a in &moved {
                moved_arrays.push(a.1.clone());
            }
            let (ss, _) = s.range();
            if !written_here(*s) || j.body.range().0.off <= ss.off {
                continue;
            }
            let header = self.cx.text[ss.off..j.body.range().0.off].trim_end().to_string();
            loops.push(ColumnLoop {
                start: ss.off,
                end: self.cx.stmt_end(s.range().1.off),
                header,
                all_moved: moved.len() == jstmts.len(),
                moved: moved.into_iter().map(|a| a.0).collect(),
            });
        }
        if loops.is_empty() {
            return None;
        }
        // an array accumulated twice: the sums would be reordered
        let mut seen = HashSet::new();
        if !moved_arrays.iter().all(|a| seen.insert(a.clone())) {
            return None;
        }
        // every array-section reduction item must be one of the moved accumulations: the clause
        // is dropped for them, and an item left behind keeps the loop on the CPU anyway
        if !sections.iter().all(|n| moved_arrays.contains(n)) {
            return None;
        }
        let mut edits = Vec::new();
        // a statement removed: spaces in its place (its lines kept), `;` first where a whole
        // statement goes (an empty statement, in case it was a loop's only body)
        let blank = |s: usize, e: usize, semi: bool| Edit {
            start: s,
            end: e,
            text: self.cx.text[s..e]
                .chars()
                .enumerate()
                .map(|(k, c)| {
                    if c == '\n' {
                        '\n'
                    } else if k == 0 && semi {
                        ';'
                    } else {
                        ' '
                    }
                })
                .collect(),
        };
        let statement_count = stmts.iter().filter(|s| s.kind() != CXCursor_NullStmt).count();
        let nothing_left = loops.iter().all(|l| l.all_moved) && loops.len() == statement_count;
        if nothing_left {
            // the parallel loop was only accumulations: the new loops replace it
            edits.push(blank(p.line_start, p.end, false));
            edits.push(blank(fs, fe, false));
        } else {
            for l in &loops {
                if l.all_moved {
                    edits.push(blank(l.start, l.end, true));
                } else {
                    for a in &l.moved {
                        edits.push(blank(a.start, a.end, false));
                    }
                }
            }
            edits.extend(self.reduction_edits(p, &moved_arrays));
        }
        // a target construct: its map clauses go to a `target data` around both loops (what the
        // first writes stays on the device for the second), the clauses that choose the device
        // and shape the league to both; the whole in braces of its own
        let mut carried = String::new();
        let mut close = String::new();
        if target {
            let mut maps = String::new();
            for c in &p.clauses {
                let text = &self.cx.text[c.start..c.end];
                match c.name.as_str() {
                    "map" => {
                        let _ = write!(maps, " {text}");
                        if !nothing_left {
                            edits.push(blank(c.start, c.end, false));
                        }
                    }
                    "device" | "if" => {
                        let _ = write!(maps, " {text}");
                        let _ = write!(carried, " {text}");
                    }
                    "num_teams" | "thread_limit" | "defaultmap" | "is_device_ptr" | "num_threads" => {
                        let _ = write!(carried, " {text}");
                    }
                    _ => {}
                }
            }
            // a reduction's result goes back to the host (OpenMP 5.0 maps reduction items so)
            let mapped = owned_reduction::mapped_names(p);
            for (_, v) in p.reductions() {
                let name = v.split('[').next().unwrap_or("").trim().to_string();
                if moved_arrays.contains(&name) && !mapped.contains(&name) {
                    let _ = write!(maps, " map(tofrom: {v})");
                }
            }
            let mut open = String::from("{\n");
            close.push_str("\n}");
            if maps.contains("map(") {
                let _ = write!(open, "#pragma omp target data{maps}\n{{\n");
                close.push_str("\n}");
            }
            edits.push(Edit { start: p.line_start, end: p.line_start, text: open });
        }
        // the new loops, right after the parallel loop
        let directive = if target {
            p.directive.join(" ")
        } else if p.is(&["parallel", "for"]) {
            "parallel for".to_string()
        } else {
            "for".to_string()
        };
        let private =
            if info.in_init { String::new() } else { format!(" private({})", info.loopvar.spelling()) };
        let iheader = self.cx.text[fs..bs].trim_end().to_string();
        let line_at_end = self.cx.text[..fe].matches('\n').count() as u32 + 1;
        let mut text = String::new();
        for l in &loops {
            let stmts: Vec<&str> = l.moved.iter().map(|a| a.text.as_str()).collect();
            let _ = write!(
                text,
                "\n#pragma omp {directive}{carried}{private}\n{} {iheader} {{ {} }}",
                l.header,
                stmts.join(" ")
            );
        }
        text.push_str(&close);
        let quoted = self.cx.file.replace('\\', "\\\\").replace('"', "\\\"");
        let _ = write!(text, "\n#line {} \"{quoted}\"\n", orig_line(line_at_end));
        edits.push(Edit { start: fe, end: fe, text });
        Some(edits)
    }

    /// Edits of `p`'s reduction clauses without the items of the moved arrays.
    pub(super) fn reduction_edits(&self, p: &Pragma, moved_arrays: &[String]) -> Vec<Edit> {
        let mut edits = Vec::new();
        for c in p.clauses.iter().filter(|c| c.name == "reduction") {
            let Some(a) = &c.arg else { continue };
            let Some(colon) = a.find(':') else { continue };
            let items = pragma::split_list(&a[colon + 1..]);
            let keep: Vec<&String> = items
                .iter()
                .filter(|v| !moved_arrays.contains(&v.split('[').next().unwrap_or("").trim().to_string()))
                .collect();
            if keep.len() == items.len() {
                continue;
            }
            let text = if keep.is_empty() {
                String::new()
            } else {
                format!(
                    "reduction({}: {})",
                    &a[..colon],
                    keep.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
                )
            };
            edits.push(Edit { start: c.start, end: c.end, text });
        }
        edits
    }

    /// The innermost `parallel` construct around the worksharing loop of pragma `pi` (None for
    /// a combined `parallel for` or an orphaned loop).
    fn enclosing_parallel(&self, pi: usize, at: usize) -> Option<usize> {
        if self.cx.pragmas[pi].directive.first().is_some_and(|d| d == "parallel") {
            return None;
        }
        self.cx
            .pragmas
            .iter()
            .enumerate()
            .filter(|(q, p)| *q != pi && p.is(&["parallel"]))
            .filter_map(|(q, _)| self.cx.assoc.get(&q).map(|&(_, s, e)| (q, s, e)))
            .filter(|&(_, s, e)| s <= at && at < e)
            .max_by_key(|&(_, s, _)| s)
            .map(|(q, _, _)| q)
    }

    /// Statement `t` of the inner loop `jloop` as an accumulation that can move, with the name of
    /// the array it accumulates into.
    #[allow(clippy::too_many_arguments)]
    fn accumulation(
        &self,
        t: Node,
        ivar: &str,
        jvar: &str,
        invariant: &dyn Fn(Node) -> bool,
        body_writes: &Writes,
        inside: &dyn Fn(&Node) -> bool,
        clause_names: &HashSet<String>,
        reductions: &[(String, String)],
        jloop: Node,
        later: &[Node],
        body: Node,
    ) -> Option<(Accumulation, String)> {
        let lhs = assigned(t)?;
        if t.kind() == CXCursor_UnaryOperator {
            return None;
        }
        let (x, subs) = base_and_subscripts(lhs)?;
        if subs.is_empty() || inside(&x) {
            return None;
        }
        let xkey = key_of(&x);
        let xname = x.spelling();
        let is_j = |n: Node| {
            let n = strip(n);
            n.kind() == CXCursor_DeclRefExpr && n.referenced().is_some_and(|d| key_of(&d) == jvar)
        };
        // one subscript is j, j + c, c + j or j - c; the others are invariant
        let mut with_j = 0;
        for s in &subs {
            let s = strip(*s);
            if invariant(s) {
                continue;
            }
            let ok = is_j(s)
                || (s.kind() == CXCursor_BinaryOperator
                    && matches!(s.binop(), CXBinaryOperator_Add | CXBinaryOperator_Sub)
                    && {
                        let ch = s.children();
                        (is_j(ch[0]) && invariant(ch[1]))
                            || (s.binop() == CXBinaryOperator_Add && is_j(ch[1]) && invariant(ch[0]))
                    });
            if !ok {
                return None;
            }
            with_j += 1;
        }
        if with_j != 1 {
            return None;
        }
        let lhs_text = self.src(strip(lhs)).to_string();
        // under an array-section reduction: the clause's operation, the array not read otherwise
        let op = reductions.iter().find(|(_, n)| *n == xname).map(|(op, _)| op.as_str());
        if clause_names.contains(&xname) && op.is_none() {
            return None;
        }
        if let Some(op) = op {
            if !self.reduction_update(t, op, &lhs_text, &xkey) {
                return None;
            }
        }
        // y read only at the element written: every reference to it is a whole `y[..]` equal to
        // the left-hand side
        let refs = nodes_of(t)
            .iter()
            .filter(|n| {
                n.kind() == CXCursor_DeclRefExpr && n.referenced().is_some_and(|d| key_of(&d) == xkey)
            })
            .count();
        let whole = nodes_of(t)
            .iter()
            .filter(|n| n.kind() == CXCursor_ArraySubscriptExpr && self.src(**n) == lhs_text)
            .count();
        if refs != whole {
            return None;
        }
        // what else the statement reads
        for n in nodes_of(t) {
            if n.kind() != CXCursor_DeclRefExpr {
                continue;
            }
            let d = n.referenced()?;
            let key = key_of(&d);
            if key == ivar || key == jvar || key == xkey {
                continue;
            }
            if d.kind() == CXCursor_FunctionDecl || d.kind() == CXCursor_EnumConstantDecl {
                continue;
            }
            if inside(&d) || clause_names.contains(&d.spelling()) {
                return None;
            }
            if let Some(ws) = body_writes.get(&key) {
                // written in the loop: only as V[i], before the inner loop, read only as V[i]
                let only_i = |subs: &Vec<Node>| {
                    subs.len() == 1 && {
                        let s = strip(subs[0]);
                        s.kind() == CXCursor_DeclRefExpr && s.referenced().is_some_and(|v| key_of(&v) == ivar)
                    }
                };
                if !ws.iter().all(only_i) {
                    return None;
                }
                if self.mentions_written(jloop, &key) || later.iter().any(|l| self.mentions_written(*l, &key))
                {
                    return None;
                }
                if !self.read_only_at_i(t, &key, ivar) {
                    return None;
                }
            }
        }
        // y nowhere else in the parallel loop
        let (ts, te) = t.range();
        if ts.file != self.cx.file || te.file != self.cx.file {
            return None;
        }
        let elsewhere = nodes_of(body).into_iter().any(|n| {
            let at = n.range().0.off;
            (at < ts.off || at >= te.off)
                && n.kind() == CXCursor_DeclRefExpr
                && n.referenced().is_some_and(|d| key_of(&d) == xkey)
        });
        if elsewhere {
            return None;
        }
        let end = self.cx.stmt_end(te.off);
        Some((Accumulation { start: ts.off, end, text: self.cx.text[ts.off..end].to_string() }, xname))
    }

    /// Whether assignment `t` to the element `lhs_text` (of the array `xkey`) is the reduction
    /// operation `op` applied to it (`y[j] += e`, `y[j] = y[j] + e`, `e` not reading the array;
    /// for a sum also `-= e`, `y[j] = y[j] - e`): an update whose result is the same whether it
    /// starts from the original or from a private copy combined with the original afterwards.
    pub(super) fn reduction_update(&self, t: Node, op: &str, lhs_text: &str, xkey: &str) -> bool {
        let rhs = t.children()[1];
        match t.kind() {
            CXCursor_CompoundAssignOperator => {
                matches!(
                    (op, t.binop()),
                    ("+" | "-", CXBinaryOperator_AddAssign | CXBinaryOperator_SubAssign)
                        | ("*", CXBinaryOperator_MulAssign)
                        | ("&", CXBinaryOperator_AndAssign)
                        | ("|", CXBinaryOperator_OrAssign)
                        | ("^", CXBinaryOperator_XorAssign)
                ) && !self.mentions(rhs, xkey)
            }
            CXCursor_BinaryOperator if t.binop() == CXBinaryOperator_Assign => {
                let r = strip(rhs);
                let want = match op {
                    "+" | "-" => CXBinaryOperator_Add,
                    "*" => CXBinaryOperator_Mul,
                    "&" => CXBinaryOperator_And,
                    "|" => CXBinaryOperator_Or,
                    "^" => CXBinaryOperator_Xor,
                    _ => return false,
                };
                if r.kind() != CXCursor_BinaryOperator {
                    return false;
                }
                let ch = r.children();
                let same = |n: Node| self.src(strip(n)) == lhs_text;
                // (a sum's updates may subtract: `y = y - e` adds `-e`, as `-=` does)
                let minus = want == CXBinaryOperator_Add && r.binop() == CXBinaryOperator_Sub;
                (r.binop() == want || minus)
                    && ((same(ch[0]) && !self.mentions(ch[1], xkey))
                        || (!minus && same(ch[1]) && !self.mentions(ch[0], xkey)))
            }
            _ => false,
        }
    }

    /// Whether `n` refers to the declaration `key`.
    pub(super) fn mentions(&self, n: Node, key: &str) -> bool {
        decl_refs(n).iter().any(|r| r.referenced().is_some_and(|d| key_of(&d) == key))
    }

    /// Whether `n` writes the variable or array `key`.
    fn mentions_written(&self, n: Node, key: &str) -> bool {
        writes_in(n).contains_key(key)
    }

    /// Whether every use of array `key` in `t` is `key[i]`.
    fn read_only_at_i(&self, t: Node, key: &str, ivar: &str) -> bool {
        let mut uses = 0;
        let mut at_i = 0;
        for n in nodes_of(t) {
            if n.kind() == CXCursor_DeclRefExpr && n.referenced().is_some_and(|d| key_of(&d) == key) {
                uses += 1;
            }
            if n.kind() == CXCursor_ArraySubscriptExpr {
                let ch = n.children();
                let (b, s) = (strip(ch[0]), strip(ch[1]));
                if b.kind() == CXCursor_DeclRefExpr
                    && b.referenced().is_some_and(|d| key_of(&d) == key)
                    && s.kind() == CXCursor_DeclRefExpr
                    && s.referenced().is_some_and(|d| key_of(&d) == ivar)
                {
                    at_i += 1;
                }
            }
        }
        uses == at_i
    }
}

/// A combined `target` form of a worksharing loop whose split keeps its meaning: the loop's
/// iterations spread over threads (`target parallel for`, `target teams distribute parallel for`).
fn target_loop(p: &Pragma) -> bool {
    p.is(&["target", "parallel", "for"]) || p.is(&["target", "teams", "distribute", "parallel", "for"])
}

/// `text` with the edits made (non-overlapping; insertions at a replaced place's start come
/// first), and per line of the result the line of `text` it comes from.
pub(super) fn apply_edits(text: &str, mut edits: Vec<Edit>) -> (String, Vec<u32>) {
    edits.sort_by(|a, b| a.start.cmp(&b.start).then((a.end > a.start).cmp(&(b.end > b.start))));
    let mut out = String::new();
    let mut lines = Vec::new();
    let mut line = 1u32;
    let mut cur = 0;
    let copy = |out: &mut String, lines: &mut Vec<u32>, line: &mut u32, s: &str| {
        for ch in s.chars() {
            out.push(ch);
            if ch == '\n' {
                lines.push(*line);
                *line += 1;
            }
        }
    };
    for e in edits {
        if e.start < cur {
            continue;
        }
        copy(&mut out, &mut lines, &mut line, &text[cur..e.start]);
        for ch in e.text.chars() {
            out.push(ch);
            if ch == '\n' {
                lines.push(line);
            }
        }
        line += text[e.start..e.end].matches('\n').count() as u32;
        cur = e.end;
    }
    copy(&mut out, &mut lines, &mut line, &text[cur..]);
    lines.push(line);
    (out, lines)
}
