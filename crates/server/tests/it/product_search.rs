//! Searching the product list: totals exact up to the cap and a flagged bound past it,
//! pages and links that walk every match either way, and results that follow writes.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::on_both_backends;
use crate::support::{Backend, TestServer, item_ids};

on_both_backends!(
    a_search_counts_exactly_up_to_the_cap_then_says_more_than,
    every_page_of_a_bounded_search_links_to_the_next,
    search_follows_titles_tags_and_deletes,
    exact_lists_say_so,
);

/// Matches a product list counts in tests before its total becomes a bound.
const CAP: u64 = 3;

async fn server_with_small_cap(backend: Backend) -> TestServer {
    TestServer::start_with(backend, |c| c.exact_total_cap = CAP).await
}

/// Five lamps and one chair; answers the lamps' ids in creation order.
async fn lamps(s: &TestServer, token: &str) -> Vec<i64> {
    let mut ids = Vec::new();
    for (i, title) in [
        "Desk Lamp",
        "Floor Lamp",
        "Oak Chair",
        "Lamp Shade",
        "Wall Lamp",
        "Zen Lamp",
    ]
    .into_iter()
    .enumerate()
    {
        let body = json!({"title": title, "status": "visible",
                          "variants": [{"sku": format!("L-{i}"), "price": 100 * (6 - i as i64)}]});
        let product = s.create_product(token, body).await;
        if title.contains("Lamp") {
            ids.push(product["id"].as_i64().unwrap());
        }
    }
    ids
}

async fn list(s: &TestServer, token: &str, query: &str) -> Value {
    let (status, list) = s.get_json(&format!("/v2/products?{query}"), token).await;
    assert_eq!(status, StatusCode::OK, "{query}: {list}");
    list
}

async fn a_search_counts_exactly_up_to_the_cap_then_says_more_than(backend: Backend) {
    let s = server_with_small_cap(backend).await;
    let token = s.owner_token().await;
    let lamps = lamps(&s, &token).await;
    // Under the cap: exact, with a last page.
    let few = list(&s, &token, "q=chair").await;
    assert_eq!(
        (few["total_items"].clone(), few["total_items_exact"].clone()),
        (json!(1), json!(true))
    );
    assert!(few["_links"]["last"]["href"].is_string());
    // Over it: the cap, flagged, no last page, and a next page.
    let many = list(&s, &token, "q=lamp&per_page=2").await;
    assert_eq!(many["total_items"], CAP);
    assert_eq!(many["total_items_exact"], false);
    assert!(many["_links"].get("last").is_none(), "{many}");
    assert!(
        many["_links"]["next"]["href"]
            .as_str()
            .unwrap()
            .contains("page=2")
    );
    assert_eq!(item_ids(&many), lamps[..2]);
    // A page that reaches past the matches counts them all again.
    let all = list(&s, &token, "q=lamp&per_page=5").await;
    assert_eq!(
        (all["total_items"].clone(), all["total_items_exact"].clone()),
        (json!(5), json!(true))
    );
    assert_eq!(item_ids(&all), lamps);
    // Every sort still orders the matches, bounded total or not.
    let by_price = list(&s, &token, "q=lamp&sort=price.asc&per_page=2").await;
    assert_eq!(by_price["total_items_exact"], false);
    assert_eq!(item_ids(&by_price), [lamps[4], lamps[3]]);
    let by_title = list(&s, &token, "q=lamp&sort=title.desc&per_page=5").await;
    assert_eq!(by_title["total_items_exact"], true);
    assert_eq!(
        item_ids(&by_title),
        [lamps[4], lamps[3], lamps[2], lamps[1], lamps[0]]
    );
    let newest = list(&s, &token, "q=lamp&sort=id.desc&per_page=2").await;
    assert_eq!(item_ids(&newest), [lamps[4], lamps[3]]);
    // Whatever the total, bounded (a page of 1) or exact (of 5), a page costs as many
    // statements.
    for query in [
        "q=chair",
        "q=lamp",
        "q=lamp&sort=title",
        "q=lamp&sort=price",
    ] {
        assert_eq!(
            s.queries_of(&format!("/v2/products?{query}&per_page=1"), &token)
                .await,
            s.queries_of(&format!("/v2/products?{query}&per_page=5"), &token)
                .await,
            "{query}"
        );
    }
    assert!(s.queries_of("/v2/products?q=lamp", &token).await <= 3);
}

async fn every_page_of_a_bounded_search_links_to_the_next(backend: Backend) {
    let s = server_with_small_cap(backend).await;
    let token = s.owner_token().await;
    let lamps = lamps(&s, &token).await;
    for sort in ["id", "id.desc", "title", "price.desc"] {
        let mut seen = Vec::new();
        let mut path = format!("/v2/products?q=lamp&per_page=2&sort={sort}");
        for _ in 0..lamps.len() {
            let page = list(&s, &token, path.split_once('?').unwrap().1).await;
            seen.extend(item_ids(&page));
            match page["_links"]["next"]["href"].as_str() {
                Some(next) => path = next.replace(&s.url, ""),
                None => {
                    // The last page is reached with an exact total and its own link.
                    assert_eq!(page["total_items"], 5, "{sort}");
                    assert_eq!(page["total_items_exact"], true, "{sort}");
                    assert_eq!(
                        page["_links"]["last"]["href"],
                        page["_links"]["self"]["href"]
                    );
                    break;
                }
            }
        }
        let mut sorted = seen.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, lamps, "every lamp once, sorted by {sort}");
    }
}

async fn search_follows_titles_tags_and_deletes(s: TestServer) {
    let token = s.owner_token().await;
    let lamps = lamps(&s, &token).await;
    let ids = |list: Value| item_ids(&list);
    let (status, _) = s
        .call(
            Method::PUT,
            &format!("/v2/products/{}", lamps[0]),
            &token,
            Some(json!({"title": "Desk Light", "tags": ["Glow"]})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(ids(list(&s, &token, "q=lamp").await), lamps[1..]);
    assert_eq!(ids(list(&s, &token, "q=light").await), [lamps[0]]);
    assert_eq!(ids(list(&s, &token, "q=glow").await), [lamps[0]]);
    let (status, _) = s
        .call(
            Method::DELETE,
            &format!("/v2/products/{}", lamps[1]),
            &token,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let left = list(&s, &token, "q=lamp").await;
    assert_eq!(item_ids(&left), lamps[2..]);
    assert_eq!(
        (
            left["total_items"].clone(),
            left["total_items_exact"].clone()
        ),
        (json!(3), json!(true))
    );
}

async fn exact_lists_say_so(s: TestServer) {
    let token = s.owner_token().await;
    lamps(&s, &token).await;
    for path in [
        "/v2/products",
        "/v2/products?q=lamp",
        "/v2/products?price.gte=0",
        "/v2/shops",
    ] {
        let (status, list) = s.get_json(path, &token).await;
        assert_eq!(status, StatusCode::OK, "{path}");
        assert_eq!(list["total_items_exact"], true, "{path}");
        assert!(list["_links"]["last"]["href"].is_string(), "{path}");
    }
}
