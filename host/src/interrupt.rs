//! Cooperative interruption: a caller that may be asked to stop (the Python package on
//! Ctrl-C) runs a computation under a flag with [`with_flag`]; the computation calls
//! [`check`] between its stages and ends with [`Error::Interrupted`] once the flag is set.
//! Without a flag, [`check`] always passes.

use crate::error::{Error, Result};
use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

thread_local! {
    static FLAG: RefCell<Option<Arc<AtomicBool>>> = const { RefCell::new(None) };
}

/// Runs `f` on this thread with `flag` as its stop request (the previous one, if any, is
/// restored afterwards).
pub fn with_flag<T>(flag: Arc<AtomicBool>, f: impl FnOnce() -> T) -> T {
    let previous = FLAG.with(|c| c.replace(Some(flag)));
    let out = f();
    FLAG.with(|c| *c.borrow_mut() = previous);
    out
}

/// [`Error::Interrupted`] when this thread's computation has been asked to stop.
pub fn check() -> Result<()> {
    let stop = FLAG.with(|c| {
        c.borrow()
            .as_ref()
            .is_some_and(|f| f.load(Ordering::Relaxed))
    });
    if stop {
        Err(Error::Interrupted)
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flag_stops_only_its_own_computation() {
        assert_eq!(check(), Ok(()));
        let flag = Arc::new(AtomicBool::new(false));
        with_flag(flag.clone(), || {
            assert_eq!(check(), Ok(()));
            flag.store(true, Ordering::Relaxed);
            assert_eq!(check(), Err(Error::Interrupted));
            // Another thread has no flag.
            std::thread::spawn(|| assert_eq!(check(), Ok(())))
                .join()
                .unwrap();
        });
        assert_eq!(check(), Ok(()));
    }
}
