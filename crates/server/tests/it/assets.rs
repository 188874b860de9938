//! Product images: uploads as JSON or multipart, their checks and limits, the public file
//! with its caching, and deletion.

use base64::Engine;
use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::on_both_backends;
use crate::support::{Backend, TestServer, error_fields, item_ids, json};

on_both_backends!(
    upload_serve_and_delete_images,
    uploads_are_checked_and_limited
);

/// A 1×1 PNG.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

/// A 3×2 GIF (header and logical screen descriptor are what identify it).
fn gif() -> Vec<u8> {
    let mut bytes = b"GIF89a".to_vec();
    bytes.extend_from_slice(&[3, 0, 2, 0, 0, 0, 0]);
    bytes.extend_from_slice(&[0x2c, 0, 0, 0, 0, 3, 0, 2, 0, 0, 2, 2, 0x44, 0x01, 0, 0x3b]);
    bytes
}

fn png() -> Vec<u8> {
    base64::engine::general_purpose::STANDARD
        .decode(PNG)
        .unwrap()
}

async fn upload_serve_and_delete_images(s: TestServer) {
    let token = s.owner_token().await;
    let product = s
        .create_product(
            &token,
            json!({"title": "Pictured", "variants": [{"price": 1}, {"price": 2}]}),
        )
        .await;
    let path = format!("/v2/products/{}", product["id"]);
    let assets = format!("{path}/assets");
    // JSON with base64.
    let (status, image) = s
        .call(
            Method::POST,
            &assets,
            &token,
            Some(json!({"file_name": "dot.png", "data": PNG})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{image}");
    assert_eq!(image["content_type"], "image/png");
    assert_eq!(
        (image["width"].clone(), image["height"].clone()),
        (json!(1), json!(1))
    );
    assert_eq!(image["byte_size"], png().len());
    assert_eq!(image["position"], 1);
    // Multipart; the type comes from the bytes, not the client.
    let form = reqwest::multipart::Form::new().part(
        "file",
        reqwest::multipart::Part::bytes(gif())
            .file_name("pixel art.gif")
            .mime_str("image/png")
            .unwrap(),
    );
    let response = s
        .request(Method::POST, &assets, &token)
        .multipart(form)
        .send()
        .await
        .unwrap();
    let (status, second) = json(response).await;
    assert_eq!(status, StatusCode::CREATED, "{second}");
    assert_eq!(second["content_type"], "image/gif");
    assert_eq!(
        (second["width"].clone(), second["height"].clone()),
        (json!(3), json!(2))
    );
    assert_eq!(second["file_name"], "pixel art.gif");
    assert_eq!(s.event_count("products.updated.assets.created").await, 2);
    // The file is public, typed from its bytes and cached for good.
    let url = image["url"].as_str().unwrap();
    assert_eq!(image["_links"]["enclosure"]["href"], url);
    let file = s.client.get(url).send().await.unwrap();
    assert_eq!(file.status(), StatusCode::OK);
    assert_eq!(file.headers()["content-type"], "image/png");
    assert_eq!(
        file.headers()["cache-control"],
        "public, max-age=31536000, immutable"
    );
    assert_eq!(file.headers()["x-content-type-options"], "nosniff");
    let etag = file.headers()["etag"].to_str().unwrap().to_owned();
    assert_eq!(file.bytes().await.unwrap().to_vec(), png());
    let again = s
        .client
        .get(url)
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
    let digest = url.rsplit('/').nth(1).unwrap();
    let forged = url.replace(digest, &"0".repeat(64));
    assert_eq!(
        s.client.get(&forged).send().await.unwrap().status(),
        StatusCode::NOT_FOUND
    );
    // The product embeds its images; a variant may show them.
    let (_, with_images) = s.get_json(&path, &token).await;
    let embedded: Vec<i64> = with_images["_embedded"]["images"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_i64().unwrap())
        .collect();
    assert_eq!(
        embedded,
        [
            image["id"].as_i64().unwrap(),
            second["id"].as_i64().unwrap()
        ]
    );
    let variant = format!(
        "{path}/variants/{}",
        product["_embedded"]["variants"][0]["id"]
    );
    let (status, shown) = s
        .call(
            Method::PUT,
            &variant,
            &token,
            Some(json!({"image_ids": [image["id"], second["id"]]})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{shown}");
    let (_, list) = s.get_json(&assets, &token).await;
    assert_eq!(item_ids(&list), embedded);
    // Deleting an image takes it off its variants and its file away.
    let one = format!("{assets}/{}", image["id"]);
    let (status, deleted) = s.call(Method::DELETE, &one, &token, None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(deleted["id"], image["id"]);
    assert_eq!(s.event_count("products.updated.assets.deleted").await, 1);
    let (_, v) = s.get_json(&variant, &token).await;
    assert_eq!(v["image_ids"], json!([second["id"]]));
    assert_eq!(
        s.client.get(url).send().await.unwrap().status(),
        StatusCode::NOT_FOUND
    );
    let (status, _) = s.get_json(&one, &token).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

async fn uploads_are_checked_and_limited(backend: Backend) {
    let s = TestServer::start_with(backend, |c| c.max_asset_bytes = 2048).await;
    let token = s.owner_token().await;
    let product = s
        .create_product(&token, json!({"title": "P", "price": 1}))
        .await;
    let assets = format!("/v2/products/{}/assets", product["id"]);
    let cases = [
        (
            json!({"data": "bm90IGFuIGltYWdl"}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "data",
        ),
        (
            json!({"data": "***"}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "data",
        ),
        (
            json!({"data": PNG, "file_name": "a/b.png"}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "file_name",
        ),
    ];
    for (body, expected, field) in cases {
        let (status, answer) = s.call(Method::POST, &assets, &token, Some(body)).await;
        assert_eq!(status, expected, "{answer}");
        assert_eq!(error_fields(&answer), [field]);
    }
    let (status, answer) = s
        .call(
            Method::POST,
            &assets,
            &token,
            Some(json!({"file_name": "x.png"})),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(error_fields(&answer), ["data"]);
    let big = base64::engine::general_purpose::STANDARD.encode(vec![0_u8; 4096]);
    let (status, answer) = s
        .call(Method::POST, &assets, &token, Some(json!({"data": big})))
        .await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{answer}");
    let form = reqwest::multipart::Form::new()
        .part("file", reqwest::multipart::Part::bytes(vec![1_u8; 4096]));
    let response = s
        .request(Method::POST, &assets, &token)
        .multipart(form)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::PAYLOAD_TOO_LARGE);
    let (status, _) = s
        .send_raw(Method::POST, &assets, &token, "image/png", png())
        .await;
    assert_eq!(status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    // A data: URL is fine; without a name the image gets one from its type.
    let (status, image) = s
        .call(
            Method::POST,
            &assets,
            &token,
            Some(json!({"data": format!("data:image/png;base64,{PNG}")})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{image}");
    assert_eq!(image["file_name"], "image.png");
    assert_eq!(s.db.scalar("SELECT COUNT(*) FROM product_assets").await, 1);
    // Read-only tokens cannot upload; other accounts cannot see.
    let reader = s
        .password_token(
            &s.demo.user.email.clone(),
            &s.demo.user.password.clone(),
            Some("products.read"),
        )
        .await;
    let (status, _) = s
        .call(Method::POST, &assets, &reader, Some(json!({"data": PNG})))
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let other = s.seed_another_account().await;
    let theirs = s.owner_token_of(&other).await;
    let (status, _) = s.get_json(&assets, &theirs).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}
