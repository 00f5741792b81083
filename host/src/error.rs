//! The library's error type: every failure is a value, never a panic. Failures that
//! come from the system or the CUDA driver keep their cause, typed, as
//! [`std::error::Error::source`].

use cudarc::driver::DriverError;
use rns_core::ModulusError;
use std::fmt;
use std::sync::Arc;

/// Result with the library's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

/// Everything that can go wrong, each with a message a user can act on.
///
/// ```
/// use rns::{det, Backend, Error, IntMatrix};
///
/// let e = IntMatrix::from_i64(2, 3, &[1, 2, 3, 4, 5, 6]).and_then(|a| det(&a, &Backend::Cpu));
/// assert!(matches!(e, Err(Error::Shape(_))));
/// let e = e.unwrap_err();
/// assert_eq!(e.exit_code(), 2); // the CLI's status for bad input
/// println!("{e}"); // a message a user can act on
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    /// A modulus that is not a prime in `(2^30, 2^31)`.
    Modulus(ModulusError),
    /// The same prime twice in a basis.
    DuplicateModulus(u32),
    /// A basis with no moduli.
    EmptyBasis,
    /// Operands built on different bases.
    BasisMismatch,
    /// Operands of different lengths.
    LengthMismatch {
        /// Length of the first operand.
        left: usize,
        /// Length of the second operand.
        right: usize,
    },
    /// A value outside the signed range `[−(M−1)/2, (M−1)/2]` of the basis.
    OutOfRange {
        /// Position of the offending value.
        index: usize,
        /// Bits the basis covers (values up to `2^bits` in absolute value fit).
        range_bits: u64,
    },
    /// Operands that live in different places (host memory, or different GPUs).
    DeviceMismatch {
        /// Where the first operand lives.
        left: String,
        /// Where the other one lives.
        right: String,
    },
    /// Matrix dimensions that do not fit the operation.
    Shape(String),
    /// A singular matrix where an invertible one is needed: modulo `prime`, or over Q
    /// when `prime` is `None`.
    Singular {
        /// The prime modulo which the matrix is singular, if the question was modular.
        prime: Option<u32>,
    },
    /// An input that cannot be read as the expected format.
    Parse {
        /// Where the input came from (a path, or `<stdin>`).
        source: String,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// A file or stream that cannot be read or written.
    Io {
        /// The path (or `<stdin>`, `<stdout>`).
        path: String,
        /// The system's error.
        source: IoError,
    },
    /// No usable CUDA device (no driver, no device, or it failed to start).
    NoGpu {
        /// Why.
        reason: String,
        /// The driver's result, when the driver gave one.
        source: Option<DriverError>,
    },
    /// The GPU (or the page-locked host memory of its transfers) ran out of memory.
    GpuOutOfMemory {
        /// What was being allocated, when known.
        what: String,
        /// The driver's result, when the driver gave one.
        source: Option<DriverError>,
    },
    /// Any other CUDA error.
    Gpu {
        /// What was being done, when known.
        what: String,
        /// The driver's result, when the driver gave one.
        source: Option<DriverError>,
    },
    /// The GPU made no progress for the stall limit
    /// ([`crate::backend::gpu::GpuConfig::set_stall_limit`]): a launch whose blocks wait
    /// for each other saw no word arrive (the launch then ended by itself, and the
    /// device is usable again), or the host waited for queued work that did not finish
    /// (`busy`: the device is still running it, and its next calls fail until it ends).
    GpuStalled {
        /// The device's ordinal.
        device: usize,
        /// The kernel that stalled, or the work the host was waiting for.
        kernel: String,
        /// How long it made no progress, in seconds.
        seconds: f64,
        /// Whether the device is still busy with the stalled work.
        busy: bool,
    },
    /// Host memory this process cannot take ([`crate::limits`]): checked before the work
    /// starts.
    OutOfMemory {
        /// What needed it.
        what: String,
        /// Bytes needed (at least).
        needed: u64,
        /// Bytes available.
        available: u64,
    },
    /// The caller asked the computation to stop ([`crate::interrupt`]).
    Interrupted,
    /// An internal consistency check failed; this is a bug in rns.
    Internal(String),
    /// Another MPI rank failed ([`crate::cluster`]): its rank, its exit code and its
    /// message.
    Rank {
        /// The rank that failed.
        rank: usize,
        /// Its exit code.
        code: i32,
        /// Its error.
        message: String,
    },
    /// MPI itself failed, or a message exceeded its limits.
    Cluster(String),
}

/// A system I/O error, shared so that [`Error`] stays `Clone`; two compare equal when
/// their kinds and messages do.
#[derive(Clone, Debug)]
pub struct IoError(pub Arc<std::io::Error>);

impl PartialEq for IoError {
    fn eq(&self, other: &IoError) -> bool {
        self.0.kind() == other.0.kind() && self.0.to_string() == other.0.to_string()
    }
}

impl fmt::Display for IoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl Error {
    /// An [`Error::Io`] for `path` with the system's error `e`.
    pub fn io(path: impl fmt::Display, e: std::io::Error) -> Error {
        Error::Io {
            path: path.to_string(),
            source: IoError(Arc::new(e)),
        }
    }

    /// An [`Error::NoGpu`] with no driver result.
    pub fn no_gpu(reason: impl Into<String>) -> Error {
        Error::NoGpu {
            reason: reason.into(),
            source: None,
        }
    }

    /// An [`Error::Gpu`] with no driver result.
    pub fn gpu(what: impl Into<String>) -> Error {
        Error::Gpu {
            what: what.into(),
            source: None,
        }
    }

    /// The error for the driver's result `e` while doing `what` (may be empty): out of
    /// memory apart ([`Error::GpuOutOfMemory`]), so that callers can tell.
    pub fn driver(what: impl Into<String>, e: DriverError) -> Error {
        let (what, source) = (what.into(), Some(e));
        match e.0 {
            cudarc::driver::sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY => {
                Error::GpuOutOfMemory { what, source }
            }
            _ => Error::Gpu { what, source },
        }
    }

    /// What a GPU error says was being done (empty for other errors).
    pub fn gpu_what(&self) -> &str {
        match self {
            Error::Gpu { what, .. } | Error::GpuOutOfMemory { what, .. } => what,
            Error::NoGpu { reason, .. } => reason,
            _ => "",
        }
    }

    /// The process exit code the CLI uses for this error: 3 for a missing or stalled GPU, 1 for
    /// other GPU, MPI and internal failures, 130 when interrupted, a failed rank's own
    /// code for [`Error::Rank`], 2 for bad input.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::NoGpu { .. } | Error::GpuStalled { .. } => 3,
            Error::Interrupted => 130,
            Error::Gpu { .. } | Error::GpuOutOfMemory { .. } | Error::Internal(_) => 1,
            Error::Cluster(_) => 1,
            Error::Rank { code, .. } => *code,
            _ => 2,
        }
    }
}

/// Bytes in GB with one decimal (at least two significant digits below 1 GB).
fn gb(bytes: u64) -> String {
    let g = bytes as f64 / 1e9;
    if g >= 1.0 {
        format!("{g:.1} GB")
    } else {
        format!("{:.2} GB", g)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Modulus(e) => write!(f, "{e}"),
            Error::DuplicateModulus(m) => write!(f, "modulus {m} appears twice in the basis"),
            Error::EmptyBasis => write!(f, "a basis needs at least one modulus"),
            Error::BasisMismatch => write!(f, "operands belong to different RNS bases"),
            Error::LengthMismatch { left, right } => {
                write!(f, "operands have different lengths ({left} and {right})")
            }
            Error::OutOfRange { index, range_bits } => write!(
                f,
                "value at index {index} is outside the basis's signed range (about ±2^{range_bits})"
            ),
            Error::DeviceMismatch { left, right } => write!(
                f,
                "operands live in different places ({left} and {right}): download or upload one first"
            ),
            Error::Shape(msg) => write!(f, "{msg}"),
            Error::OutOfMemory {
                what,
                needed,
                available,
            } => write!(
                f,
                "{what} needs {needed} bytes ({}), more than the {available} bytes ({}) of memory available",
                gb(*needed),
                gb(*available)
            ),
            Error::Singular { prime: Some(p) } => {
                write!(
                    f,
                    "the matrix is singular modulo {p}: it has no inverse there"
                )
            }
            Error::Singular { prime: None } => {
                write!(
                    f,
                    "the matrix is singular (determinant 0): A X = B has no unique solution"
                )
            }
            Error::Parse {
                source,
                line,
                message,
            } => write!(f, "{source}:{line}: {message}"),
            Error::Io { path, source } => write!(f, "{path}: {source}"),
            Error::NoGpu { reason, source } => {
                write!(f, "no CUDA device is usable: {reason}")?;
                driver_code(f, source)
            }
            Error::GpuStalled {
                device,
                kernel,
                seconds,
                busy: false,
            } => write!(
                f,
                "GPU {device} stalled: {kernel} made no progress for {seconds:.1} s; the \
                 launch gave up and the device is usable again"
            ),
            Error::GpuStalled {
                device,
                kernel,
                seconds,
                busy: true,
            } => write!(
                f,
                "GPU {device} stalled: {kernel} did not finish in {seconds:.1} s; the device \
                 is still busy with it, and calls on it fail until it ends (restarting the \
                 process resets it)"
            ),
            Error::GpuOutOfMemory { what, source } => {
                write!(f, "GPU out of memory")?;
                if !what.is_empty() {
                    write!(f, ": {what}")?;
                }
                driver_code(f, source)
            }
            Error::Gpu { what, source } => {
                write!(f, "CUDA error")?;
                if !what.is_empty() {
                    write!(f, ": {what}")?;
                }
                driver_code(f, source)
            }
            Error::Interrupted => write!(f, "interrupted"),
            Error::Internal(msg) => write!(f, "internal error (a bug in rns): {msg}"),
            Error::Rank { rank, message, .. } => write!(f, "MPI rank {rank} failed: {message}"),
            Error::Cluster(msg) => write!(f, "MPI: {msg}"),
        }
    }
}

/// The driver's result code after a GPU error's message, as ` (CUDA_ERROR_…)`: its
/// code, not its text, which would need the driver loaded.
fn driver_code(f: &mut fmt::Formatter<'_>, e: &Option<DriverError>) -> fmt::Result {
    match e {
        Some(e) => write!(f, " ({:?})", e.0),
        None => Ok(()),
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(&*source.0),
            Error::NoGpu { source, .. }
            | Error::GpuOutOfMemory { source, .. }
            | Error::Gpu { source, .. } => source.as_ref().map(|e| e as _),
            Error::Modulus(e) => Some(e),
            _ => None,
        }
    }
}

impl From<ModulusError> for Error {
    fn from(e: ModulusError) -> Self {
        Error::Modulus(e)
    }
}

#[cfg(test)]
mod tests {
    use super::Error;
    use cudarc::driver::sys::CUresult;
    use cudarc::driver::DriverError;
    use std::error::Error as _;

    #[test]
    fn causes_are_kept_typed() {
        let e = Error::io("m.txt", std::io::Error::from(std::io::ErrorKind::NotFound));
        let io = e.source().and_then(|s| s.downcast_ref::<std::io::Error>());
        assert_eq!(io.map(|e| e.kind()), Some(std::io::ErrorKind::NotFound));
        assert!(e.to_string().starts_with("m.txt: "), "{e}");
        assert_eq!(e.exit_code(), 2);

        let oom = Error::driver("a buffer", DriverError(CUresult::CUDA_ERROR_OUT_OF_MEMORY));
        assert!(matches!(oom, Error::GpuOutOfMemory { .. }));
        let code = oom.source().and_then(|s| s.downcast_ref::<DriverError>());
        assert_eq!(code.map(|d| d.0), Some(CUresult::CUDA_ERROR_OUT_OF_MEMORY));
        assert_eq!(
            oom.to_string(),
            "GPU out of memory: a buffer (CUDA_ERROR_OUT_OF_MEMORY)"
        );

        let other = Error::driver("", DriverError(CUresult::CUDA_ERROR_LAUNCH_FAILED));
        assert_eq!(other.to_string(), "CUDA error (CUDA_ERROR_LAUNCH_FAILED)");
        assert_eq!(other.exit_code(), 1);
        assert_eq!(Error::no_gpu("none").exit_code(), 3);
        assert!(Error::no_gpu("none").source().is_none());
        let m = Error::from(rns_core::ModulusError::NotPrime(4));
        assert!(m.source().is_some());
    }

    #[test]
    fn a_stall_says_whether_the_device_is_usable_again_and_exits_3() {
        let stalled = |busy| Error::GpuStalled {
            device: 1,
            kernel: "the lifting (rns_dixon_lift)".into(),
            seconds: 60.0,
            busy,
        };
        let gave_up = stalled(false).to_string();
        assert!(
            gave_up.starts_with(
                "GPU 1 stalled: the lifting (rns_dixon_lift) made no progress for 60.0 s"
            ) && gave_up.contains("usable again"),
            "{gave_up}"
        );
        let busy = stalled(true).to_string();
        assert!(busy.contains("still busy"), "{busy}");
        assert_eq!(stalled(true).exit_code(), 3);
        assert_eq!(stalled(false).exit_code(), 3);
    }
}
