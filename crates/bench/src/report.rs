//! The plain-text report: the machine and settings, then one aligned table per backend.

use crate::args::{Args, Backend};
use crate::scenarios::{Measured, Run};

const MIB: f64 = 1024.0 * 1024.0;

/// The facts needed to compare runs across machines.
pub fn print_header(args: &Args) {
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let cpu = cpu_model().unwrap_or_else(|| "unknown CPU".into());
    println!("commerce benchmark");
    println!("machine:     {cores} cores, {cpu}");
    println!(
        "settings:    duration {}s, warmup {}s, concurrency {}",
        args.duration, args.warmup, args.concurrency
    );
    println!("server:      a separate process of this build, over loopback HTTP/1.1 keep-alive");
    if args.renewals_only {
        println!(
            "renewals:    {} subscription purchases due at once",
            args.renewals
        );
        return;
    }
    if !args.orders_only {
        println!("catalog:     {:?} generated products", args.catalog_sizes());
    }
    if !args.lists_only {
        println!("orders:      {:?} generated orders", args.order_sizes());
    }
    if args.renews() {
        println!(
            "renewals:    {} subscription purchases due at once",
            args.renewals
        );
    }
}

/// A bulk load of `added` generated `items` (products, orders), `size` in all after it.
pub fn print_load(items: &str, added: usize, size: usize, seconds: f64) {
    println!();
    println!(
        "loaded {added} {items} in {seconds:.1} s ({:.0}/s); {size} {items} in all",
        added as f64 / seconds.max(0.001)
    );
}

/// Scenarios measured at several sizes of what they read (`items`: the catalog's
/// products, the order history's orders) under `title`, then how each one's median
/// latency grew from the smallest size to the largest.
pub fn print_by_size(backend: Backend, title: &str, items: &str, runs: &[(usize, Run)]) {
    if runs.is_empty() {
        return;
    }
    println!();
    println!("backend {} {title}", backend.name());
    println!(
        "{:<16} {:>9} {:>8} {:>10} {:>8} {:>8} {:>7} {:>6}",
        "scenario", items, "bytes", "req/s", "p50 ms", "p99 ms", "errors", "ratio"
    );
    for (size, run) in runs {
        for scenario in &run.scenarios {
            println!(
                "{:<16} {:>9} {:>8} {:>10.1} {:>8.2} {:>8.2} {:>7} {:>6}",
                scenario.name,
                size,
                scenario.body_bytes,
                scenario.outcome.requests_per_second(),
                scenario.outcome.quantile_ms(0.5),
                scenario.outcome.quantile_ms(0.99),
                scenario.outcome.errors,
                ratio(scenario, &run.scenarios),
            );
        }
    }
    let (Some((small, first)), Some((large, last))) = (runs.first(), runs.last()) else {
        return;
    };
    if small == large {
        return;
    }
    println!();
    println!(
        "p50 growth from {small} to {large} {items} ({})",
        backend.name()
    );
    for scenario in first
        .scenarios
        .iter()
        .filter(|s| !s.name.starts_with("baseline"))
    {
        let Some(later) = last.scenarios.iter().find(|s| s.name == scenario.name) else {
            continue;
        };
        let (before, after) = (
            scenario.outcome.quantile_ms(0.5),
            later.outcome.quantile_ms(0.5),
        );
        println!(
            "{:<16} {:>8.2} ms -> {:>8.2} ms  x{:.2}",
            scenario.name,
            before,
            after,
            after / before.max(0.001)
        );
    }
    report_errors(runs.iter().flat_map(|(_, run)| &run.scenarios));
}

pub fn print_run(backend: Backend, pid: u32, run: &Run) {
    print_titled_run(
        &format!("backend {} (server pid {pid})", backend.name()),
        run,
    );
}

/// One table of scenarios under `title`, with the run's total peak memory.
pub fn print_titled_run(title: &str, run: &Run) {
    println!();
    println!("{title}, total peak {} MiB", mib(run.peak_memory));
    println!(
        "{:<18} {:>8} {:>10} {:>8} {:>8} {:>9} {:>7} {:>6}",
        "scenario", "bytes", "req/s", "p50 ms", "p99 ms", "peak MiB", "errors", "ratio"
    );
    for scenario in &run.scenarios {
        println!(
            "{:<18} {:>8} {:>10.1} {:>8.2} {:>8.2} {:>9} {:>7} {:>6}",
            scenario.name,
            scenario.body_bytes,
            scenario.outcome.requests_per_second(),
            scenario.outcome.quantile_ms(0.5),
            scenario.outcome.quantile_ms(0.99),
            mib(scenario.peak_memory),
            scenario.outcome.errors,
            ratio(scenario, &run.scenarios),
        );
    }
    report_errors(&run.scenarios);
}

/// The purchases: as any run, the rates of the purchase's rows being completed purchases.
pub fn print_purchases(backend: Backend, concurrency: u32, run: &Run) {
    print_titled_run(
        &format!(
            "backend {} purchases ({concurrency} workers, {} hot variants; create, place and pay \
             per purchase, its req/s completed purchases per second)",
            backend.name(),
            crate::purchases::HOT_VARIANTS
        ),
        run,
    );
}

/// The renewal scenario: the load, the engine's drain rate, and its ratio to the static
/// baseline of a renewal order's size measured on the same server.
pub fn print_renewals(backend: Backend, run: &crate::renewals::RenewalRun) {
    print_load(
        "due subscription purchases",
        run.purchases,
        run.purchases,
        run.load_seconds,
    );
    println!();
    println!("backend {} subscription renewals", backend.name());
    let baseline = run
        .baseline
        .scenarios
        .iter()
        .map(|s| s.outcome.requests_per_second())
        .find(|rps| *rps > 0.0);
    println!(
        "renewed {} of {} due purchases in {:.2} s from the server's start: {:.1} purchases/s, ratio {}",
        run.billed,
        run.purchases,
        run.drain.as_secs_f64(),
        run.per_second(),
        baseline.map_or_else(|| "-".into(), |b| format!("{:.4}", run.per_second() / b)),
    );
    if run.billed < run.purchases as u64 {
        println!(
            "!!! {} purchases were not renewed (a failed attempt waits for its retry)",
            run.purchases as u64 - run.billed
        );
    }
    print_titled_run(
        &format!("backend {} renewals' baseline", backend.name()),
        &run.baseline,
    );
}

/// The hot-row scenario: as any run, with how many adjustments were refused.
pub fn print_hot_row(backend: Backend, run: &Run) {
    println!();
    println!(
        "backend {} hot row ({} writers on one variant)",
        backend.name(),
        crate::scenarios::HOT_ROW_WRITERS
    );
    println!(
        "{:<18} {:>8} {:>10} {:>8} {:>8} {:>8} {:>7} {:>6}",
        "scenario", "bytes", "req/s", "p50 ms", "p99 ms", "refused", "errors", "ratio"
    );
    for scenario in &run.scenarios {
        println!(
            "{:<18} {:>8} {:>10.1} {:>8.2} {:>8.2} {:>8} {:>7} {:>6}",
            scenario.name,
            scenario.body_bytes,
            scenario.outcome.requests_per_second(),
            scenario.outcome.quantile_ms(0.5),
            scenario.outcome.quantile_ms(0.99),
            scenario.outcome.refused,
            scenario.outcome.errors,
            ratio(scenario, &run.scenarios),
        );
    }
    report_errors(&run.scenarios);
}

fn report_errors<'a>(scenarios: impl IntoIterator<Item = &'a Measured>) {
    let failed: Vec<&Measured> = scenarios
        .into_iter()
        .filter(|s| s.outcome.errors > 0)
        .collect();
    for scenario in &failed {
        println!(
            "!!! ERRORS in {}: {} of {} requests failed; first: {}",
            scenario.name,
            scenario.outcome.errors,
            scenario.outcome.errors + scenario.outcome.ok,
            scenario.outcome.first_error.as_deref().unwrap_or("unknown")
        );
    }
    if !failed.is_empty() {
        println!("!!! THIS RUN HAD ERRORS: its figures are not trustworthy");
    }
}

/// Requests per second relative to the static baseline of the same size.
fn ratio(scenario: &Measured, all: &[Measured]) -> String {
    static_ratio(scenario, all).map_or_else(|| "-".into(), |r| format!("{r:.2}"))
}

fn static_ratio(scenario: &Measured, all: &[Measured]) -> Option<f64> {
    let baseline = all
        .iter()
        .find(|s| s.name == scenario.baseline)
        .map(|s| s.outcome.requests_per_second())
        .filter(|rps| *rps > 0.0)?;
    Some(scenario.outcome.requests_per_second() / baseline)
}

/// This build's read scenarios against another's, measured in the same run: the rates'
/// ratio, and the ratio of their ratios to each build's own static baseline.
pub fn print_comparison(
    backend: Backend,
    other: &str,
    this: &crate::scenarios::Reads,
    theirs: &crate::scenarios::Reads,
) {
    fn scenarios(reads: &crate::scenarios::Reads) -> Vec<(&Measured, &[Measured])> {
        reads
            .runs()
            .flat_map(|run| run.scenarios.iter().map(|s| (s, run.scenarios.as_slice())))
            .collect()
    }
    println!();
    println!("backend {} this build against {other}", backend.name());
    println!(
        "{:<18} {:>10} {:>10} {:>8} {:>10} {:>10} {:>8}",
        "scenario", "req/s", "compared", "x", "static", "compared", "x"
    );
    let theirs = scenarios(theirs);
    for (mine, my_run) in scenarios(this) {
        if mine.name.starts_with("baseline") || mine.name.starts_with("no_auth") {
            continue;
        }
        let Some((their, their_run)) = theirs.iter().find(|(s, _)| s.name == mine.name) else {
            continue;
        };
        let (rate, their_rate) = (
            mine.outcome.requests_per_second(),
            their.outcome.requests_per_second(),
        );
        let normalised = static_ratio(mine, my_run).zip(static_ratio(their, their_run));
        let cell = |r: Option<f64>| r.map_or_else(|| "-".into(), |r| format!("{r:.2}"));
        println!(
            "{:<18} {:>10.1} {:>10.1} {:>8} {:>10} {:>10} {:>8}",
            mine.name,
            rate,
            their_rate,
            cell((their_rate > 0.0).then(|| rate / their_rate)),
            cell(normalised.map(|(m, _)| m)),
            cell(normalised.map(|(_, t)| t)),
            cell(normalised.and_then(|(m, t)| (t > 0.0).then(|| m / t))),
        );
    }
}

fn mib(bytes: Option<u64>) -> String {
    bytes.map_or_else(|| "-".into(), |b| format!("{:.1}", b as f64 / MIB))
}

fn cpu_model() -> Option<String> {
    let info = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("model name"))?;
    Some(line.split_once(':')?.1.trim().to_owned())
}

/// Webhook delivery: the backlog's drain rate, and latency at half that rate.
pub fn print_webhooks(backend: Backend, run: &crate::webhooks::WebhookRun) {
    println!();
    println!("backend {} webhooks", backend.name());
    println!(
        "delivered a backlog of {} in {:.2} s: {:.0} deliveries/s",
        run.deliveries,
        run.drain.as_secs_f64(),
        run.deliveries_per_second()
    );
    let ms = |q: f64| run.latency_us.value_at_quantile(q) as f64 / 1000.0;
    println!(
        "at {:.0} events/s ({:.0} deliveries/s), write request to arrival over {} events: p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        run.rate_events,
        run.rate_events * run.subscriptions as f64,
        run.latency_events,
        ms(0.5),
        ms(0.99),
        run.latency_us.max() as f64 / 1000.0
    );
}

/// Ordered webhooks against unordered: each drain's rate, and the ordered ones' ratio to
/// the unordered.
pub fn print_ordering(backend: Backend, run: &crate::ordering::OrderingRun) {
    use crate::ordering::OrderingRun;
    println!();
    println!(
        "backend {} ordered webhooks: a backlog of {} events about one product",
        backend.name(),
        crate::ordering::EVENTS
    );
    let unordered = OrderingRun::per_second(run.unordered);
    for (what, drain) in [
        ("unordered", run.unordered),
        ("per resource", run.ordered),
        (
            "per resource, killed a third of the way and restarted",
            run.ordered_killed,
        ),
    ] {
        let rate = OrderingRun::per_second(drain);
        println!(
            "  {what}: {:.2} s, {rate:.0} deliveries/s, ratio {:.2}",
            drain.as_secs_f64(),
            rate / unordered
        );
    }
    println!(
        "  ordered deliveries in order: {}; sent again after the kill: {}",
        if run.in_order { "yes" } else { "NO" },
        run.duplicates
    );
}
