//! One 31-bit prime modulus and the residue operations on it.
//!
//! Residues are `u32` values in `[0, m)`. Every operation here returns a
//! canonical residue for canonical inputs.

pub use crate::prime::{MODULUS_MAX, MODULUS_MIN};
use core::fmt;

/// Products of centered residues ([`Modulus::center`]) that may be added to a folded
/// signed 64-bit accumulator ([`Modulus::fold`]) before the next fold.
pub const LAZY_PRODUCTS: usize = 4;

/// `3 * 2^51`: adding it to a double in `[0, 2^51)` leaves the value rounded to
/// the nearest integer in the low bits of the mantissa.
const ROUND_MAGIC: f64 = 6_755_399_441_055_744.0;

/// Why a number cannot be used as a modulus.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModulusError {
    /// Outside `(2^30, 2^31)`, the range where `mul_m` is exact.
    OutOfRange(u32),
    /// Not a prime.
    NotPrime(u32),
}

impl fmt::Display for ModulusError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModulusError::OutOfRange(m) => write!(
                f,
                "modulus {m} is outside the supported range: it must be a prime with 2^30 < m < 2^31"
            ),
            ModulusError::NotPrime(m) => write!(f, "modulus {m} is not a prime"),
        }
    }
}

impl core::error::Error for ModulusError {}

/// A prime modulus `2^30 < m < 2^31` with the constants its operations need.
///
/// `#[repr(C)]` so the same 24-byte layout can be copied to the GPU.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Modulus {
    /// The prime.
    pub m: u32,
    /// `2^32 mod m`, for reducing multi-word integers.
    pub two32: u32,
    /// Shoup's quotient for `two32` ([`Modulus::shoup`]).
    pub two32_shoup: u32,
    /// `2^30 / m` in double precision, the `mul_m` quotient estimate factor.
    pub invk: f64,
}

impl Modulus {
    /// Validates `m` (a prime with `2^30 < m < 2^31`) and precomputes its constants.
    pub fn new(m: u32) -> Result<Modulus, ModulusError> {
        if !(MODULUS_MIN..=MODULUS_MAX).contains(&m) {
            return Err(ModulusError::OutOfRange(m));
        }
        if !crate::prime::is_prime(m) {
            return Err(ModulusError::NotPrime(m));
        }
        Ok(Modulus::new_unchecked(m))
    }

    /// Precomputes the constants without checking that `m` is a prime in range.
    ///
    /// The operations are exact only for `2^30 < m < 2^31`; `inv` also needs `m` prime.
    #[inline]
    pub fn new_unchecked(m: u32) -> Modulus {
        let two32 = ((1u64 << 32) % m as u64) as u32;
        Modulus {
            m,
            two32,
            two32_shoup: (((two32 as u64) << 32) / m as u64) as u32,
            invk: (1u64 << 30) as f64 / m as f64,
        }
    }

    /// `(a + b) mod m`.
    #[inline(always)]
    pub fn add(self, a: u32, b: u32) -> u32 {
        let s = a + b; // < 2^32 since a, b < 2^31
        let t = s.wrapping_sub(self.m);
        if t < s {
            t
        } else {
            s
        }
    }

    /// `(a − b) mod m`.
    #[inline(always)]
    pub fn sub(self, a: u32, b: u32) -> u32 {
        let d = a.wrapping_sub(b);
        if a < b {
            d.wrapping_add(self.m)
        } else {
            d
        }
    }

    /// `(−a) mod m`.
    #[inline(always)]
    pub fn neg(self, a: u32) -> u32 {
        if a == 0 {
            0
        } else {
            self.m - a
        }
    }

    /// `(a · b) mod m` by the double-precision quotient estimate (`mul_m`), canonical.
    ///
    /// `hi = ⌊ab / 2^30⌋` from one high multiply, `q = round(hi · 2^30/m)` from one
    /// FP64 multiply-add, `r = ab − qm` in 32-bit wrapping arithmetic. For
    /// `2^30 < m < 2^31` the estimate is off by at most one: `r` is `R`, `R + m`
    /// (then `r < 2^31 + 2^11`) or `R − m + 2^32` (then `r > 3·2^30 − 2^11`),
    /// where `R` is the true residue. The threshold `2.5·2^30` separates the last
    /// case, and one unsigned minimum removes the middle one. The seed's
    /// signed test (`(int)r < 0`) can misread `R + m ≥ 2^31`, and without the
    /// minimum the result is `R + m` for a few percent of inputs.
    #[inline(always)]
    pub fn mul(self, a: u32, b: u32) -> u32 {
        let hi = mul_hi(a << 1, b << 1);
        let q = quotient_estimate(hi, self.invk);
        let r = a.wrapping_mul(b).wrapping_sub(q.wrapping_mul(self.m));
        self.correct(r)
    }

    /// `(a · b + c) mod m`.
    #[inline(always)]
    pub fn mul_add(self, a: u32, b: u32, c: u32) -> u32 {
        self.add(self.mul(a, b), c)
    }

    /// `(a · b − c · d) mod m`, the update step of elimination and of resultant algorithms.
    #[inline(always)]
    pub fn mul_sub_mul(self, a: u32, b: u32, c: u32, d: u32) -> u32 {
        self.sub(self.mul(a, b), self.mul(c, d))
    }

    /// Shoup's precomputed quotient `⌊b · 2^32 / m⌋` for multiplying many values by a fixed `b < m`.
    #[inline(always)]
    pub fn shoup(self, b: u32) -> u32 {
        // checked: no panicking path in GPU code (m > 0 always holds)
        ((b as u64) << 32).checked_div(self.m as u64).unwrap_or(0) as u32
    }

    /// `(a · b) mod m` for a fixed `b` with `b_shoup = self.shoup(b)`: three integer
    /// multiplies and one conditional subtraction, no floating point.
    #[inline(always)]
    pub fn mul_shoup(self, a: u32, b: u32, b_shoup: u32) -> u32 {
        let q = mul_hi(a, b_shoup);
        let r = a.wrapping_mul(b).wrapping_sub(q.wrapping_mul(self.m)); // in [0, 2m)
        let s = r.wrapping_sub(self.m);
        if s < r {
            s
        } else {
            r
        }
    }

    /// `(a · b) mod m` by a 64-bit product and the `%` operator: the reference.
    #[inline(always)]
    pub fn mul_naive(self, a: u32, b: u32) -> u32 {
        (a as u64 * b as u64)
            .checked_rem(self.m as u64)
            .unwrap_or(0) as u32
    }

    /// `a^e mod m` by square and multiply.
    #[inline]
    pub fn pow(self, a: u32, mut e: u64) -> u32 {
        let mut base = a;
        let mut acc = if self.m == 1 { 0 } else { 1 };
        while e > 0 {
            if e & 1 == 1 {
                acc = self.mul(acc, base);
            }
            base = self.mul(base, base);
            e >>= 1;
        }
        acc
    }

    /// `a^(−1) mod m` by the extended Euclidean algorithm; `None` when `a ≡ 0`.
    #[inline(always)]
    pub fn inv(self, a: u32) -> Option<u32> {
        let a = self.reduce_u32(a);
        if a == 0 {
            return None;
        }
        // Invariants: r0 ≡ s0·a and r1 ≡ s1·a (mod m); the s are kept reduced mod m.
        let (mut r0, mut r1) = (self.m, a);
        let (mut s0, mut s1) = (0u32, 1u32);
        while r1 != 0 {
            let q = r0.checked_div(r1).unwrap_or(0); // r1 ≠ 0 here; q·r1 ≤ r0
            (r0, r1) = (r1, r0 - q * r1);
            (s0, s1) = (s1, self.sub(s0, self.mul(self.reduce_u32(q), s1)));
        }
        if r0 != 1 {
            return None; // gcd(a, m) > 1: m is not prime
        }
        Some(s0)
    }

    /// `(a · 2^32) mod m`, the Horner step of multi-word reduction (Shoup, integer only).
    #[inline(always)]
    pub fn mul_two32(self, a: u32) -> u32 {
        self.mul_shoup(a, self.two32, self.two32_shoup)
    }

    /// One Horner step of multi-word reduction: `(r · 2^32 + w) mod m`.
    #[inline(always)]
    pub fn push_word(self, r: u32, w: u32) -> u32 {
        self.add(self.mul_two32(r), self.reduce_u32(w))
    }

    /// `a` as a centered residue in `[−(m−1)/2, (m−1)/2]`: products of two such values
    /// are below `2^60` in absolute value, so a signed 64-bit sum holds several of them
    /// (the delayed reduction of dot products, [`Modulus::fold`]).
    #[inline(always)]
    pub fn center(self, a: u32) -> i32 {
        if a > self.m >> 1 {
            a.wrapping_sub(self.m) as i32
        } else {
            a as i32
        }
    }

    /// `2^32 mod m`, centered: the factor of [`Modulus::fold`].
    #[inline(always)]
    pub fn fold_factor(self) -> i32 {
        self.center(self.two32)
    }

    /// A value congruent to `x` modulo `m` and below `2^61 + 2^32` in absolute value,
    /// for any `x` (one wide multiply-add: `⌊x/2^32⌋ · t + (x mod 2^32)` with
    /// `t = fold_factor()`). After a fold, [`LAZY_PRODUCTS`] products of centered
    /// residues can be added without overflow (`2^61 + 2^32 + 4·2^60 < 2^63`).
    #[inline(always)]
    pub fn fold(x: i64, t: i32) -> i64 {
        (x >> 32) * t as i64 + (x as u32) as i64
    }

    /// `a mod m` for any `u32`.
    #[inline(always)]
    pub fn reduce_u32(self, a: u32) -> u32 {
        // a < 2^32 < 4m, so at most three subtractions.
        let mut r = a;
        let mut i = 0;
        while i < 3 {
            let s = r.wrapping_sub(self.m);
            if s < r {
                r = s;
            }
            i += 1;
        }
        r
    }

    /// `a mod m` for any `u64`.
    #[inline(always)]
    pub fn reduce_u64(self, a: u64) -> u32 {
        let hi = self.reduce_u32((a >> 32) as u32);
        self.add(self.mul_two32(hi), self.reduce_u32(a as u32))
    }

    /// `n mod m` for the non-negative integer with 64-bit limbs `limbs`,
    /// least significant first (GMP's order), by Horner's rule on 32-bit halves.
    #[inline]
    pub fn reduce_limbs(self, limbs: &[u64]) -> u32 {
        let mut r = 0u32;
        let mut i = limbs.len();
        while i > 0 {
            i -= 1;
            let limb = limbs[i];
            r = self.push_word(r, (limb >> 32) as u32);
            r = self.push_word(r, limb as u32);
        }
        r
    }

    /// `x mod m` for any `x`, by [`Modulus::mul`]'s quotient estimate taken from
    /// `⌊x / 2^30⌋ < 2^34`: one conversion and one FP64 multiply-add for a sum of up to
    /// three products of residues (`3m² < 2^64`) where three `mul` take three each.
    ///
    /// The estimate is `⌊x/m⌋ + e`, `e ∈ {−1, 0, 1}`: `e = −1` only when
    /// `x mod m < 2^30 − m/2`, so `r = R + m < 2^31 + 2^13`; `e = 1` only when
    /// `x mod m ≥ m/2`, so `r = R − m + 2^32 > 3·2^30 − 2^13` (the `2^13` covers the
    /// rounding of the product, below `2^−18` of a quotient unit times `m`). `mul`'s
    /// corrections therefore apply unchanged.
    #[inline(always)]
    pub fn reduce_wide(self, x: u64) -> u32 {
        // Below 2^34, so the signed conversion (one instruction on x86-64) is exact.
        let hi = (x >> 30) as i64 as f64;
        #[cfg(target_arch = "nvptx64")]
        let rf = core::intrinsics::fmaf64(hi, self.invk, ROUND_MAGIC);
        #[cfg(not(target_arch = "nvptx64"))]
        let rf = hi * self.invk + ROUND_MAGIC;
        let q = rf.to_bits() as u32;
        let r = (x as u32).wrapping_sub(q.wrapping_mul(self.m));
        self.correct(r)
    }

    /// `mul`'s and `reduce_wide`'s last step: the residue from `r`, which is `R`,
    /// `R + m < 2.5·2^30` or `R − m + 2^32 ≥ 2.5·2^30`.
    #[inline(always)]
    fn correct(self, r: u32) -> u32 {
        let r = if r >= 0xA000_0000 {
            r.wrapping_add(self.m)
        } else {
            r
        };
        let s = r.wrapping_sub(self.m);
        if s < r {
            s
        } else {
            r
        }
    }

    /// `x mod m` for a signed 64-bit `x`, in `[0, m)`.
    #[inline(always)]
    pub fn reduce_i64(self, x: i64) -> u32 {
        let r = self.reduce_u64(x.unsigned_abs());
        if x < 0 {
            self.neg(r)
        } else {
            r
        }
    }
}

/// The high word of the 64-bit product `a · b`. On the GPU one `mul.hi.u32`
/// (`IMAD.HI.U32`): written out because LLVM otherwise forms a 64-bit product and
/// converts the result to double from 64 bits (`I2F.F64.U64`), which costs more.
#[inline(always)]
fn mul_hi(a: u32, b: u32) -> u32 {
    #[cfg(target_arch = "nvptx64")]
    {
        let r: u32;
        // SAFETY: pure register arithmetic.
        unsafe {
            core::arch::asm!(
                "mul.hi.u32 {r}, {a}, {b};",
                r = out(reg32) r,
                a = in(reg32) a,
                b = in(reg32) b,
                options(pure, nomem, nostack)
            )
        };
        r
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        ((a as u64 * b as u64) >> 32) as u32
    }
}

/// A 32 × 32 → 64-bit multiply-add: one `mad.wide` on the GPU, else Rust's wrapping
/// arithmetic.
macro_rules! mad_wide_fn {
    ($(#[$doc:meta])* $name:ident, $t:ty, $wide:ty, $insn:literal) => {
        $(#[$doc])*
        #[inline(always)]
        pub fn $name(a: $t, b: $t, c: $wide) -> $wide {
            #[cfg(target_arch = "nvptx64")]
            {
                let r: $wide;
                // SAFETY: pure register arithmetic.
                unsafe {
                    core::arch::asm!(
                        concat!($insn, " {r}, {a}, {b}, {c};"),
                        r = out(reg64) r,
                        a = in(reg32) a,
                        b = in(reg32) b,
                        c = in(reg64) c,
                        options(pure, nomem, nostack)
                    )
                };
                r
            }
            #[cfg(not(target_arch = "nvptx64"))]
            {
                (a as $wide).wrapping_mul(b as $wide).wrapping_add(c)
            }
        }
    };
}

mad_wide_fn!(
    /// `a · b + c` for 32-bit `a`, `b`: on the GPU one `mad.wide.u32` (LLVM otherwise
    /// multiplies the zero-extended operands in 64 bits, several instructions each).
    mad_wide,
    u32,
    u64,
    "mad.wide.u32"
);

mad_wide_fn!(
    /// `a · b + c` for signed 32-bit `a`, `b` (wrapping in 64 bits): on the GPU one
    /// `mad.wide.s32` (LLVM folds the sign extension into a load and then multiplies in
    /// 64 bits).
    mad_wide_signed,
    i32,
    i64,
    "mad.wide.s32"
);

/// `round(hi · invk)` through the `3·2^51` trick: the rounded quotient sits in
/// the low word of the double. One FP64 fused multiply-add on the GPU; on the
/// CPU a multiply and an add (the extra rounding stays far inside the margins
/// that [`Modulus::mul`] relies on).
#[inline(always)]
fn quotient_estimate(hi: u32, invk: f64) -> u32 {
    #[cfg(target_arch = "nvptx64")]
    let rf = core::intrinsics::fmaf64(hi as f64, invk, ROUND_MAGIC);
    #[cfg(not(target_arch = "nvptx64"))]
    let rf = hi as f64 * invk + ROUND_MAGIC;
    rf.to_bits() as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: u32 = 2_147_483_629; // 2^31 − 19

    #[test]
    fn mul_m_known_noncanonical_case_is_canonical() {
        let m = Modulus::new(P).unwrap();
        assert_eq!(m.mul(57_573_543, 2_107_915_405), 3);
    }

    #[test]
    fn signed_wide_mul_add_is_exact_at_the_ends() {
        let ends = [i32::MIN, i32::MIN + 1, -1, 0, 1, i32::MAX];
        for a in ends {
            for b in ends {
                for c in [i64::MIN / 2, -1, 0, 1, i64::MAX / 2] {
                    let want = (a as i128 * b as i128 + c as i128) as i64;
                    assert_eq!(mad_wide_signed(a, b, c), want, "{a}·{b} + {c}");
                }
            }
        }
    }

    #[test]
    fn rejects_bad_moduli() {
        assert_eq!(Modulus::new(7), Err(ModulusError::OutOfRange(7)));
        assert_eq!(
            Modulus::new(1 << 31),
            Err(ModulusError::OutOfRange(1 << 31))
        );
        assert_eq!(Modulus::new(P - 2), Err(ModulusError::NotPrime(P - 2)));
    }

    #[test]
    fn fold_keeps_the_residue_and_the_bound() {
        for p in [P, (1 << 30) + 3] {
            let m = Modulus::new(p).unwrap();
            let t = m.fold_factor();
            for x in [i64::MAX, i64::MIN, -1, 0, 1, 1 << 62, -(1 << 62) + 7] {
                let y = Modulus::fold(x, t);
                assert!(y.unsigned_abs() < (1 << 61) + (1 << 32));
                assert_eq!(m.reduce_i64(y), m.reduce_i64(x));
            }
            assert_eq!(m.center(0), 0);
            assert_eq!(m.center(p - 1), -1);
            assert_eq!(m.center(p / 2), (p / 2) as i32);
            assert_eq!(m.center(p / 2 + 1), -((p / 2) as i32));
        }
    }

    /// `reduce_wide` against `%` on the whole 64-bit range: its ends, three full products,
    /// values just beside multiples of `m` (where the estimate is off by one either way)
    /// and random values, for primes at both ends of the range.
    #[test]
    fn reduce_wide_matches_the_remainder() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for p in [P, MODULUS_MAX, MODULUS_MIN, (1 << 30) + 3] {
            let Ok(m) = Modulus::new(p) else { continue };
            let q = (p - 1) as u64;
            let mut cases = [
                0u64,
                1,
                q,
                p as u64,
                u64::MAX,
                u64::MAX - 1,
                3 * q * q,
                q * q,
            ];
            let check = |v: u64| assert_eq!(m.reduce_wide(v), (v % p as u64) as u32, "{v} mod {p}");
            cases.iter_mut().for_each(|v| check(*v));
            for _ in 0..200_000 {
                crate::testing::xorshift(&mut x);
                check(x);
                check(x >> (x % 40));
                // Beside a multiple of m: k·m + small and k·m − small.
                let k = (x >> 31) % (u64::MAX / p as u64);
                let (near, d) = (k * p as u64, x % 4096);
                check(near.saturating_add(d));
                check(near.saturating_sub(d));
            }
        }
    }

    #[test]
    fn inverse_of_zero_is_none() {
        let m = Modulus::new(P).unwrap();
        assert_eq!(m.inv(0), None);
        assert_eq!(m.inv(P), None);
        let x = m.inv(12345).unwrap();
        assert_eq!(m.mul(x, 12345), 1);
    }

    #[test]
    fn range_ends_and_messages() {
        // 2^30 − 35 is the largest prime below the range; 2^30 + 3 is the first in it.
        for p in [(1 << 30) - 35, (1 << 30) - 1, 1 << 30] {
            assert_eq!(Modulus::new(p), Err(ModulusError::OutOfRange(p)));
        }
        assert_eq!(MODULUS_MIN, (1 << 30) + 1);
        assert!(Modulus::new((1 << 30) + 3).is_ok());
        assert!(Modulus::new(MODULUS_MAX).is_ok());
        let text = |e: ModulusError| {
            let mut s = heapless_string();
            core::fmt::write(&mut s, format_args!("{e}")).unwrap();
            s
        };
        assert_eq!(
            text(ModulusError::OutOfRange(7)).as_str(),
            "modulus 7 is outside the supported range: it must be a prime with 2^30 < m < 2^31"
        );
        assert_eq!(
            text(ModulusError::NotPrime(9)).as_str(),
            "modulus 9 is not a prime"
        );
    }

    #[test]
    fn additions_at_the_modulus() {
        let m = Modulus::new(P).unwrap();
        assert_eq!(m.add(1, P - 1), 0);
        assert_eq!(m.add(P - 1, P - 1), P - 2);
        assert_eq!(m.sub(0, P - 1), 1);
        assert_eq!(m.mul(P - 1, P - 1), 1);
        assert_eq!(m.mul_naive(P - 1, 2), P - 2);
        assert_eq!(m.pow(3, 0), 1);
        assert_eq!(m.pow(P - 1, 3), P - 1);
        assert_eq!(m.reduce_u32(u32::MAX), (u32::MAX % P));
        assert_eq!(m.reduce_limbs(&[]), 0);
        assert_eq!(
            m.reduce_limbs(&[u64::MAX, 1]),
            (((1u128 << 65) - 1) % P as u128) as u32
        );
    }

    /// A fixed-capacity string for formatting in a `no_std` crate's tests.
    fn heapless_string() -> Text {
        Text {
            buf: [0; 128],
            len: 0,
        }
    }

    struct Text {
        buf: [u8; 128],
        len: usize,
    }

    impl Text {
        fn as_str(&self) -> &str {
            core::str::from_utf8(&self.buf[..self.len]).unwrap()
        }
    }

    impl core::fmt::Write for Text {
        fn write_str(&mut self, s: &str) -> core::fmt::Result {
            let end = self.len + s.len();
            self.buf
                .get_mut(self.len..end)
                .ok_or(core::fmt::Error)?
                .copy_from_slice(s.as_bytes());
            self.len = end;
            Ok(())
        }
    }
}
