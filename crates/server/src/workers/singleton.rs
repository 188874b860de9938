//! Running a singleton task under its lease: take the lease when it is free, run the task
//! while renewing it, stop the task as soon as a renewal fails (the lease is lost, and
//! another node may take it), and release it when the node stops, so that another node
//! takes over at once rather than after the lease runs out.

use std::time::Duration;

use storage::leases;
use tokio_util::sync::CancellationToken;

use super::{Active, Job, LeaseTerms};

/// Contends for the lease `name` until `cancel`, running `job` whenever this node holds it.
pub(super) async fn contend(
    name: &'static str,
    job: Job,
    terms: LeaseTerms,
    cancel: CancellationToken,
    active: Active,
) {
    let every = renewal_interval(terms.lease);
    while !cancel.is_cancelled() {
        if take(name, &terms).await {
            hold(name, &job, &terms, &cancel, &active).await;
        }
        tokio::select! {
            () = cancel.cancelled() => {}
            () = tokio::time::sleep(every) => {}
        }
    }
}

/// A third of the lease: a renewal that fails still leaves two thirds of it to stop in.
fn renewal_interval(lease: Duration) -> Duration {
    (lease / 3).max(Duration::from_millis(10))
}

/// Takes the lease if it is free (a read first, so that waiting nodes do not write).
async fn take(name: &'static str, terms: &LeaseTerms) -> bool {
    let now = terms.clock.now();
    match leases::current(&terms.db, name, now).await {
        Ok(Some(lease)) if lease.holder != terms.holder => return false,
        Ok(_) => {}
        Err(err) => {
            tracing::warn!(task = name, error = %err, "cannot read the lease");
            return false;
        }
    }
    match leases::acquire(&terms.db, name, &terms.holder, now, now.plus(terms.lease)).await {
        Ok(taken) => taken,
        Err(err) => {
            tracing::warn!(task = name, error = %err, "cannot take the lease");
            false
        }
    }
}

/// Runs the task while renewing the lease; stops it when the lease is lost or the node
/// stops, then releases the lease.
async fn hold(
    name: &'static str,
    job: &Job,
    terms: &LeaseTerms,
    cancel: &CancellationToken,
    active: &Active,
) {
    tracing::info!(task = name, holder = %terms.holder, "lease taken: running");
    let stop_job = cancel.child_token();
    let mut task = tokio::spawn(job(stop_job.clone()));
    active.insert(name);
    let mut renewals = tokio::time::interval(renewal_interval(terms.lease));
    renewals.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    renewals.tick().await;
    let ended = loop {
        tokio::select! {
            ended = &mut task => break Some(ended),
            () = cancel.cancelled() => break None,
            _ = renewals.tick() => {
                let now = terms.clock.now();
                match leases::renew(&terms.db, name, &terms.holder, now, now.plus(terms.lease)).await {
                    Ok(true) => {}
                    Ok(false) => {
                        tracing::warn!(task = name, "lease lost: stopping");
                        break None;
                    }
                    Err(err) => {
                        tracing::warn!(task = name, error = %err, "cannot renew the lease: stopping");
                        break None;
                    }
                }
            }
        }
    };
    stop_job.cancel();
    let ended = match ended {
        Some(ended) => ended,
        None => task.await,
    };
    if let Err(err) = ended {
        tracing::warn!(task = name, error = %err, "the task failed");
    }
    active.remove(name);
    match leases::release(&terms.db, name, &terms.holder).await {
        Ok(_) => tracing::info!(task = name, "lease released"),
        Err(err) => {
            tracing::warn!(task = name, error = %err, "cannot release the lease; it runs out")
        }
    }
}
