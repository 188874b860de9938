//! Operator actions on accounts: adding users and registering OAuth apps.

use anyhow::{Context, bail};
use domain::validation::{FieldErrors, email};
use domain::{Clock, Role};
use oauth::apps::{AppRegistration, RegisteredApp, register};
use oauth::password;
use oauth::secret_box::SecretBox;
use storage::users::{self, NewUser, User};
use storage::{Database, UniqueIndex};

pub struct NewUserRequest<'a> {
    pub account_id: i64,
    pub email: &'a str,
    pub name: Option<&'a str>,
    pub password: &'a str,
    pub role: Role,
}

pub async fn create_user(
    db: &Database,
    clock: &dyn Clock,
    request: &NewUserRequest<'_>,
) -> anyhow::Result<User> {
    let mut errors = FieldErrors::new();
    errors.check("email", email(request.email.trim()));
    errors.check("password", password::validate(request.password));
    if !errors.is_empty() {
        bail!("invalid user: {errors}");
    }
    if storage::accounts::find(db, request.account_id)
        .await?
        .is_none()
    {
        bail!("account {} does not exist", request.account_id);
    }
    let hash = password::hash(request.password.to_owned()).await;
    let default_name = request.email.split('@').next().unwrap_or(request.email);
    let mut tx = db.begin().await?;
    let user = users::insert(
        &mut tx,
        &NewUser {
            account_id: request.account_id,
            email: request.email,
            name: request.name.unwrap_or(default_name),
            password_hash: &hash,
            role: request.role,
        },
        clock.now(),
    )
    .await
    .map_err(|err| {
        if err.violated_index() == Some(UniqueIndex::UsersEmail) {
            anyhow::anyhow!("a user with e-mail {} already exists", request.email)
        } else {
            err.into()
        }
    })?;
    tx.commit().await?;
    Ok(user)
}

pub async fn create_app(
    db: &Database,
    secret_box: &SecretBox,
    clock: &dyn Clock,
    registration: &AppRegistration,
) -> anyhow::Result<RegisteredApp> {
    let errors = oauth::apps::check(registration);
    if !errors.is_empty() {
        bail!("invalid app: {errors}");
    }
    if let Some(account_id) = registration.account_id
        && storage::accounts::find(db, account_id).await?.is_none()
    {
        bail!("account {account_id} does not exist");
    }
    let mut tx = db.begin().await?;
    let registered = register(&mut tx, secret_box, registration, clock.now())
        .await
        .context("could not store the app")?;
    tx.commit().await?;
    Ok(registered)
}
