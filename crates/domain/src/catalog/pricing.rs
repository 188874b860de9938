//! Price lists' rules, shared by the API's previews and by orders: when a list applies to
//! a purchase, which quantity tier counts, and the price a buyer pays for a variant given
//! every candidate list.

use crate::Timestamp;
use crate::text_enum;

text_enum! {
    /// Only `active` lists price anything; `draft` ones are being prepared, `inactive` ones
    /// are switched off.
    pub enum PriceListStatus {
        Draft => "draft",
        Active => "active",
        Inactive => "inactive",
    }
}

text_enum! {
    /// An `override` list sets the price whatever it is; a `sale` list applies only where
    /// it is lower than the variant's own price.
    pub enum PriceListKind {
        Override => "override",
        Sale => "sale",
    }
}

text_enum! {
    /// Why a list does not apply to a purchase, checked in this order.
    pub enum Inapplicable {
        Status => "status",
        Dates => "dates",
        Currency => "currency",
        Contact => "contact",
    }
}

/// The largest quantity a tier may start at or a price may be asked for.
pub const QUANTITY_MAX: i64 = crate::limits::QUANTITY.max;

/// The conditions of a list, as stored.
#[derive(Clone, Copy, Debug)]
pub struct Terms<'a> {
    pub status: PriceListStatus,
    pub currency_code: &'a str,
    pub starts_on: Option<Timestamp>,
    pub ends_on: Option<Timestamp>,
    /// Empty: every buyer.
    pub contact_ids: &'a [i64],
}

/// Who buys, when, and in which currency.
#[derive(Clone, Copy, Debug)]
pub struct Purchase<'a> {
    pub at: Timestamp,
    pub currency_code: &'a str,
    /// `None` for a buyer who is not a known contact.
    pub contact_id: Option<i64>,
}

impl Terms<'_> {
    /// Whether the list prices this purchase: active, `starts_on <= at < ends_on` (an open
    /// bound when null), in the purchase's currency, and for every buyer or this contact.
    pub fn check(&self, purchase: &Purchase<'_>) -> Result<(), Inapplicable> {
        if self.status != PriceListStatus::Active {
            return Err(Inapplicable::Status);
        }
        let started = self.starts_on.is_none_or(|s| s <= purchase.at);
        let not_ended = self.ends_on.is_none_or(|e| purchase.at < e);
        if !(started && not_ended) {
            return Err(Inapplicable::Dates);
        }
        if self.currency_code != purchase.currency_code {
            return Err(Inapplicable::Currency);
        }
        let for_buyer = self.contact_ids.is_empty()
            || purchase
                .contact_id
                .is_some_and(|c| self.contact_ids.contains(&c));
        if !for_buyer {
            return Err(Inapplicable::Contact);
        }
        Ok(())
    }

    /// A sentence saying why `check` refused the purchase.
    pub fn explain(&self, reason: Inapplicable, purchase: &Purchase<'_>) -> String {
        match reason {
            Inapplicable::Status => format!("the list is {}, not active", self.status),
            Inapplicable::Dates => match (self.starts_on, self.ends_on) {
                (Some(s), _) if purchase.at < s => {
                    format!("the list starts at {s}, after {}", purchase.at)
                }
                (_, Some(e)) => format!("the list ended at {e}, by {}", purchase.at),
                _ => "the list is out of its dates".to_owned(),
            },
            Inapplicable::Currency => format!(
                "the list prices in {}, not {}",
                self.currency_code, purchase.currency_code
            ),
            Inapplicable::Contact => match purchase.contact_id {
                Some(c) => format!("the list is for other contacts than {c}"),
                None => "the list is for named contacts only".to_owned(),
            },
        }
    }
}

/// `ends_on` must come after `starts_on` when both are set.
pub fn check_dates(starts_on: Option<Timestamp>, ends_on: Option<Timestamp>) -> Result<(), String> {
    match (starts_on, ends_on) {
        (Some(s), Some(e)) if e <= s => Err("must be after starts_on".into()),
        _ => Ok(()),
    }
}

/// One price of a list for one variant, from `min_quantity` units up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tier {
    pub item_id: i64,
    pub min_quantity: i64,
    pub price: i64,
    pub price_comparison: Option<i64>,
}

/// The tier for `quantity`: the one with the largest `min_quantity <= quantity`.
pub fn tier_for(tiers: &[Tier], quantity: i64) -> Option<&Tier> {
    tiers
        .iter()
        .filter(|t| t.min_quantity <= quantity)
        .max_by_key(|t| t.min_quantity)
}

/// A list that applies to the purchase, with its tiers for the variant being priced.
#[derive(Clone, Copy, Debug)]
pub struct Candidate<'a> {
    pub price_list_id: i64,
    pub kind: PriceListKind,
    pub priority: i64,
    pub tiers: &'a [Tier],
}

/// A variant's own price.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BasePrice {
    pub price: i64,
    pub price_comparison: Option<i64>,
}

/// The list and tier that set a price.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Applied {
    pub price_list_id: i64,
    pub kind: PriceListKind,
    pub tier: Tier,
}

/// The price a buyer pays per unit, and where it comes from (`None`: the base price).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Resolution {
    pub price: i64,
    pub price_comparison: Option<i64>,
    pub applied: Option<Applied>,
}

/// The winning price among `candidates` (lists that apply to the purchase): higher
/// priority first, then lower id; the first list with a tier for `quantity` wins, except
/// that a `sale` tier not lower than the base price is passed over. With no winner the
/// base price stands. The comparison price shown is the tier's own, else, for a sale, the
/// base price it undercuts; an override replaces the base pricing entirely.
pub fn resolve(base: BasePrice, quantity: i64, candidates: &[Candidate<'_>]) -> Resolution {
    let mut ordered: Vec<&Candidate<'_>> = candidates.iter().collect();
    ordered.sort_by_key(|c| (std::cmp::Reverse(c.priority), c.price_list_id));
    for candidate in ordered {
        let Some(tier) = tier_for(candidate.tiers, quantity) else {
            continue;
        };
        let price_comparison = match candidate.kind {
            PriceListKind::Override => tier.price_comparison,
            PriceListKind::Sale if tier.price < base.price => {
                tier.price_comparison.or(Some(base.price))
            }
            PriceListKind::Sale => continue,
        };
        return Resolution {
            price: tier.price,
            price_comparison,
            applied: Some(Applied {
                price_list_id: candidate.price_list_id,
                kind: candidate.kind,
                tier: *tier,
            }),
        };
    }
    Resolution {
        price: base.price,
        price_comparison: base.price_comparison,
        applied: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T0: i64 = 1_800_000_000;

    fn terms(contact_ids: &[i64]) -> Terms<'_> {
        Terms {
            status: PriceListStatus::Active,
            currency_code: "USD",
            starts_on: Some(Timestamp::from_secs(T0)),
            ends_on: Some(Timestamp::from_secs(T0 + 100)),
            contact_ids,
        }
    }

    fn at(secs: i64) -> Purchase<'static> {
        Purchase {
            at: Timestamp::from_secs(secs),
            currency_code: "USD",
            contact_id: Some(7),
        }
    }

    fn tier(item_id: i64, min_quantity: i64, price: i64) -> Tier {
        Tier {
            item_id,
            min_quantity,
            price,
            price_comparison: None,
        }
    }

    const BASE: BasePrice = BasePrice {
        price: 1000,
        price_comparison: Some(1200),
    };

    #[test]
    fn applies_when_active_in_dates_currency_and_contact() {
        assert_eq!(terms(&[]).check(&at(T0)), Ok(()), "starts_on is inclusive");
        assert_eq!(terms(&[]).check(&at(T0 + 99)), Ok(()));
        assert_eq!(terms(&[]).check(&at(T0 - 1)), Err(Inapplicable::Dates));
        assert_eq!(
            terms(&[]).check(&at(T0 + 100)),
            Err(Inapplicable::Dates),
            "ends_on is exclusive"
        );
        let open = Terms {
            starts_on: None,
            ends_on: None,
            ..terms(&[])
        };
        assert_eq!(open.check(&at(0)), Ok(()));
        for status in [PriceListStatus::Draft, PriceListStatus::Inactive] {
            let t = Terms {
                status,
                ..terms(&[])
            };
            assert_eq!(t.check(&at(T0)), Err(Inapplicable::Status));
        }
        let euros = Purchase {
            currency_code: "EUR",
            ..at(T0)
        };
        assert_eq!(terms(&[]).check(&euros), Err(Inapplicable::Currency));
        assert_eq!(terms(&[7, 8]).check(&at(T0)), Ok(()));
        assert_eq!(terms(&[8]).check(&at(T0)), Err(Inapplicable::Contact));
        let anonymous = Purchase {
            contact_id: None,
            ..at(T0)
        };
        assert_eq!(terms(&[8]).check(&anonymous), Err(Inapplicable::Contact));
        assert_eq!(terms(&[]).check(&anonymous), Ok(()));
    }

    #[test]
    fn status_is_checked_before_dates_and_explained() {
        let t = Terms {
            status: PriceListStatus::Draft,
            ..terms(&[])
        };
        assert_eq!(t.check(&at(0)), Err(Inapplicable::Status));
        assert!(
            terms(&[])
                .explain(Inapplicable::Dates, &at(T0 - 1))
                .starts_with("the list starts at")
        );
        assert!(
            terms(&[])
                .explain(Inapplicable::Dates, &at(T0 + 100))
                .starts_with("the list ended at")
        );
        assert_eq!(
            terms(&[]).explain(
                Inapplicable::Currency,
                &Purchase {
                    currency_code: "EUR",
                    ..at(T0)
                }
            ),
            "the list prices in USD, not EUR"
        );
    }

    #[test]
    fn dates_must_be_in_order() {
        let t = |s| Some(Timestamp::from_secs(s));
        assert!(check_dates(t(1), t(2)).is_ok());
        assert!(check_dates(t(2), t(2)).is_err());
        assert!(check_dates(t(3), t(2)).is_err());
        assert!(check_dates(None, t(2)).is_ok() && check_dates(t(2), None).is_ok());
    }

    #[test]
    fn the_largest_tier_not_above_the_quantity_counts() {
        let tiers = [tier(1, 1, 900), tier(2, 10, 800), tier(3, 5, 850)];
        assert_eq!(tier_for(&tiers, 1).map(|t| t.item_id), Some(1));
        assert_eq!(tier_for(&tiers, 4).map(|t| t.item_id), Some(1));
        assert_eq!(tier_for(&tiers, 5).map(|t| t.item_id), Some(3));
        assert_eq!(tier_for(&tiers, 9).map(|t| t.item_id), Some(3));
        assert_eq!(tier_for(&tiers, 1000).map(|t| t.item_id), Some(2));
        assert_eq!(tier_for(&[tier(4, 3, 1)], 2), None);
    }

    #[test]
    fn no_candidate_keeps_the_base_price() {
        assert_eq!(
            resolve(BASE, 1, &[]),
            Resolution {
                price: 1000,
                price_comparison: Some(1200),
                applied: None
            }
        );
        let tiers = [tier(1, 5, 500)];
        let only_bulk = Candidate {
            price_list_id: 1,
            kind: PriceListKind::Override,
            priority: 0,
            tiers: &tiers,
        };
        assert_eq!(resolve(BASE, 4, &[only_bulk]).price, 1000);
        assert_eq!(resolve(BASE, 5, &[only_bulk]).price, 500);
    }

    #[test]
    fn priority_then_id_orders_the_lists() {
        let low = [tier(1, 1, 700)];
        let high = [tier(2, 1, 900)];
        let candidates = [
            Candidate {
                price_list_id: 1,
                kind: PriceListKind::Override,
                priority: 0,
                tiers: &low,
            },
            Candidate {
                price_list_id: 2,
                kind: PriceListKind::Override,
                priority: 5,
                tiers: &high,
            },
        ];
        let won = resolve(BASE, 1, &candidates);
        assert_eq!(won.price, 900, "higher priority wins even when dearer");
        assert_eq!(won.applied.map(|a| a.price_list_id), Some(2));
        let tied = [
            Candidate {
                priority: 5,
                ..candidates[0]
            },
            candidates[1],
        ];
        assert_eq!(
            resolve(BASE, 1, &tied).applied.map(|a| a.price_list_id),
            Some(1),
            "equal priority: the lower id wins"
        );
    }

    #[test]
    fn a_list_without_a_tier_for_the_quantity_yields_to_the_next() {
        let bulk = [tier(1, 10, 600)];
        let single = [tier(2, 1, 950)];
        let candidates = [
            Candidate {
                price_list_id: 1,
                kind: PriceListKind::Override,
                priority: 9,
                tiers: &bulk,
            },
            Candidate {
                price_list_id: 2,
                kind: PriceListKind::Override,
                priority: 1,
                tiers: &single,
            },
        ];
        assert_eq!(resolve(BASE, 3, &candidates).price, 950);
        assert_eq!(resolve(BASE, 10, &candidates).price, 600);
    }

    #[test]
    fn override_always_applies_and_sale_only_when_lower() {
        let dearer = [tier(1, 1, 1100)];
        let override_list = Candidate {
            price_list_id: 1,
            kind: PriceListKind::Override,
            priority: 0,
            tiers: &dearer,
        };
        let up = resolve(BASE, 1, &[override_list]);
        assert_eq!((up.price, up.price_comparison), (1100, None));
        let sale = Candidate {
            kind: PriceListKind::Sale,
            ..override_list
        };
        assert_eq!(resolve(BASE, 1, &[sale]).applied, None);
        let same = [tier(2, 1, 1000)];
        let not_lower = Candidate {
            tiers: &same,
            ..sale
        };
        assert_eq!(resolve(BASE, 1, &[not_lower]).price, 1000);
        assert_eq!(resolve(BASE, 1, &[not_lower]).applied, None);
        // A sale passed over lets the next list try.
        let cheaper = [tier(3, 1, 800)];
        let next = Candidate {
            price_list_id: 2,
            kind: PriceListKind::Sale,
            priority: -1,
            tiers: &cheaper,
        };
        let won = resolve(BASE, 1, &[sale, next]);
        assert_eq!(won.price, 800);
        assert_eq!(
            won.price_comparison,
            Some(1000),
            "a sale compares with the base"
        );
        assert_eq!(won.applied.map(|a| a.tier.item_id), Some(3));
        let with_own = [Tier {
            price_comparison: Some(1500),
            ..tier(4, 1, 800)
        }];
        let own = Candidate {
            tiers: &with_own,
            ..next
        };
        assert_eq!(resolve(BASE, 1, &[own]).price_comparison, Some(1500));
    }
}
