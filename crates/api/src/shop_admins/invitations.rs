//! The shops' operations behind the authorization service's invitation page
//! (`oauth::Invitations`): what a code opens, and accepting it, which records the roster's
//! events as every write does.

use oauth::{InvitationLookup, Invitations, Pending};
use services::Services;
use services::shops::admins::invitations::{self, Lookup};

/// The operations, with resources shown as this API shows them.
pub struct ShopInvitations(pub Services);

impl Invitations for ShopInvitations {
    fn look_up<'a>(&'a self, code: &'a str) -> Pending<'a, InvitationLookup> {
        Box::pin(async move {
            Ok(match invitations::look_up(&self.0, code).await? {
                Lookup::Open(invitation) => InvitationLookup::Open {
                    email: invitation.email,
                    name: invitation.name,
                    shops: invitation.shops,
                },
                Lookup::Spent => InvitationLookup::Spent,
                Lookup::Unknown => InvitationLookup::Unknown,
            })
        })
    }

    fn accept<'a>(
        &'a self,
        code: &'a str,
        name: Option<&'a str>,
        password_hash: &'a str,
    ) -> Pending<'a, bool> {
        Box::pin(async move {
            let accepted = invitations::accept(&self.0, code, name, password_hash).await?;
            Ok(accepted.is_some())
        })
    }
}
