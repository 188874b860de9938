//! `bench`: measures the commerce server on SQLite and PostgreSQL with one command. Run as
//! `bench __commerce …` it is the `commerce` CLI instead, which is how it starts the server
//! under test as a separate process of the same build.

mod args;
mod backlog;
mod compare;
mod database;
mod load;
mod ordering;
mod process;
mod purchases;
mod renewals;
mod report;
mod scenarios;
mod webhooks;

use std::ffi::OsString;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Parser;

use crate::args::{Args, Backend};
use crate::database::ScratchDatabase;
use crate::process::{Build, SELF_EXEC_ARG, Server};

fn main() -> ExitCode {
    delivery::tls::install_crypto();
    let mut argv = std::env::args_os();
    let program = argv.next();
    let first = argv.next();
    if first.as_deref() == Some(SELF_EXEC_ARG.as_ref()) {
        let commerce = std::iter::once(OsString::from("commerce")).chain(argv);
        return server::cli::main_from(commerce);
    }
    let args = Args::parse_from(program.into_iter().chain(first).chain(argv));
    match run(&args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::FAILURE
        }
    }
}

/// Benchmarks every requested backend: `Ok(false)` when some request failed.
fn run(args: &Args) -> Result<bool> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("start the runtime")?;
    runtime.block_on(async {
        report::print_header(args);
        let mut clean = true;
        for &backend in args.backends() {
            clean &= bench_backend(backend, args).await?;
        }
        Ok(clean)
    })
}

/// One backend on a fresh database, removed afterwards whatever happened.
async fn bench_backend(backend: Backend, args: &Args) -> Result<bool> {
    let Some(database) = ScratchDatabase::create(backend, &args.postgres_url)
        .await
        .with_context(|| format!("prepare a {} database", backend.name()))?
    else {
        return Ok(true);
    };
    let result = bench_database(backend, &database.url, args).await;
    if let Err(err) = database.remove().await {
        eprintln!(
            "warning: cannot remove the {} database: {err:#}",
            backend.name()
        );
    }
    result.with_context(|| format!("benchmark on {}", backend.name()))
}

/// Seeds, starts the server, measures, and stops the server whatever happened; then, with
/// `--compare-with`, measures the other build's read scenarios on a database of its own.
async fn bench_database(backend: Backend, database_url: &str, args: &Args) -> Result<bool> {
    let build = Build::this()?;
    let demo = build.seed(database_url).await?;
    if args.renewals_only {
        return measure_renewals(&build, database_url, &demo, backend, args).await;
    }
    if !args.hot_row_only && !args.lists_only && !args.orders_only {
        let deliveries = webhooks::run(&build, database_url, &demo, args).await?;
        report::print_webhooks(backend, &deliveries);
        let ordering = ordering::run(&build, database_url, &demo).await?;
        report::print_ordering(backend, &ordering);
    }
    if args.webhooks_only {
        return Ok(true);
    }
    let server = build.start(database_url).await?;
    let pid = server.pid();
    let mut reads = scenarios::Reads::default();
    let result = measure_all(
        &server,
        &demo,
        (&build, database_url),
        backend,
        pid,
        args,
        &mut reads,
    )
    .await;
    stop(server).await;
    let mut clean = result?;
    if args.renews() {
        clean &= measure_renewals(&build, database_url, &demo, backend, args).await?;
    }
    match &args.compare_with {
        Some(other) => {
            Ok(clean & compare::run(backend, &reads, &Build::other(other.clone()), args).await?)
        }
        None => Ok(clean),
    }
}

/// The renewal scenario, on a server of its own started after the load: `Ok(false)` when
/// its baseline had errors.
async fn measure_renewals(
    build: &Build,
    database_url: &str,
    demo: &process::DemoData,
    backend: Backend,
    args: &Args,
) -> Result<bool> {
    let run = renewals::run(build, database_url, demo, args).await?;
    report::print_renewals(backend, &run);
    Ok(run.baseline.scenarios.iter().all(|s| s.outcome.errors == 0))
}

/// Stops a server, saying so when it did not end well.
async fn stop(server: Server) {
    match server.stop().await {
        Ok(status) if !status.success() => eprintln!("warning: the server exited with {status}"),
        Ok(_) => {}
        Err(err) => eprintln!("warning: cannot stop the server: {err:#}"),
    }
}

/// The base scenarios, then the catalog's at each size, the catalog growing in between,
/// then the orders' (purchases, and the order list at each history size).
async fn measure_all(
    server: &Server,
    demo: &process::DemoData,
    (build, database_url): (&Build, &str),
    backend: Backend,
    pid: u32,
    args: &Args,
    reads: &mut scenarios::Reads,
) -> Result<bool> {
    let mut clean = true;
    let everything = !args.lists_only && !args.orders_only;
    if everything {
        let hot_row = scenarios::run_hot_row(server, demo, args).await?;
        report::print_hot_row(backend, &hot_row);
        clean &= hot_row.scenarios.iter().all(|s| s.outcome.errors == 0);
        if args.hot_row_only {
            return Ok(clean);
        }
        let run = scenarios::run(server, demo, args).await?;
        report::print_run(backend, pid, &run);
        clean &= run.scenarios.iter().all(|s| s.outcome.errors == 0);
        reads.base = Some(run);
    }
    let seller = demo
        .sellers
        .first()
        .context("the demo data has no seller")?
        .id;
    let seconds = build
        .seed_products(database_url, seller, args::STOREFRONT_PRODUCTS)
        .await?;
    report::print_load(
        "products",
        args::STOREFRONT_PRODUCTS,
        args::STOREFRONT_PRODUCTS,
        seconds,
    );
    if everything {
        let storefront = scenarios::run_storefront(server, demo, args).await?;
        report::print_titled_run(
            &format!("backend {} storefront", backend.name()),
            &storefront,
        );
        clean &= storefront.scenarios.iter().all(|s| s.outcome.errors == 0);
        reads.storefront = Some(storefront);
    }
    if !args.orders_only {
        let mut loaded = args::STOREFRONT_PRODUCTS;
        let mut catalog = Vec::new();
        for size in args.catalog_sizes() {
            if size > loaded {
                let seconds = build
                    .seed_products(database_url, seller, size - loaded)
                    .await?;
                report::print_load("products", size - loaded, size, seconds);
                loaded = size;
            }
            let run = scenarios::run_catalog(server, demo, args, size).await?;
            catalog.push((size, run));
        }
        clean &= clean_runs(&catalog);
        report::print_by_size(backend, "catalog", "products", &catalog);
    }
    if !args.lists_only {
        clean &= measure_orders(server, demo, (build, database_url), backend, args).await?;
    }
    Ok(clean)
}

/// Purchases, then the order list at each size of a generated order history of the first
/// shop, the history growing in between (the purchases' orders come on top of it).
async fn measure_orders(
    server: &Server,
    demo: &process::DemoData,
    (build, database_url): (&Build, &str),
    backend: Backend,
    args: &Args,
) -> Result<bool> {
    let purchases = purchases::run(server, demo, args).await?;
    report::print_purchases(backend, args.concurrency, &purchases);
    let mut clean = purchases.scenarios.iter().all(|s| s.outcome.errors == 0);
    let shop = demo.shops.first().context("the demo data has no shop")?.id;
    let mut loaded = 0;
    let mut lists = Vec::new();
    for size in args.order_sizes() {
        if size > loaded {
            let seconds = build.seed_orders(database_url, shop, size - loaded).await?;
            report::print_load("orders", size - loaded, size, seconds);
            loaded = size;
        }
        let run = scenarios::run_order_lists(server, demo, args).await?;
        lists.push((size, run));
    }
    clean &= clean_runs(&lists);
    report::print_by_size(backend, "order lists", "orders", &lists);
    Ok(clean)
}

/// No request of any of the runs failed.
fn clean_runs(runs: &[(usize, scenarios::Run)]) -> bool {
    runs.iter()
        .flat_map(|(_, run)| &run.scenarios)
        .all(|s| s.outcome.errors == 0)
}
