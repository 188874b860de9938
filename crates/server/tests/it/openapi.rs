//! `GET /openapi.json`: an OpenAPI 3.1 document that validates against the specification's
//! own schema, and whose every operation the router serves. (The other direction — every
//! answer of the whole suite comes from a described operation and matches its schema —
//! is checked on every test server, by `support::openapi`.)

use std::collections::BTreeSet;

use reqwest::{Method, StatusCode};
use serde_json::Value;

use crate::on_both_backends;
use crate::support::openapi::DocumentCheck;
use crate::support::{TestServer, filled, json};

/// The OpenAPI Initiative's schema of OpenAPI 3.1 documents (2022-10-07).
const OPENAPI_3_1_SCHEMA: &str = include_str!("openapi/oas-3.1-schema.json");

on_both_backends!(
    the_document_is_valid_openapi_3_1,
    every_documented_operation_is_served,
    every_rel_page_links_to_its_operation,
    the_check_refuses_what_the_document_does_not_describe,
);

async fn document(s: &TestServer) -> Value {
    let (status, document) = json(s.client.get(s.url("/openapi.json")).send().await.unwrap()).await;
    assert_eq!(status, StatusCode::OK);
    document
}

/// Each `(method, path, operation)` of the document.
fn operations(document: &Value) -> Vec<(String, String, Value)> {
    let mut all = Vec::new();
    for (path, item) in document["paths"].as_object().expect("paths") {
        for (method, operation) in item.as_object().expect("a path item") {
            all.push((method.clone(), path.clone(), operation.clone()));
        }
    }
    all
}

async fn the_document_is_valid_openapi_3_1(s: TestServer) {
    let document = document(&s).await;
    let schema: Value = serde_json::from_str(OPENAPI_3_1_SCHEMA).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the OpenAPI schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(&document)
        .map(|e| format!("at `{}`: {e}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "not OpenAPI 3.1: {errors:#?}");

    // Every named schema is itself a valid JSON Schema (2020-12, the 3.1 dialect).
    for (name, schema) in document["components"]["schemas"].as_object().unwrap() {
        let mut standalone = schema.clone();
        standalone["$schema"] = "https://json-schema.org/draft/2020-12/schema".into();
        assert!(
            jsonschema::meta::is_valid(&standalone),
            "components.schemas.{name} is not a JSON Schema"
        );
    }

    // Every reference resolves.
    let mut refs = Vec::new();
    collect_refs(&document, &mut refs);
    for reference in refs {
        let target = reference.strip_prefix('#').expect("local references only");
        assert!(document.pointer(target).is_some(), "dangling {reference}");
    }

    // Operation ids are unique; each operation says who may call it and what it answers.
    let mut ids = BTreeSet::new();
    for (method, path, operation) in operations(&document) {
        let id = operation["operationId"].as_str().unwrap().to_owned();
        assert!(ids.insert(id.clone()), "operationId {id} repeats");
        assert!(
            operation["security"].is_array(),
            "{method} {path} has no security"
        );
        let responses = operation["responses"].as_object().unwrap();
        assert!(
            responses
                .keys()
                .any(|k| k.starts_with('2') || k.starts_with('3')),
            "{method} {path} declares no success"
        );
        assert!(
            responses.contains_key("4XX"),
            "{method} {path} declares no errors"
        );
    }
}

fn collect_refs(value: &Value, refs: &mut Vec<String>) {
    match value {
        Value::Object(object) => {
            for (key, child) in object {
                match (key.as_str(), child) {
                    ("$ref", Value::String(target)) => refs.push(target.clone()),
                    _ => collect_refs(child, refs),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| collect_refs(item, refs)),
        _ => {}
    }
}

/// A request to every documented operation (and to its `/v1` alias) reaches a route with
/// that method and path template: the document describes nothing the router lacks.
async fn every_documented_operation_is_served(s: TestServer) {
    let document = document(&s).await;
    let operations = operations(&document);
    let operations_count = operations.len();
    assert!(operations_count > 10, "the document describes the API");
    for (method, path, _) in operations {
        let mut templates = vec![path.clone()];
        if let Some(rest) = path.strip_prefix("/v2") {
            templates.push(format!("/v1{rest}"));
        }
        for template in templates {
            let method = Method::from_bytes(method.to_ascii_uppercase().as_bytes()).unwrap();
            // No token: protected operations answer 401 and change nothing.
            s.client
                .request(method.clone(), s.url(&filled(&template)))
                .send()
                .await
                .expect("the server answers");
            assert!(
                s.check.served(method.as_str(), &template),
                "{method} {template} is documented, but no route answered it"
            );
        }
    }
    assert!(
        s.check.checked() > operations_count,
        "the check saw every answer"
    );
}

/// Every link relation the docs list leads to exactly one operation, with the rel's
/// method, and its docs page links to where the document describes that operation.
async fn every_rel_page_links_to_its_operation(s: TestServer) {
    let document = document(&s).await;
    let mut operation_of = std::collections::HashMap::new();
    for (method, path, operation) in operations(&document) {
        for rel in operation["x-rels"].as_array().into_iter().flatten() {
            let rel = rel.as_str().unwrap().to_owned();
            let earlier = operation_of.insert(rel.clone(), (method.clone(), path.clone()));
            assert!(
                earlier.is_none(),
                "{rel} leads to {earlier:?} and to {method} {path}"
            );
        }
    }
    let docs = format!("{}/docs/rels", s.url);
    let index = page(&s, &docs).await;
    let namespaces = hrefs_under(&index, &format!("{docs}/"));
    assert!(namespaces.len() > 5, "the index lists the namespaces");
    let mut rels = 0;
    for namespace in namespaces {
        let listing = page(&s, &namespace).await;
        for rel_page in hrefs_under(&listing, &format!("{namespace}/")) {
            rels += 1;
            let rel = rel_page
                .strip_prefix(&format!("{docs}/"))
                .unwrap()
                .replacen('/', ":", 1);
            let (method, path) = operation_of
                .get(&rel)
                .unwrap_or_else(|| panic!("no operation declares {rel}"));
            let html = page(&s, &rel_page).await;
            assert!(
                html.contains(&format!("<code>{}</code>", method.to_ascii_uppercase())),
                "{rel}: the rel's method is its operation's ({method})"
            );
            let pointer = path
                .replace('~', "~0")
                .replace('/', "~1")
                .replace('{', "%7B")
                .replace('}', "%7D");
            let described = format!("{}/openapi.json#/paths/{pointer}/{method}", s.url);
            assert!(
                html.contains(&format!("href=\"{described}\"")),
                "{rel}: its page links to {described}"
            );
        }
    }
    assert_eq!(rels, operation_of.len(), "every declared rel is documented");
}

async fn page(s: &TestServer, url: &str) -> String {
    let response = s.client.get(url).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK, "{url}");
    response.text().await.unwrap()
}

/// The distinct `href`s of a page that continue `prefix` by one path segment.
fn hrefs_under(html: &str, prefix: &str) -> BTreeSet<String> {
    html.split("href=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .filter(|href| {
            href.strip_prefix(prefix)
                .is_some_and(|tail| !tail.is_empty() && !tail.contains('/'))
        })
        .map(str::to_owned)
        .collect()
}

/// The suite's check is strict: an extra property, an undescribed status or media type, or
/// a route the document lacks is each a problem, and a described answer is none.
async fn the_check_refuses_what_the_document_does_not_describe(s: TestServer) {
    use api::{ObserveResponse, Observed};
    let token = s.owner_token().await;
    let (status, product_type) = s
        .call(
            Method::POST,
            "/v2/product_types",
            &token,
            Some(serde_json::json!({"name": "Checked"})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED);
    let path = format!("/v2/product_types/{}", product_type["id"]);
    let mut with_extra = product_type.clone();
    with_extra["undescribed"] = "x".into();
    let mut without_id = product_type.clone();
    without_id.as_object_mut().unwrap().remove("id");

    let check = DocumentCheck::default();
    check.document(&document(&s).await);
    let answer = |route: &'static str, status: StatusCode, media: &'static str, body: &Value| {
        let bytes = serde_json::to_vec(body).unwrap();
        check.observe(Observed {
            method: &Method::GET,
            route: Some(route),
            path: &path,
            status,
            content_type: Some(media),
            body: &bytes,
        });
        check.problems().len()
    };
    let json = "application/json; charset=utf-8";
    let item = "/v2/product_types/{id}";
    assert_eq!(
        answer(item, StatusCode::OK, json, &product_type),
        0,
        "{:?}",
        check.problems()
    );
    assert_eq!(
        answer(item, StatusCode::OK, json, &with_extra),
        1,
        "an extra property"
    );
    assert_eq!(
        answer(item, StatusCode::OK, json, &without_id),
        2,
        "a missing property"
    );
    assert_eq!(
        answer(item, StatusCode::CREATED, json, &product_type),
        3,
        "a status"
    );
    assert_eq!(
        answer(item, StatusCode::OK, "text/plain", &product_type),
        4,
        "a media type"
    );
    assert_eq!(
        answer("/v2/undescribed", StatusCode::OK, json, &product_type),
        5,
        "a route"
    );
    let error = serde_json::json!({"_class": ["error"], "status": 404, "error": "not_found"});
    assert_eq!(
        answer(item, StatusCode::NOT_FOUND, json, &error),
        6,
        "an error without message"
    );

    // The HAL rules, at any depth: `_embedded` and titled links on every resource, and
    // list links that are templates declaring their paging and sorting.
    let mut without_embedded = product_type.clone();
    without_embedded
        .as_object_mut()
        .unwrap()
        .remove("_embedded");
    assert_eq!(
        answer(item, StatusCode::OK, json, &without_embedded),
        7,
        "a resource without _embedded"
    );
    let mut untitled = product_type.clone();
    untitled["_links"]["self"]
        .as_object_mut()
        .unwrap()
        .remove("title");
    assert_eq!(
        answer(item, StatusCode::OK, json, &untitled),
        8,
        "a link without a title"
    );
    let mut product = s
        .create_product(
            &token,
            serde_json::json!({"title": "Checked", "price": 100}),
        )
        .await;
    let product_path = "/v2/products/{id}";
    assert_eq!(
        answer(product_path, StatusCode::OK, json, &product),
        8,
        "{:?}",
        check.problems()
    );
    let variants = &mut product["_links"]["products:variants"];
    let href = variants["href"].as_str().unwrap().to_owned();
    variants["href"] = href.split('{').next().unwrap().into();
    variants["templated"] = false.into();
    assert_eq!(
        answer(product_path, StatusCode::OK, json, &product),
        9,
        "a list link that is no template"
    );
    let mut nested = product_type.clone();
    nested["_embedded"] = serde_json::json!({"inner": {"_class": ["thing"], "_links": {}}});
    let answered = answer(item, StatusCode::OK, json, &nested);
    assert!(
        check.problems()[9..]
            .iter()
            .any(|p| p.contains("/_embedded/inner") && p.contains("without `_embedded`")),
        "an embedded resource without _embedded ({answered}): {:?}",
        check.problems()
    );
}
