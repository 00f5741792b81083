//! [`Op`]: the elementwise operations, shared by both backends.

/// The elementwise operations, with their residue formula from `rns-core`.
///
/// ```
/// use rns::{Backend, Op, RnsBasis, RnsVec};
/// use std::sync::Arc;
///
/// let basis = Arc::new(RnsBasis::for_bits(80));
/// let (a, b) = (RnsVec::from_i64(&basis, &[7, -2])?, RnsVec::from_i64(&basis, &[6, 5])?);
/// let c = Backend::Cpu.elementwise(Op::Mul, &[&a, &b], None)?;
/// assert_eq!(c.to_integers_checked()?, [42, -10]);
/// # Ok::<(), rns::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// `a + b`
    Add,
    /// `a − b`
    Sub,
    /// `−a`
    Neg,
    /// `a · b` by the canonical `mul_m`
    Mul,
    /// `a · b` by a 64-bit product and `%` (the reference, for comparison)
    MulNaive,
    /// `a · b + c`
    MulAdd,
    /// `a · b − c · d`
    MulSubMul,
    /// `a + s` for a scalar `s`
    AddScalar,
    /// `a − s` for a scalar `s`
    SubScalar,
    /// `a · s` for a scalar `s`
    MulScalar,
}

impl Op {
    /// Every operation, in the order of [`Op::index`].
    pub const ALL: [Op; 10] = [
        Op::Add,
        Op::Sub,
        Op::Neg,
        Op::Mul,
        Op::MulNaive,
        Op::MulAdd,
        Op::MulSubMul,
        Op::AddScalar,
        Op::SubScalar,
        Op::MulScalar,
    ];

    /// Position in [`Op::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// Number of vector operands.
    pub fn arity(self) -> usize {
        match self {
            Op::Neg | Op::AddScalar | Op::SubScalar | Op::MulScalar => 1,
            Op::Add | Op::Sub | Op::Mul | Op::MulNaive => 2,
            Op::MulAdd => 3,
            Op::MulSubMul => 4,
        }
    }

    /// Whether the operation takes a scalar (one residue per channel).
    pub fn has_scalar(self) -> bool {
        matches!(self, Op::AddScalar | Op::SubScalar | Op::MulScalar)
    }

    /// The name of its GPU kernel.
    pub fn kernel_name(self) -> &'static str {
        match self {
            Op::Add => "rns_add",
            Op::Sub => "rns_sub",
            Op::Neg => "rns_neg",
            Op::Mul => "rns_mul",
            Op::MulNaive => "rns_mul_naive",
            Op::MulAdd => "rns_mul_add",
            Op::MulSubMul => "rns_mul_sub_mul",
            Op::AddScalar => "rns_add_scalar",
            Op::SubScalar => "rns_sub_scalar",
            Op::MulScalar => "rns_mul_scalar",
        }
    }
}
