//! Orders: creating one in checkout with priced lines, changing it, moving it along the
//! state machine with its stock, and deleting it — each one transaction with its event.

pub mod input;
pub mod payments;
mod pricing;
pub(crate) mod renewals;
mod stock;

use domain::ScopeSet;
use domain::order::{self, OrderStatus, StockEffect, Transition};
use domain::{FieldErrors, topic};
use serde_json::Value;
use storage::mail_outbox::{self, NewMail};
use storage::orders::{self as stored, LineData, Order, OrderLine, Tracking};
use storage::secret_box::SecretBox;
use storage::shops::{self, Shop};
use storage::{ScopedExt, Tx, tenant_rows};

use self::input::{
    NewOrder, OrderChanges, OrderDraft, ShipInput, ShippingChoice, TrackingInput, WantedLine,
};
use self::pricing::{Priced, Terms, price};
use crate::customers::{self, ContactOf};
use crate::events::Change;
use crate::payment_methods;
use crate::{Actor, Op, Precondition, ServiceError, ServiceResult, Services, Shown};

/// How an order looks to a reader with `viewer`'s scopes (its GET).
pub trait Present {
    fn order(&self, viewer: ScopeSet, order: &Order, lines: &[OrderLine]) -> Value;
}

/// An order with its lines, as written.
#[derive(Clone, Debug)]
pub struct FullOrder {
    pub order: Order,
    pub lines: Vec<OrderLine>,
}

/// Creates an order in checkout in the shop, its lines priced by the price-list rule.
pub async fn create(
    services: &Services,
    actor: &Actor,
    shop_id: i64,
    input: NewOrder,
) -> ServiceResult<Shown<FullOrder>> {
    let mut errors = FieldErrors::new();
    let draft = input.validate(&mut errors);
    let op = Op::new(services, actor);
    let (draft, found) = (&draft, &errors);
    services
        .write(|tx| {
            async move {
                let mut errors = found.clone();
                let shop = shops::find(&mut *tx, actor.tenant, shop_id)
                    .await?
                    .ok_or(ServiceError::NotFound)?;
                let mut details = draft.details.clone();
                details.contact_id =
                    linked_contact(tx, op, &shop, draft, None, &mut errors).await?;
                details.payment_method =
                    payment_methods::chosen(tx, op, &shop, draft.payment_method, None, &mut errors)
                        .await?;
                let wanted = draft.lines.as_deref().unwrap_or_default();
                let terms = terms_of(draft, &details);
                let priced = price(tx, &shop, wanted, terms, op.now, &mut errors).await?;
                errors.into_result()?;

                let code = stored::next_code(tx, shop.id).await?;
                let new = stored::NewOrder {
                    account_id: shop.account_id,
                    seller_id: shop.seller_id,
                    shop_id: shop.id,
                    code,
                    currency_code: &priced.currency_code,
                    details: &details,
                    basis: &priced.basis,
                    totals: priced.totals,
                    app_id: actor.app_id(),
                    renewal: None,
                };
                let id = stored::insert(tx, &new, op.now).await?;
                stored::insert_lines(tx, id, &priced.lines).await?;
                let written = reload(tx, op, id).await?;
                let shown = record(tx, op, topic::ORDERS_CREATED_CHECKOUT, &shop, &written).await?;
                Ok(Shown::new(written, shown))
            }
            .scoped()
        })
        .await
}

/// Applies changes to an order (its lines repriced when they change).
pub async fn update(
    services: &Services,
    actor: &Actor,
    id: i64,
    expect: &dyn Precondition,
    changes: OrderChanges,
) -> ServiceResult<Shown<FullOrder>> {
    let op = Op::new(services, actor);
    let changes = &changes;
    services
        .write(|tx| {
            async move {
                let current = locked(tx, op, id, expect).await?;
                let mut errors = FieldErrors::new();
                let draft = changes.clone().apply(&current.order, &mut errors);
                let shop = shop_of(tx, op, &current.order).await?;
                let before: Vec<LineData> = current.lines.iter().map(|l| l.sold.clone()).collect();
                let mut details = draft.details.clone();
                details.contact_id =
                    linked_contact(tx, op, &shop, &draft, current.order.contact_id, &mut errors)
                        .await?;
                details.payment_method = payment_methods::chosen(
                    tx,
                    op,
                    &shop,
                    draft.payment_method,
                    current.order.payment_method(),
                    &mut errors,
                )
                .await?;
                // Prices depend on the buyer: a cart that changes hands is priced again, as is
                // one whose lines, shipping, address or currency change.
                let contact = details.contact_id;
                let priced = if draft.reprice || contact != current.order.contact_id {
                    let wanted = match &draft.lines {
                        Some(wanted) => wanted.clone(),
                        None => wanted_of(&current.lines, &mut errors),
                    };
                    let terms = terms_of(&draft, &details);
                    price(tx, &shop, &wanted, terms, op.now, &mut errors).await?
                } else {
                    kept(&current)
                };
                errors.into_result()?;

                let mut order = current.order.clone();
                order.set_details(details);
                let lines = priced.lines;
                order.set_pricing(priced.currency_code, priced.basis, priced.totals);
                if order == current.order && lines == before {
                    let shown = show(op, &current);
                    return Ok(Shown::new(current, shown));
                }
                stored::save(tx, &order, op.now).await?;
                if lines != before {
                    stored::write_lines(tx, id, &lines).await?;
                }
                let written = reload(tx, op, id).await?;
                let shown = record(tx, op, topic::ORDERS_UPDATED, &shop, &written).await?;
                Ok(Shown::new(written, shown))
            }
            .scoped()
        })
        .await
}

/// Moves an order along the state machine, taking or giving back its stock as the move
/// says. `ship` carries the tracking.
pub async fn transition(
    services: &Services,
    actor: &Actor,
    id: i64,
    expect: &dyn Precondition,
    transition: Transition,
    shipment: Option<ShipInput>,
) -> ServiceResult<Shown<FullOrder>> {
    let mut errors = FieldErrors::new();
    let tracking = shipment.map(|s| s.validate(&mut errors));
    let op = Op::new(services, actor);
    let (tracking, found) = (&tracking, &errors);
    services
        .write(|tx| {
            async move {
                let current = locked(tx, op, id, expect).await?;
                apply_move(
                    tx,
                    op,
                    current,
                    transition,
                    tracking.as_ref(),
                    found.clone(),
                )
                .await
            }
            .scoped()
        })
        .await
}

/// Makes a move of an order the caller holds locked, in its transaction: the stock, the
/// customer's figures, the refunds a cancel opens, and the move's event. `errors` holds
/// what the request got wrong already.
pub(crate) async fn apply_move(
    tx: &mut Tx,
    op: Op<'_>,
    current: FullOrder,
    transition: Transition,
    tracking: Option<&Tracking>,
    mut errors: FieldErrors,
) -> ServiceResult<Shown<FullOrder>> {
    let (to, effect) = match order::transition(current.order.status, transition) {
        Ok(outcome) => outcome,
        Err(refused) => {
            errors.add("status", refused.to_string());
            return Err(errors.into());
        }
    };
    let mut current = current;
    // A renewal order is priced by its subscription purchase, not the catalog.
    if transition == Transition::Place && current.order.subscription_purchase_id.is_none() {
        price_to_place(tx, op, &mut current, &mut errors).await?;
    }
    errors.into_result()?;
    if effect != StockEffect::None {
        stock::move_stock(tx, op, &current.order, &current.lines, effect).await?;
    }
    let id = current.order.id;
    let mut order = current.order;
    let from = order.status;
    order.enter(to, op.now);
    if let Some(tracking) = tracking {
        order.set_tracking(tracking.clone());
    }
    stored::save(tx, &order, op.now).await?;
    customers::record_order_move(tx, op, &order, from).await?;
    let shop = shop_of(tx, op, &order).await?;
    if transition == Transition::Cancel {
        crate::payments::refunds::open(tx, op, &shop, &order).await?;
        crate::subscription_purchases::cancel_of_order(tx, op, &shop, &order).await?;
    }
    let written = reload(tx, op, id).await?;
    let shown = record(tx, op, transition.topic(), &shop, &written).await?;
    Ok(Shown::new(written, shown))
}

/// Sets a shipment's tracking: a closed order ships with it (`orders.updated.shipped`), a
/// shipped one has it changed (`orders.updated`, when it changes). With `notify`, the
/// order's email is sent the shipment through the mail outbox, in the same transaction.
pub async fn track(
    services: &Services,
    actor: &Actor,
    secret_box: &SecretBox,
    id: i64,
    expect: &dyn Precondition,
    input: TrackingInput,
) -> ServiceResult<Shown<FullOrder>> {
    let mut errors = FieldErrors::new();
    let (tracking, notify) = input.validate(&mut errors);
    let op = Op::new(services, actor);
    let (tracking, found) = (&tracking, &errors);
    services
        .write(|tx| {
            async move {
                let mut errors = found.clone();
                let current = locked(tx, op, id, expect).await?;
                let ships = match current.order.status {
                    OrderStatus::Closed => true,
                    OrderStatus::Shipped => false,
                    other => {
                        errors.add(
                            "status",
                            format!("tracking is set on a closed or shipped order (it is {other})"),
                        );
                        true
                    }
                };
                if notify && current.order.email.is_none() {
                    errors.add("notify", "the order has no email to notify");
                }
                errors.into_result()?;
                let mut order = current.order.clone();
                if ships {
                    order.enter(OrderStatus::Shipped, op.now);
                }
                order.set_tracking(tracking.clone());
                let shop = shop_of(tx, op, &order).await?;
                if notify {
                    mail_shipment(tx, op, secret_box, &shop, &order).await?;
                }
                if order == current.order {
                    let shown = show(op, &current);
                    return Ok(Shown::new(current, shown));
                }
                stored::save(tx, &order, op.now).await?;
                customers::record_order_move(tx, op, &order, current.order.status).await?;
                let written = reload(tx, op, id).await?;
                let topic = if ships {
                    Transition::Ship.topic()
                } else {
                    topic::ORDERS_UPDATED
                };
                let shown = record(tx, op, topic, &shop, &written).await?;
                Ok(Shown::new(written, shown))
            }
            .scoped()
        })
        .await
}

/// What the shipment mail is recorded as.
pub const SHIPMENT_MAIL: &str = "order_shipped";

/// Writes the shipment mail to the order's email in the caller's transaction.
async fn mail_shipment(
    tx: &mut Tx,
    op: Op<'_>,
    secret_box: &SecretBox,
    shop: &Shop,
    order: &Order,
) -> ServiceResult<()> {
    let Some(to) = order.email.as_deref() else {
        return Ok(());
    };
    let mut text = format!(
        "Your order {code} from {shop} is on its way.\n",
        code = order.code,
        shop = shop.name
    );
    for (label, value) in [
        ("Courier", &order.courier_name),
        ("Tracking code", &order.tracking_code),
        ("Follow it at", &order.tracking_url),
    ] {
        if let Some(value) = value {
            text.push_str(&format!("{label}: {value}\n"));
        }
    }
    let mail = NewMail {
        account_id: Some(order.account_id),
        purpose: SHIPMENT_MAIL,
        to,
        subject: &format!("Your order {} from {} has shipped", order.code, shop.name),
        text: &text,
    };
    mail_outbox::enqueue(tx, secret_box, &mail, op.now).await?;
    Ok(())
}

/// Deletes an order still in checkout; answers it as it was.
pub async fn delete(
    services: &Services,
    actor: &Actor,
    id: i64,
    expect: &dyn Precondition,
) -> ServiceResult<Shown<FullOrder>> {
    let op = Op::new(services, actor);
    services
        .write(|tx| {
            async move {
                let current = locked(tx, op, id, expect).await?;
                if !current.order.status.is_editable() {
                    return Err(ServiceError::invalid_field(
                        "status",
                        format!(
                            "only an order in checkout can be deleted (it is {}); cancel it instead",
                            current.order.status
                        ),
                    ));
                }
                let shop = shop_of(tx, op, &current.order).await?;
                tenant_rows::delete(tx, stored::TABLE, op.actor.tenant, id).await?;
                let shown = record(tx, op, topic::ORDERS_DELETED, &shop, &current).await?;
                Ok(Shown::new(current, shown))
            }
            .scoped()
        })
        .await
}

/// Prices an order being placed one last time: it costs what the catalog, its shipping
/// table and the exchange rate say as it is placed. Problems go to `errors`, and then
/// nothing is written.
async fn price_to_place(
    tx: &mut Tx,
    op: Op<'_>,
    current: &mut FullOrder,
    errors: &mut FieldErrors,
) -> ServiceResult<()> {
    let shop = shop_of(tx, op, &current.order).await?;
    let order = &current.order;
    let terms = Terms {
        contact_id: order.contact_id,
        currency_code: Some(&order.currency_code),
        shipping: ShippingChoice::of(order),
        shipping_address: order.shipping_address.0.as_ref(),
    };
    let wanted = wanted_of(&current.lines, errors);
    let priced = price(tx, &shop, &wanted, terms, op.now, errors).await?;
    if !errors.is_empty() {
        return Ok(());
    }
    if !priced
        .lines
        .iter()
        .eq(current.lines.iter().map(|l| &l.sold))
    {
        stored::write_lines(tx, order.id, &priced.lines).await?;
        current.lines = stored::lines_of(&mut *tx, &[order.id]).await?;
    }
    current
        .order
        .set_pricing(priced.currency_code, priced.basis, priced.totals);
    Ok(())
}

/// What the draft prices the order with.
fn terms_of<'a>(draft: &'a OrderDraft, details: &'a storage::orders::OrderDetails) -> Terms<'a> {
    Terms {
        contact_id: details.contact_id,
        currency_code: draft.currency_code.as_deref(),
        shipping: draft.shipping,
        shipping_address: details.shipping_address.as_ref(),
    }
}

/// The lines an order has, as lines to price again; a line whose variant has gone since
/// cannot be, and goes to `errors`.
fn wanted_of(lines: &[OrderLine], errors: &mut FieldErrors) -> Vec<WantedLine> {
    let mut wanted = Vec::with_capacity(lines.len());
    for (i, line) in lines.iter().enumerate() {
        match line.sold.variant_id {
            Some(variant_id) => wanted.push(WantedLine {
                variant_id,
                quantity: line.sold.quantity,
                subscription_fee_id: line.sold.subscription_fee_id,
            }),
            None => errors.add(
                format!("lines[{i}].variant_id"),
                "the line's variant has been deleted since: give the order's lines again",
            ),
        }
    }
    wanted
}

/// The order as it is priced now.
fn kept(current: &FullOrder) -> Priced {
    let order = &current.order;
    Priced {
        lines: current.lines.iter().map(|l| l.sold.clone()).collect(),
        totals: order.totals(),
        basis: order.basis.clone(),
        currency_code: order.currency_code.clone(),
    }
}

/// The customer the order is to be linked to, as the draft says.
async fn linked_contact(
    tx: &mut Tx,
    op: Op<'_>,
    shop: &Shop,
    draft: &OrderDraft,
    current: Option<i64>,
    errors: &mut FieldErrors,
) -> ServiceResult<Option<i64>> {
    let details = &draft.details;
    let order = ContactOf {
        current,
        email: details.email.as_deref(),
        name: details.contact_name.as_deref(),
        phone_number: details.phone_number.as_deref(),
    };
    customers::resolve_contact(tx, op, shop.seller_id, draft.contact, order, errors).await
}

/// The order with its lines, locked, once the caller's expectation of it holds.
/// The order with its lines, locked, whatever its version.
pub(crate) async fn locked_order(tx: &mut Tx, op: Op<'_>, id: i64) -> ServiceResult<FullOrder> {
    locked(tx, op, id, &crate::Unconditional).await
}

pub(crate) async fn locked(
    tx: &mut Tx,
    op: Op<'_>,
    id: i64,
    expect: &dyn Precondition,
) -> ServiceResult<FullOrder> {
    let order = stored::find_for_update(tx, op.actor.tenant, id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    let lines = stored::lines_of(&mut *tx, &[id]).await?;
    let current = FullOrder { order, lines };
    expect.check(&|| show(op, &current), current.order.updated_on)?;
    Ok(current)
}

/// The order as its tenant reads it now, inside the transaction.
async fn reload(tx: &mut Tx, op: Op<'_>, id: i64) -> ServiceResult<FullOrder> {
    let order = stored::find(&mut *tx, op.actor.tenant, id)
        .await?
        .ok_or_else(|| ServiceError::internal(format!("order {id}, just written, is not found")))?;
    let lines = stored::lines_of(&mut *tx, &[id]).await?;
    Ok(FullOrder { order, lines })
}

async fn shop_of(tx: &mut Tx, op: Op<'_>, order: &Order) -> ServiceResult<Shop> {
    shops::find(&mut *tx, op.actor.tenant, order.shop_id)
        .await?
        .ok_or_else(|| ServiceError::internal(format!("order {}'s shop is not found", order.id)))
}

/// The order as a GET by the actor shows it.
fn show(op: Op<'_>, written: &FullOrder) -> Value {
    op.present()
        .order(op.actor.scopes, &written.order, &written.lines)
}

/// Records an order event, heard by the subscriptions of the order's shop, with the order
/// as a GET by the actor shows it; returns that document.
async fn record(
    tx: &mut Tx,
    op: Op<'_>,
    topic: &'static str,
    shop: &Shop,
    written: &FullOrder,
) -> ServiceResult<Value> {
    let doc = show(op, written);
    let order = &written.order;
    let code = order.code.to_string();
    let change = Change::in_shop(topic, shop, "order", order.id, Some(&code), &doc);
    op.record(tx, change).await?;
    Ok(doc)
}
