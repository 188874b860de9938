//! Query-string parameters as the API reads them: repeated or comma-separated lists,
//! dotted and underscored range suffixes, numbers within their declared ranges
//! (`domain::limits`), and errors collected per field. `guard` refuses, before any
//! handler runs, a query holding a control character anywhere (`TextKind::Single`).

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use domain::limits::{self, IntRange};
use domain::text::TextKind;
use domain::{CalendarDate, FieldErrors, Timestamp};

use super::error::ApiError;
use storage::sql::TimeRange;

/// The decoded `name=value` pairs of a query string.
#[derive(Clone, Debug, Default)]
pub struct QueryParams(Vec<(String, String)>);

/// Middleware: a 422 naming every query parameter whose name or value holds a control
/// character, for every route of the API, whether it reads the parameter or not.
pub async fn guard(request: Request, next: Next) -> Response {
    match control_characters(request.uri().query()) {
        Ok(()) => next.run(request).await,
        Err(errors) => ApiError::validation(errors).into_response(),
    }
}

/// The parameters holding control characters, each named once (escaped, when the name
/// itself holds them).
fn control_characters(query: Option<&str>) -> Result<(), FieldErrors> {
    let mut errors = FieldErrors::new();
    for (name, value) in form_urlencoded::parse(query.unwrap_or("").as_bytes()) {
        let rule = TextKind::Single;
        if rule.refuses(&name) {
            errors.add(
                name.escape_debug().to_string(),
                "has a name with control characters",
            );
        } else if rule.refuses(&value) && !errors.has(&name) {
            errors.add(name.into_owned(), rule.message());
        }
    }
    errors.into_result()
}

/// The query parameters one route reads (from its OpenAPI description). Any other is
/// refused with a 422 naming it before the handler runs: a misspelt or unsupported filter
/// must not silently answer a different question. `access_token` is read for every route.
#[derive(Clone, Debug)]
pub struct DeclaredQuery(Arc<[String]>);

/// Middleware of a route with `declared` parameters (`from_fn_with_state`).
pub async fn refuse_undeclared(
    State(declared): State<DeclaredQuery>,
    request: Request,
    next: Next,
) -> Response {
    match declared.check(request.uri().query()) {
        Ok(()) => next.run(request).await,
        Err(errors) => ApiError::validation(errors).into_response(),
    }
}

impl DeclaredQuery {
    pub fn new(names: Vec<String>) -> Self {
        Self(names.into())
    }

    /// Every undeclared parameter, named once.
    pub fn check(&self, query: Option<&str>) -> Result<(), FieldErrors> {
        let Some(query) = query.filter(|q| !q.is_empty()) else {
            return Ok(());
        };
        let mut errors = FieldErrors::new();
        for (name, _) in form_urlencoded::parse(query.as_bytes()) {
            let known = name == "access_token" || self.0.iter().any(|d| *d == name);
            if !known && !errors.has(&name) {
                errors.add(name.into_owned(), self.refusal());
            }
        }
        errors.into_result()
    }

    fn refusal(&self) -> String {
        if self.0.is_empty() {
            "is not a parameter of this operation, which reads none".to_owned()
        } else {
            format!(
                "is not a parameter of this operation, which reads: {}",
                self.0.join(", ")
            )
        }
    }
}

impl QueryParams {
    /// Decodes the pairs (`guard` has refused control characters).
    pub fn parse(query: Option<&str>) -> Self {
        Self(
            form_urlencoded::parse(query.unwrap_or("").as_bytes())
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect(),
        )
    }

    /// The last non-empty value of `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .rev()
            .find(|(k, v)| k == name && !v.trim().is_empty())
            .map(|(_, v)| v.trim())
    }

    /// The value of a range bound, accepting `created_on.gte` and `created_on_gte`.
    pub fn get_bound(&self, field: &str, bound: &str) -> Option<(String, &str)> {
        let dotted = format!("{field}.{bound}");
        let underscored = format!("{field}_{bound}");
        self.get(&dotted)
            .map(|v| (dotted.clone(), v))
            .or_else(|| self.get(&underscored).map(|v| (dotted, v)))
    }

    /// Every value of `name`, repeated or comma-separated, trimmed and non-empty.
    pub fn list(&self, name: &str) -> Option<Vec<String>> {
        let values: Vec<String> = self
            .0
            .iter()
            .filter(|(k, _)| k == name)
            .flat_map(|(_, v)| v.split(','))
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .map(str::to_owned)
            .collect();
        if values.is_empty() {
            None
        } else {
            Some(values)
        }
    }

    /// A list of ids (`limits::ID`); anything else is reported on `name`.
    pub fn id_list(&self, name: &str, errors: &mut FieldErrors) -> Option<Vec<i64>> {
        let values = self.list(name)?;
        let mut ids = Vec::with_capacity(values.len());
        for value in values {
            match limits::ID.parse(&value) {
                Ok(id) => ids.push(id),
                Err(_) => {
                    errors.add(
                        name,
                        format!(
                            "must be a comma-separated list of ids from 1 to {} (`{value}` is not)",
                            limits::ID.max
                        ),
                    );
                    return None;
                }
            }
        }
        Some(ids)
    }

    /// An integer within `range`, reported on `name` when it is not.
    pub fn bounded(&self, name: &str, range: IntRange, errors: &mut FieldErrors) -> Option<i64> {
        match range.parse(self.get(name)?) {
            Ok(value) => Some(value),
            Err(message) => {
                errors.add(name, message);
                None
            }
        }
    }

    /// `{field}.gte` and `{field}.lte` as timestamps (RFC 3339 or `YYYY-MM-DD`).
    pub fn time_range(&self, field: &str, errors: &mut FieldErrors) -> TimeRange {
        let mut bound = |which: &str| {
            let (name, value) = self.get_bound(field, which)?;
            let parsed = Timestamp::parse(value);
            if parsed.is_none() {
                errors.add(name, Timestamp::MESSAGE);
            }
            parsed
        };
        let gte = bound("gte");
        // A bare date as an upper bound means "up to the end of that day".
        let lte = bound("lte").map(|t| {
            let is_date = self
                .get_bound(field, "lte")
                .is_some_and(|(_, v)| v.len() == 10);
            if is_date {
                Timestamp::from_micros(t.as_micros() + 86_400_000_000 - 1)
            } else {
                t
            }
        });
        (gte, lte)
    }

    /// `{field}.gte` and `{field}.lte` as `YYYY-MM-DD` dates, both inclusive.
    pub fn date_range(
        &self,
        field: &str,
        errors: &mut FieldErrors,
    ) -> (Option<CalendarDate>, Option<CalendarDate>) {
        let mut bound = |which: &str| {
            let (name, value) = self.get_bound(field, which)?;
            let parsed = CalendarDate::parse(value);
            if parsed.is_none() {
                errors.add(name, CalendarDate::MESSAGE);
            }
            parsed
        };
        (bound("gte"), bound("lte"))
    }

    /// `{field}.gte` and `{field}.lte` as integers within `range`.
    pub fn int_range(
        &self,
        field: &str,
        range: IntRange,
        errors: &mut FieldErrors,
    ) -> (Option<i64>, Option<i64>) {
        let mut bound = |which: &str| {
            let (name, value) = self.get_bound(field, which)?;
            match range.parse(value) {
                Ok(v) => Some(v),
                Err(message) => {
                    errors.add(name, message);
                    None
                }
            }
        };
        (bound("gte"), bound("lte"))
    }

    /// A value from a fixed vocabulary, reported on `name` when it is not one of them.
    pub fn parsed<T: std::str::FromStr>(&self, name: &str, errors: &mut FieldErrors) -> Option<T>
    where
        T::Err: std::fmt::Display,
    {
        match self.get(name)?.parse() {
            Ok(value) => Some(value),
            Err(e) => {
                errors.add(name, e.to_string());
                None
            }
        }
    }

    /// Every value of `name` (as [`QueryParams::list`] reads them) parsed as `T`; each
    /// value that is not one is reported on `name`.
    pub fn parsed_list<T: std::str::FromStr>(
        &self,
        name: &str,
        errors: &mut FieldErrors,
    ) -> Option<Vec<T>>
    where
        T::Err: std::fmt::Display,
    {
        let values = self.list(name)?;
        let mut parsed = Vec::with_capacity(values.len());
        for value in values {
            match value.parse() {
                Ok(v) => parsed.push(v),
                Err(e) => errors.add(name, format!("`{value}`: {e}")),
            }
        }
        Some(parsed)
    }

    pub fn pairs(&self) -> &[(String, String)] {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_bounds_and_errors() {
        let q = QueryParams::parse(Some(
            "ids=1,2&ids=3&created_on_gte=2026-01-01&updated_on.lte=nope&q=+a+",
        ));
        let mut errors = FieldErrors::new();
        assert_eq!(q.id_list("ids", &mut errors), Some(vec![1, 2, 3]));
        assert_eq!(q.get("q"), Some("a"));
        let (gte, lte) = q.time_range("created_on", &mut errors);
        assert_eq!(gte, Timestamp::parse("2026-01-01"));
        assert_eq!(lte, None);
        assert!(errors.is_empty());
        q.time_range("updated_on", &mut errors);
        assert!(errors.has("updated_on.lte"));
        let bad = QueryParams::parse(Some("ids=1,x"));
        assert_eq!(bad.id_list("ids", &mut errors), None);
        assert!(errors.has("ids"));
    }

    #[test]
    fn numbers_keep_to_their_ranges() {
        let q = QueryParams::parse(Some(
            "a=0&b=9223372036854775807&c=9223372036854775808&price.gte=-1&price_lte=1000000000000001\
             &quantity=5&updated_on.gte=9999-12-31T23:59:59-00:01&created_on.lte=9999-12-31",
        ));
        let mut errors = FieldErrors::new();
        assert_eq!(q.id_list("a", &mut errors), None);
        assert_eq!(q.id_list("b", &mut errors), Some(vec![i64::MAX]));
        assert_eq!(q.id_list("c", &mut errors), None);
        assert_eq!(
            q.int_range("price", limits::AMOUNT, &mut errors),
            (None, None)
        );
        assert_eq!(
            q.bounded("quantity", limits::QUANTITY, &mut errors),
            Some(5)
        );
        let (_, lte) = q.time_range("created_on", &mut errors);
        assert_eq!(lte, Some(Timestamp::MAX));
        q.time_range("updated_on", &mut errors);
        let fields: Vec<&str> = errors.errors().iter().map(|e| e.field.as_str()).collect();
        assert_eq!(
            fields,
            ["a", "c", "price.gte", "price.lte", "updated_on.gte"]
        );
    }

    #[test]
    fn the_guard_names_every_parameter_with_control_characters() {
        assert!(control_characters(Some("q=caf%C3%A9&sku=a+b&x=%E2%80%AE")).is_ok());
        let errors = control_characters(Some(
            "q=a%00b&sku=%0A&ok=1&tags=%C2%85&tags=%09&%7Fname=1&q=%01",
        ))
        .unwrap_err();
        let fields: Vec<&str> = errors.errors().iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, ["q", "sku", "tags", "\\u{7f}name"]);
    }
}
