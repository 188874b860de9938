//! Subscription purchases over HTTP: opened by paying an order with recurring lines, with
//! every field of the spec's table, their list filters, and what the order's lines say.

use std::sync::Arc;
use std::time::Duration;

use domain::clock::ManualClock;
use domain::{Clock, Timestamp};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use services::Services;
use services::subscription_renewals::{Renewed, run_pass};

use crate::on_both_backends;
use crate::support::{Backend, TestServer, error_fields, eventually};

on_both_backends!(
    paying_a_recurring_order_opens_a_purchase_with_every_field,
    recurring_lines_name_a_fee_of_their_variant,
    purchases_are_listed_by_their_filters,
    monthly_renewals_on_the_31st_bill_february_and_finish_after_the_last,
    a_missed_run_catches_up_one_order_per_cycle,
    declined_renewals_are_retried_after_one_three_and_seven_days_then_fail,
    the_first_renewal_is_full_prorated_or_skipped,
    put_takes_exactly_the_writable_fields,
    a_paused_purchase_is_not_billed_and_resumes_with_or_without_extending,
    cancels_keep_the_notice_the_fee_asks_and_cancel_at_waits_for_its_date,
    skips_and_discounts_set_by_put_apply_to_the_next_cycles,
    the_payment_day_changes_only_where_the_fee_allows_and_a_fee_switch_takes_its_terms,
    update_purchases_fees_changes_active_purchases_and_leaves_others_alone,
    a_fee_in_use_is_not_deleted_and_cancelling_the_opening_order_cancels_its_purchases,
    a_fee_of_one_payment_opens_a_purchase_finished_on_its_start,
    a_renewal_charge_answered_after_a_pause_is_recorded_on_its_order,
);

const PURCHASES: &str = "/v2/subscription_purchases";
pub const APPROVE: &str = "4242424242424242";

pub fn card(number: &str) -> Value {
    json!({"number": number, "exp_month": 12, "exp_year": 2099, "cvc": "123"})
}

/// A server on a manual clock set to `start` (RFC 3339), whose workers poll often.
pub async fn server_at(backend: Backend, start: &str) -> (TestServer, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::new(Timestamp::parse(start).unwrap()));
    let manual = clock.clone() as Arc<dyn Clock>;
    let s = TestServer::start_with(backend, move |c| {
        c.clock = manual;
        c.payments_poll = Duration::from_millis(50);
        c.access_token_ttl = Duration::from_secs(3 * 366 * 86_400);
    })
    .await;
    (s, clock)
}

/// A shop set up to sell by subscription: a test gateway method, and a variant.
pub struct Seller {
    pub token: String,
    pub method_id: i64,
    pub product_id: i64,
    pub variant_id: i64,
}

pub async fn seller(s: &TestServer, price: i64) -> Seller {
    let token = s.owner_token().await;
    let (status, method) = s
        .call(
            Method::POST,
            &format!("/v2/shops/{}/payment_methods", s.shop_id()),
            &token,
            Some(json!({"type": "test_gateway"})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{method}");
    let product = s
        .create_product(
            &token,
            json!({"title": "Coffee club", "status": "visible",
                   "variants": [{"price": price, "stock": 100000, "sku": "CLUB"}]}),
        )
        .await;
    Seller {
        token,
        method_id: method["id"].as_i64().unwrap(),
        product_id: product["id"].as_i64().unwrap(),
        variant_id: product["_embedded"]["variants"][0]["id"].as_i64().unwrap(),
    }
}

impl Seller {
    /// A fee of the seller's variant with these terms.
    pub async fn fee(&self, s: &TestServer, terms: Value) -> Value {
        let mut body = json!({"variant_id": self.variant_id});
        body.as_object_mut()
            .unwrap()
            .extend(terms.as_object().unwrap().clone());
        let (status, fee) = s
            .call(
                Method::POST,
                "/v2/subscription_fees",
                &self.token,
                Some(body),
            )
            .await;
        assert_eq!(status, StatusCode::CREATED, "{fee}");
        fee
    }

    /// A placed order of `lines` by buyer@example.com, paying by the test gateway.
    pub async fn placed(&self, s: &TestServer, lines: Value) -> Value {
        let (status, order) = s
            .call(
                Method::POST,
                &format!("/v2/shops/{}/orders", s.shop_id()),
                &self.token,
                Some(json!({"lines": lines, "email": "buyer@example.com",
                            "payment_method_id": self.method_id})),
            )
            .await;
        assert_eq!(status, StatusCode::CREATED, "{order}");
        let (status, placed) = s
            .call(
                Method::PUT,
                &format!("/v2/orders/{}/place", order["id"]),
                &self.token,
                None,
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{placed}");
        placed
    }

    /// Pays the order's total with `number`; answers the payment.
    pub async fn pay(&self, s: &TestServer, order: &Value, number: &str) -> Value {
        let (status, payment) = s
            .call(
                Method::POST,
                &format!("/v2/orders/{}/payments", order["id"]),
                &self.token,
                Some(json!({"card": card(number)})),
            )
            .await;
        assert_eq!(status, StatusCode::CREATED, "{payment}");
        payment
    }

    /// A purchase of `units` on `fee`, opened by paying its order with `number`.
    pub async fn subscribe(&self, s: &TestServer, fee: &Value, units: i64, number: &str) -> Value {
        let order = self
            .placed(
                s,
                json!([{"variant_id": self.variant_id, "quantity": units,
                        "subscription_fee_id": fee["id"]}]),
            )
            .await;
        self.pay(s, &order, number).await;
        let (status, page) = s
            .get_json(
                &format!(
                    "{PURCHASES}?subscription_fee_id={}&sort=id.desc&per_page=1",
                    fee["id"]
                ),
                &self.token,
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{page}");
        let purchase = page["_embedded"]["items"][0].clone();
        assert_eq!(purchase["original_order_id"], order["id"], "{page}");
        purchase
    }
}

/// The items of a purchase list with `query`.
pub async fn list(s: &TestServer, token: &str, query: &str) -> Vec<Value> {
    let (status, page) = s.get_json(&format!("{PURCHASES}{query}"), token).await;
    if status != StatusCode::OK {
        return Vec::new();
    }
    page["_embedded"]["items"].as_array().unwrap().clone()
}

pub async fn purchase(s: &TestServer, token: &str, id: &Value) -> Value {
    let (status, purchase) = s.get_json(&format!("{PURCHASES}/{id}"), token).await;
    assert_eq!(status, StatusCode::OK, "{purchase}");
    purchase
}

async fn paying_a_recurring_order_opens_a_purchase_with_every_field(backend: Backend) {
    let (s, _clock) = server_at(backend, "2027-01-10T09:30:00Z").await;
    let seller = seller(&s, 1500).await;
    let fee = seller
        .fee(
            &s,
            json!({"payment_interval": "1_month", "renewal_fee": 1200, "setup_fee": 500,
                   "payment_day": 31, "number_of_payments": 12}),
        )
        .await;
    let order = seller
        .placed(
            &s,
            json!([{"variant_id": seller.variant_id, "quantity": 2,
                    "subscription_fee_id": fee["id"]}]),
        )
        .await;
    let line = &order["_embedded"]["lines"][0];
    assert_eq!(line["subscription_fee_id"], fee["id"]);
    assert_eq!(line["setup_fee"], 500);
    assert_eq!(line["line_total"], 2 * 1500 + 500);
    assert_eq!(order["total"], 3500);
    // Nothing opens before the order is paid.
    assert!(list(&s, &seller.token, "").await.is_empty());
    assert_eq!(s.event_count("subscriptions.purchases.created").await, 0);

    seller.pay(&s, &order, APPROVE).await;
    let items = list(&s, &seller.token, "").await;
    assert_eq!(items.len(), 1, "{items:?}");
    let p = purchase(&s, &seller.token, &items[0]["id"]).await;
    let contact_id = p["contact_id"].as_i64().expect("the buyer's customer");
    let expected = json!({
        "shop_id": s.shop_id(),
        "contact_id": contact_id,
        "original_order_id": order["id"],
        "product_id": seller.product_id,
        "variant_id": seller.variant_id,
        "product_name": "Coffee club",
        "subscription_fee_id": fee["id"],
        "state": "active",
        "paused_by": null,
        "last_pause_at": null,
        "currency_code": order["currency_code"],
        "units": 2,
        "total_renewal_fee": 2400,
        "payment_interval": "1_month",
        "payment_day": 31,
        "paid_setup_fee": true,
        "start_date": "2027-01-10",
        "last_payment_on": "2027-01-10",
        "next_payment_on": "2027-02-28",
        "end_date": null,
        "cancel_at": null,
        "total_payments": 1,
        "remaining_payments": 11,
        "failed_attempts": 0,
        "retry_on": null,
        "payments_to_skip": 0,
        "renewal_discount": 0.0,
        "discount_num_charges": 0,
    });
    for (field, value) in expected.as_object().unwrap() {
        assert_eq!(&p[field], value, "{field} of {p}");
    }
    assert!(p["created_on"].is_string() && p["updated_on"].is_string());
    assert!(p["renewal_discount"].is_number());
    assert!(
        p.get("saved_card").is_none(),
        "the card token is never shown"
    );
    let links = p["_links"].as_object().unwrap();
    for rel in [
        "self",
        "shops:shop",
        "orders:order",
        "customers:customer",
        "products:product",
        "variants:variant",
        "subscriptions:subscription_fee",
    ] {
        assert!(links.contains_key(rel), "{rel} in {p}");
    }
    let created = s.event_count("subscriptions.purchases.created").await;
    assert_eq!(created, 1);
    // The gateway saved the card for renewals; the purchase keeps its token.
    let saved: Vec<(Option<String>,)> =
        s.db.rows(&format!(
            "SELECT saved_card FROM subscription_purchases WHERE id = {}",
            p["id"]
        ))
        .await;
    assert!(
        saved[0]
            .0
            .as_deref()
            .is_some_and(|t| t.starts_with("test_card_4242_")),
        "{saved:?}"
    );
    s.assert_documented();
}

async fn recurring_lines_name_a_fee_of_their_variant(backend: Backend) {
    let (s, _clock) = server_at(backend, "2027-03-03T10:00:00Z").await;
    let seller = seller(&s, 1000).await;
    let fee = seller
        .fee(
            &s,
            json!({"payment_interval": "1_week", "renewal_fee": 300}),
        )
        .await;
    let other = s
        .create_product(
            &seller.token,
            json!({"title": "Other", "variants": [{"price": 10}]}),
        )
        .await;
    let other_variant = other["_embedded"]["variants"][0]["id"].clone();
    let shop_orders = format!("/v2/shops/{}/orders", s.shop_id());
    let orders_before = s.db.scalar("SELECT COUNT(*) FROM orders").await;
    for (lines, field) in [
        // A fee of another variant.
        (
            json!([{"variant_id": other_variant, "subscription_fee_id": fee["id"]}]),
            "lines[0].subscription_fee_id",
        ),
        // No such fee.
        (
            json!([{"variant_id": seller.variant_id, "subscription_fee_id": 999_999}]),
            "lines[0].subscription_fee_id",
        ),
        // The variant is sold by subscription only.
        (
            json!([{"variant_id": seller.variant_id}]),
            "lines[0].subscription_fee_id",
        ),
    ] {
        let (status, body) = s
            .call(
                Method::POST,
                &shop_orders,
                &seller.token,
                Some(json!({"lines": lines})),
            )
            .await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
        assert_eq!(error_fields(&body), [field], "{body}");
    }
    assert_eq!(
        s.db.scalar("SELECT COUNT(*) FROM orders").await,
        orders_before
    );
    // A fee that allows one-off purchases lets the variant be bought without subscribing,
    // and paying such an order opens nothing.
    let (status, _) = s
        .call(
            Method::PUT,
            &format!("/v2/subscription_fees/{}", fee["id"]),
            &seller.token,
            Some(json!({"allow_non_recurring_payment": true})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let order = seller
        .placed(&s, json!([{"variant_id": seller.variant_id}]))
        .await;
    assert_eq!(
        order["_embedded"]["lines"][0]["subscription_fee_id"],
        Value::Null
    );
    assert_eq!(order["_embedded"]["lines"][0]["setup_fee"], 0);
    seller.pay(&s, &order, APPROVE).await;
    assert!(list(&s, &seller.token, "").await.is_empty());
    s.assert_documented();
}

async fn purchases_are_listed_by_their_filters(backend: Backend) {
    let (s, _clock) = server_at(backend, "2027-03-03T10:00:00Z").await;
    let seller = seller(&s, 1000).await;
    let weekly = seller
        .fee(
            &s,
            json!({"payment_interval": "1_week", "renewal_fee": 300, "payment_day": 1}),
        )
        .await;
    let monthly = seller
        .fee(
            &s,
            json!({"payment_interval": "1_month", "renewal_fee": 900, "payment_day": 15}),
        )
        .await;
    let a = seller.subscribe(&s, &weekly, 1, APPROVE).await;
    let b = seller.subscribe(&s, &monthly, 3, APPROVE).await;
    // Weekly on Mondays from Wednesday 3 March: paid a week ahead, so Monday the 15th.
    assert_eq!(a["next_payment_on"], "2027-03-15");
    assert_eq!(b["next_payment_on"], "2027-04-15");
    assert_eq!(b["total_renewal_fee"], 2700);
    let ids = |items: Vec<Value>| -> Vec<Value> { items.iter().map(|i| i["id"].clone()).collect() };
    let t = &seller.token;
    assert_eq!(
        ids(list(&s, t, "?next_payment_on.lte=2027-03-31").await),
        [a["id"].clone()]
    );
    assert_eq!(
        ids(list(&s, t, "?next_payment_on.gte=2027-04-15").await),
        [b["id"].clone()]
    );
    assert_eq!(
        ids(list(&s, t, "?sort=next_payment_on.desc").await),
        [b["id"].clone(), a["id"].clone()]
    );
    assert_eq!(ids(list(&s, t, "?state=active").await).len(), 2);
    assert!(list(&s, t, "?state=paused").await.is_empty());
    assert_eq!(
        ids(list(&s, t, &format!("?product_id={}", seller.product_id)).await).len(),
        2
    );
    assert_eq!(
        ids(list(&s, t, &format!("?shop_id={}", s.shop_id())).await).len(),
        2
    );
    assert_eq!(
        ids(list(&s, t, &format!("?contact_id={}", a["contact_id"])).await).len(),
        2
    );
    for bad in [
        "?state=asleep",
        "?next_payment_on.gte=2027-02-30",
        "?shop=1",
        "?next_payment_on.lte=tomorrow",
    ] {
        let (status, body) = s.get_json(&format!("{PURCHASES}{bad}"), t).await;
        assert!(
            status == StatusCode::UNPROCESSABLE_ENTITY || status == StatusCode::BAD_REQUEST,
            "{bad}: {status} {body}"
        );
    }
    // Another account sees none of them.
    let other = s.seed_another_account().await;
    let stranger = s.owner_token_of(&other).await;
    assert!(list(&s, &stranger, "").await.is_empty());
    let (status, _) = s
        .get_json(&format!("{PURCHASES}/{}", a["id"]), &stranger)
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    s.assert_documented();
}

/// Runs a pass of the renewal engine over the server's database at the server's time (as
/// its worker would) and asserts that it found nothing due: whatever the worker has or
/// has not done yet, what the test asserts next is what the engine leaves at this time.
pub async fn assert_nothing_due(s: &TestServer) {
    let db = s.running().db.clone();
    let secret_box = s.db.secret_box(&db).await;
    let services = Services::new(db, s.clock.clone(), Arc::new(api::Presenter::new(&s.url)));
    let (renewed, _) = run_pass(&services, &secret_box, None).await.unwrap();
    assert_eq!(renewed, Renewed::default(), "nothing is due");
}

/// Moves the clock forward to `at` (RFC 3339).
pub fn advance_to(clock: &ManualClock, at: &str) {
    let to = Timestamp::parse(at).unwrap();
    let by = to.as_secs() - clock.now().as_secs();
    assert!(by >= 0, "the clock only moves forward");
    clock.advance_secs(by);
}

/// The purchase once `done` holds of it.
pub async fn once(
    s: &TestServer,
    token: &str,
    id: &Value,
    what: &str,
    done: impl Fn(&Value) -> bool,
) -> Value {
    eventually(what, || async {
        let p = purchase(s, token, id).await;
        done(&p).then_some(p)
    })
    .await
}

/// The purchase's renewal orders, by cycle: (renewal_on, status, total, discount_total,
/// paid_total).
pub async fn renewals(s: &TestServer, id: &Value) -> Vec<(String, String, i64, i64, i64)> {
    s.db.rows(&format!(
        "SELECT renewal_on, status, total, discount_total, paid_total FROM orders \
         WHERE subscription_purchase_id = {id} ORDER BY renewal_on"
    ))
    .await
}

fn row(
    on: &str,
    status: &str,
    total: i64,
    discount: i64,
    paid: i64,
) -> (String, String, i64, i64, i64) {
    (on.into(), status.into(), total, discount, paid)
}

async fn monthly_renewals_on_the_31st_bill_february_and_finish_after_the_last(backend: Backend) {
    let (s, clock) = server_at(backend, "2027-01-10T09:30:00Z").await;
    let seller = seller(&s, 1500).await;
    let fee = seller
        .fee(
            &s,
            json!({"payment_interval": "1_month", "renewal_fee": 1200, "payment_day": 31,
                   "number_of_payments": 3}),
        )
        .await;
    let p = seller.subscribe(&s, &fee, 2, APPROVE).await;
    let t = &seller.token;
    assert_eq!(p["next_payment_on"], "2027-02-28");
    // The day before, nothing is billed.
    advance_to(&clock, "2027-02-27T23:00:00Z");
    assert!(renewals(&s, &p["id"]).await.is_empty());
    advance_to(&clock, "2027-02-28T00:30:00Z");
    let p = once(&s, t, &p["id"], "the February renewal", |p| {
        p["last_payment_on"] == "2027-02-28"
    })
    .await;
    assert_eq!(p["next_payment_on"], "2027-03-31");
    assert_eq!(p["total_payments"], 2);
    assert_eq!(p["remaining_payments"], 1);
    assert_eq!(p["state"], "active");
    assert_eq!(
        renewals(&s, &p["id"]).await,
        [row("2027-02-28", "closed", 2400, 0, 2400)]
    );
    advance_to(&clock, "2027-03-31T08:00:00Z");
    let p = once(&s, t, &p["id"], "the last renewal", |p| {
        p["state"] == "finished"
    })
    .await;
    assert_eq!(p["last_payment_on"], "2027-03-31");
    assert_eq!(p["end_date"], "2027-03-31");
    assert_eq!(p["remaining_payments"], 0);
    assert_eq!(p["total_payments"], 3);
    // Finished: never billed again.
    advance_to(&clock, "2027-06-30T08:00:00Z");
    assert_nothing_due(&s).await;
    assert_eq!(
        renewals(&s, &p["id"]).await,
        [
            row("2027-02-28", "closed", 2400, 0, 2400),
            row("2027-03-31", "closed", 2400, 0, 2400)
        ]
    );
    assert_eq!(s.event_count("subscriptions.purchases.renewed").await, 2);
    assert_eq!(s.event_count("subscriptions.purchases.finished").await, 1);
    // The renewal order is an order like any other, linked to its purchase.
    let (_, order) = s
        .get_json(&format!("/v2/orders/{}", s.db.scalar(&format!(
            "SELECT id FROM orders WHERE subscription_purchase_id = {} AND renewal_on = '2027-03-31'", p["id"]
        )).await), t)
        .await;
    assert_eq!(order["subscription_purchase_id"], p["id"]);
    assert_eq!(order["renewal_on"], "2027-03-31");
    assert_eq!(order["_embedded"]["lines"][0]["quantity"], 2);
    assert_eq!(order["_embedded"]["lines"][0]["unit_price"], 1200);
    assert_eq!(order["email"], "buyer@example.com");
    s.assert_documented();
}

async fn a_missed_run_catches_up_one_order_per_cycle(backend: Backend) {
    let (s, clock) = server_at(backend, "2027-03-03T10:00:00Z").await;
    let seller = seller(&s, 1000).await;
    let fee = seller
        .fee(
            &s,
            json!({"payment_interval": "1_week", "renewal_fee": 300, "payment_day": 1}),
        )
        .await;
    let p = seller.subscribe(&s, &fee, 1, APPROVE).await;
    assert_eq!(p["next_payment_on"], "2027-03-15");
    // Three Mondays pass at once.
    advance_to(&clock, "2027-03-29T12:00:00Z");
    let p = once(&s, &seller.token, &p["id"], "three renewals", |p| {
        p["next_payment_on"] == "2027-04-05"
    })
    .await;
    assert_eq!(p["total_payments"], 4);
    assert_eq!(
        renewals(&s, &p["id"]).await,
        [
            row("2027-03-15", "closed", 300, 0, 300),
            row("2027-03-22", "closed", 300, 0, 300),
            row("2027-03-29", "closed", 300, 0, 300),
        ]
    );
    s.assert_documented();
}

async fn declined_renewals_are_retried_after_one_three_and_seven_days_then_fail(backend: Backend) {
    let (s, clock) = server_at(backend, "2027-01-05T10:00:00Z").await;
    let seller = seller(&s, 1000).await;
    let fee = seller
        .fee(
            &s,
            json!({"payment_interval": "1_month", "renewal_fee": 800, "payment_day": 5}),
        )
        .await;
    // Approved, and its saved card declined.
    let p = seller.subscribe(&s, &fee, 1, "4000000000000341").await;
    let t = &seller.token;
    assert_eq!(p["next_payment_on"], "2027-02-05");
    for (at, attempts, retry) in [
        ("2027-02-05T01:00:00Z", 1, "2027-02-06"),
        ("2027-02-06T01:00:00Z", 2, "2027-02-08"),
        ("2027-02-08T01:00:00Z", 3, "2027-02-12"),
    ] {
        advance_to(&clock, at);
        let p = once(&s, t, &p["id"], "a failed attempt", |p| {
            p["failed_attempts"] == attempts
        })
        .await;
        assert_eq!(p["retry_on"], retry, "{p}");
        assert_eq!(p["state"], "active");
        assert_eq!(p["next_payment_on"], "2027-02-05", "the cycle stays due");
    }
    advance_to(&clock, "2027-02-12T01:00:00Z");
    let p = once(&s, t, &p["id"], "the purchase failed", |p| {
        p["state"] == "failed"
    })
    .await;
    assert_eq!(p["failed_attempts"], 4);
    assert_eq!(p["retry_on"], Value::Null);
    // One order for the cycle, charged four times, all declined, then cancelled.
    assert_eq!(
        renewals(&s, &p["id"]).await,
        [row("2027-02-05", "cancelled", 800, 0, 0)]
    );
    let declined =
        s.db.scalar(&format!(
            "SELECT COUNT(*) FROM payments p JOIN orders o ON o.id = p.order_id \
             WHERE o.subscription_purchase_id = {} AND p.status = 'declined'",
            p["id"]
        ))
        .await;
    assert_eq!(declined, 4);
    assert_eq!(s.event_count("subscriptions.purchases.failed").await, 1);
    // Failed: never billed again.
    advance_to(&clock, "2027-04-06T01:00:00Z");
    assert_nothing_due(&s).await;
    assert_eq!(renewals(&s, &p["id"]).await.len(), 1);
    s.assert_documented();
}

async fn the_first_renewal_is_full_prorated_or_skipped(backend: Backend) {
    let (s, clock) = server_at(backend, "2027-03-03T10:00:00Z").await;
    let seller = seller(&s, 1000).await;
    let t = &seller.token;
    let mut purchases = Vec::new();
    for mode in ["full", "prorate", "skip"] {
        let fee = seller
            .fee(
                &s,
                json!({"payment_interval": "1_month", "renewal_fee": 3000, "payment_day": 1,
                       "on_first_renewal": mode}),
            )
            .await;
        purchases.push(seller.subscribe(&s, &fee, 1, APPROVE).await);
    }
    let [full, prorated, skipped] = &purchases[..] else {
        unreachable!()
    };
    assert_eq!(full["next_payment_on"], "2027-05-01");
    assert_eq!(prorated["next_payment_on"], "2027-04-01");
    assert_eq!(skipped["next_payment_on"], "2027-05-01");
    assert_eq!(skipped["payments_to_skip"], 1);
    advance_to(&clock, "2027-04-01T06:00:00Z");
    // Prorated: paid up to 3 April, so 28 of April's 30 days: 2800.
    once(&s, t, &prorated["id"], "the prorated renewal", |p| {
        p["next_payment_on"] == "2027-05-01"
    })
    .await;
    assert_eq!(
        renewals(&s, &prorated["id"]).await,
        [row("2027-04-01", "closed", 2800, 200, 2800)]
    );
    advance_to(&clock, "2027-05-01T06:00:00Z");
    once(&s, t, &full["id"], "the full renewal", |p| {
        p["next_payment_on"] == "2027-06-01"
    })
    .await;
    let skipped_now = once(&s, t, &skipped["id"], "the skipped renewal", |p| {
        p["next_payment_on"] == "2027-06-01"
    })
    .await;
    assert_eq!(skipped_now["payments_to_skip"], 0);
    assert_eq!(
        skipped_now["total_payments"], 1,
        "a skipped cycle is no payment"
    );
    assert_eq!(
        renewals(&s, &full["id"]).await,
        [row("2027-05-01", "closed", 3000, 0, 3000)]
    );
    assert!(renewals(&s, &skipped["id"]).await.is_empty());
    once(&s, t, &prorated["id"], "the second renewal", |p| {
        p["next_payment_on"] == "2027-06-01"
    })
    .await;
    assert_eq!(
        renewals(&s, &prorated["id"]).await,
        [
            row("2027-04-01", "closed", 2800, 200, 2800),
            row("2027-05-01", "closed", 3000, 0, 3000)
        ]
    );
    s.assert_documented();
}

async fn put(s: &TestServer, token: &str, id: &Value, body: Value) -> (StatusCode, Value) {
    s.call(Method::PUT, &format!("{PURCHASES}/{id}"), token, Some(body))
        .await
}

async fn put_ok(s: &TestServer, token: &str, id: &Value, body: Value) -> Value {
    let (status, p) = put(s, token, id, body.clone()).await;
    assert_eq!(status, StatusCode::OK, "{body}: {p}");
    p
}

async fn put_refused(s: &TestServer, token: &str, id: &Value, body: Value) -> Vec<String> {
    let before = purchase(s, token, id).await;
    let events = s.db.scalar("SELECT COUNT(*) FROM events").await;
    let (status, errors) = put(s, token, id, body.clone()).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}: {errors}");
    assert_eq!(
        purchase(s, token, id).await,
        before,
        "{body} changed nothing"
    );
    assert_eq!(s.db.scalar("SELECT COUNT(*) FROM events").await, events);
    error_fields(&errors)
}

async fn put_takes_exactly_the_writable_fields(backend: Backend) {
    let (s, _clock) = server_at(backend, "2027-01-10T09:30:00Z").await;
    let seller = seller(&s, 1000).await;
    let fee = seller
        .fee(
            &s,
            json!({"payment_interval": "1_month", "renewal_fee": 1000}),
        )
        .await;
    let p = seller.subscribe(&s, &fee, 1, APPROVE).await;
    let (t, id) = (&seller.token, &p["id"]);
    assert_eq!(
        p["_links"]["subscriptions:update_subscription_purchase"]["method"],
        "put"
    );
    // The spec's two 422s: an invalid state, and no updatable field.
    assert_eq!(
        put_refused(&s, t, id, json!({"state": "asleep"})).await,
        ["state"]
    );
    assert_eq!(put_refused(&s, t, id, json!({})).await, ["body"]);
    // A field that is not writable, alone or beside writable ones.
    assert_eq!(put_refused(&s, t, id, json!({"units": 5})).await, ["units"]);
    assert_eq!(
        put_refused(
            &s,
            t,
            id,
            json!({"payments_to_skip": 1, "currency_code": "EUR", "start_date": "2027-01-01"})
        )
        .await,
        ["currency_code", "start_date"]
    );
    // States reached by renewals only, values out of range or of the wrong form.
    for (body, field) in [
        (json!({"state": "finished"}), "state"),
        (json!({"state": "failed"}), "state"),
        (json!({"state": null}), "state"),
        (json!({"next_payment_on": "2027-01-09"}), "next_payment_on"),
        (json!({"next_payment_on": "next month"}), "next_payment_on"),
        (json!({"total_renewal_fee": -1}), "total_renewal_fee"),
        (json!({"remaining_payments": 1001}), "remaining_payments"),
        (json!({"payments_to_skip": -1}), "payments_to_skip"),
        (
            json!({"discount_num_charges": 1001}),
            "discount_num_charges",
        ),
        (json!({"renewal_discount": 100.5}), "renewal_discount"),
        (json!({"renewal_discount": 12.345}), "renewal_discount"),
        (json!({"cancel_at": "2026-12-31"}), "cancel_at"),
        (json!({"end_date": "2027-02-30"}), "end_date"),
        (json!({"paused_by": "customer"}), "paused_by"),
        (
            json!({"last_pause_at": "2027-01-10T00:00:00Z"}),
            "last_pause_at",
        ),
        (
            json!({"state": "paused", "paused_by": "robot"}),
            "paused_by",
        ),
        (
            json!({"subscription_fee_id": 999_999}),
            "subscription_fee_id",
        ),
    ] {
        assert_eq!(
            put_refused(&s, t, id, body.clone()).await,
            [field],
            "{body}"
        );
    }
    // Every writable field but state and the fee, at once.
    let changed = put_ok(
        &s,
        t,
        id,
        json!({"next_payment_on": "2027-03-10", "total_renewal_fee": 4321, "remaining_payments": 7,
               "cancel_at": "2027-06-01", "payments_to_skip": 2, "renewal_discount": 12.5,
               "discount_num_charges": 3, "end_date": "2027-12-31"}),
    )
    .await;
    for (field, value) in [
        ("next_payment_on", json!("2027-03-10")),
        ("total_renewal_fee", json!(4321)),
        ("remaining_payments", json!(7)),
        ("cancel_at", json!("2027-06-01")),
        ("payments_to_skip", json!(2)),
        ("renewal_discount", json!(12.5)),
        ("discount_num_charges", json!(3)),
        ("end_date", json!("2027-12-31")),
    ] {
        assert_eq!(changed[field], value, "{field}");
    }
    assert_eq!(s.event_count("subscriptions.purchases.updated").await, 1);
    // Dates back to null; the same values again change nothing and record nothing.
    let cleared = put_ok(&s, t, id, json!({"cancel_at": null, "end_date": null})).await;
    assert_eq!(cleared["cancel_at"], Value::Null);
    assert_eq!(cleared["end_date"], Value::Null);
    let again = put_ok(&s, t, id, json!({"cancel_at": null, "payments_to_skip": 2})).await;
    assert_eq!(again["updated_on"], cleared["updated_on"]);
    assert_eq!(s.event_count("subscriptions.purchases.updated").await, 2);
    // Pausing takes paused_by and last_pause_at (writable, and shown).
    let paused = put_ok(
        &s,
        t,
        id,
        json!({"state": "paused", "paused_by": "customer", "last_pause_at": "2027-01-09T08:00:00Z"}),
    )
    .await;
    assert_eq!(paused["state"], "paused");
    assert_eq!(paused["paused_by"], "customer");
    assert_eq!(paused["last_pause_at"], "2027-01-09T08:00:00Z");
    let moved = put_ok(
        &s,
        t,
        id,
        json!({"last_pause_at": "2027-01-10T08:00:00Z", "paused_by": "system"}),
    )
    .await;
    assert_eq!(moved["last_pause_at"], "2027-01-10T08:00:00Z");
    assert_eq!(moved["paused_by"], "system");
    assert_eq!(s.event_count("subscriptions.purchases.paused").await, 1);
    // If-Match is honoured.
    let (status, _) =
        json_put_if_match(&s, t, id, "\"stale\"", json!({"payments_to_skip": 0})).await;
    assert_eq!(status, StatusCode::PRECONDITION_FAILED);
    // A reader may not write; another account finds nothing.
    let other = s.seed_another_account().await;
    let stranger = s.owner_token_of(&other).await;
    let (status, _) = put(&s, &stranger, id, json!({"payments_to_skip": 1})).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    s.assert_documented();
}

async fn json_put_if_match(
    s: &TestServer,
    token: &str,
    id: &Value,
    etag: &str,
    body: Value,
) -> (StatusCode, Value) {
    let response = s
        .request(Method::PUT, &format!("{PURCHASES}/{id}"), token)
        .header("If-Match", etag)
        .json(&body)
        .send()
        .await
        .unwrap();
    crate::support::json(response).await
}

async fn a_paused_purchase_is_not_billed_and_resumes_with_or_without_extending(backend: Backend) {
    let (s, clock) = server_at(backend, "2027-01-10T09:30:00Z").await;
    let seller = seller(&s, 1000).await;
    let t = &seller.token;
    let plain = seller
        .fee(
            &s,
            json!({"payment_interval": "1_month", "renewal_fee": 1000}),
        )
        .await;
    let extending = seller
        .fee(
            &s,
            json!({"payment_interval": "1_month", "renewal_fee": 1000, "extend_on_reenable": true}),
        )
        .await;
    let a = seller.subscribe(&s, &plain, 1, APPROVE).await;
    let b = seller.subscribe(&s, &extending, 1, APPROVE).await;
    assert_eq!(a["next_payment_on"], "2027-02-10");
    advance_to(&clock, "2027-01-20T10:00:00Z");
    for p in [&a, &b] {
        let paused = put_ok(&s, t, &p["id"], json!({"state": "paused"})).await;
        assert_eq!(paused["paused_by"], "admin");
        assert_eq!(paused["last_pause_at"], "2027-01-20T10:00:00Z");
    }
    // The renewal date passes while paused: nothing is billed.
    advance_to(&clock, "2027-02-15T10:00:00Z");
    assert_nothing_due(&s).await;
    assert!(renewals(&s, &a["id"]).await.is_empty());
    assert!(renewals(&s, &b["id"]).await.is_empty());
    // Resumed: without extending, the cycle that fell in the pause is passed; extending,
    // every date moves by the 26 days paused.
    let a = put_ok(&s, t, &a["id"], json!({"state": "active"})).await;
    assert_eq!(a["next_payment_on"], "2027-03-10");
    assert_eq!(a["paused_by"], Value::Null);
    assert_eq!(
        a["last_pause_at"], "2027-01-20T10:00:00Z",
        "kept: when it was last paused"
    );
    let b = put_ok(&s, t, &b["id"], json!({"state": "active"})).await;
    assert_eq!(b["next_payment_on"], "2027-03-08");
    assert_eq!(s.event_count("subscriptions.purchases.resumed").await, 2);
    advance_to(&clock, "2027-03-08T10:00:00Z");
    once(&s, t, &b["id"], "the extended renewal", |p| {
        p["last_payment_on"] == "2027-03-08"
    })
    .await;
    assert!(renewals(&s, &a["id"]).await.is_empty());
    advance_to(&clock, "2027-03-10T10:00:00Z");
    once(&s, t, &a["id"], "the next renewal", |p| {
        p["last_payment_on"] == "2027-03-10"
    })
    .await;
    assert_eq!(
        renewals(&s, &a["id"]).await,
        [row("2027-03-10", "closed", 1000, 0, 1000)]
    );
    assert_eq!(
        renewals(&s, &b["id"]).await,
        [row("2027-03-08", "closed", 1000, 0, 1000)]
    );
    s.assert_documented();
}

async fn cancels_keep_the_notice_the_fee_asks_and_cancel_at_waits_for_its_date(backend: Backend) {
    let (s, clock) = server_at(backend, "2027-01-10T09:30:00Z").await;
    let seller = seller(&s, 1000).await;
    let t = &seller.token;
    let fee = seller
        .fee(
            &s,
            json!({"payment_interval": "1_month", "renewal_fee": 1000,
                        "min_days_for_cancellation": 7}),
        )
        .await;
    let early = seller.subscribe(&s, &fee, 1, APPROVE).await;
    let late = seller.subscribe(&s, &fee, 1, APPROVE).await;
    // Ten days before the next payment (10 February): cancelled now.
    advance_to(&clock, "2027-01-31T12:00:00Z");
    let cancelled = put_ok(&s, t, &early["id"], json!({"state": "cancelled"})).await;
    assert_eq!(cancelled["state"], "cancelled");
    assert_eq!(cancelled["end_date"], "2027-01-31");
    assert_eq!(
        put_refused(&s, t, &early["id"], json!({"state": "active"})).await,
        ["state"]
    );
    // Five days before: too late to stop that payment, now or by cancel_at before it.
    advance_to(&clock, "2027-02-05T12:00:00Z");
    assert_eq!(
        put_refused(&s, t, &late["id"], json!({"state": "cancelled"})).await,
        ["state"]
    );
    assert_eq!(
        put_refused(&s, t, &late["id"], json!({"cancel_at": "2027-02-09"})).await,
        ["cancel_at"]
    );
    // After it, it is taken: the payment is billed, then the purchase ends on its date.
    let planned = put_ok(&s, t, &late["id"], json!({"cancel_at": "2027-02-11"})).await;
    assert_eq!(planned["state"], "active");
    advance_to(&clock, "2027-02-10T12:00:00Z");
    once(&s, t, &late["id"], "the last renewal", |p| {
        p["last_payment_on"] == "2027-02-10"
    })
    .await;
    advance_to(&clock, "2027-02-11T00:10:00Z");
    let ended = once(&s, t, &late["id"], "the planned cancel", |p| {
        p["state"] == "cancelled"
    })
    .await;
    assert_eq!(ended["end_date"], "2027-02-11");
    advance_to(&clock, "2027-03-11T00:10:00Z");
    assert_nothing_due(&s).await;
    assert_eq!(
        renewals(&s, &late["id"]).await,
        [row("2027-02-10", "closed", 1000, 0, 1000)]
    );
    assert!(renewals(&s, &early["id"]).await.is_empty());
    assert_eq!(s.event_count("subscriptions.purchases.cancelled").await, 2);
    s.assert_documented();
}

async fn skips_and_discounts_set_by_put_apply_to_the_next_cycles(backend: Backend) {
    let (s, clock) = server_at(backend, "2027-03-03T10:00:00Z").await;
    let seller = seller(&s, 1000).await;
    let t = &seller.token;
    let fee = seller
        .fee(
            &s,
            json!({"payment_interval": "1_week", "renewal_fee": 1000, "payment_day": 1}),
        )
        .await;
    let p = seller.subscribe(&s, &fee, 1, APPROVE).await;
    put_ok(
        &s,
        t,
        &p["id"],
        json!({"payments_to_skip": 1, "renewal_discount": 12.5, "discount_num_charges": 1}),
    )
    .await;
    // 15 March skipped, 22 March discounted by 12.5 %, 29 March full.
    advance_to(&clock, "2027-03-29T10:00:00Z");
    let p = once(&s, t, &p["id"], "three cycles", |p| {
        p["next_payment_on"] == "2027-04-05"
    })
    .await;
    assert_eq!(p["payments_to_skip"], 0);
    assert_eq!(p["discount_num_charges"], 0);
    assert_eq!(p["total_payments"], 3);
    assert_eq!(
        renewals(&s, &p["id"]).await,
        [
            row("2027-03-22", "closed", 875, 125, 875),
            row("2027-03-29", "closed", 1000, 0, 1000)
        ]
    );
    s.assert_documented();
}

async fn the_payment_day_changes_only_where_the_fee_allows_and_a_fee_switch_takes_its_terms(
    backend: Backend,
) {
    let (s, clock) = server_at(backend, "2027-01-10T09:30:00Z").await;
    let seller = seller(&s, 2000).await;
    let t = &seller.token;
    let fixed = seller
        .fee(
            &s,
            json!({"payment_interval": "1_month", "renewal_fee": 1000, "payment_day": 10}),
        )
        .await;
    let p = seller.subscribe(&s, &fixed, 1, APPROVE).await;
    // Another month on the same day is fine; another day is not.
    let moved = put_ok(&s, t, &p["id"], json!({"next_payment_on": "2027-03-10"})).await;
    assert_eq!(moved["payment_day"], 10);
    assert_eq!(
        put_refused(&s, t, &p["id"], json!({"next_payment_on": "2027-03-12"})).await,
        ["next_payment_on"]
    );
    // A fee that allows it: the day follows the date.
    let flexible = seller
        .fee(
            &s,
            json!({"payment_interval": "3_months", "renewal_fee": 50, "by_percentage": true,
                        "allow_changing_day": true}),
        )
        .await;
    let switched = put_ok(
        &s,
        t,
        &p["id"],
        json!({"subscription_fee_id": flexible["id"]}),
    )
    .await;
    assert_eq!(switched["subscription_fee_id"], flexible["id"]);
    assert_eq!(switched["payment_interval"], "3_months");
    assert_eq!(switched["total_renewal_fee"], 1000, "50 % of 2000");
    let moved = put_ok(&s, t, &p["id"], json!({"next_payment_on": "2027-03-12"})).await;
    assert_eq!(moved["payment_day"], 12);
    advance_to(&clock, "2027-03-12T09:00:00Z");
    let renewed = once(&s, t, &p["id"], "the renewal on the new day", |p| {
        p["last_payment_on"] == "2027-03-12"
    })
    .await;
    assert_eq!(renewed["next_payment_on"], "2027-06-12");
    // A fee of another variant is refused.
    let other = s
        .create_product(t, json!({"title": "Other", "variants": [{"price": 10}]}))
        .await;
    let (status, foreign) = s
        .call(
            Method::POST,
            "/v2/subscription_fees",
            t,
            Some(
                json!({"variant_id": other["_embedded"]["variants"][0]["id"],
                        "payment_interval": "1_month", "renewal_fee": 1}),
            ),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED);
    assert_eq!(
        put_refused(
            &s,
            t,
            &p["id"],
            json!({"subscription_fee_id": foreign["id"]})
        )
        .await,
        ["subscription_fee_id"]
    );
    s.assert_documented();
}

async fn update_purchases_fees_changes_active_purchases_and_leaves_others_alone(backend: Backend) {
    let (s, _clock) = server_at(backend, "2027-01-10T09:30:00Z").await;
    let seller = seller(&s, 1000).await;
    let t = &seller.token;
    let fee = seller
        .fee(
            &s,
            json!({"payment_interval": "1_month", "renewal_fee": 1000, "payment_day": 15,
                        "number_of_payments": 12}),
        )
        .await;
    let other_fee = seller
        .fee(
            &s,
            json!({"payment_interval": "1_month", "renewal_fee": 1000, "payment_day": 15}),
        )
        .await;
    let active = seller.subscribe(&s, &fee, 2, APPROVE).await;
    let paused = seller.subscribe(&s, &fee, 1, APPROVE).await;
    let other = seller.subscribe(&s, &other_fee, 1, APPROVE).await;
    let other = purchase(&s, t, &other["id"]).await;
    let paused = put_ok(&s, t, &paused["id"], json!({"state": "paused"})).await;
    assert_eq!(active["next_payment_on"], "2027-02-15");
    let mails = || {
        s.db.scalar("SELECT COUNT(*) FROM mail_outbox WHERE purpose = 'subscription_terms_changed'")
    };
    // Without update_purchases_fees, purchases keep their terms.
    let fee_path = format!("/v2/subscription_fees/{}", fee["id"]);
    let (status, _) = s
        .call(
            Method::PUT,
            &fee_path,
            t,
            Some(json!({"renewal_fee": 1500})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        purchase(&s, t, &active["id"]).await["total_renewal_fee"],
        2000
    );
    // With it, the active one takes them in the same request, and is told.
    let (status, _) = s
        .call(
            Method::PUT,
            &fee_path,
            t,
            Some(json!({"payment_day": 20, "number_of_payments": 6,
                        "update_purchases_fees": true, "notify_purchases": true})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let changed = purchase(&s, t, &active["id"]).await;
    assert_eq!(changed["total_renewal_fee"], 3000);
    assert_eq!(changed["payment_day"], 20);
    assert_eq!(changed["next_payment_on"], "2027-02-20");
    assert_eq!(changed["remaining_payments"], 5);
    assert_eq!(
        purchase(&s, t, &paused["id"]).await,
        paused,
        "a paused purchase is left alone"
    );
    assert_eq!(
        purchase(&s, t, &other["id"]).await,
        other,
        "another fee's purchase is left alone"
    );
    assert_eq!(mails().await, 1);
    let to: Vec<(String,)> = s
        .db
        .rows("SELECT to_address FROM mail_outbox WHERE purpose = 'subscription_terms_changed'")
        .await;
    assert_eq!(to[0].0, "buyer@example.com");
    // Applying the same terms again changes nothing and tells no one.
    let updated = s.event_count("subscriptions.purchases.updated").await;
    let (status, _) = s
        .call(
            Method::PUT,
            &fee_path,
            t,
            Some(json!({"update_purchases_fees": true, "notify_purchases": true})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        s.event_count("subscriptions.purchases.updated").await,
        updated
    );
    assert_eq!(mails().await, 1);
    s.assert_documented();
}

async fn a_fee_in_use_is_not_deleted_and_cancelling_the_opening_order_cancels_its_purchases(
    backend: Backend,
) {
    let (s, _clock) = server_at(backend, "2027-01-10T09:30:00Z").await;
    let seller = seller(&s, 1000).await;
    let t = &seller.token;
    let fee = seller
        .fee(
            &s,
            json!({"payment_interval": "1_month", "renewal_fee": 1000}),
        )
        .await;
    let p = seller.subscribe(&s, &fee, 1, APPROVE).await;
    let fee_path = format!("/v2/subscription_fees/{}", fee["id"]);
    let (status, refused) = s.call(Method::DELETE, &fee_path, t, None).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    assert_eq!(error_fields(&refused), ["id"]);
    // Paused, it may still renew: still refused.
    put_ok(&s, t, &p["id"], json!({"state": "paused"})).await;
    let (status, _) = s.call(Method::DELETE, &fee_path, t, None).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    // Cancelling the order that opened it cancels it (its payment is refunded).
    let (status, order) = s
        .call(
            Method::PUT,
            &format!("/v2/orders/{}/cancel", p["original_order_id"]),
            t,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{order}");
    let cancelled = purchase(&s, t, &p["id"]).await;
    assert_eq!(cancelled["state"], "cancelled");
    assert_eq!(cancelled["end_date"], "2027-01-10");
    assert_eq!(s.event_count("subscriptions.purchases.cancelled").await, 1);
    let (status, _) = s.call(Method::DELETE, &fee_path, t, None).await;
    assert_eq!(status, StatusCode::OK);
    // The purchase keeps its copy of the terms.
    let after = purchase(&s, t, &p["id"]).await;
    assert_eq!(after["subscription_fee_id"], Value::Null);
    assert_eq!(after["total_renewal_fee"], 1000);
    s.assert_documented();
}

async fn a_fee_of_one_payment_opens_a_purchase_finished_on_its_start(backend: Backend) {
    let (s, clock) = server_at(backend, "2027-01-10T09:30:00Z").await;
    let seller = seller(&s, 1000).await;
    let fee = seller
        .fee(
            &s,
            json!({"payment_interval": "1_week", "renewal_fee": 100, "number_of_payments": 1}),
        )
        .await;
    let p = seller.subscribe(&s, &fee, 1, APPROVE).await;
    assert_eq!(p["state"], "finished");
    assert_eq!(p["end_date"], "2027-01-10");
    assert_eq!(p["total_payments"], 1);
    assert_eq!(p["remaining_payments"], 0);
    let finished = list(&s, &seller.token, "?state=finished").await;
    assert_eq!(finished.len(), 1);
    advance_to(&clock, "2027-02-10T09:30:00Z");
    assert_nothing_due(&s).await;
    assert!(renewals(&s, &p["id"]).await.is_empty());
    s.assert_documented();
}

/// A purchase paused while its renewal charge waits for the gateway: the charge the
/// gateway approved is recorded on the renewal order (money taken is never left pending),
/// and the paused purchase is not moved on.
async fn a_renewal_charge_answered_after_a_pause_is_recorded_on_its_order(backend: Backend) {
    let (s, clock) = server_at(backend, "2027-01-10T09:30:00Z").await;
    let seller = seller(&s, 1000).await;
    let t = &seller.token;
    let fee = seller
        .fee(
            &s,
            json!({"payment_interval": "1_week", "renewal_fee": 1000}),
        )
        .await;
    let p = seller.subscribe(&s, &fee, 1, APPROVE).await;
    assert_eq!(p["next_payment_on"], "2027-01-17");
    let (status, method) = s
        .call(
            Method::PUT,
            &format!(
                "/v2/shops/{}/payment_methods/{}",
                s.shop_id(),
                seller.method_id
            ),
            t,
            Some(json!({"settings": {"latency_ms": 3000}})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{method}");
    advance_to(&clock, "2027-01-17T10:00:00Z");
    let charge_of = |status: &'static str| {
        format!(
            "SELECT COUNT(*) FROM payments y JOIN orders o ON o.id = y.order_id \
             WHERE o.subscription_purchase_id = {} AND y.status = '{status}'",
            p["id"]
        )
    };
    eventually("the renewal charge at the gateway", || async {
        (s.db.scalar(&charge_of("pending")).await == 1).then_some(())
    })
    .await;
    let paused = put_ok(&s, t, &p["id"], json!({"state": "paused"})).await;
    assert_eq!(paused["next_payment_on"], "2027-01-17");
    eventually("the gateway's answer recorded", || async {
        (s.db.scalar(&charge_of("approved")).await == 1).then_some(())
    })
    .await;
    assert_eq!(s.db.scalar(&charge_of("pending")).await, 0);
    assert_eq!(
        renewals(&s, &p["id"]).await,
        [row("2027-01-17", "closed", 1000, 0, 1000)]
    );
    let after = purchase(&s, t, &p["id"]).await;
    assert_eq!(
        (
            &after["state"],
            &after["next_payment_on"],
            &after["total_payments"]
        ),
        (&json!("paused"), &json!("2027-01-17"), &json!(1)),
        "a paused purchase is not moved on: {after}"
    );
    s.assert_documented();
}
