//! The in-process and on-disk build caches.
//!
//! Disk: $CUDACL_CACHE_DIR, else $XDG_CACHE_HOME/cudacl, else ~/.cache/cudacl; CUDACL_CACHE=0
//! turns it off. An entry is `<key>.bin`, holding Program::to_binary(), plus `<key>.deps`, the
//! files the source #included with their size and mtime (a hit needs them unchanged); each is
//! written to a temporary file and renamed (atomic on POSIX), so concurrent processes never see
//! a partial entry. Unreadable or corrupt entries are ignored (and replaced).
use crate::Program;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::io::Write;
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

pub type Key = [u8; 16];

/// The digest of the code that decides a build's output, part of every key: a new ptxgen (a
/// changed rewrite, say) never gets PTX an older one cached, without anyone bumping VERSION.
/// Hashed once per process (about 200 KB).
pub fn code_id() -> &'static [u8] {
    static ID: OnceLock<Key> = OnceLock::new();
    ID.get_or_init(|| key(CODE))
}

const CODE: &[&[u8]] = &[
    include_bytes!("../bridge/bridge.h"),
    include_bytes!("../bridge/bridge.cpp"),
    include_bytes!("../bridge/frontend.cpp"),
    include_bytes!("../bridge/lower.cpp"),
    include_bytes!("../bridge/abi.cpp"),
    include_bytes!("../bridge/builtins.cpp"),
    include_bytes!("../bridge/libclc_fixes.cpp"),
    include_bytes!("../bridge/nvptx_workarounds.cpp"),
    include_bytes!("../bridge/link.cpp"),
    include_bytes!("../bridge/codegen.cpp"),
    include_bytes!("../bridge/split.cpp"),
    include_bytes!("../bridge/half.cpp"),
    include_bytes!("../bridge/atomics.cpp"),
    include_bytes!("../bridge/spirv.cpp"),
    include_bytes!("../bridge/spirv_names.cpp"),
    include_bytes!("il.rs"),
    include_bytes!("spirv.rs"),
    include_bytes!("spec_constants.rs"),
    include_bytes!("pipeline.rs"),
    include_bytes!("split.rs"),
    include_bytes!("info.rs"),
    include_bytes!("options.rs"),
    include_bytes!("target.rs"),
    include_bytes!("headers.rs"),
    include_bytes!("binary.rs"),
    include_bytes!("images.rs"),
    include_bytes!("images.cl"),
    include_bytes!("../bridge/images.cpp"),
    include_bytes!("subgroups.rs"),
    include_bytes!("subgroups.cl"),
    include_bytes!("../bridge/subgroups.cpp"),
    include_bytes!("mathlib.rs"),
    include_bytes!("mathlib.cl"),
    include_bytes!("../bridge/mathlib.cpp"),
    include_bytes!("../bridge/builtin_library.cpp"),
];

/// 128-bit key from the parts (two SipHash runs with different prefixes).
pub fn key(parts: &[&[u8]]) -> Key {
    let mut out = [0u8; 16];
    for (i, salt) in [0x5a17u64, 0xc0ffee].iter().enumerate() {
        #[allow(deprecated)]
        let mut h = std::hash::SipHasher::new_with_keys(*salt, salt.rotate_left(17));
        for p in parts {
            p.len().hash(&mut h);
            h.write(p);
        }
        out[i * 8..i * 8 + 8].copy_from_slice(&h.finish().to_le_bytes());
    }
    out
}

pub fn hex(k: &Key) -> String {
    k.iter().map(|b| format!("{b:02x}")).collect()
}

/// A file the source #included (through -I or the working directory), as it was when the
/// program was built: a hit is valid only while every such file is unchanged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stamp {
    path: String,
    len: u64,
    mtime_ns: u128,
}

fn stat(path: &str) -> Option<(u64, u128)> {
    let md = std::fs::metadata(path).ok()?;
    let t = md.modified().ok()?.duration_since(std::time::UNIX_EPOCH).ok()?.as_nanos();
    Some((md.len(), t))
}

pub fn stamp(paths: &[String]) -> Vec<Stamp> {
    paths
        .iter()
        .map(|p| {
            let (len, mtime_ns) = stat(p).unwrap_or((u64::MAX, 0));
            Stamp { path: p.clone(), len, mtime_ns }
        })
        .collect()
}

fn still_valid(stamps: &[Stamp]) -> bool {
    stamps.iter().all(|s| stat(&s.path) == Some((s.len, s.mtime_ns)))
}

type MemCache = HashMap<Key, (Program, Vec<Stamp>)>;
static MEM: OnceLock<Mutex<MemCache>> = OnceLock::new();

fn mem() -> &'static Mutex<MemCache> {
    MEM.get_or_init(|| Mutex::new(HashMap::new()))
}

pub fn mem_get(k: &Key) -> Option<Program> {
    let (p, stamps) = mem().lock().ok()?.get(k).cloned()?;
    if still_valid(&stamps) {
        Some(p)
    } else {
        None
    }
}

pub fn mem_put(k: Key, p: &Program, stamps: &[Stamp]) {
    if let Ok(mut m) = mem().lock() {
        if m.len() > 4096 {
            m.clear();
        }
        m.insert(k, (p.clone(), stamps.to_vec()));
    }
}

pub fn disk_enabled() -> bool {
    !matches!(std::env::var("CUDACL_CACHE").as_deref(), Ok("0") | Ok("off") | Ok("false"))
}

pub fn dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("CUDACL_CACHE_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(d));
    }
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(d).join("cudacl"));
    }
    std::env::var_os("HOME").filter(|d| !d.is_empty()).map(|h| PathBuf::from(h).join(".cache").join("cudacl"))
}

/// `<key>.deps` lists the stamps ("len mtime_ns path" lines; empty when the source included
/// no real file) and is written before `<key>.bin`; an entry without it is not used.
pub fn disk_get(k: &Key) -> Option<(Program, Vec<Stamp>)> {
    if !disk_enabled() {
        return None;
    }
    let d = dir()?;
    let deps = std::fs::read_to_string(d.join(format!("{}.deps", hex(k)))).ok()?;
    let mut stamps = Vec::new();
    for l in deps.lines() {
        let mut it = l.splitn(3, ' ');
        let len = it.next()?.parse().ok()?;
        let mtime_ns = it.next()?.parse().ok()?;
        let path = it.next()?.to_string();
        stamps.push(Stamp { path, len, mtime_ns });
    }
    if !still_valid(&stamps) {
        return None;
    }
    let bytes = std::fs::read(d.join(format!("{}.bin", hex(k)))).ok()?;
    Some((Program::from_binary(&bytes).ok()?, stamps))
}

fn write_atomic(d: &std::path::Path, name: &str, data: &[u8]) -> std::io::Result<()> {
    let tmp = d.join(format!(".{}.{}.{:?}.tmp", name, std::process::id(), std::thread::current().id()));
    let r = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(data)?;
        drop(f);
        std::fs::rename(&tmp, d.join(name))
    })();
    if r.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    r
}

pub fn disk_put(k: &Key, p: &Program, stamps: &[Stamp]) {
    if !disk_enabled() {
        return;
    }
    let Some(d) = dir() else { return };
    if std::fs::create_dir_all(&d).is_err() {
        return;
    }
    let deps: String = stamps.iter().map(|s| format!("{} {} {}\n", s.len, s.mtime_ns, s.path)).collect();
    if write_atomic(&d, &format!("{}.deps", hex(k)), deps.as_bytes()).is_ok() {
        let _ = write_atomic(&d, &format!("{}.bin", hex(k)), &p.to_binary());
    }
}
