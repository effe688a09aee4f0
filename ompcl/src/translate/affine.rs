//! Where a loop body reads and writes memory, as byte offsets that are affine functions of the
//! parallel loop variables: `base + a*i + b*j + c`, with `a`, `b`, `c` polynomials in integer
//! variables the loop never changes (so the host can evaluate them at launch). Whatever the
//! indexing style — `X[i][j]`, `X[i*n + j]`, `X[(i)*(n)+(j)]`, `X[j + i*n]`, a row pointer
//! `float *row = &X[i*n]; row[j]`, `*(X + i*n + j)` — the same element gives the same form.
//!
//! Two uses (kernel.rs):
//! * the proof that the iterations of the loop over `j` inside the parallel loop over `i` are
//!   independent, so work-items may take `(i, j)` pairs: every shared location the body writes is
//!   one element per `(i, j)` (every access to a written base has the same form), and distinct
//!   `(i, j)` give disjoint elements — checked at launch from the strides `a`, `b` and the trip
//!   counts (`ompcl_disjoint`), next to `ompcl_no_alias` (distinct bases never share a block);
//! * shared elements an inner loop may keep in a register (`promotions`): every access to the
//!   base inside that loop is the same element, whose address the loop does not change.
//!
//! Anything the analysis does not understand (a pointer it cannot follow, a call of a user
//! function, a write through an address it cannot resolve) makes both answers "no".

use super::*;

/// A product of loop-invariant variables (their keys, sorted); empty = the constant 1.
type Mono = Vec<String>;

/// A polynomial with integer coefficients over loop-invariant integer variables.
#[derive(Clone, PartialEq, Debug, Default)]
pub(super) struct Poly(BTreeMap<Mono, i128>);

impl Poly {
    fn konst(c: i128) -> Poly {
        let mut p = Poly::default();
        if c != 0 {
            p.0.insert(vec![], c);
        }
        p
    }
    fn sym(k: String) -> Poly {
        let mut p = Poly::default();
        p.0.insert(vec![k], 1);
        p
    }
    fn is_zero(&self) -> bool {
        self.0.is_empty()
    }
    fn add(&self, o: &Poly) -> Option<Poly> {
        let mut r = self.clone();
        for (m, c) in &o.0 {
            let v = r.0.get(m).copied().unwrap_or(0).checked_add(*c)?;
            if v == 0 {
                r.0.remove(m);
            } else {
                r.0.insert(m.clone(), v);
            }
        }
        Some(r)
    }
    fn mul(&self, o: &Poly) -> Option<Poly> {
        let mut r = Poly::default();
        for (m1, c1) in &self.0 {
            for (m2, c2) in &o.0 {
                let mut m: Mono = m1.iter().chain(m2).cloned().collect();
                m.sort();
                r = r.add(&Poly([(m, c1.checked_mul(*c2)?)].into_iter().collect()))?;
            }
        }
        Some(r)
    }
    /// Host C (long long) of the polynomial; `names`: key -> the variable's name at the loop.
    pub(super) fn host_c(&self, names: &BTreeMap<String, String>) -> String {
        if self.0.is_empty() {
            return "0LL".into();
        }
        let terms: Vec<String> = self
            .0
            .iter()
            .map(|(m, c)| {
                let mut t = format!("({c}LL)");
                for k in m {
                    let n = names.get(k).map(String::as_str).unwrap_or("0");
                    t.push_str(&format!(" * (long long)({n})"));
                }
                t
            })
            .collect();
        format!("({})", terms.join(" + "))
    }
}

/// `sum(coef[q] * loopvar[q]) + c`.
#[derive(Clone, PartialEq, Debug)]
pub(super) struct Affine {
    pub coef: Vec<Poly>,
    pub c: Poly,
}

impl Affine {
    fn konst(n: usize, c: Poly) -> Affine {
        Affine { coef: vec![Poly::default(); n], c }
    }
    fn is_invariant(&self) -> bool {
        self.coef.iter().all(Poly::is_zero)
    }
    fn add(&self, o: &Affine) -> Option<Affine> {
        let coef = self.coef.iter().zip(&o.coef).map(|(a, b)| a.add(b)).collect::<Option<Vec<_>>>()?;
        Some(Affine { coef, c: self.c.add(&o.c)? })
    }
    fn scale(&self, p: &Poly) -> Option<Affine> {
        let coef = self.coef.iter().map(|a| a.mul(p)).collect::<Option<Vec<_>>>()?;
        Some(Affine { coef, c: self.c.mul(p)? })
    }
    fn mul(&self, o: &Affine) -> Option<Affine> {
        if self.is_invariant() {
            o.scale(&self.c)
        } else if o.is_invariant() {
            self.scale(&o.c)
        } else {
            None // i*j: not affine
        }
    }
}

/// A base (a variable holding or naming memory) plus a byte offset (None: not affine).
#[derive(Clone, Debug)]
struct Addr {
    base: String,
    off: Option<Affine>,
}

/// One read or write of memory.
#[derive(Clone)]
pub(super) struct Access {
    pub base: String,
    pub off: Option<Affine>,
    pub size: i64,
    pub write: bool,
    /// the access expression (`X[..]`, `*p`, `row[j]`)
    pub node: Node,
}

/// What a body does with memory.
pub(super) struct Memory {
    pub accesses: Vec<Access>,
    /// bases whose address is used other than in an access (passed on, compared, `&X[..]`...)
    pub escaped: HashSet<String>,
    /// why nothing can be proven, if so
    pub refused: Option<String>,
    /// invariant variable key -> its name (for host C)
    pub names: BTreeMap<String, String>,
    /// arrays declared in the body: key -> declaration offset (private to an iteration)
    pub local_arrays: HashMap<String, usize>,
}

struct Walker<'x> {
    loopvars: &'x [Node],
    inside: &'x dyn Fn(&Node) -> bool,
    private: &'x dyn Fn(&Node) -> bool,
    /// variables assigned, incremented or whose address is taken anywhere in the body
    assigned: HashSet<String>,
    /// local integer variables set once by their initialiser: key -> initialiser
    consts: HashMap<String, Node>,
    /// local pointers set once by their initialiser to a known address
    aliases: HashMap<String, Addr>,
    mem: Memory,
    depth: u32,
}

fn is_int(t: Type) -> bool {
    t.is_arith() && !matches!(t.canonical().kind(), CXType_Float | CXType_Double | CXType_LongDouble)
}

fn is_ptr_or_array(t: Type) -> bool {
    let c = t.canonical();
    c.kind() == CXType_Pointer || c.is_array()
}

fn has_var_refs(n: Node) -> bool {
    decl_refs(n).iter().any(|d| {
        d.referenced().map(|r| matches!(r.kind(), CXCursor_VarDecl | CXCursor_ParmDecl)).unwrap_or(true)
    })
}

/// The walker after visiting `body` (its forms, and the constants it found for more forms).
fn walked<'x>(
    body: Node,
    loopvars: &'x [Node],
    inside: &'x dyn Fn(&Node) -> bool,
    private: &'x dyn Fn(&Node) -> bool,
) -> Walker<'x> {
    let mut nodes = vec![body];
    body.walk(&mut |c| nodes.push(c));
    let mut assigned = HashSet::new();
    for n in &nodes {
        let target = match n.kind() {
            CXCursor_BinaryOperator | CXCursor_CompoundAssignOperator
                if (CXBinaryOperator_Assign..=CXBinaryOperator_OrAssign).contains(&n.binop()) =>
            {
                Some(n.children()[0])
            }
            CXCursor_UnaryOperator
                if (CXUnaryOperator_PostInc..=CXUnaryOperator_PreDec).contains(&n.unop())
                    || n.unop() == CXUnaryOperator_AddrOf =>
            {
                n.children().first().copied()
            }
            _ => None,
        };
        if let Some(t) = target.map(strip) {
            if t.kind() == CXCursor_DeclRefExpr {
                if let Some(r) = t.referenced() {
                    assigned.insert(key_of(&r));
                }
            }
        }
    }
    let mut w = Walker {
        loopvars,
        inside,
        private,
        assigned,
        consts: HashMap::new(),
        aliases: HashMap::new(),
        mem: Memory {
            accesses: vec![],
            escaped: HashSet::new(),
            refused: None,
            names: BTreeMap::new(),
            local_arrays: HashMap::new(),
        },
        depth: 0,
    };
    w.visit(body);
    w
}

/// Analyse `body`: `loopvars` are the variables the forms are affine in; `inside`: declared in
/// the body; `private`: variables a clause makes private (never invariant).
pub(super) fn analyse(
    body: Node,
    loopvars: &[Node],
    inside: &dyn Fn(&Node) -> bool,
    private: &dyn Fn(&Node) -> bool,
) -> Memory {
    walked(body, loopvars, inside, private).mem
}

impl Walker<'_> {
    fn refuse(&mut self, why: &str) {
        if self.mem.refused.is_none() {
            self.mem.refused = Some(why.to_string());
        }
    }

    fn visit(&mut self, n: Node) {
        match n.kind() {
            CXCursor_VarDecl => self.declaration(n),
            CXCursor_BinaryOperator | CXCursor_CompoundAssignOperator
                if (CXBinaryOperator_Assign..=CXBinaryOperator_OrAssign).contains(&n.binop()) =>
            {
                let ch = n.children();
                self.target(ch[0]);
                for c in &ch[1..] {
                    self.visit(*c);
                }
            }
            CXCursor_UnaryOperator
                if (CXUnaryOperator_PostInc..=CXUnaryOperator_PreDec).contains(&n.unop()) =>
            {
                if let Some(c) = n.children().first() {
                    self.target(*c);
                }
            }
            CXCursor_UnaryOperator if n.unop() == CXUnaryOperator_AddrOf => {
                // an address used as a value: the base escapes
                let mut pending = vec![];
                let op = n.children().first().copied();
                match op.and_then(|o| self.lvalue(o, &mut pending)) {
                    Some(a) => {
                        self.mem.escaped.insert(a.base);
                        for p in pending {
                            self.visit(p);
                        }
                    }
                    None => {
                        for c in n.children() {
                            self.visit(c);
                        }
                    }
                }
            }
            CXCursor_ArraySubscriptExpr | CXCursor_UnaryOperator
                if (n.kind() == CXCursor_ArraySubscriptExpr || n.unop() == CXUnaryOperator_Deref)
                    && !n.ty().canonical().is_array() =>
            {
                self.access(n, false)
            }
            CXCursor_DeclRefExpr => {
                let Some(r) = n.referenced() else { return };
                if !matches!(r.kind(), CXCursor_VarDecl | CXCursor_ParmDecl) || !is_ptr_or_array(r.ty()) {
                    return;
                }
                let k = key_of(&r);
                if let Some(a) = self.aliases.get(&k) {
                    let b = a.base.clone();
                    self.mem.escaped.insert(b);
                } else if (self.inside)(&r) && !r.ty().canonical().is_array() {
                    self.refuse(&format!(
                        "pointer '{}' declared in the loop is not one fixed address",
                        r.spelling()
                    ));
                } else {
                    self.mem.escaped.insert(k);
                }
            }
            CXCursor_CallExpr => {
                if let Some(f) = n.referenced() {
                    if f.definition().map(|d| !d.in_system_header()).unwrap_or(false) {
                        self.refuse("calls a function of the program");
                    }
                }
                for c in n.children() {
                    let s = strip(c);
                    let is_callee = s.kind() == CXCursor_DeclRefExpr
                        && s.referenced().map(|r| r.kind() == CXCursor_FunctionDecl).unwrap_or(false);
                    if !is_callee && is_ptr_or_array(c.ty()) {
                        self.refuse("passes a pointer to a function");
                    }
                    self.visit(c);
                }
            }
            CXCursor_GotoStmt | CXCursor_ReturnStmt | CXCursor_IndirectGotoStmt => {
                self.refuse("goto or return")
            }
            _ => {
                for c in n.children() {
                    self.visit(c);
                }
            }
        }
    }

    /// A local declaration: pointers set once become aliases, integers set once constants.
    fn declaration(&mut self, n: Node) {
        let k = key_of(&n);
        let t = n.ty();
        let init = n.children().into_iter().rfind(|c| c.is_expr());
        if t.canonical().is_array() {
            self.mem.local_arrays.insert(k, n.loc().off);
        } else if t.canonical().kind() == CXType_Pointer {
            if let (Some(i), false) = (init, self.assigned.contains(&k)) {
                let mut pending = vec![];
                if let Some(a) = self.ptr(i, &mut pending) {
                    self.aliases.insert(k, a);
                    for p in pending {
                        self.visit(p);
                    }
                    return;
                }
            }
        } else if is_int(t) && !self.assigned.contains(&k) {
            // set once, and not narrowed (`short r = i * n` would wrap: not the affine value)
            if let Some(i) = init.filter(|i| strip(*i).ty().size_of() <= t.size_of()) {
                self.consts.insert(k, i);
            }
        }
        for c in n.children() {
            self.visit(c);
        }
    }

    /// The left side of an assignment or `++`/`--`.
    fn target(&mut self, lhs: Node) {
        let l = strip(lhs);
        match l.kind() {
            CXCursor_DeclRefExpr => {} // a scalar: the caller's rules (kernel.rs) decide
            CXCursor_ArraySubscriptExpr | CXCursor_UnaryOperator => self.access(l, true),
            _ => self.refuse("writes through an expression it cannot follow"),
        }
    }

    fn access(&mut self, e: Node, write: bool) {
        let mut pending = vec![];
        match self.lvalue(e, &mut pending) {
            Some(a) => {
                let size = e.ty().size_of();
                if size <= 0 {
                    self.refuse("an access of unknown size");
                }
                self.mem.accesses.push(Access { base: a.base, off: a.off, size, write, node: e });
                for p in pending {
                    self.visit(p);
                }
            }
            None if write => self.refuse("writes through an address it cannot follow"),
            None => {
                for c in e.children() {
                    self.visit(c);
                }
            }
        }
    }

    /// The address of an lvalue.
    fn lvalue(&mut self, e: Node, pending: &mut Vec<Node>) -> Option<Addr> {
        let e = strip(e);
        match e.kind() {
            CXCursor_ArraySubscriptExpr => {
                let ch = e.children();
                if ch.len() != 2 {
                    return None;
                }
                let (p, i) = if is_ptr_or_array(strip(ch[0]).ty()) { (ch[0], ch[1]) } else { (ch[1], ch[0]) };
                let size = e.ty().size_of();
                if size <= 0 {
                    return None;
                }
                let a = self.ptr(p, pending)?;
                pending.push(i);
                let idx = self.affine(i);
                Some(self.offset(a, idx, size))
            }
            CXCursor_UnaryOperator if e.unop() == CXUnaryOperator_Deref => {
                let c = *e.children().first()?;
                self.ptr(c, pending)
            }
            CXCursor_DeclRefExpr if e.ty().canonical().is_array() => self.ptr(e, pending),
            _ => None,
        }
    }

    /// `a + idx * size` (bytes).
    fn offset(&self, a: Addr, idx: Option<Affine>, size: i64) -> Addr {
        let off = match (a.off, idx) {
            (Some(o), Some(i)) => i.scale(&Poly::konst(size as i128)).and_then(|s| o.add(&s)),
            _ => None,
        };
        Addr { base: a.base, off }
    }

    /// The address a pointer-valued expression holds.
    fn ptr(&mut self, e: Node, pending: &mut Vec<Node>) -> Option<Addr> {
        let e = strip(e);
        let n = self.loopvars.len();
        match e.kind() {
            CXCursor_DeclRefExpr => {
                let r = e.referenced()?;
                if !matches!(r.kind(), CXCursor_VarDecl | CXCursor_ParmDecl) {
                    return None;
                }
                let k = key_of(&r);
                if let Some(a) = self.aliases.get(&k) {
                    return Some(a.clone());
                }
                let c = r.ty().canonical();
                let zero = Some(Affine::konst(n, Poly::default()));
                // an array (its own memory), or a pointer from outside the loop that it never sets
                let outside_ptr =
                    c.kind() == CXType_Pointer && !(self.inside)(&r) && !self.assigned.contains(&k);
                (c.is_array() || outside_ptr).then_some(Addr { base: k, off: zero })
            }
            // an element that is an array decays to its address; one that is a pointer (a row of
            // a `T **` table) is a value loaded from memory: where it points is not known
            CXCursor_ArraySubscriptExpr if e.ty().canonical().is_array() => self.lvalue(e, pending),
            CXCursor_UnaryOperator if e.unop() == CXUnaryOperator_Deref && e.ty().canonical().is_array() => {
                self.lvalue(e, pending)
            }
            CXCursor_UnaryOperator if e.unop() == CXUnaryOperator_AddrOf => {
                let c = *e.children().first()?;
                self.lvalue(c, pending)
            }
            CXCursor_BinaryOperator if matches!(e.binop(), CXBinaryOperator_Add | CXBinaryOperator_Sub) => {
                let ch = e.children();
                let p0 = is_ptr_or_array(strip(ch[0]).ty());
                let p1 = is_ptr_or_array(strip(ch[1]).ty());
                let sub = e.binop() == CXBinaryOperator_Sub;
                let (p, i) = match (p0, p1) {
                    (true, false) => (ch[0], ch[1]),
                    (false, true) if !sub => (ch[1], ch[0]),
                    _ => return None,
                };
                let size = e.ty().canonical().pointee().size_of();
                if size <= 0 {
                    return None;
                }
                let a = self.ptr(p, pending)?;
                pending.push(i);
                let mut idx = self.affine(i);
                if sub {
                    idx = idx.and_then(|x| x.scale(&Poly::konst(-1)));
                }
                Some(self.offset(a, idx, size))
            }
            _ => None,
        }
    }

    /// An integer expression as an affine form, or None.
    fn affine(&mut self, e: Node) -> Option<Affine> {
        let e = strip(e);
        let n = self.loopvars.len();
        self.depth += 1;
        if self.depth > 64 {
            self.depth -= 1;
            return None;
        }
        let r = self.affine_inner(e, n);
        self.depth -= 1;
        r
    }

    fn affine_inner(&mut self, e: Node, n: usize) -> Option<Affine> {
        if !is_int(e.ty()) {
            return None;
        }
        if !has_var_refs(e) {
            return e.eval_int().map(|v| Affine::konst(n, Poly::konst(v)));
        }
        match e.kind() {
            CXCursor_DeclRefExpr => {
                let r = e.referenced()?;
                if let Some(q) = self.loopvars.iter().position(|v| v.equals(&r)) {
                    let mut a = Affine::konst(n, Poly::default());
                    a.coef[q] = Poly::konst(1);
                    return Some(a);
                }
                let k = key_of(&r);
                if (self.inside)(&r) {
                    let init = *self.consts.get(&k)?;
                    return self.affine(init);
                }
                if self.assigned.contains(&k) || (self.private)(&r) {
                    return None;
                }
                self.mem.names.insert(k.clone(), r.spelling());
                Some(Affine::konst(n, Poly::sym(k)))
            }
            CXCursor_BinaryOperator => {
                let ch = e.children();
                let a = self.affine(ch[0])?;
                let b = self.affine(ch[1])?;
                match e.binop() {
                    CXBinaryOperator_Add => a.add(&b),
                    CXBinaryOperator_Sub => a.add(&b.scale(&Poly::konst(-1))?),
                    CXBinaryOperator_Mul => a.mul(&b),
                    _ => None,
                }
            }
            CXCursor_UnaryOperator => {
                let c = *e.children().first()?;
                match e.unop() {
                    CXUnaryOperator_Plus => self.affine(c),
                    CXUnaryOperator_Minus => self.affine(c)?.scale(&Poly::konst(-1)),
                    _ => None,
                }
            }
            // (long)i * n, (size_t)(i * n): widening or same-width integer casts
            CXCursor_CStyleCastExpr if e.ty().size_of() >= 4 => {
                let c = *e.children().last()?;
                self.affine(c)
            }
            _ => None,
        }
    }
}

/// A check the host makes before spreading: the bytes `[a*p + b*q, +size)` of the element one
/// `(p, q)` writes are disjoint for distinct pairs (host C of `a` per step of the outer loop
/// variable, `b` per step of the inner one), over `over`.
pub(super) struct Disjoint {
    pub a: String,
    pub b: String,
    pub size: i64,
    pub over: Over,
}

/// The pairs a `Disjoint` check covers.
#[derive(Clone, Copy, PartialEq, Debug)]
pub(super) enum Over {
    /// the loops' own ranges
    Pairs,
    /// the square holding both loops' ranges (unit steps): the array is also written at the
    /// transposed element (`[j][i]` beside `[i][j]`, in a triangular nest)
    Square,
    /// the outer loop's range only: the element is the outer iteration's (`b` is 0), written by
    /// statements before the inner loop
    Rows,
}

/// What `spread_proof` knows of the nest besides its memory accesses.
pub(super) struct Nest {
    /// the inner loop's body (arrays declared there are private to an iteration)
    pub jbody: (usize, usize),
    /// where the inner loop starts: accesses before it belong to statements that run once per `i`
    pub jloop_at: usize,
    /// every pair has `j >= i` (Some(true)) or `j <= i` (Some(false)) (a triangle, triangle.rs)
    pub side: Option<bool>,
    /// and none has `j == i`
    pub strict: bool,
}

impl Memory {
    /// The proof that the `(i, j)` iterations of a body (loop variables `[i, j]`) write disjoint
    /// elements, up to the run-time checks it returns. A one-sided triangle may also write a
    /// matrix at `[i][j]` and at `[j][i]`; statements before the inner loop (run once per `i`) may
    /// write elements of their own `i` that no pair touches: an array no pair uses, or the diagonal
    /// `[i][i]` of a strict triangle's matrix (correlation's `symmat[j1][j1] = 1.0`). Err: why not.
    pub(super) fn spread_proof(&self, nest: &Nest) -> Result<Vec<Disjoint>, String> {
        if let Some(r) = &self.refused {
            return Err(r.clone());
        }
        let mut written: Vec<&str> =
            self.accesses.iter().filter(|a| a.write).map(|a| a.base.as_str()).collect();
        written.sort();
        written.dedup();
        let mut checks = Vec::new();
        for w in written {
            if let Some(&at) = self.local_arrays.get(w) {
                if at >= nest.jbody.0 && at < nest.jbody.1 {
                    continue; // a fresh array in every (i, j) iteration
                }
                return Err("writes an array declared before the inner loop".into());
            }
            if self.escaped.contains(w) {
                return Err("a written array's address is used other than to access it".into());
            }
            let (pre, all): (Vec<&Access>, Vec<&Access>) =
                self.accesses.iter().filter(|a| a.base == w).partition(|a| a.node.loc().off < nest.jloop_at);
            if all.is_empty() {
                // written only before the inner loop: one element per i
                let off = pre[0]
                    .off
                    .clone()
                    .ok_or("a written element's address is not affine in the loop variables")?;
                if off.coef.len() != 2 || !off.coef[1].is_zero() || off.coef[0].is_zero() {
                    return Err(
                        "an element written before the inner loop is not one per outer iteration".into()
                    );
                }
                if pre.iter().any(|a| a.off.as_ref() != Some(&off) || a.size != pre[0].size) {
                    return Err("a written array is accessed at more than one element per iteration".into());
                }
                checks.push(Disjoint {
                    a: off.coef[0].host_c(&self.names),
                    b: "0".into(),
                    size: pre[0].size,
                    over: Over::Rows,
                });
                continue;
            }
            let Some(off) = all[0].off.clone() else {
                return Err("a written element's address is not affine in the loop variables".into());
            };
            if off.coef.len() != 2 {
                return Err("not two loop variables".into());
            }
            // the transposed element: the same form with the loop variables' strides swapped
            let mut swapped = off.clone();
            swapped.coef.swap(0, 1);
            let symmetric = nest.side.is_some()
                && swapped != off
                && all.iter().any(|a| a.off.as_ref() == Some(&swapped))
                && all.iter().all(|a| a.size == all[0].size);
            if all.iter().any(|a| {
                a.size != all[0].size
                    || !(a.off.as_ref() == Some(&off) || (symmetric && a.off.as_ref() == Some(&swapped)))
            }) {
                return Err("a written array is accessed at more than one element per iteration".into());
            }
            if off.coef.iter().any(Poly::is_zero) {
                // the same element for every j (a row's sum: x[i] += ...), or for every i
                return Err("a written element does not depend on both loop variables".into());
            }
            if !pre.is_empty() {
                // before the inner loop only the diagonal element, which no pair of a strict
                // one-sided triangle reaches (the map being one-to-one over the square)
                let diagonal = off.coef[0]
                    .add(&off.coef[1])
                    .map(|d| Affine { coef: vec![d, Poly::default()], c: off.c.clone() });
                let ok = nest.side.is_some()
                    && nest.strict
                    && diagonal.is_some()
                    && pre.iter().all(|a| a.off == diagonal && a.size == all[0].size);
                if !ok {
                    return Err("an array the inner loop writes is used before it".into());
                }
            }
            checks.push(Disjoint {
                a: off.coef[0].host_c(&self.names),
                b: off.coef[1].host_c(&self.names),
                size: all[0].size,
                over: if symmetric || !pre.is_empty() { Over::Square } else { Over::Pairs },
            });
        }
        Ok(checks)
    }
}

/// The bytes one iteration of the parallel loop touches through a pointer, for a region split over
/// several devices (rt_split.c): `[alo*i + lo, ahi*i + hi)` from the pointer, `i` the parallel
/// loop variable (host C, long long, evaluated before the launch).
pub(super) struct Slice {
    pub alo: String,
    pub ahi: String,
    pub lo: String,
    pub hi: String,
}

/// A `for` loop inside the parallel loop's body whose variable stays in a range affine in the
/// parallel loop variable: `lo..=hi` while its body runs.
struct InnerLoop {
    var: Node,
    /// the loop's body (byte offsets): only accesses in it have the variable in range
    body: (usize, usize),
    /// the header (init, test, increment): where the loop may assign its variable
    head: (usize, usize),
    /// the first value and the test's bound; the test's `<`, `<=` (counting up), `>`, `>=` (down)
    first: Node,
    bound: Node,
    cmp: i32,
}

fn inner_loop(f: Node) -> Option<InnerLoop> {
    let kids = f.children();
    if kids.len() != 4 {
        return None;
    }
    let (init, cond, inc, body) = (strip(kids[0]), strip(kids[1]), strip(kids[2]), kids[3]);
    let (var, first) = if init.kind() == CXCursor_DeclStmt {
        let vd = init.children();
        let v = *vd.first().filter(|_| vd.len() == 1)?;
        (v, *v.children().last()?)
    } else if init.kind() == CXCursor_BinaryOperator && init.binop() == CXBinaryOperator_Assign {
        let ch = init.children();
        (strip(ch[0]).referenced()?, ch[1])
    } else {
        return None;
    };
    let is_var = |n: Node| {
        let n = strip(n);
        n.kind() == CXCursor_DeclRefExpr && n.referenced().is_some_and(|d| d.equals(&var))
    };
    if cond.kind() != CXCursor_BinaryOperator {
        return None;
    }
    let cc = cond.children();
    let (bound, cmp) = if is_var(cc[0]) {
        (cc[1], cond.binop())
    } else if is_var(cc[1]) {
        let flipped = match cond.binop() {
            CXBinaryOperator_LT => CXBinaryOperator_GT,
            CXBinaryOperator_GT => CXBinaryOperator_LT,
            CXBinaryOperator_LE => CXBinaryOperator_GE,
            CXBinaryOperator_GE => CXBinaryOperator_LE,
            x => x,
        };
        (cc[0], flipped)
    } else {
        return None;
    };
    // the step: its sign only (a constant); the test bounds the values either way
    let up = match inc.kind() {
        CXCursor_UnaryOperator if is_var(inc.children()[0]) => match inc.unop() {
            CXUnaryOperator_PostInc | CXUnaryOperator_PreInc => true,
            CXUnaryOperator_PostDec | CXUnaryOperator_PreDec => false,
            _ => return None,
        },
        CXCursor_CompoundAssignOperator if is_var(inc.children()[0]) => {
            let c = inc.children()[1].eval_int()?;
            match inc.binop() {
                CXBinaryOperator_AddAssign if c > 0 => true,
                CXBinaryOperator_SubAssign if c > 0 => false,
                _ => return None,
            }
        }
        _ => return None,
    };
    // counting up, the test must stop it from above (and down, from below)
    let fits = match cmp {
        CXBinaryOperator_LT | CXBinaryOperator_LE => up,
        CXBinaryOperator_GT | CXBinaryOperator_GE => !up,
        _ => false,
    };
    if !fits || !is_int(var.ty()) {
        return None;
    }
    let (fs, _) = f.range();
    let (bs, be) = body.range();
    Some(InnerLoop { var, body: (bs.off, be.off), head: (fs.off, bs.off), first, bound, cmp })
}

/// For every base the body reaches only at offsets affine in the parallel loop variable `i` and the
/// variables of inner `for` loops (each within its loop's range, itself affine in `i`): the bytes
/// one iteration touches (see `Slice`). A base missing from the answer may be touched anywhere.
pub(super) fn slices(
    body: Node,
    i: Node,
    inside: &dyn Fn(&Node) -> bool,
    private: &dyn Fn(&Node) -> bool,
) -> HashMap<String, Slice> {
    let mut nodes = vec![body];
    body.walk(&mut |n| nodes.push(n));
    let loops: Vec<InnerLoop> =
        nodes.iter().filter(|n| n.kind() == CXCursor_ForStmt).filter_map(|n| inner_loop(*n)).collect();
    // a loop variable assigned anywhere but in the headers of its loops is no loop variable
    let mut bad: Vec<Node> = vec![];
    for &n in &nodes {
        let target = match n.kind() {
            CXCursor_BinaryOperator | CXCursor_CompoundAssignOperator
                if (CXBinaryOperator_Assign..=CXBinaryOperator_OrAssign).contains(&n.binop()) =>
            {
                n.children().first().copied()
            }
            CXCursor_UnaryOperator
                if (CXUnaryOperator_PostInc..=CXUnaryOperator_PreDec).contains(&n.unop())
                    || n.unop() == CXUnaryOperator_AddrOf =>
            {
                n.children().first().copied()
            }
            _ => None,
        };
        let Some(t) = target.map(strip).filter(|t| t.kind() == CXCursor_DeclRefExpr) else { continue };
        let Some(d) = t.referenced() else { continue };
        let at = n.range().0.off;
        if d.equals(&i) {
            bad.push(d);
        }
        let in_head = loops.iter().any(|l| l.var.equals(&d) && at >= l.head.0 && at < l.head.1);
        if !in_head {
            bad.push(d);
        }
    }
    let mut loops = loops;
    if bad.iter().any(|b| b.equals(&i)) {
        return HashMap::new();
    }
    loops.retain(|l| !bad.iter().any(|b| b.equals(&l.var)));
    let mut vars = vec![i];
    for l in &loops {
        if !vars.iter().any(|v| v.equals(&l.var)) {
            vars.push(l.var);
        }
    }
    let mut w = walked(body, &vars, inside, private);
    if w.mem.refused.is_some() {
        return HashMap::new();
    }
    // each loop's range [lo, hi] as affine forms in i alone
    let mut ranges: Vec<Option<(Affine, Affine)>> = vec![];
    for l in &loops {
        let f = w.affine(l.first);
        let b = w.affine(l.bound);
        let only_i = |a: &Affine| a.coef.iter().skip(1).all(Poly::is_zero);
        let r = match (f, b) {
            (Some(f), Some(b)) if only_i(&f) && only_i(&b) => {
                let one = Affine::konst(vars.len(), Poly::konst(1));
                match l.cmp {
                    // up: first ..= bound - 1 (or bound); down: bound + 1 (or bound) ..= first
                    CXBinaryOperator_LT => b.add(&one.scale(&Poly::konst(-1)).unwrap()).map(|h| (f, h)),
                    CXBinaryOperator_LE => Some((f, b)),
                    CXBinaryOperator_GT => b.add(&one).map(|lo| (lo, f)),
                    _ => Some((b, f)),
                }
            }
            _ => None,
        };
        ranges.push(r);
    }
    let names = w.mem.names.clone();
    let hc = |p: &Poly| p.host_c(&names);
    // per base: the accesses' forms (alo, ahi, lo, hi) as host C, or None (anywhere)
    let mut per: HashMap<String, Option<Vec<[String; 4]>>> = HashMap::new();
    for acc in &w.mem.accesses {
        let entry = per.entry(acc.base.clone()).or_insert_with(|| Some(vec![]));
        let Some(list) = entry.as_mut() else { continue };
        let Some(off) = &acc.off else {
            *entry = None;
            continue;
        };
        let at = acc.node.range().0.off;
        let mut alo = vec![off.coef[0].clone()];
        let mut ahi = vec![off.coef[0].clone()];
        let mut lo = vec![off.c.clone()];
        let mut hi = vec![off.c.add(&Poly::konst(acc.size as i128)).unwrap_or_default()];
        let mut cond: Vec<(Poly, [Poly; 4], [Poly; 4])> = vec![];
        let mut ok = true;
        for (q, b) in off.coef.iter().enumerate().skip(1) {
            if b.is_zero() {
                continue;
            }
            // the innermost loop over this variable around the access
            let l = loops
                .iter()
                .enumerate()
                .filter(|(_, l)| l.var.equals(&vars[q]) && at >= l.body.0 && at < l.body.1)
                .max_by_key(|(_, l)| l.body.0);
            let Some((rl, rh)) = l.and_then(|(k, _)| ranges[k].as_ref()) else {
                ok = false;
                break;
            };
            // b * v, v in [rl, rh]: b >= 0 gives [b*rl, b*rh], else [b*rh, b*rl]
            let prod = |x: &Poly| b.mul(x);
            let (Some(l1), Some(h1), Some(l0), Some(h0)) =
                (prod(&rl.coef[0]), prod(&rh.coef[0]), prod(&rl.c), prod(&rh.c))
            else {
                ok = false;
                break;
            };
            cond.push((b.clone(), [l1.clone(), h1.clone(), l0.clone(), h0.clone()], [h1, l1, h0, l0]));
        }
        if !ok {
            *entry = None;
            continue;
        }
        // host C: the fixed parts plus each (b >= 0 ? x : y) term
        let mut out: [Vec<String>; 4] = [
            alo.drain(..).map(|p| hc(&p)).collect(),
            ahi.drain(..).map(|p| hc(&p)).collect(),
            lo.drain(..).map(|p| hc(&p)).collect(),
            hi.drain(..).map(|p| hc(&p)).collect(),
        ];
        for (b, pos, neg) in &cond {
            // pos: [alo, ahi, lo, hi] contributions when b >= 0 (lower bound from rl ...)
            for k in 0..4 {
                out[k].push(format!("({} >= 0 ? {} : {})", hc(b), hc(&pos[k]), hc(&neg[k])));
            }
        }
        list.push(out.map(|v| format!("({})", v.join(" + "))));
    }
    let mut res = HashMap::new();
    for (base, list) in per {
        let Some(list) = list else { continue };
        if list.is_empty() || w.mem.escaped.contains(&base) {
            continue;
        }
        // one stride for every access (else the union is no one range per iteration)
        if list.iter().any(|f| f[0] != list[0][0] || f[1] != list[0][1]) {
            continue;
        }
        let mut lo: Vec<String> = list.iter().map(|f| f[2].clone()).collect();
        let mut hi: Vec<String> = list.iter().map(|f| f[3].clone()).collect();
        lo.sort();
        lo.dedup();
        hi.sort();
        hi.dedup();
        let fold = |v: Vec<String>, op: &str| {
            v.into_iter().reduce(|a, b| format!("(({a}) {op} ({b}) ? ({a}) : ({b}))")).unwrap_or_default()
        };
        res.insert(
            base,
            Slice { alo: list[0][0].clone(), ahi: list[0][1].clone(), lo: fold(lo, "<"), hi: fold(hi, ">") },
        );
    }
    res
}
