//! [`Laps`]: the wall-clock stages of a computation, for the stage breakdowns that
//! `det`, the resultants and the examples print.

use std::time::{Duration, Instant};

/// Named stages in the order first timed; a stage timed again (a later chunk) adds up.
#[derive(Clone, Debug)]
pub struct Laps {
    stages: Vec<(&'static str, Duration)>,
    since: Instant,
}

impl Default for Laps {
    fn default() -> Laps {
        Laps::start()
    }
}

impl Laps {
    /// Starts the clock with no stages.
    pub fn start() -> Laps {
        Laps {
            stages: Vec::new(),
            since: Instant::now(),
        }
    }

    /// Whether no stage was timed yet.
    pub fn is_empty(&self) -> bool {
        self.stages.is_empty()
    }

    /// Ends the stage `name` now (it began at the previous lap or the start); returns its
    /// length.
    pub fn lap(&mut self, name: &'static str) -> Duration {
        let now = Instant::now();
        let d = now - self.since;
        self.add(name, d);
        self.since = now;
        d
    }

    /// [`Laps::lap`], then [`crate::interrupt::check`]: ends a stage after which the
    /// computation may stop if asked to.
    pub fn stage(&mut self, name: &'static str) -> crate::Result<Duration> {
        let d = self.lap(name);
        crate::interrupt::check()?;
        Ok(d)
    }

    /// Restarts the clock without ending a stage (the time since is given out by
    /// [`Laps::add`]).
    pub fn restart(&mut self) -> Duration {
        let now = Instant::now();
        let d = now - self.since;
        self.since = now;
        d
    }

    /// Adds `d` to the stage `name`.
    pub fn add(&mut self, name: &'static str, d: Duration) {
        match self.stages.iter_mut().find(|(n, _)| *n == name) {
            Some((_, t)) => *t += d,
            None => self.stages.push((name, d)),
        }
    }

    /// Appends another computation's stages (restarting this clock after them).
    pub fn append(&mut self, other: Laps) {
        for (name, d) in other.stages {
            self.add(name, d);
        }
        self.since = Instant::now();
    }

    /// The stages and their times, in order.
    pub fn into_stages(self) -> Vec<(&'static str, Duration)> {
        self.stages
    }
}
