//! Link objects as the API serialises them.

use std::borrow::Cow;

use serde::Serialize;

/// The HTTP method a link is to be followed with; serialised in lower case.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    Get,
    Post,
    Put,
    Patch,
    Delete,
}

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Get => "get",
            Self::Post => "post",
            Self::Put => "put",
            Self::Patch => "patch",
            Self::Delete => "delete",
        }
    }
}

/// A HAL link object. `templated` is derived from the href so it can never disagree with it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Link {
    pub href: String,
    pub templated: bool,
    pub method: Method,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<Cow<'static, str>>,
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub media_type: Option<Cow<'static, str>>,
}

impl Link {
    pub fn new(method: Method, href: impl Into<String>) -> Self {
        let href = href.into();
        Self {
            templated: href.contains('{'),
            href,
            method,
            title: None,
            media_type: None,
        }
    }

    pub fn get(href: impl Into<String>) -> Self {
        Self::new(Method::Get, href)
    }

    pub fn with_title(mut self, title: impl Into<Cow<'static, str>>) -> Self {
        self.title = Some(title.into());
        self
    }

    pub fn with_type(mut self, media_type: impl Into<Cow<'static, str>>) -> Self {
        self.media_type = Some(media_type.into());
        self
    }
}

/// A compact URI: `products:update` expands with the curie named `products`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Curie {
    pub name: String,
    pub href: String,
    pub templated: bool,
    pub title: String,
}
