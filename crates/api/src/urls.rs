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

    pub fn product(&self, id: i64) -> String {
        format!("{}/products/{id}", self.base)
    }

    pub fn variants(&self, product_id: i64) -> String {
        format!("{}/products/{product_id}/variants", self.base)
    }

    pub fn variant(&self, product_id: i64, id: i64) -> String {
        format!("{}/products/{product_id}/variants/{id}", self.base)
    }

    pub fn assets(&self, product_id: i64) -> String {
        format!("{}/products/{product_id}/assets", self.base)
    }

    pub fn asset(&self, product_id: i64, id: i64) -> String {
        format!("{}/products/{product_id}/assets/{id}", self.base)
    }

    /// The public address of an asset's file: immutable, named by its digest.
    pub fn asset_file(&self, id: i64, digest: &str, file_name: &str) -> String {
        let name = form_urlencoded::byte_serialize(file_name.as_bytes()).collect::<String>();
        format!("{}/files/{id}/{digest}/{name}", self.public)
    }

    pub fn product_type(&self, id: i64) -> String {
        format!("{}/product_types/{id}", self.base)
    }

    pub fn webhook(&self, id: i64) -> String {
        format!("{}/webhooks/{id}", self.base)
    }

    pub fn subscription(&self, shop_id: i64, id: i64) -> String {
        format!("{}/hub/{shop_id}/subscriptions/{id}", self.base)
    }

    pub fn collection(&self, id: i64) -> String {
        format!("{}/collections/{id}", self.base)
    }

    pub fn order(&self, id: i64) -> String {
        format!("{}/orders/{id}", self.base)
    }

    /// A move of an order (`place`, `close`, `ship`, `cancel`).
    pub fn order_action(&self, id: i64, action: &str) -> String {
        format!("{}/orders/{id}/{action}", self.base)
    }

    pub fn shop_orders(&self, shop_id: i64) -> String {
        format!("{}/shops/{shop_id}/orders", self.base)
    }

    pub fn price_list(&self, id: i64) -> String {
        format!("{}/price_lists/{id}", self.base)
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
