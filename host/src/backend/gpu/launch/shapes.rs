//! The shape of each kernel family's launch: what `launch` checks the buffers
//! against and derives the grid from.

use crate::mat::modmat::MatrixPolynomial;
use crate::num::op::Op;
use rns_core::poly::BiShape;

/// Which reduction the equality kernel uses across a number's channel lanes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EqualKernel {
    /// The seed's shared-memory AND tree.
    SharedTree,
    /// Warp ballots, then an AND of one word per warp through shared memory.
    WarpVote,
}

/// `len` numbers of `channels` channels through an elementwise [`Op`].
#[derive(Clone, Copy, Debug)]
pub struct Elementwise {
    /// The operation.
    pub op: Op,
    /// Numbers.
    pub len: usize,
    /// Channels.
    pub channels: usize,
}

/// The `mul_m` throughput probe: four chains of `iters` products per number.
#[derive(Clone, Copy, Debug)]
pub struct MulChain {
    /// Numbers.
    pub len: usize,
    /// Channels.
    pub channels: usize,
    /// Products per chain (a multiple of 4).
    pub iters: u32,
}

/// Equality of `len` numbers over `channels` channels.
#[derive(Clone, Copy, Debug)]
pub struct Equal {
    /// The reduction across channel lanes.
    pub kernel: EqualKernel,
    /// Numbers.
    pub len: usize,
    /// Channels.
    pub channels: usize,
}

/// Mixed-radix digits of `len` numbers over their first `k` channels.
#[derive(Clone, Copy, Debug)]
pub struct Digits {
    /// Numbers.
    pub len: usize,
    /// Channels converted (the range channels).
    pub k: usize,
}

/// Comparison of channel-major digit arrays.
#[derive(Clone, Copy, Debug)]
pub struct Cmp {
    /// Numbers.
    pub len: usize,
    /// Digits per number.
    pub k: usize,
    /// Whether `b` is one number compared with every `a[i]`.
    pub broadcast: bool,
    /// Whether only the entries of the output left `interval::AMBIGUOUS` are computed.
    pub pending_only: bool,
}

/// Sign or comparison by interval evaluation of `len` numbers over `k` range channels.
#[derive(Clone, Copy, Debug)]
pub struct Interval {
    /// Numbers.
    pub len: usize,
    /// Range channels.
    pub k: usize,
}

/// Reduction of `len` word-major integers of `nwords` words modulo `channels` moduli.
#[derive(Clone, Copy, Debug)]
pub struct Reduce {
    /// Numbers.
    pub len: usize,
    /// Channels.
    pub channels: usize,
    /// 32-bit words per number.
    pub nwords: usize,
}

/// Gaussian elimination of one `rows × cols` matrix per channel.
#[derive(Clone, Copy, Debug)]
pub struct Eliminate {
    /// Rows.
    pub rows: usize,
    /// Columns.
    pub cols: usize,
    /// Columns searched for pivots (the first ones).
    pub pivot_cols: usize,
    /// Gauss–Jordan (reduced echelon form) instead of forward elimination.
    pub jordan: bool,
    /// Channels (one matrix each).
    pub channels: usize,
}

/// The characteristic or minimal polynomial of one `n × n` matrix per channel.
#[derive(Clone, Copy, Debug)]
pub struct MatPoly {
    /// Which polynomial.
    pub kind: MatrixPolynomial,
    /// Rows and columns.
    pub n: usize,
    /// Channels (one matrix each).
    pub channels: usize,
}

/// The determinant of one `n × n` matrix per channel.
#[derive(Clone, Copy, Debug)]
pub struct Det {
    /// Dimension.
    pub n: usize,
    /// Channels (one matrix each).
    pub channels: usize,
}

/// The product of one `n × k` and one `k × p` matrix per channel.
#[derive(Clone, Copy, Debug)]
pub struct Matmul {
    /// Rows of `a`.
    pub n: usize,
    /// Columns of `a`, rows of `b`.
    pub k: usize,
    /// Columns of `b`.
    pub p: usize,
    /// Channels (one product each).
    pub channels: usize,
}

/// Univariate resultants, one thread per channel.
#[derive(Clone, Copy, Debug)]
pub struct Resultant {
    /// Channels.
    pub channels: usize,
    /// Degree of `f`.
    pub df: usize,
    /// Degree of `g`.
    pub dg: usize,
}

/// Univariate resultants, one block per channel.
#[derive(Clone, Copy, Debug)]
pub struct ResultantBlock {
    /// Channels (blocks).
    pub channels: usize,
    /// Degree of `f`.
    pub df: usize,
    /// Degree of `g`.
    pub dg: usize,
    /// Threads per block (a multiple of 32, at most 1024).
    pub threads: u32,
    /// Whether the polynomials are held in shared memory (else in the global scratch).
    pub shared: bool,
    /// Whether the rounds take 16 steps (`rns_resultant_block_global_wide`; only with the
    /// polynomials in global memory).
    pub wide: bool,
}

/// Collins' step for a piece of the points of every channel.
#[derive(Clone, Copy, Debug)]
pub struct ResultantPoints {
    /// Degrees of the pair.
    pub shape: BiShape,
    /// Candidate points `x = 0 … candidates − 1`.
    pub candidates: usize,
    /// The piece's points: `x = first … first + piece − 1` (below `candidates`).
    pub first: usize,
    /// Points in the piece (each thread of the piece has its scratch).
    pub piece: usize,
    /// Channels.
    pub channels: usize,
}

/// Interpolation of `n` coefficients per channel from `candidates` values.
#[derive(Clone, Copy, Debug)]
pub struct Interpolate {
    /// Candidate points (values per channel).
    pub candidates: usize,
    /// Coefficients per channel.
    pub n: usize,
    /// Whether the scratch sits in shared memory ([`interpolation_in_shared`](super::interpolation_in_shared)).
    pub shared: bool,
    /// Channels.
    pub channels: usize,
}
