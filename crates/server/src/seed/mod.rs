//! Demo data: an account with an owner (who owns both shops), a seller with a hosted and a
//! headless shop, and a trusted first-party app allowed every grant and scope (the
//! credentials scopes named, as `admin` does not imply them). Names carry a random suffix
//! so that seeding twice gives two independent accounts.

use domain::shop::Storefront;
use domain::{Clock, Role, ScopeSet};
use oauth::apps::AppRegistration;
use oauth::grant::GrantType;
use oauth::secret_box::SecretBox;
use oauth::secrets::random_token;
use serde::Serialize;
use storage::shops::ShopSettings;
use storage::{Database, accounts, sellers, shop_admins, shops};

use crate::accounts::{NewUserRequest, create_app, create_user};

pub mod catalog;
pub mod orders;
pub mod purchases;
mod random;

#[derive(Clone, Debug, Serialize)]
pub struct DemoData {
    pub account_id: i64,
    pub user: DemoUser,
    pub app: DemoApp,
    pub sellers: Vec<DemoSeller>,
    pub shops: Vec<DemoShop>,
}

#[derive(Clone, Debug, Serialize)]
pub struct DemoUser {
    pub email: String,
    pub password: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct DemoApp {
    pub client_id: String,
    pub client_secret: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct DemoSeller {
    pub id: i64,
}

#[derive(Clone, Debug, Serialize)]
pub struct DemoShop {
    pub id: i64,
    pub subdomain: String,
}

fn suffix() -> String {
    random_token(6)
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .take(6)
        .collect()
}

pub async fn demo(
    db: &Database,
    secret_box: &SecretBox,
    clock: &dyn Clock,
) -> anyhow::Result<DemoData> {
    let tag = suffix();
    let now = clock.now();
    let mut tx = db.begin().await?;
    let account = accounts::insert(&mut tx, &format!("Demo Account {tag}"), now).await?;
    let seller = sellers::insert(
        &mut tx,
        &sellers::NewSeller {
            account_id: account.id,
            name: "Demo Seller",
            slug: "demo-seller",
            default_currency_code: "USD",
            country_code: Some("US"),
        },
        now,
    )
    .await?;
    let mut demo_shops = Vec::new();
    for (kind, name, storefront) in [
        ("store", "Demo Store", Storefront::Hosted),
        ("headless", "Demo Headless Shop", Storefront::Headless),
    ] {
        let subdomain = format!("demo-{kind}-{tag}");
        let settings = ShopSettings {
            name: name.to_owned(),
            description: format!("A {storefront} demo shop."),
            locale: "en-US".to_owned(),
            currency_code: "USD".to_owned(),
            timezone: "America/New_York".to_owned(),
            contact_email: Some(format!("shop+{tag}@demo.example")),
            storefront,
        };
        let shop =
            shops::insert(&mut tx, account.id, seller.id, &subdomain, &settings, now).await?;
        demo_shops.push(DemoShop {
            id: shop.id,
            subdomain: shop.subdomain,
        });
    }
    tx.commit().await?;

    let email = format!("owner+{tag}@demo.example");
    let password = random_token(12);
    create_user(
        db,
        clock,
        &NewUserRequest {
            account_id: account.id,
            email: &email,
            name: Some("Demo Owner"),
            password: &password,
            role: Role::Owner,
        },
    )
    .await?;
    // The owner owns the shops, as if they had opened them.
    let mut tx = db.begin().await?;
    for shop in &demo_shops {
        shop_admins::add_account_owners(&mut tx, shop.id, clock.now()).await?;
    }
    tx.commit().await?;
    let app = create_app(
        db,
        secret_box,
        clock,
        &AppRegistration {
            name: "Demo App".to_owned(),
            account_id: Some(account.id),
            // Named, so that the owner's default token manages credentials as a first-party
            // app's should; `admin` alone would not.
            scopes: ScopeSet::parse("admin,public,credentials.read,credentials.write")
                .expect("the demo scopes parse"),
            grants: GrantType::ALL.to_vec(),
            redirect_uris: vec!["http://127.0.0.1:8000/callback".to_owned()],
            trusted: true,
            public: false,
        },
    )
    .await?;
    Ok(DemoData {
        account_id: account.id,
        user: DemoUser { email, password },
        app: DemoApp {
            client_id: app.app.client_id,
            client_secret: app.client_secret.unwrap_or_default(),
        },
        sellers: vec![DemoSeller { id: seller.id }],
        shops: demo_shops,
    })
}
