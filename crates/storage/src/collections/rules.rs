//! A smart collection's rules as one SQL condition on `products`. The same condition
//! decides membership when a product changes and when the rules change, so the two can
//! never disagree. Text compares without regard to the case of the letters A to Z (the
//! folding both engines share); tags and type names compare by their lower-case keys.

use domain::catalog::collection::{Relation, Rule, RuleField, RuleMatch};
use domain::catalog::product::tag_key;

use crate::db::Backend;
use crate::sql::{Arg, Params, escape_like};

/// The condition every product of the collection meets.
pub fn condition(backend: Backend, rules: &[Rule], mode: RuleMatch, p: &mut Params) -> String {
    if rules.is_empty() {
        return "1 = 0".to_owned();
    }
    let parts: Vec<String> = rules.iter().map(|r| rule(backend, r, p)).collect();
    let joiner = match mode {
        RuleMatch::All => " AND ",
        RuleMatch::Any => " OR ",
    };
    format!("({})", parts.join(joiner))
}

fn rule(backend: Backend, rule: &Rule, p: &mut Params) -> String {
    let raw = rule.value.trim();
    match rule.field {
        RuleField::Title => text(rule.relation, &fold(backend, "title"), raw, p),
        RuleField::Vendor => text(
            rule.relation,
            &fold(backend, "COALESCE(vendor, '')"),
            raw,
            p,
        ),
        RuleField::Type => {
            let (positive, negated) = split(rule.relation);
            let cmp = text_positive(positive, "t.name_key", &raw.to_lowercase(), p);
            let exists = format!(
                "EXISTS (SELECT 1 FROM product_types t WHERE t.id = products.product_type_id AND {cmp})"
            );
            negate_if(negated, exists)
        }
        RuleField::Tag => {
            let exists = format!(
                "EXISTS (SELECT 1 FROM product_tags pt WHERE pt.product_id = products.id AND pt.tag_key = {})",
                p.bind(Arg::Text(tag_key(raw)))
            );
            negate_if(rule.relation == Relation::NotEquals, exists)
        }
        RuleField::Price => number(rule.relation, "price", raw, p),
        RuleField::Stock => format!(
            "EXISTS (SELECT 1 FROM variants v WHERE v.product_id = products.id AND {})",
            number(rule.relation, "v.stock", raw, p)
        ),
    }
}

/// `column` with the letters A to Z in lower case, the same way on both engines.
fn fold(backend: Backend, column: &str) -> String {
    match backend {
        Backend::Sqlite => format!("LOWER({column})"),
        Backend::Postgres => format!(
            "TRANSLATE({column}, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')"
        ),
    }
}

fn text(relation: Relation, folded: &str, raw: &str, p: &mut Params) -> String {
    let (positive, negated) = split(relation);
    negate_if(
        negated,
        text_positive(positive, folded, &raw.to_ascii_lowercase(), p),
    )
}

/// The relation without its negation, and whether it was negated.
fn split(relation: Relation) -> (Relation, bool) {
    match relation {
        Relation::NotEquals => (Relation::Equals, true),
        Relation::NotContains => (Relation::Contains, true),
        other => (other, false),
    }
}

fn text_positive(relation: Relation, column: &str, value: &str, p: &mut Params) -> String {
    let like = |p: &mut Params, pattern: String| {
        format!("{column} LIKE {} ESCAPE '\\'", p.bind(Arg::Text(pattern)))
    };
    match relation {
        Relation::Contains => like(p, format!("%{}%", escape_like(value))),
        Relation::StartsWith => like(p, format!("{}%", escape_like(value))),
        Relation::EndsWith => like(p, format!("%{}", escape_like(value))),
        _ => format!("{column} = {}", p.bind(Arg::Text(value.to_owned()))),
    }
}

fn number(relation: Relation, column: &str, raw: &str, p: &mut Params) -> String {
    let op = match relation {
        Relation::NotEquals => "<>",
        Relation::GreaterThan => ">",
        Relation::LessThan => "<",
        _ => "=",
    };
    let value = raw.parse::<i64>().unwrap_or_default();
    format!("{column} {op} {}", p.bind(Arg::Int(value)))
}

fn negate_if(negated: bool, condition: String) -> String {
    if negated {
        format!("NOT ({condition})")
    } else {
        condition
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn builds_one_condition_with_bound_values() {
        let rules: Vec<Rule> = serde_json::from_value(json!([
            {"field": "title", "relation": "contains", "value": "50%_Off"},
            {"field": "tag", "relation": "not_equals", "value": "Hidden"},
            {"field": "stock", "relation": "greater_than", "value": "0"},
            {"field": "type", "relation": "starts_with", "value": "Shirt"},
        ]))
        .unwrap();
        let mut p = Params::new();
        let sql = condition(Backend::Sqlite, &rules, RuleMatch::Any, &mut p);
        assert_eq!(
            sql,
            "(LOWER(title) LIKE $1 ESCAPE '\\' OR NOT (EXISTS (SELECT 1 FROM product_tags pt WHERE \
             pt.product_id = products.id AND pt.tag_key = $2)) OR EXISTS (SELECT 1 FROM variants v WHERE \
             v.product_id = products.id AND v.stock > $3) OR EXISTS (SELECT 1 FROM product_types t WHERE \
             t.id = products.product_type_id AND t.name_key LIKE $4 ESCAPE '\\'))"
        );
        assert_eq!(
            p.args(),
            [
                Arg::Text("%50\\%\\_off%".into()),
                Arg::Text("hidden".into()),
                Arg::Int(0),
                Arg::Text("shirt%".into())
            ]
        );
        let mut p = Params::new();
        assert!(
            condition(Backend::Postgres, &rules[..1], RuleMatch::All, &mut p)
                .starts_with("(TRANSLATE(title")
        );
    }
}
