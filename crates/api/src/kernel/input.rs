//! JSON request bodies, and the ids in paths.
//!
//! A body is read straight into its type; that is all a good body costs. Only a body that
//! fails is looked at again (`collect`), so that the answer lists every field at fault in
//! `_embedded.errors`, each spelt as the domain's field errors spell them
//! (`variants[0].price`; `body` for the body as a whole):
//!
//! - Not JSON (a syntax error, truncated, trailing data, nested past serde_json's limit,
//!   raw control bytes or invalid UTF-8): 400 `malformed_json` on `body`.
//! - JSON that is not an object: 422 on `body`.
//! - An object some of whose fields cannot be read: every such field is listed, whatever
//!   its depth: a required field left out ("can't be blank"), a value of the wrong type or
//!   outside its type's values, a string holding control characters, and, on the object
//!   holding it, a key holding them (`text_guard`). If any required field is missing the
//!   answer is 400 `missing_field` (the spec's status for a missing required field),
//!   listing the other fields at fault as well; otherwise it is 422. At most
//!   `collect::MAX_FIELDS` fields are listed.
//!
//! Unknown fields are ignored, as before (their strings are still checked). A non-JSON
//! body is a 415; an empty body reads as `{}`. Path ids outside `domain::limits::ID` name
//! nothing: 404.

mod collect;

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
            Err(e) => Err(malformed(&e)),
        };
    }
    let mut de = serde_json::Deserializer::from_slice(bytes);
    match T::deserialize(Guarded::new(&mut de)).and_then(|value| de.end().map(|()| value)) {
        Ok(value) => Ok(value),
        Err(_) => Err(refusal::<T>(bytes)),
    }
}

/// Why `bytes`, which failed to read as `T`, fail: every field at fault.
fn refusal<T: DeserializeOwned>(bytes: &[u8]) -> ApiError {
    let body: serde_json::Value = match serde_json::from_slice(bytes) {
        Ok(body) => body,
        Err(e) => return malformed(&e),
    };
    let found = collect::collect::<T>(&body, bytes.len());
    if found.errors.is_empty() {
        // Read as a `Value`, the body is fine where the bytes were not (a key given twice,
        // which a `Value` keeps once): the direct read names the field.
        return first_failure::<T>(bytes);
    }
    let refusal = if found.missing {
        ApiError::body_fields(
            ErrorCode::MissingField,
            "a required field is missing; `_embedded.errors` lists every field at fault",
            found.errors,
        )
    } else {
        ApiError::validation(found.errors)
    };
    if found.complete {
        refusal
    } else {
        refusal.more_may_follow()
    }
}

/// The first failure of the direct read, with the path of the field it happened at.
fn first_failure<T: DeserializeOwned>(bytes: &[u8]) -> ApiError {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let err = match serde_path_to_error::deserialize::<_, T>(Guarded::new(&mut de)) {
        Ok(_) => match de.end() {
            Ok(()) => return ApiError::invalid_field("body", "could not be read"),
            Err(e) => return malformed(&e),
        },
        Err(err) => err,
    };
    // A key that fails to read is an unknown segment: name the object holding it.
    let path = err.path().to_string();
    let path = path
        .strip_suffix(".?")
        .or(path.strip_suffix('?'))
        .unwrap_or(&path);
    let field = if path == "." || path.is_empty() {
        "body"
    } else {
        path
    };
    let inner = err.into_inner();
    match inner.classify() {
        serde_json::error::Category::Data => {
            ApiError::invalid_field(field, strip_position(&inner.to_string()))
        }
        _ => malformed(&inner),
    }
}

fn malformed(err: &serde_json::Error) -> ApiError {
    let message = strip_position(&err.to_string());
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

/// The address the request came from (the connection's peer), when the server knows it:
/// what sign-in throttles count failures against.
pub struct ClientAddress(pub Option<std::net::IpAddr>);

impl<S: Send + Sync> axum::extract::FromRequestParts<S> for ClientAddress {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        _state: &S,
    ) -> Result<Self, Self::Rejection> {
        let peer = parts
            .extensions
            .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
            .map(|info| info.0.ip());
        Ok(ClientAddress(peer))
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

    /// Each field an error body lists, with its messages.
    fn listed(body: &serde_json::Value) -> Vec<(String, Vec<String>)> {
        body["_embedded"]["errors"]
            .as_array()
            .unwrap_or_else(|| panic!("no _embedded.errors: {body}"))
            .iter()
            .map(|e| {
                let messages = e["messages"].as_array().unwrap();
                (
                    e["field"].as_str().unwrap().to_owned(),
                    messages
                        .iter()
                        .map(|m| m.as_str().unwrap().to_owned())
                        .collect(),
                )
            })
            .collect()
    }

    /// The status, `error` code (none on a 422) and fields of the answer to `body` as `T`.
    fn refusal<T: DeserializeOwned + std::fmt::Debug>(
        body: &str,
    ) -> (StatusCode, Option<String>, Vec<String>) {
        let err = parse::<T>(body.as_bytes()).unwrap_err();
        let json = err.body();
        let code = json["error"].as_str().map(str::to_owned);
        let fields = listed(&json).into_iter().map(|(field, _)| field).collect();
        (err.status(), code, fields)
    }

    #[test]
    fn sorts_failures() {
        let malformed = refusal::<Input>("{\"name\": ");
        assert_eq!(
            malformed,
            (
                StatusCode::BAD_REQUEST,
                Some("malformed_json".into()),
                vec!["body".into()]
            )
        );
        assert_eq!(refusal::<Input>("{} {}"), malformed.clone());
        let (status, body) = status_of("{}");
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(body["error"], "missing_field");
        assert_eq!(body["_class"], serde_json::json!(["error"]));
        assert_eq!(
            listed(&body),
            [("name".into(), vec!["can't be blank".into()])]
        );
        let (status, body) = status_of("{\"name\": \"x\", \"count\": \"many\"}");
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(body["_embedded"]["errors"][0]["field"], "count");
        let (status, body) = status_of("[1]");
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(body["_embedded"]["errors"][0]["field"], "body");
        // A value of the wrong type before the JSON breaks: the body is not JSON.
        assert_eq!(refusal::<Input>("{\"count\": \"x\", "), malformed);
    }

    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Product {
        title: String,
        #[serde(default)]
        price: Option<i64>,
        #[serde(default)]
        tags: Option<Vec<String>>,
        #[serde(default)]
        all_shops: Patch<bool>,
        #[serde(default)]
        variants: Option<Vec<Variant>>,
    }

    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Variant {
        #[serde(default)]
        sku: Option<String>,
        #[serde(default)]
        price: Option<i64>,
        #[serde(default)]
        stock: Option<i64>,
        #[serde(default)]
        options: Option<serde_json::Map<String, serde_json::Value>>,
        #[serde(default)]
        dimensions: Option<Dimensions>,
    }

    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Dimensions {
        width: u32,
        height: u32,
        #[serde(default)]
        unit: Option<Unit>,
    }

    #[derive(Deserialize, Debug)]
    #[serde(rename_all = "snake_case")]
    enum Unit {
        Mm,
        Cm,
    }

    #[test]
    fn every_mistyped_field_is_listed_at_every_depth() {
        let (status, code, fields) =
            refusal::<Product>(r#"{"title": 5, "price": "x", "variants": [{"stock": "many"}]}"#);
        assert_eq!((status, code), (StatusCode::UNPROCESSABLE_ENTITY, None));
        assert_eq!(fields, ["title", "price", "variants[0].stock"]);

        let (status, _, fields) = refusal::<Product>(
            r#"{"title": "T", "price": 1.5, "all_shops": "yes", "tags": "a,b", "variants": [
                {"sku": 7, "price": 1, "options": {"size": "M"}},
                {"sku": "B", "price": -1, "stock": [], "dimensions": {"width": -1, "height": "3", "unit": "in"}},
                {"options": [], "dimensions": {"width": 1, "height": 2, "unit": "mm"}}
            ]}"#,
        );
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(
            fields,
            [
                "price",
                "all_shops",
                "tags",
                "variants[0].sku",
                "variants[1].stock",
                "variants[1].dimensions.width",
                "variants[1].dimensions.height",
                "variants[1].dimensions.unit",
                "variants[2].options",
            ]
        );
        // Each field says what it was given and what it takes.
        let err = parse::<Product>(br#"{"title": "T", "price": "ten"}"#).unwrap_err();
        assert_eq!(
            listed(&err.body()),
            [(
                "price".into(),
                vec!["invalid type: string \"ten\", expected i64".into()]
            )]
        );
    }

    #[test]
    fn missing_and_mistyped_fields_are_listed_together_as_a_400() {
        // Required: the title, and a dimension's width and height.
        let (status, code, fields) = refusal::<Product>(
            r#"{"price": "x", "variants": [
                {"stock": 1, "dimensions": {"height": "tall"}},
                {"sku": 3, "dimensions": {}}
            ]}"#,
        );
        assert_eq!(
            (status, code.as_deref()),
            (StatusCode::BAD_REQUEST, Some("missing_field"))
        );
        assert_eq!(
            fields,
            [
                "price",
                "variants[0].dimensions.height",
                "variants[0].dimensions.width",
                "variants[1].sku",
                "variants[1].dimensions.width",
                "variants[1].dimensions.height",
                "title",
            ]
        );
        // A mistyped required field is listed once, as mistyped; with nothing missing the
        // answer is a 422.
        let err = parse::<Product>(
            br#"{"title": ["T"], "variants": [{"dimensions": {"width": "1", "height": 2}}]}"#,
        )
        .unwrap_err();
        assert_eq!(err.status(), StatusCode::UNPROCESSABLE_ENTITY);
        let listed = listed(&err.body());
        assert_eq!(
            listed.iter().map(|(f, _)| f.as_str()).collect::<Vec<_>>(),
            ["title", "variants[0].dimensions.width"]
        );
        assert!(
            listed
                .iter()
                .all(|(_, m)| m.len() == 1 && m[0].starts_with("invalid type"))
        );
    }

    #[test]
    fn array_items_are_named_by_their_place() {
        #[derive(Deserialize, Debug)]
        #[allow(dead_code)]
        struct Lists {
            tags: Vec<String>,
            #[serde(default)]
            grid: Vec<Vec<i64>>,
            #[serde(default)]
            lines: Vec<Line>,
        }
        #[derive(Deserialize, Debug)]
        #[allow(dead_code)]
        struct Line {
            variant_id: i64,
            #[serde(default)]
            quantity: Option<i64>,
        }
        let (status, code, fields) = refusal::<Lists>(
            r#"{"tags": [1, "a", true, "b", null], "grid": [[1, "x"], 5, [], [2, 3, {}]],
                "lines": [{"variant_id": 1}, {"quantity": 2}, "line", {"variant_id": "9", "quantity": "2"}]}"#,
        );
        assert_eq!(
            (status, code.as_deref()),
            (StatusCode::BAD_REQUEST, Some("missing_field"))
        );
        assert_eq!(
            fields,
            [
                "tags[0]",
                "tags[2]",
                "tags[4]",
                "grid[0][1]",
                "grid[1]",
                "grid[3][2]",
                "lines[1].variant_id",
                "lines[2]",
                "lines[3].variant_id",
                "lines[3].quantity",
            ]
        );
    }

    #[test]
    fn deeply_nested_fields_are_named_in_full() {
        #[derive(Deserialize, Debug)]
        #[allow(dead_code)]
        struct Tree {
            name: String,
            #[serde(default)]
            children: Vec<Tree>,
        }
        // Forty levels, each a bad name; the deepest lacks its name.
        let depth = 40;
        let mut body = r#"{"children": []}"#.to_owned();
        for level in (0..depth).rev() {
            body = format!(r#"{{"name": {level}, "children": [{{"name": "ok"}}, {body}]}}"#);
        }
        let (status, _, fields) = refusal::<Tree>(&body);
        assert_eq!(status, StatusCode::BAD_REQUEST);
        let mut expected = Vec::new();
        let mut path = String::new();
        for _ in 0..depth {
            expected.push(if path.is_empty() {
                "name".to_owned()
            } else {
                format!("{path}.name")
            });
            path = if path.is_empty() {
                "children[1]".to_owned()
            } else {
                format!("{path}.children[1]")
            };
        }
        // Each level's name is found on the way down; the missing one as the deepest
        // object ends.
        expected.push(format!("{path}.name"));
        let found: Vec<String> = fields.iter().take(depth + 1).cloned().collect();
        assert_eq!(found.len(), expected.len().min(collect::MAX_FIELDS));
        assert_eq!(found, expected);
    }

    #[test]
    fn a_required_value_no_stand_in_satisfies_hides_its_item() {
        /// A code of one of a closed set of values: "" is none of them.
        #[derive(Deserialize, Debug)]
        #[serde(try_from = "String")]
        #[allow(dead_code)]
        struct Code(String);
        impl TryFrom<String> for Code {
            type Error = &'static str;
            fn try_from(text: String) -> Result<Self, Self::Error> {
                if matches!(text.as_str(), "eq" | "gt") {
                    Ok(Code(text))
                } else {
                    Err("must be one of eq, gt")
                }
            }
        }
        #[derive(Deserialize, Debug)]
        #[allow(dead_code)]
        struct Rule {
            relation: Code,
            value: String,
        }
        #[derive(Deserialize, Debug)]
        #[allow(dead_code)]
        struct Rules {
            title: String,
            rules: Vec<Rule>,
        }
        let (status, code, fields) = refusal::<Rules>(
            r#"{"title": 1, "rules": [
                {"relation": "like", "value": 1},
                {"relation": "eq", "value": "a"},
                {"value": "b"},
                {"relation": "gt", "value": []}
            ]}"#,
        );
        assert_eq!(
            (status, code.as_deref()),
            (StatusCode::BAD_REQUEST, Some("missing_field"))
        );
        assert_eq!(
            fields,
            [
                "title",
                "rules[0].relation",
                "rules[0].value",
                "rules[2].relation",
                "rules[3].value",
            ]
        );
    }

    #[test]
    fn keys_strings_and_types_are_refused_together() {
        let (status, code, fields) = refusal::<Input>(
            "{\"name\": 5, \"extra\": {\"a\\u0000\": 1}, \"note\": \"\\u001b\", \"count\": -1, \"x\\u0085\": 1}",
        );
        assert_eq!((status, code), (StatusCode::UNPROCESSABLE_ENTITY, None));
        // Unknown fields are ignored but checked: `extra` is named for its key.
        assert_eq!(fields, ["name", "extra", "note", "count", "body"]);
    }

    #[test]
    fn unknown_fields_stay_ignored() {
        let ok: Input =
            parse(br#"{"name": "a", "unknown": [1, {"b": true}], "count": 2}"#).unwrap();
        assert_eq!((ok.name.as_str(), ok.count), ("a", Some(2)));
        let (_, _, fields) = refusal::<Input>(r#"{"name": 1, "unknown": {"b": "c"}}"#);
        assert_eq!(fields, ["name"]);
    }

    #[test]
    fn a_key_given_twice_is_still_refused() {
        let err = parse::<Input>(br#"{"name": "a", "name": "b"}"#).unwrap_err();
        assert_eq!(err.status(), StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(
            listed(&err.body()),
            [("body".into(), vec!["duplicate field `name`".into()])]
        );
    }

    #[test]
    fn a_huge_number_of_bad_fields_is_bounded() {
        #[derive(Deserialize, Debug)]
        #[allow(dead_code)]
        struct Tags {
            title: String,
            tags: Vec<String>,
        }
        // A usual size: the first `MAX_FIELDS` are listed, and the answer says so.
        let items = vec!["1"; 2000].join(",");
        let body = format!(r#"{{"title": "T", "tags": [{items}]}}"#);
        let err = parse::<Tags>(body.as_bytes()).unwrap_err();
        let json = err.body();
        let fields = listed(&json);
        assert_eq!(fields.len(), collect::MAX_FIELDS);
        assert_eq!(fields[0].0, "tags[0]");
        assert_eq!(
            fields[collect::MAX_FIELDS - 1].0,
            format!("tags[{}]", collect::MAX_FIELDS - 1)
        );
        assert!(
            json["message"]
                .as_str()
                .unwrap()
                .contains("more may follow"),
            "{json}"
        );
        // Near the body limit: few passes, whose walks together stay within the budget.
        let items = vec!["1"; 500_000].join(",");
        let body = format!(r#"{{"tags": [{items}]}}"#);
        let err = parse::<Tags>(body.as_bytes()).unwrap_err();
        let json = err.body();
        let listed = listed(&json).len();
        assert!((1..=8).contains(&listed), "{listed} fields listed");
        assert!(
            json["message"]
                .as_str()
                .unwrap()
                .contains("more may follow")
        );
        // A body whose faults are all found says nothing more.
        let err = parse::<Tags>(br#"{"title": 1, "tags": [2]}"#).unwrap_err();
        assert_eq!(err.body()["message"], "the request has invalid values");
    }

    #[test]
    fn good_bodies_read_as_before() {
        let product: Product = parse(
            br#"{"title": "T", "price": 3, "all_shops": null, "variants": [{"sku": "A", "options": {"size": "M"},
                "dimensions": {"width": 1, "height": 2, "unit": "cm"}}]}"#,
        )
        .unwrap();
        assert_eq!(product.title, "T");
        assert_eq!(product.all_shops, Patch::Null);
        let variants = product.variants.unwrap();
        assert!(matches!(
            variants[0].dimensions,
            Some(Dimensions {
                width: 1,
                height: 2,
                unit: Some(Unit::Cm)
            })
        ));
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
