//! The crate's layers import only downwards: api -> core -> base/cuda -> cl. A module that
//! reaches up (core using an api helper, base using core) fails here, with the line.
use std::fs;
use std::path::Path;

/// Every `crate::<layer>` reference in the .rs files under `dir`.
fn references(dir: &str, layer: &str) -> Vec<String> {
    let needle = format!("crate::{layer}");
    let mut found = Vec::new();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    for entry in fs::read_dir(&root).expect("source folder") {
        let path = entry.expect("dir entry").path();
        if path.extension().is_some_and(|e| e == "rs") {
            let text = fs::read_to_string(&path).expect("source file");
            for (n, line) in text.lines().enumerate() {
                let code = line.split("//").next().unwrap_or("");
                if code.contains(&needle) {
                    found.push(format!("{}:{}: {}", path.display(), n + 1, line.trim()));
                }
            }
        }
    }
    found
}

#[test]
fn lower_layers_do_not_import_upper_ones() {
    let rules = [
        ("src/core", "api"),
        ("src/base", "api"),
        ("src/base", "core"),
        ("src/cuda", "api"),
        ("src/cuda", "core"),
        ("src/cuda", "base"),
    ];
    let mut bad = Vec::new();
    for (dir, layer) in rules {
        bad.extend(references(dir, layer));
    }
    assert!(bad.is_empty(), "imports from a higher layer:\n{}", bad.join("\n"));
}
