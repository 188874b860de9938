//! Which products a list shows: the scope a token sees (its account, or the public
//! catalog of named shops) and the filters of the request, as SQL conditions.

use domain::catalog::product::ProductStatus;

use crate::Tenant;
use crate::db::Backend;
use crate::sql::{Arg, Filter, Params, Source};

/// A shop, with the seller (and account) whose catalog it shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct ShopRef {
    pub id: i64,
    pub seller_id: i64,
    pub account_id: i64,
}

/// Whose products a request sees.
#[derive(Clone, Debug)]
pub enum CatalogScope {
    /// Every product of the tenant's account (or seller), visible or hidden.
    Tenant(Tenant),
    /// The visible products available in these shops, whoever owns them.
    Public(Vec<ShopRef>),
}

#[derive(Clone, Debug, Default)]
pub struct ProductFilter {
    pub status: Option<ProductStatus>,
    /// Available in any of these shops.
    pub shops: Option<Vec<ShopRef>>,
    pub collection_ids: Option<Vec<i64>>,
    pub type_ids: Option<Vec<i64>>,
    /// Tag keys (lower case); a product with any of them matches.
    pub tags: Option<Vec<String>>,
    pub skus: Option<Vec<String>>,
    pub vendors: Option<Vec<String>>,
    pub price: (Option<i64>, Option<i64>),
    pub created_on: crate::sql::TimeRange,
    pub updated_on: crate::sql::TimeRange,
    /// Search words; each must begin a word of the product's search document.
    pub words: Option<Vec<String>>,
}

/// Where a list's total comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Total {
    /// The per-seller counts (nothing but the status narrows the list).
    Counts,
    /// The tag index alone (nothing but tags narrow the list).
    Tags,
    /// Counting the matching rows.
    Rows,
}

impl ProductFilter {
    /// The cheapest exact source of this filter's total within a tenant.
    pub(crate) fn total(&self) -> Total {
        let others = self.shops.is_none()
            && self.collection_ids.is_none()
            && self.type_ids.is_none()
            && self.skus.is_none()
            && self.vendors.is_none()
            && self.price == (None, None)
            && self.created_on == (None, None)
            && self.updated_on == (None, None)
            && self.words.is_none();
        match (others, &self.tags, self.status) {
            (true, None, _) => Total::Counts,
            (true, Some(_), None) => Total::Tags,
            _ => Total::Rows,
        }
    }
}

/// The conditions of `scope` and `filter` on the `products` table, but the search words
/// (see `searching`).
pub(crate) fn conditions(scope: &CatalogScope, filter: &ProductFilter) -> Filter {
    let mut f = Filter::new();
    match scope {
        CatalogScope::Tenant(tenant) => {
            f.eq("account_id", Arg::Int(tenant.account_id))
                .eq_opt("seller_id", tenant.seller_id.map(Arg::Int));
        }
        CatalogScope::Public(shops) => {
            f.eq("status", Arg::Text(ProductStatus::Visible.as_str().into()));
            available_in(&mut f, shops);
        }
    }
    if let Some(status) = filter.status {
        f.eq("status", Arg::Text(status.as_str().into()));
    }
    if let Some(shops) = &filter.shops {
        available_in(&mut f, shops);
    }
    if let Some(ids) = &filter.collection_ids {
        f.condition(|b| {
            format!(
                "id IN (SELECT product_id FROM collection_products WHERE collection_id IN ({}))",
                b.bind_all(ids.iter().copied().map(Arg::Int))
            )
        });
    }
    if let Some(ids) = &filter.type_ids {
        f.any_of("product_type_id", ids.iter().copied().map(Arg::Int));
    }
    if let Some(tags) = &filter.tags {
        f.condition(|p| format!("id IN ({})", tagged(scope, tags, p)));
    }
    if let Some(skus) = &filter.skus {
        f.condition(|b| {
            format!(
                "id IN (SELECT product_id FROM variants WHERE sku IN ({}))",
                b.bind_all(skus.iter().cloned().map(Arg::Text))
            )
        });
    }
    if let Some(vendors) = &filter.vendors {
        f.any_of("vendor", vendors.iter().cloned().map(Arg::Text));
    }
    f.range("price", filter.price.0, filter.price.1)
        .range("created_on", filter.created_on.0, filter.created_on.1)
        .range("updated_on", filter.updated_on.0, filter.updated_on.1);
    f
}

/// The ids of the scope's products with any of `tags`, from the tag index alone.
pub(crate) fn tagged(scope: &CatalogScope, tags: &[String], p: &mut Params) -> String {
    let owners = match scope {
        CatalogScope::Tenant(tenant) => {
            let mut owners = format!("account_id = {}", p.bind(Arg::Int(tenant.account_id)));
            if let Some(seller) = tenant.seller_id {
                owners.push_str(&format!(" AND seller_id = {}", p.bind(Arg::Int(seller))));
            }
            owners
        }
        CatalogScope::Public(shops) => {
            let mut accounts: Vec<i64> = shops.iter().map(|s| s.account_id).collect();
            accounts.sort_unstable();
            accounts.dedup();
            format!(
                "account_id IN ({})",
                p.bind_all(accounts.into_iter().map(Arg::Int))
            )
        }
    };
    format!(
        "SELECT product_id FROM product_tags WHERE {owners} AND tag_key IN ({})",
        p.bind_all(tags.iter().cloned().map(Arg::Text))
    )
}

/// Available in one of `shops`: in every shop of its seller, or in one it was put in.
fn available_in(f: &mut Filter, shops: &[ShopRef]) {
    let mut sellers: Vec<i64> = shops.iter().map(|s| s.seller_id).collect();
    sellers.sort_unstable();
    sellers.dedup();
    f.condition(|b| {
        format!(
            "((all_shops = TRUE AND seller_id IN ({})) OR id IN (SELECT product_id FROM product_shops \
             WHERE shop_id IN ({})))",
            b.bind_all(sellers.into_iter().map(Arg::Int)),
            b.bind_all(shops.iter().map(|s| Arg::Int(s.id)))
        )
    });
}

/// How a list meets its search words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Search {
    /// Driven by the full-text index: SQLite's yields matches in id order, so a count
    /// stops after the rows it needs and a page by id at its end, however many match
    /// (`CROSS JOIN` fixes that order of the join).
    FromIndex,
    /// Rows walked in the order of a sort's index, each looked up among the matches, for a
    /// page of many matches sorted otherwise: it fills at once. SQLite gathers the
    /// matches' ids once (the `+` keeps it from driving the query from them).
    InSortOrder,
}

/// The source and conditions of a list: `base` (from `conditions`) with the search words
/// met as `how` says. PostgreSQL's GIN index yields no order, so both ways are one
/// condition there, which its planner combines with the other indexes.
pub(crate) fn searching(
    backend: Backend,
    base: &Filter,
    filter: &ProductFilter,
    how: Search,
) -> (Source, Filter) {
    let mut f = base.clone();
    let Some(words) = &filter.words else {
        return (Source::table("products"), f);
    };
    match backend {
        Backend::Sqlite => {
            // Words are letters and digits only (`domain::catalog::search`), so they need no
            // escaping beyond FTS5's quotes.
            let query: Vec<String> = words.iter().map(|w| format!("\"{w}\"*")).collect();
            let query = Arg::Text(query.join(" AND "));
            match how {
                Search::FromIndex => {
                    f.condition(|b| {
                        format!(
                            "product_search MATCH {} AND products.id = product_search.rowid",
                            b.bind(query)
                        )
                    });
                    let source = Source {
                        from: "product_search CROSS JOIN products",
                        id_order: "product_search.rowid",
                    };
                    (source, f)
                }
                Search::InSortOrder => {
                    f.condition(|b| {
                        format!(
                            "+id IN (SELECT rowid FROM product_search WHERE product_search MATCH {})",
                            b.bind(query)
                        )
                    });
                    (Source::table("products"), f)
                }
            }
        }
        Backend::Postgres => {
            let query: Vec<String> = words.iter().map(|w| format!("{w}:*")).collect();
            f.condition(|b| {
                format!(
                    "search_vector @@ to_tsquery('simple', {})",
                    b.bind(Arg::Text(query.join(" & ")))
                )
            });
            (Source::table("products"), f)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn public_scope_sees_visible_products_of_its_shops() {
        let shops = vec![
            ShopRef {
                id: 7,
                seller_id: 3,
                account_id: 1,
            },
            ShopRef {
                id: 8,
                seller_id: 3,
                account_id: 1,
            },
        ];
        let filter = ProductFilter {
            words: Some(vec!["red".into(), "shirt".into()]),
            ..ProductFilter::default()
        };
        let base = conditions(&CatalogScope::Public(shops), &filter);
        let (source, f) = searching(Backend::Postgres, &base, &filter, Search::FromIndex);
        assert_eq!(source, Source::table("products"));
        assert_eq!(
            f.where_sql(),
            " WHERE status = $1 AND ((all_shops = TRUE AND seller_id IN ($2)) OR id IN (SELECT product_id \
             FROM product_shops WHERE shop_id IN ($3, $4))) AND search_vector @@ to_tsquery('simple', $5)"
        );
        assert_eq!(f.args()[4], Arg::Text("red:* & shirt:*".into()));
    }

    #[test]
    fn sqlite_search_quotes_each_word() {
        let filter = ProductFilter {
            words: Some(vec!["and".into(), "ñu".into()]),
            ..ProductFilter::default()
        };
        let tenant = CatalogScope::Tenant(Tenant {
            account_id: 1,
            seller_id: None,
        });
        let base = conditions(&tenant, &filter);
        for how in [Search::FromIndex, Search::InSortOrder] {
            let (_, f) = searching(Backend::Sqlite, &base, &filter, how);
            assert_eq!(f.args()[1], Arg::Text("\"and\"* AND \"ñu\"*".into()));
        }
        let (source, f) = searching(Backend::Sqlite, &base, &filter, Search::InSortOrder);
        assert_eq!(source, Source::table("products"));
        assert!(f.where_sql().ends_with(
            "AND +id IN (SELECT rowid FROM product_search WHERE product_search MATCH $2)"
        ));
        assert_eq!(ProductFilter::default().total(), Total::Counts);
    }
}
