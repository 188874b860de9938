//! Every answer a test server gives is checked against the OpenAPI document that server
//! serves: its route must be described, its status and media type declared, and a JSON
//! body must match the schema declared for them. Problems are kept, and reported when
//! the server is dropped, so no test can pass on an answer the document does not describe.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex, PoisonError};

use api::{ObserveResponse, Observed};
use serde_json::{Value, json};

#[derive(Debug, Default)]
pub struct DocumentCheck {
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    document: Option<Value>,
    /// Compiled schemas, by the JSON pointer of their place in the document.
    validators: HashMap<String, Arc<jsonschema::Validator>>,
    problems: Vec<String>,
    checked: usize,
    /// The routes that answered: method and path template.
    served: BTreeSet<(String, String)>,
}

impl DocumentCheck {
    /// What did not match, one line per answer.
    pub fn problems(&self) -> Vec<String> {
        self.lock().problems.clone()
    }

    /// How many answers were checked.
    pub fn checked(&self) -> usize {
        self.lock().checked
    }

    /// Whether a route with this method and path template answered.
    pub fn served(&self, method: &str, route: &str) -> bool {
        self.lock()
            .served
            .contains(&(method.to_ascii_uppercase(), route.to_owned()))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl ObserveResponse for DocumentCheck {
    fn document(&self, document: &Value) {
        self.lock().document = Some(document.clone());
    }

    fn observe(&self, answer: Observed<'_>) {
        // No route matched: the fallback's 404, which no operation describes.
        let Some(route) = answer.route else {
            return;
        };
        // A method the path does not serve: the router's 405, which no operation describes.
        if answer.status == reqwest::StatusCode::METHOD_NOT_ALLOWED {
            return;
        }
        let mut state = self.lock();
        state.checked += 1;
        state
            .served
            .insert((answer.method.as_str().to_owned(), route.to_owned()));
        if let Err(problem) = state.check(route, &answer) {
            let line = format!(
                "{} {} → {}: {problem}",
                answer.method, answer.path, answer.status
            );
            state.problems.push(line);
        }
    }
}

impl State {
    fn check(&mut self, route: &str, answer: &Observed<'_>) -> Result<(), String> {
        let document = self.document.as_ref().ok_or("no document was built")?;
        // `/v1` is the deprecated alias of `/v2`.
        let route = match route.strip_prefix("/v1") {
            Some(rest) => format!("/v2{rest}"),
            None => route.to_owned(),
        };
        // HEAD is answered as GET is, without the body.
        let is_head = answer.method.as_str() == "HEAD";
        let method = if is_head {
            "get".to_owned()
        } else {
            answer.method.as_str().to_ascii_lowercase()
        };
        let operation = document["paths"]
            .get(&route)
            .and_then(|item| item.get(&method))
            .ok_or_else(|| format!("the document has no operation {method} {route}"))?;
        let status = answer.status.as_u16().to_string();
        let range = format!("{}XX", status.chars().next().unwrap_or('0'));
        let (key, mut response) = [status, range]
            .into_iter()
            .find_map(|key| operation["responses"].get(&key).map(|r| (key, r)))
            .ok_or("the operation declares no such status")?;
        if let Some(reference) = response.get("$ref").and_then(Value::as_str) {
            response = pointer(document, reference).ok_or("a dangling response $ref")?;
        }
        let Some(content) = response.get("content") else {
            return Ok(());
        };
        if is_head {
            return Ok(());
        }
        let media = answer
            .content_type
            .map(|c| c.split(';').next().unwrap_or("").trim().to_owned())
            .unwrap_or_default();
        let declared = content
            .get(&media)
            .or_else(|| content.get("*/*"))
            .ok_or_else(|| format!("media type `{media}` is not declared for {key}"))?;
        if !media.ends_with("json") {
            return Ok(());
        }
        let body: Value = serde_json::from_slice(answer.body)
            .map_err(|e| format!("a {media} body that is not JSON: {e}"))?;
        let place = format!(
            "/paths/{}/{method}/responses/{key}/content/{}/schema",
            escape(&route),
            escape(if content.get(&media).is_some() {
                &media
            } else {
                "*/*"
            })
        );
        let schema = declared.get("schema").cloned().unwrap_or(json!(true));
        let validator = match self.validators.get(&place) {
            Some(validator) => validator.clone(),
            None => {
                let standalone = json!({
                    "$schema": "https://json-schema.org/draft/2020-12/schema",
                    "components": document["components"],
                    "allOf": [schema],
                });
                let validator = Arc::new(
                    jsonschema::validator_for(&standalone)
                        .map_err(|e| format!("the schema at {place} does not compile: {e}"))?,
                );
                self.validators.insert(place.clone(), validator.clone());
                validator
            }
        };
        let mut errors: Vec<String> = validator
            .iter_errors(&body)
            .take(5)
            .map(|e| format!("at `{}`: {e}", e.instance_path()))
            .collect();
        if body.get("_class").is_some() {
            hal_rules(document, &body, "", &mut errors);
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(format!(
                "the body does not match {place}: {}",
                errors.join("; ")
            ))
        }
    }
}

/// What the spec asks of every HAL resource, at any depth, beyond any one schema: it has
/// `_links` and `_embedded` (empty when nothing is embedded); each link has a `title`; a
/// link to a list operation is a template declaring its `page`, `per_page` and `sort`.
/// (Error bodies, `_class` `error`/`errors`, are not resources.)
fn hal_rules(document: &Value, value: &Value, at: &str, problems: &mut Vec<String>) {
    match value {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                hal_rules(document, item, &format!("{at}/{i}"), problems);
            }
        }
        Value::Object(object) => {
            let class = object.get("_class").and_then(Value::as_array);
            let is_error = class.is_some_and(|c| c.iter().any(|c| c == "error" || c == "errors"));
            if class.is_some() && !is_error {
                for key in ["_links", "_embedded"] {
                    if !object.get(key).is_some_and(Value::is_object) {
                        problems.push(format!("at `{at}`: a resource without `{key}`"));
                    }
                }
            }
            if let Some(Value::Object(links)) = object.get("_links") {
                for (rel, link) in links {
                    for link in link.as_array().map_or(vec![link], |l| l.iter().collect()) {
                        check_link(document, rel, link, at, problems);
                    }
                }
            }
            for (key, child) in object {
                if key != "_links" {
                    hal_rules(document, child, &format!("{at}/{key}"), problems);
                }
            }
        }
        _ => {}
    }
}

fn check_link(document: &Value, rel: &str, link: &Value, at: &str, problems: &mut Vec<String>) {
    if !link.get("title").is_some_and(Value::is_string) {
        problems.push(format!("at `{at}`: the `{rel}` link has no title"));
    }
    if !rel.contains(':') {
        return;
    }
    let method = link["method"].as_str().unwrap_or("get");
    if !leads_to_a_list(document, rel, method) {
        return;
    }
    let href = link["href"].as_str().unwrap_or("");
    let declared = href
        .rsplit_once('{')
        .map(|(_, expression)| {
            expression
                .trim_start_matches(['?', '&'])
                .trim_end_matches('}')
        })
        .unwrap_or("");
    let names: Vec<&str> = declared.split(',').collect();
    let missing: Vec<&str> = ["page", "per_page", "sort"]
        .into_iter()
        .filter(|p| !names.contains(p) && !href.contains(&format!("{p}=")))
        .collect();
    if link["templated"] != true || !missing.is_empty() {
        problems.push(format!(
            "at `{at}`: the `{rel}` link leads to a list but does not declare {missing:?}: {href}"
        ));
    }
}

/// Whether the operation `rel` leads to (with `method`) is a list (reads `page`).
fn leads_to_a_list(document: &Value, rel: &str, method: &str) -> bool {
    let Some(paths) = document["paths"].as_object() else {
        return false;
    };
    paths.values().any(|item| {
        item.get(method).is_some_and(|operation| {
            let leads_here = operation["x-rels"]
                .as_array()
                .is_some_and(|rels| rels.iter().any(|r| r == rel));
            let pages = operation["parameters"]
                .as_array()
                .is_some_and(|params| params.iter().any(|p| p["name"] == "page"));
            leads_here && pages
        })
    })
}

/// The value a `#/…` reference points at.
fn pointer<'a>(document: &'a Value, reference: &str) -> Option<&'a Value> {
    document.pointer(reference.strip_prefix('#')?)
}

/// A JSON pointer segment (RFC 6901).
fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}
