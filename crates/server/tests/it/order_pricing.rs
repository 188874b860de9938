//! Orders priced with the shop's settings: shipping from the table the order names (422
//! when it does not apply to the address or the parcel), another currency through the
//! shop's exchange rate (kept on the order), placement pricing the order one last time,
//! and placed orders untouched by later changes to the catalog, tables and rates.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::on_both_backends;
use crate::support::{TestServer, error_fields, item_ids};

on_both_backends!(
    shipping_tables_price_the_shipping_of_the_orders_naming_them,
    orders_in_another_currency_are_converted_and_keep_their_rate,
    placing_prices_the_order_once_more_and_later_changes_leave_it_alone,
    orders_are_found_by_the_products_they_sell,
);

/// A product with one variant of `weight` grams at `price`; answers `(product, variant)`.
async fn variant(s: &TestServer, token: &str, sku: &str, price: i64, weight: i64) -> (i64, i64) {
    let product = s
        .create_product(
            token,
            json!({"title": format!("Item {sku}"), "status": "visible",
                   "variants": [{"sku": sku, "price": price, "stock": 100, "weight_in_grams": weight}]}),
        )
        .await;
    (
        product["id"].as_i64().unwrap(),
        product["_embedded"]["variants"][0]["id"].as_i64().unwrap(),
    )
}

async fn created(s: &TestServer, token: &str, path: &str, body: Value) -> Value {
    let (status, made) = s.call(Method::POST, path, token, Some(body)).await;
    assert_eq!(status, StatusCode::CREATED, "{path}: {made}");
    made
}

async fn table(s: &TestServer, token: &str, body: Value) -> i64 {
    let path = format!("/v2/shops/{}/shipping_tables", s.shop_id());
    created(s, token, &path, body).await["id"].as_i64().unwrap()
}

async fn rate(s: &TestServer, token: &str, to: &str, rate: &str) -> Value {
    let path = format!("/v2/shops/{}/exchange_rates", s.shop_id());
    created(s, token, &path, json!({"to_currency": to, "rate": rate})).await
}

async fn post_order(s: &TestServer, token: &str, body: Value) -> (StatusCode, Value) {
    let path = format!("/v2/shops/{}/orders", s.shop_id());
    s.call(Method::POST, &path, token, Some(body)).await
}

async fn put_order(s: &TestServer, token: &str, order: &Value, body: Value) -> (StatusCode, Value) {
    let path = format!("/v2/orders/{}", order["id"]);
    s.call(Method::PUT, &path, token, Some(body)).await
}

async fn move_order(
    s: &TestServer,
    token: &str,
    order: &Value,
    action: &str,
) -> (StatusCode, Value) {
    let path = format!("/v2/orders/{}/{action}", order["id"]);
    s.call(Method::PUT, &path, token, None).await
}

async fn read_order(s: &TestServer, token: &str, order: &Value) -> Value {
    let (status, read) = s
        .get_json(&format!("/v2/orders/{}", order["id"]), token)
        .await;
    assert_eq!(status, StatusCode::OK, "{read}");
    read
}

fn totals(order: &Value) -> [i64; 5] {
    [
        "net_total",
        "shipping_total",
        "discount_total",
        "tax_total",
        "total",
    ]
    .map(|f| order[f].as_i64().unwrap_or_else(|| panic!("{f}: {order}")))
}

fn address(country: &str, region: &str) -> Value {
    json!({"street": "Av. Italia 1", "region": region, "country_code": country})
}

async fn shipping_tables_price_the_shipping_of_the_orders_naming_them(s: TestServer) {
    let token = s.owner_token().await;
    let (_, mug) = variant(&s, &token, "MUG", 1000, 400).await;
    let standard = table(
        &s,
        &token,
        json!({"name": "Standard", "method": "weight",
               "zone": [{"country_code": "CL", "regions": ["Metropolitana"]}],
               "rates": [{"min": 0, "max": 1000, "price": 500}, {"min": 1000, "max": 3000, "price": 900}],
               "free_over": 5000}),
    )
    .await;
    let world = table(
        &s,
        &token,
        json!({"name": "World", "method": "flat", "rates": [{"price": 2500}]}),
    )
    .await;
    let disabled = table(
        &s,
        &token,
        json!({"name": "Off", "method": "flat", "rates": [{"price": 1}], "enabled": false}),
    )
    .await;

    let (status, order) = post_order(
        &s,
        &token,
        json!({"lines": [{"variant_id": mug, "quantity": 2}], "shipping_table_id": standard,
               "shipping_address": address("CL", "metropolitana")}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{order}");
    assert_eq!(order["weight_in_grams"], 800);
    assert_eq!(order["shipping_table_id"], standard);
    assert_eq!(order["shipping_description"], "Standard");
    assert_eq!(totals(&order), [2000, 500, 0, 0, 2500]);
    assert_eq!(order["exchange_rate"], Value::Null);

    // Heavier: the next range; at free_over: free.
    let (status, heavier) = put_order(
        &s,
        &token,
        &order,
        json!({"lines": [{"variant_id": mug, "quantity": 3}]}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{heavier}");
    assert_eq!(totals(&heavier), [3000, 900, 0, 0, 3900]);
    let (_, free) = put_order(
        &s,
        &token,
        &order,
        json!({"lines": [{"variant_id": mug, "quantity": 5}]}),
    )
    .await;
    assert_eq!(totals(&free), [5000, 0, 0, 0, 5000]);

    // Refusals name the table and change nothing: outside the zone, beyond the ranges,
    // a disabled table, another shop's, shipping given with a table.
    let before = read_order(&s, &token, &order).await;
    for (body, fields) in [
        (
            json!({"shipping_address": address("AR", "Buenos Aires")}),
            vec!["shipping_table_id"],
        ),
        (json!({"shipping_address": null}), vec!["shipping_table_id"]),
        (
            json!({"lines": [{"variant_id": mug, "quantity": 8}]}),
            vec!["shipping_table_id"],
        ),
        (
            json!({"shipping_table_id": disabled}),
            vec!["shipping_table_id"],
        ),
        (
            json!({"shipping_table_id": 999_999}),
            vec!["shipping_table_id"],
        ),
        (json!({"shipping_total": 10}), vec!["shipping_total"]),
        (
            json!({"shipping_table_id": world, "shipping_total": 10}),
            vec!["shipping_total"],
        ),
    ] {
        let (status, refused) = put_order(&s, &token, &order, body.clone()).await;
        assert_eq!(
            status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{body}: {refused}"
        );
        assert_eq!(error_fields(&refused), fields, "{body}: {refused}");
    }
    assert_eq!(read_order(&s, &token, &order).await, before);

    // Another table; then none: shipping set by hand.
    let (_, by_world) = put_order(
        &s,
        &token,
        &order,
        json!({"shipping_table_id": world, "shipping_address": address("AR", "Buenos Aires")}),
    )
    .await;
    assert_eq!(by_world["shipping_description"], "World");
    assert_eq!(totals(&by_world), [5000, 2500, 0, 0, 7500]);
    let (_, by_hand) = put_order(
        &s,
        &token,
        &order,
        json!({"shipping_table_id": null, "shipping_total": 1200}),
    )
    .await;
    assert_eq!(by_hand["shipping_table_id"], Value::Null);
    assert_eq!(by_hand["shipping_description"], Value::Null);
    assert_eq!(totals(&by_hand), [5000, 1200, 0, 0, 6200]);

    // A new order naming a table it cannot use writes nothing.
    let (_, list) = s.get_json("/v2/orders", &token).await;
    let (status, refused) = post_order(
        &s,
        &token,
        json!({"lines": [{"variant_id": mug}], "shipping_table_id": standard,
               "shipping_total": 5, "shipping_address": address("PE", "Lima")}),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    let mut fields = error_fields(&refused);
    fields.sort();
    assert_eq!(fields, ["shipping_table_id", "shipping_total"]);
    let (_, after) = s.get_json("/v2/orders", &token).await;
    assert_eq!(after["total_items"], list["total_items"]);
}

async fn orders_in_another_currency_are_converted_and_keep_their_rate(s: TestServer) {
    let token = s.owner_token().await;
    let (_, shirt) = variant(&s, &token, "SHIRT", 1999, 250).await;
    let flat = table(
        &s,
        &token,
        json!({"name": "Courier", "method": "flat", "rates": [{"price": 500}]}),
    )
    .await;
    rate(&s, &token, "CLP", "950.25").await;
    rate(&s, &token, "KWD", "0.307").await;

    let (status, order) = post_order(
        &s,
        &token,
        json!({"lines": [{"variant_id": shirt, "quantity": 2}], "currency_code": "CLP",
               "shipping_table_id": flat}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{order}");
    assert_eq!(order["currency_code"], "CLP");
    // 19.99 USD = 18,995.4975 CLP → 18,995 a unit; 5.00 USD = 4,751.25 → 4,751.
    let line = &order["_embedded"]["lines"][0];
    assert_eq!(line["unit_price"], 18_995);
    assert_eq!(line["line_total"], 37_990);
    assert_eq!(totals(&order), [37_990, 4_751, 0, 0, 42_741]);
    assert_eq!(
        order["exchange_rate"],
        json!({"from_currency": "USD", "to_currency": "CLP", "rate": "950.25"})
    );

    // Three-digit currencies keep their third digit; back to the shop's currency undoes it.
    let (_, in_kwd) = put_order(&s, &token, &order, json!({"currency_code": "KWD"})).await;
    assert_eq!(in_kwd["_embedded"]["lines"][0]["unit_price"], 6137); // 19.99 × 0.307 = 6.13693
    assert_eq!(totals(&in_kwd), [12_274, 1_535, 0, 0, 13_809]);
    let (_, in_usd) = put_order(&s, &token, &order, json!({"currency_code": null})).await;
    assert_eq!(in_usd["currency_code"], "USD");
    assert_eq!(in_usd["exchange_rate"], Value::Null);
    assert_eq!(totals(&in_usd), [3998, 500, 0, 0, 4498]);

    // No rate to the currency, or no such currency: 422, nothing written.
    for (body, field) in [
        (json!({"currency_code": "EUR"}), "currency_code"),
        (json!({"currency_code": "usd"}), "currency_code"),
    ] {
        let (status, refused) = put_order(&s, &token, &order, body.clone()).await;
        assert_eq!(
            status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{body}: {refused}"
        );
        assert_eq!(error_fields(&refused), [field]);
    }
    let (status, refused) = post_order(
        &s,
        &token,
        json!({"lines": [{"variant_id": shirt}], "currency_code": "JPY"}),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    assert_eq!(read_order(&s, &token, &order).await["currency_code"], "USD");
}

async fn placing_prices_the_order_once_more_and_later_changes_leave_it_alone(s: TestServer) {
    let token = s.owner_token().await;
    let (product, cap) = variant(&s, &token, "CAP", 1000, 100).await;
    let courier = table(
        &s,
        &token,
        json!({"name": "Courier", "method": "flat", "rates": [{"price": 300}]}),
    )
    .await;
    let clp = rate(&s, &token, "CLP", "900").await;
    let rate_href = format!("/v2/shops/{}/exchange_rates/{}", s.shop_id(), clp["id"]);
    let table_href = format!("/v2/shops/{}/shipping_tables/{courier}", s.shop_id());
    let (_, order) = post_order(
        &s,
        &token,
        json!({"lines": [{"variant_id": cap, "quantity": 2}], "currency_code": "CLP",
               "shipping_table_id": courier}),
    )
    .await;
    assert_eq!(totals(&order), [18_000, 2_700, 0, 0, 20_700]);

    // The rate, the table and the price change while the order is a cart: placing it
    // prices it as they are then.
    s.call(
        Method::PUT,
        &rate_href,
        &token,
        Some(json!({"rate": "1000"})),
    )
    .await;
    s.call(
        Method::PUT,
        &table_href,
        &token,
        Some(json!({"rates": [{"price": 400}]})),
    )
    .await;
    let (status, _) = s
        .call(
            Method::PUT,
            &format!("/v2/products/{product}/variants/{cap}"),
            &token,
            Some(json!({"price": 1100})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, placed) = move_order(&s, &token, &order, "place").await;
    assert_eq!(status, StatusCode::OK, "{placed}");
    assert_eq!(placed["status"], "placed");
    // 11.00 USD at 1000 CLP; 4.00 USD of shipping.
    assert_eq!(placed["_embedded"]["lines"][0]["unit_price"], 11_000);
    assert_eq!(totals(&placed), [22_000, 4_000, 0, 0, 26_000]);
    assert_eq!(placed["exchange_rate"]["rate"], "1000");

    // Placed: later changes to the rate, the table and the catalog leave it as it is.
    s.call(Method::PUT, &rate_href, &token, Some(json!({"rate": "1"})))
        .await;
    s.call(Method::DELETE, &table_href, &token, None).await;
    s.call(
        Method::PUT,
        &format!("/v2/products/{product}/variants/{cap}"),
        &token,
        Some(json!({"price": 5})),
    )
    .await;
    let read = read_order(&s, &token, &order).await;
    assert_eq!(totals(&read), totals(&placed));
    assert_eq!(read["_embedded"]["lines"], placed["_embedded"]["lines"]);
    assert_eq!(read["exchange_rate"], placed["exchange_rate"]);
    assert_eq!(read["shipping_description"], "Courier");

    // A cart whose table has gone cannot be placed, and keeps its stock.
    let (_, cart) = post_order(
        &s,
        &token,
        json!({"lines": [{"variant_id": cap}], "shipping_total": 100}),
    )
    .await;
    let express = table(
        &s,
        &token,
        json!({"name": "Express", "method": "flat", "rates": [{"price": 900}]}),
    )
    .await;
    let (status, cart) = put_order(&s, &token, &cart, json!({"shipping_table_id": express})).await;
    assert_eq!(status, StatusCode::OK, "{cart}");
    s.call(
        Method::DELETE,
        &format!("/v2/shops/{}/shipping_tables/{express}", s.shop_id()),
        &token,
        None,
    )
    .await;
    let stock_before = s
        .get_json(&format!("/v2/products/{product}/variants/{cap}"), &token)
        .await
        .1["stock"]
        .clone();
    let (status, refused) = move_order(&s, &token, &cart, "place").await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    assert_eq!(error_fields(&refused), ["shipping_table_id"]);
    assert_eq!(read_order(&s, &token, &cart).await["status"], "checkout");
    let stock_after = s
        .get_json(&format!("/v2/products/{product}/variants/{cap}"), &token)
        .await
        .1["stock"]
        .clone();
    assert_eq!(stock_after, stock_before);
}

async fn orders_are_found_by_the_products_they_sell(s: TestServer) {
    let token = s.owner_token().await;
    let (tea, tea_variant) = variant(&s, &token, "TEA", 300, 50).await;
    let (cup, cup_variant) = variant(&s, &token, "CUP", 900, 300).await;
    let (_, only_tea) =
        post_order(&s, &token, json!({"lines": [{"variant_id": tea_variant}]})).await;
    let (_, both) = post_order(
        &s,
        &token,
        json!({"lines": [{"variant_id": cup_variant}, {"variant_id": tea_variant}]}),
    )
    .await;
    let id = |o: &Value| o["id"].as_i64().unwrap();
    let (_, list) = s
        .get_json(&format!("/v2/orders?product_id={tea}&sort=id.asc"), &token)
        .await;
    assert_eq!(item_ids(&list), [id(&only_tea), id(&both)]);
    let (_, list) = s
        .get_json(&format!("/v2/orders?product_id={cup}"), &token)
        .await;
    assert_eq!(item_ids(&list), [id(&both)]);
    let (_, list) = s
        .get_json(
            &format!("/v2/orders?product_id={cup},{tea}&net_total.lte=500"),
            &token,
        )
        .await;
    assert_eq!(item_ids(&list), [id(&only_tea)]);
    let (status, refused) = s.get_json("/v2/orders?product_id=tea", &token).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    // Bootic's status names: pending is placed.
    move_order(&s, &token, &both, "place").await;
    let (_, list) = s.get_json("/v2/orders?status=pending", &token).await;
    assert_eq!(item_ids(&list), [id(&both)]);
}
