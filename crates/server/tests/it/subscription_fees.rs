//! Subscription fees over HTTP: every field and its default, the events with their
//! payloads, every refusal (with nothing written), the payment day's range by interval,
//! the renewal price by percentage as the variant's price changes, filters and sorts,
//! If-Match, tenancy, scopes, and the cascade that removes a fee with its variant.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::on_both_backends;
use crate::support::{TestServer, access_token, error_fields, item_ids, json};

on_both_backends!(
    create_read_update_delete_and_record_events,
    invalid_fields_are_named_and_nothing_is_written,
    the_payment_day_follows_the_interval,
    the_renewal_price_follows_the_variant_and_lists_filter_and_sort,
    other_accounts_see_nothing_and_readers_get_no_write_links,
    a_fee_goes_with_its_variant_and_its_product,
    a_fee_written_while_its_variant_goes_is_never_left_behind,
);

const FEES: &str = "/v2/subscription_fees";

async fn send(
    s: &TestServer,
    method: Method,
    path: &str,
    token: &str,
    body: Value,
) -> (StatusCode, Value) {
    json(
        s.request(method, path, token)
            .json(&body)
            .send()
            .await
            .unwrap(),
    )
    .await
}

async fn get(s: &TestServer, path: &str, token: &str) -> (StatusCode, Value) {
    json(s.get(path, token).send().await.unwrap()).await
}

/// Creates a product with variants at these prices; its id and its variants' ids.
async fn product(s: &TestServer, token: &str, title: &str, prices: &[i64]) -> (i64, Vec<i64>) {
    let variants: Vec<Value> = prices
        .iter()
        .enumerate()
        .map(|(i, price)| json!({"sku": format!("{title}-{i}"), "price": price}))
        .collect();
    let product = s
        .create_product(token, json!({"title": title, "variants": variants}))
        .await;
    let ids = product["_embedded"]["variants"]
        .as_array()
        .unwrap()
        .iter()
        .map(id_of)
        .collect();
    (id_of(&product), ids)
}

async fn create_fee(s: &TestServer, token: &str, body: Value) -> Value {
    let (status, fee) = send(s, Method::POST, FEES, token, body).await;
    assert_eq!(status, StatusCode::CREATED, "{fee}");
    fee
}

fn id_of(doc: &Value) -> i64 {
    doc["id"].as_i64().unwrap()
}

/// The item of the latest event with `topic` in the demo account.
async fn last_event(s: &TestServer, topic: &str) -> Value {
    let (db, _) = s.open_storage().await;
    let events = storage::events::after(&db, s.demo.account_id, 0, 10_000)
        .await
        .unwrap();
    db.close().await;
    let event = events
        .iter()
        .rev()
        .find(|e| e.topic == topic)
        .unwrap_or_else(|| panic!("no {topic} event"));
    serde_json::from_str(&event.item).unwrap()
}

async fn all_fee_events(s: &TestServer) -> i64 {
    s.db.scalar("SELECT COUNT(*) FROM events WHERE topic LIKE 'subscriptions.%'")
        .await
}

async fn stored_fees(s: &TestServer) -> i64 {
    s.db.scalar("SELECT COUNT(*) FROM subscription_fees").await
}

fn rels_of(doc: &Value) -> Vec<String> {
    let mut rels: Vec<String> = doc["_links"]
        .as_object()
        .unwrap()
        .keys()
        .filter(|k| k.contains(':'))
        .cloned()
        .collect();
    rels.sort();
    rels
}

async fn etag_of(s: &TestServer, path: &str, token: &str) -> String {
    s.get(path, token).send().await.unwrap().headers()["etag"]
        .to_str()
        .unwrap()
        .to_owned()
}

async fn create_read_update_delete_and_record_events(s: TestServer) {
    let token = s.owner_token().await;
    let (product_id, variants) = product(&s, &token, "Coffee", &[1005]).await;
    let response = s
        .request(Method::POST, FEES, &token)
        .json(
            &json!({"variant_id": variants[0], "payment_interval": "1_month", "renewal_fee": 900}),
        )
        .send()
        .await
        .unwrap();
    let location = response.headers()["location"].to_str().unwrap().to_owned();
    let (status, fee) = json(response).await;
    assert_eq!(status, StatusCode::CREATED, "{fee}");
    let id = id_of(&fee);
    let path = format!("{FEES}/{id}");
    assert_eq!(location, s.url(&path));
    // Every field, the optional ones at their defaults.
    for (field, expected) in [
        ("seller_id", json!(s.seller_id())),
        ("product_id", json!(product_id)),
        ("variant_id", json!(variants[0])),
        ("payment_interval", json!("1_month")),
        ("renewal_fee", json!(900)),
        ("renewal_fee_price", json!(900)),
        ("setup_fee", json!(0)),
        ("number_of_payments", json!(0)),
        ("payment_day", Value::Null),
        ("by_percentage", json!(false)),
        ("allow_non_recurring_payment", json!(false)),
        ("min_days_for_cancellation", json!(0)),
        ("allow_changing_day", json!(false)),
        ("extend_on_reenable", json!(false)),
        ("on_first_renewal", json!("full")),
    ] {
        assert_eq!(fee[field], expected, "{field}");
    }
    assert!(fee["created_on"].is_string() && fee["updated_on"].is_string());
    assert_eq!(fee["_links"]["self"]["href"], location);
    assert_eq!(
        fee["_links"]["products:product"]["href"],
        s.url(&format!("/v2/products/{product_id}"))
    );
    assert_eq!(
        fee["_links"]["variants:variant"]["href"],
        s.url(&format!(
            "/v2/products/{product_id}/variants/{}",
            variants[0]
        ))
    );
    assert_eq!(
        fee["_links"]["subscriptions:update_subscription_fee"]["method"],
        "put"
    );
    assert_eq!(
        fee["_links"]["subscriptions:delete_subscription_fee"]["method"],
        "delete"
    );
    let (status, fetched) = get(&s, &path, &token).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(fetched, fee);
    assert_eq!(s.event_count("subscriptions.fees.created").await, 1);
    assert_eq!(last_event(&s, "subscriptions.fees.created").await, fee);
    let (_, variant_link) = get(
        &s,
        &format!("/v2/products/{product_id}/variants/{}", variants[0]),
        &token,
    )
    .await;
    assert_eq!(variant_link["id"], variants[0]);

    // Every settable field given, the product named too.
    let full = create_fee(
        &s,
        &token,
        json!({"variant_id": variants[0], "product_id": product_id, "payment_interval": "12_months",
               "renewal_fee": 10, "by_percentage": true, "setup_fee": 2500,
               "number_of_payments": 1000, "payment_day": 31, "allow_non_recurring_payment": true,
               "min_days_for_cancellation": 365, "allow_changing_day": true,
               "extend_on_reenable": true, "on_first_renewal": "skip"}),
    )
    .await;
    for (field, expected) in [
        ("payment_interval", json!("12_months")),
        ("renewal_fee", json!(10)),
        // 10% of 1005, rounded half up.
        ("renewal_fee_price", json!(101)),
        ("setup_fee", json!(2500)),
        ("number_of_payments", json!(1000)),
        ("payment_day", json!(31)),
        ("by_percentage", json!(true)),
        ("allow_non_recurring_payment", json!(true)),
        ("min_days_for_cancellation", json!(365)),
        ("allow_changing_day", json!(true)),
        ("extend_on_reenable", json!(true)),
        ("on_first_renewal", json!("skip")),
    ] {
        assert_eq!(full[field], expected, "{field}");
    }

    // A change of every settable field.
    let changes = json!({"payment_interval": "3_months", "renewal_fee": 100, "by_percentage": true,
        "setup_fee": 50, "number_of_payments": 6, "payment_day": 15,
        "allow_non_recurring_payment": true, "min_days_for_cancellation": 10,
        "allow_changing_day": true, "extend_on_reenable": true, "on_first_renewal": "prorate",
        "update_purchases_fees": true, "notify_purchases": true});
    let (status, changed) = send(&s, Method::PUT, &path, &token, changes).await;
    assert_eq!(status, StatusCode::OK, "{changed}");
    for (field, expected) in [
        ("payment_interval", json!("3_months")),
        ("renewal_fee", json!(100)),
        ("renewal_fee_price", json!(1005)),
        ("by_percentage", json!(true)),
        ("setup_fee", json!(50)),
        ("number_of_payments", json!(6)),
        ("payment_day", json!(15)),
        ("allow_non_recurring_payment", json!(true)),
        ("min_days_for_cancellation", json!(10)),
        ("allow_changing_day", json!(true)),
        ("extend_on_reenable", json!(true)),
        ("on_first_renewal", json!("prorate")),
        ("variant_id", json!(variants[0])),
    ] {
        assert_eq!(changed[field], expected, "{field}");
    }
    assert!(changed.get("update_purchases_fees").is_none());
    assert_eq!(s.event_count("subscriptions.fees.updated").await, 1);
    assert_eq!(last_event(&s, "subscriptions.fees.updated").await, changed);
    // Null clears the payment day (the start date's day).
    let (status, cleared) =
        send(&s, Method::PUT, &path, &token, json!({"payment_day": null})).await;
    assert_eq!(status, StatusCode::OK, "{cleared}");
    assert_eq!(cleared["payment_day"], Value::Null);
    assert_eq!(s.event_count("subscriptions.fees.updated").await, 2);
    // A body that changes nothing, an empty one too, answers the fee and records nothing.
    for body in [
        json!({}),
        json!({"update_purchases_fees": true, "notify_purchases": true}),
        json!({"renewal_fee": 100}),
    ] {
        let (status, same) = send(&s, Method::PUT, &path, &token, body.clone()).await;
        assert_eq!(status, StatusCode::OK, "{body}: {same}");
        assert_eq!(same, cleared, "{body}");
    }
    let (status, same) = json(s.request(Method::PUT, &path, &token).send().await.unwrap()).await;
    assert_eq!(status, StatusCode::OK, "no body at all: {same}");
    assert_eq!(s.event_count("subscriptions.fees.updated").await, 2);

    // If-Match guards writes.
    let etag = etag_of(&s, &path, &token).await;
    for method in [Method::PUT, Method::DELETE] {
        let stale = s
            .request(method.clone(), &path, &token)
            .header("if-match", "\"stale\"")
            .json(&json!({"setup_fee": 1}))
            .send()
            .await
            .unwrap();
        assert_eq!(stale.status(), StatusCode::PRECONDITION_FAILED, "{method}");
    }
    assert_eq!(s.event_count("subscriptions.fees.updated").await, 2);
    let fresh = s
        .request(Method::PUT, &path, &token)
        .header("if-match", &etag)
        .json(&json!({"setup_fee": 1}))
        .send()
        .await
        .unwrap();
    assert_eq!(fresh.status(), StatusCode::OK);
    assert_eq!(s.event_count("subscriptions.fees.updated").await, 3);
    let etag = etag_of(&s, &path, &token).await;
    let (_, before) = get(&s, &path, &token).await;
    let (status, deleted) = json(
        s.request(Method::DELETE, &path, &token)
            .header("if-match", &etag)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{deleted}");
    assert_eq!(deleted, before, "the fee as it was");
    assert_eq!(last_event(&s, "subscriptions.fees.deleted").await, before);
    assert_eq!(s.event_count("subscriptions.fees.deleted").await, 1);
    let (status, _) = get(&s, &path, &token).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = send(&s, Method::DELETE, &path, &token, json!({})).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

async fn invalid_fields_are_named_and_nothing_is_written(s: TestServer) {
    let token = s.owner_token().await;
    let (product_id, variants) = product(&s, &token, "Tea", &[1000]).await;
    let (other_product, _) = product(&s, &token, "Mate", &[500]).await;
    let refused = |body: Value| {
        let (s, token) = (&s, &token);
        async move {
            let (status, answer) = send(s, Method::POST, FEES, token, body.clone()).await;
            assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}: {answer}");
            error_fields(&answer)
        }
    };
    // Every bad field is named at once.
    assert_eq!(
        refused(
            json!({"variant_id": 999_999, "payment_interval": "1_month", "renewal_fee": -1,
                       "setup_fee": -1, "number_of_payments": 1001, "payment_day": 32,
                       "min_days_for_cancellation": 366})
        )
        .await,
        [
            "renewal_fee",
            "setup_fee",
            "number_of_payments",
            "payment_day",
            "min_days_for_cancellation",
            "variant_id"
        ]
    );
    let base =
        json!({"variant_id": variants[0], "payment_interval": "1_month", "renewal_fee": 100});
    let with = |extra: Value| {
        let mut body = base.clone();
        for (k, v) in extra.as_object().unwrap() {
            body[k] = v.clone();
        }
        body
    };
    for (extra, field) in [
        (json!({"payment_interval": "2_weeks"}), "payment_interval"),
        (json!({"on_first_renewal": "later"}), "on_first_renewal"),
        (
            json!({"renewal_fee": 1_000_000_000_000_001_i64}),
            "renewal_fee",
        ),
        (json!({"setup_fee": 1_000_000_000_000_001_i64}), "setup_fee"),
        (json!({"number_of_payments": -1}), "number_of_payments"),
        (
            json!({"min_days_for_cancellation": -1}),
            "min_days_for_cancellation",
        ),
        (json!({"payment_day": 0}), "payment_day"),
        (
            json!({"by_percentage": true, "renewal_fee": 101}),
            "renewal_fee",
        ),
        (json!({"product_id": other_product}), "product_id"),
        (json!({"product_id": 999_999}), "product_id"),
        (json!({"variant_id": 0}), "variant_id"),
    ] {
        assert_eq!(refused(with(extra.clone())).await, [field], "{extra}");
    }
    // A required field left out is a 400.
    let (status, answer) = send(
        &s,
        Method::POST,
        FEES,
        &token,
        json!({"payment_interval": "1_month", "renewal_fee": 1}),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{answer}");
    assert_eq!(error_fields(&answer), ["variant_id"]);
    assert_eq!(stored_fees(&s).await, 0);
    assert_eq!(all_fee_events(&s).await, 0);

    // A percentage up to 100 is the whole price at most.
    let whole = create_fee(
        &s,
        &token,
        with(json!({"product_id": product_id, "by_percentage": true, "renewal_fee": 100})),
    )
    .await;
    assert_eq!(whole["renewal_fee_price"], 1000);
    let fee = create_fee(&s, &token, base.clone()).await;
    let path = format!("{FEES}/{}", fee["id"]);
    let events = all_fee_events(&s).await;
    let (_, before) = get(&s, &path, &token).await;
    for (body, fields) in [
        (
            json!({"variant_id": variants[0], "product_id": product_id, "seller_id": s.seller_id()}),
            vec!["seller_id", "product_id", "variant_id"],
        ),
        (
            json!({"renewal_fee": null, "payment_interval": null, "by_percentage": null,
                   "on_first_renewal": null}),
            vec![
                "payment_interval",
                "renewal_fee",
                "by_percentage",
                "on_first_renewal",
            ],
        ),
        (
            json!({"renewal_fee": 700, "by_percentage": true}),
            vec!["renewal_fee"],
        ),
        (
            json!({"by_percentage": true, "renewal_fee": 101}),
            vec!["renewal_fee"],
        ),
        (
            json!({"setup_fee": -5, "number_of_payments": 5000}),
            vec!["setup_fee", "number_of_payments"],
        ),
        (
            json!({"on_first_renewal": "never"}),
            vec!["on_first_renewal"],
        ),
    ] {
        let (status, answer) = send(&s, Method::PUT, &path, &token, body.clone()).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}: {answer}");
        assert_eq!(error_fields(&answer), fields, "{body}");
    }
    // By percentage once the fee is one.
    let (status, answer) = send(
        &s,
        Method::PUT,
        &path,
        &token,
        json!({"by_percentage": true}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "100 is a percentage: {answer}");
    assert_eq!(answer["renewal_fee_price"], 1000);
    let (status, answer) = send(&s, Method::PUT, &path, &token, json!({"renewal_fee": 150})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{answer}");
    assert_eq!(error_fields(&answer), ["renewal_fee"]);
    assert_eq!(all_fee_events(&s).await, events + 1);
    let (_, after) = get(&s, &path, &token).await;
    assert_eq!(after["renewal_fee"], before["renewal_fee"]);
    assert_eq!(after["by_percentage"], true);
}

async fn the_payment_day_follows_the_interval(s: TestServer) {
    let token = s.owner_token().await;
    let (_, variants) = product(&s, &token, "Weekly box", &[2000]).await;
    let fee = |interval: &str, day: i64| {
        json!({"variant_id": variants[0], "payment_interval": interval, "renewal_fee": 100,
               "payment_day": day})
    };
    // A weekly fee renews on an ISO weekday, the others on a day of the month.
    for day in [1, 7] {
        create_fee(&s, &token, fee("1_week", day)).await;
    }
    for interval in ["1_month", "3_months", "6_months", "12_months"] {
        for day in [1, 8, 31] {
            create_fee(&s, &token, fee(interval, day)).await;
        }
    }
    for (interval, day) in [
        ("1_week", 0),
        ("1_week", 8),
        ("1_month", 32),
        ("6_months", 0),
    ] {
        let (status, answer) = send(&s, Method::POST, FEES, &token, fee(interval, day)).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{interval} {day}");
        assert_eq!(error_fields(&answer), ["payment_day"]);
    }
    let (_, answer) = send(&s, Method::POST, FEES, &token, fee("1_week", 8)).await;
    assert_eq!(
        answer["_embedded"]["errors"][0]["messages"][0],
        "must be an integer from 1 to 7 for a 1_week interval"
    );
    let events = all_fee_events(&s).await;

    // A new interval re-checks the current day.
    let monthly = create_fee(&s, &token, fee("1_month", 20)).await;
    let path = format!("{FEES}/{}", monthly["id"]);
    let (status, answer) = send(
        &s,
        Method::PUT,
        &path,
        &token,
        json!({"payment_interval": "1_week"}),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{answer}");
    assert_eq!(error_fields(&answer), ["payment_day"]);
    let (status, weekly) = send(
        &s,
        Method::PUT,
        &path,
        &token,
        json!({"payment_interval": "1_week", "payment_day": 5}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{weekly}");
    assert_eq!(weekly["payment_interval"], "1_week");
    assert_eq!(weekly["payment_day"], 5);
    let (status, answer) = send(&s, Method::PUT, &path, &token, json!({"payment_day": 9})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{answer}");
    // Back to monthly, a weekday is a day of the month too; a day-less fee takes any interval.
    let (status, _) = send(
        &s,
        Method::PUT,
        &path,
        &token,
        json!({"payment_interval": "6_months"}),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let (status, answer) = send(
        &s,
        Method::PUT,
        &path,
        &token,
        json!({"payment_day": null, "payment_interval": "1_week"}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["payment_day"], Value::Null);
    // The created fee and its three changes.
    assert_eq!(all_fee_events(&s).await, events + 4);
}

async fn the_renewal_price_follows_the_variant_and_lists_filter_and_sort(s: TestServer) {
    let token = s.owner_token().await;
    let (product_a, a) = product(&s, &token, "Beans", &[1000, 3000]).await;
    let (product_b, b) = product(&s, &token, "Filters", &[400]).await;
    let by_percentage = create_fee(
        &s,
        &token,
        json!({"variant_id": a[0], "payment_interval": "1_month", "renewal_fee": 25,
               "by_percentage": true}),
    )
    .await;
    assert_eq!(by_percentage["renewal_fee_price"], 250);
    let fixed = create_fee(
        &s,
        &token,
        json!({"variant_id": a[1], "payment_interval": "1_week", "renewal_fee": 2500}),
    )
    .await;
    let other = create_fee(
        &s,
        &token,
        json!({"variant_id": b[0], "payment_interval": "12_months", "renewal_fee": 10,
               "by_percentage": true}),
    )
    .await;
    let ids: Vec<i64> = [&by_percentage, &fixed, &other].map(id_of).to_vec();
    let (_, list) = get(&s, FEES, &token).await;
    assert_eq!(item_ids(&list), ids);
    assert_eq!(list["per_page"], 50, "subscription lists default to 50");
    assert_eq!(list["total_items"], 3);
    let prices: Vec<&Value> = list["_embedded"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| &f["renewal_fee_price"])
        .collect();
    assert_eq!(prices, [&json!(250), &json!(2500), &json!(40)]);

    // A variant's new price is the percentage fee's new renewal price, in GET and lists.
    let (status, _) = send(
        &s,
        Method::PUT,
        &format!("/v2/products/{product_a}/variants/{}", a[0]),
        &token,
        json!({"price": 1999}),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let (_, list) = get(&s, &format!("{FEES}?variant_id={}", a[0]), &token).await;
    assert_eq!(list["_embedded"]["items"][0]["renewal_fee_price"], 500);
    let (_, fetched) = get(&s, &format!("{FEES}/{}", ids[0]), &token).await;
    assert_eq!(fetched["renewal_fee_price"], 500);

    // Filters and sorts.
    for (query, expected) in [
        (format!("product_id={product_a}"), vec![ids[0], ids[1]]),
        (format!("product_id={product_b}"), vec![ids[2]]),
        (
            format!("product_id={product_a},{product_b}&sort=id.desc"),
            vec![ids[2], ids[1], ids[0]],
        ),
        (format!("variant_id={}", a[1]), vec![ids[1]]),
        (
            "payment_interval=1_week,12_months".to_owned(),
            vec![ids[1], ids[2]],
        ),
        ("payment_interval=3_months".to_owned(), vec![]),
        (format!("seller_ids={}", s.seller_id()), ids.clone()),
        ("seller_ids=999999".to_owned(), vec![]),
        (
            "created_on.gte=2000-01-01&sort=created_on.desc".to_owned(),
            vec![ids[2], ids[1], ids[0]],
        ),
        ("created_on.lte=2000-01-01".to_owned(), vec![]),
        (
            "updated_on.gte=2000-01-01&sort=updated_on.asc".to_owned(),
            ids.clone(),
        ),
        ("per_page=2&page=2".to_owned(), vec![ids[2]]),
    ] {
        let (status, list) = get(&s, &format!("{FEES}?{query}"), &token).await;
        assert_eq!(status, StatusCode::OK, "{query}: {list}");
        assert_eq!(item_ids(&list), expected, "{query}");
    }
    for query in [
        "payment_interval=2_weeks",
        "product_id=x",
        "sort=renewal_fee.asc",
    ] {
        let (status, _) = get(&s, &format!("{FEES}?{query}"), &token).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{query}");
    }

    // A page's prices are read at once: more fees on the page cost no more queries.
    let three = s.queries_of(FEES, &token).await;
    for variant in [a[0], a[1], b[0]] {
        create_fee(
            &s,
            &token,
            json!({"variant_id": variant, "payment_interval": "1_month", "renewal_fee": 5,
                   "by_percentage": true}),
        )
        .await;
    }
    assert_eq!(s.queries_of(FEES, &token).await, three);
}

async fn other_accounts_see_nothing_and_readers_get_no_write_links(s: TestServer) {
    let token = s.owner_token().await;
    let (_, variants) = product(&s, &token, "Private", &[1000]).await;
    let fee = create_fee(
        &s,
        &token,
        json!({"variant_id": variants[0], "payment_interval": "1_month", "renewal_fee": 100}),
    )
    .await;
    let path = format!("{FEES}/{}", fee["id"]);
    let other = s.seed_another_account().await;
    let stranger = access_token(
        s.password_grant(
            (
                other.app.client_id.as_str(),
                other.app.client_secret.as_str(),
            ),
            &other.user.email,
            &other.user.password,
            &[],
        )
        .await,
    )
    .await;
    let events = all_fee_events(&s).await;
    // Another account's fee is not found, whatever the method.
    for (method, body) in [
        (Method::GET, json!({})),
        (Method::PUT, json!({"renewal_fee": 1})),
        (Method::DELETE, json!({})),
    ] {
        let (status, _) = send(&s, method.clone(), &path, &stranger, body).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{method}");
    }
    let (_, theirs) = get(&s, FEES, &stranger).await;
    assert_eq!(theirs["total_items"], 0);
    // Another account's variant is refused as one that does not exist.
    let (status, answer) = send(
        &s,
        Method::POST,
        FEES,
        &stranger,
        json!({"variant_id": variants[0], "payment_interval": "1_month", "renewal_fee": 1}),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{answer}");
    let (_, unknown) = send(
        &s,
        Method::POST,
        FEES,
        &stranger,
        json!({"variant_id": 999_999, "payment_interval": "1_month", "renewal_fee": 1}),
    )
    .await;
    assert_eq!(
        answer["_embedded"], unknown["_embedded"],
        "tells nothing more"
    );
    assert_eq!(error_fields(&answer), ["variant_id"]);
    assert_eq!(all_fee_events(&s).await, events);
    assert_eq!(stored_fees(&s).await, 1);
    let (_, fetched) = get(&s, &path, &token).await;
    assert_eq!(fetched, fee);

    // A reader sees fees without write links, and cannot write.
    let reader = s
        .password_token(
            &s.demo.user.email,
            &s.demo.user.password,
            Some("products.read"),
        )
        .await;
    let (status, seen) = get(&s, &path, &reader).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(rels_of(&seen), ["products:product", "variants:variant"]);
    let (_, list) = get(&s, FEES, &reader).await;
    assert_eq!(list["total_items"], 1);
    for (method, target, body) in [
        (
            Method::POST,
            FEES,
            json!({"variant_id": variants[0], "payment_interval": "1_month", "renewal_fee": 1}),
        ),
        (Method::PUT, path.as_str(), json!({"renewal_fee": 1})),
        (Method::DELETE, path.as_str(), json!({})),
    ] {
        let (status, _) = send(&s, method.clone(), target, &reader, body).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{method}");
    }
    let (_, root) = get(&s, "/v2", &reader).await;
    let root_rels: Vec<String> = rels_of(&root)
        .into_iter()
        .filter(|r| r.starts_with("subscriptions:"))
        .collect();
    assert_eq!(
        root_rels,
        [
            "subscriptions:subscription_fee",
            "subscriptions:subscription_fees"
        ]
    );
    let (_, root) = get(&s, "/v2", &token).await;
    assert_eq!(
        root["_links"]["subscriptions:create_subscription_fee"]["method"],
        "post"
    );
    let template = root["_links"]["subscriptions:subscription_fees"]["href"]
        .as_str()
        .unwrap();
    for param in [
        "product_id",
        "variant_id",
        "payment_interval",
        "seller_ids",
        "per_page",
    ] {
        assert!(template.contains(param), "{template} declares {param}");
    }
    // No scope to read the catalog, no fees.
    let orders_only = s
        .password_token(
            &s.demo.user.email,
            &s.demo.user.password,
            Some("orders.read"),
        )
        .await;
    let (status, _) = get(&s, FEES, &orders_only).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
}

async fn a_fee_goes_with_its_variant_and_its_product(s: TestServer) {
    let token = s.owner_token().await;
    let (product_id, variants) = product(&s, &token, "Gone", &[100, 200]).await;
    let fee = |variant: i64| json!({"variant_id": variant, "payment_interval": "1_month", "renewal_fee": 1});
    let first = create_fee(&s, &token, fee(variants[0])).await;
    let second = create_fee(&s, &token, fee(variants[1])).await;
    let (status, _) = send(
        &s,
        Method::DELETE,
        &format!("/v2/products/{product_id}/variants/{}", variants[0]),
        &token,
        json!({}),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = get(&s, &format!("{FEES}/{}", first["id"]), &token).await;
    assert_eq!(
        status,
        StatusCode::NOT_FOUND,
        "the variant's fee went with it"
    );
    let (_, list) = get(&s, FEES, &token).await;
    assert_eq!(item_ids(&list), [id_of(&second)]);
    let (status, _) = send(
        &s,
        Method::DELETE,
        &format!("/v2/products/{product_id}"),
        &token,
        json!({}),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(stored_fees(&s).await, 0, "the product's fees went with it");
    assert_eq!(s.event_count("subscriptions.fees.deleted").await, 0);
}

/// A fee created while its variant is deleted either comes first and goes with the
/// variant, or comes second and is refused: no fee outlives its variant.
async fn a_fee_written_while_its_variant_goes_is_never_left_behind(s: TestServer) {
    let token = s.owner_token().await;
    for round in 0..5 {
        let (product_id, variants) =
            product(&s, &token, &format!("Race{round}"), &[100, 200]).await;
        let variant_path = format!("/v2/products/{product_id}/variants/{}", variants[0]);
        let body =
            json!({"variant_id": variants[0], "payment_interval": "1_month", "renewal_fee": 1});
        let (created, deleted) = tokio::join!(
            send(&s, Method::POST, FEES, &token, body),
            send(&s, Method::DELETE, &variant_path, &token, json!({})),
        );
        assert_eq!(deleted.0, StatusCode::OK, "{}", deleted.1);
        match created.0 {
            StatusCode::CREATED => {}
            StatusCode::UNPROCESSABLE_ENTITY => {
                assert_eq!(error_fields(&created.1), ["variant_id"]);
            }
            other => panic!("{other}: {}", created.1),
        }
        assert_eq!(stored_fees(&s).await, 0, "round {round}");
    }
}
