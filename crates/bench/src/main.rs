//! `bench`: measures the commerce server on SQLite and PostgreSQL with one command. Run as
//! `bench __commerce …` it is the `commerce` CLI instead, which is how it starts the server
//! under test as a separate process of the same build.

mod args;
mod database;
mod load;
mod process;
mod report;
mod scenarios;

use std::ffi::OsString;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Parser;

use crate::args::{Args, Backend};
use crate::database::ScratchDatabase;
use crate::process::{SELF_EXEC_ARG, Server};

fn main() -> ExitCode {
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

/// Seeds, starts the server, measures, and stops the server whatever happened.
async fn bench_database(backend: Backend, database_url: &str, args: &Args) -> Result<bool> {
    let demo = process::seed(database_url).await?;
    let server = Server::start(database_url).await?;
    let pid = server.pid();
    let result = scenarios::run(&server, &demo, args).await;
    match server.stop().await {
        Ok(status) if !status.success() => eprintln!("warning: the server exited with {status}"),
        Ok(_) => {}
        Err(err) => eprintln!("warning: cannot stop the server: {err:#}"),
    }
    let run = result?;
    report::print_run(backend, pid, &run);
    Ok(run.scenarios.iter().all(|s| s.outcome.errors == 0))
}
