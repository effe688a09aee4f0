//! `critical` sections that are not one update (atomic_edit makes those atomics): on the device
//! they run under a spin lock in global memory, one `int` per critical name.
//!
//! ```c
//! { int __ompcl_cs = 0;
//!   while (!__ompcl_cs) {
//!     if (atomic_cmpxchg(&__ompcl_locks[k], 0, 1) == 0) {   // acquire
//!       OMPCL_LOCK_FENCE();      // acquire side: the body sees what earlier holders wrote
//!       { body }
//!       OMPCL_LOCK_FENCE();      // release side: the body's writes are visible before the unlock
//!       atomic_xchg(&__ompcl_locks[k], 0);
//!       __ompcl_cs = 1;
//!     } } }
//! ```
//!
//! The body and the release are inside the iteration that took the lock, so a lane that loses
//! never waits for a lane of its own warp inside the loop. Compilers may still turn it into
//! `while (cas != 0);` (LLVM does), which livelocks a warp without independent thread scheduling,
//! so the runtime runs such regions only on devices that guarantee forward progress to diverged
//! work-items (NVIDIA sm_70+, queried with cl_nv_device_attribute_query) and on the CPU otherwise.
//!
//! The fence: OpenCL 1.2's `mem_fence` orders only within a work-group (libclc makes it
//! `membar.cta`), too weak for a lock shared by work-groups; on NVIDIA devices (the runtime adds
//! `-DOMPCL_NV_FENCE` to the build options) it is PTX `membar.gl` (fence.sc.gpu), which also keeps
//! the compiler from moving the body's loads and stores across it ("memory" clobber).

use super::*;

/// Kernel prelude of files whose kernels hold device-locked critical sections.
pub(super) const LOCK_PRELUDE: &str = "#ifdef OMPCL_NV_FENCE\n#define OMPCL_LOCK_FENCE() __asm__ __volatile__(\"membar.gl;\" ::: \"memory\")\n#else\n#define OMPCL_LOCK_FENCE() mem_fence(CLK_GLOBAL_MEM_FENCE)\n#endif\n";

impl<'a> Translator<'a> {
    /// The kernel text of `critical` section `pp` (statement `st`, ending at `se`) under a device
    /// lock; `locks` holds the names seen in this kernel (the lock index is the position).
    pub(super) fn lock_edit(
        &mut self,
        pp: &Pragma,
        st: Node,
        se: usize,
        edits: &[Edit],
        locks: &mut Vec<String>,
    ) -> Result<Edit, String> {
        let (s, e) = st.range();
        let end = self.cx.stmt_end(e.off).min(se);
        if self.pragmas_in(s.off, end).iter().any(|&i| self.cx.pragmas[i].line_start >= s.off) {
            return Err("directives inside a 'critical' section are not translated to OpenCL".into());
        }
        if leaves_body(st, false, false) {
            return Err("'break'/'continue' leaving a 'critical' section".into());
        }
        let name = pp.dir_arg.clone().unwrap_or_default();
        let k = match locks.iter().position(|n| *n == name) {
            Some(k) => k,
            None => {
                locks.push(name);
                locks.len() - 1
            }
        };
        self.atomics.entry(" lock".into()).or_insert_with(|| LOCK_PRELUDE.to_string());
        let body = render(self.cx.text, edits, s.off, end);
        let (ls, _) = pp_range(pp);
        Ok(Edit {
            start: ls,
            end: se,
            text: format!(
                "{{ int __ompcl_cs = 0; while (!__ompcl_cs) {{ if (atomic_cmpxchg(&__ompcl_locks[{k}], 0, 1) == 0) {{ OMPCL_LOCK_FENCE(); {{ {body} }} OMPCL_LOCK_FENCE(); atomic_xchg(&__ompcl_locks[{k}], 0); __ompcl_cs = 1; }} }} }}"
            ),
        })
    }
}

/// Whether a `break` or `continue` in `n` would leave it (not caught by a loop or `switch` inside).
fn leaves_body(n: Node, in_loop: bool, in_switch: bool) -> bool {
    match n.kind() {
        CXCursor_BreakStmt => !(in_loop || in_switch),
        CXCursor_ContinueStmt => !in_loop,
        k => {
            let (l, sw) = match k {
                CXCursor_ForStmt | CXCursor_WhileStmt | CXCursor_DoStmt => (true, in_switch),
                CXCursor_SwitchStmt => (in_loop, true),
                _ => (in_loop, in_switch),
            };
            n.children().into_iter().any(|c| leaves_body(c, l, sw))
        }
    }
}
