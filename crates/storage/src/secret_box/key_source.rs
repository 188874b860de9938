//! Where the encryption keys come from: the configuration (the same keys on every node),
//! a key file (beside the SQLite database by default, owner-only), or, for a database
//! that lives in memory, a key made for the process. Never the database itself.

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use sqlx::sqlite::SqliteConnectOptions;

use super::SecretBoxError;
use crate::secrets;

pub const KEY_BYTES: usize = 32;

#[derive(Clone, Debug)]
pub enum KeySource {
    /// Keys given by the operator (base64), the first sealing.
    Configured(Vec<[u8; KEY_BYTES]>),
    /// A file of keys, one base64 key per line, the first sealing. The file beside a
    /// SQLite database is made at first start; a configured one must exist (several nodes
    /// making one each would not share it).
    File {
        path: PathBuf,
        made_at_first_start: bool,
    },
    /// A key made for this process alone (its database goes with it).
    Ephemeral,
}

impl KeySource {
    /// The keys given as `KEY[,KEY…]` (base64).
    pub fn configured(text: &str) -> Result<Self, SecretBoxError> {
        Ok(Self::Configured(parse_keys(text)?))
    }

    /// Where keys are kept when none is configured: a file beside a SQLite database
    /// (`data/commerce.db` → `data/commerce.key`), nothing for one in memory, and no
    /// default at all for PostgreSQL, whose nodes must share a configured key.
    pub fn default_for(database_url: &str) -> Result<Self, SecretBoxError> {
        if !database_url.starts_with("sqlite:") {
            return Err(SecretBoxError::BadKey(
                "PostgreSQL needs an encryption key shared by every node and kept outside the \
                 database: set --encryption-key (COMMERCE_ENCRYPTION_KEY) or \
                 --encryption-key-file; `commerce keys generate` prints a new key"
                    .into(),
            ));
        }
        let options = SqliteConnectOptions::from_str(database_url)
            .map_err(|e| SecretBoxError::BadKey(format!("not a SQLite URL: {e}")))?;
        let path = options.get_filename();
        if database_url.contains(":memory:")
            || database_url.contains("mode=memory")
            || path.as_os_str().is_empty()
        {
            return Ok(Self::Ephemeral);
        }
        Ok(Self::File {
            path: path.with_extension("key"),
            made_at_first_start: true,
        })
    }

    /// The keys as they are now; `None` when the key file does not exist.
    pub async fn read(&self) -> Result<Option<Vec<[u8; KEY_BYTES]>>, SecretBoxError> {
        match self {
            Self::Configured(keys) => Ok(Some(keys.clone())),
            Self::Ephemeral => Ok(None),
            Self::File { path, .. } => match tokio::fs::read_to_string(path).await {
                Ok(text) => {
                    warn_if_readable_by_others(path).await;
                    parse_keys(&text)
                        .map(Some)
                        .map_err(|e| key_file_error(path, &e.to_string()))
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
                Err(e) => Err(key_file_error(path, &e.to_string())),
            },
        }
    }

    /// Makes the first key: written to a new key file, or kept in memory.
    pub(super) async fn create(&self) -> Result<Vec<[u8; KEY_BYTES]>, SecretBoxError> {
        let key = generate_key();
        match self {
            Self::File {
                path,
                made_at_first_start: true,
            } => {
                write_key_file(path, &[key], false).await?;
                tracing::info!(file = %path.display(), "made a new encryption key file");
            }
            Self::File { path, .. } => {
                return Err(key_file_error(
                    path,
                    "it does not exist (`commerce keys generate` prints a key to put in it)",
                ));
            }
            Self::Configured(_) | Self::Ephemeral => {}
        }
        Ok(vec![key])
    }

    /// The key file, if the keys are kept in one.
    pub fn file(&self) -> Option<&Path> {
        match self {
            Self::File { path, .. } => Some(path),
            Self::Configured(_) | Self::Ephemeral => None,
        }
    }
}

impl fmt::Display for KeySource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Configured(_) => f.write_str("the configured encryption keys"),
            Self::File { path, .. } => write!(f, "the key file {}", path.display()),
            Self::Ephemeral => f.write_str("a key made for this process"),
        }
    }
}

/// Others than the owner should not read the keys; said, not refused, as the operator
/// may have reasons (a group that runs the service).
async fn warn_if_readable_by_others(path: &Path) {
    #[cfg(unix)]
    if let Ok(meta) = tokio::fs::metadata(path).await {
        use std::os::unix::fs::PermissionsExt;
        if meta.permissions().mode() & 0o077 != 0 {
            tracing::warn!(
                file = %path.display(),
                "the encryption key file can be read by others than its owner (chmod 600 it)"
            );
        }
    }
}

/// A new random key.
pub fn generate_key() -> [u8; KEY_BYTES] {
    let mut key = [0u8; KEY_BYTES];
    key.copy_from_slice(&secrets::random_bytes(KEY_BYTES));
    key
}

/// A key as it is configured and kept in key files.
pub fn encode_key(key: &[u8; KEY_BYTES]) -> String {
    STANDARD.encode(key)
}

/// Keys separated by commas or lines, each 32 bytes in base64; `#` starts a comment line.
pub fn parse_keys(text: &str) -> Result<Vec<[u8; KEY_BYTES]>, SecretBoxError> {
    let keys = text
        .lines()
        .filter(|line| !line.trim_start().starts_with('#'))
        .flat_map(|line| line.split(','))
        .map(str::trim)
        .filter(|item| !item.is_empty())
        .enumerate()
        .map(|(i, item)| {
            STANDARD
                .decode(item)
                .ok()
                .and_then(|bytes| <[u8; KEY_BYTES]>::try_from(bytes).ok())
                .ok_or_else(|| {
                    SecretBoxError::BadKey(format!(
                        "encryption key {} is not 32 bytes in base64",
                        i + 1
                    ))
                })
        })
        .collect::<Result<Vec<_>, _>>()?;
    if keys.is_empty() {
        return Err(SecretBoxError::BadKey("no encryption key is given".into()));
    }
    Ok(keys)
}

/// Writes `keys`, the sealing one first, readable by the owner alone. With `replace`, an
/// existing file is replaced whole (through a new file renamed over it, so that a reader
/// never sees half of it); without, an existing file is an error.
pub async fn write_key_file(
    path: &Path,
    keys: &[[u8; KEY_BYTES]],
    replace: bool,
) -> Result<(), SecretBoxError> {
    let mut text = String::from(
        "# Encryption keys of the commerce service, the first sealing. Keep this file secret\n\
         # and apart from database backups: whoever has both can read the stored secrets.\n",
    );
    for key in keys {
        text.push_str(&encode_key(key));
        text.push('\n');
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        tokio::fs::create_dir_all(dir)
            .await
            .map_err(|e| key_file_error(path, &e.to_string()))?;
    }
    let target = path.to_path_buf();
    tokio::task::spawn_blocking(move || write_owner_only(&target, text.as_bytes(), replace))
        .await
        .map_err(|e| key_file_error(path, &e.to_string()))?
        .map_err(|e| key_file_error(path, &e.to_string()))
}

fn write_owner_only(path: &Path, bytes: &[u8], replace: bool) -> std::io::Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let written = if replace {
        let mut name = path.file_name().unwrap_or_default().to_os_string();
        name.push(format!(".{}.new", secrets::random_token(6)));
        path.with_file_name(name)
    } else {
        path.to_path_buf()
    };
    let mut file = options.open(&written)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    if replace {
        std::fs::rename(&written, path)?;
    }
    Ok(())
}

fn key_file_error(path: &Path, message: &str) -> SecretBoxError {
    SecretBoxError::KeyFile(format!("the key file {}: {message}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_parse_from_lists_and_files() {
        let (a, b) = (STANDARD.encode([1u8; 32]), STANDARD.encode([2u8; 32]));
        assert_eq!(
            parse_keys(&format!("{a}, {b}")).unwrap(),
            vec![[1u8; 32], [2u8; 32]]
        );
        assert_eq!(
            parse_keys(&format!("# comment\n{a}\n\n{b}\n")).unwrap(),
            vec![[1u8; 32], [2u8; 32]]
        );
        assert!(parse_keys("").is_err());
        assert!(parse_keys(&STANDARD.encode([1u8; 16])).is_err());
        assert!(parse_keys("not base64!").is_err());
    }

    #[test]
    fn the_default_source_follows_the_database() {
        let source = KeySource::default_for("sqlite://./data/commerce.db").unwrap();
        assert_eq!(source.file(), Some(Path::new("./data/commerce.key")));
        assert!(matches!(
            KeySource::default_for("sqlite::memory:").unwrap(),
            KeySource::Ephemeral
        ));
        let refused = KeySource::default_for("postgres://db/commerce")
            .unwrap_err()
            .to_string();
        assert!(refused.contains("--encryption-key"), "{refused}");
    }

    #[tokio::test]
    async fn key_files_are_owner_only_and_replaced_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keys").join("commerce.key");
        write_key_file(&path, &[[1u8; 32]], false).await.unwrap();
        assert!(write_key_file(&path, &[[2u8; 32]], false).await.is_err());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        write_key_file(&path, &[[2u8; 32], [1u8; 32]], true)
            .await
            .unwrap();
        let source = KeySource::File {
            path: path.clone(),
            made_at_first_start: false,
        };
        assert_eq!(
            source.read().await.unwrap().unwrap(),
            vec![[2u8; 32], [1u8; 32]]
        );
        assert_eq!(
            std::fs::read_dir(path.parent().unwrap()).unwrap().count(),
            1
        );
        let missing = KeySource::File {
            path: dir.path().join("none"),
            made_at_first_start: false,
        };
        assert!(missing.read().await.unwrap().is_none());
        assert!(
            missing.create().await.is_err(),
            "a configured file is never made"
        );
    }
}
