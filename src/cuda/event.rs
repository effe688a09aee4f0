//! CUDA events: completion markers recorded on streams.
use super::error::{check, CudaResult};
use super::stream::Stream;
use super::sys;

pub struct Event(pub sys::CUevent);

// SAFETY: events may be used from any thread.
unsafe impl Send for Event {}
// SAFETY: the driver API is thread-safe for an event's handle.
unsafe impl Sync for Event {}

impl Event {
    /// `timing`: needed for profiling timestamps; events without it are cheaper.
    pub fn new(timing: bool) -> CudaResult<Event> {
        let flags = if timing {
            sys::CUevent_flags::CU_EVENT_DEFAULT as u32
        } else {
            sys::CUevent_flags::CU_EVENT_DISABLE_TIMING as u32
        };
        let mut e = std::ptr::null_mut();
        // SAFETY: a local out-pointer.
        check(unsafe { sys::cuEventCreate(&mut e, flags) })?;
        Ok(Event(e))
    }

    pub fn record(&self, stream: &Stream) -> CudaResult<()> {
        // SAFETY: both handles are owned by their wrappers and alive.
        check(unsafe { sys::cuEventRecord(self.0, stream.0) })
    }

    pub fn synchronize(&self) -> CudaResult<()> {
        // SAFETY: an event this wrapper owns.
        check(unsafe { sys::cuEventSynchronize(self.0) })
    }

    /// Ok(true) when done, Ok(false) while pending, Err when the work failed.
    pub fn query(&self) -> CudaResult<bool> {
        // SAFETY: an event this wrapper owns.
        match unsafe { sys::cuEventQuery(self.0) } {
            sys::CUresult::CUDA_SUCCESS => Ok(true),
            sys::CUresult::CUDA_ERROR_NOT_READY => Ok(false),
            e => Err(super::CudaError(e)),
        }
    }

    /// Milliseconds from `start` to `self` (both timing events, both complete).
    pub fn elapsed_ms_since(&self, start: &Event) -> CudaResult<f32> {
        let mut ms = 0f32;
        // SAFETY: events owned by their wrappers; a local out-pointer.
        check(unsafe { sys::cuEventElapsedTime(&mut ms, start.0, self.0) })?;
        Ok(ms)
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        // SAFETY: the event is owned here and destroyed once.
        unsafe { sys::cuEventDestroy_v2(self.0) };
    }
}

/// Stream's wait on an event, kept here beside the event so that stream.rs need not import
/// event.rs (which records on streams).
impl Stream {
    /// Later work on this stream waits for `event` (recorded on any stream, any device).
    pub fn wait(&self, event: &Event) -> CudaResult<()> {
        // SAFETY: both handles are owned by their wrappers and alive.
        check(unsafe { sys::cuStreamWaitEvent(self.0, event.0, 0) })
    }
}
