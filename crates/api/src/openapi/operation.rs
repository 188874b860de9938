//! What the OpenAPI document says of one route, declared where the route is registered
//! (`area::Routes`), so that a route cannot exist without its description.

use axum::http::Method;
use domain::Scope;
use schemars::{JsonSchema, Schema, SchemaGenerator};

use crate::kernel::list::ListSpec;

/// Describes a type in the document's generator (a `$ref` for a named type).
pub type SchemaFn = fn(&mut SchemaGenerator) -> Schema;

/// The schema of `T`, as a [`SchemaFn`].
pub const fn schema<T: JsonSchema>() -> SchemaFn {
    |generator| generator.subschema_for::<T>()
}

/// Who may call an operation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Access {
    /// Anyone, without credentials.
    Anonymous,
    /// A bearer token holding any one of these scopes.
    AnyOf(Vec<Scope>),
    /// A bearer token, whatever its scopes (what it sees depends on them).
    Token,
    /// An OAuth client authenticating itself (HTTP Basic or form parameters).
    Client,
    /// A person signed in to the authorization service's pages (its session cookie).
    Session,
}

/// How an operation writes its errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Errors {
    /// The API's error body (`Error`).
    Api,
    /// RFC 6749 section 5.2 bodies (`OAuthError`): the authorization service's endpoints.
    OAuth,
    /// A page saying what went wrong: the authorization service's pages.
    Page,
}

/// What a request carries in its body.
#[derive(Clone, Copy)]
pub enum Body {
    Json(SchemaFn),
    Form(SchemaFn),
    /// `multipart/form-data`, its parts as the schema's properties.
    Multipart(SchemaFn),
}

/// What a successful request answers.
#[derive(Clone, Copy)]
pub enum Answer {
    /// A HAL resource whose own properties `fields` describes.
    Resource { status: u16, fields: SchemaFn },
    /// A page of a HAL list whose items' properties `fields` describes.
    List { fields: SchemaFn },
    /// A plain JSON document.
    Json { status: u16, body: SchemaFn },
    /// A page for people.
    Html,
    /// A page for people answered with `status` (201 after a form created something).
    Page { status: u16 },
    /// A redirect to another page.
    Redirect,
    /// Text (the metrics exposition).
    Text,
    /// `status` and no body.
    Empty { status: u16 },
    /// A stored file, in the media type it was uploaded with.
    File,
    /// An error body (`status`, `error`, `message`) embedding, under `name`, the
    /// resource the request recorded (a declined payment), whose properties `fields`
    /// describes.
    ErrorWith {
        status: u16,
        name: &'static str,
        fields: SchemaFn,
    },
}

impl Answer {
    /// `200` with a resource whose properties are `T`.
    pub fn resource<T: JsonSchema>() -> Self {
        Self::Resource {
            status: 200,
            fields: schema::<T>(),
        }
    }

    /// `201 Created` with a resource whose properties are `T`.
    pub fn created<T: JsonSchema>() -> Self {
        Self::Resource {
            status: 201,
            fields: schema::<T>(),
        }
    }

    /// `202 Accepted` with a resource whose properties are `T` (work under way).
    pub fn accepted_resource<T: JsonSchema>() -> Self {
        Self::Resource {
            status: 202,
            fields: schema::<T>(),
        }
    }

    /// `200` with a list page of resources whose properties are `T`.
    pub fn list<T: JsonSchema>() -> Self {
        Self::List {
            fields: schema::<T>(),
        }
    }

    /// `200` with the JSON document `T`.
    pub fn json<T: JsonSchema>() -> Self {
        Self::Json {
            status: 200,
            body: schema::<T>(),
        }
    }

    /// `status`, an error embedding under `name` a resource whose properties are `T`.
    pub fn error_with<T: JsonSchema>(status: u16, name: &'static str) -> Self {
        Self::ErrorWith {
            status,
            name,
            fields: schema::<T>(),
        }
    }

    /// `200` and no body.
    pub const fn empty() -> Self {
        Self::Empty { status: 200 }
    }

    /// `202 Accepted` and no body.
    pub const fn accepted() -> Self {
        Self::Empty { status: 202 }
    }

    /// `204 No Content`.
    pub const fn no_content() -> Self {
        Self::Empty { status: 204 }
    }
}

/// A query parameter an operation reads beside its list's.
#[derive(Clone, Copy)]
pub struct QueryParam {
    pub name: &'static str,
    pub description: &'static str,
    pub required: bool,
    pub schema: SchemaFn,
}

/// `shop_subdomains`, which names the storefronts a token bound to no account reads.
pub const SHOP_SUBDOMAINS: QueryParam = QueryParam {
    name: "shop_subdomains",
    description: "The shops whose catalog a token bound to no account reads, \
                  comma-separated; required for such tokens",
    required: false,
    schema: schema::<String>(),
};

/// One operation of the API as the document describes it.
pub struct Op {
    pub(super) summary: &'static str,
    pub(super) answer: Answer,
    /// Other answers to a successful request (a page that may also redirect, say).
    pub(super) also: Vec<Answer>,
    pub(super) access: Access,
    pub(super) errors: Errors,
    pub(super) list: Option<&'static ListSpec>,
    pub(super) query: Vec<QueryParam>,
    /// The bodies it takes, one per media type.
    pub(super) bodies: Vec<Body>,
    pub(super) conditional: bool,
    /// The link relations whose links lead here.
    pub(super) rels: Vec<&'static hal::RelDef>,
}

impl Op {
    /// An operation that needs a token (narrow it with [`Op::scope`]).
    pub fn new(summary: &'static str, answer: Answer) -> Self {
        Self {
            summary,
            answer,
            also: Vec::new(),
            access: Access::Token,
            errors: Errors::Api,
            list: None,
            query: Vec::new(),
            bodies: Vec::new(),
            conditional: false,
            rels: Vec::new(),
        }
    }

    /// Needs a token holding `scope`.
    pub fn scope(self, scope: Scope) -> Self {
        self.any_scope(&[scope])
    }

    /// Needs a token holding one of `scopes`.
    pub fn any_scope(mut self, scopes: &[Scope]) -> Self {
        self.access = Access::AnyOf(scopes.to_vec());
        self
    }

    /// Open to anyone.
    pub fn anonymous(mut self) -> Self {
        self.access = Access::Anonymous;
        self
    }

    /// Called by an OAuth client authenticating itself; errors are OAuth errors.
    pub fn client(mut self) -> Self {
        self.access = Access::Client;
        self.errors = Errors::OAuth;
        self
    }

    /// Needs a person signed in to the authorization service's pages.
    pub fn session(mut self) -> Self {
        self.access = Access::Session;
        self
    }

    /// Answers errors as RFC 6749 error bodies (the authorization service's endpoints).
    pub fn oauth_errors(mut self) -> Self {
        self.errors = Errors::OAuth;
        self
    }

    /// Answers errors with a page (the authorization service's pages).
    pub fn page_errors(mut self) -> Self {
        self.errors = Errors::Page;
        self
    }

    /// May also answer `answer` (a page that redirects instead, say).
    pub fn also(mut self, answer: Answer) -> Self {
        self.also.push(answer);
        self
    }

    /// Reads the paging, sorting and filters of `spec`.
    pub fn list(mut self, spec: &'static ListSpec) -> Self {
        self.list = Some(spec);
        self
    }

    /// Also reads `param` from the query string.
    pub fn query(mut self, param: QueryParam) -> Self {
        self.query.push(param);
        self
    }

    /// Takes a JSON body described by `T`.
    pub fn json_body<T: JsonSchema>(mut self) -> Self {
        self.bodies.push(Body::Json(schema::<T>()));
        self
    }

    /// Also takes a `multipart/form-data` body whose parts `T` describes.
    pub fn multipart_body<T: JsonSchema>(mut self) -> Self {
        self.bodies.push(Body::Multipart(schema::<T>()));
        self
    }

    /// Takes an `application/x-www-form-urlencoded` body described by `T`.
    pub fn form_body<T: JsonSchema>(mut self) -> Self {
        self.bodies.push(Body::Form(schema::<T>()));
        self
    }

    /// Links with the relation `rel` lead here (its docs page links back).
    pub fn rel(mut self, rel: &'static hal::RelDef) -> Self {
        self.rels.push(rel);
        self
    }

    /// The relations whose links lead here.
    pub fn rels(&self) -> &[&'static hal::RelDef] {
        &self.rels
    }

    /// The query parameters the API refuses unless declared, or `None` when the operation
    /// is not the API's (the authorization service's pages ignore what they do not read,
    /// as RFC 6749 requires of its endpoints).
    pub fn declared_query(&self) -> Option<Vec<String>> {
        if self.errors != Errors::Api {
            return None;
        }
        let mut names = Vec::new();
        if let Some(list) = self.list {
            names.extend(["page", "per_page", "sort"].map(str::to_owned));
            for filter in list.filters {
                names.push((*filter).to_owned());
                // A bound is also read as `field_gte` (see `QueryParams::get_bound`).
                if let Some((field, bound)) = filter.rsplit_once('.') {
                    names.push(format!("{field}_{bound}"));
                }
            }
        }
        names.extend(self.query.iter().map(|p| p.name.to_owned()));
        Some(names)
    }

    /// Honours `If-Match` (a stale ETag is answered 412).
    pub fn if_match(mut self) -> Self {
        self.conditional = true;
        self
    }
}

/// A route with what the document says of it.
pub struct Documented {
    pub method: Method,
    /// The full path template, e.g. `/v2/products/{id}`.
    pub path: String,
    pub op: Op,
}
