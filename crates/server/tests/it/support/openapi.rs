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
        let method = answer.method.as_str().to_ascii_lowercase();
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
        let errors: Vec<String> = validator
            .iter_errors(&body)
            .take(5)
            .map(|e| format!("at `{}`: {e}", e.instance_path()))
            .collect();
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

/// The value a `#/…` reference points at.
fn pointer<'a>(document: &'a Value, reference: &str) -> Option<&'a Value> {
    document.pointer(reference.strip_prefix('#')?)
}

/// A JSON pointer segment (RFC 6901).
fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}
