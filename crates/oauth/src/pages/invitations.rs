//! The invitation page: a new user invited to manage shops opens the mailed link
//! (`/oauth/invitations?code=…`), chooses a password (the staff rule, `password::validate`,
//! hashed with argon2id like every user's) and may correct their name; that accepts every
//! invitation of theirs, and they sign in as any user does.
//!
//! The code travels in the query (the request log keeps paths, never queries) and then in
//! the form's body. What an invitation is and what accepting it writes (the roster's
//! events among it) belong to the shops' operations, which this page reaches through
//! [`Invitations`].
//!
//! An unknown code is a 404 page, a used, withdrawn or expired one a 410 page.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use domain::FieldErrors;

use super::Params;
use super::html::{error_page, escape, hidden_fields, page};
use super::session::Csrf;
use crate::password;
use crate::paths::{INVITATIONS, LOGIN};
use crate::service::AuthService;

const MAX_FORM_BYTES: usize = 16 * 1024;
/// Longest name a user may choose.
const NAME_MAX: usize = 200;

/// A failure of the operations behind the page (logged; the page says only that it failed).
pub type InvitationError = Box<dyn std::error::Error + Send + Sync>;

/// An answer of the operations behind the page, to await.
pub type Pending<'a, T> = Pin<Box<dyn Future<Output = Result<T, InvitationError>> + Send + 'a>>;

/// What an invitation code opens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InvitationLookup {
    /// An invitation that can be accepted: the user's address and name, and the names of
    /// the shops it is for.
    Open {
        email: String,
        name: String,
        shops: Vec<String>,
    },
    /// Used, withdrawn or expired.
    Spent,
    /// No invitation has this code.
    Unknown,
}

/// The shops' operations the page needs, implemented where they live (the API wires them
/// in with [`crate::routes`]).
pub trait Invitations: Send + Sync {
    /// What `code` opens, without using it.
    fn look_up<'a>(&'a self, code: &'a str) -> Pending<'a, InvitationLookup>;

    /// Accepts the invitation `code` opens with this password hash (and name, when one is
    /// given); `false` when it opens nothing any more.
    fn accept<'a>(
        &'a self,
        code: &'a str,
        name: Option<&'a str>,
        password_hash: &'a str,
    ) -> Pending<'a, bool>;
}

/// The page's state: the authorization service (for its cookies) and the operations.
#[derive(Clone)]
pub struct InvitationPages {
    pub auth: Arc<AuthService>,
    pub invitations: Arc<dyn Invitations>,
}

/// The invitation's form, or the page saying why there is none.
pub async fn show(State(pages): State<InvitationPages>, request: Request) -> Response {
    let params = match Params::parse(request.uri().query().unwrap_or("").as_bytes()) {
        Ok(params) => params,
        Err(refused) => return refused.into_response(),
    };
    let Some(code) = params.get("code") else {
        return incomplete();
    };
    match pages.invitations.look_up(code).await {
        Ok(InvitationLookup::Open { email, name, shops }) => {
            let invitation = Shown {
                code,
                email: &email,
                name: &name,
                shops: &shops,
            };
            form(
                &pages.auth,
                request.headers(),
                &invitation,
                None,
                StatusCode::OK,
            )
        }
        Ok(closed) => closed_page(&closed),
        Err(err) => failure(&*err),
    }
}

/// Accepts the invitation: a password chosen twice alike, meeting the rules, and a name.
pub async fn accept(State(pages): State<InvitationPages>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let Ok(body) = axum::body::to_bytes(body, MAX_FORM_BYTES).await else {
        return error_page(StatusCode::PAYLOAD_TOO_LARGE, "The form is too large.");
    };
    let params = match Params::parse(&body) {
        Ok(params) => params,
        Err(refused) => return refused.into_response(),
    };
    if !Csrf::verify(&parts.headers, params.get("csrf")) {
        return error_page(
            StatusCode::FORBIDDEN,
            "The form expired. Go back, reload the page and try again.",
        );
    }
    let Some(code) = params.get("code") else {
        return incomplete();
    };
    let (email, current_name, shops) = match pages.invitations.look_up(code).await {
        Ok(InvitationLookup::Open { email, name, shops }) => (email, name, shops),
        Ok(closed) => return closed_page(&closed),
        Err(err) => return failure(&*err),
    };
    let name = params.get("name").map(str::trim).filter(|n| !n.is_empty());
    let password = params.get("password").unwrap_or("");
    let mut errors = FieldErrors::new();
    if let Some(name) = name {
        errors.check("name", domain::validation::text(name, NAME_MAX));
    }
    errors.check("password", password::validate(password));
    if !errors.has("password") && params.get("password_confirmation") != Some(password) {
        errors.add("password_confirmation", "does not match the password");
    }
    if !errors.is_empty() {
        let invitation = Shown {
            code,
            email: &email,
            name: name.unwrap_or(&current_name),
            shops: &shops,
        };
        return form(
            &pages.auth,
            &parts.headers,
            &invitation,
            Some(&errors),
            StatusCode::UNPROCESSABLE_ENTITY,
        );
    }
    let hash = password::hash(password.to_owned()).await;
    match pages.invitations.accept(code, name, &hash).await {
        Ok(true) => accepted(&email),
        // Used by another request meanwhile.
        Ok(false) => closed_page(&InvitationLookup::Spent),
        Err(err) => failure(&*err),
    }
}

/// An invitation as the form shows it.
struct Shown<'a> {
    code: &'a str,
    email: &'a str,
    name: &'a str,
    shops: &'a [String],
}

fn form(
    auth: &AuthService,
    headers: &HeaderMap,
    invitation: &Shown<'_>,
    errors: Option<&FieldErrors>,
    status: StatusCode,
) -> Response {
    let csrf = Csrf::for_request(headers);
    let errors = errors.map_or(String::new(), |errors| {
        let items: String = errors
            .errors()
            .iter()
            .map(|e| {
                format!(
                    "<li>{} {}</li>",
                    escape(&e.field.replace('_', " ")),
                    escape(&e.messages.join(", "))
                )
            })
            .collect();
        format!("<ul class=\"error\" role=\"alert\">{items}</ul>")
    });
    let shops = invitation
        .shops
        .iter()
        .map(|s| format!("<strong>{}</strong>", escape(s)))
        .collect::<Vec<_>>()
        .join(", ");
    let body = format!(
        "<h1>Accept your invitation</h1>\
         <p>You are invited to manage {shops}. Choose a password for <strong>{email}</strong> to \
         accept; you then sign in with this address and password.</p>{errors}\
         <form method=\"post\" action=\"{INVITATIONS}\">{hidden}\
         <label for=\"name\">Your name</label>\
         <input id=\"name\" name=\"name\" type=\"text\" autocomplete=\"name\" value=\"{name}\">\
         <label for=\"password\">Password (at least 10 characters)</label>\
         <input id=\"password\" name=\"password\" type=\"password\" autocomplete=\"new-password\" required>\
         <label for=\"password_confirmation\">The password again</label>\
         <input id=\"password_confirmation\" name=\"password_confirmation\" type=\"password\" \
         autocomplete=\"new-password\" required>\
         <button type=\"submit\" id=\"accept\">Accept the invitation</button></form>",
        email = escape(invitation.email),
        name = escape(invitation.name),
        hidden = hidden_fields([("csrf", csrf.token.as_str()), ("code", invitation.code)]),
    );
    let mut response = page(status, "Accept your invitation", &body);
    csrf.set_on(auth, &mut response);
    response
}

fn accepted(email: &str) -> Response {
    page(
        StatusCode::OK,
        "Invitation accepted",
        &format!(
            "<h1>Welcome</h1><p role=\"status\">Your password is set. Sign in as \
             <strong>{}</strong> to manage your shops.</p><p><a href=\"{LOGIN}\">Sign in</a></p>",
            escape(email)
        ),
    )
}

fn incomplete() -> Response {
    error_page(
        StatusCode::BAD_REQUEST,
        "The invitation link is incomplete. Open the link from the invitation mail as it is.",
    )
}

fn closed_page(lookup: &InvitationLookup) -> Response {
    match lookup {
        InvitationLookup::Unknown => error_page(
            StatusCode::NOT_FOUND,
            "This invitation link is not valid. Open the link from the invitation mail as it is.",
        ),
        _ => error_page(
            StatusCode::GONE,
            "This invitation has expired, was withdrawn or was already accepted. If you have \
             not set a password yet, ask the shop's owner to invite you again.",
        ),
    }
}

fn failure(err: &(dyn std::error::Error + Send + Sync)) -> Response {
    tracing::error!(error = %err, "the invitation page failed");
    error_page(
        StatusCode::INTERNAL_SERVER_ERROR,
        "Something failed on our side. Please try again.",
    )
}
