//! Fault injection for tests: the n-th device allocation, page-locked host buffer,
//! copy, kernel launch or synchronisation of one device fails with the error the driver
//! gives for such a failure, so that tests can show that a failure at every site gives
//! a clean error, no partial output, and a device that still works afterwards. The
//! n-th launch whose blocks wait for each other can also be made to stall
//! ([`FaultSite::Stall`]): its waits ignore what arrives until the stall limit.
//!
//! Armed through [`crate::backend::gpu::GpuConfig::set_fault`], or for a whole process (the CLI)
//! through `RNS_GPU_FAULT=SITE:N`, read when the device opens.

use crate::error::{Error, Result};
use cudarc::driver::sys::CUresult;
use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering};

/// The environment variable that arms a fault for the process: `SITE:N`, for example
/// `launch:3` (the third kernel launch on each device fails).
pub const FAULT_VAR: &str = "RNS_GPU_FAULT";

/// A kind of device operation that can be made to fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FaultSite {
    /// A device allocation (fails as out of memory).
    Alloc,
    /// A page-locked host buffer for streamed transfers (fails as out of memory).
    Pinned,
    /// A copy host to device, device to host or device to device.
    Copy,
    /// A kernel launch.
    Launch,
    /// Waiting for a stream or an event (where errors of earlier work surface).
    Sync,
    /// A launch whose blocks wait for each other (`rns_dixon_lift`,
    /// `rns_dixon_lift_global…`, `rns_gauss_jordan`): it stalls on purpose, its waits
    /// blind to the words they wait for, until the stall limit ends it. Not in
    /// [`FaultSite::ALL`]: it costs the stall limit.
    Stall,
}

impl FaultSite {
    /// Every site that fails at once (not [`FaultSite::Stall`]).
    pub const ALL: [FaultSite; 5] = [
        FaultSite::Alloc,
        FaultSite::Pinned,
        FaultSite::Copy,
        FaultSite::Launch,
        FaultSite::Sync,
    ];

    /// The site's name in `RNS_GPU_FAULT`.
    pub fn name(self) -> &'static str {
        match self {
            FaultSite::Alloc => "alloc",
            FaultSite::Pinned => "pinned",
            FaultSite::Copy => "copy",
            FaultSite::Launch => "launch",
            FaultSite::Sync => "sync",
            FaultSite::Stall => "stall",
        }
    }

    /// The driver's result for a failure at this site.
    fn result(self) -> CUresult {
        match self {
            FaultSite::Alloc | FaultSite::Pinned => CUresult::CUDA_ERROR_OUT_OF_MEMORY,
            FaultSite::Copy => CUresult::CUDA_ERROR_ILLEGAL_ADDRESS,
            FaultSite::Launch => CUresult::CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,
            FaultSite::Sync | FaultSite::Stall => CUresult::CUDA_ERROR_LAUNCH_FAILED,
        }
    }

    fn code(self) -> u8 {
        self as u8 + 1
    }
}

impl fmt::Display for FaultSite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A fault to inject: the `nth` (from 1) operation at `site` fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fault {
    /// Where.
    pub site: FaultSite,
    /// Which occurrence, counting from 1 since the fault was armed.
    pub nth: usize,
}

impl FromStr for Fault {
    type Err = Error;

    fn from_str(s: &str) -> Result<Fault> {
        let bad = || {
            Error::no_gpu(format!(
                "{FAULT_VAR}={s:?}: expected SITE:N with SITE one of alloc, pinned, copy, \
                 launch, sync, stall and N ≥ 1"
            ))
        };
        let (site, n) = s.trim().split_once(':').ok_or_else(bad)?;
        let site = FaultSite::ALL
            .into_iter()
            .chain([FaultSite::Stall])
            .find(|f| f.name() == site)
            .ok_or_else(bad)?;
        let nth = n.parse().ok().filter(|&n| n >= 1).ok_or_else(bad)?;
        Ok(Fault { site, nth })
    }
}

/// The armed fault of one device, if any (all atomics: checked from every thread).
#[derive(Debug, Default)]
pub(crate) struct Faults {
    /// [`FaultSite::code`] of the armed site, 0 when none.
    site: AtomicU8,
    /// Occurrences left before the failure (the failing one included).
    left: AtomicUsize,
    fired: AtomicBool,
}

impl Faults {
    /// Arms `fault` (or disarms with `None`) and clears [`Faults::fired`].
    pub(crate) fn set(&self, fault: Option<Fault>) {
        self.site.store(0, Ordering::SeqCst);
        self.fired.store(false, Ordering::SeqCst);
        if let Some(f) = fault {
            self.left.store(f.nth, Ordering::SeqCst);
            self.site.store(f.site.code(), Ordering::SeqCst);
        }
    }

    /// Whether the armed fault has failed an operation since it was armed.
    pub(crate) fn fired(&self) -> bool {
        self.fired.load(Ordering::SeqCst)
    }

    /// Counts one operation at `site`: the error of the armed fault when this is its
    /// occurrence (once), else `Ok`.
    pub(crate) fn check(&self, site: FaultSite) -> Result<()> {
        if self.site.load(Ordering::Relaxed) != site.code() {
            return Ok(());
        }
        let hit = self
            .left
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            == Ok(1);
        if !hit {
            return Ok(());
        }
        self.fired.store(true, Ordering::SeqCst);
        Err(Error::driver(
            format!("injected {site}"),
            cudarc::driver::DriverError(site.result()),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nth_occurrence_fails_once() {
        let f = Faults::default();
        assert!(f.check(FaultSite::Copy).is_ok(), "nothing armed");
        f.set(Some("copy:2".parse().unwrap()));
        assert!(f.check(FaultSite::Launch).is_ok(), "another site");
        assert!(f.check(FaultSite::Copy).is_ok());
        assert!(!f.fired());
        let e = f.check(FaultSite::Copy).unwrap_err();
        assert!(
            matches!(e, Error::Gpu { ref what, .. } if what.contains("injected copy")),
            "{e}"
        );
        assert!(f.fired());
        assert!(f.check(FaultSite::Copy).is_ok(), "only once");
        f.set(Some(Fault {
            site: FaultSite::Alloc,
            nth: 1,
        }));
        assert!(!f.fired());
        assert!(matches!(
            f.check(FaultSite::Alloc),
            Err(Error::GpuOutOfMemory { .. })
        ));
        f.set(None);
        assert!(f.check(FaultSite::Alloc).is_ok() && !f.fired());
    }

    #[test]
    fn bad_settings_are_refused() {
        for s in ["", "copy", "copy:0", "copy:x", "disk:1", ":3"] {
            assert!(
                matches!(s.parse::<Fault>(), Err(Error::NoGpu { .. })),
                "{s:?}"
            );
        }
        assert_eq!(
            " sync:7 ".parse::<Fault>().unwrap(),
            Fault {
                site: FaultSite::Sync,
                nth: 7
            }
        );
    }
}
