//! GPU kernels of rns: `#![no_std]` Rust compiled to PTX by rustc's
//! `nvptx64-nvidia-cuda` target (`host/build.rs` builds it). Every kernel calls
//! `rns-core` for the arithmetic. On other targets this crate is empty.
//!
//! Layout conventions (as `rns::RnsVec`): residues are channel-major, `x[c·len + i]`
//! for number `i` in channel `c`; moduli are an array of `rns_core::Modulus`.
#![no_std]
#![cfg_attr(
    target_arch = "nvptx64",
    feature(
        abi_ptx,
        stdarch_nvptx,
        asm_experimental_arch,
        gpu_intrinsics,
        gpu_launch_sized_workgroup_mem,
        core_intrinsics
    )
)]
#![cfg_attr(target_arch = "nvptx64", allow(internal_features))]

#[cfg(target_arch = "nvptx64")]
mod kernels;
