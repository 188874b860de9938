//! Rotating the encryption keys that seal the database's secrets (`commerce keys`).
//!
//! With a key file the rotation is whole: a new key goes first in the file, running
//! servers take it up (they re-read the file every second), every secret is sealed anew
//! with it, and the old key leaves the file. Configured keys cannot change under a running
//! server: the operator gives every node `NEW,OLD` first, then `reseal` seals everything
//! with `NEW`, and `OLD` can go.

use anyhow::{Context, bail};
use storage::Database;
use storage::sealed_secrets;
use storage::secret_box::{KeyId, SecretBox, generate_key, write_key_file};

use crate::workers::ENCRYPTION_KEY_RELOAD;

/// What a rotation or a reseal did.
#[derive(Debug)]
pub struct Resealed {
    /// The key that seals every secret now.
    pub sealing: KeyId,
    /// How many secrets the database holds.
    pub secrets: u64,
    /// How many of them were sealed anew.
    pub resealed: u64,
    /// Where the keys are.
    pub file: String,
}

/// Puts a new key first in the key file, seals every secret with it, and removes the old.
pub async fn rotate(db: &Database, secret_box: &SecretBox) -> anyhow::Result<Resealed> {
    let Some(path) = secret_box.source().file() else {
        bail!(
            "the encryption keys are configured, not kept in a key file: give every node \
             NEW,OLD keys (`commerce keys generate` prints a new one), then run \
             `commerce keys reseal` with them"
        );
    };
    let keys = secret_box
        .source()
        .read()
        .await?
        .with_context(|| format!("{} vanished", secret_box.source()))?;
    let fresh = generate_key();
    let with_new: Vec<_> = std::iter::once(fresh).chain(keys).collect();
    write_key_file(path, &with_new, true).await?;
    // Running servers seal with the new key once they have read it.
    wait_for_servers_to_reload().await;
    secret_box.reload().await?;
    reseal(db, secret_box).await
}

/// Seals every secret with the first key; a key file then keeps that key alone.
pub async fn reseal(db: &Database, secret_box: &SecretBox) -> anyhow::Result<Resealed> {
    let mut resealed = sealed_secrets::reseal(db, secret_box).await?;
    if let Some(path) = secret_box.source().file()
        && secret_box.key_ids().len() > 1
    {
        let first = secret_box
            .source()
            .read()
            .await?
            .and_then(|keys| keys.first().copied())
            .with_context(|| format!("{} vanished", secret_box.source()))?;
        write_key_file(path, &[first], true).await?;
        // A server that sealed a secret with an old key just before it read the file may
        // commit it after the reseal: once servers hold the new key alone, seal what is
        // left (this process still holds the old keys).
        wait_for_servers_to_reload().await;
        resealed += sealed_secrets::reseal(db, secret_box).await?;
    }
    let sealing = secret_box.sealing_key_id();
    let in_use = sealed_secrets::key_ids_in_use(db).await?;
    let others: u64 = in_use
        .iter()
        .filter(|(id, _)| **id != Some(sealing))
        .map(|(_, n)| n)
        .sum();
    if others > 0 {
        bail!("{others} secret(s) are still sealed with other keys; run `commerce keys reseal`");
    }
    Ok(Resealed {
        sealing,
        secrets: in_use.values().sum(),
        resealed,
        file: secret_box.source().to_string(),
    })
}

async fn wait_for_servers_to_reload() {
    tokio::time::sleep(ENCRYPTION_KEY_RELOAD * 2).await;
}
