//! Tables of row pointers (`T **p`, T a scalar type) that kernel code uses only as `p[i][j]`:
//! the usual C spelling of a 2-D array built row by row (`p[i] = malloc(n * sizeof(T))`, Rodinia's
//! backprop) or carved out of one block (`p[i] = p[0] + i * n`, Rodinia's kmeans).
//!
//! OpenCL 1.2 takes no pointer to pointer as a kernel argument, and the host's row pointers mean
//! nothing on the device anyway. So the kernel takes the rows' data as one buffer and a table of
//! element offsets, one per row, and each `p[e1][e2]` becomes `(p__rows + p__off[e1])[e2]` (two
//! insertions around `p[e1]` and the name replaced, so edits inside `e1` and `e2` still apply).
//! The runtime (`runtime/rt_rows.c`, argument kind `OMPCL_ROWS`) reads the row pointers at each
//! launch, finds their blocks and fills the buffer and the offsets.
//!
//! Anything else done with `p` in the region (a row pointer read, set or moved: `float *r = p[i]`,
//! `p[i] = q`, `p[i] + 1`, `p` passed to a function, `sizeof`) keeps the region on the CPU, since
//! the offsets are read once before the kernel and no device address of a row exists.

use super::*;

/// The element type of a table of row pointers: `T` for `T **` with `T` a number type.
pub(super) fn row_table_element(t: Type) -> Option<Type> {
    let c = t.canonical();
    if c.kind() != CXType_Pointer {
        return None;
    }
    let row = c.pointee().canonical();
    if row.kind() != CXType_Pointer {
        return None;
    }
    let elem = row.pointee();
    let ec = elem.canonical();
    (ec.kind() != CXType_Void && ec.kind() != CXType_Bool && builtin_cl(ec.kind()).is_some()).then_some(elem)
}

impl<'a> Translator<'a> {
    /// Phase of `loop_kernel`, after the variables are classified: each shared `T **` becomes a
    /// table of rows (`VK::Rows`) when every mention of it in the code `(bs, be)` is `p[e1][e2]`;
    /// the edits that make those mentions `(p__rows + p__off[e1])[e2]`. Any other use is an
    /// error (the region stays on the CPU), as any pointer to pointer was before.
    pub(super) fn row_pointer_edits(
        &self,
        vars: &mut BTreeMap<String, Var>,
        body: Node,
        (bs, be): (usize, usize),
        edits: &mut Vec<Edit>,
    ) -> Result<(), String> {
        let tables: HashSet<String> = vars
            .values()
            .filter(|v| v.kind == VK::Buf && v.host.is_none() && row_table_element(v.ty).is_some())
            .map(|v| key_of(&v.decl))
            .collect();
        if tables.is_empty() {
            return Ok(());
        }
        let mut nodes = vec![body];
        body.walk(&mut |c| nodes.push(c));
        // `p[e1][e2]`: the reference to p (its offset) -> the end of `p[e1]`
        let mut rows_at: HashMap<usize, usize> = HashMap::new();
        for n in &nodes {
            if n.kind() != CXCursor_ArraySubscriptExpr {
                continue;
            }
            let inner = strip(n.children()[0]);
            if inner.kind() != CXCursor_ArraySubscriptExpr {
                continue;
            }
            let base = strip(inner.children()[0]);
            if base.kind() == CXCursor_DeclRefExpr
                && base.referenced().is_some_and(|r| tables.contains(&key_of(&r)))
            {
                let ie = inner.range().1;
                if ie.file == self.cx.file && self.cx.text[..ie.off].ends_with(']') {
                    rows_at.insert(base.range().0.off, ie.off);
                }
            }
        }
        for d in decl_refs(body) {
            let Some(r) = d.referenced() else { continue };
            let key = key_of(&r);
            if !tables.contains(&key) {
                continue;
            }
            let name = r.spelling();
            let ps = d.loc_spelling();
            let in_code = ps.file == self.cx.file
                && ps.off >= bs
                && ps.off < be
                && self.cx.text[ps.off..].starts_with(&name);
            let Some(&end) = rows_at.get(&d.range().0.off).filter(|_| in_code) else {
                return Err(format!(
                    "pointer to pointer '{name}' used other than as '{name}[i][j]' (rows read, set or moved in the loop)"
                ));
            };
            edits.push(Edit {
                start: ps.off,
                end: ps.off + name.len(),
                text: format!("({name}__rows + {name}__off"),
            });
            edits.push(Edit { start: end, end, text: ")".into() });
        }
        for v in vars.values_mut() {
            if tables.contains(&key_of(&v.decl)) {
                v.kind = VK::Rows;
            }
        }
        Ok(())
    }

    /// Phase of `var_code`: the kernel parameters of a table of rows `n` (the rows' buffer and
    /// their element offsets) and its host argument.
    pub(super) fn row_table_params(
        &self,
        v: &Var,
        params: &mut Vec<String>,
        host_args: &mut Vec<String>,
    ) -> Result<(), String> {
        let n = &v.name;
        let elem = row_table_element(v.ty).ok_or_else(|| format!("pointer to pointer '{n}'"))?;
        params.push(format!("__global {}", self.types.declr(elem, &format!("*{n}__rows"))?));
        params.push(format!("__global const long *{n}__off"));
        let w = i32::from(v.written_through);
        host_args.push(format!("{{OMPCL_ROWS, \"{n}\", (void*)({n}), sizeof(**{n}), {w}, 0, 0}}"));
        Ok(())
    }
}
