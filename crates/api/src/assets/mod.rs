//! Product images under `/products/{id}/assets`: upload (JSON with base64 data, or
//! multipart), list, read, delete; and their files at `/files/{id}/{digest}/{name}`,
//! public and immutable (the digest names the content), like a CDN address.
//!
//! The bytes live in the database, so every node serves every file. Types are read from
//! the bytes (JPEG, PNG, GIF, WebP), never taken from the client.

pub mod area;
pub mod rels;
mod representation;

use axum::body::Body;
use axum::extract::rejection::PathRejection;
use axum::extract::{FromRequest, Multipart, Path, RawQuery, Request, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use base64::Engine;
use domain::text::TextKind;
use domain::{Scope, limits};
use imagesize::ImageType;
use schemars::JsonSchema;
use serde::Deserialize;
use services::assets::{self as operations, NewImage};
use storage::product_assets::{self};
use storage::sql::Direction;

use crate::catalog::CatalogView;
use crate::kernel::auth::Auth;
use crate::kernel::conditional::IfMatch;
use crate::kernel::error::{ApiError, ApiResult, ErrorCode};
use crate::kernel::hal_response::{Hal, http_date};
use crate::kernel::input::{NestedIds, ResourceId, parse};
use crate::kernel::list::ListSpec;
use crate::kernel::query::QueryParams;
use crate::kernel::state::AppState;

pub use representation::{AssetFields, asset_resource};

pub static ASSET_LIST: ListSpec = ListSpec {
    name: "assets",
    default_per_page: 20,
    sort_fields: product_assets::SORT_FIELDS,
    default_sort: ("position", Direction::Asc),
    filters: &[],
};

/// The largest request body an upload of `max_asset_bytes` can take (base64 and framing).
pub fn upload_body_limit(max_asset_bytes: usize) -> usize {
    max_asset_bytes / 3 * 4 + 64 * 1024
}

async fn list(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(product_id): ResourceId,
    RawQuery(query): RawQuery,
) -> ApiResult<Hal> {
    let (request, errors) = ASSET_LIST.begin(query.as_deref());
    let view = CatalogView::resolve(&state, &auth, &request.params).await?;
    errors.into_result()?;
    view.product(&state, product_id).await?;
    let page = product_assets::list(&state.db, product_id, request.sort, request.window()).await?;
    let path = area::ASSETS.with(&[product_id]);
    Ok(request.respond(&state, &path, page, |a| {
        asset_resource(&state.urls, auth.scopes, &view, a)
    }))
}

async fn show(
    State(state): State<AppState>,
    auth: Auth,
    NestedIds(product_id, id): NestedIds,
    RawQuery(query): RawQuery,
) -> ApiResult<Hal> {
    let view = CatalogView::resolve(&state, &auth, &QueryParams::parse(query.as_deref())).await?;
    view.product(&state, product_id).await?;
    let asset = product_assets::find(&state.db, product_id, id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    let doc =
        asset_resource(&state.urls, auth.scopes, &view, &asset).into_json(state.urls.curies());
    Ok(Hal::ok(doc, asset.updated_on))
}

/// An upload as JSON.
#[derive(Debug, Deserialize, JsonSchema)]
struct EncodedUpload {
    /// The name to store (default `image.` and the extension of the image's type).
    #[serde(default)]
    file_name: Option<String>,
    /// Base64 (standard alphabet), optionally as a `data:` URL.
    data: String,
}

/// An uploaded file before its checks.
struct Upload {
    file_name: Option<String>,
    data: Vec<u8>,
    /// The field errors are reported on: `data` (JSON) or `file` (multipart).
    field: &'static str,
}

async fn upload(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(product_id): ResourceId,
    request: Request,
) -> ApiResult<Hal> {
    auth.require(Scope::ProductsWrite)?;
    let actor = auth.actor()?;
    let limit = state.config.max_asset_bytes;
    let upload = read_upload(&state, request, limit).await?;
    if upload.data.len() > limit {
        return Err(ApiError::payload_too_large(limit));
    }
    let kind = match imagesize::image_type(&upload.data) {
        Ok(ImageType::Jpeg) => ("image/jpeg", "jpg"),
        Ok(ImageType::Png) => ("image/png", "png"),
        Ok(ImageType::Gif) => ("image/gif", "gif"),
        Ok(ImageType::Webp) => ("image/webp", "webp"),
        _ => {
            return Err(ApiError::invalid_field(
                upload.field,
                "must be a JPEG, PNG, GIF or WebP image",
            ));
        }
    };
    let size = imagesize::blob_size(&upload.data).map_err(|_| {
        ApiError::invalid_field(
            upload.field,
            "is not a readable image (it may be truncated)",
        )
    })?;
    let image = NewImage {
        file_name: upload.file_name,
        data: upload.data,
        content_type: kind.0,
        extension: kind.1,
        width: i64::try_from(size.width).ok(),
        height: i64::try_from(size.height).ok(),
    };
    let made = operations::upload(&state.services, &actor, product_id, image).await?;
    let location = state.urls.asset(product_id, made.value.id);
    Ok(Hal::created(made.document, location, made.value.updated_on))
}

/// The parts of a `multipart/form-data` upload: one `file` part, whose file name names the
/// image (read by `read_upload`, not by a derived type).
pub struct MultipartUpload;

impl schemars::JsonSchema for MultipartUpload {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "MultipartUpload".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "object",
            "required": ["file"],
            "properties": {
                "file": {
                    "description": "The image (JPEG, PNG, GIF or WebP); its file name names it",
                    "type": "string",
                    "contentMediaType": "application/octet-stream",
                },
            },
        })
    }
}

/// Reads a JSON or multipart upload of at most about `limit` bytes.
async fn read_upload(state: &AppState, request: Request, limit: usize) -> ApiResult<Upload> {
    let media = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|v| {
            v.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        })
        .unwrap_or_default();
    if media == "multipart/form-data" {
        let mut multipart = Multipart::from_request(request, state)
            .await
            .map_err(|e| multipart_error(&e.body_text(), "body", limit))?;
        while let Some(field) = multipart
            .next_field()
            .await
            .map_err(|e| multipart_error(&e.body_text(), "body", limit))?
        {
            if field.name() != Some("file") {
                continue;
            }
            let file_name = field.file_name().map(str::to_owned);
            let data = field
                .bytes()
                .await
                .map_err(|e| multipart_error(&e.body_text(), "file", limit))?;
            return Ok(Upload {
                file_name,
                data: data.to_vec(),
                field: "file",
            });
        }
        return Err(ApiError::body_field(
            ErrorCode::MissingField,
            "the multipart body has no `file` part",
            "file",
            "can't be blank",
        ));
    }
    if media != "application/json"
        && !(media.starts_with("application/") && media.ends_with("+json"))
    {
        return Err(ApiError::unsupported_media_type());
    }
    let body_limit = upload_body_limit(limit);
    let bytes = axum::body::to_bytes(request.into_body(), body_limit)
        .await
        .map_err(|_| ApiError::payload_too_large(limit))?;
    let encoded: EncodedUpload = parse(&bytes)?;
    let text = match encoded.data.split_once("base64,") {
        Some((prefix, rest)) if prefix.starts_with("data:") => rest,
        _ => encoded.data.as_str(),
    };
    let compact: String = text.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    let data = base64::engine::general_purpose::STANDARD
        .decode(compact)
        .map_err(|_| ApiError::invalid_field("data", "is not valid base64"))?;
    Ok(Upload {
        file_name: encoded.file_name,
        data,
        field: "data",
    })
}

/// A multipart body that could not be read, at `field` (`body`, or the `file` part).
fn multipart_error(message: &str, field: &str, limit: usize) -> ApiError {
    if message.contains("limit") {
        ApiError::payload_too_large(limit)
    } else {
        ApiError::body_field(
            ErrorCode::MalformedMultipart,
            message.to_owned(),
            field,
            "could not be read as multipart/form-data",
        )
    }
}

async fn delete(
    State(state): State<AppState>,
    auth: Auth,
    NestedIds(product_id, id): NestedIds,
    headers: HeaderMap,
) -> ApiResult<Hal> {
    auth.require(Scope::ProductsWrite)?;
    let actor = auth.actor()?;
    let expect = IfMatch(&headers);
    let deleted = operations::delete(&state.services, &actor, product_id, id, &expect).await?;
    Ok(Hal::ok(deleted.document, state.clock.now()))
}

/// Serves a file to anyone holding its address; the content never changes under it.
pub(crate) async fn file(
    State(state): State<AppState>,
    path: Result<Path<(String, String, String)>, PathRejection>,
) -> ApiResult<Response> {
    // A segment that is not even UTF-8 names no file either.
    let Path((id, digest, name)) = path.map_err(|_| ApiError::not_found())?;
    let id = limits::ID.parse(&id).map_err(|_| ApiError::not_found())?;
    // The name is decoration (any serves the file), but no address holds control
    // characters.
    if digest.len() != 64
        || !digest.bytes().all(|b| b.is_ascii_hexdigit())
        || TextKind::Single.refuses(&name)
    {
        return Err(ApiError::not_found());
    }
    let file = product_assets::file(&state.db, id, &digest)
        .await?
        .ok_or_else(ApiError::not_found)?;
    let mut response = Body::from(file.data).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_str(&file.content_type).map_err(ApiError::internal)?,
    );
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=31536000, immutable"),
    );
    headers.insert(
        header::ETAG,
        HeaderValue::from_str(&format!("\"{}\"", file.digest)).map_err(ApiError::internal)?,
    );
    headers.insert(header::LAST_MODIFIED, http_date(file.created_on));
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(header::VARY, HeaderValue::from_static("Accept-Encoding"));
    Ok(response)
}
