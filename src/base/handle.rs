//! OpenCL handles: every object handed to the application is an `Arc<Cl<T>>` whose first field
//! is the ICD dispatch-table pointer (so ocl-icd and the Khronos loader can dispatch on it), and
//! whose address is registered in one process-wide table. A handle is valid only while it is in
//! that table: NULL, garbage, a handle of another kind, or one released to zero are all
//! detected without reading the memory behind it, and answer the kind's CL_INVALID_* code.
//!
//! The handle itself is the address of a small cell (not of the object) whose one word is the
//! dispatch pointer. The ICD loaders read that word through the handle before cudacl sees the
//! call, also for a handle the application already released: a cell is never freed, only reused
//! as another handle's cell (a free list), so that word stays the dispatch pointer for the life
//! of the process, and cell memory stays bounded by the peak number of live handles.
use super::entry::{lock, CLResult};
use crate::cl::*;
use dashmap::DashMap;
use rustc_hash::FxBuildHasher;
use std::any::Any;
use std::ops::Deref;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};

use std::sync::{Arc, LazyLock, Mutex};

/// An OpenCL object as the application sees it.
#[repr(C)]
pub struct Cl<T> {
    /// Must stay the first field: the loaders read it through the handle.
    dispatch: &'static Dispatch,
    /// The reference count the API exposes (clRetain*/clRelease*). Internal references are plain
    /// `Arc` clones and keep the object alive after the application's last release.
    api_refs: AtomicU32,
    /// The handle's cell (0 until registered; kept after the last release, as a value only).
    cell: AtomicUsize,
    inner: T,
}

/// What a handle points to: the dispatch pointer, the loaders' first word of any object.
#[repr(C)]
struct HandleCell {
    _dispatch: &'static Dispatch,
}

/// Cells of released handles, for reuse by the next handle of any kind.
static FREE_CELLS: Mutex<Vec<usize>> = Mutex::new(Vec::new());

fn new_cell() -> usize {
    if let Some(c) = lock(&FREE_CELLS).pop() {
        return c;
    }
    Box::into_raw(Box::new(HandleCell { _dispatch: crate::icd_dispatch() })) as usize
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
    fn to_handle(p: *const Cl<Self>) -> Self::Handle;
    fn from_handle(h: Self::Handle) -> *const Cl<Self>;
}

/// The ICD dispatch table (the loaders' `cl_icd_dispatch`), shareable between threads: it is
/// immutable, and its only raw-pointer slots are the unused Windows ones. The table itself is
/// the api layer's (`api::icd::DISPATCH`); handles reach it through `crate::icd_dispatch`.
#[repr(transparent)]
pub struct Dispatch(pub cl_icd_dispatch);
// SAFETY: never written after initialisation.
unsafe impl Sync for Dispatch {}

type Entry = Arc<dyn Any + Send + Sync>;

/// Live handles by address. The table owns one strong reference to each object.
static LIVE: LazyLock<DashMap<usize, Entry, FxBuildHasher>> =
    LazyLock::new(|| DashMap::with_hasher(FxBuildHasher));

impl<T: ClObject> Cl<T> {
    /// A new object the application does not hold yet (reference count zero, not a valid
    /// handle until `register`): e.g. an event nobody asked for.
    pub fn new(inner: T) -> Arc<Cl<T>> {
        Arc::new(Cl {
            dispatch: crate::icd_dispatch(),
            api_refs: AtomicU32::new(0),
            cell: AtomicUsize::new(0),
            inner,
        })
    }

    /// Hands the object to the application: its handle becomes valid, with one reference.
    pub fn register(self: &Arc<Self>) -> T::Handle {
        let cell = new_cell();
        self.cell.store(cell, Ordering::Release);
        self.api_refs.store(1, Ordering::Release);
        LIVE.insert(cell, self.clone() as Entry);
        self.handle()
    }

    /// Creates and registers an object (reference count one).
    pub fn publish(inner: T) -> Arc<Cl<T>> {
        let obj = Cl::new(inner);
        obj.register();
        obj
    }

    /// The handle the application holds for this object (NULL before `register`).
    pub fn handle(self: &Arc<Self>) -> T::Handle {
        T::to_handle(self.cell.load(Ordering::Acquire) as *const Cl<T>)
    }

    /// Publishes `inner` and returns its new handle.
    pub fn new_handle(inner: T) -> T::Handle {
        Cl::publish(inner).handle()
    }

    /// The live object behind a handle, or T::INVALID.
    pub fn get(h: T::Handle) -> CLResult<Arc<Cl<T>>> {
        let addr = T::from_handle(h) as usize;
        let entry = LIVE.get(&addr).ok_or(T::INVALID)?;
        entry.value().clone().downcast::<Cl<T>>().map_err(|_| T::INVALID)
    }

    /// Like `get`, for optional handles (NULL allowed).
    pub fn get_opt(h: T::Handle) -> CLResult<Option<Arc<Cl<T>>>> {
        if T::from_handle(h).is_null() {
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

    /// clRelease*: at zero the handle dies; the object itself lives on while the runtime still
    /// uses it (a queue's pending commands, a buffer's context...).
    pub fn release(h: T::Handle) -> CLResult<()> {
        let obj = Cl::<T>::get(h)?;
        let mut refs = obj.api_refs.load(Ordering::Acquire);
        loop {
            if refs == 0 {
                return Err(T::INVALID);
            }
            match obj.api_refs.compare_exchange(refs, refs - 1, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => break,
                Err(now) => refs = now,
            }
        }
        if refs == 1 {
            let cell = obj.cell.load(Ordering::Acquire);
            if LIVE.remove(&cell).is_some() {
                lock(&FREE_CELLS).push(cell);
            }
        }
        Ok(())
    }
}

/// Declares the handle type and invalid-handle code of a core type.
#[macro_export]
macro_rules! cl_object {
    ($t:ty, $handle:ty, $invalid:expr) => {
        impl $crate::base::handle::ClObject for $t {
            type Handle = $handle;
            const INVALID: $crate::cl::cl_int = $invalid;
            fn to_handle(p: *const $crate::base::handle::Cl<Self>) -> $handle {
                p as $handle
            }
            fn from_handle(h: $handle) -> *const $crate::base::handle::Cl<Self> {
                h as *const $crate::base::handle::Cl<Self>
            }
        }
    };
}
