//! Who performs an operation: whose data it touches (the tenant), what it may see (its
//! scopes, which also decide the links of the resources it is shown), and who is named as
//! the cause of the events it records.

use domain::ScopeSet;
use storage::Tenant;
use storage::events;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Who {
    /// A person, through an app (a token of the password, code or implicit grant, or a
    /// personal token).
    User {
        id: i64,
        name: Option<String>,
        app_id: i64,
    },
    /// An app acting for itself (client credentials).
    App { app_id: i64 },
    /// A shop's customer, signed in through a storefront app, acting on their own data.
    Customer { id: i64, app_id: i64 },
    /// The service itself: a scheduler or another background job, named for the logs.
    System { job: &'static str },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Actor {
    pub who: Who,
    pub tenant: Tenant,
    pub scopes: ScopeSet,
}

impl Actor {
    /// The service acting on a seller's data for a background job. It may do what an
    /// account's owner may through an app (every area scope; credentials are never its
    /// business), so the resources it records in events look as they look to an owner.
    pub fn system(job: &'static str, account_id: i64, seller_id: i64) -> Self {
        Self {
            who: Who::System { job },
            tenant: Tenant {
                account_id,
                seller_id: Some(seller_id),
            },
            scopes: domain::role::app_ceiling(),
        }
    }

    /// How events name this actor.
    pub(crate) fn as_event_actor(&self) -> events::Actor<'_> {
        match &self.who {
            Who::User { id, name, app_id } => events::Actor {
                user_id: Some(*id),
                user_name: name.as_deref(),
                app_id: Some(*app_id),
            },
            Who::App { app_id } | Who::Customer { app_id, .. } => events::Actor {
                user_id: None,
                user_name: None,
                app_id: Some(*app_id),
            },
            Who::System { .. } => events::Actor::default(),
        }
    }

    /// The app the actor acts through, which writes such as orders remember.
    pub fn app_id(&self) -> Option<i64> {
        match &self.who {
            Who::User { app_id, .. } | Who::App { app_id } | Who::Customer { app_id, .. } => {
                Some(*app_id)
            }
            Who::System { .. } => None,
        }
    }
}
