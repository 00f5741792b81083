//! GPU kernels of rns: `#![no_std]` Rust compiled to PTX (`nvptx64-nvidia-cuda`).
//! On other targets this crate is empty.
#![no_std]
