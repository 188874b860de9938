//! Payments: a shop's payment methods with their settings and write-only secrets, orders
//! naming one, the test gateway's outcomes by card number, partial payments closing an
//! order, manual methods, refunds on cancel (and their retries), parallel payments charging
//! once, a charge whose gateway's answer was lost, tenancy and the events subscribers hear.

use std::sync::Arc;
use std::time::Duration;

use domain::clock::ManualClock;
use domain::{Clock, Timestamp};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::on_both_backends;
use crate::receiver::Receiver;
use crate::support::{
    Backend, TestServer, assert_error, error_fields, eventually, item_ids, json as answer_of,
};

on_both_backends!(
    methods_are_listed_in_order_with_their_settings_and_secrets_write_only,
    settings_are_checked_against_the_type,
    orders_name_an_enabled_method_of_their_shop,
    the_card_number_decides_the_outcome,
    partial_payments_then_the_total_closes_the_order,
    manual_methods_record_money_received,
    a_disabled_method_charges_no_card_but_records_money_received,
    cancelling_a_paid_order_refunds_every_charge,
    a_refund_the_gateway_fails_is_retried_then_given_up,
    parallel_payments_charge_the_order_once,
    an_idempotency_key_charges_once,
    a_charge_whose_answer_was_lost_is_given_up,
    other_accounts_see_and_pay_nothing,
    only_the_shops_managers_change_its_methods,
    subscribers_hear_of_methods_payments_and_refunds,
);

const APPROVE: &str = "4242424242424242";
const DECLINE: &str = "4000000000000002";
const FAIL: &str = "4000000000000119";
const REFUND_FAILS: &str = "4000000000005126";

fn card(number: &str) -> Value {
    json!({"number": number, "exp_month": 12, "exp_year": 2099, "cvc": "123"})
}

/// A server whose payments sweep runs often, on a manual clock starting on a whole second.
async fn server_on_manual_clock(backend: Backend) -> (TestServer, Arc<ManualClock>) {
    let start = Timestamp::from_secs(domain::SystemClock.now().as_secs());
    let clock = Arc::new(ManualClock::new(start));
    let manual = clock.clone() as Arc<dyn Clock>;
    let s = TestServer::start_with(backend, move |c| {
        c.clock = manual;
        c.payments_poll = Duration::from_millis(50);
        c.access_token_ttl = Duration::from_secs(30 * 86_400);
        c.webhook_allowed_networks = vec![("127.0.0.0".parse().unwrap(), 8)];
        c.webhook_poll = Duration::from_millis(50);
    })
    .await;
    (s, clock)
}

fn methods_path(shop_id: i64) -> String {
    format!("/v2/shops/{shop_id}/payment_methods")
}

/// Adds a payment method to the shop, asserting that it was added.
async fn add_method(s: &TestServer, token: &str, shop_id: i64, body: Value) -> Value {
    let (status, method) = s
        .call(Method::POST, &methods_path(shop_id), token, Some(body))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{method}");
    method
}

fn id_of(resource: &Value) -> i64 {
    resource["id"]
        .as_i64()
        .unwrap_or_else(|| panic!("an id: {resource}"))
}

/// A variant at `price` with plenty of stock; answers its id.
async fn variant(s: &TestServer, token: &str, price: i64) -> i64 {
    let product = s
        .create_product(
            token,
            json!({"title": "Paid thing", "status": "visible",
                   "variants": [{"price": price, "stock": 1000}]}),
        )
        .await;
    product["_embedded"]["variants"][0]["id"].as_i64().unwrap()
}

/// A placed order of one unit at `price` naming `method`, in the first demo shop.
async fn placed_order(s: &TestServer, token: &str, method: &Value, price: i64) -> Value {
    let variant = variant(s, token, price).await;
    let (status, order) = s
        .call(
            Method::POST,
            &format!("/v2/shops/{}/orders", s.shop_id()),
            token,
            Some(
                json!({"lines": [{"variant_id": variant}], "email": "buyer@example.com",
                        "payment_method_id": method["id"]}),
            ),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{order}");
    let (status, placed) = s
        .call(
            Method::PUT,
            &format!("/v2/orders/{}/place", order["id"]),
            token,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{placed}");
    placed
}

async fn pay(s: &TestServer, token: &str, order: &Value, body: Value) -> (StatusCode, Value) {
    s.call(
        Method::POST,
        &format!("/v2/orders/{}/payments", order["id"]),
        token,
        Some(body),
    )
    .await
}

async fn get_order(s: &TestServer, token: &str, order: &Value) -> Value {
    let (status, order) = s
        .get_json(&format!("/v2/orders/{}", order["id"]), token)
        .await;
    assert_eq!(status, StatusCode::OK, "{order}");
    order
}

/// The order's payments, oldest first.
async fn payments_of(s: &TestServer, token: &str, order: &Value) -> Vec<Value> {
    let (status, list) = s
        .get_json(&format!("/v2/orders/{}/payments", order["id"]), token)
        .await;
    assert_eq!(status, StatusCode::OK, "{list}");
    list["_embedded"]["items"].as_array().unwrap().clone()
}

fn statuses(payments: &[Value]) -> Vec<(String, String, i64)> {
    payments
        .iter()
        .map(|p| {
            (
                p["kind"].as_str().unwrap().to_owned(),
                p["status"].as_str().unwrap().to_owned(),
                p["amount"].as_i64().unwrap(),
            )
        })
        .collect()
}

async fn methods_are_listed_in_order_with_their_settings_and_secrets_write_only(s: TestServer) {
    let token = s.owner_token().await;
    let shop = s.shop_id();
    let secret = "sk_test_a-secret-nobody-reads";
    let gateway = add_method(
        &s,
        &token,
        shop,
        json!({"type": "test_gateway", "name": "Cards",
               "settings": {"publishable_key": "pk_test_1", "secret_key": secret, "latency_ms": 0}}),
    )
    .await;
    assert_eq!(gateway["type"], "test_gateway");
    assert_eq!(gateway["enabled"], true);
    assert_eq!(gateway["position"], 1);
    assert_eq!(
        gateway["settings"],
        json!({"publishable_key": "pk_test_1", "latency_ms": "0"})
    );
    assert_eq!(gateway["secrets_set"], json!(["secret_key"]));
    let bank = add_method(
        &s,
        &token,
        shop,
        json!({"type": "bank_transfer", "instructions": "Transfer to our account",
               "settings": {"bank_name": "Banco", "iban": "CL00 1234"}}),
    )
    .await;
    assert_eq!(bank["name"], "Bank transfer");
    assert_eq!(bank["position"], 2);
    // Placed first by its position.
    let cash = add_method(
        &s,
        &token,
        shop,
        json!({"type": "cash_on_delivery", "position": 1, "enabled": false}),
    )
    .await;
    let (status, list) = s.get_json(&methods_path(shop), &token).await;
    assert_eq!(status, StatusCode::OK, "{list}");
    assert_eq!(
        item_ids(&list),
        vec![id_of(&gateway), id_of(&cash), id_of(&bank)]
    );
    let (_, shop_doc) = s.get_json(&format!("/v2/shops/{shop}"), &token).await;
    assert!(
        shop_doc["_links"]["shops:payment_methods"].is_object(),
        "{shop_doc}"
    );

    // A change merges settings: a secret left out stays set, a key given null goes.
    let item = format!("{}/{}", methods_path(shop), id_of(&gateway));
    let (status, changed) = s
        .call(
            Method::PUT,
            &item,
            &token,
            Some(json!({"name": "Card", "position": 3, "settings": {"publishable_key": null}})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{changed}");
    assert_eq!(changed["name"], "Card");
    assert_eq!(changed["settings"], json!({"latency_ms": "0"}));
    assert_eq!(changed["secrets_set"], json!(["secret_key"]));
    let (_, list) = s.get_json(&methods_path(shop), &token).await;
    assert_eq!(
        item_ids(&list),
        vec![id_of(&cash), id_of(&bank), id_of(&gateway)]
    );
    // The secret is sealed at rest and never answered.
    let sealed: Vec<(Vec<u8>,)> =
        s.db.rows(&format!(
            "SELECT secrets_sealed FROM payment_methods WHERE id = {}",
            id_of(&gateway)
        ))
        .await;
    assert!(
        !sealed[0]
            .0
            .windows(secret.len())
            .any(|w| w == secret.as_bytes())
    );
    for answer in [&gateway, &changed, &list] {
        assert!(!answer.to_string().contains(secret), "{answer}");
    }
    let (status, shown) = s.get_json(&item, &token).await;
    assert_eq!(status, StatusCode::OK);
    assert!(!shown.to_string().contains(secret));
    // A new secret replaces it; null unsets it.
    let (_, unset) = s
        .call(
            Method::PUT,
            &item,
            &token,
            Some(json!({"settings": {"secret_key": null}})),
        )
        .await;
    assert_eq!(unset["secrets_set"], json!([]));

    let (status, deleted) = s.call(Method::DELETE, &item, &token, None).await;
    assert_eq!(status, StatusCode::OK, "{deleted}");
    assert_eq!(deleted["id"], gateway["id"]);
    let (status, _) = s.get_json(&item, &token).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    // Nested in its shop only.
    let other_shop = s.demo.shops[1].id;
    let (status, _) = s
        .get_json(
            &format!("{}/{}", methods_path(other_shop), id_of(&bank)),
            &token,
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(s.event_count("shops.payment_methods.created").await, 3);
    assert_eq!(s.event_count("shops.payment_methods.updated").await, 2);
    assert_eq!(s.event_count("shops.payment_methods.deleted").await, 1);
    s.assert_documented();
}

async fn settings_are_checked_against_the_type(s: TestServer) {
    let token = s.owner_token().await;
    let shop = s.shop_id();
    let (status, refused) = s
        .call(
            Method::POST,
            &methods_path(shop),
            &token,
            Some(json!({"type": "bank_transfer", "name": " ", "position": 0,
                        "settings": {"secret_key": "x", "iban": ["no"]}})),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    let mut fields = error_fields(&refused);
    fields.sort();
    assert_eq!(
        fields,
        ["name", "position", "settings.iban", "settings.secret_key"]
    );
    let (status, refused) = s
        .call(
            Method::POST,
            &methods_path(shop),
            &token,
            Some(json!({"type": "cash_on_delivery", "settings": {"fee": "1"}})),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_fields(&refused), ["settings.fee"]);
    let (status, refused) = s
        .call(
            Method::POST,
            &methods_path(shop),
            &token,
            Some(json!({"type": "test_gateway", "settings": {"latency_ms": 20000}})),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_fields(&refused), ["settings.latency_ms"]);
    let (status, refused) = s
        .call(
            Method::POST,
            &methods_path(shop),
            &token,
            Some(json!({"type": "paypal"})),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    let method = add_method(&s, &token, shop, json!({"type": "cash_on_delivery"})).await;
    let (status, refused) = s
        .call(
            Method::PUT,
            &format!("{}/{}", methods_path(shop), id_of(&method)),
            &token,
            Some(json!({"type": "bank_transfer", "enabled": null})),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    let mut fields = error_fields(&refused);
    fields.sort();
    assert_eq!(fields, ["enabled", "type"]);
    let (_, list) = s.get_json(&methods_path(shop), &token).await;
    assert_eq!(list["total_items"], 1, "nothing refused was written");
    assert_eq!(s.event_count("shops.payment_methods.created").await, 1);
    s.assert_documented();
}

async fn orders_name_an_enabled_method_of_their_shop(s: TestServer) {
    let token = s.owner_token().await;
    let shop = s.shop_id();
    let bank = add_method(&s, &token, shop, json!({"type": "bank_transfer"})).await;
    let disabled = add_method(
        &s,
        &token,
        shop,
        json!({"type": "cash_on_delivery", "enabled": false}),
    )
    .await;
    let elsewhere = add_method(
        &s,
        &token,
        s.demo.shops[1].id,
        json!({"type": "test_gateway"}),
    )
    .await;
    let variant = variant(&s, &token, 500).await;
    let orders = format!("/v2/shops/{shop}/orders");
    for method in [&disabled, &elsewhere] {
        let (status, refused) = s
            .call(
                Method::POST,
                &orders,
                &token,
                Some(
                    json!({"lines": [{"variant_id": variant}], "payment_method_id": method["id"]}),
                ),
            )
            .await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
        assert_eq!(error_fields(&refused), ["payment_method_id"]);
    }
    let (status, order) = s
        .call(
            Method::POST,
            &orders,
            &token,
            Some(json!({"lines": [{"variant_id": variant}], "payment_method_id": bank["id"]})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{order}");
    assert_eq!(order["payment_method_id"], bank["id"]);
    assert_eq!(
        order["payment_info"],
        json!({"name": "Bank transfer", "type": "bank_transfer"})
    );
    assert_eq!(
        (&order["paid_total"], &order["outstanding"]),
        (&json!(0), &json!(500))
    );
    let (_, unnamed) = s
        .call(
            Method::POST,
            &orders,
            &token,
            Some(json!({"lines": [{"variant_id": variant}]})),
        )
        .await;
    assert_eq!(unnamed["payment_info"], Value::Null);
    // Filters: by type, and by method.
    let (_, by_type) = s
        .get_json("/v2/orders?payment_method=bank_transfer", &token)
        .await;
    assert_eq!(item_ids(&by_type), vec![id_of(&order)]);
    let (_, by_id) = s
        .get_json(
            &format!("/v2/orders?payment_method_id={}", bank["id"]),
            &token,
        )
        .await;
    assert_eq!(item_ids(&by_id), vec![id_of(&order)]);
    let (status, refused) = s.get_json("/v2/orders?payment_method=barter", &token).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_fields(&refused), ["payment_method"]);

    // In checkout the method changes; the copy keeps the name it had.
    let item = format!("/v2/orders/{}", order["id"]);
    let (status, changed) = s
        .call(
            Method::PUT,
            &item,
            &token,
            Some(json!({"payment_method_id": null})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{changed}");
    assert_eq!(changed["payment_info"], Value::Null);
    s.call(
        Method::PUT,
        &item,
        &token,
        Some(json!({"payment_method_id": bank["id"]})),
    )
    .await;
    s.call(
        Method::PUT,
        &format!("{}/{}", methods_path(shop), id_of(&bank)),
        &token,
        Some(json!({"name": "Wire"})),
    )
    .await;
    let (_, kept) = s.get_json(&item, &token).await;
    assert_eq!(kept["payment_info"]["name"], "Bank transfer");
    let (status, _) = s
        .call(Method::PUT, &format!("{item}/place"), &token, None)
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, refused) = s
        .call(
            Method::PUT,
            &item,
            &token,
            Some(json!({"payment_method_id": null})),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_fields(&refused), ["payment_method_id"]);
    // A deleted method takes no payment; the order keeps its copy.
    s.call(
        Method::DELETE,
        &format!("{}/{}", methods_path(shop), id_of(&bank)),
        &token,
        None,
    )
    .await;
    let (status, refused) = pay(&s, &token, &order, json!({})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    assert_eq!(error_fields(&refused), ["payment_method_id"]);
    let (_, kept) = s.get_json(&item, &token).await;
    assert_eq!(kept["payment_info"]["type"], "bank_transfer");
    s.assert_documented();
}

async fn the_card_number_decides_the_outcome(s: TestServer) {
    let token = s.owner_token().await;
    let gateway = add_method(&s, &token, s.shop_id(), json!({"type": "test_gateway"})).await;
    let order = placed_order(&s, &token, &gateway, 2500).await;
    assert!(
        order["_links"]["orders:create_payment"].is_object(),
        "{order}"
    );

    let (status, declined) = pay(&s, &token, &order, json!({"card": card(DECLINE)})).await;
    assert_error(
        &(status, declined.clone()),
        StatusCode::PAYMENT_REQUIRED,
        "payment_declined",
    );
    let payment = &declined["_embedded"]["payment"];
    assert_eq!(payment["status"], "declined");
    assert_eq!(payment["failure_code"], "card_declined");
    assert_eq!(payment["card"], json!({"brand": "visa", "last4": "0002"}));
    let (status, failed) = pay(&s, &token, &order, json!({"card": card(FAIL)})).await;
    assert_error(
        &(status, failed.clone()),
        StatusCode::BAD_GATEWAY,
        "gateway_error",
    );
    assert_eq!(failed["_embedded"]["payment"]["status"], "failed");
    let (status, unknown) = pay(
        &s,
        &token,
        &order,
        json!({"card": card("4111111111111111")}),
    )
    .await;
    assert_eq!(status, StatusCode::PAYMENT_REQUIRED);
    assert_eq!(
        unknown["_embedded"]["payment"]["failure_code"],
        "incorrect_number"
    );
    assert_eq!(get_order(&s, &token, &order).await["status"], "placed");

    // Refused before anything is tried or written.
    for (body, field) in [
        (json!({}), "card"),
        (json!({"card": card("4242424242424241")}), "card.number"),
        (
            json!({"card": {"number": APPROVE, "exp_month": 13, "exp_year": 2099, "cvc": "123"}}),
            "card.exp_month",
        ),
        (
            json!({"card": {"number": APPROVE, "exp_month": 1, "exp_year": 2001, "cvc": "123"}}),
            "card.exp_year",
        ),
        (
            json!({"card": {"number": APPROVE, "exp_month": 1, "exp_year": 2099, "cvc": "12a"}}),
            "card.cvc",
        ),
        (json!({"card": card(APPROVE), "amount": 2501}), "amount"),
        (json!({"card": card(APPROVE), "amount": 0}), "amount"),
        (
            json!({"card": card(APPROVE), "reference": "mine"}),
            "reference",
        ),
    ] {
        let (status, refused) = pay(&s, &token, &order, body.clone()).await;
        assert_eq!(
            status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{body}: {refused}"
        );
        assert_eq!(error_fields(&refused), [field], "{body}");
    }
    let (status, approved) = pay(&s, &token, &order, json!({"card": card(APPROVE)})).await;
    assert_eq!(status, StatusCode::CREATED, "{approved}");
    assert_eq!(approved["status"], "approved");
    assert_eq!(approved["amount"], 2500);
    assert!(
        approved["reference"]
            .as_str()
            .unwrap()
            .starts_with("test_ch_")
    );
    assert_eq!(
        approved["method"],
        json!({"type": "test_gateway", "name": "Test gateway"})
    );
    let closed = get_order(&s, &token, &order).await;
    assert_eq!(closed["status"], "closed");
    assert_eq!(
        (&closed["paid_total"], &closed["outstanding"]),
        (&json!(2500), &json!(0))
    );
    assert!(closed["_links"]["orders:create_payment"].is_null());
    let payments = payments_of(&s, &token, &order).await;
    assert_eq!(
        statuses(&payments),
        [
            ("charge".into(), "declined".into(), 2500),
            ("charge".into(), "failed".into(), 2500),
            ("charge".into(), "declined".into(), 2500),
            ("charge".into(), "approved".into(), 2500),
        ]
    );
    // Nothing of a card but its brand and last digits is kept.
    let cards: Vec<(Option<String>, Option<String>)> =
        s.db.rows("SELECT card_brand, card_last4 FROM payments")
            .await;
    assert!(
        cards
            .iter()
            .all(|(_, last4)| last4.as_ref().is_some_and(|l| l.len() == 4))
    );
    let (status, again) = pay(&s, &token, &order, json!({"card": card(APPROVE)})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{again}");
    assert_eq!(error_fields(&again), ["amount"]);
    assert_eq!(s.event_count("orders.payments.created").await, 4);
    assert_eq!(s.event_count("orders.updated.closed").await, 1);
    s.assert_documented();
}

async fn partial_payments_then_the_total_closes_the_order(s: TestServer) {
    let token = s.owner_token().await;
    let gateway = add_method(&s, &token, s.shop_id(), json!({"type": "test_gateway"})).await;
    let order = placed_order(&s, &token, &gateway, 1000).await;
    let (status, first) = pay(
        &s,
        &token,
        &order,
        json!({"card": card(APPROVE), "amount": 300}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{first}");
    let after = get_order(&s, &token, &order).await;
    assert_eq!(after["status"], "placed");
    assert_eq!(
        (&after["paid_total"], &after["outstanding"]),
        (&json!(300), &json!(700))
    );
    // The order's money changed without a move: subscribers hear orders.updated.
    let updates: Vec<(String,)> =
        s.db.rows("SELECT item FROM events WHERE topic = 'orders.updated'")
            .await;
    assert_eq!(updates.len(), 1);
    let heard: Value = serde_json::from_str(&updates[0].0).unwrap();
    assert_eq!(
        (&heard["paid_total"], &heard["outstanding"]),
        (&json!(300), &json!(700))
    );
    let (status, over) = pay(
        &s,
        &token,
        &order,
        json!({"card": card(APPROVE), "amount": 701}),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_fields(&over), ["amount"]);
    // The rest by default.
    let (status, rest) = pay(
        &s,
        &token,
        &order,
        json!({"card": card("5555555555554444")}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{rest}");
    assert_eq!(rest["amount"], 700);
    assert_eq!(rest["card"]["brand"], "mastercard");
    let closed = get_order(&s, &token, &order).await;
    assert_eq!(closed["status"], "closed");
    assert_eq!(closed["paid_total"], 1000);
    // The payment that closed it is heard as the close alone.
    assert_eq!(s.event_count("orders.updated").await, 1);
    // A checkout order takes no payment.
    let variant = variant(&s, &token, 100).await;
    let (_, cart) = s
        .call(
            Method::POST,
            &format!("/v2/shops/{}/orders", s.shop_id()),
            &token,
            Some(json!({"lines": [{"variant_id": variant}], "payment_method_id": gateway["id"]})),
        )
        .await;
    let (status, refused) = pay(&s, &token, &cart, json!({"card": card(APPROVE)})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_fields(&refused), ["status"]);
    assert_eq!(s.event_count("orders.updated.closed").await, 1);
    s.assert_documented();
}

async fn manual_methods_record_money_received(s: TestServer) {
    let token = s.owner_token().await;
    let bank = add_method(&s, &token, s.shop_id(), json!({"type": "bank_transfer"})).await;
    let order = placed_order(&s, &token, &bank, 4000).await;
    let (status, refused) = pay(&s, &token, &order, json!({"card": card(APPROVE)})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_fields(&refused), ["card"]);
    let (status, recorded) = pay(&s, &token, &order, json!({"reference": "TRX-881"})).await;
    assert_eq!(status, StatusCode::CREATED, "{recorded}");
    assert_eq!(recorded["status"], "approved");
    assert_eq!(recorded["reference"], "TRX-881");
    assert_eq!(recorded["card"], Value::Null);
    assert_eq!(recorded["amount"], 4000);
    assert_eq!(get_order(&s, &token, &order).await["status"], "closed");
    // A token that only reads records nothing.
    let user = &s.demo.user;
    let reader = s
        .password_token(&user.email, &user.password, Some("orders.read"))
        .await;
    let (status, _) = pay(&s, &reader, &order, json!({})).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(payments_of(&s, &token, &order).await.len(), 1);
    s.assert_documented();
}

async fn a_disabled_method_charges_no_card_but_records_money_received(s: TestServer) {
    let token = s.owner_token().await;
    let gateway = add_method(&s, &token, s.shop_id(), json!({"type": "test_gateway"})).await;
    let bank = add_method(&s, &token, s.shop_id(), json!({"type": "bank_transfer"})).await;
    let by_card = placed_order(&s, &token, &gateway, 800).await;
    let by_transfer = placed_order(&s, &token, &bank, 900).await;
    let toggle = |method: &Value, enabled: bool| {
        let path = format!("{}/{}", methods_path(s.shop_id()), method["id"]);
        let token = token.clone();
        let s = &s;
        async move {
            let (status, changed) = s
                .call(
                    Method::PUT,
                    &path,
                    &token,
                    Some(json!({"enabled": enabled})),
                )
                .await;
            assert_eq!(status, StatusCode::OK, "{changed}");
        }
    };
    toggle(&gateway, false).await;
    toggle(&bank, false).await;
    let events = s.db.scalar("SELECT COUNT(*) FROM events").await;
    let (status, refused) = pay(&s, &token, &by_card, json!({"card": card(APPROVE)})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    assert_eq!(error_fields(&refused), ["payment_method_id"]);
    assert!(payments_of(&s, &token, &by_card).await.is_empty());
    assert_eq!(s.db.scalar("SELECT COUNT(*) FROM events").await, events);
    // Money a buyer already sent is recorded whatever the method's state.
    let (status, recorded) = pay(&s, &token, &by_transfer, json!({"reference": "TRX-9"})).await;
    assert_eq!(status, StatusCode::CREATED, "{recorded}");
    assert_eq!(
        get_order(&s, &token, &by_transfer).await["status"],
        "closed"
    );
    // Enabled again, the gateway charges.
    toggle(&gateway, true).await;
    let (status, approved) = pay(&s, &token, &by_card, json!({"card": card(APPROVE)})).await;
    assert_eq!(status, StatusCode::CREATED, "{approved}");
    assert_eq!(get_order(&s, &token, &by_card).await["status"], "closed");
    s.assert_documented();
}

async fn cancelling_a_paid_order_refunds_every_charge(s: TestServer) {
    let token = s.owner_token().await;
    let gateway = add_method(&s, &token, s.shop_id(), json!({"type": "test_gateway"})).await;
    let cash = add_method(&s, &token, s.shop_id(), json!({"type": "cash_on_delivery"})).await;
    let order = placed_order(&s, &token, &gateway, 900).await;
    pay(
        &s,
        &token,
        &order,
        json!({"card": card(APPROVE), "amount": 400}),
    )
    .await;
    pay(&s, &token, &order, json!({"card": card(APPROVE)})).await;
    let (status, cancelled) = s
        .call(
            Method::PUT,
            &format!("/v2/orders/{}/cancel", order["id"]),
            &token,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{cancelled}");
    assert_eq!(cancelled["status"], "cancelled");
    assert_eq!(
        (&cancelled["refunded_total"], &cancelled["outstanding"]),
        (&json!(900), &json!(0))
    );
    let payments = payments_of(&s, &token, &order).await;
    assert_eq!(
        statuses(&payments),
        [
            ("charge".into(), "approved".into(), 400),
            ("charge".into(), "approved".into(), 500),
            ("refund".into(), "approved".into(), 400),
            ("refund".into(), "approved".into(), 500),
        ]
    );
    assert_eq!(payments[2]["charge_id"], payments[0]["id"]);
    // The first, partial charge and each refund made through the gateway after the cancel
    // changed the order's money without a move: each is heard as orders.updated.
    assert_eq!(s.event_count("orders.updated").await, 3);
    assert!(
        payments[2]["reference"]
            .as_str()
            .unwrap()
            .starts_with("test_re_")
    );

    // A manual payment's refund is owed by the merchant: recorded.
    let delivered = placed_order(&s, &token, &cash, 700).await;
    pay(&s, &token, &delivered, json!({})).await;
    let (_, cancelled) = s
        .call(
            Method::PUT,
            &format!("/v2/orders/{}/cancel", delivered["id"]),
            &token,
            None,
        )
        .await;
    assert_eq!(cancelled["refunded_total"], 700);
    let payments = payments_of(&s, &token, &delivered).await;
    assert_eq!(
        statuses(&payments)[1],
        ("refund".into(), "recorded".into(), 700)
    );
    // A cancelled order takes no payment.
    let (status, refused) = pay(&s, &token, &delivered, json!({})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_fields(&refused), ["status"]);
    assert_eq!(s.event_count("orders.refunds.created").await, 3);
    s.assert_documented();
}

async fn a_refund_the_gateway_fails_is_retried_then_given_up(backend: Backend) {
    let (s, clock) = server_on_manual_clock(backend).await;
    let token = s.owner_token().await;
    let gateway = add_method(&s, &token, s.shop_id(), json!({"type": "test_gateway"})).await;
    let order = placed_order(&s, &token, &gateway, 600).await;
    let (status, _) = pay(&s, &token, &order, json!({"card": card(REFUND_FAILS)})).await;
    assert_eq!(status, StatusCode::CREATED);
    let (_, cancelled) = s
        .call(
            Method::PUT,
            &format!("/v2/orders/{}/cancel", order["id"]),
            &token,
            None,
        )
        .await;
    assert_eq!(cancelled["refunded_total"], 0, "{cancelled}");
    let refund = payments_of(&s, &token, &order).await[1].clone();
    assert_eq!(refund["status"], "pending");
    assert_eq!(refund["kind"], "refund");
    // Each time it is due, the sweep tries again; the sixth failure gives it up.
    let attempts = || async {
        let rows: Vec<(i64,)> =
            s.db.rows(&format!(
                "SELECT attempts FROM payments WHERE id = {}",
                refund["id"]
            ))
            .await;
        rows[0].0
    };
    assert_eq!(attempts().await, 1);
    for expected in 2..=6 {
        clock.advance_secs(6 * 3600);
        eventually("the sweep's next try", || async {
            (attempts().await >= expected).then_some(())
        })
        .await;
    }
    let given_up = eventually("the refund given up", || async {
        let refund = payments_of(&s, &token, &order).await[1].clone();
        (refund["status"] == "failed").then_some(refund)
    })
    .await;
    assert_eq!(given_up["failure_code"], "processing_error");
    assert_eq!(get_order(&s, &token, &order).await["refunded_total"], 0);
    assert_eq!(s.event_count("orders.refunds.created").await, 1);
    s.assert_documented();
}

async fn parallel_payments_charge_the_order_once(s: TestServer) {
    let token = s.owner_token().await;
    // A slow gateway, so that the requests overlap while the first waits for it.
    let gateway = add_method(
        &s,
        &token,
        s.shop_id(),
        json!({"type": "test_gateway", "settings": {"latency_ms": 300}}),
    )
    .await;
    for round in 0..3 {
        let order = placed_order(&s, &token, &gateway, 1200).await;
        let body = || json!({"card": card(APPROVE)});
        let (a, b, c, d, e, f) = tokio::join!(
            pay(&s, &token, &order, body()),
            pay(&s, &token, &order, body()),
            pay(&s, &token, &order, body()),
            pay(&s, &token, &order, body()),
            pay(&s, &token, &order, body()),
            pay(&s, &token, &order, body()),
        );
        let answers = [a, b, c, d, e, f];
        let created = answers
            .iter()
            .filter(|(status, _)| *status == StatusCode::CREATED)
            .count();
        assert_eq!(created, 1, "round {round}: {answers:?}");
        for (status, body) in &answers {
            assert!(
                [
                    StatusCode::CREATED,
                    StatusCode::CONFLICT,
                    StatusCode::UNPROCESSABLE_ENTITY
                ]
                .contains(status),
                "{status}: {body}"
            );
            if *status == StatusCode::CONFLICT {
                assert_eq!(body["error"], "payment_in_progress");
            }
        }
        let payments = payments_of(&s, &token, &order).await;
        assert_eq!(
            statuses(&payments),
            [("charge".into(), "approved".into(), 1200)]
        );
        let closed = get_order(&s, &token, &order).await;
        assert_eq!(
            (&closed["status"], &closed["paid_total"]),
            (&json!("closed"), &json!(1200))
        );
    }
    assert_eq!(s.event_count("orders.updated.closed").await, 3);
    assert_eq!(s.event_count("orders.payments.created").await, 3);
    s.assert_documented();
}

async fn an_idempotency_key_charges_once(s: TestServer) {
    let token = s.owner_token().await;
    let gateway = add_method(&s, &token, s.shop_id(), json!({"type": "test_gateway"})).await;
    let order = placed_order(&s, &token, &gateway, 1000).await;
    let path = format!("/v2/orders/{}/payments", order["id"]);
    let send = |body: Value| {
        s.request(Method::POST, &path, &token)
            .header("idempotency-key", "pay-once")
            .json(&body)
            .send()
    };
    let first = send(json!({"card": card(APPROVE), "amount": 400}))
        .await
        .unwrap();
    assert_eq!(first.status(), StatusCode::CREATED);
    let (_, first) = answer_of(first).await;
    let again = send(json!({"card": card(APPROVE), "amount": 400}))
        .await
        .unwrap();
    assert_eq!(again.headers()["idempotent-replayed"], "true");
    let (status, again) = answer_of(again).await;
    assert_eq!(status, StatusCode::CREATED);
    assert_eq!(again["id"], first["id"]);
    let (status, refused) = answer_of(
        send(json!({"card": card(APPROVE), "amount": 500}))
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    assert_eq!(payments_of(&s, &token, &order).await.len(), 1);
    assert_eq!(get_order(&s, &token, &order).await["paid_total"], 400);
    s.assert_documented();
}

async fn a_charge_whose_answer_was_lost_is_given_up(backend: Backend) {
    let (s, clock) = server_on_manual_clock(backend).await;
    let token = s.owner_token().await;
    let gateway = add_method(
        &s,
        &token,
        s.shop_id(),
        json!({"type": "test_gateway", "settings": {"latency_ms": 3000}}),
    )
    .await;
    let order = placed_order(&s, &token, &gateway, 800).await;
    let paying = pay(&s, &token, &order, json!({"card": card(APPROVE)}));
    let watching = async {
        // While the gateway is slow, the attempt is pending and holds the amount.
        let pending = eventually("the pending charge", || async {
            let payments = payments_of(&s, &token, &order).await;
            payments
                .first()
                .filter(|p| p["status"] == "pending")
                .cloned()
        })
        .await;
        let (status, busy) = pay(&s, &token, &order, json!({"card": card(APPROVE)})).await;
        assert_error(&(status, busy), StatusCode::CONFLICT, "payment_in_progress");
        // As if its request died: past the timeout, the sweep gives it up.
        clock.advance_secs(16 * 60);
        eventually("the charge given up", || async {
            let payments = payments_of(&s, &token, &order).await;
            (payments[0]["status"] == "failed").then_some(())
        })
        .await;
        pending
    };
    let ((status, answer), pending) = tokio::join!(paying, watching);
    // The gateway's late answer does not overwrite what the sweep recorded.
    assert_error(
        &(status, answer.clone()),
        StatusCode::BAD_GATEWAY,
        "gateway_error",
    );
    assert_eq!(answer["_embedded"]["payment"]["id"], pending["id"]);
    assert_eq!(answer["_embedded"]["payment"]["failure_code"], "abandoned");
    let after = get_order(&s, &token, &order).await;
    assert_eq!(
        (&after["status"], &after["outstanding"]),
        (&json!("placed"), &json!(800))
    );
    s.assert_documented();
}

async fn other_accounts_see_and_pay_nothing(s: TestServer) {
    let token = s.owner_token().await;
    let gateway = add_method(&s, &token, s.shop_id(), json!({"type": "test_gateway"})).await;
    let order = placed_order(&s, &token, &gateway, 300).await;
    let other = s.seed_another_account().await;
    let stranger = s.owner_token_of(&other).await;
    let (status, _) = pay(&s, &stranger, &order, json!({"card": card(APPROVE)})).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = s
        .get_json(&format!("/v2/orders/{}/payments", order["id"]), &stranger)
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = s.get_json(&methods_path(s.shop_id()), &stranger).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = s
        .call(
            Method::DELETE,
            &format!("{}/{}", methods_path(s.shop_id()), id_of(&gateway)),
            &stranger,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    // Their order cannot name this shop's method either.
    let their_variant = variant(&s, &stranger, 100).await;
    let (status, refused) = s
        .call(
            Method::POST,
            &format!("/v2/shops/{}/orders", other.shops[0].id),
            &stranger,
            Some(json!({"lines": [{"variant_id": their_variant}], "payment_method_id": gateway["id"]})),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    assert_eq!(payments_of(&s, &token, &order).await.len(), 0);
    s.assert_documented();
}

async fn only_the_shops_managers_change_its_methods(s: TestServer) {
    let token = s.owner_token().await;
    let shop = s.shop_id();
    let method = add_method(&s, &token, shop, json!({"type": "bank_transfer"})).await;
    // An account admin who is not on the shop's roster reads its methods, changes none.
    let password = "a long enough password";
    s.add_user("outsider@example.com", password, "admin").await;
    let outsider = s
        .password_token("outsider@example.com", password, None)
        .await;
    let (status, list) = s.get_json(&methods_path(shop), &outsider).await;
    assert_eq!(status, StatusCode::OK, "{list}");
    let item = format!("{}/{}", methods_path(shop), id_of(&method));
    for answer in [
        s.call(
            Method::POST,
            &methods_path(shop),
            &outsider,
            Some(json!({"type": "cash_on_delivery"})),
        )
        .await,
        s.call(Method::PUT, &item, &outsider, Some(json!({"name": "Mine"})))
            .await,
        s.call(Method::DELETE, &item, &outsider, None).await,
    ] {
        assert_error(&answer, StatusCode::FORBIDDEN, "role_forbidden");
    }
    let (_, kept) = s.get_json(&item, &token).await;
    assert_eq!(kept["name"], "Bank transfer");
    assert_eq!(s.event_count("shops.payment_methods.created").await, 1);
    s.assert_documented();
}

async fn subscribers_hear_of_methods_payments_and_refunds(backend: Backend) {
    let (s, _clock) = server_on_manual_clock(backend).await;
    let token = s.owner_token().await;
    let receiver = Receiver::start().await;
    crate::webhooks::active_subscriptions(
        &s,
        &token,
        [
            json!({"topic": "orders.payments", "url": receiver.url("/payments")}),
            json!({"topic": "orders.refunds", "url": receiver.url("/refunds")}),
            json!({"topic": "shops.payment_methods", "url": receiver.url("/methods")}),
        ],
    )
    .await;
    let gateway = add_method(
        &s,
        &token,
        s.shop_id(),
        json!({"type": "test_gateway",
        "settings": {"secret_key": "sk_test_heard-by-nobody"}}),
    )
    .await;
    let order = placed_order(&s, &token, &gateway, 500).await;
    pay(&s, &token, &order, json!({"card": card(DECLINE)})).await;
    pay(&s, &token, &order, json!({"card": card(APPROVE)})).await;
    s.call(
        Method::PUT,
        &format!("/v2/orders/{}/cancel", order["id"]),
        &token,
        None,
    )
    .await;
    let received = receiver
        .wait_until("four deliveries", |r| {
            r.iter().filter(|r| !r.is_ping()).count() >= 4
        })
        .await;
    let mut heard: Vec<(String, String)> = received
        .iter()
        .filter(|r| !r.is_ping())
        .map(|r| {
            let event = r.json();
            let item = &event["_embedded"]["item"];
            (
                event["topic"].as_str().unwrap().to_owned(),
                item["status"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect();
    heard.sort();
    assert_eq!(
        heard,
        [
            ("orders.payments.created".into(), "approved".into()),
            ("orders.payments.created".into(), "declined".into()),
            ("orders.refunds.created".into(), "approved".into()),
            ("shops.payment_methods.created".into(), String::new()),
        ]
    );
    for delivery in &received {
        let body = String::from_utf8_lossy(&delivery.body);
        assert!(!body.contains("sk_test_heard-by-nobody"));
        assert!(!body.contains(APPROVE));
    }
    s.assert_documented();
}
