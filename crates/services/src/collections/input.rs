//! What a client may send to create or change a collection, and its rules.

use domain::catalog::collection::{CollectionKind, Rule, RuleMatch, SortOrder, check_rules};
use domain::catalog::product::validate_slug;
use domain::{FieldErrors, Patch, limits, validation};
use schemars::JsonSchema;
use serde::Deserialize;
use storage::collections::CollectionData;

use crate::slugs::derived_slug;

const TITLE_MAX: usize = 255;
const DESCRIPTION_MAX: usize = 65_536;
/// The most products one reorder may name.
const REORDER_MAX: usize = 1000;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct NewCollection {
    title: String,
    #[serde(default)]
    pub seller_id: Option<i64>,
    #[serde(default)]
    slug: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    kind: Option<CollectionKind>,
    #[serde(default)]
    rules: Option<Vec<Rule>>,
    #[serde(default)]
    rule_match: Option<RuleMatch>,
    #[serde(default)]
    sort_order: Option<SortOrder>,
}

impl NewCollection {
    /// The collection's data, and whether its slug was given (else derived from the title).
    pub fn validate(self) -> Result<(CollectionData, bool), FieldErrors> {
        let kind = self.kind.unwrap_or(CollectionKind::Manual);
        let title = self.title.trim().to_owned();
        let (slug, given) = match self.slug.as_deref().map(str::trim) {
            Some(slug) if !slug.is_empty() => (slug.to_owned(), true),
            _ => (derived_slug(&title), false),
        };
        let data = CollectionData {
            title,
            slug,
            description: self.description.unwrap_or_default(),
            kind,
            rules: self.rules.unwrap_or_default(),
            rule_match: self.rule_match.unwrap_or(RuleMatch::All),
            sort_order: self.sort_order.unwrap_or(match kind {
                CollectionKind::Manual => SortOrder::Manual,
                CollectionKind::Smart => SortOrder::TitleAsc,
            }),
        };
        let mut errors = FieldErrors::new();
        check(&data, &mut errors);
        errors.into_result().map(|()| (data, given))
    }
}

#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
pub struct CollectionChanges {
    #[serde(default)]
    title: Patch<String>,
    #[serde(default)]
    slug: Patch<String>,
    #[serde(default)]
    description: Patch<String>,
    #[serde(default)]
    kind: Patch<CollectionKind>,
    #[serde(default)]
    rules: Patch<Vec<Rule>>,
    #[serde(default)]
    rule_match: Patch<RuleMatch>,
    #[serde(default)]
    sort_order: Patch<SortOrder>,
    /// Refused: a collection stays with its seller.
    #[serde(default)]
    #[schemars(skip)]
    seller_id: Patch<i64>,
}

impl CollectionChanges {
    pub fn apply(self, mut data: CollectionData) -> Result<CollectionData, FieldErrors> {
        let mut errors = FieldErrors::new();
        match self.kind {
            Patch::Absent => {}
            Patch::Value(kind) if kind == data.kind => {}
            _ => errors.add("kind", "cannot be changed"),
        }
        if !self.seller_id.is_absent() {
            errors.add("seller_id", "cannot be changed");
        }
        for (field, null) in [
            ("title", self.title == Patch::Null),
            ("slug", self.slug == Patch::Null),
            ("rule_match", self.rule_match == Patch::Null),
            ("sort_order", self.sort_order == Patch::Null),
        ] {
            if null {
                errors.add(field, "can't be null");
            }
        }
        if let Patch::Value(title) = self.title {
            data.title = title.trim().to_owned();
        }
        if let Patch::Value(slug) = self.slug {
            data.slug = slug.trim().to_owned();
        }
        match self.description {
            Patch::Absent => {}
            Patch::Null => data.description.clear(),
            Patch::Value(d) => data.description = d,
        }
        match self.rules {
            Patch::Absent => {}
            Patch::Null => data.rules.clear(),
            Patch::Value(rules) => data.rules = rules,
        }
        if let Patch::Value(mode) = self.rule_match {
            data.rule_match = mode;
        }
        if let Patch::Value(order) = self.sort_order {
            data.sort_order = order;
        }
        check(&data, &mut errors);
        errors.into_result().map(|()| data)
    }
}

fn check(data: &CollectionData, errors: &mut FieldErrors) {
    errors.check("title", validation::text(&data.title, TITLE_MAX));
    errors.check("slug", validate_slug(&data.slug));
    errors.check(
        "description",
        validation::length(&data.description, DESCRIPTION_MAX),
    );
    check_rules(data.kind, &data.rules, errors);
    if data.kind == CollectionKind::Smart && data.sort_order == SortOrder::Manual {
        errors.add(
            "sort_order",
            "manual order is for manual collections (a smart collection's members change by themselves)",
        );
    }
}

/// A product to add to a manual collection, at a position or after the others.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct NewMember {
    pub product_id: i64,
    #[serde(default)]
    position: Option<i64>,
}

impl NewMember {
    /// The position asked for, once it is one a collection can hold.
    pub fn position(&self) -> Result<Option<i64>, FieldErrors> {
        match self.position {
            Some(position) => limits::POSITION
                .check(position)
                .map(|()| Some(position))
                .map_err(|message| FieldErrors::single("position", message)),
            None => Ok(None),
        }
    }
}

/// The products to move, in that order, before a manual collection's other members.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Reorder {
    product_ids: Vec<i64>,
}

impl Reorder {
    /// The ids, once there are 1 to `REORDER_MAX` of them and none twice.
    pub fn validate(self) -> Result<Vec<i64>, FieldErrors> {
        let ids = self.product_ids;
        let mut errors = FieldErrors::new();
        if ids.is_empty() || ids.len() > REORDER_MAX {
            errors.add(
                "product_ids",
                format!("must name 1 to {REORDER_MAX} products"),
            );
        }
        let mut seen = std::collections::HashSet::new();
        if !ids.iter().all(|id| seen.insert(*id)) {
            errors.add("product_ids", "names a product twice");
        }
        errors.into_result().map(|()| ids)
    }
}
