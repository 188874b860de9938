//! Every address the API links to, built in one place. Links always point at `/v2`.

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

    pub fn seller(&self, id: i64) -> String {
        format!("{}/sellers/{id}", self.base)
    }

    pub fn seller_shops(&self, id: i64) -> String {
        format!("{}/sellers/{id}/shops", self.base)
    }

    pub fn shop(&self, id: i64) -> String {
        format!("{}/shops/{id}", self.base)
    }
}
