//! OpenCL spelling of C types, and the user types (structs, typedefs, enums) a kernel needs.

use super::*;

// ---------------------------------------------------------------------------------------------
// OpenCL type spelling

#[derive(Default)]
pub(super) struct Types {
    /// declarations to copy into the kernel source: (file, start, end)
    pub(super) decls: BTreeMap<(String, usize), usize>,
    /// anonymous record (decl key) -> typedef name
    pub(super) anon: HashMap<String, String>,
    pub(super) needs_fp64: bool,
    /// pointer members of the records above, rewritten in the kernel source as opaque 64-bit
    /// integers (the host's size and alignment): (file, start) -> (end, `ulong name[dims]`)
    pub(super) member_edits: BTreeMap<(String, usize), (usize, String)>,
    /// anonymous records declared with variables (`struct { ... } s, a[5];`): (file, start) of the
    /// record -> the name a typedef gives it in the kernel source
    pub(super) anon_typedefs: HashMap<(String, usize), String>,
    /// records OpenCL cannot express, and why (every later use gets the same answer)
    bad_records: HashMap<(String, usize), String>,
}

pub(super) fn builtin_cl(k: CXTypeKind) -> Option<&'static str> {
    Some(match k {
        CXType_Bool => "bool",
        CXType_Char_S | CXType_SChar => "char",
        CXType_Char_U | CXType_UChar => "uchar",
        CXType_Short => "short",
        CXType_UShort => "ushort",
        CXType_Int => "int",
        CXType_UInt => "uint",
        CXType_Long | CXType_LongLong => "long",
        CXType_ULong | CXType_ULongLong => "ulong",
        CXType_Float => "float",
        CXType_Double => "double",
        CXType_Void => "void",
        _ => return None,
    })
}

impl Types {
    /// Note a type used by kernel code; Err(reason) when OpenCL cannot express it.
    pub(super) fn note(&mut self, t: Type, depth: u32) -> Result<(), String> {
        if depth > 16 {
            return Ok(());
        }
        match t.kind() {
            CXType_Pointer => return self.note(t.pointee(), depth + 1),
            CXType_ConstantArray | CXType_IncompleteArray | CXType_VariableArray => {
                return self.note(t.elem(), depth + 1)
            }
            CXType_Elaborated => return self.note(t.named(), depth + 1),
            CXType_Typedef => {
                let d = t.declaration();
                if !d.in_system_header() {
                    let (s, e) = d.range();
                    self.decls.insert((s.file.clone(), s.off), e.off);
                    let u = d.typedef_underlying();
                    if u.canonical().kind() == CXType_Record || u.canonical().kind() == CXType_Enum {
                        let rd = u.canonical().declaration();
                        self.anon.insert(key_of(&rd), d.spelling());
                    }
                    return self.note(u, depth + 1);
                }
                return self.note(t.canonical(), depth + 1);
            }
            _ => {}
        }
        let c = t.canonical();
        match c.kind() {
            CXType_Record => {
                let d = c.declaration();
                if d.in_system_header() {
                    return Err(format!("type '{}' from a system header", t.spelling()));
                }
                let d = d.definition().unwrap_or(d);
                let (s, e) = d.range();
                let key = (s.file.clone(), s.off);
                if let Some(why) = self.bad_records.get(&key) {
                    return Err(why.clone());
                }
                if self.decls.contains_key(&key) {
                    return Ok(());
                }
                self.decls.insert(key.clone(), e.off);
                // an anonymous record that declares variables (no typedef names it): the kernel
                // source names it with a typedef of its own
                let name = d.spelling();
                let nested = matches!(d.semantic_parent().kind(), CXCursor_StructDecl | CXCursor_UnionDecl);
                if (name.is_empty() || name.contains('(')) && !nested && !self.anon.contains_key(&key_of(&d))
                {
                    let td = format!("ompcl_anon_{}", self.anon_typedefs.len());
                    self.anon.insert(key_of(&d), td.clone());
                    self.anon_typedefs.insert(key.clone(), td);
                }
                if let Err(why) = self.note_fields(d, t, depth) {
                    self.decls.remove(&key);
                    self.bad_records.insert(key, why.clone());
                    return Err(why);
                }
                Ok(())
            }
            CXType_Enum => {
                let d = c.declaration();
                if !d.in_system_header() {
                    let (s, e) = d.range();
                    self.decls.insert((s.file.clone(), s.off), e.off);
                }
                Ok(())
            }
            CXType_LongDouble => Err("long double".into()),
            CXType_Double => {
                self.needs_fp64 = true;
                Ok(())
            }
            CXType_FunctionProto | CXType_FunctionNoProto => Err("function pointer".into()),
            k if builtin_cl(k).is_some() => Ok(()),
            k => Err(format!("type '{}' (kind {k})", t.spelling())),
        }
    }

    /// The members of a record: pointer members (also arrays of pointers, function pointers)
    /// become `ulong` in the kernel source: the same 8 bytes, aligned alike, on a 64-bit host.
    /// Kernel code may copy such a struct whole, copy the member to another, or (a member of a
    /// struct variable) use it as a pointer passed on its own; nothing else (`analyse_code`).
    fn note_fields(&mut self, d: Node, t: Type, depth: u32) -> Result<(), String> {
        let fields: Vec<Node> = d.children().into_iter().filter(|c| c.kind() == CXCursor_FieldDecl).collect();
        for f in &fields {
            let ft = f.ty();
            let mut inner = ft.canonical();
            let mut dims = String::new();
            while inner.kind() == CXType_ConstantArray {
                dims.push_str(&format!("[{}]", inner.array_size()));
                inner = inner.elem().canonical();
            }
            if inner.kind() != CXType_Pointer {
                self.note(ft, depth + 1)?;
                continue;
            }
            let name = f.spelling();
            let bad = || {
                format!(
                    "'{}' has a pointer member '{name}' declared in a form ompcl cannot rewrite",
                    t.spelling()
                )
            };
            if inner.size_of() != 8 || name.is_empty() {
                return Err(bad());
            }
            let (fs, fe) = f.range();
            let at = f.loc_spelling();
            // one declarator per declaration (`int a, *p;` shares its type with another field),
            // spelt in the record's file, its name inside the range
            let shared = fields.iter().any(|g| !g.equals(f) && g.range().0.off == fs.off);
            if shared || fs.file != fe.file || at.file != fs.file || at.off < fs.off || at.off >= fe.off {
                return Err(bad());
            }
            self.member_edits.insert((fs.file.clone(), fs.off), (fe.off, format!("ulong {name}{dims}")));
        }
        Ok(())
    }

    pub(super) fn base(&self, t: Type) -> Result<String, String> {
        let c = t.canonical();
        let konst = if c.is_const() { "const " } else { "" };
        if let Some(b) = builtin_cl(c.kind()) {
            return Ok(format!("{konst}{b}"));
        }
        match c.kind() {
            CXType_Enum => Ok(format!("{konst}int")),
            CXType_Record => {
                let d = c.declaration();
                let name = d.spelling();
                if let Some(td) = self.anon.get(&key_of(&d)) {
                    return Ok(format!("{konst}{td}"));
                }
                if name.is_empty() || name.contains('(') {
                    return Err(format!("anonymous type '{}'", t.spelling()));
                }
                let tag = if d.kind() == CXCursor_UnionDecl { "union" } else { "struct" };
                Ok(format!("{konst}{tag} {name}"))
            }
            k => Err(format!("type '{}' (kind {k})", t.spelling())),
        }
    }

    /// A declarator: `inner` named with type `t`; pointers get `__global`.
    pub(super) fn declr(&self, t: Type, inner: &str) -> Result<String, String> {
        let c = t.canonical();
        match c.kind() {
            CXType_Pointer => {
                let p = if t.kind() == CXType_Pointer { t.pointee() } else { c.pointee() };
                let p = if p.kind() == CXType_Invalid { c.pointee() } else { p };
                let pc = p.canonical();
                if pc.kind() == CXType_Pointer {
                    return Err("pointer to pointer".into());
                }
                let inner2 = if matches!(pc.kind(), CXType_ConstantArray | CXType_IncompleteArray) {
                    format!("(*{inner})")
                } else {
                    format!("*{inner}")
                };
                let d = self.declr(p, &inner2)?;
                Ok(format!("__global {d}"))
            }
            CXType_ConstantArray => self.declr(c.elem(), &format!("{inner}[{}]", c.array_size())),
            CXType_IncompleteArray => self.declr(c.elem(), &format!("{inner}[]")),
            _ => Ok(format!("{} {inner}", self.base(t)?).trim_end().to_string()),
        }
    }
}
