//! Command queues: one CUDA stream each. Commands are submitted to the stream at once, in order
//! (an out-of-order queue is accepted and runs in order), except when they wait for a user event
//! that is not set yet: then they, and everything after them on the queue, wait in a deferred
//! list that is submitted when the user event is set.
use super::clock::host_ns;
use super::context::Context;
use super::device::Device;
use super::watcher::{Completion, Watcher};
use crate::base::entry::{lock, CLResult};
use crate::base::handle::Cl;
use crate::cl::*;
use crate::cuda;
use crate::cuda::context::PrimaryContext;
use crate::cuda::stream::Stream;
use std::collections::VecDeque;
use std::sync::{Arc, LazyLock, Mutex, Weak};

/// What a command does once it is its turn: issue its work on the queue's stream (the queue's
/// CUDA context is current). Work done entirely on the host is also fine.
pub type Work = Box<dyn FnOnce(&Queue) -> CLResult<()> + Send>;

/// A command waiting in its queue's deferred list behind events not yet submitted (command.rs
/// makes them; a trait so that this file need not import event.rs, which imports it).
pub trait Deferred: Send {
    /// Every event of its wait list is submitted: it may go.
    fn ready(&self) -> bool;
    /// Submits it on `q` (a failure goes to its event).
    fn submit(self: Box<Self>, q: &Arc<Cl<Queue>>);
    /// Its event, for clFinish to wait on.
    fn event(&self) -> Arc<dyn Completion>;
}

pub struct Queue {
    pub context: Arc<Cl<Context>>,
    pub device: Arc<Cl<Device>>,
    /// Index of the device in the context.
    pub dev: usize,
    pub properties: cl_command_queue_properties,
    /// CL_QUEUE_PROPERTIES_ARRAY: clCreateCommandQueueWithProperties's list with its 0; empty
    /// for clCreateCommandQueue and for a NULL list.
    pub properties_array: Vec<cl_queue_properties>,
    pub cuda: Arc<PrimaryContext>,
    pub stream: Stream,
    /// Profiling: a timing event recorded at creation and the host time it completed at.
    clock_base: Option<(cuda::event::Event, u64)>,
    deferred: Mutex<VecDeque<Box<dyn Deferred>>>,
    /// CUDA events of commands' OpenCL events that were released, for reuse: [no timing,
    /// timing]. Creating and destroying a CUDA event per command costs more than recording one.
    spare_events: [Mutex<Vec<cuda::event::Event>>; 2],
    /// Completes this queue's events that have callbacks, on its own thread.
    pub watcher: Arc<Watcher>,
}
crate::cl_object!(Queue, cl_command_queue, CL_INVALID_COMMAND_QUEUE);

/// Queues that have deferred commands, to revisit when a user event is set.
static WITH_DEFERRED: LazyLock<Mutex<Vec<Weak<Cl<Queue>>>>> = LazyLock::new(|| Mutex::new(Vec::new()));

impl Queue {
    pub fn new(
        context: Arc<Cl<Context>>,
        device: Arc<Cl<Device>>,
        properties: cl_command_queue_properties,
    ) -> CLResult<Queue> {
        let dev = context.device_index(&device).ok_or(CL_INVALID_DEVICE)?;
        let cuda = context.cuda[dev].clone();
        cuda.make_current().map_err(|_| CL_OUT_OF_RESOURCES)?;
        let stream = Stream::new().map_err(|_| CL_OUT_OF_RESOURCES)?;
        let clock_base = if properties & CL_QUEUE_PROFILING_ENABLE as u64 != 0 {
            let base = cuda::event::Event::new(true).map_err(|_| CL_OUT_OF_RESOURCES)?;
            base.record(&stream).and_then(|_| base.synchronize()).map_err(|_| CL_OUT_OF_RESOURCES)?;
            Some((base, host_ns()))
        } else {
            None
        };
        Ok(Queue {
            context,
            device,
            dev,
            properties,
            properties_array: Vec::new(),
            cuda,
            stream,
            clock_base,
            deferred: Mutex::new(VecDeque::new()),
            spare_events: [Mutex::new(Vec::new()), Mutex::new(Vec::new())],
            watcher: Arc::default(),
        })
    }

    /// A CUDA event of this queue's context (current) for a command: a spare one if any.
    pub fn cuda_event(&self, timing: bool) -> cuda::CudaResult<cuda::event::Event> {
        match lock(&self.spare_events[timing as usize]).pop() {
            Some(e) => Ok(e),
            None => cuda::event::Event::new(timing),
        }
    }

    /// Takes back a CUDA event made by `cuda_event` once nothing refers to it any more.
    pub fn recycle_cuda_event(&self, e: cuda::event::Event, timing: bool) {
        const KEEP: usize = 64;
        let mut spare = lock(&self.spare_events[timing as usize]);
        if spare.len() < KEEP {
            spare.push(e);
        }
    }

    /// True when `[p, p+n)` is ordinary pageable host memory (not pinned or registered by anyone
    /// in the process): the driver has copied it, or filled it, when an asynchronous copy
    /// call returns.
    pub fn is_pageable(&self, p: *const std::ffi::c_void, n: usize) -> bool {
        // The driver answers for the current context's address space.
        self.make_current().is_ok() && cuda::memory::is_pageable(p, n)
    }

    /// Waits for everything submitted to the stream (a blocking command that has no event).
    /// Returns CL_COMPLETE, or CL_OUT_OF_RESOURCES when the device reported a failure.
    pub fn wait_stream(&self) -> cl_int {
        match self.make_current().ok().and_then(|()| self.stream.synchronize().ok()) {
            Some(()) => CL_COMPLETE,
            None => {
                self.context.notify("cudacl: a command failed on the device (kernel fault or lost device)");
                CL_OUT_OF_RESOURCES
            }
        }
    }

    pub fn profiling(&self) -> bool {
        self.clock_base.is_some()
    }

    /// A completed timing event of this queue as a host-clock timestamp in ns.
    pub fn device_time_ns(&self, e: &cuda::event::Event) -> Option<u64> {
        let (base, base_ns) = self.clock_base.as_ref()?;
        let ms = e.elapsed_ms_since(base).ok()?;
        Some(base_ns + (ms as f64 * 1e6) as u64)
    }

    pub fn make_current(&self) -> CLResult<()> {
        self.cuda.make_current().map_err(|_| CL_OUT_OF_RESOURCES)
    }

    /// clFinish.
    pub fn finish(&self) -> CLResult<()> {
        // Commands waiting for a user event: wait until they were submitted.
        loop {
            let last = lock(&self.deferred).back().map(|d| d.event());
            match last {
                Some(e) => {
                    e.wait_complete();
                }
                None => break,
            }
        }
        self.make_current()?;
        self.stream.synchronize().map_err(|_| CL_OUT_OF_RESOURCES)
    }
}

/// Submits every deferred command whose wait list is now satisfied, queue by queue, in order,
/// until nothing moves (a submission on one queue can release a command on another).
pub fn flush_deferred() {
    loop {
        let queues: Vec<Arc<Cl<Queue>>> = {
            let mut list = lock(&WITH_DEFERRED);
            list.retain(|w| w.upgrade().is_some_and(|q| !lock(&q.deferred).is_empty()));
            list.iter().filter_map(Weak::upgrade).collect()
        };
        let mut progressed = false;
        for q in &queues {
            while let Some(cmd) = pop_ready(q) {
                progressed = true;
                cmd.submit(q);
            }
        }
        if !progressed {
            return;
        }
    }
}

fn pop_ready(q: &Queue) -> Option<Box<dyn Deferred>> {
    let mut d = lock(&q.deferred);
    match d.front() {
        Some(front) if front.ready() => d.pop_front(),
        _ => None,
    }
}

impl Queue {
    /// Whether commands wait in the deferred list (a new one must queue behind them).
    pub fn has_deferred(&self) -> bool {
        !lock(&self.deferred).is_empty()
    }
}

/// Puts `cmd` at the end of `q`'s deferred list, then submits what is ready.
pub fn defer(q: &Arc<Cl<Queue>>, cmd: Box<dyn Deferred>) {
    lock(&q.deferred).push_back(cmd);
    lock(&WITH_DEFERRED).push(Arc::downgrade(q));
    flush_deferred();
}
