//! Shop admins: the roster a shop starts with, inviting users of the account and new
//! addresses (mailed a link to the invitation page, where they choose a password and
//! then sign in), what cannot be invited and what it tells, role changes, the last owner
//! who stays (also when two demotions race), who may change a shop and its roster, other
//! accounts' shops, and the events subscribers receive.

use std::sync::Arc;
use std::time::Duration;

use domain::Clock;
use domain::clock::ManualClock;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use server::config::smtp::{SmtpUrl, mail_from};

use crate::on_both_backends;
use crate::support::smtp::SmtpServer;
use crate::support::{Backend, TestServer, assert_error, error_fields, eventually, item_ids};

on_both_backends!(
    a_shop_starts_with_its_owners_and_the_roster_lists_filters_and_sorts,
    users_of_the_account_join_at_once_and_other_addresses_tell_nothing,
    a_new_address_is_mailed_an_invitation_it_accepts_once_on_the_page,
    invitations_expire_and_are_withdrawn_with_the_last_row,
    roles_change_and_the_last_owner_stays,
    only_those_who_manage_a_shop_change_it_or_its_admins,
    concurrent_demotions_of_the_two_owners_leave_one,
    roster_changes_reach_the_shops_subscribers,
);

const PASSWORD: &str = "a long enough password";

fn admins_path(shop: i64) -> String {
    format!("/v2/shops/{shop}/admins")
}

fn admin_path(shop: i64, id: &Value) -> String {
    format!("/v2/shops/{shop}/admins/{id}")
}

/// A server that mails through `smtp`, on `clock`.
async fn mailing_server(backend: Backend, smtp: &SmtpServer, clock: Arc<dyn Clock>) -> TestServer {
    let url = smtp.url();
    TestServer::start_with(backend, move |c| {
        c.smtp_url = Some(SmtpUrl::parse(&url).unwrap());
        c.mail_from = Some(mail_from("Shops <shops@example.com>").unwrap());
        c.mail_poll = Duration::from_millis(50);
        c.clock = clock;
        // Tokens outlive the week the tests move the clock on by.
        c.access_token_ttl = Duration::from_secs(30 * 86_400);
    })
    .await
}

/// A user of the demo account with this account role, and a token of theirs.
async fn user_token(s: &TestServer, email: &str, role: &str) -> String {
    s.add_user(email, PASSWORD, role).await;
    s.password_token(email, PASSWORD, None).await
}

async fn invite(s: &TestServer, token: &str, shop: i64, body: Value) -> (StatusCode, Value) {
    s.call(Method::POST, &admins_path(shop), token, Some(body))
        .await
}

/// Invites, asserting that it was done.
async fn invited(s: &TestServer, token: &str, shop: i64, body: Value) -> Value {
    let (status, admin) = invite(s, token, shop, body).await;
    assert_eq!(status, StatusCode::CREATED, "{admin}");
    admin
}

async fn roster(s: &TestServer, token: &str, shop: i64, query: &str) -> Value {
    let (status, list) = s
        .get_json(&format!("{}{query}", admins_path(shop)), token)
        .await;
    assert_eq!(status, StatusCode::OK, "{list}");
    list
}

/// `(email, role, status)` of each admin of a list.
fn members(list: &Value) -> Vec<(String, String, String)> {
    list["_embedded"]["items"]
        .as_array()
        .unwrap_or_else(|| panic!("a list: {list}"))
        .iter()
        .map(|a| {
            (
                a["email"].as_str().unwrap().to_owned(),
                a["role"].as_str().unwrap().to_owned(),
                a["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// The demo owner's row on a shop's roster.
async fn owner_row(s: &TestServer, token: &str, shop: i64) -> Value {
    let list = roster(s, token, shop, "").await;
    list["_embedded"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["email"] == s.demo.user.email.as_str())
        .cloned()
        .unwrap_or_else(|| panic!("the owner on {list}"))
}

async fn set_role(
    s: &TestServer,
    token: &str,
    shop: i64,
    id: &Value,
    role: &str,
) -> (StatusCode, Value) {
    s.call(
        Method::PUT,
        &admin_path(shop, id),
        token,
        Some(json!({"role": role})),
    )
    .await
}

/// What a refused write must leave alone: the roster, the users, the invitations, the
/// mail and the events.
async fn written(s: &TestServer) -> Vec<i64> {
    let mut counts = Vec::new();
    for sql in [
        "SELECT COUNT(*) + COALESCE(MAX(updated_on), 0) FROM shop_admins",
        "SELECT COUNT(*) + COALESCE(MAX(updated_on), 0) FROM users",
        "SELECT COUNT(*) FROM shop_admin_invitations",
        "SELECT COUNT(*) FROM mail_outbox",
        "SELECT COUNT(*) FROM events",
        "SELECT COALESCE(MAX(updated_on), 0) FROM shops",
    ] {
        counts.push(s.db.scalar(sql).await);
    }
    counts
}

async fn a_shop_starts_with_its_owners_and_the_roster_lists_filters_and_sorts(s: TestServer) {
    let owner = s.owner_token().await;
    let shop = s.shop_id();
    // The demo shops are their owner's.
    let list = roster(&s, &owner, shop, "").await;
    assert_eq!(list["_class"], json!(["results", "shop_admins"]));
    assert_eq!(
        members(&list),
        [(s.demo.user.email.clone(), "owner".into(), "active".into())]
    );
    let first = &list["_embedded"]["items"][0];
    assert_eq!(first["shop_id"], shop);
    assert_eq!(first["name"], "Demo Owner");
    assert!(first["accepted_on"].is_string() && first["invited_on"].is_string());
    let self_href = first["_links"]["self"]["href"].as_str().unwrap();
    assert!(
        self_href.ends_with(&admin_path(shop, &first["id"])),
        "{self_href}"
    );
    for rel in ["shops:shop", "shops:update_admin", "shops:delete_admin"] {
        assert!(first["_links"][rel]["href"].is_string(), "{rel}: {first}");
    }
    let (status, one) = s.get_json(&admin_path(shop, &first["id"]), &owner).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(one["email"], first["email"]);
    // The shop links its roster.
    let (_, shop_doc) = s.get_json(&format!("/v2/shops/{shop}"), &owner).await;
    assert!(
        shop_doc["_links"]["shops:admins"]["href"].is_string(),
        "{shop_doc}"
    );
    assert!(shop_doc["_links"]["shops:create_admin"]["href"].is_string());

    // A shop a user opens is theirs; one an app opens is the account owners'.
    let (_, made) = s
        .call(
            Method::POST,
            &format!("/v2/sellers/{}/shops", s.seller_id()),
            &user_token(&s, "opener@example.com", "admin").await,
            Some(json!({"subdomain": "opened-by-a-user", "name": "Opened"})),
        )
        .await;
    let opened = made["id"].as_i64().expect("a shop");
    assert_eq!(
        members(&roster(&s, &owner, opened, "").await),
        [("opener@example.com".into(), "owner".into(), "active".into())]
    );
    let app = s
        .client_credentials_token(
            &s.demo.app.client_id,
            &s.demo.app.client_secret,
            Some("shops.write"),
        )
        .await;
    let (status, made) = s
        .call(
            Method::POST,
            &format!("/v2/sellers/{}/shops", s.seller_id()),
            &app,
            Some(json!({"subdomain": "opened-by-an-app", "name": "Opened too"})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{made}");
    let by_app = made["id"].as_i64().unwrap();
    assert_eq!(
        members(&roster(&s, &owner, by_app, "").await),
        [(s.demo.user.email.clone(), "owner".into(), "active".into())]
    );
    assert_eq!(s.event_count("shops.admins.created").await, 2);

    // Filters, sorts and pages.
    for (email, role) in [
        ("zed@example.com", "staff"),
        ("amy@example.com", "readonly"),
        ("bob@example.com", "staff"),
    ] {
        s.add_user(email, PASSWORD, "staff").await;
        invited(&s, &owner, shop, json!({"email": email, "role": role})).await;
    }
    let staff = roster(&s, &owner, shop, "?role=staff&sort=email.asc").await;
    assert_eq!(
        members(&staff),
        [
            ("bob@example.com".into(), "staff".into(), "active".into()),
            ("zed@example.com".into(), "staff".into(), "active".into()),
        ]
    );
    let several = roster(&s, &owner, shop, "?role=staff,readonly&sort=email.desc").await;
    let emails: Vec<String> = members(&several).into_iter().map(|m| m.0).collect();
    assert_eq!(
        emails,
        ["zed@example.com", "bob@example.com", "amy@example.com"]
    );
    let all = roster(&s, &owner, shop, "?sort=created_on.asc").await;
    assert_eq!(all["total_items"], 4);
    assert_eq!(members(&all)[0].0, s.demo.user.email);
    assert_eq!(
        roster(&s, &owner, shop, "?status=invited").await["total_items"],
        0
    );
    assert_eq!(
        roster(&s, &owner, shop, "?status=active").await["total_items"],
        4
    );
    let paged = roster(&s, &owner, shop, "?per_page=3&page=2").await;
    assert_eq!(item_ids(&paged).len(), 1);
    assert!(paged["_links"]["prev"]["href"].is_string());
    for (query, field) in [
        ("?role=boss", "role"),
        ("?status=gone", "status"),
        ("?sort=name.asc", "sort"),
        ("?per_page=0", "per_page"),
    ] {
        let answer = s
            .get_json(&format!("{}{query}", admins_path(shop)), &owner)
            .await;
        assert_eq!(answer.0, StatusCode::UNPROCESSABLE_ENTITY, "{query}");
        assert_eq!(error_fields(&answer.1), [field], "{query}");
    }

    // A reader sees the roster without the write links.
    let reader = s
        .password_token(
            &s.demo.user.email,
            &s.demo.user.password,
            Some("shops.read"),
        )
        .await;
    let read = roster(&s, &reader, shop, "").await;
    let item = &read["_embedded"]["items"][0];
    assert!(item["_links"]["shops:update_admin"].is_null(), "{item}");
    assert!(item["_links"]["shops:delete_admin"].is_null());
    let (_, shop_doc) = s.get_json(&format!("/v2/shops/{shop}"), &reader).await;
    assert!(shop_doc["_links"]["shops:create_admin"].is_null());
    assert_error(
        &invite(
            &s,
            &reader,
            shop,
            json!({"email": "x@example.com", "role": "staff"}),
        )
        .await,
        StatusCode::FORBIDDEN,
        "insufficient_scope",
    );
    let products_only = s
        .password_token(
            &s.demo.user.email,
            &s.demo.user.password,
            Some("products.read"),
        )
        .await;
    assert_error(
        &s.get_json(&admins_path(shop), &products_only).await,
        StatusCode::FORBIDDEN,
        "insufficient_scope",
    );
}

async fn users_of_the_account_join_at_once_and_other_addresses_tell_nothing(s: TestServer) {
    let owner = s.owner_token().await;
    let shop = s.shop_id();
    s.add_user("clerk@example.com", PASSWORD, "admin").await;
    let before = s.event_count("shops.admins.created").await;
    let response = s
        .request(Method::POST, &admins_path(shop), &owner)
        .json(&json!({"email": " CLERK@Example.com ", "role": "staff", "name": "Not Theirs"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::CREATED);
    let location = response.headers()["location"].to_str().unwrap().to_owned();
    let admin: Value = response.json().await.unwrap();
    assert!(
        location.ends_with(&admin_path(shop, &admin["id"])),
        "{location}"
    );
    assert_eq!(admin["email"], "clerk@example.com");
    assert_eq!(
        admin["name"], "Test User",
        "an existing user keeps their name"
    );
    assert_eq!(admin["role"], "staff");
    assert_eq!(admin["status"], "active");
    assert_eq!(admin["accepted_on"], admin["invited_on"]);
    let user_id =
        s.db.scalar("SELECT id FROM users WHERE email = 'clerk@example.com'")
            .await;
    assert_eq!(admin["user_id"], user_id);
    assert_eq!(s.event_count("shops.admins.created").await, before + 1);
    // No invitation for someone who already signs in.
    assert_eq!(
        s.db.scalar("SELECT COUNT(*) FROM shop_admin_invitations")
            .await,
        0
    );
    assert_eq!(s.db.scalar("SELECT COUNT(*) FROM mail_outbox").await, 0);
    // The same user on another shop of the account is another row.
    let other_shop = s.demo.shops[1].id;
    invited(
        &s,
        &owner,
        other_shop,
        json!({"email": "clerk@example.com", "role": "admin"}),
    )
    .await;

    // Refusals write nothing.
    let other = s.seed_another_account().await;
    let untouched = written(&s).await;
    let again = invite(
        &s,
        &owner,
        shop,
        json!({"email": "clerk@example.com", "role": "admin"}),
    )
    .await;
    assert_eq!(again.0, StatusCode::UNPROCESSABLE_ENTITY, "{}", again.1);
    assert_eq!(error_fields(&again.1), ["email"]);
    assert_eq!(
        again.1["_embedded"]["errors"][0]["messages"],
        json!(["is already an admin of this shop"])
    );
    let bad = invite(
        &s,
        &owner,
        shop,
        json!({"email": "not an address", "role": "boss"}),
    )
    .await;
    assert_eq!(bad.0, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_fields(&bad.1), ["email", "role"]);
    let missing = invite(&s, &owner, shop, json!({"email": "new@example.com"})).await;
    assert_error(&missing, StatusCode::BAD_REQUEST, "missing_field");
    assert_eq!(error_fields(&missing.1), ["role"]);

    // Another account's user cannot be invited, and the answer says nothing of them.
    let theirs = invite(
        &s,
        &owner,
        shop,
        json!({"email": other.user.email, "role": "staff"}),
    )
    .await;
    assert_eq!(theirs.0, StatusCode::UNPROCESSABLE_ENTITY, "{}", theirs.1);
    assert_eq!(
        theirs.1["_embedded"]["errors"],
        json!([{"_class": ["error"], "field": "email",
                "messages": ["belongs to a user who cannot be invited"]}])
    );
    let text = theirs.1.to_string();
    for told in ["Demo Account", "Demo Owner", "account_id", "user_id"] {
        assert!(!text.contains(told), "{told} in {text}");
    }
    assert_eq!(written(&s).await, untouched);

    // Another account's shop does not exist for this one, nor this one's for it.
    let their_token = s.owner_token_of(&other).await;
    let their_shop = other.shops[0].id;
    let mine = owner_row(&s, &owner, shop).await;
    for (token, path) in [
        (&owner, admins_path(their_shop)),
        (&their_token, admins_path(shop)),
        (&their_token, admin_path(shop, &mine["id"])),
    ] {
        assert_error(
            &s.get_json(&path, token).await,
            StatusCode::NOT_FOUND,
            "not_found",
        );
    }
    let before = written(&s).await;
    for answer in [
        invite(
            &s,
            &owner,
            their_shop,
            json!({"email": "x@example.com", "role": "staff"}),
        )
        .await,
        invite(
            &s,
            &their_token,
            shop,
            json!({"email": "x@example.com", "role": "staff"}),
        )
        .await,
        set_role(&s, &their_token, shop, &mine["id"], "staff").await,
        s.call(
            Method::DELETE,
            &admin_path(shop, &mine["id"]),
            &their_token,
            None,
        )
        .await,
        // An admin of one shop is no admin of another's roster.
        set_role(&s, &owner, other_shop, &mine["id"], "staff").await,
    ] {
        assert_error(&answer, StatusCode::NOT_FOUND, "not_found");
    }
    assert_eq!(written(&s).await, before);
}

/// The invitation link in the `n`-th mail to `to`, and the code it carries.
async fn mailed_link(smtp: &SmtpServer, to: &str, n: usize) -> (String, String) {
    let mail = eventually(&format!("invitation {n} for {to}"), || async {
        smtp.received()
            .into_iter()
            .filter(|m| m.to == [to])
            .nth(n - 1)
    })
    .await;
    assert!(
        mail.subject().starts_with("You are invited to manage "),
        "{}",
        mail.subject()
    );
    let text = mail.text();
    let link = text
        .lines()
        .map(str::trim)
        .find(|line| line.starts_with("http"))
        .unwrap_or_else(|| panic!("no link in {text}"))
        .to_owned();
    let code = link
        .split_once("/oauth/invitations?code=")
        .unwrap_or_else(|| panic!("not an invitation link: {link}"))
        .1
        .to_owned();
    (link, code)
}

fn cookie_of(response: &reqwest::Response, name: &str) -> Option<String> {
    response
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find_map(|v| v.strip_prefix(&format!("{name}=")))
        .map(|v| v.split(';').next().unwrap_or("").to_owned())
}

/// The invitation page for `code`: its status, body and CSRF cookie.
async fn open_page(s: &TestServer, code: &str) -> (StatusCode, String, Option<String>) {
    let response = s
        .client
        .get(s.url(&format!(
            "/oauth/invitations?code={}",
            form_urlencoded::byte_serialize(code.as_bytes()).collect::<String>()
        )))
        .send()
        .await
        .unwrap();
    let status = response.status();
    let csrf = cookie_of(&response, "commerce_csrf");
    (status, response.text().await.unwrap(), csrf)
}

/// Posts the invitation form with the CSRF cookie `csrf`.
async fn submit(s: &TestServer, csrf: &str, fields: &[(&str, &str)]) -> (StatusCode, String) {
    let mut form = vec![("csrf", csrf)];
    form.extend_from_slice(fields);
    let response = s
        .client
        .post(s.url("/oauth/invitations"))
        .header("cookie", format!("commerce_csrf={csrf}"))
        .form(&form)
        .send()
        .await
        .unwrap();
    (response.status(), response.text().await.unwrap())
}

async fn a_new_address_is_mailed_an_invitation_it_accepts_once_on_the_page(backend: Backend) {
    let smtp = SmtpServer::start().await;
    let s = mailing_server(backend, &smtp, Arc::new(domain::SystemClock)).await;
    let owner = s.owner_token().await;
    let shop = s.shop_id();
    let admin = invited(
        &s,
        &owner,
        shop,
        json!({"email": "Newbie@Example.com", "role": "owner", "name": "New Bie"}),
    )
    .await;
    assert_eq!(admin["status"], "invited");
    assert!(admin["accepted_on"].is_null());
    assert_eq!(
        (&admin["role"], &admin["name"]),
        (&json!("owner"), &json!("New Bie"))
    );
    // A new user of the account, an admin there (an invitation never makes an account
    // owner), who cannot sign in yet.
    let users: Vec<(String, String, i64)> =
        s.db.rows(
            "SELECT role, password_hash, account_id FROM users WHERE email = 'newbie@example.com'",
        )
        .await;
    assert_eq!(users, [("admin".into(), String::new(), s.demo.account_id)]);
    let refused = s
        .password_grant(
            (
                s.demo.app.client_id.as_str(),
                s.demo.app.client_secret.as_str(),
            ),
            "newbie@example.com",
            "",
            &[],
        )
        .await;
    assert_eq!(refused.status(), StatusCode::BAD_REQUEST);

    let (link, code) = mailed_link(&smtp, "newbie@example.com", 1).await;
    assert!(link.starts_with(&s.url), "{link}");
    // Kept only as its digest.
    let digests: Vec<(Vec<u8>,)> = s.db.rows("SELECT digest FROM shop_admin_invitations").await;
    assert_eq!(
        digests,
        [(storage::secrets::sha256(code.as_bytes()).to_vec(),)]
    );
    let updated_before = s.event_count("shops.admins.updated").await;

    let (status, page, csrf) = open_page(&s, &code).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    assert!(
        page.contains("newbie@example.com") && page.contains("Demo Store"),
        "{page}"
    );
    let csrf = csrf.expect("a CSRF cookie");
    // A form without its CSRF token, a password too short or given differently twice:
    // the invitation stays open.
    let forged = s
        .client
        .post(s.url("/oauth/invitations"))
        .form(&[
            ("code", code.as_str()),
            ("password", PASSWORD),
            ("password_confirmation", PASSWORD),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(forged.status(), StatusCode::FORBIDDEN);
    let (status, page) = submit(
        &s,
        &csrf,
        &[
            ("code", &code),
            ("password", "short"),
            ("password_confirmation", "short"),
        ],
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{page}");
    assert!(page.contains("is too short"), "{page}");
    let (status, page) = submit(
        &s,
        &csrf,
        &[
            ("code", &code),
            ("password", PASSWORD),
            ("password_confirmation", "another one, longer"),
        ],
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(page.contains("does not match the password"), "{page}");
    assert_eq!(
        roster(&s, &owner, shop, "?status=invited").await["total_items"],
        1
    );

    let (status, page) = submit(
        &s,
        &csrf,
        &[
            ("code", &code),
            ("name", "Newbie Smith"),
            ("password", PASSWORD),
            ("password_confirmation", PASSWORD),
        ],
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{page}");
    let (_, now_active) = s.get_json(&admin_path(shop, &admin["id"]), &owner).await;
    assert_eq!(now_active["status"], "active", "{now_active}");
    assert!(now_active["accepted_on"].is_string());
    assert_eq!(now_active["name"], "Newbie Smith");
    assert_eq!(
        s.event_count("shops.admins.updated").await,
        updated_before + 1
    );
    // They sign in as any user does.
    let token = s
        .password_token("newbie@example.com", PASSWORD, Some("shops.read"))
        .await;
    assert_eq!(roster(&s, &token, shop, "").await["total_items"], 2);

    // The code is used up.
    let (status, page, _) = open_page(&s, &code).await;
    assert_eq!(status, StatusCode::GONE, "{page}");
    let (status, _) = submit(
        &s,
        &csrf,
        &[
            ("code", &code),
            ("password", "yet another password"),
            ("password_confirmation", "yet another password"),
        ],
    )
    .await;
    assert_eq!(status, StatusCode::GONE);
    s.password_token("newbie@example.com", PASSWORD, None).await;
    // Codes no invitation has, and no code at all.
    assert_eq!(open_page(&s, "not-a-code").await.0, StatusCode::NOT_FOUND);
    let bare = s
        .client
        .get(s.url("/oauth/invitations"))
        .send()
        .await
        .unwrap();
    assert_eq!(bare.status(), StatusCode::BAD_REQUEST);

    // Invited to two shops: one acceptance makes both active.
    invited(
        &s,
        &owner,
        shop,
        json!({"email": "twice@example.com", "role": "staff"}),
    )
    .await;
    let second = invited(
        &s,
        &owner,
        s.demo.shops[1].id,
        json!({"email": "twice@example.com", "role": "admin"}),
    )
    .await;
    assert_eq!(
        second["status"], "invited",
        "not accepted before the user is"
    );
    let (_, first_code) = mailed_link(&smtp, "twice@example.com", 1).await;
    let (_, second_code) = mailed_link(&smtp, "twice@example.com", 2).await;
    let (status, page, _) = open_page(&s, &second_code).await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        page.contains("Demo Store") && page.contains("Demo Headless Shop"),
        "{page}"
    );
    let (status, _) = submit(
        &s,
        &csrf,
        &[
            ("code", &second_code),
            ("password", PASSWORD),
            ("password_confirmation", PASSWORD),
        ],
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    for shop in [shop, s.demo.shops[1].id] {
        let list = roster(&s, &owner, shop, "?status=active").await;
        assert!(
            members(&list).iter().any(|m| m.0 == "twice@example.com"),
            "{list}"
        );
    }
    assert_eq!(
        open_page(&s, &first_code).await.0,
        StatusCode::GONE,
        "voided"
    );
    smtp.stop().await;
}

async fn invitations_expire_and_are_withdrawn_with_the_last_row(backend: Backend) {
    let smtp = SmtpServer::start().await;
    let start = domain::Timestamp::from_secs(domain::SystemClock.now().as_secs());
    let clock = Arc::new(ManualClock::new(start));
    let s = mailing_server(backend, &smtp, clock.clone()).await;
    let owner = s.owner_token().await;
    let shop = s.shop_id();
    invited(
        &s,
        &owner,
        shop,
        json!({"email": "late@example.com", "role": "staff"}),
    )
    .await;
    let (_, code) = mailed_link(&smtp, "late@example.com", 1).await;
    clock.advance_secs(7 * 86_400 - 1);
    assert_eq!(open_page(&s, &code).await.0, StatusCode::OK);
    clock.advance_secs(1);
    let (status, page, csrf) = open_page(&s, &code).await;
    assert_eq!(status, StatusCode::GONE, "{page}");
    assert!(page.contains("expired"), "{page}");
    let (status, _) = submit(
        &s,
        &csrf.unwrap_or_else(|| "x".repeat(43)),
        &[
            ("code", &code),
            ("password", PASSWORD),
            ("password_confirmation", PASSWORD),
        ],
    )
    .await;
    assert!(
        [StatusCode::GONE, StatusCode::FORBIDDEN].contains(&status),
        "{status}"
    );
    let users: Vec<(String,)> =
        s.db.rows("SELECT password_hash FROM users WHERE email = 'late@example.com'")
            .await;
    assert_eq!(users, [(String::new(),)], "no password set");

    // Removing a user's last invitation withdraws it; the user stays in the account.
    let admin = invited(
        &s,
        &owner,
        shop,
        json!({"email": "gone@example.com", "role": "staff"}),
    )
    .await;
    let (_, code) = mailed_link(&smtp, "gone@example.com", 1).await;
    let (status, removed) = s
        .call(
            Method::DELETE,
            &admin_path(shop, &admin["id"]),
            &owner,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{removed}");
    assert_eq!(removed["status"], "invited");
    assert_eq!(open_page(&s, &code).await.0, StatusCode::GONE);
    assert_eq!(
        s.db.scalar("SELECT COUNT(*) FROM users WHERE email = 'gone@example.com'")
            .await,
        1
    );
    smtp.stop().await;
}

async fn roles_change_and_the_last_owner_stays(s: TestServer) {
    let owner = s.owner_token().await;
    let shop = s.shop_id();
    let mine = owner_row(&s, &owner, shop).await;
    let updated = s.event_count("shops.admins.updated").await;
    let deleted = s.event_count("shops.admins.deleted").await;

    // The only owner can be neither demoted nor removed.
    let untouched = written(&s).await;
    let demoted = set_role(&s, &owner, shop, &mine["id"], "admin").await;
    assert_eq!(demoted.0, StatusCode::UNPROCESSABLE_ENTITY, "{}", demoted.1);
    assert_eq!(error_fields(&demoted.1), ["role"]);
    let removed = s
        .call(Method::DELETE, &admin_path(shop, &mine["id"]), &owner, None)
        .await;
    assert_eq!(removed.0, StatusCode::UNPROCESSABLE_ENTITY, "{}", removed.1);
    assert_eq!(error_fields(&removed.1), ["role"]);
    for body in [json!({"role": null}), json!({"role": "boss"})] {
        let answer = s
            .call(
                Method::PUT,
                &admin_path(shop, &mine["id"]),
                &owner,
                Some(body),
            )
            .await;
        assert_eq!(answer.0, StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(error_fields(&answer.1), ["role"]);
    }
    // Asking for what is already so changes nothing.
    for body in [json!({}), json!({"role": "owner"})] {
        let (status, same) = s
            .call(
                Method::PUT,
                &admin_path(shop, &mine["id"]),
                &owner,
                Some(body),
            )
            .await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(same["updated_on"], mine["updated_on"]);
    }
    assert_eq!(written(&s).await, untouched);

    // With a second owner, either may go.
    s.add_user("partner@example.com", PASSWORD, "admin").await;
    let partner = invited(
        &s,
        &owner,
        shop,
        json!({"email": "partner@example.com", "role": "owner"}),
    )
    .await;
    let stale = s
        .request(Method::PUT, &admin_path(shop, &mine["id"]), &owner)
        .header("if-match", "\"not-the-etag\"")
        .json(&json!({"role": "admin"}))
        .send()
        .await
        .unwrap();
    assert_eq!(stale.status(), StatusCode::PRECONDITION_FAILED);
    let (status, now_admin) = set_role(&s, &owner, shop, &mine["id"], "admin").await;
    assert_eq!(status, StatusCode::OK, "{now_admin}");
    assert_eq!(now_admin["role"], "admin");
    assert_eq!(s.event_count("shops.admins.updated").await, updated + 1);
    // The partner is now the last owner (the demo owner still manages: they own the
    // account).
    let untouched = written(&s).await;
    let answer = set_role(&s, &owner, shop, &partner["id"], "staff").await;
    assert_eq!(answer.0, StatusCode::UNPROCESSABLE_ENTITY);
    let answer = s
        .call(
            Method::DELETE,
            &admin_path(shop, &partner["id"]),
            &owner,
            None,
        )
        .await;
    assert_eq!(answer.0, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(written(&s).await, untouched);
    let (status, _) = set_role(&s, &owner, shop, &mine["id"], "owner").await;
    assert_eq!(status, StatusCode::OK);

    // Removing an admin keeps their user in the account.
    let (status, gone) = s
        .call(
            Method::DELETE,
            &admin_path(shop, &partner["id"]),
            &owner,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{gone}");
    assert_eq!(gone["email"], "partner@example.com");
    assert_eq!(s.event_count("shops.admins.deleted").await, deleted + 1);
    assert_error(
        &s.get_json(&admin_path(shop, &partner["id"]), &owner).await,
        StatusCode::NOT_FOUND,
        "not_found",
    );
    s.password_token("partner@example.com", PASSWORD, None)
        .await;
    assert_error(
        &s.call(
            Method::DELETE,
            &admin_path(shop, &partner["id"]),
            &owner,
            None,
        )
        .await,
        StatusCode::NOT_FOUND,
        "not_found",
    );
}

async fn only_those_who_manage_a_shop_change_it_or_its_admins(s: TestServer) {
    let owner = s.owner_token().await;
    let shop = s.shop_id();
    let shop_path = format!("/v2/shops/{shop}");
    let mine = owner_row(&s, &owner, shop).await;
    // An account staff user holds no shops.write at all.
    let account_staff = user_token(&s, "account-staff@example.com", "staff").await;
    assert_error(
        &s.call(
            Method::PUT,
            &shop_path,
            &account_staff,
            Some(json!({"name": "No"})),
        )
        .await,
        StatusCode::FORBIDDEN,
        "insufficient_scope",
    );
    // Account admins who are the shop's staff, or not on its roster, manage nothing of it.
    let shop_staff = user_token(&s, "shop-staff@example.com", "admin").await;
    invited(
        &s,
        &owner,
        shop,
        json!({"email": "shop-staff@example.com", "role": "staff"}),
    )
    .await;
    let outsider = user_token(&s, "outsider@example.com", "admin").await;
    s.add_user("target@example.com", PASSWORD, "staff").await;
    let target = invited(
        &s,
        &owner,
        shop,
        json!({"email": "target@example.com", "role": "readonly"}),
    )
    .await;
    let untouched = written(&s).await;
    for token in [&shop_staff, &outsider] {
        for answer in [
            s.call(
                Method::PUT,
                &shop_path,
                token,
                Some(json!({"name": "Taken over"})),
            )
            .await,
            invite(
                &s,
                token,
                shop,
                json!({"email": "friend@example.com", "role": "admin"}),
            )
            .await,
            set_role(&s, token, shop, &target["id"], "admin").await,
            s.call(
                Method::DELETE,
                &admin_path(shop, &target["id"]),
                token,
                None,
            )
            .await,
        ] {
            assert_error(&answer, StatusCode::FORBIDDEN, "role_forbidden");
        }
        // They still read it.
        assert_eq!(roster(&s, token, shop, "").await["total_items"], 3);
    }
    assert_eq!(written(&s).await, untouched);

    // A shop admin manages the shop and everyone but its owners.
    let shop_admin = user_token(&s, "shop-admin@example.com", "admin").await;
    invited(
        &s,
        &owner,
        shop,
        json!({"email": "shop-admin@example.com", "role": "admin"}),
    )
    .await;
    let (status, renamed) = s
        .call(
            Method::PUT,
            &shop_path,
            &shop_admin,
            Some(json!({"name": "Renamed by an admin"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{renamed}");
    let (status, _) = set_role(&s, &shop_admin, shop, &target["id"], "staff").await;
    assert_eq!(status, StatusCode::OK);
    invited(
        &s,
        &shop_admin,
        shop,
        json!({"email": "outsider@example.com", "role": "staff"}),
    )
    .await;
    let untouched = written(&s).await;
    for answer in [
        invite(
            &s,
            &shop_admin,
            shop,
            json!({"email": "new-owner@example.com", "role": "owner"}),
        )
        .await,
        set_role(&s, &shop_admin, shop, &target["id"], "owner").await,
        set_role(&s, &shop_admin, shop, &mine["id"], "admin").await,
        s.call(
            Method::DELETE,
            &admin_path(shop, &mine["id"]),
            &shop_admin,
            None,
        )
        .await,
    ] {
        assert_error(&answer, StatusCode::FORBIDDEN, "role_forbidden");
    }
    assert_eq!(written(&s).await, untouched);
    // Its staff, promoted to admin, now manage it; demoted again, they no longer do.
    let staff_row =
        roster(&s, &owner, shop, "?role=staff&sort=email.desc").await["_embedded"]["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["email"] == "shop-staff@example.com")
            .cloned()
            .unwrap();
    set_role(&s, &owner, shop, &staff_row["id"], "admin").await;
    let (status, _) = s
        .call(
            Method::PUT,
            &shop_path,
            &shop_staff,
            Some(json!({"name": "Renamed by staff"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    set_role(&s, &owner, shop, &staff_row["id"], "readonly").await;
    assert_error(
        &s.call(
            Method::PUT,
            &shop_path,
            &shop_staff,
            Some(json!({"name": "Again"})),
        )
        .await,
        StatusCode::FORBIDDEN,
        "role_forbidden",
    );
    // The account's owner and the account's apps manage every shop.
    let (status, _) = s
        .call(
            Method::PUT,
            &shop_path,
            &owner,
            Some(json!({"name": "Renamed by the owner"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let app = s
        .client_credentials_token(
            &s.demo.app.client_id,
            &s.demo.app.client_secret,
            Some("shops.write"),
        )
        .await;
    let (status, _) = s
        .call(
            Method::PUT,
            &shop_path,
            &app,
            Some(json!({"name": "Renamed by the app"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    invited(
        &s,
        &app,
        shop,
        json!({"email": "by-app@example.com", "role": "owner"}),
    )
    .await;
}

/// Rounds of the race: enough to hit the window on either backend, few enough for CI.
const ROUNDS: usize = 10;

async fn concurrent_demotions_of_the_two_owners_leave_one(s: TestServer) {
    let owner = s.owner_token().await;
    let shop = s.shop_id();
    s.add_user("partner@example.com", PASSWORD, "admin").await;
    let partner = invited(
        &s,
        &owner,
        shop,
        json!({"email": "partner@example.com", "role": "owner"}),
    )
    .await;
    let mine = owner_row(&s, &owner, shop).await;
    let owners = || async {
        s.db.scalar(&format!(
            "SELECT COUNT(*) FROM shop_admins WHERE shop_id = {shop} AND role = 'owner'"
        ))
        .await
    };
    for round in 0..ROUNDS {
        let (a, b) = tokio::join!(
            set_role(&s, &owner, shop, &mine["id"], "admin"),
            set_role(&s, &owner, shop, &partner["id"], "admin"),
        );
        let mut statuses = [a.0, b.0];
        statuses.sort();
        assert_eq!(
            statuses,
            [StatusCode::OK, StatusCode::UNPROCESSABLE_ENTITY],
            "round {round}: {} / {}",
            a.1,
            b.1
        );
        let refused = if a.0 == StatusCode::OK { &b.1 } else { &a.1 };
        assert_eq!(error_fields(refused), ["role"]);
        assert_eq!(owners().await, 1, "round {round}");
        // Both owners again for the next round.
        for id in [&mine["id"], &partner["id"]] {
            let (status, _) = set_role(&s, &owner, shop, id, "owner").await;
            assert_eq!(status, StatusCode::OK);
        }
        assert_eq!(owners().await, 2);
    }
    // A removal racing a demotion leaves one owner too.
    let partner_path = admin_path(shop, &partner["id"]);
    let (a, b) = tokio::join!(
        set_role(&s, &owner, shop, &mine["id"], "admin"),
        s.call(Method::DELETE, &partner_path, &owner, None),
    );
    assert_ne!(a.0, b.0, "{} / {}", a.1, b.1);
    assert!(!a.0.is_server_error() && !b.0.is_server_error());
    assert_eq!(owners().await, 1);
}

async fn roster_changes_reach_the_shops_subscribers(backend: Backend) {
    let (s, _clock, receiver) = crate::webhooks::hub(backend).await;
    let owner = s.owner_token().await;
    let shop = s.shop_id();
    crate::webhooks::active_subscriptions(
        &s,
        &owner,
        [json!({"topic": "shops.admins", "url": receiver.url("/admins")})],
    )
    .await;
    s.add_user("hooked@example.com", PASSWORD, "staff").await;
    let admin = invited(
        &s,
        &owner,
        shop,
        json!({"email": "hooked@example.com", "role": "staff"}),
    )
    .await;
    let (status, _) = set_role(&s, &owner, shop, &admin["id"], "readonly").await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = s
        .call(
            Method::DELETE,
            &admin_path(shop, &admin["id"]),
            &owner,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    receiver
        .wait_until("three roster events", |r| {
            r.iter().filter(|x| !x.is_ping()).count() >= 3
        })
        .await;
    s.deliveries_settled().await;
    let mut deliveries = receiver.deliveries();
    deliveries.sort_by_key(|d| d.json()["sequence"].as_i64());
    let topics: Vec<&str> = deliveries
        .iter()
        .map(|d| d.header("x-hook-topic").unwrap())
        .collect();
    assert_eq!(
        topics,
        [
            "shops.admins.created",
            "shops.admins.updated",
            "shops.admins.deleted"
        ]
    );
    for (delivery, role) in deliveries.iter().zip(["staff", "readonly", "readonly"]) {
        let body = delivery.json();
        assert_eq!(body["item_type"], "shop_admin");
        assert_eq!(body["item_id"], admin["id"]);
        assert_eq!(body["shop_id"], shop);
        assert_eq!(body["shop_subdomain"], s.demo.shops[0].subdomain);
        assert_eq!(body["user_name"], "Demo Owner");
        assert_eq!(body["_embedded"]["item"]["email"], "hooked@example.com");
        assert_eq!(body["_embedded"]["item"]["role"], role);
    }
    // A refused change reaches no one.
    let mine = owner_row(&s, &owner, shop).await;
    let (status, _) = set_role(&s, &owner, shop, &mine["id"], "staff").await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(s.event_count("shops.admins.updated").await, 1);
}
