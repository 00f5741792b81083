//! The GPU backend: the Rust kernels of `device/` (embedded as PTX) driven through
//! `cudarc`'s driver API, loaded at run time so that everything builds without CUDA.
//!
//! One context, stream and module per process ([`Gpu::get`]). Every CUDA error becomes
//! an [`Error`]; inputs larger than the device memory budget run in chunks of numbers.

use super::Op;
use crate::error::{Error, Result};
use crate::timing::Laps;
use cudarc::driver::sys::{CUevent_flags, CUfunction_attribute, CUresult};
use cudarc::driver::{
    CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, DriverError, LaunchConfig,
    PushKernelArg,
};
use rns_core::linalg::Elimination;
use rns_core::poly::BiShape;
use rns_core::Modulus;
use std::borrow::Cow;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

/// When set, every output buffer is filled with `0xFFFF_FFFF` before a kernel writes it.
static POISON: AtomicBool = AtomicBool::new(false);
/// A memory budget override in bytes (0: none).
static MEM_LIMIT: AtomicUsize = AtomicUsize::new(0);
/// A cap on the dynamic shared memory of the interpolation kernel (`usize::MAX`: none).
static SHARED_LIMIT: AtomicUsize = AtomicUsize::new(usize::MAX);

/// Integers packed as for [`Gpu::reduce_words`]: word-major words, sign flags, and the
/// number of words per integer.
pub type Packed<'a> = (&'a [u32], &'a [u32], usize);

/// The kernels, compiled from `device/` by `build.rs`.
pub const PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/rns_device.ptx"));

/// Channel lanes (block y) of the equality and mixed-radix kernels; numbers per block is 32.
const LANES_Y: u32 = 8;

/// Which reduction the equality kernel uses across a number's channel lanes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EqualKernel {
    /// The seed's shared-memory AND tree.
    SharedTree,
    /// Warp ballots, then an AND of one word per warp through shared memory.
    WarpVote,
}

/// An open CUDA device with the rns kernels loaded.
#[derive(Debug)]
pub struct Gpu {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    module: Arc<CudaModule>,
    name: String,
    smem_optin: usize,
}

fn cuda(e: DriverError) -> Error {
    if e.0 == CUresult::CUDA_ERROR_OUT_OF_MEMORY {
        Error::GpuOutOfMemory(format!("{e:?}"))
    } else {
        Error::Gpu(format!("{e:?}"))
    }
}

/// Flattens moduli into the `#[repr(C)]` layout of `rns_core::Modulus` (24 bytes:
/// `m, two32, two32_shoup, padding, invk`) as 32-bit words for the device.
pub fn moduli_words(moduli: &[Modulus]) -> Vec<u32> {
    const _: () = assert!(std::mem::size_of::<Modulus>() == 24);
    let mut w = Vec::with_capacity(moduli.len() * 6);
    for m in moduli {
        let bits = m.invk.to_bits();
        w.extend_from_slice(&[
            m.m,
            m.two32,
            m.two32_shoup,
            0,
            bits as u32,
            (bits >> 32) as u32,
        ]);
    }
    w
}

/// Channel-major columns `range` of `src` (`channels × len`) as a `channels × range.len()`
/// buffer (borrowed, with no copy, when the range is everything).
fn gather<'a>(src: &'a [u32], len: usize, range: &Range<usize>) -> Cow<'a, [u32]> {
    if range.len() == len {
        return Cow::Borrowed(src);
    }
    let channels = src.len() / len;
    let mut out = Vec::with_capacity(channels * range.len());
    for c in 0..channels {
        out.extend_from_slice(&src[c * len + range.start..c * len + range.end]);
    }
    Cow::Owned(out)
}

/// Writes a `channels × range.len()` chunk into columns `range` of `dst` (`channels × len`
/// words once filled): the chunk becomes `dst` when it is everything, with no copy.
fn scatter(dst: &mut Vec<u32>, len: usize, range: &Range<usize>, part: Vec<u32>) {
    let w = range.len();
    if w == len {
        *dst = part;
        return;
    }
    if dst.is_empty() {
        dst.resize(part.len() / w * len, 0);
    }
    for (c, col) in part.chunks(w).enumerate() {
        dst[c * len + range.start..c * len + range.end].copy_from_slice(col);
    }
}

impl Gpu {
    /// The process's GPU, opened on first use; [`Error::NoGpu`] when no CUDA driver or
    /// device is usable (the reason is kept and returned on every call).
    pub fn get() -> Result<Arc<Gpu>> {
        static GPU: OnceLock<std::result::Result<Arc<Gpu>, Error>> = OnceLock::new();
        GPU.get_or_init(|| {
            // cudarc can panic inside a broken driver installation: keep that an error.
            std::panic::catch_unwind(Gpu::open)
                .unwrap_or_else(|_| {
                    Err(Error::NoGpu("the CUDA driver failed to initialise".into()))
                })
                .map(Arc::new)
        })
        .clone()
    }

    fn open() -> Result<Gpu> {
        // SAFETY: only probes whether the driver library can be loaded.
        if !unsafe { cudarc::driver::sys::is_culib_present() } {
            return Err(Error::NoGpu(
                "libcuda (the NVIDIA driver) was not found".into(),
            ));
        }
        let no_gpu = |e: DriverError| Error::NoGpu(format!("{e:?}"));
        let count = CudaContext::device_count().map_err(no_gpu)?;
        if count < 1 {
            return Err(Error::NoGpu("the driver reports no CUDA device".into()));
        }
        let ctx = CudaContext::new(0).map_err(no_gpu)?;
        let name = ctx.name().map_err(cuda)?;
        let smem_optin = ctx
            .attribute(cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
            .map_err(cuda)? as usize;
        let module = ctx
            .load_module(cudarc::nvrtc::Ptx::from_src(PTX))
            .map_err(|e| Error::Gpu(format!("loading the rns kernels (PTX) failed: {e:?}")))?;
        // Raise the mixed-radix and interpolation kernels' dynamic shared memory limit
        // once, to the device's maximum: setting it per launch would race between threads.
        for kernel in ["rns_mrc_digits", "rns_interpolate"] {
            module
                .load_function(kernel)
                .and_then(|f| {
                    f.set_attribute(
                        CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                        smem_optin as i32,
                    )
                })
                .map_err(cuda)?;
        }
        let stream = ctx.default_stream();
        Ok(Gpu {
            ctx,
            stream,
            module,
            name,
            smem_optin,
        })
    }

    /// The device's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The stream every operation runs on.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// A kernel of the module by name.
    pub fn function(&self, name: &str) -> Result<CudaFunction> {
        self.module.load_function(name).map_err(cuda)
    }

    /// Fill every output buffer with `0xFFFF_FFFF` (never a residue, digit or flag the
    /// kernels write) before use, so that tests see any element a kernel missed.
    pub fn poison_outputs(on: bool) {
        POISON.store(on, Ordering::Relaxed);
    }

    /// Caps the device memory one operation may use (`None`: 70% of free memory);
    /// a small cap forces the chunked paths.
    pub fn set_memory_limit(bytes: Option<usize>) {
        MEM_LIMIT.store(bytes.unwrap_or(0), Ordering::Relaxed);
    }

    /// Caps the shared memory the interpolation kernel may use (`None`: the device's
    /// maximum); `Some(0)` forces its global-memory scratch path, for tests.
    pub fn set_shared_memory_limit(bytes: Option<usize>) {
        SHARED_LIMIT.store(bytes.unwrap_or(usize::MAX), Ordering::Relaxed);
    }

    /// Bytes of dynamic shared memory a block of the interpolation kernel may use.
    fn interpolation_smem(&self) -> usize {
        self.smem_optin.min(SHARED_LIMIT.load(Ordering::Relaxed))
    }

    /// Bytes one operation may place on the device: 70% of the free memory, or the
    /// cap of [`Gpu::set_memory_limit`], or `RNS_GPU_MEM_LIMIT` bytes when that is set.
    pub fn budget(&self) -> Result<usize> {
        let cap = MEM_LIMIT.load(Ordering::Relaxed);
        if cap > 0 {
            return Ok(cap);
        }
        if let Some(limit) = std::env::var("RNS_GPU_MEM_LIMIT")
            .ok()
            .and_then(|s| s.parse().ok())
        {
            return Ok(limit);
        }
        let (free, _) = self.ctx.mem_get_info().map_err(cuda)?;
        Ok(free / 10 * 7)
    }

    /// Splits `len` numbers into chunks of at most `budget / bytes_per_number` numbers.
    fn chunks(&self, len: usize, bytes_per_number: usize) -> Result<Vec<Range<usize>>> {
        let per = (self.budget()? / bytes_per_number.max(1)).max(1);
        Ok((0..len.max(1))
            .step_by(per)
            .map(|s| s..(s + per).min(len))
            .collect())
    }

    /// Copies host words to a new device buffer.
    pub fn upload(&self, x: &[u32]) -> Result<CudaSlice<u32>> {
        if x.is_empty() {
            return self.stream.alloc_zeros(1).map_err(cuda);
        }
        self.stream.clone_htod(x).map_err(cuda)
    }

    /// A device buffer of `n` words (content unspecified: every kernel writes all of its output).
    pub fn alloc(&self, n: usize) -> Result<CudaSlice<u32>> {
        // SAFETY: u32 has no invalid bit patterns; callers overwrite before reading.
        let mut buf = unsafe { self.stream.alloc::<u32>(n.max(1)) }.map_err(cuda)?;
        if POISON.load(Ordering::Relaxed) {
            use cudarc::driver::DevicePtrMut;
            let (ptr, _sync) = buf.device_ptr_mut(&self.stream);
            // SAFETY: ptr addresses the 4·n bytes just allocated.
            unsafe {
                cudarc::driver::result::memset_d8_async(
                    ptr,
                    0xFF,
                    4 * n.max(1),
                    self.stream.cu_stream(),
                )
            }
            .map_err(cuda)?;
        }
        Ok(buf)
    }

    /// Copies a device buffer back to the host.
    pub fn download(&self, x: &CudaSlice<u32>, n: usize) -> Result<Vec<u32>> {
        let mut v = self.stream.clone_dtoh(x).map_err(cuda)?;
        v.truncate(n);
        Ok(v)
    }

    /// Waits for the stream.
    pub fn sync(&self) -> Result<()> {
        self.stream.synchronize().map_err(cuda)
    }

    /// Times `f` on the stream with device events, in milliseconds.
    pub fn time_ms(&self, f: impl FnOnce() -> Result<()>) -> Result<f64> {
        let flags = Some(CUevent_flags::CU_EVENT_DEFAULT);
        let start = self.stream.record_event(flags).map_err(cuda)?;
        f()?;
        let end = self.stream.record_event(flags).map_err(cuda)?;
        end.synchronize().map_err(cuda)?;
        Ok(start.elapsed_ms(&end).map_err(cuda)? as f64)
    }

    /// Launch shape of the per-channel kernels: 256 threads, grid x over numbers, y over channels.
    fn channel_grid(len: usize, channels: usize) -> Result<LaunchConfig> {
        if channels > 65_535 {
            return Err(Error::Shape(format!(
                "{channels} channels exceed the GPU grid limit of 65535"
            )));
        }
        let blocks = len.div_ceil(256).clamp(1, 65_535) as u32;
        Ok(LaunchConfig {
            grid_dim: (blocks, channels as u32, 1),
            block_dim: (256, 1, 1),
            shared_mem_bytes: 0,
        })
    }

    /// Launches the elementwise kernel of `op` on device buffers (`inputs.len() == op.arity()`).
    #[allow(clippy::too_many_arguments)]
    pub fn launch_elementwise(
        &self,
        op: Op,
        out: &mut CudaSlice<u32>,
        inputs: &[&CudaSlice<u32>],
        scalar: &CudaSlice<u32>,
        moduli: &CudaSlice<u32>,
        len: usize,
        channels: usize,
    ) -> Result<()> {
        let name = match op {
            Op::Add => "rns_add",
            Op::Sub => "rns_sub",
            Op::Neg => "rns_neg",
            Op::Mul => "rns_mul",
            Op::MulNaive => "rns_mul_naive",
            Op::MulAdd => "rns_mul_add",
            Op::MulSubMul => "rns_mul_sub_mul",
            Op::AddScalar => "rns_add_scalar",
            Op::SubScalar => "rns_sub_scalar",
            Op::MulScalar => "rns_mul_scalar",
        };
        let f = self.function(name)?;
        let cfg = Self::channel_grid(len, channels)?;
        let len32 = len as u32;
        let mut b = self.stream.launch_builder(&f);
        b.arg(out);
        // Operand slots a, b, c, d: unused ones repeat the first (never read).
        for k in 0..4 {
            b.arg(inputs[k.min(inputs.len() - 1)]);
        }
        b.arg(scalar).arg(moduli).arg(&len32);
        // SAFETY: the kernel reads `len` numbers of `channels` channels from each operand
        // and writes as many to `out`; the buffers hold at least that many words.
        unsafe { b.launch(cfg) }.map_err(cuda)?;
        Ok(())
    }

    /// Elementwise operation on host data (channel-major, `moduli.len()` channels).
    pub fn elementwise(
        &self,
        op: Op,
        moduli: &[Modulus],
        len: usize,
        inputs: &[&[u32]],
        scalar: &[u32],
    ) -> Result<Vec<u32>> {
        let channels = moduli.len();
        let mut out = Vec::new();
        if len == 0 {
            return Ok(out);
        }
        let dm = self.upload(&moduli_words(moduli))?;
        let ds = self.upload(scalar)?;
        for r in self.chunks(len, (inputs.len() + 1) * channels * 4)? {
            let dev: Vec<CudaSlice<u32>> = inputs
                .iter()
                .map(|x| self.upload(&gather(x, len, &r)))
                .collect::<Result<_>>()?;
            let refs: Vec<&CudaSlice<u32>> = dev.iter().collect();
            let mut dout = self.alloc(channels * r.len())?;
            self.launch_elementwise(op, &mut dout, &refs, &ds, &dm, r.len(), channels)?;
            scatter(&mut out, len, &r, self.download(&dout, channels * r.len())?);
        }
        Ok(out)
    }

    /// Launches the `mul_m` throughput probe: four chains of `iters` products per number.
    pub fn launch_mul_chain(
        &self,
        out: &mut CudaSlice<u32>,
        a: &CudaSlice<u32>,
        moduli: &CudaSlice<u32>,
        len: usize,
        channels: usize,
        iters: u32,
    ) -> Result<()> {
        let f = self.function("rns_mul_chain")?;
        let cfg = Self::channel_grid(len, channels)?;
        let len32 = len as u32;
        let mut l = self.stream.launch_builder(&f);
        l.arg(out).arg(a).arg(moduli).arg(&len32).arg(&iters);
        // SAFETY: a and out hold channels × len words.
        unsafe { l.launch(cfg) }.map_err(cuda)?;
        Ok(())
    }

    /// Copies `n` words device to device (the bandwidth reference of the benchmarks).
    pub fn copy(&self, dst: &mut CudaSlice<u32>, src: &CudaSlice<u32>) -> Result<()> {
        self.stream.memcpy_dtod(src, dst).map_err(cuda)
    }

    /// Launches an equality kernel on device buffers; `out` gets one word per number.
    pub fn launch_equal(
        &self,
        kernel: EqualKernel,
        out: &mut CudaSlice<u32>,
        a: &CudaSlice<u32>,
        b: &CudaSlice<u32>,
        len: usize,
        channels: usize,
    ) -> Result<()> {
        let (name, smem) = match kernel {
            EqualKernel::SharedTree => ("rns_equal_shared", 32 * LANES_Y * 4),
            EqualKernel::WarpVote => ("rns_equal_vote", LANES_Y * 4),
        };
        let f = self.function(name)?;
        let cfg = LaunchConfig {
            grid_dim: (len.div_ceil(32).max(1) as u32, 1, 1),
            block_dim: (32, LANES_Y, 1),
            shared_mem_bytes: smem,
        };
        let (len32, ch32) = (len as u32, channels as u32);
        let mut l = self.stream.launch_builder(&f);
        l.arg(out).arg(a).arg(b).arg(&len32).arg(&ch32);
        // SAFETY: a and b hold channels × len words; out holds len words.
        unsafe { l.launch(cfg) }.map_err(cuda)?;
        Ok(())
    }

    /// Whether numbers agree in every channel.
    pub fn equal(
        &self,
        kernel: EqualKernel,
        channels: usize,
        len: usize,
        a: &[u32],
        b: &[u32],
    ) -> Result<Vec<bool>> {
        let mut out = Vec::with_capacity(len);
        if len == 0 {
            return Ok(out);
        }
        for r in self.chunks(len, (2 * channels + 1) * 4)? {
            let (da, db) = (
                self.upload(&gather(a, len, &r))?,
                self.upload(&gather(b, len, &r))?,
            );
            let mut dout = self.alloc(r.len())?;
            self.launch_equal(kernel, &mut dout, &da, &db, r.len(), channels)?;
            out.extend(self.download(&dout, r.len())?.into_iter().map(|x| x != 0));
        }
        Ok(out)
    }

    /// Whether the mixed-radix kernel can take `k` moduli (its tile needs `k·128` bytes
    /// of shared memory).
    pub fn mixed_radix_fits(&self, k: usize) -> bool {
        k * 32 * 4 <= self.smem_optin
    }

    /// Launches the mixed-radix kernel: `digits` gets `k × len` channel-major digits of
    /// the first `k` channels of `x`; `offset` is one residue per channel or `None`.
    #[allow(clippy::too_many_arguments)]
    pub fn launch_digits(
        &self,
        digits: &mut CudaSlice<u32>,
        x: &CudaSlice<u32>,
        offset: Option<&CudaSlice<u32>>,
        moduli: &CudaSlice<u32>,
        table: &CudaSlice<u32>,
        len: usize,
        k: usize,
    ) -> Result<()> {
        let smem = k * 32 * 4;
        if !self.mixed_radix_fits(k) {
            return Err(Error::Shape(format!(
                "{k} moduli need {smem} bytes of shared memory for the mixed-radix kernel; this GPU has {}",
                self.smem_optin
            )));
        }
        let f = self.function("rns_mrc_digits")?;
        let cfg = LaunchConfig {
            grid_dim: (len.div_ceil(32).max(1) as u32, 1, 1),
            block_dim: (32, LANES_Y, 1),
            shared_mem_bytes: smem as u32,
        };
        let (len32, k32, null) = (len as u32, k as u32, 0u64);
        let mut l = self.stream.launch_builder(&f);
        l.arg(digits).arg(x);
        match offset {
            Some(o) => l.arg(o),
            None => l.arg(&null),
        };
        l.arg(moduli).arg(table).arg(&len32).arg(&k32);
        // SAFETY: x holds at least k × len words, digits k × len, table k × k, moduli k.
        unsafe { l.launch(cfg) }.map_err(cuda)?;
        Ok(())
    }

    /// Launches the digit comparison: `out[i]` = −1, 0, 1 for `a[i]` <, =, > `b[i]`
    /// (or `b` itself, `k` digits, when `broadcast`).
    pub fn launch_cmp(
        &self,
        out: &mut CudaSlice<u32>,
        a: &CudaSlice<u32>,
        b: &CudaSlice<u32>,
        broadcast: bool,
        len: usize,
        k: usize,
    ) -> Result<()> {
        let f = self.function("rns_cmp_digits")?;
        let cfg = LaunchConfig {
            grid_dim: (len.div_ceil(256).max(1) as u32, 1, 1),
            block_dim: (256, 1, 1),
            shared_mem_bytes: 0,
        };
        let (bc, len32, k32) = (broadcast as u32, len as u32, k as u32);
        let mut l = self.stream.launch_builder(&f);
        l.arg(out).arg(a).arg(b).arg(&bc).arg(&len32).arg(&k32);
        // SAFETY: a holds k × len words, b k × len (or k), out len.
        unsafe { l.launch(cfg) }.map_err(cuda)?;
        Ok(())
    }

    /// Mixed-radix digits (channel-major, `k × len`) of the first `k` channels of `x`.
    pub fn digits(
        &self,
        range: &[Modulus],
        table: &[u32],
        len: usize,
        x: &[u32],
        offset: Option<&[u32]>,
    ) -> Result<Vec<u32>> {
        let k = range.len();
        let mut out = Vec::new();
        if len == 0 {
            return Ok(out);
        }
        let (dm, dt) = (self.upload(&moduli_words(range))?, self.upload(table)?);
        let doff = offset.map(|o| self.upload(o)).transpose()?;
        for r in self.chunks(len, 2 * k * 4)? {
            let dx = self.upload(&gather(&x[..k * len], len, &r))?;
            let mut dd = self.alloc(k * r.len())?;
            self.launch_digits(&mut dd, &dx, doff.as_ref(), &dm, &dt, r.len(), k)?;
            scatter(&mut out, len, &r, self.download(&dd, k * r.len())?);
        }
        Ok(out)
    }

    /// Compares channel-major digit arrays on the device: −1, 0, 1 per number.
    pub fn cmp_digits(
        &self,
        a: &[u32],
        b: &[u32],
        broadcast: bool,
        len: usize,
        k: usize,
    ) -> Result<Vec<i32>> {
        let mut out = Vec::with_capacity(len);
        if len == 0 {
            return Ok(out);
        }
        let db_all = if broadcast {
            Some(self.upload(b)?)
        } else {
            None
        };
        for r in self.chunks(len, (2 * k + 1) * 4)? {
            let da = self.upload(&gather(a, len, &r))?;
            let db = match &db_all {
                Some(d) => d.clone(),
                None => self.upload(&gather(b, len, &r))?,
            };
            let mut dout = self.alloc(r.len())?;
            self.launch_cmp(&mut dout, &da, &db, broadcast, r.len(), k)?;
            out.extend(self.download(&dout, r.len())?.into_iter().map(|x| x as i32));
        }
        Ok(out)
    }

    /// Launches the reduction of word-major integers (`words[w·len + i]`, `nwords` per
    /// number, sign flags `neg`) into `out`, `channels × len` residues.
    #[allow(clippy::too_many_arguments)]
    pub fn launch_reduce(
        &self,
        out: &mut CudaSlice<u32>,
        words: &CudaSlice<u32>,
        neg: &CudaSlice<u32>,
        moduli: &CudaSlice<u32>,
        len: usize,
        channels: usize,
        nwords: usize,
    ) -> Result<()> {
        let f = self.function("rns_reduce_words")?;
        let cfg = Self::channel_grid(len, channels)?;
        let (len32, nw32) = (len as u32, nwords as u32);
        let mut l = self.stream.launch_builder(&f);
        l.arg(out)
            .arg(words)
            .arg(neg)
            .arg(moduli)
            .arg(&len32)
            .arg(&nw32);
        // SAFETY: words hold nwords × len words, neg len, out channels × len.
        unsafe { l.launch(cfg) }.map_err(cuda)?;
        Ok(())
    }

    /// Residues of many integers given as word-major 32-bit words (`words[w·len + i]`,
    /// `nwords` per number) and sign flags: `moduli.len() × len`, channel-major.
    pub fn reduce_words(
        &self,
        moduli: &[Modulus],
        words: &[u32],
        neg: &[u32],
        len: usize,
        nwords: usize,
    ) -> Result<Vec<u32>> {
        let channels = moduli.len();
        let mut out = Vec::new();
        if len == 0 {
            return Ok(out);
        }
        let dm = self.upload(&moduli_words(moduli))?;
        for r in self.chunks(len, (channels + nwords + 1) * 4)? {
            let dw = self.upload(&gather(words, len, &r))?;
            let dn = self.upload(&neg[r.clone()])?;
            let mut dout = self.alloc(channels * r.len())?;
            self.launch_reduce(&mut dout, &dw, &dn, &dm, r.len(), channels, nwords)?;
            scatter(&mut out, len, &r, self.download(&dout, channels * r.len())?);
        }
        Ok(out)
    }

    /// Launches the elimination kernel (`rns_core::linalg::eliminate` on the device): one
    /// block per channel on `mats` (`channels × rows × cols`, overwritten); `ranks` and
    /// `dets` get one word per channel.
    #[allow(clippy::too_many_arguments)]
    pub fn launch_eliminate(
        &self,
        ranks: &mut CudaSlice<u32>,
        dets: &mut CudaSlice<u32>,
        mats: &mut CudaSlice<u32>,
        moduli: &CudaSlice<u32>,
        shape: (usize, usize, usize),
        jordan: bool,
        channels: usize,
    ) -> Result<()> {
        let (rows, cols, pivot_cols) = shape;
        let f = self.function("rns_eliminate")?;
        // A warp per row at most, between 2 and 32 warps.
        let threads = (rows * 32).clamp(64, 1024) as u32;
        let cfg = LaunchConfig {
            grid_dim: (channels as u32, 1, 1),
            block_dim: (threads, 1, 1),
            shared_mem_bytes: 16,
        };
        let (r32, c32, p32, j32) = (rows as u32, cols as u32, pivot_cols as u32, jordan as u32);
        let mut l = self.stream.launch_builder(&f);
        l.arg(ranks)
            .arg(dets)
            .arg(mats)
            .arg(moduli)
            .arg(&r32)
            .arg(&c32)
            .arg(&p32)
            .arg(&j32);
        // SAFETY: mats holds channels × rows × cols words, moduli, ranks and dets channels.
        unsafe { l.launch(cfg) }.map_err(cuda)?;
        Ok(())
    }

    /// Gaussian elimination of one `rows × cols` matrix per channel of `data` (overwritten
    /// when `keep` is set; else only ranks and determinants come back), pivoting on the
    /// first `pivot_cols` columns. Returns `(rank, det)` per channel.
    #[allow(clippy::too_many_arguments)]
    pub fn eliminate_per_channel(
        &self,
        moduli: &[Modulus],
        rows: usize,
        cols: usize,
        pivot_cols: usize,
        jordan: bool,
        data: &mut [u32],
        keep: bool,
    ) -> Result<Vec<Elimination>> {
        let size = rows * cols;
        let mut out = Vec::with_capacity(moduli.len());
        if size == 0 {
            out.resize(moduli.len(), Elimination::of_empty(rows, pivot_cols));
            return Ok(out);
        }
        let per = (self.budget()? / ((size + 8) * 4)).max(1);
        for start in (0..moduli.len()).step_by(per) {
            let chans = start..(start + per).min(moduli.len());
            let part = &mut data[chans.start * size..chans.end * size];
            let dm = self.upload(&moduli_words(&moduli[chans.clone()]))?;
            let mut dmats = self.upload(part)?;
            let (mut dr, mut dd) = (self.alloc(chans.len())?, self.alloc(chans.len())?);
            let shape = (rows, cols, pivot_cols);
            self.launch_eliminate(
                &mut dr,
                &mut dd,
                &mut dmats,
                &dm,
                shape,
                jordan,
                chans.len(),
            )?;
            if keep {
                self.stream.memcpy_dtoh(&dmats, part).map_err(cuda)?;
            }
            let (r, d) = (
                self.download(&dr, chans.len())?,
                self.download(&dd, chans.len())?,
            );
            out.extend(
                r.into_iter()
                    .zip(d)
                    .map(|(rank, det)| Elimination { rank, det }),
            );
        }
        Ok(out)
    }

    /// Reduces integers packed as for [`Gpu::reduce_words`] modulo every channel into a
    /// fresh device buffer (`channels × len` residues) and returns it with the device's
    /// moduli; `None` when that, `extra` more words per channel and the packed words would
    /// exceed the memory budget (the caller then takes a chunked path).
    fn reduce_to_device(
        &self,
        moduli: &[Modulus],
        (words, neg, nwords): Packed,
        extra: usize,
    ) -> Result<Option<(CudaSlice<u32>, CudaSlice<u32>)>> {
        let (len, channels) = (neg.len(), moduli.len());
        if len == 0 || (len * (channels + nwords + 1) + extra * channels) * 4 > self.budget()? {
            return Ok(None);
        }
        let dm = self.upload(&moduli_words(moduli))?;
        let dres = self.reduce_packed(&dm, (words, neg, nwords), channels)?;
        Ok(Some((dm, dres)))
    }

    /// Uploads integers packed as for [`Gpu::reduce_words`] and reduces them modulo the
    /// `channels` device moduli `dm` into a new buffer (`channels × len`).
    fn reduce_packed(
        &self,
        dm: &CudaSlice<u32>,
        (words, neg, nwords): Packed,
        channels: usize,
    ) -> Result<CudaSlice<u32>> {
        let len = neg.len();
        let (dw, dn) = (self.upload(words)?, self.upload(neg)?);
        let mut dres = self.alloc(channels * len)?;
        self.launch_reduce(&mut dres, &dw, &dn, dm, len, channels, nwords)?;
        Ok(dres)
    }

    /// The exact product of two integer matrices on the device: `a` (`n × k`) and `b`
    /// (`k × p`), packed as for [`Gpu::reduce_words`], are reduced modulo every channel,
    /// multiplied by the batched product kernel, and the mixed-radix digits of every
    /// entry over the first `table`'s `K` (range) channels are computed there too. Returns
    /// the digits (`K × n·p`, channel-major) and the entries' residues in the last
    /// (redundant) channel; only those cross PCIe back. `None` when it does not fit the
    /// memory budget, the grid or the mixed-radix kernel's shared memory.
    pub fn matmul_words(
        &self,
        moduli: &[Modulus],
        table: &[u32],
        (a, b): (Packed, Packed),
        (n, k, p): (usize, usize, usize),
    ) -> Result<Option<(Vec<u32>, Vec<u32>)>> {
        let (channels, np) = (moduli.len(), n * p);
        let range = channels - 1;
        let words = a.0.len() + a.1.len() + b.0.len() + b.1.len();
        let bytes = 4 * (channels * (n * k + k * p + np) + range * np + words + table.len());
        if np == 0
            || n * k == 0
            || channels > 65_535
            || n.div_ceil(64) > 65_535
            || !self.mixed_radix_fits(range)
            || bytes > self.budget()?
        {
            return Ok(None);
        }
        let dm = self.upload(&moduli_words(moduli))?;
        let da = self.reduce_packed(&dm, a, channels)?;
        let db = self.reduce_packed(&dm, b, channels)?;
        let mut dprod = self.alloc(channels * np)?;
        self.launch_matmul(&mut dprod, &da, &db, &dm, (n, k, p), channels)?;
        drop((da, db));
        let dt = self.upload(table)?;
        let mut digits = self.alloc(range * np)?;
        self.launch_digits(&mut digits, &dprod, None, &dm, &dt, np, range)?;
        let redundant = self
            .stream
            .clone_dtoh(&dprod.slice(range * np..))
            .map_err(cuda)?;
        Ok(Some((self.download(&digits, range * np)?, redundant)))
    }

    /// Reduces integer matrix entries (packed as for [`Gpu::reduce_words`]) modulo every
    /// channel straight into the device buffer of [`Gpu::eliminate_per_channel`] and
    /// eliminates there: the residues never cross PCIe. `None` when they do not fit the
    /// memory budget (the caller then takes the chunked path). With `keep`, the
    /// eliminated matrices come back too.
    #[allow(clippy::too_many_arguments)]
    pub fn eliminate_words(
        &self,
        moduli: &[Modulus],
        packed: Packed,
        rows: usize,
        cols: usize,
        pivot_cols: usize,
        jordan: bool,
        keep: bool,
    ) -> Result<Option<(Vec<Elimination>, Vec<u32>)>> {
        let (size, channels) = (rows * cols, moduli.len());
        let Some((dm, mut dmats)) = self.reduce_to_device(moduli, packed, 3)? else {
            return Ok(None);
        };
        let (mut dr, mut dd) = (self.alloc(channels)?, self.alloc(channels)?);
        let shape = (rows, cols, pivot_cols);
        self.launch_eliminate(&mut dr, &mut dd, &mut dmats, &dm, shape, jordan, channels)?;
        let data = if keep {
            self.download(&dmats, channels * size)?
        } else {
            Vec::new()
        };
        let (r, d) = (self.download(&dr, channels)?, self.download(&dd, channels)?);
        let e = r
            .into_iter()
            .zip(d)
            .map(|(rank, det)| Elimination { rank, det });
        Ok(Some((e.collect(), data)))
    }

    /// Launches the blocked determinant kernel: one block per channel on `mats`
    /// (`channels × n × n`, overwritten); `dets` gets one word per channel.
    pub fn launch_det(
        &self,
        dets: &mut CudaSlice<u32>,
        mats: &mut CudaSlice<u32>,
        moduli: &CudaSlice<u32>,
        n: usize,
        channels: usize,
    ) -> Result<()> {
        let f = self.function("rns_det_blocked")?;
        let cfg = LaunchConfig {
            grid_dim: (channels as u32, 1, 1),
            block_dim: (16, 16, 1),
            shared_mem_bytes: (68 + 64) * 16 * 4 + 16,
        };
        let n32 = n as u32;
        let mut l = self.stream.launch_builder(&f);
        l.arg(dets).arg(mats).arg(moduli).arg(&n32);
        // SAFETY: mats holds channels × n² words, moduli and dets channels.
        unsafe { l.launch(cfg) }.map_err(cuda)?;
        Ok(())
    }

    /// The determinant modulo each channel of the `n × n` matrix held in that channel
    /// (`data`: one row-major matrix per channel), in chunks that fit the budget.
    pub fn det_per_channel(&self, moduli: &[Modulus], n: usize, data: &[u32]) -> Result<Vec<u32>> {
        let size = n * n;
        if size == 0 {
            return Ok(vec![1; moduli.len()]);
        }
        let mut out = Vec::with_capacity(moduli.len());
        let per = (self.budget()? / ((size + 8) * 4)).max(1);
        for start in (0..moduli.len()).step_by(per) {
            let chans = start..(start + per).min(moduli.len());
            let dm = self.upload(&moduli_words(&moduli[chans.clone()]))?;
            let mut dmats = self.upload(&data[chans.start * size..chans.end * size])?;
            let mut dd = self.alloc(chans.len())?;
            self.launch_det(&mut dd, &mut dmats, &dm, n, chans.len())?;
            out.extend(self.download(&dd, chans.len())?);
        }
        Ok(out)
    }

    /// [`Gpu::det_per_channel`] of an integer matrix's images, reduced on the device
    /// (packed as for [`Gpu::reduce_words`]): the residues never cross PCIe. `None`
    /// when they do not fit the memory budget.
    pub fn det_words(
        &self,
        moduli: &[Modulus],
        packed: Packed,
        n: usize,
    ) -> Result<Option<Vec<u32>>> {
        let Some((dm, mut dmats)) = self.reduce_to_device(moduli, packed, 1)? else {
            return Ok(None);
        };
        let mut dd = self.alloc(moduli.len())?;
        self.launch_det(&mut dd, &mut dmats, &dm, n, moduli.len())?;
        Ok(Some(self.download(&dd, moduli.len())?))
    }

    /// Launches the batched product kernel: `out = a · b` per channel, `a` `n × k`,
    /// `b` `k × p` (shape `(n, k, p)`).
    pub fn launch_matmul(
        &self,
        out: &mut CudaSlice<u32>,
        a: &CudaSlice<u32>,
        b: &CudaSlice<u32>,
        moduli: &CudaSlice<u32>,
        shape: (usize, usize, usize),
        channels: usize,
    ) -> Result<()> {
        let (n, k, p) = shape;
        if channels > 65_535 || n.div_ceil(64) > 65_535 {
            return Err(Error::Shape(format!(
                "{channels} channels of {n}-row products exceed the GPU grid limits"
            )));
        }
        let f = self.function("rns_matmul")?;
        let cfg = LaunchConfig {
            grid_dim: (
                p.div_ceil(64).max(1) as u32,
                n.div_ceil(64).max(1) as u32,
                channels as u32,
            ),
            block_dim: (16, 16, 1),
            shared_mem_bytes: (68 + 64) * 16 * 4,
        };
        let (n32, k32, p32) = (n as u32, k as u32, p as u32);
        let mut l = self.stream.launch_builder(&f);
        l.arg(out)
            .arg(a)
            .arg(b)
            .arg(moduli)
            .arg(&n32)
            .arg(&k32)
            .arg(&p32);
        // SAFETY: a, b and out hold channels × (n·k, k·p, n·p) words, moduli channels.
        unsafe { l.launch(cfg) }.map_err(cuda)?;
        Ok(())
    }

    /// `a · b` modulo each channel (`a` `n × k`, `b` `k × p`, channel-major batches of
    /// row-major matrices), in chunks of channels that fit the memory budget.
    pub fn matmul_per_channel(
        &self,
        moduli: &[Modulus],
        (n, k, p): (usize, usize, usize),
        a: &[u32],
        b: &[u32],
    ) -> Result<Vec<u32>> {
        let (nk, kp, np) = (n * k, k * p, n * p);
        let mut out = Vec::with_capacity(moduli.len() * np);
        if np == 0 {
            out.resize(moduli.len() * np, 0);
            return Ok(out);
        }
        let per = (self.budget()? / ((nk + kp + np + 8) * 4)).clamp(1, 65_535);
        for start in (0..moduli.len()).step_by(per) {
            let chans = start..(start + per).min(moduli.len());
            let dm = self.upload(&moduli_words(&moduli[chans.clone()]))?;
            let da = self.upload(&a[chans.start * nk..chans.end * nk])?;
            let db = self.upload(&b[chans.start * kp..chans.end * kp])?;
            let mut dout = self.alloc(chans.len() * np)?;
            self.launch_matmul(&mut dout, &da, &db, &dm, (n, k, p), chans.len())?;
            out.extend(self.download(&dout, chans.len() * np)?);
        }
        Ok(out)
    }

    /// Launches the resultant kernel, one thread per channel, on coefficients interleaved
    /// across channels (`data[j·channels + c]`: `f`'s `df + 1`, then `g`'s `dg + 1`;
    /// overwritten).
    pub fn launch_resultant(
        &self,
        out: &mut CudaSlice<u32>,
        data: &mut CudaSlice<u32>,
        moduli: &CudaSlice<u32>,
        channels: usize,
        df: usize,
        dg: usize,
    ) -> Result<()> {
        let f = self.function("rns_resultant")?;
        let cfg = LaunchConfig {
            grid_dim: (channels.div_ceil(128) as u32, 1, 1),
            block_dim: (128, 1, 1),
            shared_mem_bytes: 0,
        };
        let (c32, df32, dg32) = (channels as u32, df as u32, dg as u32);
        let mut l = self.stream.launch_builder(&f);
        l.arg(out)
            .arg(data)
            .arg(moduli)
            .arg(&c32)
            .arg(&df32)
            .arg(&dg32);
        // SAFETY: data holds (df + dg + 2) × channels words, moduli and out one per channel.
        unsafe { l.launch(cfg) }.map_err(cuda)?;
        Ok(())
    }

    /// Resultant modulo each channel of `f` (degree `df`) and `g` (degree `dg`): `data` is
    /// channel-major, `df + 1` coefficients of `f` then `dg + 1` of `g` per channel.
    pub fn resultant_per_channel(
        &self,
        moduli: &[Modulus],
        df: usize,
        dg: usize,
        data: &[u32],
    ) -> Result<Vec<u32>> {
        let per_channel = df + dg + 2;
        let mut out = Vec::with_capacity(moduli.len());
        let per = (self.budget()? / ((per_channel + 8) * 4)).max(1);
        for start in (0..moduli.len()).step_by(per) {
            let chans = start..(start + per).min(moduli.len());
            let part = &data[chans.start * per_channel..chans.end * per_channel];
            // Interleave: coefficient j of every channel together, so that threads read coalesced.
            let interleaved = crate::layout::to_number_major(part, per_channel, chans.len());
            let dm = self.upload(&moduli_words(&moduli[chans.clone()]))?;
            let mut dd = self.upload(&interleaved)?;
            let mut dout = self.alloc(chans.len())?;
            self.launch_resultant(&mut dout, &mut dd, &dm, chans.len(), df, dg)?;
            out.extend(self.download(&dout, chans.len())?);
        }
        Ok(out)
    }
}

impl Gpu {
    /// Compares every `a[i]` with `b[i]` (or with 0 when `b` is `None`) on the device:
    /// both sides are shifted by `H = (M−1)/2` (`offset`, one residue per range channel),
    /// which maps the signed range monotonically onto `[0, M)`; then their mixed-radix
    /// digits are compared. `half_digits` are the digits of `0 + H`. −1, 0 or 1 per number.
    #[allow(clippy::too_many_arguments)]
    pub fn compare(
        &self,
        range: &[Modulus],
        table: &[u32],
        offset: &[u32],
        half_digits: &[u32],
        len: usize,
        a: &[u32],
        b: Option<&[u32]>,
    ) -> Result<Vec<i32>> {
        let k = range.len();
        let mut out = Vec::with_capacity(len);
        if len == 0 {
            return Ok(out);
        }
        let (dm, dt, doff) = (
            self.upload(&moduli_words(range))?,
            self.upload(table)?,
            self.upload(offset)?,
        );
        let dhalf = self.upload(half_digits)?;
        let sides = if b.is_some() { 2 } else { 1 };
        for r in self.chunks(len, (2 * sides * k + 1) * 4)? {
            let digits_of = |x: &[u32]| -> Result<CudaSlice<u32>> {
                let dx = self.upload(&gather(&x[..k * len], len, &r))?;
                let mut dd = self.alloc(k * r.len())?;
                self.launch_digits(&mut dd, &dx, Some(&doff), &dm, &dt, r.len(), k)?;
                Ok(dd)
            };
            let da = digits_of(a)?;
            let mut dout = self.alloc(r.len())?;
            match b {
                Some(b) => {
                    let db = digits_of(b)?;
                    self.launch_cmp(&mut dout, &da, &db, false, r.len(), k)?;
                }
                None => self.launch_cmp(&mut dout, &da, &dhalf, true, r.len(), k)?,
            }
            out.extend(self.download(&dout, r.len())?.into_iter().map(|x| x as i32));
        }
        Ok(out)
    }
}

impl Gpu {
    /// Launches Collins' step for every (channel, point): `vals` gets `channels ×
    /// candidates` resultants (or `NO_POINT`), `work` needs `channels × candidates ×
    /// shape.work_len()` words, `coeffs` holds `shape.len()` residues per channel.
    #[allow(clippy::too_many_arguments)]
    pub fn launch_resultant_points(
        &self,
        vals: &mut CudaSlice<u32>,
        work: &mut CudaSlice<u32>,
        coeffs: &CudaSlice<u32>,
        moduli: &CudaSlice<u32>,
        shape: BiShape,
        candidates: usize,
        channels: usize,
    ) -> Result<()> {
        let f = self.function("rns_resultant_points")?;
        let cfg = LaunchConfig {
            grid_dim: (candidates.div_ceil(128) as u32, channels as u32, 1),
            block_dim: (128, 1, 1),
            shared_mem_bytes: 0,
        };
        let points = candidates as u32;
        let mut l = self.stream.launch_builder(&f);
        l.arg(vals)
            .arg(work)
            .arg(coeffs)
            .arg(moduli)
            .arg(&shape.fy)
            .arg(&shape.fx)
            .arg(&shape.gy)
            .arg(&shape.gx)
            .arg(&points);
        // SAFETY: buffer sizes as documented; channels ≤ 65 535 (the caller's chunks).
        unsafe { l.launch(cfg) }.map_err(cuda)?;
        Ok(())
    }

    /// Words of interpolation scratch per channel: `3n + candidates + 1`.
    fn interpolation_words(n: usize, candidates: usize) -> usize {
        3 * n + candidates + 1
    }

    /// Whether the interpolation scratch fits a block's shared memory.
    pub fn interpolation_in_shared(&self, n: usize, candidates: usize) -> bool {
        Self::interpolation_words(n, candidates) * 4 <= self.interpolation_smem()
    }

    /// Launches the interpolation of `n` coefficients per channel from `vals` (`channels
    /// × candidates`) into `out` (`channels × n`): scratch in shared memory when `shared`
    /// (see [`Gpu::interpolation_in_shared`]), else in `scratch` (`channels ×
    /// interpolation_words` words).
    pub fn launch_interpolate(
        &self,
        out: &mut CudaSlice<u32>,
        vals: &CudaSlice<u32>,
        scratch: &mut CudaSlice<u32>,
        moduli: &CudaSlice<u32>,
        (candidates, n, shared): (usize, usize, bool),
        channels: usize,
    ) -> Result<()> {
        let f = self.function("rns_interpolate")?;
        let bytes = Self::interpolation_words(n, candidates) * 4;
        let cfg = LaunchConfig {
            grid_dim: (channels as u32, 1, 1),
            block_dim: (256, 1, 1),
            shared_mem_bytes: if shared { bytes as u32 } else { 0 },
        };
        let (c32, n32, s32) = (candidates as u32, n as u32, shared as u32);
        let mut l = self.stream.launch_builder(&f);
        l.arg(out)
            .arg(vals)
            .arg(scratch)
            .arg(moduli)
            .arg(&c32)
            .arg(&n32)
            .arg(&s32);
        // SAFETY: buffer sizes as documented; scratch is only used when not shared.
        unsafe { l.launch(cfg) }.map_err(cuda)?;
        Ok(())
    }

    /// Collins' modular steps on the device (see `Backend::resultant_xy_per_channel`),
    /// from integers packed as for [`Gpu::reduce_words`]: reduce, one resultant per
    /// (channel, point), interpolate, in chunks of channels that fit the memory budget.
    /// Returns `degree_bound + 1` coefficients per channel and the stage times (each stage
    /// ends with a synchronisation, so kernels and copies are timed apart).
    pub fn resultant_xy_words(
        &self,
        moduli: &[Modulus],
        (words, neg, nwords): Packed,
        shape: BiShape,
        candidates: usize,
    ) -> Result<(Vec<u32>, Laps)> {
        let mut laps = Laps::start();
        let (len, n) = (shape.len(), shape.degree_bound() + 1);
        let shared = self.interpolation_in_shared(n, candidates);
        let global_scratch = if shared {
            0
        } else {
            Self::interpolation_words(n, candidates)
        };
        let per_channel = 4 * (len + candidates * (shape.work_len() + 1) + n + global_scratch + 6);
        let fixed = 4 * len * (nwords + 1);
        let per = (self.budget()?.saturating_sub(fixed) / per_channel).clamp(1, 65_535);
        let (dw, dn) = (self.upload(words)?, self.upload(neg)?);
        let mut out = Vec::with_capacity(moduli.len() * n);
        self.sync()?;
        laps.lap("upload");
        for start in (0..moduli.len()).step_by(per) {
            let chans = start..(start + per).min(moduli.len());
            let k = chans.len();
            let dm = self.upload(&moduli_words(&moduli[chans]))?;
            let mut dcoeffs = self.alloc(k * len)?;
            self.launch_reduce(&mut dcoeffs, &dw, &dn, &dm, len, k, nwords)?;
            self.sync()?;
            laps.lap("reduce");
            let mut dvals = self.alloc(k * candidates)?;
            let mut dwork = self.alloc(k * candidates * shape.work_len())?;
            self.launch_resultant_points(
                &mut dvals, &mut dwork, &dcoeffs, &dm, shape, candidates, k,
            )?;
            self.sync()?;
            laps.lap("resultants mod p");
            drop(dwork);
            let mut dout = self.alloc(k * n)?;
            let mut dscratch = self.alloc(k * global_scratch)?;
            let sizes = (candidates, n, shared);
            self.launch_interpolate(&mut dout, &dvals, &mut dscratch, &dm, sizes, k)?;
            self.sync()?;
            laps.lap("interpolation");
            out.extend(self.download(&dout, k * n)?);
            laps.lap("download");
        }
        Ok((out, laps))
    }
}
