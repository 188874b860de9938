//! What a client may send to create or change a product, and the rules that need no
//! database (the rest, such as whether a shop belongs to the seller, are checked by the
//! operations).

use domain::catalog::attributes;
use domain::catalog::product::{ProductStatus, amount, normalize_tags, validate_slug};
use domain::validation;
use domain::{FieldErrors, Patch};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};
use storage::products::ProductData;
use storage::variants::VariantData;

use crate::catalog::{VARIANTS_MAX, lowest_price};
use crate::product_types::input::TypeChoice;
use crate::slugs::derived_slug;
use crate::variants::input::{Defaults, NewVariant};

const TITLE_MAX: usize = 255;
const DESCRIPTION_MAX: usize = 65_536;
const VENDOR_MAX: usize = 255;
const TYPE_NAME_MAX: usize = 255;
const IDS_MAX: usize = 250;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct NewProduct {
    title: String,
    #[serde(default)]
    pub seller_id: Option<i64>,
    #[serde(default)]
    slug: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    status: Option<ProductStatus>,
    #[serde(default)]
    vendor: Option<String>,
    #[serde(default)]
    tags: Option<Vec<String>>,
    #[serde(default)]
    price: Option<i64>,
    #[serde(default)]
    price_comparison: Option<i64>,
    #[serde(default)]
    currency_code: Option<String>,
    #[serde(default)]
    product_type_id: Option<i64>,
    #[serde(default)]
    product_type_name: Option<String>,
    #[serde(default)]
    custom_attributes: Option<Map<String, Value>>,
    #[serde(default)]
    shop_ids: Option<Vec<i64>>,
    #[serde(default)]
    all_shops: Option<bool>,
    #[serde(default)]
    collection_ids: Option<Vec<i64>>,
    #[serde(default)]
    variants: Option<Vec<NewVariant>>,
}

/// A checked product, before the checks that need the database.
pub struct Draft {
    pub data: ProductData,
    /// Whether the slug was given (a taken one is an error) or derived (a free one is found).
    pub slug_given: bool,
    pub product_type: TypeChoice,
    /// Whether the custom attributes or the type changed, so that they need checking
    /// against the type's schema.
    pub attributes_changed: bool,
    pub collection_ids: Option<Vec<i64>>,
    pub variants: Vec<VariantData>,
    /// A new price for the only variant.
    pub price: Option<(i64, Option<i64>)>,
}

impl NewProduct {
    /// The product made available in `shop_id` as well (unless it is in all shops), for
    /// the shop's seller unless the body names one (which must then own the shop).
    pub fn in_shop(mut self, seller_id: i64, shop_id: i64) -> Self {
        self.seller_id.get_or_insert(seller_id);
        if self.all_shops != Some(true) {
            let shops = self.shop_ids.get_or_insert_with(Vec::new);
            if !shops.contains(&shop_id) {
                shops.push(shop_id);
            }
        }
        self
    }

    /// The draft of a new product of a seller whose currency is `default_currency`;
    /// problems are added to `errors` (the caller adds those the database finds).
    pub fn validate(self, default_currency: &str, errors: &mut FieldErrors) -> Draft {
        let title = self.title.trim().to_owned();
        let (slug, slug_given) = match self.slug.as_deref().map(str::trim) {
            Some(slug) if !slug.is_empty() => (slug.to_owned(), true),
            _ => (derived_slug(&title), false),
        };
        let tags = check_tags(self.tags.as_deref().unwrap_or_default(), errors);
        let (all_shops, shop_ids) = shops(self.all_shops, self.shop_ids, errors);
        let product_type = type_choice(
            self.product_type_id.map_or(Patch::Absent, Patch::Value),
            self.product_type_name.map_or(Patch::Absent, Patch::Value),
            errors,
        );
        let variants_in = self.variants.unwrap_or_default();
        if variants_in.len() > VARIANTS_MAX {
            errors.add(
                "variants",
                format!("has too many variants (maximum is {VARIANTS_MAX})"),
            );
        }
        let variants: Vec<VariantData> = if variants_in.is_empty() {
            let defaults = Defaults {
                price: self.price,
                price_comparison: self.price_comparison,
                position: 1,
            };
            vec![NewVariant::default().validate("", defaults, errors)]
        } else {
            variants_in
                .into_iter()
                .enumerate()
                .map(|(i, v)| {
                    let defaults = Defaults {
                        price: self.price,
                        price_comparison: self.price_comparison,
                        position: i64::try_from(i).unwrap_or(i64::MAX).saturating_add(1),
                    };
                    v.validate(&format!("variants[{i}]."), defaults, errors)
                })
                .collect()
        };
        check_distinct_skus(&variants, errors);
        let (price, price_comparison) = lowest_price(&variants);
        let data = ProductData {
            title,
            slug,
            description: self.description.unwrap_or_default(),
            status: self.status.unwrap_or(ProductStatus::Hidden),
            vendor: self.vendor.as_deref().and_then(non_blank),
            tags,
            price,
            price_comparison,
            currency_code: self
                .currency_code
                .unwrap_or_else(|| default_currency.to_owned()),
            product_type_id: None,
            custom_attributes: attributes::without_nulls(
                self.custom_attributes.unwrap_or_default(),
            ),
            all_shops,
            shop_ids,
            search_text: String::new(),
        };
        check(&data, errors);
        let collection_ids = self.collection_ids;
        check_ids("collection_ids", collection_ids.as_deref(), errors);
        Draft {
            data,
            slug_given,
            product_type,
            attributes_changed: true,
            collection_ids,
            variants,
            price: None,
        }
    }
}

#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
pub struct ProductChanges {
    #[serde(default)]
    title: Patch<String>,
    #[serde(default)]
    slug: Patch<String>,
    #[serde(default)]
    description: Patch<String>,
    #[serde(default)]
    status: Patch<ProductStatus>,
    #[serde(default)]
    vendor: Patch<String>,
    #[serde(default)]
    tags: Patch<Vec<String>>,
    #[serde(default)]
    price: Patch<i64>,
    #[serde(default)]
    price_comparison: Patch<i64>,
    #[serde(default)]
    currency_code: Patch<String>,
    #[serde(default)]
    product_type_id: Patch<i64>,
    #[serde(default)]
    product_type_name: Patch<String>,
    #[serde(default)]
    custom_attributes: Patch<Map<String, Value>>,
    #[serde(default)]
    shop_ids: Patch<Vec<i64>>,
    #[serde(default)]
    all_shops: Patch<bool>,
    #[serde(default)]
    collection_ids: Patch<Vec<i64>>,
    /// Refused: variants change through their own links.
    #[serde(default)]
    #[schemars(skip)]
    variants: Patch<Value>,
    /// Refused: a product stays with its seller.
    #[serde(default)]
    #[schemars(skip)]
    seller_id: Patch<i64>,
}

impl ProductChanges {
    /// The manual collections the product is to be in, when the request names them.
    pub fn collection_ids(&self) -> Option<&[i64]> {
        match &self.collection_ids {
            Patch::Absent => None,
            Patch::Null => Some(&[]),
            Patch::Value(ids) => Some(ids),
        }
    }

    /// The draft of `data` with these changes (`variants` are the product's variants);
    /// problems are added to `errors`.
    pub fn apply(
        self,
        mut data: ProductData,
        variants: &[VariantData],
        errors: &mut FieldErrors,
    ) -> Draft {
        if !self.variants.is_absent() {
            errors.add(
                "variants",
                "change variants through the product's variant links",
            );
        }
        if !self.seller_id.is_absent() {
            errors.add("seller_id", "cannot be changed");
        }
        for (field, null) in [
            ("title", self.title == Patch::Null),
            ("slug", self.slug == Patch::Null),
            ("status", self.status == Patch::Null),
            ("currency_code", self.currency_code == Patch::Null),
            ("all_shops", self.all_shops == Patch::Null),
            ("price", self.price == Patch::Null),
        ] {
            if null {
                errors.add(field, "can't be null");
            }
        }
        let mut slug_given = false;
        if let Patch::Value(title) = self.title {
            data.title = title.trim().to_owned();
        }
        if let Patch::Value(slug) = self.slug {
            data.slug = slug.trim().to_owned();
            slug_given = true;
        }
        match self.description {
            Patch::Absent => {}
            Patch::Null => data.description.clear(),
            Patch::Value(d) => data.description = d,
        }
        if let Patch::Value(status) = self.status {
            data.status = status;
        }
        match self.vendor {
            Patch::Absent => {}
            Patch::Null => data.vendor = None,
            Patch::Value(v) => data.vendor = non_blank(&v),
        }
        match self.tags {
            Patch::Absent => {}
            Patch::Null => data.tags.clear(),
            Patch::Value(tags) => data.tags = check_tags(&tags, errors),
        }
        if let Patch::Value(code) = self.currency_code {
            data.currency_code = code;
        }
        let attributes_changed = !self.custom_attributes.is_absent()
            || !self.product_type_id.is_absent()
            || !self.product_type_name.is_absent();
        match self.custom_attributes {
            Patch::Absent => {}
            Patch::Null => data.custom_attributes.clear(),
            Patch::Value(values) => data.custom_attributes = attributes::without_nulls(values),
        }
        let product_type = type_choice(self.product_type_id, self.product_type_name, errors);
        let all_shops = match self.all_shops {
            Patch::Value(all) => Some(all),
            _ => None,
        };
        match self.shop_ids {
            Patch::Absent if all_shops.is_none() => {}
            Patch::Absent | Patch::Null => {
                let (all, ids) = shops(all_shops.or(Some(true)), None, errors);
                data.all_shops = all;
                data.shop_ids = ids;
            }
            Patch::Value(ids) => {
                let (all, ids) = shops(all_shops, Some(ids), errors);
                data.all_shops = all;
                data.shop_ids = ids;
            }
        }
        let price = match (self.price, self.price_comparison) {
            (Patch::Absent, Patch::Absent) => None,
            (price, comparison) if variants.len() == 1 => {
                let only = &variants[0];
                let price = match price {
                    Patch::Value(p) => p,
                    _ => only.price,
                };
                let comparison = match comparison {
                    Patch::Absent => only.price_comparison,
                    Patch::Null => None,
                    Patch::Value(c) => Some(c),
                };
                errors.check("price", amount(price));
                if let Some(c) = comparison {
                    errors.check("price_comparison", amount(c));
                }
                Some((price, comparison))
            }
            _ => {
                errors.add(
                    "price",
                    "set prices on the variants of a product that has several",
                );
                None
            }
        };
        let collection_ids = match self.collection_ids {
            Patch::Absent => None,
            Patch::Null => Some(Vec::new()),
            Patch::Value(ids) => Some(ids),
        };
        check_ids("collection_ids", collection_ids.as_deref(), errors);
        check(&data, errors);
        Draft {
            data,
            slug_given,
            product_type,
            attributes_changed,
            collection_ids,
            variants: Vec::new(),
            price,
        }
    }
}

fn check_tags(tags: &[String], errors: &mut FieldErrors) -> Vec<String> {
    normalize_tags(tags).unwrap_or_else(|message| {
        errors.add("tags", message);
        Vec::new()
    })
}

/// `all_shops` and `shop_ids` together: shop ids alone mean "only these shops".
fn shops(all: Option<bool>, ids: Option<Vec<i64>>, errors: &mut FieldErrors) -> (bool, Vec<i64>) {
    match (all, ids) {
        (Some(true), Some(ids)) if !ids.is_empty() => {
            errors.add("shop_ids", "must be empty when all_shops is true");
            (true, Vec::new())
        }
        (Some(false) | None, Some(mut ids)) => {
            ids.sort_unstable();
            ids.dedup();
            check_ids("shop_ids", Some(&ids), errors);
            (false, ids)
        }
        (Some(false), None) => (false, Vec::new()),
        _ => (true, Vec::new()),
    }
}

fn type_choice(id: Patch<i64>, name: Patch<String>, errors: &mut FieldErrors) -> TypeChoice {
    match (id, name) {
        (Patch::Value(_), Patch::Value(_)) => {
            errors.add(
                "product_type_name",
                "give product_type_id or product_type_name, not both",
            );
            TypeChoice::Keep
        }
        (Patch::Value(id), _) => TypeChoice::Id(id),
        (_, Patch::Value(name)) => {
            let name = name.trim().to_owned();
            if name.is_empty() {
                TypeChoice::Clear
            } else {
                errors.check("product_type_name", validation::text(&name, TYPE_NAME_MAX));
                TypeChoice::Name(name)
            }
        }
        (Patch::Null, _) | (_, Patch::Null) => TypeChoice::Clear,
        (Patch::Absent, Patch::Absent) => TypeChoice::Keep,
    }
}

fn check_ids(field: &str, ids: Option<&[i64]>, errors: &mut FieldErrors) {
    if ids.is_some_and(|ids| ids.len() > IDS_MAX) {
        errors.add(field, format!("has too many ids (maximum is {IDS_MAX})"));
    }
}

/// SKUs appear once in a request.
pub fn check_distinct_skus(variants: &[VariantData], errors: &mut FieldErrors) {
    for (i, variant) in variants.iter().enumerate() {
        if let Some(sku) = &variant.sku
            && variants[..i].iter().any(|v| v.sku.as_ref() == Some(sku))
        {
            errors.add(format!("variants[{i}].sku"), "is given twice");
        }
    }
}

fn non_blank(value: &str) -> Option<String> {
    let trimmed = value.trim();
    (!trimmed.is_empty()).then(|| trimmed.to_owned())
}

/// The rules every product meets (custom attributes are checked with the product type's
/// schema, by the operations).
fn check(data: &ProductData, errors: &mut FieldErrors) {
    errors.check("title", validation::text(&data.title, TITLE_MAX));
    errors.check("slug", validate_slug(&data.slug));
    errors.check(
        "description",
        validation::length(&data.description, DESCRIPTION_MAX),
    );
    if let Some(vendor) = &data.vendor {
        errors.check("vendor", validation::text(vendor, VENDOR_MAX));
    }
    errors.check(
        "currency_code",
        validation::currency_code(&data.currency_code),
    );
}
