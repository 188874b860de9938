//! How a shop admin looks to a client.

use domain::shop_admin::AdminStatus;
use domain::{Role, Scope, ScopeSet, Timestamp};
use hal::{Link, Resource};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
use storage::shop_admins::ShopAdmin;

use crate::kernel::present::Presenter;
use crate::kernel::urls::Urls;
use crate::rels;

#[derive(Serialize, JsonSchema)]
pub struct AdminFields<'a> {
    id: i64,
    shop_id: i64,
    user_id: i64,
    /// The user's address (their sign-in name).
    email: &'a str,
    /// The user's name.
    name: &'a str,
    role: Role,
    /// `invited` until the user accepts the mailed invitation, then `active`.
    status: AdminStatus,
    invited_on: Timestamp,
    /// `null` while invited.
    accepted_on: Option<Timestamp>,
    created_on: Timestamp,
    updated_on: Timestamp,
}

/// An admin with the links a reader with `viewer`'s scopes may follow.
pub fn admin_resource(urls: &Urls, viewer: ScopeSet, admin: &ShopAdmin) -> Resource {
    let fields = AdminFields {
        id: admin.id,
        shop_id: admin.shop_id,
        user_id: admin.user_id,
        email: &admin.email,
        name: &admin.name,
        role: admin.role,
        status: AdminStatus::of(admin.is_accepted()),
        invited_on: admin.invited_on,
        accepted_on: admin.accepted_on,
        created_on: admin.created_on,
        updated_on: admin.updated_on,
    };
    let href = urls.shop_admin(admin.shop_id, admin.id);
    let write = viewer.contains(Scope::ShopsWrite);
    Resource::new(["shop_admin"])
        .with_properties(&fields)
        .link("self", Link::get(href.clone()))
        .rel(&rels::SHOPS_SHOP, urls.shop(admin.shop_id))
        .rel_if(write, &rels::SHOPS_UPDATE_ADMIN, || href.clone())
        .rel_if(write, &rels::SHOPS_DELETE_ADMIN, || href.clone())
}

impl services::shops::admins::Present for Presenter {
    fn shop_admin(&self, viewer: ScopeSet, admin: &ShopAdmin) -> Value {
        admin_resource(&self.urls, viewer, admin).into_value(self.urls.curies())
    }
}
