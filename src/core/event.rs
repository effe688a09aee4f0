//! OpenCL events. An event of a command is backed by CUDA events recorded around the command on
//! its queue's stream; a user event is a host-side flag. Status is read from CUDA lazily
//! (clGetEventInfo, clWaitForEvents); an event with callbacks is handed to its queue's watcher
//! thread (core/watcher.rs), which waits for it, so commands without callbacks cost nothing
//! extra.
use super::clock::host_ns;
use super::context::Context;
use super::queue::Queue;
use super::watcher::Completion;
use crate::base::entry::lock;
use crate::base::handle::Cl;
use crate::cl::*;
use crate::cuda;
use std::ffi::c_void;
use std::sync::{Arc, Condvar, Mutex};

pub type EventCallback = unsafe extern "C" fn(cl_event, cl_int, *mut c_void);

#[derive(Clone, Copy, Default)]
pub struct Profile {
    pub queued: u64,
    pub submit: u64,
    pub start: u64,
    pub end: u64,
}

struct State {
    /// CL_QUEUED, CL_SUBMITTED, CL_RUNNING, CL_COMPLETE, or a negative error.
    status: cl_int,
    /// Recorded after the command; None for user events and before submission.
    end: Option<Arc<cuda::event::Event>>,
    /// Recorded before the command on profiling queues.
    start: Option<Arc<cuda::event::Event>>,
    profile: Profile,
    callbacks: Vec<(cl_int, EventCallback, usize)>,
    watched: bool,
}

pub struct Event {
    pub context: Arc<Cl<Context>>,
    /// The queue of a command's event; None for a user event.
    pub queue: Option<Arc<Cl<Queue>>>,
    pub command_type: cl_command_type,
    state: Mutex<State>,
    changed: Condvar,
}
crate::cl_object!(Event, cl_event, CL_INVALID_EVENT);

impl Event {
    pub fn user(context: Arc<Cl<Context>>) -> Event {
        Event::new(context, None, CL_COMMAND_USER, CL_SUBMITTED)
    }

    pub fn command(queue: Arc<Cl<Queue>>, command_type: cl_command_type) -> Event {
        Event::new(queue.context.clone(), Some(queue), command_type, CL_QUEUED)
    }

    fn new(
        context: Arc<Cl<Context>>,
        queue: Option<Arc<Cl<Queue>>>,
        command_type: cl_command_type,
        status: cl_int,
    ) -> Event {
        let now = host_ns();
        Event {
            context,
            queue,
            command_type,
            state: Mutex::new(State {
                status,
                end: None,
                start: None,
                profile: Profile { queued: now, submit: now, start: now, end: now },
                callbacks: Vec::new(),
                watched: false,
            }),
            changed: Condvar::new(),
        }
    }

    pub fn is_user(&self) -> bool {
        self.queue.is_none()
    }

    /// True once the command was handed to CUDA (or, for a user event, once it was set), i.e.
    /// a command that waits for it can be submitted behind it.
    pub fn is_submitted(&self) -> bool {
        let s = lock(&self.state);
        if self.is_user() {
            s.status <= CL_COMPLETE
        } else {
            s.end.is_some() || s.status <= CL_COMPLETE
        }
    }

    /// The CUDA event a later command must wait for, if the work is still in flight.
    pub fn pending_cuda_event(&self) -> Option<Arc<cuda::event::Event>> {
        let s = lock(&self.state);
        if s.status > CL_COMPLETE {
            s.end.clone()
        } else {
            None
        }
    }
}

impl Drop for Event {
    /// Gives the command's CUDA events back to its queue for later commands.
    fn drop(&mut self) {
        let Some(q) = &self.queue else { return };
        let s = self.state.get_mut().unwrap_or_else(|e| e.into_inner());
        let ends = [(s.end.take(), q.profiling()), (s.start.take(), true)];
        for (e, timing) in ends {
            // Still shared (a wait being issued on another queue): it is destroyed by its last owner.
            if let Some(Ok(e)) = e.map(Arc::try_unwrap) {
                q.recycle_cuda_event(e, timing);
            }
        }
    }
}

/// The parts that hand out the event's own handle (callbacks) or keep it alive (watchers).
impl Cl<Event> {
    /// The command was submitted to CUDA; `end` completes with it.
    pub fn mark_submitted(
        self: &Arc<Self>,
        start: Option<cuda::event::Event>,
        end: Option<cuda::event::Event>,
    ) {
        let mut s = lock(&self.state);
        s.profile.submit = host_ns();
        s.start = start.map(Arc::new);
        match end {
            Some(e) => {
                s.end = Some(Arc::new(e));
                s.status = CL_SUBMITTED;
                let watch = !s.callbacks.is_empty() && !s.watched;
                s.watched |= watch;
                let fire = take_due(&mut s.callbacks, CL_SUBMITTED);
                drop(s);
                self.changed.notify_all();
                self.run_pending(fire, CL_SUBMITTED);
                if watch {
                    self.start_watcher();
                }
            }
            // Work done on the host during submission: complete already.
            None => {
                s.profile.start = s.profile.submit;
                s.profile.end = s.profile.submit;
                drop(s);
                self.set_status(CL_COMPLETE);
            }
        }
    }

    /// Sets the final status (CL_COMPLETE or an error), wakes waiters and runs due callbacks.
    pub fn set_status(self: &Arc<Self>, status: cl_int) {
        let mut s = lock(&self.state);
        if s.status <= CL_COMPLETE {
            return;
        }
        s.status = status;
        if status == CL_COMPLETE {
            if let (Some(q), Some(start), Some(end)) = (&self.queue, &s.start, &s.end) {
                let (a, b) = (q.device_time_ns(start), q.device_time_ns(end));
                // The duration from the two events themselves: times since the queue's clock
                // base are f32 milliseconds, a microsecond coarse after seconds, and the start
                // may be moved to the submission time below.
                let took = end.elapsed_ms_since(start).ok().map(|ms| (ms.max(0.0) as f64 * 1e6) as u64);
                let submit = s.profile.submit;
                s.profile.start = a.unwrap_or(submit).max(submit);
                s.profile.end = match took {
                    Some(ns) => s.profile.start + ns,
                    None => b.unwrap_or(s.profile.start).max(s.profile.start),
                };
            } else if s.end.is_some() {
                let now = host_ns();
                s.profile.start = s.profile.submit;
                s.profile.end = now.max(s.profile.submit);
            }
        }
        let fire = take_due(&mut s.callbacks, status);
        drop(s);
        self.changed.notify_all();
        self.run_pending(fire, status);
        if self.is_user() {
            super::queue::flush_deferred();
        }
    }

    /// The status now (asks CUDA if the command is in flight).
    pub fn status(self: &Arc<Self>) -> cl_int {
        let (status, end) = {
            let s = lock(&self.state);
            (s.status, s.end.clone())
        };
        if status > CL_COMPLETE {
            if let Some(end) = end {
                match end.query() {
                    Ok(true) => self.set_status(CL_COMPLETE),
                    Ok(false) => {}
                    Err(e) => self.fail(e),
                }
            }
        }
        lock(&self.state).status
    }

    fn fail(self: &Arc<Self>, e: crate::cuda::CudaError) {
        if let Some(q) = &self.queue {
            let why =
                format!("cudacl: a command failed on the device (kernel fault or lost device): {}", e.name());
            q.context.notify(&why);
        }
        self.set_status(CL_OUT_OF_RESOURCES);
    }

    /// Blocks until the event is complete or failed; returns its final status.
    pub fn wait(self: &Arc<Self>) -> cl_int {
        loop {
            let mut s = lock(&self.state);
            if s.status <= CL_COMPLETE {
                return s.status;
            }
            if let Some(end) = s.end.clone() {
                drop(s);
                match end.synchronize() {
                    Ok(()) => self.set_status(CL_COMPLETE),
                    Err(e) => self.fail(e),
                }
                continue;
            }
            // A user event, or a command still deferred behind one.
            s = self.changed.wait(s).unwrap_or_else(|e| e.into_inner());
            drop(s);
        }
    }

    pub fn profile(self: &Arc<Self>) -> Option<Profile> {
        if self.status() != CL_COMPLETE {
            return None;
        }
        Some(lock(&self.state).profile)
    }

    /// clSetEventCallback: runs now if the status was already reached.
    pub fn add_callback(self: &Arc<Self>, trigger: cl_int, f: EventCallback, data: *mut c_void) {
        self.status();
        let mut s = lock(&self.state);
        // The status under the lock: a watcher may have completed the event (and taken the
        // callbacks registered so far) since the query.
        let status = s.status;
        if status <= trigger {
            drop(s);
            self.run_callbacks(vec![(trigger, f, data as usize)], status);
            return;
        }
        s.callbacks.push((trigger, f, data as usize));
        // The callback will be given this event's handle: it stays valid until then, even
        // after the application's last release (run_pending ends the hold).
        self.hold();
        let watch = s.end.is_some() && !s.watched;
        s.watched |= watch;
        drop(s);
        if watch {
            self.start_watcher();
        }
    }

    /// Hands the event to its queue's watcher thread, which waits for the GPU so that the
    /// callbacks run without anyone polling. Only submitted commands are watched: they have a
    /// queue.
    fn start_watcher(self: &Arc<Self>) {
        if let Some(q) = &self.queue {
            q.watcher.watch(self.clone());
        }
    }

    /// Runs callbacks that `add_callback` kept for later, then ends their holds on the handle.
    fn run_pending(self: &Arc<Self>, due: Vec<(cl_int, EventCallback, usize)>, status: cl_int) {
        let n = due.len();
        self.run_callbacks(due, status);
        for _ in 0..n {
            self.unhold();
        }
    }

    fn run_callbacks(self: &Arc<Self>, due: Vec<(cl_int, EventCallback, usize)>, status: cl_int) {
        let h = self.handle();
        for (trigger, f, data) in due {
            let reported = if status < 0 { status } else { trigger };
            // SAFETY: the application's callback with its own data.
            unsafe { f(h, reported, data as *mut c_void) };
        }
    }
}

/// Removes and returns the callbacks whose trigger status has been reached.
fn take_due(
    cbs: &mut Vec<(cl_int, EventCallback, usize)>,
    status: cl_int,
) -> Vec<(cl_int, EventCallback, usize)> {
    let (due, keep): (Vec<_>, Vec<_>) = cbs.drain(..).partition(|&(t, _, _)| status <= t);
    *cbs = keep;
    due
}

impl Completion for Cl<Event> {
    fn wait_complete(self: Arc<Self>) {
        self.wait();
    }
}
