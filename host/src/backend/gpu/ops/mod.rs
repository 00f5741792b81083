//! The algorithms on one device: functions over a [`Gpu`](super::Gpu) composed from the
//! launch and driver layers. Vectors streamed through the device ([`vectors`]), signs and
//! comparisons ([`order`]), the conversion tables of a basis ([`tables`]) and the exact
//! product's two ends ([`limbs`]), the exact product ([`product`]) and decimal text made
//! on the device, both ways ([`decimal`]); matrices modulo many primes ([`matrices`],
//! [`eliminate`]); determinants of a few large matrices with the whole device
//! ([`few`], [`schur`]; split by rows across devices, [`few_devices`]); the inverse of
//! one large matrix by recursive Schur complements ([`inverse`]); Dixon's lifting ([`dixon`], on several devices
//! [`dixon_devices`]); resultants ([`resultant`]); sums of big integers weighted by
//! digits, by one exact product ([`weighted`]); products of many numbers modulo a large
//! odd one by Montgomery products in residues ([`redc`]);
//! device-resident values ([`resident`]); the device's measured speed ([`speed()`]).

// Public (and used) only with the `raw-gpu` feature; crate-internal otherwise.
#![cfg_attr(
    not(feature = "raw-gpu"),
    allow(unreachable_pub, unused_imports, dead_code)
)]

pub mod decimal;
pub mod det_bound;
pub mod dixon;
pub mod dixon_block;
pub mod dixon_devices;
pub mod dixon_ranks;
pub mod eliminate;
pub mod few;
pub mod few_devices;
pub mod hessenberg;
pub mod inverse;
pub mod limbs;
pub mod matrices;
pub mod order;
pub mod product;
pub mod redc;
pub mod resident;
pub mod resultant;
pub mod schur;
pub mod speed;
pub mod tables;
pub mod vectors;
pub mod weighted;

pub use dixon::{det_mod_limbs, start_lift, upload_limbs, DeviceLimbs, Lift};
pub use dixon_block::{block_lift_words, start_block_lift, BlockLift, Lifting};
pub use dixon_devices::{det_mod_limbs_on, start_lift_on, LiftOn, LimbsOn};
pub use eliminate::{eliminate_packed, eliminate_words};
pub use few::{det_few_for, det_mod_few, rref_mod_few};
pub use hessenberg::{charpoly_mod_grid, charpoly_packed, minpoly_mod_few, CHARPOLY_GRID_FROM};
pub use limbs::{pack_number_major, signed_limbs};
pub use matrices::{
    det_packed, det_per_channel, det_words, eliminate_per_channel, matmul_per_channel,
    matrix_polynomial_per_channel,
};
pub use order::cofactor_inverses;
pub use product::{
    matmul_limbs, matmul_limbs_on, matmul_packed, matmul_text, matmul_text_on, Operand,
};
pub use redc::{coprime_to, redc_product};
pub use resultant::{plan_points, resultant_per_channel, resultant_words};
pub use resultant::{resultant_xy_plan, resultant_xy_words, PointsPlan};
pub use speed::speed;
pub use tables::mrc_tables;
pub use vectors::{compare, digits, elementwise, equal, reduce_words};
pub use weighted::weighted_sums;
