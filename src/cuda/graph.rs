//! CUDA graphs made by stream capture: the replay of a finalized OpenCL command buffer is
//! captured once and launched with one driver call afterwards (core/command_buffer.rs).
//!
//! The entry points exist in CUDA 10.2 (cuStreamBeginCapture_v2 since 10.1, the rest since
//! 10.0) but are looked up through [`symbols::optional`]: a driver without them only loses
//! the fast path (command buffers then replay command by command).
use super::error::{check, CudaResult};
use super::stream::Stream;
use super::symbols;
use super::sys;
use std::ffi::c_char;
use std::sync::OnceLock;

type BeginCapture = unsafe extern "C" fn(sys::CUstream, i32) -> sys::CUresult;
type EndCapture = unsafe extern "C" fn(sys::CUstream, *mut sys::CUgraph) -> sys::CUresult;
type Instantiate = unsafe extern "C" fn(
    *mut sys::CUgraphExec,
    sys::CUgraph,
    *mut sys::CUgraphNode,
    *mut c_char,
    usize,
) -> sys::CUresult;
/// cuGraphInstantiateWithFlags (CUDA 11.4+; what cuda.h's cuGraphInstantiate means since 12.0).
type InstantiateWithFlags = unsafe extern "C" fn(*mut sys::CUgraphExec, sys::CUgraph, u64) -> sys::CUresult;
type Launch = unsafe extern "C" fn(sys::CUgraphExec, sys::CUstream) -> sys::CUresult;
type ExecDestroy = unsafe extern "C" fn(sys::CUgraphExec) -> sys::CUresult;
type GraphDestroy = unsafe extern "C" fn(sys::CUgraph) -> sys::CUresult;

/// CUstreamCaptureMode's CU_STREAM_CAPTURE_MODE_RELAXED (cuda.h, every version since 10.1):
/// other threads' calls are not checked against the capture.
const CAPTURE_MODE_RELAXED: i32 = 2;

struct Fns {
    begin: BeginCapture,
    end: EndCapture,
    instantiate: Instantiate,
    with_flags: Option<InstantiateWithFlags>,
    launch: Launch,
    exec_destroy: ExecDestroy,
    destroy: GraphDestroy,
}

fn fns() -> Option<&'static Fns> {
    static FNS: OnceLock<Option<Fns>> = OnceLock::new();
    FNS.get_or_init(|| {
        let [begin, end, inst_v2, inst, launch, exec_destroy, destroy] = symbols::GRAPH;
        // SAFETY: each name is looked up with its C signature from cuda.h (cuGraphInstantiate_v2
        // of CUDA 11.0 has the signature of CUDA 10's cuGraphInstantiate).
        unsafe {
            Some(Fns {
                begin: symbols::optional(&[begin])?,
                end: symbols::optional(&[end])?,
                instantiate: symbols::optional(&[inst_v2, inst])?,
                with_flags: symbols::optional(&[symbols::GRAPH_INSTANTIATE_WITH_FLAGS]),
                launch: symbols::optional(&[launch])?,
                exec_destroy: symbols::optional(&[exec_destroy])?,
                destroy: symbols::optional(&[destroy])?,
            })
        }
    })
    .as_ref()
}

/// True when the driver has every graph entry point used here.
pub fn available() -> bool {
    fns().is_some()
}

/// An instantiated graph (and the graph it was made from).
pub struct GraphExec {
    graph: sys::CUgraph,
    exec: sys::CUgraphExec,
}

// SAFETY: graph handles may be used from any thread; launches of one exec are serialised by
// its owner (a mutex in the command buffer).
unsafe impl Send for GraphExec {}
// SAFETY: as above.
unsafe impl Sync for GraphExec {}

impl GraphExec {
    /// Captures what `work` issues on `stream` (which must issue nothing else meanwhile) into a
    /// graph and instantiates it. The stream's context must be current. Work that fails, or
    /// issues a call that capture does not allow, gives an error and leaves the stream usable.
    pub fn capture<E>(
        stream: &Stream,
        work: impl FnOnce() -> Result<(), E>,
    ) -> CudaResult<Result<GraphExec, E>> {
        let f = fns().ok_or(super::CudaError(sys::CUresult::CUDA_ERROR_NOT_SUPPORTED))?;
        // SAFETY: a live stream of the current context.
        check(unsafe { (f.begin)(stream.0, CAPTURE_MODE_RELAXED) })?;
        let result = work();
        let mut graph: sys::CUgraph = std::ptr::null_mut();
        // SAFETY: the stream is capturing (begun above); `graph` is written on success.
        let ended = check(unsafe { (f.end)(stream.0, &mut graph) });
        if let Err(e) = result {
            if !graph.is_null() {
                // SAFETY: the graph just made, destroyed once.
                unsafe { (f.destroy)(graph) };
            }
            return Ok(Err(e));
        }
        ended?;
        let mut exec: sys::CUgraphExec = std::ptr::null_mut();
        let made = match f.with_flags {
            // SAFETY: a graph made above; no flags.
            Some(with_flags) => check(unsafe { with_flags(&mut exec, graph, 0) }),
            // SAFETY: a graph made above; no error node or log wanted.
            None => check(unsafe {
                (f.instantiate)(&mut exec, graph, std::ptr::null_mut(), std::ptr::null_mut(), 0)
            }),
        };
        if let Err(e) = made {
            // SAFETY: the graph made above, destroyed once.
            unsafe { (f.destroy)(graph) };
            return Err(e);
        }
        Ok(Ok(GraphExec { graph, exec }))
    }

    /// Issues the whole graph on `stream` (of the graph's context, current).
    pub fn launch(&self, stream: &Stream) -> CudaResult<()> {
        let f = fns().ok_or(super::CudaError(sys::CUresult::CUDA_ERROR_NOT_SUPPORTED))?;
        // SAFETY: a live exec and stream.
        check(unsafe { (f.launch)(self.exec, stream.0) })
    }
}

impl Drop for GraphExec {
    fn drop(&mut self) {
        if let Some(f) = fns() {
            // SAFETY: owned handles, destroyed once.
            unsafe {
                (f.exec_destroy)(self.exec);
                (f.destroy)(self.graph);
            }
        }
    }
}
