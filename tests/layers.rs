//! The crate's structure, checked from its sources:
//! - the layers import only downwards: api -> core -> base/cuda -> cl. A module that reaches up
//!   (core using an api helper, base using core) fails here, with the line;
//! - the compiler (the ptxgen crate) is used by api and core only: base and cuda stay free of it;
//! - within a layer, the files' imports form no circle (a.rs using b.rs using a.rs): a type two
//!   files both need lives in a file of its own, or is passed in as a parameter or a trait.
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// The .rs files directly under `dir` (relative to the crate), sorted.
fn sources(dir: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut files: Vec<PathBuf> = fs::read_dir(&root)
        .expect("source folder")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect();
    files.sort();
    files
}

/// A source line without its `//` comment.
fn code(line: &str) -> &str {
    line.split("//").next().unwrap_or("")
}

/// Every line of the .rs files under `dir` that mentions `needle` outside a comment.
fn mentions(dir: &str, needle: &str) -> Vec<String> {
    let mut found = Vec::new();
    for path in sources(dir) {
        let text = fs::read_to_string(&path).expect("source file");
        for (n, line) in text.lines().enumerate() {
            if code(line).contains(needle) {
                found.push(format!("{}:{}: {}", path.display(), n + 1, line.trim()));
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
        bad.extend(mentions(dir, &format!("crate::{layer}")));
    }
    assert!(bad.is_empty(), "imports from a higher layer:\n{}", bad.join("\n"));
}

#[test]
fn only_api_and_core_use_the_compiler() {
    let mut bad = Vec::new();
    for dir in ["src/base", "src/cuda", "src/cl"] {
        bad.extend(mentions(dir, "ptxgen::"));
    }
    assert!(bad.is_empty(), "ptxgen used below core:\n{}", bad.join("\n"));
}

/// The names a path continues with after `prefix::` at the start of `rest`: one name, or the
/// first name of each item of a `{...}` group (nested groups included).
fn path_heads(rest: &str) -> Vec<String> {
    let ident = |s: &str| s.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect::<String>();
    if !rest.starts_with('{') {
        return vec![ident(rest)];
    }
    let mut heads = Vec::new();
    let (mut depth, mut item_start) = (0, true);
    for (i, c) in rest.char_indices() {
        match c {
            '{' => {
                depth += 1;
                if depth == 1 {
                    item_start = true;
                    continue;
                }
            }
            '}' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            ',' if depth == 1 => {
                item_start = true;
                continue;
            }
            _ => {}
        }
        if depth == 1 && item_start && !c.is_whitespace() {
            heads.push(ident(&rest[i..]));
            item_start = false;
        }
    }
    heads
}

/// The files of layer `layer` (src/<layer>/*.rs, without mod.rs) and, for each, the files of the
/// same layer it names through `super::<file>` or `crate::<layer>::<file>`.
fn import_graph(layer: &str, extra: &[(&str, &str)]) -> BTreeMap<String, Vec<String>> {
    let dir = format!("src/{layer}");
    let files: Vec<(String, String)> = sources(&dir)
        .into_iter()
        .map(|p| {
            let name = p.file_stem().expect("file name").to_string_lossy().into_owned();
            (name, fs::read_to_string(&p).expect("source file"))
        })
        .filter(|(name, _)| name != "mod")
        .collect();
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    let prefixes = ["super::".to_string(), format!("crate::{layer}::")];
    let mut graph = BTreeMap::new();
    for (name, text) in &files {
        let mut deps: Vec<String> = Vec::new();
        // The code without comments, as one text: a `{...}` group may span lines.
        let lines = text.lines().map(code).chain(extra.iter().filter(|(f, _)| f == name).map(|(_, l)| *l));
        let all: String = lines.collect::<Vec<_>>().join("\n");
        for prefix in &prefixes {
            for (at, _) in all.match_indices(prefix.as_str()) {
                for head in path_heads(&all[at + prefix.len()..]) {
                    if head != *name && names.contains(&head.as_str()) && !deps.contains(&head) {
                        deps.push(head);
                    }
                }
            }
        }
        deps.sort();
        graph.insert(name.clone(), deps);
    }
    graph
}

/// A circle of `graph` as the files along it (first = last), if there is one.
fn find_circle(graph: &BTreeMap<String, Vec<String>>) -> Option<Vec<String>> {
    // Depth-first search; `path` is the chain being explored, `done` the files fully explored.
    fn visit(
        graph: &BTreeMap<String, Vec<String>>,
        file: &str,
        path: &mut Vec<String>,
        done: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        if let Some(pos) = path.iter().position(|f| f == file) {
            let mut circle = path[pos..].to_vec();
            circle.push(file.to_string());
            return Some(circle);
        }
        if done.iter().any(|f| f == file) {
            return None;
        }
        path.push(file.to_string());
        for dep in &graph[file] {
            if let Some(c) = visit(graph, dep, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.push(file.to_string());
        None
    }
    let mut done = Vec::new();
    graph.keys().find_map(|f| visit(graph, f, &mut Vec::new(), &mut done))
}

const LAYERS: [&str; 4] = ["api", "core", "base", "cuda"];

#[test]
fn no_import_circle_within_a_layer() {
    let mut bad = Vec::new();
    for layer in LAYERS {
        if let Some(circle) = find_circle(&import_graph(layer, &[])) {
            bad.push(format!("src/{layer}: {}", circle.join(" -> ")));
        }
    }
    assert!(bad.is_empty(), "files of one layer that import each other in a circle:\n{}", bad.join("\n"));
}

/// The check itself: an import added to close a circle is found, whatever the form of the path.
#[test]
fn a_circle_is_found() {
    assert_eq!(path_heads("{coherence::{bit, HOST}, image::Image}"), ["coherence", "image"]);
    assert_eq!(path_heads("queue::Queue;"), ["queue"]);
    assert_eq!(path_heads("{\n    clock::host_ns,\n    queue::{Queue, Work},\n};"), ["clock", "queue"]);
    // core/kernel.rs imports program.rs: program.rs importing kernel.rs closes a circle.
    let g = import_graph("core", &[("program", "use super::kernel::KernelShape;")]);
    let circle = find_circle(&g).expect("a circle");
    assert!(circle.contains(&"kernel".to_string()) && circle.contains(&"program".to_string()), "{circle:?}");
    let g = import_graph("cuda", &[("stream", "use crate::cuda::{error, event::Event};")]);
    assert!(find_circle(&g).is_some());
    for layer in LAYERS {
        assert!(find_circle(&import_graph(layer, &[])).is_none(), "{layer}");
    }
}
