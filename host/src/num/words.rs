//! [`Words`]: the storage of residues — ordinary heap memory, or page-locked host memory
//! that a GPU reads and writes directly. The GPU backend returns large results in
//! page-locked buffers from a pool that reuses them (they go back to it when dropped),
//! so that its copies run at full PCIe speed with no staging copy and no page faults,
//! and a result fed to the next GPU operation is copied up directly too.

use std::fmt;
use std::ops::{Deref, DerefMut};

/// Page-locked words owned by a device's pool.
pub trait LockedWords: Send + Sync + fmt::Debug {
    /// The words.
    fn words(&self) -> &[u32];
    /// The words, writable.
    fn words_mut(&mut self) -> &mut [u32];
}

/// Residue storage: heap or page-locked memory, used as a `[u32]` either way.
pub enum Words {
    /// Ordinary heap memory.
    Heap(Vec<u32>),
    /// Page-locked memory of a GPU's pool.
    Locked(Box<dyn LockedWords>),
}

impl Words {
    /// Whether a GPU can copy these words directly (they are page-locked).
    pub fn is_locked(&self) -> bool {
        matches!(self, Words::Locked(_))
    }

    /// The words as a vector (a copy for page-locked memory).
    pub fn into_vec(self) -> Vec<u32> {
        match self {
            Words::Heap(v) => v,
            Words::Locked(l) => l.words().to_vec(),
        }
    }
}

impl Deref for Words {
    type Target = [u32];
    fn deref(&self) -> &[u32] {
        match self {
            Words::Heap(v) => v,
            Words::Locked(l) => l.words(),
        }
    }
}

impl AsRef<[u32]> for Words {
    fn as_ref(&self) -> &[u32] {
        self
    }
}

impl DerefMut for Words {
    fn deref_mut(&mut self) -> &mut [u32] {
        match self {
            Words::Heap(v) => v,
            Words::Locked(l) => l.words_mut(),
        }
    }
}

impl From<Vec<u32>> for Words {
    fn from(v: Vec<u32>) -> Words {
        Words::Heap(v)
    }
}

impl Clone for Words {
    /// A heap copy (page-locked memory is the pool's to hand out).
    fn clone(&self) -> Words {
        Words::Heap(self.to_vec())
    }
}

impl PartialEq for Words {
    fn eq(&self, other: &Words) -> bool {
        **self == **other
    }
}

impl fmt::Debug for Words {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = if self.is_locked() { "locked" } else { "heap" };
        write!(f, "Words({kind}, {} words)", self.len())
    }
}

impl FromIterator<u32> for Words {
    fn from_iter<I: IntoIterator<Item = u32>>(iter: I) -> Words {
        Words::Heap(iter.into_iter().collect())
    }
}

/// Borrowed residues and whether a GPU may copy them directly (they are page-locked).
#[derive(Clone, Copy, Debug)]
pub struct WordsRef<'a> {
    /// The words.
    pub data: &'a [u32],
    /// Whether they are page-locked.
    pub locked: bool,
}

impl<'a> From<&'a [u32]> for WordsRef<'a> {
    fn from(data: &'a [u32]) -> WordsRef<'a> {
        WordsRef {
            data,
            locked: false,
        }
    }
}

impl<'a> From<&'a Vec<u32>> for WordsRef<'a> {
    fn from(data: &'a Vec<u32>) -> WordsRef<'a> {
        WordsRef::from(data.as_slice())
    }
}

impl<'a> From<&'a Words> for WordsRef<'a> {
    fn from(w: &'a Words) -> WordsRef<'a> {
        WordsRef {
            data: w,
            locked: w.is_locked(),
        }
    }
}
