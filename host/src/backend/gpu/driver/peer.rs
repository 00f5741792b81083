//! Peer access between the devices of this process (NVLink or PCIe): a kernel on one
//! device then reads and writes another's memory directly, which the lifting split
//! across devices does with its tagged words (`ops::dixon_devices`). Enabled once per
//! ordered pair, for the contexts' own allocations and for the stream-ordered pools
//! (the buffers of this library come from the device's default pool).

use super::device::cuda;
use super::fault::FaultSite;
use super::Gpu;
use crate::error::Result;
use cudarc::driver::sys::{
    self, CUmemAccessDesc, CUmemAccess_flags, CUmemLocation, CUmemLocationType, CUresult,
};
use cudarc::driver::{result, CudaSlice, DevicePtr, DriverError};
use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::Mutex;
use std::time::Instant;

/// Pairs `(from, to)` tried so far, and whether `from` may access `to`'s memory.
static ENABLED: Mutex<BTreeMap<(usize, usize), bool>> = Mutex::new(BTreeMap::new());

/// Whether kernels on `from` may read and write `to`'s buffers: asks the driver whether
/// the pair allows it and, when it does, enables it (once per pair and process). `false`
/// when the devices cannot reach each other's memory, or for the same device.
pub(crate) fn enable(from: &Gpu, to: &Gpu) -> Result<bool> {
    if from.ordinal() == to.ordinal() {
        return Ok(false);
    }
    let key = (from.ordinal(), to.ordinal());
    let mut map = ENABLED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(&on) = map.get(&key) {
        return Ok(on);
    }
    let on = enable_pair(from, to)?;
    map.insert(key, on);
    Ok(on)
}

impl Gpu {
    /// Whether this device's kernels can read and write `other`'s memory (peer access,
    /// enabled on the first ask; `false` for the device itself).
    pub fn peer_access(&self, other: &Gpu) -> Result<bool> {
        enable(self, other)
    }
}

/// Whether every pair of `gpus` has peer access (enabled here both ways).
pub(crate) fn all_pairs(gpus: &[&Gpu]) -> Result<bool> {
    for (i, a) in gpus.iter().enumerate() {
        for (j, b) in gpus.iter().enumerate() {
            if i != j && !enable(a, b)? {
                return Ok(false);
            }
        }
    }
    Ok(true)
}

/// [`enable`] for a pair not tried before.
fn enable_pair(from: &Gpu, to: &Gpu) -> Result<bool> {
    let (src, dst) = (from.context(), to.context());
    let mut can = 0;
    // SAFETY: the out-pointer is valid; both devices are open.
    unsafe { sys::cuDeviceCanAccessPeer(&mut can, src.cu_device(), dst.cu_device()) }
        .result()
        .map_err(cuda)?;
    if can == 0 {
        return Ok(false);
    }
    src.bind_to_thread().map_err(cuda)?;
    // SAFETY: `from`'s context is current; `to`'s is a live context.
    match unsafe { sys::cuCtxEnablePeerAccess(dst.cu_ctx(), 0) } {
        CUresult::CUDA_SUCCESS | CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED => {}
        e => return Err(cuda(DriverError(e))),
    }
    // The pool `to` allocates from, opened to `from`.
    let mut pool: sys::CUmemoryPool = std::ptr::null_mut();
    let desc = CUmemAccessDesc {
        location: CUmemLocation {
            type_: CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE,
            id: from.ordinal() as i32,
        },
        flags: CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
    };
    // SAFETY: the out-pointer and the one access descriptor are valid for the calls.
    unsafe {
        sys::cuDeviceGetDefaultMemPool(&mut pool, dst.cu_device())
            .result()
            .map_err(cuda)?;
        sys::cuMemPoolSetAccess(pool, &desc, 1)
            .result()
            .map_err(cuda)?;
    }
    Ok(true)
}

/// The device address of `buf` (for a peer's kernel, through peer access).
pub(crate) fn address<T>(gpu: &Gpu, buf: &impl DevicePtr<T>) -> u64 {
    buf.device_ptr(gpu.stream()).0
}

/// Copies words `range` of `src` (on `from`) into `dst` (on `to`, from word `at`) on
/// `to`'s stream, device to device through peer access (or through the host where the
/// driver must). The caller has waited for the work that writes `src`.
pub(crate) fn copy_from(
    (to, dst, at): (&Gpu, &mut CudaSlice<u32>, usize),
    (from, src, range): (&Gpu, &CudaSlice<u32>, Range<usize>),
) -> Result<()> {
    if at + range.len() > dst.len() || range.end > src.len() {
        return Err(crate::error::Error::Internal(format!(
            "a peer copy of words {range:?} of {} to {at} of {}",
            src.len(),
            dst.len()
        )));
    }
    to.config().check_fault(FaultSite::Copy)?;
    let s = to.stream();
    let d = address(to, dst) + 4 * at as u64;
    let f = address(from, src) + 4 * range.start as u64;
    // SAFETY: both ranges lie within live buffers of their contexts (checked above).
    unsafe {
        result::memcpy_peer_async(
            to.context().cu_ctx(),
            d,
            from.context().cu_ctx(),
            f,
            4 * range.len(),
            s.cu_stream(),
        )
    }
    .map_err(cuda)
}

impl Gpu {
    /// Gigabytes a second of a device-to-device copy of `bytes` bytes from this device to
    /// `to` (peer access enabled first where the pair allows it), the median of `reps`
    /// copies after a warm-up, timed on the host around each (the copy is the only work).
    pub fn peer_bandwidth(&self, to: &Gpu, bytes: usize, reps: usize) -> Result<f64> {
        enable(self, to)?;
        enable(to, self)?;
        let words = (bytes / 4).max(1);
        let src = self.upload(&vec![1u32; words])?;
        let mut dst = to.alloc(words)?;
        self.sync()?;
        let mut times = Vec::with_capacity(reps.max(1));
        for r in 0..=reps.max(1) {
            let t = Instant::now();
            copy_from((to, &mut dst, 0), (self, &src, 0..words))?;
            to.sync()?;
            if r > 0 {
                times.push(t.elapsed().as_secs_f64());
            }
        }
        times.sort_by(|a, b| a.total_cmp(b));
        Ok(4.0 * words as f64 / times[times.len() / 2] / 1e9)
    }
}
