//! [`DeviceWords`]: residues resident on one device, and the operations on them that
//! never leave it. Every operation is queued on the device's own stream without waiting,
//! so that a chain of them runs back to back; only results the host asks for (flags,
//! signs, digits, a download) wait and cross PCIe.

use crate::backend::gpu::driver::memory::moduli_words;
use crate::backend::gpu::launch;
use crate::backend::gpu::launch::MrcTables;
use crate::backend::gpu::launch::{Digits, Elementwise, Equal, EqualKernel};
use crate::backend::gpu::Gpu;
use crate::error::Result;
use crate::num::op::Op;
use cudarc::driver::CudaSlice;
use rns_core::Modulus;
use std::sync::Arc;

/// Channel-major residues (`channels × len` words) on one device. The buffer keeps its
/// device's context alive (reference counted), so a value outliving every other handle
/// of the device stays valid.
#[derive(Debug)]
pub struct DeviceWords {
    gpu: Arc<Gpu>,
    buf: CudaSlice<u32>,
    /// The moduli of the channels, on the device (shared by values derived from one upload).
    moduli: Arc<CudaSlice<u32>>,
    words: usize,
}

impl DeviceWords {
    /// Uploads `channels × len` channel-major residues (`data`) over `moduli`.
    pub fn upload(gpu: &Arc<Gpu>, moduli: &[Modulus], data: &[u32]) -> Result<DeviceWords> {
        Ok(DeviceWords {
            gpu: gpu.clone(),
            buf: gpu.upload_words(data)?,
            moduli: Arc::new(gpu.upload(&moduli_words(moduli))?),
            words: data.len(),
        })
    }

    /// The device.
    pub fn gpu(&self) -> &Arc<Gpu> {
        &self.gpu
    }

    /// The residues, copied back.
    pub fn download(&self) -> Result<Vec<u32>> {
        self.gpu.download_words(&self.buf, self.words)
    }

    /// Words `range` of the residues, copied back.
    pub fn download_range(&self, range: std::ops::Range<usize>) -> Result<Vec<u32>> {
        self.gpu.download_range(self.gpu.stream(), &self.buf, range)
    }

    /// A new value of this device and moduli over a fresh buffer of `words` words.
    fn derived(&self, words: usize) -> Result<DeviceWords> {
        Ok(DeviceWords {
            gpu: self.gpu.clone(),
            buf: self.gpu.alloc(words)?,
            moduli: self.moduli.clone(),
            words,
        })
    }

    /// `op(inputs…)` for `len` numbers of `channels` channels (`inputs[0]` is `self`'s
    /// kind of value; all on this device); `scalar` holds one residue per channel for the
    /// scalar operations.
    pub fn elementwise(
        op: Op,
        inputs: &[&DeviceWords],
        scalar: &[u32],
        len: usize,
        channels: usize,
    ) -> Result<DeviceWords> {
        let first = inputs[0];
        let g = &first.gpu;
        let mut out = first.derived(len * channels)?;
        let ds = g.upload(scalar)?;
        let bufs: Vec<&CudaSlice<u32>> = inputs.iter().map(|x| &x.buf).collect();
        let shape = Elementwise { op, len, channels };
        launch::launch_elementwise(
            g,
            g.stream(),
            shape,
            &mut out.buf,
            &bufs,
            &ds,
            &first.moduli,
        )?;
        Ok(out)
    }

    /// Whether numbers agree in every channel.
    pub fn equal(&self, other: &DeviceWords, len: usize, channels: usize) -> Result<Vec<bool>> {
        let g = &self.gpu;
        let mut out = g.alloc(len)?;
        let shape = Equal {
            kernel: EqualKernel::WarpVote,
            len,
            channels,
        };
        launch::launch_equal(g, g.stream(), shape, &mut out, &self.buf, &other.buf)?;
        Ok(g.download(&out, len)?.into_iter().map(|x| x != 0).collect())
    }

    /// Mixed-radix digits (channel-major, `k × len`) over the `k` moduli of the tables `t`
    /// of the first `k` channels; left on the device.
    pub fn digits(&self, t: &MrcTables, len: usize) -> Result<CudaSlice<u32>> {
        let g = &self.gpu;
        let mut d = g.alloc(t.k * len)?;
        let shape = Digits { len, k: t.k };
        launch::launch_digits(
            g,
            g.stream(),
            shape,
            &mut d,
            &self.buf,
            None,
            &t.moduli,
            &t.table,
        )?;
        Ok(d)
    }

    /// `a[i]` against `b[i]` (or 0) over the moduli of `range`: −1, 0, 1 per number, as
    /// `vectors::compare`.
    pub fn compare(
        &self,
        other: Option<&DeviceWords>,
        range: &[Modulus],
        len: usize,
    ) -> Result<Vec<i32>> {
        let g = &self.gpu;
        let t = super::tables::mrc_tables(g, range)?;
        let mut scratch = (0..1 + other.is_some() as usize)
            .map(|_| g.alloc(t.k * len))
            .collect::<Result<Vec<_>>>()?;
        let mut out = g.alloc(len)?;
        let b = other.map(|b| &b.buf);
        launch::launch_compare(g, g.stream(), &t, len, &self.buf, b, &mut scratch, &mut out)?;
        Ok(g.download(&out, len)?
            .into_iter()
            .map(|x| x as i32)
            .collect())
    }
}
