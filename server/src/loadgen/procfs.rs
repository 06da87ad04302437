//! What the bench reads from Linux's `/proc`: a process's processor time and resident memory.

use anyhow::Context as _;

/// The processor time process `pid` (or `self`) has used so far, all its threads, user and
/// system, from `/proc/<pid>/stat` (Linux only).
pub(super) fn cpu_seconds(pid: &str) -> Option<f64> {
    parse_cpu_seconds(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

/// `utime + stime` of a `/proc/<pid>/stat` line, in seconds. The fields are counted after the
/// command name's closing parenthesis (the name may hold spaces), in clock ticks of `USER_HZ`,
/// which Linux fixes at 100 for `/proc`.
fn parse_cpu_seconds(stat: &str) -> Option<f64> {
    const USER_HZ: f64 = 100.0;
    let (_, fields) = stat.rsplit_once(')')?;
    let mut fields = fields.split_whitespace().skip(11);
    let user: u64 = fields.next()?.parse().ok()?;
    let system: u64 = fields.next()?.parse().ok()?;
    Some((user + system) as f64 / USER_HZ)
}

/// The resident set size of process `pid`, from `/proc/<pid>/status` (Linux only).
pub(super) fn resident_bytes(pid: u32) -> anyhow::Result<u64> {
    let path = format!("/proc/{pid}/status");
    let status = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read the server's memory from {path}"))?;
    parse_vm_rss(&status).with_context(|| format!("expected a VmRSS line in {path}"))
}

/// The `VmRSS:  1234 kB` line of a `/proc/<pid>/status`, in bytes.
fn parse_vm_rss(status: &str) -> Option<u64> {
    let line = status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))?;
    let kib: u64 = line.trim().strip_suffix("kB")?.trim().parse().ok()?;
    kib.checked_mul(1024)
}

#[cfg(test)]
mod tests {
    use super::{cpu_seconds, parse_cpu_seconds, parse_vm_rss};

    #[test]
    fn vm_rss_is_read_in_bytes() {
        let status = "Name:\tagentbench\nVmPeak:\t  999 kB\nVmRSS:\t   1234 kB\nThreads:\t4\n";
        assert_eq!(parse_vm_rss(status), Some(1234 * 1024));
        assert_eq!(parse_vm_rss("Name:\tx\n"), None);
        assert_eq!(parse_vm_rss("VmRSS:\tlots kB\n"), None);
    }

    #[test]
    fn cpu_time_is_user_plus_system_after_the_command_name() {
        let stat = "4242 (tokio (rt) x) S 1 4242 4242 0 -1 4194560 2630 0 0 0 250 75 0 0 20 0 \
                    9 0 1234 71541520 27317 18446744073709551615";
        assert_eq!(parse_cpu_seconds(stat), Some(3.25));
        assert_eq!(parse_cpu_seconds("4242 (x) S 1 2"), None);
        assert!(cpu_seconds("self").is_some_and(|seconds| seconds >= 0.0));
    }
}
