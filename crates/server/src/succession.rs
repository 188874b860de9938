//! Nodes' names, and succession: a node started on a host takes over at once what nodes
//! killed on the same host held (webhook claims, verification claims, singleton leases),
//! instead of leaving that work until the claims run out.
//!
//! A name says where a node runs (host, boot, process id namespace) and which process it is (process id and
//! the process's start time, so that a reused id is not mistaken for it), plus a random
//! part, since one process may run several nodes (tests). A node judges only names of its
//! own host and boot: one whose process no longer exists is gone. Names of other hosts are
//! never judged; their claims run out as before.

use domain::Timestamp;
use storage::Database;

/// Where this process runs and which process it is, as Linux's `/proc` tells; `None`
/// elsewhere, where names say only the process id and succession does nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Process {
    /// `host:boot.namespace:`: what names of nodes on this host, boot and process id
    /// namespace begin with.
    host: String,
    pid: u32,
    started: u64,
}

impl Process {
    fn this() -> Option<Self> {
        let host = read_trimmed("/proc/sys/kernel/hostname")?;
        let boot: String = read_trimmed("/proc/sys/kernel/random/boot_id")?
            .chars()
            .filter(char::is_ascii_hexdigit)
            .take(12)
            .collect();
        // Hosts of one name and boot may still be apart: containers with their own
        // process ids.
        let namespace: String = std::fs::read_link("/proc/self/ns/pid")
            .ok()?
            .to_string_lossy()
            .chars()
            .filter(char::is_ascii_digit)
            .collect();
        let pid = std::process::id();
        Some(Self {
            host: format!("{host}:{boot}.{namespace}:"),
            pid,
            started: start_time(pid)?,
        })
    }

    /// The process a node's name on this host names, if it is one of this host's.
    fn named(&self, node: &str) -> Option<(u32, u64)> {
        let mut parts = node.strip_prefix(&self.host)?.split(':');
        let pid = parts.next()?.parse().ok()?;
        let started = parts.next()?.parse().ok()?;
        Some((pid, started))
    }
}

fn read_trimmed(path: &str) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let text = text.trim();
    (!text.is_empty() && !text.contains(':')).then(|| text.to_owned())
}

/// When a process started, in clock ticks since boot (`/proc/PID/stat`, field 22), if it
/// exists.
fn start_time(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold spaces or parentheses.
    let after_name = &stat[stat.rfind(')')? + 1..];
    after_name.split_whitespace().nth(19)?.parse().ok()
}

/// A new name for a node of this process.
pub fn node_name() -> String {
    let random: String = storage::secrets::random_bytes(4)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    match Process::this() {
        Some(p) => format!("{}{}:{}:{random}", p.host, p.pid, p.started),
        None => format!("pid{}-{random}", std::process::id()),
    }
}

/// Whether the node named so ran on this host and its process is gone.
fn is_gone(this: &Process, node: &str) -> bool {
    this.named(node)
        .is_some_and(|(pid, started)| start_time(pid) != Some(started))
}

/// Ends the claims and leases of the nodes of this host whose processes are gone, so
/// that the work they held is taken up at once; answers how many nodes they were.
pub async fn take_over_from_gone_nodes(db: &Database, now: Timestamp) -> storage::Result<usize> {
    let Some(this) = Process::this() else {
        return Ok(0);
    };
    let gone: Vec<String> = storage::succession::holders(db, &this.host, now)
        .await?
        .into_iter()
        .filter(|node| is_gone(&this, node))
        .collect();
    storage::succession::end_claims_of(db, &gone, now).await?;
    Ok(gone.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_tells_this_hosts_nodes_that_are_gone_from_those_that_run() {
        let Some(this) = Process::this() else {
            return;
        };
        let running = node_name();
        assert!(running.starts_with(&this.host), "{running}");
        assert!(!is_gone(&this, &running), "this process runs");
        let other_start = format!("{}{}:{}:00", this.host, this.pid, this.started + 1);
        assert!(is_gone(&this, &other_start), "the same id, another process");
        let no_process = format!("{}{}:{}:00", this.host, u32::MAX, this.started);
        assert!(is_gone(&this, &no_process));
        for elsewhere in [
            format!("another-host:{}:00", this.pid),
            "pid1-00".to_owned(),
            format!("{}not-a-pid:1:00", this.host),
        ] {
            assert!(!is_gone(&this, &elsewhere), "{elsewhere} is not judged");
        }
    }
}
