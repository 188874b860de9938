//! What every endpoint shares: error bodies, unknown routes and methods, body limits,
//! media types, request ids, content negotiation, /v1, docs and operational endpoints.

use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::on_both_backends;
use crate::support::{Backend, TestServer, assert_error, error_fields, json};

on_both_backends!(
    unknown_routes_and_methods,
    body_limits_and_media_types,
    request_ids_and_negotiation,
    v1_is_a_deprecated_alias,
    health_readiness_and_metrics,
    garbage_never_causes_a_server_error,
);

async fn unknown_routes_and_methods(s: TestServer) {
    let token = s.owner_token().await;
    for path in [
        "/v2/nothing",
        "/nothing",
        "/v2/shops/1/nothing",
        "/docs/rels/nope/nothing",
    ] {
        let (status, body) = json(s.get(path, &token).send().await.unwrap()).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
        assert_eq!(body["_class"], json!(["error"]));
        assert_eq!(body["error"], "not_found");
    }
    let response = s
        .request(Method::DELETE, "/v2/shops", &token)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::METHOD_NOT_ALLOWED);
    let allow = response.headers()["allow"].to_str().unwrap().to_owned();
    assert!(allow.contains("GET"), "{allow}");
    let (_, body) = json(response).await;
    assert_eq!(body["error"], "method_not_allowed");
    assert_eq!(body["status"], 405);
}

async fn body_limits_and_media_types(backend: Backend) {
    let s = TestServer::start_with(backend, |c| c.max_body_bytes = 2048).await;
    let token = s.owner_token().await;
    let path = format!("/v2/shops/{}", s.shop_id());
    let put = |content_type: &'static str, body: String| {
        s.send_raw(Method::PUT, &path, &token, content_type, body)
    };
    let big = json!({"description": "x".repeat(4096)}).to_string();
    assert_error(
        &put("application/json", big).await,
        StatusCode::PAYLOAD_TOO_LARGE,
        "payload_too_large",
    );
    assert_error(
        &put("text/plain", "name=Plain".into()).await,
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "unsupported_media_type",
    );
    let (status, body) = put("application/json; charset=utf-8", "{\"name\": 5}".into()).await;
    assert_eq!(
        (status, error_fields(&body)),
        (StatusCode::UNPROCESSABLE_ENTITY, vec!["name".to_owned()])
    );
    for malformed in ["{", "{\"name\": }", "nul", "{\"a\":1}}"] {
        let answer = put("application/json", malformed.into()).await;
        assert_error(&answer, StatusCode::BAD_REQUEST, "malformed_json");
        assert_eq!(error_fields(&answer.1), ["body"]);
    }
    let (status, body) = put("application/json", "[1, 2]".into()).await;
    assert_eq!(
        (status, error_fields(&body)),
        (StatusCode::UNPROCESSABLE_ENTITY, vec!["body".to_owned()])
    );
}

async fn request_ids_and_negotiation(s: TestServer) {
    let token = s.owner_token().await;
    let ok = s.get("/v2", &token).send().await.unwrap();
    let id = ok.headers()["x-request-id"].to_str().unwrap().to_owned();
    assert_eq!(id.len(), 24);
    assert_eq!(
        ok.headers()["content-type"],
        "application/json; charset=utf-8"
    );
    let second = s.get("/v2", &token).send().await.unwrap();
    assert_ne!(second.headers()["x-request-id"].to_str().unwrap(), id);
    let echoed = s
        .get("/v2", &token)
        .header("x-request-id", "trace-me-123")
        .send()
        .await
        .unwrap();
    assert_eq!(echoed.headers()["x-request-id"], "trace-me-123");
    let error = s.client.get(s.url("/v2")).send().await.unwrap();
    assert!(
        error.headers().contains_key("x-request-id"),
        "errors carry one too"
    );
    let hal = s
        .get("/v2", &token)
        .header("accept", "application/hal+json")
        .send()
        .await
        .unwrap();
    assert_eq!(
        hal.headers()["content-type"],
        "application/hal+json; charset=utf-8"
    );
    let either = s
        .get("/v2", &token)
        .header("accept", "application/hal+json, application/json")
        .send()
        .await
        .unwrap();
    assert_eq!(
        either.headers()["content-type"],
        "application/json; charset=utf-8"
    );
}

async fn v1_is_a_deprecated_alias(s: TestServer) {
    let token = s.owner_token().await;
    let path = format!("/shops/{}", s.shop_id());
    let v1 = s.get(&format!("/v1{path}"), &token).send().await.unwrap();
    assert_eq!(v1.status(), StatusCode::OK);
    let headers = v1.headers().clone();
    assert!(headers["deprecation"].to_str().unwrap().starts_with('@'));
    assert!(headers["sunset"].to_str().unwrap().ends_with("GMT"));
    assert_eq!(
        headers["link"].to_str().unwrap(),
        format!(
            "<{}>; rel=\"successor-version\"",
            s.url(&format!("/v2{path}"))
        )
    );
    let (_, mut v1_body) = json(v1).await;
    let (_, mut v2_body) = json(s.get(&format!("/v2{path}"), &token).send().await.unwrap()).await;
    // The same resource; only its links are in the v1 profile (see `v1_profile`).
    let v1_links = v1_body.as_object_mut().unwrap().remove("_links").unwrap();
    v2_body.as_object_mut().unwrap().remove("_links");
    assert_eq!(v1_body, v2_body, "same handler, same properties");
    assert_eq!(
        v1_links["self"]["href"],
        s.url(&format!("/v1{path}")),
        "links stay under /v1"
    );
    let v2 = s.get(&format!("/v2{path}"), &token).send().await.unwrap();
    assert!(v2.headers().get("deprecation").is_none());
    let root = s.get("/v1", &token).send().await.unwrap();
    assert_eq!(root.status(), StatusCode::OK);
    assert!(
        root.headers()["link"]
            .to_str()
            .unwrap()
            .contains(&format!("<{}>", s.url("/v2")))
    );
}

async fn health_readiness_and_metrics(s: TestServer) {
    let token = s.owner_token().await;
    let (status, health) = json(s.client.get(s.url("/healthz")).send().await.unwrap()).await;
    assert_eq!(
        (status, health["status"].as_str()),
        (StatusCode::OK, Some("ok"))
    );
    let (status, ready) = json(s.client.get(s.url("/readyz")).send().await.unwrap()).await;
    assert_eq!(status, StatusCode::OK);
    let expected = match s.db.backend {
        Backend::Sqlite => "sqlite",
        Backend::Postgres => "postgres",
    };
    assert_eq!(ready["database"], expected);
    s.get(&format!("/v2/shops/{}", s.shop_id()), &token)
        .send()
        .await
        .unwrap();
    s.get("/v2/nothing", &token).send().await.unwrap();
    let metrics = s.metrics().await;
    assert!(
        metrics.contains(
            "http_requests_total{method=\"GET\",route=\"/v2/shops/{id}\",status=\"200\"} 1"
        ),
        "{metrics}"
    );
    assert!(
        metrics.contains("route=\"unmatched\",status=\"404\""),
        "{metrics}"
    );
    assert!(metrics.contains("http_request_duration_seconds_bucket{"));
    assert!(metrics.contains("db_pool_connections{pool="));
    let docs = s.client.get(s.url("/docs/rels")).send().await.unwrap();
    assert_eq!(docs.status(), StatusCode::OK);
    assert!(docs.text().await.unwrap().contains("/docs/rels/shops"));
}

async fn garbage_never_causes_a_server_error(s: TestServer) {
    let token = s.owner_token().await;
    let seller = format!("/v2/sellers/{}/shops", s.seller_id());
    let shop = format!("/v2/shops/{}", s.shop_id());
    let bodies: [&[u8]; 8] = [
        b"",
        b"\xff\xfe\x00garbage",
        b"{\"subdomain\": \"\\ud800\", \"name\": \"x\"}",
        b"{\"subdomain\": null, \"name\": null}",
        b"{\"subdomain\": \"ok-sub\", \"name\": \"x\", \"description\": {\"deep\": [[[[]]]]}}",
        b"{\"subdomain\": \"ok-sub2\", \"name\": \"\\u0000\"}",
        b"99999999999999999999999999",
        b"{\"subdomain\": 1e999}",
    ];
    for (method, path) in [
        (Method::POST, seller.as_str()),
        (Method::PUT, shop.as_str()),
    ] {
        for body in bodies {
            let response = s
                .request(method.clone(), path, &token)
                .header("content-type", "application/json")
                .body(body.to_vec())
                .send()
                .await
                .unwrap();
            let status = response.status();
            assert!(
                status.is_client_error() || status.is_success(),
                "{method} {path} {body:?} → {status}"
            );
        }
    }
    for query in [
        "page=%ff",
        "per_page=1e3",
        "sort=",
        "q=%00",
        "created_on.gte=2026-02-30",
        "seller_ids=99999999999999999999",
    ] {
        let status = s
            .get(&format!("/v2/shops?{query}"), &token)
            .send()
            .await
            .unwrap()
            .status();
        assert!(
            status.is_client_error() || status.is_success(),
            "{query} → {status}"
        );
    }
    for path in [
        "/v2/shops/99999999999999999999",
        "/v2/shops/-1",
        "/v2/shops/%00",
        "/v2/sellers/1.5",
    ] {
        let status = s.get(path, &token).send().await.unwrap().status();
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
    }
}
