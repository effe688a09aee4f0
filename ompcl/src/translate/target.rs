//! OpenMP 4.5 device constructs on OpenCL: `target` regions (and the combined forms
//! `target teams distribute parallel for [simd]`, `target parallel for`, `target simd`, ...) become
//! kernels with the machinery of `parallel for` (one work-item per iteration); `target data`,
//! `target enter/exit data` and `target update` drive the runtime's device data environment
//! (runtime/rt_target.c: a present table with reference counts over the allocation table's blocks).
//!
//! A target region is wrapped as
//!
//! ```c
//! { ompcl_map m[] = { explicit maps, implicit maps of the arrays its kernel uses };
//!   int d = ompcl_target_device(device, if);         // 1: the OpenCL device, 0: the host
//!   ompcl_target_map_enter(d, m, n);                  // present table: refcount++, copy in if new
//!   int ok = 0; if (d) { launch the kernel(s) }       // mapped blocks are neither sent nor copied back
//!   if (!ok) { ompcl_target_host_begin(d);            // device copies -> host
//!              #pragma omp target ...  (the original region, run by the C compiler's OpenMP)
//!              ompcl_target_host_end(d); }            // host -> device copies
//!   ompcl_target_map_exit(d, m, n); }                 // refcount--, copy out at 0
//! ```
//!
//! Programs holding device constructs always use the C compiler's OpenMP (-fopenmp) for their CPU
//! versions: on the host, GCC runs a target region on the encountering thread (its data clauses
//! are no-ops with shared memory), which is the host fallback OpenMP allows.

use super::*;

/// Map-type bits shared with runtime/ompcl_rt.h.
const MAP_TO: u32 = 1;
const MAP_FROM: u32 = 2;
const MAP_RELEASE: u32 = 8;
const MAP_DELETE: u32 = 16;
const MAP_ALWAYS: u32 = 32;
/// a scalar, struct or struct member: an entry of the present table without device storage
const MAP_PRESENCE: u32 = 64;

/// Directive-name modifiers of `if` clauses.
const MODIFIERS: &[&str] = &[
    "target",
    "target data",
    "target enter data",
    "target exit data",
    "target update",
    "parallel",
    "simd",
    "task",
    "taskloop",
    "cancel",
];

/// One map item: host C of its address and size, and its map type.
struct MapItem {
    base: String,
    addr: String,
    size: String,
    ty: u32,
    /// the array variable a section belongs to (host C of its address and size)
    obj: Option<(String, String)>,
}

/// Split `s` at top-level `sep` (not inside brackets or parentheses).
fn split_top(s: &str, sep: char) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut cur = String::new();
    for ch in s.chars() {
        match ch {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            _ => {}
        }
        if ch == sep && depth == 0 {
            out.push(cur.trim().to_string());
            cur.clear();
        } else {
            cur.push(ch);
        }
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

/// `base[a][b:c]...` -> (base, [(lo, Some(len)) | (index, None)])
fn sections(item: &str) -> (String, Vec<(String, Option<String>)>) {
    let Some(open) = item.find('[') else { return (item.trim().to_string(), vec![]) };
    let base = item[..open].trim().to_string();
    let mut secs = Vec::new();
    let b = item.as_bytes();
    let mut i = open;
    while i < b.len() && b[i] == b'[' {
        let mut depth = 0;
        let mut j = i;
        while j < b.len() {
            match b[j] {
                b'[' | b'(' => depth += 1,
                b']' | b')' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                _ => {}
            }
            j += 1;
        }
        let inner = &item[i + 1..j.min(item.len())];
        match first_colon(inner) {
            Some((lo, len)) => {
                let lo = if lo.is_empty() { "0".to_string() } else { lo };
                secs.push((lo, Some(len)));
            }
            None => secs.push((inner.trim().to_string(), None)),
        }
        i = j + 1;
        while i < b.len() && (b[i] as char).is_whitespace() {
            i += 1;
        }
    }
    (base, secs)
}

/// `lo:len` split at the first top-level ':' (both trimmed), or None.
fn first_colon(s: &str) -> Option<(String, String)> {
    let mut d = 0;
    for (k, ch) in s.char_indices() {
        match ch {
            '(' | '[' => d += 1,
            ')' | ']' => d -= 1,
            ':' if d == 0 => return Some((s[..k].trim().to_string(), s[k + 1..].trim().to_string())),
            _ => {}
        }
    }
    None
}

/// A target region's kernels take no `if` clause (the runtime decides `if(target: ...)`), but for
/// `if(parallel: c)`, kept as `__if_parallel(c)`: false, every team has one thread (what the
/// kernel's thread queries then say, kernel.rs).
fn keep_parallel_if(q: &mut Pragma) {
    for c in q.clauses.iter_mut().filter(|c| c.name == "if") {
        if let Some((m, e)) = c.arg.as_deref().and_then(first_colon) {
            if m == "parallel" {
                c.name = "__if_parallel".into();
                c.arg = Some(e);
            }
        }
    }
    q.clauses.retain(|c| c.name != "if");
}

fn is_ident(s: &str) -> bool {
    !s.is_empty()
        && s.chars().all(|c| c.is_alphanumeric() || c == '_')
        && !s.chars().next().is_some_and(|c| c.is_ascii_digit())
}

impl<'a> Translator<'a> {
    /// The declaration a name in a clause of the pragma at `off` refers to (the nearest earlier
    /// declaration in the same function, else a global).
    fn decl_at(&self, tu: &clang::Tu, name: &str, off: usize) -> Option<Node> {
        let file = self.cx.file.clone();
        let mut best: Option<(usize, Node)> = None;
        let mut global = None;
        for top in tu.root().children() {
            let (s, e) = top.range();
            if top.kind() == CXCursor_VarDecl && top.spelling() == name {
                global = Some(top);
            }
            if top.kind() != CXCursor_FunctionDecl || s.file != file || off < s.off || off >= e.off {
                continue;
            }
            top.walk(&mut |c| {
                if (c.kind() == CXCursor_VarDecl || c.kind() == CXCursor_ParmDecl) && c.spelling() == name {
                    let p = c.loc();
                    if p.file == file && p.off < off && best.as_ref().is_none_or(|(o, _)| *o < p.off) {
                        best = Some((p.off, c));
                    }
                }
            });
        }
        best.map(|b| b.1).or(global)
    }

    /// The items of the `map`/`to`/`from` clauses of `p` (`clause`: which clause; `dflt`: the map
    /// type when none is written). Items that need no transfer (scalars, pointers themselves) are
    /// left out: scalars are by-value kernel arguments or copied in and out at each launch.
    fn map_items(&mut self, tu: &clang::Tu, p: &Pragma, clause: &str, dflt: u32) -> Vec<MapItem> {
        self.map_names.clear();
        let mut out = Vec::new();
        for c in p.clauses.iter().filter(|c| c.name == clause) {
            let Some(arg) = &c.arg else { continue };
            // `map(always, tofrom: a)`: the modifiers are before the first top-level ':'
            let (mods, list) = first_colon(arg).unwrap_or_else(|| (String::new(), arg.clone()));
            let mut ty = dflt;
            for m in mods.split([',', ' ']).map(str::trim).filter(|m| !m.is_empty()) {
                ty = match m {
                    "always" => ty | MAP_ALWAYS,
                    "to" => (ty & MAP_ALWAYS) | MAP_TO,
                    "from" => (ty & MAP_ALWAYS) | MAP_FROM,
                    "tofrom" => (ty & MAP_ALWAYS) | MAP_TO | MAP_FROM,
                    "alloc" => ty & MAP_ALWAYS,
                    "release" => (ty & MAP_ALWAYS) | MAP_RELEASE,
                    "delete" => (ty & MAP_ALWAYS) | MAP_DELETE,
                    other => {
                        let (l, col) = (p.line, p.col);
                        self.cx.warn(l, col, &format!("map modifier '{other}' ignored"));
                        ty
                    }
                };
            }
            for item in split_top(&list, ',') {
                // the variable (a struct whose members are mapped counts as mapped)
                let base: String = item.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                if is_ident(&base) {
                    self.map_names.push((base, ty));
                }
                if let Some(mi) = self.map_item(tu, p, &item, ty) {
                    out.push(mi);
                }
            }
        }
        out
    }

    fn map_item(&mut self, tu: &clang::Tu, p: &Pragma, item: &str, ty: u32) -> Option<MapItem> {
        let (base, secs) = sections(item);
        let name: String = base.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        let decl = if is_ident(&name) { self.decl_at(tu, &name, p.line_start) } else { None };
        let dty = decl.map(|d| d.ty().canonical());
        let is_array = dty.as_ref().is_some_and(|t| t.is_array());
        // a member of a struct (`s.a`, `s.in.b`, `s.c[1:2]`, `s.p[0:n]`): its type
        let chain: Vec<&str> = base.split('.').map(str::trim).collect();
        let member = chain.len() > 1 && chain.iter().all(|c| is_ident(c));
        let mty = if member {
            dty.and_then(|t| {
                let mut t = t;
                for m in &chain[1..] {
                    if t.kind() != CXType_Record {
                        return None;
                    }
                    let f = t
                        .declaration()
                        .definition()
                        .unwrap_or(t.declaration())
                        .children()
                        .into_iter()
                        .find(|c| c.kind() == CXCursor_FieldDecl && c.spelling() == *m)?;
                    t = f.ty().canonical();
                }
                Some(t)
            })
        } else {
            None
        };
        // scalars, structs and struct members (but a section of what a pointer member points to)
        // are presence entries: kernels copy them in and out at each launch
        let presence = |addr: String, size: String| {
            Some(MapItem { base: name.clone(), addr, size, ty: ty | MAP_PRESENCE, obj: None })
        };
        if secs.is_empty() {
            // a whole variable: arrays are mapped; scalars and structs, their members, have
            // presence entries; pointers themselves need nothing
            if is_ident(&base) && is_array {
                return Some(MapItem {
                    base: base.clone(),
                    addr: format!("(void*)&{base}"),
                    size: format!("sizeof({base})"),
                    ty,
                    obj: None,
                });
            }
            let scalar = |t: &Type| t.is_arith() || t.kind() == CXType_Record;
            if is_ident(&base) && dty.as_ref().is_some_and(scalar) {
                return presence(format!("(void*)&{base}"), format!("sizeof({base})"));
            }
            if member && mty.is_some() {
                return presence(format!("(void*)&({base})"), format!("sizeof({base})"));
            }
            return None;
        }
        let member_array = member && mty.as_ref().is_some_and(|t| t.is_array());
        let member_pointer = member && mty.as_ref().is_some_and(|t| t.kind() == CXType_Pointer);
        if !is_ident(&base) && !member_array && !member_pointer {
            return None;
        }
        let is_array = is_array || member_array;
        let mut first = base.clone();
        let mut last = base.clone();
        let mut nonempty = Vec::new();
        let mut dim = base.clone();
        for (k, (lo, len)) in secs.iter().enumerate() {
            let len = match len {
                None => "1".to_string(),
                Some(l) if l.is_empty() => {
                    // `a[lo:]`: to the end of an array dimension
                    if k > 0 || is_array {
                        format!("(sizeof({dim}) / sizeof({dim}[0]) - ({lo}))")
                    } else {
                        let (l, c) = (p.line, p.col);
                        self.cx.warn(
                            l,
                            c,
                            &format!("array section '{item}' of a pointer without a length: not mapped"),
                        );
                        return None;
                    }
                }
                Some(l) => format!("({l})"),
            };
            first = format!("{first}[{lo}]");
            last = format!("{last}[({lo}) + {len} - 1]");
            nonempty.push(format!("{len} > 0"));
            dim = format!("{dim}[0]");
        }
        let size =
            format!("(({}) ? (size_t)((char*)(&{last} + 1) - (char*)&{first}) : 0)", nonempty.join(" && "));
        if member_array {
            // a section of an array member: part of the struct
            return presence(format!("(void*)&{first}"), size);
        }
        let obj = (is_array && !member && decl.is_some_and(|d| d.kind() != CXCursor_ParmDecl))
            .then(|| (format!("(void*)&{name}"), format!("sizeof({name})")));
        Some(MapItem { obj, base: name, addr: format!("(void*)&{first}"), size, ty })
    }

    /// `{ {addr, size, type}, ... }` and the count.
    fn map_array(items: &[MapItem]) -> (String, usize) {
        if items.is_empty() {
            return ("{ {0, 0, 0, 0, 0} }".into(), 0);
        }
        let v: Vec<String> = items
            .iter()
            .map(|m| match &m.obj {
                Some((a, s)) => format!("{{ {}, {}, {}, {a}, {s} }}", m.addr, m.size, m.ty),
                None => format!("{{ {}, {}, {}, 0, 0 }}", m.addr, m.size, m.ty),
            })
            .collect();
        (format!("{{ {} }}", v.join(", ")), items.len())
    }

    /// The device expression and if-condition of a device construct.
    fn device_if(p: &Pragma) -> (String, String) {
        let dev = p.clause("device").and_then(|c| c.arg.clone()).unwrap_or_else(|| "-1".into());
        let ifc = p
            .clauses
            .iter()
            .filter(|c| c.name == "if")
            .filter_map(|c| c.arg.clone())
            .find_map(|a| match a.split_once(':') {
                Some((m, e))
                    if !e.starts_with(':')
                        && MODIFIERS
                            .contains(&m.split_whitespace().collect::<Vec<_>>().join(" ").as_str()) =>
                {
                    if m.trim().starts_with("target") {
                        Some(e.trim().to_string())
                    } else {
                        None
                    }
                }
                _ => Some(a),
            })
            .unwrap_or_else(|| "1".into());
        (dev, ifc)
    }

    /// The `target ...` constructs of the file: data constructs become runtime calls, target regions
    /// kernels (or the host fallback). Returns the statement ranges of the target regions (the
    /// `parallel` regions inside them are not regions of their own).
    pub(super) fn target_ranges(&self) -> Vec<(usize, usize)> {
        let mut v = Vec::new();
        for (i, p) in self.cx.pragmas.iter().enumerate() {
            if p.directive[0] == "target"
                && !matches!(
                    p.directive.get(1).map(String::as_str),
                    Some("data" | "enter" | "exit" | "update")
                )
            {
                if let Some(&(_, s, e)) = self.cx.assoc.get(&i) {
                    v.push((s.min(p.line_start), e));
                }
            }
        }
        v.extend(self.declare_target_ranges());
        v
    }

    /// `declare target` ... `end declare target`: device code the C compiler also builds for its
    /// offload targets; regions in it are left to the C compiler
    fn declare_target_ranges(&self) -> Vec<(usize, usize)> {
        let mut v = Vec::new();
        let mut open = None;
        for p in &self.cx.pragmas {
            if p.is(&["declare", "target"]) && p.dir_arg.is_none() && p.clauses.is_empty() {
                open = open.or(Some(p.line_start));
            } else if p.is(&["end", "declare", "target"]) {
                if let Some(s) = open.take() {
                    v.push((s, p.end));
                }
            }
        }
        v
    }

    pub(super) fn target_pass(
        &mut self,
        tu: &clang::Tu,
        host_edits: &mut Vec<HEdit>,
        kernels: &mut String,
        regions_out: &mut Vec<(u32, bool, String)>,
        offloaded: &mut Vec<usize>,
    ) {
        let file = self.cx.file.clone();
        let mut outer: Vec<(usize, usize)> = Vec::new();
        let declare = self.declare_target_ranges();
        for i in 0..self.cx.pragmas.len() {
            let p = self.cx.pragmas[i].clone();
            if p.directive[0] != "target" {
                continue;
            }
            if declare.iter().any(|&(s, de)| p.line_start >= s && p.line_start < de) {
                continue;
            }
            let nl = self.cx.text[p.line_start..p.end].matches('\n').count();
            let depend = if p.clause("depend").is_some() { "\n#pragma omp taskwait\n" } else { "" };
            let (dev, ifc) = Self::device_if(&p);
            let d1 = p.directive.get(1).map(String::as_str);
            match d1 {
                Some("enter") | Some("exit") | Some("update") => {
                    let items = if d1 == Some("update") {
                        let mut v = self.map_items(tu, &p, "to", MAP_TO);
                        v.extend(self.map_items(tu, &p, "from", MAP_FROM));
                        v
                    } else {
                        let d = if d1 == Some("enter") { MAP_TO } else { MAP_FROM };
                        self.map_items(tu, &p, "map", d)
                    };
                    let (arr, n) = Self::map_array(&items);
                    let call = match d1 {
                        Some("enter") => "ompcl_target_map_enter",
                        Some("exit") => "ompcl_target_map_exit",
                        _ => "ompcl_target_update",
                    };
                    let text = format!(
                        "{depend}{{ ompcl_map __ompcl_mp[] = {arr}; {call}(ompcl_target_device(&__ompcl_mod, {}, (long long)({dev}), ({ifc})), __ompcl_mp, {n}); }}\n#line {} \"{file}\"",
                        p.line,
                        p.line as usize + nl + 1
                    );
                    host_edits.push(HEdit { start: p.line_start, end: p.end, text, order: 0 });
                }
                Some("data") => {
                    let Some(&(_, _, e)) = self.cx.assoc.get(&i) else { continue };
                    let items = self.map_items(tu, &p, "map", MAP_TO | MAP_FROM);
                    let (arr, n) = Self::map_array(&items);
                    let pre = format!(
                        "{{ ompcl_map __ompcl_dm{i}[] = {arr}; int __ompcl_dd{i} = ompcl_target_device(&__ompcl_mod, {}, (long long)({dev}), ({ifc})); ompcl_target_map_enter(__ompcl_dd{i}, __ompcl_dm{i}, {n});\n#line {} \"{file}\"\n",
                        p.line, p.line
                    );
                    host_edits.push(HEdit {
                        start: p.line_start,
                        end: p.line_start,
                        text: pre,
                        order: -1000,
                    });
                    let post = format!(" ompcl_target_map_exit(__ompcl_dd{i}, __ompcl_dm{i}, {n}); }}");
                    // after the closing text of what it holds ending at the same place (inner first)
                    let order = 1001 + (e - p.line_start).min(1 << 30) as i32;
                    host_edits.push(HEdit { start: e, end: e, text: post, order });
                }
                _ => {
                    let Some(&(_, _, e)) = self.cx.assoc.get(&i) else {
                        let (l, c) = (p.line, p.col);
                        self.cx.warn(l, c, "no statement follows this OpenMP directive");
                        continue;
                    };
                    if outer.iter().any(|&(s, oe)| p.line_start >= s && p.line_start < oe) {
                        continue; // nested target: an error for OpenMP, the C compiler says so
                    }
                    outer.push((p.line_start, e));
                    self.target_region(
                        tu,
                        i,
                        &p,
                        e,
                        &dev,
                        &ifc,
                        depend,
                        host_edits,
                        kernels,
                        regions_out,
                        offloaded,
                    );
                }
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn target_region(
        &mut self,
        tu: &clang::Tu,
        i: usize,
        p: &Pragma,
        e: usize,
        dev: &str,
        ifc: &str,
        depend: &str,
        host_edits: &mut Vec<HEdit>,
        kernels: &mut String,
        regions_out: &mut Vec<(u32, bool, String)>,
        offloaded: &mut Vec<usize>,
    ) {
        let file = self.cx.file.clone();
        let line = p.line;
        let rid = self.next_kid;
        self.next_kid += 1;
        let mut items = self.map_items(tu, p, "map", MAP_TO | MAP_FROM);
        // scalars the region may write come back to the host when a map clause names them (or with
        // `defaultmap(tofrom: scalar)`); others are firstprivate. Scalars have no device copy: one
        // mapped `to`/`alloc` here may be present from an enclosing construct that copies it out
        let all = p.clause("defaultmap").is_some();
        let named: HashSet<String> = self.map_names.iter().map(|(n, _)| n.clone()).collect();
        // a write comes back unless the variable is mapped `alloc` only (the device copy starts
        // undefined and is never copied out: a device with memory of its own, libgomp's target-24
        // probe); a scalar mapped `to` that the region writes comes back too, as on a device that
        // shares memory with the host (ompcl's device addresses are the host's: a program probing
        // with `map(to: x)`, as libgomp's target-19, target-27 and target-link-1 do, then finds
        // pointers consistent with what it concludes)
        let from: HashSet<String> = self
            .map_names
            .iter()
            .filter(|(_, t)| t & (MAP_FROM | MAP_TO) != 0)
            .map(|(n, _)| n.clone())
            .collect();
        self.target_scalars_out = Some((all, named, from));
        self.in_target = Some(Vec::new());
        self.pending_notes.clear();
        let res = self.target_steps(i, rid);
        let implicit = self.in_target.take().unwrap_or_default();
        self.target_scalars_out = None;
        let notes = std::mem::take(&mut self.pending_notes);
        // the kernel may not be made after the C compiler ran... nowait: the region runs
        // synchronously (its host fallback too: GCC would otherwise defer it past our copies)
        if let Some(c) = p.clause("nowait") {
            host_edits.push(HEdit {
                start: c.start,
                end: c.end,
                text: " ".repeat(c.end - c.start),
                order: 0,
            });
        }
        let mut pre = String::new();
        let post;
        match res {
            Ok(steps) => {
                self.cx.diags.extend(notes);
                // implicit maps: the local arrays the kernels use that no map clause names
                let mut seen: HashSet<String> = items.iter().map(|m| m.base.clone()).collect();
                let mut written: HashMap<String, bool> = HashMap::new();
                for (n, w) in &implicit {
                    *written.entry(n.clone()).or_default() |= *w;
                }
                for (n, _) in &implicit {
                    if seen.insert(n.clone()) {
                        let ty = if written[n] { MAP_TO | MAP_FROM } else { MAP_TO };
                        items.push(MapItem {
                            base: n.clone(),
                            addr: format!("(void*)&{n}"),
                            size: format!("sizeof({n})"),
                            ty,
                            obj: None,
                        });
                    }
                }
                let (arr, n) = Self::map_array(&items);
                let _ = write!(
                    pre,
                    "{depend}{{ ompcl_map __ompcl_tm[] = {arr}; int __ompcl_td = ompcl_target_device(&__ompcl_mod, {line}, (long long)({dev}), ({ifc})); ompcl_target_map_enter(__ompcl_td, __ompcl_tm, {n}); int __ompcl_ok = 0; double __ompcl_t0; if (__ompcl_td) {{ ompcl_in_target = 1; "
                );
                emit_step_kernels(&steps, kernels, offloaded);
                // the target body's locals the host holds (target_body.rs)
                pre.push_str(&std::mem::take(&mut self.target_hoisted));
                if let [Step::Kernel { k, kid, line: kline }] = steps.as_slice() {
                    pre.push_str(&kernel_call(k, *kid, *kline, 0));
                } else {
                    pre.push_str(&sequence_call(&steps, 0, &file));
                }
                let _ = write!(
                    pre,
                    "ompcl_in_target = 0; }} if (!__ompcl_ok) {{ ompcl_target_host_begin(__ompcl_td); __ompcl_t0 = ompcl_now();\n#line {line} \"{file}\"\n"
                );
                post = format!(
                    " ompcl_cpu_end(&__ompcl_mod, {rid}, {line}, __ompcl_t0); ompcl_target_host_end(__ompcl_td); }} ompcl_target_map_exit(__ompcl_td, __ompcl_tm, {n}); }}"
                );
                regions_out.push((line, true, String::new()));
            }
            Err(reason) => {
                let msg = format!(
                    "target region not offloaded to OpenCL: {reason}; it runs on the host (the device data it uses is copied back for it)"
                );
                self.cx.warn(p.line, p.col, &msg);
                regions_out.push((line, false, reason));
                let (arr, n) = Self::map_array(&items);
                let _ = write!(
                    pre,
                    "{depend}{{ ompcl_map __ompcl_tm[] = {arr}; int __ompcl_td = ompcl_target_device(&__ompcl_mod, {line}, (long long)({dev}), ({ifc})); ompcl_target_map_enter(__ompcl_td, __ompcl_tm, {n}); double __ompcl_t0; {{ ompcl_target_host_begin(__ompcl_td); __ompcl_t0 = ompcl_now();\n#line {line} \"{file}\"\n"
                );
                post = format!(
                    " ompcl_cpu_end(&__ompcl_mod, {rid}, {line}, __ompcl_t0); ompcl_target_host_end(__ompcl_td); }} ompcl_target_map_exit(__ompcl_td, __ompcl_tm, {n}); }}"
                );
            }
        }
        host_edits.push(HEdit { start: p.line_start, end: p.line_start, text: pre, order: -1000 });
        // before the closing text of a parallel region or data construct ending at the same place
        host_edits.push(HEdit { start: e, end: e, text: post, order: 999 });
    }

    /// The kernels of target region `i` (region id `rid` for its first kernel), or why not.
    fn target_steps(&mut self, i: usize, rid: usize) -> Result<Vec<Step>, String> {
        let mut cur = i;
        let mut chain: Vec<Pragma> = Vec::new();
        loop {
            let mut q = self.cx.pragmas[cur].clone();
            if let Some(u) = &q.unknown {
                return Err(format!("'{u}' is not translated to OpenCL"));
            }
            for c in ["ordered", "copyin"] {
                if q.clause(c).is_some() {
                    return Err(format!("'{c}' in a target region is not translated to OpenCL"));
                }
            }
            // `if` belongs to the target (decided by the runtime) or to the parallel part (a
            // kernel has no team: irrelevant)
            keep_parallel_if(&mut q);
            let d = q.directive.clone();
            chain.push(q.clone());
            let Some(&(node, _, e)) = self.cx.assoc.get(&cur) else {
                return Err("no statement follows the directive".into());
            };
            let loop_assoc = d.iter().any(|w| w == "for" || w == "distribute" || w == "simd");
            if loop_assoc {
                let line = self.cx.pragmas[i].line;
                let k = self.loop_kernel(rid, line, chain, node)?;
                return Ok(vec![Step::Kernel { k: Box::new(k), kid: rid, line }]);
            }
            if d.last().map(String::as_str) == Some("parallel") {
                // `target parallel` (or a `parallel` inside the target): as a parallel region
                let n = strip(node);
                let kids: Vec<Node> = if n.kind() == CXCursor_CompoundStmt {
                    n.children().into_iter().filter(|k| k.kind() != CXCursor_NullStmt).collect()
                } else {
                    vec![n]
                };
                let inner = self.pragmas_in(self.cx.pragmas[cur].end, e);
                if inner.iter().all(|&j| {
                    let w = self.cx.pragmas[j].directive.first().map(String::as_str);
                    matches!(w, Some("atomic" | "critical" | "flush"))
                }) {
                    // no worksharing inside: every thread of the team runs the body (a work-group
                    // whose work-items are the threads)
                    let line = self.cx.pragmas[i].line;
                    self.target_single = true;
                    self.target_spmd = true;
                    let k = self.loop_kernel(rid, line, chain, node);
                    self.target_single = false;
                    self.target_spmd = false;
                    return Ok(vec![Step::Kernel { k: Box::new(k?), kid: rid, line }]);
                }
                if let Some((fp, lp)) = self.taskloop_idiom(cur, &kids)? {
                    chain.push(fp);
                    let line = self.cx.pragmas[i].line;
                    let k = self.loop_kernel(rid, line, chain, lp)?;
                    return Ok(vec![Step::Kernel { k: Box::new(k), kid: rid, line }]);
                }
                if kids.len() == 1 && kids[0].kind() == CXCursor_ForStmt {
                    let first = inner.first().copied();
                    match first {
                        Some(fi)
                            if self.cx.pragmas[fi].is(&["for"])
                                && self.cx.assoc.get(&fi).is_some_and(|a| a.0.equals(&kids[0])) =>
                        {
                            let mut fp = self.cx.pragmas[fi].clone();
                            keep_parallel_if(&mut fp);
                            chain.push(fp);
                            let line = self.cx.pragmas[i].line;
                            let k = self.loop_kernel(rid, line, chain, kids[0])?;
                            return Ok(vec![Step::Kernel { k: Box::new(k), kid: rid, line }]);
                        }
                        _ => return Err("a 'parallel' region that is not a worksharing loop".into()),
                    }
                }
                // several constructs: merge the clauses of the enclosing directives into one
                let mut par = q.clone();
                for c in &chain {
                    for cl in &c.clauses {
                        if matches!(
                            cl.name.as_str(),
                            "private" | "firstprivate" | "reduction" | "lastprivate"
                        ) {
                            par.clauses.push(cl.clone());
                        }
                    }
                }
                let steps = self.sequence(&par, &kids, &inner)?;
                if steps.iter().any(|st| matches!(st, Step::Host(h) if !h.replicated)) {
                    // the host would run it between the kernels, on the host's copies
                    return Err("'single'/'master' code in a target region".into());
                }
                if steps.iter().any(|st| matches!(st, Step::Host(h) if !h.inner.is_empty())) {
                    // not tried with mapped data yet
                    return Err(
                        "a worksharing loop inside a statement that every thread runs, in a target region"
                            .into(),
                    );
                }
                return Ok(steps);
            }
            // a directive stacked on this one (`target` then `teams` then the block): the same
            // statement, so the body is that directive's
            let here = self.cx.pragmas[cur].line_start;
            let stacked = self.pragmas_in(self.cx.pragmas[cur].end, e).into_iter().find(|&j| {
                self.cx.pragmas[j].line_start > here
                    && self.cx.pragmas[j].has_statement()
                    && self.cx.assoc.get(&j).is_some_and(|a| a.0.equals(&node))
            });
            if let Some(j) = stacked {
                cur = j;
                continue;
            }
            // target / teams / target teams: the body must be one construct
            let n = strip(node);
            let kids: Vec<Node> = if n.kind() == CXCursor_CompoundStmt {
                n.children().into_iter().filter(|k| k.kind() != CXCursor_NullStmt).collect()
            } else {
                vec![n]
            };
            if kids.len() > 1 {
                // several loop constructs one after the other (`teams` holding two `distribute`
                // loops, `target` holding two `parallel for`): a kernel each, in order
                let body_pragmas = self.pragmas_in(self.cx.pragmas[cur].end, e);
                let loops: Vec<Option<usize>> = kids
                    .iter()
                    .map(|kid| {
                        body_pragmas.iter().copied().find(|&j| {
                            self.cx.assoc.get(&j).is_some_and(|a| a.0.equals(kid))
                                && self.cx.pragmas[j]
                                    .directive
                                    .iter()
                                    .any(|w| w == "for" || w == "distribute")
                        })
                    })
                    .collect();
                if loops.iter().all(Option::is_some) {
                    let mut steps = Vec::new();
                    for (kid, j) in kids.iter().zip(loops.into_iter().flatten()) {
                        let mut q = self.cx.pragmas[j].clone();
                        if let Some(u) = &q.unknown {
                            return Err(format!("'{u}' is not translated to OpenCL"));
                        }
                        keep_parallel_if(&mut q);
                        let id = self.next_kid;
                        self.next_kid += 1;
                        let mut ch = chain.clone();
                        ch.push(q.clone());
                        let k = self.loop_kernel(id, q.line, ch, *kid)?;
                        steps.push(Step::Kernel { k: Box::new(k), kid: id, line: q.line });
                    }
                    return Ok(steps);
                }
            }
            let body_pragmas = self.pragmas_in(self.cx.pragmas[cur].end, e);
            if kids.len() > 1 && !body_pragmas.is_empty() {
                // statements and loop constructs: a kernel each, in order (target_body.rs)
                let mut hoisted = String::new();
                let steps = self.target_body_steps(&chain, &kids, &body_pragmas, &mut hoisted)?;
                self.target_hoisted = hoisted;
                return Ok(steps);
            }
            let next = if kids.len() == 1 {
                self.pragmas_in(self.cx.pragmas[cur].end, e).into_iter().find(|&j| {
                    self.cx.pragmas[j].line_start > here
                        && self.cx.pragmas[j].has_statement()
                        && self.cx.assoc.get(&j).is_some_and(|a| a.0.equals(&kids[0]))
                })
            } else {
                None
            };
            let Some(j) = next else {
                // sequential code: one work-item runs it (with `teams`, as one team: every team
                // would run the same code, and OpenMP 4.5 lets the league have one team)
                let line = self.cx.pragmas[i].line;
                self.target_single = true;
                let k = self.loop_kernel(rid, line, target_body::one_team(&chain), node);
                self.target_single = false;
                return Ok(vec![Step::Kernel { k: Box::new(k?), kid: rid, line }]);
            };
            cur = j;
        }
    }
}
