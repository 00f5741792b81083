//! Determinants and solves modulo a few primes of large matrices split by rows across
//! devices: the factorization by panel inverses of `launch::panels`, its trailing
//! updates shared out. The panels of `b` rows go to the devices in turn (panel `p` to
//! device `p mod D`), each device holding its panels' rows of every channel's matrix.
//! Per panel, its device inverts the diagonal block and forms `R = A11⁻¹·A12` in place
//! of the panel's rows; every other device copies those rows (peer to peer) and each
//! updates its own rows, `A22 −= A21·R`: the rows below the panel (LU, for
//! determinants) or every other row (Gauss–Jordan, for solves and inverses). The next
//! panel's device updates that panel's rows first and forms it before the rest of its
//! update (a look-ahead of one panel), so that the others' wait for it is short. The
//! streams wait for each other through events only (a device's copy for the panel's
//! forming; with Gauss–Jordan, the panel's device's later changes to those rows for
//! every copy): the host queues every panel and waits once at the end. A channel's
//! determinant is the product of its devices' blocks' determinants; a channel whose
//! block is singular somewhere comes back as 0, for the caller to factor another way
//! (it may be singular itself).

use crate::backend::gpu::driver::memory::moduli_words;
use crate::backend::gpu::driver::peer;
use crate::backend::gpu::launch::panels::{launch_block_inverse, panel_product, BlockOut};
use crate::backend::gpu::launch::{self, Matmul, View};
use crate::backend::gpu::Gpu;
use crate::backend::split::each_on_thread;
use crate::error::{Error, Result};
use crate::num::words::Words;
use cudarc::driver::CudaSlice;
use rns_core::ozaki::moduli_for;
use rns_core::Modulus;
use std::borrow::Cow;
use std::ops::Range;
use std::sync::Arc;

/// Block-cyclic rows: panel `p` (rows `p·b..(p + 1)·b`) on device `p mod devices`.
#[derive(Clone, Copy, Debug)]
struct Panels {
    n: usize,
    b: usize,
    devices: usize,
}

impl Panels {
    fn count(&self) -> usize {
        self.n.div_ceil(self.b)
    }

    /// The rows of panel `p`.
    fn rows(&self, p: usize) -> Range<usize> {
        p * self.b..((p + 1) * self.b).min(self.n)
    }

    /// Device `d`'s panels, in order.
    fn of(&self, d: usize) -> impl Iterator<Item = usize> {
        (d..self.count()).step_by(self.devices)
    }

    /// Rows on device `d`.
    fn rows_on(&self, d: usize) -> usize {
        self.of(d).map(|p| self.rows(p).len()).sum()
    }

    /// Device `d`'s local index of its first row in a panel from `p` on: its panels
    /// before `p` (each whole, as only the last panel is short) times `b`.
    fn local_from(&self, d: usize, p: usize) -> usize {
        p.saturating_sub(d).div_ceil(self.devices) * self.b
    }
}

/// The panel width of a factorization of `channels` matrices `n × cols` split by rows
/// across `gpus` (LU, or Gauss–Jordan with `jordan`), or `None` where it does not
/// apply: fewer than two devices, the panels not applying on the first
/// ([`launch::inverse_panel`]), fewer panels than devices, or a device whose rows and
/// scratch do not fit its memory budget. Enables peer access between the devices where
/// they allow it (the panels' copies go through the host otherwise).
pub fn split_panel(
    gpus: &[Arc<Gpu>],
    (n, cols): (usize, usize),
    channels: usize,
    jordan: bool,
) -> Result<Option<usize>> {
    if gpus.len() < 2 {
        return Ok(None);
    }
    let Some(b) = launch::inverse_panel(&gpus[0], (n, cols), channels, jordan) else {
        return Ok(None);
    };
    let panels = Panels {
        n,
        b,
        devices: gpus.len(),
    };
    if panels.count() < gpus.len() {
        return Ok(None);
    }
    for (d, gpu) in gpus.iter().enumerate() {
        if part_words(&panels, d, (cols, channels)).saturating_mul(4) > gpu.budget()? {
            return Ok(None);
        }
    }
    let refs: Vec<&Gpu> = gpus.iter().map(|g| &**g).collect();
    peer::all_pairs(&refs)?;
    Ok(Some(b))
}

/// One device's part: its rows of every channel's `n × cols` matrix, a copy of the
/// current panel's rows from the panel's device, the block inverse, the product of its
/// blocks' determinants.
struct Part {
    mats: CudaSlice<u32>,
    panel: CudaSlice<u32>,
    inverse: CudaSlice<u32>,
    dets: CudaSlice<u32>,
    moduli: CudaSlice<u32>,
    rows: usize,
}

/// The right-hand sides factored beside the matrices.
#[derive(Clone, Copy, Debug)]
pub enum Rhs<'a> {
    /// None: a determinant.
    None,
    /// `n × k` per channel, one after another.
    Given(&'a [u32], usize),
    /// The identity: the inverse.
    Identity,
}

/// Device `d`'s panels' rows of every channel, stacked, `width` words a row: from
/// `whole` (every channel's `n × width` matrix, one after another) uploaded once and
/// its rows taken on the device where it fits beside the part (`room`); else from
/// `block(c, p)` (the rows of panel `p` of channel `c`), uploaded one block at a time.
fn upload_rows<'a>(
    gpu: &Gpu,
    (panels, d): (&Panels, usize),
    (channels, width, room): (usize, usize, bool),
    whole: Option<&[u32]>,
    block: &(dyn Fn(usize, usize) -> Cow<'a, [u32]> + Sync),
) -> Result<CudaSlice<u32>> {
    let (rows, s, n) = (panels.rows_on(d), gpu.stream(), panels.n);
    let mut out = gpu.alloc_on(s, channels * rows * width)?;
    let all = match whole {
        Some(w) if room => Some(gpu.upload_words(w)?),
        _ => None,
    };
    let mut at = 0;
    for c in 0..channels {
        for p in panels.of(d) {
            let r = panels.rows(p);
            let len = r.len() * width;
            let dst = &mut out.slice_mut(at..at + len);
            match &all {
                Some(all) => {
                    let from = (c * n + r.start) * width;
                    gpu.dtod(s, &all.slice(from..from + len), dst)?;
                }
                None => gpu.dtod(s, &gpu.upload_words(&block(c, p))?, dst)?,
            }
            at += len;
        }
    }
    Ok(out)
}

/// Device words of device `d`'s part of `channels` matrices `n × cols` in panels: its
/// rows, the copy of a panel's rows, the block inverse and the largest product's
/// scratch; while uploading, one block of `A`'s or `B`'s rows and (beside right-hand
/// sides) all of its rows of one of them.
fn part_words(panels: &Panels, d: usize, (cols, channels): (usize, usize)) -> usize {
    let (rows, b, n) = (panels.rows_on(d), panels.b, panels.n);
    let scratch = launch::inverse_panels_scratch_words(b, (rows.max(b), cols));
    let wide = n.max(cols - n);
    let staged = b * wide + if cols > n { rows * wide } else { 0 };
    channels.saturating_mul(rows * cols + b * cols + scratch + staged)
}

/// Device `d`'s part: its rows of every channel's `n × n` matrix in `a` (one after
/// another) with the right-hand sides `rhs` beside them (`cols` wide), and the part's
/// buffers. `A` and `B` go to every device whole where they fit beside the part (each
/// device takes its rows there), else a panel's rows at a time.
fn upload_part(
    gpu: &Gpu,
    (panels, d): (&Panels, usize),
    moduli: &[Modulus],
    (a, rhs, cols): (&[u32], Rhs<'_>, usize),
) -> Result<Part> {
    let (channels, rows, b, n) = (moduli.len(), panels.rows_on(d), panels.b, panels.n);
    let s = gpu.stream();
    let part = part_words(panels, d, (cols, channels));
    let room = (part + channels * n * n.max(cols - n)).saturating_mul(4) <= gpu.budget()?;
    let rows_of_a = |c: usize, p: usize| {
        let r = panels.rows(p);
        Cow::Borrowed(&a[(c * n + r.start) * n..(c * n + r.end) * n])
    };
    let a_rows = || {
        let shape = (channels, n, room);
        upload_rows(gpu, (panels, d), shape, Some(a), &rows_of_a)
    };
    let mats = match rhs {
        Rhs::None => a_rows()?,
        Rhs::Given(..) | Rhs::Identity => {
            let k = cols - n;
            let lines = (channels * rows, cols);
            let mut mats = gpu.alloc_on(s, channels * rows * cols)?;
            let da = a_rows()?;
            launch::launch_place_columns(gpu, s, &mut mats, Some(&da), lines, (0, n))?;
            drop(da);
            let rows_of_b = |c: usize, p: usize| {
                let r = panels.rows(p);
                match rhs {
                    Rhs::Given(b, k) => {
                        Cow::Borrowed(&b[(c * n + r.start) * k..(c * n + r.end) * k])
                    }
                    _ => {
                        let mut e = vec![0u32; r.len() * n];
                        for (i, row) in r.enumerate() {
                            e[i * n + row] = 1;
                        }
                        Cow::Owned(e)
                    }
                }
            };
            let whole = match rhs {
                Rhs::Given(b, _) => Some(b),
                _ => None,
            };
            let shape = (channels, k, room);
            let db = upload_rows(gpu, (panels, d), shape, whole, &rows_of_b)?;
            launch::launch_place_columns(gpu, s, &mut mats, Some(&db), lines, (n, k))?;
            mats
        }
    };
    Ok(Part {
        mats,
        panel: gpu.alloc_on(s, channels * b * cols)?,
        inverse: gpu.alloc_on(s, channels * b * b)?,
        dets: gpu.upload_on(s, &vec![1u32; channels])?,
        moduli: gpu.upload_on(s, &moduli_words(moduli))?,
        rows,
    })
}

/// `A22 −= A21·R` on one device for its (local) `rows`: `A21` their columns
/// `k0..k0 + shape.k`, `R` (`shape.k × shape.p`, at `r` in the part's copy of the panel
/// with `from_panel`, else in its own rows).
fn update(
    gpu: &Gpu,
    part: &mut Part,
    (from_panel, r): (bool, View),
    (rows, k0, cols): (Range<usize>, usize, usize),
    shape: Matmul,
) -> Result<()> {
    if rows.is_empty() {
        return Ok(());
    }
    let (s, size, count) = (
        gpu.stream(),
        part.rows * cols,
        moduli_for(shape.k).unwrap_or(1),
    );
    let shape = Matmul {
        n: rows.len(),
        ..shape
    };
    let lhs = View::new(size, rows.start * cols + k0, cols, 1);
    let out = View::new(size, rows.start * cols + k0 + shape.k, cols, 1);
    let r_from = from_panel.then_some(&part.panel);
    let ops = (&part.inverse, &mut part.mats, &part.moduli, count);
    panel_product(gpu, s, shape, (true, lhs), (r_from, r), ops, (out, true))
}

/// Panel `p` on its device `o`: the diagonal block's inverse (its determinant into the
/// part's), then `R = A11⁻¹·A12` in place of the panel's rows right of the block.
fn panel_on_owner(
    gpu: &Gpu,
    part: &mut Part,
    (panels, p, lr): (&Panels, usize, usize),
    (cols, channels): (usize, usize),
) -> Result<()> {
    let (rows, b, s) = (panels.rows(p), panels.b, gpu.stream());
    let (k0, k1, w) = (rows.start, rows.end, rows.len());
    let shape = (part.rows, cols, channels);
    let (dets, inverse) = (&mut part.dets, &mut part.inverse);
    launch_block_inverse(
        gpu,
        s,
        shape,
        (lr, k0, w),
        (dets, inverse, BlockOut::packed(w, b * b)),
        &part.mats,
        &part.moduli,
    )?;
    if cols == k1 {
        return Ok(());
    }
    let size = part.rows * cols;
    let shape = Matmul {
        n: w,
        k: w,
        p: cols - k1,
        channels,
    };
    let count = moduli_for(w).unwrap_or(1);
    let r = View::new(size, lr * cols + k1, 1, cols);
    let out = View::new(size, lr * cols + k1, cols, 1);
    let lhs = (false, View::new(b * b, 0, w, 1));
    let ops = (&part.inverse, &mut part.mats, &part.moduli, count);
    panel_product(gpu, s, shape, lhs, (None, r), ops, (out, false))
}

/// Factors each channel's `n × n` matrix in `a` (one after another), with the
/// right-hand sides `rhs` beside it, split across `gpus` in panels of `b`
/// ([`split_panel`]): LU without right-hand sides, else Gauss–Jordan. Each channel's
/// determinant of `A` (0 where a block was singular), and beside right-hand sides
/// `A⁻¹·B` for every row, channel after channel.
fn factor_split(
    gpus: &[Arc<Gpu>],
    moduli: &[Modulus],
    (n, b): (usize, usize),
    (a, rhs): (&[u32], Rhs<'_>),
) -> Result<(Vec<u32>, Words)> {
    let k = match rhs {
        Rhs::None => 0,
        Rhs::Given(_, k) => k,
        Rhs::Identity => n,
    };
    let (cols, jordan) = (n + k, k > 0);
    let (channels, devices) = (moduli.len(), gpus.len());
    let panels = Panels { n, b, devices };
    let mut parts = each_on_thread(gpus, &|d, gpu| {
        upload_part(gpu, (&panels, d), moduli, (a, rhs, cols))
    })
    .into_iter()
    .collect::<Result<Vec<_>>>()?;
    let done = queue_panels(gpus, &mut parts, &panels, (cols, channels, jordan))
        .and_then(|()| gather(gpus, &parts, &panels, moduli, (cols, jordan)));
    if done.is_err() {
        // Work queued on one device may still read another's rows: every queue ends
        // (or gives up, bounded) before the parts go back to their pools.
        for gpu in gpus {
            drop(gpu.sync_stream(gpu.stream()));
        }
    }
    done
}

/// Queues every panel's work on the devices' streams (`parts` their parts of the
/// matrices in `panels`, `cols` wide; with `jordan` Gauss–Jordan, else LU).
fn queue_panels(
    gpus: &[Arc<Gpu>],
    parts: &mut [Part],
    panels: &Panels,
    (cols, channels, jordan): (usize, usize, bool),
) -> Result<()> {
    let (b, devices) = (panels.b, gpus.len());
    // Panel p's block inverse and R are queued ahead, by its device, before that
    // device's own trailing update for panel p − 1 (only its rows of panel p first):
    // the other devices' wait for R is then not the whole of that update.
    panel_on_owner(&gpus[0], &mut parts[0], (panels, 0, 0), (cols, channels))?;
    let mut ready = Some(gpus[0].mark()?);
    for p in 0..panels.count() {
        let Some(formed) = ready.take() else {
            return Err(Error::Internal("a panel not formed ahead".into()));
        };
        let (rows, o) = (panels.rows(p), p % devices);
        let (k0, k1, lr) = (rows.start, rows.end, panels.local_from(o, p));
        if cols == k1 {
            break;
        }
        let shape = Matmul {
            n: 0,
            k: rows.len(),
            p: cols - k1,
            channels,
        };
        let next = (p + 1 < panels.count()).then(|| ((p + 1) % devices, panels.rows(p + 1)));
        let (before, rest) = parts.split_at_mut(o);
        let Some((owner, after)) = rest.split_first_mut() else {
            return Err(Error::Internal("a panel without its device".into()));
        };
        let osize = owner.rows * cols;
        let others = (0..o)
            .chain(o + 1..devices)
            .zip(before.iter_mut().chain(after));
        let mut copied = Vec::new();
        for (d, part) in others {
            let gpu = &gpus[d];
            gpu.stream_wait(&formed)?;
            for c in 0..channels {
                let from = c * osize + lr * cols;
                let src = (&*gpus[o], &owner.mats, from..from + rows.len() * cols);
                peer::copy_from((gpu, &mut part.panel, c * b * cols), src)?;
            }
            copied.push(gpu.mark()?);
            let r = (true, View::new(b * cols, k1, 1, cols));
            let mut below = panels.local_from(d, p + 1)..part.rows;
            if let Some((_, next_rows)) = next.clone().filter(|&(q, _)| q == d) {
                let ahead = below.start..below.start + next_rows.len();
                update(gpu, part, r, (ahead.clone(), k0, cols), shape)?;
                panel_on_owner(gpu, part, (panels, p + 1, ahead.start), (cols, channels))?;
                ready = Some(gpu.mark()?);
                below.start = ahead.end;
            }
            update(gpu, part, r, (below, k0, cols), shape)?;
            if jordan {
                let above = 0..panels.local_from(d, p);
                update(gpu, part, r, (above, k0, cols), shape)?;
            }
        }
        let r = (false, View::new(osize, lr * cols + k1, 1, cols));
        let below = lr + rows.len()..owner.rows;
        update(&gpus[o], owner, r, (below, k0, cols), shape)?;
        if jordan {
            update(&gpus[o], owner, r, (0..lr, k0, cols), shape)?;
            // Later panels change these rows: not before every copy of them is made.
            for event in &copied {
                gpus[o].stream_wait(event)?;
            }
        }
    }
    Ok(())
}

/// The determinants (each channel's devices' products multiplied) and, with `jordan`,
/// columns `n..cols` of every row in row order (each device's panels copied straight
/// into place, page-locked where the pool has room), once every device's work is done.
fn gather(
    gpus: &[Arc<Gpu>],
    parts: &[Part],
    panels: &Panels,
    moduli: &[Modulus],
    (cols, jordan): (usize, bool),
) -> Result<(Vec<u32>, Words)> {
    let (channels, n) = (moduli.len(), panels.n);
    let k = if jordan { cols - n } else { 0 };
    let mut dets = vec![1u64; channels];
    let mut x = gpus[0].result_words(channels * n * k);
    for (d, (gpu, part)) in gpus.iter().zip(parts).enumerate() {
        let s = gpu.stream();
        gpu.sync_stream(s)?;
        let mine = gpu.download_on(s, &part.dets, channels)?;
        for (c, det) in mine.into_iter().enumerate() {
            dets[c] = dets[c] * det as u64 % moduli[c].m as u64;
        }
        if k == 0 {
            continue;
        }
        let lines = channels * part.rows;
        let mut got = gpu.alloc_on(s, lines * k)?;
        launch::launch_gather_columns(gpu, s, &mut got, &part.mats, (lines, cols), n)?;
        let mut at = 0;
        for c in 0..channels {
            for p in panels.of(d) {
                let r = panels.rows(p);
                let dst = &mut x[(c * n + r.start) * k..(c * n + r.end) * k];
                gpu.dtoh(s, &got.slice(at..at + dst.len()), dst)?;
                at += dst.len();
            }
        }
    }
    // The copies into page-locked memory run on after their calls.
    for gpu in gpus {
        gpu.sync_stream(gpu.stream())?;
    }
    Ok((dets.into_iter().map(|d| d as u32).collect(), x))
}

/// The determinant modulo each of `moduli` of its `n × n` matrix in `data` (one
/// row-major matrix per modulus, one after another), split across `gpus` in panels of
/// `b` ([`split_panel`]); 0 for a channel whose panel block was singular somewhere
/// (its determinant is then to be found another way).
pub fn det_split(
    gpus: &[Arc<Gpu>],
    moduli: &[Modulus],
    n: usize,
    b: usize,
    data: &[u32],
) -> Result<Vec<u32>> {
    require_words(data.len(), moduli.len() * n * n)?;
    Ok(factor_split(gpus, moduli, (n, b), (data, Rhs::None))?.0)
}

/// `A⁻¹·B` modulo each of `moduli` split across `gpus` in panels of `panel`
/// ([`split_panel`] with `jordan`): `a` the `n × n` matrices (one row-major matrix per
/// modulus, one after another) and `rhs` the right-hand sides (`Rhs::Identity`: the
/// inverses), channel after channel. `None` when a panel block was singular modulo some
/// prime: the caller solves another way (and finds whether `A` is singular).
pub fn solve_split(
    gpus: &[Arc<Gpu>],
    moduli: &[Modulus],
    (n, panel): (usize, usize),
    a: &[u32],
    rhs: Rhs<'_>,
) -> Result<Option<Words>> {
    require_words(a.len(), moduli.len() * n * n)?;
    match rhs {
        Rhs::None => return Err(Error::Internal("a solve without right-hand sides".into())),
        Rhs::Given(b, k) => require_words(b.len(), moduli.len() * n * k)?,
        Rhs::Identity => {}
    }
    let (dets, x) = factor_split(gpus, moduli, (n, panel), (a, rhs))?;
    Ok(dets.iter().all(|&d| d != 0).then_some(x))
}

/// A shape error unless `len` words are the `want` the shape needs.
fn require_words(len: usize, want: usize) -> Result<()> {
    match len == want {
        true => Ok(()),
        false => Err(Error::Shape(format!(
            "{len} residues where the matrices need {want}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::Panels;

    #[test]
    fn each_device_finds_its_rows_of_every_panel() {
        for (n, b, devices) in [(100, 16, 2), (65, 16, 3), (32, 16, 2), (7, 1, 4)] {
            let panels = Panels { n, b, devices };
            let mut seen = vec![0usize; devices];
            for p in 0..panels.count() {
                let d = p % devices;
                assert_eq!(
                    panels.local_from(d, p),
                    seen[d],
                    "{n}/{b}/{devices}: panel {p}"
                );
                for other in (0..devices).filter(|&e| e != d) {
                    assert_eq!(panels.local_from(other, p), seen[other]);
                }
                seen[d] += panels.rows(p).len();
            }
            for (d, &rows) in seen.iter().enumerate() {
                assert_eq!(panels.rows_on(d), rows, "{n}/{b}/{devices}: device {d}");
            }
            assert_eq!(seen.iter().sum::<usize>(), n);
        }
    }
}
