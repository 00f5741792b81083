//! What the benchmarks in `examples/` share: the median of timings, kernels timed by
//! device events, and the xorshift stream of the CUDA C references
//! (`device/reference/*.cu`), so that the Rust kernels see the same inputs and give the
//! same checksums.

use rns::backend::gpu::Gpu;

/// The median of `v` (the upper one of an even count).
pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Milliseconds of `f` on `g`'s stream by device events: the median of 7 after a
/// warm-up.
pub fn gpu_ms(g: &Gpu, mut f: impl FnMut() -> rns::Result<()>) -> rns::Result<f64> {
    f()?;
    g.sync()?;
    let mut t = Vec::new();
    for _ in 0..7 {
        t.push(g.time_ms(&mut f)?);
    }
    Ok(median(t))
}

/// `len` words below `m` from the xorshift stream seeded with `seed` (not 0), as the
/// CUDA C references make them.
pub fn xorshift_below(len: usize, m: u32, seed: u64) -> Vec<u32> {
    let mut x = seed;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % m as u64) as u32
        })
        .collect()
}

/// `len` words a channel, channel after channel: channel `c` below `moduli[c]` from the
/// xorshift stream seeded with `seed + c`.
pub fn channel_words(moduli: &[rns_core::Modulus], len: usize, seed: u64) -> Vec<u32> {
    moduli
        .iter()
        .enumerate()
        .flat_map(|(c, m)| xorshift_below(len, m.m, seed + c as u64))
        .collect()
}

/// The two `n × n` operands modulo each of `moduli` of the product benchmarks, as
/// `device/reference/matmul.cu` makes them (a xorshift stream a prime, fixed seeds).
pub fn product_inputs(moduli: &[rns_core::Modulus], n: usize) -> (Vec<u32>, Vec<u32>) {
    (
        channel_words(moduli, n * n, 0x1234_5678),
        channel_words(moduli, n * n, 0x8765_4321),
    )
}
