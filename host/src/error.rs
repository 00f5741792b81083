//! The library's error type: every failure is a value, never a panic.

use rns_core::ModulusError;
use std::fmt;

/// Result with the library's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

/// Everything that can go wrong, each with a message a user can act on.
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
    /// A file that cannot be read or written.
    Io {
        /// The path.
        path: String,
        /// The system's message.
        message: String,
    },
    /// No usable CUDA device (no driver, no device, or it failed to start).
    NoGpu(String),
    /// The GPU ran out of memory.
    GpuOutOfMemory(String),
    /// Any other CUDA error.
    Gpu(String),
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

impl Error {
    /// An [`Error::Io`] for `path` with the system's message `e`.
    pub fn io(path: impl fmt::Display, e: impl fmt::Display) -> Error {
        Error::Io {
            path: path.to_string(),
            message: e.to_string(),
        }
    }

    /// The process exit code the CLI uses for this error: 3 for a missing GPU, 1 for
    /// other GPU, MPI and internal failures, 130 when interrupted, a failed rank's own
    /// code for [`Error::Rank`], 2 for bad input.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::NoGpu(_) => 3,
            Error::Interrupted => 130,
            Error::Gpu(_) | Error::GpuOutOfMemory(_) | Error::Internal(_) => 1,
            Error::Cluster(_) => 1,
            Error::Rank { code, .. } => *code,
            _ => 2,
        }
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
            Error::Io { path, message } => write!(f, "{path}: {message}"),
            Error::NoGpu(msg) => write!(f, "no CUDA device is usable: {msg}"),
            Error::GpuOutOfMemory(msg) => write!(f, "GPU out of memory: {msg}"),
            Error::Gpu(msg) => write!(f, "CUDA error: {msg}"),
            Error::Interrupted => write!(f, "interrupted"),
            Error::Internal(msg) => write!(f, "internal error (a bug in rns): {msg}"),
            Error::Rank { rank, message, .. } => write!(f, "MPI rank {rank} failed: {message}"),
            Error::Cluster(msg) => write!(f, "MPI: {msg}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<ModulusError> for Error {
    fn from(e: ModulusError) -> Self {
        Error::Modulus(e)
    }
}
