//! Kernel emission: the shape of an offloadable region (one loop, or a sequence: sequence.rs), and
//! the OpenCL kernel of one worksharing loop (variable classes, collapse, row spreading, reductions).

use super::*;

impl<'a> Translator<'a> {
    /// What an offloadable region does (one kernel, or a sequence of kernels and host steps), or the
    /// reason it stays on the CPU.
    pub(super) fn region_kernel(&mut self, r: &Region, p: &Pragma, node: Node) -> Result<Vec<Step>, String> {
        if let Some(u) = &p.unknown {
            return Err(format!("'{u}' is not translated to OpenCL"));
        }
        let clauses: Vec<Pragma> = vec![p.clone()];
        if p.is(&["parallel", "for"]) || p.is(&["parallel", "for", "simd"]) {
            let k = self.loop_kernel(r.id, p.line, clauses, node)?;
            return Ok(vec![Step::Kernel { k: Box::new(k), kid: r.id, line: p.line }]);
        }
        if !p.is(&["parallel"]) {
            return Err(format!("'{}' is not translated to OpenCL", p.name()));
        }
        let n = strip(node);
        let kids = if n.kind() == CXCursor_CompoundStmt { n.children() } else { vec![n] };
        let (_, s, e) = self.cx.assoc[&r.pragma];
        let inner = self.pragmas_in(s, e);
        if let Some((fp, lp)) = self.taskloop_idiom(r.pragma, &kids)? {
            let k = self.loop_kernel(r.id, fp.line, vec![p.clone(), fp], lp)?;
            return Ok(vec![Step::Kernel { k: Box::new(k), kid: r.id, line: p.line }]);
        }
        if kids.len() == 1 && kids[0].kind() == CXCursor_ForStmt {
            let first = inner.first().map(|&i| self.cx.pragmas[i].clone());
            match first {
                Some(fp)
                    if fp.is(&["for"])
                        && self.cx.assoc.get(&inner[0]).map(|a| a.0.equals(&kids[0])).unwrap_or(false) =>
                {
                    let k = self.loop_kernel(r.id, fp.line, vec![p.clone(), fp], kids[0])?;
                    Ok(vec![Step::Kernel { k: Box::new(k), kid: r.id, line: p.line }])
                }
                // a loop every thread runs, with worksharing loops inside (a time loop), or none
                _ => self.sequence(p, &kids, &inner).map_err(|why| {
                    if inner.is_empty() {
                        "the region is not a worksharing loop ('parallel' without 'for')".into()
                    } else {
                        why
                    }
                }),
            }
        } else {
            self.sequence(p, &kids, &inner)
        }
    }

    /// A `parallel` region whose body is only `single` (or `master`) holding only a `taskloop
    /// [simd]` loop: the team runs the loop's iterations as tasks, and the region ends when they
    /// are done (the taskloop's implicit taskgroup, the region's barrier): a worksharing loop, as
    /// far as what the iterations compute goes. Returns the loop's directive as a `for` (its data
    /// clauses kept; the task scheduling clauses, which change no result, dropped) and the loop.
    /// (`par`: the index of the `parallel` directive)
    pub(super) fn taskloop_idiom(&self, par: usize, kids: &[Node]) -> Result<Option<(Pragma, Node)>, String> {
        let kids: Vec<Node> = kids.iter().copied().filter(|k| k.kind() != CXCursor_NullStmt).collect();
        // the two directives after `parallel` (braced or not: a directive is no statement)
        let (si, ti) = (par + 1, par + 2);
        if kids.len() != 1 || ti >= self.cx.pragmas.len() {
            return Ok(None);
        }
        let (sp, tp) = (&self.cx.pragmas[si], &self.cx.pragmas[ti]);
        let single = (sp.is(&["single"]) || sp.is(&["master"]))
            && sp.clauses.iter().all(|c| c.name == "nowait")
            && self.cx.assoc.get(&si).is_some_and(|a| a.0.equals(&kids[0]));
        if !single || !(tp.is(&["taskloop"]) || tp.is(&["taskloop", "simd"])) {
            return Ok(None);
        }
        let body = strip(self.cx.assoc[&si].0);
        let body_kids: Vec<Node> = if body.kind() == CXCursor_CompoundStmt {
            body.children().into_iter().filter(|k| k.kind() != CXCursor_NullStmt).collect()
        } else {
            vec![body]
        };
        let Some(&(lp, _, _)) = self.cx.assoc.get(&ti) else { return Ok(None) };
        if body_kids.len() != 1 || !body_kids[0].equals(&lp) || lp.kind() != CXCursor_ForStmt {
            return Ok(None);
        }
        Ok(Some((taskloop_as_for(tp)?, lp)))
    }

    /// The value of an object-like macro of the file defined as a number (`#define NUM_COLLAPSE 2`).
    fn object_macro_int(&self, name: &str) -> Option<usize> {
        if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
            return None;
        }
        self.cx.text.lines().find_map(|l| {
            let l = l.trim_start().strip_prefix('#')?.trim_start().strip_prefix("define")?;
            let mut w = l.split_whitespace();
            if w.next()? != name {
                return None;
            }
            let v = w.next()?.trim_matches(|c| c == '(' || c == ')').parse::<usize>().ok()?;
            w.next().is_none().then_some(v)
        })
    }

    /// The kernel of one worksharing loop `lp` (kernel id `kid`), with the clauses of its
    /// directives (the `parallel`'s and the `for`'s), or the reason it cannot be one.
    pub(super) fn loop_kernel(
        &mut self,
        kid: usize,
        line: u32,
        clauses: Vec<Pragma>,
        lp: Node,
    ) -> Result<KernelOut, String> {
        // a `target` region's sequential body: one work-item runs it (target.rs)
        let single = self.target_single;
        if lp.kind() != CXCursor_ForStmt && !single {
            return Err("'parallel for' not followed by a for loop".into());
        }
        for c in &clauses {
            if c.clause("linear").is_some() {
                return Err("'linear' is not translated to OpenCL".into());
            }
            if c.clause("ordered").is_some() {
                return Err("'ordered' loops are not translated to OpenCL".into());
            }
            if c.clause("copyin").is_some() {
                return Err("'copyin' (threadprivate data) is not translated to OpenCL".into());
            }
        }
        let cl_list = |n: &str| -> Vec<String> { clauses.iter().flat_map(|c| c.list(n)).collect() };
        let private = cl_list("private");
        let firstprivate = cl_list("firstprivate");
        let lastprivate = cl_list("lastprivate");
        let reductions: Vec<(String, String)> = clauses.iter().flat_map(|c| c.reductions()).collect();
        if let Some((_, x)) = reductions.iter().find(|(_, x)| x.contains('[')) {
            // the common form was split before (interchange.rs); a private copy of an array per
            // work-item is more memory than a GPU has
            return Err(format!("reduction over the array section '{x}' in a form ompcl does not split"));
        }
        let ifcond = clauses.iter().find_map(|c| c.clause("if").and_then(|x| x.arg.clone()));

        let LoopInfo { loopvar, init, body, lb, ub, step, cmp, .. } = if single {
            LoopInfo {
                // SAFETY: clang_getNullCursor takes nothing and returns a value.
                loopvar: Node(unsafe { clang_getNullCursor() }),
                init: lp,
                body: lp,
                lb: "0".into(),
                ub: "1".into(),
                step: "1".into(),
                cmp: CXBinaryOperator_LT,
                in_init: false,
            }
        } else {
            self.parse_loop(lp)?
        };
        // the bytes each iteration touches per pointer, for a region split over several devices
        // (affine.rs `slices`, rt_split.c): from the whole body of the parallel loop
        let slices = if single {
            HashMap::new()
        } else {
            let (os, oe) = body.range();
            let in_outer = |d: &Node| {
                let p = d.loc();
                p.file == os.file && p.off >= os.off && p.off < oe.off
            };
            let privs: HashSet<String> =
                private.iter().chain(&firstprivate).chain(&lastprivate).cloned().collect();
            let is_private = |d: &Node| privs.contains(&d.spelling());
            affine::slices(body, loopvar, &in_outer, &is_private)
        };
        // collapse(n): the n nested loops become one flattened index space when they are
        // rectangular (bounds computable on the host before the loop); else only the outer loop
        // is spread over work-items and the inner loop variables are private, as OpenMP makes them
        let ncollapse = self.collapse_count(&clauses, single)?;
        // inner loops merged into the index space, and the variables of the nest's inner loops
        let (mut collapsed, mut inner_private, mut body) =
            self.collapse_nest(lp, loopvar, body, ncollapse)?;
        // no collapse: when the loop's body is a rectangular loop (after declarations it only
        // reads) whose iterations are independent, work-items take (i, j) pairs (or whole rows if
        // the run-time checks fail: pointers sharing memory, strides that overlap)
        let ibody = body;
        let mut spread = RowSpread::default();
        if ncollapse == 1 && reductions.is_empty() && lastprivate.is_empty() && !single {
            let (s, li) =
                self.row_spread(lp, loopvar, body, (&step, cmp), [&private, &firstprivate, &lastprivate]);
            spread = s;
            if let Some(li) = li {
                inner_private.push(li.loopvar);
                body = li.body;
                collapsed.push(li);
            }
        }
        let RowSpread { auto_flat, checks: spread_checks, mem: spread_mem, tri, prefix, prefix_parts } =
            spread;
        if !collapsed.is_empty() && clauses.iter().any(|c| !c.list("lastprivate").is_empty()) {
            return Err("'lastprivate' with 'collapse' is not translated to OpenCL".into());
        }
        let lvname = loopvar.spelling();
        let lvty = loopvar.ty();
        if !single
            && (!lvty.is_arith()
                || matches!(lvty.canonical().kind(), CXType_Float | CXType_Double | CXType_LongDouble))
        {
            return Err("loop variable is not an integer".into());
        }

        // ---- analyse the body (with the declarations before the inner loop, if any)
        let jbody = body;
        let body = if prefix.is_some() { ibody } else { body };
        let (bs, be) = body.range();
        if bs.file != self.cx.file {
            return Err("loop body comes from a macro or another file".into());
        }
        let (mut bs, be) = (bs.off, self.cx.stmt_end(be.off));
        // a body that is itself an `atomic`/`critical` statement (`for (...)` then `#pragma omp
        // atomic` then `c += 1;`, no braces): the directive's lines belong to it, or the update
        // would be copied without its atomicity
        while let Some(ls) = self
            .cx
            .assoc
            .iter()
            .filter(|(&i, a)| {
                a.1 == bs && matches!(self.cx.pragmas[i].directive[0].as_str(), "atomic" | "critical")
            })
            .map(|(&i, _)| self.cx.pragmas[i].line_start)
            .filter(|&ls| ls < bs)
            .min()
        {
            bs = ls;
        }
        self.check_races(
            body,
            (bs, be),
            loopvar,
            &collapsed,
            [&private, &firstprivate, &lastprivate],
            single,
        )?;
        let mut edits: Vec<Edit> = Vec::new();
        let mut vars: BTreeMap<String, Var> = BTreeMap::new();
        let mut local_ptr_writes = false;
        self.caller = format!("region:{kid}");
        self.team_queries = false;
        self.analyse_code(body, bs, be, &mut vars, &mut edits, &mut local_ptr_writes, true)?;
        let team_queries = std::mem::take(&mut self.team_queries);
        // `simd safelen(k)` without a worksharing loop (`target simd`): iterations more than k
        // apart may depend on each other, so one work-group of at most k work-items runs them in
        // rounds of consecutive iterations, a barrier between rounds
        let words: Vec<&str> = clauses.iter().flat_map(|c| c.directive.iter().map(String::as_str)).collect();
        let safelen = if words.contains(&"simd") && !words.contains(&"for") && !words.contains(&"distribute")
        {
            clauses.iter().find_map(|c| c.clause("safelen").and_then(|x| x.arg.clone()))
        } else {
            None
        };
        if safelen.is_some() && (team_queries || !collapsed.is_empty()) {
            return Err("'simd' with 'safelen' and a collapsed loop or team queries".into());
        }
        if let Some(f) = self.recursive_from(&self.caller.clone()) {
            return Err(format!("recursive function '{f}' (OpenCL has no recursion)"));
        }

        // in a target region, the variables of sequential loops inside the loop body are private
        // (OpenMP 5.0's rule, which GCC applies to C only from 5.0 on: loops written for 4.5
        // offloading rely on it, e.g. `for (k = 0; ...)` with `k` declared before the region)
        let seq_loop_vars = self.target_seq_loop_vars(body);
        let in_sync = !skip_sync_empty(&self.pragmas_in(bs, be), &self.cx.pragmas);
        // classify outside variables
        self.classify_vars(
            &mut vars,
            (loopvar, &collapsed, &inner_private),
            &seq_loop_vars,
            in_sync,
            [&private, &firstprivate, &lastprivate],
            &reductions,
            local_ptr_writes,
        )?;
        // a firstprivate scalar that an iteration may read before writing it carries a value from
        // the thread's earlier iterations (`a = a + i` with firstprivate(a) lastprivate(a)). With
        // `num_threads` the team, and with it the result, is fixed (libgomp's omp-parallel-for: the
        // last of 2 threads' running sum), which one work-item per iteration cannot give; without
        // it the team's size is the implementation's choice, and one iteration per thread is one
        // of the results OpenMP allows
        let fixed_team = clauses.iter().any(|c| c.clause("num_threads").is_some());
        if !single && fixed_team {
            for v in vars.values() {
                let carried = v.kind == VK::FirstPrivate
                    || (v.kind == VK::LastPrivate && firstprivate.contains(&v.name));
                if carried && v.assigned && v.ty.is_arith() {
                    let tracked = HashMap::from([(key_of(&v.decl), v.name.clone())]);
                    if let Some(why) = region_arrays::element_flow(lp, &tracked) {
                        return Err(format!(
                            "firstprivate '{}' carries values between the iterations a thread runs ({why})",
                            v.name
                        ));
                    }
                }
            }
        }
        // the loop variable may also not be referenced in the body
        let lv_outside = init.kind() != CXCursor_DeclStmt;
        let loopvar_after =
            if lv_outside && lastprivate.contains(&lvname) { Some(lvname.clone()) } else { None };

        if self.in_target.is_none() {
            self.row_pointer_edits(&mut vars, body, (bs, be), &mut edits)?;
        }
        self.inout_edits(&vars, body, (bs, be), &mut edits)?;
        let (locks, lock_at) = self.directive_edits(&vars, (bs, be), &mut edits)?;

        // ---- kernel text
        let (mut params, mut host_args) =
            index_space_params(collapsed.len(), auto_flat, team_queries && !single, &clauses);
        let VarCode { setup, privs, reds_pre, reds_post, lp_post } =
            self.var_code(&vars, kid, &firstprivate, &slices, &mut params, &mut host_args)?;
        if let (Some(&(l, c)), true) = (lock_at.first(), self.pending_notes.is_empty()) {
            let msg = format!(
                "{}:{l}:{c}: note: 'critical' section not made of one update runs under a device lock: the region runs on the GPU only where the device guarantees forward progress to diverged work-items (NVIDIA sm_70+; OMPCL_DEVICE_LOCKS=1 forces it), elsewhere on the CPU (threads)",
                self.cx.file
            );
            self.pending_notes.push(msg);
        }
        if !locks.is_empty() {
            // one int per critical name, zeroed by the runtime before each launch
            params.push("__global int *__ompcl_locks".into());
            host_args.push(format!(
                "{{OMPCL_LOCKS, \"critical\", (void*)0, {} * sizeof(int), 0, 0, 0}}",
                locks.len()
            ));
        }
        let lvdecl = if single {
            String::new()
        } else {
            self.types.note(lvty, 0)?;
            self.types.declr(lvty, &lvname)?
        };
        // shared elements kept in registers across inner loops (promote.rs): in the (i, j) branch
        // of row spreading (its checks include ompcl_no_alias), else under a no-alias flag
        let mut fast_edits = Vec::new();
        let mut noalias_flag = false;
        if auto_flat {
            if let Some(mem) = &spread_mem {
                fast_edits = self.promotion_edits(mem, jbody, &edits);
            }
        } else if !single
            && reductions.is_empty()
            && lastprivate.is_empty()
            && lp_post.is_empty()
            && self.pragmas_in(bs, be).is_empty()
            && collapsed.len() <= 2
        {
            fast_edits = self.noalias_promotion(
                body,
                (bs, be),
                loopvar,
                &collapsed,
                [&private, &firstprivate],
                &edits,
            );
            if !fast_edits.is_empty() {
                noalias_flag = true;
                params.push("int __noalias".into());
                host_args
                    .push("{OMPCL_VAL, \"__noalias\", (void*)&__ompcl_noalias, sizeof(int), 0, 0, 0}".into());
            }
        }
        // the code of one iteration
        let IterationText { prefix_text, body_text, pair_prefix_text, fast_text } =
            self.iteration_text(&edits, &fast_edits, (prefix, &prefix_parts), jbody, (bs, be), auto_flat);
        let mut k = String::new();
        let _ = writeln!(
            k,
            "\n/* {}:{} */\n__kernel void ompcl_r{}({}) {{",
            self.cx.file,
            line,
            kid,
            params.join(", ")
        );
        k.push_str(&setup);
        k.push_str(&reds_pre);
        let mut inner = Vec::new();
        // the NDRange: 1 = one dimension (host.rs multiplies flattened collapse counts);
        // 2, 3 = one dimension per loop, the innermost loop fastest (dimension 0); 0 = row
        // spreading: 2 when the run-time checks allow, else 1
        let mut nd = 1;
        let mut strided = false;
        let iter = |body: &str| {
            if noalias_flag {
                format!("    if (__noalias) do {{\n{fast_text}\n    }} while (0);\n    else do {{\n{body}\n    }} while (0);\n")
            } else {
                format!("    do {{\n{body}\n    }} while (0);\n")
            }
        };
        if auto_flat {
            let li = &collapsed[0];
            let ty = li.loopvar.ty();
            self.types.note(ty, 0)?;
            // declared among the declarations before it: assigned, not declared again
            let jname = li.loopvar.spelling();
            let at = li.loopvar.loc().off;
            let jdecl = match prefix {
                Some((ps, pe)) if at >= ps && at < pe => jname.clone(),
                _ => self.types.declr(ty, &jname)?,
            };
            let skip = tri.as_ref().map(|t| t.skip(&lvname, &jname, li.cmp)).unwrap_or_default();
            let pair_i = self.index_expr(lvty, "__lb", "__p1", "__st")?;
            let pair_j = self.index_expr(ty, "__lb1", "get_global_id(0)", "__st1")?;
            let row_i = self.index_expr(lvty, "__lb", "__gid", "__st")?;
            let row_j = self.index_expr(ty, "__lb1", "__jj", "__st1")?;
            nd = 0;
            let _ = write!(
                k,
                "  if (__flat) {{\n  /* (i, j) pairs: j in dimension 0, i in dimension 1 (a loop: the runtime launches at most 65535 groups along it) */\n  if (get_global_id(0) < (ulong)__n1)\n  for (ulong __p1 = get_global_id(1); __p1 < (ulong)__n; __p1 += get_global_size(1)) {{\n    {lvdecl} = {pair_i};\n{privs}{pair_prefix_text}\n    {jdecl} = {pair_j};\n{skip}{}  }}\n  }} else {{\n  /* whole rows */\n  long __gid = (long)get_global_id(0);\n  if (__gid < __n) {{\n    {lvdecl} = {row_i};\n{privs}{prefix_text}\n    for (long __jj = 0; __jj < __n1; __jj++) {{\n    {jdecl} = {row_j};\n{skip}{}    }}\n  }}\n  }}\n",
                iter(&fast_text),
                iter(&body_text)
            );
            let (lb1, ub1) = match &tri {
                Some(t) => t.hull(&li.lb, &li.ub),
                None => (li.lb.clone(), li.ub.clone()),
            };
            inner.push((lb1, ub1, li.step.clone(), li.cmp));
            // a triangle's rows do unequal work (its inner trip count, affine in i): the runtime
            // cuts the rows into chunks of equal work when it splits them over devices
            if let Some(t) = &tri {
                let c = t.c;
                let (wa, wb) = if t.lower {
                    ("-1", format!("(long long)({}) - ({c}LL)", li.ub))
                } else {
                    ("1", format!("({c}LL) - (long long)({})", li.lb))
                };
                host_args
                    .push(format!("{{OMPCL_WORK, \"work\", (void*)0, 0, 0, 0, 0, 0, {wa}, 0, {wb}, 0}}"));
            }
        } else if single {
            // a sequential target body: one work-item runs it
            k.push_str("  long __gid = (long)get_global_id(0);\n  if (__gid < __n) {\n");
            k.push_str(&privs);
            k.push_str(&iter(&body_text));
            k.push_str("  }\n");
        } else if collapsed.is_empty() {
            if !reds_post.is_empty() {
                k.push_str("  uint __l = (uint)get_local_id(0);\n");
            }
            if let Some(k_len) = &safelen {
                let _ = writeln!(
                    k,
                    "  /* safelen({k_len}): rounds of get_local_size(0) <= {k_len} consecutive iterations */\n  for (long __r = 0; __r < __n; __r += (long)get_local_size(0)) {{\n  long __gid = __r + (long)get_local_id(0);\n  if (__gid < __n) {{\n    {lvdecl} = {};",
                    self.index_expr(lvty, "__lb", "__gid", "__st")?
                );
                k.push_str(&privs);
                k.push_str(&iter(&body_text));
                k.push_str(&lp_post);
                k.push_str("  }\n  barrier(CLK_GLOBAL_MEM_FENCE);\n  }\n");
            } else if team_queries {
                let set = format!("    {lvdecl} = {};\n", self.index_expr(lvty, "__lb", "__gid", "__st")?);
                k.push_str(&league_loop(&clauses, &privs, &set, &iter(&body_text), &lp_post));
            } else if !reds_post.is_empty() && lp_post.is_empty() && locks.is_empty() {
                // a reduction: each work-item runs iterations a global size apart, so the
                // runtime launches a few groups per compute unit (OMPCL_HINT_STRIDE) rather than
                // one iteration per work-item, and a work-group's tree and partial sum several
                // thousand iterations (ptxgen's stride pass keeps four loads in flight)
                strided = true;
                let _ = writeln!(
                    k,
                    "  for (long __gid = (long)get_global_id(0); __gid < __n; __gid += (long)get_global_size(0)) {{\n    {lvdecl} = {};",
                    self.index_expr(lvty, "__lb", "__gid", "__st")?
                );
                k.push_str(&privs);
                k.push_str(&iter(&body_text));
                k.push_str("  }\n");
            } else {
                let _ = writeln!(
                    k,
                    "  long __gid = (long)get_global_id(0);\n  if (__gid < __n) {{\n    {lvdecl} = {};",
                    self.index_expr(lvty, "__lb", "__gid", "__st")?
                );
                k.push_str(&privs);
                k.push_str(&iter(&body_text));
                k.push_str(&lp_post);
                k.push_str("  }\n");
            }
        } else if team_queries && !single {
            // a league over a collapsed nest: the flattened iteration number, as below, taken
            // from the league's schedule
            if !reds_post.is_empty() {
                k.push_str("  uint __l = (uint)get_local_id(0);\n");
            }
            let mut set = String::from("    long __rem = __gid;\n");
            set.push_str(&self.collapsed_indices(&collapsed, &mut inner)?);
            let _ = writeln!(set, "    {lvdecl} = ({})(__lb + __rem * __st);", self.types.base(lvty)?);
            k.push_str(&league_loop(&clauses, &privs, &set, &iter(&body_text), &lp_post));
        } else if collapsed.len() <= 2 && reds_post.is_empty() && lp_post.is_empty() {
            // one NDRange dimension per loop: no division, neighbouring work-items take
            // neighbouring iterations of the innermost loop
            // dimensions above 0 are loops: the runtime launches at most 65535 groups along them
            // (CUDA's grid limit in y and z), each work-item then takes several
            nd = collapsed.len() + 1;
            let innermost = collapsed.len();
            let mut open = format!("  if (get_global_id(0) < (ulong)__n{innermost})\n");
            let mut assigns = String::new();
            for lvl in 0..nd {
                // lvl 0: the parallel loop (dimension nd - 1) ... lvl nd - 1: the innermost (0)
                let dim = nd - 1 - lvl;
                let (n, lb, st) = if lvl == 0 {
                    ("__n".to_string(), "__lb".to_string(), "__st".to_string())
                } else {
                    (format!("__n{lvl}"), format!("__lb{lvl}"), format!("__st{lvl}"))
                };
                let id = if dim == 0 { "get_global_id(0)".to_string() } else { format!("__p{dim}") };
                if dim > 0 {
                    let _ = writeln!(
                        open,
                        "  for (ulong __p{dim} = get_global_id({dim}); __p{dim} < (ulong){n}; __p{dim} += get_global_size({dim}))"
                    );
                }
                let (ty, d) = if lvl == 0 {
                    (lvty, lvdecl.clone())
                } else {
                    let li = &collapsed[lvl - 1];
                    let ty = li.loopvar.ty();
                    self.types.note(ty, 0)?;
                    inner.push((li.lb.clone(), li.ub.clone(), li.step.clone(), li.cmp));
                    (ty, self.types.declr(ty, &li.loopvar.spelling())?)
                };
                let _ = writeln!(assigns, "    {d} = {};", self.index_expr(ty, &lb, &id, &st)?);
            }
            let _ = write!(k, "{open}  {{\n{assigns}");
            k.push_str(&privs);
            k.push_str(&iter(&body_text));
            k.push_str("  }\n");
        } else {
            // flattened index: gid = ((i0 * n1) + i1) * n2 + i2 ...
            k.push_str("  long __gid = (long)get_global_id(0);\n");
            if !reds_post.is_empty() {
                k.push_str("  uint __l = (uint)get_local_id(0);\n");
            }
            k.push_str("  if (__gid < __n) {\n    long __rem = __gid;\n");
            let assigns = self.collapsed_indices(&collapsed, &mut inner)?;
            k.push_str(&assigns);
            let _ = writeln!(k, "    {lvdecl} = ({})(__lb + __rem * __st);", self.types.base(lvty)?);
            k.push_str(&privs);
            k.push_str(&iter(&body_text));
            k.push_str(&lp_post);
            k.push_str("  }\n");
        }
        k.push_str(&reds_post);
        k.push_str("}\n");
        // a `target parallel` whose body every thread runs (no worksharing inside): one team of
        // threads, a work-group, each work-item running the body once
        let spmd = single && self.target_spmd;
        let mut ub = ub;
        let teams =
            if team_queries || spmd { league_shape(&clauses, single, spmd, &mut k, &mut ub) } else { None };
        let teams = match &safelen {
            Some(k_len) if !single => Some(("1".to_string(), format!("(long long)({k_len})"))),
            _ => teams,
        };
        let light = work_item_is_light(body);
        // chunks of the outer loop may run on different devices (rt_split.c) when the kernel
        // takes its loop variable as `lb + id * st` for `id < n` (not a flattened collapse, a
        // league or rounds of safelen) and the loop holds no directive (atomic, critical,
        // ordered: their effects cross iterations); the runtime checks the data
        let nosplit = self.split_refusal(
            lp,
            single,
            teams.is_some(),
            !locks.is_empty(),
            !collapsed.is_empty() && nd == 1,
        );
        let split = nosplit.is_none();
        if let Some(why) = nosplit {
            // the reason, for the profile (no kernel argument)
            host_args.push(format!("{{OMPCL_NOTE, \"{why}\", (void*)0, 0, 0, 0, 0}}"));
        }
        Ok(KernelOut {
            split,
            strided,
            code: k,
            host_args,
            ready_args: None,
            loopvar_after,
            lb,
            ub,
            step,
            cmp,
            ifcond,
            inner,
            auto_flat,
            light,
            nd,
            spread_checks,
            noalias_flag,
            teams,
        })
    }

    /// Phase of `loop_kernel`: refuses a loop whose iterations all write one shared element (an
    /// index that does not follow the loop variables): a data race in the program, whose result
    /// depends on the schedule, so no kernel can reproduce it. What only one thread or one
    /// iteration runs (`if (i == 0)`, in a target region `if (omp_get_thread_num() == 0)`) and the
    /// updates of `atomic`/`critical` are skipped. `(bs, be)`: the body's bytes; `privs`: the
    /// private, firstprivate and lastprivate lists.
    fn check_races(
        &self,
        body: Node,
        (bs, be): (usize, usize),
        loopvar: Node,
        collapsed: &[LoopInfo],
        [private, firstprivate, lastprivate]: [&[String]; 3],
        single: bool,
    ) -> Result<(), String> {
        let mut par_vars = vec![loopvar];
        par_vars.extend(collapsed.iter().map(|li| li.loopvar));
        let skip: Vec<(usize, usize)> = self
            .pragmas_in(bs, be)
            .into_iter()
            .filter(|&i| matches!(self.cx.pragmas[i].directive[0].as_str(), "atomic" | "critical"))
            .filter_map(|i| self.cx.assoc.get(&i).map(|a| (a.1, a.2)))
            .collect();
        // in a target region, what one thread of the league runs (`if (omp_get_team_num() ==
        // 0 && omp_get_thread_num() == 0) ...`, SOLLVE's way of recording where it ran) is
        // no race: the kernel's team and thread numbers are those of one work-item (a
        // league kernel, see below)
        let mut skip = skip;
        // what one iteration runs (`if (i == 0) flag[0] = ...`, `i` the loop variable) is
        // no race either
        let lv_key = key_of(&loopvar);
        body.walk(&mut |c| {
            if c.kind() != CXCursor_IfStmt || !collapsed.is_empty() {
                return;
            }
            let ch = c.children();
            let (Some(cond), Some(then)) = (ch.first(), ch.get(1)) else { return };
            let cond = strip(*cond);
            if cond.kind() != CXCursor_BinaryOperator || cond.binop() != CXBinaryOperator_EQ {
                return;
            }
            let is_lv = |n: &Node| {
                let n = strip(*n);
                n.kind() == CXCursor_DeclRefExpr && n.referenced().is_some_and(|d| key_of(&d) == lv_key)
            };
            let uses_lv = |n: &Node| {
                let mut u = is_lv(n);
                n.walk(&mut |x| u |= is_lv(&x));
                u
            };
            let sides = cond.children();
            if sides.len() == 2
                && ((is_lv(&sides[0]) && !uses_lv(&sides[1])) || (is_lv(&sides[1]) && !uses_lv(&sides[0])))
            {
                let (s, e) = then.range();
                skip.push((s.off, self.cx.stmt_end(e.off)));
            }
        });
        if self.in_target.is_some() {
            body.walk(&mut |c| {
                if c.kind() != CXCursor_IfStmt {
                    return;
                }
                let ch = c.children();
                let (Some(cond), Some(then)) = (ch.first(), ch.get(1)) else { return };
                let mut one = false;
                let mut check = |n: Node| {
                    if n.kind() == CXCursor_CallExpr
                        && matches!(n.spelling().as_str(), "omp_get_thread_num" | "omp_get_team_num")
                    {
                        one = true;
                    }
                };
                check(*cond);
                cond.walk(&mut check);
                if one {
                    let (s, e) = then.range();
                    skip.push((s.off, self.cx.stmt_end(e.off)));
                }
            });
        }
        let file = self.cx.file.clone();
        // the loop's locals and its private copies (private, firstprivate, lastprivate)
        let privs: HashSet<String> = private.iter().chain(firstprivate).chain(lastprivate).cloned().collect();
        let local = |d: &Node| {
            let p = d.loc();
            (p.file == file && p.off >= bs && p.off < be) || privs.contains(&d.spelling())
        };
        if let Some(a) = races::racy_write(body, &par_vars, &skip, &local).filter(|_| !single) {
            return Err(format!(
                "every iteration writes '{a}[...]' at an index that does not depend on the loop variable (a data race in the program: its result depends on the schedule)"
            ));
        }
        Ok(())
    }

    /// Phase of `loop_kernel`: in a target region, the variables of the sequential loops inside
    /// the loop body (keys: `key_of`), which the kernel makes private (OpenMP 5.0's rule, which
    /// GCC applies to C only from 5.0 on: loops written for 4.5 offloading rely on it, e.g.
    /// `for (k = 0; ...)` with `k` declared before the region). Empty outside target regions.
    fn target_seq_loop_vars(&self, body: Node) -> HashSet<String> {
        let mut seq_loop_vars: HashSet<String> = HashSet::new();
        if self.in_target.is_some() {
            // (the body itself may be such a loop: a collapsed nest's innermost body)
            let mut nodes = vec![body];
            body.walk(&mut |c| nodes.push(c));
            for c in nodes {
                if c.kind() != CXCursor_ForStmt {
                    continue;
                }
                let Some(init) = c.children().first().map(|n| strip(*n)) else { continue };
                if init.kind() == CXCursor_BinaryOperator && init.binop() == CXBinaryOperator_Assign {
                    if let Some(lhs) = init.children().first().map(|n| strip(*n)) {
                        if lhs.kind() == CXCursor_DeclRefExpr {
                            if let Some(d) = lhs.referenced() {
                                seq_loop_vars.insert(key_of(&d));
                            }
                        }
                    }
                }
            }
        }
        seq_loop_vars
    }

    /// Phase of `loop_kernel`: the class of each variable the body uses from outside it (loop
    /// variable, private, firstprivate, lastprivate, reduction, or shared: a buffer, a temporary
    /// array, a scalar copied in and out, or a value), from the clauses and OpenMP's implicit
    /// rules, which decides how the kernel receives it; or the reason the loop cannot be a kernel
    /// (a shared pointer assigned, a threadprivate variable, a name OpenCL reserves...).
    /// `nest`: the parallel loop's variable, the collapsed loops, and the variables of the inner
    /// loops that are private.
    #[allow(clippy::too_many_arguments)]
    fn classify_vars(
        &mut self,
        vars: &mut BTreeMap<String, Var>,
        (loopvar, collapsed, inner_private): (Node, &[LoopInfo], &[Node]),
        seq_loop_vars: &HashSet<String>,
        in_sync: bool,
        [private, firstprivate, lastprivate]: [&[String]; 3],
        reductions: &[(String, String)],
        local_ptr_writes: bool,
    ) -> Result<(), String> {
        for (_, v) in vars.iter_mut() {
            let n = v.name.as_str();
            if v.decl.equals(&loopvar) || collapsed.iter().any(|li| li.loopvar.equals(&v.decl)) {
                v.kind = VK::LoopVar;
            } else if (inner_private.iter().any(|d| d.equals(&v.decl)) && !lastprivate.iter().any(|x| x == n))
                || (!in_sync
                    && seq_loop_vars.contains(&key_of(&v.decl))
                    && !v.global
                    && v.ty.is_arith()
                    && !reductions.iter().any(|(_, x)| x == n)
                    && !lastprivate.iter().any(|x| x == n)
                    && !firstprivate.iter().any(|x| x == n)
                    && !self.target_scalars_out.as_ref().is_some_and(|(all, f, _)| *all || f.contains(n)))
            {
                v.kind = VK::Private;
            } else if reductions.iter().any(|(_, x)| x == n) {
                if v.ty.is_array() {
                    return Err(format!("reduction over the array '{n}' in a form ompcl does not split"));
                }
                if !v.ty.is_arith() {
                    return Err(format!("reduction over '{n}' of type '{}'", v.ty.spelling()));
                }
                v.kind = VK::Reduction;
                v.red_op = reductions.iter().find(|(_, x)| x == n).unwrap().0.clone();
            } else if lastprivate.iter().any(|x| x == n) {
                if v.ty.canonical().kind() == CXType_Pointer {
                    // its last value would be a device address
                    return Err(format!("lastprivate pointer '{n}'"));
                }
                v.kind = VK::LastPrivate;
            } else if private.iter().any(|x| x == n) {
                v.kind = VK::Private;
            } else if firstprivate.iter().any(|x| x == n) {
                v.kind = if v.ty.canonical().kind() == CXType_Pointer {
                    // a copy of the host's pointer: the kernel gets the memory it points into,
                    // as for a shared pointer (each work-item's variable starts at it); a copy
                    // moved inside the loop would make the accesses' slices unknown
                    if v.assigned {
                        return Err(format!("firstprivate pointer '{n}' is assigned inside the loop"));
                    }
                    VK::Buf
                } else {
                    VK::FirstPrivate
                };
            } else if self.cx.threadprivate.contains(n) {
                return Err(format!("threadprivate variable '{n}' is not translated to OpenCL"));
            } else {
                let c = v.ty.canonical();
                v.kind = match c.kind() {
                    CXType_Pointer => {
                        if v.assigned {
                            return Err(format!("shared pointer '{n}' is assigned inside the loop"));
                        }
                        VK::Buf
                    }
                    CXType_ConstantArray | CXType_IncompleteArray | CXType_VariableArray => {
                        // a variable-length outer dimension is a pointer to rows; variable
                        // inner dimensions have no OpenCL type
                        let mut inner = c.elem();
                        let mut variable_inner = false;
                        while inner.is_array() {
                            variable_inner |= inner.canonical().kind() == CXType_VariableArray;
                            inner = inner.canonical().elem();
                        }
                        if variable_inner {
                            return Err(format!("multi-dimensional variable-length array '{n}'"));
                        }
                        // an array parameter is a pointer (`float C[N][M]` is `float (*C)[M]`):
                        // its block is found in the allocation table, never sized by `sizeof`
                        if self.in_target.is_some() && !v.global && v.decl.kind() != CXCursor_ParmDecl {
                            // in a `target` region a local array is mapped (explicitly or
                            // implicitly): the runtime's present table knows its block
                            let w = v.written_through || v.assigned || local_ptr_writes;
                            if let Some(t) = self.in_target.as_mut() {
                                t.push((n.to_string(), w));
                            }
                            VK::Buf
                        } else if v.global
                            || c.kind() == CXType_IncompleteArray
                            || v.decl.kind() == CXCursor_ParmDecl
                        {
                            VK::Buf
                        } else {
                            VK::TmpArr
                        }
                    }
                    CXType_Record => VK::Inout,
                    _ if v.assigned => VK::Inout,
                    _ => VK::ByValue,
                };
            }
            if CL_RESERVED.contains(&n) {
                return Err(format!("variable name '{n}' is reserved in OpenCL C"));
            }
            if local_ptr_writes && matches!(v.kind, VK::Buf | VK::TmpArr) {
                v.written_through = true;
            }
        }
        Ok(())
    }

    /// Phase of `loop_kernel`: rewrites each reference to a variable the kernel receives in a
    /// buffer (a scalar or struct copied in and out) as `(*x)`, so the body reads and writes the
    /// buffer; a reference spelled inside a macro cannot be rewritten and refuses the loop.
    /// `(bs, be)`: the body's bytes.
    fn inout_edits(
        &self,
        vars: &BTreeMap<String, Var>,
        body: Node,
        (bs, be): (usize, usize),
        edits: &mut Vec<Edit>,
    ) -> Result<(), String> {
        let inout: HashSet<String> =
            vars.values().filter(|v| v.kind == VK::Inout).map(|v| key_of(&v.decl)).collect();
        if !inout.is_empty() {
            for d in decl_refs(body) {
                let Some(r) = d.referenced() else { continue };
                let at = d.range().0.off;
                if self.member_ptr_ranges.iter().any(|&(a, b)| at >= a && at < b) {
                    continue; // inside `s.p`, which the kernel takes as a pointer of its own
                }
                if inout.contains(&key_of(&r)) {
                    let ps = d.loc_spelling();
                    let name = r.spelling();
                    if ps.file != self.cx.file
                        || !self.cx.text[ps.off..].starts_with(&name)
                        || ps.off < bs
                        || ps.off >= be
                    {
                        return Err(format!("shared variable '{name}' used inside a macro"));
                    }
                    edits.push(Edit { start: ps.off, end: ps.off + name.len(), text: format!("(*{name})") });
                }
            }
        }
        Ok(())
    }

    /// Phase of `loop_kernel`: the edits for the directives inside the loop body: `flush` and a
    /// plain `simd` vanish, `atomic`/`critical` become OpenCL atomics (analysis.rs) or, for a
    /// `critical` that is not one update, a device lock (critical.rs), a nested `parallel` runs
    /// with the work-item as its only thread; any other directive refuses the loop. Returns the
    /// names of the device-locked criticals and where they are.
    #[allow(clippy::type_complexity)]
    fn directive_edits(
        &mut self,
        vars: &BTreeMap<String, Var>,
        (bs, be): (usize, usize),
        edits: &mut Vec<Edit>,
    ) -> Result<(Vec<String>, Vec<(u32, u32)>), String> {
        let buffers: HashSet<String> = vars
            .values()
            .filter(|v| matches!(v.kind, VK::Buf | VK::TmpArr | VK::Inout))
            .map(|v| key_of(&v.decl))
            .collect();
        let mut locks: Vec<String> = Vec::new(); // names of the device-locked criticals
        let mut lock_at: Vec<(u32, u32)> = Vec::new(); // where they are
        for pi in self.pragmas_in(bs, be) {
            let pp = self.cx.pragmas[pi].clone();
            let d0 = pp.directive[0].as_str();
            match d0 {
                "flush" => edits.push(Edit { start: pp.line_start, end: pp.end, text: String::new() }),
                // a loop a work-item runs: its iterations in order are one of simd's executions
                "simd"
                    if pp.is(&["simd"])
                        && pp
                            .clauses
                            .iter()
                            .all(|c| matches!(c.name.as_str(), "safelen" | "simdlen" | "aligned")) =>
                {
                    edits.push(Edit { start: pp.line_start, end: pp.end, text: String::new() })
                }
                "atomic" | "critical" => {
                    let Some(&(st, _ss, se)) = self.cx.assoc.get(&pi) else {
                        return Err(format!("'{d0}' without a statement"));
                    };
                    // a `critical` that is not one update runs under a device lock (the region
                    // then needs a device with independent thread scheduling: decided at run time)
                    let ed = match self.atomic_edit(&pp, st, se, edits, &buffers) {
                        Ok(ed) => ed,
                        Err(_) if d0 == "critical" => {
                            lock_at.push((pp.line, pp.col));
                            self.lock_edit(&pp, st, se, edits, &mut locks)?
                        }
                        Err(why) => return Err(why),
                    };
                    edits.push(ed);
                }
                // a `parallel` region inside an iteration (SOLLVE's thread_limit test: `if
                // (omp_get_team_num() == 0)` then `parallel` asking its team's size): it runs
                // with one thread, the work-item (the device's dyn-var is true: a region may get
                // fewer threads than it asks for), so its thread queries are 0 and 1; inside it
                // only what one thread needs no team for (atomic, critical, flush)
                "parallel"
                    if pp.is(&["parallel"])
                        && pp.clauses.iter().all(|c| {
                            matches!(
                                c.name.as_str(),
                                "num_threads" | "if" | "shared" | "default" | "proc_bind"
                            )
                        }) =>
                {
                    let Some(&(st, _, se)) = self.cx.assoc.get(&pi) else {
                        return Err("'parallel' without a statement".into());
                    };
                    edits.push(Edit { start: pp.line_start, end: pp.end, text: String::new() });
                    for c in std::iter::once(st).chain(nodes_of(st)) {
                        let v = match c.spelling().as_str() {
                            "omp_get_thread_num" => "0",
                            "omp_get_num_threads" => "1",
                            _ => continue,
                        };
                        if c.kind() != CXCursor_CallExpr {
                            continue;
                        }
                        let (cs, ce) = c.range();
                        if cs.file != self.cx.file
                            || ce.off > se
                            || !self.cx.text[cs.off..].starts_with("omp_")
                        {
                            return Err("a thread query of a nested 'parallel' inside a macro".into());
                        }
                        edits.push(Edit { start: cs.off, end: ce.off, text: format!("({v})") });
                    }
                }
                _ => return Err(format!("'{}' inside the loop is not translated to OpenCL", pp.name())),
            }
        }
        Ok((locks, lock_at))
    }

    /// Phase of `loop_kernel`: how the kernel receives each variable of the body, by its class
    /// (`classify_vars`): the kernel parameters and the host's argument descriptors for the
    /// runtime (pushed on `params` and `host_args`), and the kernel code that sets the variables
    /// up (`VarCode`): buffer pointers, private copies, the work-group trees of reductions, the
    /// copies out of lastprivate values.
    fn var_code(
        &mut self,
        vars: &BTreeMap<String, Var>,
        kid: usize,
        firstprivate: &[String],
        slices: &HashMap<String, affine::Slice>,
        params: &mut Vec<String>,
        host_args: &mut Vec<String>,
    ) -> Result<VarCode, String> {
        let mut setup = String::new();
        let mut privs = String::new();
        let mut reds_pre = String::new();
        let mut reds_post = String::new();
        let mut lp_post = String::new();
        for v in vars.values() {
            let n = &v.name;
            let w = v.written_through || v.assigned;
            self.types.note(v.ty, 0).map_err(|e| format!("variable '{n}': {e}"))?;
            match v.kind {
                VK::LoopVar => {}
                VK::Private => {
                    let _ = writeln!(privs, "    {};", self.types.declr(v.ty, n)?);
                }
                VK::LastPrivate | VK::FirstPrivate if v.ty.is_array() => {
                    // a private copy of a fixed-size array: a firstprivate one starts as a copy of
                    // the original, the work-item of a lastprivate one's last iteration copies it
                    // back; the original is passed as a shared array would be (mapped in a target
                    // region, so a copy present on the device is the one read and written)
                    if v.ty.canonical().kind() != CXType_ConstantArray || v.decl.kind() == CXCursor_ParmDecl {
                        let what = if v.kind == VK::LastPrivate { "lastprivate" } else { "firstprivate" };
                        return Err(format!("{what} array '{n}' of variable length (or a parameter)"));
                    }
                    let last = v.kind == VK::LastPrivate;
                    let first = !last || firstprivate.iter().any(|x| x == n);
                    let _ = self.global_array_space(v, kid, last);
                    let (kind, size) = if v.global {
                        ("OMPCL_BUF", "0".to_string())
                    } else if let Some(t) = self.in_target.as_mut() {
                        t.push((n.to_string(), last));
                        ("OMPCL_BUF", "0".to_string())
                    } else {
                        ("OMPCL_TMP", format!("sizeof({n})"))
                    };
                    params.push(format!("__global char *{n}__b"));
                    params.push(format!("long {n}__o"));
                    host_args.push(format!(
                        "{{{kind}, \"{n}\", (void*)({n}), {size}, {}, 0, 1}}",
                        i32::from(last)
                    ));
                    let _ = writeln!(privs, "    {};", self.types.declr(v.ty, n)?);
                    if first {
                        let _ = writeln!(
                            privs,
                            "    {{ __global const char *__fs = {n}__b + {n}__o; __private char *__fd = (__private char *){n}; for (ulong __q = 0; __q < sizeof({n}); __q++) __fd[__q] = __fs[__q]; }}"
                        );
                    }
                    if last {
                        let _ = writeln!(
                            lp_post,
                            "    if (__gid == __n - 1) {{ __global char *__ld = {n}__b + {n}__o; __private const char *__ls = (__private const char *){n}; for (ulong __q = 0; __q < sizeof({n}); __q++) __ld[__q] = __ls[__q]; }}"
                        );
                    }
                }
                VK::LastPrivate => {
                    if firstprivate.iter().any(|x| x == n) {
                        // firstprivate too: each work-item starts from the host value
                        params.push(self.types.declr(v.ty, &format!("{n}__fp"))?);
                        host_args.push(format!("{{OMPCL_VAL, \"{n}\", (void*)&{n}, sizeof({n}), 0, 0, 0}}"));
                        let _ = writeln!(privs, "    {} = {n}__fp;", self.types.declr(v.ty, n)?);
                    } else {
                        let _ = writeln!(privs, "    {};", self.types.declr(v.ty, n)?);
                    }
                    params.push(format!(
                        "__global {}",
                        self.types.declr(v.ty, &format!("*{n}__lp"))?.trim_start_matches("__global ")
                    ));
                    host_args.push(format!("{{OMPCL_LASTP, \"{n}\", (void*)&{n}, sizeof({n}), 0, 0, 0}}"));
                    let _ = writeln!(lp_post, "    if (__gid == __n - 1) *{n}__lp = {n};");
                }
                VK::FirstPrivate | VK::ByValue => {
                    if v.ty.is_array() {
                        return Err(format!("array '{n}' passed by value"));
                    }
                    if v.ty.canonical().kind() == CXType_Bool {
                        return Err(format!("_Bool variable '{n}' cannot be a kernel argument"));
                    }
                    params.push(self.types.declr(v.ty, n)?);
                    host_args.push(format!("{{OMPCL_VAL, \"{n}\", (void*)&{n}, sizeof({n}), 0, 0, 0}}"));
                }
                VK::Reduction => {
                    let c = v.ty.canonical();
                    let (tcode, tname) = match c.kind() {
                        CXType_Int | CXType_Enum => (1, "int"),
                        CXType_UInt => (2, "uint"),
                        CXType_Long | CXType_LongLong => (3, "long"),
                        CXType_ULong | CXType_ULongLong => (4, "ulong"),
                        CXType_Float => (5, "float"),
                        CXType_Double => (6, "double"),
                        // narrow integers: the private copies, the work-group tree and the partials
                        // in the variable's own type (every step converts back, as C's does)
                        CXType_Char_S | CXType_SChar => (7, "char"),
                        CXType_Char_U | CXType_UChar => (8, "uchar"),
                        CXType_Short => (9, "short"),
                        CXType_UShort => (10, "ushort"),
                        _ => return Err(format!("reduction variable '{n}' of type '{}'", v.ty.spelling())),
                    };
                    let (ocode, ident, comb) = match v.red_op.as_str() {
                        "+" => (1, "0", "+"),
                        "*" => (2, "1", "*"),
                        "-" => (3, "0", "+"),
                        "&" => (4, "~0", "&"),
                        "|" => (5, "0", "|"),
                        "^" => (6, "0", "^"),
                        "&&" => (7, "1", "&&"),
                        "||" => (8, "0", "||"),
                        // private copies start at the original value (max(x0, max(x0, v...)) =
                        // max(x0, v...)), passed by value after the partials
                        "max" => (9, "", ">"),
                        "min" => (10, "", "<"),
                        o => return Err(format!("reduction operator '{o}'")),
                    };
                    if matches!(tcode, 5 | 6) && matches!(ocode, 4..=6) {
                        return Err(format!("bitwise reduction on floating '{n}'"));
                    }
                    let ident = if matches!(tcode, 5 | 6) && ident == "~0" { "0" } else { ident };
                    params.push(format!("__global {tname} *{n}__part"));
                    host_args.push(format!(
                        "{{OMPCL_RED, \"{n}\", (void*)&{n}, sizeof({n}), 0, {tcode}, {ocode}}}"
                    ));
                    let ident = if ocode >= 9 {
                        params.push(format!("{tname} {n}__init"));
                        host_args.push(format!("{{OMPCL_VAL, \"{n}\", (void*)&{n}, sizeof({n}), 0, 0, 0}}"));
                        format!("{n}__init")
                    } else {
                        ident.to_string()
                    };
                    let combine = |a: &str, b: &str| {
                        if ocode >= 9 {
                            format!("({a} {comb} {b} ? {a} : {b})")
                        } else {
                            format!("{a} {comb} {b}")
                        }
                    };
                    let step = combine(&format!("{n}__loc[__l]"), &format!("{n}__loc[__l + __s]"));
                    // the work-group's scratch: static local memory (work-groups are at most 128)
                    let _ = writeln!(
                        reds_pre,
                        "  __local {tname} {n}__loc[128];\n  {tname} {n} = ({tname})({ident});"
                    );
                    let _ = write!(
                        reds_post,
                        "  {n}__loc[__l] = {n};\n  barrier(CLK_LOCAL_MEM_FENCE);\n  for (uint __s = (uint)get_local_size(0) >> 1; __s > 0; __s >>= 1) {{\n    if (__l < __s) {n}__loc[__l] = {step};\n    barrier(CLK_LOCAL_MEM_FENCE);\n  }}\n  if (__l == 0) {n}__part[get_group_id(0)] = {n}__loc[0];\n"
                    );
                }
                VK::Rows => self.row_table_params(v, params, host_args)?,
                VK::Buf | VK::TmpArr | VK::Inout => {
                    // pointer to the element (arrays), the pointee (pointers) or the object itself
                    let c = v.ty.canonical();
                    // a global array the device code only reads may be a __constant parameter
                    // (decided for the whole file at the end: see constant.rs)
                    let space = self.global_array_space(v, kid, w);
                    let (decl, cast) = if c.kind() == CXType_Pointer {
                        (self.types.declr(v.ty, n)?, self.types.declr(v.ty, "")?)
                    } else if v.ty.is_array() {
                        let e = c.elem();
                        let inner_n = if e.is_array() { format!("(*{n})") } else { format!("*{n}") };
                        let inner_c = if e.is_array() { "(*)".to_string() } else { "*".to_string() };
                        (
                            format!("{space} {}", self.types.declr(e, &inner_n)?),
                            format!("{space} {}", self.types.declr(e, &inner_c)?),
                        )
                    } else {
                        (
                            format!("__global {}", self.types.declr(v.ty, &format!("*{n}"))?),
                            format!("__global {}", self.types.declr(v.ty, "*")?),
                        )
                    };
                    params.push(format!("{space} char *{n}__b"));
                    params.push(format!("long {n}__o"));
                    let _ = writeln!(setup, "  {decl} = ({cast})({n}__b + {n}__o);");
                    let addr = if c.kind() == CXType_Pointer || v.ty.is_array() {
                        format!("(void*)({})", v.host.as_deref().unwrap_or(n))
                    } else {
                        format!("(void*)&{n}")
                    };
                    let (kind, size) = if v.kind == VK::TmpArr || (v.kind == VK::Inout && !v.global) {
                        ("OMPCL_TMP", format!("sizeof({n})"))
                    } else {
                        ("OMPCL_BUF", "0".to_string())
                    };
                    let konst = if space == "__global" { "0".to_string() } else { konst_flag(n) };
                    // an array object (not a pointer) lies inside its block: never one past the end
                    // of another one (rop = 1 for the runtime)
                    // (for a local scalar or struct copied in and out, rop = 1 says that no pointer
                    // one past its end belongs to it: libgomp's target-18 points one at the next
                    // local on the stack)
                    let inside = i32::from(
                        (v.ty.is_array() && v.decl.kind() != CXCursor_ParmDecl)
                            || (kind == "OMPCL_TMP" && !v.ty.is_array()),
                    );
                    // a target region's local scalars are firstprivate unless a map clause names them
                    // (or `defaultmap(tofrom: scalar)`); structs, like arrays, are mapped `tofrom`
                    // when none does (OpenMP 4.5 2.15.5). What the region writes comes back when
                    // it is mapped with `to`/`from` here (target.rs says why `to`), or was present
                    // before (an enclosing construct may copy it out at its end: as the host keeps
                    // no second copy, at once); `map(alloc: x)` alone leaves the host's x as it was
                    let back = match &self.target_scalars_out {
                        Some((all, named, from)) if v.kind == VK::Inout && !v.global => {
                            let dflt = from.contains(n) || (!named.contains(n) && (v.ty.is_record() || *all));
                            if !w {
                                "0".to_string()
                            } else if named.contains(n) || v.ty.is_record() {
                                format!("ompcl_scalar_back((void*)&{n}, sizeof({n}), {})", i32::from(dflt))
                            } else {
                                i32::from(dflt).to_string()
                            }
                        }
                        _ => i32::from(w).to_string(),
                    };
                    // the bytes an iteration touches through it (for a split over several devices)
                    let slice = match slices.get(&key_of(&v.decl)) {
                        Some(sl) if kind == "OMPCL_BUF" && v.host.is_none() => {
                            format!(", 1, {}, {}, {}, {}", sl.alo, sl.ahi, sl.lo, sl.hi)
                        }
                        _ => String::new(),
                    };
                    host_args.push(format!(
                        "{{{kind}, \"{n}\", {addr}, {size}, {back}, {konst}, {inside}{slice}}}"
                    ));
                }
            }
        }
        Ok(VarCode { setup, privs, reds_pre, reds_post, lp_post })
    }

    /// Phase of `loop_kernel`: why chunks of the outer loop may not run on different devices
    /// (rt_split.c), or None when they may: the kernel must take its loop variable as `lb + id *
    /// st` for `id < n` (not a flattened collapse, `flat_collapse`, a league or rounds of
    /// safelen, `teams`) and the loop must hold no directive (atomic, critical, ordered: their
    /// effects cross iterations) and no device lock; the runtime checks the data.
    fn split_refusal(
        &self,
        lp: Node,
        single: bool,
        teams: bool,
        locks: bool,
        flat_collapse: bool,
    ) -> Option<&'static str> {
        let (ls, le) = lp.range();
        if single {
            Some("a sequential target body")
        } else if teams {
            Some("the kernel asks for its team or thread, or runs rounds of safelen")
        } else if locks {
            Some("critical sections under a device lock")
        } else if flat_collapse {
            Some("a collapsed nest flattened into one dimension")
        } else if !self.pragmas_in(ls.off, le.off).is_empty() {
            Some("a directive inside the loop (atomic, critical, ordered...)")
        } else {
            None
        }
    }

    /// Phase of `loop_kernel`: the `n` of `collapse(n)` (a number, or an object-like macro
    /// defined as one); 1 without the clause or for a sequential target body.
    fn collapse_count(&self, clauses: &[Pragma], single: bool) -> Result<usize, String> {
        let ncollapse: usize = clauses
            .iter()
            .find_map(|c| c.clause("collapse").and_then(|x| x.arg.clone()))
            .map(|a| {
                a.trim()
                    .parse::<usize>()
                    .ok()
                    .or_else(|| self.object_macro_int(a.trim()))
                    .ok_or_else(|| format!("collapse({a}): not a constant"))
            })
            .transpose()?
            .unwrap_or(1);
        Ok(if single { 1 } else { ncollapse })
    }

    /// Phase of `loop_kernel`: the loops of a `collapse(n)` nest under the parallel loop `lp`.
    /// Those that are rectangular (bounds computable on the host before the loop, from nothing
    /// the nest declares or changes) become one flattened index space with the outer loop;
    /// from the first that is not, only the loops above are spread over work-items and the inner
    /// loop variables are private, as OpenMP makes them. Returns the merged loops, the variables
    /// of all inner loops of the nest, and the body the kernel runs per work-item.
    #[allow(clippy::type_complexity)]
    fn collapse_nest(
        &self,
        lp: Node,
        loopvar: Node,
        body: Node,
        ncollapse: usize,
    ) -> Result<(Vec<LoopInfo>, Vec<Node>, Node), String> {
        let mut collapsed: Vec<LoopInfo> = Vec::new();
        let mut inner_private: Vec<Node> = Vec::new();
        let mut body = body;
        let mut cur = body;
        let mut outer_vars = vec![loopvar];
        for _ in 1..ncollapse {
            let st = strip(cur);
            let kids = if st.kind() == CXCursor_CompoundStmt { st.children() } else { vec![st] };
            if kids.len() != 1 || kids[0].kind() != CXCursor_ForStmt {
                return Err("collapse: the loops are not perfectly nested".into());
            }
            let li = self.parse_loop(kids[0])?;
            inner_private.push(li.loopvar);
            // the bounds may use nothing declared inside the collapsed nest (the host computes them)
            let (ls, le) = lp.range();
            let rectangular = kids[0].children()[..3]
                .iter()
                .flat_map(|c| decl_refs(*c))
                .filter_map(|d| d.referenced())
                .filter(|d| !d.equals(&li.loopvar))
                .all(|d| {
                    let at = d.loc();
                    let in_nest = at.file == ls.file && at.off >= ls.off && at.off < le.off;
                    !(outer_vars.iter().any(|o| o.equals(&d)) || in_nest)
                });
            outer_vars.push(li.loopvar);
            cur = li.body;
            if rectangular && collapsed.len() + 1 == outer_vars.len() - 1 {
                body = li.body;
                collapsed.push(li);
            }
        }
        Ok((collapsed, inner_private, body))
    }

    /// Phase of `loop_kernel`, row spreading: when the parallel loop's body is a loop (after
    /// declarations it only reads, and assignments to array elements run once per i) that is
    /// rectangular or a triangle (triangle.rs) and whose iterations are independent (affine.rs's
    /// proof, with its run-time checks, or the older subscript rule), work-items take (i, j)
    /// pairs, or whole rows when the run-time checks fail (pointers sharing memory, strides that
    /// overlap). Returns what the kernel needs for it, and the inner loop when it is spread.
    fn row_spread(
        &self,
        lp: Node,
        loopvar: Node,
        body: Node,
        (step, cmp): (&str, i32),
        [private, firstprivate, lastprivate]: [&[String]; 3],
    ) -> (RowSpread, Option<LoopInfo>) {
        let mut auto_flat = false;
        let mut spread_checks: Vec<affine::Disjoint> = Vec::new();
        let mut spread_mem: Option<affine::Memory> = None;
        let mut tri: Option<triangle::Triangle> = None;
        let mut prefix_parts: Vec<(usize, usize, bool)> = Vec::new();
        // the declarations before the inner loop, and the inner loop's body (byte ranges)
        let mut prefix: Option<(usize, usize)> = None;
        let mut found = None;
        let st = strip(body);
        let kids = if st.kind() == CXCursor_CompoundStmt { st.children() } else { vec![st] };
        let (ls, le) = lp.range();
        let no_directives = self.pragmas_in(ls.off, le.off).is_empty();
        // before the inner loop: declarations, and assignments to array elements (run once
        // per i: affine.rs proves that no pair touches those elements)
        let shape_ok = kids.last().map(|l| l.kind() == CXCursor_ForStmt).unwrap_or(false)
            && kids[..kids.len() - 1].iter().all(|k| k.kind() == CXCursor_DeclStmt || element_assignment(*k));
        if shape_ok && no_directives {
            let jloop = kids[kids.len() - 1];
            if let Ok(li) = self.parse_loop(jloop) {
                // the bounds use nothing the nest changes (the host computes them), or one
                // follows the parallel loop's variable (a triangle, triangle.rs)
                let invariant = |n: Node| {
                    decl_refs(n).iter().filter_map(|d| d.referenced()).filter(|d| !d.equals(&li.loopvar)).all(
                        |d| {
                            let at = d.loc();
                            !(d.equals(&loopvar)
                                || (at.file == ls.file && at.off >= ls.off && at.off < le.off))
                        },
                    )
                };
                let mut rectangular = jloop.children()[..3].iter().all(|c| invariant(*c));
                if !rectangular {
                    tri = triangle::triangle(jloop, &li, &loopvar, step, cmp, &invariant)
                        .filter(|_| invariant(jloop.children()[2]));
                    rectangular = tri.is_some();
                }
                let (js, je) = li.body.range();
                let local = |d: &Node| {
                    let p = d.loc();
                    p.file == js.file && p.off >= js.off && p.off < je.off
                };
                // the proof for any indexing style (affine.rs), else the older subscript rule
                let privs: HashSet<String> =
                    private.iter().chain(firstprivate).chain(lastprivate).cloned().collect();
                let (bs0, be0) = body.range();
                let in_ibody = |d: &Node| {
                    let p = d.loc();
                    p.file == bs0.file && p.off >= bs0.off && p.off < be0.off
                };
                let is_private = |d: &Node| privs.contains(&d.spelling());
                let mem = affine::analyse(body, &[loopvar, li.loopvar], &in_ibody, &is_private);
                let nest = affine::Nest {
                    jbody: (js.off, je.off),
                    jloop_at: jloop.range().0.off,
                    side: tri.as_ref().and_then(|t| t.side),
                    strict: tri.as_ref().is_some_and(|t| t.strict),
                };
                let proof = if races::scalars_private(body, jloop, li.body) {
                    mem.spread_proof(&nest)
                } else {
                    Err("writes a scalar shared by the inner loop's iterations".into())
                };
                let old_rule = kids.len() == 1
                    && tri.is_none()
                    && races::inner_loop_independent(li.body, &loopvar, &li.loopvar, &local);
                let ok = match proof {
                    Ok(checks) => {
                        spread_checks = checks;
                        spread_mem = Some(mem);
                        true
                    }
                    Err(_) => {
                        // spread by the subscript rule: the accesses still tell promotion
                        // (promote.rs) which elements stay put across an inner loop
                        if old_rule {
                            spread_mem = Some(mem);
                        }
                        old_rule
                    }
                };
                if rectangular && ok {
                    auto_flat = true;
                    if kids.len() > 1 {
                        let (ps, _) = kids[0].range();
                        let (fs, _) = jloop.range();
                        prefix = Some((ps.off, fs.off));
                        // each part up to the next: (start, end, an assignment to run once per i)
                        prefix_parts = (0..kids.len() - 1)
                            .map(|q| {
                                (
                                    kids[q].range().0.off,
                                    kids[q + 1].range().0.off,
                                    kids[q].kind() != CXCursor_DeclStmt,
                                )
                            })
                            .collect();
                    }
                    found = Some(li);
                }
            }
        }
        (RowSpread { auto_flat, checks: spread_checks, mem: spread_mem, tri, prefix, prefix_parts }, found)
    }

    /// Phase of `loop_kernel`, outside row spreading: the edits keeping shared elements in
    /// registers across inner loops (promote.rs), from the accesses of the body (`(bs, be)`) in
    /// the loop variables; the kernel runs the promoted code only under its no-alias flag.
    fn noalias_promotion(
        &mut self,
        body: Node,
        (bs, be): (usize, usize),
        loopvar: Node,
        collapsed: &[LoopInfo],
        [private, firstprivate]: [&[String]; 2],
        edits: &[Edit],
    ) -> Vec<Edit> {
        let mut lvs = vec![loopvar];
        lvs.extend(collapsed.iter().map(|li| li.loopvar));
        let privs: HashSet<String> = private.iter().chain(firstprivate).cloned().collect();
        let file = self.cx.file.clone();
        let in_body = |d: &Node| {
            let p = d.loc();
            p.file == file && p.off >= bs && p.off < be
        };
        let is_private = |d: &Node| privs.contains(&d.spelling());
        let mem = affine::analyse(body, &lvs, &in_body, &is_private);
        self.promotion_edits(&mem, body, edits)
    }

    /// Phase of `loop_kernel`: the code of one iteration, rendered with the edits (and with the
    /// promotion edits `fast_edits` for the no-alias or (i, j) branch). `prefix`: row spreading's
    /// declarations before the inner loop (`jbody`'s), which then stand apart.
    #[allow(clippy::type_complexity)]
    fn iteration_text(
        &self,
        edits: &[Edit],
        fast_edits: &[Edit],
        (prefix, prefix_parts): (Option<(usize, usize)>, &[(usize, usize, bool)]),
        jbody: Node,
        (bs, be): (usize, usize),
        auto_flat: bool,
    ) -> IterationText {
        let fast_all: Vec<Edit> = edits.iter().cloned().chain(fast_edits.iter().cloned()).collect();
        // the code of one iteration; with declarations before the inner loop, those apart
        let (prefix_text, body_text) = match prefix {
            Some((ps, pe)) => {
                let (js, je) = jbody.range();
                (
                    render(self.cx.text, edits, ps, pe),
                    render(self.cx.text, edits, js.off, self.cx.stmt_end(je.off)),
                )
            }
            None => (String::new(), render(self.cx.text, edits, bs, be)),
        };
        // in the (i, j) branch, assignments before the inner loop run once per i (by the work-item
        // of the rectangle's first j): affine.rs proved that no pair touches their elements
        let pair_prefix_text = if prefix_parts.iter().any(|p| p.2) {
            prefix_parts
                .iter()
                .map(|&(ps, pe, once)| {
                    let t = render(self.cx.text, edits, ps, pe);
                    if once {
                        format!("if (get_global_id(0) == 0) {{ {t} }}\n")
                    } else {
                        t
                    }
                })
                .collect()
        } else {
            prefix_text.clone()
        };
        let fast_text = if fast_edits.is_empty() {
            body_text.clone()
        } else if prefix.is_some() || auto_flat {
            let (js, je) = jbody.range();
            render(self.cx.text, &fast_all, js.off, self.cx.stmt_end(je.off))
        } else {
            render(self.cx.text, &fast_all, bs, be)
        };
        IterationText { prefix_text, body_text, pair_prefix_text, fast_text }
    }

    /// `lb + id * st` in the type of a loop variable: in 32-bit arithmetic for a variable of 32
    /// bits or fewer (its values wrap alike, and the GPU then needs no 64-bit multiply), in 64-bit
    /// otherwise.
    fn index_expr(&self, ty: Type, lb: &str, id: &str, st: &str) -> Result<String, String> {
        let base = self.types.base(ty)?;
        let sz = ty.canonical().size_of();
        Ok(if sz > 0 && sz <= 4 {
            format!("({base})((uint){lb} + (uint)({id}) * (uint){st})")
        } else {
            format!("({base})({lb} + (long)({id}) * {st})")
        })
    }

    /// The declarations of a flattened collapse's inner loop variables from the remainder
    /// `__rem` of the work-item's index (innermost first); their bounds go to `inner`, outermost
    /// first.
    fn collapsed_indices(
        &mut self,
        collapsed: &[LoopInfo],
        inner: &mut Vec<(String, String, String, i32)>,
    ) -> Result<String, String> {
        let mut set = String::new();
        for (lvl, li) in collapsed.iter().enumerate().rev() {
            let q = lvl + 1;
            let ty = li.loopvar.ty();
            self.types.note(ty, 0)?;
            let d = self.types.declr(ty, &li.loopvar.spelling())?;
            let _ = writeln!(
                set,
                "    {d} = ({})(__lb{q} + (__rem % __n{q}) * __st{q});\n    __rem /= __n{q};",
                self.types.base(ty)?
            );
            inner.push((li.lb.clone(), li.ub.clone(), li.step.clone(), li.cmp));
        }
        inner.reverse();
        Ok(set)
    }

    /// A loop in OpenMP's canonical form.
    pub(super) fn parse_loop(&self, lp: Node) -> Result<LoopInfo, String> {
        if lp.kind() != CXCursor_ForStmt {
            return Err("a worksharing 'for' must be followed by a for loop".into());
        }
        let kids = lp.children();
        if kids.len() != 4 {
            return Err("loop is not in canonical form (init; test; increment)".into());
        }
        let (init, cond, inc, body) = (kids[0], strip(kids[1]), strip(kids[2]), kids[3]);
        let (loopvar, lb_node): (Node, Node) = if init.kind() == CXCursor_DeclStmt {
            let vd = init.children();
            if vd.len() != 1 || vd[0].kind() != CXCursor_VarDecl {
                return Err("loop is not in canonical form".into());
            }
            let ch = vd[0].children();
            let Some(ini) = ch.last() else { return Err("loop variable not initialised".into()) };
            (vd[0], *ini)
        } else {
            let i = strip(init);
            if i.kind() != CXCursor_BinaryOperator || i.binop() != CXBinaryOperator_Assign {
                return Err("loop is not in canonical form".into());
            }
            let ch = i.children();
            let lv = strip(ch[0]);
            if lv.kind() != CXCursor_DeclRefExpr {
                return Err("loop is not in canonical form".into());
            }
            (lv.referenced().ok_or("loop variable")?, ch[1])
        };
        let is_lv = |n: Node| -> bool {
            let n = strip(n);
            n.kind() == CXCursor_DeclRefExpr && n.referenced().map(|d| d.equals(&loopvar)).unwrap_or(false)
        };
        if cond.kind() != CXCursor_BinaryOperator {
            return Err("loop test is not a comparison".into());
        }
        let cc = cond.children();
        let mut cmp = cond.binop();
        let ub_node = if is_lv(cc[0]) {
            cc[1]
        } else if is_lv(cc[1]) {
            cmp = match cmp {
                CXBinaryOperator_LT => CXBinaryOperator_GT,
                CXBinaryOperator_GT => CXBinaryOperator_LT,
                CXBinaryOperator_LE => CXBinaryOperator_GE,
                CXBinaryOperator_GE => CXBinaryOperator_LE,
                x => x,
            };
            cc[0]
        } else {
            return Err("loop test does not compare the loop variable".into());
        };
        if !matches!(
            cmp,
            CXBinaryOperator_LT
                | CXBinaryOperator_LE
                | CXBinaryOperator_GT
                | CXBinaryOperator_GE
                | CXBinaryOperator_NE
        ) {
            return Err("loop test is not <, <=, > or >=".into());
        }
        let txt = |n: Node| -> String {
            let (s, e) = n.range();
            self.cx.text[s.off..e.off].to_string()
        };
        let step = match inc.kind() {
            CXCursor_UnaryOperator if is_lv(inc.children()[0]) => match inc.unop() {
                CXUnaryOperator_PostInc | CXUnaryOperator_PreInc => "1".to_string(),
                CXUnaryOperator_PostDec | CXUnaryOperator_PreDec => "-1".to_string(),
                _ => return Err("loop increment is not canonical".into()),
            },
            CXCursor_CompoundAssignOperator if is_lv(inc.children()[0]) => match inc.binop() {
                CXBinaryOperator_AddAssign => format!("({})", txt(inc.children()[1])),
                CXBinaryOperator_SubAssign => format!("-({})", txt(inc.children()[1])),
                _ => return Err("loop increment is not canonical".into()),
            },
            CXCursor_BinaryOperator if inc.binop() == CXBinaryOperator_Assign && is_lv(inc.children()[0]) => {
                let rhs = strip(inc.children()[1]);
                let rc = rhs.children();
                if rhs.kind() == CXCursor_BinaryOperator
                    && rc.len() == 2
                    && is_lv(rc[0])
                    && rhs.binop() == CXBinaryOperator_Add
                {
                    format!("({})", txt(rc[1]))
                } else if rhs.kind() == CXCursor_BinaryOperator
                    && rc.len() == 2
                    && is_lv(rc[0])
                    && rhs.binop() == CXBinaryOperator_Sub
                {
                    format!("-({})", txt(rc[1]))
                } else if rhs.kind() == CXCursor_BinaryOperator
                    && rc.len() == 2
                    && is_lv(rc[1])
                    && rhs.binop() == CXBinaryOperator_Add
                {
                    format!("({})", txt(rc[0]))
                } else {
                    return Err("loop increment is not canonical".into());
                }
            }
            _ => return Err("loop increment is not canonical".into()),
        };
        // `!=` (OpenMP 5.0, steps 1 and -1 only): the loop is `<` (up) or `>` (down)
        if cmp == CXBinaryOperator_NE {
            cmp = match step.as_str() {
                "1" => CXBinaryOperator_LT,
                "-1" => CXBinaryOperator_GT,
                _ => return Err("increment is not constant 1 or -1 for '!=' condition".into()),
            };
        }
        let lb = txt(lb_node);
        let ub = txt(ub_node);
        Ok(LoopInfo { loopvar, init, body, lb, ub, step, cmp, in_init: init.kind() == CXCursor_DeclStmt })
    }
}

/// Row spreading (`row_spread`): work-items take (i, j) pairs of a loop and the loop in its body.
#[derive(Default)]
struct RowSpread {
    /// the inner loop is spread (`KernelOut::auto_flat`)
    auto_flat: bool,
    /// the run-time checks that the pairs touch disjoint memory (`KernelOut::spread_checks`)
    checks: Vec<affine::Disjoint>,
    /// the body's accesses, for promotion (promote.rs)
    mem: Option<affine::Memory>,
    /// the inner loop's bounds follow the outer loop's variable
    tri: Option<triangle::Triangle>,
    /// the declarations before the inner loop (bytes)
    prefix: Option<(usize, usize)>,
    /// the parts of the prefix: (start, end, an assignment to run once per i)
    prefix_parts: Vec<(usize, usize, bool)>,
}

/// The code of one iteration of a loop kernel (`iteration_text`).
struct IterationText {
    /// row spreading's declarations before the inner loop, run per i
    prefix_text: String,
    /// the body (the inner loop's, under row spreading)
    body_text: String,
    /// the prefix in the (i, j) branch: its assignments run once per i
    pair_prefix_text: String,
    /// the body with the promotion edits
    fast_text: String,
}

/// The kernel code that sets up the variables of a loop body (`var_code`), each piece a run of
/// lines.
struct VarCode {
    /// pointers into the buffers, at the kernel's start
    setup: String,
    /// the private copies, at the start of an iteration
    privs: String,
    /// the reductions' work-group scratch and private copies, at the kernel's start
    reds_pre: String,
    /// the reductions' work-group trees and partial results, at the kernel's end
    reds_post: String,
    /// the copies out of lastprivate values, after the last iteration
    lp_post: String,
}

/// Phase of `loop_kernel` for a kernel that asks for its team or thread (or a `target parallel`
/// body every thread runs, `spmd`): defines the team queries (`omp_get_team_num()` ...) around
/// the kernel `k` as the work-group and work-item numbers they are (a team is a work-group, its
/// threads the work-items), and returns the launch's shape, at most `.0` work-groups of at most
/// `.1` work-items (host C; "0": any number), from `num_teams`, `num_threads` and
/// `thread_limit`; None for a sequential target body. For `spmd` the iteration count `ub`
/// becomes the team's size.
fn league_shape(
    clauses: &[Pragma],
    single: bool,
    spmd: bool,
    k: &mut String,
    ub: &mut String,
) -> Option<(String, String)> {
    let words: Vec<&str> = clauses.iter().flat_map(|c| c.directive.iter().map(String::as_str)).collect();
    let has_teams = words.contains(&"teams");
    let has_parallel = words.contains(&"parallel");
    let arg = |n: &str| clauses.iter().find_map(|c| c.clause(n).and_then(|x| x.arg.clone()));
    // (omp_get_num_teams, omp_get_team_num, omp_get_num_threads, omp_get_thread_num,
    // omp_get_thread_limit): a team is a work-group, its threads the work-items
    let q: [&str; 5] = if spmd {
        ["1", "0", "get_local_size(0)", "get_local_id(0)", "get_local_size(0)"]
    } else if single {
        ["1", "0", "1", "0", "1"]
    } else {
        match (has_teams, has_parallel) {
            (true, true) => [
                "get_num_groups(0)",
                "get_group_id(0)",
                "get_local_size(0)",
                "get_local_id(0)",
                "get_local_size(0)",
            ],
            (true, false) => ["get_num_groups(0)", "get_group_id(0)", "1", "0", "get_local_size(0)"],
            (false, true) => ["1", "0", "get_global_size(0)", "get_global_id(0)", "get_global_size(0)"],
            (false, false) => ["1", "0", "1", "0", "1"],
        }
    };
    let mut defs = String::from("\n");
    let mut undefs = String::new();
    for (f, v) in TEAM_QUERIES.iter().zip(q) {
        let _ = writeln!(defs, "#define {f}() ((int)({v}))");
        let _ = writeln!(undefs, "#undef {f}");
    }
    *k = format!("{defs}{k}{undefs}");
    let threads = match (arg("num_threads"), arg("thread_limit")) {
        (Some(a), Some(b)) => format!("ompcl_min_pos((long long)({a}), (long long)({b}))"),
        (Some(a), None) | (None, Some(a)) => format!("(long long)({a})"),
        (None, None) => "0".into(),
    };
    let threads = match arg("__if_parallel") {
        Some(c) if has_parallel => format!("(({c}) ? (long long)({threads}) : 1LL)"),
        _ => threads,
    };
    let groups = if has_teams {
        arg("num_teams").map_or("0".to_string(), |a| format!("(long long)({a})"))
    } else if arg("num_threads").is_some() {
        "1".into() // one team of at most num_threads threads
    } else {
        "0".into()
    };
    if spmd {
        // as many work-items as the team has threads (32 when no clause says)
        let t = format!("(({threads}) > 0 ? (long long)({threads}) : 32LL)");
        *ub = t.clone();
        Some(("1".to_string(), t))
    } else {
        (!single).then_some((groups, threads))
    }
}

/// Phase of `loop_kernel`: the kernel parameters (and the host's argument descriptors) of the
/// index space: the parallel loop's lower bound, step and trip count, those of the `ncollapsed`
/// loops merged into it, row spreading's flag (`auto_flat`), and for a league (`league`: the
/// kernel asks for its team or thread) the chunks of its schedules.
fn index_space_params(
    ncollapsed: usize,
    auto_flat: bool,
    league: bool,
    clauses: &[Pragma],
) -> (Vec<String>, Vec<String>) {
    let mut params = vec!["long __lb".to_string(), "long __st".to_string(), "long __n".to_string()];
    let mut host_args = Vec::new();
    for q in 1..=ncollapsed {
        for x in ["lb", "st", "n"] {
            params.push(format!("long __{x}{q}"));
            host_args.push(format!("{{OMPCL_VAL, \"__{x}{q}\", (void*)&__ompcl_{x}{q}, 8, 0, 0, 0}}"));
        }
    }
    if auto_flat {
        params.push("int __flat".into());
        host_args.push("{OMPCL_VAL, \"__flat\", (void*)&__ompcl_flat, sizeof(int), 0, 0, 0}".into());
    }
    // a league (team queries): the chunk of `dist_schedule(static, c)` (0: OpenMP's static
    // blocks, one per team) and of `schedule` (0: static blocks, one per thread; 1 for the
    // schedules that promise no order), so that the iterations a query observes are those
    // OpenMP gives each team and thread, and a private variable lives across a thread's
    // iterations (SOLLVE's schedule_private)
    if league {
        let arg = |n: &str| clauses.iter().find_map(|c| c.clause(n).and_then(|x| x.arg.clone()));
        let chunk = |a: Option<String>| -> String {
            let Some(a) = a else { return "0".into() };
            let parts = split_top_comma(&a);
            match (parts.first().map(|k| k.trim()), parts.get(1)) {
                (Some("static"), Some(c)) => format!("(long long)({c})"),
                (Some("static"), None) => "0".into(),
                _ => "1".into(),
            }
        };
        for (n, v) in [("__dc", chunk(arg("dist_schedule"))), ("__sc", chunk(arg("schedule")))] {
            params.push(format!("long {n}"));
            host_args.push(format!("{{OMPCL_VAL, \"{n}\", (void*)&(long long){{ {v} }}, 8, 0, 0, 0}}"));
        }
    }
    (params, host_args)
}

/// Whether one work-item's code does O(1) work: no loop and no call of a function of the program
/// (calls of library functions, the math built-ins, are fine).
fn work_item_is_light(body: Node) -> bool {
    let mut light = true;
    body.walk(&mut |c| match c.kind() {
        CXCursor_ForStmt | CXCursor_WhileStmt | CXCursor_DoStmt => light = false,
        CXCursor_CallExpr if !matches!(c.referenced(), Some(f) if f.in_system_header()) => light = false,
        _ => {}
    });
    light
}

/// Whether none of `idx` is an `atomic` or `critical` directive (a variable they update must stay
/// shared).
fn skip_sync_empty(idx: &[usize], pragmas: &[Pragma]) -> bool {
    idx.iter().all(|&i| !matches!(pragmas[i].directive[0].as_str(), "atomic" | "critical"))
}

/// A statement that assigns to an array element (`X[i][i] = 1.0;`, `*p = 0;`), with no call and no
/// other change of a variable: what may stand before an inner loop spread over `(i, j)` pairs (it
/// then runs once per `i`).
fn element_assignment(k: Node) -> bool {
    let is_assign = |n: Node| {
        matches!(n.kind(), CXCursor_BinaryOperator | CXCursor_CompoundAssignOperator)
            && (CXBinaryOperator_Assign..=CXBinaryOperator_OrAssign).contains(&n.binop())
    };
    if !is_assign(k) || strip(k.children()[0]).kind() == CXCursor_DeclRefExpr {
        return false;
    }
    let mut ok = true;
    k.walk(&mut |c| {
        let changes = match c.kind() {
            CXCursor_CallExpr => true,
            CXCursor_UnaryOperator => (CXUnaryOperator_PostInc..=CXUnaryOperator_PreDec).contains(&c.unop()),
            _ => is_assign(c),
        };
        ok &= !changes;
    });
    ok
}

/// `a, b` split at top-level commas (not inside parentheses), trimmed.
fn split_top_comma(s: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut d = 0;
    for ch in s.chars() {
        match ch {
            '(' | '[' => d += 1,
            ')' | ']' => d -= 1,
            ',' if d == 0 => {
                out.push(String::new());
                continue;
            }
            _ => {}
        }
        if let Some(l) = out.last_mut() {
            l.push(ch);
        }
    }
    out.into_iter().map(|p| p.trim().to_string()).collect()
}

/// The loop of a league kernel: a team is a work-group, its threads the work-items; each
/// work-item takes the iterations OpenMP's schedules give it (chunks of `__dc` iterations dealt
/// to the teams in turn, then chunks of `__sc` of those to the team's threads); the private
/// variables live across a work-item's iterations. `set` sets the loop variables from `__gid`.
fn league_loop(clauses: &[Pragma], privs: &str, set: &str, body: &str, lp_post: &str) -> String {
    let teams = clauses.iter().any(|c| c.directive.iter().any(|w| w == "teams"));
    let (g, gs, t, ts) = if teams {
        ("get_group_id(0)", "get_num_groups(0)", "get_local_id(0)", "get_local_size(0)")
    } else {
        ("0", "1", "get_global_id(0)", "get_global_size(0)")
    };
    format!(
        "  long __g = (long)({g}), __G = (long)({gs}), __t = (long)({t}), __T = (long)({ts});\n  long __dcs = __dc > 0 ? __dc : (__n + __G - 1) / __G;\n{privs}  for (long __c0 = __g * __dcs; __c0 < __n; __c0 += __G * __dcs) {{\n  long __ce = __c0 + __dcs < __n ? __c0 + __dcs : __n;\n  long __tc = __sc > 0 ? __sc : (__ce - __c0 + __T - 1) / __T;\n  for (long __k0 = __c0 + __t * __tc; __k0 < __ce; __k0 += __T * __tc)\n  for (long __gid = __k0; __gid < __k0 + __tc && __gid < __ce; __gid++) {{\n{set}{body}{lp_post}  }}\n  }}\n"
    )
}

/// A `taskloop [simd]` directive as the `for` of a worksharing loop: its data clauses kept, the
/// task scheduling clauses (which change no result) dropped; `nogroup` leaves the tasks running
/// past the `single`, and the region's end still waits for them.
pub(super) fn taskloop_as_for(tp: &Pragma) -> Result<Pragma, String> {
    let mut fp = tp.clone();
    fp.directive = vec!["for".to_string()];
    fp.unknown = None;
    let mut kept = Vec::new();
    for c in &tp.clauses {
        match c.name.as_str() {
            "private" | "firstprivate" | "lastprivate" | "shared" | "default" | "collapse" | "reduction" => {
                kept.push(c.clone())
            }
            "grainsize" | "num_tasks" | "nogroup" | "untied" | "mergeable" | "final" | "priority" | "if"
            | "simdlen" | "safelen" | "aligned" => {}
            other => return Err(format!("'{other}' on 'taskloop' is not translated to OpenCL")),
        }
    }
    fp.clauses = kept;
    Ok(fp)
}
