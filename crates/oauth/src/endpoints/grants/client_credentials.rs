//! `client_credentials`: an app acting for itself, seeing its own account (or none).

use storage::apps::App;

use super::seller_binding;
use crate::endpoints::form::Form;
use crate::error::OAuthError;
use crate::grant::GrantType;
use crate::issue::TokenAnswer;
use crate::principal::Subject;
use crate::scope_policy;
use crate::service::AuthService;
use crate::tokens::TokenGrant;

pub async fn exchange(
    auth: &AuthService,
    app: &App,
    form: &Form,
) -> Result<TokenAnswer, OAuthError> {
    let scopes = scope_policy::for_app(app, scope_policy::parse_requested(form.get("scope"))?)?;
    let grant = TokenGrant {
        subject: Subject::App,
        user_name: None,
        app_id: app.id,
        client_id: app.client_id.clone(),
        account_id: app.account_id,
        seller_id: seller_binding(auth, form, app.account_id).await?,
        scopes,
        family_id: None,
    };
    let now = auth.clock.now();
    let mut tx = auth.db.begin().await?;
    let answer = auth
        .issue(&mut tx, &grant, GrantType::ClientCredentials, None, now)
        .await?;
    tx.commit().await?;
    Ok(answer)
}
