//! The form bodies the endpoints and pages read, described for the OpenAPI document. The
//! handlers read them field by field (`endpoints::form`, `pages::Params`): these types
//! only say what a client sends.

use std::borrow::Cow;

use domain::Scope;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};

use crate::grant::JWT_BEARER_URN;
use crate::pages::credentials::OFFERED_GRANTS;
use crate::personal_tokens::Expiry;

/// A token request (RFC 6749 section 4), by grant type.
#[derive(JsonSchema)]
#[serde(tag = "grant_type")]
pub enum TokenRequest {
    /// Exchanges an authorization code (RFC 6749 section 4.1.3).
    #[serde(rename = "authorization_code")]
    AuthorizationCode {
        code: String,
        /// Required when the authorization request named one, and then the same.
        redirect_uri: Option<String>,
        /// The PKCE verifier (RFC 7636), when the authorization request had a challenge.
        code_verifier: Option<String>,
        #[serde(flatten)]
        client: ClientAuthentication,
    },
    /// A token for the app itself (RFC 6749 section 4.4).
    #[serde(rename = "client_credentials")]
    ClientCredentials {
        /// Comma- or space-separated; by default the app's registered scopes.
        scope: Option<String>,
        /// Narrows the token to one seller of the app's account.
        seller_id: Option<i64>,
        #[serde(flatten)]
        client: ClientAuthentication,
    },
    /// A user's e-mail address and password (RFC 6749 section 4.3).
    #[serde(rename = "password")]
    Password {
        username: String,
        password: String,
        /// Comma- or space-separated.
        scope: Option<String>,
        /// Narrows the token to one seller of the user's account.
        seller_id: Option<i64>,
        #[serde(flatten)]
        client: ClientAuthentication,
    },
    /// A new access token for a refresh token, which is used up (RFC 6749 section 6).
    #[serde(rename = "refresh_token")]
    RefreshToken {
        refresh_token: String,
        /// Comma- or space-separated; at most the scopes first granted.
        scope: Option<String>,
        #[serde(flatten)]
        client: ClientAuthentication,
    },
    /// Renews an access token the client was issued, named by an assertion signed with
    /// the client secret (RFC 7523); client authentication is optional.
    #[serde(rename = "urn:ietf:params:oauth:grant-type:jwt-bearer")]
    JwtBearer {
        assertion: String,
        #[serde(flatten)]
        client: ClientAuthentication,
    },
    /// The pre-RFC form of the JWT bearer grant.
    #[serde(rename = "assertion")]
    Assertion {
        assertion_type: JwtBearerUrn,
        assertion: String,
        #[serde(flatten)]
        client: ClientAuthentication,
    },
}

/// Client authentication in the body (RFC 6749 section 2.3.1), instead of HTTP Basic,
/// never both; a public client names itself with `client_id` alone.
#[derive(JsonSchema)]
pub struct ClientAuthentication {
    pub client_id: Option<String>,
    pub client_secret: Option<String>,
}

/// `urn:ietf:params:oauth:grant-type:jwt-bearer`.
pub struct JwtBearerUrn;

impl JsonSchema for JwtBearerUrn {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        "JwtBearerUrn".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "string", "const": JWT_BEARER_URN })
    }
}

/// A revocation request (RFC 7009 section 2.1): an access or refresh token the client was
/// issued.
#[derive(JsonSchema)]
pub struct RevocationRequest {
    pub token: String,
    /// Ignored: both kinds are looked for.
    pub token_type_hint: Option<String>,
    #[serde(flatten)]
    pub client: ClientAuthentication,
}

/// An introspection request (RFC 7662 section 2.1): a token the client was issued. The
/// client must authenticate with its secret.
#[derive(JsonSchema)]
pub struct IntrospectionRequest {
    pub token: String,
    /// Ignored: both kinds are looked for.
    pub token_type_hint: Option<String>,
    #[serde(flatten)]
    pub client: ClientAuthentication,
}

/// The sign-in form.
#[derive(JsonSchema)]
pub struct LoginForm {
    /// The value of the CSRF cookie the form came with.
    pub csrf: String,
    /// The page to go on to: the authorization endpoint with its request, or the
    /// credentials page (the default, and where any other value goes).
    #[serde(rename = "continue")]
    pub continue_to: Option<String>,
    pub email: String,
    pub password: String,
}

/// Accepting an invitation to manage shops.
#[derive(JsonSchema)]
pub struct InvitationForm {
    /// The value of the CSRF cookie the form came with.
    pub csrf: String,
    /// The code of the invitation link.
    pub code: String,
    /// The user's name (blank: unchanged).
    pub name: Option<String>,
    /// At least 10 characters.
    pub password: String,
    /// The same password again.
    pub password_confirmation: String,
}

/// A form that only proves it came from the service's own page (signing out).
#[derive(JsonSchema)]
pub struct CsrfForm {
    /// The value of the CSRF cookie the form came with.
    pub csrf: String,
}

/// The consent form: the authorization request again, and the user's decision.
#[derive(JsonSchema)]
pub struct DecisionForm {
    /// The value of the CSRF cookie the form came with.
    pub csrf: String,
    /// Anything but `approve` denies the request.
    pub decision: Decision,
    #[serde(flatten)]
    pub request: AuthorizationRequest,
}

/// The user's answer on the consent page.
#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(rename = "ConsentDecision")]
pub enum Decision {
    Approve,
    Deny,
}

/// An authorization request (RFC 6749 sections 4.1.1 and 4.2.1, RFC 7636 section 4.3).
#[derive(JsonSchema)]
#[schemars(rename = "AuthorizationRequestForm")]
pub struct AuthorizationRequest {
    /// `code` (the authorization code grant) or `token` (the implicit grant).
    pub response_type: String,
    pub client_id: String,
    /// One the client registered; needed when it registered several.
    pub redirect_uri: Option<String>,
    /// Comma- or space-separated; by default what the app and the user's role allow.
    pub scope: Option<String>,
    /// Sent back to the client as it came.
    pub state: Option<String>,
    /// The PKCE challenge (required of public clients).
    pub code_challenge: Option<String>,
    /// `S256`, the only method.
    pub code_challenge_method: Option<String>,
}

/// A new personal access token, from the credentials page.
#[derive(JsonSchema)]
pub struct NewTokenForm {
    /// The value of the CSRF cookie the form came with.
    pub csrf: String,
    pub name: String,
    pub expires: Expiry,
    /// One field per scope (within the user's role).
    pub scope: Option<Vec<ScopeName>>,
}

/// Revokes one of the user's personal access tokens, from the credentials page.
#[derive(JsonSchema)]
pub struct RevokeTokenForm {
    /// The value of the CSRF cookie the form came with.
    pub csrf: String,
    /// The token's id.
    pub id: i64,
}

/// A new app of the user's account, from the credentials page (owners and admins).
#[derive(JsonSchema)]
pub struct NewAppForm {
    /// The value of the CSRF cookie the form came with.
    pub csrf: String,
    pub name: String,
    /// One per line.
    pub redirect_uris: Option<String>,
    /// One field per scope.
    pub scope: Option<Vec<ScopeName>>,
    /// One field per grant; the password grant is not offered.
    pub grant: Option<Vec<OfferedGrant>>,
    /// `on` for a public client (no secret; PKCE).
    pub public: Option<String>,
}

/// The name of a scope.
pub struct ScopeName;

impl JsonSchema for ScopeName {
    fn schema_name() -> Cow<'static, str> {
        "ScopeName".into()
    }

    fn schema_id() -> Cow<'static, str> {
        concat!(module_path!(), "::ScopeName").into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let names: Vec<&str> = Scope::ALL.iter().map(|s| s.as_str()).collect();
        json_schema!({ "type": "string", "enum": names })
    }
}

/// A grant the credentials page offers an app.
pub struct OfferedGrant;

impl JsonSchema for OfferedGrant {
    fn schema_name() -> Cow<'static, str> {
        "OfferedGrant".into()
    }

    fn schema_id() -> Cow<'static, str> {
        concat!(module_path!(), "::OfferedGrant").into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let names: Vec<&str> = OFFERED_GRANTS.iter().map(|g| g.as_str()).collect();
        json_schema!({ "type": "string", "enum": names })
    }
}

impl JsonSchema for Expiry {
    fn schema_name() -> Cow<'static, str> {
        "Expiry".into()
    }

    fn schema_id() -> Cow<'static, str> {
        concat!(module_path!(), "::Expiry").into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let names: Vec<&str> = Expiry::ALL.iter().map(|e| e.as_str()).collect();
        json_schema!({ "type": "string", "enum": names })
    }
}
