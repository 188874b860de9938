//! Signing a user in by e-mail and password, throttled per user name and per client
//! address so that guessing slows to a crawl without locking anyone out for good.

use std::net::IpAddr;

use storage::users::{self, User};
use storage::{Database, sign_in_failures};

use crate::password;
use crate::service::AuthService;

#[derive(Debug, thiserror::Error)]
pub enum SignInError {
    #[error("too many failed sign-ins; retry in {0} s")]
    Throttled(u64),
    #[error("the e-mail address or password is wrong")]
    Wrong,
    #[error(transparent)]
    Storage(#[from] storage::Error),
}

fn user_key(username: &str) -> String {
    format!("user:{}", users::normalize_email(username))
}

fn address_key(ip: IpAddr) -> String {
    format!("ip:{ip}")
}

impl AuthService {
    /// The user whose credentials these are. A locked user name or address is refused
    /// before the password is even checked; an unknown user costs as much as a wrong
    /// password.
    pub async fn sign_in(
        &self,
        username: &str,
        secret: &str,
        ip: Option<IpAddr>,
    ) -> Result<User, SignInError> {
        self.throttled(&user_key(username), ip, || async {
            let user = users::find_by_email(&self.db, username).await?;
            // A user invited to a shop who has not accepted has no password: refused at
            // the cost of an unknown user, so that the answer tells nothing of them.
            let verified = password::verify(
                secret.to_owned(),
                user.as_ref()
                    .filter(|u| u.has_password())
                    .map(|u| u.password_hash.clone()),
            )
            .await;
            Ok(user.filter(|_| verified))
        })
        .await
    }

    /// Runs a sign-in `attempt` (`None`: the credentials are wrong) unless `subject_key`
    /// (who is signing in) or the client's address is locked, counting a failure against
    /// both and clearing the subject's count on success.
    pub(crate) async fn throttled<T, F, Fut>(
        &self,
        subject_key: &str,
        ip: Option<IpAddr>,
        attempt: F,
    ) -> Result<T, SignInError>
    where
        F: FnOnce() -> Fut,
        Fut: std::future::Future<Output = storage::Result<Option<T>>>,
    {
        let address_key = ip.map(address_key);
        let keys: Vec<&str> = std::iter::once(subject_key)
            .chain(address_key.as_deref())
            .collect();
        let now = self.clock.now();
        if let Some(until) = sign_in_failures::locked_until(&self.db, &keys, now).await? {
            let secs = (until.as_micros() - now.as_micros()).div_euclid(1_000_000) + 1;
            return Err(SignInError::Throttled(u64::try_from(secs).unwrap_or(1)));
        }
        match attempt().await? {
            Some(signed_in) => {
                let mut tx = self.db.begin().await?;
                sign_in_failures::clear(&mut tx, subject_key).await?;
                tx.commit().await?;
                Ok(signed_in)
            }
            None => {
                self.record_failures(&self.db, subject_key, address_key.as_deref())
                    .await?;
                Err(SignInError::Wrong)
            }
        }
    }

    async fn record_failures(
        &self,
        db: &Database,
        user_key: &str,
        address_key: Option<&str>,
    ) -> storage::Result<()> {
        let throttle = &self.config.sign_in_throttle;
        let window = i64::try_from(throttle.window.as_secs()).unwrap_or(i64::MAX);
        let lock = i64::try_from(throttle.lock.as_secs()).unwrap_or(i64::MAX);
        let now = self.clock.now();
        let mut tx = db.begin().await?;
        sign_in_failures::record_failure(
            &mut tx,
            user_key,
            now,
            window,
            throttle.failures_per_user,
            lock,
        )
        .await?;
        if let Some(key) = address_key {
            sign_in_failures::record_failure(
                &mut tx,
                key,
                now,
                window,
                throttle.failures_per_address,
                lock,
            )
            .await?;
        }
        tx.commit().await
    }
}
