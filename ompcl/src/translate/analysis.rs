//! Analysis of code that goes into a kernel: the outside variables it uses (with how it writes
//! them), the functions it calls (copied into the kernel, globals passed as parameters), atomic and
//! critical updates, and the rendering of kernel functions.

use super::*;

impl<'a> Translator<'a> {
    /// Walk code that goes into the kernel: collect outside variables, functions called,
    /// and the edits (pointer declarations get __global, user functions are renamed).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn analyse_code(
        &mut self,
        root: Node,
        s: usize,
        e: usize,
        vars: &mut BTreeMap<String, Var>,
        edits: &mut Vec<Edit>,
        local_ptr_writes: &mut bool,
        is_region: bool,
    ) -> Result<(), String> {
        let mut nodes = vec![root];
        root.walk(&mut |c| nodes.push(c));
        self.note_unsubscripted_globals(&nodes);
        // the file this code is in (a called function may come from a user header)
        let file = root.range().0.file;
        let ftext = self.cx.file_text(&file);
        let mut written: Vec<(Node, bool)> = Vec::new(); // (lhs root, direct)
                                                         // pointer members copied from one to another (`copy.p = orig.p;`): integers alike in the
                                                         // kernel source, so the copy is the same bytes (their extents)
        let mut member_copies: HashSet<(String, usize, usize)> = HashSet::new();
        // pointer members a pointer is stored into (their names)
        let mut member_stores: Vec<String> = Vec::new();
        for n in &nodes {
            let k = n.kind();
            if k == CXCursor_BinaryOperator && n.binop() == CXBinaryOperator_Assign {
                self.member_assignment(*n, (&file, &ftext), &mut member_copies, &mut member_stores, edits)?;
            }
            self.note_node_type(n)?;
            match k {
                CXCursor_StringLiteral => return Err("string literal in the loop".into()),
                CXCursor_UnaryExpr => {
                    self.sizeof_edit(n, (&file, &ftext), (s, e), edits)?;
                }
                CXCursor_MemberRefExpr => {
                    self.member_ref_edits(
                        n,
                        (&file, &ftext),
                        (s, e),
                        &member_copies,
                        vars,
                        edits,
                        is_region,
                    )?;
                }
                CXCursor_ReturnStmt if is_region => return Err("return in the loop".into()),
                CXCursor_GotoStmt => return Err("goto in the loop".into()),
                CXCursor_VarDecl | CXCursor_ParmDecl => {
                    if k == CXCursor_VarDecl && n.storage_static() {
                        return Err(format!("static local variable '{}'", n.spelling()));
                    }
                    // (an array parameter, `int a[N]`, is a pointer too)
                    if n.ty().canonical().kind() == CXType_Pointer
                        || (k == CXCursor_ParmDecl && n.ty().is_array())
                    {
                        let ps = n.spelling_range().0;
                        if ps.file == file
                            && !edits.iter().any(|x| x.start == ps.off && x.text == "__global ")
                        {
                            edits.push(Edit { start: ps.off, end: ps.off, text: "__global ".into() });
                        }
                    }
                }
                CXCursor_CStyleCastExpr if n.ty().canonical().kind() == CXType_Pointer => {
                    // casts to pointers inside kernels point into buffers
                    let ps = n.spelling_range().0;
                    if ps.file == file && ftext[ps.off..].starts_with('(') {
                        edits.push(Edit { start: ps.off + 1, end: ps.off + 1, text: "__global ".into() });
                    }
                }
                CXCursor_BinaryOperator | CXCursor_CompoundAssignOperator => {
                    let op = n.binop();
                    if (CXBinaryOperator_Assign..=CXBinaryOperator_OrAssign).contains(&op) {
                        written.push((n.children()[0], true));
                    }
                }
                CXCursor_UnaryOperator => {
                    let op = n.unop();
                    if (CXUnaryOperator_PostInc..=CXUnaryOperator_PreDec).contains(&op) {
                        written.push((n.children()[0], true));
                    } else if op == CXUnaryOperator_AddrOf {
                        let o = strip(n.children()[0]);
                        if o.kind() == CXCursor_MemberRefExpr
                            && o.referenced().is_some_and(|f| f.ty().canonical().kind() == CXType_Pointer)
                        {
                            return Err(format!(
                                "address of pointer member '{}' taken in the loop",
                                o.spelling()
                            ));
                        }
                        written.push((n.children()[0], false));
                    }
                }
                CXCursor_CallExpr => {
                    self.call_edits(
                        *n,
                        (&file, &ftext),
                        (s, e),
                        vars,
                        edits,
                        &mut written,
                        local_ptr_writes,
                        is_region,
                    )?;
                }
                CXCursor_DeclRefExpr => {
                    self.decl_ref_use(n, (&file, &ftext), (s, e), vars, edits)?;
                }
                _ => {}
            }
        }
        self.record_writes(written, &member_stores, vars, (&file, (s, e)), local_ptr_writes)?;
        Ok(())
    }

    /// Phase of `analyse_code`: a reference in kernel code. A variable from outside the code
    /// becomes one of `vars` (the struct of a pointer member passed on its own excepted); a user
    /// function copied into the kernel is renamed `ompcl_f_...` (refused inside a macro).
    fn decl_ref_use(
        &self,
        n: &Node,
        (file, ftext): (&str, &str),
        (s, e): (usize, usize),
        vars: &mut BTreeMap<String, Var>,
        edits: &mut Vec<Edit>,
    ) -> Result<(), String> {
        let inside = |d: &Node| -> bool {
            let p = d.loc();
            p.file == file && p.off >= s && p.off < e
        };
        let Some(r) = n.referenced() else { return Ok(()) };
        match r.kind() {
            CXCursor_VarDecl | CXCursor_ParmDecl => {
                if inside(&r) {
                    return Ok(());
                }
                // the struct of a pointer member passed on its own (above)
                let at = n.range().0;
                if at.file == file && self.member_ptr_ranges.iter().any(|&(a, b)| at.off >= a && at.off < b) {
                    return Ok(());
                }
                vars.entry(key_of(&r)).or_insert_with(|| Var {
                    name: r.spelling(),
                    host: None,
                    decl: r,
                    ty: r.ty(),
                    global: r.semantic_parent().kind() == CXCursor_TranslationUnit,
                    kind: VK::ByValue,
                    assigned: false,
                    written_through: false,
                    red_op: String::new(),
                });
            }
            CXCursor_FunctionDecl => {
                // rename user functions copied into the kernel
                if let Some(d) = r.definition() {
                    if !d.in_system_header() && !d.loc().file.is_empty() {
                        let ps = n.loc_spelling();
                        let name = r.spelling();
                        if ps.file == file && ftext[ps.off..].starts_with(&name) {
                            let mask =
                                self.variant_calls.get(&(ps.file.clone(), ps.off)).copied().unwrap_or(0);
                            edits.push(Edit {
                                start: ps.off,
                                end: ps.off + name.len(),
                                text: variant_name(&name, mask),
                            });
                        } else {
                            return Err(format!("call to '{name}' inside a macro"));
                        }
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Phase of `analyse_code`: `sizeof` of an array from outside the code, which is a pointer in
    /// the kernel, becomes the host's size; `alignof`, or one inside a macro, refuses the code.
    fn sizeof_edit(
        &self,
        n: &Node,
        (file, ftext): (&str, &str),
        (s, e): (usize, usize),
        edits: &mut Vec<Edit>,
    ) -> Result<(), String> {
        let inside = |d: &Node| -> bool {
            let p = d.loc();
            p.file == file && p.off >= s && p.off < e
        };
        // sizeof of an array that is a pointer in the kernel: use the host's size
        let ch = n.children();
        if ch.len() == 1 {
            let op = strip(ch[0]);
            if op.kind() == CXCursor_DeclRefExpr {
                if let Some(r) = op.referenced() {
                    if matches!(r.kind(), CXCursor_VarDecl | CXCursor_ParmDecl)
                        && !inside(&r)
                        && r.ty().is_array()
                    {
                        let (ss, se) = n.range();
                        let t = &ftext[ss.off..se.off];
                        let sz = r.ty().size_of();
                        if ss.file == file && t.starts_with("sizeof") && sz > 0 {
                            edits.push(Edit { start: ss.off, end: se.off, text: format!("((ulong){sz})") });
                        } else {
                            return Err(format!("sizeof/alignof of array '{}'", r.spelling()));
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// Phase of `analyse_code`: every type of kernel code must be expressible in OpenCL C: the
    /// type of an expression or a declaration is noted for the kernel source (types.rs), and a
    /// `double` literal makes the source need fp64.
    fn note_node_type(&mut self, n: &Node) -> Result<(), String> {
        let k = n.kind();
        let fnref = k == CXCursor_DeclRefExpr
            && n.referenced().map(|r| r.kind() == CXCursor_FunctionDecl).unwrap_or(false);
        if (n.is_expr() || k == CXCursor_VarDecl) && !fnref {
            let t = n.ty();
            let tc = t.canonical();
            let is_fn = matches!(tc.kind(), CXType_FunctionProto | CXType_FunctionNoProto)
                || (tc.kind() == CXType_Pointer
                    && matches!(
                        tc.pointee().canonical().kind(),
                        CXType_FunctionProto | CXType_FunctionNoProto
                    )
                    && k != CXCursor_VarDecl);
            if t.kind() != CXType_Invalid && !is_fn {
                self.types.note(t, 0).map_err(|x| format!("{x} used in the loop"))?;
            }
        }
        if k == CXCursor_FloatingLiteral && n.ty().canonical().kind() == CXType_Double {
            self.types.needs_fp64 = true;
        }
        Ok(())
    }

    /// Phase of `analyse_code`: what the code's writes (`written`: the assigned expressions,
    /// and whether they are assigned directly) tell of the outside variables: assigned whole, or
    /// written through (a pointer, an array); a pointer member passed on its own may be written
    /// through but not set, nor its struct as a whole. A write through a local pointer sets
    /// `local_ptr_writes`.
    fn record_writes(
        &self,
        written: Vec<(Node, bool)>,
        member_stores: &[String],
        vars: &mut BTreeMap<String, Var>,
        (file, (s, e)): (&str, (usize, usize)),
        local_ptr_writes: &mut bool,
    ) -> Result<(), String> {
        let inside = |d: &Node| -> bool {
            let p = d.loc();
            p.file == file && p.off >= s && p.off < e
        };
        // a member stored into here and passed as a pointer of its own (`s.d[i]`): the kernel's
        // argument would not follow the store
        if let Some(m) = member_stores
            .iter()
            .find(|m| vars.keys().any(|k| k.ends_with(&format!(":{m}")) && k.starts_with("member:")))
        {
            return Err(format!("pointer member '{m}' set in the loop"));
        }
        // writes through a pointer member passed on its own; the member itself may not be set,
        // nor the struct as a whole (`s = t`, `&s`: the kernel's copy of the member would be stale)
        for (lhs, direct) in &written {
            let root = strip(*lhs);
            if root.kind() == CXCursor_DeclRefExpr {
                if let Some(r) = root.referenced() {
                    let prefix = format!("member:{}:", key_of(&r));
                    if vars.keys().any(|k| k.starts_with(&prefix)) {
                        return Err(format!(
                            "struct '{}' set or its address taken in the loop while its pointer member is used",
                            r.spelling()
                        ));
                    }
                }
            }
            let mut ns = vec![*lhs];
            lhs.walk(&mut |c| ns.push(c));
            for c in ns {
                let (cs, ce) = c.range();
                if c.kind() != CXCursor_MemberRefExpr
                    || cs.file != file
                    || !self.member_ptr_ranges.contains(&(cs.off, ce.off))
                {
                    continue;
                }
                if *direct && strip(*lhs).equals(&c) {
                    return Err(format!("pointer member '{}' set in the loop", c.spelling()));
                }
                let suffix = format!("__m_{}", c.spelling());
                for v in vars.values_mut().filter(|v| v.host.is_some() && v.name.ends_with(&suffix)) {
                    v.written_through = true;
                }
            }
        }
        // writes
        for (lhs, direct) in written {
            let root = strip(lhs);
            let whole = if root.kind() == CXCursor_DeclRefExpr { root.referenced() } else { None };
            for d in decl_refs(lhs) {
                let Some(r) = d.referenced() else { continue };
                if !matches!(r.kind(), CXCursor_VarDecl | CXCursor_ParmDecl) {
                    continue;
                }
                let is_whole = direct && whole.map(|w| w.equals(&r)).unwrap_or(false);
                if inside(&r) {
                    if !is_whole && (r.ty().is_pointer()) {
                        *local_ptr_writes = true;
                    }
                    continue;
                }
                if let Some(v) = vars.get_mut(&key_of(&r)) {
                    if is_whole {
                        v.assigned = true;
                    } else {
                        v.written_through = true;
                    }
                }
            }
        }
        Ok(())
    }

    /// Phase of `analyse_code`: an assignment to a pointer member. A copy from another pointer
    /// member (`copy.p = orig.p;`) is of integers alike in the kernel source, the same bytes
    /// (their extents go to `member_copies`); a pointer stored into one (`n->next = cur`, a list
    /// linked on the device) is cast to the member's opaque `ulong` (its name goes to
    /// `member_stores`), allowed only in a target region or for a null pointer.
    fn member_assignment(
        &self,
        n: Node,
        (file, ftext): (&str, &str),
        member_copies: &mut HashSet<(String, usize, usize)>,
        member_stores: &mut Vec<String>,
        edits: &mut Vec<Edit>,
    ) -> Result<(), String> {
        let extent = |m: &Node| {
            let (a, b) = m.range();
            (a.file, a.off, b.off)
        };
        let ch = n.children();
        if ch.len() == 2 {
            let (l, r) = (strip(ch[0]), strip(ch[1]));
            let ptr_member = |m: &Node| {
                m.kind() == CXCursor_MemberRefExpr
                    && m.referenced().is_some_and(|f| {
                        f.kind() == CXCursor_FieldDecl && f.ty().canonical().kind() == CXType_Pointer
                    })
            };
            if ptr_member(&l)
                && ptr_member(&r)
                && l.ty().canonical().spelling() == r.ty().canonical().spelling()
            {
                member_copies.insert(extent(&l));
                member_copies.insert(extent(&r));
            } else if ptr_member(&l) && ch[1].ty().canonical().kind() == CXType_Pointer {
                // a pointer stored into a pointer member (`n->next = cur`, a list linked
                // on the device): the member is an opaque `ulong` in the kernel source,
                // which OpenCL C does not convert a pointer to implicitly; the device
                // copy gets the device address, as on any device with memory of its own
                let (rs, re) = ch[1].range();
                if rs.file != file || re.off > ftext.len() {
                    return Err(format!("pointer member '{}' set in a macro", l.spelling()));
                }
                // outside a target region the host shares the kernel's data (it is copied
                // back): a device address would reach it; only a null pointer is the same
                let rhs: String = ftext[rs.off..re.off].chars().filter(|c| !c.is_whitespace()).collect();
                let null = matches!(rhs.as_str(), "NULL" | "0" | "((void*)0)" | "(void*)0");
                if self.in_target.is_none() && !null {
                    return Err(format!(
                        "pointer member '{}' set in the loop (to an address the host would not share)",
                        l.spelling()
                    ));
                }
                member_copies.insert(extent(&l));
                member_stores.push(l.spelling());
                edits.push(Edit { start: rs.off, end: rs.off, text: "(ulong)(".into() });
                edits.push(Edit { start: re.off, end: re.off, text: ")".into() });
            }
        }
        Ok(())
    }

    /// Phase of `analyse_code`: a use of a struct member in kernel code. Pointer members are
    /// opaque integers in the kernel source (types.rs): `v.p` of a struct variable from outside
    /// the region, used as a pointer (not set), becomes a pointer of its own (`v__m_p`), found in
    /// the runtime's tables at the launch as any pointer; any other use refuses the code.
    #[allow(clippy::too_many_arguments)]
    fn member_ref_edits(
        &mut self,
        n: &Node,
        (file, ftext): (&str, &str),
        (s, e): (usize, usize),
        member_copies: &HashSet<(String, usize, usize)>,
        vars: &mut BTreeMap<String, Var>,
        edits: &mut Vec<Edit>,
        is_region: bool,
    ) -> Result<(), String> {
        let inside = |d: &Node| -> bool {
            let p = d.loc();
            p.file == file && p.off >= s && p.off < e
        };
        let extent = |m: &Node| {
            let (a, b) = m.range();
            (a.file, a.off, b.off)
        };
        // pointer members are opaque integers in the kernel source (types.rs)
        if let Some(m) = n.referenced() {
            let mut t = m.ty().canonical();
            while t.kind() == CXType_ConstantArray {
                t = t.elem().canonical();
            }
            if m.kind() == CXCursor_FieldDecl
                && t.kind() == CXType_Pointer
                && !member_copies.contains(&extent(n))
            {
                // `v.p` of a struct variable from outside the region, used as a pointer
                // (not set): a pointer of its own, found in the runtime's tables at
                // the launch as any pointer (a buffer and an offset)
                let (ms, me) = n.range();
                let base =
                    n.children().first().map(|c| strip(*c)).filter(|c| c.kind() == CXCursor_DeclRefExpr);
                let bvar = base.and_then(|b| b.referenced()).filter(|r| {
                    matches!(r.kind(), CXCursor_VarDecl | CXCursor_ParmDecl)
                        && r.ty().canonical().kind() == CXType_Record
                        && !inside(r)
                });
                let fname = m.spelling();
                let text = if ms.file == file && me.off <= ftext.len() { &ftext[ms.off..me.off] } else { "" };
                let squeezed: String = text.chars().filter(|c| !c.is_whitespace()).collect();
                match bvar {
                    Some(r)
                        if is_region
                            && m.ty().canonical().kind() == CXType_Pointer
                            && squeezed == format!("{}.{fname}", r.spelling()) =>
                    {
                        let name = format!("{}__m_{fname}", r.spelling());
                        vars.entry(format!("member:{}:{fname}", key_of(&r))).or_insert_with(|| Var {
                            name: name.clone(),
                            host: Some(format!("{}.{fname}", r.spelling())),
                            decl: m,
                            ty: m.ty(),
                            global: false,
                            kind: VK::ByValue,
                            assigned: false,
                            written_through: false,
                            red_op: String::new(),
                        });
                        edits.push(Edit { start: ms.off, end: me.off, text: name });
                        self.member_ptr_ranges.push((ms.off, me.off));
                    }
                    _ => return Err(format!("pointer member '{fname}' used in the loop")),
                }
            }
        }
        Ok(())
    }

    /// Phase of `analyse_code`: a call in kernel code. A user function is analysed (once, its
    /// verdict kept) and copied into the kernel, the globals it uses passed as extra arguments;
    /// a thread query inside a nested `parallel` and the team queries of a target region are
    /// kept (kernel.rs defines them); any other call must be an OpenCL builtin, its integer
    /// arguments converted to the floating type C's math functions take.
    #[allow(clippy::too_many_arguments)]
    fn call_edits(
        &mut self,
        n: Node,
        (file, ftext): (&str, &str),
        (s, e): (usize, usize),
        vars: &mut BTreeMap<String, Var>,
        edits: &mut Vec<Edit>,
        written: &mut Vec<(Node, bool)>,
        local_ptr_writes: &mut bool,
        is_region: bool,
    ) -> Result<(), String> {
        let Some(f) = n.referenced() else {
            return Err("call through a function pointer".into());
        };
        let name = f.spelling();
        let def = f.definition();
        match def {
            Some(d) if !d.in_system_header() && !d.loc().file.is_empty() => {
                // pointer arguments may be written by the callee
                for a in n.children().into_iter().skip(1) {
                    written.push((a, false));
                }
                let key = key_of(&d);
                // a work-item's own array passed: the copy of the function whose parameter is
                // `__private` (a K&R definition keeps its one copy)
                let mut mask = 0u32;
                for (i, a) in n.children().into_iter().skip(1).enumerate() {
                    if i < 32 && region_arrays::private_array_argument(a, &self.private_arrays) {
                        mask |= 1 << i;
                    }
                }
                if mask != 0 && knr_parameters(d, &self.cx.file_text(&d.range().0.file)).is_none() {
                    let ps = strip(n.children()[0]).loc_spelling();
                    self.variant_calls.insert((ps.file.clone(), ps.off), mask);
                    self.func_variants.insert((key.clone(), mask));
                }
                if let Some(why) = self.bad_funcs.get(&key) {
                    return Err(why.clone());
                }
                self.calls.entry(self.caller.clone()).or_default().insert(key.clone());
                if !self.funcs.contains_key(&key) {
                    if d.is_variadic() {
                        return Err(format!("call to variadic function '{name}'"));
                    }
                    // a K&R definition is rewritten with a prototype for the kernel
                    // (same values: the promoted argument converts back to the
                    // parameter's type), if its parameters are numbers
                    if knr_parameters(d, &self.cx.file_text(&d.range().0.file)).is_some()
                        && d.children().iter().any(|c| c.kind() == CXCursor_ParmDecl && !c.ty().is_arith())
                    {
                        return Err(format!(
                            "function '{name}' has an old-style (K&R) definition with a parameter that is not a number"
                        ));
                    }
                    if d.result_ty().canonical().kind() == CXType_Pointer {
                        return Err(format!("function '{name}' returns a pointer"));
                    }
                    self.funcs.insert(key.clone(), d);
                    let (fs, fe) = d.range();
                    let mut fv: BTreeMap<String, Var> = BTreeMap::new();
                    let mut fedits = Vec::new();
                    let mut lpw = false;
                    let saved = std::mem::replace(&mut self.caller, key.clone());
                    let mut res = self.analyse_code(d, fs.off, fe.off, &mut fv, &mut fedits, &mut lpw, false);
                    self.caller = saved;
                    if res.is_ok() {
                        match function_globals(&name, &fv, &self.cx.threadprivate) {
                            Ok(g) => {
                                self.func_globals.insert(key.clone(), g);
                            }
                            Err(e) => res = Err(e),
                        }
                        if res.is_err() {
                        } else if (fs.file == self.cx.file && !self.pragmas_in(fs.off, fe.off).is_empty())
                            || (fs.file != self.cx.file
                                && self.cx.file_text(&fs.file)[fs.off..fe.off].contains("omp"))
                        {
                            res = Err(format!("function '{name}' contains OpenMP directives"));
                        }
                    }
                    if let Err(why) = res {
                        self.funcs.remove(&key);
                        self.bad_funcs.insert(key, why.clone());
                        return Err(why);
                    }
                    if lpw {
                        *local_ptr_writes = true;
                    }
                }
                // the globals the callee uses: extra arguments at this call, and
                // variables of the caller's code
                let globals = self.func_globals.get(&key).cloned().unwrap_or_default();
                if !globals.is_empty() {
                    let (_, ce) = n.range();
                    if ce.file != file || ce.off == 0 || ftext.as_bytes()[ce.off - 1] != b')' {
                        return Err(format!("call to '{name}' (which uses globals) inside a macro"));
                    }
                    let names: Vec<String> = globals.iter().map(|(g, _)| g.spelling()).collect();
                    let sep = if n.num_args() > 0 { ", " } else { "" };
                    edits.push(Edit {
                        start: ce.off - 1,
                        end: ce.off - 1,
                        text: format!("{sep}{}", names.join(", ")),
                    });
                    for (g, w) in globals {
                        let v = vars.entry(key_of(&g)).or_insert_with(|| Var {
                            name: g.spelling(),
                            host: None,
                            decl: g,
                            ty: g.ty(),
                            global: true,
                            kind: VK::ByValue,
                            assigned: false,
                            written_through: false,
                            red_op: String::new(),
                        });
                        v.written_through |= w;
                    }
                }
            }
            // a thread query inside a `parallel` nested in the loop: that region has
            // one thread (kernel.rs replaces the query by its value)
            _ if matches!(name.as_str(), "omp_get_thread_num" | "omp_get_num_threads") && is_region && {
                let at = n.range().0;
                at.file == file
                    && self.pragmas_in(s, e).iter().any(|&q| {
                        self.cx.pragmas[q].is(&["parallel"])
                            && self.cx.assoc.get(&q).is_some_and(|a| at.off >= a.1 && at.off < a.2)
                    })
            } => {}
            _ if TEAM_QUERIES.contains(&name.as_str())
                && self.in_target.is_some()
                && self.caller.starts_with("region:") =>
            {
                self.team_queries = true;
            }
            _ => {
                if !CL_BUILTINS.contains(&name.as_str()) {
                    return Err(format!("call to '{name}' (no body available for the kernel)"));
                }
                // C's math functions take double (float for the `f` ones): integer
                // arguments are converted, where OpenCL's overloads would find the
                // call ambiguous (`fmin(i, j)` on ints, SOLLVE's min reduction)
                if !name.starts_with("omp_") {
                    let float = name.strip_suffix('f').is_some_and(|b| CL_BUILTINS.contains(&b));
                    for i in 0..n.num_args().max(0) as u32 {
                        let a = n.arg(i);
                        // the argument's own type, under the implicit conversion
                        let t = strip(a).ty().canonical();
                        let integer = t.is_arith()
                            && !matches!(t.kind(), CXType_Float | CXType_Double | CXType_LongDouble);
                        let (s, e) = a.range();
                        if integer && s.file == file && e.file == file && s.off < e.off {
                            let ty = if float { "float" } else { "double" };
                            edits.push(Edit { start: s.off, end: s.off, text: format!("(({ty})(") });
                            edits.push(Edit { start: e.off, end: e.off, text: "))".into() });
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// Phase of `atomic_edit`: the update of `x = x op e` or `x = e op x` (op commutative),
    /// which `atomic [update]` allows too: the target, the atomic operation and the operand.
    fn assign_update(&self, n: Node, edits: &[Edit]) -> Result<(Node, &'static str, String), String> {
        let text = self.cx.text;
        let rr = |x: Node| -> String {
            let (s, e) = x.range();
            render(text, edits, s.off, e.off)
        };
        // x = x op e  /  x = e op x (commutative): `atomic [update]` allows them too
        let c = n.children();
        let r = strip(c[1]);
        let lt = rr(c[0]);
        let rc = r.children();
        if r.kind() != CXCursor_BinaryOperator || rc.len() != 2 {
            return Err("'critical' section is not a single update (cannot become an OpenCL atomic)".into());
        }
        let op = match r.binop() {
            CXBinaryOperator_Add => "add",
            CXBinaryOperator_Mul => "mul",
            CXBinaryOperator_Sub => "sub",
            CXBinaryOperator_And => "and",
            CXBinaryOperator_Or => "or",
            CXBinaryOperator_Xor => "xor",
            _ => {
                return Err(
                    "'critical' section is not a single update (cannot become an OpenCL atomic)".into()
                )
            }
        };
        if rr(rc[0]).trim() == lt.trim() {
            Ok((c[0], op, rr(rc[1])))
        } else if rr(rc[1]).trim() == lt.trim() && op != "sub" {
            Ok((c[0], op, rr(rc[0])))
        } else {
            Err("'critical' section is not a single update (cannot become an OpenCL atomic)".into())
        }
    }

    /// The edit that makes an `atomic` or `critical` statement `st` (ending at `se`) one
    /// OpenCL atomic update of its target (a device function, `atomic_function`), or the
    /// statement as it is when the target is private; the reason when it is no single update.
    /// `atomic capture` is `atomic_capture`'s.
    pub(super) fn atomic_edit(
        &mut self,
        pp: &Pragma,
        st: Node,
        se: usize,
        edits: &[Edit],
        buffers: &HashSet<String>,
    ) -> Result<Edit, String> {
        let what = pp.directive[0].clone();
        let mut n = strip(st);
        let form =
            pp.clauses.iter().map(|c| c.name.as_str()).find(|c| matches!(*c, "read" | "write" | "capture"));
        if form == Some("capture") {
            return self.atomic_capture(pp, st, se, edits, buffers);
        }
        // OpenMP 5.1's `atomic compare`: a max/min update (`if (e > x) { x = e; }`,
        // `x = e > x ? e : x` ...), minmax_update.rs
        let compare = pp.clause("compare").is_some();
        if n.kind() == CXCursor_CompoundStmt {
            let k = n.children();
            if k.len() != 1 {
                return Err(format!(
                    "'{what}' section is not a single update (cannot become an OpenCL atomic)"
                ));
            }
            n = strip(k[0]);
        }
        let text = self.cx.text;
        let rr = |x: Node| -> String {
            let (s, e) = x.range();
            render(text, edits, s.off, e.off)
        };
        let (lhs, op, rhs): (Node, &str, String) = match n.kind() {
            // `atomic read` (v = x) and `atomic write` (x = e): an aligned load is whole on the
            // device; a store becomes an exchange
            CXCursor_BinaryOperator if form == Some("read") && n.binop() == CXBinaryOperator_Assign => {
                let (s, e) = st.range();
                let plain = render(text, edits, s.off, self.cx.stmt_end(e.off).min(se));
                let (ls, _) = pp_range(pp);
                return Ok(Edit { start: ls, end: se, text: format!("{};", plain.trim_end_matches(';')) });
            }
            CXCursor_BinaryOperator if form == Some("write") && n.binop() == CXBinaryOperator_Assign => {
                let c = n.children();
                (c[0], "xchg", rr(c[1]))
            }
            _ if form.is_some() => return Err(format!("'{what}' statement is not of its form")),
            _ if compare => {
                let u = self.minmax_update(n).map_err(|why| format!("'atomic compare' statement: {why}"))?;
                (u.target, u.op, rr(u.operand))
            }
            CXCursor_UnaryOperator => {
                let c = n.children()[0];
                match n.unop() {
                    CXUnaryOperator_PostInc | CXUnaryOperator_PreInc => (c, "add", "1".into()),
                    CXUnaryOperator_PostDec | CXUnaryOperator_PreDec => (c, "sub", "1".into()),
                    _ => return Err(format!("'{what}' statement is not an update")),
                }
            }
            CXCursor_CompoundAssignOperator => {
                let c = n.children();
                let Some(op) = compound_assign_op(n.binop()) else {
                    return Err(format!("'{what}' statement is not an update"));
                };
                (c[0], op, rr(c[1]))
            }
            CXCursor_BinaryOperator if n.binop() == CXBinaryOperator_Assign => {
                match self.assign_update(n, edits) {
                    Ok(u) => u,
                    // a critical max/min update in an assignment (`x = v > x ? v : x`,
                    // `x = fmax(x, v)`)
                    Err(why) => match self.minmax_update(n) {
                        Ok(u) if what == "critical" => (u.target, u.op, rr(u.operand)),
                        _ => return Err(why),
                    },
                }
            }
            CXCursor_IfStmt if what == "critical" => {
                let u = self.minmax_update(n).map_err(|_| {
                    "'critical' section is not a single update (cannot become an OpenCL atomic)".to_string()
                })?;
                (u.target, u.op, rr(u.operand))
            }
            _ => {
                return Err(format!(
                    "'{what}' section is not a single update (cannot become an OpenCL atomic)"
                ))
            }
        };
        // target must live in a buffer
        let (ls, _) = pp_range(pp);
        if !in_buffer(lhs, buffers) {
            // private target: a plain update is enough
            return Ok(self.statement_as_is(st, ls, se, edits));
        }
        let tn = atomic_type(lhs, op)?;
        let fname = self.atomic_function(op, tn, false);
        Ok(Edit { start: ls, end: se, text: format!("{fname}(&({}), ({}));", rr(lhs), rhs) })
    }

    /// The device function of an atomic `op` on a `tn` in global memory (added to the kernel
    /// source once), and its name. `capture`: it returns the value the update found.
    fn atomic_function(&mut self, op: &str, tn: &str, capture: bool) -> String {
        let fname = format!("ompcl_atomic_{op}_{tn}{}", if capture { "_cap" } else { "" });
        let (ret, give, old) = if capture {
            (tn.to_string(), "return ", format!(" return as_{tn}(o);"))
        } else {
            ("void".to_string(), "", String::new())
        };
        if !self.atomics.contains_key(&fname) {
            let sym = match op {
                "add" => "+",
                "sub" => "-",
                "mul" => "*",
                "div" => "/",
                "and" => "&",
                "or" => "|",
                "xor" => "^",
                "shl" => "<<",
                _ => ">>",
            };
            let code = if op == "xchg" {
                if matches!(tn, "int" | "uint" | "float") {
                    format!("void {fname}(volatile __global {tn} *p, {tn} v) {{ atomic_xchg(p, v); }}\n")
                } else {
                    self.int64_atomics = true;
                    format!(
                        "void {fname}(volatile __global {tn} *p, {tn} v) {{ atom_xchg((volatile __global ulong *)p, as_ulong(v)); }}\n"
                    )
                }
            } else if matches!(op, "max" | "min") && !matches!(tn, "int" | "uint") {
                let (u, cas) = if matches!(tn, "long" | "ulong" | "double") {
                    ("ulong", "atom_cmpxchg")
                } else {
                    ("uint", "atomic_cmpxchg")
                };
                if u == "ulong" {
                    self.int64_atomics = true;
                }
                // the swap only where the value found is strictly less (max) / greater (min)
                // than v: ties and a NaN on either side leave it, as C's `if (v > x) x = v;`
                let cmp = if op == "max" { "<" } else { ">" };
                let cas_loop = format!(
                    "void {fname}(volatile __global {tn} *p, {tn} v) {{\n  volatile __global {u} *q = (volatile __global {u} *)p;\n  {u} o;\n  do {{ o = *q; if (!(as_{tn}(o) {cmp} v)) return; }} while ({cas}(q, o, as_{u}(v)) != o);\n}}\n"
                );
                if matches!(tn, "long" | "ulong") {
                    // 64-bit integers: the device's own atom_max/atom_min where the OpenCL
                    // compiler says it has cl_khr_int64_extended_atomics
                    format!(
                        "#ifdef cl_khr_int64_extended_atomics\n#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable\nvoid {fname}(volatile __global {tn} *p, {tn} v) {{ atom_{op}(p, v); }}\n#else\n{cas_loop}#endif\n"
                    )
                } else {
                    cas_loop
                }
            } else if matches!(tn, "int" | "uint")
                && matches!(op, "add" | "sub" | "and" | "or" | "xor" | "max" | "min")
            {
                format!("{ret} {fname}(volatile __global {tn} *p, {tn} v) {{ {give}atomic_{op}(p, v); }}\n")
            } else {
                let (u, cas) = if matches!(tn, "long" | "ulong" | "double") {
                    ("ulong", "atom_cmpxchg")
                } else {
                    ("uint", "atomic_cmpxchg")
                };
                if u == "ulong" {
                    self.int64_atomics = true;
                }
                format!(
                    "{ret} {fname}(volatile __global {tn} *p, {tn} v) {{\n  volatile __global {u} *q = (volatile __global {u} *)p;\n  {u} o, n;\n  do {{ o = *q; n = as_{u}(({tn})(as_{tn}(o) {sym} v)); }} while ({cas}(q, o, n) != o);{old}\n}}\n"
                )
            };
            self.atomics.insert(fname.clone(), code);
        }
        fname
    }

    /// An atomic on a private variable: the statement from `ls` to `se` as it is (one work-item
    /// owns the variable, so a plain update is the atomic one).
    fn statement_as_is(&self, st: Node, ls: usize, se: usize, edits: &[Edit]) -> Edit {
        let (s, e) = st.range();
        let body = render(self.cx.text, edits, s.off, self.cx.stmt_end(e.off).min(se));
        Edit { start: ls, end: se, text: format!("{};", body.trim_end_matches(';')) }
    }

    /// `atomic capture`: `v = x++`, `v = --x`, `v = x op= e`, or the blocks `{ v = x; x op= e; }`
    /// (the value before) and `{ x op= e; v = x; }` (after), `x++`-style updates too. The update
    /// is the atomic function's, which returns the value it found; `v` gets that value or the
    /// value it made (only `x` is accessed atomically, as OpenMP says).
    fn atomic_capture(
        &mut self,
        pp: &Pragma,
        st: Node,
        se: usize,
        edits: &[Edit],
        buffers: &HashSet<String>,
    ) -> Result<Edit, String> {
        let text = self.cx.text;
        let rr = |x: Node| -> String {
            let (s, e) = x.range();
            render(text, edits, s.off, e.off)
        };
        let bad = || "'atomic capture' statement is not of its form".to_string();
        // an update of x: (x, op, e, whether it is a postfix ++/--)
        let update = |u: Node| -> Option<(Node, &'static str, String, bool)> {
            let u = strip(u);
            match u.kind() {
                CXCursor_UnaryOperator => {
                    let c = u.children()[0];
                    match u.unop() {
                        CXUnaryOperator_PostInc => Some((c, "add", "1".into(), true)),
                        CXUnaryOperator_PostDec => Some((c, "sub", "1".into(), true)),
                        CXUnaryOperator_PreInc => Some((c, "add", "1".into(), false)),
                        CXUnaryOperator_PreDec => Some((c, "sub", "1".into(), false)),
                        _ => None,
                    }
                }
                CXCursor_CompoundAssignOperator => {
                    let c = u.children();
                    let op = match u.binop() {
                        CXBinaryOperator_AddAssign => "add",
                        CXBinaryOperator_SubAssign => "sub",
                        CXBinaryOperator_MulAssign => "mul",
                        CXBinaryOperator_DivAssign => "div",
                        CXBinaryOperator_AndAssign => "and",
                        CXBinaryOperator_OrAssign => "or",
                        CXBinaryOperator_XorAssign => "xor",
                        CXBinaryOperator_ShlAssign => "shl",
                        CXBinaryOperator_ShrAssign => "shr",
                        _ => return None,
                    };
                    Some((c[0], op, rr(c[1]), false))
                }
                _ => None,
            }
        };
        let assign = |a: Node| {
            let a = strip(a);
            (a.kind() == CXCursor_BinaryOperator && a.binop() == CXBinaryOperator_Assign)
                .then(|| a.children())
        };
        let n = strip(st);
        // (v, x, op, e, whether v gets the value before the update)
        let (v, x, op, e, before) = if n.kind() == CXCursor_CompoundStmt {
            let k = n.children();
            if k.len() != 2 {
                return Err(bad());
            }
            let same = |a: Node, b: Node| rr(a).trim() == rr(b).trim();
            match (assign(k[0]), assign(k[1])) {
                (Some(a), _) if update(k[1]).is_some_and(|u| same(a[1], u.0)) => {
                    let (x, op, e, _) = update(k[1]).ok_or_else(bad)?;
                    (a[0], x, op, e, true)
                }
                (_, Some(a)) if update(k[0]).is_some_and(|u| same(a[1], u.0)) => {
                    let (x, op, e, _) = update(k[0]).ok_or_else(bad)?;
                    (a[0], x, op, e, false)
                }
                _ => return Err(bad()),
            }
        } else {
            let a = assign(n).ok_or_else(bad)?;
            let (x, op, e, post) = update(a[1]).ok_or_else(bad)?;
            (a[0], x, op, e, post)
        };
        let (ls, _) = pp_range(pp);
        if !in_buffer(x, buffers) {
            // a private x: the statement as it is
            return Ok(self.statement_as_is(st, ls, se, edits));
        }
        let tn = atomic_type(x, op)?;
        let f = self.atomic_function(op, tn, true);
        let sym = match op {
            "add" => "+",
            "sub" => "-",
            "mul" => "*",
            "div" => "/",
            "and" => "&",
            "or" => "|",
            "xor" => "^",
            "shl" => "<<",
            _ => ">>",
        };
        let got = if before { "__ompcl_o".to_string() } else { format!("({tn})(__ompcl_o {sym} __ompcl_e)") };
        Ok(Edit {
            start: ls,
            end: se,
            text: format!(
                "{{ {tn} __ompcl_e = ({e}); {tn} __ompcl_o = {f}(&({}), __ompcl_e); {} = {got}; }}",
                rr(x),
                rr(v)
            ),
        })
    }

    /// Functions reachable from `from` in the kernel call graph.
    pub(super) fn reachable(&self, from: &str) -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from.to_string()];
        while let Some(x) = stack.pop() {
            if let Some(cs) = self.calls.get(&x) {
                for c in cs {
                    if seen.insert(c.clone()) {
                        stack.push(c.clone());
                    }
                }
            }
        }
        seen
    }

    /// A function on a call cycle reachable from `from`, if any.
    pub(super) fn recursive_from(&self, from: &str) -> Option<String> {
        self.reachable(from)
            .into_iter()
            .find(|f| self.reachable(f).contains(f))
            .map(|k| k.rsplit(':').next().unwrap_or("").to_string())
    }

    /// The prototype and definition of kernel function `f`; with `mask`, the copy whose
    /// parameters of those bits are `__private` pointers (a work-item's own array passed), named
    /// `variant_name`.
    pub(super) fn render_function(&mut self, f: Node, mask: u32) -> Result<(String, String), String> {
        let (fs, fe) = f.range();
        let mut vars = BTreeMap::new();
        let mut edits = Vec::new();
        let mut lpw = false;
        self.caller = key_of(&f);
        self.analyse_code(f, fs.off, fe.off, &mut vars, &mut edits, &mut lpw, false)?;
        let params: Vec<Node> = f.children().into_iter().filter(|c| c.kind() == CXCursor_ParmDecl).collect();
        for (i, p) in params.iter().enumerate() {
            if mask & (1 << i) != 0 {
                let ps = p.spelling_range().0.off;
                for x in edits.iter_mut().filter(|x| x.start == ps && x.text == "__global ") {
                    x.text = "__private ".into();
                }
            }
        }
        // the function's own name
        let name = f.spelling();
        let np = f.loc_spelling();
        // C89's implicit `int` return type (`static sq(int x)`) is spelled out: OpenCL C is C99
        let ftext0 = self.cx.file_text(&fs.file);
        let implicit_int = np.file == fs.file
            && np.off >= fs.off
            && ftext0.get(fs.off..np.off).is_some_and(|h| {
                !h.contains('*')
                    && h.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).all(|w| {
                        matches!(
                            w,
                            "" | "static" | "extern" | "inline" | "__inline" | "__inline__" | "register"
                        )
                    })
            });
        let int = if implicit_int { "int " } else { "" };
        edits.push(Edit {
            start: np.off,
            end: np.off + name.len(),
            text: format!("{int}{}", variant_name(&name, mask)),
        });
        let body = f
            .children()
            .into_iter()
            .find(|c| c.kind() == CXCursor_CompoundStmt)
            .ok_or("function without body")?;
        let bstart = body.range().0.off;
        let ftext = self.cx.file_text(&fs.file);
        let globals = self.func_globals.get(&key_of(&f)).cloned().unwrap_or_default();
        let knr = knr_parameters(f, &ftext);
        if let Some(open) = knr {
            // `f(a, b) int a; float b; {` -> `f(int a, float b[, globals]) {`
            let mut ps = Vec::new();
            for c in f.children().into_iter().filter(|c| c.kind() == CXCursor_ParmDecl) {
                ps.push(self.types.declr(c.ty(), &c.spelling())?);
            }
            for (g, w) in &globals {
                let (ty, n) = (g.ty(), g.spelling());
                self.types.note(ty, 0)?;
                ps.push(if ty.is_array() {
                    let e = ty.canonical().elem();
                    let inner = if e.is_array() { format!("(*{n})") } else { format!("*{n}") };
                    let space = self.function_global_space(g, *w);
                    format!("{space} {}", self.types.declr(e, &inner)?)
                } else {
                    self.types.declr(ty, &n)?
                });
            }
            edits.push(Edit { start: open, end: bstart, text: format!("({}) ", ps.join(", ")) });
        } else if !globals.is_empty() {
            // the globals become trailing parameters (same names: the body is unchanged)
            let mut ps = Vec::new();
            for (g, w) in &globals {
                let (ty, n) = (g.ty(), g.spelling());
                self.types.note(ty, 0)?;
                let c = ty.canonical();
                ps.push(if ty.is_array() {
                    let e = c.elem();
                    let inner = if e.is_array() { format!("(*{n})") } else { format!("*{n}") };
                    let space = self.function_global_space(g, *w);
                    format!("{space} {}", self.types.declr(e, &inner)?)
                } else {
                    self.types.declr(ty, &n)?
                });
            }
            let head = &ftext[fs.off..bstart];
            let close = fs.off + head.rfind(')').ok_or("function without a parameter list")?;
            if f.num_args() > 0 {
                edits.push(Edit { start: close, end: close, text: format!(", {}", ps.join(", ")) });
            } else {
                let open =
                    fs.off + head[..close - fs.off].rfind('(').ok_or("function without a parameter list")?;
                edits.push(Edit { start: open + 1, end: close, text: ps.join(", ") });
            }
        }
        let mut head = render(&ftext, &edits, fs.off, bstart);
        let mut all = render(&ftext, &edits, fs.off, fe.off);
        for h in [&mut head, &mut all] {
            if h.starts_with("inline ") {
                h.replace_range(0..7, "static inline ");
            }
        }
        Ok((format!("{};\n", head.trim_end()), format!("{all}\n")))
    }
}

/// `f(a, b) int a; float b; { ... }` (a declaration list between the parameters and the body):
/// the offset of the parameter list's `(`.
fn knr_parameters(f: Node, ftext: &str) -> Option<usize> {
    let np = f.loc_spelling();
    let body = f.children().into_iter().find(|c| c.kind() == CXCursor_CompoundStmt)?;
    let bstart = body.range().0.off;
    let head = ftext.get(np.off..bstart)?;
    let open = head.find('(')?;
    let mut depth = 0;
    for (i, c) in head[open..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return head[open + i..].contains(';').then_some(np.off + open);
                }
            }
            _ => {}
        }
    }
    None
}

/// The globals a kernel function uses (its outside variables `fv`), each with whether the function
/// may write it; or why they cannot be passed to it: arrays and pointers go as buffers, scalars
/// only read go by value.
pub(super) fn function_globals(
    name: &str,
    fv: &BTreeMap<String, Var>,
    threadprivate: &HashSet<String>,
) -> Result<Vec<(Node, bool)>, String> {
    let mut out = Vec::new();
    for g in fv.values() {
        let w = g.assigned || g.written_through;
        if threadprivate.contains(&g.name) {
            return Err(format!("function '{name}' uses threadprivate variable '{}'", g.name));
        }
        match g.ty.canonical().kind() {
            CXType_ConstantArray | CXType_IncompleteArray => {}
            CXType_Pointer if !g.assigned => {}
            CXType_Record => return Err(format!("function '{name}' uses global struct '{}'", g.name)),
            k if g.ty.is_arith() && !w && k != CXType_Bool => {}
            _ => {
                return Err(format!(
                    "function '{name}' writes global variable '{}' (or it has a type passed by no argument)",
                    g.name
                ))
            }
        }
        out.push((g.decl, w));
    }
    Ok(out)
}

/// Whether the variable an atomic updates (`target`, an lvalue) is one of the kernel's buffers:
/// only those need an OpenCL atomic.
fn in_buffer(target: Node, buffers: &HashSet<String>) -> bool {
    decl_refs(target)
        .into_iter()
        .filter_map(|d| d.referenced())
        .find(|r| matches!(r.kind(), CXCursor_VarDecl | CXCursor_ParmDecl))
        .is_some_and(|b| buffers.contains(&key_of(&b)))
}

/// The OpenCL type of an atomic's target for the operation `op`, or why OpenCL has no such atomic.
fn atomic_type(target: Node, op: &str) -> Result<&'static str, String> {
    let tn = builtin_cl(target.ty().canonical().kind())
        .ok_or_else(|| format!("atomic on type '{}'", target.ty().spelling()))?;
    if !matches!(tn, "int" | "uint" | "long" | "ulong" | "float" | "double") {
        return Err(format!("atomic on type '{tn}'"));
    }
    if matches!(tn, "float" | "double") && matches!(op, "and" | "or" | "xor" | "shl" | "shr") {
        return Err("bitwise atomic on a floating type".into());
    }
    Ok(tn)
}

/// Phase of `Translator::atomic_edit`: the atomic operation of a compound assignment
/// (`x += e`: `add`), or None when OpenCL has none.
fn compound_assign_op(op: CXBinaryOperatorKind) -> Option<&'static str> {
    match op {
        CXBinaryOperator_AddAssign => Some("add"),
        CXBinaryOperator_SubAssign => Some("sub"),
        CXBinaryOperator_MulAssign => Some("mul"),
        CXBinaryOperator_DivAssign => Some("div"),
        CXBinaryOperator_AndAssign => Some("and"),
        CXBinaryOperator_OrAssign => Some("or"),
        CXBinaryOperator_XorAssign => Some("xor"),
        CXBinaryOperator_ShlAssign => Some("shl"),
        CXBinaryOperator_ShrAssign => Some("shr"),
        _ => None,
    }
}

/// The kernel's name of user function `name`, for the copy whose parameters in `mask` are
/// `__private` pointers (0: the plain copy).
fn variant_name(name: &str, mask: u32) -> String {
    if mask == 0 {
        format!("ompcl_f_{name}")
    } else {
        format!("ompcl_f_{name}__p{mask}")
    }
}
