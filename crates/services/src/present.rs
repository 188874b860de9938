//! How resources look, for event payloads: each area whose operations record events
//! declares what it needs shown (`orders::Present`, …), and the HTTP layer implements it
//! with the representations its GETs answer, so a subscriber receives the resource exactly
//! as a GET by the actor shows it. An area adds its trait here, once.

use crate::{
    assets, batches, collections, customers, exchange_rates, order_documents, orders,
    payment_methods, payments, price_lists, product_types, products, shipping_tables, shops,
    subscription_fees, subscription_purchases, variants, webhooks,
};

pub trait Present:
    assets::Present
    + batches::Present
    + collections::Present
    + customers::Present
    + exchange_rates::Present
    + order_documents::Present
    + orders::Present
    + payment_methods::Present
    + payments::Present
    + price_lists::Present
    + products::Present
    + product_types::Present
    + shipping_tables::Present
    + shops::Present
    + shops::admins::Present
    + subscription_fees::Present
    + subscription_purchases::Present
    + variants::Present
    + webhooks::Present
    + Send
    + Sync
{
}

impl<T> Present for T where
    T: assets::Present
        + batches::Present
        + collections::Present
        + customers::Present
        + exchange_rates::Present
        + order_documents::Present
        + orders::Present
        + payment_methods::Present
        + payments::Present
        + price_lists::Present
        + products::Present
        + product_types::Present
        + shipping_tables::Present
        + shops::Present
        + shops::admins::Present
        + subscription_fees::Present
        + subscription_purchases::Present
        + variants::Present
        + webhooks::Present
        + Send
        + Sync
{
}
