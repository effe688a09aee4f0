//! The threads that wait for events with callbacks, so that a callback runs when the GPU finishes
//! the command without anyone polling. They are kept and reused: OpenCV's transparent API sets a
//! completion callback on every kernel it launches, and a thread spawned for each command cost
//! the launching thread tens of microseconds per command (issue 12). At most `MAX_WAITERS` wait at
//! once (a waiter blocks in cuEventSynchronize, which spins a core by default); further events
//! wait in a FIFO for the next free waiter. That delays a callback at most until an earlier
//! watched command completes, and every watched command is already submitted to CUDA (commands
//! deferred behind a user event are watched only once submitted), so each completes without host
//! action. A waiter idle for `LINGER` exits.
use super::event::Event;
use crate::base::entry::lock;
use crate::base::handle::Cl;
use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

const MAX_WAITERS: usize = 4;
const LINGER: Duration = Duration::from_secs(2);

struct Pool {
    /// Events to wait for, oldest first.
    jobs: VecDeque<Arc<Cl<Event>>>,
    /// Waiter threads alive, and how many of them are idle (blocked on `WORK`).
    threads: usize,
    idle: usize,
}

static POOL: Mutex<Pool> = Mutex::new(Pool { jobs: VecDeque::new(), threads: 0, idle: 0 });
static WORK: Condvar = Condvar::new();

/// Has `event` waited for on a waiter thread (its callbacks run when it completes).
pub fn watch(event: Arc<Cl<Event>>) {
    let mut pool = lock(&POOL);
    pool.jobs.push_back(event);
    // Idle waiters take queued events; one more thread only if they are too few (otherwise a
    // busy waiter takes the event when its own completes).
    let notify = pool.idle > 0;
    let spawn = pool.jobs.len() > pool.idle && pool.threads < MAX_WAITERS;
    pool.threads += usize::from(spawn);
    drop(pool);
    if notify {
        WORK.notify_one();
    }
    if !spawn {
        return;
    }
    let spawned = std::thread::Builder::new().name("cudacl-events".into()).spawn(waiter);
    if spawned.is_err() {
        // No thread: the event stays queued for a later waiter; its callbacks also run when the
        // application waits for it or asks its status.
        lock(&POOL).threads -= 1;
    }
}

fn waiter() {
    let mut pool = lock(&POOL);
    loop {
        if let Some(event) = pool.jobs.pop_front() {
            drop(pool);
            event.wait();
            drop(event);
            pool = lock(&POOL);
            continue;
        }
        pool.idle += 1;
        let (guard, timeout) = WORK.wait_timeout(pool, LINGER).unwrap_or_else(|e| e.into_inner());
        pool = guard;
        pool.idle -= 1;
        if timeout.timed_out() && pool.jobs.is_empty() {
            pool.threads -= 1;
            return;
        }
    }
}
