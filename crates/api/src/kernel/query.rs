//! Query-string parameters as the API reads them: repeated or comma-separated lists,
//! dotted and underscored range suffixes, and errors collected per field.

use domain::{FieldErrors, Timestamp};

/// The decoded `name=value` pairs of a query string.
#[derive(Clone, Debug, Default)]
pub struct QueryParams(Vec<(String, String)>);

impl QueryParams {
    /// Decodes the pairs. NUL characters are dropped: no value may carry one, and
    /// PostgreSQL refuses them in text.
    pub fn parse(query: Option<&str>) -> Self {
        let clean = |s: std::borrow::Cow<'_, str>| -> String {
            if s.contains('\0') {
                s.replace('\0', "")
            } else {
                s.into_owned()
            }
        };
        Self(
            form_urlencoded::parse(query.unwrap_or("").as_bytes())
                .map(|(k, v)| (clean(k), clean(v)))
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

    /// A list of integer ids; a non-integer is reported on `name`.
    pub fn id_list(&self, name: &str, errors: &mut FieldErrors) -> Option<Vec<i64>> {
        let values = self.list(name)?;
        let mut ids = Vec::with_capacity(values.len());
        for value in values {
            match value.parse::<i64>() {
                Ok(id) => ids.push(id),
                Err(_) => {
                    errors.add(
                        name,
                        format!("must be a comma-separated list of integers (`{value}` is not)"),
                    );
                    return None;
                }
            }
        }
        Some(ids)
    }

    /// `{field}.gte` and `{field}.lte` as timestamps (RFC 3339 or `YYYY-MM-DD`).
    pub fn time_range(&self, field: &str, errors: &mut FieldErrors) -> (Option<i64>, Option<i64>) {
        let mut bound = |which: &str| {
            let (name, value) = self.get_bound(field, which)?;
            match Timestamp::parse(value) {
                Some(t) => Some(t.as_micros()),
                None => {
                    errors.add(name, "must be an RFC 3339 date-time or a YYYY-MM-DD date");
                    None
                }
            }
        };
        let gte = bound("gte");
        // A bare date as an upper bound means "up to the end of that day".
        let lte = bound("lte").map(|t| {
            let is_date = self
                .get_bound(field, "lte")
                .is_some_and(|(_, v)| v.len() == 10);
            if is_date { t + 86_400_000_000 - 1 } else { t }
        });
        (gte, lte)
    }

    /// `{field}.gte` and `{field}.lte` as integers (amounts in minor units).
    pub fn int_range(&self, field: &str, errors: &mut FieldErrors) -> (Option<i64>, Option<i64>) {
        let mut bound = |which: &str| {
            let (name, value) = self.get_bound(field, which)?;
            match value.parse::<i64>() {
                Ok(v) => Some(v),
                Err(_) => {
                    errors.add(name, "must be an integer");
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
        assert_eq!(
            gte,
            Timestamp::parse("2026-01-01").map(Timestamp::as_micros)
        );
        assert_eq!(lte, None);
        assert!(errors.is_empty());
        q.time_range("updated_on", &mut errors);
        assert!(errors.has("updated_on.lte"));
        let bad = QueryParams::parse(Some("ids=1,x"));
        assert_eq!(bad.id_list("ids", &mut errors), None);
        assert!(errors.has("ids"));
    }
}
