//! Which scopes a token may get: what the app may ask for, bounded by the user's role,
//! with a default when the request names none.
//!
//! Every grant that picks scopes comes through here, which is what keeps the credentials
//! scopes from third-party apps: `admin` does not imply them (see `domain::scope`), so an
//! app gets them only if an operator registered it with them by name, and never for
//! itself (client credentials). Refresh and JWT-bearer renewal keep the scopes already
//! granted, so they cannot add any.

use domain::role::app_ceiling;
use domain::{Role, ScopeSet};
use storage::apps::App;

use crate::error::OAuthError;

/// Parses a `scope` parameter (comma- and/or space-separated).
pub fn parse_requested(scope: Option<&str>) -> Result<Option<ScopeSet>, OAuthError> {
    scope
        .map(|s| {
            ScopeSet::parse(s).map_err(|_| {
                OAuthError::invalid_scope("the scope names a scope that does not exist")
            })
        })
        .transpose()
}

/// The scopes an app registered.
pub fn app_scopes(app: &App) -> Result<ScopeSet, OAuthError> {
    ScopeSet::parse(&app.scopes).map_err(|err| {
        tracing::error!(error = %err, app = app.id, "an app's registered scopes do not parse");
        OAuthError::server_error()
    })
}

/// Scopes for an app acting for itself: within the app's, and never a credentials scope
/// (those manage a user's credentials); by default the app's registered scopes but those.
pub fn for_app(app: &App, requested: Option<ScopeSet>) -> Result<ScopeSet, OAuthError> {
    let allowed = app_scopes(app)?;
    let scopes = requested.unwrap_or_else(|| allowed.intersection(app_ceiling()));
    if !scopes.within(allowed) {
        return Err(OAuthError::invalid_scope(
            "the scope exceeds what this client may ask for",
        ));
    }
    if !scopes.is_subset_of(app_ceiling()) {
        return Err(OAuthError::invalid_scope(
            "the credentials scopes are granted only to tokens of users",
        ));
    }
    non_empty(scopes)
}

/// Scopes for a user through an app: within the app's and within the role's; by default
/// the app's registered scopes that the role allows.
pub fn for_user(
    app: &App,
    role: Role,
    requested: Option<ScopeSet>,
) -> Result<ScopeSet, OAuthError> {
    let allowed = app_scopes(app)?;
    let ceiling = role.ceiling();
    let scopes = match requested {
        Some(scopes) => {
            if !scopes.within(allowed) {
                return Err(OAuthError::invalid_scope(
                    "the scope exceeds what this client may ask for",
                ));
            }
            if !scopes.is_subset_of(ceiling) {
                return Err(OAuthError::invalid_scope(
                    "the scope exceeds what this user's role allows",
                ));
            }
            scopes
        }
        None => allowed.intersection(ceiling),
    };
    non_empty(scopes)
}

fn non_empty(scopes: ScopeSet) -> Result<ScopeSet, OAuthError> {
    if scopes.is_empty() {
        Err(OAuthError::invalid_scope("no scope would be granted"))
    } else {
        Ok(scopes)
    }
}
