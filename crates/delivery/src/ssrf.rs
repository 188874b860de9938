//! The SSRF guard: webhook targets are chosen by API clients, so the dispatcher must not
//! become their way into our private networks. Literal addresses are checked when a URL
//! is checked; names are checked inside the HTTP client's resolver, on the very addresses
//! it then connects to, so a name cannot resolve one way when checked and another when
//! used (DNS rebinding).

use std::error::Error;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::sync::Arc;
use std::time::Duration;

use reqwest::Url;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use url::Host;

/// Ranges webhooks may not reach, with the reason. Translation prefixes (NAT64, 6to4) are
/// refused whatever IPv4 address they embed: a translator or relay we do not control
/// decides where they lead.
const FORBIDDEN: &[(IpAddr, u8, &str)] = &[
    (v4(0, 0, 0, 0), 8, "0.0.0.0/8 (this network)"),
    (v4(10, 0, 0, 0), 8, "10.0.0.0/8 (private)"),
    (
        v4(100, 64, 0, 0),
        10,
        "100.64.0.0/10 (shared address space)",
    ),
    (v4(127, 0, 0, 0), 8, "127.0.0.0/8 (loopback)"),
    (
        v4(169, 254, 0, 0),
        16,
        "169.254.0.0/16 (link-local, cloud metadata)",
    ),
    (v4(172, 16, 0, 0), 12, "172.16.0.0/12 (private)"),
    (
        v4(192, 0, 0, 0),
        24,
        "192.0.0.0/24 (IETF protocol assignments)",
    ),
    (v4(192, 0, 2, 0), 24, "192.0.2.0/24 (documentation)"),
    (
        v4(192, 88, 99, 0),
        24,
        "192.88.99.0/24 (6to4 relay anycast)",
    ),
    (v4(192, 168, 0, 0), 16, "192.168.0.0/16 (private)"),
    (v4(198, 18, 0, 0), 15, "198.18.0.0/15 (benchmarking)"),
    (v4(198, 51, 100, 0), 24, "198.51.100.0/24 (documentation)"),
    (v4(203, 0, 113, 0), 24, "203.0.113.0/24 (documentation)"),
    (v4(224, 0, 0, 0), 4, "224.0.0.0/4 (multicast)"),
    (v4(240, 0, 0, 0), 4, "240.0.0.0/4 (reserved, broadcast)"),
    (
        IpAddr::V6(Ipv6Addr::UNSPECIFIED),
        128,
        "::/128 (unspecified)",
    ),
    (IpAddr::V6(Ipv6Addr::LOCALHOST), 128, "::1/128 (loopback)"),
    (v6(0x64, 0xff9b, 0), 96, "64:ff9b::/96 (NAT64)"),
    (v6(0x64, 0xff9b, 1), 48, "64:ff9b:1::/48 (local NAT64)"),
    (v6(0x100, 0, 0), 64, "100::/64 (discard)"),
    (v6(0x2001, 2, 0), 48, "2001:2::/48 (benchmarking)"),
    (v6(0x2001, 0xdb8, 0), 32, "2001:db8::/32 (documentation)"),
    (v6(0x2002, 0, 0), 16, "2002::/16 (6to4)"),
    (v6(0x3fff, 0, 0), 20, "3fff::/20 (documentation)"),
    (v6(0x5f00, 0, 0), 16, "5f00::/16 (segment routing)"),
    (v6(0xfc00, 0, 0), 7, "fc00::/7 (unique local)"),
    (v6(0xfe80, 0, 0), 10, "fe80::/10 (link-local)"),
    (v6(0xfec0, 0, 0), 10, "fec0::/10 (site-local)"),
    (v6(0xff00, 0, 0), 8, "ff00::/8 (multicast)"),
];

const fn v4(a: u8, b: u8, c: u8, d: u8) -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(a, b, c, d))
}

/// An IPv6 network address from its first three groups.
const fn v6(a: u16, b: u16, c: u16) -> IpAddr {
    IpAddr::V6(Ipv6Addr::new(a, b, c, 0, 0, 0, 0, 0))
}

/// Whether a webhook must not connect to `ip`: private, loopback, link-local, multicast,
/// documentation, benchmarking, reserved and translation ranges. IPv4-mapped
/// (`::ffff:a.b.c.d`) and IPv4-compatible (`::a.b.c.d`) addresses are judged by the IPv4
/// address they carry.
pub fn is_forbidden(ip: IpAddr) -> bool {
    forbidden_range(canonical(ip)).is_some()
}

/// The refused range holding a canonical address.
fn forbidden_range(ip: IpAddr) -> Option<&'static str> {
    FORBIDDEN
        .iter()
        .find(|&&(network, prefix, _)| in_network(ip, network, prefix))
        .map(|&(_, _, reason)| reason)
}

/// The IPv4 address an IPv4-mapped or IPv4-compatible address carries; `::` and `::1`
/// stay as they are.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(addr) if !addr.is_unspecified() && !addr.is_loopback() => {
            addr.to_ipv4().map_or(ip, IpAddr::V4)
        }
        _ => ip,
    }
}

/// Whether `ip` is in `network/prefix`. Addresses of different families never match, nor
/// does a prefix longer than the address.
fn in_network(ip: IpAddr, network: IpAddr, prefix: u8) -> bool {
    let prefix = u32::from(prefix);
    match (ip, network) {
        (IpAddr::V4(ip), IpAddr::V4(network)) => {
            prefix <= 32 && (ip.to_bits() ^ network.to_bits()).leading_zeros() >= prefix
        }
        (IpAddr::V6(ip), IpAddr::V6(network)) => {
            prefix <= 128 && (ip.to_bits() ^ network.to_bits()).leading_zeros() >= prefix
        }
        _ => false,
    }
}

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
    #[error("{address} is in {range}, which webhooks may not reach")]
    Address {
        address: IpAddr,
        range: &'static str,
    },
    #[error(
        "{host} resolves only to addresses webhooks may not reach, such as {address} in {range}"
    )]
    Name {
        host: String,
        address: IpAddr,
        range: &'static str,
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

/// Which addresses webhooks may reach. The default refuses every forbidden range.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Guard {
    /// Allows every address: for deployments whose subscribers live on private networks.
    pub allow_private: bool,
    /// Networks (address, prefix length) allowed although forbidden, such as
    /// `127.0.0.0/8` in tests. IPv4 entries also match IPv4-mapped addresses; an entry
    /// whose prefix is longer than its address matches nothing.
    pub allowed: Vec<(IpAddr, u8)>,
}

impl Guard {
    /// Whether a webhook may connect to `ip`.
    pub fn check_ip(&self, ip: IpAddr) -> Result<(), Blocked> {
        match self.refused_range(ip) {
            Some(range) => Err(Blocked::Address { address: ip, range }),
            None => Ok(()),
        }
    }

    /// Checks a webhook URL: http or https, a host, no credentials, and no forbidden
    /// literal address, however written (`http://2130706433/`, `http://0x7f.1/` and
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

    /// The forbidden range holding `ip`, unless this guard allows it.
    fn refused_range(&self, ip: IpAddr) -> Option<&'static str> {
        let ip = canonical(ip);
        let allowed = |&(network, prefix): &(IpAddr, u8)| in_network(ip, network, prefix);
        if self.allow_private || self.allowed.iter().any(allowed) {
            return None;
        }
        forbidden_range(ip)
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
                match guard.refused_range(addr.ip()) {
                    None => allowed.push(addr),
                    Some(range) => {
                        let address = addr.ip();
                        tracing::debug!(host, %address, range, "refused a resolved address");
                        refused.get_or_insert((address, range));
                    }
                }
            }
            match refused {
                Some((address, range)) if allowed.is_empty() => Err(Blocked::Name {
                    host,
                    address,
                    range,
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
                (Address(ip), Err(Blocked::Address { address, .. })) => {
                    canonical(*address) == canonical(ip.parse().unwrap())
                }
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
            allowed: vec![(Ipv4Addr::new(127, 0, 0, 0).into(), 8)],
            ..Guard::default()
        }
    }

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn refuses_forbidden_literals_however_written() {
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
                ("http://[::ffff:127.0.0.1]/", Address("127.0.0.1")),
                ("http://[::ffff:7f00:1]/", Address("127.0.0.1")),
                ("http://[::127.0.0.1]/", Address("127.0.0.1")),
                // Unspecified: connecting to it reaches this host.
                ("http://0.0.0.0/", Address("0.0.0.0")),
                ("http://0/", Address("0.0.0.0")),
                ("http://[::]/", Address("::")),
                // Private and shared networks.
                ("http://10.0.0.1/", Address("10.0.0.1")),
                ("http://0xa000001/", Address("10.0.0.1")),
                ("http://10.255.255.255/", Address("10.255.255.255")),
                ("http://172.16.0.1/", Address("172.16.0.1")),
                ("http://172.31.255.254/", Address("172.31.255.254")),
                ("http://192.168.1.1/", Address("192.168.1.1")),
                ("http://100.64.0.1/", Address("100.64.0.1")),
                ("http://[::ffff:10.0.0.1]/", Address("10.0.0.1")),
                ("http://[::ffff:c0a8:101]/", Address("192.168.1.1")),
                ("http://[fc00::1]/", Address("fc00::1")),
                ("http://[fec0::1]/", Address("fec0::1")),
                // Link-local, where cloud metadata services live.
                (
                    "http://169.254.169.254/latest/meta-data/",
                    Address("169.254.169.254"),
                ),
                ("http://2852039166/", Address("169.254.169.254")),
                ("http://0xa9fea9fe/", Address("169.254.169.254")),
                ("http://0251.0376.0251.0376/", Address("169.254.169.254")),
                (
                    "http://[::ffff:169.254.169.254]/",
                    Address("169.254.169.254"),
                ),
                ("http://[fd00:ec2::254]/", Address("fd00:ec2::254")),
                ("http://[fe80::1]/", Address("fe80::1")),
                ("http://[febf::1]/", Address("febf::1")),
                // Translation prefixes, whatever they embed.
                ("http://[64:ff9b::127.0.0.1]/", Address("64:ff9b::7f00:1")),
                (
                    "http://[64:ff9b::a9fe:a9fe]/",
                    Address("64:ff9b::a9fe:a9fe"),
                ),
                ("http://[64:ff9b::8.8.8.8]/", Address("64:ff9b::808:808")),
                ("http://[64:ff9b:1::a00:1]/", Address("64:ff9b:1::a00:1")),
                ("http://[2002:7f00:1::1]/", Address("2002:7f00:1::1")),
                ("http://[2002:a9fe:a9fe::]/", Address("2002:a9fe:a9fe::")),
                ("http://[2002:808:808::1]/", Address("2002:808:808::1")),
                // Reserved, documentation, benchmarking, discard and segment routing.
                ("http://192.0.0.8/", Address("192.0.0.8")),
                ("http://192.0.2.10/", Address("192.0.2.10")),
                ("http://192.88.99.1/", Address("192.88.99.1")),
                ("http://198.18.0.1/", Address("198.18.0.1")),
                ("http://198.19.255.255/", Address("198.19.255.255")),
                ("http://198.51.100.7/", Address("198.51.100.7")),
                ("http://203.0.113.9/", Address("203.0.113.9")),
                ("http://[2001:db8::1]/", Address("2001:db8::1")),
                ("http://[2001:2::1]/", Address("2001:2::1")),
                ("http://[3fff::1]/", Address("3fff::1")),
                ("http://[100::1]/", Address("100::1")),
                ("http://[5f00::1]/", Address("5f00::1")),
                // Multicast and broadcast.
                ("http://224.0.0.1/", Address("224.0.0.1")),
                ("http://239.255.255.250:1900/", Address("239.255.255.250")),
                ("http://240.0.0.1/", Address("240.0.0.1")),
                ("http://255.255.255.255/", Address("255.255.255.255")),
                ("http://0xffffffff/", Address("255.255.255.255")),
                ("http://[ff02::1]/", Address("ff02::1")),
                ("http://[ff05::1:3]/", Address("ff05::1:3")),
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
                ("http://11.0.0.1/", Passes),
                ("http://100.128.0.1/", Passes),
                ("http://169.255.0.1/", Passes),
                ("http://172.32.0.1/", Passes),
                ("http://198.20.0.1/", Passes),
                ("http://223.255.255.255/", Passes),
                ("http://[64:ff9b::1:0:0]/", Passes),
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
                ("http://[64:ff9b::7f00:1]/", Address("64:ff9b::7f00:1")),
                ("http://[2002:7f00:1::]/", Address("2002:7f00:1::")),
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
                ("gopher://10.0.0.1/", Scheme),
                ("http://user@10.0.0.1/", Credentials),
            ],
        );
    }

    #[test]
    fn forbidden_ranges_end_where_they_should() {
        let cases = [
            ("0.255.255.255", true),
            ("1.0.0.0", false),
            ("9.255.255.255", false),
            ("10.0.0.0", true),
            ("11.0.0.0", false),
            ("100.63.255.255", false),
            ("100.64.0.0", true),
            ("100.127.255.255", true),
            ("100.128.0.0", false),
            ("126.255.255.255", false),
            ("127.255.255.255", true),
            ("128.0.0.0", false),
            ("169.253.255.255", false),
            ("169.254.0.0", true),
            ("169.255.0.0", false),
            ("172.15.255.255", false),
            ("172.16.0.0", true),
            ("172.31.255.255", true),
            ("172.32.0.0", false),
            ("192.0.1.0", false),
            ("192.0.3.0", false),
            ("192.88.98.255", false),
            ("192.167.255.255", false),
            ("192.169.0.0", false),
            ("198.17.255.255", false),
            ("198.20.0.0", false),
            ("198.51.99.255", false),
            ("203.0.114.0", false),
            ("223.255.255.255", false),
            ("224.0.0.0", true),
            ("::2", true),
            ("::ffff:1.2.3.4", false),
            ("::1.2.3.4", false),
            ("::ffff:0.0.0.0", true),
            ("64:ff9b::ffff:ffff", true),
            ("64:ff9b:1:ffff:ffff:ffff:ffff:ffff", true),
            ("64:ff9b:2::", false),
            ("100::ffff:ffff:ffff:ffff", true),
            ("100:0:0:1::", false),
            ("2001:1:ffff:ffff:ffff:ffff:ffff:ffff", false),
            ("2001:3::", false),
            ("2001:db7:ffff:ffff:ffff:ffff:ffff:ffff", false),
            ("2001:db9::", false),
            ("2001:4860:4860::8888", false),
            ("2001:ffff::", false),
            ("2003::", false),
            ("3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false),
            ("3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff", true),
            ("3fff:1000::", false),
            ("5eff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false),
            ("5f00:ffff::", true),
            ("5f01::", false),
            ("fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false),
            ("fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true),
            ("fe00::", false),
            ("fe7f:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false),
            ("feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true),
            ("ff00::", true),
        ];
        for (text, forbidden) in cases {
            assert_eq!(is_forbidden(ip(text)), forbidden, "{text}");
        }
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
                range: "10.0.0.0/8 (private)",
            }
        );
        assert_eq!(
            refused.to_string(),
            "::ffff:10.1.2.3 is in 10.0.0.0/8 (private), which webhooks may not reach"
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
        assert!(every_ipv4.check_ip(ip("fd00::1")).is_err());
    }

    async fn resolve(
        guard: Guard,
        name: &str,
    ) -> Result<Vec<SocketAddr>, Box<dyn Error + Send + Sync>> {
        let name = name.parse::<Name>().expect("a valid name");
        Ok(GuardedResolver::new(guard).resolve(name).await?.collect())
    }

    #[tokio::test]
    async fn the_resolver_refuses_names_of_forbidden_addresses() {
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
