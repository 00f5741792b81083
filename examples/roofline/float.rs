//! The double-precision rows: the product `rns_f64_gemm` and the whole factorization of
//! the determinant's floating-point bound (`ops::det_bound::factor`), against the
//! device's fused multiply-add rate measured in the same run (`rns_f64_fma_chain`).

use super::{gpu_ms, Roof, Roofs, Row, R};
use rns::backend::gpu::driver::raw;
use rns::backend::gpu::launch::float::{
    f64_words, launch_f64_fma_chain, launch_f64_gemm, words_f64, F64Gemm, F64View,
};
use rns::backend::gpu::ops::det_bound::factor;
use rns::backend::gpu::Gpu;
use rns::mat::bounds::hadamard_bits;
use rns::mat::det_bound_float::{log2_bound, scale};
use rns_suite::bench::xorshift_below;
use std::time::Instant;

/// `len` values in [−1, 1) from the xorshift stream `seed`.
fn values(len: usize, seed: u64) -> Vec<f64> {
    xorshift_below(len, u32::MAX, seed)
        .iter()
        .map(|&w| w as f64 / 2f64.powi(31) - 1.0)
        .collect()
}

/// The fused multiply-add limit, GFLOP/s (two a step), the answer checked bit for bit.
pub fn roof(g: &Gpu) -> R<Roof> {
    let (len, iters) = (1usize << 22, 512u32);
    let a: Vec<f64> = values(len, 11)
        .iter()
        .map(|v| 0.5 + v.abs() / 4.0)
        .collect();
    let da = raw::upload(g, &f64_words(&a))?;
    let mut out = raw::alloc(g, 2 * len)?;
    let ms = gpu_ms(g, || launch_f64_fma_chain(g, &mut out, &da, (len, iters)))?;
    let got = words_f64(&raw::download(g, &out, 2 * len)?);
    for i in (0..len).step_by(len / 16) {
        let y = a[i];
        let mut acc: [f64; 8] = std::array::from_fn(|j| y + j as f64);
        for _ in 0..iters {
            acc = acc.map(|x| x.mul_add(y, 0.5));
        }
        let want: f64 = acc.iter().sum();
        if got[i].to_bits() != want.to_bits() {
            return Err(format!("rns_f64_fma_chain wrong at {i}").into());
        }
    }
    Ok(Roof {
        name: "f64 fma chain",
        value: Some(2.0 * 8.0 * len as f64 * iters as f64 / (ms * 1e-3) / 1e9),
        unit: "GFLOP/s",
    })
}

/// The product at 4096³ and the bound's factorization of a 4000² (8000²) matrix.
pub fn rows(g: &Gpu, roofs: &Roofs, quick: bool) -> R<Vec<Row>> {
    let mut rows = Vec::new();
    let n = if quick { 512 } else { 4096 };
    let (a, b) = (values(n * n, 3), values(n * n, 5));
    let (da, db) = (
        raw::upload(g, &f64_words(&a))?,
        raw::upload(g, &f64_words(&b))?,
    );
    let mut dc = raw::alloc(g, 2 * n * n)?;
    let at = F64View { first: 0, ld: n };
    let gemm = F64Gemm {
        shape: (n, n, n),
        views: (at, at, at),
        mode: 0,
    };
    let ms = gpu_ms(g, || {
        launch_f64_gemm(g, raw::stream(g), &gemm, &mut dc, (&da, &db))
    })?;
    let got = words_f64(&raw::download(g, &dc, 2 * n * n)?);
    for e in (0..n * n).step_by(n * n / 16 + 1) {
        let (i, j) = (e / n, e % n);
        let want = (0..n).fold(0.0, |s, l| a[i * n + l].mul_add(b[l * n + j], s));
        if got[e].to_bits() != want.to_bits() {
            return Err(format!("rns_f64_gemm wrong at ({i}, {j})").into());
        }
    }
    rows.push(Row::new(
        "`rns_f64_gemm` (tiles of 64², 16 deep)",
        &format!("{n}³"),
        2.0 * (n as f64).powi(3) / (ms * 1e-3) / 1e9,
        roofs.fp64,
        "2 flops a fused multiply-add; the answer bit for bit as the host's chain",
    ));
    for n in if quick { vec![300] } else { vec![4000, 8000] } {
        let m = rns_suite::inputs::random(n, n, 64, 9);
        let s = scale(&m).ok_or("a zero column")?;
        factor(g, &s)?;
        let mut times = Vec::new();
        let mut bits = 0;
        for _ in 0..3 {
            let t = Instant::now();
            let f = factor(g, &s)?.ok_or("the factorization broke down")?;
            times.push(t.elapsed().as_secs_f64());
            bits = log2_bound(&f, s.exponent_sum()).ok_or("no bound")?.bits;
        }
        let h = hadamard_bits(&m).ok_or("a zero row")?;
        if bits > h {
            return Err(format!("the float bound {bits} above Hadamard's {h}").into());
        }
        let secs = rns_suite::bench::median(times);
        rows.push(Row::new(
            "the float bound's factorization (`ops::det_bound::factor`)",
            &format!("{n}²"),
            8.0 / 3.0 * (n as f64).powi(3) / secs / 1e9,
            roofs.fp64,
            &format!(
                "8n³/3 useful flops (ÃᵀÃ, Cholesky, R⁻¹, Ã·Z); wall clock with the upload, {:.1} ms; bound {bits} bits, Hadamard {h}",
                secs * 1e3
            ),
        ));
    }
    Ok(rows)
}
