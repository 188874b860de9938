//! A shipment's tracking: setting it ships a closed order, changes a shipped one's, is
//! refused in other statuses, and with `notify` mails the order's email through the
//! outbox (delivered to a real SMTP server the test starts).

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use server::config::smtp::{SmtpUrl, mail_from};

use crate::on_both_backends;
use crate::support::smtp::SmtpServer;
use crate::support::{Backend, TestServer, error_fields, eventually};

on_both_backends!(tracking_ships_closed_orders_changes_shipped_ones_and_mails_the_buyer);

/// An order of one unit, moved along `moves`.
async fn order_through(s: &TestServer, token: &str, email: Option<&str>, moves: &[&str]) -> Value {
    let product = s
        .create_product(
            token,
            json!({"title": "Parcel", "status": "visible",
                   "variants": [{"sku": format!("P-{}-{}", moves.len(), email.is_some()), "price": 700, "stock": 9}]}),
        )
        .await;
    let mut body = json!({"lines": [{"variant_id": product["_embedded"]["variants"][0]["id"]}]});
    if let Some(email) = email {
        body["email"] = json!(email);
    }
    let (status, mut order) = s
        .call(
            Method::POST,
            &format!("/v2/shops/{}/orders", s.shop_id()),
            token,
            Some(body),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{order}");
    for action in moves {
        let (status, moved) = s
            .call(
                Method::PUT,
                &format!("/v2/orders/{}/{action}", order["id"]),
                token,
                None,
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{action}: {moved}");
        order = moved;
    }
    order
}

async fn track(s: &TestServer, token: &str, order: &Value, body: Value) -> (StatusCode, Value) {
    s.call(
        Method::PUT,
        &format!("/v2/orders/{}/tracking", order["id"]),
        token,
        Some(body),
    )
    .await
}

async fn tracking_ships_closed_orders_changes_shipped_ones_and_mails_the_buyer(backend: Backend) {
    let smtp = SmtpServer::start().await;
    let url = smtp.url();
    let s = TestServer::start_with(backend, |c| {
        c.smtp_url = Some(SmtpUrl::parse(&url).unwrap());
        c.mail_from = Some(mail_from("Demo Shop <shop@example.com>").unwrap());
        c.mail_poll = Duration::from_millis(50);
    })
    .await;
    let token = s.owner_token().await;
    let closed = order_through(&s, &token, Some("buyer@example.com"), &["place", "close"]).await;
    assert_eq!(
        closed["_links"]["orders:tracking"]["href"],
        s.url(&format!("/v2/orders/{}/tracking", closed["id"]))
    );
    // A closed order ships with its tracking, and the buyer is told.
    let (status, shipped) = track(
        &s,
        &token,
        &closed,
        json!({"tracking_code": "TRK-9", "courier_name": "Starken",
               "tracking_url": "https://track.example/TRK-9", "notify": true}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{shipped}");
    assert_eq!(shipped["status"], "shipped");
    assert!(shipped["shipped_on"].is_string());
    assert_eq!(shipped["tracking_code"], "TRK-9");
    assert_eq!(s.event_count("orders.updated.shipped").await, 1);
    let mail = eventually("the shipment mail", || async {
        smtp.received()
            .into_iter()
            .find(|m| m.to == ["buyer@example.com"])
    })
    .await;
    let code = shipped["code"].as_str().unwrap();
    assert!(mail.subject().contains(code), "{}", mail.subject());
    let text = mail.text();
    for part in ["Starken", "TRK-9", "https://track.example/TRK-9"] {
        assert!(text.contains(part), "{part} in {text}");
    }
    // A shipped order's tracking changes (orders.updated); the same tracking changes nothing.
    let (status, changed) = track(
        &s,
        &token,
        &shipped,
        json!({"tracking_code": "TRK-10", "courier_name": "Chilexpress"}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{changed}");
    assert_eq!(changed["tracking_code"], "TRK-10");
    assert_eq!(changed["tracking_url"], Value::Null);
    assert_eq!(changed["shipped_on"], shipped["shipped_on"]);
    let updated = s.event_count("orders.updated").await;
    let (status, same) = track(
        &s,
        &token,
        &changed,
        json!({"tracking_code": "TRK-10", "courier_name": "Chilexpress"}),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(same["updated_on"], changed["updated_on"]);
    assert_eq!(s.event_count("orders.updated").await, updated);
    assert_eq!(s.event_count("orders.updated.shipped").await, 1);
    assert_eq!(smtp.received().len(), 1, "no notify, no mail");
    // Refused in other statuses, and without an email to notify; nothing is written.
    let placed = order_through(&s, &token, Some("b@example.com"), &["place"]).await;
    let (status, refused) = track(&s, &token, &placed, json!({"tracking_code": "X"})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    assert_eq!(error_fields(&refused), ["status"]);
    assert!(placed["_links"].get("orders:tracking").is_none());
    let anonymous = order_through(&s, &token, None, &["place", "close"]).await;
    let (status, refused) = track(
        &s,
        &token,
        &anonymous,
        json!({"tracking_code": "X", "tracking_url": "ftp://nope", "notify": true}),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    let mut fields = error_fields(&refused);
    fields.sort();
    assert_eq!(fields, ["notify", "tracking_url"]);
    let (_, still) = s
        .get_json(&format!("/v2/orders/{}", anonymous["id"]), &token)
        .await;
    assert_eq!(still["status"], "closed");
    assert_eq!(s.db.scalar("SELECT COUNT(*) FROM mail_outbox").await, 1);
    smtp.stop().await;
}
