//! The cost model behind `--backend auto`: a rough time on each backend for the work at
//! hand, so that the CLI starts CUDA only when the GPU pays for its start-up and its
//! copies. Every constant was measured on the H100 host (16 cores, H100 80GB HBM3,
//! driver 580; `docs/performance.md` has the runs): they need only be right within a
//! factor of about two, since the choice matters only when the backends differ by more.

use rns_core::launch::{LIFT_DEFAULT_PRIMES, RESULTANT_BLOCK_MIN_DEGREE};

/// Time to make the GPU usable in a fresh process: `cuInit` (~100 ms), the primary
/// context (~110 ms) and the module load (~1 ms once the driver has cached its
/// compilation of the PTX; ~550 ms more the first time on a machine). Measured by
/// `probe/jit.cu`-style timing on the H100 host, 2026-11-23.
pub const GPU_START_MS: f64 = 250.0;
/// CPU Gaussian elimination, one core: updates per ms, for matrices that stay in the
/// core's cache (Gauss–Jordan of 200 × 201 modulo 440 primes on 16 cores, and one
/// 1024² matrix cleared by all cores: ≈ 1.2·10^9/s per core), and for many large ones
/// at once, which share the memory bandwidth (det mod p of 512² for 128 primes, 747 ms
/// on 16 cores).
const CPU_ELIM_PER_CORE: f64 = 1.2e6;
const CPU_ELIM_PER_CORE_LARGE: f64 = 0.48e6;
/// CPU matrix product with delayed reduction, one core: mul-adds per ms (1024² × 32
/// primes, 803 ms on 16 cores).
const CPU_MATMUL_PER_CORE: f64 = 2.7e6;
/// CPU Euclid modulo one prime, one core: multiplications per ms (degree-500 resultants
/// modulo 32 600 primes, 1.71 s on 16 cores).
const CPU_EUCLID_PER_CORE: f64 = 0.3e6;
/// GPU blocked LU, one block (one prime): updates per ms (512² × 128 primes, 10.3 ms).
const GPU_DET_PER_BLOCK: f64 = 4.3e6;
/// GPU Gauss–Jordan elimination, one block: updates per ms (512² × 128 primes, 28 ms).
const GPU_ELIM_PER_BLOCK: f64 = 1.6e6;
/// Blocks the elimination kernels run at once at full speed (the H100's SMs).
const GPU_BLOCKS: f64 = 132.0;
/// GPU matrix product: mul-adds per ms with enough tiles (1024² × 32 primes, 10 ms).
const GPU_MATMUL: f64 = 3.4e9;
/// 64 × 64 tiles that fill the GPU for the product kernel.
const GPU_MATMUL_TILES: f64 = 264.0;
/// GPU Euclid, one thread per prime: multiplications per ms per thread, and the threads
/// that run at once.
const GPU_EUCLID_PER_THREAD: f64 = 7.5e3;
/// GPU Euclid a block a prime (`rns_resultant_block`, in rounds of normal steps):
/// products (`2·df·dg` a prime) per ms at degree 16 000 and above with every SM full;
/// below, about `√(deg/16 000)` of it (H200, 2048 primes: 1.3·10^9 at degree 1000,
/// 3.4·10^9 at 4000, 5.3·10^9 at 16 000, 5.5·10^9 at 32 000).
const GPU_EUCLID_BLOCKS: f64 = 5.3e9;
/// Blocks of the block-per-prime kernel that fill the GPU (132 SMs, 8 blocks each).
const GPU_EUCLID_RESIDENT: f64 = 1056.0;
const GPU_THREADS: f64 = 16_896.0;
/// Host↔device copies from pageable memory: bytes per ms.
const PCIE_PAGEABLE: f64 = 8.0e6;
/// CPU Dixon lifting, one core: products per ms (det 500² 64-bit: 2152 steps of 4·n²
/// products in 196–212 ms on the H200 host's 16 cores, ≈ 0.65·10^9/s per core; dev's
/// cores ≈ 2.4·10^9/s).
const CPU_LIFT_PER_CORE: f64 = 1.0e6;
/// GPU lifting step: µs for the two exchanges between the blocks, and µs per 10^6
/// entries of `A` times right-hand sides (H200: 5.1 µs a step at 500², 7.6 at 1000²).
const GPU_STEP_US: f64 = 3.0;
const GPU_STEP_US_PER_M: f64 = 5.0;
/// Orders up to which the GPU lifting's rows fit in shared memory (64-bit entries, one
/// right-hand side, an H200's 132 multiprocessors: about 1300); beyond, each step reads
/// the matrices from global memory.
pub const GPU_LIFT_MAX_N: usize = 1300;
/// Bytes per µs a lifting step reads from global memory (measured with the warps'
/// rings: 2.1–2.2 TB/s on the H100 host at 4000² and 8000², 2.0–2.4 on the H200,
/// `docs/performance.md`).
const GPU_LIFT_BYTES_PER_US: f64 = 2.1e6;

/// Estimated milliseconds of one computation on each backend (the GPU's without its
/// start-up, which [`Estimate::gpu_wins`] adds when it is still to come).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    /// On the CPU backend, all cores.
    pub cpu_ms: f64,
    /// On the GPU backend, copies included.
    pub gpu_ms: f64,
}

impl Estimate {
    /// Whether the GPU is expected to finish first when `start_left_ms` of its start-up
    /// remain.
    pub fn gpu_wins(&self, start_left_ms: f64) -> bool {
        self.gpu_ms + start_left_ms < self.cpu_ms
    }

    /// The expected time on the backend chosen.
    pub fn on(&self, gpu: bool) -> f64 {
        if gpu {
            self.gpu_ms
        } else {
            self.cpu_ms
        }
    }
}

/// Primes (31 bits each) for values of `bits` bits, plus the redundant one.
pub fn primes_for(bits: f64) -> f64 {
    (bits / 31.0).ceil().max(1.0) + 1.0
}

/// Bits of the Hadamard bound of an `n × n` matrix with entries of `bits` bits.
pub fn hadamard_bits(n: usize, bits: u64) -> f64 {
    let n = n as f64;
    n * (bits as f64 + 0.5 * n.max(2.0).log2())
}

fn cpu_threads() -> f64 {
    rayon::current_num_threads() as f64
}

/// Elimination of `primes` matrices of `words` entries (`updates` per prime), the CPU
/// on all cores (over primes, or inside one matrix when there are few), the GPU a block
/// per prime (`per_block` updates per ms).
fn elimination(updates: f64, primes: f64, per_block: f64, words: f64) -> Estimate {
    let large = primes >= cpu_threads() && words * 4.0 > (256 << 10) as f64;
    let per_core = if large {
        CPU_ELIM_PER_CORE_LARGE
    } else {
        CPU_ELIM_PER_CORE
    };
    Estimate {
        cpu_ms: primes * updates / (per_core * cpu_threads()),
        gpu_ms: primes * updates / (per_block * primes.min(GPU_BLOCKS))
            + 4.0 * words * 2.0 / PCIE_PAGEABLE,
    }
}

/// The determinant of an `n × n` matrix modulo `primes` primes.
pub fn det(n: usize, primes: f64) -> Estimate {
    let n = n as f64;
    elimination(n * n * n / 3.0, primes, GPU_DET_PER_BLOCK, n * n)
}

/// Gauss–Jordan elimination of an `n × cols` matrix modulo `primes` primes (rank,
/// solve, inverse).
pub fn gauss_jordan(n: usize, cols: usize, primes: f64) -> Estimate {
    let (n, c) = (n as f64, cols as f64);
    elimination(n * n * c, primes, GPU_ELIM_PER_BLOCK, n * c)
}

/// The product of `n × k` and `k × p` matrices modulo `primes` primes.
pub fn matmul(n: usize, k: usize, p: usize, primes: f64) -> Estimate {
    let (nf, kf, pf) = (n as f64, k as f64, p as f64);
    let ops = primes * nf * kf * pf;
    let tiles = primes * (nf / 64.0).ceil() * (pf / 64.0).ceil();
    Estimate {
        cpu_ms: ops / (CPU_MATMUL_PER_CORE * cpu_threads()),
        gpu_ms: ops / (GPU_MATMUL * (tiles / GPU_MATMUL_TILES).min(1.0))
            + 4.0 * 2.0 * (nf * kf + kf * pf + nf * pf) / PCIE_PAGEABLE,
    }
}

/// `count` Euclidean resultants of degrees `df`, `dg` (one per prime, or per (prime,
/// point) for a bivariate resultant).
pub fn euclid(df: usize, dg: usize, count: f64) -> Estimate {
    let ops = count * (df.max(1) * dg.max(1)) as f64 * 2.0;
    Estimate {
        cpu_ms: ops / (CPU_EUCLID_PER_CORE * count.min(cpu_threads())),
        gpu_ms: ops / (GPU_EUCLID_PER_THREAD * count.min(GPU_THREADS)),
    }
}

/// `primes` univariate resultants of degrees `df`, `dg`: on the GPU a block a prime from
/// the larger degree `RESULTANT_BLOCK_MIN_DEGREE`, else as [`euclid`].
pub fn euclid_blocks(df: usize, dg: usize, primes: f64) -> Estimate {
    let mut e = euclid(df, dg, primes);
    let d = df.max(dg);
    if d >= RESULTANT_BLOCK_MIN_DEGREE {
        let ops = primes * (df.max(1) * dg.max(1)) as f64 * 2.0;
        let fill = (primes / GPU_EUCLID_RESIDENT).min(1.0);
        let rate = GPU_EUCLID_BLOCKS * (d as f64 / 16_000.0).min(1.0).sqrt() * fill;
        e.gpu_ms = ops / rate;
    }
    e
}

/// Dixon's lifting for `A X = B` with `l` right-hand sides, `A` `n × n` with `bits`-bit
/// entries: `2·Hadamard / 31` steps of one prime (Cramer's bounds; a solve may stop
/// sooner), each `n²·l` products for the digits and `n²·l` per 29-bit limb of `A` for the
/// update, after the inverse modulo p; on the GPU when `gpu`, else `otherwise`'s GPU time
/// (the GPU's multimodular path). From global memory the GPU lifts by
/// [`LIFT_DEFAULT_PRIMES`] primes a step: their inverses and `A`'s limbs read once.
pub fn lifting(n: usize, bits: u64, l: usize, gpu: bool, otherwise: Estimate) -> Estimate {
    let (nf, lf) = (n as f64, l as f64);
    let steps = 2.0 * hadamard_bits(n, bits) / 31.0;
    let limbs = (bits as f64 / 29.0).ceil().max(1.0);
    let work = steps * nf * nf * lf * (1.0 + limbs) + nf * nf * nf;
    Estimate {
        cpu_ms: work / (CPU_LIFT_PER_CORE * cpu_threads()),
        gpu_ms: match gpu {
            true => {
                // Per prime of the expansion.
                let per_step = match n <= GPU_LIFT_MAX_N {
                    true => GPU_STEP_US + GPU_STEP_US_PER_M * nf * nf * lf / 1e6,
                    false => {
                        let k = LIFT_DEFAULT_PRIMES as f64;
                        let bytes = 4.0 * nf * nf * (k + limbs) * lf;
                        (GPU_STEP_US + bytes / GPU_LIFT_BYTES_PER_US) / k
                    }
                };
                steps * per_step / 1e3 + 4.0 * nf * nf * limbs / PCIE_PAGEABLE
            }
            false => otherwise.gpu_ms,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_work_stays_on_the_cpu_and_large_work_goes_to_the_gpu() {
        // A 3×3 determinant never pays for CUDA's start-up.
        assert!(!det(3, 3.0).gpu_wins(GPU_START_MS));
        // 500×500 with 64-bit entries: ≈ 1100 primes of 500³/3 updates.
        let big = det(500, primes_for(hadamard_bits(500, 64)));
        assert!(big.gpu_wins(GPU_START_MS), "{big:?}");
        // Once started, the GPU takes even mid-sized products of many primes.
        assert!(matmul(512, 512, 512, 32.0).gpu_wins(0.0));
        assert!(!matmul(512, 512, 512, 32.0).gpu_wins(1e9));
    }

    /// The block-per-prime resultant's estimate is within a factor of two of the H200's
    /// measured library times (degree 16 000 64-bit: 72 461 primes, 6.77 s; degree 4000
    /// over 2048 primes: 19.4 ms), and the small ones stay on the CPU.
    #[test]
    fn univariate_resultants_are_priced_as_the_block_kernel_runs() {
        let big = euclid_blocks(16_000, 16_000, 72_461.0).gpu_ms;
        assert!((6770.0 / 2.0..6770.0 * 2.0).contains(&big), "{big} ms");
        let mid = euclid_blocks(4000, 4000, 2048.0).gpu_ms;
        assert!((19.4 / 2.0..19.4 * 2.0).contains(&mid), "{mid} ms");
        assert!(!euclid_blocks(40, 40, 30.0).gpu_wins(GPU_START_MS));
    }
}
