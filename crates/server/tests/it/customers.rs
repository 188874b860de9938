//! Customers: a seller's contacts with every field, their refusals with nothing written,
//! list filters and sorts, their addresses and defaults, the orders linked to them with the
//! figures each order move keeps exact, who sees and changes them, and concurrent orders.

use std::sync::Arc;

use domain::clock::ManualClock;
use domain::{Clock, Timestamp};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::on_both_backends;
use crate::support::{Backend, TestServer, assert_error, error_fields, item_ids, json};

on_both_backends!(
    create_read_update_and_delete_with_every_field,
    invalid_customers_are_refused_and_write_nothing,
    list_filters_sorts_and_pages,
    addresses_keep_defaults_and_touch_their_customer,
    orders_link_their_customer_and_move_its_figures,
    other_accounts_and_missing_scopes_see_and_change_nothing,
    concurrent_orders_make_one_customer_and_exact_figures,
);

/// A server whose clock moves only when told to, starting on a whole second (so that
/// every time it writes is exactly the time it answers).
async fn server_on_manual_clock(backend: Backend) -> (TestServer, Arc<ManualClock>) {
    let start = Timestamp::from_secs(domain::SystemClock.now().as_secs());
    let clock = Arc::new(ManualClock::new(start));
    let manual = clock.clone() as Arc<dyn Clock>;
    let s = TestServer::start_with(backend, move |c| c.clock = manual).await;
    (s, clock)
}

fn id_of(resource: &Value) -> i64 {
    resource["id"]
        .as_i64()
        .unwrap_or_else(|| panic!("an id: {resource}"))
}

async fn post_customer(s: &TestServer, token: &str, body: Value) -> (StatusCode, Value) {
    s.call(Method::POST, "/v2/customers", token, Some(body))
        .await
}

/// Creates a customer, asserting that it was created.
async fn create(s: &TestServer, token: &str, body: Value) -> Value {
    let (status, customer) = post_customer(s, token, body).await;
    assert_eq!(status, StatusCode::CREATED, "{customer}");
    customer
}

async fn get_customer(s: &TestServer, token: &str, id: i64) -> Value {
    let (status, customer) = s.get_json(&format!("/v2/customers/{id}"), token).await;
    assert_eq!(status, StatusCode::OK, "{customer}");
    customer
}

/// `total_items` of `GET /v2/customers`.
async fn customers_total(s: &TestServer, token: &str) -> i64 {
    let (status, list) = s.get_json("/v2/customers", token).await;
    assert_eq!(status, StatusCode::OK, "{list}");
    list["total_items"].as_i64().unwrap()
}

/// The ids a list answers for `path`.
async fn ids_at(s: &TestServer, token: &str, path: &str) -> Vec<i64> {
    let (status, list) = s.get_json(path, token).await;
    assert_eq!(status, StatusCode::OK, "{path}: {list}");
    item_ids(&list)
}

/// `(orders_count, total_spent, spent_by_currency)` of a customer.
async fn figures(s: &TestServer, token: &str, id: i64) -> (i64, i64, Value) {
    let customer = get_customer(s, token, id).await;
    (
        customer["orders_count"].as_i64().unwrap(),
        customer["total_spent"].as_i64().unwrap(),
        customer["spent_by_currency"].clone(),
    )
}

/// The `customers:` link relations of a resource, sorted.
fn rels(resource: &Value) -> Vec<String> {
    let mut rels: Vec<String> = resource["_links"]
        .as_object()
        .unwrap_or_else(|| panic!("links: {resource}"))
        .keys()
        .filter(|k| k.starts_with("customers:"))
        .cloned()
        .collect();
    rels.sort();
    rels
}

fn sorted(mut fields: Vec<String>) -> Vec<String> {
    fields.sort();
    fields
}

/// One variant with `stock` units at `price` (in the seller's currency, in every shop);
/// answers its id.
async fn stocked(s: &TestServer, token: &str, sku: &str, price: i64, stock: i64) -> i64 {
    let product = s
        .create_product(
            token,
            json!({"title": format!("Item {sku}"), "status": "visible",
                   "variants": [{"sku": sku, "price": price, "stock": stock}]}),
        )
        .await;
    product["_embedded"]["variants"][0]["id"].as_i64().unwrap()
}

async fn post_order(s: &TestServer, token: &str, shop_id: i64, body: Value) -> (StatusCode, Value) {
    s.call(
        Method::POST,
        &format!("/v2/shops/{shop_id}/orders"),
        token,
        Some(body),
    )
    .await
}

/// Creates an order in the first demo shop, asserting that it was created.
async fn new_order(s: &TestServer, token: &str, body: Value) -> Value {
    let (status, order) = post_order(s, token, s.shop_id(), body).await;
    assert_eq!(status, StatusCode::CREATED, "{order}");
    order
}

/// `PUT /v2/orders/{id}/{action}`, asserting that the move was made.
async fn act(s: &TestServer, token: &str, order: &Value, action: &str) -> Value {
    let (status, moved) = s
        .call(
            Method::PUT,
            &format!("/v2/orders/{}/{action}", order["id"]),
            token,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{action}: {moved}");
    moved
}

async fn get_order(s: &TestServer, token: &str, order: &Value) -> Value {
    let (status, read) = s
        .get_json(&format!("/v2/orders/{}", order["id"]), token)
        .await;
    assert_eq!(status, StatusCode::OK, "{read}");
    read
}

async fn create_read_update_and_delete_with_every_field(s: TestServer) {
    let token = s.owner_token().await;
    let body = json!({
        "seller_id": s.seller_id(),
        "first_name": "Ada", "last_name": "Lovelace",
        "email": "ada@example.com", "phone_number": "+44 20 7946 0000",
        "company": "Analytical Engines", "opt_in": true, "status": "invited",
        "tags": ["vip", "Wholesale", "VIP", " wholesale "],
        "note": "Met at the fair",
        "addresses": [
            {"name": "Ada", "street": "12 St James's Square", "locality": "London",
             "postal_code": "SW1Y 4JH", "country_code": "GB", "phone_number": "+44 20 7946 0001"},
            {"company": "Engines Ltd", "street": "1 Main St", "street_2": "Floor 2",
             "locality": "Springfield", "region": "IL", "postal_code": "62701",
             "country_code": "US", "default_billing": true}
        ]
    });
    let response = s
        .request(Method::POST, "/v2/customers", &token)
        .json(&body)
        .send()
        .await
        .unwrap();
    let location = response.headers()["location"].to_str().unwrap().to_owned();
    let (status, customer) = json(response).await;
    assert_eq!(status, StatusCode::CREATED, "{customer}");
    let id = id_of(&customer);
    let path = format!("/v2/customers/{id}");
    assert_eq!(location, s.url(&path));
    assert_eq!(customer["_class"], json!(["customer"]));
    for field in [
        "id",
        "seller_id",
        "name",
        "first_name",
        "last_name",
        "email",
        "phone_number",
        "company",
        "opt_in",
        "status",
        "tags",
        "note",
        "addresses",
        "default_shipping_address_id",
        "default_billing_address_id",
        "orders_count",
        "total_spent",
        "currency_code",
        "spent_by_currency",
        "created_on",
        "updated_on",
    ] {
        assert!(customer.get(field).is_some(), "{field} missing: {customer}");
    }
    assert_eq!(customer["seller_id"], s.seller_id());
    assert_eq!(customer["name"], "Ada Lovelace", "composed from the parts");
    assert_eq!(customer["first_name"], "Ada");
    assert_eq!(customer["last_name"], "Lovelace");
    assert_eq!(customer["email"], "ada@example.com");
    assert_eq!(customer["phone_number"], "+44 20 7946 0000");
    assert_eq!(customer["company"], "Analytical Engines");
    assert_eq!(customer["opt_in"], true);
    assert_eq!(customer["status"], "invited");
    assert_eq!(
        customer["tags"],
        json!(["vip", "Wholesale"]),
        "client order, duplicates in any case removed"
    );
    assert_eq!(customer["note"], "Met at the fair");
    assert_eq!(customer["orders_count"], 0);
    assert_eq!(customer["total_spent"], 0);
    assert_eq!(customer["currency_code"], "USD");
    assert_eq!(customer["spent_by_currency"], json!([]));
    assert!(customer["created_on"].is_string());
    assert!(customer["updated_on"].is_string());
    // The addresses, in id order; the first is the default shipping address, the second
    // was marked the default billing one.
    let addresses = customer["addresses"].as_array().unwrap();
    assert_eq!(addresses.len(), 2, "{customer}");
    let (home, office) = (&addresses[0], &addresses[1]);
    assert!(id_of(home) < id_of(office));
    assert_eq!(customer["default_shipping_address_id"], home["id"]);
    assert_eq!(customer["default_billing_address_id"], office["id"]);
    for (address, expected) in [
        (
            home,
            json!({"customer_id": id, "name": "Ada", "company": null,
                   "street": "12 St James's Square", "street_2": null, "locality": "London",
                   "region": null, "postal_code": "SW1Y 4JH", "country_code": "GB",
                   "phone_number": "+44 20 7946 0001", "default_shipping": true,
                   "default_billing": false}),
        ),
        (
            office,
            json!({"customer_id": id, "name": null, "company": "Engines Ltd",
                   "street": "1 Main St", "street_2": "Floor 2", "locality": "Springfield",
                   "region": "IL", "postal_code": "62701", "country_code": "US",
                   "phone_number": null, "default_shipping": false, "default_billing": true}),
        ),
    ] {
        for (field, value) in expected.as_object().unwrap() {
            assert_eq!(&address[field], value, "{field} of {address}");
        }
        assert!(address["created_on"].is_string(), "{address}");
        assert!(address["updated_on"].is_string(), "{address}");
    }
    // Its links.
    assert_eq!(customer["_links"]["self"]["href"], location);
    assert_eq!(
        rels(&customer),
        [
            "customers:addresses",
            "customers:create_address",
            "customers:delete",
            "customers:orders",
            "customers:update"
        ]
    );
    let href = |rel: &str| customer["_links"][rel]["href"].as_str().unwrap().to_owned();
    assert!(href("customers:orders").starts_with(&s.url(&format!("{path}/orders"))));
    assert!(href("customers:addresses").starts_with(&s.url(&format!("{path}/addresses"))));
    assert!(href("customers:create_address").starts_with(&s.url(&format!("{path}/addresses"))));
    assert_eq!(s.event_count("customers.created").await, 1);
    // GET shows it as created.
    let (status, read) = s.get_json(&path, &token).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(read, customer);
    // Other ways of naming: only a last name, or an explicit name kept as given.
    let hopper = create(
        &s,
        &token,
        json!({"last_name": "Hopper", "phone_number": "+1 555 0101"}),
    )
    .await;
    assert_eq!(hopper["name"], "Hopper");
    assert_eq!(hopper["first_name"], Value::Null);
    assert_eq!(hopper["email"], Value::Null);
    assert_eq!(hopper["company"], Value::Null);
    assert_eq!(hopper["opt_in"], false);
    assert_eq!(hopper["status"], "active");
    assert_eq!(hopper["tags"], json!([]));
    assert_eq!(hopper["note"], "");
    assert_eq!(hopper["addresses"], json!([]));
    assert_eq!(hopper["default_shipping_address_id"], Value::Null);
    assert_eq!(hopper["default_billing_address_id"], Value::Null);
    let named = create(
        &s,
        &token,
        json!({"name": "Amazing Grace", "first_name": "Grace", "last_name": "Hopper",
               "email": "grace@example.com"}),
    )
    .await;
    assert_eq!(named["name"], "Amazing Grace");
    assert_eq!(s.event_count("customers.created").await, 3);
    // A write giving first and last names but no name composes it (the name was composed).
    let (status, renamed) = s
        .call(
            Method::PUT,
            &path,
            &token,
            Some(json!({"first_name": "Augusta", "last_name": "King"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{renamed}");
    assert_eq!(renamed["name"], "Augusta King");
    assert_eq!(renamed["first_name"], "Augusta");
    assert_eq!(renamed["last_name"], "King");
    assert_eq!(s.event_count("customers.updated").await, 1);
    // Update: an explicit name, null clears, the rest changes; one event.
    let (status, updated) = s
        .call(
            Method::PUT,
            &path,
            &token,
            Some(
                json!({"name": "Countess of Lovelace", "company": null, "phone_number": null,
                        "tags": ["Engines"], "opt_in": false, "status": "disabled", "note": ""}),
            ),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{updated}");
    assert_eq!(updated["name"], "Countess of Lovelace");
    assert_eq!(updated["first_name"], "Augusta");
    assert_eq!(updated["company"], Value::Null);
    assert_eq!(updated["phone_number"], Value::Null);
    assert_eq!(updated["email"], "ada@example.com");
    assert_eq!(updated["tags"], json!(["Engines"]));
    assert_eq!(updated["opt_in"], false);
    assert_eq!(updated["status"], "disabled");
    assert_eq!(updated["note"], "");
    assert_eq!(updated["addresses"], customer["addresses"]);
    assert_eq!(
        updated["default_billing_address_id"],
        customer["default_billing_address_id"]
    );
    assert_eq!(updated["created_on"], customer["created_on"]);
    assert_eq!(s.event_count("customers.updated").await, 2);
    // Changing nothing records nothing.
    let (status, same) = s
        .call(
            Method::PUT,
            &path,
            &token,
            Some(json!({"name": "Countess of Lovelace", "status": "disabled", "company": null})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{same}");
    assert_eq!(same, updated);
    assert_eq!(s.event_count("customers.updated").await, 2);
    // If-Match naming an old version is refused.
    let stale = s
        .request(Method::PUT, &path, &token)
        .header("if-match", "\"stale\"")
        .json(&json!({"note": "late"}))
        .send()
        .await
        .unwrap();
    assert_eq!(stale.status(), StatusCode::PRECONDITION_FAILED);
    assert_eq!(get_customer(&s, &token, id).await["note"], "");
    // Delete answers the customer as it was.
    let (status, deleted) = s.call(Method::DELETE, &path, &token, None).await;
    assert_eq!(status, StatusCode::OK, "{deleted}");
    assert_eq!(deleted["id"], id);
    assert_eq!(deleted["name"], "Countess of Lovelace");
    assert_eq!(deleted["email"], "ada@example.com");
    let gone = s.get_json(&path, &token).await;
    assert_error(&gone, StatusCode::NOT_FOUND, "not_found");
    let again = s.call(Method::DELETE, &path, &token, None).await;
    assert_error(&again, StatusCode::NOT_FOUND, "not_found");
    assert_eq!(s.event_count("customers.deleted").await, 1);
    assert_eq!(s.event_count("customers.updated").await, 2);
    assert_eq!(customers_total(&s, &token).await, 2);
    // Its email is free again.
    create(&s, &token, json!({"email": "ADA@example.com"})).await;
}

async fn invalid_customers_are_refused_and_write_nothing(s: TestServer) {
    let token = s.owner_token().await;
    let taken = create(
        &s,
        &token,
        json!({"email": "taken@example.com", "name": "Taken"}),
    )
    .await;
    let other = create(
        &s,
        &token,
        json!({"email": "other@example.com",
               "addresses": [{"street": "Av. Italia 1", "country_code": "CL"}]}),
    )
    .await;
    let others_address = other["addresses"][0]["id"].as_i64().unwrap();
    let total_before = customers_total(&s, &token).await;
    let events_before = s.db.scalar("SELECT COUNT(*) FROM events").await;
    let long = "x".repeat(256);
    let many_tags: Vec<String> = (0..251).map(|i| format!("tag{i}")).collect();
    let many_addresses: Vec<Value> = (0..51)
        .map(|i| json!({"street": format!("Street {i}"), "country_code": "CL"}))
        .collect();
    let cases = [
        (json!({}), vec!["email"]),
        (
            json!({"opt_in": true, "note": "nobody", "tags": ["a"], "company": "Nameless Inc"}),
            vec!["email"],
        ),
        (json!({"email": "not-an-email"}), vec!["email"]),
        (json!({"email": "TAKEN@Example.COM"}), vec!["email"]),
        (
            json!({"email": "new@example.com", "name": long, "first_name": long, "last_name": long,
                   "company": long, "phone_number": long}),
            vec!["company", "first_name", "last_name", "name", "phone_number"],
        ),
        (
            json!({"email": "new@example.com", "status": "gone"}),
            vec!["status"],
        ),
        (
            json!({"email": "new@example.com", "note": "x".repeat(5001)}),
            vec!["note"],
        ),
        (
            json!({"email": "new@example.com", "addresses": [
                {"street": "Av. Italia 1", "country_code": "CL"},
                {"street": long, "country_code": "Chile"}]}),
            vec!["addresses[1].country_code", "addresses[1].street"],
        ),
        (
            json!({"email": "new@example.com", "addresses": many_addresses}),
            vec!["addresses"],
        ),
    ];
    for (body, fields) in cases {
        let (status, refused) = post_customer(&s, &token, body.clone()).await;
        assert_eq!(
            status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{body}: {refused}"
        );
        assert_eq!(refused["_class"], json!(["errors"]), "{refused}");
        assert_eq!(sorted(error_fields(&refused)), fields, "{body}: {refused}");
    }
    // Updates: the fields a PUT does not take, nulls where a value is needed, and the rules
    // of a create.
    let path = format!("/v2/customers/{}", taken["id"]);
    let cases = [
        (json!({"addresses": []}), vec!["addresses"]),
        (json!({"seller_id": s.seller_id()}), vec!["seller_id"]),
        (json!({"opt_in": null}), vec!["opt_in"]),
        (json!({"status": null}), vec!["status"]),
        (json!({"tags": null}), vec!["tags"]),
        (json!({"email": "OTHER@example.com"}), vec!["email"]),
        (json!({"email": "bad"}), vec!["email"]),
        (json!({"email": null, "name": null}), vec!["email"]),
        (
            json!({"default_shipping_address_id": others_address}),
            vec!["default_shipping_address_id"],
        ),
        (
            json!({"default_billing_address_id": 999_999}),
            vec!["default_billing_address_id"],
        ),
        (json!({"status": "gone"}), vec!["status"]),
        (
            json!({"note": "x".repeat(5001), "company": long, "email": "bad"}),
            vec!["company", "email", "note"],
        ),
    ];
    for (body, fields) in cases {
        let (status, refused) = s.call(Method::PUT, &path, &token, Some(body.clone())).await;
        assert_eq!(
            status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{body}: {refused}"
        );
        assert_eq!(sorted(error_fields(&refused)), fields, "{body}: {refused}");
    }
    // Nothing was written.
    assert_eq!(get_customer(&s, &token, id_of(&taken)).await, taken);
    assert_eq!(get_customer(&s, &token, id_of(&other)).await, other);
    assert_eq!(customers_total(&s, &token).await, total_before);
    assert_eq!(
        s.db.scalar("SELECT COUNT(*) FROM events").await,
        events_before
    );
    // The refused email was not kept for anyone.
    let created = create(&s, &token, json!({"email": "new@example.com"})).await;
    assert_eq!(created["email"], "new@example.com");
    // Tags follow the product tags' rules: at most 100 characters each, no commas, at
    // most 250 (blank ones are dropped). Each case is tried, and every one not refused on
    // `tags` is told.
    let mut accepted = Vec::new();
    for (case, tags) in [
        ("a tag of 101 characters", json!(["x".repeat(101)])),
        ("a tag with a comma", json!(["a,b"])),
        ("251 tags", json!(many_tags)),
    ] {
        let (status, answer) = post_customer(
            &s,
            &token,
            json!({"email": "tagged@example.com", "tags": tags}),
        )
        .await;
        if status != StatusCode::UNPROCESSABLE_ENTITY || error_fields(&answer) != ["tags"] {
            accepted.push(format!("{case}: {status} {answer}"));
            if status == StatusCode::CREATED {
                s.call(
                    Method::DELETE,
                    &format!("/v2/customers/{}", answer["id"]),
                    &token,
                    None,
                )
                .await;
            }
        }
    }
    let blank = create(
        &s,
        &token,
        json!({"email": "blank-tag@example.com", "tags": ["ok", "   "]}),
    )
    .await;
    assert_eq!(blank["tags"], json!(["ok"]), "blank tags are dropped");
    assert!(accepted.is_empty(), "{}", accepted.join("\n"));
}

async fn list_filters_sorts_and_pages(backend: Backend) {
    let (s, clock) = server_on_manual_clock(backend).await;
    let token = s.owner_token().await;
    // Names sort A < B < C < D; emails sort B (alice) < D (bob) < C (carol) < A (dora).
    let bodies = [
        json!({"name": "Alice Smith", "email": "dora@example.com", "phone_number": "+1 555 0100",
               "company": "Acme Corp", "tags": ["VIP"]}),
        json!({"name": "Bob Jones", "email": "alice@shop.example", "phone_number": "+1 555 0199",
               "company": "Globex", "tags": ["wholesale"], "status": "disabled"}),
        json!({"name": "Carol White", "email": "carol@example.org", "tags": ["vip", "Newsletter"],
               "status": "invited"}),
        json!({"name": "Dave Brown", "email": "bob@acme.example"}),
    ];
    let mut customers = Vec::new();
    for body in bodies {
        clock.advance_secs(60);
        customers.push(create(&s, &token, body).await);
    }
    let ids: Vec<i64> = customers.iter().map(id_of).collect();
    let pick = |indexes: &[usize]| indexes.iter().map(|&i| ids[i]).collect::<Vec<_>>();
    let list = |query: String| {
        let (s, token) = (&s, &token);
        async move { ids_at(s, token, &format!("/v2/customers?{query}")).await }
    };
    // q: a part of the name, email, phone number or company, in any case.
    for (query, expected) in [
        ("q=smith", pick(&[0])),
        ("q=SHOP.EXAMPLE", pick(&[1])),
        ("q=0199", pick(&[1])),
        ("q=GLOB", pick(&[1])),
        ("q=acme", pick(&[0, 3])),
        ("q=nobody", vec![]),
        ("email=DORA@Example.com", pick(&[0])),
        ("email=dora", vec![]),
        ("tags=VIP", pick(&[0, 2])),
        ("tags=WHOLESALE,newsletter", pick(&[1, 2])),
        ("tags=none", vec![]),
        ("status=disabled", pick(&[1])),
        ("status=invited", pick(&[2])),
        ("status=active", pick(&[0, 3])),
        ("q=e&status=active&tags=vip", pick(&[0])),
        ("created_on.gte=2999-01-01", vec![]),
        ("created_on.lte=2999-01-01", pick(&[0, 1, 2, 3])),
    ] {
        assert_eq!(
            list(format!("{query}&sort=id.asc")).await,
            expected,
            "{query}"
        );
    }
    assert_eq!(
        list(format!("seller_ids={}&sort=id.asc", s.seller_id())).await,
        ids
    );
    assert_eq!(
        list(format!(
            "created_on.gte={}&created_on.lte={}&sort=id.asc",
            customers[1]["created_on"].as_str().unwrap(),
            customers[2]["created_on"].as_str().unwrap()
        ))
        .await,
        pick(&[1, 2])
    );
    // A later change moves the first customer's updated_on.
    clock.advance_secs(60);
    let (status, changed) = s
        .call(
            Method::PUT,
            &format!("/v2/customers/{}", ids[0]),
            &token,
            Some(json!({"note": "changed"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{changed}");
    assert_ne!(changed["updated_on"], customers[0]["updated_on"]);
    assert_eq!(
        list(format!(
            "updated_on.gte={}&sort=id.asc",
            changed["updated_on"].as_str().unwrap()
        ))
        .await,
        pick(&[0])
    );
    assert_eq!(
        list(format!(
            "updated_on.lte={}&sort=id.asc",
            customers[3]["updated_on"].as_str().unwrap()
        ))
        .await,
        pick(&[1, 2, 3])
    );
    // Sorts.
    for (sort, expected) in [
        ("id.asc", pick(&[0, 1, 2, 3])),
        ("id.desc", pick(&[3, 2, 1, 0])),
        ("name.asc", pick(&[0, 1, 2, 3])),
        ("name.desc", pick(&[3, 2, 1, 0])),
        ("email.asc", pick(&[1, 3, 2, 0])),
        ("email.desc", pick(&[0, 2, 3, 1])),
        ("created_on.asc", pick(&[0, 1, 2, 3])),
        ("created_on.desc", pick(&[3, 2, 1, 0])),
        ("updated_on.desc", pick(&[0, 3, 2, 1])),
        ("updated_on.asc", pick(&[1, 2, 3, 0])),
    ] {
        assert_eq!(list(format!("sort={sort}")).await, expected, "{sort}");
    }
    // Pages keep the filters and the sort in their links.
    let (status, first) = s
        .get_json("/v2/customers?sort=name.desc&per_page=3&q=E", &token)
        .await;
    assert_eq!(status, StatusCode::OK, "{first}");
    assert_eq!(first["total_items"], 4);
    assert_eq!(item_ids(&first), pick(&[3, 2, 1]));
    assert!(first["_links"].get("prev").is_none());
    let next = first["_links"]["next"]["href"].as_str().unwrap().to_owned();
    assert!(
        next.contains("sort=name.desc")
            && next.contains("page=2")
            && next.contains("per_page=3")
            && next.contains("q=E"),
        "{next}"
    );
    let (status, second) = json(
        s.client
            .get(&next)
            .bearer_auth(&token)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{second}");
    assert_eq!(item_ids(&second), pick(&[0]));
    assert_eq!(second["total_items"], 4);
    assert!(second["_links"]["prev"].is_object());
    assert!(second["_links"].get("next").is_none());
    // A parameter the list does not know is refused, and named.
    let (status, refused) = s.get_json("/v2/customers?colour=red", &token).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    assert_eq!(error_fields(&refused), ["colour"]);
    // Addresses and spending for a whole page come in one query each: a page of 1 costs
    // what a page of 4 does.
    let one = s.queries_of("/v2/customers?per_page=1", &token).await;
    let all = s.queries_of("/v2/customers?per_page=4", &token).await;
    assert_eq!(one, all);
    assert!(all <= 6, "{all} queries");
}

async fn addresses_keep_defaults_and_touch_their_customer(backend: Backend) {
    let (s, clock) = server_on_manual_clock(backend).await;
    let token = s.owner_token().await;
    let customer = create(&s, &token, json!({"email": "home@example.com"})).await;
    let id = id_of(&customer);
    assert_eq!(customer["addresses"], json!([]));
    assert_eq!(customer["default_shipping_address_id"], Value::Null);
    assert_eq!(customer["default_billing_address_id"], Value::Null);
    let path = format!("/v2/customers/{id}");
    let addresses_path = format!("{path}/addresses");
    let updates_of_customer = || {
        let s = &s;
        async move {
            s.db.scalar(&format!(
                "SELECT COUNT(*) FROM events WHERE topic = 'customers.updated' AND item_id = {id} \
                 AND item_type = 'customer'"
            ))
            .await
        }
    };
    // The first address becomes both defaults.
    clock.advance_secs(60);
    let response = s
        .request(Method::POST, &addresses_path, &token)
        .json(
            &json!({"name": "Home", "street": "Av. Italia 1", "locality": "Santiago",
                      "region": "RM", "postal_code": "7500000", "country_code": "CL",
                      "phone_number": "+56 2 1234"}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::CREATED);
    let location = response.headers()["location"].to_str().unwrap().to_owned();
    let (_, home) = json(response).await;
    let home_id = id_of(&home);
    let home_path = format!("{addresses_path}/{home_id}");
    assert_eq!(location, s.url(&home_path));
    assert_eq!(home["_class"], json!(["customer_address"]));
    let expected = json!({"customer_id": id, "name": "Home", "company": null,
        "street": "Av. Italia 1", "street_2": null, "locality": "Santiago", "region": "RM",
        "postal_code": "7500000", "country_code": "CL", "phone_number": "+56 2 1234",
        "default_shipping": true, "default_billing": true});
    for (field, value) in expected.as_object().unwrap() {
        assert_eq!(&home[field], value, "{field} of {home}");
    }
    assert!(home["created_on"].is_string());
    assert!(home["updated_on"].is_string());
    assert_eq!(home["_links"]["self"]["href"], location);
    assert_eq!(
        rels(&home),
        [
            "customers:customer",
            "customers:delete_address",
            "customers:update_address"
        ]
    );
    assert_eq!(home["_links"]["customers:customer"]["href"], s.url(&path));
    let (status, read) = s.get_json(&home_path, &token).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(read, home);
    let after_home = get_customer(&s, &token, id).await;
    assert_ne!(after_home["updated_on"], customer["updated_on"]);
    assert_eq!(after_home["default_shipping_address_id"], home_id);
    assert_eq!(after_home["default_billing_address_id"], home_id);
    assert_eq!(after_home["addresses"][0]["id"], home_id);
    assert_eq!(updates_of_customer().await, 1);
    // A second one marked the default billing address takes it over.
    clock.advance_secs(60);
    let (status, office) = s
        .call(
            Method::POST,
            &addresses_path,
            &token,
            Some(
                json!({"street": "Florida 100", "locality": "Buenos Aires", "country_code": "AR",
                        "default_billing": true}),
            ),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{office}");
    let office_id = id_of(&office);
    let office_path = format!("{addresses_path}/{office_id}");
    assert_eq!(office["default_shipping"], false);
    assert_eq!(office["default_billing"], true);
    let (_, home_now) = s.get_json(&home_path, &token).await;
    assert_eq!(home_now["default_shipping"], true);
    assert_eq!(home_now["default_billing"], false);
    let after_office = get_customer(&s, &token, id).await;
    assert_eq!(after_office["default_shipping_address_id"], home_id);
    assert_eq!(after_office["default_billing_address_id"], office_id);
    assert_ne!(after_office["updated_on"], after_home["updated_on"]);
    assert_eq!(updates_of_customer().await, 2);
    assert_eq!(
        ids_at(&s, &token, &addresses_path).await,
        [home_id, office_id]
    );
    // Update: the home address becomes the billing one again, and parts change.
    clock.advance_secs(60);
    let (status, home_changed) = s
        .call(
            Method::PUT,
            &home_path,
            &token,
            Some(json!({"default_billing": true, "postal_code": null, "street_2": "Depto 5"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{home_changed}");
    assert_eq!(home_changed["default_billing"], true);
    assert_eq!(home_changed["default_shipping"], true);
    assert_eq!(home_changed["postal_code"], Value::Null);
    assert_eq!(home_changed["street_2"], "Depto 5");
    assert_eq!(home_changed["street"], "Av. Italia 1");
    assert_ne!(home_changed["updated_on"], home["updated_on"]);
    assert_eq!(home_changed["created_on"], home["created_on"]);
    let (_, office_now) = s.get_json(&office_path, &token).await;
    assert_eq!(office_now["default_billing"], false);
    let after_put = get_customer(&s, &token, id).await;
    assert_eq!(after_put["default_billing_address_id"], home_id);
    assert_ne!(after_put["updated_on"], after_office["updated_on"]);
    assert_eq!(updates_of_customer().await, 3);
    // A bad part is refused and changes nothing.
    let (status, refused) = s
        .call(
            Method::PUT,
            &home_path,
            &token,
            Some(json!({"country_code": "Chile"})),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    assert_eq!(error_fields(&refused), ["country_code"]);
    let (status, refused) = s
        .call(
            Method::POST,
            &addresses_path,
            &token,
            Some(json!({"street": "x".repeat(256)})),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    assert_eq!(error_fields(&refused), ["street"]);
    assert_eq!(updates_of_customer().await, 3);
    assert_eq!(s.get_json(&home_path, &token).await.1, home_changed);
    // The customer names the office as its default shipping address.
    clock.advance_secs(60);
    let (status, chosen) = s
        .call(
            Method::PUT,
            &path,
            &token,
            Some(json!({"default_shipping_address_id": office_id})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{chosen}");
    assert_eq!(chosen["default_shipping_address_id"], office_id);
    assert_eq!(chosen["default_billing_address_id"], home_id);
    let (_, office_now) = s.get_json(&office_path, &token).await;
    assert_eq!(office_now["default_shipping"], true);
    let (_, home_now) = s.get_json(&home_path, &token).await;
    assert_eq!(home_now["default_shipping"], false);
    assert_eq!(updates_of_customer().await, 4);
    // Deleting the default shipping address leaves that default null.
    clock.advance_secs(60);
    let (status, deleted) = s.call(Method::DELETE, &office_path, &token, None).await;
    assert_eq!(status, StatusCode::OK, "{deleted}");
    assert_eq!(deleted["id"], office_id);
    let gone = s.get_json(&office_path, &token).await;
    assert_error(&gone, StatusCode::NOT_FOUND, "not_found");
    let after_delete = get_customer(&s, &token, id).await;
    assert_eq!(after_delete["default_shipping_address_id"], Value::Null);
    assert_eq!(after_delete["default_billing_address_id"], home_id);
    assert_eq!(after_delete["addresses"].as_array().unwrap().len(), 1);
    assert_ne!(after_delete["updated_on"], chosen["updated_on"]);
    assert_eq!(updates_of_customer().await, 5);
    assert_eq!(ids_at(&s, &token, &addresses_path).await, [home_id]);
    // Clearing the billing default from the customer.
    let (status, cleared) = s
        .call(
            Method::PUT,
            &path,
            &token,
            Some(json!({"default_billing_address_id": null})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{cleared}");
    assert_eq!(cleared["default_billing_address_id"], Value::Null);
    let (_, home_now) = s.get_json(&home_path, &token).await;
    assert_eq!(home_now["default_billing"], false);
    assert_eq!(updates_of_customer().await, 6);
    // At most 50 addresses.
    let fifty: Vec<Value> = (0..50)
        .map(|i| json!({"street": format!("Street {i}"), "country_code": "US"}))
        .collect();
    let full = create(
        &s,
        &token,
        json!({"email": "full@example.com", "addresses": fifty}),
    )
    .await;
    let full_addresses = full["addresses"].as_array().unwrap();
    assert_eq!(full_addresses.len(), 50);
    assert_eq!(full["default_shipping_address_id"], full_addresses[0]["id"]);
    assert_eq!(full["default_billing_address_id"], full_addresses[0]["id"]);
    let full_path = format!("/v2/customers/{}", full["id"]);
    let events_before = s.db.scalar("SELECT COUNT(*) FROM events").await;
    let (status, refused) = s
        .call(
            Method::POST,
            &format!("{full_path}/addresses"),
            &token,
            Some(json!({"street": "One too many"})),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    assert_eq!(error_fields(&refused), ["addresses"]);
    assert_eq!(
        s.db.scalar("SELECT COUNT(*) FROM events").await,
        events_before
    );
    assert_eq!(get_customer(&s, &token, id_of(&full)).await, full);
    // An address of another customer is not found through this one.
    let foreign_path = format!("{full_path}/addresses/{home_id}");
    for (method, body) in [
        (Method::GET, None),
        (Method::PUT, Some(json!({"street": "Taken over"}))),
        (Method::DELETE, None),
    ] {
        let answer = s.call(method.clone(), &foreign_path, &token, body).await;
        assert_error(&answer, StatusCode::NOT_FOUND, "not_found");
    }
    assert_eq!(s.get_json(&home_path, &token).await.1, home_now);
}

async fn orders_link_their_customer_and_move_its_figures(s: TestServer) {
    let token = s.owner_token().await;
    let variant = stocked(&s, &token, "BUY", 1000, 100).await;
    let orders_in_db = || async { s.db.scalar("SELECT COUNT(*) FROM orders").await };
    // An order with a new email creates its customer from the order's contact details.
    let order1 = new_order(
        &s,
        &token,
        json!({"lines": [{"variant_id": variant, "quantity": 2}], "email": "Buyer@Example.com",
               "contact_name": "Ana Buyer", "phone_number": "+56 9 1234"}),
    )
    .await;
    assert_eq!(s.event_count("customers.created").await, 1);
    let a = order1["contact_id"]
        .as_i64()
        .unwrap_or_else(|| panic!("linked: {order1}"));
    let a_path = format!("/v2/customers/{a}");
    assert_eq!(
        order1["_links"]["customers:customer"]["href"],
        s.url(&a_path)
    );
    let customer = get_customer(&s, &token, a).await;
    assert_eq!(customer["seller_id"], s.seller_id());
    assert_eq!(customer["name"], "Ana Buyer");
    assert!(
        customer["email"]
            .as_str()
            .unwrap()
            .eq_ignore_ascii_case("buyer@example.com"),
        "{customer}"
    );
    assert_eq!(customer["phone_number"], "+56 9 1234");
    assert_eq!(
        (
            &customer["orders_count"],
            &customer["total_spent"],
            &customer["spent_by_currency"]
        ),
        (&json!(0), &json!(0), &json!([])),
        "a checkout order does not count"
    );
    // The same email in another case links the same customer; contact_id names one.
    let order2 = new_order(
        &s,
        &token,
        json!({"lines": [{"variant_id": variant}], "email": "BUYER@example.COM"}),
    )
    .await;
    assert_eq!(order2["contact_id"], a);
    let order3 = new_order(
        &s,
        &token,
        json!({"lines": [{"variant_id": variant}], "contact_id": a, "shipping_total": 500}),
    )
    .await;
    assert_eq!(order3["contact_id"], a);
    let order4 = new_order(
        &s,
        &token,
        json!({"lines": [{"variant_id": variant, "quantity": 3}], "email": "buyer@example.com"}),
    )
    .await;
    assert_eq!(order4["contact_id"], a);
    let order5 = new_order(
        &s,
        &token,
        json!({"lines": [{"variant_id": variant}], "contact_id": a,
               "email": "someone.else@example.com"}),
    )
    .await;
    assert_eq!(order5["contact_id"], a, "contact_id wins over the email");
    let anonymous = new_order(&s, &token, json!({"lines": [{"variant_id": variant}]})).await;
    assert_eq!(anonymous["contact_id"], Value::Null);
    assert!(anonymous["_links"].get("customers:customer").is_none());
    assert_eq!(s.event_count("customers.created").await, 1);
    // A customer of another seller, or none, is refused on contact_id.
    let other = s.seed_another_account().await;
    let theirs = s.owner_token_of(&other).await;
    let their_customer = create(&s, &theirs, json!({"email": "theirs@example.com"})).await;
    assert_eq!(s.event_count("customers.created").await, 2, "one of theirs");
    let orders_before = orders_in_db().await;
    for contact_id in [id_of(&their_customer), 999_999] {
        let (status, refused) = post_order(
            &s,
            &token,
            s.shop_id(),
            json!({"lines": [{"variant_id": variant}], "contact_id": contact_id}),
        )
        .await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
        assert_eq!(error_fields(&refused), ["contact_id"]);
    }
    assert_eq!(orders_in_db().await, orders_before);
    assert_eq!(s.event_count("customers.created").await, 2);
    // In checkout a new email links the order again (to a new customer here); after
    // checkout the link stays.
    let (status, relinked) = s
        .call(
            Method::PUT,
            &format!("/v2/orders/{}", order2["id"]),
            &token,
            Some(json!({"email": "otto@example.com", "contact_name": "Otto Other"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{relinked}");
    let b = relinked["contact_id"]
        .as_i64()
        .unwrap_or_else(|| panic!("linked: {relinked}"));
    assert_ne!(b, a);
    assert_eq!(s.event_count("customers.created").await, 3);
    let otto = get_customer(&s, &token, b).await;
    assert_eq!(otto["name"], "Otto Other");
    assert_eq!(otto["email"], "otto@example.com");
    act(&s, &token, &order2, "place").await;
    act(&s, &token, &order2, "close").await;
    let (status, kept) = s
        .call(
            Method::PUT,
            &format!("/v2/orders/{}", order2["id"]),
            &token,
            Some(json!({"email": "buyer@example.com"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{kept}");
    assert_eq!(kept["email"], "buyer@example.com");
    assert_eq!(kept["contact_id"], b, "after checkout the link stays");
    assert_eq!(
        figures(&s, &token, b).await,
        (1, 1000, json!([{"currency_code": "USD", "total": 1000}]))
    );
    // Each move of the customer's orders changes its figures exactly.
    let usd = |total: i64| json!([{"currency_code": "USD", "total": total}]);
    act(&s, &token, &order1, "place").await;
    assert_eq!(figures(&s, &token, a).await, (1, 0, json!([])));
    act(&s, &token, &order1, "close").await;
    assert_eq!(figures(&s, &token, a).await, (1, 2000, usd(2000)));
    act(&s, &token, &order3, "place").await;
    assert_eq!(figures(&s, &token, a).await, (2, 2000, usd(2000)));
    act(&s, &token, &order3, "close").await;
    assert_eq!(figures(&s, &token, a).await, (2, 3500, usd(3500)));
    act(&s, &token, &order3, "ship").await;
    assert_eq!(figures(&s, &token, a).await, (2, 3500, usd(3500)));
    act(&s, &token, &order4, "place").await;
    assert_eq!(figures(&s, &token, a).await, (3, 3500, usd(3500)));
    act(&s, &token, &order4, "cancel").await;
    assert_eq!(figures(&s, &token, a).await, (2, 3500, usd(3500)));
    act(&s, &token, &order5, "place").await;
    act(&s, &token, &order5, "close").await;
    assert_eq!(figures(&s, &token, a).await, (3, 4500, usd(4500)));
    act(&s, &token, &order5, "cancel").await;
    assert_eq!(figures(&s, &token, a).await, (2, 3500, usd(3500)));
    // An order in another currency counts, and is spent in its own currency only.
    let (status, pesos_shop) = s
        .call(
            Method::POST,
            &format!("/v2/sellers/{}/shops", s.seller_id()),
            &token,
            Some(json!({"subdomain": "pesos-shop", "name": "Pesos", "currency_code": "CLP"})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{pesos_shop}");
    let empanada = s
        .create_product(
            &token,
            json!({"title": "Empanada", "status": "visible", "currency_code": "CLP",
                   "variants": [{"sku": "EMP", "price": 2500, "stock": 10}]}),
        )
        .await;
    let (status, in_pesos) = post_order(
        &s,
        &token,
        id_of(&pesos_shop),
        json!({"lines": [{"variant_id": empanada["_embedded"]["variants"][0]["id"], "quantity": 2}],
               "contact_id": a}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{in_pesos}");
    assert_eq!(in_pesos["currency_code"], "CLP");
    assert_eq!(in_pesos["contact_id"], a);
    act(&s, &token, &in_pesos, "place").await;
    act(&s, &token, &in_pesos, "close").await;
    let (count, spent, by_currency) = figures(&s, &token, a).await;
    assert_eq!((count, spent), (3, 3500));
    assert_eq!(
        by_currency,
        json!([{"currency_code": "CLP", "total": 5000}, {"currency_code": "USD", "total": 3500}])
    );
    let customer = get_customer(&s, &token, a).await;
    assert_eq!(customer["currency_code"], "USD");
    // The customer's orders, and the orders filtered by customer.
    let mine = [&order1, &order3, &order4, &order5, &in_pesos].map(id_of);
    assert_eq!(
        ids_at(&s, &token, &format!("{a_path}/orders?sort=id.asc")).await,
        mine
    );
    assert_eq!(
        ids_at(
            &s,
            &token,
            &format!("{a_path}/orders?status=closed&sort=id.asc")
        )
        .await,
        [id_of(&order1), id_of(&in_pesos)]
    );
    assert_eq!(
        ids_at(
            &s,
            &token,
            &format!("/v2/orders?contact_id={a}&sort=id.asc")
        )
        .await,
        mine
    );
    assert_eq!(
        ids_at(&s, &token, &format!("/v2/orders?contact_id={b}")).await,
        [id_of(&order2)]
    );
    // A customer's orders narrowed further by contact_id: only within the customer's.
    assert_eq!(
        ids_at(&s, &token, &format!("{a_path}/orders?contact_id={b}")).await,
        Vec::<i64>::new()
    );
    assert_eq!(
        ids_at(
            &s,
            &token,
            &format!("{a_path}/orders?contact_id={a},{b}&sort=id.asc")
        )
        .await,
        mine
    );
    let (status, unknown) = s
        .get_json(&format!("{a_path}/orders?colour=red"), &token)
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{unknown}");
    // Sorting customers by their figures: A (3, 3500), B (1, 1000), C (0, 0).
    let c = id_of(&create(&s, &token, json!({"name": "No Orders"})).await);
    for (sort, expected) in [
        ("orders_count.desc", [a, b, c]),
        ("orders_count.asc", [c, b, a]),
        ("total_spent.desc", [a, b, c]),
        ("total_spent.asc", [c, b, a]),
    ] {
        assert_eq!(
            ids_at(&s, &token, &format!("/v2/customers?sort={sort}")).await,
            expected,
            "{sort}"
        );
    }
    // Deleting the customer keeps its orders, their snapshot, and unlinks them.
    let orders_before = orders_in_db().await;
    let (status, deleted) = s.call(Method::DELETE, &a_path, &token, None).await;
    assert_eq!(status, StatusCode::OK, "{deleted}");
    assert_eq!(deleted["orders_count"], 3);
    assert_eq!(deleted["total_spent"], 3500);
    assert_eq!(s.event_count("customers.deleted").await, 1);
    assert_eq!(orders_in_db().await, orders_before);
    let read = get_order(&s, &token, &order1).await;
    assert_eq!(read["contact_id"], Value::Null);
    assert_eq!(read["email"], "Buyer@Example.com");
    assert_eq!(read["contact_name"], "Ana Buyer");
    assert_eq!(read["status"], "closed");
    assert!(read["_links"].get("customers:customer").is_none());
    for order in [&order3, &order4, &order5, &in_pesos] {
        assert_eq!(
            get_order(&s, &token, order).await["contact_id"],
            Value::Null
        );
    }
    assert_eq!(get_order(&s, &token, &order2).await["contact_id"], b);
    let gone = s.get_json(&format!("{a_path}/orders"), &token).await;
    assert_error(&gone, StatusCode::NOT_FOUND, "not_found");
}

async fn other_accounts_and_missing_scopes_see_and_change_nothing(s: TestServer) {
    let token = s.owner_token().await;
    let customer = create(
        &s,
        &token,
        json!({"email": "mine@example.com", "name": "Mine",
               "addresses": [{"street": "Av. Italia 1", "country_code": "CL"}]}),
    )
    .await;
    let path = format!("/v2/customers/{}", customer["id"]);
    let address_path = format!("{path}/addresses/{}", customer["addresses"][0]["id"]);
    // Another account finds none of it.
    let other = s.seed_another_account().await;
    let intruder = s.owner_token_of(&other).await;
    for (method, path, body) in [
        (Method::GET, path.clone(), None),
        (Method::PUT, path.clone(), Some(json!({"name": "Stolen"}))),
        (Method::DELETE, path.clone(), None),
        (Method::GET, format!("{path}/orders"), None),
        (Method::GET, format!("{path}/addresses"), None),
        (
            Method::POST,
            format!("{path}/addresses"),
            Some(json!({"street": "Elsewhere 1"})),
        ),
        (Method::GET, address_path.clone(), None),
        (
            Method::PUT,
            address_path.clone(),
            Some(json!({"street": "Elsewhere 1"})),
        ),
        (Method::DELETE, address_path.clone(), None),
    ] {
        let answer = s.call(method.clone(), &path, &intruder, body).await;
        assert_error(&answer, StatusCode::NOT_FOUND, "not_found");
    }
    assert_eq!(customers_total(&s, &intruder).await, 0);
    let (_, theirs) = s
        .get_json("/v2/customers?email=mine@example.com", &intruder)
        .await;
    assert_eq!(theirs["total_items"], 0);
    // The same email is free for another seller.
    create(&s, &intruder, json!({"email": "MINE@example.com"})).await;
    assert_eq!(customers_total(&s, &intruder).await, 1);
    assert_eq!(customers_total(&s, &token).await, 1);
    // Without a customers scope: 403.
    let scoped = |scope: &'static str| {
        let s = &s;
        async move {
            s.password_token(&s.demo.user.email, &s.demo.user.password, Some(scope))
                .await
        }
    };
    let no_customers = scoped("orders.read orders.write shops.read").await;
    for (method, path, body) in [
        (Method::GET, "/v2/customers".to_owned(), None),
        (
            Method::POST,
            "/v2/customers".to_owned(),
            Some(json!({"email": "new@example.com"})),
        ),
        (Method::GET, path.clone(), None),
        (Method::PUT, path.clone(), Some(json!({"name": "x"}))),
        (Method::DELETE, path.clone(), None),
        (Method::GET, format!("{path}/orders"), None),
        (Method::GET, format!("{path}/addresses"), None),
        (Method::GET, address_path.clone(), None),
    ] {
        let answer = s.call(method.clone(), &path, &no_customers, body).await;
        assert_error(&answer, StatusCode::FORBIDDEN, "insufficient_scope");
    }
    // Read-only: reads, no write links, no writes.
    let reader = scoped("customers.read").await;
    let read = get_customer(&s, &reader, id_of(&customer)).await;
    assert_eq!(read["email"], "mine@example.com");
    assert!(read["_links"]["self"].is_object());
    assert!(read["_links"]["customers:addresses"].is_object());
    for rel in [
        "customers:update",
        "customers:delete",
        "customers:create_address",
    ] {
        assert!(read["_links"].get(rel).is_none(), "{rel}: {read}");
    }
    let (status, address) = s.get_json(&address_path, &reader).await;
    assert_eq!(status, StatusCode::OK, "{address}");
    assert_eq!(rels(&address), ["customers:customer"]);
    assert_eq!(customers_total(&s, &reader).await, 1);
    for (method, path, body) in [
        (
            Method::POST,
            "/v2/customers".to_owned(),
            Some(json!({"email": "new@example.com"})),
        ),
        (Method::PUT, path.clone(), Some(json!({"name": "x"}))),
        (Method::DELETE, path.clone(), None),
        (
            Method::POST,
            format!("{path}/addresses"),
            Some(json!({"street": "x"})),
        ),
        (
            Method::PUT,
            address_path.clone(),
            Some(json!({"street": "x"})),
        ),
        (Method::DELETE, address_path.clone(), None),
        // The customer's orders need orders.read as well.
        (Method::GET, format!("{path}/orders"), None),
    ] {
        let answer = s.call(method.clone(), &path, &reader, body).await;
        assert_error(&answer, StatusCode::FORBIDDEN, "insufficient_scope");
    }
    let both = scoped("customers.read orders.read").await;
    let (status, list) = s.get_json(&format!("{path}/orders"), &both).await;
    assert_eq!(status, StatusCode::OK, "{list}");
    assert_eq!(list["total_items"], 0);
    // customers.write implies customers.read.
    let writer = scoped("customers.write").await;
    let (status, written) = s
        .call(
            Method::PUT,
            &path,
            &writer,
            Some(json!({"note": "by the writer"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{written}");
    assert_eq!(get_customer(&s, &writer, id_of(&customer)).await, written);
    // What was refused changed nothing.
    assert_eq!(written["name"], "Mine");
    assert_eq!(written["note"], "by the writer");
    assert_eq!(written["addresses"], customer["addresses"]);
    assert_eq!(s.event_count("customers.deleted").await, 0);
    assert_eq!(s.event_count("customers.updated").await, 1);
    // An order links its customer whoever creates it; the link shows with customers.read.
    let variant = stocked(&s, &token, "SCOPE", 100, 10).await;
    let (status, order) = post_order(
        &s,
        &no_customers,
        s.shop_id(),
        json!({"lines": [{"variant_id": variant}], "email": "mine@example.com"}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{order}");
    assert_eq!(order["contact_id"], customer["id"]);
    assert!(order["_links"].get("customers:customer").is_none());
    let read = get_order(&s, &token, &order).await;
    assert_eq!(read["_links"]["customers:customer"]["href"], s.url(&path));
}

async fn concurrent_orders_make_one_customer_and_exact_figures(s: TestServer) {
    const ORDERS: i64 = 8;
    let s = Arc::new(s);
    let token = s.owner_token().await;
    let variant = stocked(&s, &token, "RUSH", 100, 1000).await;
    // Eight orders at once with the same new email in several cases: one customer.
    let tasks: Vec<_> = (1..=ORDERS)
        .map(|quantity| {
            let (s, token) = (s.clone(), token.clone());
            let email = match quantity % 3 {
                0 => "rush@example.com",
                1 => "RUSH@example.com",
                _ => "Rush@Example.COM",
            };
            tokio::spawn(async move {
                post_order(
                    &s,
                    &token,
                    s.shop_id(),
                    json!({"lines": [{"variant_id": variant, "quantity": quantity}],
                           "email": email, "contact_name": "Rush Buyer"}),
                )
                .await
            })
        })
        .collect();
    let mut orders = Vec::new();
    for task in tasks {
        let (status, order) = task.await.unwrap();
        assert_eq!(status, StatusCode::CREATED, "{order}");
        orders.push(order);
    }
    orders.sort_by_key(|order| order["_embedded"]["lines"][0]["quantity"].as_i64().unwrap());
    let customer = orders[0]["contact_id"]
        .as_i64()
        .unwrap_or_else(|| panic!("linked: {}", orders[0]));
    for order in &orders {
        assert_eq!(order["contact_id"], customer, "{order}");
    }
    assert_eq!(s.event_count("customers.created").await, 1);
    assert_eq!(customers_total(&s, &token).await, 1);
    let (_, by_email) = s
        .get_json("/v2/customers?email=rush@example.com", &token)
        .await;
    assert_eq!(by_email["total_items"], 1);
    // Moves of all of them at once leave exact figures.
    let all_at_once = |action: &'static str, which: Vec<Value>| {
        let (s, token) = (s.clone(), token.clone());
        async move {
            let tasks: Vec<_> = which
                .into_iter()
                .map(|order| {
                    let (s, token) = (s.clone(), token.clone());
                    tokio::spawn(async move {
                        s.call(
                            Method::PUT,
                            &format!("/v2/orders/{}/{action}", order["id"]),
                            &token,
                            None,
                        )
                        .await
                    })
                })
                .collect();
            for task in tasks {
                let (status, moved) = task.await.unwrap();
                assert_eq!(status, StatusCode::OK, "{action}: {moved}");
            }
        }
    };
    all_at_once("place", orders.clone()).await;
    assert_eq!(figures(&s, &token, customer).await, (ORDERS, 0, json!([])));
    all_at_once("close", orders.clone()).await;
    // Totals 100, 200, … 800.
    let all: i64 = (1..=ORDERS).map(|q| q * 100).sum();
    assert_eq!(
        figures(&s, &token, customer).await,
        (ORDERS, all, json!([{"currency_code": "USD", "total": all}]))
    );
    // Half cancelled and half shipped, all at once.
    let (odd, even): (Vec<Value>, Vec<Value>) = orders
        .iter()
        .cloned()
        .partition(|order| order["_embedded"]["lines"][0]["quantity"].as_i64().unwrap() % 2 == 1);
    let shipped: i64 = even
        .iter()
        .map(|order| order["total"].as_i64().unwrap())
        .sum();
    assert_eq!(shipped, 2000);
    let cancel = all_at_once("cancel", odd);
    let ship = all_at_once("ship", even);
    tokio::join!(cancel, ship);
    assert_eq!(
        figures(&s, &token, customer).await,
        (
            ORDERS / 2,
            shipped,
            json!([{"currency_code": "USD", "total": shipped}])
        )
    );
    assert_eq!(s.event_count("customers.created").await, 1);
}
