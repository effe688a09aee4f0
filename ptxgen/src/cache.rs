//! The in-process and on-disk build caches.
//!
//! Disk: $CUDACL_CACHE_DIR, else $XDG_CACHE_HOME/cudacl, else ~/.cache/cudacl; CUDACL_CACHE=0
//! turns it off. One file per entry, `<key>.bin`, holding Program::to_binary(); written to a
//! temporary file and renamed (atomic on POSIX), so concurrent processes never see a partial
//! entry. Unreadable or corrupt entries are ignored (and replaced).
use crate::Program;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::io::Write;
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

pub type Key = [u8; 16];

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

static MEM: OnceLock<Mutex<HashMap<Key, Program>>> = OnceLock::new();

fn mem() -> &'static Mutex<HashMap<Key, Program>> {
    MEM.get_or_init(|| Mutex::new(HashMap::new()))
}

pub fn mem_get(k: &Key) -> Option<Program> {
    mem().lock().ok()?.get(k).cloned()
}

pub fn mem_put(k: Key, p: &Program) {
    if let Ok(mut m) = mem().lock() {
        if m.len() > 4096 {
            m.clear();
        }
        m.insert(k, p.clone());
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

pub fn disk_get(k: &Key) -> Option<Program> {
    if !disk_enabled() {
        return None;
    }
    let p = dir()?.join(format!("{}.bin", hex(k)));
    let bytes = std::fs::read(p).ok()?;
    Program::from_binary(&bytes).ok()
}

pub fn disk_put(k: &Key, p: &Program) {
    if !disk_enabled() {
        return;
    }
    let Some(d) = dir() else { return };
    if std::fs::create_dir_all(&d).is_err() {
        return;
    }
    let name = format!("{}.bin", hex(k));
    let tmp = d.join(format!(
        ".{}.{}.{:?}.tmp",
        name,
        std::process::id(),
        std::thread::current().id()
    ));
    let ok = (|| -> std::io::Result<()> {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(&p.to_binary())?;
        drop(f);
        std::fs::rename(&tmp, d.join(&name))
    })();
    if ok.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}
