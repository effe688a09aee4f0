//! A thin, safe-ish layer over libclang (through clang-sys, loaded at run time).
#![allow(non_upper_case_globals)]

use clang_sys::*;
use std::ffi::{CStr, CString};
use std::os::raw::{c_char, c_void};
use std::ptr;

pub use clang_sys::{CXCursor, CXType};

/// Load libclang: `LIBCLANG_PATH` if set, else Debian's LLVM 19, else clang-sys's search.
pub fn load() -> Result<(), String> {
    if clang_sys::is_loaded() {
        return Ok(());
    }
    if std::env::var_os("LIBCLANG_PATH").is_none() {
        // The newest LLVM first; 14-16 are what Ubuntu 22.04 (JetPack 6) and Debian 12 ship
        // besides 19 (binop/unop read operators from tokens before libclang 17).
        let llvm_dirs = (14..=21).rev().map(|v| format!("/usr/lib/llvm-{v}/lib"));
        for dir in llvm_dirs {
            let dir = dir.as_str();
            let has = std::fs::read_dir(dir)
                .map(|rd| {
                    rd.flatten().any(|e| {
                        let n = e.file_name().to_string_lossy().into_owned();
                        n.starts_with("libclang") && !n.starts_with("libclang-cpp") && n.contains(".so")
                    })
                })
                .unwrap_or(false);
            if has {
                std::env::set_var("LIBCLANG_PATH", dir);
                break;
            }
        }
    }
    clang_sys::load().map_err(|e| format!("cannot load libclang: {e}"))
}

/// clang's own headers (stddef.h, stdarg.h...) for the loaded libclang. libclang finds them in
/// `<its folder>/clang/<version>/include`, which Debian and Ubuntu ship in libclang-common-N-dev,
/// not in libclang1-N: with libclang alone (e.g. a Jetson with libclang1-14 installed), every
/// parse would fail on `stddef.h`. Then another clang's headers are used (`-isystem`): the newest
/// of `/usr/lib/llvm-N/lib/clang/*/include` and `/usr/lib/clang/*/include`, else GCC's.
fn builtin_headers_args() -> Vec<String> {
    use std::path::{Path, PathBuf};
    use std::sync::OnceLock;
    static ARGS: OnceLock<Vec<String>> = OnceLock::new();
    ARGS.get_or_init(|| {
        let has_stddef = |d: &Path| d.join("stddef.h").exists();
        let subdirs = |d: PathBuf| -> Vec<PathBuf> {
            let mut v: Vec<PathBuf> =
                std::fs::read_dir(d).map(|rd| rd.flatten().map(|e| e.path()).collect()).unwrap_or_default();
            v.sort();
            v.reverse();
            v
        };
        if let Some(lib) = clang_sys::get_library() {
            if let Some(dir) = lib.path().parent() {
                if subdirs(dir.join("clang")).iter().any(|v| has_stddef(&v.join("include"))) {
                    return Vec::new();
                }
            }
        }
        let mut candidates = Vec::new();
        for v in (10..=25).rev() {
            candidates.extend(
                subdirs(PathBuf::from(format!("/usr/lib/llvm-{v}/lib/clang")))
                    .into_iter()
                    .map(|d| d.join("include")),
            );
        }
        candidates.extend(subdirs(PathBuf::from("/usr/lib/clang")).into_iter().map(|d| d.join("include")));
        for triple in subdirs(PathBuf::from("/usr/lib/gcc")) {
            candidates.extend(subdirs(triple).into_iter().map(|d| d.join("include")));
        }
        match candidates.into_iter().find(|d| has_stddef(d)) {
            Some(d) => vec!["-isystem".into(), d.to_string_lossy().into_owned()],
            None => Vec::new(),
        }
    })
    .clone()
}

/// The translation unit's cursor kind in the loaded libclang's numbering (0 before any parse).
static LOADED_TU_KIND: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);

/// CXBinaryOperatorKind of an operator token (0: not one).
pub(crate) fn binop_kind(t: &str) -> i32 {
    match t {
        ".*" => CXBinaryOperator_PtrMemD,
        "->*" => CXBinaryOperator_PtrMemI,
        "*" => CXBinaryOperator_Mul,
        "/" => CXBinaryOperator_Div,
        "%" => CXBinaryOperator_Rem,
        "+" => CXBinaryOperator_Add,
        "-" => CXBinaryOperator_Sub,
        "<<" => CXBinaryOperator_Shl,
        ">>" => CXBinaryOperator_Shr,
        "<=>" => CXBinaryOperator_Cmp,
        "<" => CXBinaryOperator_LT,
        ">" => CXBinaryOperator_GT,
        "<=" => CXBinaryOperator_LE,
        ">=" => CXBinaryOperator_GE,
        "==" => CXBinaryOperator_EQ,
        "!=" => CXBinaryOperator_NE,
        "&" => CXBinaryOperator_And,
        "^" => CXBinaryOperator_Xor,
        "|" => CXBinaryOperator_Or,
        "&&" => CXBinaryOperator_LAnd,
        "||" => CXBinaryOperator_LOr,
        "=" => CXBinaryOperator_Assign,
        "*=" => CXBinaryOperator_MulAssign,
        "/=" => CXBinaryOperator_DivAssign,
        "%=" => CXBinaryOperator_RemAssign,
        "+=" => CXBinaryOperator_AddAssign,
        "-=" => CXBinaryOperator_SubAssign,
        "<<=" => CXBinaryOperator_ShlAssign,
        ">>=" => CXBinaryOperator_ShrAssign,
        "&=" => CXBinaryOperator_AndAssign,
        "^=" => CXBinaryOperator_XorAssign,
        "|=" => CXBinaryOperator_OrAssign,
        "," => CXBinaryOperator_Comma,
        _ => 0,
    }
}

fn cxs(s: CXString) -> String {
    // SAFETY: `s` is a CXString libclang returned and nobody else disposes; its C string is copied before the dispose.
    unsafe {
        let p = clang_getCString(s);
        let r = if p.is_null() { String::new() } else { CStr::from_ptr(p).to_string_lossy().into_owned() };
        clang_disposeString(s);
        r
    }
}

pub struct Tu {
    idx: CXIndex,
    pub tu: CXTranslationUnit,
}

impl Drop for Tu {
    fn drop(&mut self) {
        // SAFETY: the unit and index this Tu made, disposed once, here (nothing borrows them: Nodes are only used while their Tu lives).
        unsafe {
            clang_disposeTranslationUnit(self.tu);
            clang_disposeIndex(self.idx);
        }
    }
}

pub struct Diag {
    pub severity: i32, // 2 warning, 3 error, 4 fatal
    pub text: String,
}

impl Tu {
    /// Parse `file`; `contents`, if given, is read instead of the file on disk (same name, so
    /// `#include "..."` still resolves next to it).
    pub fn parse(file: &str, args: &[String], contents: Option<&str>) -> Result<Tu, String> {
        // SAFETY: libclang calls with pointers into CStrings, vectors and `contents` that all outlive the parse; the out-pointer is a local; the index is disposed on failure or by Drop.
        unsafe {
            let idx = clang_createIndex(0, 0);
            let cfile = CString::new(file).map_err(|_| format!("{file}: NUL byte in the file name"))?;
            let mut args = args.to_vec();
            args.extend(builtin_headers_args());
            let cargs: Vec<CString> =
                args.iter().map(|a| CString::new(a.replace('\0', "")).unwrap_or_default()).collect();
            let mut unsaved: Vec<CXUnsavedFile> = Vec::new();
            if let Some(c) = contents {
                unsaved.push(CXUnsavedFile {
                    Filename: cfile.as_ptr(),
                    Contents: c.as_ptr() as *const c_char,
                    Length: c.len() as _,
                });
            }
            let pargs: Vec<*const c_char> = cargs.iter().map(|c| c.as_ptr()).collect();
            let mut tu: CXTranslationUnit = ptr::null_mut();
            let err = clang_parseTranslationUnit2(
                idx,
                cfile.as_ptr(),
                pargs.as_ptr(),
                pargs.len() as i32,
                if unsaved.is_empty() { ptr::null_mut() } else { unsaved.as_mut_ptr() },
                unsaved.len() as u32,
                CXTranslationUnit_DetailedPreprocessingRecord,
                &mut tu,
            );
            if err != 0 || tu.is_null() {
                clang_disposeIndex(idx);
                return Err(format!("libclang could not parse {file} (error {err})"));
            }
            LOADED_TU_KIND.store(
                clang_getCursorKind(clang_getTranslationUnitCursor(tu)),
                std::sync::atomic::Ordering::Relaxed,
            );
            Ok(Tu { idx, tu })
        }
    }

    pub fn diagnostics(&self) -> Vec<Diag> {
        let mut v = Vec::new();
        // SAFETY: queries of this live unit; each diagnostic is disposed after use, its text copied out by cxs.
        unsafe {
            let n = clang_getNumDiagnostics(self.tu);
            for i in 0..n {
                let d = clang_getDiagnostic(self.tu, i);
                let sev = clang_getDiagnosticSeverity(d);
                let text = cxs(clang_formatDiagnostic(d, clang_defaultDiagnosticDisplayOptions()));
                clang_disposeDiagnostic(d);
                v.push(Diag { severity: sev as i32, text });
            }
        }
        v
    }

    /// Byte ranges of `file` that the preprocessor skipped (`#if 0`, `#ifdef UNDEFINED` ...).
    pub fn skipped_ranges(&self, file: &str) -> Vec<(usize, usize)> {
        let mut v = Vec::new();
        // SAFETY: queries of this live unit; `list` is checked for null, read within its `count`, and disposed once.
        unsafe {
            let cfile = CString::new(file).unwrap();
            let f = clang_getFile(self.tu, cfile.as_ptr());
            if f.is_null() {
                return v;
            }
            let list = clang_getSkippedRanges(self.tu, f);
            if list.is_null() {
                return v;
            }
            for i in 0..(*list).count as usize {
                let r = *(*list).ranges.add(i);
                let (s, e) = (loc_spelling(clang_getRangeStart(r)), loc_spelling(clang_getRangeEnd(r)));
                v.push((s.off, e.off));
            }
            clang_disposeSourceRangeList(list);
        }
        v
    }

    pub fn root(&self) -> Node {
        // SAFETY: a libclang query on a cursor or type of a live translation unit (Nodes and Types
        // are used only while their Tu lives).
        Node(unsafe { clang_getTranslationUnitCursor(self.tu) })
    }
}

/// A libclang cursor. It points into its translation unit's memory and carries no lifetime: a
/// Node must not be used after its `Tu` is dropped (ompcl parses a file, translates it and only
/// then drops the Tu, so every Node of a translation lives inside that span).
#[derive(Clone, Copy)]
pub struct Node(pub CXCursor);

/// A position: file name, byte offset, line, column.
#[derive(Clone, Debug, PartialEq)]
pub struct Pos {
    pub file: String,
    pub off: usize,
    pub line: u32,
    pub col: u32,
}

fn loc_expansion(l: CXSourceLocation) -> Pos {
    // SAFETY: a location of a live unit; the out-pointers are locals; the file name is copied
    // out by cxs.
    unsafe {
        let mut f: CXFile = ptr::null_mut();
        let (mut line, mut col, mut off) = (0u32, 0u32, 0u32);
        clang_getExpansionLocation(l, &mut f, &mut line, &mut col, &mut off);
        let file = if f.is_null() { String::new() } else { cxs(clang_getFileName(f)) };
        Pos { file, off: off as usize, line, col }
    }
}

fn loc_spelling(l: CXSourceLocation) -> Pos {
    // SAFETY: a location of a live unit; the out-pointers are locals; the file name is copied
    // out by cxs.
    unsafe {
        let mut f: CXFile = ptr::null_mut();
        let (mut line, mut col, mut off) = (0u32, 0u32, 0u32);
        clang_getSpellingLocation(l, &mut f, &mut line, &mut col, &mut off);
        let file = if f.is_null() { String::new() } else { cxs(clang_getFileName(f)) };
        Pos { file, off: off as usize, line, col }
    }
}

/// End of the macro invocation starting at `at`: the name, and a balanced `( ... )` if one follows.
fn macro_invocation_end(text: &[u8], at: usize) -> usize {
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut i = at;
    if i >= text.len() || !ident(text[i]) {
        return at;
    }
    while i < text.len() && ident(text[i]) {
        i += 1;
    }
    let name_end = i;
    while i < text.len() && (text[i] == b' ' || text[i] == b'\t') {
        i += 1;
    }
    if i >= text.len() || text[i] != b'(' {
        return name_end;
    }
    let mut depth = 0;
    while i < text.len() {
        match text[i] {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    name_end
}

extern "C" fn collect_visitor(c: CXCursor, _p: CXCursor, data: CXClientData) -> CXChildVisitResult {
    // SAFETY: `data` is the `&mut Vec<Node>` that `children` passes to clang_visitChildren for the duration of the visit, and nothing else touches it meanwhile.
    let v = unsafe { &mut *(data as *mut Vec<Node>) };
    v.push(Node(c));
    CXChildVisit_Continue
}

impl Node {
    /// The cursor kind, in the numbering of the libclang headers ompcl is built with: libclang
    /// before 17 numbers the translation unit 300 (350 since), which is mapped here.
    pub fn kind(&self) -> CXCursorKind {
        // SAFETY: a libclang query on a cursor or type of a live translation unit (Nodes and Types
        // are used only while their Tu lives).
        let k = unsafe { clang_getCursorKind(self.0) };
        let tu = LOADED_TU_KIND.load(std::sync::atomic::Ordering::Relaxed);
        if tu != 0 && tu != CXCursor_TranslationUnit && k == tu {
            CXCursor_TranslationUnit
        } else {
            k
        }
    }
    pub fn is_null(&self) -> bool {
        // SAFETY: a libclang query on a cursor or type of a live translation unit (Nodes and Types
        // are used only while their Tu lives).
        unsafe { clang_Cursor_isNull(self.0) != 0 }
    }
    pub fn children(&self) -> Vec<Node> {
        let mut v: Vec<Node> = Vec::new();
        // SAFETY: a cursor of a live unit (Nodes are used only while their Tu lives); `v` outlives
        // the visit and collect_visitor is the only user of the pointer to it.
        unsafe {
            clang_visitChildren(self.0, collect_visitor, &mut v as *mut Vec<Node> as *mut c_void);
        }
        v
    }
    /// Pre-order walk of every descendant (not self).
    pub fn walk(&self, f: &mut dyn FnMut(Node)) {
        for c in self.children() {
            f(c);
            c.walk(f);
        }
    }
    pub fn spelling(&self) -> String {
        // SAFETY: a libclang query on a cursor or type of a live translation unit (Nodes and Types
        // are used only while their Tu lives).
        unsafe { cxs(clang_getCursorSpelling(self.0)) }
    }
    pub fn ty(&self) -> Type {
        // SAFETY: a libclang query on a cursor or type of a live translation unit (Nodes and Types
        // are used only while their Tu lives).
        Type(unsafe { clang_getCursorType(self.0) })
    }
    pub fn result_ty(&self) -> Type {
        // SAFETY: a libclang query on a cursor or type of a live translation unit (Nodes and Types
        // are used only while their Tu lives).
        Type(unsafe { clang_getCursorResultType(self.0) })
    }
    pub fn referenced(&self) -> Option<Node> {
        // SAFETY: a libclang query on a cursor or type of a live translation unit (Nodes and Types
        // are used only while their Tu lives).
        let r = Node(unsafe { clang_getCursorReferenced(self.0) });
        if r.is_null() {
            None
        } else {
            Some(r)
        }
    }
    pub fn definition(&self) -> Option<Node> {
        // SAFETY: a libclang query on a cursor or type of a live translation unit (Nodes and Types
        // are used only while their Tu lives).
        let r = Node(unsafe { clang_getCursorDefinition(self.0) });
        if r.is_null() {
            None
        } else {
            Some(r)
        }
    }
    /// A variable declaration's initializer (`= {0}`), None without one (an array's size
    /// expression is not one).
    pub fn var_initializer(&self) -> Option<Node> {
        // SAFETY: a libclang query on a cursor or type of a live translation unit (Nodes and Types
        // are used only while their Tu lives).
        let r = Node(unsafe { clang_Cursor_getVarDeclInitializer(self.0) });
        (!r.is_null()).then_some(r)
    }
    pub fn semantic_parent(&self) -> Node {
        // SAFETY: a libclang query on a cursor or type of a live translation unit (Nodes and Types
        // are used only while their Tu lives).
        Node(unsafe { clang_getCursorSemanticParent(self.0) })
    }
    pub fn equals(&self, o: &Node) -> bool {
        // SAFETY: a libclang query on a cursor or type of a live translation unit (Nodes and Types
        // are used only while their Tu lives).
        unsafe { clang_equalCursors(self.0, o.0) != 0 }
    }
    pub fn hash(&self) -> u32 {
        // SAFETY: a libclang query on a cursor or type of a live translation unit (Nodes and Types
        // are used only while their Tu lives).
        unsafe { clang_hashCursor(self.0) }
    }
    /// Expansion range (start, end) as positions.
    /// When the last token comes from a macro (`i < _PB_NI`, `x = MIN(a, b)`), the end is moved past
    /// the whole macro invocation, so that the text between start and end is the expression as
    /// written.
    pub fn range(&self) -> (Pos, Pos) {
        // SAFETY: a cursor of a live unit; the file's contents, checked for null, stay valid while
        // the unit lives and are read within the `size` libclang reports.
        unsafe {
            let r = clang_getCursorExtent(self.0);
            let (s, mut e) = (loc_expansion(clang_getRangeStart(r)), loc_expansion(clang_getRangeEnd(r)));
            let sp = loc_spelling(clang_getRangeEnd(r));
            if (sp.file != e.file || sp.off != e.off) && !e.file.is_empty() {
                let tu = clang_Cursor_getTranslationUnit(self.0);
                let cf = CString::new(e.file.as_str()).unwrap();
                let f = clang_getFile(tu, cf.as_ptr());
                if !f.is_null() {
                    let mut size: usize = 0;
                    let p = clang_getFileContents(tu, f, &mut size);
                    if !p.is_null() {
                        let text = std::slice::from_raw_parts(p as *const u8, size);
                        e.off = macro_invocation_end(text, e.off);
                    }
                }
            }
            (s, e)
        }
    }
    pub fn spelling_range(&self) -> (Pos, Pos) {
        // SAFETY: a libclang query on a cursor or type of a live translation unit (Nodes and Types
        // are used only while their Tu lives).
        unsafe {
            let r = clang_getCursorExtent(self.0);
            (loc_spelling(clang_getRangeStart(r)), loc_spelling(clang_getRangeEnd(r)))
        }
    }
    /// The cursor's own location (e.g. the name of a declaration), spelling position.
    pub fn loc_spelling(&self) -> Pos {
        // SAFETY: a libclang query on a cursor or type of a live translation unit (Nodes and Types
        // are used only while their Tu lives).
        unsafe { loc_spelling(clang_getCursorLocation(self.0)) }
    }
    pub fn loc(&self) -> Pos {
        // SAFETY: a libclang query on a cursor or type of a live translation unit (Nodes and Types
        // are used only while their Tu lives).
        unsafe { loc_expansion(clang_getCursorLocation(self.0)) }
    }
    pub fn in_system_header(&self) -> bool {
        // SAFETY: a libclang query on a cursor or type of a live translation unit (Nodes and Types
        // are used only while their Tu lives).
        unsafe { clang_Location_isInSystemHeader(clang_getCursorLocation(self.0)) != 0 }
    }
    pub fn is_macro_builtin(&self) -> bool {
        // SAFETY: a libclang query on a cursor or type of a live translation unit (Nodes and Types
        // are used only while their Tu lives).
        unsafe { clang_Cursor_isMacroBuiltin(self.0) != 0 }
    }
    pub fn is_variadic(&self) -> bool {
        // SAFETY: a libclang query on a cursor or type of a live translation unit (Nodes and Types
        // are used only while their Tu lives).
        unsafe { clang_Cursor_isVariadic(self.0) != 0 }
    }
    pub fn storage_static(&self) -> bool {
        // SAFETY: a libclang query on a cursor or type of a live translation unit (Nodes and Types
        // are used only while their Tu lives).
        unsafe { clang_Cursor_getStorageClass(self.0) == CX_SC_Static }
    }
    pub fn storage_extern(&self) -> bool {
        // SAFETY: a libclang query on a cursor or type of a live translation unit (Nodes and Types
        // are used only while their Tu lives).
        unsafe { clang_Cursor_getStorageClass(self.0) == CX_SC_Extern }
    }
    pub fn is_definition(&self) -> bool {
        // SAFETY: a libclang query on a cursor or type of a live translation unit (Nodes and Types
        // are used only while their Tu lives).
        unsafe { clang_isCursorDefinition(self.0) != 0 }
    }
    /// The operator of a BinaryOperator/CompoundAssignOperator (a CXBinaryOperatorKind).
    /// libclang 17 answers it; before (the libclang 10-16 of Ubuntu 20.04/22.04, Debian 12's
    /// 14-16) it is read from the tokens: the first one after the left operand.
    pub fn binop(&self) -> i32 {
        if clang_getCursorBinaryOperatorKind::is_loaded() {
            // SAFETY: a libclang query on a cursor or type of a live translation unit (Nodes and Types
            // are used only while their Tu lives).
            return unsafe { clang_getCursorBinaryOperatorKind(self.0) as i32 };
        }
        let kids = self.children();
        let Some(lhs) = kids.first() else { return 0 };
        let end = lhs.range().1.off;
        self.tokens().into_iter().find(|(_, off)| *off >= end).map_or(0, |(t, _)| binop_kind(&t))
    }
    /// The operator of a UnaryOperator (a CXUnaryOperatorKind); from the tokens before
    /// libclang 17: a prefix operator is the first token, a postfix one (++/--) the last.
    pub fn unop(&self) -> i32 {
        if clang_getCursorUnaryOperatorKind::is_loaded() {
            // SAFETY: a libclang query on a cursor or type of a live translation unit (Nodes and Types
            // are used only while their Tu lives).
            return unsafe { clang_getCursorUnaryOperatorKind(self.0) as i32 };
        }
        let toks = self.tokens();
        let operand_start = self.children().first().map(|c| c.range().0.off);
        match (toks.first(), toks.last()) {
            (Some((t, off)), _) if Some(*off) < operand_start || operand_start.is_none() => {
                match t.as_str() {
                    "++" => CXUnaryOperator_PreInc,
                    "--" => CXUnaryOperator_PreDec,
                    "&" => CXUnaryOperator_AddrOf,
                    "*" => CXUnaryOperator_Deref,
                    "+" => CXUnaryOperator_Plus,
                    "-" => CXUnaryOperator_Minus,
                    "~" => CXUnaryOperator_Not,
                    "!" => CXUnaryOperator_LNot,
                    "__real__" | "__real" => CXUnaryOperator_Real,
                    "__imag__" | "__imag" => CXUnaryOperator_Imag,
                    "__extension__" => CXUnaryOperator_Extension,
                    _ => 0,
                }
            }
            (_, Some((t, _))) => match t.as_str() {
                "++" => CXUnaryOperator_PostInc,
                "--" => CXUnaryOperator_PostDec,
                _ => 0,
            },
            _ => 0,
        }
    }
    /// The tokens of the cursor's extent with their byte offsets (expansion positions).
    fn tokens(&self) -> Vec<(String, usize)> {
        let mut out = Vec::new();
        // SAFETY: the cursor's own unit is alive (Nodes are used only while their Tu lives); the token array is checked for null, read within `n` and disposed once.
        unsafe {
            let tu = clang_Cursor_getTranslationUnit(self.0);
            let mut toks: *mut CXToken = ptr::null_mut();
            let mut n = 0u32;
            clang_tokenize(tu, clang_getCursorExtent(self.0), &mut toks, &mut n);
            if toks.is_null() {
                return out;
            }
            for i in 0..n as usize {
                let t = *toks.add(i);
                let off = loc_expansion(clang_getTokenLocation(tu, t)).off;
                out.push((cxs(clang_getTokenSpelling(tu, t)), off));
            }
            clang_disposeTokens(tu, toks, n);
        }
        out
    }
    pub fn enum_int_type(&self) -> Type {
        // SAFETY: a libclang query on a cursor or type of a live translation unit (Nodes and Types
        // are used only while their Tu lives).
        Type(unsafe { clang_getEnumDeclIntegerType(self.0) })
    }
    pub fn typedef_underlying(&self) -> Type {
        // SAFETY: a libclang query on a cursor or type of a live translation unit (Nodes and Types
        // are used only while their Tu lives).
        Type(unsafe { clang_getTypedefDeclUnderlyingType(self.0) })
    }
    /// Argument `i` of a call expression.
    pub fn arg(&self, i: u32) -> Node {
        // SAFETY: a libclang query on a cursor of a live translation unit (Nodes are used only
        // while their Tu lives); an index past the arguments gives a null cursor.
        unsafe { Node(clang_Cursor_getArgument(self.0, i)) }
    }
    pub fn num_args(&self) -> i32 {
        // SAFETY: a libclang query on a cursor or type of a live translation unit (Nodes and Types
        // are used only while their Tu lives).
        unsafe { clang_Cursor_getNumArguments(self.0) }
    }
    pub fn is_expr(&self) -> bool {
        // SAFETY: a libclang query on a cursor or type of a live translation unit (Nodes and Types
        // are used only while their Tu lives).
        unsafe { clang_isExpression(self.kind()) != 0 }
    }
    pub fn is_stmt(&self) -> bool {
        // SAFETY: a libclang query on a cursor or type of a live translation unit (Nodes and Types
        // are used only while their Tu lives).
        unsafe { clang_isStatement(self.kind()) != 0 }
    }
    /// The value of an integer constant expression (literals, `sizeof`, enum constants and
    /// arithmetic on them), or None.
    pub fn eval_int(&self) -> Option<i128> {
        // SAFETY: the cursor's unit is alive; the evaluation result is checked for null and disposed once.
        unsafe {
            let r = clang_Cursor_Evaluate(self.0);
            if r.is_null() {
                return None;
            }
            let v = if clang_EvalResult_getKind(r) != CXEval_Int {
                None
            } else if clang_EvalResult_isUnsignedInt(r) != 0 {
                Some(clang_EvalResult_getAsUnsigned(r) as i128)
            } else {
                Some(clang_EvalResult_getAsLongLong(r) as i128)
            };
            clang_EvalResult_dispose(r);
            v
        }
    }
    /// The value of a constant arithmetic expression, integer or floating (`0`, `1.0f`, `-0.0`),
    /// or None.
    pub fn eval_number(&self) -> Option<f64> {
        // SAFETY: the cursor's unit is alive; the evaluation result is checked for null and disposed once.
        unsafe {
            let r = clang_Cursor_Evaluate(self.0);
            if r.is_null() {
                return None;
            }
            let v = match clang_EvalResult_getKind(r) {
                CXEval_Int if clang_EvalResult_isUnsignedInt(r) != 0 => {
                    Some(clang_EvalResult_getAsUnsigned(r) as f64)
                }
                CXEval_Int => Some(clang_EvalResult_getAsLongLong(r) as f64),
                CXEval_Float => Some(clang_EvalResult_getAsDouble(r)),
                _ => None,
            };
            clang_EvalResult_dispose(r);
            v
        }
    }
}

/// A libclang type, bound like `Node` to its translation unit's lifetime.
#[derive(Clone, Copy)]
pub struct Type(pub CXType);

impl Type {
    pub fn kind(&self) -> CXTypeKind {
        self.0.kind
    }
    pub fn canonical(&self) -> Type {
        // SAFETY: a libclang query on a cursor or type of a live translation unit (Nodes and Types
        // are used only while their Tu lives).
        Type(unsafe { clang_getCanonicalType(self.0) })
    }
    pub fn spelling(&self) -> String {
        // SAFETY: a libclang query on a cursor or type of a live translation unit (Nodes and Types
        // are used only while their Tu lives).
        unsafe { cxs(clang_getTypeSpelling(self.0)) }
    }
    pub fn pointee(&self) -> Type {
        // SAFETY: a libclang query on a cursor or type of a live translation unit (Nodes and Types
        // are used only while their Tu lives).
        Type(unsafe { clang_getPointeeType(self.0) })
    }
    pub fn elem(&self) -> Type {
        // SAFETY: a libclang query on a cursor or type of a live translation unit (Nodes and Types
        // are used only while their Tu lives).
        Type(unsafe { clang_getArrayElementType(self.0) })
    }
    pub fn array_size(&self) -> i64 {
        // SAFETY: a libclang query on a cursor or type of a live translation unit (Nodes and Types
        // are used only while their Tu lives).
        unsafe { clang_getArraySize(self.0) }
    }
    pub fn size_of(&self) -> i64 {
        // SAFETY: a libclang query on a cursor or type of a live translation unit (Nodes and Types
        // are used only while their Tu lives).
        unsafe { clang_Type_getSizeOf(self.0) }
    }
    pub fn declaration(&self) -> Node {
        // SAFETY: a libclang query on a cursor or type of a live translation unit (Nodes and Types
        // are used only while their Tu lives).
        Node(unsafe { clang_getTypeDeclaration(self.0) })
    }
    pub fn is_const(&self) -> bool {
        // SAFETY: a libclang query on a cursor or type of a live translation unit (Nodes and Types
        // are used only while their Tu lives).
        unsafe { clang_isConstQualifiedType(self.0) != 0 }
    }
    pub fn named(&self) -> Type {
        // SAFETY: a libclang query on a cursor or type of a live translation unit (Nodes and Types
        // are used only while their Tu lives).
        Type(unsafe { clang_Type_getNamedType(self.0) })
    }
    pub fn fields(&self) -> Vec<Type> {
        let decl = self.canonical().declaration();
        decl.children().into_iter().filter(|c| c.kind() == CXCursor_FieldDecl).map(|c| c.ty()).collect()
    }
    pub fn is_pointer(&self) -> bool {
        self.canonical().kind() == CXType_Pointer
    }
    pub fn is_array(&self) -> bool {
        matches!(
            self.canonical().kind(),
            CXType_ConstantArray | CXType_IncompleteArray | CXType_VariableArray
        )
    }
    pub fn is_record(&self) -> bool {
        self.canonical().kind() == CXType_Record
    }
    pub fn is_arith(&self) -> bool {
        let k = self.canonical().kind();
        (CXType_Bool..=CXType_LongDouble).contains(&k) || k == CXType_Enum
    }
}
