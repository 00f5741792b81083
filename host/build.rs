//! Compiles the `device` crate to PTX with rustc's `nvptx64-nvidia-cuda` target and
//! leaves it in `OUT_DIR/rns_device.ptx` for `include_str!`; then, with NVIDIA's
//! `ptxas` where it is found (`RNS_PTXAS`, the `PATH`, or Python's `nvidia-cuda-nvcc-cu12`
//! package), machine code for each of [`CUBIN_ARCHS`] in `OUT_DIR/rns_<arch>.cubin`, so
//! that a device of those architectures loads it without the driver's JIT compilation
//! of the PTX (seconds on a fresh machine). Without `ptxas` the files are empty and
//! every device compiles the PTX (a warning says so).
//!
//! `RNS_PTX_ARCH` picks the PTX target (default `sm_80`: runs on A100, H100 and newer
//! through the driver's JIT). The nested cargo uses its own target directory.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    let root = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap()).join("..");
    for dir in [
        "device/src",
        "device/Cargo.toml",
        "rns-core/src",
        "rns-core/Cargo.toml",
    ] {
        println!("cargo:rerun-if-changed={}", root.join(dir).display());
    }
    println!("cargo:rerun-if-env-changed=RNS_PTX_ARCH");
    let arch = env::var("RNS_PTX_ARCH").unwrap_or_else(|_| "sm_80".into());
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    let target_dir = out.join("ptx-target");
    let cargo = env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(&root)
        .args([
            "rustc",
            "-p",
            "rns-device",
            "--release",
            "--target",
            "nvptx64-nvidia-cuda",
        ])
        .args(["-Zbuild-std=core", "--target-dir"])
        .arg(&target_dir)
        .args(["--", "--emit=asm"]);
    // The outer build's settings must not leak into the nested one.
    for var in [
        "RUSTFLAGS",
        "CARGO_BUILD_TARGET",
        "CARGO_TARGET_DIR",
        "RUSTC_WORKSPACE_WRAPPER",
        "CARGO_MAKEFLAGS",
    ] {
        cmd.env_remove(var);
    }
    cmd.env(
        "CARGO_ENCODED_RUSTFLAGS",
        format!("-Ctarget-cpu={arch}\x1f-Cdebuginfo=0"),
    );
    let status = cmd.status().expect("run cargo for the nvptx64 build");
    assert!(status.success(), "building the device crate to PTX failed");
    let deps = target_dir.join("nvptx64-nvidia-cuda/release/deps");
    let ptx = newest_asm(&deps).expect("the nvptx build left no .s file");
    let text = std::fs::read_to_string(&ptx).expect("read the PTX");
    let (main, hopper) = split_sm90a(&with_register_caps(text));
    let ptx_path = out.join("rns_device.ptx");
    std::fs::write(&ptx_path, main).expect("write the PTX");
    let hopper_path = out.join("rns_device_sm90a.ptx");
    std::fs::write(&hopper_path, hopper).expect("write the sm_90a PTX");
    println!("cargo:rerun-if-env-changed=RNS_PTXAS");
    let ptxas = find_ptxas();
    if ptxas.is_none() {
        println!(
            "cargo:warning=no ptxas found (RNS_PTXAS, PATH, pip nvidia-cuda-nvcc-cu12): the \
             kernels ship as PTX only, compiled by the driver on first use"
        );
    }
    machine_code(ptxas.as_deref(), &ptx_path, &out, &CUBIN_ARCHS);
    machine_code(ptxas.as_deref(), &hopper_path, &out, &["sm_90a"]);
}

/// Kernels that use Hopper's `wgmma`, which only `sm_90a` has: moved out of the main
/// PTX (which every device of 8.0 or newer compiles) into a module of their own.
const SM90A_KERNELS: [&str; 1] = ["rns_matmul_wgmma"];

/// The PTX without [`SM90A_KERNELS`], and those kernels as a module for `sm_90a` (PTX
/// ISA 8.0) with every module-level declaration of the original (its shared memory and
/// constant tables).
fn split_sm90a(ptx: &str) -> (String, String) {
    let mut main = ptx.to_string();
    let mut hopper = String::from(".version 8.0\n.target sm_90a\n.address_size 64\n\n");
    for line in ptx.lines() {
        if line.starts_with(".extern .shared") || line.starts_with(".global") {
            hopper.push_str(line);
            hopper.push('\n');
        }
    }
    for name in SM90A_KERNELS {
        let start = main
            .find(&format!(".visible .entry {name}("))
            .unwrap_or_else(|| panic!("kernel {name} is missing"));
        let end = start + main[start..].find("\n}\n").expect("the kernel's end") + 3;
        hopper.push('\n');
        hopper.push_str(&main[start..end]);
        main.replace_range(start..end, "");
    }
    (main, hopper)
}

/// The architectures the main PTX is built to machine code for: a cubin of `sm_80` runs
/// on every 8.x device, one of `sm_90` on 9.0 (others compile the PTX).
const CUBIN_ARCHS: [&str; 2] = ["sm_80", "sm_90"];

/// `OUT_DIR/rns_<arch>.cubin` of `ptx` for each of `archs`: `ptxas`'s machine code, or
/// empty without `ptxas`.
fn machine_code(ptxas: Option<&Path>, ptx: &Path, out: &Path, archs: &[&str]) {
    for &arch in archs {
        let cubin = out.join(format!("rns_{arch}.cubin"));
        match ptxas {
            Some(ptxas) => {
                let status = Command::new(ptxas)
                    .arg(format!("-arch={arch}"))
                    .arg(ptx)
                    .arg("-o")
                    .arg(&cubin)
                    .status()
                    .expect("run ptxas");
                assert!(status.success(), "ptxas rejected the PTX for {arch}");
            }
            None => std::fs::write(&cubin, []).expect("write an empty cubin"),
        }
    }
}

/// `ptxas`: `RNS_PTXAS`, else on the `PATH`, else in Python's `nvidia.cuda_nvcc`.
fn find_ptxas() -> Option<PathBuf> {
    let works = |p: &Path| {
        Command::new(p)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if let Some(p) = env::var_os("RNS_PTXAS").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p)).filter(|p| works(p));
    }
    let on_path = PathBuf::from("ptxas");
    if works(&on_path) {
        return Some(on_path);
    }
    let py = Command::new("python3")
        .args([
            "-c",
            "import nvidia.cuda_nvcc, os; print(os.path.join(list(nvidia.cuda_nvcc.__path__)[0], 'bin', 'ptxas'))",
        ])
        .output()
        .ok()?;
    let p = PathBuf::from(String::from_utf8(py.stdout).ok()?.trim());
    Some(p).filter(|p| works(p))
}

/// Kernels whose registers are capped (PTX `.maxnreg`, which rustc cannot emit): 80 per
/// thread lets three blocks of 256 threads share an SM instead of two; 128 lets a block
/// of 512 threads of the global-memory lifting launch at all (by several primes a step it
/// keeps every prime's loads in flight in its registers: one block an SM), 168 a block of
/// 384 threads of its ring kernels (the rings' loops and 128-bit sums without spills);
/// 64 lets the block-per-prime resultant kernel run 1024 threads an SM with its rounds
/// of steps in registers, and 80 its wide-round kernel hold six coefficients a lane
/// (H200, deg 32 000: 3 % faster than four at 64; at most 768 threads a block).
const REGISTER_CAPS: [(&str, u32); 14] = [
    ("rns_resultant_block", 64),
    ("rns_resultant_block_global", 64),
    ("rns_resultant_block_global_wide", 80),
    ("rns_det_blocked", 80),
    ("rns_lu_panel", 80),
    ("rns_lu_rows", 80),
    ("rns_dixon_lift_global", 128),
    ("rns_dixon_lift_global2", 128),
    ("rns_dixon_lift_global3", 128),
    ("rns_dixon_lift_global4", 128),
    ("rns_dixon_lift_ring", 168),
    ("rns_dixon_lift_ring2", 168),
    ("rns_dixon_lift_ring3", 168),
    ("rns_dixon_lift_ring4", 168),
];

/// `ptx` with a `.maxnreg` directive after the parameter list of each capped kernel.
fn with_register_caps(mut ptx: String) -> String {
    for (name, regs) in REGISTER_CAPS {
        let entry = format!(".entry {name}(");
        let start = ptx
            .find(&entry)
            .unwrap_or_else(|| panic!("kernel {name} is missing"));
        let end = start
            + ptx[start..]
                .find("\n)\n")
                .expect("the end of the parameters")
            + 3;
        ptx.insert_str(end, &format!(".maxnreg {regs}\n"));
    }
    ptx
}

/// The newest `rns_device-*.s` in `dir`.
fn newest_asm(dir: &Path) -> Option<PathBuf> {
    std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            name.starts_with("rns_device-") && name.ends_with(".s")
        })
        .max_by_key(|p| p.metadata().and_then(|m| m.modified()).ok())
}
