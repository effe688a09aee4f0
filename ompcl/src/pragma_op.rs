//! The `_Pragma("omp ...")` operator (C99 6.10.9), usually inside macros (SOLLVE's `ompvv.h`:
//! `OMPVV_TEST_OFFLOADING` holds a `_Pragma("omp target ...")`). ompcl finds OpenMP directives as
//! `#pragma omp` lines of the source text, so a directive made by the operator would be invisible
//! to it (its region left to the C compiler). Before the parse, the lines of the main file whose
//! macro expansion produces an OpenMP pragma are replaced by their expansion, as the C
//! preprocessor (`cc -E`, with the parse's `-I`/`-D`/`-std` options) writes it: the pragma on a
//! line of its own. `#line` directives after each replaced line keep the C compiler's line numbers
//! those of the original file, and the line map gives ompcl's own messages the original lines.

use std::process::Command;

/// The rewritten text and, per line of it (index = line - 1), the line of the original file.
pub struct Expanded {
    pub text: String,
    pub lines: Vec<u32>,
}

impl Expanded {
    /// The original line of line `l` (1-based) of the rewritten text.
    pub fn orig_line(&self, l: u32) -> u32 {
        self.lines.get(l.saturating_sub(1) as usize).copied().unwrap_or(l)
    }
}

/// Whether the text may use the operator: it says `_Pragma` or includes a header of its own
/// (system headers hold no OpenMP directives).
fn may_use_operator(text: &str) -> bool {
    text.contains("_Pragma")
        || text.lines().any(|l| {
            let t = l.trim_start();
            t.starts_with('#') && t[1..].trim_start().starts_with("include") && t.contains('"')
        })
}

fn is_directive_line(l: &str) -> bool {
    l.trim_start().starts_with('#')
}

fn is_omp_pragma(l: &str) -> bool {
    let t = l.trim_start();
    t.strip_prefix('#')
        .map(|r| r.trim_start())
        .and_then(|r| r.strip_prefix("pragma"))
        .map(|r| r.trim_start())
        .is_some_and(|r| {
            r.starts_with("omp") && r[3..].chars().next().is_none_or(|c| !c.is_alphanumeric() && c != '_')
        })
}

/// `# N "file" flags` -> (N, file)
fn linemarker(l: &str) -> Option<(u32, String)> {
    let r = l.strip_prefix("# ").or_else(|| l.strip_prefix("#line "))?;
    let mut it = r.splitn(2, ' ');
    let n: u32 = it.next()?.parse().ok()?;
    let f = it.next()?.trim().strip_prefix('"')?;
    let end = f.find('"')?;
    Some((n, f[..end].to_string()))
}

/// Preprocessor output of the main file, in order: (the main-file line it comes from, text).
fn main_lines(pp: &str, file: &str) -> Vec<(u32, String)> {
    let mut out = Vec::new();
    let mut cur: Option<u32> = None;
    for l in pp.lines() {
        if let Some((n, f)) = linemarker(l) {
            cur = if f == file { Some(n) } else { None };
            continue;
        }
        if let Some(n) = cur {
            if !l.trim().is_empty() {
                out.push((n, l.to_string()));
            }
            cur = Some(n + 1);
        }
    }
    out
}

/// Per line of `text`: whether it starts a piece of code of its own, i.e. it starts outside
/// parentheses (a macro invocation's arguments may go on over several lines) and comments, and is
/// no continuation of a preprocessor directive.
fn line_starts(text: &[&str]) -> Vec<bool> {
    let mut out = Vec::with_capacity(text.len());
    let mut depth = 0i32;
    let mut comment = false;
    let mut directive = false;
    for l in text {
        out.push(depth <= 0 && !comment && !directive);
        if directive || (!comment && depth <= 0 && is_directive_line(l)) {
            directive = l.trim_end().ends_with('\\');
            continue;
        }
        let b = l.as_bytes();
        let mut i = 0;
        while i < b.len() {
            if comment {
                if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                    comment = false;
                    i += 1;
                }
                i += 1;
                continue;
            }
            match b[i] {
                b'"' | b'\'' => {
                    let q = b[i];
                    i += 1;
                    while i < b.len() && b[i] != q {
                        i += if b[i] == b'\\' { 2 } else { 1 };
                    }
                }
                b'/' if b.get(i + 1) == Some(&b'/') => break,
                b'/' if b.get(i + 1) == Some(&b'*') => {
                    comment = true;
                    i += 1;
                }
                b'(' => depth += 1,
                b')' => depth -= 1,
                _ => {}
            }
            i += 1;
        }
    }
    out
}

/// Expand the pieces of code whose macros make OpenMP pragmas; None when there are none (or the
/// preprocessor cannot be run: then the operator stays unseen, as before).
pub fn expand(file: &str, text: &str, args: &[String]) -> Option<Expanded> {
    if !may_use_operator(text) {
        return None;
    }
    let o = Command::new("cc").arg("-E").args(args).arg(file).output().ok()?;
    if !o.status.success() {
        return None;
    }
    // a Latin-1 file's bytes come back as they are: read them as the file was read
    let (pp, _) = crate::translate::decode_source(o.stdout);
    let seq = main_lines(&pp, file);
    let orig: Vec<&str> = text.split('\n').collect();
    let n_orig = orig.len() as u32;
    let starts = line_starts(&orig);
    // the piece of code (lines first..=last) holding line n
    let piece = |n: u32| -> (u32, u32) {
        let mut first = n.clamp(1, n_orig);
        while first > 1 && !starts[first as usize - 1] {
            first -= 1;
        }
        let mut last = n.clamp(1, n_orig);
        while last < n_orig && !starts[last as usize] {
            last += 1;
        }
        (first, last)
    };
    // pieces whose output holds an OpenMP pragma that no `#pragma` line of the source spells
    let mut pieces: Vec<(u32, u32)> = seq
        .iter()
        .filter(|(n, l)| is_omp_pragma(l) && orig.get(*n as usize - 1).is_some_and(|o| !is_directive_line(o)))
        .map(|(n, _)| piece(*n))
        .filter(|&(f, _)| !is_directive_line(orig[f as usize - 1]))
        .collect();
    pieces.sort();
    pieces.dedup();
    if pieces.is_empty() {
        return None;
    }
    let quoted = file.replace('\\', "\\\\").replace('"', "\\\"");
    let mut out = String::with_capacity(text.len() + 256);
    let mut lines = Vec::with_capacity(orig.len() + 16);
    let mut l = 1u32; // next original line to copy
    for &(first, last) in &pieces {
        if first < l {
            continue;
        }
        while l < first {
            out.push_str(orig[l as usize - 1]);
            out.push('\n');
            lines.push(l);
            l += 1;
        }
        for (n, t) in &seq {
            if (first..=last).contains(n) {
                out.push_str(t);
                out.push('\n');
                lines.push(first);
            }
        }
        l = last + 1;
        if l <= n_orig {
            out.push_str(&format!("#line {l} \"{quoted}\"\n"));
            lines.push(last);
        }
    }
    while l <= n_orig {
        out.push_str(orig[l as usize - 1]);
        if l < n_orig {
            out.push('\n');
        }
        lines.push(l);
        l += 1;
    }
    Some(Expanded { text: out, lines })
}
