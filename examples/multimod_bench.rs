//! The residues of large integers modulo many primes: directly (`mpn_mod_1` once per
//! pair of primes: `rns::num::vector::residues_into`) against the remainder tree
//! (`rns::num::multimod::RemainderTree`) and the table of powers
//! (`rns::num::multimod_table::PowerTable`, up to 39 limbs), per value, one core, at several sizes, and
//! the tree's construction; every value's residues equal both ways.
//!
//! `cargo run --release --example multimod_bench -- [CHANNELS [LIMBS]]` (comma-separated
//! lists; defaults `64,256,1024,4096,16384` and `16,64,96,128,256,1024,8192`).

use rns::num::multimod::RemainderTree;
use rns::num::multimod_table::PowerTable;
use rns::num::vector::residues_into;
use rns_core::Modulus;
use rug::Integer;
use std::time::Instant;

fn list(arg: Option<&String>, default: &str) -> Vec<usize> {
    arg.map_or(default, String::as_str)
        .split(',')
        .map(|s| s.parse().expect("a number"))
        .collect()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let channels = list(args.first(), "64,256,1024,4096,16384");
    let limbs = list(args.get(1), "16,64,96,128,256,1024,8192");
    let all: Vec<Modulus> = rns_core::prime::moduli_descending(|_| false)
        .take(*channels.iter().max().unwrap_or(&1))
        .map(|p| Modulus::new(p).expect("a prime"))
        .collect();
    println!("channels  limbs  direct µs  tree µs  table µs  (tree built in ms)");
    for &c in &channels {
        let moduli = &all[..c];
        let t = Instant::now();
        let tree = RemainderTree::new(moduli);
        let built = t.elapsed().as_secs_f64() * 1e3;
        for &l in &limbs {
            let x: Integer = Integer::from(Integer::u_pow_u(3, (l * 64 * 10 / 16) as u32)) - 1u32;
            let x: Integer = x.keep_bits((l * 64) as u32);
            let (mut a, mut b) = (vec![0u32; c], vec![0u32; c]);
            let reps = (2_000_000 / (c * l).max(1)).clamp(1, 1000);
            let t = Instant::now();
            for _ in 0..reps {
                residues_into(&x, moduli, &mut a);
            }
            let direct = t.elapsed().as_secs_f64() * 1e6 / reps as f64;
            let t = Instant::now();
            for _ in 0..reps {
                tree.residues_into(&x, &mut b);
            }
            let by_tree = t.elapsed().as_secs_f64() * 1e6 / reps as f64;
            assert_eq!(a, b, "{c} channels, {l} limbs");
            let by_table = match PowerTable::new(moduli, l) {
                Some(table) => {
                    let t = Instant::now();
                    for _ in 0..reps {
                        assert!(table.residues_into(&x, &mut b));
                    }
                    assert_eq!(a, b, "{c} channels, {l} limbs, table");
                    format!("{:>8.2}", t.elapsed().as_secs_f64() * 1e6 / reps as f64)
                }
                None => format!("{:>8}", "-"),
            };
            println!("{c:>8}  {l:>5}  {direct:>9.2}  {by_tree:>7.1}  {by_table}  ({built:.2})");
        }
    }
}
