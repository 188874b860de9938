//! An area's routes, each registered with its OpenAPI description, so that the router and
//! the document (`GET /openapi.json`) are built from one list and cannot disagree.

use axum::Router;
use axum::handler::Handler;
use axum::http::Method;
use axum::middleware::from_fn_with_state;
use axum::routing::{MethodRouter, delete, get, post, put};

use super::Path;
use crate::kernel::query::{DeclaredQuery, refuse_undeclared};
use crate::kernel::state::AppState;
use crate::openapi::{Documented, Op};

/// Collects routes and their descriptions; [`Routes::into_parts`] gives the router and
/// the descriptions.
pub struct Routes {
    prefix: &'static str,
    paths: Vec<(&'static str, MethodRouter<AppState>)>,
    documented: Vec<Documented>,
}

impl Routes {
    /// Routes whose paths are written relative to `prefix` (`/v2` for the areas).
    pub fn new(prefix: &'static str) -> Self {
        Self {
            prefix,
            paths: Vec::new(),
            documented: Vec::new(),
        }
    }

    pub fn get<H, T>(&mut self, path: Path, handler: H, op: Op) -> &mut Self
    where
        H: Handler<T, AppState>,
        T: 'static,
    {
        self.add(Method::GET, path, get(handler), op)
    }

    pub fn post<H, T>(&mut self, path: Path, handler: H, op: Op) -> &mut Self
    where
        H: Handler<T, AppState>,
        T: 'static,
    {
        self.add(Method::POST, path, post(handler), op)
    }

    pub fn put<H, T>(&mut self, path: Path, handler: H, op: Op) -> &mut Self
    where
        H: Handler<T, AppState>,
        T: 'static,
    {
        self.add(Method::PUT, path, put(handler), op)
    }

    pub fn delete<H, T>(&mut self, path: Path, handler: H, op: Op) -> &mut Self
    where
        H: Handler<T, AppState>,
        T: 'static,
    {
        self.add(Method::DELETE, path, delete(handler), op)
    }

    /// Describes a route another crate's router serves (the authorization service's),
    /// at its full path.
    pub fn served_elsewhere(&mut self, method: Method, path: &str, op: Op) -> &mut Self {
        self.documented.push(Documented {
            method,
            path: path.to_owned(),
            op,
        });
        self
    }

    /// A route built by hand (with a layer of its own, say), and its description.
    pub fn add(
        &mut self,
        method: Method,
        path: Path,
        route: MethodRouter<AppState>,
        op: Op,
    ) -> &mut Self {
        let route = match op.declared_query() {
            Some(names) => route.layer(from_fn_with_state(
                DeclaredQuery::new(names),
                refuse_undeclared,
            )),
            None => route,
        };
        self.merge_route(path.pattern(), route);
        // A prefix's own root (`/` nested under `/v2`) is served at the prefix itself.
        let path = match path.pattern() {
            "/" if !self.prefix.is_empty() => self.prefix.to_owned(),
            pattern => format!("{}{pattern}", self.prefix),
        };
        self.documented.push(Documented { method, path, op });
        self
    }

    fn merge_route(&mut self, pattern: &'static str, route: MethodRouter<AppState>) {
        match self.paths.iter_mut().find(|(p, _)| *p == pattern) {
            Some((_, existing)) => {
                let methods = std::mem::take(existing);
                *existing = methods.merge(route);
            }
            None => self.paths.push((pattern, route)),
        }
    }

    /// The router (paths relative to the prefix, for nesting) and the descriptions.
    pub fn into_parts(self) -> (Router<AppState>, Vec<Documented>) {
        let router = self
            .paths
            .into_iter()
            .fold(Router::new(), |router, (pattern, route)| {
                router.route(pattern, route)
            });
        (router, self.documented)
    }
}
