//! Host data streamed through the device in chunks: each chunk is gathered into a
//! page-locked buffer (all cores copying), copied up, worked on by the kernels, copied
//! down and scattered into the host output, on one of several streams, so that the
//! copies of one chunk overlap the kernels and copies of the others and the gathering
//! of the next. Small transfers skip the page-locked buffers and use one stream.

use super::device::cuda;
use super::fault::FaultSite;
use super::staging::Pinned;
use super::Gpu;
use crate::error::{Error, Result};
use crate::num::words::{Words, WordsRef};
use cudarc::driver::{CudaEvent, CudaSlice, CudaStream};
use rayon::prelude::*;
use std::ops::Range;
use std::sync::Arc;

/// Streams (and chunks in flight) of a pipeline.
pub(crate) const SLOTS: usize = 3;
/// Host bytes (in and out) per chunk: large enough for full-speed copies, small enough
/// for several chunks in flight.
const CHUNK_BYTES: usize = 32 << 20;
/// Below this many bytes in all, one chunk through pageable memory is cheaper.
pub(super) const SMALL_BYTES: usize = 4 << 20;
/// Words copied by one task of a parallel copy.
const COPY_GRAIN: usize = 1 << 16;

/// A host operand: `rows` rows of `len` items of `item` words (row `r`, item `i` at word
/// `(r·len + i)·item`). A chunk of items `a..b` travels as the rows' segments one after
/// another (`rows × (b − a) × item` words): for channel-major residues (`rows` =
/// channels, `item` = 1) that is the layout of a vector of `b − a` numbers, for
/// per-channel matrices (`rows` = 1, `item` = matrix words) that of `b − a` matrices.
/// Page-locked operands ([`Words::Locked`]) are copied directly, row segment by row
/// segment, with no staging copy.
#[derive(Clone, Copy, Debug)]
pub(crate) struct HostIn<'a> {
    data: &'a [u32],
    rows: usize,
    item: usize,
    direct: bool,
}

/// A host result, laid out as [`HostIn`].
#[derive(Debug)]
pub(crate) struct HostOut<'a> {
    data: &'a mut [u32],
    rows: usize,
    item: usize,
    direct: bool,
}

impl<'a> HostIn<'a> {
    /// `data` as `rows` rows of items of `item` words, copied directly when page-locked.
    pub(crate) fn new(data: impl Into<WordsRef<'a>>, rows: usize, item: usize) -> HostIn<'a> {
        let w = data.into();
        HostIn {
            data: w.data,
            rows,
            item,
            direct: w.locked,
        }
    }

    /// The word range of row `row`'s segment of the chunk `r` of `len` items.
    fn segment(&self, len: usize, r: &Range<usize>, row: usize) -> Range<usize> {
        (row * len + r.start) * self.item..(row * len + r.end) * self.item
    }

    fn words(&self, items: usize) -> usize {
        self.rows * items * self.item
    }

    /// Copies the chunk `r` of `len` items into `dst`.
    fn gather(&self, len: usize, r: &Range<usize>, dst: &mut [u32]) {
        let seg = r.len() * self.item;
        dst[..self.rows * seg]
            .par_chunks_mut(seg.max(1))
            .enumerate()
            .for_each(|(row, d)| {
                let s = (row * len + r.start) * self.item;
                par_copy(d, &self.data[s..s + seg]);
            });
    }
}

impl<'a> HostOut<'a> {
    /// `data` as `rows` rows of items of `item` words.
    pub(crate) fn new(data: &'a mut [u32], rows: usize, item: usize) -> HostOut<'a> {
        HostOut {
            data,
            rows,
            item,
            direct: false,
        }
    }

    /// `words` as `rows` rows of items of `item` words, copied into directly when
    /// page-locked.
    pub(crate) fn of(words: &'a mut Words, rows: usize, item: usize) -> HostOut<'a> {
        let direct = words.is_locked();
        HostOut {
            direct,
            ..HostOut::new(words, rows, item)
        }
    }

    fn words(&self, items: usize) -> usize {
        self.rows * items * self.item
    }

    /// Copies the chunk `r` of `len` items from `src` into place.
    fn scatter(&mut self, len: usize, r: &Range<usize>, src: &[u32]) {
        let (seg, item) = (r.len() * self.item, self.item);
        // Rows are disjoint: split the output into rows, then take each row's segment.
        let row_words = len * item;
        self.data[..self.rows * row_words]
            .par_chunks_mut(row_words.max(1))
            .zip(src[..self.rows * seg].par_chunks(seg.max(1)))
            .for_each(|(row, s)| par_copy(&mut row[r.start * item..r.end * item], s));
    }
}

/// `dst.copy_from_slice(src)` by all cores.
fn par_copy(dst: &mut [u32], src: &[u32]) {
    if dst.len() <= COPY_GRAIN {
        dst.copy_from_slice(src);
        return;
    }
    dst.par_chunks_mut(COPY_GRAIN)
        .zip(src.par_chunks(COPY_GRAIN))
        .for_each(|(d, s)| d.copy_from_slice(s));
}

/// Host side of a slot: page-locked when the transfer is large, plain memory otherwise.
enum HostBuf {
    Heap(Vec<u32>),
    Pinned(Pinned),
}

impl HostBuf {
    fn get(gpu: &Gpu, words: usize, pinned: bool) -> Result<HostBuf> {
        Ok(if pinned {
            gpu.config().check_fault(FaultSite::Pinned)?;
            HostBuf::Pinned(gpu.staging().take(gpu.context(), words)?)
        } else {
            HostBuf::Heap(vec![0; words])
        })
    }

    fn slice(&self, n: usize) -> &[u32] {
        match self {
            HostBuf::Heap(v) => &v[..n],
            HostBuf::Pinned(p) => p.slice(n),
        }
    }

    fn slice_mut(&mut self, n: usize) -> &mut [u32] {
        match self {
            HostBuf::Heap(v) => &mut v[..n],
            HostBuf::Pinned(p) => p.slice_mut(n),
        }
    }
}

/// One stream with its buffers and the chunk it has in flight.
struct Slot {
    stream: Arc<CudaStream>,
    /// Staging buffers of the operands that are not copied directly.
    host_in: Vec<Option<HostBuf>>,
    host_out: Vec<Option<HostBuf>>,
    dev_in: Vec<CudaSlice<u32>>,
    dev_out: Vec<CudaSlice<u32>>,
    pending: Option<(Range<usize>, CudaEvent)>,
}

/// The kernels of one chunk: `(stream, device inputs, device outputs, items)`; the
/// inputs may be overwritten.
pub(crate) type ChunkKernel<'k> = dyn FnMut(
        &Arc<CudaStream>,
        &mut [CudaSlice<u32>],
        &mut [CudaSlice<u32>],
        Range<usize>,
    ) -> Result<()>
    + 'k;

impl Gpu {
    /// Streams `len` items of `inputs` through `kernel`, chunk by chunk, into `outputs`.
    /// A chunk holds at most `max_items` items; `extra_words` is the device scratch per
    /// item that `kernel` allocates itself (for the memory budget). Inputs and outputs
    /// must each hold `rows × len × item` words.
    pub(crate) fn stream_chunks(
        &self,
        len: usize,
        inputs: &[HostIn],
        outputs: &mut [HostOut],
        extra_words: usize,
        max_items: usize,
        kernel: &mut ChunkKernel,
    ) -> Result<()> {
        for (what, words, have) in inputs
            .iter()
            .map(|x| ("input", x.words(len), x.data.len()))
            .chain(
                outputs
                    .iter()
                    .map(|x| ("output", x.words(len), x.data.len())),
            )
        {
            if have != words {
                return Err(Error::Internal(format!(
                    "pipeline {what} of {have} words for {len} items of {words} words in all"
                )));
            }
        }
        if len == 0 {
            return Ok(());
        }
        let per_item: usize = inputs.iter().map(|x| x.words(1)).sum::<usize>()
            + outputs.iter().map(|x| x.words(1)).sum::<usize>();
        let small = len * per_item * 4 <= SMALL_BYTES;
        let slots = if small { 1 } else { SLOTS };
        let host_items = if small {
            len
        } else {
            (CHUNK_BYTES / (4 * per_item.max(1))).max(1)
        };
        let chunk = self.chunk_items(
            len,
            4 * (per_item + extra_words),
            0,
            slots,
            max_items.min(host_items),
        )?;
        let streams = self.lease_streams(slots)?;
        let mut ring = Vec::with_capacity(slots);
        for stream in streams.iter() {
            let mk_host = |words: usize, direct: bool| {
                (!direct)
                    .then(|| HostBuf::get(self, words, !small))
                    .transpose()
            };
            let mk_dev = |words: usize| self.alloc_on(stream, words);
            ring.push(Slot {
                stream: stream.clone(),
                host_in: inputs
                    .iter()
                    .map(|x| mk_host(x.words(chunk), x.direct))
                    .collect::<Result<_>>()?,
                host_out: outputs
                    .iter()
                    .map(|x| mk_host(x.words(chunk), x.direct))
                    .collect::<Result<_>>()?,
                dev_in: inputs
                    .iter()
                    .map(|x| mk_dev(x.words(chunk)))
                    .collect::<Result<_>>()?,
                dev_out: outputs
                    .iter()
                    .map(|x| mk_dev(x.words(chunk)))
                    .collect::<Result<_>>()?,
                pending: None,
            });
        }
        let result = self.run_ring(&mut ring, len, chunk, inputs, outputs, kernel);
        // Every copy has finished (or failed) before the buffers go back to the pool.
        for slot in &ring {
            let _ = self.wait_stream(&slot.stream, "a pipeline's copies");
        }
        for slot in ring {
            for b in slot.host_in.into_iter().chain(slot.host_out).flatten() {
                if let HostBuf::Pinned(p) = b {
                    self.staging().give(p);
                }
            }
        }
        result
    }

    fn run_ring(
        &self,
        ring: &mut [Slot],
        len: usize,
        chunk: usize,
        inputs: &[HostIn],
        outputs: &mut [HostOut],
        kernel: &mut ChunkKernel,
    ) -> Result<()> {
        let finish = |slot: &mut Slot, outputs: &mut [HostOut]| -> Result<()> {
            if let Some((r, done)) = slot.pending.take() {
                self.sync_event(done)?;
                for (o, h) in outputs.iter_mut().zip(&slot.host_out) {
                    if let Some(h) = h {
                        o.scatter(len, &r, h.slice(o.words(r.len())));
                    }
                }
            }
            Ok(())
        };
        for (j, r) in super::memory::ranges(len, chunk).into_iter().enumerate() {
            let slot = &mut ring[j % ring.len()];
            finish(slot, outputs)?;
            let s = &slot.stream;
            for ((x, h), d) in inputs.iter().zip(&mut slot.host_in).zip(&mut slot.dev_in) {
                let n = x.words(r.len());
                match h {
                    Some(h) => {
                        x.gather(len, &r, h.slice_mut(n));
                        self.htod(s, h.slice(n), d)?;
                    }
                    None => {
                        let seg = r.len() * x.item;
                        for row in 0..x.rows {
                            let src = &x.data[x.segment(len, &r, row)];
                            let mut dst = d.slice_mut(row * seg..(row + 1) * seg);
                            self.htod(s, src, &mut dst)?;
                        }
                    }
                }
            }
            kernel(s, &mut slot.dev_in, &mut slot.dev_out, r.clone())?;
            for ((o, h), d) in outputs
                .iter_mut()
                .zip(&mut slot.host_out)
                .zip(&slot.dev_out)
            {
                let n = o.words(r.len());
                match h {
                    Some(h) => self.dtoh(s, &d.slice(0..n), h.slice_mut(n))?,
                    None => {
                        // Into the page-locked result itself; it is read only after the
                        // final synchronisation of every stream.
                        let seg = r.len() * o.item;
                        for row in 0..o.rows {
                            let src = d.slice(row * seg..(row + 1) * seg);
                            let at = (row * len + r.start) * o.item;
                            self.dtoh(s, &src, &mut o.data[at..at + seg])?;
                        }
                    }
                }
            }
            slot.pending = Some((r, slot.stream.record_event(None).map_err(cuda)?));
        }
        // Drain in chunk order.
        ring.sort_by_key(|s| s.pending.as_ref().map(|(r, _)| r.start));
        for slot in ring.iter_mut() {
            finish(slot, outputs)?;
        }
        Ok(())
    }
}
