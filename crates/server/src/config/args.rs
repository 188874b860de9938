//! The settings on the command line: each command takes a set of the declared settings
//! as flags, added to its clap command from the declarations, and resolves them with the
//! environment and the file.

use std::collections::BTreeMap;
use std::marker::PhantomData;

use clap::{Arg, ArgAction, ArgMatches, Command};

use super::ServeConfig;
use super::layers::{Environment, FileSettings, process_environment, resolve};
use super::settings::{Kind, SETTINGS, Setting};

/// Which settings a command takes.
pub trait SettingSet {
    /// Their keys; `None`: all of them.
    const KEYS: Option<&'static [&'static str]>;
}

/// `commerce serve`: every setting.
#[derive(Debug)]
pub struct ServeSettings;
impl SettingSet for ServeSettings {
    const KEYS: Option<&'static [&'static str]> = None;
}

/// Commands that open the database: where it is, and the keys that seal its secrets.
#[derive(Debug)]
pub struct DatabaseSettings;
impl SettingSet for DatabaseSettings {
    const KEYS: Option<&'static [&'static str]> =
        Some(&["database_url", "encryption_key", "encryption_key_file"]);
}

/// `commerce tokens create`: the database, and the servers' signing key and (for a
/// database no server has recorded its issuer in yet) what `serve` makes the issuer of.
#[derive(Debug)]
pub struct TokenSettings;
impl SettingSet for TokenSettings {
    const KEYS: Option<&'static [&'static str]> = Some(&[
        "database_url",
        "encryption_key",
        "encryption_key_file",
        "listen",
        "public_url",
        "signing_key",
    ]);
}

/// The flags of the settings of `S` given on a command line, by key.
pub struct SettingArgs<S> {
    flags: BTreeMap<&'static str, String>,
    set: PhantomData<S>,
}

impl<S> std::fmt::Debug for SettingArgs<S> {
    // Values may be secrets: only which flags were given is shown.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.flags.keys()).finish()
    }
}

impl<S: SettingSet> SettingArgs<S> {
    fn settings() -> impl Iterator<Item = &'static Setting> {
        SETTINGS
            .iter()
            .filter(|s| S::KEYS.is_none_or(|keys| keys.contains(&s.key)))
    }

    /// The configuration these flags, the process's environment and `file` resolve to.
    pub fn resolve(&self, file: &FileSettings) -> anyhow::Result<ServeConfig> {
        self.resolve_in(&process_environment, file)
            .map_err(anyhow::Error::msg)
    }

    /// The same, in the given environment.
    pub fn resolve_in(
        &self,
        environment: Environment<'_>,
        file: &FileSettings,
    ) -> Result<ServeConfig, String> {
        resolve(Self::settings(), &self.flags, environment, file)
    }
}

/// The setting's flag. Its variable is read by the resolver, not clap (so that tests can
/// give an environment), and named in the help as clap would.
fn flag(setting: &Setting) -> Arg {
    let help = format!("{} [env: {}]", setting.doc.trim(), setting.env);
    let arg = Arg::new(setting.key)
        .long(setting.flag)
        .help(help)
        .hide(!setting.shown);
    match setting.kind {
        Kind::Switch => arg.action(ArgAction::SetTrue),
        Kind::Choice(names) => arg
            .value_name(setting.key.to_uppercase())
            .value_parser(names.to_vec()),
        Kind::Integer => arg.value_name("N"),
        Kind::Text => arg.value_name(setting.key.to_uppercase()),
    }
}

impl<S: SettingSet> clap::FromArgMatches for SettingArgs<S> {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let mut flags = BTreeMap::new();
        for setting in Self::settings() {
            let value = match setting.kind {
                Kind::Switch => matches
                    .try_get_one::<bool>(setting.key)
                    .ok()
                    .flatten()
                    .filter(|on| **on)
                    .map(|_| "true".to_owned()),
                _ => matches
                    .try_get_one::<String>(setting.key)
                    .ok()
                    .flatten()
                    .cloned(),
            };
            if let Some(value) = value {
                flags.insert(setting.key, value);
            }
        }
        Ok(Self {
            flags,
            set: PhantomData,
        })
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

impl<S: SettingSet> clap::Args for SettingArgs<S> {
    fn augment_args(command: Command) -> Command {
        Self::settings().fold(command, |command, setting| command.arg(flag(setting)))
    }

    fn augment_args_for_update(command: Command) -> Command {
        Self::augment_args(command)
    }
}
