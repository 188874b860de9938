//! Customer sessions: a shop's customer signs in with email and password through a
//! storefront app, throttled like staff sign-ins, and gets an access token that speaks
//! for the customer alone (no scope; see `Subject::Customer`). Its row names the customer,
//! so that every session of a customer can be ended at once.

use std::net::IpAddr;

use domain::{ScopeSet, Timestamp};
use storage::customers::{self, Customer};
use storage::sign_in_failures;
use storage::tokens::{self, NewAccessToken, TokenKind};

use crate::password;
use crate::principal::Subject;
use crate::service::AuthService;
use crate::sign_in::SignInError;
use crate::tokens::TokenGrant;

/// What a token records as the way it was obtained.
pub const GRANT: &str = "customer_session";

/// A new session's access token.
#[derive(Clone, Debug)]
pub struct CustomerSession {
    pub access_token: String,
    /// Seconds the token lives.
    pub expires_in: u64,
}

/// The storefront app a customer signs in through.
#[derive(Clone, Copy, Debug)]
pub struct Storefront<'a> {
    pub app_id: i64,
    pub client_id: &'a str,
}

fn customer_key(seller_id: i64, email: &str) -> String {
    format!("customer:{seller_id}:{}", email.trim().to_lowercase())
}

/// Password resets one email may ask for within the sign-in throttle's window.
pub const RESETS_PER_EMAIL: i64 = 3;
/// Password resets one address may ask for within the window, whatever the emails.
pub const RESETS_PER_ADDRESS: i64 = 20;

impl AuthService {
    /// The seller's customer whose credentials these are. A disabled customer, one with
    /// no password yet and an unknown email are refused exactly as a wrong password is
    /// (at the same cost), so that an answer tells nothing about which it was.
    pub async fn sign_in_customer(
        &self,
        seller_id: i64,
        email: &str,
        secret: &str,
        ip: Option<IpAddr>,
    ) -> Result<Customer, SignInError> {
        self.throttled(&customer_key(seller_id, email), ip, || async {
            let found = customers::credentials(&self.db, seller_id, email).await?;
            let hash = found.as_ref().and_then(|f| f.password_hash.clone());
            let verified = password::verify(secret.to_owned(), hash).await;
            Ok(found
                .filter(|f| verified && f.customer.status.may_sign_in())
                .map(|f| f.customer))
        })
        .await
    }

    /// Signs and records a session's token for the customer.
    pub async fn open_customer_session(
        &self,
        customer: &Customer,
        through: Storefront<'_>,
    ) -> storage::Result<CustomerSession> {
        let now = self.clock.now();
        let grant = TokenGrant {
            subject: Subject::Customer { id: customer.id },
            user_name: customer.name.clone(),
            app_id: through.app_id,
            client_id: through.client_id.to_owned(),
            account_id: Some(customer.account_id),
            seller_id: Some(customer.seller_id),
            scopes: ScopeSet::EMPTY,
            family_id: None,
        };
        let signed = self.sign_access_token(&grant, now);
        let mut tx = self.db.begin().await?;
        tokens::insert(
            &mut tx,
            &NewAccessToken {
                jti: &signed.claims.jti,
                kind: TokenKind::Access,
                app_id: through.app_id,
                user_id: None,
                customer_id: Some(customer.id),
                account_id: Some(customer.account_id),
                seller_id: Some(customer.seller_id),
                grant_type: GRANT,
                scopes: &signed.claims.scope,
                expires_on: signed.claims.exp.map(Timestamp::from_secs),
                family_id: None,
                chain_id: None,
                name: None,
                token_digest: None,
            },
            now,
        )
        .await?;
        tx.commit().await?;
        Ok(CustomerSession {
            access_token: signed.token,
            expires_in: self.config.access_token_ttl.as_secs(),
        })
    }

    /// Counts a password reset asked for the email (at the seller's) from the address;
    /// refuses once either has asked too often within the window (`RESETS_PER_EMAIL`,
    /// `RESETS_PER_ADDRESS`), whether or not the email is a customer's, so that the
    /// answer tells nothing of that.
    pub async fn count_reset_request(
        &self,
        seller_id: i64,
        email: &str,
        ip: Option<IpAddr>,
    ) -> Result<(), SignInError> {
        let email_key = format!("reset:{seller_id}:{}", email.trim().to_lowercase());
        let address_key = ip.map(|ip| format!("reset-ip:{ip}"));
        let keys: Vec<&str> = std::iter::once(email_key.as_str())
            .chain(address_key.as_deref())
            .collect();
        let now = self.clock.now();
        if let Some(until) = sign_in_failures::locked_until(&self.db, &keys, now).await? {
            let secs = (until.as_micros() - now.as_micros()).div_euclid(1_000_000) + 1;
            return Err(SignInError::Throttled(u64::try_from(secs).unwrap_or(1)));
        }
        let throttle = &self.config.sign_in_throttle;
        let window = i64::try_from(throttle.window.as_secs()).unwrap_or(i64::MAX);
        let lock = i64::try_from(throttle.lock.as_secs()).unwrap_or(i64::MAX);
        let mut tx = self.db.begin().await?;
        for (key, most) in [
            (Some(email_key.as_str()), RESETS_PER_EMAIL),
            (address_key.as_deref(), RESETS_PER_ADDRESS),
        ] {
            if let Some(key) = key {
                sign_in_failures::record_failure(&mut tx, key, now, window, most, lock).await?;
            }
        }
        tx.commit().await?;
        Ok(())
    }

    /// Ends one session: its token is refused from now on, on this node at once.
    pub async fn end_customer_session(&self, token_id: &str) -> storage::Result<()> {
        let mut tx = self.db.begin().await?;
        let revoked = tokens::revoke(&mut tx, token_id, self.clock.now()).await?;
        tx.commit().await?;
        self.revoked(revoked.into_iter().collect());
        Ok(())
    }
}
