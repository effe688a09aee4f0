//! ompcl: an OpenMP 2.0 C -> OpenCL translator (MOMP's OMPCL, sections 3-4.1), whose output runs
//! on cudacl or any OpenCL 1.2 platform, with a CPU version kept for every parallel region.
#![warn(clippy::undocumented_unsafe_blocks)]
pub mod clang;
pub mod driver;
pub mod nesting;
pub mod pragma;
pub mod pragma_op;
pub mod translate;

/// The C runtime linked into every program ompcl builds.
pub const RT_H: &str = include_str!("../runtime/ompcl_rt.h");
/// One C file, written out of parts with one concern each (runtime/rt_*.c).
pub const RT_C: &str = concat!(
    include_str!("../runtime/rt_base.c"),
    include_str!("../runtime/rt_memory.c"),
    include_str!("../runtime/rt_device.c"),
    include_str!("../runtime/rt_stage.c"),
    include_str!("../runtime/rt_rows.c"),
    include_str!("../runtime/rt_launch.c"),
    include_str!("../runtime/rt_split.c"),
    include_str!("../runtime/rt_omp.c"),
    include_str!("../runtime/rt_target.c"),
);
/// The omp.h programs see (the omp_* functions of ompcl's pthreads runtime).
pub const OMP_H: &str = include_str!("../runtime/omp.h");
