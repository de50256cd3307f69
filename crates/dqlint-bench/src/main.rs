//! `dqlint-bench gen --flowgroups N [--plant EVERY] OUT`: writes a synthetic
//! LHP project (see the library docs) and prints what it wrote.

use std::path::PathBuf;
use std::process::ExitCode;

use dqlint_bench::{generate, Plan};

const USAGE: &str = "usage: dqlint-bench gen --flowgroups N [--plant EVERY] OUT\n\
  --flowgroups N   number of flowgroups (spread over 5 layers and N/100 domains)\n\
  --plant EVERY    plant findings in every EVERY-th flowgroup of the planted kinds (default: none)\n\
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
    if args.next().map(String::as_str) != Some("gen") {
        return Err("the only command is `gen`".into());
    }
    let mut plan = Plan {
        flowgroups: 0,
        plant_every: None,
    };
    let mut out: Option<PathBuf> = None;
    while let Some(arg) = args.next() {
        let mut number = |name: &str| -> Result<usize, String> {
            args.next()
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| format!("{name} needs a number"))
        };
        match arg.as_str() {
            "--flowgroups" => plan.flowgroups = number("--flowgroups")?,
            "--plant" => plan.plant_every = Some(number("--plant")?.max(1)),
            other if other.starts_with('-') => return Err(format!("unknown option {other}")),
            other => out = Some(PathBuf::from(other)),
        }
    }
    let out = out.ok_or("OUT is missing")?;
    if plan.flowgroups == 0 {
        return Err("--flowgroups must be at least 1".into());
    }
    if out.read_dir().is_ok_and(|mut d| d.next().is_some()) {
        return Err(format!("{} is not empty", out.display()));
    }
    let summary =
        generate(&plan, &out).map_err(|e| format!("cannot write {}: {e}", out.display()))?;
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
