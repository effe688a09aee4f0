//! The thread that completes a queue's events that have callbacks. An event whose callbacks wait
//! for the GPU is handed to its queue's watcher, one thread per queue that waits for such events
//! one after the other, in the order they were handed over, and runs their callbacks. The
//! thread is started by the first such event and ends after it has been idle a while.
//!
//! Why not a thread per event: OpenCV registers a callback on nearly every kernel it launches
//! (to release the operation's temporaries); a thread started per launch cost more than the
//! launch, and a burst of launches had as many threads waiting (spinning, under CUDA's default
//! scheduling) at once. One queue's commands complete in order on its stream, so waiting for
//! them in order costs no callback more than the wait for its own command (except where
//! callbacks were registered in another order than the commands were enqueued: the earlier
//! command's callbacks then run when the later command is done, still after their own).
//! The OpenCL specification leaves blocking calls inside a callback undefined; one that waits
//! for something only a later callback of the same queue would do would wait forever here.
use crate::base::entry::lock;
use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// What a watcher completes: a submitted command's event (event.rs implements it; a trait so
/// that this file, which queue.rs holds, need not import event.rs, which imports queue.rs).
pub trait Completion: Send + Sync {
    /// Blocks until the command is complete or failed, setting the status and running the
    /// callbacks.
    fn wait_complete(self: Arc<Self>);
}

/// How long an idle watcher thread waits for more work before it ends.
const IDLE: Duration = Duration::from_millis(200);

#[derive(Default)]
struct State {
    pending: VecDeque<Arc<dyn Completion>>,
    /// A thread is running (waiting for `pending`, or for an event it took from there).
    running: bool,
    /// The thread waits for `more` (else it looks at `pending` before it would wait: no wake-up
    /// call, which is a system call, is needed).
    idle: bool,
}

#[derive(Default)]
pub struct Watcher {
    state: Mutex<State>,
    more: Condvar,
}

impl Watcher {
    /// Completes `event` (a submitted command's, with callbacks) on the watcher thread.
    pub fn watch(self: &Arc<Self>, event: Arc<dyn Completion>) {
        let mut s = lock(&self.state);
        s.pending.push_back(event);
        if s.running {
            let wake = s.idle;
            drop(s);
            if wake {
                self.more.notify_one();
            }
            return;
        }
        s.running = true;
        drop(s);
        let me = self.clone();
        let spawned = std::thread::Builder::new().name("cudacl-events".into()).spawn(move || me.run());
        if spawned.is_err() {
            // No thread to be had: complete the events here (the caller waits for the GPU, but
            // every callback still runs, after its command).
            let events: Vec<_> = {
                let mut s = lock(&self.state);
                s.running = false;
                s.pending.drain(..).collect()
            };
            for e in events {
                e.wait_complete();
            }
        }
    }

    fn run(&self) {
        loop {
            let next = {
                let mut s = lock(&self.state);
                loop {
                    if let Some(e) = s.pending.pop_front() {
                        break Some(e);
                    }
                    s.idle = true;
                    let (g, waited) = self.more.wait_timeout(s, IDLE).unwrap_or_else(|e| e.into_inner());
                    s = g;
                    s.idle = false;
                    if waited.timed_out() && s.pending.is_empty() {
                        s.running = false;
                        break None;
                    }
                }
            };
            let Some(event) = next else { return };
            // Waits for the command, sets the event's status and runs its callbacks.
            event.wait_complete();
        }
    }
}
