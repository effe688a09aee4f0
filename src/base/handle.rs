//! OpenCL handles. A handle is the address of a small cell whose one word is the ICD
//! dispatch-table pointer (ocl-icd and the Khronos loader read it through the handle to pick
//! the function to call); the object behind it is an `Arc<Cl<T>>`, found through one
//! process-wide table keyed by the cell's address. A handle is valid only while it is in that
//! table: NULL, garbage, a handle of another kind, or one released to zero are all detected
//! without reading the memory behind it, and answer the kind's CL_INVALID_* code.
//!
//! Cells are never freed. A loader dereferences a handle before cudacl sees it, so a handle the
//! application uses after its last release must still point at a dispatch pointer: released
//! cells wait in a first-in first-out queue and serve again only as other handles, after
//! `QUARANTINE` later releases. Memory stays bounded by the peak number of live handles.
use super::entry::{lock, CLResult};
use crate::cl::*;
use dashmap::DashMap;
use rustc_hash::FxBuildHasher;
use std::any::Any;
use std::collections::VecDeque;
use std::ops::Deref;
use std::sync::atomic::{AtomicPtr, AtomicU32, Ordering};
use std::sync::{Arc, LazyLock, Mutex};

/// What a handle points to: the dispatch-table pointer, and nothing else.
#[repr(C)]
pub struct HandleCell {
    dispatch: &'static Dispatch,
}

/// Released cells reused only after this many later releases: a stale handle then fails as
/// invalid for as long as possible before its address can name another object.
const QUARANTINE: usize = 4096;

/// Released cells, oldest first.
static FREE_CELLS: Mutex<VecDeque<&'static HandleCell>> = Mutex::new(VecDeque::new());

/// A cell for a new handle: the oldest released one past the quarantine, else a new one.
fn take_cell() -> &'static HandleCell {
    let mut free = lock(&FREE_CELLS);
    if free.len() > QUARANTINE {
        if let Some(cell) = free.pop_front() {
            return cell;
        }
    }
    drop(free);
    Box::leak(Box::new(HandleCell { dispatch: crate::icd_dispatch() }))
}

/// An OpenCL object as the application sees it.
pub struct Cl<T> {
    /// The cell whose address is the handle (NULL until the object is first registered).
    cell: AtomicPtr<HandleCell>,
    /// The reference count the API exposes (clRetain*/clRelease*). Internal references are plain
    /// `Arc` clones and keep the object alive after the application's last release.
    api_refs: AtomicU32,
    /// Runtime holds on the handle itself (`hold`): while any is held, the handle stays valid
    /// after the application's last release, though the count it sees is zero.
    holds: AtomicU32,
    inner: T,
}

impl<T> Deref for Cl<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.inner
    }
}

/// Ties a core type to its handle type and its "invalid handle" error code.
pub trait ClObject: Send + Sync + Sized + 'static {
    /// The opaque C handle type (cl_context, cl_mem, ...).
    type Handle: Copy;
    /// The error for a bad handle of this kind (CL_INVALID_CONTEXT, ...).
    const INVALID: cl_int;
    fn to_handle(cell: *const HandleCell) -> Self::Handle;
    fn handle_addr(h: Self::Handle) -> usize;
}

/// The ICD dispatch table (the loaders' `cl_icd_dispatch`), shareable between threads: it is
/// immutable, and its only raw-pointer slots are the unused Windows ones. The table itself is
/// the api layer's (`api::icd::DISPATCH`); handles reach it through `crate::icd_dispatch`.
#[repr(transparent)]
pub struct Dispatch(pub cl_icd_dispatch);
// SAFETY: never written after initialisation.
unsafe impl Sync for Dispatch {}

type Entry = Arc<dyn Any + Send + Sync>;

/// Live handles by cell address. The table owns one strong reference to each object.
static LIVE: LazyLock<DashMap<usize, Entry, FxBuildHasher>> =
    LazyLock::new(|| DashMap::with_hasher(FxBuildHasher));

impl<T: ClObject> Cl<T> {
    /// A new object the application does not hold yet (reference count zero, not a valid
    /// handle until `register`): e.g. an event nobody asked for.
    pub fn new(inner: T) -> Arc<Cl<T>> {
        Arc::new(Cl {
            cell: AtomicPtr::new(std::ptr::null_mut()),
            api_refs: AtomicU32::new(0),
            holds: AtomicU32::new(0),
            inner,
        })
    }

    /// Hands the object to the application: its handle becomes valid, with one reference.
    pub fn register(self: &Arc<Self>) -> T::Handle {
        let cell = take_cell() as *const HandleCell as *mut HandleCell;
        self.cell.store(cell, Ordering::Release);
        self.api_refs.store(1, Ordering::Release);
        LIVE.insert(cell as usize, self.clone() as Entry);
        T::to_handle(cell)
    }

    /// Creates and registers an object (reference count one).
    pub fn publish(inner: T) -> Arc<Cl<T>> {
        let obj = Cl::new(inner);
        obj.register();
        obj
    }

    /// The handle the application holds (or held) for this object; NULL if it never had one.
    /// It stays the same after the last release, for callbacks that name the object.
    pub fn handle(self: &Arc<Self>) -> T::Handle {
        T::to_handle(self.cell.load(Ordering::Acquire))
    }

    /// Publishes `inner` and returns its new handle.
    pub fn new_handle(inner: T) -> T::Handle {
        Cl::publish(inner).handle()
    }

    /// The live object behind a handle, or T::INVALID.
    pub fn get(h: T::Handle) -> CLResult<Arc<Cl<T>>> {
        let entry = LIVE.get(&T::handle_addr(h)).ok_or(T::INVALID)?;
        entry.value().clone().downcast::<Cl<T>>().map_err(|_| T::INVALID)
    }

    /// Like `get`, for optional handles (NULL allowed).
    pub fn get_opt(h: T::Handle) -> CLResult<Option<Arc<Cl<T>>>> {
        if T::handle_addr(h) == 0 {
            Ok(None)
        } else {
            Cl::get(h).map(Some)
        }
    }

    /// The live objects behind an array of handles, each checked.
    pub fn get_list(hs: &[T::Handle]) -> CLResult<Vec<Arc<Cl<T>>>> {
        hs.iter().map(|&h| Cl::get(h)).collect()
    }

    pub fn ref_count(&self) -> u32 {
        self.api_refs.load(Ordering::Acquire)
    }

    /// clRetain*.
    pub fn retain(h: T::Handle) -> CLResult<()> {
        Cl::<T>::get(h)?.api_refs.fetch_add(1, Ordering::AcqRel);
        Ok(())
    }

    /// clRelease*: at zero the handle dies (its cell goes to the quarantine queue); the object
    /// itself lives on while the runtime still uses it (a queue's pending commands, a buffer's
    /// context...).
    pub fn release(h: T::Handle) -> CLResult<()> {
        let obj = Cl::<T>::get(h)?;
        let mut refs = obj.api_refs.load(Ordering::Acquire);
        loop {
            if refs == 0 {
                return Err(T::INVALID);
            }
            match obj.api_refs.compare_exchange(refs, refs - 1, Ordering::SeqCst, Ordering::Acquire) {
                Ok(_) => break,
                Err(now) => refs = now,
            }
        }
        // SeqCst with `unhold`: of a last release and a last unhold that race, at least one sees
        // both counts at zero (`retire` is safe to call twice).
        if refs == 1 && obj.holds.load(Ordering::SeqCst) == 0 {
            obj.retire();
        }
        Ok(())
    }

    /// Keeps the handle valid after the application's last release until `unhold`: an event's
    /// pending callbacks are given its handle, and OpenCL keeps an event until its command is
    /// done, so a callback may still query it. Only for registered objects.
    pub fn hold(self: &Arc<Self>) {
        self.holds.fetch_add(1, Ordering::SeqCst);
    }

    /// Ends one `hold`; the handle dies here if the application had already released it.
    pub fn unhold(self: &Arc<Self>) {
        if self.holds.fetch_sub(1, Ordering::SeqCst) == 1 && self.api_refs.load(Ordering::SeqCst) == 0 {
            self.retire();
        }
    }

    /// The handle dies: out of the live table, its cell into the quarantine queue.
    fn retire(&self) {
        let addr = self.cell.load(Ordering::Acquire) as usize;
        if addr != 0 && LIVE.remove(&addr).is_some() {
            // SAFETY: every key of LIVE is the address of a leaked, never-freed cell.
            let cell: &'static HandleCell = unsafe { &*(addr as *const HandleCell) };
            lock(&FREE_CELLS).push_back(cell);
        }
    }
}

/// Declares the handle type and invalid-handle code of a core type.
#[macro_export]
macro_rules! cl_object {
    ($t:ty, $handle:ty, $invalid:expr) => {
        impl $crate::base::handle::ClObject for $t {
            type Handle = $handle;
            const INVALID: $crate::cl::cl_int = $invalid;
            fn to_handle(cell: *const $crate::base::handle::HandleCell) -> $handle {
                cell as $handle
            }
            fn handle_addr(h: $handle) -> usize {
                h as usize
            }
        }
    };
}
