//! One module per grant type of the token endpoint.

pub mod authorization_code;
pub mod client_credentials;
pub mod jwt_bearer;
pub mod password;
pub mod refresh;
mod renewal;

use domain::limits;
use storage::{Tenant, sellers};

use super::form::Form;
use crate::error::OAuthError;
use crate::service::AuthService;

/// The optional `seller_id` parameter narrows a token to one seller of its account.
async fn seller_binding(
    auth: &AuthService,
    form: &Form,
    account_id: Option<i64>,
) -> Result<Option<i64>, OAuthError> {
    let Some(raw) = form.get("seller_id") else {
        return Ok(None);
    };
    let unknown =
        || OAuthError::invalid_request("seller_id does not name a seller of this account");
    let seller_id = limits::ID.parse(raw).map_err(|_| unknown())?;
    let account_id = account_id.ok_or_else(unknown)?;
    let tenant = Tenant {
        account_id,
        seller_id: None,
    };
    match sellers::find(&auth.db, tenant, seller_id).await? {
        Some(_) => Ok(Some(seller_id)),
        None => Err(unknown()),
    }
}
