//! The host clock profiling timestamps are expressed in (events' and clGetHostTimer's).
use std::sync::LazyLock;
use std::time::Instant;

/// Nanoseconds on the host clock that profiling timestamps are expressed in.
pub fn host_ns() -> u64 {
    static EPOCH: LazyLock<Instant> = LazyLock::new(Instant::now);
    EPOCH.elapsed().as_nanos() as u64 + 1_000_000
}
