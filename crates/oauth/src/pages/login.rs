//! Signing in and out of the pages.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};

use super::html::{error_page, escape, hidden_fields, page, see_other};
use super::session::{self, Csrf};
use super::{Params, safe_continue};
use crate::paths::LOGIN;
use crate::service::AuthService;
use crate::sign_in::SignInError;

const MAX_FORM_BYTES: usize = 16 * 1024;

/// The sign-in page, or straight on when already signed in.
pub async fn show(State(auth): State<Arc<AuthService>>, request: Request) -> Response {
    let params = match Params::parse(request.uri().query().unwrap_or("").as_bytes()) {
        Ok(params) => params,
        Err(refused) => return refused.into_response(),
    };
    let target = safe_continue(params.get("continue")).to_owned();
    match session::current_user(&auth, request.headers()).await {
        Ok(Some(_)) => see_other(&target),
        Ok(None) => form(&auth, request.headers(), &target, None, StatusCode::OK, ""),
        Err(err) => storage_failure(err),
    }
}

pub async fn submit(State(auth): State<Arc<AuthService>>, request: Request) -> Response {
    let ip = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0.ip());
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
    let target = safe_continue(params.get("continue")).to_owned();
    let email = params.get("email").unwrap_or("");
    let password = params.get("password").unwrap_or("");
    match auth.sign_in(email, password, ip).await {
        Ok(user) => {
            let mut response = see_other(&target);
            match session::start(&auth, user.id, &mut response).await {
                Ok(()) => response,
                Err(err) => storage_failure(err),
            }
        }
        Err(SignInError::Wrong) => form(
            &auth,
            &parts.headers,
            &target,
            Some("The e-mail address or password is wrong."),
            StatusCode::UNAUTHORIZED,
            email,
        ),
        Err(SignInError::Throttled(secs)) => form(
            &auth,
            &parts.headers,
            &target,
            Some(&format!(
                "Too many failed sign-ins. Try again in {secs} seconds."
            )),
            StatusCode::TOO_MANY_REQUESTS,
            email,
        ),
        Err(SignInError::Storage(err)) => storage_failure(err),
    }
}

pub async fn sign_out(State(auth): State<Arc<AuthService>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let body = axum::body::to_bytes(body, MAX_FORM_BYTES)
        .await
        .unwrap_or_default();
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
    let mut response = see_other(LOGIN);
    match session::end(&auth, &parts.headers, &mut response).await {
        Ok(()) => response,
        Err(err) => storage_failure(err),
    }
}

fn form(
    auth: &AuthService,
    headers: &HeaderMap,
    target: &str,
    error: Option<&str>,
    status: StatusCode,
    email: &str,
) -> Response {
    let csrf = Csrf::for_request(headers);
    let error = error.map_or(String::new(), |e| {
        format!("<p class=\"error\" role=\"alert\">{}</p>", escape(e))
    });
    let body = format!(
        "<h1>Sign in</h1>{error}<form method=\"post\" action=\"{LOGIN}\">{hidden}\
         <label for=\"email\">E-mail address</label>\
         <input id=\"email\" name=\"email\" type=\"email\" autocomplete=\"username\" required value=\"{email}\">\
         <label for=\"password\">Password</label>\
         <input id=\"password\" name=\"password\" type=\"password\" autocomplete=\"current-password\" required>\
         <button type=\"submit\" id=\"sign-in\">Sign in</button></form>",
        hidden = hidden_fields([("csrf", csrf.token.as_str()), ("continue", target)]),
        email = escape(email),
    );
    let mut response = page(status, "Sign in", &body);
    csrf.set_on(auth, &mut response);
    response
}

pub(super) fn storage_failure(err: storage::Error) -> Response {
    tracing::error!(error = %err, "storage failure on an authorization page");
    error_page(
        StatusCode::INTERNAL_SERVER_ERROR,
        "Something failed on our side. Please try again.",
    )
}
