//! Gateways: where a payment method's charges and refunds go. A gateway is called outside
//! every transaction (it may be slow or fail), with a key that names the attempt, so that
//! calling it again for the same attempt (after a crash, or a sweep that overlaps the
//! request) charges or refunds once; real gateways pass it on as their idempotency key.
//!
//! The built-in test gateway moves no money: the card number decides the outcome, as in
//! Stripe's test mode.
//!
//! | Card number | Outcome |
//! |---|---|
//! | `4242424242424242`, `5555555555554444`, `378282246310005` | approved |
//! | `4000000000005126` | approved; its refund fails (`processing_error`) |
//! | `4000000000000002` | declined, `card_declined` |
//! | `4000000000009995` | declined, `insufficient_funds` |
//! | `4000000000000119` | gateway error, `processing_error` |
//! | `4000000000000341` | approved; charges of the card saved from it are declined (`card_declined`) |
//! | any other valid number | declined, `incorrect_number` (not a test card) |
//!
//! A charge may ask the gateway to save its card for later charges (a subscription's
//! renewals): an approved one then answers a token of the saved card, which later charges
//! name instead of a card. The test gateway's tokens name the card's last four digits, and
//! a charge of a saved card has the outcome of its card, except as the table says.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use domain::payment::MethodType;

/// A card as a charge carries it to the gateway; never stored, never logged (its `Debug`
/// shows the last four digits only).
#[derive(Clone, PartialEq, Eq)]
pub struct Card {
    pub number: String,
    pub exp_month: i64,
    pub exp_year: i64,
    pub cvc: String,
}

impl std::fmt::Debug for Card {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Card(…{}, {:02}/{})",
            domain::payment::last4(&self.number),
            self.exp_month,
            self.exp_year
        )
    }
}

/// A charge to make.
#[derive(Debug)]
pub struct Charge<'a> {
    /// Names the attempt: the same key charges once.
    pub key: &'a str,
    pub amount: i64,
    pub currency_code: &'a str,
    pub source: Source<'a>,
}

/// What a charge takes the money from.
#[derive(Clone, Copy, Debug)]
pub enum Source<'a> {
    /// A card given now; with `save`, kept by the gateway for later charges.
    Card { card: &'a Card, save: bool },
    /// A card the gateway saved on an earlier charge, by its token.
    SavedCard(&'a str),
}

/// A refund of a charge the gateway made.
#[derive(Debug)]
pub struct Refund<'a> {
    /// Names the attempt: the same key refunds once.
    pub key: &'a str,
    /// The gateway's reference of the charge.
    pub charge_reference: &'a str,
    pub amount: i64,
    pub currency_code: &'a str,
}

/// What a gateway answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Done; the gateway's reference of the charge or refund, and the token of the card
    /// it saved when asked to.
    Approved {
        reference: String,
        saved_card: Option<String>,
    },
    /// The card was refused: a stable code and the gateway's words.
    Declined { code: String, message: String },
    /// The gateway failed: nothing was charged or refunded.
    Error { code: String, message: String },
}

/// The secret and public settings of the method, as the gateway reads them.
pub type Credentials = BTreeMap<String, String>;

type Answer<'a> = Pin<Box<dyn Future<Output = Outcome> + Send + 'a>>;

pub trait Gateway: Send + Sync {
    fn charge<'a>(&'a self, credentials: &'a Credentials, charge: Charge<'a>) -> Answer<'a>;
    fn refund<'a>(&'a self, credentials: &'a Credentials, refund: Refund<'a>) -> Answer<'a>;
}

/// The gateway of a method type; `None` for the manual methods, whose payments the
/// merchant records.
pub fn of(method_type: MethodType) -> Option<&'static dyn Gateway> {
    match method_type {
        MethodType::TestGateway => Some(&TestGateway),
        MethodType::BankTransfer | MethodType::CashOnDelivery => None,
    }
}

/// The test gateway (see the module's table).
pub struct TestGateway;

/// The card whose charges are approved and whose refunds fail.
const REFUND_FAILS: &str = "4000000000005126";
/// The card that is approved and saved, and whose saved card is declined.
const SAVED_DECLINES: &str = "4000000000000341";
/// Starts the test gateway's tokens of saved cards; the card's last four digits follow.
const SAVED_CARD_PREFIX: &str = "test_card_";

impl TestGateway {
    fn decide(number: &str) -> Result<(), (bool, &'static str, &'static str)> {
        match number {
            "4242424242424242" | "5555555555554444" | "378282246310005" | REFUND_FAILS
            | SAVED_DECLINES => Ok(()),
            "4000000000000002" => Err((true, "card_declined", "the card was declined")),
            "4000000000009995" => Err((
                true,
                "insufficient_funds",
                "the card has insufficient funds",
            )),
            "4000000000000119" => Err((
                false,
                "processing_error",
                "the gateway failed to process the card; try again",
            )),
            _ => Err((
                true,
                "incorrect_number",
                "not a test card: the test gateway approves 4242424242424242",
            )),
        }
    }

    /// The test card a saved card's token was made from, if it is one of ours.
    fn saved(token: &str) -> Option<&'static str> {
        let last4 = token.strip_prefix(SAVED_CARD_PREFIX)?.get(..4)?;
        [
            "4242424242424242",
            "5555555555554444",
            "378282246310005",
            REFUND_FAILS,
            "4000000000000002",
            "4000000000009995",
            "4000000000000119",
            SAVED_DECLINES,
        ]
        .into_iter()
        .find(|number| number.ends_with(last4))
    }

    /// The outcome of a charge from `source`: the card's, or its saved card's.
    fn decide_source(source: Source<'_>) -> Result<&str, (bool, &'static str, &'static str)> {
        match source {
            Source::Card { card, .. } => Self::decide(&card.number).map(|()| card.number.as_str()),
            Source::SavedCard(token) => match Self::saved(token) {
                Some(SAVED_DECLINES) => Err((true, "card_declined", "the card was declined")),
                Some(number) => Self::decide(number).map(|()| number),
                None => Err((true, "no_such_card", "the gateway saved no such card")),
            },
        }
    }

    /// A reference made from the attempt's key: the same attempt gets the same one.
    fn reference(prefix: &str, key: &str) -> String {
        let digest = storage::secrets::sha256(key.as_bytes());
        format!("{prefix}{}", hex::encode(&digest[..12]))
    }

    /// Waits as long as the method's `latency_ms` says (a sandbox's slow gateway).
    async fn latency(credentials: &Credentials) {
        let ms = credentials
            .get("latency_ms")
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0);
        if ms > 0 {
            tokio::time::sleep(Duration::from_millis(ms)).await;
        }
    }
}

impl Gateway for TestGateway {
    fn charge<'a>(&'a self, credentials: &'a Credentials, charge: Charge<'a>) -> Answer<'a> {
        Box::pin(async move {
            Self::latency(credentials).await;
            match Self::decide_source(charge.source) {
                Ok(number) => {
                    let mut reference = Self::reference("test_ch_", charge.key);
                    if number == REFUND_FAILS {
                        reference.push_str(REFUND_FAILS_SUFFIX);
                    }
                    let saved_card = match charge.source {
                        Source::Card { save: true, .. } => {
                            let token = Self::reference("", charge.key);
                            let last4 = domain::payment::last4(number);
                            Some(format!("{SAVED_CARD_PREFIX}{last4}_{token}"))
                        }
                        _ => None,
                    };
                    Outcome::Approved {
                        reference,
                        saved_card,
                    }
                }
                Err((true, code, message)) => Outcome::Declined {
                    code: code.into(),
                    message: message.into(),
                },
                Err((false, code, message)) => Outcome::Error {
                    code: code.into(),
                    message: message.into(),
                },
            }
        })
    }

    fn refund<'a>(&'a self, credentials: &'a Credentials, refund: Refund<'a>) -> Answer<'a> {
        Box::pin(async move {
            Self::latency(credentials).await;
            if refund.charge_reference.ends_with(REFUND_FAILS_SUFFIX) {
                Outcome::Error {
                    code: "processing_error".into(),
                    message: "the gateway failed to refund the charge".into(),
                }
            } else {
                Outcome::Approved {
                    reference: Self::reference("test_re_", refund.key),
                    saved_card: None,
                }
            }
        })
    }
}

/// Ends the reference of a charge made with the card whose refunds fail.
const REFUND_FAILS_SUFFIX: &str = "_rf";

#[cfg(test)]
mod tests {
    use super::*;

    fn card(number: &str) -> Card {
        Card {
            number: number.into(),
            exp_month: 12,
            exp_year: 2099,
            cvc: "123".into(),
        }
    }

    async fn charge(number: &str, key: &str) -> Outcome {
        let card = card(number);
        let charge = Charge {
            key,
            amount: 100,
            currency_code: "USD",
            source: Source::Card {
                card: &card,
                save: false,
            },
        };
        TestGateway.charge(&Credentials::new(), charge).await
    }

    async fn refund(reference: &str) -> Outcome {
        let refund = Refund {
            key: "refund-1",
            charge_reference: reference,
            amount: 100,
            currency_code: "USD",
        };
        TestGateway.refund(&Credentials::new(), refund).await
    }

    #[tokio::test]
    async fn the_card_number_decides_and_the_key_names_the_charge() {
        let approved = charge("4242424242424242", "payment-1").await;
        assert_eq!(approved, charge("4242424242424242", "payment-1").await);
        assert_ne!(approved, charge("4242424242424242", "payment-2").await);
        let Outcome::Approved { reference, .. } = approved else {
            panic!("{approved:?}")
        };
        assert!(matches!(refund(&reference).await, Outcome::Approved { .. }));
        assert!(matches!(
            charge("4000000000000002", "k").await,
            Outcome::Declined { code, .. } if code == "card_declined"
        ));
        assert!(matches!(
            charge("4000000000000119", "k").await,
            Outcome::Error { code, .. } if code == "processing_error"
        ));
        assert!(matches!(
            charge("4111111111111111", "k").await,
            Outcome::Declined { code, .. } if code == "incorrect_number"
        ));
        let Outcome::Approved { reference, .. } = charge(REFUND_FAILS, "k").await else {
            panic!()
        };
        assert!(matches!(refund(&reference).await, Outcome::Error { .. }));
    }

    async fn charge_from(source: Source<'_>, key: &str) -> Outcome {
        let charge = Charge {
            key,
            amount: 100,
            currency_code: "USD",
            source,
        };
        TestGateway.charge(&Credentials::new(), charge).await
    }

    #[tokio::test]
    async fn a_saved_card_is_charged_as_its_card_and_the_0341_card_is_saved_but_declined() {
        let saved = |number: &'static str| async move {
            let card = card(number);
            let source = Source::Card {
                card: &card,
                save: true,
            };
            match charge_from(source, "first").await {
                Outcome::Approved {
                    saved_card: Some(token),
                    ..
                } => token,
                other => panic!("{other:?}"),
            }
        };
        let good = saved("4242424242424242").await;
        assert!(good.starts_with("test_card_4242_"), "{good}");
        assert!(matches!(
            charge_from(Source::SavedCard(&good), "renewal").await,
            Outcome::Approved {
                saved_card: None,
                ..
            }
        ));
        let declines = saved(SAVED_DECLINES).await;
        assert!(matches!(
            charge_from(Source::SavedCard(&declines), "renewal").await,
            Outcome::Declined { code, .. } if code == "card_declined"
        ));
        assert!(matches!(
            charge_from(Source::SavedCard("pm_other"), "renewal").await,
            Outcome::Declined { code, .. } if code == "no_such_card"
        ));
        // Not asked to save: no token.
        assert!(matches!(
            charge("4242424242424242", "k").await,
            Outcome::Approved {
                saved_card: None,
                ..
            }
        ));
    }

    #[test]
    fn a_card_shows_only_its_last_digits() {
        let shown = format!("{:?}", card("4242424242424242"));
        assert_eq!(shown, "Card(…4242, 12/2099)");
    }
}
