//! Read-only global arrays in `__constant` memory.
//!
//! A global array that the device code (offloaded loops and the functions they call) only reads,
//! and only subscripts (`tab[i]`, `tab[i][j]`: never passed on as a pointer, whose parameter would
//! be `__global`), becomes a `__constant` kernel parameter (and a `__constant` trailing parameter
//! of the functions using it) instead of a `__global` one: NVIDIA GPUs then read it through the
//! constant cache. Whether an array qualifies depends on all the file's device code, so kernels and
//! functions are written with a placeholder address space (`__ompcl_as_NAME__`), replaced at the
//! end (`OMPCL_CONST` or `__global`). The host still owns the array: it is a registered block like
//! any other, copied when the host changed it (write tracking), never copied back.
//!
//! `OMPCL_CONST` is `__constant` unless the runtime builds with `-DOMPCL_CONST=__global`: when a
//! kernel takes more `__constant` bytes or arguments than the device allows
//! (CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE, CL_DEVICE_MAX_CONSTANT_ARGS; the module records the most
//! one kernel takes). Scalars the device code only reads are by-value kernel arguments already.

use super::*;

/// Kernel-source prelude: the address space of read-only global arrays.
pub(super) const CONST_PRELUDE: &str = "#ifndef OMPCL_CONST\n#define OMPCL_CONST __constant\n#endif\n";

/// The host-side `rtype` flag of a candidate's argument (1 = read as __constant), replaced at the end.
pub(super) fn konst_flag(name: &str) -> String {
    format!("__ompcl_konst_{name}__")
}

fn space_placeholder(name: &str) -> String {
    format!("__ompcl_as_{name}__")
}

impl<'a> Translator<'a> {
    /// The address space to write for memory variable `v` of kernel `kid` (`written`: the kernel
    /// may write it): a placeholder for global arrays that may be read-only, else `__global`.
    pub(super) fn global_array_space(&mut self, v: &Var, kid: usize, written: bool) -> String {
        let is_array = v.ty.canonical().kind() == CXType_ConstantArray;
        if !(v.global && is_array && v.kind == VK::Buf) {
            if v.global && is_array {
                // e.g. a global array made private: the functions using it get the private copy
                self.not_constant.insert(v.name.clone());
            }
            return "__global".into();
        }
        if written {
            self.not_constant.insert(v.name.clone());
        }
        self.constant_sizes.insert(v.name.clone(), v.ty.size_of().max(0) as usize);
        self.kernel_constants.entry(kid).or_default().push(v.name.clone());
        space_placeholder(&v.name)
    }

    /// The address space of global `g` as a trailing parameter of a kernel function.
    pub(super) fn function_global_space(&mut self, g: &Node, written: bool) -> String {
        if g.ty().canonical().kind() != CXType_ConstantArray {
            return "__global".into();
        }
        if written {
            self.not_constant.insert(g.spelling());
        }
        space_placeholder(&g.spelling())
    }

    /// Whether global array `n` ends up __constant.
    fn is_constant(&self, n: &str) -> bool {
        self.constant_sizes.contains_key(n) && !self.not_constant.contains(n)
    }

    /// Replace the placeholders in the kernel source `cl`; returns the most bytes and arguments of
    /// `__constant` memory one kernel (of those in `offloaded`) takes.
    pub(super) fn settle_constants(&self, cl: &mut String, offloaded: &[usize]) -> (usize, usize) {
        let mut names: BTreeSet<&String> = self.constant_sizes.keys().collect();
        names.extend(self.not_constant.iter());
        for n in names {
            let space = if self.is_constant(n) { "OMPCL_CONST" } else { "__global" };
            *cl = cl.replace(&space_placeholder(n), space);
        }
        let mut most = (0, 0);
        // only the kernels that are in the source (a region kept on the CPU has none)
        for (_, list) in self.kernel_constants.iter().filter(|(k, _)| offloaded.contains(k)) {
            let set: BTreeSet<&String> = list.iter().filter(|n| self.is_constant(n)).collect();
            let bytes = set.iter().map(|n| self.constant_sizes.get(*n).copied().unwrap_or(0)).sum::<usize>();
            most = (most.0.max(bytes), most.1.max(set.len()));
        }
        most
    }

    /// Replace the placeholders of the host C (the `rtype` flag of candidates' arguments).
    pub(super) fn settle_constant_flags(&self, host: &mut String) {
        for n in self.constant_sizes.keys() {
            *host = host.replace(&konst_flag(n), if self.is_constant(n) { "1" } else { "0" });
        }
    }

    /// Note the globals that `nodes` (device code) use other than as the array of a subscript:
    /// they stay `__global` (a `__constant` pointer cannot be passed where `__global` is expected).
    pub(super) fn note_unsubscripted_globals(&mut self, nodes: &[Node]) {
        let mut bases = HashSet::new();
        for n in nodes {
            if n.kind() == CXCursor_ArraySubscriptExpr {
                if let Some(b) = n.children().first() {
                    let b = strip(*b);
                    if b.kind() == CXCursor_DeclRefExpr {
                        let at = b.loc();
                        bases.insert((at.file, at.off));
                    }
                }
            }
        }
        for n in nodes {
            if n.kind() != CXCursor_DeclRefExpr {
                continue;
            }
            let at = n.loc();
            if bases.contains(&(at.file, at.off)) {
                continue;
            }
            if let Some(r) = n.referenced() {
                if r.kind() == CXCursor_VarDecl && r.semantic_parent().kind() == CXCursor_TranslationUnit {
                    self.not_constant.insert(r.spelling());
                }
            }
        }
    }
}
