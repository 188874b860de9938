//! User passwords: argon2id hashes, computed on the blocking pool so that hashing never
//! stalls the async workers.
//!
//! Each hash works through argon2's memory (19 MiB with the default parameters). At most
//! `HASHERS` hashes run at once, each in a work area kept for the next one: memory stays
//! bounded whatever the number of sign-ins at once (each in flight would otherwise take
//! its own), a sign-in spends no time mapping and zeroing a fresh area, and the server's
//! allocator is not left with the freed areas of past sign-ins to hold on to.

use std::sync::{LazyLock, Mutex};

use argon2::password_hash::phc::{Output, ParamsString, PasswordHash, Salt};
use argon2::password_hash::{Error as HashError, generate_salt};
use argon2::{Algorithm, Argon2, Block, Params, Version};
use tokio::sync::Semaphore;

/// Hashes that run at once: hashing is CPU-bound, so more would not finish sooner.
static HASHERS: LazyLock<usize> = LazyLock::new(|| {
    std::thread::available_parallelism()
        .map(usize::from)
        .unwrap_or(1)
        .clamp(1, 4)
});

/// Turns to hash: one per `HASHERS`.
static TURNS: LazyLock<Semaphore> = LazyLock::new(|| Semaphore::new(*HASHERS));

/// The work areas not in use (at most `HASHERS`).
static AREAS: Mutex<Vec<Vec<Block>>> = Mutex::new(Vec::new());

/// Compared against when the user does not exist, so both failures cost the same time.
static DUMMY_HASH: LazyLock<String> =
    LazyLock::new(|| with_area(|area| hash_in(area, "not a real password")));

/// Runs `work` with a work area: one kept from an earlier hash, or a new one that is kept
/// after. Called on a blocking thread holding a turn.
fn with_area<T>(work: impl FnOnce(&mut Vec<Block>) -> T) -> T {
    let kept = AREAS
        .lock()
        .expect("the work areas' lock is not poisoned")
        .pop();
    let mut area = kept.unwrap_or_default();
    let output = work(&mut area);
    let mut areas = AREAS.lock().expect("the work areas' lock is not poisoned");
    if areas.len() < *HASHERS {
        areas.push(area);
    }
    output
}

/// Runs `work` on the blocking pool when a turn comes, with a work area.
async fn in_turn<T: Send + 'static>(work: impl FnOnce(&mut Vec<Block>) -> T + Send + 'static) -> T {
    let _turn = TURNS.acquire().await.expect("the turns are never closed");
    tokio::task::spawn_blocking(move || with_area(work))
        .await
        .expect("password hashing does not panic")
}

/// The area's first `blocks` blocks, grown to hold them.
fn blocks(area: &mut Vec<Block>, blocks: usize) -> &mut [Block] {
    if area.len() < blocks {
        area.resize(blocks, Block::new());
    }
    &mut area[..blocks]
}

/// The argon2 output of `password` with these parameters and salt, in `area`.
fn output_in(
    area: &mut Vec<Block>,
    argon2: &Argon2<'_>,
    params: &Params,
    password: &[u8],
    salt: &[u8],
    len: usize,
) -> Result<Output, HashError> {
    let mut out = [0u8; Output::MAX_LENGTH];
    let out = out.get_mut(..len).ok_or(HashError::OutputSize)?;
    argon2.hash_password_into_with_memory(
        password,
        salt,
        out,
        blocks(area, params.block_count()),
    )?;
    Ok(Output::new(out)?)
}

/// Hashes with the default parameters and a random salt into a PHC string.
fn hash_in(area: &mut Vec<Block>, password: &str) -> String {
    let params = Params::default();
    let argon2 = Argon2::new(Algorithm::Argon2id, Version::V0x13, params.clone());
    let salt = generate_salt();
    let hash = output_in(
        area,
        &argon2,
        &params,
        password.as_bytes(),
        &salt,
        Params::DEFAULT_OUTPUT_LEN,
    )
    .and_then(|output| {
        Ok(PasswordHash {
            algorithm: Algorithm::Argon2id.ident(),
            version: Some(Version::V0x13.into()),
            params: ParamsString::try_from(&params)?,
            salt: Some(Salt::new(&salt)?),
            hash: Some(output),
        })
    })
    .expect("argon2 with default parameters hashes any input");
    hash.to_string()
}

/// Whether `password` hashes to `stored` (a PHC string, with its own parameters); a
/// stored hash that cannot be read matches nothing.
fn matches_in(area: &mut Vec<Block>, password: &str, stored: &str) -> bool {
    hashes_to(area, password, stored).unwrap_or(false)
}

fn hashes_to(area: &mut Vec<Block>, password: &str, stored: &str) -> Result<bool, HashError> {
    let hash = PasswordHash::new(stored)?;
    let (Some(salt), Some(expected)) = (&hash.salt, &hash.hash) else {
        return Ok(false);
    };
    let algorithm = Algorithm::try_from(hash.algorithm.as_str())?;
    let version = hash
        .version
        .map_or(Ok(Version::default()), Version::try_from)?;
    let params = Params::try_from(&hash)?;
    let argon2 = Argon2::new(algorithm, version, params.clone());
    let computed = output_in(
        area,
        &argon2,
        &params,
        password.as_bytes(),
        salt,
        expected.len(),
    )?;
    // `Output` compares in constant time.
    Ok(&computed == expected)
}

/// Hashes a password (argon2id, default parameters, random salt) into a PHC string.
pub async fn hash(password: String) -> String {
    in_turn(move |area| hash_in(area, &password)).await
}

/// Whether `password` matches `stored`; a missing hash costs as much as a wrong password.
pub async fn verify(password: String, stored: Option<String>) -> bool {
    in_turn(move |area| {
        let known = stored.is_some();
        let phc = stored.unwrap_or_else(|| DUMMY_HASH.clone());
        let matches = matches_in(area, &password, &phc);
        known && matches
    })
    .await
}

/// The rules for a new password (`domain::validation::password`).
pub fn validate(password: &str) -> Result<(), String> {
    domain::validation::password(password)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn hashes_verify_and_unknown_users_fail() {
        let stored = hash("correct horse battery".into()).await;
        assert!(stored.starts_with("$argon2id$"));
        assert!(verify("correct horse battery".into(), Some(stored.clone())).await);
        assert!(!verify("wrong".into(), Some(stored)).await);
        assert!(!verify("not a real password".into(), None).await);
    }

    #[tokio::test]
    async fn hashes_of_argon2s_own_hasher_verify_whatever_their_parameters() {
        use argon2::{PasswordHasher, PasswordVerifier};

        let small = Params::new(8, 1, 1, Some(16)).unwrap();
        for argon2 in [
            Argon2::default(),
            Argon2::new(Algorithm::Argon2i, Version::V0x10, small),
        ] {
            let stored = argon2.hash_password(b"pass phrase 1").unwrap().to_string();
            assert!(verify("pass phrase 1".into(), Some(stored.clone())).await);
            assert!(!verify("pass phrase 2".into(), Some(stored)).await);
        }
        // And the other way round.
        let ours = hash("pass phrase 3".into()).await;
        let parsed = PasswordHash::new(&ours).unwrap();
        assert!(
            Argon2::default()
                .verify_password(b"pass phrase 3", &parsed)
                .is_ok()
        );
        assert!(!verify("x".into(), Some("$argon2id$not-a-hash".into())).await);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn hashes_at_once_share_a_bounded_set_of_work_areas() {
        let stored = hash("correct horse battery".into()).await;
        let checks: Vec<_> = (0..12)
            .map(|_| tokio::spawn(verify("correct horse battery".into(), Some(stored.clone()))))
            .collect();
        for check in checks {
            assert!(check.await.unwrap());
        }
        let kept = AREAS.lock().unwrap();
        assert!(
            !kept.is_empty() && kept.len() <= *HASHERS,
            "{} areas",
            kept.len()
        );
    }

    #[test]
    fn password_rules() {
        assert!(validate("short").is_err());
        assert!(validate("long enough!").is_ok());
    }
}
