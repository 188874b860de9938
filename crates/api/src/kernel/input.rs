//! JSON request bodies. Malformed JSON or a missing required field is a 400, naming `body`
//! or the field in `_embedded.errors`; a well-formed body with a value of the wrong type,
//! or a string or key holding control characters (`text_guard`), is a 422 naming the
//! field; a non-JSON body is a 415; an empty body reads as `{}`. Path ids outside
//! `domain::limits::ID` name nothing: 404.

use axum::extract::{FromRequest, Request};
use axum::http::header;
use domain::limits;
use serde::de::DeserializeOwned;

use super::error::{ApiError, ErrorCode};
use super::text_guard::Guarded;
use crate::kernel::state::AppState;

/// A JSON body deserialised into `T`.
pub struct JsonBody<T>(pub T);

impl<T: DeserializeOwned> FromRequest<AppState> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &AppState) -> Result<Self, ApiError> {
        let limit = state.config.max_body_bytes;
        let is_json = request
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(|v| {
                let media = v
                    .split(';')
                    .next()
                    .unwrap_or("")
                    .trim()
                    .to_ascii_lowercase();
                media == "application/json"
                    || (media.starts_with("application/") && media.ends_with("+json"))
            });
        let bytes = axum::body::to_bytes(request.into_body(), limit)
            .await
            .map_err(|_| ApiError::payload_too_large(limit))?;
        let text: &[u8] = if bytes.iter().all(u8::is_ascii_whitespace) {
            b"{}"
        } else if is_json == Some(true) {
            &bytes
        } else {
            return Err(ApiError::unsupported_media_type());
        };
        parse(text).map(JsonBody)
    }
}

/// Deserialises `T`, sorting failures into 400 and 422 as the API promises.
pub fn parse<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    // Structs would also accept a JSON array; the API's bodies are objects.
    if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        return match serde_json::from_slice::<serde::de::IgnoredAny>(bytes) {
            Ok(_) => Err(ApiError::invalid_field("body", "must be a JSON object")),
            Err(e) => Err(malformed(&strip_position(&e.to_string()))),
        };
    }
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value = serde_path_to_error::deserialize(Guarded::new(&mut de)).map_err(|err| {
        // A key that fails to read is an unknown segment: name the object holding it.
        let path = err.path().to_string();
        let path = path
            .strip_suffix(".?")
            .or(path.strip_suffix('?'))
            .unwrap_or(&path);
        let inner = err.into_inner();
        let message = strip_position(&inner.to_string());
        let missing = message
            .strip_prefix("missing field `")
            .and_then(|rest| rest.strip_suffix('`'));
        match inner.classify() {
            serde_json::error::Category::Data if missing.is_some() => {
                let name = missing.unwrap_or_default();
                let field = match path {
                    "." | "" => name.to_owned(),
                    parent => format!("{parent}.{name}"),
                };
                ApiError::body_field(ErrorCode::MissingField, &message, &field, "can't be blank")
            }
            serde_json::error::Category::Data => {
                let field = if path == "." || path.is_empty() {
                    "body".to_owned()
                } else {
                    path.to_owned()
                };
                ApiError::invalid_field(&field, message)
            }
            _ => malformed(&message),
        }
    })?;
    de.end()
        .map_err(|e| malformed(&strip_position(&e.to_string())))?;
    Ok(value)
}

fn malformed(message: &str) -> ApiError {
    ApiError::body_field(
        ErrorCode::MalformedJson,
        format!("the body is not valid JSON: {message}"),
        "body",
        format!("is not valid JSON: {message}"),
    )
}

/// serde_json appends " at line L column C"; the field name says more to a client.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_owned(),
        None => message.to_owned(),
    }
}

/// An integer id from the path; anything else names no resource, so it is a 404.
pub struct ResourceId(pub i64);

impl<S: Send + Sync> axum::extract::FromRequestParts<S> for ResourceId {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        state: &S,
    ) -> Result<Self, ApiError> {
        let axum::extract::Path(raw) =
            axum::extract::Path::<String>::from_request_parts(parts, state)
                .await
                .map_err(|_| ApiError::not_found())?;
        path_id(&raw)
            .map(ResourceId)
            .ok_or_else(ApiError::not_found)
    }
}

/// A path segment naming a resource: digits only (no sign, spaces or exponent), within
/// `limits::ID`.
fn path_id(raw: &str) -> Option<i64> {
    limits::ID.parse(raw).ok()
}

/// Two integer ids from the path, the parent's then the child's (`/products/{id}/variants/{id}`).
pub struct NestedIds(pub i64, pub i64);

impl<S: Send + Sync> axum::extract::FromRequestParts<S> for NestedIds {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        state: &S,
    ) -> Result<Self, ApiError> {
        let axum::extract::Path((parent, child)) =
            axum::extract::Path::<(String, String)>::from_request_parts(parts, state)
                .await
                .map_err(|_| ApiError::not_found())?;
        match (path_id(&parent), path_id(&child)) {
            (Some(parent), Some(child)) => Ok(NestedIds(parent, child)),
            _ => Err(ApiError::not_found()),
        }
    }
}

#[cfg(test)]
mod tests {
    use axum::http::StatusCode;
    use domain::Patch;
    use serde::Deserialize;

    use super::*;

    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Input {
        name: String,
        #[serde(default)]
        note: Patch<String>,
        #[serde(default)]
        count: Option<u32>,
    }

    fn status_of(body: &str) -> (StatusCode, serde_json::Value) {
        let err = parse::<Input>(body.as_bytes()).unwrap_err();
        (err.status(), err.body())
    }

    #[test]
    fn sorts_failures() {
        assert_eq!(status_of("{\"name\": ").0, StatusCode::BAD_REQUEST);
        assert_eq!(status_of("{} {}").0, StatusCode::BAD_REQUEST);
        let (status, body) = status_of("{}");
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(body["error"], "missing_field");
        let (status, body) = status_of("{\"name\": \"x\", \"count\": \"many\"}");
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(body["_embedded"]["errors"][0]["field"], "count");
        let (status, body) = status_of("[1]");
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(body["_embedded"]["errors"][0]["field"], "body");
    }

    #[test]
    fn control_characters_are_refused_naming_the_field() {
        #[derive(Deserialize, Debug)]
        #[allow(dead_code)]
        struct Nested {
            items: Vec<Input>,
            #[serde(default)]
            extra: Option<serde_json::Value>,
        }
        let field_of = |body: &str| {
            let err = parse::<Nested>(body.as_bytes()).unwrap_err();
            assert_eq!(err.status(), StatusCode::UNPROCESSABLE_ENTITY, "{body}");
            err.body()["_embedded"]["errors"][0]["field"]
                .as_str()
                .unwrap()
                .to_owned()
        };
        assert_eq!(
            field_of(r#"{"items": [{"name": "a\u0000b"}]}"#),
            "items[0].name"
        );
        assert_eq!(
            field_of(r#"{"items": [{"name": "a", "note": "\u001b"}]}"#),
            "items[0].note"
        );
        assert_eq!(
            field_of(r#"{"items": [], "extra": {"k": ["\u007f"]}}"#),
            "extra.k[0]"
        );
        assert_eq!(
            field_of(r#"{"items": [], "extra": {"a\u0000": 1}}"#),
            "extra"
        );
        assert_eq!(field_of(r#"{"items": [], "x\u0085": 1}"#), "body");
        // Unknown fields are read through the guard as well.
        assert_eq!(
            field_of(r#"{"items": [], "unknown": {"deep": "\u0001"}}"#),
            "unknown.deep"
        );
        let ok: Nested =
            parse(br#"{"items": [{"name": "tab\there\r\nnext \u00e9"}], "extra": {"a": [1, true, null]}}"#)
                .unwrap();
        assert_eq!(ok.items[0].name, "tab\there\r\nnext \u{e9}");
    }

    #[test]
    fn raw_control_bytes_and_invalid_text_are_malformed() {
        let deep_object = format!(
            "{{\"name\": \"a\", \"x\": {}1{}}}",
            "{\"a\":".repeat(100),
            "}".repeat(100)
        );
        let too_deep = format!(
            "{{\"name\": \"a\", \"x\": {}{}}}",
            "[".repeat(1000),
            "]".repeat(1000)
        );
        let bodies: [&[u8]; 4] = [
            b"{\"name\": \"a\x01b\"}",
            b"{\"name\": \"\xff\"}",
            &[b'['; 1000],
            too_deep.as_bytes(),
        ];
        for body in bodies {
            let err = parse::<Input>(body).unwrap_err();
            assert_eq!(err.status(), StatusCode::BAD_REQUEST, "{body:?}");
        }
        assert!(parse::<Input>(deep_object.as_bytes()).is_ok());
    }

    #[test]
    fn path_ids_are_positive_integers() {
        assert_eq!(path_id("42"), Some(42));
        assert_eq!(path_id("9223372036854775807"), Some(i64::MAX));
        for bad in [
            "0",
            "-1",
            "+1",
            "9223372036854775808",
            "1e3",
            " 1",
            "1.0",
            "",
        ] {
            assert_eq!(path_id(bad), None, "{bad}");
        }
    }

    #[test]
    fn patch_tells_null_from_absent() {
        let absent: Input = parse(b"{\"name\":\"a\"}").unwrap();
        assert_eq!(absent.note, Patch::Absent);
        let null: Input = parse(b"{\"name\":\"a\",\"note\":null}").unwrap();
        assert_eq!(null.note, Patch::Null);
        let value: Input = parse(b"{\"name\":\"a\",\"note\":\"n\"}").unwrap();
        assert_eq!(value.note, Patch::Value("n".into()));
    }
}
