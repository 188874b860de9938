//! Which products a list shows: the scope a token sees (its account, or the public
//! catalog of named shops) and the filters of the request, as SQL conditions.

use domain::catalog::product::ProductStatus;

use crate::Tenant;
use crate::db::Backend;
use crate::sql::{Arg, Direction, Filter, Params, Source};

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
    /// Driven by the search index in id order, so that a count stops after the rows it
    /// needs and a page by id at its end, however many match: SQLite's full-text index
    /// yields matches by rowid (`CROSS JOIN` fixes that order of the join); PostgreSQL
    /// walks each indexed word within the driving word's prefix in product order, up to
    /// the `first` matches in `direction` (SQLite's query orders and limits itself).
    FromIndex { first: u64, direction: Direction },
    /// Rows walked in the order of a sort's index, each looked up among the matches, for a
    /// page of many matches sorted otherwise: it fills at once. SQLite gathers the
    /// matches' ids once (the `+` keeps it from driving the query from them); PostgreSQL
    /// looks each row's words up by product.
    InSortOrder,
}

/// The source and conditions of a list: `base` (from `conditions` for `scope`) with the
/// search words met as `how` says.
pub(crate) fn searching(
    backend: Backend,
    scope: &CatalogScope,
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
                Search::FromIndex { .. } => {
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
            match how {
                Search::FromIndex { first, direction } => {
                    // A whole account's words are its products': with nothing else to
                    // meet, the walk reads the words index alone, no product row.
                    let whole_account =
                        matches!(scope, CatalogScope::Tenant(t) if t.seller_id.is_none());
                    let unfiltered = filter.status.is_none()
                        && ProductFilter {
                            words: None,
                            ..filter.clone()
                        }
                        .total()
                            == Total::Counts;
                    if whole_account && unfiltered {
                        f = Filter::new();
                    }
                    word_walk(&mut f, &accounts(scope), words, first, direction);
                }
                Search::InSortOrder => {
                    for word in words {
                        f.condition(|p| has_word("products.id", word, p));
                    }
                }
            }
            (Source::table("products"), f)
        }
    }
}

/// The accounts whose products a scope sees, ascending.
fn accounts(scope: &CatalogScope) -> Vec<i64> {
    let mut accounts: Vec<i64> = match scope {
        CatalogScope::Tenant(tenant) => vec![tenant.account_id],
        CatalogScope::Public(shops) => shops.iter().map(|s| s.account_id).collect(),
    };
    accounts.sort_unstable();
    accounts.dedup();
    accounts
}

/// `column` begins with `prefix`: a range of the bytewise (`COLLATE "C"`) order.
fn prefix_range(column: &str, prefix: &str, p: &mut Params) -> String {
    let from = p.bind(Arg::Text(prefix.to_owned()));
    match prefix_end(prefix) {
        Some(end) => format!(
            "{column} >= {from} AND {column} < {}",
            p.bind(Arg::Text(end))
        ),
        None => format!("{column} >= {from}"),
    }
}

/// The least string above every string that begins with `prefix`, in code point order
/// (UTF-8's byte order): the prefix with its last character that has a successor
/// advanced and what follows dropped; `None` when every character is the last one.
pub(crate) fn prefix_end(prefix: &str) -> Option<String> {
    let mut chars: Vec<char> = prefix.chars().collect();
    while let Some(last) = chars.pop() {
        // Surrogates are no characters: past U+D7FF comes U+E000.
        let next = match u32::from(last) + 1 {
            0xD800 => Some('\u{E000}'),
            n => char::from_u32(n),
        };
        if let Some(next) = next {
            chars.push(next);
            return Some(chars.into_iter().collect());
        }
    }
    None
}

/// The product (of the query's `products`) has a word beginning with `prefix`: one range
/// of the words index by product.
fn has_word(product_id: &str, prefix: &str, p: &mut Params) -> String {
    format!(
        "EXISTS (SELECT 1 FROM product_words pw WHERE pw.product_id = {product_id} AND {})",
        prefix_range("pw.word", prefix, p)
    )
}

/// Replaces the conditions of `f` with `id IN` the first `first` products, in id order
/// (`direction`), of `accounts` that meet them and have every word. The longest word
/// (likely the rarest) drives: the distinct indexed words it begins are found one index
/// descent each, and each word's products are walked in product order, checked against
/// the conditions (a product row each, when `f` has any) and the other words (an index
/// range each), and stopped after `first`; the first `first` of
/// their union are the answer, for each of them is among the first `first` of every
/// word it has. The work is bounded by the page or the count, not by the matches.
fn word_walk(f: &mut Filter, accounts: &[i64], words: &[String], first: u64, direction: Direction) {
    if accounts.is_empty() {
        f.condition(|_| "FALSE".to_owned());
        return;
    }
    let driver = words
        .iter()
        .enumerate()
        .max_by_key(|(i, w)| (w.chars().count(), std::cmp::Reverse(*i)))
        .map_or(0, |(i, _)| i);
    let dir = direction.sql();
    let product_checked = !f.is_empty();
    f.nest(|conditions, p| {
        let mut checks = String::new();
        if product_checked {
            checks = format!(
                " AND EXISTS (SELECT 1 FROM products WHERE products.id = w.product_id AND {conditions})"
            );
        }
        for (i, word) in words.iter().enumerate() {
            if i != driver {
                checks.push_str(" AND ");
                checks.push_str(&has_word("w.product_id", word, p));
            }
        }
        let accounts: Vec<String> = accounts
            .iter()
            .map(|&a| format!("({})", p.bind(Arg::Int(a))))
            .collect();
        let prefix = &words[driver];
        let from = p.bind(Arg::Text(prefix.clone()));
        let below = prefix_end(prefix)
            .map(|end| format!(" AND w.word < {}", p.bind(Arg::Text(end))))
            .unwrap_or_default();
        format!(
            "id IN (WITH RECURSIVE found (account_id, word) AS (\
             SELECT a.account_id, (SELECT w.word FROM product_words w WHERE w.account_id = a.account_id \
             AND w.word >= {from}{below} ORDER BY w.word LIMIT 1) FROM (VALUES {}) a (account_id) \
             UNION ALL SELECT found.account_id, (SELECT w.word FROM product_words w \
             WHERE w.account_id = found.account_id AND w.word > found.word{below} ORDER BY w.word LIMIT 1) \
             FROM found WHERE found.word IS NOT NULL) \
             SELECT DISTINCT m.product_id FROM found CROSS JOIN LATERAL (SELECT w.product_id \
             FROM product_words w WHERE w.account_id = found.account_id AND w.word = found.word{checks} \
             ORDER BY w.product_id {dir} LIMIT {first}) m ORDER BY m.product_id {dir} LIMIT {first})",
            accounts.join(", ")
        )
    });
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
        let scope = CatalogScope::Public(shops);
        let filter = ProductFilter {
            words: Some(vec!["red".into(), "shirt".into()]),
            ..ProductFilter::default()
        };
        let base = conditions(&scope, &filter);
        let (source, f) = searching(
            Backend::Postgres,
            &scope,
            &base,
            &filter,
            Search::InSortOrder,
        );
        assert_eq!(source, Source::table("products"));
        assert_eq!(
            f.where_sql(),
            " WHERE status = $1 AND ((all_shops = TRUE AND seller_id IN ($2)) OR id IN (SELECT product_id \
             FROM product_shops WHERE shop_id IN ($3, $4))) AND EXISTS (SELECT 1 FROM product_words pw \
             WHERE pw.product_id = products.id AND pw.word >= $5 AND pw.word < $6) AND EXISTS (SELECT 1 \
             FROM product_words pw WHERE pw.product_id = products.id AND pw.word >= $7 AND pw.word < $8)"
        );
        assert_eq!(
            f.args()[4..],
            ["red", "ree", "shirt", "shiru"].map(|w| Arg::Text(w.into()))
        );
    }

    #[test]
    fn postgres_walks_the_longest_words_products_in_id_order() {
        let scope = CatalogScope::Tenant(Tenant {
            account_id: 4,
            seller_id: Some(9),
        });
        let filter = ProductFilter {
            words: Some(vec!["red".into(), "shirt".into(), "m".into()]),
            ..ProductFilter::default()
        };
        let base = conditions(&scope, &filter);
        let how = Search::FromIndex {
            first: 21,
            direction: Direction::Desc,
        };
        let (_, f) = searching(Backend::Postgres, &scope, &base, &filter, how);
        let sql = f.where_sql();
        // The seller's conditions and the other words are checked inside the walk.
        assert!(
            sql.starts_with(" WHERE id IN (WITH RECURSIVE found"),
            "{sql}"
        );
        assert!(sql.contains(
            "w.word = found.word AND EXISTS (SELECT 1 FROM products WHERE products.id = w.product_id \
             AND account_id = $1 AND seller_id = $2) AND EXISTS (SELECT 1 FROM product_words pw \
             WHERE pw.product_id = w.product_id AND pw.word >= $3 AND pw.word < $4) AND EXISTS \
             (SELECT 1 FROM product_words pw WHERE pw.product_id = w.product_id AND pw.word >= $5 \
             AND pw.word < $6) ORDER BY"
        ), "{sql}");
        assert!(sql.contains("FROM (VALUES ($7)) a (account_id)"), "{sql}");
        assert!(sql.contains("w.word >= $8 AND w.word < $9 ORDER BY w.word LIMIT 1"));
        assert!(sql.contains("w.word > found.word AND w.word < $9 ORDER BY w.word LIMIT 1"));
        assert!(sql.ends_with(
            "ORDER BY w.product_id DESC LIMIT 21) m ORDER BY m.product_id DESC LIMIT 21)"
        ));
        assert_eq!(f.args()[..2], [Arg::Int(4), Arg::Int(9)]);
        assert_eq!(
            f.args()[2..6],
            ["red", "ree", "m", "n"].map(|w| Arg::Text(w.into()))
        );
        assert_eq!(f.args()[6], Arg::Int(4));
        assert_eq!(
            f.args()[7..],
            ["shirt", "shiru"].map(|w| Arg::Text(w.into()))
        );
        // A whole account's words are its products': nothing else to check, no row read.
        let scope = CatalogScope::Tenant(Tenant {
            account_id: 4,
            seller_id: None,
        });
        let base = conditions(&scope, &filter);
        let (_, f) = searching(Backend::Postgres, &scope, &base, &filter, how);
        assert!(
            !f.where_sql().contains("FROM products"),
            "{}",
            f.where_sql()
        );
        assert_eq!(f.args()[4], Arg::Int(4));
        let hidden = ProductFilter {
            status: Some(ProductStatus::Hidden),
            ..filter.clone()
        };
        let base = conditions(&scope, &hidden);
        let (_, f) = searching(Backend::Postgres, &scope, &base, &hidden, how);
        assert!(
            f.where_sql()
                .contains("AND account_id = $1 AND status = $2)")
        );
    }

    #[test]
    fn a_public_scope_without_shops_finds_nothing() {
        let scope = CatalogScope::Public(Vec::new());
        let filter = ProductFilter {
            words: Some(vec!["red".into()]),
            ..ProductFilter::default()
        };
        let base = conditions(&scope, &filter);
        let how = Search::FromIndex {
            first: 1,
            direction: Direction::Asc,
        };
        let (_, f) = searching(Backend::Postgres, &scope, &base, &filter, how);
        assert!(f.where_sql().ends_with(" AND FALSE"));
    }

    #[test]
    fn a_prefix_ends_before_the_next_one() {
        assert_eq!(prefix_end("lamp").as_deref(), Some("lamq"));
        assert_eq!(prefix_end("z").as_deref(), Some("{"));
        assert_eq!(prefix_end("ñu").as_deref(), Some("ñv"));
        assert_eq!(prefix_end("a\u{D7FF}").as_deref(), Some("a\u{E000}"));
        // The last character has no successor: the one before it advances.
        assert_eq!(prefix_end("a\u{10FFFF}").as_deref(), Some("b"));
        assert_eq!(prefix_end("\u{10FFFF}\u{10FFFF}"), None);
        assert_eq!(prefix_end(""), None);
        // Every word with the prefix lies in the range, in bytewise order, and none else.
        for prefix in ["lamp", "ñu", "a\u{10FFFF}", "\u{7FF}", "\u{FFFF}"] {
            let end = prefix_end(prefix).unwrap();
            for word in [
                prefix.to_owned(),
                format!("{prefix}\u{10FFFF}"),
                format!("{prefix}z"),
            ] {
                assert!(word.as_bytes() >= prefix.as_bytes() && word.as_bytes() < end.as_bytes());
            }
            assert!(end.as_bytes() > prefix.as_bytes());
            assert!(!end.starts_with(prefix));
        }
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
        let from_index = Search::FromIndex {
            first: 20,
            direction: Direction::Asc,
        };
        for how in [from_index, Search::InSortOrder] {
            let (_, f) = searching(Backend::Sqlite, &tenant, &base, &filter, how);
            assert_eq!(f.args()[1], Arg::Text("\"and\"* AND \"ñu\"*".into()));
        }
        let (source, f) = searching(
            Backend::Sqlite,
            &tenant,
            &base,
            &filter,
            Search::InSortOrder,
        );
        assert_eq!(source, Source::table("products"));
        assert!(f.where_sql().ends_with(
            "AND +id IN (SELECT rowid FROM product_search WHERE product_search MATCH $2)"
        ));
        assert_eq!(ProductFilter::default().total(), Total::Counts);
    }
}
