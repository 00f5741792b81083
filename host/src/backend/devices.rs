//! Which GPUs a backend uses: all usable ones, or a list of ordinals.

use crate::backend::gpu::Gpu;
use crate::cluster;
use crate::error::{Error, Result};
use std::str::FromStr;
use std::sync::Arc;

/// The GPUs to compute on.
///
/// ```
/// use rns::Devices;
///
/// assert_eq!("all".parse::<Devices>()?, Devices::All);
/// assert_eq!("0, 1".parse::<Devices>()?, Devices::List(vec![0, 1]));
/// assert!("0,0".parse::<Devices>().is_err()); // no repeats
/// # Ok::<(), rns::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum Devices {
    /// Every device that opens.
    #[default]
    All,
    /// These ordinals, each of which must open.
    List(Vec<usize>),
}

impl FromStr for Devices {
    type Err = Error;

    /// `all`, or comma-separated ordinals such as `0,1` (no repeats).
    fn from_str(s: &str) -> Result<Devices> {
        let s = s.trim();
        if s.eq_ignore_ascii_case("all") {
            return Ok(Devices::All);
        }
        let bad = || {
            Error::Shape(format!(
                "devices '{s}': expected 'all' or device ordinals such as 0,1"
            ))
        };
        let list = s
            .split(',')
            .map(|t| t.trim().parse::<usize>().map_err(|_| bad()))
            .collect::<Result<Vec<usize>>>()?;
        Devices::list(list)
    }
}

impl Devices {
    /// These ordinals: at least one, none twice.
    pub fn list(ordinals: Vec<usize>) -> Result<Devices> {
        if ordinals.is_empty() {
            return Err(Error::Shape("an empty list of devices".into()));
        }
        for (i, d) in ordinals.iter().enumerate() {
            if ordinals[..i].contains(d) {
                return Err(Error::Shape(format!("device {d} is listed twice")));
            }
        }
        Ok(Devices::List(ordinals))
    }

    /// The first device asked for (0 for all).
    pub fn first(&self) -> usize {
        match self {
            Devices::All => 0,
            Devices::List(l) => l.first().copied().unwrap_or(0),
        }
    }

    /// Opens the devices: for [`Devices::All`] every one the driver reports that opens
    /// ([`Error::NoGpu`] when none does), or under MPI this rank's part of its host's
    /// devices; for a list, each of them (the first failure is the error).
    pub fn open(&self) -> Result<Vec<Arc<Gpu>>> {
        match self {
            Devices::List(list) => list.iter().map(|&d| Gpu::device(d)).collect(),
            Devices::All => {
                let n = Gpu::count();
                let opened: Vec<Result<Arc<Gpu>>> =
                    mine(n.max(1)).into_iter().map(Gpu::device).collect();
                let first_err = opened.iter().find_map(|r| r.as_ref().err().cloned());
                let ok: Vec<Arc<Gpu>> = opened.into_iter().filter_map(|r| r.ok()).collect();
                match (ok.is_empty(), first_err) {
                    (true, Some(e)) => Err(e),
                    (true, None) => Err(Error::no_gpu("the driver reports no CUDA device")),
                    (false, _) => Ok(ok),
                }
            }
        }
    }
}

/// This rank's part of the `n` devices of its host: ordinals `local_rank`,
/// `local_rank + local_size`, … (all of them without MPI), or, with more ranks than
/// devices on the host, the one device `local_rank mod n`.
fn mine(n: usize) -> Vec<usize> {
    let p = cluster::place();
    let part: Vec<usize> = (p.local_rank..n).step_by(p.local_size.max(1)).collect();
    if part.is_empty() {
        vec![p.local_rank % n.max(1)]
    } else {
        part
    }
}

#[cfg(test)]
mod tests {
    use super::Devices;

    #[test]
    fn device_lists_parse() {
        assert_eq!("all".parse::<Devices>().unwrap(), Devices::All);
        assert_eq!(" ALL ".parse::<Devices>().unwrap(), Devices::All);
        assert_eq!(
            "0, 2,1".parse::<Devices>().unwrap(),
            Devices::List(vec![0, 2, 1])
        );
        for bad in ["", "0,", "x", "-1", "0,0", "1,2,1", "0;1"] {
            let e = bad.parse::<Devices>().unwrap_err().to_string();
            assert!(e.contains("devices") || e.contains("twice"), "{bad}: {e}");
        }
    }
}
