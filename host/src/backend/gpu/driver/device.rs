//! Opening a CUDA device: the driver check, the context, the module with every kernel
//! looked up once, and the mapping of driver errors onto [`Error`].

use crate::error::{Error, Result};
use crate::num::op::Op;
use cudarc::driver::sys::{CUdevice_attribute, CUfunction_attribute};
use cudarc::driver::{CudaContext, CudaFunction, CudaModule, DriverError};
use std::sync::Arc;

use super::module::{self, StartTimes};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// A driver error as the library's error, the driver's result kept as its source
/// ([`Error::driver`]).
pub(crate) fn cuda(e: DriverError) -> Error {
    Error::driver("", e)
}

/// Every kernel of the module, looked up once when the device opens.
#[derive(Debug)]
pub(crate) struct Kernels {
    /// The elementwise kernels, in the order of [`Op::ALL`].
    pub elementwise: Vec<CudaFunction>,
    pub mul_chain: CudaFunction,
    pub mad_chain: CudaFunction,
    pub redc_chain: CudaFunction,
    pub equal_shared: CudaFunction,
    pub equal_vote: CudaFunction,
    pub mrc_digits: CudaFunction,
    pub mr_table: CudaFunction,
    pub cmp_digits: CudaFunction,
    pub interval_cmp: CudaFunction,
    pub interval_table: CudaFunction,
    pub reduce_words: CudaFunction,
    pub transpose: CudaFunction,
    pub carry_terms: CudaFunction,
    pub digits_limbs: CudaFunction,
    pub digits_decimal: CudaFunction,
    pub decimal_text: CudaFunction,
    pub decimal_words: CudaFunction,
    pub gather_columns: CudaFunction,
    pub place_columns: CudaFunction,
    pub limbs_mod: CudaFunction,
    pub step_pivot: CudaFunction,
    pub step_update: CudaFunction,
    pub dixon_lift: CudaFunction,
    /// `rns_dixon_lift_global…` (`[0]`) and `rns_dixon_lift_ring…` (`[1]`), by 1 to
    /// `LIFT_GLOBAL_MAX_PRIMES` primes a step.
    pub dixon_lift_global: [[CudaFunction; rns_core::launch::LIFT_GLOBAL_MAX_PRIMES]; 2],
    pub gauss_jordan: CudaFunction,
    pub eliminate: CudaFunction,
    pub charpoly: CudaFunction,
    pub minpoly: CudaFunction,
    pub charpoly_sums: CudaFunction,
    pub charpoly_next: CudaFunction,
    pub block_digits: CudaFunction,
    pub block_update: CudaFunction,
    pub block_join_digits: CudaFunction,
    pub block_join_update: CudaFunction,
    pub hess_pivot: CudaFunction,
    pub hess_rows: CudaFunction,
    pub hess_cols: CudaFunction,
    pub rref_pivot: CudaFunction,
    pub rref_update: CudaFunction,
    pub rref_units: CudaFunction,
    pub det_blocked: CudaFunction,
    pub lu_panel: CudaFunction,
    pub lu_rows: CudaFunction,
    pub lu_upper: CudaFunction,
    pub block_inverse: CudaFunction,
    pub f64_gemm: CudaFunction,
    pub f64_cholesky_block: CudaFunction,
    pub f64_column_squares: CudaFunction,
    pub f64_fma_chain: CudaFunction,
    pub f64_from_limbs: CudaFunction,
    pub matmul: CudaFunction,
    pub matmul_imma: CudaFunction,
    pub imma_planes: CudaFunction,
    pub matmul_ozaki: CudaFunction,
    pub ozaki_planes: CudaFunction,
    pub ozaki_combine: CudaFunction,
    /// `rns_matmul_wgmma`, on 9.0 devices (the `sm_90a` module).
    pub matmul_wgmma: Option<CudaFunction>,
    pub resultant: CudaFunction,
    pub resultant_points: CudaFunction,
    pub resultant_block: CudaFunction,
    pub resultant_block_global: CudaFunction,
    /// `rns_resultant_block_global_wide`: its rounds 16 steps (large degrees).
    pub resultant_block_global_wide: CudaFunction,
    pub interpolate: CudaFunction,
    pub redc_powers: CudaFunction,
    pub redc_weights: CudaFunction,
    pub redc_columns: CudaFunction,
    pub redc_extend: CudaFunction,
    pub redc_extend_sum: CudaFunction,
    pub redc_pairs: CudaFunction,
    pub redc_mid: CudaFunction,
    pub redc_end: CudaFunction,
}

impl Kernels {
    fn load(module: &Arc<CudaModule>, sm90a: Option<&Arc<CudaModule>>) -> Result<Kernels> {
        let f = |name: &str| {
            module
                .load_function(name)
                .map_err(|e| Error::driver(format!("kernel {name} is missing from the PTX"), e))
        };
        Ok(Kernels {
            elementwise: Op::ALL
                .iter()
                .map(|op| f(op.kernel_name()))
                .collect::<Result<_>>()?,
            mul_chain: f("rns_mul_chain")?,
            mad_chain: f("rns_mad_chain")?,
            redc_chain: f("rns_redc_chain")?,
            equal_shared: f("rns_equal_shared")?,
            equal_vote: f("rns_equal_vote")?,
            mrc_digits: f("rns_mrc_digits")?,
            mr_table: f("rns_mr_table")?,
            cmp_digits: f("rns_cmp_digits")?,
            interval_cmp: f("rns_interval_cmp")?,
            interval_table: f("rns_interval_table")?,
            reduce_words: f("rns_reduce_words")?,
            transpose: f("rns_transpose")?,
            carry_terms: f("rns_carry_terms")?,
            digits_limbs: f("rns_digits_limbs")?,
            digits_decimal: f("rns_digits_decimal")?,
            decimal_text: f("rns_decimal_text")?,
            decimal_words: f("rns_decimal_words")?,
            gather_columns: f("rns_gather_columns")?,
            place_columns: f("rns_place_columns")?,
            limbs_mod: f("rns_limbs_mod")?,
            step_pivot: f("rns_step_pivot")?,
            step_update: f("rns_step_update")?,
            dixon_lift: f("rns_dixon_lift")?,
            dixon_lift_global: [
                [
                    f("rns_dixon_lift_global")?,
                    f("rns_dixon_lift_global2")?,
                    f("rns_dixon_lift_global3")?,
                    f("rns_dixon_lift_global4")?,
                ],
                [
                    f("rns_dixon_lift_ring")?,
                    f("rns_dixon_lift_ring2")?,
                    f("rns_dixon_lift_ring3")?,
                    f("rns_dixon_lift_ring4")?,
                ],
            ],
            gauss_jordan: f("rns_gauss_jordan")?,
            eliminate: f("rns_eliminate")?,
            charpoly: f("rns_charpoly")?,
            minpoly: f("rns_minpoly")?,
            charpoly_sums: f("rns_charpoly_sums")?,
            charpoly_next: f("rns_charpoly_next")?,
            block_digits: f("rns_block_digits")?,
            block_update: f("rns_block_update")?,
            block_join_digits: f("rns_block_join_digits")?,
            block_join_update: f("rns_block_join_update")?,
            hess_pivot: f("rns_hess_pivot")?,
            hess_rows: f("rns_hess_rows")?,
            hess_cols: f("rns_hess_cols")?,
            rref_pivot: f("rns_rref_pivot")?,
            rref_update: f("rns_rref_update")?,
            rref_units: f("rns_rref_units")?,
            det_blocked: f("rns_det_blocked")?,
            lu_panel: f("rns_lu_panel")?,
            lu_rows: f("rns_lu_rows")?,
            lu_upper: f("rns_lu_upper")?,
            block_inverse: f("rns_block_inverse")?,
            f64_gemm: f("rns_f64_gemm")?,
            f64_cholesky_block: f("rns_f64_cholesky_block")?,
            f64_column_squares: f("rns_f64_column_squares")?,
            f64_fma_chain: f("rns_f64_fma_chain")?,
            f64_from_limbs: f("rns_f64_from_limbs")?,
            matmul: f("rns_matmul")?,
            matmul_imma: f("rns_matmul_imma")?,
            imma_planes: f("rns_imma_planes")?,
            matmul_ozaki: f("rns_matmul_ozaki")?,
            ozaki_planes: f("rns_ozaki_planes")?,
            ozaki_combine: f("rns_ozaki_combine")?,
            matmul_wgmma: sm90a.and_then(|m| m.load_function("rns_matmul_wgmma").ok()),
            resultant: f("rns_resultant")?,
            resultant_points: f("rns_resultant_points")?,
            resultant_block: f("rns_resultant_block")?,
            resultant_block_global: f("rns_resultant_block_global")?,
            resultant_block_global_wide: f("rns_resultant_block_global_wide")?,
            interpolate: f("rns_interpolate")?,
            redc_powers: f("rns_redc_powers")?,
            redc_weights: f("rns_redc_weights")?,
            redc_columns: f("rns_redc_columns")?,
            redc_extend: f("rns_redc_extend")?,
            redc_extend_sum: f("rns_redc_extend_sum")?,
            redc_pairs: f("rns_redc_pairs")?,
            redc_mid: f("rns_redc_mid")?,
            redc_end: f("rns_redc_end")?,
        })
    }
}

/// One open device: its context, the loaded kernels and the attributes the launches need.
#[derive(Debug)]
pub(crate) struct Device {
    pub ctx: Arc<CudaContext>,
    pub kernels: Kernels,
    pub ordinal: usize,
    pub name: String,
    /// Bytes of dynamic shared memory a block may use (after opting in).
    pub smem_optin: usize,
    /// Streaming multiprocessors.
    pub sms: usize,
    /// How its start went.
    pub start: StartTimes,
}

/// Lets the device's stream-ordered memory pool keep up to a quarter of the device's
/// memory when buffers are freed, instead of returning it at every synchronisation: a
/// chain of resident operations then reuses the same memory instead of mapping it anew.
fn keep_freed_memory(ctx: &Arc<CudaContext>) -> Result<()> {
    let mut threshold = (ctx.total_mem().map_err(cuda)? / 4) as u64;
    let mut pool: cudarc::driver::sys::CUmemoryPool = std::ptr::null_mut();
    // SAFETY: the out-pointer and the attribute value are valid for the calls.
    unsafe {
        use cudarc::driver::sys::{
            cuDeviceGetDefaultMemPool, cuMemPoolSetAttribute, CUmemPool_attribute,
        };
        cuDeviceGetDefaultMemPool(&mut pool, ctx.cu_device())
            .result()
            .map_err(cuda)?;
        cuMemPoolSetAttribute(
            pool,
            CUmemPool_attribute::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
            &mut threshold as *mut u64 as *mut std::ffi::c_void,
        )
        .result()
        .map_err(cuda)?;
    }
    Ok(())
}

/// Bytes the device's stream-ordered pool holds but no buffer uses (kept by
/// [`keep_freed_memory`]): free for this process's next allocations, though the driver
/// counts them as taken.
pub(crate) fn pool_idle_bytes(ctx: &Arc<CudaContext>) -> Result<usize> {
    use cudarc::driver::sys::{
        cuDeviceGetDefaultMemPool, cuMemPoolGetAttribute, CUmemPool_attribute,
    };
    let mut pool: cudarc::driver::sys::CUmemoryPool = std::ptr::null_mut();
    let (mut reserved, mut used) = (0u64, 0u64);
    // SAFETY: the out-pointers are valid for the calls; both attributes are 64-bit.
    unsafe {
        cuDeviceGetDefaultMemPool(&mut pool, ctx.cu_device())
            .result()
            .map_err(cuda)?;
        for (attr, out) in [
            (
                CUmemPool_attribute::CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT,
                &mut reserved,
            ),
            (
                CUmemPool_attribute::CU_MEMPOOL_ATTR_USED_MEM_CURRENT,
                &mut used,
            ),
        ] {
            cuMemPoolGetAttribute(pool, attr, (out as *mut u64).cast())
                .result()
                .map_err(cuda)?;
        }
    }
    Ok(reserved.saturating_sub(used) as usize)
}

/// [`Error::NoGpu`] for the driver's result `e`.
fn no_gpu(reason: impl Into<String>, e: DriverError) -> Error {
    Error::NoGpu {
        reason: reason.into(),
        source: Some(e),
    }
}

/// How long the process's first [`count`] took: loading libcuda and `cuInit`.
static DRIVER_START: OnceLock<Duration> = OnceLock::new();

/// The number of CUDA devices the driver reports; [`Error::NoGpu`] without a driver.
/// The first call loads the driver and initialises it (timed for [`StartTimes`]).
pub(crate) fn count() -> Result<usize> {
    let t = Instant::now();
    // SAFETY: only probes whether the driver library can be loaded.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return Err(Error::no_gpu("libcuda (the NVIDIA driver) was not found"));
    }
    let n = CudaContext::device_count().map_err(|e| no_gpu("counting the devices failed", e))?;
    let _ = DRIVER_START.set(t.elapsed());
    Ok(n.max(0) as usize)
}

/// Opens device `ordinal`: its primary context, the module (machine code for its
/// architecture, or the PTX compiled by the driver: [`module::load`]), and the kernels' shared-memory limits raised
/// once to the device's maximum (setting them per launch would race between threads).
pub(crate) fn open(ordinal: usize) -> Result<Device> {
    let n = count()?;
    let t = Instant::now();
    if ordinal >= n {
        return Err(Error::no_gpu(if n == 0 {
            "the driver reports no CUDA device".into()
        } else {
            format!("no CUDA device {ordinal}: the driver reports {n}")
        }));
    }
    let ctx = CudaContext::new(ordinal)
        .map_err(|e| no_gpu(format!("device {ordinal}'s context failed to start"), e))?;
    let name = ctx.name().map_err(cuda)?;
    let attr = |a| ctx.attribute(a).map_err(cuda).map(|v| v.max(0) as usize);
    let smem_optin =
        attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)?;
    let sms = attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?;
    let major = attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?;
    let minor = attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?;
    let context = t.elapsed();
    let (module, code) = module::load(&ctx, major as i32, minor as i32)
        .map_err(|e| Error::driver("loading the rns kernels failed", e))?;
    let sm90a = module::load_sm90a(&ctx, major as i32, minor as i32);
    let module_time = t.elapsed() - context;
    let kernels = Kernels::load(&module, sm90a.as_ref())?;
    keep_freed_memory(&ctx)?;
    for f in [
        &kernels.mrc_digits,
        &kernels.interpolate,
        &kernels.resultant_block,
        &kernels.matmul_ozaki,
        &kernels.dixon_lift,
        &kernels.gauss_jordan,
        &kernels.block_inverse,
    ]
    .into_iter()
    .chain(kernels.dixon_lift_global.iter().flatten())
    .chain(&kernels.matmul_wgmma)
    {
        f.set_attribute(
            CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            smem_optin as i32,
        )
        .map_err(cuda)?;
    }
    let start = StartTimes {
        driver: DRIVER_START.get().copied().unwrap_or_default(),
        context,
        module: module_time,
        code,
        setup: t.elapsed() - context - module_time,
    };
    Ok(Device {
        ctx,
        kernels,
        ordinal,
        name,
        smem_optin,
        sms,
        start,
    })
}
