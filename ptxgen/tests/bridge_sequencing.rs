//! The bridge's IRBuilder calls must be sequenced: C++ leaves the evaluation order of a call's
//! arguments unspecified, GCC evaluates them in opposite orders on x86-64 and aarch64, and two
//! `B.Create*` calls given as arguments of one call then number their instructions differently,
//! so the two hosts' PTX differs (scripts/ci-aarch64.sh compares it under qemu, which takes
//! minutes; this finds the pattern in the source at once).
use std::path::Path;

/// Statements of `src` (split at `;`, `{`, `}`) in which two IRBuilder calls are arguments at the
/// same nesting depth of one enclosing call, with the line each starts on.
fn unsequenced(src: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let mut start = 0;
    for (end, ch) in src.char_indices() {
        if !matches!(ch, ';' | '{' | '}') {
            continue;
        }
        let stmt = &src[start..end];
        let mut depth = 0i32;
        let mut depths = Vec::new();
        let bytes = stmt.as_bytes();
        for (i, &b) in bytes.iter().enumerate() {
            let rest = &stmt[i..];
            let after_access = i > 0 && (bytes[i - 1] == b'.' || (i > 1 && &stmt[i - 2..i] == "->"));
            if after_access && rest.starts_with("Create") {
                depths.push(depth);
            }
            match b {
                b'(' => depth += 1,
                b')' => depth -= 1,
                _ => {}
            }
        }
        // The first call is the enclosing one; two more at one depth are unsequenced siblings.
        let inner = depths.iter().skip(1);
        let mut counts = std::collections::HashMap::new();
        for d in inner {
            *counts.entry(*d).or_insert(0) += 1;
        }
        if counts.values().any(|&n| n >= 2) {
            let lead = stmt.len() - stmt.trim_start().len();
            let line = src[..start + lead].matches('\n').count() + 1;
            found.push((line, stmt.split_whitespace().collect::<Vec<_>>().join(" ")));
        }
        start = end + 1;
    }
    found
}

#[test]
fn irbuilder_calls_are_not_unsequenced_arguments() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("bridge");
    let mut bad = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("ptxgen/bridge") {
        let path = entry.expect("dir entry").path();
        if path.extension().and_then(|e| e.to_str()) != Some("cpp") {
            continue;
        }
        let src = std::fs::read_to_string(&path).expect("read bridge source");
        for (line, stmt) in unsequenced(&src) {
            bad.push(format!("{}:{line}: {stmt}", path.display()));
        }
    }
    assert!(bad.is_empty(), "IRBuilder calls as sibling arguments (sequence them):\n{}", bad.join("\n"));
}

#[test]
fn the_check_finds_sibling_builder_calls() {
    let src = "Value *a = B.CreateAnd(B.CreateFCmpOLE(x, y), B.CreateFCmpOEQ(x, z));\n";
    assert_eq!(unsequenced(src).len(), 1);
    let ok = "Value *n = B.CreateFCmpOLE(x, y);\nValue *a = B.CreateAnd(n, B.CreateNot(m));\n";
    assert!(unsequenced(ok).is_empty());
}
