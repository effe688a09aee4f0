//! `#pragma omp` lines: found in the source text and parsed by a small clause parser.
//! (The C itself is read through libclang; only the pragma lines are tokenised here.)

#[derive(Clone, Debug)]
pub struct Clause {
    pub name: String,
    /// Raw text between the parentheses, if any.
    pub arg: Option<String>,
    /// Byte range of the whole clause in the file (for stripping `target(...)`).
    pub start: usize,
    pub end: usize,
}

#[derive(Clone, Debug)]
pub struct Pragma {
    /// Directive words, e.g. ["parallel", "for"], ["critical"], ["threadprivate"].
    pub directive: Vec<String>,
    /// Argument of the directive itself: critical(name), flush(list), threadprivate(list).
    pub dir_arg: Option<String>,
    pub clauses: Vec<Clause>,
    /// Byte offset of the start of the line holding `#`, and one past the pragma's last byte.
    pub line_start: usize,
    pub end: usize,
    pub line: u32,
    pub col: u32,
    /// Directive or clause outside OpenMP 2.0 (+ MOMP's target): its name.
    pub unknown: Option<String>,
}

impl Pragma {
    pub fn is(&self, words: &[&str]) -> bool {
        self.directive.len() == words.len() && self.directive.iter().zip(words).all(|(a, b)| a == b)
    }
    pub fn name(&self) -> String {
        self.directive.join(" ")
    }
    pub fn clause(&self, name: &str) -> Option<&Clause> {
        self.clauses.iter().find(|c| c.name == name)
    }
    /// Variables named by every occurrence of a list clause.
    pub fn list(&self, name: &str) -> Vec<String> {
        let mut v = Vec::new();
        for c in self.clauses.iter().filter(|c| c.name == name) {
            if let Some(a) = &c.arg {
                v.extend(split_list(a));
            }
        }
        v
    }
    /// reduction(op: list) clauses: (op, var).
    pub fn reductions(&self) -> Vec<(String, String)> {
        let mut v = Vec::new();
        for c in self.clauses.iter().filter(|c| c.name == "reduction") {
            if let Some(a) = &c.arg {
                if let Some(i) = a.find(':') {
                    let op = reduction_op(&a[..i]);
                    for var in split_list(&a[i + 1..]) {
                        v.push((op.clone(), var));
                    }
                }
            }
        }
        v
    }
    /// Directives that apply to the following statement.
    pub fn has_statement(&self) -> bool {
        if self.unknown.is_some() && !DIRECTIVES.contains(&self.directive[0].as_str()) {
            // unknown stand-alone directives (taskwait, taskyield, ...) have none
            return !matches!(
                self.directive[0].as_str(),
                "taskwait" | "taskyield" | "taskgroup_end" | "cancel" | "cancellation" | "scan" | "depobj"
            );
        }
        if matches!(self.directive.first().map(|s| s.as_str()), Some("declare") | Some("end")) {
            return false;
        }
        if self.directive.first().map(|s| s.as_str()) == Some("target")
            && matches!(
                self.directive.get(1).map(|s| s.as_str()),
                Some("enter") | Some("exit") | Some("update")
            )
        {
            return false;
        }
        !matches!(
            self.directive.first().map(|s| s.as_str()),
            Some("barrier") | Some("flush") | Some("threadprivate")
        )
    }
}

/// The operator of a reduction clause's `[modifier,] op` (OpenMP 5.0's `task, +`, `inscan, +`).
pub fn reduction_op(s: &str) -> String {
    s.rsplit(',').next().unwrap_or("").trim().to_string()
}

pub fn split_list(s: &str) -> Vec<String> {
    s.split(',').map(|x| x.trim().to_string()).filter(|x| !x.is_empty()).collect()
}

const KNOWN_CLAUSES: &[&str] = &[
    "private",
    "firstprivate",
    "lastprivate",
    "shared",
    "default",
    "reduction",
    "schedule",
    "num_threads",
    "if",
    "nowait",
    "copyin",
    "copyprivate",
    "ordered",
    "target",
    "collapse",
];

/// Clauses of the OpenMP 4.5 device constructs (translated by translate/target.rs).
pub const TARGET_CLAUSES: &[&str] = &[
    "map",
    "device",
    "depend",
    "is_device_ptr",
    "use_device_ptr",
    "num_teams",
    "thread_limit",
    "dist_schedule",
    "defaultmap",
    "to",
    "from",
    "link",
    "simdlen",
    "safelen",
    "aligned",
    "linear",
];

const DIRECTIVES: &[&str] = &[
    "parallel",
    "for",
    "sections",
    "section",
    "single",
    "master",
    "critical",
    "atomic",
    "barrier",
    "flush",
    "ordered",
    "threadprivate",
    // OpenMP 4.5 device constructs (translate/target.rs)
    "target",
    "teams",
    "distribute",
    "simd",
    "data",
    "enter",
    "exit",
    "update",
    "declare",
    "end",
];

/// `text` with its comments blanked (every byte of a `/* */` or `//` comment but newlines made a
/// space), so that a `#pragma omp` line inside a block comment (NPB's CG keeps disabled variants
/// so) is no directive; string and character literals are skipped, and offsets stay the same.
pub fn blank_comments(text: &str) -> String {
    #[derive(PartialEq)]
    enum S {
        Code,
        Str(u8),
        Block,
        Line,
    }
    let mut b = text.as_bytes().to_vec();
    let mut st = S::Code;
    let mut i = 0;
    while i < b.len() {
        let (c, next) = (b[i], b.get(i + 1).copied());
        match st {
            S::Code => match (c, next) {
                (b'/', Some(b'*')) => {
                    st = S::Block;
                    b[i] = b' ';
                    b[i + 1] = b' ';
                    i += 1;
                }
                (b'/', Some(b'/')) => {
                    st = S::Line;
                    b[i] = b' ';
                }
                (b'"' | b'\'', _) => st = S::Str(c),
                _ => {}
            },
            S::Str(q) => {
                if c == b'\\' {
                    i += 1; // the escaped byte
                } else if c == q || c == b'\n' {
                    st = S::Code;
                }
            }
            S::Block => {
                if c != b'\n' {
                    b[i] = b' ';
                }
                if c == b'*' && next == Some(b'/') {
                    b[i + 1] = b' ';
                    i += 1;
                    st = S::Code;
                }
            }
            S::Line => {
                if c == b'\n' {
                    st = S::Code;
                } else {
                    b[i] = b' ';
                    if c == b'\\' && next == Some(b'\n') {
                        // a backslash-newline continues the comment (C's line splicing)
                        i += 1;
                    }
                }
            }
        }
        i += 1;
    }
    // only ASCII bytes were replaced, by ASCII spaces: whole UTF-8 sequences inside comments
    // became spaces byte for byte
    String::from_utf8(b).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Find every `#pragma omp` in `text` (a whole file). Lines continued with a backslash are joined.
pub fn scan(text: &str) -> Result<Vec<Pragma>, (usize, String)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut pos = 0usize;
    let mut line = 1u32;
    while pos < b.len() {
        // [pos, eol) is one physical line
        let mut eol = text[pos..].find('\n').map(|i| pos + i).unwrap_or(b.len());
        let l = &text[pos..eol];
        let t = l.trim_start();
        let start_line = line;
        if let Some(after) = t.strip_prefix('#') {
            let after = after.trim_start();
            if let Some(rest) = after.strip_prefix("pragma") {
                let rest = rest.trim_start();
                if rest.starts_with("omp")
                    && rest[3..].chars().next().is_none_or(|c| !c.is_alphanumeric() && c != '_')
                {
                    // gather continuation lines
                    let mut end = eol;
                    while end < b.len() && text[pos..end].trim_end_matches('\r').ends_with('\\') {
                        let next_eol = text[end + 1..].find('\n').map(|i| end + 1 + i).unwrap_or(b.len());
                        end = next_eol;
                        line += 1;
                    }
                    let omp_off = pos
                        + (l.len() - t.len())
                        + 1
                        + (t[1..].len() - after.len())
                        + "pragma".len()
                        + (after["pragma".len()..].len() - rest.len());
                    let col = (l.len() - t.len()) as u32 + 1;
                    let p = parse(text, omp_off + 3, end).map_err(|e| (pos, e))?;
                    let p = Pragma { line_start: pos, end, line: start_line, col, ..p };
                    // a plain `simd` is no construct for ompcl: the C compiler (and the OpenCL
                    // compiler, in a kernel) sees the loop with its pragma, which they may ignore
                    if !is_plain_simd(&p) {
                        out.push(p);
                    }
                    eol = end;
                }
            }
        }
        pos = eol + 1;
        line += 1;
    }
    Ok(out)
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Id(String),
    Punct(char),
}

fn lex(text: &str, start: usize, end: usize) -> Vec<(Tok, usize, usize)> {
    let b = text.as_bytes();
    let mut i = start;
    let mut v = Vec::new();
    while i < end {
        let c = b[i] as char;
        if c == '\\' || c.is_whitespace() {
            i += 1;
        } else if c == '/' && i + 1 < end && b[i + 1] == b'/' {
            break;
        } else if c == '/' && i + 1 < end && b[i + 1] == b'*' {
            let j = text[i + 2..end].find("*/").map(|k| i + 2 + k + 2).unwrap_or(end);
            i = j;
        } else if b[i].is_ascii_alphanumeric() || c == '_' || b[i] >= 0x80 {
            // (bytes of non-ASCII characters stay inside the word: slices end on char boundaries)
            let s = i;
            while i < end && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] >= 0x80) {
                i += 1;
            }
            v.push((Tok::Id(text[s..i].to_string()), s, i));
        } else {
            v.push((Tok::Punct(c), i, i + 1));
            i += 1;
        }
    }
    v
}

/// Parse the text after `omp` up to `end`.
fn parse(text: &str, start: usize, end: usize) -> Result<Pragma, String> {
    let toks = lex(text, start, end);
    let mut i = 0;
    let mut directive = Vec::new();
    let mut dir_arg = None;
    // directive words
    while i < toks.len() {
        match &toks[i].0 {
            Tok::Id(w) if DIRECTIVES.contains(&w.as_str()) && clause_allowed_as_directive(&directive, w) => {
                directive.push(w.clone());
                i += 1;
                // critical(name), flush(list), threadprivate(list)
                let declare_target = directive.len() == 2 && directive[0] == "declare" && w == "target";
                if (matches!(w.as_str(), "critical" | "flush" | "threadprivate") || declare_target)
                    && i < toks.len()
                    && toks[i].0 == Tok::Punct('(')
                {
                    let (arg, ni) = paren(text, &toks, i)?;
                    dir_arg = Some(arg);
                    i = ni;
                }
            }
            _ => break,
        }
    }
    // `for simd`, `parallel for simd`: a worksharing loop (the vector hint is the C compiler's
    // business); `simd` alone on a loop: see `scan`
    let mut simd = false;
    if i < toks.len() && toks[i].0 == Tok::Id("simd".into()) && directive.last().is_some_and(|d| d == "for") {
        simd = true;
        i += 1;
    }
    let mut unknown = None;
    if directive.is_empty() {
        // a directive ompcl does not know (task, simd, target data, ...): keep its words
        while i < toks.len() {
            if let Tok::Id(w) = &toks[i].0 {
                if i + 1 < toks.len() && toks[i + 1].0 == Tok::Punct('(') {
                    break;
                }
                directive.push(w.clone());
                i += 1;
            } else {
                break;
            }
        }
        if directive.is_empty() {
            return Err("expected an OpenMP directive".into());
        }
        unknown = Some(directive.join(" "));
    }
    if unknown.is_none()
        && (directive == ["declare"] || directive == ["end"] || directive == ["end", "declare"])
    {
        // `declare simd`, `declare reduction(...)` ...: not device constructs
        unknown = Some(directive.join(" "));
        while i < toks.len() {
            match &toks[i].0 {
                Tok::Id(w) if i + 1 >= toks.len() || toks[i + 1].0 != Tok::Punct('(') => {
                    directive.push(w.clone());
                    i += 1;
                }
                _ => break,
            }
        }
        unknown = Some(directive.join(" ")).or(unknown);
    }
    let mut clauses = Vec::new();
    while i < toks.len() {
        match &toks[i].0 {
            Tok::Punct(',') => i += 1,
            Tok::Id(w) => {
                let cs = toks[i].1;
                let name = w.clone();
                i += 1;
                let mut arg = None;
                let mut ce = toks[i - 1].2;
                if i < toks.len() && toks[i].0 == Tok::Punct('(') {
                    let (a, ni) = paren(text, &toks, i)?;
                    ce = toks[ni - 1].2;
                    arg = Some(a);
                    i = ni;
                }
                clauses.push(Clause { name, arg, start: cs, end: ce });
            }
            Tok::Punct(c) => return Err(format!("unexpected '{c}' in OpenMP directive")),
        }
    }
    // default(firstprivate|private) (OpenMP 5.1, gcc 12 takes them): not ompcl's
    if let Some(c) = clauses.iter().find(|c| {
        c.name == "default" && matches!(c.arg.as_deref().map(str::trim), Some("firstprivate" | "private"))
    }) {
        unknown = Some(format!("default({})", c.arg.as_deref().unwrap_or("").trim()));
    }
    // `if` on `for simd` (OpenMP 5.0) is the simd construct's, the only one of the two that takes
    // it: it only says whether to vectorise, which is the C compiler's business
    if simd {
        clauses.retain(|c| c.name != "if");
    }
    // lastprivate(conditional: x) (OpenMP 5.0): the C compiler's OpenMP gives its last value
    if let Some(c) = clauses.iter().find(|c| c.name == "lastprivate" && conditional_modifier(c).is_some()) {
        unknown = unknown.or(Some(format!("{}(conditional:)", c.name)));
    }
    if unknown.is_none() && !is_device_construct(&directive) {
        // `atomic compare` (OpenMP 5.1): the CPU runtime's atomic lock makes its conditional
        // update atomic as it makes any other statement
        let atomic_compare = |c: &Clause| directive == ["atomic"] && c.name == "compare";
        if let Some(c) = clauses.iter().find(|c| {
            let hint = simd && SIMD_HINTS.contains(&c.name.as_str());
            !(KNOWN_CLAUSES.contains(&c.name.as_str()) || hint || atomic_compare(c))
        }) {
            unknown = Some(c.name.clone());
        }
    } else if unknown.is_none() {
        let known = |n: &str| KNOWN_CLAUSES.contains(&n) || TARGET_CLAUSES.contains(&n);
        if let Some(c) = clauses.iter().find(|c| !known(c.name.as_str())) {
            unknown = Some(c.name.clone());
        }
    }
    Ok(Pragma { directive, dir_arg, clauses, line_start: 0, end: 0, line: 0, col: 0, unknown })
}

/// The variable list after a `lastprivate(conditional: ...)` modifier (OpenMP 5.0), if it has one.
pub fn conditional_modifier(c: &Clause) -> Option<&str> {
    let a = c.arg.as_deref()?;
    let (m, rest) = a.split_once(':')?;
    (m.trim() == "conditional").then_some(rest)
}

/// Clauses of `simd` that only describe vectorisation (no data-sharing meaning).
const SIMD_HINTS: &[&str] = &["safelen", "simdlen", "aligned"];

/// `#pragma omp simd` alone, with clauses that mean nothing more than vectorisation for a loop
/// one thread runs in order (hints, `reduction`, `lastprivate`, `collapse`): the loop as written.
pub fn is_plain_simd(p: &Pragma) -> bool {
    p.directive.len() == 1
        && p.directive[0] == "simd"
        && p.clauses.iter().all(|c| {
            SIMD_HINTS.contains(&c.name.as_str())
                || matches!(c.name.as_str(), "reduction" | "lastprivate" | "collapse")
        })
}

fn clause_allowed_as_directive(prev: &[String], w: &str) -> bool {
    let Some(last) = prev.last() else {
        // a directive starts with a word that may start one (`simd` alone is a plain loop: `parse`)
        return !matches!(w, "data" | "enter" | "exit" | "update" | "simd");
    };
    match last.as_str() {
        "parallel" => w == "for" || (w == "sections" && prev.len() == 1),
        // `for simd` / `parallel for simd` outside device constructs: a worksharing loop (`parse`)
        "for" if w == "simd" => is_device_construct(prev),
        "distribute" if w == "simd" => true,
        "distribute" => w == "parallel",
        "teams" => w == "distribute",
        "target" if prev.len() == 1 => {
            matches!(w, "teams" | "parallel" | "simd" | "data" | "enter" | "exit" | "update")
        }
        "target" => false,
        "enter" | "exit" => w == "data",
        "declare" => w == "target",
        "end" => w == "declare",
        _ => false,
    }
}

/// An OpenMP 4.x device construct: `target ...`, `teams ...`, `distribute ...`,
/// `declare target`, `end declare target`.
pub fn is_device_construct(directive: &[String]) -> bool {
    // `simd` alone and `for simd` / `parallel for simd` are loops ompcl runs itself (a plain loop, a
    // worksharing loop); `target simd`, `distribute simd` ... start with a device word
    let d0 = directive.first().map(String::as_str).unwrap_or("");
    matches!(d0, "target" | "teams" | "distribute" | "declare" | "end")
}

fn paren(text: &str, toks: &[(Tok, usize, usize)], open: usize) -> Result<(String, usize), String> {
    let mut depth = 0;
    let mut j = open;
    while j < toks.len() {
        match toks[j].0 {
            Tok::Punct('(') => depth += 1,
            Tok::Punct(')') => {
                depth -= 1;
                if depth == 0 {
                    let inner = &text[toks[open].2..toks[j].1];
                    let inner: String = inner.replace("\\\n", " ").replace('\\', " ");
                    return Ok((inner.trim().to_string(), j + 1));
                }
            }
            _ => {}
        }
        j += 1;
    }
    Err("unbalanced parenthesis in OpenMP directive".into())
}

#[cfg(test)]
mod tests {
    #[test]
    fn comments_are_blanked_and_their_pragmas_gone() {
        let src = "int a; /* one\n#pragma omp parallel for\n*/ int b; // x /* y\nchar *s = \"/* no */\"; char c = '\"';\n#pragma omp parallel for /* why */ private(i)\nfor (;;) {}\n";
        let out = super::blank_comments(src);
        assert_eq!(out.len(), src.len());
        assert_eq!(out.matches('\n').count(), src.matches('\n').count());
        assert!(!out.contains("one") && !out.contains("why") && !out.contains("x /*"), "{out}");
        assert!(
            out.contains("\"/* no */\"") && out.contains("int b;") && out.contains("char c = '\"';"),
            "{out}"
        );
        let p = super::scan(&out).unwrap();
        assert_eq!(p.len(), 1, "{p:?}");
        assert_eq!(p[0].line, 5);
        assert_eq!(p[0].list("private"), vec!["i".to_string()]);
    }

    use super::*;
    #[test]
    fn parses() {
        let src = "int x;\n  #pragma omp parallel for private(a, b) reduction(+: s) \\\n schedule(static,4) target(opencl)\nfor(;;);\n#pragma omp critical (lk)\n";
        let p = scan(src).unwrap();
        assert_eq!(p.len(), 2);
        assert!(p[0].is(&["parallel", "for"]));
        assert_eq!(p[0].list("private"), vec!["a", "b"]);
        assert_eq!(p[0].reductions(), vec![("+".to_string(), "s".to_string())]);
        assert_eq!(p[0].clause("target").unwrap().arg.as_deref(), Some("opencl"));
        assert_eq!(p[0].line, 2);
        assert_eq!(p[1].dir_arg.as_deref(), Some("lk"));
        assert_eq!(p[1].line, 5);
    }

    #[test]
    fn parses_device_constructs() {
        let src = "#pragma omp target teams distribute parallel for simd map(to: a[0:n]) reduction(+:s)\n\
                   #pragma omp target enter data map(to: a)\n\
                   #pragma omp target data map(tofrom: b[:n][0:m]) use_device_ptr(p)\n\
                   #pragma omp declare target\n\
                   #pragma omp end declare target\n\
                   #pragma omp declare target (g)\n\
                   #pragma omp declare simd\n\
                   #pragma omp teams distribute num_teams(4)\n";
        let p = scan(src).unwrap();
        assert_eq!(p.len(), 8);
        assert!(p[0].is(&["target", "teams", "distribute", "parallel", "for", "simd"]));
        assert!(p[0].unknown.is_none());
        assert_eq!(p[0].clause("map").unwrap().arg.as_deref(), Some("to: a[0:n]"));
        assert!(p[1].is(&["target", "enter", "data"]) && !p[1].has_statement());
        assert!(p[2].is(&["target", "data"]) && p[2].has_statement() && p[2].unknown.is_none());
        assert!(p[3].is(&["declare", "target"]) && !p[3].has_statement());
        assert!(p[4].is(&["end", "declare", "target"]) && !p[4].has_statement());
        assert_eq!(p[5].dir_arg.as_deref(), Some("g"));
        assert_eq!(p[6].unknown.as_deref(), Some("declare simd"));
        assert!(p[7].is(&["teams", "distribute"]) && is_device_construct(&p[7].directive));
    }
}
