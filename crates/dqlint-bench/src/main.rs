//! `dqlint-bench gen --flowgroups N [--plant EVERY] OUT`: writes a synthetic
//! LHP project (see the library docs) and prints what it wrote;
//! `dqlint-bench gen-dqx --files N [--plant EVERY] OUT` the same for DQX
//! checks files and a run config; `dqlint-bench gen-pipelines --files N
//! [--datasets N] [--plant EVERY] OUT` for Python and SQL pipeline sources.

use std::path::PathBuf;
use std::process::ExitCode;

use dqlint_bench::{generate, generate_dqx, generate_pipelines, DqxPlan, PipelinePlan, Plan};

const USAGE: &str = "usage: dqlint-bench gen --flowgroups N [--plant EVERY] OUT\n\
       dqlint-bench gen-dqx --files N [--checks N] [--plant EVERY] OUT\n\
       dqlint-bench gen-pipelines --files N [--datasets N] [--plant EVERY] OUT\n\
  --flowgroups N   number of flowgroups (spread over 5 layers and N/100 domains)\n\
  --files N        number of DQX checks files (one in five JSON),\n\
                   or of Python pipeline sources (and one SQL source per five)\n\
  --checks N       checks per DQX checks file (default 12)\n\
  --datasets N     about N datasets per pipeline source (default: one feed, 5 in Python, 3 in SQL)\n\
  --plant EVERY    plant findings in every EVERY-th flowgroup of the planted kinds, or checks file (default: none)\n\
  OUT              folder to create (must not exist or be empty)";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("dqlint-bench: {message}\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

fn run(args: &[String]) -> Result<(), String> {
    let mut args = args.iter();
    let command = args.next().map(String::as_str);
    if !matches!(command, Some("gen" | "gen-dqx" | "gen-pipelines")) {
        return Err("the commands are `gen`, `gen-dqx` and `gen-pipelines`".into());
    }
    let size_flag = if command == Some("gen") {
        "--flowgroups"
    } else {
        "--files"
    };
    let mut size = 0;
    let mut plant_every = None;
    let mut checks = None;
    let mut datasets = None;
    let mut out: Option<PathBuf> = None;
    while let Some(arg) = args.next() {
        let mut number = |name: &str| -> Result<usize, String> {
            args.next()
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| format!("{name} needs a number"))
        };
        match arg.as_str() {
            flag if flag == size_flag => size = number(size_flag)?,
            "--plant" => plant_every = Some(number("--plant")?.max(1)),
            "--checks" if command == Some("gen-dqx") => checks = Some(number("--checks")?.max(1)),
            "--datasets" if command == Some("gen-pipelines") => {
                datasets = Some(number("--datasets")?.max(1))
            }
            other if other.starts_with('-') => return Err(format!("unknown option {other}")),
            other => out = Some(PathBuf::from(other)),
        }
    }
    let out = out.ok_or("OUT is missing")?;
    if size == 0 {
        return Err(format!("{size_flag} must be at least 1"));
    }
    if out.read_dir().is_ok_and(|mut d| d.next().is_some()) {
        return Err(format!("{} is not empty", out.display()));
    }
    let cannot_write = |e: std::io::Error| format!("cannot write {}: {e}", out.display());
    if command == Some("gen-pipelines") {
        let plan = PipelinePlan {
            files: size,
            plant_every,
            datasets_per_module: datasets,
        };
        let summary = generate_pipelines(&plan, &out).map_err(cannot_write)?;
        println!(
            "{} Python and {} SQL pipeline sources, {} datasets, {} expectations, {} files, {:.1} MB, {} planted findings",
            summary.python_files,
            summary.sql_files,
            summary.datasets,
            summary.expectations,
            summary.files,
            summary.bytes as f64 / 1_000_000.0,
            summary.planted.len()
        );
        return Ok(());
    }
    if command == Some("gen-dqx") {
        let plan = DqxPlan {
            files: size,
            plant_every,
            checks,
        };
        let summary = generate_dqx(&plan, &out).map_err(cannot_write)?;
        println!(
            "{} checks files, {} checks, {} run configs, {} files, {:.1} MB, {} planted findings",
            summary.checks_files,
            summary.checks,
            summary.run_configs,
            summary.files,
            summary.bytes as f64 / 1_000_000.0,
            summary.planted.len()
        );
        return Ok(());
    }
    let plan = Plan {
        flowgroups: size,
        plant_every,
    };
    let summary = generate(&plan, &out).map_err(cannot_write)?;
    println!(
        "{} flowgroups, {} files, {:.1} MB, {} data_quality actions ({} quarantine), {} planted findings",
        summary.flowgroups,
        summary.files,
        summary.bytes as f64 / 1_000_000.0,
        summary.dq_actions,
        summary.quarantine_actions,
        summary.planted.len()
    );
    Ok(())
}
