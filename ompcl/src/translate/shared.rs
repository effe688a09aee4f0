//! The types the translation's passes share: text edits, the variables a kernel uses and their
//! classes, a parsed loop, a region, and what a region's translation produces (kernels and host
//! steps).

use super::*;

/// A replacement of the source bytes `start..end` by `text`, in kernel code.
#[derive(Clone)]
pub(super) struct Edit {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) text: String,
}

/// Host-side edit with an order among edits at the same place (smaller first).
#[derive(Clone)]
pub(super) struct HEdit {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) text: String,
    pub(super) order: i32,
}

/// The class of a variable a kernel uses (kernel.rs `classify_vars`): how the kernel receives it.
#[derive(Clone, Copy, PartialEq, Debug)]
pub(super) enum VK {
    LoopVar,
    Private,
    FirstPrivate,
    LastPrivate,
    Reduction,
    ByValue,
    Buf,
    TmpArr,
    Inout,
    /// a table of row pointers used as `p[i][j]` (row_pointers.rs)
    Rows,
}

/// A variable that kernel code uses from outside it.
pub(super) struct Var {
    pub(super) name: String,
    /// the host expression of a pointer member passed as a pointer of its own (`s.d` for the
    /// kernel's `s__m_d`); None: the variable's name
    pub(super) host: Option<String>,
    pub(super) decl: Node,
    pub(super) ty: Type,
    pub(super) global: bool,
    pub(super) kind: VK,
    pub(super) assigned: bool,
    pub(super) written_through: bool,
    pub(super) red_op: String,
}

/// A parsed `for` loop: its variable, init statement, body, bounds, step and comparison.
pub(super) struct LoopInfo {
    pub(super) loopvar: Node,
    pub(super) init: Node,
    pub(super) body: Node,
    pub(super) lb: String,
    pub(super) ub: String,
    pub(super) step: String,
    pub(super) cmp: i32,
    pub(super) in_init: bool,
}

/// An outermost `parallel` region: its directive (an index of `Ctx::pragmas`) and kernel id.
pub(super) struct Region {
    pub(super) pragma: usize,
    pub(super) id: usize,
}

/// The kernel of one worksharing loop (kernel.rs `loop_kernel`) and what the host needs to launch it.
pub(super) struct KernelOut {
    /// chunks of the outer iteration space may run on different devices (OMPCL_HINT_SPLIT)
    pub(super) split: bool,
    /// the kernel runs its iterations a global size apart (a reduction, OMPCL_HINT_STRIDE): the
    /// runtime may launch fewer work-items than iterations
    pub(super) strided: bool,
    pub(super) code: String,
    pub(super) host_args: Vec<String>,
    /// in a sequence, the arguments `ompcl_kernel_ready` checks before any kernel runs when they
    /// differ from `host_args`' memory (a pointer the host sets between kernels stands for the
    /// variables it takes its values from: sequence.rs)
    pub(super) ready_args: Option<Vec<String>>,
    pub(super) loopvar_after: Option<String>,
    pub(super) lb: String,
    pub(super) ub: String,
    pub(super) step: String,
    pub(super) cmp: i32,
    pub(super) ifcond: Option<String>,
    /// collapse(n): the inner loops merged into the index space (lb, ub, step, comparison)
    pub(super) inner: Vec<(String, String, String, i32)>,
    /// `inner[0]` is spread over work-items only when `ompcl_no_alias` allows (no collapse clause)
    pub(super) auto_flat: bool,
    /// the NDRange's dimensions: 1 (collapsed loops flattened), 2 or 3 (one per loop, the
    /// innermost in dimension 0), 0 (row spreading: 2 when the run-time checks allow, else 1)
    pub(super) nd: usize,
    /// row spreading: per written array, the host C of its byte strides along the outer and the
    /// inner loop variable, its element size and the pairs covered (`ompcl_disjoint` must accept
    /// them)
    pub(super) spread_checks: Vec<affine::Disjoint>,
    /// the kernel takes `__noalias` (ompcl_no_alias's answer): its promoted code needs it
    pub(super) noalias_flag: bool,
    /// a work-item does O(1) work (no loop, no call of a user function): the runtime's placement
    /// keeps such a kernel on the CPU when its data would first have to cross to the device
    pub(super) light: bool,
    /// the kernel asks for its team or thread (`omp_get_team_num()` ...): it loops over the
    /// iterations by the global size, in at most `.0` work-groups (teams) of at most `.1`
    /// work-items (threads) (host C; "0": any number)
    pub(super) teams: Option<(String, String)>,
}

/// What an offloaded region does, in order.
pub(super) enum Step {
    /// a worksharing loop: kernel `kid` (the `for` is at `line`)
    Kernel { k: Box<KernelOut>, kid: usize, line: u32 },
    /// a `single`/`master` body that the host runs between kernels
    Host(HostStep),
}

/// Appends the kernels of `steps` (those launched from host steps too) to the file's kernel
/// source, each under `#if !defined(OMPCL_ONLY) || OMPCL_ONLY == kid` (so a file whose build fails
/// can be built region by region), and notes their ids as offloaded.
pub(super) fn emit_step_kernels(steps: &[Step], kernels: &mut String, offloaded: &mut Vec<usize>) {
    let mut emit = |k: &KernelOut, kid: usize| {
        let _ = write!(kernels, "\n#if !defined(OMPCL_ONLY) || OMPCL_ONLY == {kid}{}#endif\n", k.code);
        offloaded.push(kid);
    };
    for st in steps {
        match st {
            Step::Kernel { k, kid, .. } => emit(k, *kid),
            Step::Host(h) => h.inner.iter().for_each(|i| emit(&i.k, i.kid)),
        }
    }
}

/// Host code that runs between the kernels of a sequence (sequence.rs).
pub(super) struct HostStep {
    pub(super) line: u32,
    pub(super) text: String,
    /// statements every thread runs, which compute only the region's locals (run once)
    pub(super) replicated: bool,
    /// the worksharing loops inside those statements, whose launches `text` holds as markers
    /// (sequence.rs `inner_marker`)
    pub(super) inner: Vec<InnerKernel>,
}

/// A worksharing loop's kernel launched from inside a host step (a stencil's time loop).
pub(super) struct InnerKernel {
    pub(super) k: Box<KernelOut>,
    pub(super) kid: usize,
    pub(super) line: u32,
    /// the source line after the loop, where the host code resumes
    pub(super) resume: u32,
}
