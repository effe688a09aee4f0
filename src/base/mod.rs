//! The layer under `api` and `core`: what both use and neither owns.
//!
//! - `entry`: `CLResult`, the wrappers that run an entry point's body (errors become codes, a
//!   panic never crosses `extern "C"`), and `lock`.
//! - `handle`: `Cl<T>`, the object the application holds a handle to, and the table of live
//!   handles that validates every handle before use.
//!
//! `base` imports neither `api` nor `core`. The one thing it needs from above, the ICD dispatch
//! table that each handle carries, is handed to it by the crate root (`crate::icd_dispatch`).
pub mod entry;
pub mod handle;
