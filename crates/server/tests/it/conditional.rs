//! ETag, Last-Modified, 304 and If-Match.

use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::on_both_backends;
use crate::support::{TestServer, expect_error, json};

on_both_backends!(
    unchanged_resources_answer_304,
    etags_follow_the_body_and_the_token,
    if_match_guards_writes,
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
