//! A CUDA GPU as an OpenCL device: its limits, read once from the CUDA device attributes, are
//! both what clGetDeviceInfo reports and what the launch path enforces.
use crate::base::entry::lock;
use crate::cl::*;
use crate::cuda::context::PrimaryContext;
use crate::cuda::driver::{attribute, device_name, pci_bus_id, total_memory};
use crate::cuda::sys::{self, CUdevice_attribute as A};
use crate::cuda::CudaError;
use std::sync::{Arc, Mutex};

/// Image size limits (CL_DEVICE_IMAGE*), from CUDA's surface limits: an image is a CUDA array
/// used through a surface object, so each limit is the smallest CUDA limit of every array shape
/// it applies to (never above what CUDA allows).
#[derive(Clone, Copy, Debug)]
pub struct ImageLimits {
    /// CL_DEVICE_IMAGE2D_MAX_WIDTH, also the width limit of 1-D images and image arrays.
    pub width_2d: usize,
    pub height_2d: usize,
    pub size_3d: [usize; 3],
    /// CL_DEVICE_IMAGE_MAX_ARRAY_SIZE.
    pub max_array: usize,
    /// CL_DEVICE_IMAGE_MAX_BUFFER_SIZE, in pixels (image1d_buffer: linear memory).
    pub max_buffer: usize,
}

impl ImageLimits {
    fn probe(cu: sys::CUdevice, max_alloc: u64) -> ImageLimits {
        let a = |x: A| at(cu, x).max(0) as usize;
        let width_2d = [
            A::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_WIDTH,
            A::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_WIDTH,
            A::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_WIDTH,
            A::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_WIDTH,
        ]
        .into_iter()
        .map(a)
        .min()
        .unwrap_or(0);
        ImageLimits {
            width_2d,
            height_2d: a(A::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_HEIGHT)
                .min(a(A::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_HEIGHT)),
            size_3d: [
                a(A::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_WIDTH),
                a(A::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_HEIGHT),
                a(A::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_DEPTH),
            ],
            max_array: a(A::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_LAYERS)
                .min(a(A::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_LAYERS)),
            // Pixels of up to 16 bytes in one allocation, capped at 2^27 pixels (2 GiB at 16
            // bytes). Not a CUDA limit (an image1d_buffer is linear memory, addressed with 64-bit
            // offsets): NVIDIA's OpenCL reports 2^28 on an H100 with driver 580 (clinfo,
            // 2026-11-23), so the CTS's random image1d_buffers are half as long on cudacl.
            max_buffer: ((max_alloc / 16) as usize).min(1 << 27),
        }
    }
}

pub struct Device {
    /// Position in the platform's device list.
    pub index: usize,
    pub cu: sys::CUdevice,
    pub name: String,
    pub driver_version: i32,
    pub compute_capability: (i32, i32),
    pub integrated: bool,
    /// Application memory can be page-locked in place and used by kernels (zero-copy).
    pub host_register: bool,
    /// Coarse-grain buffer SVM: unified addressing (one address space for host and devices),
    /// so a pointer the host uses can be handed to kernels unchanged.
    pub svm: bool,
    /// The host may touch managed memory while kernels run (not on Tegra nor before Pascal):
    /// SVM allocations are managed memory then, mapped page-locked memory otherwise.
    pub concurrent_managed: bool,
    pub compute_units: u32,
    pub clock_mhz: u32,
    pub max_work_group_size: usize,
    pub max_work_item_sizes: [usize; 3],
    pub max_grid: [u64; 3],
    pub global_mem: u64,
    pub max_alloc: u64,
    /// Shared memory a work-group may use (static plus dynamic), with the opt-in above 48 KiB.
    pub local_mem: u64,
    pub constant_mem: u64,
    pub l2_cache: u64,
    pub ecc: bool,
    pub warp_size: u32,
    pub pci_bus_id: String,
    pub image_limits: ImageLimits,
    /// The primary context, once retained; kept for the life of the process unless a kernel
    /// faults in it (see `primary_context`).
    primary: Mutex<Option<Arc<PrimaryContext>>>,
}
crate::cl_object!(Device, cl_device_id, CL_INVALID_DEVICE);

fn at(dev: sys::CUdevice, a: A) -> i32 {
    attribute(dev, a)
}

/// A switch for trying Jetson paths on another GPU: set and not "0".
/// `CUDACL_FORCE_INTEGRATED=1` makes every device integrated (zero-copy host-backed buffers, maps
/// that move no data); `CUDACL_NO_HOST_REGISTER=1` behaves as Tegra before Xavier, where
/// cuMemHostRegister is not supported.
fn env_flag(name: &str) -> bool {
    std::env::var_os(name).is_some_and(|v| !v.is_empty() && v != "0")
}

/// `CUDACL_TARGET=sm_NN[:X.Y]` (or `NN[:X.Y]`): the ptxgen target for every device instead of
/// its own, e.g. `sm_53:6.5` (Jetson Nano under JetPack 4.6) to JIT and run Jetson PTX on a newer
/// GPU. Without `:X.Y` the PTX ISA is what the driver allows. Ignored (with a message on stderr,
/// once) when malformed or not a target LLVM 19 emits.
pub fn forced_target(driver_version: i32) -> Option<ptxgen::Target> {
    static WARNED: std::sync::Once = std::sync::Once::new();
    let v = std::env::var("CUDACL_TARGET").ok().filter(|v| !v.is_empty())?;
    let parsed = parse_target(&v, driver_version);
    if let Err(e) = &parsed {
        WARNED.call_once(|| eprintln!("cudacl: CUDACL_TARGET={v} ignored: {e}"));
    }
    parsed.ok()
}

fn parse_target(v: &str, driver_version: i32) -> Result<ptxgen::Target, String> {
    let (sm, ptx) = match v.split_once(':') {
        Some((a, b)) => (a, Some(b)),
        None => (v, None),
    };
    let sm: u32 =
        sm.trim().trim_start_matches("sm_").parse().map_err(|_| "expected sm_NN[:X.Y]".to_string())?;
    let t = match ptx {
        Some(p) => {
            let (a, b) = p.trim().split_once('.').ok_or("expected a PTX ISA X.Y")?;
            let isa = (a.parse().map_err(|_| "bad PTX ISA")?, b.parse().map_err(|_| "bad PTX ISA")?);
            ptxgen::Target { sm, ptx_isa: isa }
        }
        None => ptxgen::Target::for_device((sm / 10) as i32, (sm % 10) as i32, driver_version),
    };
    ptxgen::target::validate(&t)?;
    Ok(t)
}

impl Device {
    pub fn probe(index: usize, cu: sys::CUdevice, driver_version: i32) -> Device {
        let global_mem = total_memory(cu);
        let optin = at(cu, A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
        let shared = at(cu, A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK).max(optin);
        // As NVIDIA's OpenCL does: a quarter of the memory, and at least the spec's 128 MiB.
        let max_alloc = (global_mem / 4).max(128 << 20).min(global_mem);
        Device {
            index,
            cu,
            name: device_name(cu),
            driver_version,
            compute_capability: (
                at(cu, A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
                at(cu, A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR),
            ),
            integrated: at(cu, A::CU_DEVICE_ATTRIBUTE_INTEGRATED) != 0 || env_flag("CUDACL_FORCE_INTEGRATED"),
            host_register: at(cu, A::CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED) != 0
                && at(cu, A::CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY) != 0
                && !env_flag("CUDACL_NO_HOST_REGISTER"),
            svm: at(cu, A::CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING) != 0
                && at(cu, A::CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY) != 0,
            concurrent_managed: at(cu, A::CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS) != 0
                && at(cu, A::CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY) != 0
                && !env_flag("CUDACL_FORCE_INTEGRATED"),
            compute_units: at(cu, A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT) as u32,
            clock_mhz: (at(cu, A::CU_DEVICE_ATTRIBUTE_CLOCK_RATE) / 1000) as u32,
            max_work_group_size: at(cu, A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK) as usize,
            max_work_item_sizes: [
                at(cu, A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X) as usize,
                at(cu, A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y) as usize,
                at(cu, A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z) as usize,
            ],
            max_grid: [
                at(cu, A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X) as u32 as u64,
                at(cu, A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y) as u32 as u64,
                at(cu, A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z) as u32 as u64,
            ],
            global_mem,
            max_alloc,
            local_mem: shared as u64,
            constant_mem: at(cu, A::CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY) as u64,
            l2_cache: at(cu, A::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE) as u64,
            ecc: at(cu, A::CU_DEVICE_ATTRIBUTE_ECC_ENABLED) != 0,
            warp_size: at(cu, A::CU_DEVICE_ATTRIBUTE_WARP_SIZE).max(1) as u32,
            pci_bus_id: pci_bus_id(cu),
            image_limits: ImageLimits::probe(cu, max_alloc),
            primary: Mutex::new(None),
        }
    }

    /// The device's primary CUDA context, retained on first use (not at clGetDeviceIDs, so that
    /// clinfo and device queries never pay for CUDA context creation).
    ///
    /// After a kernel fault the context is unusable (CUDA's errors are sticky). The next caller
    /// replaces it: once no OpenCL object uses it any more, by dropping it (which makes the
    /// driver reset the primary context) and retaining a fresh one; while old objects still use
    /// it (applications often leak a few), by a context of cudacl's own.
    pub fn primary_context(&self) -> Result<Arc<PrimaryContext>, CudaError> {
        let mut slot = lock(&self.primary);
        let fresh = match slot.take() {
            Some(p) if !p.faulted() => {
                *slot = Some(p.clone());
                return Ok(p);
            }
            Some(old) if Arc::strong_count(&old) == 1 => {
                drop(old);
                PrimaryContext::retain(self.cu)?
            }
            Some(_) => PrimaryContext::create_private(self.cu)?,
            None => PrimaryContext::retain(self.cu)?,
        };
        let p = Arc::new(fresh);
        *slot = Some(p.clone());
        Ok(p)
    }

    /// The largest kernel parameter buffer the driver takes for this device: 32764 bytes from
    /// CUDA 12.1 on for Volta and later with PTX ISA 8.1 or later (what ptxgen then emits),
    /// 4096 before.
    pub fn max_param_buffer(&self) -> usize {
        let t = self.target();
        if self.driver_version >= 12010 && self.compute_capability.0 >= 7 && t.ptx_isa >= (8, 1) {
            32764
        } else {
            4096
        }
    }

    /// The ptxgen target for this device (`CUDACL_TARGET` overrides it: see [`forced_target`]).
    pub fn target(&self) -> ptxgen::Target {
        forced_target(self.driver_version).unwrap_or_else(|| {
            ptxgen::Target::for_device(
                self.compute_capability.0,
                self.compute_capability.1,
                self.driver_version,
            )
        })
    }

    pub fn driver_version_string(&self) -> String {
        format!("{}.{}", self.driver_version / 1000, (self.driver_version % 1000) / 10)
    }
}

#[cfg(test)]
mod env_tests {
    use super::parse_target;
    use ptxgen::Target;

    #[test]
    fn cudacl_target_forms() {
        assert_eq!(parse_target("sm_53:6.5", 13000), Ok(Target { sm: 53, ptx_isa: (6, 5) }));
        assert_eq!(parse_target("87:8.2", 13000), Ok(Target { sm: 87, ptx_isa: (8, 2) }));
        assert_eq!(parse_target("sm_72", 11040), Ok(Target { sm: 72, ptx_isa: (7, 4) }));
        assert!(parse_target("sm_53:", 13000).is_err());
        assert!(parse_target("sm_54:6.5", 13000).is_err());
        assert!(parse_target("sm_87:6.5", 13000).is_err()); // sm_87 needs PTX 7.4
        assert!(parse_target("nano", 13000).is_err());
    }
}
