//! Which copies of a memory object hold its latest data: the protocol buffers (`memory.rs`) and
//! images (`image.rs`) share.
//!
//! A memory object's data can live in several places at once: a host copy and one copy per
//! device of its context (device memory for a buffer, a CUDA array for an image). `valid` has bit
//! i set when device i's copy holds the latest data and `HOST` when the host copy does; `ALL`
//! marks an object nobody wrote yet, whose copies are all as good as each other. A command that
//! needs the data on its queue's device first brings it there (`Coherence::ensure`, which moves
//! it through the object's `Copies`); a command that changes it there makes that copy the only
//! valid one (`Coherence::written`). In a context of several devices every change records an
//! event on its queue's stream (`last`), and a copy issued on another device's stream waits for
//! it first. Devices whose copy is the host memory itself (zero-copy aliases on integrated GPUs)
//! are always exactly as valid as the host copy (`Copies::aliases`).
//!
//! All of it runs at submission time, under the object's lock, with the queue's CUDA context
//! current: the copies are issued on the queue's stream in queue order.
use super::queue::Queue;
use crate::base::entry::CLResult;
use crate::cuda::event::Event;
use std::sync::Arc;

/// Devices a context may have for buffer and image tracking (bit sets of devices, with `HOST`).
pub const MAX_DEVICES: usize = 62;

/// The host copy's bit in the valid set (bit i is device i of the context).
pub const HOST: u64 = 1 << 63;
/// An object nobody wrote yet: every copy is as good as any other.
pub const ALL: u64 = u64::MAX;

/// Device `dev`'s bit in the valid set.
pub fn bit(dev: usize) -> u64 {
    1u64 << dev
}

/// How one kind of memory object moves its data between its copies.
pub trait Copies {
    /// Whether there is a host copy.
    fn has_host(&self) -> bool;
    /// Whether device `j` has a copy.
    fn has_device(&self, j: usize) -> bool;
    /// The devices whose copy is the host memory itself.
    fn aliases(&self) -> u64 {
        0
    }
    /// Copies the whole host copy into the copy on q's device (already allocated), on q's stream.
    fn host_to_device(&self, q: &Queue) -> CLResult<()>;
    /// Copies the whole of device j's copy into the copy on q's device, on q's stream.
    fn device_to_device(&self, q: &Queue, j: usize) -> CLResult<()>;
}

/// The valid set of one memory object and, in multi-device contexts, the event after its last
/// change.
pub struct Coherence {
    valid: u64,
    last: Option<Arc<Event>>,
    multi: bool,
}

impl Coherence {
    /// `valid`: what holds the data at creation (HOST for data given by the application, else
    /// ALL); `multi`: the context has several devices.
    pub fn new(valid: u64, multi: bool) -> Coherence {
        Coherence { valid, last: None, multi }
    }

    pub fn valid(&self) -> u64 {
        self.valid
    }

    pub fn host_valid(&self) -> bool {
        self.valid & HOST != 0
    }

    pub fn valid_on(&self, dev: usize) -> bool {
        self.valid & bit(dev) != 0
    }

    /// Sets the valid copies; the devices in `aliases` follow the host copy.
    pub fn set(&mut self, v: u64, aliases: u64) {
        self.valid = if v & (HOST | aliases) != 0 { v | HOST | aliases } else { v };
    }

    /// A host copy was just made (a mirror for a map): it holds nothing valid yet, unless
    /// nobody ever wrote the object.
    pub fn new_host_copy(&mut self) {
        if self.valid != ALL {
            self.valid &= !HOST;
        }
    }

    /// A device whose copy holds the latest data.
    pub fn valid_device(&self, c: &impl Copies, devices: usize) -> Option<usize> {
        (0..devices).find(|&j| self.valid_on(j) && c.has_device(j))
    }

    /// Makes q's stream wait for the last change made on another device's stream.
    pub fn wait_last(&self, q: &Queue) -> CLResult<()> {
        match &self.last {
            Some(e) => Ok(q.stream.wait(e)?),
            None => Ok(()),
        }
    }

    /// Makes the copy on q's device (allocated by the caller) hold the latest data, copying from
    /// the host copy or from a device whose copy is valid.
    pub fn ensure(&mut self, q: &Queue, c: &impl Copies, devices: usize) -> CLResult<()> {
        if self.valid_on(q.dev) {
            return Ok(());
        }
        self.wait_last(q)?;
        if self.host_valid() {
            if c.has_host() {
                c.host_to_device(q)?;
            }
        } else if let Some(j) = self.valid_device(c, devices) {
            c.device_to_device(q, j)?;
        }
        self.set(self.valid | bit(q.dev), c.aliases());
        Ok(())
    }

    /// A command on q changed the copy on q's device: it is now the only valid one.
    pub fn written(&mut self, q: &Queue, aliases: u64) {
        self.set(bit(q.dev), aliases);
        self.note_last(q);
    }

    /// Multi-device contexts: records the event that later copies on other streams wait for.
    pub fn note_last(&mut self, q: &Queue) {
        if self.multi {
            if let Ok(e) = Event::new(false) {
                if e.record(&q.stream).is_ok() {
                    self.last = Some(Arc::new(e));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases_follow_the_host_copy() {
        let mut c = Coherence::new(HOST, false);
        c.set(bit(1), 0b100);
        assert_eq!(c.valid(), bit(1));
        c.set(HOST, 0b100);
        assert_eq!(c.valid(), HOST | 0b100);
        c.set(0b100, 0b100);
        assert_eq!(c.valid(), HOST | 0b100, "an alias valid means the host copy is");
    }

    #[test]
    fn a_new_host_copy_is_not_valid_unless_nothing_was_written() {
        let mut c = Coherence::new(ALL, false);
        c.new_host_copy();
        assert_eq!(c.valid(), ALL);
        c.set(bit(0) | HOST, 0);
        c.new_host_copy();
        assert_eq!(c.valid(), bit(0));
        assert!(c.valid_on(0) && !c.host_valid());
    }
}
