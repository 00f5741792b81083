//! The roofline table of issue 54: every hot kernel's achieved rate beside the limit that
//! binds it, both measured in this one run, and the fraction.
//!
//! The limits: the device-to-device copy (bytes read and written a second), the
//! integer units' `mul_m` rate (`rns_mul_chain`: four independent chains a thread, no
//! memory traffic), their wide mul-add rate (`rns_mad_chain`: one `mad.wide.u32` a
//! step, the inner step of the integer-unit product), their rate of the resultant
//! rounds' coefficient-step (`rns_redc_chain`: eight chains of `redc_coefficient`),
//! cuBLAS's INT8 product, which this program cannot call, and the double-precision
//! fused multiply-add rate (`rns_f64_fma_chain`, eight chains a thread):
//! `ROOFLINE_INT8_TOPS` carries the figure that
//! `scripts/int_mm.py` measured just before in the same device call (`scripts/gpu-check.sh
//! --run --roofline` does both); without it the tensor-core rows say "not measured".
//!
//! Every figure is the median of 7 runs after a warm-up, timed with device events;
//! every kernel's answer is checked (against the CPU backend, a host recomputation or
//! another kernel) before its row is printed.
//!
//! `cargo run --release --example roofline [-- --quick] [--only vectors,conversion,products,
//! lu,gauss_jordan,inverse,lifting,resultant,levels,float,redc]` (needs a GPU).

mod float;
mod inverse;
mod levels;
mod redc;
mod resultant;
mod rows;

use rns::backend::gpu::driver::raw;
use rns::backend::gpu::driver::raw::moduli_words;
use rns::backend::gpu::launch;
use rns::backend::gpu::launch::MulChain;
use rns::backend::gpu::Gpu;
use rns_suite::bench::{gpu_ms, xorshift_below};
use std::fmt::Write as _;

type R<T> = Result<T, Box<dyn std::error::Error>>;

/// A measured limit: its name, its value and the unit that value is in.
#[derive(Clone, Copy)]
pub struct Roof {
    name: &'static str,
    value: Option<f64>,
    unit: &'static str,
}

/// The limits of this run.
pub struct Roofs {
    /// Device-to-device copy, GB/s (read + write).
    pub copy: Roof,
    /// `mul_m`, G modmul/s.
    pub modmul: Roof,
    /// Wide mul-adds on the integer units, G/s.
    pub madd: Roof,
    /// The resultant rounds' coefficient-steps (two wide signed products and a
    /// Montgomery reduction), G/s.
    pub redc: Roof,
    /// cuBLAS INT8, TOPS (from `ROOFLINE_INT8_TOPS`).
    pub int8: Roof,
    /// Double-precision fused multiply-adds, GFLOP/s.
    pub fp64: Roof,
}

/// One row of the table: a kernel at a size, its rate in the unit of its roof.
pub struct Row {
    kernel: String,
    size: String,
    rate: f64,
    roof: Roof,
    note: String,
}

impl Row {
    /// A row; `rate` is in `roof.unit`.
    pub fn new(kernel: &str, size: &str, rate: f64, roof: Roof, note: &str) -> Row {
        Row {
            kernel: kernel.into(),
            size: size.into(),
            rate,
            roof,
            note: note.into(),
        }
    }
}

/// The copy, `mul_m` and mul-add limits, each probe's answer checked on the host.
fn roofs(g: &Gpu) -> R<Roofs> {
    let n = 1usize << 26;
    let src = raw::upload(g, &xorshift_below(n, u32::MAX, 7))?;
    let mut dst = raw::alloc(g, n)?;
    let copy_ms = gpu_ms(g, || raw::copy(g, &mut dst, &src))?;
    let copy = 8.0 * n as f64 / (copy_ms * 1e-3) / 1e9;
    drop((src, dst));

    let (len, iters) = (1usize << 22, 256u32);
    let m = rns_core::Modulus::new(2_147_483_629).map_err(rns::Error::from)?;
    let a = xorshift_below(len, m.m, 0x9E37_79B9_7F4A_7C15);
    let (da, dm) = (raw::upload(g, &a)?, raw::upload(g, &moduli_words(&[m]))?);
    let mut out = raw::alloc(g, len)?;
    let shape = MulChain {
        len,
        channels: 1,
        iters,
    };
    let mul_ms = gpu_ms(g, || launch::launch_mul_chain(g, &mut out, &da, &dm, shape))?;
    let got = raw::download(g, &out, len)?;
    for i in (0..len).step_by(len / 16) {
        let y = a[i];
        let mut x = [y, m.add(y, 1), m.add(y, 2), m.add(y, 3)];
        for _ in 0..iters {
            x = x.map(|v| m.mul(v, y));
        }
        if got[i] != x[0] ^ x[1] ^ x[2] ^ x[3] {
            return Err(format!("rns_mul_chain wrong at {i}").into());
        }
    }
    let mad_ms = gpu_ms(g, || launch::launch_mad_chain(g, &mut out, &da, shape))?;
    let got = raw::download(g, &out, len)?;
    for i in (0..len).step_by(len / 16) {
        let y = a[i] as u64;
        let mut acc: [u64; 8] = std::array::from_fn(|j| y + j as u64);
        for _ in 0..iters {
            acc = acc.map(|c| c.wrapping_add((c as u32 as u64) * y));
        }
        let x = acc.iter().fold(0, |x, c| x ^ c);
        if got[i] != (x ^ (x >> 32)) as u32 {
            return Err(format!("rns_mad_chain wrong at {i}").into());
        }
    }
    let redc_ms = gpu_ms(g, || {
        launch::launch_redc_chain(g, &mut out, &da, &dm, shape)
    })?;
    let got = raw::download(g, &out, len)?;
    for i in (0..len).step_by(len / 16) {
        if got[i] != redc_chain_host(a[i], m.m, iters) {
            return Err(format!("rns_redc_chain wrong at {i}").into());
        }
    }
    let int8 = std::env::var("ROOFLINE_INT8_TOPS")
        .ok()
        .and_then(|s| s.trim().parse().ok());
    Ok(Roofs {
        copy: Roof {
            name: "d2d copy",
            value: Some(copy),
            unit: "GB/s",
        },
        modmul: Roof {
            name: "mul_m chain",
            value: Some(4.0 * len as f64 * iters as f64 / (mul_ms * 1e-3) / 1e9),
            unit: "G modmul/s",
        },
        madd: Roof {
            name: "mad.wide chain",
            value: Some(8.0 * len as f64 * iters as f64 / (mad_ms * 1e-3) / 1e9),
            unit: "G mul-add/s",
        },
        redc: Roof {
            name: "Euclid step chain",
            value: Some(8.0 * len as f64 * iters as f64 / (redc_ms * 1e-3) / 1e9),
            unit: "G coefficient-steps/s",
        },
        int8: Roof {
            name: "cuBLAS INT8 8192³",
            value: int8,
            unit: "TOPS",
        },
        fp64: float::roof(g)?,
    })
}

/// `rns_redc_chain`'s word for the input `y` below `m`: its eight chains of `iters`
/// coefficient-steps, recomputed with `rns_core`'s host arithmetic.
fn redc_chain_host(y: u32, m: u32, iters: u32) -> u32 {
    use rns_core::euclid_redc::{inv_mod_two32, redc_coefficient};
    let (mi, half) = (inv_mod_two32(m), ((m - 1) / 2) as i32);
    let n = (y as i32 - half, half - y as i32);
    (0..8).fold(0u32, |x, j| {
        let v = y as i32 - j;
        let mut s = (v, v >> 1, -(v >> 2));
        for _ in 0..iters {
            s = (s.1, s.2, redc_coefficient(n, s.0, s.1, s.2, m as i32, mi));
        }
        x ^ s.2 as u32
    })
}

/// The table as Markdown.
fn table(roofs: &Roofs, rows: &[Row]) -> String {
    let mut s = String::from("| limit | measured |\n| --- | --- |\n");
    for r in [
        roofs.copy,
        roofs.modmul,
        roofs.madd,
        roofs.redc,
        roofs.int8,
        roofs.fp64,
    ] {
        let v = r.value.map_or("not measured".into(), |v| format!("{v:.0}"));
        let _ = writeln!(s, "| {} | {v} {} |", r.name, r.unit);
    }
    s.push_str("\n| kernel | size | achieved | limit | fraction | note |\n");
    s.push_str("| --- | --- | --- | --- | --- | --- |\n");
    for r in rows {
        let frac = r
            .roof
            .value
            .map_or("—".into(), |v| format!("**{:.0} %**", 100.0 * r.rate / v));
        let _ = writeln!(
            s,
            "| {} | {} | {:.0} {} | {} | {frac} | {} |",
            r.kernel, r.size, r.rate, r.roof.unit, r.roof.name, r.note
        );
    }
    s
}

fn main() -> R<()> {
    let args: Vec<String> = std::env::args().collect();
    let quick = args.iter().any(|a| a == "--quick");
    // --only vectors,conversion: those families alone.
    let only: Option<Vec<&str>> = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|i| args.get(i + 1))
        .map(|v| v.split(',').collect());
    let g = Gpu::get()?;
    println!(
        "device: {}, {} multiprocessors",
        g.name(),
        g.multiprocessors()
    );
    let roofs = roofs(&g)?;
    let mut rows = Vec::new();
    // Each family prints its rows as it ends, so a run cut short still shows them.
    type Family = fn(&Gpu, &Roofs, bool) -> R<Vec<Row>>;
    let families: [(&str, Family); 11] = [
        ("vectors", rows::vectors),
        ("conversion", rows::conversion),
        ("products", rows::products),
        ("lu", rows::lu),
        ("gauss_jordan", rows::gauss_jordan),
        ("inverse", inverse::rows),
        ("lifting", rows::lifting),
        ("resultant", resultant::rows),
        ("levels", levels::rows),
        ("float", float::rows),
        ("redc", redc::rows),
    ];
    for (name, f) in families {
        if only.as_ref().is_some_and(|o| !o.contains(&name)) {
            continue;
        }
        let new = f(&g, &roofs, quick)?;
        println!("== {name}\n{}", table(&roofs, &new));
        rows.extend(new);
    }
    println!("== the whole table\n{}", table(&roofs, &rows));
    Ok(())
}
