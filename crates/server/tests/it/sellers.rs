//! Sellers (read-only).

use reqwest::{Method, StatusCode};

use crate::on_both_backends;
use crate::support::{TestServer, json};

on_both_backends!(sellers_list_and_show_with_their_shops);

async fn sellers_list_and_show_with_their_shops(s: TestServer) {
    let token = s.owner_token().await;
    let (status, list) = json(s.get("/v2/sellers", &token).send().await.unwrap()).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(list["total_items"], 1);
    let seller = &list["_embedded"]["items"][0];
    assert_eq!(seller["name"], "Demo Seller");
    assert_eq!(seller["default_currency_code"], "USD");
    assert_eq!(seller["_embedded"]["shops"].as_array().unwrap().len(), 2);
    assert_eq!(seller["_links"]["shops:create_shop"]["method"], "post");
    // A template: its expression is left out to read the first page.
    let shops_href = seller["_links"]["sellers:shops"]["href"].as_str().unwrap();
    assert_eq!(seller["_links"]["sellers:shops"]["templated"], true);
    let (_, shops) = json(
        s.client
            .get(shops_href.split('{').next().unwrap())
            .bearer_auth(&token)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(shops["total_items"], 2);
    let (status, mut one) = json(
        s.get(&format!("/v2/sellers/{}", s.seller_id()), &token)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    // Curies sit at the top of a document, so only the standalone seller has them.
    assert!(one["_links"]["curies"].is_array());
    one["_links"].as_object_mut().unwrap().remove("curies");
    assert_eq!(&one, seller);
    // Read-only: no writes on sellers.
    let response = s
        .request(
            Method::PUT,
            &format!("/v2/sellers/{}", s.seller_id()),
            &token,
        )
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::METHOD_NOT_ALLOWED);
    // Without shops.read the shops are neither embedded nor linked.
    let narrow = s
        .password_token(
            &s.demo.user.email,
            &s.demo.user.password,
            Some("sellers.read"),
        )
        .await;
    let (_, seller) = json(
        s.get(&format!("/v2/sellers/{}", s.seller_id()), &narrow)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(
        seller["_embedded"],
        serde_json::json!({}),
        "nothing embedded"
    );
    assert!(seller["_links"].get("sellers:shops").is_none());
    assert!(seller["_links"].get("shops:create_shop").is_none());
    let (status, q) = json(
        s.get("/v2/sellers?q=demo&sort=name.asc", &token)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(
        (status, q["total_items"].as_i64()),
        (StatusCode::OK, Some(1))
    );
    assert_eq!(
        s.get("/v2/sellers/abc", &token)
            .send()
            .await
            .unwrap()
            .status(),
        StatusCode::NOT_FOUND
    );
}
