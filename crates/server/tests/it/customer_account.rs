//! Customer sessions: a storefront app signs a shop's customer in; the session's token
//! reaches the customer's own profile, password, addresses and orders and nothing else;
//! sessions end on sign-out, on a new password, and when the shop disables or deletes the
//! customer; failed sign-ins are throttled.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use std::time::Duration;

use server::config::smtp::{SmtpUrl, mail_from};

use crate::on_both_backends;
use crate::support::smtp::SmtpServer;
use crate::support::{Backend, TestServer, error_fields, eventually, item_ids};

on_both_backends!(
    a_session_reaches_the_customers_own_data_and_nothing_else,
    sessions_end_on_sign_out_new_passwords_disabling_and_deleting,
    failed_sign_ins_are_throttled_per_email,
);

// Password resets send mail through a real SMTP server the test starts.
crate::on_both_backends!(
    a_mailed_reset_code_sets_a_password_once_and_ends_every_session,
    reset_requests_tell_nothing_and_are_throttled,
);

const PASSWORD: &str = "correct horse battery";

/// A storefront app's token: public scope, bound to no account.
async fn storefront_token(s: &TestServer) -> String {
    let (id, secret) = s
        .register_app(None, "public", "client_credentials", false)
        .await;
    s.client_credentials_token(&id, &secret, Some("public"))
        .await
}

async fn create_customer(s: &TestServer, token: &str, body: Value) -> Value {
    let (status, customer) = s
        .call(Method::POST, "/v2/customers", token, Some(body))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{customer}");
    customer
}

/// `POST /v2/shops/{shop}/customer_sessions` with these credentials.
async fn sign_in(
    s: &TestServer,
    storefront: &str,
    email: &str,
    password: &str,
) -> (StatusCode, Value) {
    s.call(
        Method::POST,
        &format!("/v2/shops/{}/customer_sessions", s.shop_id()),
        storefront,
        Some(json!({"email": email, "password": password})),
    )
    .await
}

/// A new session's token for these credentials.
async fn session(s: &TestServer, storefront: &str, email: &str, password: &str) -> String {
    let (status, answer) = sign_in(s, storefront, email, password).await;
    assert_eq!(status, StatusCode::CREATED, "{answer}");
    answer["access_token"].as_str().unwrap().to_owned()
}

/// A placed order of one unit of a new product, linked to the customer.
async fn placed_order(s: &TestServer, token: &str, customer: &Value, sku: &str) -> Value {
    let product = s
        .create_product(
            token,
            json!({"title": format!("Item {sku}"), "status": "visible",
                   "variants": [{"sku": sku, "price": 1500, "stock": 5}]}),
        )
        .await;
    let variant = &product["_embedded"]["variants"][0]["id"];
    let (status, order) = s
        .call(
            Method::POST,
            &format!("/v2/shops/{}/orders", s.shop_id()),
            token,
            Some(json!({"lines": [{"variant_id": variant}], "contact_id": customer["id"]})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{order}");
    let (status, placed) = s
        .call(
            Method::PUT,
            &format!("/v2/orders/{}/place", order["id"]),
            token,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{placed}");
    placed
}

async fn status_of(s: &TestServer, path: &str, token: &str) -> StatusCode {
    s.get(path, token).send().await.unwrap().status()
}

async fn a_session_reaches_the_customers_own_data_and_nothing_else(s: TestServer) {
    let staff = s.owner_token().await;
    let storefront = storefront_token(&s).await;
    let ada = create_customer(
        &s,
        &staff,
        json!({"first_name": "Ada", "email": "ada@example.com", "password": PASSWORD,
               "addresses": [{"street": "Main 1", "country_code": "CL"}]}),
    )
    .await;
    assert!(
        ada.get("password").is_none() && ada.get("password_hash").is_none(),
        "a password is never shown: {ada}"
    );
    let bob = create_customer(
        &s,
        &staff,
        json!({"email": "bob@example.com", "password": "another secret words"}),
    )
    .await;
    let no_password = create_customer(&s, &staff, json!({"email": "nopass@example.com"})).await;
    let adas_order = placed_order(&s, &staff, &ada, "ADA-1").await;
    let bobs_order = placed_order(&s, &staff, &bob, "BOB-1").await;

    // Signing in: an email in any case; every failure looks alike.
    let response = s
        .request(
            Method::POST,
            &format!("/v2/shops/{}/customer_sessions", s.shop_id()),
            &storefront,
        )
        .json(&json!({"email": "ADA@example.com", "password": PASSWORD}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["cache-control"], "no-store");
    let (status, answer) = crate::support::json(response).await;
    assert_eq!(status, StatusCode::CREATED, "{answer}");
    assert_eq!(answer["token_type"], "bearer");
    assert_eq!(answer["customer_id"], ada["id"]);
    assert!(answer["expires_in"].as_u64().unwrap() > 0);
    let token = answer["access_token"].as_str().unwrap().to_owned();
    for (email, password) in [
        ("ada@example.com", "wrong password!!"),
        ("nobody@example.com", PASSWORD),
        ("nopass@example.com", PASSWORD),
    ] {
        let (status, refused) = sign_in(&s, &storefront, email, password).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{email}: {refused}");
        assert_eq!(refused["error"], "invalid_credentials");
        assert_eq!(refused["message"], "the email or password is wrong");
    }
    assert!(no_password["id"].is_i64());
    // Only a storefront app's token signs customers in.
    let (status, refused) = s
        .call(
            Method::POST,
            &format!("/v2/shops/{}/customer_sessions", s.shop_id()),
            &token,
            Some(json!({"email": "ada@example.com", "password": PASSWORD})),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{refused}");
    let scoped_staff = s
        .password_token(
            &s.demo.user.email.clone(),
            &s.demo.user.password.clone(),
            Some("customers.read"),
        )
        .await;
    let (status, _) = s
        .call(
            Method::POST,
            &format!("/v2/shops/{}/customer_sessions", s.shop_id()),
            &scoped_staff,
            Some(json!({"email": "ada@example.com", "password": PASSWORD})),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);

    // The customer's own profile, in their own view.
    let (status, me) = s.get_json("/v2/customer", &token).await;
    assert_eq!(status, StatusCode::OK, "{me}");
    assert_eq!(me["id"], ada["id"]);
    assert_eq!(me["addresses"], ada["addresses"]);
    assert_eq!(me["orders_count"], 1);
    assert_eq!(me["_links"]["self"]["href"], s.url("/v2/customer"));
    for rel in [
        "account:update",
        "account:password",
        "account:orders",
        "account:sign_out",
    ] {
        assert!(me["_links"].get(rel).is_some(), "{rel} in {me}");
    }
    assert!(me["_links"].get("customers:update").is_none());
    // The root shows a customer their own links, and a storefront app the sign-in.
    let (_, root) = s.get_json("/v2", &token).await;
    assert_eq!(
        root["_links"]["account:customer"]["href"],
        s.url("/v2/customer")
    );
    assert!(root["_links"].get("customers:customers").is_none());
    let (_, root) = s.get_json("/v2", &storefront).await;
    assert!(root["_links"].get("account:sign_in").is_some(), "{root}");

    // Nothing of the shop's: every staff route refuses the token.
    for path in [
        "/v2/customers".to_owned(),
        format!("/v2/customers/{}", ada["id"]),
        "/v2/orders".to_owned(),
        format!("/v2/orders/{}", adas_order["id"]),
        format!("/v2/shops/{}", s.shop_id()),
        "/v2/products".to_owned(),
        "/v2/webhooks".to_owned(),
    ] {
        assert_eq!(
            status_of(&s, &path, &token).await,
            StatusCode::FORBIDDEN,
            "{path}"
        );
    }
    // And the customer's routes refuse every other token.
    let (status, refused) = s.get_json("/v2/customer", &staff).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(refused["error"], "customer_token_required");
    assert_eq!(
        status_of(&s, "/v2/customer/orders", &storefront).await,
        StatusCode::FORBIDDEN
    );

    // Their orders, and no one else's.
    let (status, orders) = s.get_json("/v2/customer/orders", &token).await;
    assert_eq!(status, StatusCode::OK, "{orders}");
    assert_eq!(item_ids(&orders), [adas_order["id"].as_i64().unwrap()]);
    let listed = &orders["_embedded"]["items"][0];
    assert_eq!(
        listed["_links"]["self"]["href"],
        s.url(&format!("/v2/customer/orders/{}", adas_order["id"]))
    );
    assert!(listed["_links"].get("orders:cancel").is_none());
    let (status, one) = s
        .get_json(&format!("/v2/customer/orders/{}", adas_order["id"]), &token)
        .await;
    assert_eq!(status, StatusCode::OK, "{one}");
    assert_eq!(one["total"], adas_order["total"]);
    assert_eq!(
        status_of(
            &s,
            &format!("/v2/customer/orders/{}", bobs_order["id"]),
            &token
        )
        .await,
        StatusCode::NOT_FOUND
    );
    let (_, filtered) = s
        .get_json(
            &format!("/v2/customer/orders?contact_id={}", bob["id"]),
            &token,
        )
        .await;
    assert_eq!(filtered["total_items"], 0, "never another's: {filtered}");

    // Their profile: what they may change, and what only the shop may.
    let (status, changed) = s
        .call(
            Method::PUT,
            "/v2/customer",
            &token,
            Some(json!({"last_name": "Lovelace", "opt_in": true})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{changed}");
    assert_eq!(changed["name"], "Ada Lovelace");
    assert_eq!(changed["opt_in"], true);
    let (status, refused) = s
        .call(
            Method::PUT,
            "/v2/customer",
            &token,
            Some(
                json!({"email": "mine@example.com", "tags": ["vip"], "status": "active",
                        "note": "hi", "password": "sneaky password"}),
            ),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    let mut fields = error_fields(&refused);
    fields.sort();
    assert_eq!(fields, ["email", "note", "password", "status", "tags"]);
    let (_, seen_by_staff) = s
        .get_json(&format!("/v2/customers/{}", ada["id"]), &staff)
        .await;
    assert_eq!(seen_by_staff["email"], "ada@example.com");
    assert_eq!(seen_by_staff["last_name"], "Lovelace");

    // Their addresses.
    let (status, added) = s
        .call(
            Method::POST,
            "/v2/customer/addresses",
            &token,
            Some(json!({"street": "Office 2", "country_code": "CL", "default_billing": true})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{added}");
    let address = format!("/v2/customer/addresses/{}", added["id"]);
    assert_eq!(added["_links"]["self"]["href"], s.url(&address));
    assert_eq!(added["default_billing"], true);
    let (_, list) = s.get_json("/v2/customer/addresses", &token).await;
    assert_eq!(list["total_items"], 2);
    let (status, moved) = s
        .call(
            Method::PUT,
            &address,
            &token,
            Some(json!({"street": "Office 3"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{moved}");
    assert_eq!(moved["street"], "Office 3");
    let bobs = create_customer(
        &s,
        &staff,
        json!({"email": "carol@example.com", "addresses": [{"street": "Elsewhere"}]}),
    )
    .await;
    let theirs = format!("/v2/customer/addresses/{}", bobs["addresses"][0]["id"]);
    assert_eq!(status_of(&s, &theirs, &token).await, StatusCode::NOT_FOUND);
    let (status, _) = s.call(Method::DELETE, &theirs, &token, None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = s.call(Method::DELETE, &address, &token, None).await;
    assert_eq!(status, StatusCode::OK);
    let (_, me) = s.get_json("/v2/customer", &token).await;
    assert_eq!(me["default_billing_address_id"], Value::Null);
}

async fn sessions_end_on_sign_out_new_passwords_disabling_and_deleting(s: TestServer) {
    let staff = s.owner_token().await;
    let storefront = storefront_token(&s).await;
    let ada = create_customer(
        &s,
        &staff,
        json!({"email": "ada@example.com", "password": PASSWORD}),
    )
    .await;
    let first = session(&s, &storefront, "ada@example.com", PASSWORD).await;
    let second = session(&s, &storefront, "ada@example.com", PASSWORD).await;
    assert_eq!(status_of(&s, "/v2/customer", &second).await, StatusCode::OK);

    // A new password needs the current one, and ends the other sessions.
    let change = |current: &str, new: &str| json!({"current_password": current, "password": new});
    for (body, fields) in [
        (
            change("wrong password!!", "a new long password"),
            vec!["current_password"],
        ),
        (change(PASSWORD, "short"), vec!["password"]),
        (
            change("wrong password!!", "short"),
            vec!["current_password", "password"],
        ),
    ] {
        let (status, refused) = s
            .call(Method::PUT, "/v2/customer/password", &first, Some(body))
            .await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
        let mut named = error_fields(&refused);
        named.sort();
        assert_eq!(named, fields);
    }
    let (status, _) = s
        .call(
            Method::PUT,
            "/v2/customer/password",
            &first,
            Some(change(PASSWORD, "a new long password")),
        )
        .await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    assert_eq!(status_of(&s, "/v2/customer", &first).await, StatusCode::OK);
    // Ended on this node at once (other nodes follow within their revocation refresh).
    assert_eq!(
        status_of(&s, "/v2/customer", &second).await,
        StatusCode::UNAUTHORIZED
    );
    let (status, _) = sign_in(&s, &storefront, "ada@example.com", PASSWORD).await;
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "the old password no longer works"
    );
    let third = session(&s, &storefront, "ada@example.com", "a new long password").await;

    // Signing out ends that session alone.
    let (status, _) = s
        .call(Method::DELETE, "/v2/customer/session", &first, None)
        .await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    assert_eq!(
        status_of(&s, "/v2/customer", &first).await,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(status_of(&s, "/v2/customer", &third).await, StatusCode::OK);

    // The shop setting a password ends every session too.
    let customer_path = format!("/v2/customers/{}", ada["id"]);
    let (status, _) = s
        .call(
            Method::PUT,
            &customer_path,
            &staff,
            Some(json!({"password": "set by the shop!"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        status_of(&s, "/v2/customer", &third).await,
        StatusCode::UNAUTHORIZED
    );
    let (status, refused) = s
        .call(
            Method::PUT,
            &customer_path,
            &staff,
            Some(json!({"password": "short"})),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_fields(&refused), ["password"]);
    // A bad password is named with every other bad field, on update and on create.
    let (status, refused) = s
        .call(
            Method::PUT,
            &customer_path,
            &staff,
            Some(json!({"password": "short", "default_shipping_address_id": 999_999})),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    let mut named = error_fields(&refused);
    named.sort();
    assert_eq!(named, ["default_shipping_address_id", "password"]);
    let (status, refused) = s
        .call(
            Method::POST,
            "/v2/customers",
            &staff,
            Some(json!({"email": "not an email", "password": "short"})),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_fields(&refused), ["email", "password"]);

    // Disabling the customer ends their sessions at once, and they cannot sign in.
    let fourth = session(&s, &storefront, "ada@example.com", "set by the shop!").await;
    let (status, _) = s
        .call(
            Method::PUT,
            &customer_path,
            &staff,
            Some(json!({"status": "disabled"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        status_of(&s, "/v2/customer", &fourth).await,
        StatusCode::UNAUTHORIZED
    );
    let (status, _) = sign_in(&s, &storefront, "ada@example.com", "set by the shop!").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, _) = s
        .call(
            Method::PUT,
            &customer_path,
            &staff,
            Some(json!({"status": "active"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        status_of(&s, "/v2/customer", &fourth).await,
        StatusCode::UNAUTHORIZED,
        "a session ended stays ended"
    );

    // Deleting the customer ends their sessions; the ended tokens stay revoked.
    let fifth = session(&s, &storefront, "ada@example.com", "set by the shop!").await;
    let (status, _) = s.call(Method::DELETE, &customer_path, &staff, None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        status_of(&s, "/v2/customer", &fifth).await,
        StatusCode::UNAUTHORIZED
    );
    let revoked = s
        .db
        .scalar("SELECT COUNT(*) FROM access_tokens WHERE customer_id IS NULL AND grant_type = 'customer_session' AND revoked_on IS NOT NULL")
        .await;
    assert_eq!(revoked, 5, "every session's token is kept, revoked");
}

async fn failed_sign_ins_are_throttled_per_email(s: TestServer) {
    let staff = s.owner_token().await;
    let storefront = storefront_token(&s).await;
    create_customer(
        &s,
        &staff,
        json!({"email": "ada@example.com", "password": PASSWORD}),
    )
    .await;
    // Five failures for one email lock it; the right password waits too.
    for _ in 0..5 {
        let (status, _) = sign_in(&s, &storefront, "ada@example.com", "wrong password!!").await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
    }
    let response = s
        .request(
            Method::POST,
            &format!("/v2/shops/{}/customer_sessions", s.shop_id()),
            &storefront,
        )
        .json(&json!({"email": "Ada@Example.com", "password": PASSWORD}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS);
    let retry: u64 = response.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=31).contains(&retry), "{retry}");
    // Another email is not locked by them.
    let (status, _) = sign_in(&s, &storefront, "other@example.com", "wrong password!!").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

/// A server that mails through `smtp`.
async fn mailing_server(backend: Backend, smtp: &SmtpServer) -> TestServer {
    let url = smtp.url();
    TestServer::start_with(backend, |c| {
        c.smtp_url = Some(SmtpUrl::parse(&url).unwrap());
        c.mail_from = Some(mail_from("Demo Shop <shop@example.com>").unwrap());
        c.mail_poll = Duration::from_millis(50);
    })
    .await
}

/// `POST /v2/shops/{shop}/customer_password_resets` for `email`.
async fn ask_reset(s: &TestServer, storefront: &str, email: &str) -> reqwest::Response {
    s.request(
        Method::POST,
        &format!("/v2/shops/{}/customer_password_resets", s.shop_id()),
        storefront,
    )
    .json(&json!({"email": email}))
    .send()
    .await
    .unwrap()
}

/// `PUT /v2/shops/{shop}/customer_password`.
async fn set_password(
    s: &TestServer,
    storefront: &str,
    code: &str,
    password: &str,
) -> (StatusCode, Value) {
    s.call(
        Method::PUT,
        &format!("/v2/shops/{}/customer_password", s.shop_id()),
        storefront,
        Some(json!({"reset_token": code, "password": password})),
    )
    .await
}

/// The code in the `n`-th reset mail to `to` (the line after "enter this code").
async fn mailed_code(smtp: &SmtpServer, to: &str, n: usize) -> String {
    let mail = eventually(&format!("reset mail {n} for {to}"), || async {
        smtp.received()
            .into_iter()
            .filter(|m| m.to == [to])
            .nth(n - 1)
    })
    .await;
    assert!(
        mail.subject().starts_with("Reset your password at "),
        "{}",
        mail.subject()
    );
    let text = mail.text();
    let code = text
        .lines()
        .skip_while(|line| !line.contains("enter this code"))
        .map(str::trim)
        .find(|line| !line.is_empty() && !line.contains("enter this code"))
        .unwrap_or_else(|| panic!("no code in {text}"));
    code.to_owned()
}

async fn a_mailed_reset_code_sets_a_password_once_and_ends_every_session(backend: Backend) {
    let smtp = SmtpServer::start().await;
    let s = mailing_server(backend, &smtp).await;
    let staff = s.owner_token().await;
    let storefront = storefront_token(&s).await;
    // An invited customer without a password sets one through a reset.
    let invited = create_customer(
        &s,
        &staff,
        json!({"email": "Ada@Example.com", "status": "invited"}),
    )
    .await;
    let response = ask_reset(&s, &storefront, "ada@example.com").await;
    assert_eq!(response.status(), StatusCode::ACCEPTED);
    let code = mailed_code(&smtp, "Ada@Example.com", 1).await;
    // Kept only as its digest; the mail's body is erased once sent.
    let digests: Vec<(Vec<u8>,)> =
        s.db.rows(&format!(
            "SELECT digest FROM customer_password_resets WHERE customer_id = {}",
            invited["id"]
        ))
        .await;
    assert_eq!(
        digests,
        [(storage::secrets::sha256(code.as_bytes()).to_vec(),)]
    );
    eventually("the sent mail's body to be erased", || async {
        let kept =
            s.db.scalar("SELECT COUNT(*) FROM mail_outbox WHERE body_sealed IS NOT NULL")
                .await;
        (kept == 0).then_some(())
    })
    .await;
    let updated_before = s.event_count("customers.updated").await;
    let (status, refused) = set_password(&s, &storefront, &code, "short").await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_fields(&refused), ["password"]);
    let (status, refused) = set_password(&s, &storefront, "not-a-code", "short").await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_fields(&refused), ["password", "reset_token"]);
    let (status, _) = set_password(&s, &storefront, &code, "my own new password").await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let (_, now_active) = s
        .get_json(&format!("/v2/customers/{}", invited["id"]), &staff)
        .await;
    assert_eq!(now_active["status"], "active");
    assert_eq!(s.event_count("customers.updated").await, updated_before + 1);
    // Used once.
    let (status, refused) = set_password(&s, &storefront, &code, "another new password").await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    assert_eq!(error_fields(&refused), ["reset_token"]);
    let (status, refused) =
        set_password(&s, &storefront, "not-a-code", "another new password").await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_fields(&refused), ["reset_token"]);
    let session_token = session(&s, &storefront, "ada@example.com", "my own new password").await;

    // A completed reset voids the other codes and ends every session.
    ask_reset(&s, &storefront, "ada@example.com").await;
    ask_reset(&s, &storefront, "ada@example.com").await;
    let second = mailed_code(&smtp, "Ada@Example.com", 2).await;
    let third = mailed_code(&smtp, "Ada@Example.com", 3).await;
    let (status, _) = set_password(&s, &storefront, &third, "the third password").await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    assert_eq!(
        status_of(&s, "/v2/customer", &session_token).await,
        StatusCode::UNAUTHORIZED
    );
    let (status, _) = set_password(&s, &storefront, &second, "the second password").await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "voided");
    session(&s, &storefront, "ada@example.com", "the third password").await;

    // A code is good for an hour.
    let bob = create_customer(&s, &staff, json!({"email": "bob@example.com"})).await;
    ask_reset(&s, &storefront, "bob@example.com").await;
    let late = mailed_code(&smtp, "bob@example.com", 1).await;
    s.db.execute(&format!(
        "UPDATE customer_password_resets SET expires_on = 0 WHERE customer_id = {}",
        bob["id"]
    ))
    .await;
    let (status, _) = set_password(&s, &storefront, &late, "too late a password").await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    smtp.stop().await;
}

async fn reset_requests_tell_nothing_and_are_throttled(backend: Backend) {
    let smtp = SmtpServer::start().await;
    let s = mailing_server(backend, &smtp).await;
    let staff = s.owner_token().await;
    let storefront = storefront_token(&s).await;
    create_customer(&s, &staff, json!({"email": "ada@example.com"})).await;
    create_customer(
        &s,
        &staff,
        json!({"email": "off@example.com", "status": "disabled"}),
    )
    .await;
    // Known, unknown and disabled emails get the same answer; only the known one is mailed.
    for email in ["ada@example.com", "nobody@example.com", "off@example.com"] {
        let response = ask_reset(&s, &storefront, email).await;
        assert_eq!(response.status(), StatusCode::ACCEPTED, "{email}");
        assert_eq!(response.text().await.unwrap(), "", "{email}");
    }
    mailed_code(&smtp, "ada@example.com", 1).await;
    assert_eq!(
        s.db.scalar("SELECT COUNT(*) FROM mail_outbox").await,
        1,
        "one mail, to the customer who may sign in"
    );
    // A bad email is refused on its field; other tokens are refused.
    let response = ask_reset(&s, &storefront, "not an email").await;
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        ask_reset(&s, &staff, "ada@example.com").await.status(),
        StatusCode::ACCEPTED
    );
    let scoped = s
        .password_token(
            &s.demo.user.email.clone(),
            &s.demo.user.password.clone(),
            Some("customers.write"),
        )
        .await;
    assert_eq!(
        ask_reset(&s, &scoped, "ada@example.com").await.status(),
        StatusCode::FORBIDDEN
    );
    // Three requests per email within the window (two were sent above), known or not.
    assert_eq!(
        ask_reset(&s, &storefront, "ada@example.com").await.status(),
        StatusCode::ACCEPTED
    );
    assert_eq!(
        ask_reset(&s, &storefront, "ada@example.com").await.status(),
        StatusCode::TOO_MANY_REQUESTS
    );
    for _ in 0..2 {
        assert_eq!(
            ask_reset(&s, &storefront, "nobody@example.com")
                .await
                .status(),
            StatusCode::ACCEPTED
        );
    }
    let response = ask_reset(&s, &storefront, "nobody@example.com").await;
    assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS);
    assert!(response.headers().contains_key("retry-after"));
    smtp.stop().await;
}
