//! The list envelope: page limits, page links, filters and sorting.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::on_both_backends;
use crate::support::{TestServer, error_fields, json};

on_both_backends!(
    page_size_limits_are_422_on_the_field,
    page_links_on_first_middle_and_last_pages,
    filters_and_sorting,
);

async fn page_size_limits_are_422_on_the_field(s: TestServer) {
    let token = s.owner_token().await;
    for (query, field) in [
        ("per_page=0", "per_page"),
        ("per_page=201", "per_page"),
        ("per_page=ten", "per_page"),
        ("page=0", "page"),
        ("page=-1", "page"),
        ("sort=price.desc", "sort"),
        ("created_on.gte=yesterday", "created_on.gte"),
        ("seller_ids=1,x", "seller_ids"),
        ("storefront=both", "storefront"),
    ] {
        let (status, body) = json(
            s.get(&format!("/v2/shops?{query}"), &token)
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{query}");
        assert_eq!(error_fields(&body), [field], "{query}");
    }
    let (status, body) = json(
        s.get("/v2/sellers?per_page=500&page=0", &token)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_fields(&body), ["page", "per_page"]);
    let (status, body) = json(s.get("/v2/shops", &token).send().await.unwrap()).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["per_page"], 20, "the default page size");
    assert_eq!(body["page"], 1);
    assert_eq!(body["_class"], json!(["results", "shops"]));
    let (_, body) = json(
        s.get("/v2/shops?per_page=200", &token)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(body["per_page"], 200);
}

async fn add_shops(s: &TestServer, token: &str, names: &[&str]) {
    for name in names {
        let response = s
            .request(
                Method::POST,
                &format!("/v2/sellers/{}/shops", s.seller_id()),
                token,
            )
            .json(&json!({"subdomain": format!("shop-{}", name.to_lowercase()), "name": name}))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::CREATED);
    }
}

fn ids(list: &Value) -> Vec<i64> {
    list["_embedded"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item["id"].as_i64().unwrap())
        .collect()
}

async fn page_links_on_first_middle_and_last_pages(s: TestServer) {
    let token = s.owner_token().await;
    add_shops(&s, &token, &["Alpha", "Bravo", "Charlie"]).await; // five shops in all
    let first = json(s.get("/v2/shops?per_page=2", &token).send().await.unwrap())
        .await
        .1;
    assert_eq!(first["total_items"], 5);
    let links = &first["_links"];
    assert!(links.get("prev").is_none());
    assert_eq!(links["self"]["href"], s.url("/v2/shops?per_page=2&page=1"));
    assert_eq!(links["first"]["href"], s.url("/v2/shops?per_page=2&page=1"));
    assert_eq!(links["last"]["href"], s.url("/v2/shops?per_page=2&page=3"));
    let next = links["next"]["href"].as_str().unwrap().to_owned();
    let middle = json(
        s.client
            .get(&next)
            .bearer_auth(&token)
            .send()
            .await
            .unwrap(),
    )
    .await
    .1;
    assert_eq!(middle["page"], 2);
    assert_eq!(
        middle["_links"]["prev"]["href"],
        s.url("/v2/shops?per_page=2&page=1")
    );
    assert_eq!(
        middle["_links"]["next"]["href"],
        s.url("/v2/shops?per_page=2&page=3")
    );
    let last_href = middle["_links"]["last"]["href"]
        .as_str()
        .unwrap()
        .to_owned();
    let last = json(
        s.client
            .get(&last_href)
            .bearer_auth(&token)
            .send()
            .await
            .unwrap(),
    )
    .await
    .1;
    assert!(last["_links"].get("next").is_none());
    assert_eq!(
        last["_links"]["prev"]["href"],
        s.url("/v2/shops?per_page=2&page=2")
    );
    // Following the pages visits every shop once, in a stable order.
    let mut seen = [ids(&first), ids(&middle), ids(&last)].concat();
    assert_eq!(seen.len(), 5);
    let sorted = {
        let mut v = seen.clone();
        v.sort();
        v
    };
    assert_eq!(seen, sorted);
    seen.dedup();
    assert_eq!(seen.len(), 5);
    // Beyond the end: an empty page whose prev leads back to the last one.
    let beyond = json(
        s.get("/v2/shops?per_page=2&page=9", &token)
            .send()
            .await
            .unwrap(),
    )
    .await
    .1;
    assert_eq!(ids(&beyond), Vec::<i64>::new());
    assert_eq!(
        beyond["_links"]["prev"]["href"],
        s.url("/v2/shops?per_page=2&page=3")
    );
}

async fn filters_and_sorting(s: TestServer) {
    let token = s.owner_token().await;
    add_shops(&s, &token, &["Zulu", "Yankee"]).await;
    let get = |query: &'static str| {
        let request = s.get(&format!("/v2/shops?{query}"), &token);
        async move { json(request.send().await.unwrap()).await.1 }
    };
    let headless = get("storefront=headless").await;
    assert_eq!(ids(&headless), [s.demo.shops[1].id]);
    let by_name = get("sort=name.desc").await;
    let names: Vec<&str> = by_name["_embedded"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["Zulu", "Yankee", "Demo Store", "Demo Headless Shop"]
    );
    let q = get("q=YANK").await;
    assert_eq!(q["total_items"], 1);
    let q = get("q=50%25").await; // a literal percent sign matches nothing
    assert_eq!(q["total_items"], 0);
    let subdomains = get("subdomains=shop-zulu,shop-yankee&sort=id.desc").await;
    assert_eq!(subdomains["total_items"], 2);
    assert_eq!(
        subdomains["_links"]["self"]["href"],
        s.url("/v2/shops?subdomains=shop-zulu%2Cshop-yankee&sort=id.desc&page=1")
    );
    let sellers = get("seller_ids=987654").await;
    assert_eq!(sellers["total_items"], 0);
    let future = get("created_on.gte=2999-01-01").await;
    assert_eq!(future["total_items"], 0);
    let past = get("created_on_lte=2999-01-01&created_on.gte=2000-01-01T00:00:00Z").await;
    assert_eq!(past["total_items"], 4);
}
