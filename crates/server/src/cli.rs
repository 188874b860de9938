//! The command line: `serve`, `migrate`, `seed`, `apps create`, `users create`, `tokens
//! create`, `keys …`, `mail list`. Errors are one line on standard error and a non-zero
//! exit status.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::{Args, Parser, Subcommand};
use domain::{Role, ScopeSet, SystemClock, Timestamp};
use oauth::apps::AppRegistration;
use oauth::grant::GrantType;
use oauth::personal_tokens::PersonalTokenRequest;
use oauth::secret_box::{KeySource, SecretBox};
use oauth::{AuthConfig, AuthService};
use serde_json::json;

use crate::accounts::{NewUserRequest, create_app, create_user};
use crate::config::layers::FileSettings;
use crate::config::{DatabaseSettings, ServeConfig, ServeSettings, SettingArgs, TokenSettings};
use crate::{logging, seed, serve};

#[derive(Debug, Parser)]
#[command(
    name = "commerce",
    version,
    about = "The Commerce Platform API v2 server"
)]
struct Cli {
    /// Configuration file (default: ./commerce.toml when it exists).
    #[arg(long, global = true, env = "COMMERCE_CONFIG")]
    config: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve the API, the authorization service and the background workers.
    Serve(SettingArgs<ServeSettings>),
    /// Apply pending database migrations and exit.
    Migrate(SettingArgs<DatabaseSettings>),
    /// Create data: `--demo` makes a demo account, seller, shops, owner and app.
    Seed(SeedArgs),
    /// Manage OAuth apps.
    Apps {
        #[command(subcommand)]
        command: AppsCommand,
    },
    /// Manage account users.
    Users {
        #[command(subcommand)]
        command: UsersCommand,
    },
    /// Manage personal access tokens.
    Tokens {
        #[command(subcommand)]
        command: TokensCommand,
    },
    /// Manage the keys that sign access tokens.
    Keys {
        #[command(subcommand)]
        command: KeysCommand,
    },
    /// Read the mail outbox.
    Mail {
        #[command(subcommand)]
        command: MailCommand,
    },
}

#[derive(Debug, Subcommand)]
enum MailCommand {
    /// Print the outbox, newest first: each mail's recipient, subject, purpose, status,
    /// dates and body (unsealed; a sent mail's body is erased).
    List(MailListArgs),
}

#[derive(Debug, Args)]
struct MailListArgs {
    #[command(flatten)]
    database: SettingArgs<DatabaseSettings>,
    /// Only mail the SMTP server has not accepted: pending and failed.
    #[arg(long)]
    undelivered: bool,
    /// At most this many mails.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(i64).range(1..))]
    limit: i64,
    /// Print a JSON array of the mails.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Subcommand)]
enum TokensCommand {
    /// Make a personal access token for a user; the token is printed once.
    Create(TokenCreateArgs),
}

#[derive(Debug, Args)]
struct TokenCreateArgs {
    #[command(flatten)]
    settings: SettingArgs<TokenSettings>,
    /// The user's e-mail address.
    #[arg(long)]
    user: String,
    #[arg(long)]
    name: String,
    /// Scopes, comma-separated, within the user's role.
    #[arg(long)]
    scopes: String,
    /// 30d, 90d, 1y or never.
    #[arg(long)]
    expires: String,
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Subcommand)]
enum KeysCommand {
    /// List the active signing keys, newest (the one that signs) first, then the
    /// encryption keys, the sealing one first.
    List(SettingArgs<DatabaseSettings>),
    /// Make a new signing key; every node signs with it within a minute. Older keys keep
    /// verifying the tokens they signed until retired.
    Rotate(SettingArgs<DatabaseSettings>),
    /// Retire a signing key: tokens it signed stop working on every node within a minute.
    Retire {
        #[command(flatten)]
        database: SettingArgs<DatabaseSettings>,
        #[arg(long)]
        kid: String,
    },
    /// Replace the encryption key of a key file: a new key seals every secret anew, and
    /// running servers read it from the file; the old key is then removed.
    RotateEncryptionKey(SettingArgs<DatabaseSettings>),
    /// Seal every secret anew with the first encryption key (after configuring every node
    /// with NEW,OLD keys); a key file then keeps the first key alone.
    Reseal(SettingArgs<DatabaseSettings>),
    /// Print a new random encryption key (base64), to configure.
    Generate,
}

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("shop_loads").args(["orders", "purchases"]).multiple(true)))]
struct SeedArgs {
    #[command(flatten)]
    database: SettingArgs<DatabaseSettings>,
    /// Create the demo data.
    #[arg(long)]
    demo: bool,
    /// Add this many generated products (with variants, tags, vendors and types) to a
    /// seller's catalog: the demo seller with --demo, else --seller.
    #[arg(long)]
    products: Option<usize>,
    /// The seller that gets the generated products (default: the first seller).
    #[arg(long, requires = "products")]
    seller: Option<i64>,
    /// Add this many generated orders (over statuses, two years of dates, amounts and
    /// buyers, with lines selling the seller's variants) to a shop: the first demo shop
    /// with --demo, else --shop. Loaded after --products, whose variants they may sell.
    #[arg(long)]
    orders: Option<usize>,
    /// Add this many subscription purchases, all due today, to a shop (the first demo shop
    /// with --demo, else --shop): each opened a week ago by a paid order of a new weekly
    /// subscription product, its card saved with the shop's test gateway method (added when
    /// it has none), which approves its renewals.
    #[arg(long)]
    purchases: Option<usize>,
    /// The shop that gets the generated orders or purchases (default: the first shop).
    #[arg(long, requires = "shop_loads")]
    shop: Option<i64>,
    /// Print the result as one JSON object.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Subcommand)]
enum AppsCommand {
    /// Register an OAuth app; its secret is printed once.
    Create(AppCreateArgs),
}

#[derive(Debug, Args)]
struct AppCreateArgs {
    #[command(flatten)]
    database: SettingArgs<DatabaseSettings>,
    #[arg(long)]
    name: String,
    /// Scopes the app may ask for, comma-separated. `admin` does not include
    /// credentials.read and credentials.write: name them for a first-party app that may
    /// manage its users' tokens and apps.
    #[arg(long, default_value = "public")]
    scopes: String,
    /// Grants the app may use, comma-separated (authorization_code, implicit, password,
    /// client_credentials, refresh_token, jwt_bearer).
    #[arg(long, default_value = "client_credentials")]
    grants: String,
    /// A registered redirect URI (repeatable).
    #[arg(long = "redirect-uri")]
    redirect_uris: Vec<String>,
    /// May use the password grant.
    #[arg(long)]
    trusted: bool,
    /// A browser or native app: no secret, PKCE required.
    #[arg(long)]
    public: bool,
    /// The account the app belongs to (its client-credentials tokens see that account).
    #[arg(long)]
    account: Option<i64>,
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Subcommand)]
enum UsersCommand {
    /// Add a user to an account.
    Create(UserCreateArgs),
}

#[derive(Debug, Args)]
struct UserCreateArgs {
    #[command(flatten)]
    database: SettingArgs<DatabaseSettings>,
    #[arg(long)]
    account: i64,
    #[arg(long)]
    email: String,
    #[arg(long)]
    password: String,
    #[arg(long)]
    name: Option<String>,
    /// owner, admin, staff or readonly.
    #[arg(long)]
    role: Role,
    #[arg(long)]
    json: bool,
}

pub fn main() -> ExitCode {
    main_from(std::env::args_os())
}

/// Runs the CLI on the given arguments (the first is the program name), as the binary
/// does; the benchmarks start servers through it.
pub fn main_from<I, T>(args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let cli = Cli::parse_from(args);
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(err) => {
            eprintln!("error: cannot start the runtime: {err}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(cli)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {}", one_line(&err));
            ExitCode::FAILURE
        }
    }
}

/// The error and its causes on one line.
fn one_line(err: &anyhow::Error) -> String {
    err.chain()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(": ")
}

async fn run(cli: Cli) -> anyhow::Result<()> {
    let file = FileSettings::load(cli.config.as_deref())?;
    match cli.command {
        Command::Serve(args) => serve_command(resolve_serve(&args, &file)?).await,
        Command::Migrate(args) => {
            let config = args.resolve(&file)?;
            serve::open_database(&config).await?;
            println!("migrations applied");
            Ok(())
        }
        Command::Seed(args) => {
            if !args.demo
                && args.products.is_none()
                && args.orders.is_none()
                && args.purchases.is_none()
            {
                bail!(
                    "nothing to seed: pass --demo, --products N, --orders N and/or --purchases N"
                );
            }
            let (db, secret_box) = open_sealed(&args.database.resolve(&file)?).await?;
            let demo = match args.demo {
                true => Some(seed::demo(&db, &secret_box, &SystemClock).await?),
                false => None,
            };
            let catalog = match args.products {
                Some(count) => {
                    let seller_id = args.seller.or(demo.as_ref().map(|d| d.sellers[0].id));
                    let seller = match seller_id {
                        Some(id) => storage::sellers::find_any(&db, id).await?,
                        None => storage::sellers::first(&db).await?,
                    }
                    .context(
                        "no such seller: create one (e.g. with --demo) or name it with --seller",
                    )?;
                    let quiet = args.json;
                    Some(
                        seed::catalog::load(&db, &seller, count, &SystemClock, |done| {
                            if !quiet {
                                eprintln!("{done} of {count} products loaded");
                            }
                        })
                        .await?,
                    )
                }
                None => None,
            };
            let shop_of_loads = async || -> anyhow::Result<storage::shops::Shop> {
                let shop_id = args.shop.or(demo.as_ref().map(|d| d.shops[0].id));
                match shop_id {
                    Some(id) => storage::shops::by_ids(&db, &[id]).await?.pop(),
                    None => storage::shops::first(&db).await?,
                }
                .context("no such shop: create one (e.g. with --demo) or name it with --shop")
            };
            let history = match args.orders {
                Some(count) => {
                    let shop = shop_of_loads().await?;
                    let quiet = args.json;
                    Some(
                        seed::orders::load(&db, &shop, count, &SystemClock, |done| {
                            if !quiet {
                                eprintln!("{done} of {count} orders loaded");
                            }
                        })
                        .await?,
                    )
                }
                None => None,
            };
            let subscriptions = match args.purchases {
                Some(count) => {
                    let shop = shop_of_loads().await?;
                    let quiet = args.json;
                    Some(
                        seed::purchases::load(&db, &shop, count, &SystemClock, |done| {
                            if !quiet {
                                eprintln!("{done} of {count} purchases loaded");
                            }
                        })
                        .await?,
                    )
                }
                None => None,
            };
            if args.json {
                let output = match (&demo, &catalog, &history, &subscriptions) {
                    (Some(demo), None, None, None) => serde_json::to_value(demo)?,
                    (None, Some(catalog), None, None) => serde_json::to_value(catalog)?,
                    (None, None, Some(history), None) => serde_json::to_value(history)?,
                    (None, None, None, Some(loaded)) => serde_json::to_value(loaded)?,
                    _ => serde_json::json!({
                        "demo": demo,
                        "catalog": catalog,
                        "orders": history,
                        "purchases": subscriptions,
                    }),
                };
                println!("{output}");
            } else {
                if let Some(demo) = &demo {
                    print_demo(demo, None);
                }
                if let Some(loaded) = &catalog {
                    println!(
                        "{} products added to seller {} in {:.1} s",
                        loaded.products, loaded.seller_id, loaded.seconds
                    );
                }
                if let Some(loaded) = &history {
                    println!(
                        "{} orders added to shop {} in {:.1} s",
                        loaded.orders, loaded.shop_id, loaded.seconds
                    );
                }
                if let Some(loaded) = &subscriptions {
                    println!(
                        "{} subscription purchases due {} added to shop {} in {:.1} s",
                        loaded.purchases, loaded.due_on, loaded.shop_id, loaded.seconds
                    );
                }
            }
            Ok(())
        }
        Command::Apps {
            command: AppsCommand::Create(args),
        } => {
            let (db, secret_box) = open_sealed(&args.database.resolve(&file)?).await?;
            let registration = AppRegistration {
                name: args.name,
                account_id: args.account,
                scopes: ScopeSet::parse(&args.scopes)?,
                grants: GrantType::parse_list(&args.grants).map_err(anyhow::Error::msg)?,
                redirect_uris: args.redirect_uris,
                trusted: args.trusted,
                public: args.public,
            };
            let app = create_app(&db, &secret_box, &SystemClock, &registration).await?;
            let out = json!({"id": app.app.id, "client_id": app.app.client_id, "client_secret": app.client_secret});
            if args.json {
                println!("{out}");
            } else {
                println!("client_id:     {}", app.app.client_id);
                match &app.client_secret {
                    Some(secret) => println!("client_secret: {secret}  (shown once)"),
                    None => println!("a public client: no secret; it must use PKCE"),
                }
            }
            Ok(())
        }
        Command::Keys { command } => keys_command(command, &file).await,
        Command::Mail {
            command: MailCommand::List(args),
        } => mail_list_command(args, &file).await,
        Command::Tokens {
            command: TokensCommand::Create(args),
        } => create_token_command(args, &file).await,
        Command::Users {
            command: UsersCommand::Create(args),
        } => {
            let db = serve::open_database(&args.database.resolve(&file)?).await?;
            let user = create_user(
                &db,
                &SystemClock,
                &NewUserRequest {
                    account_id: args.account,
                    email: &args.email,
                    name: args.name.as_deref(),
                    password: &args.password,
                    role: args.role,
                },
            )
            .await?;
            let out = json!({"id": user.id, "account_id": user.account_id, "email": user.email, "role": user.role});
            if args.json {
                println!("{out}");
            } else {
                println!(
                    "user {} ({}) created in account {}",
                    user.id, user.email, user.account_id
                );
            }
            Ok(())
        }
    }
}

async fn create_token_command(args: TokenCreateArgs, file: &FileSettings) -> anyhow::Result<()> {
    let config = args.settings.resolve(file)?;
    let (db, secret_box) = open_sealed(&config).await?;
    let user = storage::users::find_by_email(&db, &args.user)
        .await?
        .ok_or_else(|| anyhow::anyhow!("no user has the e-mail address {}", args.user))?;
    // The issuer and key must be the servers': tokens name the one and verify with the other.
    let issuer = token_issuer(&db, &config).await?;
    let auth = AuthService::new(
        db.clone(),
        AuthConfig::new(issuer, config.access_token_ttl),
        config.signing_key.clone(),
        secret_box,
        config.clock.clone(),
    )
    .await?;
    let request = PersonalTokenRequest {
        name: &args.name,
        expiry: &args.expires,
        scopes: &args.scopes,
        ceiling: None,
    };
    let created = auth
        .create_personal_token(&user, &request)
        .await?
        .map_err(|errors| anyhow::anyhow!("invalid token: {errors}"))?;
    let expires_on = created.record.expires_on.map(Timestamp::to_rfc3339);
    if args.json {
        let out = json!({"id": created.record.id, "token": created.token, "name": created.record.name,
            "scopes": created.record.scopes, "expires_on": expires_on});
        println!("{out}");
    } else {
        println!("{}  (shown once)", created.token);
    }
    Ok(())
}

/// The issuer of tokens made here: the one the servers of this database recorded, which
/// is what they verify against; before any server has run, what `serve` would resolve from
/// the same settings. A configured public URL naming another is refused: the token would
/// not be accepted.
async fn token_issuer(db: &storage::Database, config: &ServeConfig) -> anyhow::Result<String> {
    let resolved = serve::public_url(config, config.listen);
    match oauth::issuer::recorded(db).await? {
        Some(recorded) if config.public_url.is_some() && recorded != resolved => bail!(
            "the servers of this database issue tokens as {recorded}, not {resolved} (the \
             configured public URL): leave it out to use theirs"
        ),
        Some(recorded) => Ok(recorded),
        None => Ok(resolved),
    }
}

async fn keys_command(command: KeysCommand, file: &FileSettings) -> anyhow::Result<()> {
    match command {
        KeysCommand::List(database) => {
            let (db, secret_box) = open_sealed(&database.resolve(file)?).await?;
            for key in storage::signing_keys::active(&db).await? {
                println!("{}  created {}", key.kid, key.created_on);
            }
            let in_use = storage::sealed_secrets::key_ids_in_use(&db).await?;
            for (i, id) in secret_box.key_ids().into_iter().enumerate() {
                let role = if i == 0 { "seals" } else { "opens" };
                let count = in_use.get(&Some(id)).copied().unwrap_or(0);
                println!("encryption key {id}  {role}  {count} secret(s)");
            }
        }
        KeysCommand::Rotate(database) => {
            let (db, secret_box) = open_sealed(&database.resolve(file)?).await?;
            let kid = oauth::keys::create_key(&db, &secret_box, &SystemClock).await?;
            println!("{kid}");
        }
        KeysCommand::RotateEncryptionKey(database) => {
            let (db, secret_box) = open_sealed(&database.resolve(file)?).await?;
            let outcome = crate::encryption_keys::rotate(&db, &secret_box).await?;
            println!(
                "encryption key {} now seals {} secret(s); the old key is removed from {}",
                outcome.sealing, outcome.secrets, outcome.file
            );
        }
        KeysCommand::Reseal(database) => {
            let (db, secret_box) = open_sealed(&database.resolve(file)?).await?;
            let outcome = crate::encryption_keys::reseal(&db, &secret_box).await?;
            println!(
                "encryption key {} seals all {} secret(s) ({} sealed anew)",
                outcome.sealing, outcome.secrets, outcome.resealed
            );
            if let KeySource::Configured(keys) = secret_box.source()
                && keys.len() > 1
            {
                println!("the other configured keys may now be removed from every node");
            }
        }
        KeysCommand::Generate => {
            println!(
                "{}",
                oauth::secret_box::encode_key(&oauth::secret_box::generate_key())
            );
        }
        KeysCommand::Retire { database, kid } => {
            let db = serve::open_database(&database.resolve(file)?).await?;
            oauth::keys::retire_key(&db, &kid, &SystemClock).await?;
            println!("retired {kid}");
        }
    }
    Ok(())
}

async fn mail_list_command(args: MailListArgs, file: &FileSettings) -> anyhow::Result<()> {
    use storage::mail_outbox::{self, Listed};
    let (db, secret_box) = open_sealed(&args.database.resolve(file)?).await?;
    let which = match args.undelivered {
        true => Listed::Undelivered,
        false => Listed::All,
    };
    let mails = mail_outbox::list(&db, &secret_box, which, args.limit)
        .await
        .context("cannot read the mail outbox")?;
    let time = |t: Option<Timestamp>| t.map(Timestamp::to_rfc3339);
    if args.json {
        let out: Vec<serde_json::Value> = mails
            .iter()
            .map(|m| {
                json!({"id": m.id, "account_id": m.account_id, "purpose": m.purpose, "to": m.to_address,
                    "subject": m.subject, "status": m.status, "created_on": m.created_on.to_rfc3339(),
                    "attempts": m.attempts, "next_attempt_on": time(m.next_attempt_on),
                    "sent_on": time(m.sent_on), "failed_on": time(m.failed_on),
                    "last_error": m.last_error, "body": m.body})
            })
            .collect();
        println!("{}", serde_json::Value::Array(out));
        return Ok(());
    }
    if mails.is_empty() {
        println!(
            "{}",
            match which {
                Listed::All => "the mail outbox is empty",
                Listed::Undelivered => "no undelivered mail",
            }
        );
    }
    for mail in &mails {
        let when = match (mail.sent_on, mail.failed_on, mail.next_attempt_on) {
            (Some(sent), _, _) => format!("sent {}", sent.to_rfc3339()),
            (None, Some(failed), _) => format!("given up {}", failed.to_rfc3339()),
            (None, None, Some(next)) => format!("next attempt {}", next.to_rfc3339()),
            (None, None, None) => String::new(),
        };
        println!("mail {}  {}  {}", mail.id, mail.status, mail.purpose);
        println!("  to:       {}", mail.to_address);
        println!("  subject:  {}", mail.subject);
        println!("  created:  {}", mail.created_on.to_rfc3339());
        println!("  attempts: {}  {when}", mail.attempts);
        if let Some(error) = &mail.last_error {
            println!("  error:    {error}");
        }
        match &mail.body {
            Some(body) => {
                println!();
                for line in body.lines() {
                    println!("    {line}");
                }
            }
            None => println!("  (body erased once sent)"),
        }
        println!();
    }
    Ok(())
}

/// The database and the box that seals the secrets in it.
async fn open_sealed(config: &ServeConfig) -> anyhow::Result<(storage::Database, SecretBox)> {
    // Refused before the database is touched when no key can be had.
    config.key_source()?;
    let db = serve::open_database(config).await?;
    let secret_box = serve::open_secret_box(&db, config).await?;
    Ok((db, secret_box))
}

/// The configuration `serve` runs with: resolved in layers, then checked.
fn resolve_serve(
    args: &SettingArgs<ServeSettings>,
    file: &FileSettings,
) -> anyhow::Result<ServeConfig> {
    let config = args.resolve(file)?;
    config.check().map_err(anyhow::Error::msg)?;
    Ok(config)
}

async fn serve_command(config: ServeConfig) -> anyhow::Result<()> {
    logging::init(config.log_format);
    // Refused before the database is touched when no key can be had.
    config.key_source()?;
    let db = serve::open_database(&config).await?;
    let demo = if config.demo {
        if storage::accounts::exists_any(&db).await? {
            eprintln!("The database already holds data, so no demo data was added.");
            eprintln!(
                "(The demo credentials were printed when it was first seeded; delete ./data to start afresh.)"
            );
            None
        } else {
            let secret_box = serve::open_secret_box(&db, &config).await?;
            Some(seed::demo(&db, &secret_box, config.clock.as_ref()).await?)
        }
    } else {
        None
    };
    // Watched before anyone is told where to connect, so that a signal sent as soon as
    // the address is printed stops the server gracefully.
    let terminated = serve::termination_signal();
    let server = serve::start_with(db, &config).await?;
    if let Some(data) = &demo {
        print_demo(data, Some(&server.public_url));
    }
    println!(
        "commerce listening on http://{} (public URL {})",
        server.addr, server.public_url
    );
    terminated.await;
    tracing::info!("shutting down: finishing requests in flight");
    server.shutdown().await
}

fn print_demo(data: &seed::DemoData, public_url: Option<&str>) {
    println!("Demo data created:");
    println!(
        "  owner:         {} / {}",
        data.user.email, data.user.password
    );
    println!("  app:           client_id {}", data.app.client_id);
    println!("                 client_secret {}", data.app.client_secret);
    for shop in &data.shops {
        println!("  shop:          {} (id {})", shop.subdomain, shop.id);
    }
    if let Some(url) = public_url {
        println!();
        println!("Fetch the API root with a password-grant token:");
        println!(
            "  TOKEN=$(curl -s {url}/oauth/token -u '{}:{}' -d grant_type=password \\\n      --data-urlencode 'username={}' --data-urlencode 'password={}' | sed -E 's/.*\"access_token\":\"([^\"]+)\".*/\\1/')",
            data.app.client_id, data.app.client_secret, data.user.email, data.user.password
        );
        println!("  curl -s {url}/v2 -H \"Authorization: Bearer $TOKEN\"");
        println!();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// The configuration `commerce serve ARGS` runs with, given this `commerce.toml`.
    fn serve_config(args: &[&str], file: &str) -> anyhow::Result<ServeConfig> {
        let file = FileSettings::parse("commerce.toml", file).map_err(anyhow::Error::msg)?;
        let config = serve_args(args)?
            .resolve_in(&|_| None, &file)
            .map_err(anyhow::Error::msg)?;
        config.check().map_err(anyhow::Error::msg)?;
        Ok(config)
    }

    fn serve_args(args: &[&str]) -> anyhow::Result<SettingArgs<ServeSettings>> {
        let cli = Cli::try_parse_from(["commerce", "serve"].iter().chain(args))?;
        let Command::Serve(serve) = cli.command else {
            anyhow::bail!("not serve");
        };
        Ok(serve)
    }

    /// Every declared setting can be given by flag, environment variable or file, and
    /// the flag wins over the variable, which wins over the file, which wins over the
    /// default. Configurations are compared whole (as printed), so a setting that sets
    /// nothing, or something else in one layer, is caught.
    #[test]
    fn every_setting_comes_from_each_layer_in_order() {
        use crate::config::settings::{Kind, SETTINGS};
        let defaults = format!("{:?}", ServeConfig::defaults());
        for setting in SETTINGS {
            // (flag, variable, file): what each layer gives, if anything.
            let resolve = |flag: Option<&str>, env: Option<&str>, file: Option<&str>| {
                let args: Vec<String> = match (setting.kind, flag) {
                    (_, None) => vec![],
                    (Kind::Switch, Some("true")) => vec![format!("--{}", setting.flag)],
                    (Kind::Switch, Some(other)) => panic!("a switch's flag cannot say {other}"),
                    (_, Some(value)) => vec![format!("--{}", setting.flag), value.to_owned()],
                };
                let args: Vec<&str> = args.iter().map(String::as_str).collect();
                let text = match (setting.kind, file) {
                    (_, None) => String::new(),
                    (Kind::Integer | Kind::Switch, Some(value)) => {
                        format!("{} = {value}", setting.key)
                    }
                    (_, Some(value)) => format!("{} = {value:?}", setting.key),
                };
                let file = FileSettings::parse("commerce.toml", &text).unwrap();
                let environment =
                    |name: &str| env.filter(|_| name == setting.env).map(str::to_owned);
                let config = serve_args(&args)
                    .unwrap()
                    .resolve_in(&environment, &file)
                    .unwrap_or_else(|e| panic!("{}: {e}", setting.key));
                format!("{config:?}")
            };
            let [a, b] = setting.examples.map(Some);
            let key = setting.key;
            let from_flag = resolve(a, None, None);
            assert_ne!(from_flag, defaults, "{key}: the flag sets nothing");
            assert_eq!(
                resolve(None, a, None),
                from_flag,
                "{key} from the environment"
            );
            assert_eq!(resolve(None, None, a), from_flag, "{key} from the file");
            let other = resolve(None, b, None);
            assert_ne!(other, from_flag, "{key}: the examples configure alike");
            assert_eq!(resolve(None, None, b), other, "{key} from the file");
            assert_eq!(resolve(a, b, b), from_flag, "{key}: the flag wins");
            assert_eq!(
                resolve(None, a, b),
                from_flag,
                "{key}: the variable wins over the file"
            );
            assert_eq!(resolve(None, None, None), defaults, "{key}: the default");
        }
    }

    /// Other commands take only their settings: `migrate` has no `--listen`, and a file
    /// for `serve` does not stop it.
    #[test]
    fn commands_take_their_own_settings() {
        assert!(Cli::try_parse_from(["commerce", "migrate", "--listen", "x"]).is_err());
        let cli =
            Cli::try_parse_from(["commerce", "migrate", "--database-url", "sqlite://x"]).unwrap();
        let Command::Migrate(args) = cli.command else {
            panic!("migrate was parsed");
        };
        let file =
            FileSettings::parse("f", "listen = \"nowhere\"\nencryption_key = \"k\"").unwrap();
        let config = args.resolve_in(&|_| None, &file).unwrap();
        assert_eq!(config.database_url, "sqlite://x");
        assert_eq!(config.encryption_key.as_deref(), Some("k"));
        assert_eq!(config.listen, ServeConfig::defaults().listen);
    }

    #[test]
    fn webhook_thresholds_come_from_flags_or_the_file() {
        let defaults = serve_config(&[], "").unwrap();
        assert_eq!(
            defaults.webhook_policy,
            domain::webhook::FailurePolicy::default()
        );
        let flags = serve_config(
            &["--webhook-max-errors", "7", "--webhook-max-exhausted", "2"],
            "",
        )
        .unwrap();
        assert_eq!(
            (
                flags.webhook_policy.max_errors,
                flags.webhook_policy.max_exhausted
            ),
            (7, 2)
        );
        let file = serve_config(
            &["--webhook-max-errors", "9"],
            "webhook_max_errors = 4\nwebhook_max_exhausted = 5",
        )
        .unwrap();
        assert_eq!(
            (
                file.webhook_policy.max_errors,
                file.webhook_policy.max_exhausted
            ),
            (9, 5),
            "flags win over the file"
        );
        assert_eq!(
            defaults.webhook_max_backlog,
            domain::webhook::DEFAULT_MAX_BACKLOG
        );
        let backlog = serve_config(&["--webhook-max-backlog", "50"], "webhook_max_backlog = 7");
        assert_eq!(backlog.unwrap().webhook_max_backlog, 50);
        let backlog = serve_config(&[], "webhook_max_backlog = 7");
        assert_eq!(backlog.unwrap().webhook_max_backlog, 7);
        for (args, file) in [
            (&["--webhook-max-errors", "0"][..], ""),
            (&["--webhook-max-exhausted", "0"][..], ""),
            (&[][..], "webhook_max_exhausted = 0"),
            (&["--webhook-max-backlog", "0"][..], ""),
        ] {
            let refused = serve_config(args, file).unwrap_err().to_string();
            assert!(refused.contains("at least 1"), "{refused}");
        }
    }

    #[test]
    fn webhook_timing_flags_take_milliseconds_and_the_lease_outlasts_an_attempt() {
        let defaults = serve_config(&[], "").unwrap();
        assert_eq!(defaults.webhook_lease, Duration::from_secs(60));
        let quick = serve_config(
            &[
                "--webhook-lease",
                "5s",
                "--webhook-timeout",
                "2s",
                "--webhook-poll",
                "100ms",
            ],
            "",
        )
        .unwrap();
        assert_eq!(
            (
                quick.webhook_lease,
                quick.webhook_timeout,
                quick.webhook_poll
            ),
            (
                Duration::from_secs(5),
                Duration::from_secs(2),
                Duration::from_millis(100)
            )
        );
        for args in [
            &["--webhook-lease", "2s", "--webhook-timeout", "2s"][..],
            &["--webhook-lease", "4s", "--webhook-timeout", "2s"][..],
            &["--webhook-lease", "3500ms", "--webhook-timeout", "2s"][..],
            &["--webhook-lease", "20s"][..],
        ] {
            let refused = serve_config(args, "").unwrap_err().to_string();
            assert!(refused.contains("lease"), "{args:?}: {refused}");
        }
        assert!(serve_config(&["--webhook-poll", "0ms"], "").is_err());
        // Settings counted in whole seconds do not take fractions of one.
        let refused = serve_config(&["--access-token-ttl", "1500ms"], "")
            .unwrap_err()
            .to_string();
        assert!(refused.contains("whole number of seconds"), "{refused}");
    }

    #[test]
    fn the_timing_flags_are_hidden_and_the_thresholds_shown() {
        use clap::CommandFactory;
        let mut command = Cli::command();
        let help = command
            .find_subcommand_mut("serve")
            .unwrap()
            .render_long_help()
            .to_string();
        assert!(help.contains("--webhook-max-errors") && help.contains("--webhook-max-exhausted"));
        assert!(
            !help.contains("--webhook-lease")
                && !help.contains("--webhook-poll")
                && !help.contains("--webhook-timeout")
        );
    }
}
