//! Resolving settings in layers: a flag wins over its environment variable, which wins
//! over its key in `commerce.toml`, which wins over the default. Each layer gives text
//! (the file's integers and booleans are written out), applied by the setting's
//! declaration; an error names where the refused value came from.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::settings::{Kind, SETTINGS, Setting};
use super::{DEFAULT_CONFIG_FILE, ServeConfig};

/// The values of `commerce.toml`, checked against the declared settings.
#[derive(Debug, Default)]
pub struct FileSettings {
    /// How errors name the file.
    origin: String,
    values: toml::Table,
}

impl FileSettings {
    /// Reads `path`, or `./commerce.toml` when no path is given and that file exists.
    pub fn load(path: Option<&Path>) -> anyhow::Result<Self> {
        let path: PathBuf = match path {
            Some(p) => p.to_path_buf(),
            None if Path::new(DEFAULT_CONFIG_FILE).exists() => PathBuf::from(DEFAULT_CONFIG_FILE),
            None => return Ok(Self::default()),
        };
        let text = std::fs::read_to_string(&path)
            .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
        Self::parse(&path.display().to_string(), &text).map_err(anyhow::Error::msg)
    }

    /// Parses a file's text; refuses unknown keys and values of the wrong type.
    pub fn parse(origin: &str, text: &str) -> Result<Self, String> {
        let values: toml::Table =
            toml::from_str(text).map_err(|e| format!("{origin} is not valid: {}", e.message()))?;
        for (key, value) in &values {
            let Some(setting) = SETTINGS.iter().find(|s| s.key == key) else {
                return Err(format!("{origin} is not valid: unknown setting `{key}`"));
            };
            as_text(setting, value).map_err(|e| format!("{origin} is not valid: {e}"))?;
        }
        Ok(Self {
            origin: origin.to_owned(),
            values,
        })
    }

    fn value(&self, setting: &Setting) -> Option<String> {
        self.values
            .get(setting.key)
            .and_then(|v| as_text(setting, v).ok())
    }
}

/// A file value as text, when it has the type its setting takes.
fn as_text(setting: &Setting, value: &toml::Value) -> Result<String, String> {
    let key = setting.key;
    match (setting.kind, value) {
        (Kind::Text | Kind::Choice(_), toml::Value::String(s)) => Ok(s.clone()),
        (Kind::Integer, toml::Value::Integer(n)) => Ok(n.to_string()),
        (Kind::Switch, toml::Value::Boolean(b)) => Ok(b.to_string()),
        (Kind::Text | Kind::Choice(_), _) => Err(format!("`{key}` must be a string")),
        (Kind::Integer, _) => Err(format!("`{key}` must be an integer")),
        (Kind::Switch, _) => Err(format!("`{key}` must be true or false")),
    }
}

/// Where the environment is read from: the process's, or a test's.
pub type Environment<'a> = &'a dyn Fn(&str) -> Option<String>;

/// The process's environment (an empty variable counts as unset).
pub fn process_environment(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

/// The configuration `settings` resolve to from the flags given (by key), the
/// environment and the file; settings not listed keep their defaults.
pub fn resolve<'s>(
    settings: impl IntoIterator<Item = &'s Setting>,
    flags: &BTreeMap<&'static str, String>,
    environment: Environment<'_>,
    file: &FileSettings,
) -> Result<ServeConfig, String> {
    let mut config = ServeConfig::defaults();
    for setting in settings {
        let given = if let Some(value) = flags.get(setting.key) {
            Some((format!("--{}", setting.flag), value.clone()))
        } else if let Some(value) = environment(setting.env).filter(|v| !v.is_empty()) {
            Some((setting.env.to_owned(), value))
        } else {
            file.value(setting)
                .map(|value| (format!("{} in {}", setting.key, file.origin), value))
        };
        if let Some((origin, value)) = given {
            (setting.apply)(&mut config, &value).map_err(|e| format!("{origin}: {e}"))?;
        }
    }
    Ok(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_refuses_unknown_keys_and_wrong_types() {
        assert!(FileSettings::parse("f", "listen = \"0.0.0.0:1\"").is_ok());
        let unknown = FileSettings::parse("f", "lisen = \"x\"").unwrap_err();
        assert!(unknown.contains("unknown setting `lisen`"), "{unknown}");
        for wrong in [
            "db_max_connections = \"16\"",
            "allow_private_webhook_targets = \"yes\"",
            "access_token_ttl = 7200",
        ] {
            assert!(FileSettings::parse("f", wrong).is_err(), "{wrong}");
        }
    }

    #[test]
    fn an_error_names_where_the_value_came_from() {
        let nothing = |_: &str| None;
        let listen = [super::super::settings::setting("listen").unwrap()];
        let file = FileSettings::parse("commerce.toml", "listen = \"nowhere\"").unwrap();
        let refused = resolve(listen, &BTreeMap::new(), &nothing, &file).unwrap_err();
        assert!(
            refused.starts_with("listen in commerce.toml: `nowhere` is not an address"),
            "{refused}"
        );
        let env = |name: &str| (name == "COMMERCE_LISTEN").then(|| "here".to_owned());
        let refused = resolve(listen, &BTreeMap::new(), &env, &file).unwrap_err();
        assert!(refused.starts_with("COMMERCE_LISTEN: "), "{refused}");
    }
}
