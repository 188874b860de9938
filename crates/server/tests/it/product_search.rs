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
    search_follows_descriptions_and_variant_skus,
    another_accounts_products_never_match,
    the_public_catalog_searches_the_shops_named,
    words_sharing_a_prefix_match_each_product_once,
    prefixes_match_whole_characters_at_any_length,
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

async fn ids_of(s: &TestServer, token: &str, query: &str) -> Vec<i64> {
    item_ids(&list(s, token, query).await)
}

async fn search_follows_descriptions_and_variant_skus(s: TestServer) {
    let token = s.owner_token().await;
    let product = s
        .create_product(
            &token,
            json!({"title": "Plain Box", "description": "Sturdy cardboard",
                   "variants": [{"sku": "BOX-1", "price": 100}]}),
        )
        .await;
    let id = product["id"].as_i64().unwrap();
    let path = format!("/v2/products/{id}");
    assert_eq!(ids_of(&s, &token, "q=cardb").await, [id]);
    let (status, _) = s
        .call(
            Method::PUT,
            &path,
            &token,
            Some(json!({"description": "Folded paper"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert!(ids_of(&s, &token, "q=cardb").await.is_empty());
    assert_eq!(ids_of(&s, &token, "q=folded paper").await, [id]);
    // A variant's SKU is searchable from when it is added until it is deleted.
    assert!(ids_of(&s, &token, "q=crate").await.is_empty());
    let (status, variant) = s
        .call(
            Method::POST,
            &format!("{path}/variants"),
            &token,
            Some(json!({"sku": "CRATE-9", "price": 300})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{variant}");
    assert_eq!(ids_of(&s, &token, "q=crate 9").await, [id]);
    let (status, _) = s
        .call(
            Method::DELETE,
            &format!("{path}/variants/{}", variant["id"]),
            &token,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert!(ids_of(&s, &token, "q=crate").await.is_empty());
    assert_eq!(ids_of(&s, &token, "q=box 1").await, [id]);
    // Writes that leave the text alone leave the product found.
    let (status, _) = s
        .call(
            Method::PUT,
            &path,
            &token,
            Some(json!({"status": "hidden"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(ids_of(&s, &token, "q=folded").await, [id]);
}

async fn another_accounts_products_never_match(s: TestServer) {
    let token = s.owner_token().await;
    let other = s.seed_another_account().await;
    let other_token = s.owner_token_of(&other).await;
    let ours = lamps(&s, &token).await;
    let mut theirs = Vec::new();
    for title in ["Lamp Theirs", "Lampshade Theirs"] {
        let product = s
            .create_product(
                &other_token,
                json!({"title": title, "variants": [{"price": 100}]}),
            )
            .await;
        theirs.push(product["id"].as_i64().unwrap());
    }
    for sort in ["id", "id.desc", "title"] {
        let mine = list(&s, &token, &format!("q=lamp&sort={sort}&per_page=50")).await;
        let mut mine = item_ids(&mine);
        mine.sort_unstable();
        assert_eq!(mine, ours, "{sort}");
        let mut seen = ids_of(&s, &other_token, &format!("q=lamp&sort={sort}")).await;
        seen.sort_unstable();
        assert_eq!(seen, theirs, "{sort}");
    }
    assert!(ids_of(&s, &token, "q=theirs").await.is_empty());
    let counted = list(&s, &other_token, "q=lamp").await;
    assert_eq!(
        (
            counted["total_items"].clone(),
            counted["total_items_exact"].clone()
        ),
        (json!(2), json!(true))
    );
}

/// Creates products with these titles in order; answers their ids.
async fn titled(s: &TestServer, token: &str, titles: &[&str]) -> Vec<i64> {
    let mut ids = Vec::new();
    for title in titles {
        let product = s
            .create_product(token, json!({"title": title, "variants": [{"price": 100}]}))
            .await;
        ids.push(product["id"].as_i64().unwrap());
    }
    ids
}

async fn words_sharing_a_prefix_match_each_product_once(backend: Backend) {
    let s = server_with_small_cap(backend).await;
    let token = s.owner_token().await;
    // Products carry one or several of the words that begin with "lamp", in turn, and
    // their neighbours in the order of words ("lam", "lamq") do not match.
    let ids = titled(
        &s,
        &token,
        &[
            "Lamps Lamp",
            "Lampshade",
            "Lam",
            "Lamp Lampshade Lamps",
            "Lamq",
            "Lamps",
            "Lamplight Lamp",
        ],
    )
    .await;
    let lamps = [ids[0], ids[1], ids[3], ids[5], ids[6]];
    let all = list(&s, &token, "q=lamp&per_page=5").await;
    assert_eq!(item_ids(&all), lamps);
    assert_eq!(
        (all["total_items"].clone(), all["total_items_exact"].clone()),
        (json!(5), json!(true))
    );
    let bounded = list(&s, &token, "q=lamp&per_page=2").await;
    assert_eq!(
        (
            bounded["total_items"].clone(),
            bounded["total_items_exact"].clone()
        ),
        (json!(CAP), json!(false))
    );
    for (sort, expected) in [
        ("id", lamps.to_vec()),
        ("id.desc", lamps.iter().rev().copied().collect()),
    ] {
        let mut seen = Vec::new();
        for page in 1..=3 {
            seen.extend(
                ids_of(
                    &s,
                    &token,
                    &format!("q=lamp&sort={sort}&per_page=2&page={page}"),
                )
                .await,
            );
        }
        assert_eq!(seen, expected, "{sort}");
    }
    // Every word must match: the rarer one drives, the other is checked.
    assert_eq!(ids_of(&s, &token, "q=lamps lampsh").await, [ids[1], ids[3]]);
    assert!(ids_of(&s, &token, "q=lamps lampl").await.is_empty());
    assert_eq!(ids_of(&s, &token, "q=l lamplight").await, [ids[6]]);
    assert_eq!(ids_of(&s, &token, "q=lamq").await, [ids[4]]);
    assert_eq!(ids_of(&s, &token, "q=lam&per_page=10").await, ids);
}

async fn prefixes_match_whole_characters_at_any_length(s: TestServer) {
    let token = s.owner_token().await;
    let long = "x".repeat(80);
    let ids = titled(
        &s,
        &token,
        &[
            "Ñandú Lámpara",
            "Nandu Lampara",
            "東京タワー",
            "Zz Top",
            "Zebra",
            &format!("{long} end"),
            "Ωmega Z9",
        ],
    )
    .await;
    assert_eq!(ids_of(&s, &token, "q=ñan").await, [ids[0]]);
    assert_eq!(ids_of(&s, &token, "q=ÑANDÚ").await, [ids[0]]);
    assert_eq!(ids_of(&s, &token, "q=nan").await, [ids[1]]);
    assert_eq!(ids_of(&s, &token, "q=lám").await, [ids[0]]);
    assert_eq!(ids_of(&s, &token, "q=lam").await, [ids[1]]);
    assert_eq!(ids_of(&s, &token, "q=東京").await, [ids[2]]);
    assert_eq!(ids_of(&s, &token, "q=ωm").await, [ids[6]]);
    // The last letter of the alphabet bounds nothing out: every word after it matches.
    assert_eq!(ids_of(&s, &token, "q=z").await, [ids[3], ids[4], ids[6]]);
    assert_eq!(ids_of(&s, &token, "q=zz").await, [ids[3]]);
    // Words are kept and matched to their first 64 characters, however long.
    assert_eq!(
        ids_of(&s, &token, &format!("q={}", &long[..64])).await,
        [ids[5]]
    );
    assert_eq!(ids_of(&s, &token, &format!("q={long}")).await, [ids[5]]);
    assert_eq!(ids_of(&s, &token, &format!("q={long}y")).await, [ids[5]]);
    assert!(
        ids_of(&s, &token, &format!("q={}y", &long[..63]))
            .await
            .is_empty()
    );
}

async fn the_public_catalog_searches_the_shops_named(s: TestServer) {
    let token = s.owner_token().await;
    let ours = lamps(&s, &token).await;
    let other = s.seed_another_account().await;
    let other_token = s.owner_token_of(&other).await;
    let mut theirs = Vec::new();
    for status in ["visible", "hidden", "visible"] {
        let product = s
            .create_product(
                &other_token,
                json!({"title": "Lamp Theirs", "status": status, "variants": [{"price": 100}]}),
            )
            .await;
        theirs.push(product["id"].as_i64().unwrap());
    }
    let (client_id, secret) = s
        .register_app(None, "public", "client_credentials", false)
        .await;
    let public = s.client_credentials_token(&client_id, &secret, None).await;
    let (mine, yours) = (&s.demo.shops[0].subdomain, &other.shops[0].subdomain);
    let query = |shops: String| format!("q=lamp&shop_subdomains={shops}&per_page=50");
    assert_eq!(ids_of(&s, &public, &query(mine.clone())).await, ours);
    assert_eq!(
        ids_of(&s, &public, &query(yours.clone())).await,
        [theirs[0], theirs[2]]
    );
    // Shops of two accounts: the visible matches of both, in id order either way.
    let both = ids_of(&s, &public, &query(format!("{mine},{yours}"))).await;
    let mut expected = ours.clone();
    expected.extend([theirs[0], theirs[2]]);
    assert_eq!(both, expected);
    let newest = ids_of(
        &s,
        &public,
        &format!("{}&sort=id.desc", query(format!("{yours},{mine}"))),
    )
    .await;
    expected.reverse();
    assert_eq!(newest, expected);
    assert!(
        ids_of(&s, &public, &query("nowhere".into()))
            .await
            .is_empty()
    );
}
