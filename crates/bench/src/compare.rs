//! `--compare-with`: the base and storefront read scenarios measured on another build in
//! the same run, on a database of the same backend that it seeds itself, and each
//! scenario's rate set against this build's: as measured, and divided by the static
//! baseline each build's server answered in its own pass (which discounts a machine whose
//! load drifted between the passes).

use anyhow::{Context, Result};

use crate::args::{Args, Backend, STOREFRONT_PRODUCTS};
use crate::database::ScratchDatabase;
use crate::process::Build;
use crate::report;
use crate::scenarios::{self, Reads};

/// Measures `other` and prints it against `this`: `Ok(false)` when a request failed.
pub async fn run(backend: Backend, this: &Reads, other: &Build, args: &Args) -> Result<bool> {
    let Some(database) = ScratchDatabase::create(backend, &args.postgres_url)
        .await
        .context("prepare the compared build's database")?
    else {
        return Ok(true);
    };
    let result = measure(&database.url, other, args).await;
    if let Err(err) = database.remove().await {
        eprintln!("warning: cannot remove the compared build's database: {err:#}");
    }
    let theirs = result.with_context(|| format!("measure {}", other.name()))?;
    for run in theirs.runs() {
        report::print_titled_run(
            &format!("backend {} compared build {}", backend.name(), other.name()),
            run,
        );
    }
    report::print_comparison(backend, &other.name(), this, &theirs);
    Ok(theirs.clean())
}

async fn measure(database_url: &str, build: &Build, args: &Args) -> Result<Reads> {
    let demo = build.seed(database_url).await?;
    let server = build.start(database_url).await?;
    let result = async {
        let base = scenarios::run(&server, &demo, args).await?;
        let seller = demo
            .sellers
            .first()
            .context("the demo data has no seller")?
            .id;
        build
            .seed_products(database_url, seller, STOREFRONT_PRODUCTS)
            .await?;
        let storefront = scenarios::run_storefront(&server, &demo, args).await?;
        Ok(Reads {
            base: Some(base),
            storefront: Some(storefront),
        })
    }
    .await;
    crate::stop(server).await;
    result
}
