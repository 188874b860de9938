//! Product types: create, update (name, attribute schema) and delete (refused while
//! products use the type), and finding or creating the type a product write names.

pub mod input;

use domain::{FieldErrors, ScopeSet, topic};
use serde_json::Value;
use storage::product_types::{self as stored, ProductType};
use storage::sellers::Seller;
use storage::{ScopedExt, Tx, UniqueIndex, tenant_rows};

use self::input::{NewProductType, ProductTypeChanges, TypeChoice};
use crate::events::Change;
use crate::sellers::owning_seller;
use crate::{Actor, Op, Precondition, ServiceError, ServiceResult, Services, Shown};

/// How a product type looks to a reader with `viewer`'s scopes (its GET).
pub trait Present {
    fn product_type(&self, viewer: ScopeSet, product_type: &ProductType) -> Value;
}

/// Creates a product type for the seller the input names (or the actor's only one).
pub async fn create(
    services: &Services,
    actor: &Actor,
    input: NewProductType,
) -> ServiceResult<Shown<ProductType>> {
    let seller = owning_seller(services.db(), actor.tenant, input.seller_id).await?;
    let (name, defs) = input.validate()?;
    let op = Op::new(services, actor);
    let (seller, name, defs) = (&seller, &name, &defs);
    services
        .write(|tx| async move { insert(tx, op, seller, name, defs, false).await }.scoped())
        .await
}

/// Changes a type's name or schema.
pub async fn update(
    services: &Services,
    actor: &Actor,
    id: i64,
    expect: &dyn Precondition,
    changes: ProductTypeChanges,
) -> ServiceResult<Shown<ProductType>> {
    let op = Op::new(services, actor);
    let changes = &changes;
    services
        .write(|tx| {
            async move {
                let current = locked(tx, op, id, expect).await?;
                let (name, defs) = changes.apply(&current)?;
                if name == current.name && defs == current.attributes.0 {
                    let shown = show(op, &current);
                    return Ok(Shown::new(current, shown));
                }
                let product_type = stored::update(tx, id, &name, &defs, op.now).await?;
                let shown = record(tx, op, topic::PRODUCT_TYPES_UPDATED, &product_type).await?;
                Ok(Shown::new(product_type, shown))
            }
            .scoped()
        })
        .await
}

/// Deletes a type no product uses; answers it as it was.
pub async fn delete(
    services: &Services,
    actor: &Actor,
    id: i64,
    expect: &dyn Precondition,
) -> ServiceResult<Shown<ProductType>> {
    let op = Op::new(services, actor);
    services
        .write(|tx| {
            async move {
                let current = locked(tx, op, id, expect).await?;
                if current.products_count > 0 {
                    return Err(ServiceError::invalid_field(
                        "products_count",
                        format!(
                            "the type is used by {} products: give them another type or delete them first",
                            current.products_count
                        ),
                    ));
                }
                tenant_rows::delete(tx, stored::TABLE, op.actor.tenant, id).await?;
                let shown = record(tx, op, topic::PRODUCT_TYPES_DELETED, &current).await?;
                Ok(Shown::new(current, shown))
            }
            .scoped()
        })
        .await
}

/// The type, locked, once the caller's expectation of it holds.
async fn locked(
    tx: &mut Tx,
    op: Op<'_>,
    id: i64,
    expect: &dyn Precondition,
) -> ServiceResult<ProductType> {
    let current = stored::find_for_update(tx, op.actor.tenant, id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    expect.check(&|| show(op, &current), current.updated_on)?;
    Ok(current)
}

/// Creates a type, recording its event; `found_free_by_name` when a product named it and
/// `find_by_name` found none.
async fn insert(
    tx: &mut Tx,
    op: Op<'_>,
    seller: &Seller,
    name: &str,
    defs: &[domain::catalog::attributes::AttributeDef],
    found_free_by_name: bool,
) -> ServiceResult<Shown<ProductType>> {
    let product_type = stored::insert(tx, seller.account_id, seller.id, name, defs, op.now)
        .await
        .map_err(|err| {
            let err = ServiceError::from(err);
            // A name found free just before and taken now is a type a concurrent write
            // created: run again, it is found by name.
            if found_free_by_name {
                err.derived(UniqueIndex::ProductTypesName)
            } else {
                err
            }
        })?;
    let shown = record(tx, op, topic::PRODUCT_TYPES_CREATED, &product_type).await?;
    Ok(Shown::new(product_type, shown))
}

/// The type as a GET by the actor shows it.
fn show(op: Op<'_>, product_type: &ProductType) -> Value {
    op.present().product_type(op.actor.scopes, product_type)
}

/// Records a change of the type with the type as a GET by the actor shows it; returns that
/// document.
async fn record(
    tx: &mut Tx,
    op: Op<'_>,
    topic: &'static str,
    product_type: &ProductType,
) -> ServiceResult<Value> {
    let doc = show(op, product_type);
    let change = Change::of_catalog(
        topic,
        (product_type.account_id, product_type.seller_id),
        "product_type",
        product_type.id,
        None,
        &doc,
    );
    op.record(tx, change).await?;
    Ok(doc)
}

/// The type a product write names: kept, cleared, one of the seller's by id, or found by
/// name in any case (and created, recording `product_types.created`, when new).
pub(crate) async fn resolve_type(
    tx: &mut Tx,
    op: Op<'_>,
    seller: &Seller,
    choice: &TypeChoice,
    current: Option<i64>,
    errors: &mut FieldErrors,
) -> ServiceResult<Option<ProductType>> {
    let id = match choice {
        TypeChoice::Clear => return Ok(None),
        TypeChoice::Keep => match current {
            Some(id) => id,
            None => return Ok(None),
        },
        TypeChoice::Id(id) => *id,
        TypeChoice::Name(name) => {
            if let Some(found) = stored::find_by_name(tx, seller.id, name).await? {
                return Ok(Some(found));
            }
            let made = insert(tx, op, seller, name, &[], true).await?;
            return Ok(Some(made.value));
        }
    };
    // Held, so that it stays, with its schema, while the product is checked against it.
    let found = stored::find_held(tx, op.actor.tenant, id)
        .await?
        .filter(|t| t.seller_id == seller.id);
    if found.is_none() && matches!(choice, TypeChoice::Id(_)) {
        errors.add("product_type_id", "is not a product type of the seller");
    }
    Ok(found)
}
