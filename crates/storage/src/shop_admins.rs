//! Shop admins: a shop's roster of the account's users, each with a role, invited until
//! accepted. A row is read with its user's email and name (the user's own, so that a
//! change of name shows on every roster at once). Callers find the shop within their
//! tenant first; every read here is narrowed to that shop (and its account) too.

use domain::{Role, Timestamp};

use crate::db::{Database, Exec, Tx};
use crate::error::Result;
use crate::sql::{Arg, Filter, Sort, Window, list_sql};
use crate::write::Columns;

#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct ShopAdmin {
    pub id: i64,
    pub account_id: i64,
    pub shop_id: i64,
    pub user_id: i64,
    #[sqlx(try_from = "String")]
    pub role: Role,
    pub invited_on: Timestamp,
    /// `None` until the user accepts the invitation.
    pub accepted_on: Option<Timestamp>,
    pub created_on: Timestamp,
    pub updated_on: Timestamp,
    /// The user's.
    pub email: String,
    /// The user's.
    pub name: String,
}

impl ShopAdmin {
    pub fn is_accepted(&self) -> bool {
        self.accepted_on.is_some()
    }
}

/// The rows with their users' email and name, under the table's own name.
macro_rules! with_users {
    () => {
        "(SELECT a.id, a.account_id, a.shop_id, a.user_id, a.role, a.invited_on, a.accepted_on, \
         a.created_on, a.updated_on, u.email, u.name \
         FROM shop_admins a JOIN users u ON u.id = a.user_id) shop_admins"
    };
}

const WITH_USERS: &str = with_users!();

macro_rules! columns {
    () => {
        "id, account_id, shop_id, user_id, role, invited_on, accepted_on, created_on, updated_on, \
         email, name"
    };
}

/// Fields a roster may be sorted by. A roster is one shop's: `(shop_id, …)` indexes serve
/// the id and time orders; the email order sorts the shop's rows, joined to their users.
pub const SORT_FIELDS: &[&str] = &["id", "created_on", "email"];

#[derive(Clone, Debug, Default)]
pub struct ShopAdminFilter {
    pub roles: Option<Vec<Role>>,
    /// `Some(true)`: accepted (active) only; `Some(false)`: invited only.
    pub accepted: Option<bool>,
}

/// A roster row to add.
pub struct NewShopAdmin {
    pub account_id: i64,
    pub shop_id: i64,
    pub user_id: i64,
    pub role: Role,
    /// Added at once (an existing user), rather than invited.
    pub accepted: bool,
}

/// Adds a row; answers its id.
pub async fn insert(tx: &mut Tx, admin: &NewShopAdmin, now: Timestamp) -> Result<i64> {
    Columns::new()
        .set("account_id", admin.account_id)
        .set("shop_id", admin.shop_id)
        .set("user_id", admin.user_id)
        .set("role", admin.role.as_str())
        .set("invited_on", now)
        .set("accepted_on", admin.accepted.then_some(now))
        .set("created_on", now)
        .set("updated_on", now)
        .insert_into("shop_admins")
        .fetch_id(tx)
        .await
}

/// Makes every owner user of the shop's account an active owner of it (a shop made by an
/// app or by the service itself); answers the new rows' ids.
pub async fn add_account_owners(tx: &mut Tx, shop_id: i64, now: Timestamp) -> Result<Vec<i64>> {
    with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_scalar::<_, i64>(
            "INSERT INTO shop_admins \
             (account_id, shop_id, user_id, role, invited_on, accepted_on, created_on, updated_on) \
             SELECT s.account_id, s.id, u.id, 'owner', $2, $2, $2, $2 \
             FROM shops s JOIN users u ON u.account_id = s.account_id AND u.role = 'owner' \
             WHERE s.id = $1 ORDER BY u.id RETURNING id",
        )
        .bind(shop_id)
        .bind(now.as_micros())
        .fetch_all(c)
        .await
    })
    .map_err(Into::into)
}

/// The shop's admin with this id.
pub async fn find<'a>(
    exec: impl Into<Exec<'a>>,
    account_id: i64,
    shop_id: i64,
    id: i64,
) -> Result<Option<ShopAdmin>> {
    with_conn!(exec.into(), |c| {
        sqlx::query_as::<_, ShopAdmin>(concat!(
            "SELECT ",
            columns!(),
            " FROM ",
            with_users!(),
            " WHERE id = $1 AND shop_id = $2 AND account_id = $3"
        ))
        .bind(id)
        .bind(shop_id)
        .bind(account_id)
        .fetch_optional(c)
        .await
    })
    .map_err(Into::into)
}

/// The user's row on the shop's roster: their role and whether they accepted.
pub async fn role_of(tx: &mut Tx, shop_id: i64, user_id: i64) -> Result<Option<(Role, bool)>> {
    let found: Option<(String, Option<i64>)> = with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_as(
            "SELECT role, accepted_on FROM shop_admins WHERE shop_id = $1 AND user_id = $2",
        )
        .bind(shop_id)
        .bind(user_id)
        .fetch_optional(c)
        .await
    })?;
    found
        .map(|(role, accepted)| {
            let role = role
                .parse::<Role>()
                .map_err(|e| crate::Error::Corrupt(e.to_string()))?;
            Ok((role, accepted.is_some()))
        })
        .transpose()
}

/// How many active owners the shop has (the caller holds the shop, level 3).
pub async fn active_owners(tx: &mut Tx, shop_id: i64) -> Result<i64> {
    with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_scalar(
            "SELECT COUNT(*) FROM shop_admins \
             WHERE shop_id = $1 AND role = 'owner' AND accepted_on IS NOT NULL",
        )
        .bind(shop_id)
        .fetch_one(c)
        .await
    })
    .map_err(Into::into)
}

/// Changes an admin's role (the caller holds the shop).
pub async fn set_role(tx: &mut Tx, id: i64, role: Role, now: Timestamp) -> Result<()> {
    Columns::new()
        .set("role", role.as_str())
        .set("updated_on", now)
        .update("shop_admins", id)
        .execute(tx)
        .await
}

/// Takes an admin off the roster (the caller holds the shop).
pub async fn delete(tx: &mut Tx, id: i64) -> Result<()> {
    with_conn!(Exec::Tx(tx), |c| {
        sqlx::query("DELETE FROM shop_admins WHERE id = $1")
            .bind(id)
            .execute(c)
            .await
            .map(|_| ())
    })
    .map_err(Into::into)
}

/// Whether the user is invited anywhere but in the row `except` (a row not accepted yet).
pub async fn has_other_pending(tx: &mut Tx, user_id: i64, except: i64) -> Result<bool> {
    let pending: Option<i64> = with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_scalar(
            "SELECT id FROM shop_admins WHERE user_id = $1 AND accepted_on IS NULL AND id <> $2 \
             LIMIT 1",
        )
        .bind(user_id)
        .bind(except)
        .fetch_optional(c)
        .await
    })?;
    Ok(pending.is_some())
}

/// The user's rows not accepted yet, in shop order.
pub async fn pending_of<'a>(exec: impl Into<Exec<'a>>, user_id: i64) -> Result<Vec<ShopAdmin>> {
    with_conn!(exec.into(), |c| {
        sqlx::query_as::<_, ShopAdmin>(concat!(
            "SELECT ",
            columns!(),
            " FROM ",
            with_users!(),
            " WHERE user_id = $1 AND accepted_on IS NULL ORDER BY shop_id"
        ))
        .bind(user_id)
        .fetch_all(c)
        .await
    })
    .map_err(Into::into)
}

/// Accepts every invitation of the user at once; answers the rows accepted, by shop.
pub async fn accept_pending(tx: &mut Tx, user_id: i64, now: Timestamp) -> Result<Vec<ShopAdmin>> {
    let ids: Vec<i64> = with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_scalar::<_, i64>(
            "UPDATE shop_admins SET accepted_on = $2, updated_on = $2 \
             WHERE user_id = $1 AND accepted_on IS NULL RETURNING id",
        )
        .bind(user_id)
        .bind(now.as_micros())
        .fetch_all(c)
        .await
    })?;
    by_ids(Exec::Tx(tx), &ids).await
}

/// Rows by id, in shop order (the caller knows whose they are).
pub async fn by_ids(exec: Exec<'_>, ids: &[i64]) -> Result<Vec<ShopAdmin>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let mut f = Filter::new();
    f.any_of("id", ids.iter().copied().map(Arg::Int));
    let sql = format!(
        "SELECT {} FROM {WITH_USERS}{} ORDER BY shop_id, id",
        columns!(),
        f.where_sql()
    );
    Ok(fetch_all_bound!(exec, ShopAdmin, sql, f.args())?)
}

/// A page of the shop's roster.
pub async fn list(
    db: &Database,
    account_id: i64,
    shop_id: i64,
    filter: &ShopAdminFilter,
    sort: Sort,
    window: Window,
) -> Result<(Vec<ShopAdmin>, u64)> {
    let mut f = Filter::new();
    f.eq("shop_id", Arg::Int(shop_id))
        .eq("account_id", Arg::Int(account_id));
    if let Some(roles) = &filter.roles {
        f.any_of("role", roles.iter().map(|r| Arg::Text(r.as_str().into())));
    }
    match filter.accepted {
        Some(true) => f.condition(|_| "accepted_on IS NOT NULL".into()),
        Some(false) => f.condition(|_| "accepted_on IS NULL".into()),
        None => &mut f,
    };
    let sql = list_sql(columns!(), WITH_USERS, &f, sort, window);
    fetch_list!(Exec::Db(db), ShopAdmin, sql, f)
}
