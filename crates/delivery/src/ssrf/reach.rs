//! Which addresses are globally reachable, as the IANA IPv4 and IPv6 special-purpose
//! address registries (RFC 6890) and the IPv6 address space registry say: a webhook
//! target must be one of them, so that an API client cannot point the dispatcher at our
//! own or anyone's private networks. IPv6 forms that lead to an IPv4 address (through a
//! translator, a relay or a tunnel) are judged by the IPv4 addresses they carry as well.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// What a registry block means for a webhook target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reach {
    /// Globally reachable (a registry entry marked so inside a block that is not).
    Global,
    /// Not globally reachable, or no unicast destination at all: refused whatever it
    /// carries.
    Refused,
    /// Leads to the IPv4 addresses it carries: as reachable as they are.
    Carries(Embedding),
}

/// Where an IPv6 form carries the IPv4 addresses a packet to it ends up at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Embedding {
    /// NAT64's well-known prefix (RFC 6052): the last 32 bits.
    Nat64,
    /// 6to4 (RFC 3056): bits 16 to 47, the relay or tunnel end the packet is sent to.
    SixToFour,
    /// Teredo (RFC 4380): the server in bits 32 to 63, and the client's public address
    /// in the last 32 bits, inverted.
    Teredo,
}

impl Embedding {
    /// The IPv4 addresses a packet to `ip` is sent on to, each with its role.
    fn carried(self, ip: Ipv6Addr) -> Vec<(&'static str, Ipv4Addr)> {
        let bits = ip.to_bits();
        let word = |shift: u32| Ipv4Addr::from_bits((bits >> shift) as u32);
        match self {
            Embedding::Nat64 => vec![("embedded address", word(0))],
            Embedding::SixToFour => vec![("embedded address", word(80))],
            Embedding::Teredo => vec![
                ("Teredo server", word(64)),
                ("Teredo client", Ipv4Addr::from_bits(!(bits as u32))),
            ],
        }
    }
}

/// A block of a registry: the most specific block holding an address decides.
struct Block {
    network: IpAddr,
    prefix: u8,
    name: &'static str,
    reach: Reach,
}

const fn v4(octets: [u8; 4], prefix: u8, name: &'static str, reach: Reach) -> Block {
    let [a, b, c, d] = octets;
    Block {
        network: IpAddr::V4(Ipv4Addr::new(a, b, c, d)),
        prefix,
        name,
        reach,
    }
}

const fn v6(network: u128, prefix: u8, name: &'static str, reach: Reach) -> Block {
    Block {
        network: IpAddr::V6(Ipv6Addr::from_bits(network)),
        prefix,
        name,
        reach,
    }
}

use Reach::{Carries, Global, Refused};

/// IPv4: every address not in a refused block is global unicast. The registry's
/// globally reachable entries outside these blocks (AS112 192.31.196.0/24 and
/// 192.175.48.0/24, AMT 192.52.193.0/24) need no row.
const IPV4: &[Block] = &[
    v4([0, 0, 0, 0], 8, "0.0.0.0/8 (this network)", Refused),
    v4([10, 0, 0, 0], 8, "10.0.0.0/8 (private-use)", Refused),
    v4(
        [100, 64, 0, 0],
        10,
        "100.64.0.0/10 (shared address space)",
        Refused,
    ),
    v4([127, 0, 0, 0], 8, "127.0.0.0/8 (loopback)", Refused),
    v4(
        [169, 254, 0, 0],
        16,
        "169.254.0.0/16 (link-local, cloud metadata)",
        Refused,
    ),
    v4([172, 16, 0, 0], 12, "172.16.0.0/12 (private-use)", Refused),
    // Holds DS-Lite's 192.0.0.0/29, the dummy 192.0.0.8 and NAT64 discovery .170/.171.
    v4(
        [192, 0, 0, 0],
        24,
        "192.0.0.0/24 (IETF protocol assignments)",
        Refused,
    ),
    v4([192, 0, 0, 9], 32, "192.0.0.9/32 (PCP anycast)", Global),
    v4([192, 0, 0, 10], 32, "192.0.0.10/32 (TURN anycast)", Global),
    v4([192, 0, 2, 0], 24, "192.0.2.0/24 (documentation)", Refused),
    // Deprecated (RFC 7526): the nearest relay, whoever runs it, would answer.
    v4(
        [192, 88, 99, 0],
        24,
        "192.88.99.0/24 (deprecated 6to4 relay anycast)",
        Refused,
    ),
    v4(
        [192, 168, 0, 0],
        16,
        "192.168.0.0/16 (private-use)",
        Refused,
    ),
    v4([198, 18, 0, 0], 15, "198.18.0.0/15 (benchmarking)", Refused),
    v4(
        [198, 51, 100, 0],
        24,
        "198.51.100.0/24 (documentation)",
        Refused,
    ),
    v4(
        [203, 0, 113, 0],
        24,
        "203.0.113.0/24 (documentation)",
        Refused,
    ),
    // Not in the special-purpose registry, and no unicast destination.
    v4([224, 0, 0, 0], 4, "224.0.0.0/4 (multicast)", Refused),
    v4(
        [240, 0, 0, 0],
        4,
        "240.0.0.0/4 (reserved, limited broadcast)",
        Refused,
    ),
];

/// IPv6: only global unicast (2000::/3) is reachable, less the registry's blocks that
/// are not. IPv4-mapped addresses (`::ffff:0:0/96`) never get here: a connection to one
/// is an IPv4 connection, judged as IPv4 (see [`connected`]).
const IPV6: &[Block] = &[
    v6(0, 0, "::/0 outside 2000::/3 (not global unicast)", Refused),
    v6(0x2000 << 112, 3, "2000::/3 (global unicast)", Global),
    v6(0, 128, "::/128 (unspecified)", Refused),
    v6(1, 128, "::1/128 (loopback)", Refused),
    // Deprecated (RFC 4291); some hosts still tunnel them to the IPv4 address.
    v6(0, 96, "::/96 (IPv4-compatible, deprecated)", Refused),
    // SIIT (RFC 2765): reached through a translator we know nothing of.
    v6(
        0xffff << 48,
        96,
        "::ffff:0:0:0/96 (IPv4-translated)",
        Refused,
    ),
    v6(
        0x64_ff9b << 96,
        96,
        "64:ff9b::/96 (NAT64)",
        Carries(Embedding::Nat64),
    ),
    // Local-use NAT64 (RFC 8215): the operator's own translator, with its own prefix
    // lengths, so the carried address cannot even be read.
    v6(
        0x64_ff9b_0001 << 80,
        48,
        "64:ff9b:1::/48 (local-use NAT64)",
        Refused,
    ),
    v6(0x0100 << 112, 64, "100::/64 (discard-only)", Refused),
    v6(
        0x0100_0000_0000_0001 << 64,
        64,
        "100:0:0:1::/64 (dummy prefix)",
        Refused,
    ),
    v6(
        0x2001 << 112,
        23,
        "2001::/23 (IETF protocol assignments)",
        Refused,
    ),
    v6(
        0x2001 << 112,
        32,
        "2001::/32 (Teredo)",
        Carries(Embedding::Teredo),
    ),
    v6(
        (0x2001_0001 << 96) | 1,
        128,
        "2001:1::1/128 (PCP anycast)",
        Global,
    ),
    v6(
        (0x2001_0001 << 96) | 2,
        128,
        "2001:1::2/128 (TURN anycast)",
        Global,
    ),
    v6(
        (0x2001_0001 << 96) | 3,
        128,
        "2001:1::3/128 (DNS-SD SRP anycast)",
        Global,
    ),
    v6(0x2001_0002 << 96, 48, "2001:2::/48 (benchmarking)", Refused),
    v6(0x2001_0003 << 96, 32, "2001:3::/32 (AMT)", Global),
    v6(
        0x2001_0004_0112 << 80,
        48,
        "2001:4:112::/48 (AS112-v6)",
        Global,
    ),
    v6(
        0x2001_0010 << 96,
        28,
        "2001:10::/28 (deprecated ORCHID)",
        Refused,
    ),
    // The registry marks ORCHIDv2 and DETs reachable, but they are identifiers, not
    // locators (RFC 7343, RFC 9374): no webhook can live at one.
    v6(
        0x2001_0020 << 96,
        28,
        "2001:20::/28 (ORCHIDv2 identifiers)",
        Refused,
    ),
    v6(
        0x2001_0030 << 96,
        28,
        "2001:30::/28 (DET identifiers)",
        Refused,
    ),
    v6(
        0x2001_0db8 << 96,
        32,
        "2001:db8::/32 (documentation)",
        Refused,
    ),
    v6(
        0x2002 << 112,
        16,
        "2002::/16 (6to4)",
        Carries(Embedding::SixToFour),
    ),
    v6(0x3fff << 112, 20, "3fff::/20 (documentation)", Refused),
    v6(0x5f00 << 112, 16, "5f00::/16 (SRv6 SIDs)", Refused),
    v6(0xfc00 << 112, 7, "fc00::/7 (unique local)", Refused),
    v6(0xfe80 << 112, 10, "fe80::/10 (link-local)", Refused),
    v6(
        0xfec0 << 112,
        10,
        "fec0::/10 (site-local, deprecated)",
        Refused,
    ),
    v6(0xff00 << 112, 8, "ff00::/8 (multicast)", Refused),
];

/// Why an address is not globally reachable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// It is in this block.
    In(&'static str),
    /// It is in `block`, which leads to `carried` (its `role`), which is in `range`.
    Carrying {
        block: &'static str,
        role: &'static str,
        carried: Ipv4Addr,
        range: &'static str,
    },
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::In(block) => f.write_str(block),
            Refusal::Carrying {
                block,
                role,
                carried,
                range,
            } => write!(f, "{block}, whose {role} {carried} is in {range}"),
        }
    }
}

/// The address a connection to `ip` is made to: an IPv4-mapped IPv6 address is the IPv4
/// address itself (the socket speaks IPv4 to it, or fails), every other one is itself.
pub fn connected(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        IpAddr::V4(_) => ip,
    }
}

/// Why `ip` is not globally reachable, if it is not.
pub fn refusal(ip: IpAddr) -> Option<Refusal> {
    match connected(ip) {
        IpAddr::V4(v4) => refusal_v4(v4),
        IpAddr::V6(v6) => refusal_v6(v6),
    }
}

fn refusal_v4(ip: Ipv4Addr) -> Option<Refusal> {
    refused_v4_block(ip).map(Refusal::In)
}

/// The refused block holding an IPv4 address, if one does.
fn refused_v4_block(ip: Ipv4Addr) -> Option<&'static str> {
    most_specific(IPV4, ip.into())
        .filter(|block| block.reach == Refused)
        .map(|block| block.name)
}

fn refusal_v6(ip: Ipv6Addr) -> Option<Refusal> {
    let block = most_specific(IPV6, ip.into()).expect("::/0 holds every IPv6 address");
    match block.reach {
        Global => None,
        Refused => Some(Refusal::In(block.name)),
        Carries(embedding) => embedding
            .carried(ip)
            .into_iter()
            .find_map(|(role, carried)| {
                Some(Refusal::Carrying {
                    block: block.name,
                    role,
                    carried,
                    range: refused_v4_block(carried)?,
                })
            }),
    }
}

/// The block of `table` with the longest prefix holding `ip`.
fn most_specific(table: &'static [Block], ip: IpAddr) -> Option<&'static Block> {
    table
        .iter()
        .filter(|block| in_network(ip, block.network, block.prefix))
        .max_by_key(|block| block.prefix)
}

/// Whether `ip` is in `network/prefix`. Addresses of different families never match, nor
/// does a prefix longer than the address.
pub fn in_network(ip: IpAddr, network: IpAddr, prefix: u8) -> bool {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse()
            .unwrap_or_else(|_| panic!("{text} is an address"))
    }

    /// Every block the registries mark not globally reachable, or that is no global
    /// unicast destination: its first and last addresses and one inside, and every IPv6
    /// form leading to an IPv4 address that is not global. One line per block.
    #[rustfmt::skip]
    const REFUSED: &[&str] = &[
        // IPv4 special-purpose registry, and multicast.
        "0.0.0.0", "0.0.0.1", "0.255.255.255",
        "10.0.0.0", "10.1.2.3", "10.255.255.255",
        "100.64.0.0", "100.100.100.200", "100.127.255.255",
        "127.0.0.0", "127.0.0.1", "127.255.255.255",
        "169.254.0.0", "169.254.169.254", "169.254.255.255",
        "172.16.0.0", "172.20.0.1", "172.31.255.255",
        "192.0.0.0", "192.0.0.7", "192.0.0.8", "192.0.0.11", "192.0.0.170", "192.0.0.255",
        "192.0.2.0", "192.0.2.10", "192.0.2.255",
        "192.88.99.0", "192.88.99.1", "192.88.99.2", "192.88.99.255",
        "192.168.0.0", "192.168.1.1", "192.168.255.255",
        "198.18.0.0", "198.19.0.1", "198.19.255.255",
        "198.51.100.0", "198.51.100.7", "198.51.100.255",
        "203.0.113.0", "203.0.113.9", "203.0.113.255",
        "224.0.0.0", "224.0.0.251", "239.255.255.255",
        "240.0.0.0", "250.1.2.3", "255.255.255.255",
        // IPv4-mapped: the IPv4 address itself.
        "::ffff:0.0.0.0", "::ffff:10.1.2.3", "::ffff:127.0.0.1", "::ffff:192.0.0.8",
        // IPv6 special-purpose registry.
        "::", "::1",
        "::2", "::127.0.0.1", "::8.8.8.8", "::255.255.255.255",
        "::ffff:0:0:0", "::ffff:0:7f00:1", "::ffff:0:a9fe:a9fe", "::ffff:0:a00:1",
        "::ffff:0:808:808",
        "64:ff9b::", "64:ff9b::7f00:1", "64:ff9b::a00:1", "64:ff9b::a9fe:a9fe", "64:ff9b::c000:8",
        "64:ff9b::c058:6301", "64:ff9b::e000:1", "64:ff9b::ffff:ffff",
        "64:ff9b:1::", "64:ff9b:1::808:808", "64:ff9b:1:ffff:ffff:ffff:ffff:ffff",
        "100::", "100::1", "100::ffff:ffff:ffff:ffff",
        "100:0:0:1::", "100:0:0:1:ffff:ffff:ffff:ffff",
        "2001:1::", "2001:1::4", "2001:1:ffff:ffff:ffff:ffff:ffff:ffff",
        "2001:2::", "2001:2::1", "2001:2:0:ffff:ffff:ffff:ffff:ffff",
        "2001:4::", "2001:4:111:ffff:ffff:ffff:ffff:ffff", "2001:4:113::", "2001:5::",
        "2001:10::", "2001:1f:ffff:ffff:ffff:ffff:ffff:ffff",
        "2001:20::", "2001:20::1", "2001:2f:ffff:ffff:ffff:ffff:ffff:ffff",
        "2001:30::", "2001:3f:ffff:ffff:ffff:ffff:ffff:ffff",
        "2001:40::", "2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff",
        "2001:db8::", "2001:db8::1", "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff",
        "3fff::", "3fff::1", "3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff",
        "5f00::", "5f00:1::1", "5f00:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
        "fc00::", "fd00:ec2::254", "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
        "fe80::", "fe80::1", "febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
        "fec0::", "fec0::1", "feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
        "ff00::", "ff02::1", "ff05::1:3", "ff0e::1", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
        // Teredo with a server or a client that is not global.
        "2001::", "2001::1", "2001:0:ffff:ffff:ffff:ffff:ffff:ffff", "2001:0:7f00:1::1",
        "2001:0:a00:1:8000:63bf:f7f7:f7f7", "2001:0:4136:e378:8000:63bf:80ff:fffe",
        "2001:0:4136:e378:8000:63bf:3fff:fdd2",
        // 6to4 to an IPv4 address that is not global.
        "2002::", "2002:7f00:1::1", "2002:a00:1::", "2002:a9fe:a9fe::1", "2002:c058:6301::",
        "2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
        // Outside 2000::/3: reserved or unassigned.
        "::1:0:0", "::1:0:0:7f00:1", "1::", "64:ff9b::1:0:0", "64:ff9b:2::", "100:0:0:2::",
        "1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "4000::", "8000::1", "e000::", "fe00::",
    ];

    /// Globally reachable: public unicast at the edges of the refused blocks, the
    /// registries' reachable entries, and IPv6 forms leading to a global IPv4 address.
    #[rustfmt::skip]
    const GLOBAL: &[&str] = &[
        // IPv4 next to the refused blocks.
        "1.0.0.0", "9.255.255.255", "11.0.0.0", "100.63.255.255", "100.128.0.0",
        "126.255.255.255", "128.0.0.0", "169.253.255.255", "169.255.0.0", "172.15.255.255",
        "172.32.0.0", "191.255.255.255", "192.0.1.0", "192.0.3.0", "192.88.98.255",
        "192.88.100.0", "192.167.255.255", "192.169.0.0", "198.17.255.255", "198.20.0.0",
        "198.51.99.255", "198.51.101.0", "203.0.112.255", "203.0.114.0", "223.255.255.255",
        // IPv4 registry entries marked globally reachable: PCP and TURN anycast, AS112, AMT.
        "192.0.0.9", "192.0.0.10", "192.31.196.1", "192.175.48.1", "192.52.193.1",
        "8.8.8.8", "::ffff:8.8.8.8", "::ffff:192.0.0.9",
        // IPv6 global unicast, at the edges of the refused blocks.
        "2000::", "2001:200::", "2001:db7:ffff:ffff:ffff:ffff:ffff:ffff", "2001:db9::",
        "2001:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "2003::",
        "3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
        "3fff:1000::", "3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
        "2606:4700:4700::1111", "2001:4860:4860::8888",
        // IPv6 registry entries marked globally reachable: PCP, TURN and DNS-SD anycast,
        // AMT, AS112-v6, and AS112's direct delegation.
        "2001:1::1", "2001:1::2", "2001:1::3",
        "2001:3::", "2001:3::1", "2001:3:ffff:ffff:ffff:ffff:ffff:ffff",
        "2001:4:112::", "2001:4:112:ffff:ffff:ffff:ffff:ffff",
        "2620:4f:8000::", "2620:4f:8000:ffff:ffff:ffff:ffff:ffff",
        // NAT64, 6to4 and Teredo leading to global IPv4 addresses.
        "64:ff9b::808:808", "64:ff9b::101:101", "64:ff9b::c000:9",
        "2002:808:808::", "2002:808:808:ffff::1",
        "2001:0:4136:e378:8000:63bf:f7f7:f7f7",
    ];

    #[test]
    fn only_globally_reachable_addresses_pass() {
        for text in REFUSED {
            assert!(refusal(ip(text)).is_some(), "{text} should be refused");
        }
        for text in GLOBAL {
            assert_eq!(refusal(ip(text)), None, "{text} should pass");
        }
    }

    #[test]
    fn the_most_specific_block_gives_the_reason() {
        let cases = [
            ("192.0.0.8", "192.0.0.0/24 (IETF protocol assignments)"),
            ("::1", "::1/128 (loopback)"),
            ("::", "::/128 (unspecified)"),
            ("::7f00:1", "::/96 (IPv4-compatible, deprecated)"),
            ("::ffff:0:7f00:1", "::ffff:0:0:0/96 (IPv4-translated)"),
            (
                "::ffff:169.254.169.254",
                "169.254.0.0/16 (link-local, cloud metadata)",
            ),
            ("2001:2::1", "2001:2::/48 (benchmarking)"),
            ("2001:5::1", "2001::/23 (IETF protocol assignments)"),
            ("4000::1", "::/0 outside 2000::/3 (not global unicast)"),
        ];
        for (text, block) in cases {
            assert_eq!(refusal(ip(text)), Some(Refusal::In(block)), "{text}");
        }
    }

    #[test]
    fn forms_leading_to_ipv4_name_the_address_they_carry() {
        let carrying = |block, role, carried: &str, range| Refusal::Carrying {
            block,
            role,
            carried: carried.parse().unwrap(),
            range,
        };
        let cases = [
            (
                "64:ff9b::7f00:1",
                carrying(
                    "64:ff9b::/96 (NAT64)",
                    "embedded address",
                    "127.0.0.1",
                    "127.0.0.0/8 (loopback)",
                ),
            ),
            (
                "2002:a9fe:a9fe::1",
                carrying(
                    "2002::/16 (6to4)",
                    "embedded address",
                    "169.254.169.254",
                    "169.254.0.0/16 (link-local, cloud metadata)",
                ),
            ),
            (
                "2001::1",
                carrying(
                    "2001::/32 (Teredo)",
                    "Teredo server",
                    "0.0.0.0",
                    "0.0.0.0/8 (this network)",
                ),
            ),
            (
                "2001:0:4136:e378:8000:63bf:3fff:fdd2",
                carrying(
                    "2001::/32 (Teredo)",
                    "Teredo client",
                    "192.0.2.45",
                    "192.0.2.0/24 (documentation)",
                ),
            ),
        ];
        for (text, reason) in cases {
            assert_eq!(refusal(ip(text)), Some(reason), "{text}");
        }
    }

    #[test]
    fn mapped_addresses_are_connected_to_as_ipv4() {
        assert_eq!(connected(ip("::ffff:127.0.0.1")), ip("127.0.0.1"));
        for text in ["::127.0.0.1", "::ffff:0:7f00:1", "64:ff9b::7f00:1", "::1"] {
            assert_eq!(connected(ip(text)), ip(text), "{text}");
        }
    }
}
