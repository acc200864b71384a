//! The peak memory of a child process, measured exactly: `wait4(2)` reaps the child and returns
//! the kernel's resource accounting for it, whose `ru_maxrss` is the high-water mark of its
//! resident set (in KiB on Linux). Sampling `/proc` while it runs could miss a short peak; this
//! cannot.
//!
//! `wait4` is declared here rather than taken from the `libc` crate, which this crate does not
//! depend on; the C library is linked into every Rust program on Linux anyway. The layout of
//! `struct rusage` is the Linux one for 64-bit targets: two `struct timeval` and fourteen `long`s.

use std::ffi::{c_int, c_long};
use std::io;
use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;
use std::time::Duration;

#[repr(C)]
struct Timeval {
    tv_sec: c_long,
    tv_usec: c_long,
}

#[repr(C)]
struct Rusage {
    ru_utime: Timeval,
    ru_stime: Timeval,
    ru_maxrss: c_long,
    /// `ru_ixrss` to `ru_nivcsw`, which these tests do not read.
    _rest: [c_long; 13],
}

#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
#[allow(unsafe_code)]
mod ffi {
    use super::{Rusage, c_int};

    unsafe extern "C" {
        pub(super) fn wait4(
            pid: c_int,
            status: *mut c_int,
            options: c_int,
            rusage: *mut Rusage,
        ) -> c_int;
    }
}

/// How a child ended and what it used.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Usage {
    /// Its exit status.
    pub(crate) status: ExitStatus,
    /// Its peak resident set size, in KiB.
    pub(crate) peak_rss_kib: u64,
    /// Its CPU time, user and system.
    pub(crate) cpu: Duration,
}

/// Waits for the child `pid` to end, reaps it, and returns what it used. The child must not be
/// waited for in any other way.
#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
#[allow(unsafe_code)]
pub(crate) fn wait(pid: u32) -> io::Result<Usage> {
    let pid = c_int::try_from(pid).map_err(|_| io::Error::other("pid out of range"))?;
    let mut status: c_int = 0;
    let mut usage = Rusage {
        ru_utime: Timeval {
            tv_sec: 0,
            tv_usec: 0,
        },
        ru_stime: Timeval {
            tv_sec: 0,
            tv_usec: 0,
        },
        ru_maxrss: 0,
        _rest: [0; 13],
    };
    loop {
        // SAFETY: `status` and `usage` are live, writable, and laid out as the kernel's `int` and
        // `struct rusage` on this target; `wait4` writes nothing else.
        let reaped = unsafe { ffi::wait4(pid, &mut status, 0, &mut usage) };
        if reaped == pid {
            return Ok(Usage {
                status: ExitStatus::from_raw(status),
                peak_rss_kib: u64::try_from(usage.ru_maxrss).unwrap_or(0),
                cpu: duration(&usage.ru_utime) + duration(&usage.ru_stime),
            });
        }
        let error = io::Error::last_os_error();
        if error.kind() != io::ErrorKind::Interrupted {
            return Err(error);
        }
    }
}

fn duration(time: &Timeval) -> Duration {
    Duration::from_secs(u64::try_from(time.tv_sec).unwrap_or(0))
        + Duration::from_micros(u64::try_from(time.tv_usec).unwrap_or(0))
}

#[cfg(not(all(target_os = "linux", target_pointer_width = "64")))]
compile_error!("the CLI tests measure peak memory with Linux's wait4; port support/rusage.rs");
