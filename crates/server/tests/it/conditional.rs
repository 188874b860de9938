//! ETag, Last-Modified, 304 and If-Match.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::on_both_backends;
use crate::support::{Backend, TestServer, eventually, expect_error, json};

on_both_backends!(
    unchanged_resources_answer_304,
    etags_follow_the_body_and_the_token,
    if_match_guards_writes,
    unchanged_reads_are_answered_without_reading,
    every_read_of_an_accounts_data_takes_the_shortcut,
    unchanged_reads_are_served_from_the_remembered_answer,
);

async fn unchanged_resources_answer_304(s: TestServer) {
    let token = s.owner_token().await;
    let path = format!("/v2/shops/{}", s.shop_id());
    for path in [path.as_str(), "/v2", "/v2/shops", "/v2/sellers"] {
        let first = s.get(path, &token).send().await.unwrap();
        assert_eq!(first.status(), StatusCode::OK);
        let headers = first.headers().clone();
        assert_eq!(
            headers["cache-control"],
            "private, max-age=0, must-revalidate"
        );
        assert!(headers["vary"].to_str().unwrap().contains("Authorization"));
        assert!(headers.contains_key("last-modified"), "{path}");
        let etag = headers["etag"].to_str().unwrap().to_owned();
        let again = s
            .get(path, &token)
            .header("if-none-match", &etag)
            .send()
            .await
            .unwrap();
        assert_eq!(again.status(), StatusCode::NOT_MODIFIED, "{path}");
        assert_eq!(again.headers()["etag"].to_str().unwrap(), etag);
        assert!(again.text().await.unwrap().is_empty(), "304 has no body");
        let other = s
            .get(path, &token)
            .header("if-none-match", "\"other\"")
            .send()
            .await
            .unwrap();
        assert_eq!(other.status(), StatusCode::OK);
    }
    // If-Modified-Since on a single resource.
    let first = s.get(&path, &token).send().await.unwrap();
    let modified = first.headers()["last-modified"]
        .to_str()
        .unwrap()
        .to_owned();
    let since = s
        .get(&path, &token)
        .header("if-modified-since", &modified)
        .send()
        .await
        .unwrap();
    assert_eq!(since.status(), StatusCode::NOT_MODIFIED);
    let long_ago = s
        .get(&path, &token)
        .header("if-modified-since", "Thu, 01 Jan 2015 00:00:00 GMT")
        .send()
        .await
        .unwrap();
    assert_eq!(long_ago.status(), StatusCode::OK);
    // If-None-Match wins over If-Modified-Since.
    let both = s
        .get(&path, &token)
        .header("if-none-match", "\"other\"")
        .header("if-modified-since", &modified)
        .send()
        .await
        .unwrap();
    assert_eq!(both.status(), StatusCode::OK);
}

async fn etag_of(s: &TestServer, path: &str, token: &str) -> String {
    s.get(path, token).send().await.unwrap().headers()["etag"]
        .to_str()
        .unwrap()
        .to_owned()
}

async fn etags_follow_the_body_and_the_token(s: TestServer) {
    let token = s.owner_token().await;
    let path = format!("/v2/shops/{}", s.shop_id());
    let before = etag_of(&s, &path, &token).await;
    let response = s
        .request(Method::PUT, &path, &token)
        .json(&json!({"name": "Changed"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let after = etag_of(&s, &path, &token).await;
    assert_ne!(before, after, "a change changes the ETag");
    let stale = s
        .get(&path, &token)
        .header("if-none-match", &before)
        .send()
        .await
        .unwrap();
    assert_eq!(stale.status(), StatusCode::OK);
    // Another token whose links differ gets another ETag for the same shop.
    let reader = s
        .password_token(
            &s.demo.user.email,
            &s.demo.user.password,
            Some("shops.read"),
        )
        .await;
    assert_ne!(etag_of(&s, &path, &reader).await, after);
    // A token with the same permissions gets the same one.
    let twin = s.owner_token().await;
    assert_eq!(etag_of(&s, &path, &twin).await, after);
}

async fn if_match_guards_writes(s: TestServer) {
    let token = s.owner_token().await;
    let path = format!("/v2/shops/{}", s.shop_id());
    let etag = etag_of(&s, &path, &token).await;
    let refused = s
        .request(Method::PUT, &path, &token)
        .header("if-match", "\"not-the-current-one\"")
        .json(&json!({"name": "Lost update"}))
        .send()
        .await
        .unwrap();
    let (status, body) = json(refused).await;
    expect_error(
        status,
        &body,
        StatusCode::PRECONDITION_FAILED,
        "precondition_failed",
    );
    let (_, shop) = json(s.get(&path, &token).send().await.unwrap()).await;
    assert_eq!(shop["name"], "Demo Store", "nothing changed");
    assert_eq!(s.event_count("shops.updated").await, 0);
    let stale_date = s
        .request(Method::PUT, &path, &token)
        .header("if-unmodified-since", "Thu, 01 Jan 2015 00:00:00 GMT")
        .json(&json!({"name": "Lost update"}))
        .send()
        .await
        .unwrap();
    assert_eq!(stale_date.status(), StatusCode::PRECONDITION_FAILED);
    let accepted = s
        .request(Method::PUT, &path, &token)
        .header("if-match", &etag)
        .json(&json!({"name": "Guarded update"}))
        .send()
        .await
        .unwrap();
    assert_eq!(accepted.status(), StatusCode::OK);
    // The old ETag no longer matches.
    let again = s
        .request(Method::PUT, &path, &token)
        .header("if-match", &etag)
        .json(&json!({"name": "Second"}))
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), StatusCode::PRECONDITION_FAILED);
    let star = s
        .request(Method::PUT, &path, &token)
        .header("if-match", "*")
        .json(&json!({"name": "Any version"}))
        .send()
        .await
        .unwrap();
    assert_eq!(star.status(), StatusCode::OK);
}

/// A conditional read's answer and the queries it cost.
async fn revalidate(s: &TestServer, path: &str, token: &str, etag: &str) -> (StatusCode, u32) {
    let answer = s
        .get(path, token)
        .header("if-none-match", etag)
        .send()
        .await
        .unwrap();
    let queries = answer.headers()["x-db-queries"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    (answer.status(), queries)
}

/// What a conditional read answered by the shortcut costs: nothing where the server keeps
/// the commit clock (SQLite), one small read of the account's commit count (PostgreSQL).
fn shortcut_queries(s: &TestServer) -> u32 {
    match s.db.backend {
        Backend::Sqlite => 0,
        Backend::Postgres => 1,
    }
}

/// Each read is still unchanged: `304` with its tag and the headers of a read that reads,
/// answered without reading where the server keeps the commit clock (SQLite), or with one
/// small read of the account's commit count (PostgreSQL, once a first conditional read
/// has armed the shortcut).
async fn all_unchanged(s: &TestServer, reads: &[(String, String)], tags: &[String]) {
    for ((path, token), etag) in reads.iter().zip(tags) {
        let (status, _) = revalidate(s, path, token, etag).await;
        assert_eq!(status, StatusCode::NOT_MODIFIED, "{path}");
        let answer = s
            .get(path, token)
            .header("if-none-match", etag)
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), StatusCode::NOT_MODIFIED, "{path}");
        assert_eq!(
            answer.headers()["x-db-queries"].to_str().unwrap(),
            shortcut_queries(s).to_string(),
            "{path} is answered by the shortcut"
        );
        assert_eq!(answer.headers()["etag"].to_str().unwrap(), etag);
        assert!(answer.headers().contains_key("cache-control"), "{path}");
        assert!(answer.headers().contains_key("vary"), "{path}");
        assert!(answer.text().await.unwrap().is_empty());
    }
}

/// A write through the API, which must answer `expected`.
async fn write(
    s: &TestServer,
    method: Method,
    path: &str,
    token: &str,
    body: Value,
    expected: StatusCode,
) {
    let (status, answer) = s.call(method.clone(), path, token, Some(body)).await;
    assert_eq!(status, expected, "{method} {path}: {answer}");
}

/// Each read is read again: what it shows changed.
async fn changed(s: &TestServer, reads: &[(String, String)], tags: &[String]) {
    for ((path, token), etag) in reads.iter().zip(tags) {
        let (status, _) = revalidate(s, path, token, etag).await;
        assert_eq!(status, StatusCode::OK, "{path} changed");
    }
}

async fn tags_of(s: &TestServer, reads: &[(String, String)]) -> Vec<String> {
    let mut tags = Vec::new();
    for (path, token) in reads {
        tags.push(etag_of(s, path, token).await);
    }
    tags
}

/// Retitles a product from outside the server, as another process (or node) would, and
/// waits until the server has noticed: within moments on SQLite, at once on PostgreSQL.
/// Whatever the test wrote outside the server before is noticed with it.
async fn retitle_outside(s: &TestServer, token: &str, id: i64, title: &str) {
    let path = format!("/v2/products/{id}");
    let tag = etag_of(s, &path, token).await;
    revalidate(s, &path, token, &tag).await;
    s.db.execute(&format!(
        "UPDATE products SET title = '{title}' WHERE id = {id}"
    ))
    .await;
    if s.db.backend == Backend::Postgres {
        // Another node's commit counts at once: the very next conditional read reads.
        let (status, _) = revalidate(s, &path, token, &tag).await;
        assert_eq!(status, StatusCode::OK);
    }
    eventually("the product read again after an outside commit", || async {
        let (status, _) = revalidate(s, &path, token, &tag).await;
        (status == StatusCode::OK).then_some(())
    })
    .await;
    let (_, seen) = s.get_json(&path, token).await;
    assert_eq!(seen["title"], title);
}

async fn unchanged_reads_are_answered_without_reading(s: TestServer) {
    let other = s.seed_another_account().await;
    let other_owner = s.owner_token_of(&other).await;
    let owner = s.owner_token().await;
    let product = s
        .create_product(
            &owner,
            json!({"title": "Lamp", "status": "visible",
                   "variants": [{"sku": "L-1", "price": 900, "stock": 3}]}),
        )
        .await;
    let id = product["id"].as_i64().unwrap();
    let variant = format!(
        "/v2/products/{id}/variants/{}",
        product["_embedded"]["variants"][0]["id"]
    );
    let (client_id, secret) = s
        .register_app(None, "public", "client_credentials", false)
        .await;
    let public = s.client_credentials_token(&client_id, &secret, None).await;
    let storefront = format!("/v2/products?shop_subdomains={}", s.demo.shops[0].subdomain);
    let reads = [
        (format!("/v2/products/{id}"), owner.clone()),
        ("/v2/products?per_page=5".to_owned(), owner.clone()),
        (storefront.clone(), public.clone()),
        (format!("/v2/shops/{}", s.shop_id()), owner.clone()),
    ];
    // Another process's (or node's) commit is noticed, with the test's own setup.
    retitle_outside(&s, &owner, id, "Changed outside").await;
    let tags = tags_of(&s, &reads).await;
    all_unchanged(&s, &reads, &tags).await;

    // Another account's writes change nothing here.
    s.create_product(
        &other_owner,
        json!({"title": "Elsewhere", "variants": [{"sku": "E", "price": 1}]}),
    )
    .await;
    all_unchanged(&s, &reads, &tags).await;

    // A write that fails changes nothing either.
    write(
        &s,
        Method::PUT,
        &format!("/v2/products/{id}"),
        &owner,
        json!({"title": ""}),
        StatusCode::UNPROCESSABLE_ENTITY,
    )
    .await;
    all_unchanged(&s, &reads, &tags).await;

    // A variant's stock is shown by its product and the lists.
    write(
        &s,
        Method::POST,
        &format!("{variant}/stock_adjustments"),
        &owner,
        json!({"delta": 2}),
        StatusCode::OK,
    )
    .await;
    changed(&s, &reads[..3], &tags).await;
    let tags = tags_of(&s, &reads).await;
    all_unchanged(&s, &reads, &tags).await;

    // The shop's name, shown by the shop alone.
    write(
        &s,
        Method::PUT,
        &reads[3].0,
        &owner,
        json!({"name": "Renamed"}),
        StatusCode::OK,
    )
    .await;
    changed(&s, &reads[3..], &tags[3..]).await;
    let (_, shop) = s.get_json(&reads[3].0, &owner).await;
    assert_eq!(shop["name"], "Renamed");

    // Hidden from the storefront: the public list no longer shows the product.
    let tags = tags_of(&s, &reads).await;
    write(
        &s,
        Method::PUT,
        &format!("/v2/products/{id}"),
        &owner,
        json!({"status": "hidden"}),
        StatusCode::OK,
    )
    .await;
    changed(&s, &reads[..3], &tags).await;
    let (_, list) = s.get_json(&storefront, &public).await;
    assert!(
        !list["_embedded"]["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|item| item["id"] == id),
        "{list}"
    );
    // A shop that does not exist could come to: such reads are always read.
    let nowhere = "/v2/products?shop_subdomains=nowhere";
    let etag = etag_of(&s, nowhere, &public).await;
    let (status, queries) = revalidate(&s, nowhere, &public, &etag).await;
    assert_eq!(status, StatusCode::NOT_MODIFIED);
    assert!(queries > 0);
}

async fn every_read_of_an_accounts_data_takes_the_shortcut(s: TestServer) {
    let owner = s.owner_token().await;
    let product = s
        .create_product(
            &owner,
            json!({"title": "Kettle", "variants": [{"price": 10}]}),
        )
        .await;
    retitle_outside(&s, &owner, product["id"].as_i64().unwrap(), "Outside").await;
    let variant = format!(
        "/v2/products/{}/variants/{}",
        product["id"], product["_embedded"]["variants"][0]["id"]
    );
    let reads: Vec<(String, String)> = [
        "/v2",
        "/v2/sellers",
        "/v2/shops",
        "/v2/product_types",
        "/v2/collections",
        &variant,
        "/v2/price_lists",
        "/v2/orders",
    ]
    .into_iter()
    .map(|path| (path.to_owned(), owner.clone()))
    .collect();
    let tags = tags_of(&s, &reads).await;
    all_unchanged(&s, &reads, &tags).await;
    let shop = format!("/v2/shops/{}", s.shop_id());
    let line = json!({"variant_id": product["_embedded"]["variants"][0]["id"], "quantity": 1});
    // Each write, and the reads that show what it changed.
    let writes = [
        (
            Method::POST,
            "/v2/collections".to_owned(),
            json!({"title": "New"}),
            4..5,
        ),
        (
            Method::POST,
            "/v2/price_lists".to_owned(),
            json!({"name": "Wholesale"}),
            6..7,
        ),
        (
            Method::POST,
            format!("{shop}/orders"),
            json!({"lines": [line]}),
            7..8,
        ),
        // The shop, embedded in the root document, its seller and the list of shops.
        (Method::PUT, shop.clone(), json!({"name": "Renamed"}), 0..3),
    ];
    for (method, path, body, shown_by) in writes {
        let expected = if method == Method::POST {
            StatusCode::CREATED
        } else {
            StatusCode::OK
        };
        write(&s, method, &path, &owner, body, expected).await;
        changed(&s, &reads[shown_by.clone()], &tags[shown_by]).await;
    }
}

/// An unconditional read: its status, headers, body and the queries it cost.
async fn read(
    s: &TestServer,
    method: Method,
    path: &str,
    token: &str,
    headers: &[(&str, &str)],
) -> (StatusCode, reqwest::header::HeaderMap, Vec<u8>, u32) {
    let mut request = s.request(method, path, token);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let answer = request.send().await.unwrap();
    let status = answer.status();
    let headers = answer.headers().clone();
    let queries = headers["x-db-queries"].to_str().unwrap().parse().unwrap();
    (
        status,
        headers,
        answer.bytes().await.unwrap().to_vec(),
        queries,
    )
}

async fn unchanged_reads_are_served_from_the_remembered_answer(s: TestServer) {
    let owner = s.owner_token().await;
    let product = s
        .create_product(
            &owner,
            json!({"title": "Lamp", "variants": [{"sku": "L-1", "price": 900}]}),
        )
        .await;
    let path = format!("/v2/products/{}", product["id"]);
    // The first read remembers the answer; on PostgreSQL the second arms it with the
    // account's commit count. An answer the handler made has no `Age`.
    let (_, made, body, _) = read(&s, Method::GET, &path, &owner, &[]).await;
    assert!(!made.contains_key("age"));
    read(&s, Method::GET, &path, &owner, &[]).await;

    let (status, served, served_body, queries) = read(&s, Method::GET, &path, &owner, &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(queries, shortcut_queries(&s), "served without reading");
    assert_eq!(served["age"], "0");
    assert_eq!(served_body, body);
    for name in [
        "etag",
        "last-modified",
        "cache-control",
        "vary",
        "content-type",
    ] {
        assert_eq!(served.get(name), made.get(name), "{name}");
    }
    assert_eq!(
        served["content-length"].to_str().unwrap(),
        body.len().to_string()
    );
    assert_ne!(served["x-request-id"], made["x-request-id"]);

    // The content type still follows the request's `Accept`; the body is the same.
    let hal = [("accept", "application/hal+json")];
    let (_, headers, hal_body, queries) = read(&s, Method::GET, &path, &owner, &hal).await;
    assert_eq!(queries, shortcut_queries(&s));
    assert!(
        headers["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/hal+json")
    );
    assert_eq!(hal_body, body);

    // A tag that is not the answer's: the body; an old enough date: 304.
    let stale = [("if-none-match", "\"old\"")];
    let (status, headers, stale_body, _) = read(&s, Method::GET, &path, &owner, &stale).await;
    assert_eq!((status, stale_body), (StatusCode::OK, body.clone()));
    assert!(headers.contains_key("age"));
    let since = [("if-modified-since", made["last-modified"].to_str().unwrap())];
    let (status, _, empty, queries) = read(&s, Method::GET, &path, &owner, &since).await;
    assert_eq!((status, empty.len()), (StatusCode::NOT_MODIFIED, 0));
    assert_eq!(queries, shortcut_queries(&s));

    // HEAD: the headers alone.
    let (status, headers, empty, _) = read(&s, Method::HEAD, &path, &owner, &[]).await;
    assert_eq!((status, empty.len()), (StatusCode::OK, 0));
    assert_eq!(headers.get("etag"), made.get("etag"));
    assert!(headers.contains_key("age"));

    // A HEAD that comes first remembers the whole answer: the GET after it gets the body.
    let third = s.owner_token().await;
    read(&s, Method::HEAD, &path, &third, &[]).await;
    read(&s, Method::HEAD, &path, &third, &[]).await;
    let (_, headers, after_head, _) = read(&s, Method::GET, &path, &third, &[]).await;
    assert!(headers.contains_key("age"));
    assert_eq!(after_head, body);

    // `no-cache` is answered by the handler.
    for asked in [("cache-control", "no-cache"), ("pragma", "no-cache")] {
        let (_, headers, fresh_body, _) = read(&s, Method::GET, &path, &owner, &[asked]).await;
        assert!(!headers.contains_key("age"), "{asked:?}");
        assert_eq!(fresh_body, body);
    }

    // Another token of the account has its own answer.
    let other = s.owner_token().await;
    let (_, headers, _, _) = read(&s, Method::GET, &path, &other, &[]).await;
    assert!(!headers.contains_key("age"));

    // A write by that token: the next read shows it, and is remembered in turn.
    write(
        &s,
        Method::PUT,
        &path,
        &other,
        json!({"title": "Brighter lamp"}),
        StatusCode::OK,
    )
    .await;
    let (_, headers, changed_body, _) = read(&s, Method::GET, &path, &owner, &[]).await;
    assert!(!headers.contains_key("age"));
    assert_ne!(headers.get("etag"), made.get("etag"));
    let shown: Value = serde_json::from_slice(&changed_body).unwrap();
    assert_eq!(shown["title"], "Brighter lamp");
    read(&s, Method::GET, &path, &owner, &[]).await;
    let (_, headers, again, queries) = read(&s, Method::GET, &path, &owner, &[]).await;
    assert!(headers.contains_key("age"));
    assert_eq!((again, queries), (changed_body, shortcut_queries(&s)));
}
