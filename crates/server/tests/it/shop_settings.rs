//! A shop's shipping tables and exchange rates: every field, the rules they must meet
//! with nothing written when refused, lists, events, who sees and changes them.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::on_both_backends;
use crate::support::{TestServer, assert_error, error_fields, item_ids};

on_both_backends!(
    shipping_tables_are_created_listed_changed_and_deleted,
    invalid_shipping_tables_are_refused_and_write_nothing,
    exchange_rates_are_kept_one_per_currency_as_exact_decimals,
    other_accounts_and_missing_scopes_see_and_change_no_settings,
);

fn tables_path(s: &TestServer) -> String {
    format!("/v2/shops/{}/shipping_tables", s.shop_id())
}

fn rates_path(s: &TestServer) -> String {
    format!("/v2/shops/{}/exchange_rates", s.shop_id())
}

async fn post(s: &TestServer, token: &str, path: &str, body: Value) -> (StatusCode, Value) {
    s.call(Method::POST, path, token, Some(body)).await
}

async fn created(s: &TestServer, token: &str, path: &str, body: Value) -> Value {
    let (status, made) = post(s, token, path, body).await;
    assert_eq!(status, StatusCode::CREATED, "{made}");
    made
}

fn self_href(resource: &Value) -> String {
    let href = resource["_links"]["self"]["href"]
        .as_str()
        .expect("a self link");
    href[href.find("/v2/").expect("an API link")..].to_owned()
}

async fn total_at(s: &TestServer, token: &str, path: &str) -> i64 {
    let (status, list) = s.get_json(path, token).await;
    assert_eq!(status, StatusCode::OK, "{list}");
    list["total_items"].as_i64().expect("a total")
}

async fn shipping_tables_are_created_listed_changed_and_deleted(s: TestServer) {
    let token = s.owner_token().await;
    let path = tables_path(&s);
    let express = created(
        &s,
        &token,
        &path,
        json!({"name": " Express ", "method": "weight",
               "zone": [{"country_code": "CL", "regions": [" Metropolitana ", "Valparaíso"]},
                        {"country_code": "AR"}],
               "rates": [{"min": 1000, "price": 900}, {"min": 0, "max": 1000, "price": 500}],
               "free_over": 50000}),
    )
    .await;
    assert_eq!(express["name"], "Express");
    assert_eq!(express["shop_id"], s.shop_id());
    assert_eq!(express["method"], "weight");
    assert_eq!(
        express["zone"],
        json!([{"country_code": "CL", "regions": ["Metropolitana", "Valparaíso"]},
               {"country_code": "AR", "regions": []}])
    );
    assert_eq!(
        express["rates"],
        json!([{"min": 0, "max": 1000, "price": 500}, {"min": 1000, "max": null, "price": 900}]),
        "rates are kept in the order of their ranges"
    );
    assert_eq!(express["free_over"], 50000);
    assert_eq!(express["enabled"], true);
    assert_eq!(express["position"], 1);
    for rel in [
        "shops:update_shipping_table",
        "shops:delete_shipping_table",
        "shops:shop",
    ] {
        assert!(express["_links"][rel].is_object(), "{rel}: {express}");
    }
    let pickup = created(
        &s,
        &token,
        &path,
        json!({"name": "Pickup", "method": "flat", "rates": [{"price": 0}], "enabled": false}),
    )
    .await;
    assert_eq!(pickup["position"], 2, "a new table goes last");
    assert_eq!(pickup["zone"], json!([]));
    let first = created(
        &s,
        &token,
        &path,
        json!({"name": "By total", "method": "total", "position": 1,
               "rates": [{"min": 0, "max": 10000, "price": 700}, {"min": 10000, "max": 20000, "price": 300}]}),
    )
    .await;
    assert_eq!(s.event_count("shops.shipping_tables.created").await, 3);

    // Listed by position (ties by id), filtered by state and method.
    let (_, list) = s.get_json(&path, &token).await;
    assert_eq!(
        item_ids(&list),
        [&express, &first, &pickup].map(|t| t["id"].as_i64().unwrap())
    );
    let (_, enabled) = s.get_json(&format!("{path}?enabled=false"), &token).await;
    assert_eq!(item_ids(&enabled), [pickup["id"].as_i64().unwrap()]);
    let (_, by_method) = s
        .get_json(&format!("{path}?method=flat,total&sort=name.desc"), &token)
        .await;
    assert_eq!(
        item_ids(&by_method),
        [&pickup, &first].map(|t| t["id"].as_i64().unwrap())
    );
    let (status, refused) = s.get_json(&format!("{path}?method=drone"), &token).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    assert_eq!(error_fields(&refused), ["method"]);

    // The shop links to its tables.
    let (_, shop) = s
        .get_json(&format!("/v2/shops/{}", s.shop_id()), &token)
        .await;
    assert!(
        shop["_links"]["shops:shipping_tables"].is_object(),
        "{shop}"
    );
    assert!(shop["_links"]["shops:create_shipping_table"].is_object());

    // Changes: checked as a whole, written once, an unchanged write records nothing.
    let href = self_href(&express);
    let (status, changed) = s
        .call(
            Method::PUT,
            &href,
            &token,
            Some(
                json!({"zone": null, "free_over": null, "rates": [{"min": 0, "price": 650}],
                         "name": "Express 24h"}),
            ),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{changed}");
    assert_eq!(changed["zone"], json!([]));
    assert_eq!(changed["free_over"], Value::Null);
    assert_eq!(changed["name"], "Express 24h");
    let (status, again) = s
        .call(
            Method::PUT,
            &href,
            &token,
            Some(json!({"name": "Express 24h"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{again}");
    assert_eq!(s.event_count("shops.shipping_tables.updated").await, 1);
    let (status, refused) = s
        .call(
            Method::PUT,
            &href,
            &token,
            Some(json!({"method": "flat", "name": null})),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    assert_eq!(error_fields(&refused), ["name"]);
    let (_, read) = s.get_json(&href, &token).await;
    assert_eq!(read["method"], "weight", "a refused change writes nothing");

    // A table is found only under its own shop.
    let elsewhere = href.replace(
        &format!("/shops/{}/", s.shop_id()),
        &format!("/shops/{}/", s.shop_id() + 1000),
    );
    let answer = s.get_json(&elsewhere, &token).await;
    assert_error(&answer, StatusCode::NOT_FOUND, "not_found");

    let (status, deleted) = s.call(Method::DELETE, &href, &token, None).await;
    assert_eq!(status, StatusCode::OK, "{deleted}");
    assert_eq!(deleted["name"], "Express 24h");
    let answer = s.get_json(&href, &token).await;
    assert_error(&answer, StatusCode::NOT_FOUND, "not_found");
    assert_eq!(s.event_count("shops.shipping_tables.deleted").await, 1);
    assert_eq!(total_at(&s, &token, &path).await, 2);
}

async fn invalid_shipping_tables_are_refused_and_write_nothing(s: TestServer) {
    let token = s.owner_token().await;
    let path = tables_path(&s);
    for (body, fields) in [
        (
            json!({"name": "Overlap", "method": "weight",
                   "rates": [{"min": 0, "max": 1000, "price": 1}, {"min": 999, "max": 2000, "price": 2}]}),
            vec!["rates[1].min"],
        ),
        (
            json!({"name": "Open", "method": "total",
                   "rates": [{"min": 500, "price": 1}, {"min": 9000, "max": 9001, "price": 2}]}),
            vec!["rates[1].min"],
        ),
        (
            json!({"name": "Flat twice", "method": "flat", "rates": [{"price": 1}, {"price": 2}]}),
            vec!["rates"],
        ),
        (
            json!({"name": "Flat range", "method": "flat", "rates": [{"min": 5, "price": 1}]}),
            vec!["rates[0].min"],
        ),
        (
            json!({"name": "", "method": "weight", "free_over": -1,
                   "zone": [{"country_code": "cl"}, {"country_code": "AR", "regions": [" "]},
                            {"country_code": "AR"}],
                   "rates": [{"min": -1, "max": 5, "price": -3}, {"min": 10, "max": 10, "price": 1}],
                   "position": 0}),
            vec![
                "free_over",
                "name",
                "position",
                "rates[0].min",
                "rates[0].price",
                "rates[1].max",
                "zone[0].country_code",
                "zone[1].regions[0]",
                "zone[2].country_code",
            ],
        ),
        (
            json!({"name": "No rates", "method": "weight", "rates": []}),
            vec!["rates"],
        ),
        (
            json!({"name": "Huge", "method": "total",
                   "rates": [{"min": 0, "max": 9_223_372_036_854_775_807_i64, "price": 1}]}),
            vec!["rates[0].max"],
        ),
        (
            json!({"name": "Drone", "method": "drone", "rates": [{"price": 1}]}),
            vec!["method"],
        ),
    ] {
        let (status, refused) = post(&s, &token, &path, body.clone()).await;
        assert_eq!(
            status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{body}: {refused}"
        );
        let mut named = error_fields(&refused);
        named.sort();
        assert_eq!(named, fields, "{body}: {refused}");
    }
    let (status, _) = s
        .send_raw(
            Method::POST,
            &path,
            &token,
            "application/json",
            "{\"name\": ",
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, refused) = post(&s, &token, &path, json!({"name": "No method"})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{refused}");
    assert!(
        error_fields(&refused).contains(&"method".to_owned()),
        "{refused}"
    );
    assert_eq!(total_at(&s, &token, &path).await, 0);
    assert_eq!(s.event_count("shops.shipping_tables.created").await, 0);
}

async fn exchange_rates_are_kept_one_per_currency_as_exact_decimals(s: TestServer) {
    let token = s.owner_token().await;
    let path = rates_path(&s);
    let clp = created(
        &s,
        &token,
        &path,
        json!({"to_currency": "CLP", "rate": "950.250000"}),
    )
    .await;
    assert_eq!(clp["from_currency"], "USD");
    assert_eq!(clp["to_currency"], "CLP");
    assert_eq!(clp["rate"], "950.25", "shown as the shortest decimal");
    assert_eq!(clp["shop_id"], s.shop_id());
    let eur = created(
        &s,
        &token,
        &path,
        json!({"to_currency": "EUR", "rate": "0.000001"}),
    )
    .await;
    assert_eq!(eur["rate"], "0.000001");
    assert_eq!(s.event_count("shops.exchange_rates.created").await, 2);

    for (body, field) in [
        (json!({"to_currency": "CLP", "rate": "900"}), "to_currency"),
        (json!({"to_currency": "USD", "rate": "1"}), "to_currency"),
        (json!({"to_currency": "XYZ", "rate": "1"}), "to_currency"),
        (json!({"to_currency": "GBP", "rate": "0"}), "rate"),
        (json!({"to_currency": "GBP", "rate": "1.0000001"}), "rate"),
        (json!({"to_currency": "GBP", "rate": "-2"}), "rate"),
        (json!({"to_currency": "GBP", "rate": "1e3"}), "rate"),
        (json!({"to_currency": "GBP", "rate": "10000000000"}), "rate"),
        (json!({"to_currency": "GBP", "rate": 0.8}), "rate"),
    ] {
        let (status, refused) = post(&s, &token, &path, body.clone()).await;
        assert_eq!(
            status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{body}: {refused}"
        );
        assert_eq!(error_fields(&refused), [field], "{body}: {refused}");
    }
    assert_eq!(total_at(&s, &token, &path).await, 2);

    let (_, list) = s.get_json(&format!("{path}?to_currency=EUR"), &token).await;
    assert_eq!(item_ids(&list), [eur["id"].as_i64().unwrap()]);
    let (_, list) = s.get_json(&path, &token).await;
    assert_eq!(
        item_ids(&list),
        [&clp, &eur].map(|r| r["id"].as_i64().unwrap()),
        "sorted by currency"
    );
    let (status, refused) = s
        .get_json(&format!("{path}?to_currency=euro"), &token)
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    assert_eq!(error_fields(&refused), ["to_currency"]);

    let href = self_href(&clp);
    let (status, changed) = s
        .call(Method::PUT, &href, &token, Some(json!({"rate": "1000.5"})))
        .await;
    assert_eq!(status, StatusCode::OK, "{changed}");
    assert_eq!(changed["rate"], "1000.5");
    let (status, refused) = s
        .call(Method::PUT, &href, &token, Some(json!({"rate": "abc"})))
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    let (_, read) = s.get_json(&href, &token).await;
    assert_eq!(read["rate"], "1000.5");
    assert_eq!(s.event_count("shops.exchange_rates.updated").await, 1);
    let (status, _) = s.call(Method::DELETE, &href, &token, None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(s.event_count("shops.exchange_rates.deleted").await, 1);
    // The currency is free again.
    created(
        &s,
        &token,
        &path,
        json!({"to_currency": "CLP", "rate": "940"}),
    )
    .await;
}

async fn other_accounts_and_missing_scopes_see_and_change_no_settings(s: TestServer) {
    let token = s.owner_token().await;
    let table = created(
        &s,
        &token,
        &tables_path(&s),
        json!({"name": "Standard", "method": "flat", "rates": [{"price": 500}]}),
    )
    .await;
    let rate = created(
        &s,
        &token,
        &rates_path(&s),
        json!({"to_currency": "CLP", "rate": "950"}),
    )
    .await;
    let (table_href, rate_href) = (self_href(&table), self_href(&rate));
    let other = s.seed_another_account().await;
    let intruder = s.owner_token_of(&other).await;
    let writes = |tables: String, rates: String| {
        vec![
            (Method::GET, tables.clone(), None),
            (
                Method::POST,
                tables,
                Some(json!({"name": "Mine", "method": "flat", "rates": [{"price": 1}]})),
            ),
            (Method::GET, table_href.clone(), None),
            (
                Method::PUT,
                table_href.clone(),
                Some(json!({"name": "Stolen"})),
            ),
            (Method::DELETE, table_href.clone(), None),
            (Method::GET, rates.clone(), None),
            (
                Method::POST,
                rates,
                Some(json!({"to_currency": "EUR", "rate": "1"})),
            ),
            (Method::GET, rate_href.clone(), None),
            (Method::PUT, rate_href.clone(), Some(json!({"rate": "1"}))),
            (Method::DELETE, rate_href.clone(), None),
        ]
    };
    for (method, path, body) in writes(tables_path(&s), rates_path(&s)) {
        let answer = s.call(method.clone(), &path, &intruder, body).await;
        assert_error(&answer, StatusCode::NOT_FOUND, "not_found");
    }
    let reader = s
        .password_token(
            &s.demo.user.email,
            &s.demo.user.password,
            Some("shops.read"),
        )
        .await;
    let (_, read) = s.get_json(&table_href, &reader).await;
    assert_eq!(read["name"], "Standard");
    assert!(read["_links"]["shops:update_shipping_table"].is_null());
    for (method, path, body) in writes(tables_path(&s), rates_path(&s)) {
        if method == Method::GET {
            continue;
        }
        let answer = s.call(method.clone(), &path, &reader, body).await;
        assert_error(&answer, StatusCode::FORBIDDEN, "insufficient_scope");
    }
    let no_shops = s
        .password_token(
            &s.demo.user.email,
            &s.demo.user.password,
            Some("orders.read"),
        )
        .await;
    let answer = s.get_json(&tables_path(&s), &no_shops).await;
    assert_error(&answer, StatusCode::FORBIDDEN, "insufficient_scope");
    let (_, table) = s.get_json(&table_href, &token).await;
    assert_eq!(table["name"], "Standard");
    let (_, rate) = s.get_json(&rate_href, &token).await;
    assert_eq!(rate["rate"], "950");
}
