//! The measurements of `rns compare` for a large matrix modulo one prime with the whole
//! GPU: `charpoly_mod` (an `n × n` matrix) and `rref_mod` (`n × (n + n/40)`), random
//! residues. The kernel-only figure is the device's steps by events (the Hessenberg
//! form and the recurrence, or the echelon steps; each ends with its small download:
//! the `n + 1` coefficients, the rank); the resident one adds the copy of the matrix
//! they overwrite; end to end is the library call (`Backend::charpoly_mod`,
//! `Backend::rref_mod`).

use super::{median, mismatch, wall_ms, Case};
use rns::backend::gpu::driver::raw;
use rns::backend::gpu::driver::raw::moduli_words;
use rns::backend::gpu::launch;
use rns::backend::gpu::Gpu;
use rns::backend::Backend;
use rns::error::Result;
use rns::mat::modmat::ModMatrices;
use rns::num::basis::RnsBasis;
use rns::num::vector::RnsVec;
use std::sync::Arc;

/// The columns of `op`'s matrix of `n` rows.
fn cols(op: &str, n: usize) -> usize {
    match op {
        "rref_mod" => n + (n / 40).max(1),
        _ => n,
    }
}

/// Times `op` (`charpoly_mod` or `rref_mod`) at order `case.size` on every backend.
pub(super) fn measure_one_prime(case: &mut Case) -> Result<()> {
    let (op, n) = (case.op, case.size);
    let c = cols(op, n);
    let basis = Arc::new(RnsBasis::largest_primes(1)?);
    let r = RnsVec::random(&basis, n * c, 29);
    let m = ModMatrices::new(&[basis.moduli()[0].m], n, c, r.channel(0).to_vec())?;
    let run = |be: &Backend| -> Result<Vec<u32>> {
        match op {
            "charpoly_mod" => be.charpoly_mod(&m),
            _ => {
                let e = be.rref_mod(&m)?;
                let mut v = e.rref.data().to_vec();
                v.extend(e.ranks.iter().map(|&r| r as u32));
                Ok(v)
            }
        }
    };
    let want = run(&Backend::Cpu)?;
    case.cpu(|| run(&Backend::Cpu).map(drop))?;
    let Some((g, gb)) = case.gpu else {
        return Ok(());
    };
    let dm = raw::upload(g, &moduli_words(m.moduli()))?;
    let src = raw::upload_words(g, m.data())?;
    let mut work = raw::upload_words(g, m.data())?;
    let steps = |work: &mut _| -> Result<Vec<u32>> { device_steps(g, op, (n, c), work, &dm) };
    // A warm-up, then each run's steps alone (the copy before them untimed).
    steps(&mut work)?;
    let (mut t, mut got) = (Vec::new(), Vec::new());
    for _ in 0..case.reps.max(1) {
        raw::copy(g, &mut work, &src)?;
        t.push(g.time_ms(|| {
            got = steps(&mut work)?;
            Ok(())
        })?);
    }
    let ms = median(t);
    let got = match op {
        "charpoly_mod" => got,
        _ => {
            let mut v = raw::download(g, &work, n * c)?;
            v.extend(got);
            v
        }
    };
    if got != want {
        return Err(mismatch(op, n, "kernel"));
    }
    case.push("gpu_kernel", ms);
    let ms = wall_ms(case.reps, || {
        raw::copy(g, &mut work, &src)?;
        steps(&mut work).map(drop)
    })?;
    case.push("gpu_resident", ms);
    let ms = wall_ms(case.reps, || run(gb).map(drop))?;
    if run(gb)? != want {
        return Err(mismatch(op, n, "with transfers"));
    }
    case.push("gpu", ms);
    Ok(())
}

/// `op`'s device steps on the matrix in `work` (overwritten): the coefficients, or the
/// rank (as one word).
fn device_steps(
    g: &Gpu,
    op: &str,
    (n, c): (usize, usize),
    work: &mut raw::CudaSlice<u32>,
    dm: &raw::CudaSlice<u32>,
) -> Result<Vec<u32>> {
    let stream = raw::stream(g);
    match op {
        "charpoly_mod" => {
            launch::hessenberg_steps(g, stream, work, dm, 1, n)?;
            launch::charpoly_recurrence_steps(g, stream, work, dm, 1, n).map(|(f, _)| f)
        }
        _ => {
            let ranks = launch::rref_steps(g, stream, work, dm, 1, (n, c))?;
            Ok(ranks.into_iter().map(|r| r as u32).collect())
        }
    }
}
