//! The authorization service's routes, which its own router serves (`oauth::routes`),
//! described for the document at the paths that router uses.

use axum::http::Method;
use oauth::forms::{
    CsrfForm, DecisionForm, IntrospectionRequest, InvitationForm, LoginForm, NewAppForm,
    NewTokenForm, RevocationRequest, RevokeTokenForm, TokenRequest,
};
use oauth::{Introspection, Metadata, TokenAnswer, paths};

use crate::area::Routes;
use crate::openapi::{Answer, Op, QueryParam, schema};

/// The parameters of an authorization request (RFC 6749 sections 4.1.1 and 4.2.1, RFC
/// 7636 section 4.3), on the consent page's address.
const AUTHORIZATION_REQUEST: [QueryParam; 7] = [
    QueryParam {
        name: "response_type",
        description: "`code` (the authorization code grant) or `token` (the implicit grant)",
        required: true,
        schema: schema::<String>(),
    },
    QueryParam {
        name: "client_id",
        description: "The app asking",
        required: true,
        schema: schema::<String>(),
    },
    QueryParam {
        name: "redirect_uri",
        description: "One the app registered; needed when it registered several",
        required: false,
        schema: schema::<String>(),
    },
    QueryParam {
        name: "scope",
        description: "Comma- or space-separated; by default what the app and the user's \
                      role allow",
        required: false,
        schema: schema::<String>(),
    },
    QueryParam {
        name: "state",
        description: "Sent back to the app as it came",
        required: false,
        schema: schema::<String>(),
    },
    QueryParam {
        name: "code_challenge",
        description: "The PKCE challenge (required of public clients)",
        required: false,
        schema: schema::<String>(),
    },
    QueryParam {
        name: "code_challenge_method",
        description: "`S256`, the only method",
        required: false,
        schema: schema::<String>(),
    },
];

/// Where the sign-in page sends the browser once signed in.
const CONTINUE: QueryParam = QueryParam {
    name: "continue",
    description: "The page to go on to: the authorization endpoint with its request, or the \
                  credentials page (the default, and where any other value goes)",
    required: false,
    schema: schema::<String>(),
};

/// The code of an invitation link.
const INVITATION_CODE: QueryParam = QueryParam {
    name: "code",
    description: "The code the invitation mail's link carries",
    required: true,
    schema: schema::<String>(),
};

/// Describes the authorization service's endpoints and pages.
pub fn routes(routes: &mut Routes) {
    let authorize = AUTHORIZATION_REQUEST.into_iter().fold(
        Op::new(
            "The consent page of an authorization request, once signed in (else on to the \
             sign-in page; an invalid request goes back to the app with its error)",
            Answer::Html,
        )
        .also(Answer::Redirect)
        .session()
        .page_errors(),
        Op::query,
    );
    routes
        .served_elsewhere(
            Method::POST,
            paths::TOKEN,
            Op::new("Issue a token, by any grant", Answer::json::<TokenAnswer>())
                .client()
                .form_body::<TokenRequest>(),
        )
        .served_elsewhere(
            Method::POST,
            paths::REVOKE,
            Op::new(
                "Revoke an access or refresh token the client was issued (a refresh token \
                 with its family); an unknown token is no error",
                Answer::empty(),
            )
            .client()
            .form_body::<RevocationRequest>(),
        )
        .served_elsewhere(
            Method::POST,
            paths::INTROSPECT,
            Op::new(
                "Whether a token the client was issued is active, and what it grants",
                Answer::json::<Introspection>(),
            )
            .client()
            .form_body::<IntrospectionRequest>(),
        )
        .served_elsewhere(
            Method::GET,
            paths::METADATA,
            Op::new(
                "The authorization service's metadata: its endpoints, grants and scopes",
                Answer::json::<Metadata>(),
            )
            .anonymous()
            .oauth_errors(),
        )
        .served_elsewhere(Method::GET, paths::AUTHORIZE, authorize)
        .served_elsewhere(
            Method::POST,
            paths::AUTHORIZE,
            Op::new(
                "The user's decision on the consent page: back to the app with a code, a \
                 token (in the fragment) or an error",
                Answer::Redirect,
            )
            .session()
            .page_errors()
            .form_body::<DecisionForm>(),
        )
        .served_elsewhere(
            Method::GET,
            paths::LOGIN,
            Op::new(
                "The sign-in page (or on to `continue` when already signed in)",
                Answer::Html,
            )
            .also(Answer::Redirect)
            .anonymous()
            .page_errors()
            .query(CONTINUE),
        )
        .served_elsewhere(
            Method::POST,
            paths::LOGIN,
            Op::new(
                "Sign in and go on to `continue` (a wrong password or too many attempts \
                 answer the form again)",
                Answer::Redirect,
            )
            .anonymous()
            .page_errors()
            .form_body::<LoginForm>(),
        )
        .served_elsewhere(
            Method::POST,
            paths::LOGOUT,
            Op::new("Sign out, back to the sign-in page", Answer::Redirect)
                .anonymous()
                .page_errors()
                .form_body::<CsrfForm>(),
        )
        .served_elsewhere(
            Method::GET,
            paths::CREDENTIALS,
            Op::new(
                "The developer credentials page: the user's personal access tokens and, \
                 for owners and admins, the account's apps (else on to the sign-in page)",
                Answer::Html,
            )
            .also(Answer::Redirect)
            .session()
            .page_errors(),
        )
        .served_elsewhere(
            Method::POST,
            paths::CREDENTIALS_TOKENS,
            Op::new(
                "Create a personal access token, shown once on the credentials page",
                Answer::Page { status: 201 },
            )
            .also(Answer::Redirect)
            .session()
            .page_errors()
            .form_body::<NewTokenForm>(),
        )
        .served_elsewhere(
            Method::POST,
            paths::CREDENTIALS_REVOKE_TOKEN,
            Op::new(
                "Revoke a personal access token, back to the credentials page",
                Answer::Redirect,
            )
            .session()
            .page_errors()
            .form_body::<RevokeTokenForm>(),
        )
        .served_elsewhere(
            Method::POST,
            paths::CREDENTIALS_APPS,
            Op::new(
                "Register an app of the user's account, its secret shown once on the \
                 credentials page",
                Answer::Page { status: 201 },
            )
            .also(Answer::Redirect)
            .session()
            .page_errors()
            .form_body::<NewAppForm>(),
        )
        .served_elsewhere(
            Method::GET,
            paths::INVITATIONS,
            Op::new(
                "The page where a user invited to manage shops chooses a password (404 for an \
                 unknown code, 410 for a used, withdrawn or expired one)",
                Answer::Html,
            )
            .anonymous()
            .page_errors()
            .query(INVITATION_CODE),
        )
        .served_elsewhere(
            Method::POST,
            paths::INVITATIONS,
            Op::new(
                "Accept an invitation: sets the user's password and name and makes every \
                 invitation of theirs active (a bad password answers the form again, 422)",
                Answer::Html,
            )
            .anonymous()
            .page_errors()
            .form_body::<InvitationForm>(),
        );
}
