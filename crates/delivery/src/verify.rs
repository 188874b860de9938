//! The verification handshake: a new subscription's target must show it consents by
//! echoing a random `X-Hook-Ping` in `X-Hook-Pong` on a 2xx answer. Reachability alone is
//! not consent.

use domain::Timestamp;
use storage::webhooks::Webhook;

use crate::request::{self, Envelope};
use crate::signature::WebhookSecret;
use crate::ssrf::Guard;

/// Pings the subscription's target: `Ok` when it consents, else why not.
pub async fn ping(
    client: &reqwest::Client,
    guard: &Guard,
    webhook: &Webhook,
    secrets: &[&WebhookSecret],
    basic: Option<(&str, &str)>,
    now: Timestamp,
) -> Result<(), String> {
    let challenge = storage::secrets::random_token(32);
    let hook_headers = [
        ("x-hook-ping", challenge.clone()),
        ("x-hook-topic", "activation".to_owned()),
    ];
    let message_id = format!("ping_{}_{}", webhook.id, now.as_micros());
    let envelope = Envelope {
        message_id: &message_id,
        timestamp: now.as_secs(),
        secrets,
        basic,
        hook_headers: &hook_headers,
    };
    let body = serde_json::to_vec(&serde_json::json!({
        "topic": "activation",
        "shop_id": webhook.shop_id,
        "webhook_id": webhook.id,
    }))
    .expect("JSON values serialise");
    let answer = request::post(client, guard, &webhook.url, body, &envelope).await;
    if let Some((_, message)) = answer.error {
        return Err(format!("verification failed: {message}"));
    }
    let pong = answer
        .headers
        .get("x-hook-pong")
        .map(|v| v.as_bytes().to_vec());
    match pong {
        None => Err("verification failed: the answer had no X-Hook-Pong header".to_owned()),
        Some(pong) if storage::secrets::constant_time_eq(&pong, challenge.as_bytes()) => Ok(()),
        Some(_) => Err("verification failed: X-Hook-Pong did not match X-Hook-Ping".to_owned()),
    }
}
