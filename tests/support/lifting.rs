//! The checks of Dixon's lifting on the device shared by the GPU tests: the
//! determinant and the solve lifted there against the CPU's lifting (the same divisor,
//! prime and fractions, and comparable steps) and the multimodular method, and the
//! matrices with known answers they use.

use crate::{bareiss_det, dev, Gen};
use rns::algo::lift::cpu::solve as solve_dixon;
use rns::algo::lift::gpu::{fits as lifts_on_gpu, solve as solve_dixon_gpu};
use rns::{Backend, IntMatrix, Method};
use rug::Integer;

pub fn ones(n: usize) -> IntMatrix {
    IntMatrix::new(n, 1, vec![Integer::from(1); n]).unwrap()
}

/// The determinant by the divisor trick on `g` (lifting on the device) against the
/// CPU's divisor trick, stage for stage, and against Bareiss when `bareiss`.
pub fn same_as_cpu(g: &Backend, a: &IntMatrix, bareiss: bool, what: &str) -> Integer {
    assert!(
        lifts_on_gpu(dev(g), a, &ones(a.rows())),
        "{what}: fits the device"
    );
    let (d, st) = rns::det_with(a, g, &Method::Dixon.into()).unwrap();
    let (want, cpu) = rns::det_with(a, &Backend::Cpu, &Method::Dixon.into()).unwrap();
    assert_eq!(d, want, "{what}");
    if bareiss {
        assert_eq!(d, bareiss_det(a), "{what}: Bareiss");
    }
    assert_eq!(
        (st.method, st.divisor_bits),
        (cpu.method, cpu.divisor_bits),
        "{what}: the same divisor"
    );
    // The primes follow the bound: the same under the same bounds. A floating-point one
    // (the device's from the limbs, the CPU's from the entries) lies between |det A| and
    // Hadamard's.
    if st.float_bound_bits == cpu.float_bound_bits {
        assert_eq!(st.primes, cpu.primes, "{what}: the same primes");
    }
    for bits in [st.float_bound_bits, cpu.float_bound_bits]
        .into_iter()
        .flatten()
    {
        assert!(bits <= st.bound_bits, "{what}: {bits} above Hadamard's");
        if d != 0 {
            assert!(
                u64::from(d.significant_bits()) <= bits + 1,
                "{what}: {bits} bits"
            );
        }
    }
    // One prime a step: the CPU's steps; k primes a step: about a k-th of them (the
    // bound divided by the bits of the product, rounded up).
    let k = st.lifting_primes.max(1);
    assert!(
        st.lifting_steps.abs_diff(cpu.lifting_steps.div_ceil(k)) <= usize::from(k > 1),
        "{what}: {} steps by {k} primes against the CPU's {}",
        st.lifting_steps,
        cpu.lifting_steps
    );
    d
}

/// `U` upper unitriangular with `bits`-bit entries above the diagonal (`U·Uᵀ` is
/// unimodular).
pub fn unit_upper(gen: &mut Gen, n: usize, bits: u32) -> IntMatrix {
    let mut u = IntMatrix::identity(n).entries().to_vec();
    for i in 0..n {
        for j in i + 1..n {
            u[i * n + j] = gen.signed(bits);
        }
    }
    IntMatrix::new(n, n, u).unwrap()
}

/// `diag(1, …, n)` and `b = 1`: `x_i = 1/(i + 1)`, so that row 0's denominator (1)
/// explains no other entry and each grows the common one.
pub fn diagonal_ones(n: usize) -> (IntMatrix, IntMatrix) {
    let diagonal: Vec<Integer> = (0..n * n)
        .map(|e| match e % (n + 1) {
            0 => Integer::from(e / (n + 1) + 1),
            _ => Integer::new(),
        })
        .collect();
    let ones = IntMatrix::new(n, 1, vec![Integer::from(1); n]).unwrap();
    (IntMatrix::new(n, n, diagonal).unwrap(), ones)
}

/// A non-singular `n × n` matrix whose determinant the first prime the lifting tries
/// divides (row 0 = 3·row 1 + that prime times a 0/1 vector), and the prime.
pub fn divisible_by_first(gen: &mut Gen, n: usize) -> (IntMatrix, u32) {
    let first = rns_core::prime::moduli_descending(|_| false)
        .next()
        .unwrap();
    let mut e = gen.matrix(n, n, 20).entries().to_vec();
    for j in 0..n {
        e[j] = Integer::from(&e[n + j] * 3u32) + Integer::from(first) * (j as u32 % 2);
    }
    (IntMatrix::new(n, n, e).unwrap(), first)
}

/// The solve lifted on the device against the CPU's lifting (the same prime and
/// fractions) and against the multimodular solve.
pub fn solve_same_as_cpu(g: &Backend, a: &IntMatrix, b: &IntMatrix, what: &str) {
    assert!(lifts_on_gpu(dev(g), a, b), "{what}: fits the device");
    let (s, laps) = solve_dixon_gpu(g, a, b)
        .unwrap()
        .expect("invertible modulo a prime");
    let cpu = solve_dixon(a, b)
        .unwrap()
        .expect("invertible modulo a prime");
    // The same fractions and first prime. (Not the same steps: the device runs ahead
    // while the host tries to reconstruct, and by several primes a step their bits
    // differ.)
    assert_eq!(
        (&s.numerators, &s.denominator, s.prime),
        (&cpu.numerators, &cpu.denominator, cpu.prime),
        "{what}: as the CPU's lifting"
    );
    assert!(s.steps * s.primes >= cpu.steps.min(16), "{what}: steps");
    assert!(laps.into_stages().iter().any(|(n, _)| *n == "lift: steps"));
    let (x, _) = rns::solve_with(a, b, g, &Method::Dixon.into()).unwrap();
    let (want, _) = rns::solve_with(a, b, &Backend::Cpu, &Method::Multimodular.into()).unwrap();
    assert_eq!(x, want, "{what}: as the multimodular solve");
}
