//! The OpenAPI 3.1 document, assembled from the registered routes' descriptions and the
//! JSON schemas of the types their handlers read and write.

use domain::Scope;
use schemars::SchemaGenerator;
use schemars::generate::{Contract, SchemaSettings};
use serde_json::{Map, Value, json};

use super::operation::{Access, Answer, Body, Documented, Errors};
use crate::kernel::idempotency::MAX_KEY_LENGTH;
use crate::kernel::list::{PAGE, PER_PAGE};

/// Where the document keeps its named schemas; generated `$ref`s point here.
const SCHEMAS: &str = "#/components/schemas/";

/// The document for `routes`, served from `public_url`.
pub fn document(routes: &[Documented], public_url: &str) -> Value {
    let mut answers = generator(Contract::Serialize);
    let mut requests = generator(Contract::Deserialize);
    let mut paths = Map::new();
    for route in routes {
        let operation = operation(route, &mut answers, &mut requests);
        let item = paths.entry(route.path.clone()).or_insert_with(|| json!({}));
        item[route.method.as_str().to_ascii_lowercase()] = operation;
    }
    let mut schemas = base_schemas();
    for (name, schema) in answers.take_definitions(true) {
        schemas.insert(name, schema);
    }
    let mut document = json!({
        "openapi": "3.1.1",
        "info": {
            "title": "Commerce Platform API",
            "version": "2",
            "description": "A hypermedia (HAL JSON) API over the data of online shops, with \
                its OAuth 2.0 authorization service. `/v1` serves the same operations as \
                `/v2` under a deprecated alias.",
        },
        "servers": [{ "url": public_url }],
        "paths": paths,
        "components": {
            "securitySchemes": security_schemes(public_url),
            "responses": {
                "Error": {
                    "description": "An error: its code and message, or the invalid fields",
                    "content": hal_media(json!({ "$ref": format!("{SCHEMAS}Error") })),
                },
            },
        },
    });
    // A request type may be described differently from the same type in an answer (a
    // field with a default is optional to send but always present in answers): such a
    // request schema is kept apart, under `<Name>Input`.
    let request_schemas = requests.take_definitions(true);
    let renames: Vec<(String, String)> = request_schemas
        .iter()
        .filter(|(name, schema)| schemas.get(*name).is_some_and(|s| s != *schema))
        .map(|(name, _)| (format!("{SCHEMAS}{name}"), format!("{SCHEMAS}{name}Input")))
        .collect();
    for (name, mut schema) in request_schemas {
        rename_refs(&mut schema, &renames);
        let from = format!("{SCHEMAS}{name}");
        match renames.iter().find(|(r, _)| *r == from) {
            Some((_, to)) => {
                schemas.insert(to.trim_start_matches(SCHEMAS).to_owned(), schema);
            }
            None => {
                schemas.entry(name).or_insert(schema);
            }
        }
    }
    document["components"]["schemas"] = Value::Object(schemas);
    for operation in document["paths"]
        .as_object_mut()
        .into_iter()
        .flat_map(|paths| paths.values_mut())
        .flat_map(|item| {
            item.as_object_mut()
                .into_iter()
                .flat_map(|m| m.values_mut())
        })
    {
        if let Some(body) = operation.get_mut("requestBody") {
            rename_refs(body, &renames);
        }
    }
    document
}

fn generator(contract: Contract) -> SchemaGenerator {
    SchemaSettings::draft2020_12()
        .with(|settings| {
            settings.definitions_path = "/components/schemas/".into();
            settings.meta_schema = None;
            settings.contract = contract;
        })
        .into_generator()
}

fn rename_refs(value: &mut Value, renames: &[(String, String)]) {
    match value {
        Value::Object(object) => {
            for (key, child) in object.iter_mut() {
                if key == "$ref"
                    && let Value::String(target) = child
                    && let Some((_, to)) = renames.iter().find(|(from, _)| from == target)
                {
                    *target = to.clone();
                } else {
                    rename_refs(child, renames);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|item| rename_refs(item, renames)),
        _ => {}
    }
}

fn operation(
    route: &Documented,
    answers: &mut SchemaGenerator,
    requests: &mut SchemaGenerator,
) -> Value {
    let op = &route.op;
    let method = route.method.as_str().to_ascii_lowercase();
    let mut operation = json!({
        "operationId": operation_id(&method, &route.path),
        "summary": op.summary,
        "tags": [tag(&route.path)],
        "parameters": parameters(route, answers),
        "responses": responses(route, answers),
        "security": security(&op.access),
    });
    if !op.rels.is_empty() {
        let rels: Vec<String> = op.rels.iter().map(|r| r.rel()).collect();
        operation["x-rels"] = json!(rels);
    }
    if !op.bodies.is_empty() {
        let mut content = Map::new();
        for body in &op.bodies {
            let (media, schema) = match *body {
                Body::Json(schema) => ("application/json", schema(requests)),
                Body::Form(schema) => ("application/x-www-form-urlencoded", schema(requests)),
                Body::Multipart(schema) => ("multipart/form-data", schema(requests)),
            };
            content.insert(media.to_owned(), json!({ "schema": schema }));
        }
        operation["requestBody"] = json!({ "required": true, "content": content });
    }
    operation
}

/// Where an operation is described: `{public_url}/openapi.json#/paths/…/{method}`.
pub fn operation_url(public_url: &str, method: &str, path: &str) -> String {
    let pointer = path
        .replace('~', "~0")
        .replace('/', "~1")
        .replace('{', "%7B")
        .replace('}', "%7D");
    format!(
        "{public_url}/openapi.json#/paths/{pointer}/{}",
        method.to_ascii_lowercase()
    )
}

/// `get_v2_products_id` for `GET /v2/products/{id}`: unique, since method and path are.
pub fn operation_id(method: &str, path: &str) -> String {
    let mut id = method.to_ascii_lowercase();
    for segment in path.split('/').filter(|s| !s.is_empty()) {
        id.push('_');
        id.extend(
            segment
                .chars()
                .filter(|c| !matches!(c, '{' | '}'))
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }),
        );
    }
    id
}

/// The area an operation belongs to: the first segment after the version.
fn tag(path: &str) -> &str {
    let mut segments = path.split('/').filter(|s| !s.is_empty());
    match segments.next() {
        Some("v2") => segments.next().unwrap_or("root"),
        // The authorization service's metadata is among its endpoints.
        Some(".well-known") => "oauth",
        Some(first) => first,
        None => "root",
    }
}

fn parameters(route: &Documented, answers: &mut SchemaGenerator) -> Value {
    let op = &route.op;
    let mut params = Vec::new();
    for name in path_variables(&route.path) {
        let schema = if name == "id" || name.ends_with("_id") {
            json!({ "type": "integer", "minimum": 1, "maximum": domain::limits::ID.max })
        } else {
            json!({ "type": "string" })
        };
        params.push(json!({ "name": name, "in": "path", "required": true, "schema": schema }));
    }
    if let Some(list) = op.list {
        params.push(json!({
            "name": "page", "in": "query",
            "description": "The page to show, from 1",
            "schema": { "type": "integer", "minimum": PAGE.min, "maximum": PAGE.max },
        }));
        params.push(json!({
            "name": "per_page", "in": "query",
            "description": format!("Items per page (default {})", list.default_per_page),
            "schema": { "type": "integer", "minimum": PER_PAGE.min, "maximum": PER_PAGE.max },
        }));
        let sorts: Vec<String> = list
            .sort_fields
            .iter()
            .flat_map(|f| [format!("{f}.asc"), format!("{f}.desc"), (*f).to_owned()])
            .collect();
        params.push(json!({
            "name": "sort", "in": "query",
            "description": "A field, then `.asc` (the default) or `.desc`",
            "schema": { "type": "string", "enum": sorts },
        }));
        for filter in list.filters {
            let description = match filter.rsplit_once('.') {
                Some((field, "gte")) => format!("`{field}` at or after (above) this value"),
                Some((field, "lte")) => format!("`{field}` at or before (below) this value"),
                _ => "One value, or several comma-separated".to_owned(),
            };
            params.push(json!({
                "name": filter, "in": "query", "description": description,
                "schema": { "type": "string" },
            }));
        }
    }
    for param in &op.query {
        params.push(json!({
            "name": param.name, "in": "query", "description": param.description,
            "required": param.required, "schema": (param.schema)(answers),
        }));
    }
    if op.conditional {
        params.push(json!({
            "name": "If-Match", "in": "header",
            "description": "Change only if the resource still has this ETag (else 412)",
            "schema": { "type": "string" },
        }));
    }
    // Only a token's requests are remembered (`kernel::idempotency`).
    if route.method == axum::http::Method::POST
        && matches!(op.access, Access::Token | Access::AnyOf(_))
    {
        params.push(json!({
            "name": "Idempotency-Key", "in": "header",
            "description": "Repeating a request with the same key answers the first answer",
            "schema": { "type": "string", "minLength": 1, "maxLength": MAX_KEY_LENGTH },
        }));
    }
    Value::Array(params)
}

/// The `{name}` segments of a path template, in order.
pub fn path_variables(path: &str) -> Vec<&str> {
    path.split('/')
        .filter_map(|s| s.strip_prefix('{').and_then(|s| s.strip_suffix('}')))
        .collect()
}

fn responses(route: &Documented, answers: &mut SchemaGenerator) -> Value {
    let op = &route.op;
    let mut responses = Map::new();
    for answer in std::iter::once(&op.answer).chain(&op.also) {
        let (status, success) = success(answer, answers);
        responses.insert(status.to_string(), success);
    }
    if route.method == axum::http::Method::GET {
        responses.insert(
            "304".into(),
            json!({ "description": "Unchanged since the ETag or date the request named" }),
        );
    }
    let error = match op.errors {
        Errors::Api => json!({ "$ref": "#/components/responses/Error" }),
        // The endpoints answer errors as RFC 6749 section 5.2 says; a request refused
        // before it reaches them (rate limit, say) gets the API's error.
        Errors::OAuth => json!({
            "description": "An OAuth error, or the API's error for a request refused before the endpoint",
            "content": hal_media(json!({ "anyOf": [
                { "$ref": format!("{SCHEMAS}OAuthError") },
                { "$ref": format!("{SCHEMAS}Error") },
            ] })),
        }),
        // The pages say what went wrong in a page; a request refused before it reaches
        // them (rate limit, say) gets the API's error.
        Errors::Page => {
            let mut content = hal_media(json!({ "$ref": format!("{SCHEMAS}Error") }));
            content["text/html"] = json!({ "schema": { "type": "string" } });
            json!({
                "description": "A page saying what went wrong, or the API's error for a request refused before the page",
                "content": content,
            })
        }
    };
    responses.insert("4XX".into(), error.clone());
    responses.insert("5XX".into(), error);
    Value::Object(responses)
}

/// The status and description of one successful answer.
fn success(answer: &Answer, answers: &mut SchemaGenerator) -> (u16, Value) {
    let html = json!({ "text/html": { "schema": { "type": "string" } } });
    match *answer {
        Answer::Resource { status, fields } => (
            status,
            json!({ "description": "The resource", "content": hal_media(resource(fields(answers))) }),
        ),
        Answer::List { fields } => (
            200,
            json!({ "description": "A page of the list", "content": hal_media(list(fields(answers))) }),
        ),
        Answer::Json { status, body } => (
            status,
            json!({ "description": "The answer", "content": { "application/json": { "schema": body(answers) } } }),
        ),
        Answer::Html => (200, json!({ "description": "A page", "content": html })),
        Answer::Page { status } => (status, json!({ "description": "A page", "content": html })),
        Answer::Redirect => (
            303,
            json!({ "description": "Where to go next (`Location`)" }),
        ),
        Answer::Text => (
            200,
            json!({ "description": "Metrics", "content": { "application/openmetrics-text": { "schema": { "type": "string" } } } }),
        ),
        Answer::File => (
            200,
            json!({ "description": "The file", "content": { "*/*": { "schema": { "type": "string", "format": "binary" } } } }),
        ),
        Answer::Empty { status } => (status, json!({ "description": "Done; no body" })),
        Answer::ErrorWith {
            status,
            name,
            fields,
        } => (
            status,
            json!({
                "description": format!("An error, with the {name} it concerns embedded"),
                "content": hal_media(json!({
                    "type": "object",
                    "required": ["_class", "status", "error", "message", "_embedded"],
                    "properties": {
                        "_class": { "const": ["error"] },
                        "status": { "type": "integer" },
                        "error": { "type": "string" },
                        "message": { "type": "string" },
                        "_embedded": {
                            "type": "object",
                            "required": [name],
                            "properties": { name: resource(fields(answers)) },
                            "additionalProperties": false,
                        },
                    },
                    "additionalProperties": false,
                })),
            }),
        ),
    }
}

/// HAL documents (errors included) are sent as `application/json`, which every client
/// reads, or as `application/hal+json` to a client that asks for it (`Accept`).
fn hal_media(schema: Value) -> Value {
    json!({
        "application/json": { "schema": schema },
        "application/hal+json": { "schema": schema },
    })
}

/// A HAL resource whose own properties are `fields`, and nothing else.
fn resource(fields: schemars::Schema) -> Value {
    json!({
        "allOf": [{ "$ref": format!("{SCHEMAS}HalResource") }, fields],
        "unevaluatedProperties": false,
    })
}

/// A list page whose items are resources with `fields`.
fn list(fields: schemars::Schema) -> Value {
    json!({
        "allOf": [
            { "$ref": format!("{SCHEMAS}HalList") },
            {
                "type": "object",
                "required": ["_embedded"],
                "properties": {
                    "_embedded": {
                        "type": "object",
                        "required": ["items"],
                        "properties": { "items": { "type": "array", "items": resource(fields) } },
                    },
                },
            },
        ],
        "unevaluatedProperties": false,
    })
}

fn security(access: &Access) -> Value {
    match access {
        Access::Anonymous => json!([]),
        Access::Token => json!([{ "oauth": [] }]),
        Access::AnyOf(scopes) => Value::Array(
            scopes
                .iter()
                .map(|s| json!({ "oauth": [s.as_str()] }))
                .collect(),
        ),
        Access::Client => json!([{ "client_basic": [] }, {}]),
        Access::Session => json!([{ "session": [] }]),
    }
}

fn security_schemes(public_url: &str) -> Value {
    let scopes: Map<String, Value> = Scope::ALL
        .iter()
        .map(|s| (s.as_str().to_owned(), Value::from(s.description())))
        .collect();
    let token_url = format!("{public_url}{}", oauth::paths::TOKEN);
    json!({
        "oauth": {
            "type": "oauth2",
            "description": "Bearer tokens from the authorization service",
            "flows": {
                "authorizationCode": {
                    "authorizationUrl": format!("{public_url}{}", oauth::paths::AUTHORIZE),
                    "tokenUrl": token_url,
                    "scopes": scopes,
                },
                "clientCredentials": { "tokenUrl": token_url, "scopes": scopes },
                "password": { "tokenUrl": token_url, "scopes": scopes },
            },
        },
        "client_basic": {
            "type": "http",
            "scheme": "basic",
            "description": "An OAuth client's id and secret",
        },
        "session": {
            "type": "apiKey",
            "in": "cookie",
            "name": oauth::SESSION_COOKIE,
            "description": "A person signed in to the authorization service's pages",
        },
    })
}

/// The HAL and error shapes every answer shares.
fn base_schemas() -> Map<String, Value> {
    let link = json!({
        "type": "object",
        "required": ["href", "title"],
        "properties": {
            "href": { "type": "string" },
            "templated": { "type": "boolean" },
            "method": { "type": "string", "enum": ["get", "post", "put", "patch", "delete"] },
            "title": { "type": "string" },
            "type": { "type": "string" },
            "name": { "type": "string" },
        },
    });
    // What each field at fault is told: a 422's `_embedded`, and a 400's about the body.
    let field_errors = json!({
        "type": "object",
        "required": ["errors"],
        "properties": {
            "errors": {
                "type": "array",
                "minItems": 1,
                "items": {
                    "type": "object",
                    "required": ["field", "messages"],
                    "properties": {
                        "_class": { "const": ["error"] },
                        "field": { "type": "string" },
                        "messages": { "type": "array", "items": { "type": "string" } },
                    },
                },
            },
        },
    });
    let schemas = json!({
        "HalLink": link,
        "HalLinks": {
            "type": "object",
            "properties": {
                "curies": { "type": "array", "items": { "$ref": format!("{SCHEMAS}HalLink") } },
            },
            "additionalProperties": {
                "anyOf": [
                    { "$ref": format!("{SCHEMAS}HalLink") },
                    { "type": "array", "items": { "$ref": format!("{SCHEMAS}HalLink") } },
                ],
            },
        },
        "HalResource": {
            "type": "object",
            "required": ["_class", "_links", "_embedded"],
            "properties": {
                "_class": { "type": "array", "items": { "type": "string" } },
                "_links": { "$ref": format!("{SCHEMAS}HalLinks") },
                "_embedded": { "type": "object" },
            },
        },
        "HalList": {
            "allOf": [{ "$ref": format!("{SCHEMAS}HalResource") }],
            "type": "object",
            "required": ["total_items", "total_items_exact", "page", "per_page"],
            "properties": {
                "total_items": { "type": "integer", "minimum": 0 },
                "total_items_exact": {
                    "type": "boolean",
                    "description": "false when total_items is a lower bound: the list holds more items than it (and has no last link)",
                },
                "page": { "type": "integer", "minimum": 1 },
                "per_page": { "type": "integer", "minimum": 1 },
            },
        },
        "OAuthError": {
            "type": "object",
            "required": ["error"],
            "properties": {
                "error": { "type": "string" },
                "error_description": { "type": "string" },
                "error_uri": { "type": "string" },
            },
        },
        "FieldErrors": field_errors,
        "Error": {
            "anyOf": [
                {
                    "description": "Any error but a 422; a 400 about the body's fields (malformed_json, missing_field, malformed_multipart) lists them in _embedded.errors",
                    "type": "object",
                    "required": ["_class", "status", "error", "message"],
                    "properties": {
                        "_class": { "const": ["error"] },
                        "status": { "type": "integer" },
                        "error": { "type": "string" },
                        "message": { "type": "string" },
                        "_embedded": { "$ref": format!("{SCHEMAS}FieldErrors") },
                    },
                    "additionalProperties": false,
                },
                {
                    "description": "A 422: the invalid fields",
                    "type": "object",
                    "required": ["_class", "status", "message", "_embedded"],
                    "properties": {
                        "_class": { "const": ["errors"] },
                        "status": { "type": "integer" },
                        "message": { "type": "string" },
                        "_embedded": { "$ref": format!("{SCHEMAS}FieldErrors") },
                    },
                    "additionalProperties": false,
                },
            ],
        },
    });
    match schemas {
        Value::Object(map) => map,
        _ => unreachable!("a JSON object literal"),
    }
}
