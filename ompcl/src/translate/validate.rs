//! The clause rules gcc enforces, checked before anything is generated: a program gcc rejects
//! gets an ompcl error at the `file:line:col` gcc names (the clause, or the variable in it),
//! never generated C that the C compiler then rejects (or, worse, accepts).
//!
//! * a clause not allowed on the directive (`lastprivate` on `single` or `parallel`, `shared` on
//!   `for`, `schedule` on `sections`, `nowait` on a combined construct ...);
//! * a variable in two data-sharing clauses (`firstprivate` + `lastprivate` excepted);
//! * a reduction operator that is not one of `+ * - & | ^ && || max min`, or `& | ^` on a
//!   floating-point variable, or a reduction of a non-arithmetic variable;
//! * an unknown `schedule` kind;
//! * a loop iteration variable of a `for` (or of its collapsed loops) in `firstprivate`; a `!=`
//!   loop test with a step other than 1 or -1;
//! * `default(none)` with a variable used in the construct but listed in no clause;
//! * an `ordered` construct whose innermost enclosing construct is not a loop with `ordered`.

use super::*;

fn allowed(dir: &str) -> &'static [&'static str] {
    const PAR: &[&str] = &[
        "if",
        "private",
        "firstprivate",
        "default",
        "shared",
        "copyin",
        "reduction",
        "num_threads",
        "target",
    ];
    const FOR: &[&str] =
        &["private", "firstprivate", "lastprivate", "reduction", "ordered", "schedule", "nowait", "collapse"];
    const SECTIONS: &[&str] = &["private", "firstprivate", "lastprivate", "reduction", "nowait"];
    const SINGLE: &[&str] = &["private", "firstprivate", "copyprivate", "nowait"];
    const PAR_FOR: &[&str] = &[
        "if",
        "private",
        "firstprivate",
        "default",
        "shared",
        "copyin",
        "reduction",
        "num_threads",
        "target",
        "lastprivate",
        "ordered",
        "schedule",
        "collapse",
    ];
    const PAR_SECTIONS: &[&str] = &[
        "if",
        "private",
        "firstprivate",
        "default",
        "shared",
        "copyin",
        "reduction",
        "num_threads",
        "target",
        "lastprivate",
    ];
    match dir {
        "parallel" => PAR,
        "for" => FOR,
        "sections" => SECTIONS,
        "single" => SINGLE,
        "parallel for" => PAR_FOR,
        "parallel sections" => PAR_SECTIONS,
        _ => &[],
    }
}

const DATA_CLAUSES: &[&str] = &["private", "firstprivate", "lastprivate", "reduction", "shared", "copyin"];

/// A variable declaration in the main file and the end of its scope.
struct Decl {
    name: String,
    start: usize,
    scope_end: usize,
    node: Node,
}

/// The declaration `name` refers to at offset `at`: the innermost one in scope.
fn resolve_in<'d>(decls: &'d [Decl], name: &str, at: usize) -> Option<&'d Decl> {
    decls.iter().filter(|d| d.name == name && d.start < at && at < d.scope_end).max_by_key(|d| d.start)
}

fn collect_decls(n: Node, scope_end: usize, out: &mut Vec<Decl>, file: &str) {
    for c in n.children() {
        let k = c.kind();
        let (s, e) = c.range();
        // the main file's declarations, and every file's globals
        let global = scope_end == usize::MAX;
        if (k == CXCursor_VarDecl || k == CXCursor_ParmDecl)
            && (global || s.file == file || s.file.is_empty())
        {
            // a global of another file (a header) is in scope from the main file's start
            let start = if c.loc().file == file { c.loc().off } else { 0 };
            out.push(Decl { name: c.spelling(), start, scope_end, node: c });
        }
        let inner_end = if k == CXCursor_CompoundStmt || k == CXCursor_ForStmt || k == CXCursor_FunctionDecl {
            e.off
        } else {
            scope_end
        };
        if k == CXCursor_FunctionDecl && s.file != file {
            continue;
        }
        collect_decls(c, inner_end, out, file);
    }
}

impl<'a> Translator<'a> {
    /// (line, col) of a byte offset of the main file.
    fn line_col(&self, off: usize) -> (u32, u32) {
        let t = &self.cx.text.as_bytes()[..off.min(self.cx.text.len())];
        let line = t.iter().filter(|&&b| b == b'\n').count() as u32 + 1;
        let ls = t.iter().rposition(|&b| b == b'\n').map(|i| i + 1).unwrap_or(0);
        (line, (off - ls) as u32 + 1)
    }

    fn err_at(&self, off: usize, msg: &str) -> String {
        let (l, c) = self.line_col(off);
        format!("{}:{l}:{c}: error: {msg}", self.cx.file)
    }

    /// Offset of the word `w` inside [s, e) of the main file (whole identifier), after `from`.
    fn word_in(&self, s: usize, e: usize, w: &str) -> Option<usize> {
        let t = self.cx.text.get(s..e)?;
        let b = t.as_bytes();
        let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
        let mut from = 0;
        while let Some(i) = t[from..].find(w) {
            let at = from + i;
            let end = at + w.len();
            if (at == 0 || !ident(b[at - 1])) && (end >= b.len() || !ident(b[end])) {
                return Some(s + at);
            }
            from = end;
        }
        None
    }

    /// The '(' of a clause (where gcc places errors about its list).
    fn paren_of(&self, c: &pragma::Clause) -> usize {
        self.cx.text.get(c.start..c.end).and_then(|t| t.find('(')).map(|i| c.start + i).unwrap_or(c.start)
    }

    /// The `omp` of a pragma line (where gcc places errors about the construct).
    fn omp_word(&self, p: &Pragma) -> usize {
        self.word_in(p.line_start, p.end, "omp").unwrap_or(p.line_start)
    }

    /// The first reduction item over an array (a section `y[0:n]`, or an array named whole), with
    /// its pragma's line.
    pub(super) fn array_reduction(&self, tu: &clang::Tu) -> Option<(u32, String)> {
        let mut decls = Vec::new();
        collect_decls(tu.root(), usize::MAX, &mut decls, &self.cx.file);
        for p in &self.cx.pragmas {
            for (_, v) in p.reductions() {
                let whole_array =
                    resolve_in(&decls, &v, p.line_start).is_some_and(|d| d.node.ty().is_array());
                if v.contains('[') || whole_array {
                    return Some((p.line, v));
                }
            }
        }
        None
    }

    /// Errors for every rule of the module (empty: the program is fine).
    pub(super) fn validate(&self, tu: &clang::Tu) -> Vec<String> {
        let mut decls = Vec::new();
        collect_decls(tu.root(), usize::MAX, &mut decls, &self.cx.file);
        let resolve = |name: &str, at: usize| resolve_in(&decls, name, at);
        let mut errs = Vec::new();
        for (k, p) in self.cx.pragmas.iter().enumerate() {
            if p.unknown.is_some() && !p.directive.iter().all(|d| allowed_directive(d)) {
                continue;
            }
            // device constructs (OpenMP 4.5: target, teams, distribute and their combined forms):
            // not in these tables; their programs' CPU versions go through `cc -fopenmp`, which
            // reports what is invalid there at its place
            if p.directive.iter().any(|d| matches!(d.as_str(), "target" | "teams" | "distribute" | "declare"))
            {
                continue;
            }
            let dir = p.name();
            let ok = allowed(&dir);
            // 1. clauses allowed on the directive
            if let Some(c) =
                p.clauses.iter().find(|c| !ok.contains(&c.name.as_str()) && known_clause(&c.name))
            {
                errs.push(
                    self.err_at(c.start, &format!("'{}' is not valid for '#pragma omp {dir}'", c.name)),
                );
                continue;
            }
            // 1b. the clauses' arguments: lists of declared variables, expressions present
            if let Some(e) = self.clause_arguments(p, &decls) {
                errs.push(e);
                continue;
            }
            // 2. a variable in two data clauses
            // gcc names the '(' of the later clause, or of the `shared` one of the pair
            let mut seen: HashMap<String, &pragma::Clause> = HashMap::new();
            let mut dup = None;
            for c in p.clauses.iter().filter(|c| DATA_CLAUSES.contains(&c.name.as_str())) {
                let (vars, _) = clause_vars(c);
                for v in vars {
                    if let Some(first) = seen.get(&v).copied() {
                        let pair = [first.name.as_str(), c.name.as_str()];
                        if !(pair.contains(&"firstprivate")
                            && pair.contains(&"lastprivate")
                            && first.name != c.name)
                        {
                            let at = if first.name == "shared" { first } else { c };
                            let at = self.paren_of(at);
                            dup = Some(
                                self.err_at(at, &format!("'{v}' appears more than once in data clauses")),
                            );
                            break;
                        }
                    }
                    seen.insert(v, c);
                }
                if dup.is_some() {
                    break;
                }
            }
            if let Some(d) = dup {
                errs.push(d);
                continue;
            }
            // 3. reductions (any type may have a `declare reduction` of its own: then gcc decides)
            let user_reductions =
                self.cx.pragmas.iter().any(|q| {
                    q.directive.first().is_some_and(|d| d == "declare") && q.name() != "declare target"
                });
            let mut red_err = None;
            for c in p.clauses.iter().filter(|c| c.name == "reduction") {
                let a = c.arg.clone().unwrap_or_default();
                let Some(colon) = a.find(':') else {
                    red_err = Some(self.err_at(c.start, "expected ':' in 'reduction'"));
                    break;
                };
                let op = pragma::reduction_op(&a[..colon]);
                let op = op.as_str();
                // (an identifier of a `declare reduction` of the program: gcc checks it)
                let declared = user_reductions && op.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
                if !declared && !matches!(op, "+" | "*" | "-" | "&" | "|" | "^" | "&&" | "||" | "max" | "min")
                {
                    red_err = Some(self.err_at(c.start, &format!("invalid reduction operator '{op}'")));
                    break;
                }
                let (vars, _) = clause_vars(c);
                for v in vars {
                    let at = self.paren_of(c);
                    // an array section's elements: the type check is the element type's
                    let (v, section) = match v.find('[') {
                        Some(b) => (v[..b].trim().to_string(), true),
                        None => (v, false),
                    };
                    let Some(d) = resolve(&v, p.line_start) else { continue };
                    let mut ty = d.node.ty();
                    // a section, or an array named whole (4.5): its elements
                    while section || ty.canonical().is_array() {
                        let c = ty.canonical();
                        ty = if c.is_pointer() {
                            c.pointee()
                        } else if c.is_array() {
                            c.elem()
                        } else {
                            break;
                        };
                    }
                    let fl =
                        matches!(ty.canonical().kind(), CXType_Float | CXType_Double | CXType_LongDouble);
                    // C's complex types take + - * (and && ||); gcc's __float128 and _Float16 are
                    // floating types as any other
                    let complex = ty.canonical().kind() == CXType_Complex
                        && matches!(op, "+" | "-" | "*" | "&&" | "||");
                    let wide =
                        matches!(ty.canonical().kind(), CXType_Float128 | CXType_Half | CXType_Float16);
                    let fl = fl || wide;
                    if (!(ty.is_arith() || complex || wide) || (fl && matches!(op, "&" | "|" | "^")))
                        && !user_reductions
                    {
                        red_err =
                            Some(self.err_at(at, &format!("'{v}' has invalid type for 'reduction({op})'")));
                        break;
                    }
                }
                if red_err.is_some() {
                    break;
                }
            }
            if let Some(e) = red_err {
                errs.push(e);
                continue;
            }
            // 4. schedule kind
            if let Some(c) = p.clause("schedule") {
                let a = c.arg.clone().unwrap_or_default();
                let kind = a.split(',').next().unwrap_or("").trim().to_string();
                if !matches!(kind.as_str(), "static" | "dynamic" | "guided" | "runtime" | "auto") {
                    let at = self.word_in(c.start + "schedule".len(), c.end, &kind).unwrap_or(c.start);
                    errs.push(self.err_at(at, &format!("invalid schedule kind '{kind}'")));
                    continue;
                }
            }
            // 5. loop iteration variables never firstprivate; `!=` only with steps 1 and -1
            if p.directive.last().map(|d| d == "for").unwrap_or(false) {
                if let Some(&(node, _, _)) = self.cx.assoc.get(&k) {
                    let fp = p.list("firstprivate");
                    let n = p
                        .clause("collapse")
                        .and_then(|c| c.arg.as_deref()?.trim().parse::<usize>().ok())
                        .unwrap_or(1);
                    let mut cur = Some(node);
                    let mut bad = None;
                    for _ in 0..n {
                        let Some(lp) = cur else { break };
                        let lp = strip(lp);
                        let lp = if lp.kind() == CXCursor_CompoundStmt {
                            let kids = lp.children();
                            if kids.len() != 1 {
                                break;
                            }
                            kids[0]
                        } else {
                            lp
                        };
                        let li = match self.parse_loop(lp) {
                            Ok(li) => li,
                            Err(m) if m.starts_with("increment is not constant") => {
                                // at the increment's operator, as gcc
                                let inc = lp.children().get(2).map(|i| strip(*i));
                                let at = inc
                                    .and_then(|i| i.children().first().map(|l| l.range().1.off))
                                    .map(|mut o| {
                                        let t = self.cx.text.as_bytes();
                                        while o < t.len() && (t[o] as char).is_whitespace() {
                                            o += 1;
                                        }
                                        o
                                    })
                                    .unwrap_or(p.line_start);
                                bad = Some(self.err_at(at, &m));
                                break;
                            }
                            Err(_) => break,
                        };
                        let v = li.loopvar.spelling();
                        if fp.contains(&v) {
                            let at = self.omp_word(p);
                            bad =
                                Some(self.err_at(
                                    at,
                                    &format!("iteration variable '{v}' should not be firstprivate"),
                                ));
                            break;
                        }
                        cur = Some(li.body);
                    }
                    if let Some(b) = bad {
                        errs.push(b);
                        continue;
                    }
                }
            }
            // 6. default(none)
            if p.clause("default").and_then(|c| c.arg.as_deref()).map(|a| a.trim() == "none").unwrap_or(false)
            {
                if let Some(e) = self.default_none(k, p) {
                    errs.push(e);
                    continue;
                }
            }
            // 7. ordered closely nested in an ordered loop
            if p.is(&["ordered"]) {
                let innermost = (0..self.cx.pragmas.len())
                    .filter(|&j| j != k)
                    .filter(|&j| {
                        let q = &self.cx.pragmas[j];
                        matches!(q.directive[0].as_str(), "parallel" | "for" | "sections" | "single")
                    })
                    .filter_map(|j| {
                        self.cx
                            .assoc
                            .get(&j)
                            .filter(|&&(_, _, e)| {
                                self.cx.pragmas[j].line_start < p.line_start && p.line_start < e
                            })
                            .map(|_| j)
                    })
                    .max_by_key(|&j| self.cx.pragmas[j].line_start);
                if let Some(j) = innermost {
                    let q = &self.cx.pragmas[j];
                    if !(q.directive.last().map(|d| d == "for").unwrap_or(false)
                        && q.clause("ordered").is_some())
                    {
                        let at = self.omp_word(p);
                        errs.push(self.err_at(
                            at,
                            "'ordered' region must be closely nested inside a loop region with an 'ordered' clause",
                        ));
                    }
                }
            }
        }
        errs
    }

    /// The first malformed clause argument of `p`: an empty or non-variable list item, an
    /// undeclared variable, `default` other than `shared`/`none`, an empty expression.
    fn clause_arguments(&self, p: &Pragma, decls: &[Decl]) -> Option<String> {
        for c in &p.clauses {
            let name = c.name.as_str();
            if !known_clause(name) || matches!(name, "nowait" | "ordered" | "target") {
                continue;
            }
            let Some(open) = self.cx.text.get(c.start..c.end).and_then(|t| t.find('(')).map(|i| c.start + i)
            else {
                return Some(self.err_at(c.end, &format!("expected '(' after '{name}'")));
            };
            let close = c.end.saturating_sub(1).max(open + 1);
            let inner = self.cx.text.get(open + 1..close).unwrap_or("");
            let first_char = |from: usize| {
                let t = self.cx.text.get(from..close).unwrap_or("");
                from + (t.len() - t.trim_start().len())
            };
            match name {
                "private" | "firstprivate" | "lastprivate" | "shared" | "copyin" | "copyprivate"
                | "reduction" => {
                    let conditional = name == "lastprivate"
                        && inner.split_once(':').is_some_and(|(m, _)| m.trim() == "conditional");
                    let list_from = if name == "reduction" || conditional {
                        match inner.find(':') {
                            Some(i) => open + 1 + i + 1,
                            None => return Some(self.err_at(close, "expected ':' in 'reduction'")),
                        }
                    } else {
                        open + 1
                    };
                    let list = self.cx.text.get(list_from..close).unwrap_or("");
                    if list.trim().is_empty() {
                        return Some(self.err_at(close, &format!("expected a variable in '{name}'")));
                    }
                    let mut at = list_from;
                    for item in list.split(',') {
                        let v = item.trim();
                        // an OpenMP 4.5 array section of a reduction: `y[0:n]`, `y[:n]`, `m[i][0:n]`
                        let v = match v.find('[') {
                            Some(b) if name == "reduction" && v.ends_with(']') => v[..b].trim_end(),
                            _ => v,
                        };
                        let vat = first_char(at);
                        let ident = !v.is_empty()
                            && !v.as_bytes()[0].is_ascii_digit()
                            && v.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80);
                        if !ident {
                            let bad = v.find(|ch: char| !(ch.is_alphanumeric() || ch == '_')).unwrap_or(0);
                            return Some(self.err_at(vat + bad, &format!("expected a variable in '{name}'")));
                        }
                        if resolve_in(decls, v, p.line_start).is_none() {
                            return Some(
                                self.err_at(vat, &format!("'{v}' undeclared (first use in this function)")),
                            );
                        }
                        at += item.len() + 1;
                    }
                }
                "default" => {
                    if !matches!(inner.trim(), "shared" | "none" | "firstprivate" | "private") {
                        return Some(self.err_at(
                            first_char(open + 1),
                            "expected 'none', 'shared', 'private' or 'firstprivate' in 'default'",
                        ));
                    }
                }
                "collapse" => {
                    let a = inner.trim();
                    if a.is_empty()
                        || (a.bytes().all(|b| b.is_ascii_digit())
                            && a.parse::<u64>().map_or(true, |n| n == 0))
                    {
                        return Some(
                            self.err_at(open, "collapse argument needs positive constant integer expression"),
                        );
                    }
                }
                _ => {
                    // if, num_threads, schedule's chunk: an expression
                    let expr = if name == "schedule" {
                        inner.find(',').map(|i| &inner[i + 1..])
                    } else {
                        Some(inner)
                    };
                    if let Some(e) = expr {
                        if e.trim().is_empty() {
                            return Some(self.err_at(close, &format!("expected an expression in '{name}'")));
                        }
                    }
                }
            }
        }
        None
    }

    /// `default(none)` on pragma k: the first variable used in the construct that is declared
    /// outside it and listed in no clause (loop iteration variables of its own and inner `for`
    /// loops, and threadprivate variables, are predetermined).
    fn default_none(&self, k: usize, p: &Pragma) -> Option<String> {
        let &(node, s, e) = self.cx.assoc.get(&k)?;
        // listed here, or in a data clause of a construct nested in this one
        let mut listed: HashSet<String> = HashSet::new();
        for q in self.cx.pragmas.iter().filter(|q| q.line_start >= p.line_start && q.line_start < e) {
            for c in q.clauses.iter().filter(|c| DATA_CLAUSES.contains(&c.name.as_str())) {
                listed.extend(clause_vars(c).0);
            }
        }
        // sizeof / _Alignof operands are not evaluated: no use
        let mut unevaluated: Vec<(usize, usize)> = Vec::new();
        node.walk(&mut |c| {
            if c.kind() == CXCursor_UnaryExpr {
                let (a, b) = c.range();
                unevaluated.push((a.off, b.off));
            }
        });
        // iteration variables of the worksharing loops in the construct
        let mut loopvars: HashSet<String> = HashSet::new();
        for (j, q) in self.cx.pragmas.iter().enumerate() {
            if !q.directive.last().map(|d| d == "for").unwrap_or(false) {
                continue;
            }
            if q.line_start < p.line_start || (j != k && q.line_start >= e) {
                continue;
            }
            if let Some(&(lp, _, _)) = self.cx.assoc.get(&j) {
                let n = q
                    .clause("collapse")
                    .and_then(|c| c.arg.as_deref()?.trim().parse::<usize>().ok())
                    .unwrap_or(1);
                let mut cur = lp;
                for _ in 0..n {
                    let l = strip(cur);
                    let l = if l.kind() == CXCursor_CompoundStmt && l.children().len() == 1 {
                        l.children()[0]
                    } else {
                        l
                    };
                    let Ok(li) = self.parse_loop(l) else { break };
                    loopvars.insert(li.loopvar.spelling());
                    cur = li.body;
                }
            }
        }
        let mut found = None;
        let mut refs = decl_refs(node);
        refs.sort_by_key(|r| r.loc().off);
        for r in refs {
            let Some(d) = r.referenced() else { continue };
            if !matches!(d.kind(), CXCursor_VarDecl | CXCursor_ParmDecl) {
                continue;
            }
            let name = d.spelling();
            let dl = d.loc();
            let inside = dl.file == self.cx.file && dl.off >= s && dl.off < e;
            let roff = r.loc().off;
            if inside
                || unevaluated.iter().any(|&(a, b)| a <= roff && roff <= b)
                || listed.contains(&name)
                || loopvars.contains(&name)
                || self.cx.threadprivate.contains(&name)
                || r.loc().file != self.cx.file
            {
                continue;
            }
            let off = r.loc().off;
            // gcc names the innermost binary expression holding the use (at its operator)
            let mut at = off;
            let mut best: Option<(usize, usize)> = None;
            let mut all = vec![node];
            node.walk(&mut |c| all.push(c));
            all.into_iter().for_each(|c| {
                if matches!(c.kind(), CXCursor_BinaryOperator | CXCursor_CompoundAssignOperator) {
                    let (cs, ce) = c.range();
                    if cs.off <= off && off < ce.off && best.is_none_or(|(bs, be)| ce.off - cs.off < be - bs)
                    {
                        best = Some((cs.off, ce.off));
                        if let Some(lhs) = c.children().first() {
                            let le = lhs.range().1.off;
                            let t = self.cx.text.as_bytes();
                            let mut i = le;
                            while i < t.len() && (t[i] as char).is_whitespace() {
                                i += 1;
                            }
                            at = i;
                        }
                    }
                }
            });
            found = Some(self.err_at(at, &format!("'{name}' not specified in enclosing 'parallel'")));
            break;
        }
        found
    }
}

fn allowed_directive(d: &str) -> bool {
    matches!(
        d,
        "parallel"
            | "for"
            | "sections"
            | "section"
            | "single"
            | "master"
            | "critical"
            | "atomic"
            | "barrier"
            | "flush"
            | "ordered"
            | "threadprivate"
    )
}

/// Clauses of OpenMP 2.0 (+ collapse, MOMP's target); others are left to the C compiler.
fn known_clause(c: &str) -> bool {
    matches!(
        c,
        "private"
            | "firstprivate"
            | "lastprivate"
            | "shared"
            | "default"
            | "reduction"
            | "schedule"
            | "num_threads"
            | "if"
            | "nowait"
            | "copyin"
            | "copyprivate"
            | "ordered"
            | "target"
            | "collapse"
    )
}

/// The variables of a data clause, and the offset (from the clause start) where they begin.
fn clause_vars(c: &pragma::Clause) -> (Vec<String>, usize) {
    let a = c.arg.clone().unwrap_or_default();
    let list = if c.name == "reduction" {
        a.find(':').map(|i| &a[i + 1..]).unwrap_or("")
    } else if let Some(rest) = pragma::conditional_modifier(c) {
        rest
    } else {
        a.as_str()
    };
    // the list starts after the '(' (and the ':' of a reduction)
    let from = c.name.len();
    (pragma::split_list(list), from)
}
