//! Histograms written by hand: every thread counts into a private array, then adds it to the
//! shared one in a `critical` section.
//!
//! ```c
//! #pragma omp parallel                          #pragma omp parallel for reduction(+: hist[0:K])
//! {
//!   int local[K] = {0};
//!   #pragma omp for                       ->
//!   for (i = 0; i < n; i++) local[data[i]]++;    for (i = 0; i < n; i++) hist[data[i]]++;
//!   #pragma omp critical
//!   for (j = 0; j < K; j++) hist[j] += local[j];
//! }
//! ```
//!
//! Each thread's `local` is the private copy the reduction gives it (zero, the identity of `+`),
//! takes the same updates and is added into `hist` once, element by element: the two agree for
//! every number of threads. The rewritten loop then becomes atomic updates (atomic_reduction.rs)
//! in the second rewrite; where it does not (or the region does not offload), the region is left
//! as written (translate.rs tries again without it). The subscripts of the updates are not
//! checked to lie in [0, K): outside it the original writes past `local` (undefined behaviour),
//! so the rewrite may assume they do not.
//!
//! What must hold (else the region stays as written, the warning saying why):
//! - the region holds exactly the declaration of `local`, one `omp for` loop (clauses `private`,
//!   `schedule`, `nowait` only) and a `critical` section (named or not); the `parallel` has only
//!   `private`, `shared`, `firstprivate`, `default`, `num_threads`, `if` clauses;
//! - `local` is declared alone, not static, with a constant size `K`, initialised `= {0}` or
//!   `= {}`, of element type int, unsigned, long, unsigned long, float or double;
//! - the critical section is exactly `for (j = 0; j < K; j++) hist[j] += local[j];` (or
//!   `hist[j] = hist[j] + local[j]`, `local[j] + hist[j]`; braces allowed; `j` declared in the
//!   loop or `private` on the `parallel`), `K` spelt as in the declaration;
//! - `hist` is an array (not a pointer) declared outside the region with `local`'s element type,
//!   shared (named by no clause, not threadprivate), not used in the loop; everywhere in the file
//!   it is only subscripted (never `&hist[e]`), an argument of a library function or in `sizeof`,
//!   so no pointer of the program reaches it;
//! - in the loop, every use of `local` is subscripted; that each is an update of one element
//!   (`+`/`-`, value unused, subscript and operand reading neither array, no side effects), and
//!   that the loop calls none of the program's functions, is checked by atomic_reduction.rs on
//!   the rewritten loop.

use super::*;

/// The tokens of C text (comments and whitespace dropped; numbers and names one token each).
fn tokens(s: &str) -> Vec<String> {
    let b = s.as_bytes();
    let mut v = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() || c == b'\\' {
            i += 1;
        } else if s[i..].starts_with("/*") {
            i = s[i + 2..].find("*/").map_or(b.len(), |k| i + 2 + k + 2);
        } else if s[i..].starts_with("//") {
            i = s[i..].find('\n').map_or(b.len(), |k| i + k);
        } else if c.is_ascii_alphanumeric() || c == b'_' || c == b'.' {
            let st = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'.') {
                i += 1;
            }
            v.push(s[st..i].to_string());
        } else {
            let two = s.get(i..i + 2).unwrap_or("");
            if ["++", "--", "+=", "-=", "<=", ">=", "==", "!=", "&&", "||", "->", "<<", ">>"].contains(&two) {
                v.push(two.to_string());
                i += 2;
            } else {
                v.push((c as char).to_string());
                i += 1;
            }
        }
    }
    v
}

fn refuse<T>(why: impl Into<String>) -> Result<T, Option<String>> {
    Err(Some(why.into()))
}

/// The element types the rewrite takes.
fn element_ok(t: Type) -> bool {
    matches!(
        t.canonical().kind(),
        CXType_Int | CXType_UInt | CXType_Long | CXType_ULong | CXType_Float | CXType_Double
    )
}

impl Translator<'_> {
    /// The edits that rewrite region `pi` as a `parallel for` reducing into the shared array
    /// (module comment); Err(None) when its critical section is not a loop (not this form).
    pub(super) fn plan_manual_array(&self, pi: usize, tu: &clang::Tu) -> Result<Vec<Edit>, Option<String>> {
        let p = &self.cx.pragmas[pi];
        let &(node, rs, re) = self.cx.assoc.get(&pi).ok_or(None)?;
        let body = strip(node);
        if body.kind() != CXCursor_CompoundStmt || p.unknown.is_some() {
            return Err(None);
        }
        let kids = body.children();
        let inner = self.pragmas_in(rs, re);
        // the form: a critical section whose statement is a loop
        let crit = inner.iter().copied().find(|&q| {
            self.cx.pragmas[q].is(&["critical"])
                && self.cx.assoc.get(&q).is_some_and(|a| {
                    let s = strip(a.0);
                    let s = if s.kind() == CXCursor_CompoundStmt && s.children().len() == 1 {
                        s.children()[0]
                    } else {
                        s
                    };
                    s.kind() == CXCursor_ForStmt
                })
        });
        let Some(cq) = crit else { return Err(None) };
        let why = "a private array added into a shared one in a critical section, but";
        let [decl_st, loop_st, crit_st] = kids[..] else {
            return refuse(format!(
                "{why} the region holds other statements than the array's declaration, one 'omp for' loop and the critical section"
            ));
        };
        let fq = inner.iter().copied().find(|&q| q != cq);
        let Some(fq) = fq.filter(|_| inner.len() == 2) else {
            return refuse(format!(
                "{why} the region has other directives than one 'omp for' and the critical section"
            ));
        };
        let fp = &self.cx.pragmas[fq];
        let assoc_is = |q: usize, n: Node| self.cx.assoc.get(&q).is_some_and(|a| a.0.equals(&n));
        if !fp.is(&["for"])
            || !assoc_is(fq, loop_st)
            || !assoc_is(cq, crit_st)
            || decl_st.kind() != CXCursor_DeclStmt
        {
            return refuse(format!(
                "{why} the region is not the array's declaration, one 'omp for' loop and the critical section, in that order"
            ));
        }
        if self.cx.pragmas[cq].clauses.iter().any(|_| true)
            || p.clauses.iter().any(|c| {
                !["private", "shared", "firstprivate", "default", "num_threads", "if"]
                    .contains(&c.name.as_str())
            })
            || fp.clauses.iter().any(|c| !["private", "schedule", "nowait"].contains(&c.name.as_str()))
        {
            return refuse(format!("{why} a clause of its directives is not one ompcl rewrites this way"));
        }
        // the private array
        let [local] = decl_st.children()[..] else {
            return refuse(format!("{why} its declaration declares more than the array"));
        };
        let lname = local.spelling();
        let lty = local.ty().canonical();
        if local.kind() != CXCursor_VarDecl
            || lty.kind() != CXType_ConstantArray
            || local.storage_static()
            || !element_ok(lty.elem())
        {
            return refuse(format!(
                "{why} '{lname}' is not an array of constant size of int, unsigned, long, unsigned long, float or double"
            ));
        }
        let (ls, le) = local.range();
        let dt = tokens(&self.cx.text[ls.off..le.off]);
        let Some(at) = dt.iter().position(|t| *t == lname) else {
            return refuse(format!("{why} the declaration of '{lname}' is made by a macro"));
        };
        let rest = &dt[at + 1..];
        let close = rest.iter().position(|t| t == "]");
        let size: Vec<String> = match (rest.first().map(String::as_str), close) {
            (Some("["), Some(c)) if c > 1 => rest[1..c].to_vec(),
            _ => return refuse(format!("{why} the declaration of '{lname}' is not 'T {lname}[K] = {{0}}'")),
        };
        let init: Vec<&str> = rest[close.unwrap_or(0) + 1..].iter().map(String::as_str).collect();
        let zero = matches!(init[..], ["=", "{", "}"])
            || matches!(init[..], ["=", "{", z, "}"] if ["0", "0.0", "0.", "0.0f", "0.f"].contains(&z));
        if !zero {
            return refuse(format!("{why} '{lname}' is not initialised '= {{0}}' in its declaration"));
        }
        // the combine
        let (cs, ce) = crit_st.range();
        let ct = tokens(&self.cx.text[cs.off..self.cx.stmt_end(ce.off)]);
        let mut c: Vec<&str> = ct.iter().map(String::as_str).collect();
        if c.first() == Some(&"{") && c.last() == Some(&"}") {
            c = c[1..c.len() - 1].to_vec();
        }
        let bad_combine = || {
            refuse(format!("{why} the critical section is not 'for (j = 0; j < K; j++) hist[j] += {lname}[j];' with K the size of '{lname}'"))
        };
        let declared_j = matches!(c.get(2), Some(&"int" | &"unsigned" | &"long" | &"size_t"));
        let h = if declared_j { 3 } else { 2 };
        let Some(&j) = c.get(h) else { return bad_combine() };
        let k = size.len();
        let mut head: Vec<&str> = vec!["for", "("];
        if declared_j {
            head.push(c[2]);
        }
        head.extend([j, "=", "0", ";", j, "<"]);
        head.extend(size.iter().map(String::as_str));
        head.push(";");
        if !c.starts_with(&head) {
            return bad_combine();
        }
        let mut r = &c[head.len()..];
        if r.starts_with(&[j, "++", ")"]) || r.starts_with(&["++", j, ")"]) {
            r = &r[3..];
        } else {
            return bad_combine();
        }
        if r.first() == Some(&"{") && r.last() == Some(&"}") {
            r = &r[1..r.len() - 1];
        }
        let Some(&hn) = r.first() else { return bad_combine() };
        fn el<'a>(a: &'a str, j: &'a str) -> [&'a str; 4] {
            [a, "[", j, "]"]
        }
        let forms: Vec<Vec<&str>> = vec![
            [&el(hn, j)[..], &["+="], &el(&lname, j)[..], &[";"]].concat(),
            [&el(hn, j)[..], &["="], &el(hn, j)[..], &["+"], &el(&lname, j)[..], &[";"]].concat(),
            [&el(hn, j)[..], &["="], &el(&lname, j)[..], &["+"], &el(hn, j)[..], &[";"]].concat(),
        ];
        if !forms.iter().any(|f| f[..] == r[..]) || hn == lname || hn == j || j == lname || k == 0 {
            return bad_combine();
        }
        if !declared_j && !p.list("private").iter().any(|v| v.trim() == j) {
            return refuse(format!(
                "{why} '{j}' is neither declared in the combine's loop nor private on the region"
            ));
        }
        // the combine's references: j, hist, local only
        let mut hist: Option<Node> = None;
        for n in nodes_of(crit_st) {
            if n.kind() != CXCursor_DeclRefExpr {
                continue;
            }
            let Some(d) = n.referenced() else { return bad_combine() };
            let s = d.spelling();
            if s == hn && n.spelling() == hn {
                hist = Some(d);
            } else if !((s == j && n.spelling() == j) || (s == lname && d.equals(&local))) {
                return bad_combine();
            }
        }
        let Some(hd) = hist else { return bad_combine() };
        let hty = hd.ty().canonical();
        if hd.kind() != CXCursor_VarDecl || !hty.is_array() || self.declared_in(&hd, (rs, re)) {
            return refuse(format!("{why} '{hn}' is not an array declared outside the region"));
        }
        if hty.elem().canonical().spelling() != lty.elem().canonical().spelling() {
            return refuse(format!("{why} '{hn}' and '{lname}' have different element types"));
        }
        let named = |pr: &Pragma| {
            ["private", "firstprivate", "lastprivate", "copyin", "reduction", "shared"]
                .iter()
                .flat_map(|c| pr.list(c))
                .any(|v| v.trim() == hn || v.trim() == lname)
        };
        let threadprivate = self.cx.pragmas.iter().any(|q| {
            q.is(&["threadprivate"])
                && q.dir_arg.as_deref().is_some_and(|a| a.split(',').any(|v| v.trim() == hn))
        });
        let shared_listed = p.list("shared").iter().any(|v| v.trim() == hn);
        if threadprivate || named(fp) || (named(p) && !shared_listed) {
            return refuse(format!("{why} '{hn}' or '{lname}' is named by a clause or threadprivate"));
        }
        // the loop: no use of hist; every use of local subscripted (renamed)
        let hkey = key_of(&hd);
        let (s0, _) = loop_st.range();
        let mut bases: Vec<usize> = Vec::new();
        let all = nodes_of(loop_st);
        for n in &all {
            if n.kind() == CXCursor_ArraySubscriptExpr {
                if let Some(b) = n.children().first().map(|b| strip(*b)) {
                    if b.kind() == CXCursor_DeclRefExpr {
                        bases.push(b.range().0.off);
                    }
                }
            }
        }
        let mut renames = Vec::new();
        for n in &all {
            if n.kind() != CXCursor_DeclRefExpr {
                continue;
            }
            let Some(d) = n.referenced() else { continue };
            if key_of(&d) == hkey {
                return refuse(format!("{why} the loop uses '{hn}'"));
            }
            if d.equals(&local) {
                if !bases.contains(&n.range().0.off) {
                    return refuse(format!("{why} the loop uses '{lname}' other than by an element"));
                }
                let off = self
                    .ref_offset(*n, (rs, re), &lname)
                    .ok_or_else(|| Some(format!("{why} '{lname}' is spelt inside a macro in the loop")))?;
                renames.push(off);
            }
        }
        // hist everywhere: subscripted, a library function's argument, in sizeof; never `&hist[e]`
        if !self.array_confined(tu, &hkey) {
            return refuse(format!(
                "{why} '{hn}' is used in the file other than by its elements (a pointer could reach it)"
            ));
        }
        // no preprocessor lines other than the directives in the text dropped
        let loop_end = self.cx.stmt_end(loop_st.range().1.off);
        let head_text = &self.cx.text[body.range().0.off..fp.line_start];
        let tail_text = &self.cx.text[loop_end..re];
        if head_text.contains('#') || tail_text.matches('#').count() != 1 || s0.off < fp.end {
            return refuse(format!("{why} the region has preprocessor lines"));
        }
        let ptext = &self.cx.text[p.line_start..p.end];
        let Some(w) = ptext.find("parallel") else { return Err(None) };
        let mut clauses: String = fp
            .clauses
            .iter()
            .filter(|c| c.name != "nowait")
            .map(|c| match &c.arg {
                Some(a) => format!(" {}({a})", c.name),
                None => format!(" {}", c.name),
            })
            .collect();
        clauses.push_str(&format!(" reduction(+: {hn}[0:{}])", size.join(" ")));
        let mut edits = vec![
            Edit {
                start: p.line_start + w + "parallel".len(),
                end: p.line_start + w + "parallel".len(),
                text: " for".into(),
            },
            Edit { start: p.end, end: p.end, text: clauses },
            Edit { start: body.range().0.off, end: fp.end, text: String::new() },
            Edit { start: loop_end, end: re, text: String::new() },
        ];
        edits.extend(renames.into_iter().map(|off| Edit {
            start: off,
            end: off + lname.len(),
            text: hn.to_string(),
        }));
        Ok(edits)
    }

    /// Whether every reference to the variable `key` in the file is the array of a subscript
    /// (not under `&`), an argument of a library function or inside `sizeof`.
    fn array_confined(&self, tu: &clang::Tu, key: &str) -> bool {
        let mut ok: Vec<usize> = Vec::new();
        let mut bad = false;
        let mut refs: Vec<usize> = Vec::new();
        for f in tu.root().children() {
            if f.range().0.file != self.cx.file {
                continue;
            }
            f.walk(&mut |n| {
                let k = n.kind();
                let is_key = |m: Node| {
                    m.kind() == CXCursor_DeclRefExpr && m.referenced().is_some_and(|d| key_of(&d) == key)
                };
                if is_key(n) {
                    refs.push(n.range().0.off);
                } else if k == CXCursor_ArraySubscriptExpr {
                    if let Some(b) = n.children().first().map(|b| strip(*b)) {
                        if is_key(b) {
                            ok.push(b.range().0.off);
                        }
                    }
                } else if k == CXCursor_CallExpr {
                    let lib = n.referenced().is_some_and(|d| d.in_system_header());
                    if lib {
                        for a in n.children().into_iter().skip(1) {
                            let a = strip(a);
                            if is_key(a) {
                                ok.push(a.range().0.off);
                            }
                        }
                    }
                } else if k == CXCursor_UnaryExpr {
                    n.walk(&mut |m| {
                        if is_key(m) {
                            ok.push(m.range().0.off);
                        }
                    });
                } else if k == CXCursor_UnaryOperator
                    && matches!(self.written_unop(n), 0 | CXUnaryOperator_AddrOf)
                {
                    n.walk(&mut |m| {
                        if is_key(m) {
                            bad = true;
                        }
                    });
                }
            });
        }
        !bad && refs.iter().all(|r| ok.contains(r))
    }
}
