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
    /// A hosted shop's storefront address, `{subdomain}` standing for the shop's.
    storefront: String,
}

impl Urls {
    pub fn new(public_url: &str) -> Self {
        let public = public_url.trim_end_matches('/').to_owned();
        Self {
            base: format!("{public}/v2"),
            curies: Curies::new(format!("{public}/docs/rels")),
            storefront: storefront_template(&public),
            public,
        }
    }

    /// Storefronts at `template` (holding `{subdomain}`) rather than under the public host.
    pub fn with_storefront(self, template: Option<&str>) -> Self {
        match template {
            Some(template) => Self {
                storefront: template.to_owned(),
                ..self
            },
            None => self,
        }
    }

    /// The address of the hosted storefront of the shop with `subdomain`.
    pub fn storefront(&self, subdomain: &str) -> String {
        self.storefront.replace("{subdomain}", subdomain)
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

/// Storefronts as subdomains of the public host, on its scheme and port, when none is
/// configured: `https://api.example.com` gives `https://{subdomain}.api.example.com`; an
/// address (`127.0.0.1:8080`) gives `{subdomain}.localhost:8080`, which resolves to the
/// loopback as well.
fn storefront_template(public: &str) -> String {
    let (scheme, rest) = public.split_once("://").unwrap_or(("https", public));
    let authority = rest.split('/').next().unwrap_or(rest);
    let (host, port) = match authority.rsplit_once(':') {
        Some((host, port)) if !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()) => {
            (host, Some(port))
        }
        _ => (authority, None),
    };
    let is_address = host.parse::<std::net::IpAddr>().is_ok()
        || host.starts_with('[')
        || host.eq_ignore_ascii_case("localhost");
    let host = if is_address { "localhost" } else { host };
    match port {
        Some(port) => format!("{scheme}://{{subdomain}}.{host}:{port}"),
        None => format!("{scheme}://{{subdomain}}.{host}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn storefronts_default_to_subdomains_of_the_public_host() {
        let at = |public: &str| Urls::new(public).storefront("mugs");
        assert_eq!(
            at("https://api.example.com"),
            "https://mugs.api.example.com"
        );
        assert_eq!(
            at("https://api.example.com/"),
            "https://mugs.api.example.com"
        );
        assert_eq!(at("http://127.0.0.1:8080"), "http://mugs.localhost:8080");
        assert_eq!(
            at("http://localhost:3000/base"),
            "http://mugs.localhost:3000"
        );
        assert_eq!(at("http://[::1]:9000"), "http://mugs.localhost:9000");
        assert_eq!(at("http://[::1]"), "http://mugs.localhost");
        let configured = Urls::new("https://api.example.com")
            .with_storefront(Some("https://{subdomain}.shops.example.net"));
        assert_eq!(
            configured.storefront("mugs"),
            "https://mugs.shops.example.net"
        );
    }
}
