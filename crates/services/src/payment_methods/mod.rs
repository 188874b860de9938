//! A shop's payment methods: added, changed and deleted by the shop's managers
//! (`shops::admins::managed_shop`), each one transaction with its
//! `shops.payment_methods.*` event; their secret settings sealed with the secret box; and
//! the method an order names, checked and copied onto the order.

pub mod input;

use std::collections::BTreeMap;

use domain::{FieldErrors, ScopeSet, topic};
use serde_json::Value;
use storage::orders::PaymentChoice;
use storage::payment_methods::{self as stored, Owner, PaymentMethod};
use storage::secret_box::SecretBox;
use storage::shops::Shop;
use storage::{ScopedExt, Tx, tenant_rows};

use self::input::{NewPaymentMethod, PaymentMethodChanges, SecretChanges, merged};
use crate::events::Change;
use crate::shops::admins::managed_shop;
use crate::{Actor, Op, Precondition, ServiceError, ServiceResult, Services, Shown};

/// How a payment method looks to a reader with `viewer`'s scopes (its GET).
pub trait Present {
    fn payment_method(&self, viewer: ScopeSet, method: &PaymentMethod) -> Value;
}

/// The most methods a shop may have.
pub const METHODS_MAX: i64 = 50;

/// Adds a payment method to one of the actor's shops.
pub async fn create(
    services: &Services,
    actor: &Actor,
    secret_box: &SecretBox,
    shop_id: i64,
    input: NewPaymentMethod,
) -> ServiceResult<Shown<PaymentMethod>> {
    let draft = input.validate()?;
    let op = Op::new(services, actor);
    let draft = &draft;
    services
        .write(|tx| {
            async move {
                // Held, so that concurrent additions count each other.
                let shop = managed_shop(tx, op.actor, shop_id).await?;
                if stored::count_of_shop(tx, shop.id).await? >= METHODS_MAX {
                    return Err(ServiceError::invalid_field(
                        "type",
                        format!("the shop has {METHODS_MAX} payment methods, the most it may have"),
                    ));
                }
                let mut data = draft.data.clone();
                data.position = match draft.position {
                    Some(position) => position,
                    None => stored::next_position(tx, shop.id).await?,
                };
                data.settings = merged(BTreeMap::new(), &draft.settings.public);
                let (secrets_set, sealed) = sealed(secret_box, None, &draft.settings.secret)?;
                data.secrets_set = secrets_set;
                let owner = Owner {
                    account_id: shop.account_id,
                    seller_id: shop.seller_id,
                    shop_id: shop.id,
                };
                let method = stored::insert(
                    tx,
                    owner,
                    draft.method_type,
                    &data,
                    sealed.as_deref(),
                    op.now,
                )
                .await?;
                let shown = record(tx, op, topic::PAYMENT_METHODS_CREATED, &shop, &method).await?;
                Ok(Shown::new(method, shown))
            }
            .scoped()
        })
        .await
}

/// Changes a shop's payment method; settings merge into the current ones.
pub async fn update(
    services: &Services,
    actor: &Actor,
    secret_box: &SecretBox,
    (shop_id, id): (i64, i64),
    expect: &dyn Precondition,
    changes: PaymentMethodChanges,
) -> ServiceResult<Shown<PaymentMethod>> {
    let op = Op::new(services, actor);
    let changes = &changes;
    services
        .write(|tx| {
            async move {
                let (shop, current) = locked(tx, op, shop_id, id, expect).await?;
                let (mut data, settings) = changes.clone().apply(&current)?;
                data.settings = merged(current.settings.0.clone(), &settings.public);
                let stored_secrets = stored::secrets_sealed(&mut *tx, id).await?;
                let (secrets_set, sealed) = if settings.secret.0.is_empty() {
                    (current.secrets_set.0.clone(), stored_secrets)
                } else {
                    sealed(secret_box, stored_secrets.as_deref(), &settings.secret)?
                };
                data.secrets_set = secrets_set;
                if data == current.data() && settings.secret.0.is_empty() {
                    let shown = show(op, &current);
                    return Ok(Shown::new(current, shown));
                }
                let method = stored::update(tx, id, &data, sealed.as_deref(), op.now).await?;
                let shown = record(tx, op, topic::PAYMENT_METHODS_UPDATED, &shop, &method).await?;
                Ok(Shown::new(method, shown))
            }
            .scoped()
        })
        .await
}

/// Deletes a shop's payment method; answers it as it was. Orders that name it keep their
/// copy of its type and name, and take no new payments through it.
pub async fn delete(
    services: &Services,
    actor: &Actor,
    (shop_id, id): (i64, i64),
    expect: &dyn Precondition,
) -> ServiceResult<Shown<PaymentMethod>> {
    let op = Op::new(services, actor);
    services
        .write(|tx| {
            async move {
                let (shop, current) = locked(tx, op, shop_id, id, expect).await?;
                tenant_rows::delete(tx, stored::TABLE, op.actor.tenant, id).await?;
                let shown = record(tx, op, topic::PAYMENT_METHODS_DELETED, &shop, &current).await?;
                Ok(Shown::new(current, shown))
            }
            .scoped()
        })
        .await
}

/// Which payment method an order names after a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MethodPick {
    /// The one it names now (none for a new order).
    Keep,
    Id(i64),
    /// None.
    Clear,
}

/// The payment method an order of `shop` is to name: one of the shop's enabled methods,
/// copied as it is now (else a 422 on `payment_method_id`, added to `errors`).
pub(crate) async fn chosen(
    tx: &mut Tx,
    op: Op<'_>,
    shop: &Shop,
    pick: MethodPick,
    current: Option<PaymentChoice>,
    errors: &mut FieldErrors,
) -> ServiceResult<Option<PaymentChoice>> {
    let id = match pick {
        MethodPick::Keep => return Ok(current),
        MethodPick::Clear => return Ok(None),
        MethodPick::Id(id) => id,
    };
    // Read, not locked: a method disabled or deleted meanwhile is as if it happened just
    // after (the order keeps its copy, and payments check the method again).
    let method = stored::find(&mut *tx, op.actor.tenant, id)
        .await?
        .filter(|m| m.shop_id == shop.id);
    match method {
        Some(m) if m.enabled => Ok(Some(PaymentChoice {
            id: m.id,
            method_type: m.method_type,
            name: m.name,
        })),
        Some(_) => {
            errors.add("payment_method_id", "names a disabled payment method");
            Ok(current)
        }
        None => {
            errors.add(
                "payment_method_id",
                "must name a payment method of the order's shop",
            );
            Ok(current)
        }
    }
}

/// The secret settings of a method, opened (for its gateway).
pub fn secrets_of(
    secret_box: &SecretBox,
    sealed: Option<&[u8]>,
) -> ServiceResult<BTreeMap<String, String>> {
    let Some(sealed) = sealed else {
        return Ok(BTreeMap::new());
    };
    let opened = secret_box
        .open(sealed)
        .map_err(|e| ServiceError::internal(format!("a payment method's secrets: {e}")))?;
    serde_json::from_slice(&opened)
        .map_err(|e| ServiceError::internal(format!("a payment method's secrets: {e}")))
}

/// The secrets `changes` leave, sealed (`None` when none is set), and their names.
fn sealed(
    secret_box: &SecretBox,
    current: Option<&[u8]>,
    changes: &SecretChanges,
) -> ServiceResult<(Vec<String>, Option<Vec<u8>>)> {
    let secrets = merged(secrets_of(secret_box, current)?, &changes.0);
    let names: Vec<String> = secrets.keys().cloned().collect();
    if secrets.is_empty() {
        return Ok((names, None));
    }
    let plain = serde_json::to_vec(&secrets).expect("a map of strings serialises");
    Ok((names, Some(secret_box.seal(&plain))))
}

/// The shop (held, once the actor is found to manage it) and its method, locked, once
/// the caller's expectation of it holds; a method of another shop is not found.
async fn locked(
    tx: &mut Tx,
    op: Op<'_>,
    shop_id: i64,
    id: i64,
    expect: &dyn Precondition,
) -> ServiceResult<(Shop, PaymentMethod)> {
    let shop = managed_shop(tx, op.actor, shop_id).await?;
    let method = stored::find_for_update(tx, op.actor.tenant, id)
        .await?
        .filter(|m| m.shop_id == shop_id)
        .ok_or(ServiceError::NotFound)?;
    expect.check(&|| show(op, &method), method.updated_on)?;
    Ok((shop, method))
}

fn show(op: Op<'_>, method: &PaymentMethod) -> Value {
    op.present().payment_method(op.actor.scopes, method)
}

/// Records a method's event, heard by its shop's subscriptions.
async fn record(
    tx: &mut Tx,
    op: Op<'_>,
    topic: &'static str,
    shop: &Shop,
    method: &PaymentMethod,
) -> ServiceResult<Value> {
    let doc = show(op, method);
    let change = Change::in_shop(topic, shop, "payment_method", method.id, None, &doc);
    op.record(tx, change).await?;
    Ok(doc)
}
