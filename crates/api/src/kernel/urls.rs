//! The addresses the API links to: the public and `/v2` bases, curies and list templates.
//! Each area adds its own builders (`impl Urls` in its `area.rs`, beside its paths).
//! Links always point at `/v2`.

use hal::Curies;

use crate::kernel::list::ListSpec;

#[derive(Debug)]
pub struct Urls {
    public: String,
    base: String,
    curies: Curies,
}

impl Urls {
    pub fn new(public_url: &str) -> Self {
        let public = public_url.trim_end_matches('/').to_owned();
        Self {
            base: format!("{public}/v2"),
            curies: Curies::new(format!("{public}/docs/rels")),
            public,
        }
    }

    pub fn public(&self) -> &str {
        &self.public
    }

    pub fn curies(&self) -> &Curies {
        &self.curies
    }

    /// `{public_url}/v2{path}`.
    pub fn api(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// The templated list link declaring every parameter of `spec`.
    pub fn list_template(&self, path: &str, spec: &ListSpec) -> String {
        format!(
            "{}{path}{{?{}}}",
            self.base,
            spec.template_params().join(",")
        )
    }

    pub fn root(&self) -> String {
        self.base.clone()
    }

    /// `{public_url}/v2`, borrowed, for builders that write a link in one allocation.
    pub fn base(&self) -> &str {
        &self.base
    }

    /// A templated list link with some parameters already set, declaring the others.
    pub fn list_template_with(
        &self,
        path: &str,
        spec: &ListSpec,
        preset: &[(&str, String)],
    ) -> String {
        let mut query = form_urlencoded::Serializer::new(String::new());
        for (name, value) in preset {
            query.append_pair(name, value);
        }
        let rest: Vec<&str> = spec
            .template_params()
            .into_iter()
            .filter(|p| !preset.iter().any(|(name, _)| name == p))
            .collect();
        format!(
            "{}{path}?{}{{&{}}}",
            self.base,
            query.finish(),
            rest.join(",")
        )
    }
}
