//! The products that levels of `k` normal steps would hand a device
//! (`rns_core::euclid_levels`): per prime and level, the transform's Toeplitz blocks
//! (`(k + 1) × 4(k + 1)`, both entries of a row side by side) times the remainders cut
//! into `d/(k + 1)` columns, two products a prime (`u'` and `v'`) as `2 × primes`
//! channels, or one of twice the rows (both rows of the transform stacked) as `primes`.
//! On the tensor cores (warpgroups, small moduli), checked against the integer units.

use super::{gpu_ms, Roofs, Row, R};
use rns::backend::gpu::driver::raw;
use rns::backend::gpu::driver::raw::moduli_words;
use rns::backend::gpu::launch;
use rns::backend::gpu::launch::Matmul;
use rns::backend::gpu::{Gpu, TensorSplit};
use rns::RnsBasis;
use rns_suite::bench::channel_words;

/// One row a level size `k` and stacking: `(rows, inner, columns, products a prime)` for
/// degree 32 000, 1584 primes.
pub fn rows(g: &Gpu, roofs: &Roofs, quick: bool) -> R<Vec<Row>> {
    let primes = if quick { 132 } else { 1584 };
    let shapes: &[(usize, usize, usize, usize)] = &[
        (128, 512, 256, 2),
        (256, 1024, 128, 2),
        (512, 2048, 64, 2),
        (256, 512, 256, 1),
        (512, 1024, 128, 1),
    ];
    let mut rows = Vec::new();
    for &(n, k, p, per) in shapes {
        let b = RnsBasis::largest_primes(per * primes - 1)?;
        let dm = raw::upload(g, &moduli_words(b.moduli()))?;
        let mc = b.channels();
        let (da, db) = (
            raw::upload(g, &channel_words(b.moduli(), n * k, 11))?,
            raw::upload(g, &channel_words(b.moduli(), k * p, 12))?,
        );
        let mut dc = raw::alloc(g, mc * n * p)?;
        let shape = Matmul {
            n,
            k,
            p,
            channels: mc,
        };
        let mut run = |tensor: bool| -> R<(f64, Vec<u32>)> {
            g.config().set_tensor_cores(Some(tensor));
            g.config().set_tensor_split(Some(TensorSplit::SmallModuli));
            let ms = gpu_ms(g, || {
                launch::launch_matmul(g, raw::stream(g), shape, &mut dc, &da, &db, &dm)
            });
            g.config().set_tensor_cores(None);
            g.config().set_tensor_split(None);
            Ok((ms?, raw::download(g, &dc, mc * n * p)?))
        };
        let (tc, got) = run(true)?;
        let (simt, want) = run(false)?;
        let size = format!("{n} × {k} × {p} × {mc} channels");
        if got != want {
            return Err(format!("{size}: tensor cores and integer units differ").into());
        }
        let madds = (mc * n * k * p) as f64;
        let products = rns_core::ozaki::moduli_for(k).unwrap_or(0) as f64;
        // Degree 32 000: 2·d² mul-adds a prime in the products, for every level.
        let whole = 2.0 * 32_000f64.powi(2) * 145_946.0 / (madds / (tc * 1e-3));
        rows.push(Row::new(
            "levels' transforms, warpgroups (`rns_matmul_wgmma`)",
            &size,
            madds * products * 2.0 / (tc * 1e-3) / 1e12,
            roofs.int8,
            &format!(
                "{:.1} T mul-add/s ({products} INT8 products each); integer units \
                 {:.1} T/s; deg 32 000's products at this rate {whole:.1} s",
                madds / (tc * 1e-3) / 1e12,
                madds / (simt * 1e-3) / 1e12,
            ),
        ));
    }
    Ok(rows)
}
