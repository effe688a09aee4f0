//! Arrays and structs declared at a `parallel` region's top level, outside its worksharing loops
//! (NPB LU's `double ue_1jk[5];` before its `omp for`): each thread's own, like the region's
//! scalars, and each work-item's own in the kernels.
//!
//! OpenMP gives each THREAD one copy, which lives across all the iterations that thread runs, in
//! every worksharing loop of the region. A kernel gives each work-item one iteration and a fresh
//! copy, which is the same only when no iteration reads a value an earlier one left: each element
//! an iteration reads it has written before, in that iteration (`element_flow`). An aggregate no
//! loop writes at all only ever holds its start value (its initializer), which each work-item's
//! copy starts from too.

use super::*;

/// Whether a variable of type `t` declared in a region is an aggregate ompcl gives each work-item
/// a copy of: an array of constant size (of numbers or structs, any number of dimensions) or a
/// struct.
pub(super) fn is_private_aggregate(t: Type) -> bool {
    let t = t.canonical();
    if !(t.kind() == CXType_ConstantArray || t.kind() == CXType_Record) {
        return false;
    }
    let mut e = t;
    while e.kind() == CXType_ConstantArray {
        e = e.elem().canonical();
    }
    e.is_arith() || e.kind() == CXType_Record
}

/// The region's aggregates (`aggregates`: key -> name) that worksharing loop `lp` (its whole
/// statement) writes, by key.
pub(super) fn written_in(lp: Node, aggregates: &HashMap<String, String>) -> HashSet<String> {
    let mut out = HashSet::new();
    let mut note = |target: Option<Node>| {
        let Some(t) = target else { return };
        let (base, _) = access_path(t, &HashMap::new());
        if let Some(d) = base {
            if aggregates.contains_key(&key_of(&d)) {
                out.insert(key_of(&d));
            }
        }
    };
    let mut all = vec![lp];
    lp.walk(&mut |c| all.push(c));
    for c in all {
        match c.kind() {
            CXCursor_BinaryOperator if c.binop() == CXBinaryOperator_Assign => {
                note(c.children().first().copied())
            }
            CXCursor_CompoundAssignOperator => note(c.children().first().copied()),
            CXCursor_UnaryOperator
                if (CXUnaryOperator_PostInc..=CXUnaryOperator_PreDec).contains(&c.unop()) =>
            {
                note(c.children().first().copied())
            }
            // passed to a function (which may write it) or its address taken
            CXCursor_CallExpr => c.children().into_iter().skip(1).for_each(|a| note(Some(a))),
            CXCursor_UnaryOperator if c.unop() == CXUnaryOperator_AddrOf => {
                note(c.children().first().copied())
            }
            _ => {}
        }
    }
    out
}

/// Why worksharing loop `lp` (a `for` statement) cannot give each work-item fresh copies of the
/// region's aggregates `tracked` (key -> name): the first element some iteration may read before
/// that iteration writes it (then the value comes from an earlier iteration of the same thread),
/// or a use the check cannot follow. None when every read element was written before.
pub(super) fn element_flow(lp: Node, tracked: &HashMap<String, String>) -> Option<String> {
    let body = strip(lp).children().last().copied()?;
    let mut has_goto = false;
    body.walk(&mut |c| has_goto |= matches!(c.kind(), CXCursor_GotoStmt | CXCursor_IndirectGotoStmt));
    if has_goto {
        return Some("the loop body has a 'goto'".into());
    }
    let mut w = Flow { tracked, params: None, written: HashSet::new(), loops: Vec::new(), why: None };
    w.stmt(body);
    w.why
}

/// One step of the path to an element: a constant subscript, the variable of an enclosing counted
/// loop (its key) as subscript, a subscript ompcl cannot follow (any element of that dimension),
/// or a struct member.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
enum Part {
    At(i64),
    Var(String),
    Any,
    Field(String),
}

/// A tracked aggregate an access reaches: its key, name and declared type.
#[derive(Clone)]
struct Target {
    base: String,
    name: String,
    ty: Type,
}

/// A counting loop `for (v = lo; v < hi; v++)` (constant bounds, `v` not written in the body)
/// around the code being walked.
struct Counted {
    key: String,
    lo: i64,
    hi: i64,
}

/// The walk of one iteration in execution order.
struct Flow<'t> {
    /// the aggregates checked (key -> name)
    tracked: &'t HashMap<String, String>,
    /// inside a function the walk follows a call into: its parameter (key) that stands for the
    /// aggregate (or a row of it) the call passed, that aggregate and the path to that part
    params: Option<(String, Target, Vec<Part>)>,
    /// the element paths written so far in this iteration (unconditionally), by (aggregate, path);
    /// a path may hold the variables of the counted loops open around
    written: HashSet<(String, Vec<Part>)>,
    loops: Vec<Counted>,
    why: Option<String>,
}

/// Most elements one access may stand for before the check gives up (the arrays meant are small).
const MAX_ELEMENTS: usize = 4096;

/// The variable (its declaration) an access expression `e` starts from and the parts after it;
/// None where `e` is not a subscript/member (with `.`) chain on a variable.
fn access_path(e: Node, loops: &HashMap<String, (i64, i64)>) -> (Option<Node>, Vec<Part>) {
    let mut e = strip(e);
    let mut parts = Vec::new();
    loop {
        match e.kind() {
            CXCursor_ArraySubscriptExpr => {
                let (base, subs) = peel_subscripts(e);
                for s in subs {
                    let s = strip(s);
                    let part = if let Some(v) = s.eval_int() {
                        i64::try_from(v).ok().map(Part::At)
                    } else if s.kind() == CXCursor_DeclRefExpr {
                        s.referenced().map(|d| key_of(&d)).filter(|k| loops.contains_key(k)).map(Part::Var)
                    } else {
                        None
                    };
                    parts.push(part.unwrap_or(Part::Any));
                }
                e = base;
            }
            CXCursor_MemberRefExpr => {
                let Some(b) = e.children().first().map(|b| strip(*b)) else { return (None, parts) };
                if b.ty().canonical().kind() != CXType_Record {
                    return (None, parts); // `p->x`
                }
                parts.push(Part::Field(e.spelling()));
                e = b;
            }
            CXCursor_DeclRefExpr => {
                parts.reverse();
                return (e.referenced(), parts);
            }
            _ => return (None, parts),
        }
    }
}

/// The element paths (of an aggregate of type `ty`) that `path` stands for: a path to a sub-array
/// or struct by all the elements inside, a subscript ompcl cannot follow by every index (loop
/// variables stay); None where a part does not fit the type or there are too many.
fn leaves(ty: Type, path: &[Part], out: &mut Vec<Vec<Part>>, at: &mut Vec<Part>) -> Option<()> {
    if out.len() > MAX_ELEMENTS {
        return None;
    }
    let t = ty.canonical();
    let Some(first) = path.first() else {
        match t.kind() {
            CXType_ConstantArray => {
                for i in 0..t.array_size() {
                    at.push(Part::At(i));
                    leaves(t.elem(), &[], out, at)?;
                    at.pop();
                }
            }
            CXType_Record => {
                for f in t.declaration().children().into_iter().filter(|c| c.kind() == CXCursor_FieldDecl) {
                    at.push(Part::Field(f.spelling()));
                    leaves(f.ty(), &[], out, at)?;
                    at.pop();
                }
            }
            _ => out.push(at.clone()),
        }
        return Some(());
    };
    match first {
        Part::At(i) if t.kind() == CXType_ConstantArray && *i >= 0 && *i < t.array_size() => {
            at.push(first.clone());
            leaves(t.elem(), &path[1..], out, at)?;
            at.pop();
        }
        Part::Var(_) if t.kind() == CXType_ConstantArray => {
            at.push(first.clone());
            leaves(t.elem(), &path[1..], out, at)?;
            at.pop();
        }
        Part::Any if t.kind() == CXType_ConstantArray => {
            for v in 0..t.array_size() {
                at.push(Part::At(v));
                leaves(t.elem(), &path[1..], out, at)?;
                at.pop();
            }
        }
        Part::Field(f) if t.kind() == CXType_Record => {
            let fd = t
                .declaration()
                .children()
                .into_iter()
                .find(|c| c.kind() == CXCursor_FieldDecl && c.spelling() == *f)?;
            at.push(first.clone());
            leaves(fd.ty(), &path[1..], out, at)?;
            at.pop();
        }
        _ => return None,
    }
    Some(())
}

impl Flow<'_> {
    fn refuse(&mut self, why: String) {
        self.why.get_or_insert(why);
    }

    fn loop_ranges(&self) -> HashMap<String, (i64, i64)> {
        self.loops.iter().map(|l| (l.key.clone(), (l.lo, l.hi))).collect()
    }

    /// The tracked aggregate an access expression `e` reaches and the path to the element, when
    /// `e` is one.
    fn target_of(&self, e: Node) -> Option<(Target, Vec<Part>)> {
        let (base, parts) = access_path(e, &self.loop_ranges());
        let d = base?;
        if let Some((param, t, prefix)) = &self.params {
            // in a called function only its parameter names the aggregate
            return (key_of(&d) == *param)
                .then(|| (t.clone(), prefix.iter().cloned().chain(parts).collect()));
        }
        let name = self.tracked.get(&key_of(&d))?.clone();
        Some((Target { base: key_of(&d), name, ty: d.ty() }, parts))
    }

    /// An access `e` read here: every element it stands for written before in this iteration.
    fn read(&mut self, t: Target, path: Vec<Part>) {
        let ty = t.ty;
        let mut sym = Vec::new();
        if leaves(ty, &path, &mut sym, &mut Vec::new()).is_none() {
            return self.refuse(format!("a subscript of '{}' ompcl cannot follow", t.name));
        }
        for leaf in sym {
            // written as it is (the same loop variables, this pass of their loops), or for every
            // value of some of its loop variables (`a[j][m]` after a loop over `m` wrote
            // `a[j][0..K]`, inside the same pass of the loop over `j`)
            let vars: Vec<usize> = (0..leaf.len()).filter(|&p| matches!(leaf[p], Part::Var(_))).collect();
            let ok = vars.len() <= 6
                && (0u32..1 << vars.len()).any(|mask| {
                    let chosen: Vec<usize> = vars
                        .iter()
                        .enumerate()
                        .filter(|(b, _)| mask & (1 << b) != 0)
                        .map(|(_, p)| *p)
                        .collect();
                    self.values_of(&leaf, &chosen).is_some_and(|all| {
                        all.into_iter().all(|x| self.written.contains(&(t.base.clone(), x)))
                    })
                });
            if !ok {
                return self.refuse(format!(
                    "an iteration may read an element of '{}' before it writes it (the value would come from an earlier iteration of the same thread)",
                    t.name
                ));
            }
        }
    }

    /// Path `leaf` with the loop variables at positions `at` replaced by each of their values
    /// (every combination); None where one is not a loop open here or there are too many.
    fn values_of(&self, leaf: &[Part], at: &[usize]) -> Option<Vec<Vec<Part>>> {
        let mut out = vec![leaf.to_vec()];
        for &p in at {
            let Part::Var(k) = &leaf[p] else { return None };
            let l = self.loops.iter().find(|l| &l.key == k)?;
            let mut next = Vec::new();
            for x in &out {
                for v in l.lo..l.hi {
                    let mut y = x.clone();
                    y[p] = Part::At(v);
                    next.push(y);
                }
            }
            if next.len() > MAX_ELEMENTS {
                return None;
            }
            out = next;
        }
        Some(out)
    }

    /// An access `e` written here (unconditionally, where the walk calls this).
    fn write(&mut self, t: Target, path: Vec<Part>) {
        if path.contains(&Part::Any) {
            return; // some element, not known which
        }
        let ty = t.ty;
        let mut sym = Vec::new();
        if leaves(ty, &path, &mut sym, &mut Vec::new()).is_some() {
            self.written.extend(sym.into_iter().map(|p| (t.base.clone(), p)));
        }
    }

    /// Visits the subscripts of access `e` (reads of their own).
    fn subscripts(&mut self, e: Node) {
        let mut e = strip(e);
        loop {
            match e.kind() {
                CXCursor_ArraySubscriptExpr => {
                    let ch = e.children();
                    self.expr(ch[1]);
                    e = strip(ch[0]);
                }
                CXCursor_MemberRefExpr => match e.children().first() {
                    Some(b) => e = strip(*b),
                    None => return,
                },
                _ => return,
            }
        }
    }

    /// A store into `lhs` (`read_first`: a compound assignment or `++`, which reads it before).
    fn store(&mut self, lhs: Node, read_first: bool) {
        match self.target_of(lhs) {
            Some((t, path)) => {
                self.subscripts(lhs);
                if strip(lhs).ty().canonical().kind() == CXType_Pointer {
                    // a function's parameter moved or set: no longer the part the call passed
                    return self.refuse(format!("a function sets or moves its pointer to '{}'", t.name));
                }
                if read_first {
                    self.read(t.clone(), path.clone());
                }
                self.write(t, path);
            }
            None => self.expr(lhs),
        }
    }

    /// Code that may not run (a branch, a loop that may run no time): what it writes does not
    /// count after it.
    fn maybe(&mut self, n: Node) {
        let before = self.written.clone();
        self.stmt(n);
        self.written = before;
    }

    fn stmt(&mut self, n: Node) {
        if self.why.is_some() {
            return;
        }
        match n.kind() {
            CXCursor_IfStmt => {
                let ch = n.children();
                self.stmt(ch[0]);
                for b in &ch[1..] {
                    self.maybe(*b);
                }
            }
            CXCursor_SwitchStmt | CXCursor_WhileStmt => {
                let ch = n.children();
                self.stmt(ch[0]);
                for b in &ch[1..] {
                    self.maybe(*b);
                }
            }
            CXCursor_DoStmt => n.children().into_iter().for_each(|c| self.maybe(c)),
            CXCursor_ForStmt => self.for_stmt(n),
            CXCursor_ConditionalOperator => {
                let ch = n.children();
                self.stmt(ch[0]);
                for b in &ch[1..] {
                    self.maybe(*b);
                }
            }
            CXCursor_BinaryOperator if matches!(n.binop(), CXBinaryOperator_LAnd | CXBinaryOperator_LOr) => {
                let ch = n.children();
                self.stmt(ch[0]);
                self.maybe(ch[1]);
            }
            CXCursor_BinaryOperator if n.binop() == CXBinaryOperator_Assign => {
                let ch = n.children();
                self.stmt(ch[1]);
                self.store(ch[0], false);
            }
            CXCursor_CompoundAssignOperator => {
                let ch = n.children();
                self.stmt(ch[1]);
                self.store(ch[0], true);
            }
            CXCursor_UnaryOperator
                if (CXUnaryOperator_PostInc..=CXUnaryOperator_PreDec).contains(&n.unop()) =>
            {
                self.store(n.children()[0], true)
            }
            CXCursor_UnaryOperator if n.unop() == CXUnaryOperator_AddrOf => {
                let e = n.children()[0];
                match self.target_of(e) {
                    Some((t, _)) => self.refuse(format!("the address of (a part of) '{}' is taken", t.name)),
                    None => self.expr(e),
                }
            }
            CXCursor_CallExpr => self.call(n),
            CXCursor_VarDecl => {
                if let Some(i) = n.var_initializer() {
                    self.stmt(i);
                }
            }
            CXCursor_ArraySubscriptExpr | CXCursor_MemberRefExpr | CXCursor_DeclRefExpr => {
                match self.target_of(n) {
                    Some((t, path)) => {
                        self.subscripts(n);
                        // a whole array (or row) outside a call: a pointer that may escape
                        if matches!(n.ty().canonical().kind(), CXType_ConstantArray | CXType_Pointer) {
                            return self.refuse(format!("'{}' is used as a whole (a pointer to it)", t.name));
                        }
                        self.read(t, path)
                    }
                    None => n.children().into_iter().for_each(|c| self.stmt(c)),
                }
            }
            _ => n.children().into_iter().for_each(|c| self.stmt(c)),
        }
    }

    fn expr(&mut self, n: Node) {
        self.stmt(n)
    }

    /// `for (v = lo; v < hi; v++) body` with constant bounds and `v` not written in the body (nor
    /// a jump out of it): the body runs for every `v`, so what it writes with `v` as a subscript
    /// is written for every value after the loop; any other loop may run no time.
    fn for_stmt(&mut self, n: Node) {
        let ch = n.children();
        let Some(body) = ch.last().copied() else { return };
        match counted(n) {
            Some((var, lo, hi)) if lo < hi => {
                for c in &ch[..ch.len() - 1] {
                    self.stmt(*c);
                }
                let before = self.written.clone();
                self.loops.push(Counted { key: var.clone(), lo, hi });
                self.stmt(body);
                let new: Vec<(String, Vec<Part>)> =
                    self.written.iter().filter(|p| !before.contains(*p)).cloned().collect();
                let mut after = before;
                for (base, path) in new {
                    if !path.contains(&Part::Var(var.clone())) {
                        after.insert((base, path));
                        continue;
                    }
                    for v in lo..hi {
                        let p = path
                            .iter()
                            .map(|x| if *x == Part::Var(var.clone()) { Part::At(v) } else { x.clone() })
                            .collect();
                        after.insert((base.clone(), p));
                    }
                }
                self.loops.pop();
                self.written = after;
            }
            _ => {
                if let Some(init) = ch.first().filter(|_| ch.len() > 1) {
                    self.stmt(*init);
                }
                let before = self.written.clone();
                for c in &ch[1.min(ch.len() - 1)..] {
                    self.stmt(*c);
                }
                self.written = before;
            }
        }
    }
}

impl Flow<'_> {
    /// A call: an aggregate passed whole (or a row of it) to a function of the program is
    /// followed into the function's body, where the parameter stands for that part (the kernel
    /// calls the function's copy whose parameter is `__private`).
    fn call(&mut self, n: Node) {
        let args: Vec<Node> = n.children().into_iter().skip(1).collect();
        let def = n.referenced().and_then(|f| f.definition()).filter(|f| !f.in_system_header());
        for (i, a) in args.iter().enumerate() {
            let passed = (strip(*a).ty().canonical().kind() == CXType_ConstantArray)
                .then(|| self.target_of(*a))
                .flatten();
            let Some((t, path)) = passed else {
                self.stmt(*a);
                continue;
            };
            self.subscripts(*a);
            let callee = n.spelling();
            let param =
                def.and_then(|f| f.children().into_iter().filter(|c| c.kind() == CXCursor_ParmDecl).nth(i));
            let body = def.and_then(|f| f.children().into_iter().find(|c| c.kind() == CXCursor_CompoundStmt));
            let (Some(param), Some(body)) = (param, body) else {
                return self
                    .refuse(format!("'{}' is passed to '{callee}', whose body ompcl cannot see", t.name));
            };
            if self.params.is_some() {
                return self
                    .refuse(format!("'{}' is passed on by '{callee}'s caller, a function itself", t.name));
            }
            let mut jumps = false;
            let mut returns = false;
            body.walk(&mut |c| {
                jumps |= matches!(c.kind(), CXCursor_GotoStmt | CXCursor_IndirectGotoStmt);
                returns |= c.kind() == CXCursor_ReturnStmt;
            });
            if jumps {
                return self.refuse(format!("'{callee}', which gets '{}', has a 'goto'", t.name));
            }
            self.params = Some((key_of(&param), t, path));
            // a `return` may skip the stores after it: then none counts
            if returns {
                self.maybe(body);
            } else {
                self.stmt(body);
            }
            self.params = None;
        }
    }
}

/// `for (v = lo; v < hi; v++)` or `<= hi`, `++v`, `v += 1`, with constant `lo` and `hi` and `v`
/// (a plain variable, its key) not written in the body, nor a jump out of the body: (v, lo, hi),
/// `hi` exclusive.
fn counted(n: Node) -> Option<(String, i64, i64)> {
    let ch = n.children();
    let [init, cond, inc, body] = ch[..] else { return None };
    let (v, lo) = match init.kind() {
        CXCursor_BinaryOperator if init.binop() == CXBinaryOperator_Assign => {
            let c = init.children();
            let v = strip(c[0]);
            (v.kind() == CXCursor_DeclRefExpr).then_some(())?;
            (key_of(&v.referenced()?), i64::try_from(c[1].eval_int()?).ok()?)
        }
        CXCursor_DeclStmt => {
            let d = init.children().into_iter().next()?;
            (key_of(&d), i64::try_from(d.var_initializer()?.eval_int()?).ok()?)
        }
        _ => return None,
    };
    let is_v = |e: Node| {
        let e = strip(e);
        e.kind() == CXCursor_DeclRefExpr && e.referenced().is_some_and(|d| key_of(&d) == v)
    };
    if cond.kind() != CXCursor_BinaryOperator {
        return None;
    }
    let cc = cond.children();
    if !is_v(cc[0]) {
        return None;
    }
    let bound = i64::try_from(cc[1].eval_int()?).ok()?;
    let hi = match cond.binop() {
        CXBinaryOperator_LT => bound,
        CXBinaryOperator_LE => bound + 1,
        _ => return None,
    };
    let step_one = match inc.kind() {
        CXCursor_UnaryOperator => {
            matches!(inc.unop(), CXUnaryOperator_PostInc | CXUnaryOperator_PreInc) && is_v(inc.children()[0])
        }
        CXCursor_CompoundAssignOperator => {
            let c = inc.children();
            inc.binop() == CXBinaryOperator_AddAssign && is_v(c[0]) && c[1].eval_int() == Some(1)
        }
        _ => false,
    };
    if !step_one {
        return None;
    }
    let mut clean = true;
    body.walk(&mut |c| {
        if matches!(
            c.kind(),
            CXCursor_BreakStmt | CXCursor_ContinueStmt | CXCursor_ReturnStmt | CXCursor_GotoStmt
        ) {
            clean = false;
        }
        let target = match c.kind() {
            CXCursor_BinaryOperator if c.binop() == CXBinaryOperator_Assign => c.children().first().copied(),
            CXCursor_CompoundAssignOperator => c.children().first().copied(),
            CXCursor_UnaryOperator
                if (CXUnaryOperator_PostInc..=CXUnaryOperator_PreDec).contains(&c.unop())
                    || c.unop() == CXUnaryOperator_AddrOf =>
            {
                c.children().first().copied()
            }
            _ => None,
        };
        if target.is_some_and(is_v) {
            clean = false;
        }
    });
    clean.then_some((v, lo, hi))
}

/// The array or struct variable (its declaration) whose element or member access `e` is
/// (`ue[m]`, `t.x[2]`); None for anything else, a pointer's element included (that is memory
/// the variable points into, not the variable).
pub(super) fn aggregate_of(e: Node) -> Option<Node> {
    let (base, parts) = access_path(e, &HashMap::new());
    let d = base?;
    (!parts.is_empty() && is_private_aggregate(d.ty())).then_some(d)
}

/// The arrays and structs the region's top-level declarations (`kids` where `serial`) declare:
/// key -> name.
pub(super) fn declared(kids: &[Node], serial: &[bool]) -> HashMap<String, String> {
    kids.iter()
        .zip(serial)
        .filter(|(k, s)| **s && k.kind() == CXCursor_DeclStmt)
        .flat_map(|(k, _)| k.children())
        .filter(|d| d.kind() == CXCursor_VarDecl && is_private_aggregate(d.ty()))
        .map(|d| (key_of(&d), d.spelling()))
        .collect()
}

/// Whether kernels may give each work-item fresh copies of the region's `aggregates`, given its
/// worksharing `loops`, its `single`/`master` bodies (`singles`) and the statements every thread
/// runs (`outside`, with the constructs inside them at bytes `inside`): a `single` (one thread's
/// copy) does not touch them; one a loop writes is not used outside the loops (a thread's values
/// after a loop are its own) and every loop writes each element of it before reading it.
pub(super) fn check(
    aggregates: &HashMap<String, String>,
    loops: &[Node],
    singles: &[Node],
    outside: &[Node],
    inside: &[(usize, usize)],
) -> Result<(), String> {
    let mentions = |n: Node, skip: &[(usize, usize)]| -> Vec<String> {
        let mut out = Vec::new();
        let mut all = vec![n];
        n.walk(&mut |c| all.push(c));
        for c in all {
            let at = c.range().0.off;
            if c.kind() == CXCursor_DeclRefExpr && !skip.iter().any(|&(s, e)| at >= s && at < e) {
                if let Some(d) = c.referenced().filter(|d| aggregates.contains_key(&key_of(d))) {
                    out.push(key_of(&d));
                }
            }
        }
        out
    };
    for s in singles {
        if let Some(k) = mentions(*s, &[]).first() {
            return Err(format!(
                "a 'single'/'master' uses the region's array or struct '{}' (one thread's copy)",
                aggregates[k]
            ));
        }
    }
    if let Some(why) = loops.iter().find_map(|l| whole_use(*l, aggregates)) {
        return Err(format!("a worksharing loop of the region: {why}"));
    }
    let written: HashSet<String> = loops.iter().flat_map(|l| written_in(*l, aggregates)).collect();
    for st in outside {
        if let Some(k) = mentions(*st, inside).into_iter().find(|k| written.contains(k)) {
            return Err(format!(
                "the region's array or struct '{}' is set in a worksharing loop and used outside one (each thread's own values)",
                aggregates[&k]
            ));
        }
    }
    let tracked: HashMap<String, String> = aggregates
        .iter()
        .filter(|(k, _)| written.contains(*k))
        .map(|(k, n)| (k.clone(), n.clone()))
        .collect();
    if tracked.is_empty() {
        return Ok(());
    }
    for l in loops {
        if let Some(why) = element_flow(*l, &tracked) {
            return Err(format!("a worksharing loop of the region: {why}"));
        }
    }
    Ok(())
}

/// Drops the region's `aggregates` from kernel `k`'s arguments for `ompcl_kernel_ready`: the host
/// declares an initialised one in a step of the region, after that call.
pub(super) fn unready(k: &mut KernelOut, aggregates: &HashMap<String, String>) {
    let names: HashSet<&String> = aggregates.values().collect();
    let ours = |a: &String| {
        a.strip_prefix("{OMPCL_TMP, \"")
            .and_then(|r| r.split_once('"'))
            .is_some_and(|(n, _)| names.contains(&n.to_string()))
    };
    let args = k.ready_args.as_ref().unwrap_or(&k.host_args);
    if args.iter().any(ours) {
        k.ready_args = Some(args.iter().filter(|a| !ours(a)).cloned().collect());
    }
}

/// The first use in loop `lp` of one of the region's `aggregates` as a pointer: an array (or a row
/// of one) not subscripted, passed to a function or stored, or an element's address. The kernel's
/// functions and pointers are `__global`; the work-item's copy is `__private`.
fn whole_use(lp: Node, aggregates: &HashMap<String, String>) -> Option<String> {
    let mut all = vec![lp];
    lp.walk(&mut |c| all.push(c));
    // the expressions subscripted or whose member is taken (by their extent)
    let bases: HashSet<(usize, usize)> = all
        .iter()
        .filter(|c| matches!(c.kind(), CXCursor_ArraySubscriptExpr | CXCursor_MemberRefExpr))
        .filter_map(|c| c.children().first().map(|b| strip(*b)))
        .map(|b| (b.range().0.off, b.range().1.off))
        .collect();
    // the direct arguments of calls to the program's own functions (a copy of which takes a
    // `__private` pointer: analysis.rs `variant_name`)
    let passed: HashSet<(usize, usize)> = all
        .iter()
        .filter(|c| c.kind() == CXCursor_CallExpr)
        .filter(|c| c.referenced().and_then(|f| f.definition()).is_some_and(|f| !f.in_system_header()))
        .flat_map(|c| c.children().into_iter().skip(1))
        .map(strip)
        .map(|a| (a.range().0.off, a.range().1.off))
        .collect();
    for c in &all {
        let of_ours = |e: Node| {
            let (base, _) = access_path(e, &HashMap::new());
            base.and_then(|d| aggregates.get(&key_of(&d)).cloned())
        };
        match c.kind() {
            CXCursor_UnaryOperator if c.unop() == CXUnaryOperator_AddrOf => {
                if let Some(name) = c.children().first().and_then(|e| of_ours(*e)) {
                    return Some(format!(
                        "the address of (a part of) '{name}' is taken (a kernel's pointers are __global)"
                    ));
                }
            }
            CXCursor_DeclRefExpr | CXCursor_ArraySubscriptExpr | CXCursor_MemberRefExpr
                if c.ty().canonical().kind() == CXType_ConstantArray
                    && !bases.contains(&(c.range().0.off, c.range().1.off))
                    && !passed.contains(&(c.range().0.off, c.range().1.off)) =>
            {
                if let Some(name) = of_ours(*c) {
                    return Some(format!(
                        "'{name}' is used as a pointer (other than as an argument of a function of the program), and a kernel's pointers are __global, not a work-item's private copy"
                    ));
                }
            }
            _ => {}
        }
    }
    None
}

/// Whether call argument `a` is one of the region's arrays (`private`: keys) that are each
/// work-item's own, whole or a row of it: a `__private` pointer in the kernel.
pub(super) fn private_array_argument(a: Node, private: &HashSet<String>) -> bool {
    if private.is_empty() || strip(a).ty().canonical().kind() != CXType_ConstantArray {
        return false;
    }
    let (base, _) = access_path(a, &HashMap::new());
    base.is_some_and(|d| private.contains(&key_of(&d)))
}
