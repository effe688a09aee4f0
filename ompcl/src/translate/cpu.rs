//! The CPU version of every OpenMP construct, for ompcl's pthreads runtime (runtime/rt_omp.c):
//! the host edits that rewrite the pragmas (used when the program is not built with `cc -fopenmp`).
//!
//! A parallel region becomes a GCC nested function (it reaches the enclosing function's variables
//! through its static chain: shared variables stay shared) started on a team of threads by
//! ompc_parallel(); private copies are declarations that shadow the shared variable inside the
//! region; worksharing loops and sections become chunk loops over ompc_for_next(); the other
//! constructs become runtime calls around their statement.

use super::*;

struct Shadow {
    prolog: String,
    lastcopy: String,
    epilog: String,
}

/// Private copies for the data clauses of one construct (suffix k keeps names unique).
fn shadows(k: usize, p: &Pragma, skip: &[String]) -> Result<Shadow, String> {
    let private = p.list("private");
    let firstprivate = p.list("firstprivate");
    let lastprivate = p.list("lastprivate");
    let reductions = p.reductions();
    let mut sh = Shadow { prolog: String::new(), lastcopy: String::new(), epilog: String::new() };
    let mut done: HashSet<String> = skip.iter().cloned().collect();
    for x in &firstprivate {
        if !done.insert(x.clone()) {
            continue;
        }
        let _ = write!(sh.prolog, "__typeof__({x}) *__fp_{x}_{k} = &{x}; __typeof__({x}) {x}; __builtin_memcpy(&{x}, __fp_{x}_{k}, sizeof({x})); ");
        if lastprivate.contains(x) {
            let _ = write!(sh.lastcopy, "__builtin_memcpy(__fp_{x}_{k}, &{x}, sizeof({x})); ");
        }
    }
    if firstprivate.iter().any(|x| lastprivate.contains(x)) {
        // every copy-in must happen before the last iteration's copy-out
        sh.prolog.push_str("ompc_barrier(); ");
    }
    for x in &lastprivate {
        if !done.insert(x.clone()) {
            continue;
        }
        let _ = write!(sh.prolog, "__typeof__({x}) *__lp_{x}_{k} = &{x}; __typeof__({x}) {x}; ");
        let _ = write!(sh.lastcopy, "__builtin_memcpy(__lp_{x}_{k}, &{x}, sizeof({x})); ");
    }
    for x in &private {
        if !done.insert(x.clone()) {
            continue;
        }
        let _ = write!(sh.prolog, "__typeof__({x}) {x}; ");
    }
    for (op, x) in &reductions {
        if !done.insert(x.clone()) {
            continue;
        }
        let (ident, comb) = match op.as_str() {
            "+" | "-" => ("0", format!("*__rd_{x}_{k} + {x}")),
            "*" => ("1", format!("*__rd_{x}_{k} * {x}")),
            "&" => ("~0", format!("*__rd_{x}_{k} & {x}")),
            "|" => ("0", format!("*__rd_{x}_{k} | {x}")),
            "^" => ("0", format!("*__rd_{x}_{k} ^ {x}")),
            "&&" => ("1", format!("*__rd_{x}_{k} && {x}")),
            "||" => ("0", format!("*__rd_{x}_{k} || {x}")),
            // max/min (OpenMP 3.1): each copy starts at the original value, which changes
            // nothing (max(orig, max(orig, v...)) = max(orig, v...)) and needs no type's limits
            "max" => ("*__rd_ORIG", format!("(*__rd_{x}_{k} > {x} ? *__rd_{x}_{k} : {x})")),
            "min" => ("*__rd_ORIG", format!("(*__rd_{x}_{k} < {x} ? *__rd_{x}_{k} : {x})")),
            o => return Err(format!("unknown reduction operator '{o}'")),
        };
        let ident = if ident == "*__rd_ORIG" { format!("*__rd_{x}_{k}") } else { ident.to_string() };
        let _ = write!(
            sh.prolog,
            "__typeof__({x}) *__rd_{x}_{k} = &{x}; __typeof__({x}) {x} = (__typeof__({x}))({ident}); "
        );
        let _ = write!(sh.epilog, "ompc_red_lock(); *__rd_{x}_{k} = {comb}; ompc_red_unlock(); ");
    }
    Ok(sh)
}

fn sched_of(p: &Pragma) -> (i32, String) {
    match p.clause("schedule").and_then(|c| c.arg.clone()) {
        None => (1, "0".into()),
        Some(a) => {
            let (kind, chunk) = match a.find(',') {
                Some(i) => (a[..i].trim().to_string(), format!("({})", a[i + 1..].trim())),
                None => (a.trim().to_string(), "0".into()),
            };
            let code = match kind.as_str() {
                "static" => 1,
                "dynamic" => 2,
                "guided" => 3,
                _ => 4,
            };
            (code, chunk)
        }
    }
}

impl<'a> Translator<'a> {
    fn he(start: usize, end: usize, text: String, order: i32) -> HEdit {
        HEdit { start, end, text, order }
    }

    /// Where the text a loop's header edit replaces ends: the body's start, or, where a directive
    /// line comes first (`for (...)` then `#pragma omp atomic` then the brace-less body), the start
    /// of that line, which the directive's own edit replaces.
    fn header_end(&self, header_start: usize, body_start: usize) -> usize {
        let between = &self.cx.text[header_start..body_start];
        let mut at = 0;
        for line in between.split_inclusive('\n') {
            if at > 0 && line.trim_start().starts_with('#') {
                return header_start + at;
            }
            at += line.len();
        }
        body_start
    }

    /// Replacement text for a pragma's lines (keeps the line count).
    fn pragma_repl(&self, p: &Pragma, text: String) -> HEdit {
        let nl = self.cx.text[p.line_start..p.end].matches('\n').count();
        Self::he(p.line_start, p.end, format!("{text}{}", "\n".repeat(nl)), 0)
    }

    fn depth(&self, i: usize) -> i32 {
        let at = self.cx.pragmas[i].line_start;
        let mut d = 0;
        for (j, p) in self.cx.pragmas.iter().enumerate() {
            if j == i {
                continue;
            }
            if let Some(&(_, _, e)) = self.cx.assoc.get(&j) {
                if p.line_start < at && at < e {
                    d += 1;
                }
            }
        }
        d
    }

    /// (open text, header edit, close text) for a worksharing loop.
    fn ws_for(&self, k: usize, p: &Pragma, lp: Node) -> Result<(String, HEdit, String), String> {
        let li = self.parse_loop(lp)?;
        let lv = li.loopvar.spelling();
        let lastp = p.list("lastprivate");
        let lv_last = lastp.contains(&lv);
        // collapse(n): the CPU version spreads the outer loop only; the inner loop variables are
        // private, as OpenMP makes them
        let ncollapse =
            p.clause("collapse").and_then(|c| c.arg.as_deref()?.trim().parse::<usize>().ok()).unwrap_or(1);
        let mut inner_vars: Vec<(String, bool)> = Vec::new();
        let mut cur = li.body;
        for _ in 1..ncollapse {
            let st = strip(cur);
            let kids = if st.kind() == CXCursor_CompoundStmt { st.children() } else { vec![st] };
            if kids.len() != 1 || kids[0].kind() != CXCursor_ForStmt {
                return Err("collapse: the loops are not perfectly nested".into());
            }
            let inner = self.parse_loop(kids[0])?;
            inner_vars.push((inner.loopvar.spelling(), inner.in_init));
            cur = inner.body;
        }
        // the loop variables get their own private copies below (a `private(j)` of an inner
        // loop variable must not declare it twice); a lastprivate inner variable is copied out
        // with the other lastprivate variables: after the sequentially last iteration it holds
        // its value after its loop, as in the program run sequentially
        let mut skip: Vec<String> = vec![lv.clone()];
        for (iv, _) in &inner_vars {
            if !lastp.contains(iv) {
                skip.push(iv.clone());
            }
        }
        let sh = shadows(k, p, &skip)?;
        let (sched, chunk) = sched_of(p);
        let ordered = p.clause("ordered").is_some();
        let nowait = p.clause("nowait").is_some();
        // a pointer loop variable (OpenMP's random-access iterator, `for (p = &a[3]; p < &a[n]; p++)`):
        // the iteration space counts elements from the first pointer (__pb), since the bounds'
        // difference and the step are in elements, not bytes
        let pointer = li.loopvar.ty().canonical().kind() == CXType_Pointer;
        let lv_type = if li.in_init { li.loopvar.ty().spelling() } else { format!("__typeof__({lv})") };
        let count =
            host::trip_count(li.cmp, &format!("__lbw_{k}"), &format!("__ubw_{k}"), &format!("__stw_{k}"));
        let mut open = if pointer {
            format!(
                "{{ {lv_type} __pb_{k} = ({}); {}long long __n_{k} = {count}; long long __it_{k}; ",
                li.lb,
                host::wide_bounds("__", &format!("_{k}"), "0", &format!("({}) - __pb_{k}", li.ub), &li.step)
            )
        } else {
            format!(
                "{{ {}long long __n_{k} = {count}; long long __it_{k}; ",
                host::wide_bounds("__", &format!("_{k}"), &li.lb, &li.ub, &li.step)
            )
        };
        // the loop variable's value in iteration `it` (C: an expression of __lb, __st), computed
        // modulo 2^64 (an unsigned variable near its top, a step beyond LLONG_MAX)
        let value_at = |it: &str| {
            if pointer {
                format!("__pb_{k} + (__lb_{k} + {it} * __st_{k})")
            } else {
                format!("(__typeof__({lv}))((unsigned long long)__lb_{k} + (unsigned long long){it} * (unsigned long long)__st_{k})")
            }
        };
        if lv_last {
            let _ = write!(open, "__typeof__({lv}) *__lp_{lv}_{k} = &{lv}; ");
        }
        if li.in_init {
            let _ = write!(open, "{} {lv}; ", li.loopvar.ty().spelling());
        } else {
            let _ = write!(open, "__typeof__({lv}) {lv}; ");
        }
        open.push_str(&sh.prolog);
        for (iv, in_init) in &inner_vars {
            if !in_init && !lastp.contains(iv) {
                let _ = write!(open, "__typeof__({iv}) {iv}; ");
            }
        }
        let _ = write!(
            open,
            "ompc_ws __ws_{k}; long long __lo_{k}, __hi_{k}; ompc_for_init(&__ws_{k}, __n_{k}, {sched}, {chunk}, {}); while (ompc_for_next(&__ws_{k}, &__lo_{k}, &__hi_{k})) {{ ",
            if ordered && ncollapse > 1 { 2 } else { ordered as i32 }
        );
        let (fs, _) = lp.range();
        let (bs, _) = li.body.range();
        let header = format!(
            "for (__it_{k} = __lo_{k}; __it_{k} < __hi_{k}; __it_{k}++) {{ {lv} = {}; {}",
            value_at(&format!("__it_{k}")),
            if ordered { format!("__ws_{k}.it = __it_{k}; ") } else { String::new() }
        );
        let hedit = Self::he(fs.off, self.header_end(fs.off, bs.off), header, 0);
        let mut close = String::new();
        if ordered {
            let _ = write!(close, " ompc_ordered_iter_end(&__ws_{k}, __it_{k});");
        }
        close.push_str(" } ");
        let mut lc = sh.lastcopy.clone();
        if lv_last {
            let _ = write!(lc, "*__lp_{lv}_{k} = {}; ", value_at(&format!("__n_{k}")));
        }
        if !lc.is_empty() {
            let _ = write!(close, "if (__hi_{k} == __n_{k} && __n_{k} > 0) {{ {lc}}} ");
        }
        let _ = write!(close, "}} {}ompc_for_end(&__ws_{k}, {}); }}", sh.epilog, nowait as i32);
        Ok((open, hedit, close))
    }

    /// (open text, extra edits, close text) for a sections construct.
    fn ws_sections(
        &self,
        k: usize,
        p: &Pragma,
        st: Node,
        inner: &[usize],
    ) -> Result<(String, Vec<HEdit>, String), String> {
        let st = strip(st);
        if st.kind() != CXCursor_CompoundStmt {
            return Err("'sections' must be followed by a compound statement".into());
        }
        let sh = shadows(k, p, &[])?;
        let nowait = p.clause("nowait").is_some();
        let kids = st.children();
        let mut edits = Vec::new();
        let first_stmt = kids.first().map(|c| c.range().0.off);
        let first_pragma = inner.first().map(|&i| self.cx.pragmas[i].line_start);
        let mut n = 0usize;
        let implicit_first = match (first_stmt, first_pragma) {
            (Some(fs), Some(fp)) => fs < fp,
            (Some(_), None) => true,
            _ => false,
        };
        if implicit_first {
            let (ss, _) = st.range();
            edits.push(Self::he(ss.off + 1, ss.off + 1, " case 0: ;".into(), 0));
            n = 1;
        }
        for &i in inner {
            let sp = &self.cx.pragmas[i];
            edits.push(self.pragma_repl(sp, format!("break; case {n}: ;")));
            n += 1;
        }
        let open = format!(
            "{{ {}ompc_ws __ws_{k}; long long __lo_{k}, __hi_{k}, __it_{k}; ompc_for_init(&__ws_{k}, {n}, 2, 1, 0); while (ompc_for_next(&__ws_{k}, &__lo_{k}, &__hi_{k})) {{ for (__it_{k} = __lo_{k}; __it_{k} < __hi_{k}; __it_{k}++) switch (__it_{k}) ",
            sh.prolog
        );
        let mut close = String::from(" ");
        if !sh.lastcopy.is_empty() {
            let _ = write!(close, "if (__hi_{k} == {n}) {{ {}}} ", sh.lastcopy);
        }
        let _ = write!(close, "}} {}ompc_for_end(&__ws_{k}, {}); }}", sh.epilog, nowait as i32);
        Ok((open, edits, close))
    }

    fn section_pragmas_of(&self, k: usize) -> Vec<usize> {
        let Some(&(_, _, e)) = self.cx.assoc.get(&k) else { return vec![] };
        let start = self.cx.pragmas[k].line_start;
        let mut v = Vec::new();
        for (i, p) in self.cx.pragmas.iter().enumerate() {
            if !p.is(&["section"]) || p.line_start <= start || p.line_start >= e {
                continue;
            }
            // innermost enclosing sections construct must be k
            let mut best = None;
            for (j, q) in self.cx.pragmas.iter().enumerate() {
                if q.directive.last().map(|d| d == "sections").unwrap_or(false) {
                    if let Some(&(_, _, qe)) = self.cx.assoc.get(&j) {
                        if q.line_start < p.line_start && p.line_start < qe {
                            best = Some(j);
                        }
                    }
                }
            }
            if best == Some(k) {
                v.push(i);
            }
        }
        v
    }

    /// Edits for every construct; Err is a formatted `file:line:col: error:` diagnostic.
    pub(super) fn cpu_edits(&mut self, tu: &clang::Tu) -> Result<Vec<HEdit>, String> {
        let mut out: Vec<HEdit> = Vec::new();
        for k in 0..self.cx.pragmas.len() {
            let p = self.cx.pragmas[k].clone();
            if let Err(msg) = self.cpu_edit(tu, k, &mut out) {
                return Err(format!("{}:{}:{}: error: {msg}", self.cx.file, p.line, p.col));
            }
        }
        Ok(out)
    }

    fn cpu_edit(&mut self, tu: &clang::Tu, k: usize, out: &mut Vec<HEdit>) -> Result<(), String> {
        {
            let p = self.cx.pragmas[k].clone();
            let d0 = p.directive[0].clone();
            if d0 == "threadprivate" {
                out.push(self.pragma_repl(&p, String::new()));
                let names = p.dir_arg.as_deref().map(pragma::split_list).unwrap_or_default();
                let file = self.cx.file.clone();
                let mut seen = HashSet::new();
                for top in tu.root().children() {
                    if top.kind() == CXCursor_VarDecl && names.contains(&top.spelling()) {
                        let (s, _) = top.range();
                        if s.file == file && seen.insert(s.off) {
                            out.push(Self::he(s.off, s.off, "_Thread_local ".into(), 0));
                        }
                    }
                }
                return Ok(());
            }
            if d0 == "barrier" {
                out.push(self.pragma_repl(&p, "ompc_barrier();".into()));
                return Ok(());
            }
            if d0 == "flush" {
                out.push(self.pragma_repl(&p, "__sync_synchronize();".into()));
                return Ok(());
            }
            if d0 == "section" {
                return Ok(()); // by its sections
            }
            let Some(&(node, _s, e)) = self.cx.assoc.get(&k) else {
                return Err(format!("'#pragma omp {}' is not followed by a statement", p.name()));
            };
            let close_order = -10 * self.depth(k);
            let (open, close): (String, String) = match d0.as_str() {
                "parallel" => {
                    let mut open = String::from("{ ");
                    let mut body_pro = String::new();
                    for x in p.list("copyin") {
                        let _ = write!(open, "__typeof__({x}) *__ci_{x}_{k} = &{x}; ");
                        let _ = write!(
                            body_pro,
                            "if (ompc_thread_num() != 0) __builtin_memcpy(&{x}, __ci_{x}_{k}, sizeof({x})); "
                        );
                    }
                    if !body_pro.is_empty() {
                        body_pro.push_str("ompc_barrier(); ");
                    }
                    let combined = p.directive.len() == 2;
                    // data clauses: on the worksharing part of a combined construct
                    let par_clauses =
                        if combined { Pragma { clauses: vec![], ..p.clone() } } else { p.clone() };
                    let sh = shadows(k, &par_clauses, &[])?;
                    let nt = p
                        .clause("num_threads")
                        .and_then(|c| c.arg.clone())
                        .map(|a| format!("({a})"))
                        .unwrap_or("0".into());
                    let ifc = p
                        .clause("if")
                        .and_then(|c| c.arg.clone())
                        .map(|a| format!("({a})"))
                        .unwrap_or("1".into());
                    let _ = write!(open, "void __ompc_par_{k}(void) {{ {}{}", sh.prolog, body_pro);
                    let mut close = String::new();
                    if combined && p.directive[1] == "for" {
                        let (o, h, c) = self.ws_for(k, &p, node)?;
                        open.push_str(&o);
                        out.push(h);
                        close.push_str(&c);
                    } else if combined {
                        let inner = self.section_pragmas_of(k);
                        let (o, eds, c) = self.ws_sections(k, &p, node, &inner)?;
                        open.push_str(&o);
                        out.extend(eds);
                        close.push_str(&c);
                    }
                    let _ = write!(close, " {}}} ompc_parallel(__ompc_par_{k}, {nt}, {ifc}); }}", sh.epilog);
                    (open, close)
                }
                "for" => {
                    let (o, h, c) = self.ws_for(k, &p, node)?;
                    out.push(h);
                    (o, c)
                }
                "sections" => {
                    let inner = self.section_pragmas_of(k);
                    let (o, eds, c) = self.ws_sections(k, &p, node, &inner)?;
                    out.extend(eds);
                    (o, c)
                }
                "single" => {
                    if p.clause("copyprivate").is_some() {
                        return Err("'copyprivate' is not supported".into());
                    }
                    let sh = shadows(k, &p, &[])?;
                    (
                        format!("{{ if (ompc_single_begin()) {{ {}", sh.prolog),
                        format!(" }} ompc_single_end({}); }}", p.clause("nowait").is_some() as i32),
                    )
                }
                "master" => ("if (ompc_thread_num() == 0) { ".into(), " }".into()),
                "critical" => {
                    let name = c_string(p.dir_arg.as_deref().unwrap_or(""));
                    (format!("{{ ompc_critical_begin({name}); "), format!(" ompc_critical_end({name}); }}"))
                }
                "atomic" => ("{ ompc_atomic_begin(); ".into(), " ompc_atomic_end(); }".into()),
                "ordered" => ("{ ompc_ordered_begin(); ".into(), " ompc_ordered_end(); }".into()),
                other => return Err(format!("unknown OpenMP directive '{other}'")),
            };
            out.push(self.pragma_repl(&p, open));
            out.push(Self::he(e, e, close, close_order));
        }
        Ok(())
    }
}
