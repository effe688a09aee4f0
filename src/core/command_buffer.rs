//! cl_khr_command_buffer: commands recorded once and replayed on a queue.
//!
//! Each recorded command is checked when it is recorded (the same checks as its clEnqueue*
//! twin, kernel arguments captured then) and kept as the work its enqueue would submit. A
//! replay (clEnqueueCommandBufferKHR) is one command on the queue whose work issues the
//! recorded works in order on the queue's stream, through the same paths as ordinary enqueues:
//! the stream is in order, so every sync point and barrier of the buffer holds.
//!
//! From the second replay on, when every recorded command is a kernel launch, copy or fill of
//! buffers that need no host-side step (a single-device context, each buffer resident on the
//! device and already up to date there: `Mem::graph_address`), the replay is captured once
//! into a CUDA graph on a private stream and each later replay is one cuGraphLaunch. The graph
//! is kept while the buffers' device addresses stay the same; a replay whose buffers need a
//! migration or a mark (after a map, a host write...) is issued command by command instead.
use super::context::Context;
use super::memory::Mem;
use super::queue::Queue;
use crate::base::entry::{lock, CLResult};
use crate::base::handle::Cl;
use crate::cl::*;
use crate::cuda::graph::GraphExec;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// The values of cl_khr_command_buffer 0.9.8 (OpenCL-Headers' cl_ext.h, beta extensions;
/// the Debian headers cudacl builds with carry an older provisional version).
#[allow(dead_code)]
pub mod khr {
    use crate::cl::{cl_int, cl_uint};
    pub const EXTENSION_VERSION: (u32, u32, u32) = (0, 9, 8);
    pub const CL_DEVICE_COMMAND_BUFFER_CAPABILITIES_KHR: cl_uint = 0x12A9;
    pub const CL_DEVICE_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES_KHR: cl_uint = 0x129A;
    pub const CL_DEVICE_COMMAND_BUFFER_REQUIRED_QUEUE_PROPERTIES_KHR: cl_uint = 0x12AA;
    pub const CL_COMMAND_BUFFER_CAPABILITY_KERNEL_PRINTF_KHR: u64 = 1 << 0;
    pub const CL_COMMAND_BUFFER_CAPABILITY_DEVICE_SIDE_ENQUEUE_KHR: u64 = 1 << 1;
    pub const CL_COMMAND_BUFFER_FLAGS_KHR: u64 = 0x1293;
    /// cl_command_buffer_flags_khr bits of the layered extensions (simultaneous use and
    /// mutable dispatch): valid values, not supported here.
    pub const CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR: u64 = 1 << 0;
    pub const CL_COMMAND_BUFFER_MUTABLE_KHR: u64 = 1 << 1;
    pub const CL_COMMAND_BUFFER_DEVICE_SIDE_SYNC_KHR: u64 = 1 << 2;
    pub const CL_INVALID_COMMAND_BUFFER_KHR: cl_int = -1138;
    pub const CL_INVALID_SYNC_POINT_WAIT_LIST_KHR: cl_int = -1139;
    pub const CL_INCOMPATIBLE_COMMAND_QUEUE_KHR: cl_int = -1140;
    pub const CL_COMMAND_BUFFER_QUEUES_KHR: cl_uint = 0x1294;
    pub const CL_COMMAND_BUFFER_NUM_QUEUES_KHR: cl_uint = 0x1295;
    pub const CL_COMMAND_BUFFER_REFERENCE_COUNT_KHR: cl_uint = 0x1296;
    pub const CL_COMMAND_BUFFER_STATE_KHR: cl_uint = 0x1297;
    pub const CL_COMMAND_BUFFER_PROPERTIES_ARRAY_KHR: cl_uint = 0x1298;
    pub const CL_COMMAND_BUFFER_CONTEXT_KHR: cl_uint = 0x1299;
    pub const CL_COMMAND_BUFFER_STATE_RECORDING_KHR: cl_uint = 0;
    pub const CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR: cl_uint = 1;
    /// Mutable dispatch 0.9.5: finalized, but a mutable dispatch's arguments are not all set yet.
    pub const CL_COMMAND_BUFFER_STATE_FINALIZED_KHR: cl_uint = 2;
    pub const CL_COMMAND_COMMAND_BUFFER_KHR: cl_uint = 0x12A8;

    /// cl_khr_command_buffer_mutable_dispatch 0.9.5 (the same cl_ext.h).
    pub const MUTABLE_DISPATCH_VERSION: (u32, u32, u32) = (0, 9, 5);
    pub const CL_INVALID_MUTABLE_COMMAND_KHR: cl_int = -1141;
    pub const CL_DEVICE_MUTABLE_DISPATCH_CAPABILITIES_KHR: cl_uint = 0x12B0;
    pub const CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR: u64 = 0x12B1;
    pub const CL_MUTABLE_DISPATCH_GLOBAL_OFFSET_KHR: u64 = 1 << 0;
    pub const CL_MUTABLE_DISPATCH_GLOBAL_SIZE_KHR: u64 = 1 << 1;
    pub const CL_MUTABLE_DISPATCH_LOCAL_SIZE_KHR: u64 = 1 << 2;
    pub const CL_MUTABLE_DISPATCH_ARGUMENTS_KHR: u64 = 1 << 3;
    pub const CL_MUTABLE_DISPATCH_EXEC_INFO_KHR: u64 = 1 << 4;
    pub const CL_MUTABLE_COMMAND_COMMAND_QUEUE_KHR: cl_uint = 0x12A0;
    pub const CL_MUTABLE_COMMAND_COMMAND_BUFFER_KHR: cl_uint = 0x12A1;
    pub const CL_MUTABLE_COMMAND_COMMAND_TYPE_KHR: cl_uint = 0x12AD;
    pub const CL_MUTABLE_COMMAND_PROPERTIES_ARRAY_KHR: cl_uint = 0x12A2;
    pub const CL_MUTABLE_DISPATCH_KERNEL_KHR: cl_uint = 0x12A3;
    pub const CL_MUTABLE_DISPATCH_DIMENSIONS_KHR: cl_uint = 0x12A4;
    pub const CL_MUTABLE_DISPATCH_GLOBAL_WORK_OFFSET_KHR: cl_uint = 0x12A5;
    pub const CL_MUTABLE_DISPATCH_GLOBAL_WORK_SIZE_KHR: cl_uint = 0x12A6;
    pub const CL_MUTABLE_DISPATCH_LOCAL_WORK_SIZE_KHR: cl_uint = 0x12A7;
    pub const CL_STRUCTURE_TYPE_MUTABLE_DISPATCH_CONFIG_KHR: cl_uint = 0;
    pub const CL_COMMAND_BUFFER_MUTABLE_DISPATCH_ASSERTS_KHR: u64 = 0x12B7;
    pub const CL_MUTABLE_DISPATCH_ASSERTS_KHR: u64 = 0x12B8;
    pub const CL_MUTABLE_DISPATCH_ASSERT_NO_ADDITIONAL_WORK_GROUPS_KHR: u64 = 1 << 0;
}

/// What a recorded command does at each replay: issue its work on the queue's stream.
pub type ReplayWork = Box<dyn Fn(&Queue) -> CLResult<()> + Send + Sync>;
/// A recorded command's work, shared by the recorded lists an update copies.
pub type SharedWork = Arc<dyn Fn(&Queue) -> CLResult<()> + Send + Sync>;

/// One recorded command.
#[derive(Clone)]
pub struct Recorded {
    pub work: SharedWork,
    /// False for a mutable dispatch recorded before all its arguments were set: the buffer
    /// cannot be enqueued until an update sets them.
    pub ready: bool,
    /// The buffers it uses, and whether it may write each.
    pub mems: Vec<(Arc<Cl<Mem>>, bool)>,
    /// Its work is device-side only when its buffers are `graph_address`-ready (launches,
    /// device copies, fills with patterns of 1, 2 or 4 bytes); false: never captured.
    pub graphable: bool,
}

struct Recording {
    commands: Vec<Recorded>,
    /// Sync points handed out so far (sync points are 1, 2, ...: one per command).
    sync_points: u32,
    /// Set by clFinalizeCommandBufferKHR: the commands, frozen.
    finalized: Option<Arc<Vec<Recorded>>>,
}

#[derive(Default)]
struct GraphState {
    /// The graph and the buffer addresses it was captured with.
    exec: Option<(GraphExec, Vec<u64>)>,
    /// The private queue captures run on (no other thread issues work on its stream).
    capture_queue: Option<Queue>,
    /// Capture failed once: replay command by command from then on.
    failed: bool,
}

pub struct CommandBuffer {
    pub context: Arc<Cl<Context>>,
    /// The one queue of the buffer (no cl_khr_command_buffer_multi_device).
    pub queue: Arc<Cl<Queue>>,
    /// CL_COMMAND_BUFFER_PROPERTIES_ARRAY_KHR: the list given, with its 0 (empty for NULL).
    pub properties: Vec<cl_ulong>,
    /// Created with CL_COMMAND_BUFFER_MUTABLE_KHR (cl_khr_command_buffer_mutable_dispatch).
    pub mutable: bool,
    /// The mutable-command handles of its dispatches, released with the buffer.
    pub mutable_commands: Mutex<Vec<Arc<Cl<MutableCommand>>>>,
    recording: Mutex<Recording>,
    graph: Mutex<GraphState>,
    replays: AtomicU64,
}
crate::cl_object!(CommandBuffer, cl_command_buffer_khr, khr::CL_INVALID_COMMAND_BUFFER_KHR);

impl CommandBuffer {
    pub fn new(queue: Arc<Cl<Queue>>, properties: Vec<cl_ulong>, mutable: bool) -> CommandBuffer {
        CommandBuffer {
            context: queue.context.clone(),
            queue,
            properties,
            mutable,
            mutable_commands: Mutex::new(Vec::new()),
            recording: Mutex::new(Recording { commands: Vec::new(), sync_points: 0, finalized: None }),
            graph: Mutex::default(),
            replays: AtomicU64::new(0),
        }
    }

    pub fn is_finalized(&self) -> bool {
        lock(&self.recording).finalized.is_some()
    }

    /// Checks a recording call's sync-point wait list against the sync points handed out.
    pub fn check_sync_points(&self, waits: &[u32]) -> CLResult<()> {
        let r = lock(&self.recording);
        if r.finalized.is_some() {
            return Err(CL_INVALID_OPERATION);
        }
        if waits.iter().any(|&w| w == 0 || w > r.sync_points) {
            return Err(khr::CL_INVALID_SYNC_POINT_WAIT_LIST_KHR);
        }
        Ok(())
    }

    /// Appends a command (None: a barrier, which orders nothing more than the in-order replay
    /// does). Returns its sync point. CL_INVALID_OPERATION once finalized.
    pub fn record(&self, command: Option<Recorded>) -> CLResult<u32> {
        self.record_at(command).map(|(sp, _)| sp)
    }

    /// `record`, also returning the command's index among the recorded commands.
    pub fn record_at(&self, command: Option<Recorded>) -> CLResult<(u32, usize)> {
        let mut r = lock(&self.recording);
        if r.finalized.is_some() {
            return Err(CL_INVALID_OPERATION);
        }
        let index = r.commands.len();
        if let Some(c) = command {
            r.commands.push(c);
        }
        r.sync_points += 1;
        Ok((r.sync_points, index))
    }

    /// clUpdateMutableCommandsKHR's last step: the commands at the given indices replaced, for
    /// later enqueues (replays already enqueued keep the commands they took). The graph made
    /// from the old commands is dropped; the next replay captures a new one.
    pub fn replace(&self, updates: Vec<(usize, Recorded)>) -> CLResult<()> {
        {
            let mut r = lock(&self.recording);
            let old = r.finalized.as_ref().ok_or(CL_INVALID_OPERATION)?;
            let mut commands: Vec<Recorded> = old.as_ref().clone();
            for (i, rec) in updates {
                *commands.get_mut(i).ok_or(CL_INVALID_OPERATION)? = rec;
            }
            r.finalized = Some(Arc::new(commands));
        }
        lock(&self.graph).exec = None;
        Ok(())
    }

    /// clFinalizeCommandBufferKHR.
    pub fn finalize(&self) -> CLResult<()> {
        let mut r = lock(&self.recording);
        if r.finalized.is_some() {
            return Err(CL_INVALID_OPERATION);
        }
        let commands = std::mem::take(&mut r.commands);
        r.finalized = Some(Arc::new(commands));
        Ok(())
    }

    /// The finalized commands (None while recording).
    pub fn commands(&self) -> Option<Arc<Vec<Recorded>>> {
        lock(&self.recording).finalized.clone()
    }

    /// The work of one replay on `q` (a queue compatible with the buffer's: same device and
    /// context). Runs at submission, with q's CUDA context current.
    pub fn replay(&self, q: &Queue, commands: &[Recorded]) -> CLResult<()> {
        let n = self.replays.fetch_add(1, Ordering::Relaxed);
        if n >= 1 && !graphs_disabled() && crate::cuda::graph::available() {
            if let Some(done) = self.replay_graph(q, commands) {
                return done;
            }
        }
        commands.iter().try_for_each(|c| (c.work)(q))
    }

    /// The replay as one graph launch, when it is safe (see the module's notes); None when the
    /// commands must be issued one by one.
    fn replay_graph(&self, q: &Queue, commands: &[Recorded]) -> Option<CLResult<()>> {
        if self.context.devices.len() != 1 || commands.is_empty() {
            return None;
        }
        let mut addrs = Vec::new();
        for c in commands {
            if !c.graphable {
                return None;
            }
            for (m, writes) in &c.mems {
                addrs.push(m.graph_address(*writes)?);
            }
        }
        let mut g = lock(&self.graph);
        if g.failed {
            return None;
        }
        if g.exec.as_ref().is_none_or(|(_, a)| *a != addrs) {
            g.exec = None;
            if g.capture_queue.is_none() {
                match Queue::new(q.context.clone(), q.device.clone(), 0) {
                    Ok(cq) => g.capture_queue = Some(cq),
                    Err(_) => {
                        g.failed = true;
                        return None;
                    }
                }
                // Queue::new made the context current again: nothing else changed.
            }
            let cq = g.capture_queue.as_ref()?;
            let captured = GraphExec::capture(&cq.stream, || commands.iter().try_for_each(|c| (c.work)(cq)));
            let why = match captured {
                Ok(Ok(exec)) => {
                    g.exec = Some((exec, addrs));
                    None
                }
                Ok(Err(code)) => Some(format!("a command failed while captured (OpenCL error {code})")),
                Err(e) => Some(format!("CUDA error {}", e.0 as i32)),
            };
            if let Some(why) = why {
                g.failed = true;
                // Not under the lock: the application's callback may call cudacl.
                drop(g);
                self.context.notify(&format!(
                    "cudacl: a command buffer could not be captured into a CUDA graph ({why}); \
                     it replays command by command"
                ));
                return None;
            }
        }
        let (exec, _) = g.exec.as_ref()?;
        Some(exec.launch(&q.stream).map_err(|_| CL_OUT_OF_RESOURCES))
    }
}

/// CUDACL_COMMAND_BUFFER_GRAPHS=0: replay command by command always (for comparisons).
fn graphs_disabled() -> bool {
    static OFF: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *OFF.get_or_init(|| std::env::var("CUDACL_COMMAND_BUFFER_GRAPHS").is_ok_and(|v| v == "0"))
}

/// A mutable dispatch's launch configuration (cl_khr_command_buffer_mutable_dispatch).
#[derive(Clone)]
pub struct Dispatch {
    pub work_dim: u32,
    pub offset: Vec<usize>,
    pub global: Vec<usize>,
    /// None: the local size is chosen by cudacl (NULL local_work_size).
    pub local: Option<Vec<usize>>,
}

/// A cl_mutable_command_khr: a kernel command of a command buffer that updates may change.
pub struct MutableCommand {
    /// Weak: the buffer holds its mutable commands.
    pub buffer: std::sync::Weak<Cl<CommandBuffer>>,
    /// Its index among the buffer's commands.
    pub index: usize,
    /// The kernel given when it was recorded (CL_MUTABLE_DISPATCH_KERNEL_KHR).
    pub kernel: Arc<Cl<super::kernel::Kernel>>,
    /// CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR.
    pub fields: u64,
    /// CL_MUTABLE_COMMAND_PROPERTIES_ARRAY_KHR: the list given, with its 0 (empty for NULL).
    pub properties: Vec<cl_ulong>,
    /// The arguments (a private clone of the kernel, changed by updates) and the geometry.
    pub state: Mutex<(Arc<Cl<super::kernel::Kernel>>, Dispatch)>,
}
crate::cl_object!(MutableCommand, cl_mutable_command_khr, khr::CL_INVALID_MUTABLE_COMMAND_KHR);
