//! Lists: `page`/`per_page` limits, `sort=field.asc|field.desc` over a whitelist, and the
//! envelope with page links that keep the request's filters.

use domain::FieldErrors;
use domain::limits::IntRange;
use hal::{ListPage, Resource, TotalItems, list_resource};
use storage::sql::{Direction, ListTotal, Sort, Window};

use super::error::ApiResult;
use super::hal_response::Hal;
use super::query::QueryParams;
use crate::kernel::state::AppState;

/// `per_page`: 1 to 200.
pub const PER_PAGE: IntRange = IntRange::new(1, 200);
/// `page`: up to a billion, so that the offset, (page − 1) × per_page, stays below
/// 2 × 10^11, far inside the 64-bit integers both backends take (a billion pages is
/// more than any list holds: the last page of a list is always reachable).
pub const PAGE: IntRange = IntRange::new(1, 1_000_000_000);

/// What one list accepts.
#[derive(Debug)]
pub struct ListSpec {
    /// `_class` name of the list, e.g. `shops`.
    pub name: &'static str,
    pub default_per_page: u64,
    pub sort_fields: &'static [&'static str],
    pub default_sort: (&'static str, Direction),
    /// Filter parameters in the order the templated link declares them; range filters
    /// appear as `created_on.gte` and `created_on.lte`.
    pub filters: &'static [&'static str],
}

impl ListSpec {
    /// Reads a request to this list whole: paging, sorting, and the filter `filter` reads
    /// from the parameters. Every problem is answered at once, as one 422.
    pub fn read<F>(
        &'static self,
        query: Option<&str>,
        filter: impl FnOnce(&QueryParams, &mut FieldErrors) -> F,
    ) -> ApiResult<(ListRequest, F)> {
        let (request, mut errors) = self.begin(query);
        let filter = filter(&request.params, &mut errors);
        errors.into_result()?;
        Ok((request, filter))
    }

    /// The first step of [`ListSpec::read`], for a list whose filter needs a lookup before
    /// it is complete: the caller reports `errors` once its filter is read.
    pub fn begin(&'static self, query: Option<&str>) -> (ListRequest, FieldErrors) {
        let mut errors = FieldErrors::new();
        let request = ListRequest::parse(self, QueryParams::parse(query), &mut errors);
        (request, errors)
    }

    /// Every parameter a client may send, for the templated link.
    pub fn template_params(&self) -> Vec<&'static str> {
        let mut params = self.filters.to_vec();
        params.extend(["sort", "page", "per_page"]);
        params
    }
}

/// The paging and sorting of one list request, plus its raw parameters for filters.
#[derive(Debug)]
pub struct ListRequest {
    spec: &'static ListSpec,
    pub page: u64,
    pub per_page: u64,
    pub sort: Sort,
    sort_param: Option<String>,
    per_page_given: bool,
    pub params: QueryParams,
}

impl ListRequest {
    /// Reads `page`, `per_page` and `sort`, recording problems in `errors`.
    fn parse(spec: &'static ListSpec, params: QueryParams, errors: &mut FieldErrors) -> Self {
        let page = params
            .bounded("page", PAGE, errors)
            .map_or(1, i64::unsigned_abs);
        let per_page = params
            .bounded("per_page", PER_PAGE, errors)
            .map_or(spec.default_per_page, i64::unsigned_abs);
        let (default_field, default_direction) = spec.default_sort;
        let mut sort = Sort {
            column: column_of(spec, default_field),
            direction: default_direction,
        };
        let sort_param = params.get("sort").map(str::to_owned);
        if let Some(raw) = &sort_param {
            match parse_sort(spec, raw) {
                Some(parsed) => sort = parsed,
                None => errors.add(
                    "sort",
                    format!(
                        "must be one of {} followed by .asc or .desc",
                        spec.sort_fields.join(", ")
                    ),
                ),
            }
        }
        let per_page_given = params.get("per_page").is_some();
        Self {
            spec,
            page,
            per_page,
            sort,
            sort_param,
            per_page_given,
            params,
        }
    }

    /// The rows of the page; `PAGE` and `PER_PAGE` keep the offset small.
    pub fn window(&self) -> Window {
        Window {
            limit: self.per_page,
            offset: self.page.saturating_sub(1).saturating_mul(self.per_page),
        }
    }

    /// A page of `rows` out of `total` (a count, or a [`TotalItems`] that may be a bound)
    /// as the response, each row rendered by `render`. Its `Last-Modified` is now:
    /// membership can change without any listed item changing, so only the ETag (a digest
    /// of the page) tells a client that the page is unchanged.
    pub fn respond<T>(
        &self,
        state: &AppState,
        path: &str,
        (rows, total): (Vec<T>, impl Into<TotalItems>),
        render: impl FnMut(&T) -> Resource,
    ) -> Hal {
        let items = rows.iter().map(render).collect();
        let doc = self
            .envelope(&state.urls.api(path), total.into(), items)
            .into_json(state.urls.curies());
        Hal::ok(doc, state.clock.now())
    }

    /// The list resource with `self`/`first`/`last`/`prev`/`next` links that keep the
    /// request's filters.
    fn envelope(&self, href: &str, total: TotalItems, items: Vec<Resource>) -> Resource {
        let spec = self.spec;
        let kept: Vec<(String, String)> = spec
            .filters
            .iter()
            .filter_map(|name| {
                let value = match name.rsplit_once('.') {
                    Some((field, bound @ ("gte" | "lte"))) => self
                        .params
                        .get_bound(field, bound)
                        .map(|(_, v)| v.to_owned()),
                    _ => self.params.list(name).map(|values| values.join(",")),
                };
                value.map(|v| ((*name).to_owned(), v))
            })
            .collect();
        let page = ListPage {
            page: self.page,
            per_page: self.per_page,
            total_items: total,
        };
        list_resource(spec.name, page, items, |n| {
            let mut query = form_urlencoded::Serializer::new(String::new());
            for (name, value) in &kept {
                query.append_pair(name, value);
            }
            if let Some(sort) = &self.sort_param {
                query.append_pair("sort", sort);
            }
            if self.per_page_given {
                query.append_pair("per_page", &self.per_page.to_string());
            }
            query.append_pair("page", &n.to_string());
            format!("{href}?{}", query.finish())
        })
    }
}

/// A total as storage counted it, for the envelope.
pub fn total_items(total: ListTotal) -> TotalItems {
    match total {
        ListTotal::Exact(n) => TotalItems::Exact(n),
        ListTotal::MoreThan(n) => TotalItems::MoreThan(n),
    }
}

fn column_of(spec: &ListSpec, field: &str) -> &'static str {
    spec.sort_fields
        .iter()
        .copied()
        .find(|f| *f == field)
        .expect("a list's default sort field is one of its sort fields")
}

/// `field.asc`, `field.desc` or a bare `field` (ascending).
fn parse_sort(spec: &ListSpec, raw: &str) -> Option<Sort> {
    let (field, direction) = match raw.rsplit_once('.') {
        Some((field, "asc")) => (field, Direction::Asc),
        Some((field, "desc")) => (field, Direction::Desc),
        Some(_) => return None,
        None => (raw, Direction::Asc),
    };
    let column = spec.sort_fields.iter().copied().find(|f| *f == field)?;
    Some(Sort { column, direction })
}

#[cfg(test)]
mod tests {
    use super::*;

    static SPEC: ListSpec = ListSpec {
        name: "things",
        default_per_page: 20,
        sort_fields: &["id", "name"],
        default_sort: ("id", Direction::Asc),
        filters: &["q", "ids", "created_on.gte", "created_on.lte"],
    };

    fn parse(query: &str) -> (ListRequest, FieldErrors) {
        SPEC.begin(Some(query))
    }

    #[test]
    fn limits_and_sort() {
        for bad in ["per_page=0", "per_page=201", "per_page=x", "per_page=%2B5"] {
            assert!(parse(bad).1.has("per_page"), "{bad}");
        }
        for bad in [
            "page=0",
            "page=-1",
            "page=1000000001",
            "page=9223372036854775807",
        ] {
            assert!(parse(bad).1.has("page"), "{bad}");
        }
        let (last, errors) = parse("page=1000000000&per_page=200");
        assert!(errors.is_empty());
        assert_eq!(last.window().offset, 199_999_999_800);
        assert!(parse("sort=price.desc").1.has("sort"));
        assert!(parse("sort=name.up").1.has("sort"));
        let (req, errors) = parse("sort=name.desc&per_page=200&page=3");
        assert!(errors.is_empty());
        assert_eq!(
            req.sort,
            Sort {
                column: "name",
                direction: Direction::Desc
            }
        );
        assert_eq!(
            req.window(),
            Window {
                limit: 200,
                offset: 400
            }
        );
        assert_eq!(parse("").0.per_page, 20);
    }

    #[test]
    fn page_links_keep_filters() {
        let (req, _) =
            parse("q=a%20b&ids=1&ids=2&created_on_gte=2026-01-01&junk=1&per_page=2&page=2");
        let doc = req
            .envelope("https://x/v2/things", TotalItems::Exact(5), Vec::new())
            .into_value(&hal::Curies::new("/d"));
        assert_eq!(
            doc["_links"]["next"]["href"],
            "https://x/v2/things?q=a+b&ids=1%2C2&created_on.gte=2026-01-01&per_page=2&page=3"
        );
        assert_eq!(doc["_class"], serde_json::json!(["results", "things"]));
        assert_eq!(doc["total_items"], 5);
    }

    #[test]
    fn template_declares_paging_and_sort() {
        assert_eq!(
            SPEC.template_params(),
            [
                "q",
                "ids",
                "created_on.gte",
                "created_on.lte",
                "sort",
                "page",
                "per_page"
            ]
        );
    }
}
