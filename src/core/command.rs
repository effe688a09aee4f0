//! Submitting a command: an enqueue call's command goes to its queue's stream at once, or waits
//! in the queue's deferred list behind unset user events (`Deferred`, queue.rs), with the
//! event the application may ask for.
use super::event::Event;
use super::queue::{defer, Deferred, Queue, Work};
use super::watcher::Completion;
use crate::base::entry::CLResult;
use crate::base::handle::Cl;
use crate::cl::*;
use std::sync::Arc;

/// A command in its queue's deferred list: its wait list, its event and its work.
struct DeferredCommand {
    waits: Vec<Arc<Cl<Event>>>,
    event: Arc<Cl<Event>>,
    work: Work,
}

impl Deferred for DeferredCommand {
    fn ready(&self) -> bool {
        self.waits.iter().all(|w| w.is_submitted())
    }
    fn submit(self: Box<Self>, q: &Arc<Cl<Queue>>) {
        if let Err(e) = submit(q, &self.waits, Some(&self.event), self.work) {
            self.event.set_status(e);
        }
    }
    fn event(&self) -> Arc<dyn Completion> {
        self.event.clone()
    }
}

/// Everything an enqueue call says about its command.
pub struct Command<'a> {
    pub queue: &'a Arc<Cl<Queue>>,
    pub command_type: cl_command_type,
    pub waits: Vec<Arc<Cl<Event>>>,
    /// The application asked for an event (event != NULL).
    pub want_event: bool,
    /// A blocking read/write/map: return only once the work is complete.
    pub blocking: bool,
    /// The host side is finished once the work was issued (a read into or a write from
    /// pageable memory: the driver copies those before returning), so a blocking command
    /// submitted at once has nothing to wait for.
    pub host_done: bool,
}

impl Command<'_> {
    /// Submits `work` now, or defers it behind unset user events. Returns the command's event
    /// when one was asked for.
    pub fn enqueue(
        self,
        work: impl FnOnce(&Queue) -> CLResult<()> + Send + 'static,
    ) -> CLResult<Option<Arc<Cl<Event>>>> {
        let q = self.queue;
        for w in &self.waits {
            if !Arc::ptr_eq(&w.context, &q.context) {
                return Err(CL_INVALID_CONTEXT);
            }
        }
        if self.blocking && self.waits.iter().any(|w| w.status() < 0) {
            return Err(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
        }
        let must_defer = q.has_deferred() || self.waits.iter().any(|w| !w.is_submitted());
        // Only a command someone can ask about, or that waits in the deferred list, has an event
        // (a CUDA event recorded after it). A blocking command submitted now waits for the
        // stream instead: in order, the stream is done exactly when the command and everything
        // before it are.
        let event = if self.want_event || must_defer {
            Some(Cl::new(Event::command(q.clone(), self.command_type)))
        } else {
            None
        };
        if must_defer {
            let event = event.clone().ok_or(CL_OUT_OF_HOST_MEMORY)?;
            defer(
                q,
                Box::new(DeferredCommand { waits: self.waits, event: event.clone(), work: Box::new(work) }),
            );
        } else if !submit(q, &self.waits, event.as_ref(), work)? && event.is_none() && self.blocking {
            // Not run: its wait list failed (the event would have said so).
            return Err(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
        }
        if self.blocking && !(self.host_done && !must_defer && event.is_none()) {
            let status = match &event {
                Some(e) => e.wait(),
                None => q.wait_stream(),
            };
            if status < 0 {
                return Err(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
            }
        }
        Ok(if self.want_event { event } else { None })
    }
}

/// Issues one command on the stream: waits, optional start timestamp, the work, end marker.
/// Ok(false): not run, because an event of its wait list failed.
fn submit(
    q: &Arc<Cl<Queue>>,
    waits: &[Arc<Cl<Event>>],
    event: Option<&Arc<Cl<Event>>>,
    work: impl FnOnce(&Queue) -> CLResult<()>,
) -> CLResult<bool> {
    q.make_current()?;
    for w in waits {
        if w.status() < 0 {
            // A command whose wait list failed does not run; its event reports the failure.
            if let Some(e) = event {
                e.set_status(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
            }
            return Ok(false);
        }
        let same_queue = w.queue.as_ref().is_some_and(|wq| Arc::ptr_eq(wq, q));
        if !same_queue {
            if let Some(ce) = w.pending_cuda_event() {
                q.stream.wait(&ce).map_err(|_| CL_OUT_OF_RESOURCES)?;
            }
        }
    }
    let Some(event) = event else {
        return work(q).map(|()| true);
    };
    let oor = |_| CL_OUT_OF_RESOURCES;
    let start = if q.profiling() {
        let s = q.cuda_event(true).map_err(oor)?;
        s.record(&q.stream).map_err(oor)?;
        Some(s)
    } else {
        None
    };
    if let Err(e) = work(q) {
        event.set_status(e);
        return Err(e);
    }
    let end = q.cuda_event(q.profiling()).map_err(oor)?;
    end.record(&q.stream).map_err(oor)?;
    event.mark_submitted(start, Some(end));
    Ok(true)
}
