//! The credentials area's link relations, each building its links and its docs page.

crate::rels::define_rels! {
    ROOT_PERSONAL_ACCESS_TOKENS = ("root", "personal_access_tokens", Get, "Personal access tokens",
        "The personal access tokens of the signed-in user, newest first, without their values: name, scopes, \
         state (active, expired, revoked), created_on, expires_on, last_used_on. Needs a token issued to a user \
         holding credentials.read (or credentials.write); admin does not include it.");
    ROOT_CREATE_PERSONAL_ACCESS_TOKEN = ("root", "create_personal_access_token", Post, "Create a personal access token",
        "Body: name, expires (30d, 90d, 1y or never) and scopes (comma-separated, within the user's role and the \
         scopes of the token making the request). Answers 201 with the token's value in `token`, shown this once. \
         Needs a token issued to a user holding credentials.write; admin does not include it.");
    ROOT_REVOKE = ("root", "revoke", Delete, "Revoke the token",
        "Revokes the personal access token at once on every node; answers with the revoked token. \
         Needs credentials.write; admin does not include it.");
    ROOT_APPS = ("root", "apps", Get, "OAuth apps",
        "The OAuth apps registered by the account: name, client_id, redirect_uris, scopes, grants, public. \
         Needs a token issued to a user holding credentials.read (or credentials.write); admin does not include it.");
    ROOT_CREATE_APP = ("root", "create_app", Post, "Register an OAuth app",
        "Owners and admins only. Body: name, redirect_uris (absolute, no fragment), scopes (comma-separated), grants \
         (authorization_code, refresh_token, implicit, client_credentials, urn:ietf:params:oauth:grant-type:jwt-bearer) \
         and public (true for browser and native apps, which get no secret and must use PKCE). Answers 201 with the \
         client_secret, shown this once. Needs credentials.write (admin does not include it). The scopes may not \
         include credentials.read or credentials.write: only an operator registers an app with those.");
}
