//! Host memory checks: a computation whose residues alone would not fit in the memory
//! the system has available is refused with a clear error before it allocates, instead
//! of aborting on a failed allocation.

use crate::error::{Error, Result};

/// Bytes of memory the system reports available (`MemAvailable` of `/proc/meminfo`);
/// `None` where that is not known.
pub fn available_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// An error naming `what` when `words` 32-bit words exceed the available memory.
pub fn check_words(words: u128, what: &str) -> Result<()> {
    let need = words.saturating_mul(4);
    match available_bytes() {
        Some(have) if need > have as u128 => Err(Error::Shape(format!(
            "{what} needs about {:.1} GB for its residues alone, more than the {:.1} GB of memory available",
            need as f64 / 1e9,
            have as f64 / 1e9
        ))),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::check_words;

    #[test]
    fn huge_needs_are_refused_and_small_ones_pass() {
        assert!(check_words(1 << 20, "a small one").is_ok());
        if super::available_bytes().is_some() {
            let e = check_words(u128::MAX / 8, "a huge one")
                .unwrap_err()
                .to_string();
            assert!(e.starts_with("a huge one needs about"), "{e}");
        }
    }
}
