//! `GET /price_lists/{id}/prices`: the prices one list gives some variants for a purchase
//! (quantity, currency, contact, moment), worked out by the same resolution orders use,
//! with this list as the only candidate, and why the list does not apply when it does not.

use axum::extract::{RawQuery, State};
use domain::catalog::pricing::{
    BasePrice, Candidate, Inapplicable, Purchase, Tier, resolve, tier_for,
};
use domain::{FieldErrors, Scope, Timestamp, limits, validation};
use hal::{Link, Resource};
use schemars::JsonSchema;
use serde::Serialize;
use storage::price_lists::{self, PriceList, PriceListItem};
use storage::sellers;
use storage::variants::{self, Variant};

use super::representation::{VariantPrice, variant_price_resource};
use crate::kernel::auth::Auth;
use crate::kernel::error::{ApiError, ApiResult};
use crate::kernel::hal_response::Hal;
use crate::kernel::input::ResourceId;
use crate::kernel::query::QueryParams;
use crate::kernel::state::AppState;
use crate::openapi::{QueryParam, schema};
use crate::rels;
use services::price_lists::input::parse_time;

/// The most variants one preview may name.
const VARIANTS_MAX: usize = 200;

pub const VARIANT_IDS: QueryParam = QueryParam {
    name: "variant_ids",
    description: "The variants to price, comma-separated ids of the list's seller's variants \
                  (at most 200)",
    required: true,
    schema: schema::<String>(),
};

pub const QUANTITY: QueryParam = QueryParam {
    name: "quantity",
    description: "The units bought of each variant (default 1)",
    required: false,
    schema: |_| {
        schemars::json_schema!({
            "type": "integer",
            "minimum": limits::QUANTITY.min,
            "maximum": limits::QUANTITY.max,
        })
    },
};

pub const CURRENCY_CODE: QueryParam = QueryParam {
    name: "currency_code",
    description: "The currency of the purchase, ISO 4217 (default the seller's default currency)",
    required: false,
    schema: schema::<String>(),
};

pub const CONTACT_ID: QueryParam = QueryParam {
    name: "contact_id",
    description: "The buyer (absent: an anonymous buyer)",
    required: false,
    schema: |_| {
        schemars::json_schema!({
            "type": "integer",
            "minimum": limits::ID.min,
            "maximum": limits::ID.max,
        })
    },
};

pub const AT: QueryParam = QueryParam {
    name: "at",
    description: "The moment of the purchase, RFC 3339 or YYYY-MM-DD (default now)",
    required: false,
    schema: schema::<String>(),
};

/// The purchase a preview is asked about.
struct PreviewRequest {
    variant_ids: Vec<i64>,
    quantity: i64,
    contact_id: Option<i64>,
    at: Timestamp,
    /// `None`: the seller's default currency.
    currency_code: Option<String>,
}

impl PreviewRequest {
    fn parse(params: &QueryParams, now: Timestamp, errors: &mut FieldErrors) -> Self {
        let mut variant_ids = params.id_list("variant_ids", errors).unwrap_or_default();
        let mut seen = std::collections::HashSet::new();
        variant_ids.retain(|v| seen.insert(*v));
        if variant_ids.is_empty() && !errors.has("variant_ids") {
            errors.add("variant_ids", "can't be blank");
        } else if variant_ids.len() > VARIANTS_MAX {
            errors.add(
                "variant_ids",
                format!("must name at most {VARIANTS_MAX} variants"),
            );
        }
        let quantity = params
            .bounded("quantity", limits::QUANTITY, errors)
            .unwrap_or(1);
        let contact_id = params.bounded("contact_id", limits::ID, errors);
        let at = params
            .get("at")
            .and_then(|text| parse_time("at", text, errors))
            .unwrap_or(now);
        let currency_code = params.get("currency_code").map(str::to_owned);
        if let Some(code) = &currency_code {
            errors.check("currency_code", validation::currency_code(code));
        }
        Self {
            variant_ids,
            quantity,
            contact_id,
            at,
            currency_code,
        }
    }
}

#[derive(Serialize, JsonSchema)]
#[schemars(rename = "PriceListPreviewFields")]
pub struct PreviewFields<'a> {
    price_list_id: i64,
    quantity: i64,
    currency_code: &'a str,
    contact_id: Option<i64>,
    at: Timestamp,
    /// Whether the list prices this purchase at all.
    applies: bool,
    /// Why not: `status`, `dates`, `currency` or `contact`.
    #[schemars(with = "Option<Inapplicable>")]
    reason: Option<&'static str>,
    reason_message: Option<String>,
}

pub async fn show(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
    RawQuery(query): RawQuery,
) -> ApiResult<Hal> {
    auth.require(Scope::ProductsRead)?;
    let mut errors = FieldErrors::new();
    let params = QueryParams::parse(query.as_deref());
    let request = PreviewRequest::parse(&params, state.clock.now(), &mut errors);
    let list = auth
        .find(|tenant| price_lists::find(&state.db, tenant, id))
        .await?;
    errors.into_result()?;
    let found = variants::of_seller_among(&state.db, list.seller_id, &request.variant_ids).await?;
    let strangers: Vec<String> = request
        .variant_ids
        .iter()
        .filter(|v| !found.iter().any(|f| f.id == **v))
        .map(i64::to_string)
        .collect();
    if !strangers.is_empty() {
        return Err(ApiError::invalid_field(
            "variant_ids",
            format!(
                "not variants of the price list's seller: {}",
                strangers.join(", ")
            ),
        ));
    }
    let currency_code = match request.currency_code.clone() {
        Some(code) => code,
        None => {
            auth.find(|tenant| sellers::find(&state.db, tenant, list.seller_id))
                .await?
                .default_currency_code
        }
    };
    let items = price_lists::items_of_variants(&state.db, id, &request.variant_ids).await?;
    let purchase = Purchase {
        at: request.at,
        currency_code: &currency_code,
        contact_id: request.contact_id,
    };
    let terms = list.terms();
    let refusal = terms.check(&purchase).err();
    let urls = &state.urls;
    // In the order asked for.
    let prices = request
        .variant_ids
        .iter()
        .filter_map(|v| found.iter().find(|f| f.id == *v))
        .map(|variant| {
            let price = variant_price(&list, variant, &items, request.quantity, refusal);
            variant_price_resource(urls, &price)
        });
    let fields = PreviewFields {
        price_list_id: list.id,
        quantity: request.quantity,
        currency_code: &currency_code,
        contact_id: request.contact_id,
        at: request.at,
        applies: refusal.is_none(),
        reason: refusal.map(Inapplicable::as_str),
        reason_message: refusal.map(|r| terms.explain(r, &purchase)),
    };
    let href = format!(
        "{}/prices?{}",
        urls.price_list(id),
        self_query(&request, &currency_code)
    );
    let doc = Resource::new(["price_list_prices"])
        .with_properties(&fields)
        .link("self", Link::get(href))
        .rel(&rels::PRICE_LISTS_PRICE_LIST, urls.price_list(id))
        .embed_all("items", prices)
        .into_value(urls.curies());
    Ok(Hal::ok(doc, state.clock.now()))
}

/// One variant's price under the list, which is the only candidate when it applies.
fn variant_price(
    list: &PriceList,
    variant: &Variant,
    items: &[PriceListItem],
    quantity: i64,
    refusal: Option<Inapplicable>,
) -> VariantPrice {
    let tiers: Vec<Tier> = items
        .iter()
        .filter(|i| i.variant_id == variant.id)
        .map(PriceListItem::tier)
        .collect();
    let base = BasePrice {
        price: variant.price,
        price_comparison: variant.price_comparison,
    };
    let candidate = Candidate {
        price_list_id: list.id,
        kind: list.kind,
        priority: list.priority,
        tiers: &tiers,
    };
    let candidates: &[Candidate<'_>] = match refusal {
        None => std::slice::from_ref(&candidate),
        Some(_) => &[],
    };
    let resolution = resolve(base, quantity, candidates);
    let tier = tier_for(&tiers, quantity);
    let outcome = match (refusal, resolution.applied, tier) {
        (Some(_), _, _) => "list_not_applicable",
        (None, Some(_), _) => "applied",
        (None, None, Some(_)) => "not_lower",
        (None, None, None) => "no_tier",
    };
    VariantPrice {
        variant_id: variant.id,
        product_id: variant.product_id,
        base_price: base.price,
        base_price_comparison: base.price_comparison,
        price: resolution.price,
        price_comparison: resolution.price_comparison,
        applied: resolution.applied.is_some(),
        outcome,
        tier: tier.map(Into::into),
    }
}

/// The query of the preview's `self` link, every default spelt out.
fn self_query(request: &PreviewRequest, currency_code: &str) -> String {
    let ids: Vec<String> = request.variant_ids.iter().map(i64::to_string).collect();
    let mut query = form_urlencoded::Serializer::new(String::new());
    query
        .append_pair("variant_ids", &ids.join(","))
        .append_pair("quantity", &request.quantity.to_string())
        .append_pair("currency_code", currency_code);
    if let Some(c) = request.contact_id {
        query.append_pair("contact_id", &c.to_string());
    }
    query.append_pair("at", &request.at.to_rfc3339());
    query.finish()
}
