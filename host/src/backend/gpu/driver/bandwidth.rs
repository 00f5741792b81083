//! The reference bandwidths that every GPU figure is read against, measured in the same
//! run as the figure: page-locked and pageable copies each way, both directions at once,
//! and a device-to-device copy.

use super::device::cuda;
use super::Gpu;
use crate::error::Result;
use std::time::Instant;

/// Median of `v` (not empty).
fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

impl Gpu {
    /// `(kind, bytes moved, ms)` for `bytes` bytes, medians of `reps` runs after a
    /// warm-up: page-locked (`h2d_pinned`, `d2h_pinned`) and pageable (`h2d_pageable`,
    /// `d2h_pageable`) copies, both directions at once on two streams (`duplex_pinned`),
    /// and a device-to-device copy (`d2d`, bytes read plus written). Device times by
    /// events where one stream runs, wall-clock time otherwise.
    pub fn reference_bandwidth(
        &self,
        bytes: usize,
        reps: usize,
    ) -> Result<Vec<(&'static str, usize, f64)>> {
        let reps = reps.max(1);
        let words = (bytes / 4).max(1);
        let ctx = self.context();
        let up = self.staging().take(ctx, words)?;
        let mut down = self.staging().take(ctx, words)?;
        let pageable = vec![1u32; words];
        let mut back = vec![0u32; words];
        let (mut d1, mut d2) = (self.upload_words(&pageable)?, self.alloc(words)?);
        let s = self.stream();
        let events = |f: &mut dyn FnMut() -> Result<()>| -> Result<f64> {
            f()?;
            self.sync()?;
            let t = (0..reps)
                .map(|_| self.time_ms(&mut *f))
                .collect::<Result<Vec<f64>>>()?;
            Ok(median(t))
        };
        let wall = |f: &mut dyn FnMut() -> Result<()>| -> Result<f64> {
            f()?;
            let mut t = Vec::with_capacity(reps);
            for _ in 0..reps {
                let start = Instant::now();
                f()?;
                t.push(start.elapsed().as_secs_f64() * 1e3);
            }
            Ok(median(t))
        };
        let mut rows = Vec::new();
        let h2d = events(&mut || s.memcpy_htod(up.slice(words), &mut d1).map_err(cuda))?;
        rows.push(("h2d_pinned", bytes, h2d));
        let d2h = events(&mut || s.memcpy_dtoh(&d1, down.slice_mut(words)).map_err(cuda))?;
        rows.push(("d2h_pinned", bytes, d2h));
        let h2d = wall(&mut || {
            s.memcpy_htod(&pageable, &mut d2).map_err(cuda)?;
            self.sync()
        })?;
        rows.push(("h2d_pageable", bytes, h2d));
        let d2h = wall(&mut || {
            s.memcpy_dtoh(&d2, &mut back).map_err(cuda)?;
            self.sync()
        })?;
        rows.push(("d2h_pageable", bytes, d2h));
        let streams = self.lease_streams(2)?;
        let both = wall(&mut || {
            streams[0]
                .memcpy_htod(up.slice(words), &mut d1)
                .map_err(cuda)?;
            streams[1]
                .memcpy_dtoh(&d2, down.slice_mut(words))
                .map_err(cuda)?;
            self.sync_stream(&streams[0])?;
            self.sync_stream(&streams[1])
        })?;
        rows.push(("duplex_pinned", 2 * bytes, both));
        let d2d = events(&mut || self.copy(&mut d2, &d1))?;
        rows.push(("d2d", 2 * bytes, d2d));
        self.sync()?;
        self.staging().give(up);
        self.staging().give(down);
        Ok(rows)
    }
}
