//! The kernels' module: machine code for the device's architecture where `build.rs`
//! built it with `ptxas` (no JIT compilation), else the PTX, which the driver compiles
//! (seconds on a fresh machine; the driver caches the result on disk); and the times of
//! a device's start, for `--stats`.

use cudarc::driver::{CudaContext, CudaModule, DriverError};
use cudarc::nvrtc::Ptx;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

/// The kernels, compiled from `device/` by `build.rs`.
pub const PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/rns_device.ptx"));

/// Machine code of the kernels for `sm_80` (every 8.x device); empty when `build.rs`
/// found no `ptxas`.
pub const CUBIN_SM80: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/rns_sm_80.cubin"));

/// Machine code of the kernels for `sm_90` (9.0 devices); empty without `ptxas`.
pub const CUBIN_SM90: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/rns_sm_90.cubin"));

/// The kernels that need `sm_90a` (Hopper's `wgmma`), split from [`PTX`] by `build.rs`.
pub const PTX_SM90A: &str = include_str!(concat!(env!("OUT_DIR"), "/rns_device_sm90a.ptx"));

/// Machine code of [`PTX_SM90A`]; empty without `ptxas`.
pub const CUBIN_SM90A: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/rns_sm_90a.cubin"));

/// Whether this build carries machine code (`build.rs` found `ptxas`).
pub const MACHINE_CODE_BUILT: bool = !CUBIN_SM80.is_empty() && !CUBIN_SM90.is_empty();

/// The machine code for a device of compute capability `major.minor`, and its name.
fn machine_code(major: i32, minor: i32) -> Option<(&'static str, &'static [u8])> {
    let (name, code) = match (major, minor) {
        (8, _) => ("sm_80", CUBIN_SM80),
        (9, 0) => ("sm_90", CUBIN_SM90),
        _ => return None,
    };
    (!code.is_empty()).then_some((name, code))
}

/// Which code a device loaded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Code {
    /// Machine code for this architecture: no JIT compilation.
    Machine(&'static str),
    /// The PTX, compiled by the driver (or taken from its cache).
    Ptx,
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Code::Machine(arch) => write!(f, "machine code for {arch} (no JIT)"),
            Code::Ptx => write!(f, "PTX compiled by the driver (JIT, or its disk cache)"),
        }
    }
}

/// Loads the kernels into `ctx` for a device of compute capability `major.minor`: its
/// machine code when this build has it (the PTX if the driver refuses it).
pub(crate) fn load(
    ctx: &Arc<CudaContext>,
    major: i32,
    minor: i32,
) -> Result<(Arc<CudaModule>, Code), DriverError> {
    if let Some((arch, code)) = machine_code(major, minor) {
        if let Ok(m) = ctx.load_module(Ptx::from_binary(code.to_vec())) {
            return Ok((m, Code::Machine(arch)));
        }
    }
    Ok((ctx.load_module(Ptx::from_src(PTX))?, Code::Ptx))
}

/// The `sm_90a` kernels for a 9.0 device (its machine code, else the PTX); `None` on
/// other devices, or where the driver refuses both (the callers then take the kernels
/// every device has).
pub(crate) fn load_sm90a(
    ctx: &Arc<CudaContext>,
    major: i32,
    minor: i32,
) -> Option<Arc<CudaModule>> {
    if (major, minor) != (9, 0) {
        return None;
    }
    if !CUBIN_SM90A.is_empty() {
        if let Ok(m) = ctx.load_module(Ptx::from_binary(CUBIN_SM90A.to_vec())) {
            return Some(m);
        }
    }
    ctx.load_module(Ptx::from_src(PTX_SM90A)).ok()
}

/// How long each part of a device's start took.
#[derive(Clone, Copy, Debug)]
pub struct StartTimes {
    /// Loading the driver library and its initialisation (`cuInit`, the device count),
    /// once per process (the same figure for every device).
    pub driver: Duration,
    /// The device's primary context.
    pub context: Duration,
    /// Loading the kernels' module.
    pub module: Duration,
    /// The code loaded.
    pub code: Code,
    /// Looking the kernels up, their attributes, the memory pool and the first stream.
    pub setup: Duration,
}

impl fmt::Display for StartTimes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        write!(
            f,
            "driver load and cuInit {:.1} ms, context {:.1} ms, module {:.1} ms ({}), kernels and memory pool {:.1} ms",
            ms(self.driver),
            ms(self.context),
            ms(self.module),
            self.code,
            ms(self.setup)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn machine_code_is_chosen_by_architecture() {
        let arch = |major, minor| machine_code(major, minor).map(|(a, _)| a);
        if MACHINE_CODE_BUILT {
            assert_eq!(arch(8, 0), Some("sm_80"));
            assert_eq!(arch(8, 9), Some("sm_80"));
            assert_eq!(arch(9, 0), Some("sm_90"));
        } else {
            assert_eq!(arch(9, 0), None);
        }
        // Newer devices compile the PTX.
        assert_eq!(arch(10, 0), None);
        assert_eq!(arch(12, 0), None);
        assert_eq!(arch(7, 5), None);
    }
}
