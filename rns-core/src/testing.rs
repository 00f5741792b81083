//! What the unit tests share.

/// One step of Marsaglia's xorshift64 (shifts 13, 7, 17) on `x`, returning the new
/// state: the tests' random inputs without dependencies. A zero state stays zero.
pub(crate) fn xorshift(x: &mut u64) -> u64 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    *x
}

/// A generator of [`xorshift`] steps from `seed` (non-zero: zero stays zero).
pub(crate) fn rng(seed: u64) -> impl FnMut() -> u64 {
    let mut x = seed;
    move || xorshift(&mut x)
}
