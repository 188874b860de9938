//! Product images: adding one to a product and deleting one (which also takes it off the
//! variants showing it). Reading the upload and its image type is the caller's part.

use domain::{FieldErrors, ScopeSet, topic, validation};
use serde_json::Value;
use storage::product_assets::{self as stored, Asset, NewAsset};
use storage::products::{self, Product};
use storage::variants::{self, Owner};
use storage::{ScopedExt, Tenant, Tx, tenant_rows};

use crate::catalog::{locked_product, shops_of};
use crate::events::Change;
use crate::{Actor, Op, Precondition, ServiceError, ServiceResult, Services, Shown};

const FILE_NAME_MAX: usize = 255;

/// How an image looks to a reader with `viewer`'s scopes in the tenant's catalog (its GET).
pub trait Present {
    fn asset(&self, viewer: ScopeSet, tenant: Tenant, asset: &Asset) -> Value;
}

/// An image read from an upload, its type and size already found from its bytes.
#[derive(Debug)]
pub struct NewImage {
    /// As the client named it; `image.{extension}` when none.
    pub file_name: Option<String>,
    pub data: Vec<u8>,
    pub content_type: &'static str,
    pub extension: &'static str,
    pub width: Option<i64>,
    pub height: Option<i64>,
}

impl NewImage {
    /// The name to store, or why the client's is refused.
    fn file_name(&self) -> Result<String, FieldErrors> {
        let file_name = match self.file_name.as_deref().map(str::trim) {
            Some(name) if !name.is_empty() => name.to_owned(),
            _ => format!("image.{}", self.extension),
        };
        let mut errors = FieldErrors::new();
        errors.check("file_name", validation::text(&file_name, FILE_NAME_MAX));
        if file_name.contains(['/', '\\']) {
            errors.add("file_name", "must not contain slashes");
        }
        errors.into_result().map(|()| file_name)
    }
}

/// Adds an image after the product's others.
pub async fn upload(
    services: &Services,
    actor: &Actor,
    product_id: i64,
    image: NewImage,
) -> ServiceResult<Shown<Asset>> {
    let file_name = image.file_name()?;
    let digest = hex::encode(storage::secrets::sha256(&image.data));
    let new = NewAsset {
        file_name: &file_name,
        content_type: image.content_type,
        width: image.width,
        height: image.height,
        digest: &digest,
        data: &image.data,
    };
    let op = Op::new(services, actor);
    let new = &new;
    services
        .write(|tx| {
            async move {
                let product = locked_product(tx, op.actor.tenant, product_id).await?;
                let owner = Owner {
                    account_id: product.account_id,
                    seller_id: product.seller_id,
                    product_id,
                };
                let asset = stored::insert(tx, owner, new, op.now).await?;
                products::touch(tx, product_id, op.now).await?;
                let shown = record(tx, op, topic::ASSETS_CREATED, &product, &asset).await?;
                Ok(Shown::new(asset, shown))
            }
            .scoped()
        })
        .await
}

/// Deletes an image, taking it off the variants that show it; answers it as it was.
pub async fn delete(
    services: &Services,
    actor: &Actor,
    product_id: i64,
    id: i64,
    expect: &dyn Precondition,
) -> ServiceResult<Shown<Asset>> {
    let op = Op::new(services, actor);
    services
        .write(|tx| {
            async move {
                let tenant = op.actor.tenant;
                let product = locked_product(tx, tenant, product_id).await?;
                let asset = stored::find(&mut *tx, product_id, id)
                    .await?
                    .ok_or(ServiceError::NotFound)?;
                expect.check(&|| show(op, &asset), asset.updated_on)?;
                for variant in variants::of_products(&mut *tx, &[product_id]).await? {
                    if variant.image_ids.0.contains(&id) {
                        let mut data = variant.data();
                        data.image_ids.retain(|image| *image != id);
                        variants::update(tx, variant.id, &data, op.now).await?;
                    }
                }
                tenant_rows::delete(tx, stored::TABLE, tenant, id).await?;
                products::touch(tx, product_id, op.now).await?;
                let shown = record(tx, op, topic::ASSETS_DELETED, &product, &asset).await?;
                Ok(Shown::new(asset, shown))
            }
            .scoped()
        })
        .await
}

/// The image as a GET by the actor shows it.
fn show(op: Op<'_>, asset: &Asset) -> Value {
    op.present().asset(op.actor.scopes, op.actor.tenant, asset)
}

/// Records the change of an image, heard in the shops of its product, with the image as a
/// GET by the actor shows it; returns that document.
async fn record(
    tx: &mut Tx,
    op: Op<'_>,
    topic: &'static str,
    product: &Product,
    asset: &Asset,
) -> ServiceResult<Value> {
    let doc = show(op, asset);
    let shops = shops_of(tx, product).await?;
    let change = Change::of_catalog(
        topic,
        (product.account_id, product.seller_id),
        "asset",
        asset.id,
        Some(&asset.file_name),
        &doc,
    )
    .heard_in(&shops);
    op.record(tx, change).await?;
    Ok(doc)
}
