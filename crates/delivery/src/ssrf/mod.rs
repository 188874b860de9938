//! The SSRF guard: webhook targets are chosen by API clients, so the dispatcher must not
//! become their way into our private networks. Only globally reachable addresses are
//! contacted (the `reach` module says which). Literal addresses are checked when a URL is checked;
//! names are checked inside the HTTP client's resolver, on the very addresses it then
//! connects to, so a name cannot resolve one way when checked and another when used (DNS
//! rebinding).

mod reach;

use std::error::Error;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use reqwest::Url;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use url::Host;

pub use reach::Refusal;
use reach::{connected, in_network, refusal};

/// Why a webhook target is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Blocked {
    #[error("not a URL: {0}")]
    Unparsable(#[from] url::ParseError),
    #[error("the URL has no host")]
    NoHost,
    #[error("the URL's scheme is {0}; webhooks use http or https")]
    Scheme(String),
    #[error("the URL carries a user name or password; webhooks take credentials as auth")]
    Credentials,
    #[error("{address} is in {reason}; webhooks may not reach it")]
    Address { address: IpAddr, reason: Refusal },
    #[error(
        "{host} resolves only to addresses webhooks may not reach, such as {address} in {reason}"
    )]
    Name {
        host: String,
        address: IpAddr,
        reason: Refusal,
    },
}

impl Blocked {
    /// The refusal behind a failed request, if the guard caused it, so that the attempt
    /// can be recorded as blocked rather than as a connection failure.
    pub fn cause_of<'a>(error: &'a (dyn Error + 'static)) -> Option<&'a Blocked> {
        std::iter::successors(Some(error), |&error| error.source())
            .find_map(|error| error.downcast_ref())
    }
}

/// Which addresses webhooks may reach. The default allows only globally reachable ones.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Guard {
    /// Allows every address: for deployments whose subscribers live on private networks.
    pub allow_private: bool,
    /// Networks (address, prefix length) allowed although not globally reachable, such as
    /// `127.0.0.0/8` in tests. An entry matches the address connected to, and only it: an
    /// IPv4 entry matches IPv4 addresses and IPv4-mapped IPv6 ones (a connection to
    /// `::ffff:127.0.0.1` is an IPv4 connection to 127.0.0.1), never an IPv6 form that
    /// carries an IPv4 address through a translator, relay or tunnel (NAT64, 6to4, Teredo,
    /// IPv4-compatible or -translated): there the carried address is on the far side, in
    /// a network the operator did not vouch for, so `64:ff9b::127.0.0.1` stays refused
    /// when 127.0.0.0/8 is allowed. To allow such a form, allow its IPv6 network. An
    /// entry whose prefix is longer than its address matches nothing.
    pub allowed: Vec<(IpAddr, u8)>,
}

impl Guard {
    /// Whether a webhook may connect to `ip`.
    pub fn check_ip(&self, ip: IpAddr) -> Result<(), Blocked> {
        match self.refused(ip) {
            Some(reason) => Err(Blocked::Address {
                address: ip,
                reason,
            }),
            None => Ok(()),
        }
    }

    /// Checks a webhook URL: http or https, a host, no credentials, and no refused literal
    /// address, however written (`http://2130706433/`, `http://0x7f.1/` and
    /// `http://[::ffff:127.0.0.1]/` are all 127.0.0.1). Host names are left to
    /// [`GuardedResolver`], which checks what they resolve to at connection time.
    pub fn check_url(&self, url: &str) -> Result<Target, Blocked> {
        let url = Url::parse(url)?;
        let host = url.host().ok_or(Blocked::NoHost)?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(Blocked::Scheme(url.scheme().to_owned()));
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(Blocked::Credentials);
        }
        match host {
            Host::Ipv4(ip) => self.check_ip(ip.into())?,
            Host::Ipv6(ip) => self.check_ip(ip.into())?,
            Host::Domain(_) => {}
        }
        Ok(Target { url })
    }

    /// Why `ip` is refused, unless it is globally reachable or this guard allows it.
    fn refused(&self, ip: IpAddr) -> Option<Refusal> {
        if self.allow_private || self.allows(ip) {
            return None;
        }
        refusal(ip)
    }

    /// Whether an allowed network holds the address a connection to `ip` is made to.
    fn allows(&self, ip: IpAddr) -> bool {
        let ip = connected(ip);
        self.allowed
            .iter()
            .any(|&(network, prefix)| in_network(ip, network, prefix))
    }
}

/// A checked webhook URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    url: Url,
}

impl Target {
    pub fn url(&self) -> &Url {
        &self.url
    }

    /// The URL, to send to.
    pub fn into_url(self) -> Url {
        self.url
    }
}

/// The webhook client's resolver: resolves with the system resolver, then drops every
/// address the guard refuses, so connections only go to addresses that were checked.
#[derive(Debug, Clone)]
pub struct GuardedResolver {
    guard: Arc<Guard>,
}

impl GuardedResolver {
    pub fn new(guard: Guard) -> Self {
        Self {
            guard: Arc::new(guard),
        }
    }
}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let guard = Arc::clone(&self.guard);
        let host = name.as_str().to_owned();
        Box::pin(async move {
            let mut allowed = Vec::new();
            let mut refused = None;
            // Port 0 stands for the URL's port, or the scheme's.
            for addr in tokio::net::lookup_host((host.as_str(), 0)).await? {
                match guard.refused(addr.ip()) {
                    None => allowed.push(addr),
                    Some(reason) => {
                        let address = addr.ip();
                        tracing::debug!(host, %address, %reason, "refused a resolved address");
                        refused.get_or_insert((address, reason));
                    }
                }
            }
            match refused {
                Some((address, reason)) if allowed.is_empty() => Err(Blocked::Name {
                    host,
                    address,
                    reason,
                }
                .into()),
                _ => Ok(Box::new(allowed.into_iter()) as Addrs),
            }
        })
    }
}

/// The HTTP client for webhook requests: names resolve through [`GuardedResolver`],
/// redirects are never followed (a redirect could lead anywhere), no proxy is used (a
/// proxy would resolve names itself, unchecked), and connections and whole requests have
/// time limits.
///
/// A URL whose host is a literal address is connected to without resolution: check every
/// URL with [`Guard::check_url`] before sending to it. Building fails only if the
/// platform's certificate verifier cannot be set up.
pub fn client(
    guard: Guard,
    connect_timeout: Duration,
    total_timeout: Duration,
) -> Result<reqwest::Client, reqwest::Error> {
    crate::tls::install_crypto();
    reqwest::Client::builder()
        .dns_resolver(GuardedResolver::new(guard))
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .connect_timeout(connect_timeout)
        .timeout(total_timeout)
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::SocketAddr;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpListener;
    use tokio::time::timeout;

    /// What checking a URL gives.
    #[derive(Debug, Clone, Copy)]
    enum Outcome {
        /// Accepted: a public literal address, or a name left to the resolver.
        Passes,
        /// Refused for this literal address (as the URL parser normalised it).
        Address(&'static str),
        Scheme,
        Credentials,
        NoHost,
        Unparsable,
    }
    use Outcome::*;

    fn check(guard: &Guard, cases: &[(&str, Outcome)]) {
        for &(url, expected) in cases {
            let result = guard.check_url(url);
            let as_expected = match (expected, &result) {
                (Passes, Ok(_)) => true,
                (Address(text), Err(Blocked::Address { address, .. })) => *address == ip(text),
                (Scheme, Err(Blocked::Scheme(_)))
                | (Credentials, Err(Blocked::Credentials))
                | (NoHost, Err(Blocked::NoHost))
                | (Unparsable, Err(Blocked::Unparsable(_))) => true,
                _ => false,
            };
            assert!(as_expected, "{url}: expected {expected:?}, got {result:?}");
        }
    }

    fn loopback_guard() -> Guard {
        Guard {
            allowed: vec![(ip("127.0.0.0"), 8)],
            ..Guard::default()
        }
    }

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn refuses_literals_that_are_not_global_however_written() {
        check(
            &Guard::default(),
            &[
                // Loopback in every spelling the URL parser accepts.
                ("http://127.0.0.1/", Address("127.0.0.1")),
                ("https://127.0.0.1:8443/hooks?x=1", Address("127.0.0.1")),
                ("http://127.255.255.254/", Address("127.255.255.254")),
                ("http://127.1/", Address("127.0.0.1")),
                ("http://2130706433/", Address("127.0.0.1")),
                ("http://017700000001/", Address("127.0.0.1")),
                ("http://0177.0.0.1/", Address("127.0.0.1")),
                ("http://0x7f.1/", Address("127.0.0.1")),
                ("http://0x7f000001/", Address("127.0.0.1")),
                ("http://0x7F.0x00.0x00.0x01/", Address("127.0.0.1")),
                ("http://%31%32%37.0.0.1/", Address("127.0.0.1")),
                ("http://１２７.０.０.１/", Address("127.0.0.1")),
                ("http://127.0.0.1./", Address("127.0.0.1")),
                ("http://[::1]/", Address("::1")),
                ("http://[0:0:0:0:0:0:0:1]:8080/", Address("::1")),
                ("http://0.0.0.0/", Address("0.0.0.0")),
                ("http://0/", Address("0.0.0.0")),
                ("http://[::]/", Address("::")),
                ("http://10.1.2.3/", Address("10.1.2.3")),
                (
                    "http://169.254.169.254/latest/meta-data/",
                    Address("169.254.169.254"),
                ),
                ("http://[fd00:ec2::254]/", Address("fd00:ec2::254")),
                ("http://[fe80::1]/", Address("fe80::1")),
                ("http://224.0.0.1/", Address("224.0.0.1")),
                ("http://255.255.255.255/", Address("255.255.255.255")),
                ("http://0xffffffff/", Address("255.255.255.255")),
                ("http://[ff02::1]/", Address("ff02::1")),
                // IPv6 forms leading to an IPv4 address, as the URL parser writes them.
                ("http://[::ffff:127.0.0.1]/", Address("::ffff:7f00:1")),
                ("http://[::ffff:7f00:1]/", Address("::ffff:7f00:1")),
                (
                    "http://[::ffff:169.254.169.254]/",
                    Address("::ffff:a9fe:a9fe"),
                ),
                ("http://[::ffff:0:7f00:1]/", Address("::ffff:0:7f00:1")),
                (
                    "http://[::ffff:0:a9fe:a9fe]/",
                    Address("::ffff:0:a9fe:a9fe"),
                ),
                ("http://[::ffff:0:a00:1]/", Address("::ffff:0:a00:1")),
                ("http://[::ffff:0:8.8.8.8]/", Address("::ffff:0:808:808")),
                ("http://[::127.0.0.1]/", Address("::7f00:1")),
                ("http://[::8.8.8.8]/", Address("::808:808")),
                ("http://[::1:0:0:7f00:1]/", Address("::1:0:0:7f00:1")),
                ("http://[64:ff9b::127.0.0.1]/", Address("64:ff9b::7f00:1")),
                (
                    "http://[64:ff9b::a9fe:a9fe]/",
                    Address("64:ff9b::a9fe:a9fe"),
                ),
                (
                    "http://[64:ff9b:1::808:808]/",
                    Address("64:ff9b:1::808:808"),
                ),
                ("http://[2002:7f00:1::1]/", Address("2002:7f00:1::1")),
                ("http://[2002:a9fe:a9fe::]/", Address("2002:a9fe:a9fe::")),
                ("http://[2001::1]/", Address("2001::1")),
                (
                    "http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/",
                    Address("2001:0:4136:e378:8000:63bf:80ff:fffe"),
                ),
                ("http://[2001:20::1]/", Address("2001:20::1")),
                ("http://[3fff::1]/", Address("3fff::1")),
            ],
        );
    }

    #[test]
    fn accepts_public_addresses_and_names() {
        check(
            &Guard::default(),
            &[
                ("https://example.com/hooks", Passes),
                ("http://8.8.8.8/", Passes),
                ("https://1.1.1.1:8443/x", Passes),
                ("http://134744072/", Passes),
                ("http://[2606:4700:4700::1111]/", Passes),
                ("http://[::ffff:8.8.8.8]/", Passes),
                ("http://192.0.0.9/", Passes),
                ("http://[2001:1::1]/", Passes),
                // Translated by NAT64, relayed by 6to4 or Teredo to a public address.
                ("http://[64:ff9b::8.8.8.8]/", Passes),
                ("http://[2002:808:808::1]/", Passes),
                ("http://[2001:0:4136:e378:8000:63bf:f7f7:f7f7]/", Passes),
                // Names are checked by the resolver, at connection time.
                ("http://localhost/", Passes),
                ("http://LOCALHOST:8080/", Passes),
                ("http://metadata.google.internal/", Passes),
            ],
        );
    }

    #[test]
    fn refuses_other_schemes_credentials_and_non_urls() {
        check(
            &Guard::default(),
            &[
                ("ftp://example.com/", Scheme),
                ("gopher://127.0.0.1:70/_", Scheme),
                ("ws://example.com/", Scheme),
                ("file://server/share", Scheme),
                ("file:///etc/passwd", NoHost),
                ("javascript:alert(1)", NoHost),
                ("data:text/plain,hi", NoHost),
                ("mailto:ops@example.com", NoHost),
                ("http://user:pass@example.com/", Credentials),
                ("https://user@example.com/", Credentials),
                ("http://:secret@example.com/", Credentials),
                ("http://example.com@127.0.0.1/", Credentials),
                ("", Unparsable),
                ("example.com/hooks", Unparsable),
                ("http://", Unparsable),
                ("http://[::1/", Unparsable),
                ("http://256.0.0.1/", Unparsable),
                ("http://0x100000000/", Unparsable),
                ("http://[fe80::1%25eth0]/", Unparsable),
            ],
        );
    }

    /// An allowed network lets through the addresses connected to inside it: IPv4 ones
    /// and their IPv4-mapped spelling, never a form that leads to them from elsewhere.
    #[test]
    fn the_allow_list_lets_only_its_networks_through() {
        check(
            &loopback_guard(),
            &[
                ("http://127.0.0.1:3000/hooks", Passes),
                ("http://2130706433/", Passes),
                ("http://0x7f.1/", Passes),
                ("http://[::ffff:127.0.0.1]/", Passes),
                ("http://localhost:3000/", Passes),
                ("http://10.0.0.1/", Address("10.0.0.1")),
                ("http://[::1]/", Address("::1")),
                ("http://169.254.169.254/", Address("169.254.169.254")),
                ("http://[::ffff:0:7f00:1]/", Address("::ffff:0:7f00:1")),
                ("http://[::127.0.0.1]/", Address("::7f00:1")),
                ("http://[::1:0:0:7f00:1]/", Address("::1:0:0:7f00:1")),
                ("http://[64:ff9b::7f00:1]/", Address("64:ff9b::7f00:1")),
                ("http://[64:ff9b:1::7f00:1]/", Address("64:ff9b:1::7f00:1")),
                ("http://[2002:7f00:1::]/", Address("2002:7f00:1::")),
                ("http://[2001:0:7f00:1::1]/", Address("2001:0:7f00:1::1")),
                (
                    "http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/",
                    Address("2001:0:4136:e378:8000:63bf:80ff:fffe"),
                ),
                ("ftp://127.0.0.1/", Scheme),
                ("http://user:pass@127.0.0.1/", Credentials),
            ],
        );
        let open = Guard {
            allow_private: true,
            ..Guard::default()
        };
        check(
            &open,
            &[
                ("http://10.0.0.1/", Passes),
                ("http://169.254.169.254/", Passes),
                ("http://[fd00:ec2::254]/", Passes),
                ("http://[64:ff9b::7f00:1]/", Passes),
                ("gopher://10.0.0.1/", Scheme),
                ("http://user@10.0.0.1/", Credentials),
            ],
        );
    }

    #[test]
    fn refusals_name_the_address_and_its_range() {
        let refused = Guard::default()
            .check_ip(ip("::ffff:10.1.2.3"))
            .unwrap_err();
        assert_eq!(
            refused,
            Blocked::Address {
                address: ip("::ffff:10.1.2.3"),
                reason: Refusal::In("10.0.0.0/8 (private-use)"),
            }
        );
        assert_eq!(
            refused.to_string(),
            "::ffff:10.1.2.3 is in 10.0.0.0/8 (private-use); webhooks may not reach it"
        );
        let carried = Guard::default()
            .check_ip(ip("2001:0:4136:e378:8000:63bf:80ff:fffe"))
            .unwrap_err();
        assert_eq!(
            carried.to_string(),
            "2001:0:4136:e378:8000:63bf:80ff:fffe is in 2001::/32 (Teredo), whose Teredo client \
             127.0.0.1 is in 127.0.0.0/8 (loopback); webhooks may not reach it"
        );
    }

    #[test]
    fn allow_list_entries_match_by_family_and_prefix() {
        let guard = |allowed: &[(&str, u8)]| Guard {
            allowed: allowed
                .iter()
                .map(|&(net, prefix)| (ip(net), prefix))
                .collect(),
            ..Guard::default()
        };
        let loopback = guard(&[("127.0.0.0", 8)]);
        assert!(loopback.check_ip(ip("127.0.0.1")).is_ok());
        assert!(loopback.check_ip(ip("127.255.255.255")).is_ok());
        assert!(loopback.check_ip(ip("::ffff:127.0.0.1")).is_ok());
        assert!(loopback.check_ip(ip("::1")).is_err());
        assert!(loopback.check_ip(ip("10.0.0.1")).is_err());

        let host = guard(&[("127.0.0.1", 32), ("::1", 128)]);
        assert!(host.check_ip(ip("127.0.0.1")).is_ok());
        assert!(host.check_ip(ip("::1")).is_ok());
        assert!(host.check_ip(ip("127.0.0.2")).is_err());

        let too_long = guard(&[("10.0.0.0", 33), ("fd00::", 129)]);
        assert!(too_long.check_ip(ip("10.0.0.0")).is_err());
        assert!(too_long.check_ip(ip("fd00::")).is_err());

        let every_ipv4 = guard(&[("0.0.0.0", 0)]);
        assert!(every_ipv4.check_ip(ip("10.0.0.1")).is_ok());
        assert!(every_ipv4.check_ip(ip("::ffff:10.0.0.1")).is_ok());
        assert!(every_ipv4.check_ip(ip("fd00::1")).is_err());
        assert!(every_ipv4.check_ip(ip("64:ff9b::a00:1")).is_err());

        // An operator whose own NAT64 reaches private networks allows its IPv6 prefix.
        let own_nat64 = guard(&[("64:ff9b::", 96)]);
        assert!(own_nat64.check_ip(ip("64:ff9b::a00:1")).is_ok());
        assert!(own_nat64.check_ip(ip("10.0.0.1")).is_err());
    }

    async fn resolve(
        guard: Guard,
        name: &str,
    ) -> Result<Vec<SocketAddr>, Box<dyn Error + Send + Sync>> {
        let name = name.parse::<Name>().expect("a valid name");
        Ok(GuardedResolver::new(guard).resolve(name).await?.collect())
    }

    #[tokio::test]
    async fn the_resolver_refuses_names_of_unreachable_addresses() {
        let error = resolve(Guard::default(), "localhost").await.unwrap_err();
        match Blocked::cause_of(error.as_ref()) {
            Some(Blocked::Name { host, address, .. }) => {
                assert_eq!(host, "localhost");
                assert!(address.is_loopback(), "{address}");
            }
            other => panic!("expected a refused name, got {other:?} from {error}"),
        }
        assert!(
            error
                .to_string()
                .starts_with("localhost resolves only to addresses"),
            "{error}"
        );
    }

    #[tokio::test]
    async fn the_resolver_keeps_allowed_addresses() {
        let addrs = resolve(loopback_guard(), "localhost").await.unwrap();
        assert!(!addrs.is_empty());
        for addr in &addrs {
            assert!(
                matches!(addr.ip(), IpAddr::V4(v4) if v4.is_loopback()),
                "{addr}"
            );
        }
        let open = Guard {
            allow_private: true,
            ..Guard::default()
        };
        assert!(!resolve(open, "localhost").await.unwrap().is_empty());
    }

    /// Answers one request with `response`, and gives back the request's head.
    async fn answer_once(listener: TcpListener, response: String) -> String {
        let (mut stream, _) = listener.accept().await.unwrap();
        let mut head = Vec::new();
        let mut buf = [0u8; 1024];
        while !head.windows(4).any(|w| w == b"\r\n\r\n") {
            let read = stream.read(&mut buf).await.unwrap();
            assert!(read > 0, "the request ended early");
            head.extend_from_slice(&buf[..read]);
        }
        stream.write_all(response.as_bytes()).await.unwrap();
        String::from_utf8(head).unwrap()
    }

    async fn listener() -> (TcpListener, u16) {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        (listener, port)
    }

    const SECOND: Duration = Duration::from_secs(1);

    #[tokio::test]
    async fn the_client_reaches_allowed_names_and_follows_no_redirect() {
        let (listener, port) = listener().await;
        let server = tokio::spawn(answer_once(
            listener,
            format!(
                "HTTP/1.1 302 Found\r\nlocation: http://127.0.0.1:{port}/elsewhere\r\n\
                 content-length: 0\r\n\r\n"
            ),
        ));
        let client = client(loopback_guard(), 5 * SECOND, 5 * SECOND).unwrap();
        let response = client
            .post(format!("http://localhost:{port}/hooks"))
            .body("{}")
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), reqwest::StatusCode::FOUND);
        let head = server.await.unwrap();
        assert!(head.starts_with("POST /hooks HTTP/1.1\r\n"), "{head}");
    }

    #[tokio::test]
    async fn the_client_never_connects_to_refused_names() {
        let (listener, port) = listener().await;
        let client = client(Guard::default(), 5 * SECOND, 5 * SECOND).unwrap();
        let error = client
            .get(format!("http://localhost:{port}/"))
            .send()
            .await
            .unwrap_err();
        assert!(
            matches!(Blocked::cause_of(&error), Some(Blocked::Name { .. })),
            "{error:?}"
        );
        let accepted = timeout(Duration::from_millis(200), listener.accept()).await;
        assert!(accepted.is_err(), "a connection was made");
    }

    #[tokio::test]
    async fn the_client_gives_up_on_silent_targets() {
        let (listener, port) = listener().await;
        let _server = tokio::spawn(async move {
            let (stream, _) = listener.accept().await.unwrap();
            tokio::time::sleep(10 * SECOND).await;
            drop(stream);
        });
        let client = client(loopback_guard(), SECOND, Duration::from_millis(300)).unwrap();
        let error = client
            .get(format!("http://localhost:{port}/"))
            .send()
            .await
            .unwrap_err();
        assert!(error.is_timeout(), "{error:?}");
        assert!(Blocked::cause_of(&error).is_none());
    }

    #[test]
    fn clients_can_be_built_repeatedly() {
        for _ in 0..3 {
            client(Guard::default(), SECOND, SECOND).unwrap();
        }
        assert!(rustls::crypto::CryptoProvider::get_default().is_some());
    }
}
