//! Collections: create, update, delete; and, for manual collections, adding, removing and
//! reordering their products.

pub mod input;

use domain::catalog::collection::CollectionKind;
use domain::{ScopeSet, topic};
use serde_json::Value;
use storage::collections::{self as stored, Collection};
use storage::locks::{self, Catalog};
use storage::{ScopedExt, Tenant, Tx, UniqueIndex, products, tenant_rows};

use self::input::{CollectionChanges, NewCollection, NewMember, Reorder};
use crate::events::Change;
use crate::products::FullProduct;
use crate::sellers::owning_seller;
use crate::slugs::{slug_refused, unique_slug};
use crate::{Actor, Op, Precondition, ServiceError, ServiceResult, Services, Shown};

/// How a collection looks to a reader with `viewer`'s scopes (its GET), and after a
/// product joined or left it (with that product embedded, when it still exists).
pub trait Present {
    fn collection(&self, viewer: ScopeSet, collection: &Collection) -> Value;

    fn membership(&self, viewer: ScopeSet, tenant: Tenant, membership: &Membership) -> Value;
}

/// A manual collection after a product joined or left it, and that product as it is now
/// (none when it no longer exists).
#[derive(Debug)]
pub struct Membership {
    pub collection: Collection,
    pub product: Option<FullProduct>,
}

/// Creates a collection for the seller the input names (or the actor's only one).
pub async fn create(
    services: &Services,
    actor: &Actor,
    input: NewCollection,
) -> ServiceResult<Shown<Collection>> {
    let seller = owning_seller(services.db(), actor.tenant, input.seller_id).await?;
    let (data, slug_given) = input.validate()?;
    let op = Op::new(services, actor);
    let (seller, data) = (&seller, &data);
    services
        .write(|tx| {
            async move {
                // A smart collection's members depend on every product of the seller.
                if data.kind == CollectionKind::Smart {
                    locks::seller_catalog(tx, seller.id, Catalog::Exclusive).await?;
                }
                let mut data = data.clone();
                data.slug =
                    unique_slug(tx, "collections", seller.id, &data.slug, slug_given, None).await?;
                let collection = stored::insert(tx, seller.account_id, seller.id, &data, op.now)
                    .await
                    .map_err(|err| slug_refused(err, UniqueIndex::CollectionsSlug, slug_given))?;
                let shown = record(tx, op, topic::COLLECTIONS_CREATED, &collection).await?;
                Ok(Shown::new(collection, shown))
            }
            .scoped()
        })
        .await
}

/// Changes a collection's fields (its kind and seller stay).
pub async fn update(
    services: &Services,
    actor: &Actor,
    id: i64,
    expect: &dyn Precondition,
    changes: CollectionChanges,
) -> ServiceResult<Shown<Collection>> {
    let op = Op::new(services, actor);
    let changes = &changes;
    services
        .write(|tx| {
            async move {
                let current = locked_for_change(tx, op, id, expect).await?;
                let data = changes.clone().apply(current.data())?;
                if data == current.data() {
                    let shown = show(op, &current);
                    return Ok(Shown::new(current, shown));
                }
                let collection = stored::update(tx, &current, &data, op.now).await?;
                let shown = record(tx, op, topic::COLLECTIONS_UPDATED, &collection).await?;
                Ok(Shown::new(collection, shown))
            }
            .scoped()
        })
        .await
}

/// Deletes a collection (its products stay); answers it as it was.
pub async fn remove(
    services: &Services,
    actor: &Actor,
    id: i64,
    expect: &dyn Precondition,
) -> ServiceResult<Shown<Collection>> {
    let op = Op::new(services, actor);
    services
        .write(|tx| {
            async move {
                let current = locked_for_change(tx, op, id, expect).await?;
                tenant_rows::delete(tx, stored::TABLE, op.actor.tenant, id).await?;
                let shown = record(tx, op, topic::COLLECTIONS_DELETED, &current).await?;
                Ok(Shown::new(current, shown))
            }
            .scoped()
        })
        .await
}

/// Adds one of the seller's products to a manual collection.
pub async fn add_product(
    services: &Services,
    actor: &Actor,
    id: i64,
    input: NewMember,
) -> ServiceResult<Shown<Membership>> {
    let position = input.position()?;
    let op = Op::new(services, actor);
    let input = &input;
    services
        .write(|tx| {
            async move {
                let tenant = op.actor.tenant;
                let collection = manual(locked(tx, tenant, id).await?)?;
                // Held so that it is not deleted meanwhile; writes to it may go on.
                let product = products::find_held(tx, tenant, input.product_id)
                    .await?
                    .filter(|p| p.seller_id == collection.seller_id)
                    .ok_or_else(|| {
                        ServiceError::invalid_field(
                            "product_id",
                            "is not a product of the collection's seller",
                        )
                    })?;
                if !stored::add_product(tx, id, product.id, position).await? {
                    return Err(ServiceError::invalid_field(
                        "product_id",
                        "is in the collection already",
                    ));
                }
                let membership = membership_changed(tx, op, &collection, product.id).await?;
                let topic = topic::COLLECTION_PRODUCTS_ADDED;
                let shown = record_membership(tx, op, topic, &membership).await?;
                Ok(Shown::new(membership, shown))
            }
            .scoped()
        })
        .await
}

/// Takes a product out of a manual collection.
pub async fn remove_product(
    services: &Services,
    actor: &Actor,
    id: i64,
    product_id: i64,
) -> ServiceResult<Shown<Membership>> {
    let op = Op::new(services, actor);
    services
        .write(|tx| {
            async move {
                let collection = manual(locked(tx, op.actor.tenant, id).await?)?;
                if !stored::remove_product(tx, id, product_id).await? {
                    return Err(ServiceError::NotFound);
                }
                let membership = membership_changed(tx, op, &collection, product_id).await?;
                let topic = topic::COLLECTION_PRODUCTS_REMOVED;
                let shown = record_membership(tx, op, topic, &membership).await?;
                Ok(Shown::new(membership, shown))
            }
            .scoped()
        })
        .await
}

/// Moves the products named, in that order, before the other members.
pub async fn reorder(
    services: &Services,
    actor: &Actor,
    id: i64,
    input: Reorder,
) -> ServiceResult<Shown<Collection>> {
    let ids = input.validate()?;
    let op = Op::new(services, actor);
    let ids = &ids;
    services
        .write(|tx| {
            async move {
                let collection = manual(locked(tx, op.actor.tenant, id).await?)?;
                let members = stored::members_among(tx, id, ids).await?;
                let strangers: Vec<String> = ids
                    .iter()
                    .filter(|p| !members.contains(p))
                    .map(i64::to_string)
                    .collect();
                if !strangers.is_empty() {
                    return Err(ServiceError::invalid_field(
                        "product_ids",
                        format!("not in the collection: {}", strangers.join(", ")),
                    ));
                }
                stored::move_to_front(tx, id, ids).await?;
                let collection = stored::touch(tx, collection.id, op.now).await?;
                let shown = record(tx, op, topic::COLLECTIONS_UPDATED, &collection).await?;
                Ok(Shown::new(collection, shown))
            }
            .scoped()
        })
        .await
}

async fn locked(tx: &mut Tx, tenant: Tenant, id: i64) -> ServiceResult<Collection> {
    stored::find_for_update(tx, tenant, id)
        .await?
        .ok_or(ServiceError::NotFound)
}

/// The collection an update or a deletion changes, locked (see
/// `collections::find_for_change`), once the caller's expectation of it holds.
async fn locked_for_change(
    tx: &mut Tx,
    op: Op<'_>,
    id: i64,
    expect: &dyn Precondition,
) -> ServiceResult<Collection> {
    let current = stored::find_for_change(tx, op.actor.tenant, id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    expect.check(&|| show(op, &current), current.updated_on)?;
    Ok(current)
}

fn manual(collection: Collection) -> ServiceResult<Collection> {
    match collection.kind {
        CollectionKind::Manual => Ok(collection),
        CollectionKind::Smart => Err(ServiceError::invalid_field(
            "kind",
            "the collection is smart: its rules choose its products",
        )),
    }
}

/// After a product joined or left: the collection touched, and the product concerned (as
/// it is now, when it still exists).
async fn membership_changed(
    tx: &mut Tx,
    op: Op<'_>,
    collection: &Collection,
    product_id: i64,
) -> ServiceResult<Membership> {
    let collection = stored::touch(tx, collection.id, op.now).await?;
    let product = match products::find_held(tx, op.actor.tenant, product_id).await? {
        Some(product) => {
            let embedded = storage::products::embedded_of(tx, product.id).await?;
            Some(FullProduct { product, embedded })
        }
        None => None,
    };
    Ok(Membership {
        collection,
        product,
    })
}

/// The collection as a GET by the actor shows it.
fn show(op: Op<'_>, collection: &Collection) -> Value {
    op.present().collection(op.actor.scopes, collection)
}

/// Records a change of the collection with the collection as a GET by the actor shows it;
/// returns that document.
async fn record(
    tx: &mut Tx,
    op: Op<'_>,
    topic: &'static str,
    collection: &Collection,
) -> ServiceResult<Value> {
    let doc = show(op, collection);
    op.record(tx, change(topic, collection, &doc)).await?;
    Ok(doc)
}

/// Records a product joining or leaving, with the collection embedding that product;
/// returns that document.
async fn record_membership(
    tx: &mut Tx,
    op: Op<'_>,
    topic: &'static str,
    membership: &Membership,
) -> ServiceResult<Value> {
    let doc = op
        .present()
        .membership(op.actor.scopes, op.actor.tenant, membership);
    let change = change(topic, &membership.collection, &doc);
    op.record(tx, change).await?;
    Ok(doc)
}

fn change<'a>(topic: &'static str, collection: &'a Collection, doc: &'a Value) -> Change<'a> {
    Change::of_catalog(
        topic,
        (collection.account_id, collection.seller_id),
        "collection",
        collection.id,
        Some(&collection.slug),
        doc,
    )
}
