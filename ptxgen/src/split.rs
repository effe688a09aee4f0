//! Building a program's kernels side by side.
//!
//! O3 and NVPTX code generation are most of a cold build's CPU time, and they work on one
//! module on one thread. A program with several kernels is therefore split, once libclc is
//! linked, into one module per kernel holding that kernel and the definitions it reaches (the
//! bridge's pg_split_part: everything but the kernels made internal and renamed per part); with
//! more kernels than threads, a part holds a group of kernels of about equal weight. Each
//! part is optimised and emitted in an LLVM context of its own on a thread of its own (LLVM
//! allows concurrent work in distinct contexts), and the parts' PTX is joined into one module,
//! which the driver JITs once: a module per kernel would pay the JIT's fixed cost per kernel.
//!
//! A program is built whole instead when it has one kernel, when one CPU is available, when a
//! kernel calls another kernel, or when the PTX holds something the join does not handle. Each
//! part pays a fixed cost (a pass pipeline, a target machine, reading the part back) of a few
//! milliseconds, which grouping kernels bounds. Measured: bench/buildbench.c's 6 kernels, O3 and
//! code generation 17-23 ms in parts against 30-43 ms whole on the H100 machine's 16 cores;
//! ptxgen's whole build 34-41 ms against 39-43 ms on a 2-core machine, and 400-490 ms against
//! 590-620 ms for 60 small kernels there. CUDACL_BUILD_THREADS=N sets the threads (1 builds
//! whole).
use crate::pipeline::{failed, optimize_and_emit, Ctx, Timer};
use crate::*;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::module::Module;
use std::os::raw::c_char;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// What one part, or the whole program, comes to: PTX, the kernels' layouts, warnings.
type Built = (String, Vec<KernelInfo>, String);

static THREADS_OVERRIDE: AtomicUsize = AtomicUsize::new(0);

/// Tests: the number of threads builds use (0: the default, see threads()).
#[doc(hidden)]
pub fn set_build_threads(n: usize) {
    THREADS_OVERRIDE.store(n, Ordering::Relaxed);
}

/// How many threads a build may use (1: build whole): set_build_threads, else
/// CUDACL_BUILD_THREADS, else one per CPU.
fn threads() -> usize {
    match THREADS_OVERRIDE.load(Ordering::Relaxed) {
        0 => {}
        n => return n,
    }
    if let Some(n) = std::env::var("CUDACL_BUILD_THREADS").ok().and_then(|v| v.parse::<usize>().ok()) {
        return n.max(1);
    }
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
}

/// Builds the kernels of `m` (libclc linked, not optimised) in parallel. Ok(None): build it
/// whole (see the module comment); `m` is left as it was either way.
pub(crate) fn build_kernels_in_parallel(
    m: &Module,
    opts: &options::Options,
    target: &Target,
    t: &mut Timer,
) -> Result<Option<Built>, BuildError> {
    let threads = threads();
    if threads < 2 {
        return Ok(None);
    }
    let n = m.get_functions().filter(|f| info::is_kernel(*f)).count();
    if n < 2 {
        return Ok(None);
    }
    let mr = m.as_mut_ptr();
    let mut weights = vec![0i64; n];
    // SAFETY (all bridge calls here): `mr` is the live module owned by `m`; only read. The
    // weights buffer holds n values (long long on the C++ side).
    // SAFETY: mr is live; weights has n slots.
    if unsafe { ffi::pg_split_weights(mr, weights.as_mut_ptr(), n as i32) } == 0 {
        return Ok(None);
    }
    // The parts are made one by one here (they are copies in m's context) and built by worker
    // threads as they come, heaviest first so that the longest part starts earliest; this
    // thread joins the workers once every part is made.
    let groups = group_kernels(&weights, threads);
    let parts = groups.len();
    let (tx, rx) = std::sync::mpsc::channel::<(usize, Vec<u8>)>();
    let rx = Mutex::new(rx);
    let results: Vec<Mutex<Option<Result<Built, BuildError>>>> =
        (0..parts).map(|_| Mutex::new(None)).collect();
    let work = || loop {
        let job = rx.lock().unwrap_or_else(|e| e.into_inner()).recv();
        let Ok((i, bitcode)) = job else { break };
        let r = crate::pipeline::guarded(|| build_part(&bitcode, opts, target));
        *results[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
    };
    let made: Result<(), BuildError> = std::thread::scope(|s| {
        for _ in 1..threads.min(parts) {
            // LLVM recurses deeply on big functions: the main thread's 8 MiB, not Rust's 2.
            let worker = std::thread::Builder::new().name("ptxgen-kernel".into()).stack_size(8 << 20);
            if worker.spawn_scoped(s, work).is_err() {
                break; // fewer workers; this thread takes what they leave
            }
        }
        for (p, kernels) in groups.iter().enumerate() {
            let idx: Vec<i32> = kernels.iter().map(|&k| k as i32).collect();
            let mut log: *mut c_char = std::ptr::null_mut();
            // SAFETY: mr is live; idx holds idx.len() kernel indices; log is local.
            let raw = unsafe { ffi::pg_split_part(mr, p as i32, idx.as_ptr(), idx.len() as i32, &mut log) };
            let log = ffi::take_string(log);
            if raw.is_null() {
                return Err(failed(log)); // dropping tx stops the workers
            }
            // SAFETY: a new module of m's context, handed over.
            let part = unsafe { Module::new(raw) };
            let _ = tx.send((p, part.write_bitcode_to_memory().as_slice().to_vec()));
        }
        drop(tx);
        t.lap("split");
        work();
        Ok(())
    });
    made?;
    let mut built = Vec::with_capacity(parts);
    for slot in results {
        match slot.into_inner().unwrap_or_else(|e| e.into_inner()) {
            Some(r) => built.push(r?),
            None => return Err(failed("internal error: a kernel was not built")),
        }
    }
    t.lap("optimize+codegen");

    let ptxs: Vec<&str> = built.iter().map(|(p, _, _)| p.as_str()).collect();
    let Some(ptx) = join_ptx(&ptxs) else {
        return Ok(None);
    };
    // Each part lists its kernels in the module's order: put them back in the program's.
    let mut kernels: Vec<Option<KernelInfo>> = vec![None; n];
    let mut log = String::new();
    for ((_, ks, l), group) in built.into_iter().zip(&groups) {
        if ks.len() != group.len() {
            return Err(failed("internal error: a part lost a kernel"));
        }
        for (k, &i) in ks.into_iter().zip(group) {
            kernels[i] = Some(k);
        }
        for line in l.lines() {
            if !log.lines().any(|seen| seen == line) {
                log.push_str(line);
                log.push('\n');
            }
        }
    }
    let kernels: Vec<KernelInfo> = kernels.into_iter().flatten().collect();
    t.lap("join");
    Ok(Some((ptx, kernels, log)))
}

/// The kernels (by index, with their weights) in at most `bins` groups of about equal weight,
/// heaviest group first, each group's indices ascending: a part per group bounds the parts'
/// fixed cost when a program has many more kernels than there are threads.
fn group_kernels(weights: &[i64], bins: usize) -> Vec<Vec<usize>> {
    let bins = bins.clamp(1, weights.len().max(1));
    let mut order: Vec<usize> = (0..weights.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(weights[i]));
    let mut groups: Vec<(i64, Vec<usize>)> = vec![(0, Vec::new()); bins];
    for i in order {
        // The lightest group so far (there is at least one) takes the next heaviest kernel.
        if let Some(g) = groups.iter_mut().min_by_key(|(w, _)| *w) {
            g.0 += weights[i].max(1);
            g.1.push(i);
        }
    }
    groups.retain(|(_, g)| !g.is_empty());
    groups.sort_by_key(|(w, _)| std::cmp::Reverse(*w));
    groups
        .into_iter()
        .map(|(_, mut g)| {
            g.sort_unstable();
            g
        })
        .collect()
}

/// One part, from its bitcode, in a context of its own.
fn build_part(bitcode: &[u8], opts: &options::Options, target: &Target) -> Result<Built, BuildError> {
    let ctx = Ctx::private();
    let buf = MemoryBuffer::create_from_memory_range_copy(bitcode, "kernel");
    let m = Module::parse_bitcode_from_buffer(&buf, ctx.context_ref())
        .map_err(|e| failed(format!("internal error: a kernel's module does not read back: {e}\n")))?;
    let (ptx, kernels) = optimize_and_emit(&m, opts, target, &mut Timer::new())?;
    drop(m);
    let (log, err) = ctx.take_log();
    if err {
        return Err(failed(log));
    }
    Ok((ptx, kernels, log))
}

/// Joins PTX modules made for the same target into one: the first one's header (.version,
/// .target, .address_size), then the top-level statements of each, a statement identical to
/// one already taken (a repeated declaration, such as vprintf's or the dynamic shared array's)
/// left out. None when a module holds a top-level directive this does not know.
pub(crate) fn join_ptx(parts: &[&str]) -> Option<String> {
    let mut out = String::new();
    let mut seen = std::collections::HashSet::new();
    for (i, part) in parts.iter().enumerate() {
        let (header, body) = split_header(part)?;
        if i == 0 {
            out.push_str(header);
            out.push('\n');
        }
        for stmt in statements(body)? {
            if seen.insert(stmt) {
                out.push_str(stmt);
                out.push_str("\n\n");
            }
        }
    }
    Some(out)
}

/// The header lines (up to .address_size) and the rest.
fn split_header(ptx: &str) -> Option<(&str, &str)> {
    let at = ptx.find(".address_size")?;
    let end = ptx[at..].find('\n').map(|e| at + e + 1).unwrap_or(ptx.len());
    Some((&ptx[..end], &ptx[end..]))
}

/// The top-level statements of a PTX body (after the header), comments between them dropped:
/// each ends at a `;` outside braces, or at the `}` closing a function body (with the `;`
/// that follows an initialiser's closing brace). None on a directive without a `;`, such as
/// `.file` or `.section` (debug information), or unbalanced braces.
fn statements(body: &str) -> Option<Vec<&str>> {
    let b = body.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let mut start: Option<usize> = None;
    let mut depth = 0i32;
    while i < b.len() {
        // Comments (outside and inside statements).
        if b[i] == b'/' && b.get(i + 1) == Some(&b'/') {
            i = body[i..].find('\n').map(|e| i + e).unwrap_or(b.len());
            continue;
        }
        if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
            i = body[i + 2..].find("*/").map(|e| i + 2 + e + 2)?;
            continue;
        }
        let c = b[i];
        if start.is_none() {
            if c.is_ascii_whitespace() {
                i += 1;
                continue;
            }
            if body[i..].starts_with(".file") || body[i..].starts_with(".section") {
                return None;
            }
            start = Some(i);
        }
        match c {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth < 0 {
                    return None;
                }
                if depth == 0 {
                    // An initialiser `= {...};` goes on to its `;`; a function body ends here.
                    let rest = &body[i + 1..];
                    let next = rest.len() - rest.trim_start().len();
                    let end = if rest.trim_start().starts_with(';') { i + 1 + next + 1 } else { i + 1 };
                    out.push(body[start.take()?..end].trim_end());
                    i = end;
                    continue;
                }
            }
            b';' if depth == 0 => {
                out.push(body[start.take()?..=i].trim_end());
            }
            _ => {}
        }
        i += 1;
    }
    if depth != 0 || start.is_some() {
        return None;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "//\n// Generated by LLVM NVPTX Back-End\n//\n\n.version 8.5\n.target sm_90\n.address_size 64\n\n\t// .globl\tk1\n.extern .shared .align 16 .b8 __cudacl_dynshared[];\n.global .align 1 .b8 $str$p0[3] = {104, 105, 0};\n.extern .func  (.param .b32 func_retval0) vprintf\n(\n\t.param .b64 vprintf_param_0,\n\t.param .b64 vprintf_param_1\n)\n;\n.visible .entry k1(\n\t.param .u64 k1_param_0\n)\n{\n\t// body comment { not a brace\n\tret;\n}\n";
    const B: &str = ".version 8.5\n.target sm_90\n.address_size 64\n\n.extern .shared .align 16 .b8 __cudacl_dynshared[];\n.extern .func  (.param .b32 func_retval0) vprintf\n(\n\t.param .b64 vprintf_param_0,\n\t.param .b64 vprintf_param_1\n)\n;\n.func helper$p1()\n;\n.visible .entry k2()\n{\n\t{ // a scope\n\t}\n\tret;\n}\n.func helper$p1()\n{\n\tret;\n}\n";

    #[test]
    fn statements_of_a_body() {
        let (_, body) = split_header(A).unwrap();
        let s = statements(body).unwrap();
        assert_eq!(s.len(), 4, "{s:#?}");
        assert!(s[1].starts_with(".global") && s[1].ends_with("};"));
        assert!(s[2].starts_with(".extern .func") && s[2].ends_with(';'));
        assert!(s[3].starts_with(".visible .entry k1") && s[3].ends_with('}'));
        assert!(s[3].contains("// body comment { not a brace"));
    }

    #[test]
    fn join_keeps_one_header_and_one_copy_of_each_declaration() {
        let j = join_ptx(&[A, B]).unwrap();
        assert_eq!(j.matches(".version").count(), 1);
        assert_eq!(j.matches(".address_size").count(), 1);
        assert_eq!(j.matches("__cudacl_dynshared").count(), 1);
        assert_eq!(j.matches("vprintf\n").count(), 1);
        assert_eq!(j.matches(".func helper$p1()\n;").count(), 1);
        assert!(j.contains(".visible .entry k1(") && j.contains(".visible .entry k2()"));
        assert!(j.find("entry k1").unwrap() < j.find("entry k2").unwrap());
    }

    #[test]
    fn kernels_are_grouped_by_weight() {
        assert_eq!(group_kernels(&[5, 1, 9], 8), vec![vec![2], vec![0], vec![1]]);
        let g = group_kernels(&[10, 1, 1, 1, 1, 1, 1, 1, 1, 1, 9], 3);
        assert_eq!(g.len(), 3);
        assert_eq!(g[0], vec![0]);
        let mut all: Vec<usize> = g.concat();
        all.sort_unstable();
        assert_eq!(all, (0..11).collect::<Vec<_>>());
        assert!(g.iter().all(|x| x.windows(2).all(|w| w[0] < w[1])));
        assert_eq!(group_kernels(&[0, 0], 1), vec![vec![0, 1]]);
    }

    #[test]
    fn join_refuses_what_it_does_not_know() {
        let dbg = ".version 8.5\n.target sm_90\n.address_size 64\n.file 1 \"k.cl\"\n.visible .entry k()\n{\n\tret;\n}\n";
        assert!(join_ptx(&[A, dbg]).is_none());
        assert!(
            join_ptx(&[".version 8.5\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n"]).is_none()
        );
        assert!(join_ptx(&["no header"]).is_none());
    }
}
