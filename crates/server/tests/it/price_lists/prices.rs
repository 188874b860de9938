//! The prices a list gives (tiers, sale against override, conditions that keep a list
//! from applying) and the loader that finds the lists pricing a purchase.

use reqwest::StatusCode;
use serde_json::{Value, json};

use super::{
    another_account_token, create_list, customer_ids, get, id_of, put_items, two_variant_product,
};
use crate::on_both_backends;
use crate::support::{TestServer, error_fields};

on_both_backends!(
    prices_follow_tiers_kinds_and_conditions,
    the_loader_finds_applicable_lists_in_two_queries,
    orders_are_priced_for_their_customer,
);

async fn prices(s: &TestServer, token: &str, list_id: i64, query: &str) -> Value {
    let (status, body) = get(
        s,
        &format!("/v2/price_lists/{list_id}/prices?{query}"),
        token,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body
}

async fn prices_follow_tiers_kinds_and_conditions(s: TestServer) {
    let token = s.owner_token().await;
    let (_, v) = two_variant_product(&s, &token, "Pen").await;
    let buyers = customer_ids(&s, &token, 3).await;
    let ids = format!("variant_ids={},{}", v[0], v[1]);

    let wholesale =
        id_of(&create_list(&s, &token, json!({"name": "Wholesale", "status": "active"})).await);
    put_items(
        &s,
        &token,
        wholesale,
        json!([
            {"variant_id": v[0], "price": 900},
            {"variant_id": v[0], "price": 700, "min_quantity": 10},
            {"variant_id": v[1], "price": 2500, "min_quantity": 5}
        ]),
    )
    .await;
    let one = prices(&s, &token, wholesale, &ids).await;
    assert_eq!(one["applies"], true);
    assert_eq!(one["reason"], Value::Null);
    assert_eq!(one["quantity"], 1);
    assert_eq!(one["currency_code"], "USD");
    let a = &one["_embedded"]["items"][0];
    assert_eq!(
        (a["base_price"].as_i64(), a["price"].as_i64()),
        (Some(1000), Some(900))
    );
    assert_eq!(a["base_price_comparison"], 1200);
    assert_eq!(
        a["price_comparison"],
        Value::Null,
        "an override replaces the base pricing"
    );
    assert_eq!(a["outcome"], "applied");
    assert_eq!(a["tier"]["min_quantity"], 1);
    let b = &one["_embedded"]["items"][1];
    assert_eq!(b["outcome"], "no_tier");
    assert_eq!(b["price"], 2000);
    assert_eq!(b["tier"], Value::Null);
    let nine = prices(&s, &token, wholesale, &format!("{ids}&quantity=9")).await;
    assert_eq!(nine["_embedded"]["items"][0]["price"], 900);
    assert_eq!(
        nine["_embedded"]["items"][1]["price"], 2500,
        "an override applies even when dearer"
    );
    let ten = prices(&s, &token, wholesale, &format!("{ids}&quantity=10")).await;
    assert_eq!(ten["_embedded"]["items"][0]["price"], 700);
    assert_eq!(ten["_embedded"]["items"][0]["tier"]["min_quantity"], 10);

    let sale = id_of(
        &create_list(
            &s,
            &token,
            json!({"name": "Sale", "status": "active", "kind": "sale"}),
        )
        .await,
    );
    put_items(
        &s,
        &token,
        sale,
        json!([{"variant_id": v[0], "price": 1100}, {"variant_id": v[1], "price": 1500}]),
    )
    .await;
    let on_sale = prices(&s, &token, sale, &ids).await;
    let a = &on_sale["_embedded"]["items"][0];
    assert_eq!(
        (a["price"].as_i64(), a["outcome"].as_str()),
        (Some(1000), Some("not_lower"))
    );
    assert_eq!(a["applied"], false);
    assert_eq!(a["tier"]["price"], 1100);
    let b = &on_sale["_embedded"]["items"][1];
    assert_eq!(
        (b["price"].as_i64(), b["outcome"].as_str()),
        (Some(1500), Some("applied"))
    );
    assert_eq!(
        b["price_comparison"], 2000,
        "a sale compares with the base price"
    );

    // Lists that do not apply say why, and leave the base price.
    let vip2_extra = format!("&contact_id={}", buyers[1]);
    let not_applying = [
        (json!({"name": "Draft"}), "", "status"),
        (json!({"name": "Off", "status": "inactive"}), "", "status"),
        (
            json!({"name": "Future", "status": "active", "starts_on": "2999-01-01T00:00:00Z"}),
            "",
            "dates",
        ),
        (
            json!({"name": "Past", "status": "active", "ends_on": "2000-01-01T00:00:00Z"}),
            "",
            "dates",
        ),
        (
            json!({"name": "Euro", "status": "active", "currency_code": "EUR"}),
            "",
            "currency",
        ),
        (
            json!({"name": "VIP", "status": "active", "contact_ids": [buyers[0]]}),
            "",
            "contact",
        ),
        (
            json!({"name": "VIP2", "status": "active", "contact_ids": [buyers[0]]}),
            vip2_extra.as_str(),
            "contact",
        ),
    ];
    for (body, extra, reason) in not_applying {
        let list = id_of(&create_list(&s, &token, body.clone()).await);
        put_items(&s, &token, list, json!([{"variant_id": v[0], "price": 10}])).await;
        let answer = prices(&s, &token, list, &format!("variant_ids={}{extra}", v[0])).await;
        assert_eq!(answer["applies"], false, "{body}");
        assert_eq!(answer["reason"], reason, "{body}");
        assert!(answer["reason_message"].is_string());
        let a = &answer["_embedded"]["items"][0];
        assert_eq!(a["outcome"], "list_not_applicable", "{body}");
        assert_eq!(a["price"], 1000, "{body}");
        assert_eq!(a["tier"]["price"], 10, "the tier is shown all the same");
    }
    // The same lists apply under the conditions they name.
    let future = id_of(&create_list(&s, &token, json!({"name": "Later", "status": "active", "starts_on": "2999-01-01T00:00:00Z", "ends_on": "2999-02-01T00:00:00Z"})).await);
    put_items(
        &s,
        &token,
        future,
        json!([{"variant_id": v[0], "price": 10}]),
    )
    .await;
    for (at, applies) in [
        ("2999-01-01T00:00:00Z", true),
        ("2999-02-01T00:00:00Z", false),
        ("2998-12-31T23:59:59Z", false),
    ] {
        let answer = prices(&s, &token, future, &format!("variant_ids={}&at={at}", v[0])).await;
        assert_eq!(answer["applies"], applies, "{at}");
        assert_eq!(answer["at"], at);
    }
    let euro = id_of(
        &create_list(
            &s,
            &token,
            json!({"name": "Euro2", "status": "active", "currency_code": "EUR"}),
        )
        .await,
    );
    assert_eq!(
        prices(
            &s,
            &token,
            euro,
            &format!("variant_ids={}&currency_code=EUR", v[0])
        )
        .await["applies"],
        true
    );
    let vip = id_of(
        &create_list(
            &s,
            &token,
            json!({"name": "VIP3", "status": "active", "contact_ids": [buyers[0], buyers[2]]}),
        )
        .await,
    );
    assert_eq!(
        prices(
            &s,
            &token,
            vip,
            &format!("variant_ids={}&contact_id={}", v[0], buyers[2])
        )
        .await["applies"],
        true
    );

    // Bad parameters are named.
    let (status, body) = get(
        &s,
        &format!(
            "/v2/price_lists/{wholesale}/prices?quantity=0&at=soon&currency_code=eur&contact_id=x"
        ),
        &token,
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    let mut fields = error_fields(&body);
    fields.sort();
    assert_eq!(
        fields,
        [
            "at",
            "contact_id",
            "currency_code",
            "quantity",
            "variant_ids"
        ]
    );
    let other_token = another_account_token(&s).await;
    let (_, theirs) = two_variant_product(&s, &other_token, "Theirs").await;
    let (status, body) = get(
        &s,
        &format!(
            "/v2/price_lists/{wholesale}/prices?variant_ids={},{}",
            v[0], theirs[0]
        ),
        &token,
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_fields(&body), ["variant_ids"]);
}

async fn the_loader_finds_applicable_lists_in_two_queries(s: TestServer) {
    use domain::catalog::pricing::{BasePrice, Purchase, resolve};
    use storage::price_lists::pricing_lists;
    use storage::query_count::counting;

    let token = s.owner_token().await;
    let (_, v) = two_variant_product(&s, &token, "Box").await;
    let buyer = customer_ids(&s, &token, 1).await[0];
    let mut ids = Vec::new();
    for (name, extra, price) in [
        ("Low", json!({"priority": 1}), 800),
        ("High", json!({"priority": 5, "kind": "sale"}), 1100),
        ("Draft", json!({"status": "draft", "priority": 9}), 100),
        ("VIP", json!({"priority": 7, "contact_ids": [buyer]}), 500),
        ("Euro", json!({"priority": 8, "currency_code": "EUR"}), 100),
    ] {
        let mut body = json!({"name": name, "status": "active"});
        body.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        let id = id_of(&create_list(&s, &token, body).await);
        put_items(
            &s,
            &token,
            id,
            json!([{"variant_id": v[0], "price": price}]),
        )
        .await;
        ids.push(id);
    }
    let (db, _) = s.open_storage().await;
    let seller = s.seller_id();
    let anonymous = Purchase {
        at: s.clock.now(),
        currency_code: "USD",
        contact_id: None,
    };
    let (loaded, queries) = counting(pricing_lists(&db, seller, &anonymous, &v)).await;
    let loaded = loaded.unwrap();
    assert_eq!(queries, 2);
    let names: Vec<&str> = loaded.lists.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(names, ["High", "Low"], "applicable lists, by priority");
    let base = BasePrice {
        price: 1000,
        price_comparison: None,
    };
    let won = resolve(base, 1, &loaded.candidates(v[0]));
    assert_eq!(
        won.price, 800,
        "the sale above the base price yields to the next list"
    );
    assert_eq!(won.applied.map(|a| a.price_list_id), Some(ids[0]));
    assert!(loaded.candidates(v[1]).is_empty());
    let vip = Purchase {
        contact_id: Some(buyer),
        ..anonymous
    };
    let loaded = pricing_lists(&db, seller, &vip, &v[..1]).await.unwrap();
    let won = resolve(base, 1, &loaded.candidates(v[0]));
    assert_eq!(won.price, 500);
    assert_eq!(won.applied.map(|a| a.price_list_id), Some(ids[3]));
    db.close().await;
}

/// A list for some customers prices the orders linked to them — named by id, found by
/// email, or linked later in checkout (the cart is priced again) — and no one else's.
async fn orders_are_priced_for_their_customer(s: TestServer) {
    let token = s.owner_token().await;
    let (_, v) = two_variant_product(&s, &token, "Vase").await;
    let (status, vip) = super::send(
        &s,
        reqwest::Method::POST,
        "/v2/customers",
        &token,
        json!({"email": "vip@example.com"}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{vip}");
    let list = create_list(
        &s,
        &token,
        json!({"name": "VIP", "status": "active", "contact_ids": [id_of(&vip)]}),
    )
    .await;
    put_items(
        &s,
        &token,
        id_of(&list),
        json!([{"variant_id": v[0], "price": 600}]),
    )
    .await;
    let order = |body: Value| {
        let s = &s;
        let token = &token;
        async move {
            let (status, order) = super::send(
                s,
                reqwest::Method::POST,
                &format!("/v2/shops/{}/orders", s.shop_id()),
                token,
                body,
            )
            .await;
            assert_eq!(status, StatusCode::CREATED, "{order}");
            order
        }
    };
    let line = json!([{"variant_id": v[0], "quantity": 2}]);
    let anyone = order(json!({"lines": line, "email": "someone@example.com"})).await;
    assert_eq!(anyone["net_total"], 2000, "the variant's own price");
    let by_id = order(json!({"lines": line, "contact_id": id_of(&vip)})).await;
    assert_eq!(by_id["net_total"], 1200);
    let by_email = order(json!({"lines": line, "email": "VIP@example.com"})).await;
    assert_eq!(by_email["contact_id"], vip["id"]);
    assert_eq!(by_email["net_total"], 1200);
    let (status, relinked) = super::send(
        &s,
        reqwest::Method::PUT,
        &format!("/v2/orders/{}", anyone["id"]),
        &token,
        json!({"email": "vip@example.com"}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{relinked}");
    assert_eq!(relinked["contact_id"], vip["id"]);
    assert_eq!(
        relinked["net_total"], 1200,
        "priced again for its new buyer"
    );
    assert_eq!(relinked["_embedded"]["lines"][0]["unit_price"], 600);
}
