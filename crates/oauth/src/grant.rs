//! The OAuth grant types an app may be allowed.

use std::fmt;
use std::str::FromStr;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GrantType {
    AuthorizationCode,
    Implicit,
    Password,
    ClientCredentials,
    RefreshToken,
    JwtBearer,
}

pub const JWT_BEARER_URN: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";

impl GrantType {
    pub const ALL: [GrantType; 6] = [
        GrantType::AuthorizationCode,
        GrantType::Implicit,
        GrantType::Password,
        GrantType::ClientCredentials,
        GrantType::RefreshToken,
        GrantType::JwtBearer,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            GrantType::AuthorizationCode => "authorization_code",
            GrantType::Implicit => "implicit",
            GrantType::Password => "password",
            GrantType::ClientCredentials => "client_credentials",
            GrantType::RefreshToken => "refresh_token",
            GrantType::JwtBearer => JWT_BEARER_URN,
        }
    }

    /// Parses a comma- or space-separated list, accepting `jwt_bearer` for the URN.
    pub fn parse_list(input: &str) -> Result<Vec<GrantType>, String> {
        let mut grants = Vec::new();
        for name in input
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|s| !s.is_empty())
        {
            let grant = if name == "jwt_bearer" {
                GrantType::JwtBearer
            } else {
                name.parse()?
            };
            if !grants.contains(&grant) {
                grants.push(grant);
            }
        }
        Ok(grants)
    }
}

impl fmt::Display for GrantType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for GrantType {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        GrantType::ALL
            .into_iter()
            .find(|g| g.as_str() == s)
            .ok_or_else(|| format!("unknown grant type `{s}`"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_lists() {
        assert_eq!(
            GrantType::parse_list("password, client_credentials jwt_bearer password").unwrap(),
            [
                GrantType::Password,
                GrantType::ClientCredentials,
                GrantType::JwtBearer
            ]
        );
        assert!(GrantType::parse_list("magic").is_err());
    }
}
