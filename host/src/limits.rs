//! Host memory checks: work whose data would not fit in the memory this process can
//! still take is refused with [`Error::OutOfMemory`] before it allocates, instead of
//! aborting on a failed allocation or being killed by the system. What the process can
//! take is the system's available memory, and, under a `ulimit -v`, what is left of the
//! address space the limit allows.

use crate::error::{Error, Result};

/// Bytes of memory this process can still take: the system's `MemAvailable` (of
/// `/proc/meminfo`), or less under an address-space limit (`RLIMIT_AS` less the
/// process's `VmSize`); `None` where neither is known.
pub fn available_bytes() -> Option<u64> {
    match (system_available(), address_space_left()) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// `MemAvailable` of `/proc/meminfo`.
fn system_available() -> Option<u64> {
    kib_field(
        &std::fs::read_to_string("/proc/meminfo").ok()?,
        "MemAvailable:",
    )
}

/// The address-space limit (`ulimit -v`) in bytes, if there is one.
fn address_space_limit() -> Option<u64> {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes the struct it is given.
    if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut lim) } != 0
        || lim.rlim_cur == libc::RLIM_INFINITY
    {
        return None;
    }
    Some(lim.rlim_cur)
}

/// What an address-space limit leaves to this process, if there is a limit.
fn address_space_left() -> Option<u64> {
    let limit = address_space_limit()?;
    let used = kib_field(
        &std::fs::read_to_string("/proc/self/status").ok()?,
        "VmSize:",
    )?;
    Some(limit.saturating_sub(used))
}

/// Address space glibc reserves for each malloc arena (64 MiB on 64-bit systems).
const ARENA_BYTES: u64 = 64 << 20;

/// Bytes by which glibc's malloc grows a heap at least ([`fit_allocator`]).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const TOP_PAD: libc::c_int = 64 << 20;

/// Fits glibc's malloc to this library's large results. Call it once when a process
/// starts, before its threads (the CLI's `main`; the Python module when imported); no
/// effect off glibc.
///
/// - Each heap grows by at least 64 MiB (`M_TOP_PAD`; default 128 KiB) unless
///   `MALLOC_TOP_PAD_` is set: millions of integers built at once by all cores (an
///   exact product's 16.8 M entries) otherwise grow the heaps a few pages at a time,
///   each growth an `mprotect` that waits for every other thread's page faults. First
///   call of the product 4096² 1000-bit on one H100: 8.2–9.0 s, with the pad 3.2–3.4 s.
///   Up to that much freed memory per arena stays mapped.
/// - Under an address-space limit (`ulimit -v`), the arenas are capped so that their
///   reservations take at most an eighth of it. By default every thread that allocates
///   may reserve an arena of 64 MiB, up to eight per core: on a 32-core host rayon's
///   threads alone took the whole of a 2 GB limit, and a command that [`check_bytes`]
///   refuses on a small machine ended in GMP's abort there.
pub fn fit_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        if std::env::var_os("MALLOC_TOP_PAD_").is_none() {
            // SAFETY: sets one of the allocator's parameters.
            unsafe { libc::mallopt(libc::M_TOP_PAD, TOP_PAD) };
        }
        if let Some(limit) = address_space_limit() {
            let arenas = (limit / 8 / ARENA_BYTES).clamp(1, 64) as libc::c_int;
            // SAFETY: sets one of the allocator's parameters; arenas already made stay.
            unsafe { libc::mallopt(libc::M_ARENA_MAX, arenas) };
        }
    }
}

/// The value in bytes of a `Name:  N kB` line.
fn kib_field(text: &str, name: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(name))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// Needs below this many bytes pass without a look at the system's figures.
const SMALL: u128 = 16 << 20;

/// [`Error::OutOfMemory`] naming `what` when `bytes` exceed [`available_bytes`].
pub fn check_bytes(bytes: u128, what: &str) -> Result<()> {
    if bytes < SMALL {
        return Ok(());
    }
    check_against(bytes, available_bytes(), what)
}

/// [`check_bytes`] against `available` bytes read once by a caller that checks often
/// (`None`: not known, so no check).
pub fn check_against(bytes: u128, available: Option<u64>, what: &str) -> Result<()> {
    match available {
        Some(have) if bytes > have as u128 => Err(Error::OutOfMemory {
            what: what.to_string(),
            needed: u64::try_from(bytes).unwrap_or(u64::MAX),
            available: have,
        }),
        _ => Ok(()),
    }
}

/// [`check_bytes`] for `words` 32-bit residues.
pub fn check_words(words: u128, what: &str) -> Result<()> {
    check_bytes(words.saturating_mul(4), what)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn huge_needs_are_refused_and_small_ones_pass() {
        assert!(check_words(1 << 20, "a small one").is_ok());
        if available_bytes().is_some() {
            let e = check_words(u128::MAX / 8, "a huge one").unwrap_err();
            assert!(matches!(
                e,
                Error::OutOfMemory {
                    needed: u64::MAX,
                    ..
                }
            ));
            assert!(e.to_string().starts_with("a huge one needs "), "{e}");
        }
    }

    #[test]
    fn fields_are_read_in_bytes() {
        let text = "MemTotal:  100 kB\nMemAvailable:   2048 kB\n";
        assert_eq!(kib_field(text, "MemAvailable:"), Some(2048 * 1024));
        assert_eq!(kib_field(text, "VmSize:"), None);
        assert_eq!(kib_field("VmSize: x kB", "VmSize:"), None);
    }
}
