//! Dynamic SQL for lists, shared by every area: filters with bound arguments, sorting
//! by whitelisted columns with an id tie-breaker, and offset pages. Column names come only
//! from `&'static str` whitelists; every value is a bound argument.

use std::fmt::Write as _;

use domain::{CalendarDate, Timestamp};
use sqlx::query::{Query, QueryAs, QueryScalar};
use sqlx::{Database as SqlxDatabase, Encode, Type};

/// A bound argument.
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    Int(i64),
    Text(String),
    /// A nullable integer column's value.
    MaybeInt(Option<i64>),
    /// A nullable text column's value.
    MaybeText(Option<String>),
    Bool(bool),
    Bytes(Vec<u8>),
    /// A nullable binary column's value.
    MaybeBytes(Option<Vec<u8>>),
}

/// `From` conversions, so that a column's value is written as it is: `Arg::from(x)`.
macro_rules! arg_from {
    ($($ty:ty => |$v:ident| $arg:expr;)*) => {
        $(impl From<$ty> for Arg {
            fn from($v: $ty) -> Self {
                $arg
            }
        })*
    };
}

arg_from! {
    i64 => |v| Arg::Int(v);
    Option<i64> => |v| Arg::MaybeInt(v);
    // Time is bound as the BIGINT microseconds it is stored as.
    Timestamp => |v| Arg::Int(v.as_micros());
    Option<Timestamp> => |v| Arg::MaybeInt(v.map(Timestamp::as_micros));
    // Dates are bound as the YYYY-MM-DD text they are stored as.
    CalendarDate => |v| Arg::Text(v.to_string());
    Option<CalendarDate> => |v| Arg::MaybeText(v.map(|d| d.to_string()));
    String => |v| Arg::Text(v);
    &String => |v| Arg::Text(v.clone());
    &str => |v| Arg::Text(v.to_owned());
    Option<String> => |v| Arg::MaybeText(v);
    &Option<String> => |v| Arg::MaybeText(v.clone());
    Option<&str> => |v| Arg::MaybeText(v.map(str::to_owned));
    bool => |v| Arg::Bool(v);
    &[u8] => |v| Arg::Bytes(v.to_vec());
    &Vec<u8> => |v| Arg::Bytes(v.clone());
    Option<&[u8]> => |v| Arg::MaybeBytes(v.map(<[u8]>::to_vec));
    Option<Vec<u8>> => |v| Arg::MaybeBytes(v);
}

/// Inclusive bounds of a time filter; `None` leaves a side open.
pub type TimeRange = (Option<Timestamp>, Option<Timestamp>);

/// Values bound to a statement, numbered `$1…` in the order they are bound.
#[derive(Clone, Debug, Default)]
pub struct Params(Vec<Arg>);

impl Params {
    pub fn new() -> Self {
        Self::default()
    }

    /// The placeholder of one more value.
    pub fn bind(&mut self, arg: Arg) -> String {
        self.0.push(arg);
        format!("${}", self.0.len())
    }

    /// `$n, $n+1, …`; `NULL` for an empty list, so that `IN (NULL)` matches nothing.
    pub fn bind_all(&mut self, args: impl IntoIterator<Item = Arg>) -> String {
        let mut list = String::new();
        for arg in args {
            if !list.is_empty() {
                list.push_str(", ");
            }
            self.0.push(arg);
            // Writing to a String cannot fail.
            let _ = write!(list, "${}", self.0.len());
        }
        if list.is_empty() {
            list.push_str("NULL");
        }
        list
    }

    pub fn args(&self) -> &[Arg] {
        &self.0
    }
}

/// A `WHERE` clause under construction, with its arguments numbered `$1…`.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    clauses: Vec<String>,
    params: Params,
}

impl Filter {
    pub fn new() -> Self {
        Self::default()
    }

    fn placeholder(&mut self, arg: Arg) -> String {
        self.params.bind(arg)
    }

    pub fn eq(&mut self, column: &'static str, arg: Arg) -> &mut Self {
        let p = self.placeholder(arg);
        self.clauses.push(format!("{column} = {p}"));
        self
    }

    pub fn eq_opt(&mut self, column: &'static str, arg: Option<Arg>) -> &mut Self {
        if let Some(arg) = arg {
            self.eq(column, arg);
        }
        self
    }

    /// `column IN (…)`; an empty list matches nothing.
    pub fn any_of(
        &mut self,
        column: &'static str,
        values: impl IntoIterator<Item = Arg>,
    ) -> &mut Self {
        let placeholders: Vec<String> = values.into_iter().map(|v| self.placeholder(v)).collect();
        if placeholders.is_empty() {
            self.clauses.push("1 = 0".to_owned());
        } else {
            self.clauses
                .push(format!("{column} IN ({})", placeholders.join(", ")));
        }
        self
    }

    /// Inclusive bounds on an integer or time column.
    pub fn range<T: Into<Arg>>(
        &mut self,
        column: &'static str,
        gte: Option<T>,
        lte: Option<T>,
    ) -> &mut Self {
        if let Some(v) = gte {
            let p = self.placeholder(v.into());
            self.clauses.push(format!("{column} >= {p}"));
        }
        if let Some(v) = lte {
            let p = self.placeholder(v.into());
            self.clauses.push(format!("{column} <= {p}"));
        }
        self
    }

    /// Case-insensitive substring match on any of `columns`.
    pub fn contains_text(&mut self, columns: &[&'static str], needle: &str) -> &mut Self {
        let pattern = format!("%{}%", escape_like(&needle.to_lowercase()));
        let p = self.placeholder(Arg::Text(pattern));
        let ors: Vec<String> = columns
            .iter()
            .map(|c| format!("LOWER({c}) LIKE {p} ESCAPE '\\'"))
            .collect();
        self.clauses.push(format!("({})", ors.join(" OR ")));
        self
    }

    /// A condition built from a static SQL template whose values are bound through
    /// `bind` (one placeholder) and `bind_all` (a comma-separated list of them).
    pub fn condition(&mut self, build: impl FnOnce(&mut Params) -> String) -> &mut Self {
        let clause = build(&mut self.params);
        self.clauses.push(clause);
        self
    }

    /// Replaces the conditions so far by one built from them: `build` gets them joined by
    /// `AND` (`TRUE` when there are none), already bound, and binds any further values.
    pub fn nest(&mut self, build: impl FnOnce(&str, &mut Params) -> String) -> &mut Self {
        let inner = if self.clauses.is_empty() {
            "TRUE".to_owned()
        } else {
            self.clauses.join(" AND ")
        };
        let clause = build(&inner, &mut self.params);
        self.clauses = vec![clause];
        self
    }

    /// Whether no condition has been added.
    pub fn is_empty(&self) -> bool {
        self.clauses.is_empty()
    }

    pub fn where_sql(&self) -> String {
        if self.clauses.is_empty() {
            String::new()
        } else {
            format!(" WHERE {}", self.clauses.join(" AND "))
        }
    }

    pub fn args(&self) -> &[Arg] {
        self.params.args()
    }
}

/// `text` with LIKE's wildcards escaped (for `ESCAPE '\'`).
pub fn escape_like(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '%' | '_' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    Asc,
    Desc,
}

impl Direction {
    pub(crate) fn sql(self) -> &'static str {
        match self {
            Direction::Asc => "ASC",
            Direction::Desc => "DESC",
        }
    }
}

/// Order by one whitelisted column, then by id in the same direction for a stable order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sort {
    pub column: &'static str,
    pub direction: Direction,
}

/// Offset pagination.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub limit: u64,
    pub offset: u64,
}

/// A list query: the page of rows and the total count under one filter.
#[derive(Debug)]
pub struct ListSql {
    pub page: String,
    pub count: String,
}

pub fn list_sql(
    columns: &str,
    table: &'static str,
    filter: &Filter,
    sort: Sort,
    window: Window,
) -> ListSql {
    let where_sql = filter.where_sql();
    ListSql {
        page: format!(
            "SELECT {columns} FROM {table}{where_sql}{}{}",
            order_by(sort),
            limit(window)
        ),
        count: format!("SELECT COUNT(*) FROM {table}{where_sql}"),
    }
}

/// A list's total: counted exactly, or counted up to a bound that the list exceeds
/// (counting every match of a broad search would read every matching row).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListTotal {
    Exact(u64),
    /// More rows than this match.
    MoreThan(u64),
}

impl ListTotal {
    /// The total from a count of at most `up_to + 1` rows (see [`capped_count_sql`]).
    pub fn from_capped(counted: i64, up_to: u64) -> Self {
        let counted = u64::try_from(counted).unwrap_or(0);
        if counted > up_to {
            ListTotal::MoreThan(up_to)
        } else {
            ListTotal::Exact(counted)
        }
    }

    /// How far a page's total is counted: `cap` rows, and never less than the end of the
    /// page, so that a bounded total still says that a next page exists.
    pub fn count_up_to(cap: u64, window: Window) -> u64 {
        cap.max(window.offset.saturating_add(window.limit))
    }
}

/// Counts the rows of `from` under `filter`, stopping after `up_to + 1`: the cost is that
/// of reading at most so many rows, however many match.
pub fn capped_count_sql(from: &str, filter: &Filter, up_to: u64) -> String {
    format!(
        "SELECT COUNT(*) FROM (SELECT 1 FROM {from}{} LIMIT {}) capped",
        filter.where_sql(),
        up_to.saturating_add(1)
    )
}

/// Where a deferred list finds its page's ids: its table, or its table behind an index
/// that yields matches in id order (full-text search in SQLite), so that a page by id
/// walks that index in its order instead of sorting every match.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Source {
    /// The `FROM` clause.
    pub from: &'static str,
    /// The column that orders the source's rows by id.
    pub id_order: &'static str,
}

impl Source {
    pub const fn table(table: &'static str) -> Self {
        Self {
            from: table,
            id_order: "id",
        }
    }
}

/// How a deferred list finds its page's ids among the matches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PagePlan {
    /// Left to the query planner (an index walk in the sort's order when matches are
    /// dense).
    Planned,
    /// Every match first, then sorted: for matches known to be few (an exact total under
    /// the cap), where a walk in the sort's order could read the whole table to find them.
    MatchesFirst,
}

/// A list's page whose ids are found first, in `source` as `plan` says, and only their
/// rows read: the rows a deep page skips cost an index entry each, not a whole row (with
/// its computed columns).
pub fn deferred_page_sql(
    columns: &str,
    table: &'static str,
    source: Source,
    filter: &Filter,
    sort: Sort,
    window: Window,
    plan: PagePlan,
) -> String {
    let where_sql = filter.where_sql();
    let order = order_by(sort);
    let ids = match plan {
        PagePlan::Planned => format!(
            "SELECT {table}.id FROM {}{where_sql}{}{}",
            source.from,
            order_by_column(sort, source.id_order),
            limit(window)
        ),
        // MATERIALIZED keeps PostgreSQL from pushing the order into the scan (SQLite
        // reads the keyword as a hint with the same meaning).
        PagePlan::MatchesFirst => {
            let sort_column = if sort.column == "id" {
                String::new()
            } else {
                format!(", {table}.{}", sort.column)
            };
            format!(
                "WITH matches AS MATERIALIZED (SELECT {table}.id{sort_column} FROM {}{where_sql}) \
                 SELECT id FROM matches{order}{}",
                source.from,
                limit(window)
            )
        }
    };
    format!("SELECT {columns} FROM {table} WHERE id IN ({ids}){order}")
}

fn order_by(sort: Sort) -> String {
    order_by_column(sort, "id")
}

/// `ORDER BY` the sort's column then `id`, where `id` is the column named so.
fn order_by_column(sort: Sort, id: &str) -> String {
    let dir = sort.direction.sql();
    if sort.column == "id" {
        format!(" ORDER BY {id} {dir}")
    } else {
        format!(" ORDER BY {} {dir}, {id} {dir}", sort.column)
    }
}

fn limit(window: Window) -> String {
    format!(" LIMIT {} OFFSET {}", window.limit, window.offset)
}

macro_rules! binder {
    ($(#[$doc:meta])* $name:ident, $query:ident) => {
        $(#[$doc])*
        pub fn $name<'q, DB, O>(
            mut query: $query<'q, DB, O, <DB as SqlxDatabase>::Arguments>,
            args: &[Arg],
        ) -> $query<'q, DB, O, <DB as SqlxDatabase>::Arguments>
        where
            DB: SqlxDatabase,
            i64: Encode<'q, DB> + Type<DB>,
            String: Encode<'q, DB> + Type<DB>,
            Option<i64>: Encode<'q, DB> + Type<DB>,
            Option<String>: Encode<'q, DB> + Type<DB>,
            bool: Encode<'q, DB> + Type<DB>,
            Vec<u8>: Encode<'q, DB> + Type<DB>,
            Option<Vec<u8>>: Encode<'q, DB> + Type<DB>,
        {
            for arg in args {
                query = match arg {
                    Arg::Int(v) => query.bind(*v),
                    Arg::Text(v) => query.bind(v.clone()),
                    Arg::MaybeInt(v) => query.bind(*v),
                    Arg::MaybeText(v) => query.bind(v.clone()),
                    Arg::Bool(v) => query.bind(*v),
                    Arg::Bytes(v) => query.bind(v.clone()),
                    Arg::MaybeBytes(v) => query.bind(v.clone()),
                };
            }
            query
        }
    };
}

binder!(
    /// Binds `args` in order to a row query.
    bind_as,
    QueryAs
);
binder!(
    /// Binds `args` in order to a scalar query.
    bind_scalar,
    QueryScalar
);

/// Binds `args` in order to a statement.
pub fn bind_query<'q, DB>(
    mut query: Query<'q, DB, <DB as SqlxDatabase>::Arguments>,
    args: &[Arg],
) -> Query<'q, DB, <DB as SqlxDatabase>::Arguments>
where
    DB: SqlxDatabase,
    i64: Encode<'q, DB> + Type<DB>,
    String: Encode<'q, DB> + Type<DB>,
    Option<i64>: Encode<'q, DB> + Type<DB>,
    Option<String>: Encode<'q, DB> + Type<DB>,
    bool: Encode<'q, DB> + Type<DB>,
    Vec<u8>: Encode<'q, DB> + Type<DB>,
    Option<Vec<u8>>: Encode<'q, DB> + Type<DB>,
{
    for arg in args {
        query = match arg {
            Arg::Int(v) => query.bind(*v),
            Arg::Text(v) => query.bind(v.clone()),
            Arg::MaybeInt(v) => query.bind(*v),
            Arg::MaybeText(v) => query.bind(v.clone()),
            Arg::Bool(v) => query.bind(*v),
            Arg::Bytes(v) => query.bind(v.clone()),
            Arg::MaybeBytes(v) => query.bind(v.clone()),
        };
    }
    query
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_numbered_clauses_and_a_stable_order() {
        let mut f = Filter::new();
        f.eq("account_id", Arg::Int(1))
            .any_of("seller_id", [Arg::Int(2), Arg::Int(3)])
            .range("created_on", Some(Timestamp::from_micros(10)), None)
            .contains_text(&["name", "subdomain"], "50%_off");
        let sql = list_sql(
            "id, name",
            "shops",
            &f,
            Sort {
                column: "name",
                direction: Direction::Desc,
            },
            Window {
                limit: 20,
                offset: 40,
            },
        );
        assert_eq!(
            sql.page,
            "SELECT id, name FROM shops WHERE account_id = $1 AND seller_id IN ($2, $3) AND created_on >= $4 \
             AND (LOWER(name) LIKE $5 ESCAPE '\\' OR LOWER(subdomain) LIKE $5 ESCAPE '\\') \
             ORDER BY name DESC, id DESC LIMIT 20 OFFSET 40"
        );
        assert_eq!(f.args()[4], Arg::Text("%50\\%\\_off%".into()));
        assert!(
            sql.count
                .starts_with("SELECT COUNT(*) FROM shops WHERE account_id = $1")
        );
    }

    #[test]
    fn conditions_bind_their_values_in_order() {
        let mut f = Filter::new();
        f.eq("account_id", Arg::Int(1)).condition(|b| {
            format!(
                "id IN (SELECT product_id FROM product_tags WHERE tag_key IN ({}))",
                b.bind_all(["a", "b"].map(|t| Arg::Text(t.into())))
            )
        });
        f.condition(|b| format!("price IN ({})", b.bind_all([])));
        assert_eq!(
            f.where_sql(),
            " WHERE account_id = $1 AND id IN (SELECT product_id FROM product_tags WHERE tag_key IN ($2, $3)) \
             AND price IN (NULL)"
        );
        assert_eq!(f.args().len(), 3);
    }

    #[test]
    fn a_capped_count_reads_up_to_the_end_of_the_page() {
        let mut f = Filter::new();
        f.eq("account_id", Arg::Int(1));
        let window = Window {
            limit: 20,
            offset: 1_980,
        };
        let up_to = ListTotal::count_up_to(1_000, window);
        assert_eq!(up_to, 2_000);
        assert_eq!(
            capped_count_sql("products", &f, up_to),
            "SELECT COUNT(*) FROM (SELECT 1 FROM products WHERE account_id = $1 LIMIT 2001) capped"
        );
        assert_eq!(
            ListTotal::from_capped(2_001, up_to),
            ListTotal::MoreThan(2_000)
        );
        assert_eq!(
            ListTotal::from_capped(2_000, up_to),
            ListTotal::Exact(2_000)
        );
    }

    #[test]
    fn few_matches_are_read_first_then_sorted() {
        let mut f = Filter::new();
        f.eq("account_id", Arg::Int(1));
        let sort = Sort {
            column: "price",
            direction: Direction::Desc,
        };
        let window = Window {
            limit: 20,
            offset: 0,
        };
        let page =
            |source, plan| deferred_page_sql("id", "products", source, &f, sort, window, plan);
        assert_eq!(
            page(Source::table("products"), PagePlan::MatchesFirst),
            "SELECT id FROM products WHERE id IN (WITH matches AS MATERIALIZED (SELECT products.id, \
             products.price FROM products WHERE account_id = $1) SELECT id FROM matches ORDER BY \
             price DESC, id DESC LIMIT 20 OFFSET 0) ORDER BY price DESC, id DESC"
        );
        let search = Source {
            from: "search CROSS JOIN products",
            id_order: "search.rowid",
        };
        assert_eq!(
            page(search, PagePlan::Planned),
            "SELECT id FROM products WHERE id IN (SELECT products.id FROM search CROSS JOIN products \
             WHERE account_id = $1 ORDER BY price DESC, search.rowid DESC LIMIT 20 OFFSET 0) \
             ORDER BY price DESC, id DESC"
        );
    }

    #[test]
    fn empty_in_list_matches_nothing() {
        let mut f = Filter::new();
        f.any_of("id", []);
        assert_eq!(f.where_sql(), " WHERE 1 = 0");
    }
}
