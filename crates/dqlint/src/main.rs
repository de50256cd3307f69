//! `dqlint`: lint Lakehouse Plumber data-quality configs.

/// A load allocates millions of small strings and nodes, in parallel:
/// mimalloc spends a fifth less CPU on a cold lint than the system
/// allocator, with a lower peak (docs/performance.md, "Allocator").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use dqlint::fix::FixMode;
use dqlint::fix_write::{self, FixLock, WriteOutcome};
use dqlint::{cache, fix_loop, output, rule_docs};
use dqlint_linter::{lint_configured, Config, Selection, Severity, RULES};
use dqlint_project::{find_lint_root, holds_dialect_files, Project, RootMarker};

#[derive(Parser)]
#[command(
    name = "dqlint",
    version,
    about = "Linter for Lakehouse Plumber data-quality configs"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Lint the LHP project(s) containing PATH (default: the current folder),
    /// or, outside any, the DQX checks files and run configs under its root.
    Lint(LintArgs),
    /// Print a rule's documentation, or the table of all rules.
    Rule {
        /// A code (DQ207) or a name (quarantine-coerces-action).
        code: Option<String>,
        /// Write docs/rules/*.md and the README rule table from the rules'
        /// doc comments (for contributors; see README "Contributing").
        #[arg(long, hide = true)]
        generate_docs: bool,
        /// With --generate-docs: only check they are current (exit 1 if not).
        #[arg(long, hide = true, requires = "generate_docs")]
        check: bool,
        /// With --generate-docs: the repository root (default: the one
        /// this binary was built from).
        #[arg(long, hide = true, requires = "generate_docs")]
        root: Option<PathBuf>,
    },
    /// Show, per dataset of every dialect, its rule kinds and actions, the
    /// `[policy]` entries that select it and its circuit breaker.
    Policy(PolicyArgs),
    /// Run the language server (LSP over stdin/stdout), for editors.
    Server(ServerArgs),
}

#[derive(clap::Args)]
struct PolicyArgs {
    /// The project (default: the current folder).
    #[arg(value_name = "PATH")]
    path: Option<PathBuf>,
    /// Environment to resolve tokens for (repeatable); default: every substitutions/*.yaml.
    #[arg(long = "env", value_name = "ENV")]
    envs: Vec<String>,
    #[arg(long, value_enum, default_value_t = PolicyFormat::Table)]
    format: PolicyFormat,
    /// Configuration file to use instead of the project's dqlint.toml.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum PolicyFormat {
    /// One dataset a line.
    Table,
    /// One JSON document (docs/policy.md).
    Json,
}

/// What LSP clients pass when they start a stdio server (vscode-languageclient
/// appends `--stdio` for `TransportKind.stdio`, and `--clientProcessId=N`);
/// stdio is the only transport, so both are accepted and change nothing.
#[derive(clap::Args)]
struct ServerArgs {
    /// Speak LSP over stdin/stdout (the default and only transport).
    #[arg(long)]
    stdio: bool,
    /// The client's process id (accepted for clients that pass it).
    #[arg(long = "clientProcessId", value_name = "PID", hide = true)]
    client_process_id: Option<u32>,
}

#[derive(clap::Args)]
#[command(
    after_help = "Exit status: 0 no finding at error severity (warnings and info pass unless --strict or --error-on), \
1 at least one error finding (or, with --diff, something to fix), 2 the run itself failed (bad arguments or \
configuration, a PATH that does not exist or holds nothing to lint). A broken file is a finding (DQ001), never 2.\n\
Configuration: dqlint.toml at the project root (or --config FILE): select, ignore, envs, ddl, \
[severity], [[overrides]]. Command-line flags win over it.\n\
Suppressions: `# dqlint: ignore[DQ207] reason` (YAML) or `-- dqlint: ignore[DQ402] reason` (SQL) at the end of \
the line or on the line before; `dqlint: ignore-file[DQ402]` in a file's leading comments."
)]
struct LintArgs {
    /// Files or folders to lint (default: the current folder). Each lints
    /// the whole LHP project containing it (the nearest folder up with an
    /// lhp.yaml), as checks span files, but reports only the findings
    /// located under it.
    #[arg(value_name = "PATHS")]
    paths: Vec<PathBuf>,
    /// Environment to resolve tokens for (repeatable); default: every substitutions/*.yaml.
    #[arg(long = "env", value_name = "ENV")]
    envs: Vec<String>,
    #[arg(long, value_enum, default_value_t = Format::Full)]
    format: Format,
    /// Only these rules: codes, code prefixes (DQ4) or names; comma-separated.
    #[arg(long, value_delimiter = ',')]
    select: Vec<String>,
    /// Skip these rules: codes, code prefixes or names; comma-separated.
    #[arg(long, value_delimiter = ',')]
    ignore: Vec<String>,
    /// Warnings fail the run too (exit 1); the same as `--error-on warning`.
    #[arg(long)]
    strict: bool,
    /// The lowest severity that fails the run (exit 1): `error` (the
    /// default), `warning` (as --strict) or `info` (any finding fails).
    #[arg(long, value_enum, value_name = "SEVERITY")]
    error_on: Option<ErrorOn>,
    /// Count findings per rule instead of listing them.
    #[arg(long)]
    statistics: bool,
    /// Never colour the output (it is coloured only on a terminal anyway).
    #[arg(long)]
    no_color: bool,
    /// Print only the findings: no summary line, no list of fixed files.
    #[arg(long)]
    quiet: bool,
    /// Apply safe fixes in place, then report the findings that remain
    /// (exit status as for those). A file a fix would make unparsable is
    /// left unchanged, with a warning.
    #[arg(long)]
    fix: bool,
    /// With --fix or --diff: also apply unsafe fixes (they change behaviour).
    #[arg(long)]
    unsafe_fixes: bool,
    /// Print a unified diff of what --fix would change, and write nothing.
    /// Exit status: 1 if there is something to fix, else 0 (as ruff does).
    #[arg(long, conflicts_with = "fix")]
    diff: bool,
    /// Configuration file to use instead of the project's dqlint.toml.
    /// Command-line flags win over it: --select starts the selection afresh
    /// (its top-level `select` and `ignore` give way; overrides still turn
    /// rules off), --ignore adds to every `ignore`, --env replaces `envs`.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Do not read or write the run cache (`.dqlint_cache/` at the project root).
    #[arg(long)]
    no_cache: bool,
}

/// `--error-on SEVERITY`: findings at this severity or above fail the run.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ErrorOn {
    Error,
    Warning,
    Info,
}

impl ErrorOn {
    /// The least severe [`Severity`] that fails the run; `--strict` lowers
    /// the default to warnings (the lower of the two wins).
    fn threshold(given: Option<ErrorOn>, strict: bool) -> Severity {
        let given = match given {
            None | Some(ErrorOn::Error) => Severity::Error,
            Some(ErrorOn::Warning) => Severity::Warning,
            Some(ErrorOn::Info) => Severity::Info,
        };
        if strict {
            given.max(Severity::Warning)
        } else {
            given
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Source snippets with the related locations (coloured on a terminal).
    Full,
    /// `path:line:col: severity[CODE] message`, one finding a line.
    Concise,
    /// One JSON document (docs/cli.md); one project per run.
    Json,
    /// SARIF 2.1.0 for code scanning; paths relative to the working directory.
    Sarif,
    /// GitHub Actions annotations; paths relative to the working directory.
    Github,
}

fn main() -> ExitCode {
    dqlint_project::timings::begin();
    if std::env::args_os().nth(1).is_none_or(|a| a != "server") {
        end_quietly_on_broken_pipes();
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    match cli.command {
        Command::Rule {
            generate_docs: true,
            check,
            root,
            ..
        } => generate_docs_command(check, root),
        Command::Rule { code, .. } => rule_command(code.as_deref()),
        Command::Server(_) => dqlint_lsp::run_stdio(),
        Command::Policy(args) => match policy_command(args) {
            Ok(code) => code,
            Err(message) => {
                eprintln!("dqlint: error: {message}");
                ExitCode::from(2)
            }
        },
        Command::Lint(args) => match lint_command(args) {
            Ok(code) => code,
            Err(message) => {
                eprintln!("dqlint: error: {message}");
                ExitCode::from(2)
            }
        },
    }
}

/// `dqlint lint | head -1`: when the reader goes away, end as Unix tools
/// do (killed by SIGPIPE, status 141 in a shell), not with a panic of
/// `println!` or a "cannot write the report" error. Safe for `--fix`: it
/// writes nothing to a pipe while it writes files (the summary and the
/// report come after). The language server keeps the default (ignored),
/// as a dead client must not kill it mid-write.
fn end_quietly_on_broken_pipes() {
    #[cfg(unix)]
    // SAFETY: restores the default disposition before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

fn rule_command(code: Option<&str>) -> ExitCode {
    let mut out = std::io::stdout().lock();
    match code {
        Some(code) => match dqlint_linter::find(code) {
            Some(rule) => {
                let _ = write!(out, "{}", rule_docs::page(rule));
                ExitCode::SUCCESS
            }
            None => {
                eprintln!("dqlint: error: unknown rule `{code}` (see `dqlint rule` for the list)");
                ExitCode::from(2)
            }
        },
        None => {
            let _ = writeln!(
                out,
                "{:<7} {:<42} {:<8} {:<11} what it reports",
                "code", "name", "default", "fix"
            );
            for rule in RULES {
                let _ = writeln!(
                    out,
                    "{:<7} {:<42} {:<8} {:<11} {}",
                    rule.code,
                    rule.name,
                    rule.severity.as_str(),
                    rule_docs::fix_column(rule.code),
                    rule.summary()
                );
            }
            ExitCode::SUCCESS
        }
    }
}

/// `dqlint policy`: the coverage view (exit 0; 2 when the project or its
/// configuration cannot be read).
fn policy_command(args: PolicyArgs) -> Result<ExitCode, String> {
    for env in &args.envs {
        check_env_name(env)?;
    }
    let path = args.path.unwrap_or_else(|| PathBuf::from("."));
    if !path.exists() {
        return Err(format!("{}: no such file or folder", path.display()));
    }
    let (root, marker) = find_lint_root(&path);
    if marker != RootMarker::LhpProject && !holds_dialect_files(&root) {
        return Err(nothing_to_lint(&path, &root));
    }
    let config = Config::discover(&root, args.config.as_deref()).map_err(|e| e.to_string())?;
    let options = config.load_options(&args.envs);
    let project = Project::load(&root, &options).map_err(|e| e.to_string())?;
    let text = match args.format {
        PolicyFormat::Table => dqlint::policy_view::table(&project, &config),
        PolicyFormat::Json => {
            serde_json::to_string_pretty(&dqlint::policy_view::json_report(&project, &config))
                .map_err(|e| e.to_string())?
                + "\n"
        }
    };
    std::io::stdout()
        .lock()
        .write_all(text.as_bytes())
        .map_err(|e| format!("cannot write the report: {e}"))?;
    Ok(ExitCode::SUCCESS)
}

/// Why a PATH outside any LHP project is not linted (exit 2): nothing of
/// any dialect under its root.
fn nothing_to_lint(path: &Path, root: &Path) -> String {
    format!(
        "{}: nothing to lint under {}: no lhp.yaml in it or any parent folder, no DQX checks file or pipeline source",
        path.display(),
        root.display()
    )
}

/// `--env` takes one environment name: the stem of a
/// `substitutions/<env>.yaml`, so no path, no list.
fn check_env_name(env: &str) -> Result<(), String> {
    if env.trim().is_empty() {
        return Err(
            "--env needs an environment name (the stem of a substitutions/<env>.yaml file)".into(),
        );
    }
    if env.contains(',') {
        let names: Vec<&str> = env
            .split(',')
            .map(str::trim)
            .filter(|e| !e.is_empty())
            .collect();
        let repeated: Vec<String> = names.iter().map(|e| format!("--env {e}")).collect();
        return Err(format!(
            "--env `{env}`: one environment per --env; repeat it instead: {}",
            repeated.join(" ")
        ));
    }
    if env.contains(['/', '\\']) || env == "." || env == ".." {
        return Err(format!(
            "--env `{env}` is not an environment name: it names substitutions/<env>.yaml, so it holds no path"
        ));
    }
    Ok(())
}

/// `--select DQ207,DQ208,`: the empty item a trailing comma leaves is
/// dropped; a flag given with nothing at all in it is a mistake.
fn selectors(flag: &str, given: &[String]) -> Result<Vec<String>, String> {
    let kept: Vec<String> = given
        .iter()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect();
    if kept.is_empty() && !given.is_empty() {
        return Err(format!(
            "{flag} needs at least one rule code, prefix or name (see `dqlint rule`)"
        ));
    }
    Ok(kept)
}

fn no_color_requested() -> bool {
    output::no_color_requested_by(std::env::var_os("NO_COLOR").as_deref())
}

fn lint_command(mut args: LintArgs) -> Result<ExitCode, String> {
    args.select = selectors("--select", &args.select)?;
    args.ignore = selectors("--ignore", &args.ignore)?;
    for env in &args.envs {
        check_env_name(env)?;
    }
    for pattern in args.select.iter().chain(&args.ignore) {
        let p = pattern.trim();
        let known = RULES.iter().any(|r| {
            r.code.eq_ignore_ascii_case(p)
                || r.name == p
                || r.code
                    .to_ascii_uppercase()
                    .starts_with(&p.to_ascii_uppercase())
        });
        if !known || p.is_empty() {
            return Err(format!(
                "`{p}` matches no rule code, prefix or name (see `dqlint rule`)"
            ));
        }
    }
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        args.paths.clone()
    };
    let mut roots: Vec<(PathBuf, Vec<PathBuf>)> = Vec::new();
    for path in &paths {
        if !path.exists() {
            return Err(format!("{}: no such file or folder", path.display()));
        }
        let root = match find_lint_root(path) {
            (root, RootMarker::LhpProject) => root,
            // No lhp.yaml: a root of the other dialects when it holds DQX
            // files or pipeline sources, or its dqlint.toml has a [dqx]
            // table (a broken one is reported by the lint below).
            (root, _) => {
                let dqx_configured =
                    Config::discover(&root, args.config.as_deref()).map_or(true, |c| c.dqx.present);
                if !dqx_configured && !holds_dialect_files(&root) {
                    return Err(nothing_to_lint(path, &root));
                }
                root
            }
        };
        let abs = std::fs::canonicalize(path).map_err(|e| format!("{}: {e}", path.display()))?;
        match roots.iter_mut().find(|(r, _)| *r == root) {
            Some((_, scopes)) => scopes.push(abs),
            None => roots.push((root, vec![abs])),
        }
    }
    let one_document = matches!(args.format, Format::Json | Format::Sarif);
    if roots.len() > 1 && one_document && !args.diff {
        return Err(
            "--format json and sarif report one project; the paths given span several LHP projects"
                .into(),
        );
    }
    if args.unsafe_fixes && !(args.fix || args.diff) {
        return Err("--unsafe-fixes applies with --fix or --diff".into());
    }
    let fix_mode = (args.fix || args.diff).then_some(if args.unsafe_fixes {
        FixMode::IncludeUnsafe
    } else {
        FixMode::SafeOnly
    });
    let selection = Selection {
        select: args.select.clone(),
        ignore: args.ignore.clone(),
    };
    let color = !args.no_color && !no_color_requested() && std::io::stdout().is_terminal();
    // CI services resolve report paths against the checkout: the working directory.
    let base = std::env::current_dir()
        .and_then(std::fs::canonicalize)
        .unwrap_or_default();
    let mut failed = false;
    let several_projects = roots.len() > 1;
    for (root, scopes) in roots {
        let config = Config::discover(&root, args.config.as_deref()).map_err(|e| e.to_string())?;
        // Only plain lint runs are replayed: --fix and --diff act on files,
        // and coloured output goes to the terminal, not through the buffer
        // the cache stores.
        let run_cache = (!args.no_cache && fix_mode.is_none() && !color)
            .then(|| run_cache(&root, &scopes, color, config.path.as_deref(), &base));
        if let Some(replay) = run_cache.as_ref().and_then(cache::RunCache::lookup) {
            failed |= replay.failed;
            std::io::stdout()
                .lock()
                .write_all(&replay.output)
                .map_err(|e| format!("cannot write the report: {e}"))?;
            dqlint_project::timings::phase_done("report replayed from the cache");
            continue;
        }
        let lint_project = |overlay: &dqlint_project::Overlay| -> Result<(Project, Vec<dqlint_linter::Diagnostic>), String> {
            let mut options = config.load_options(&args.envs);
            options.overlay = overlay.clone();
            options.release_dqx_trees = true;
            let project = Project::load(&root, &options).map_err(|e| e.to_string())?;
            if !project.is_lhp() && project.files.is_empty() {
                // The text looked like DQX, the structure does not; or
                // only [dqx] made it a root, and its globs match nothing.
                return Err(format!(
                    "nothing to lint under {}: no lhp.yaml in it or any parent folder, and no file there is a DQX checks file, run config or pipeline source{}",
                    root.display(),
                    if config.dqx.present { " (by its content or by [dqx] checks / configs in dqlint.toml)" } else { "" }
                ));
            }
            let diagnostics: Vec<_> = lint_configured(&project, &config, &selection)
                .into_iter()
                .filter(|d| in_scope(&project, &scopes, &d.primary))
                .collect();
            Ok((project, diagnostics))
        };
        let (project, diagnostics) = match fix_mode {
            None => lint_project(&Default::default())?,
            Some(mode) => {
                if args.diff {
                    let outcome = fix_loop::fix_project(mode, lint_project)?;
                    let mut stderr = std::io::stderr().lock();
                    let _ = fix_loop::write_fix_summary(&mut stderr, &outcome, true, args.quiet);
                    fix_loop::write_diff(&mut std::io::stdout().lock(), &outcome.changed)
                        .map_err(|e| format!("cannot write the diff: {e}"))?;
                    failed |= !outcome.changed.is_empty();
                    continue;
                }
                // One fixer at a time per project; held until this root is done.
                let _lock = FixLock::acquire(&root, &mut std::io::stderr());
                fix_write::handle_interrupts();
                let outcome = fix_loop::fix_project(mode, lint_project)?;
                let written = fix_loop::write_changes(&outcome)?;
                // Under the lock no other fixer of this project runs: a
                // temporary file of a process that is gone is stale.
                fix_write::remove_stale_temporaries(
                    outcome.project.files.iter().filter_map(|f| f.path.parent()),
                );
                match written {
                    WriteOutcome::Written => {}
                    WriteOutcome::ChangedWhileFixing { changed, written } => {
                        for rel in &changed {
                            eprintln!("dqlint: error: {rel} changed while fixing: re-run");
                        }
                        if written.is_empty() {
                            eprintln!("dqlint: error: nothing was written (a file changed since dqlint read it)");
                        } else {
                            eprintln!(
                                "dqlint: error: written before the change was seen: {}",
                                written.join(", ")
                            );
                        }
                        return Ok(ExitCode::from(2));
                    }
                    WriteOutcome::Interrupted => {
                        eprintln!("dqlint: interrupted: some fixed files were not written; re-run");
                        return Ok(ExitCode::from(130));
                    }
                }
                let mut stderr = std::io::stderr().lock();
                let _ = fix_loop::write_fix_summary(&mut stderr, &outcome, false, args.quiet);
                (outcome.project, outcome.remaining)
            }
        };
        dqlint_project::timings::phase_done("lint");
        let threshold = ErrorOn::threshold(args.error_on, args.strict);
        let root_failed = diagnostics.iter().any(|d| d.severity <= threshold);
        failed |= root_failed;
        let mut buffer: Vec<u8> = Vec::new();
        for scope in &scopes {
            if scope.is_file() && !project.files.iter().any(|f| f.path == *scope) {
                if !project.is_lhp() {
                    eprintln!(
                        "dqlint: warning: {} is not a file dqlint lints (not a DQX checks file or run config)",
                        scope.strip_prefix(&base).unwrap_or(scope).display()
                    );
                    continue;
                }
                eprintln!(
                    "dqlint: warning: {} is not a file dqlint lints (not one of the project's flowgroups, templates, presets, substitutions, expectations or .sql files)",
                    scope.strip_prefix(&base).unwrap_or(scope).display()
                );
            }
        }
        if let Some(patterns) = config.ddl.as_ref().filter(|_| project.is_lhp()) {
            for pattern in patterns {
                if !project.files.iter().any(|f| {
                    f.rel.ends_with(".sql") && dqlint_linter::config::glob_matches(pattern, &f.rel)
                }) {
                    eprintln!(
                        "dqlint: warning: {}: `ddl` pattern `{pattern}` matches no .sql file under {}",
                        config.path.as_deref().map_or("dqlint.toml".into(), |p| p.strip_prefix(&base).unwrap_or(p).display().to_string()),
                        root.display()
                    );
                }
            }
        }
        let paused = dqlint_linter::suppression::paused_unused_checks(&project);
        let dq009 = dqlint_linter::find("DQ009").expect("DQ009 is a rule");
        let matches = |list: &[String]| {
            list.iter()
                .any(|s| dqlint_linter::config::selector_matches(s, dq009))
        };
        let dq009_on = (args.select.is_empty() || matches(&args.select)) && !matches(&args.ignore);
        if !paused.is_empty() && dq009_on && !args.quiet {
            let names: Vec<&str> = paused
                .iter()
                .map(|id| project.file(*id).rel.as_str())
                .collect();
            eprintln!(
                "dqlint: note: unused suppressions (DQ009) are not checked in {} until the files that do not parse (DQ001) are repaired, as what they suppress may come from them; malformed directives are still reported",
                names.join(", ")
            );
        }
        let scoped_files = project
            .files
            .iter()
            .filter(|f| {
                scopes
                    .iter()
                    .any(|s| *s == project.root || f.path.starts_with(s))
            })
            .count();
        let report = output::Report {
            project: &project,
            diagnostics: &diagnostics,
            base: &base,
            scoped_files,
            label: several_projects.then(|| {
                let shown = project.root.strip_prefix(&base).unwrap_or(&project.root);
                match shown.as_os_str().is_empty() {
                    true => ".".to_string(),
                    false => shown.to_string_lossy().replace('\\', "/"),
                }
            }),
        };
        let written = if args.statistics && args.format == Format::Sarif {
            report.sarif_statistics(&mut buffer, &base)
        } else if args.statistics {
            report.statistics(&mut buffer, args.format == Format::Json, args.quiet)
        } else {
            match args.format {
                Format::Json => report.json(&mut buffer),
                Format::Sarif => report.sarif(&mut buffer, &base),
                Format::Github => report.github(&mut buffer, &base, args.quiet),
                Format::Concise => report.concise(&mut buffer, args.quiet),
                Format::Full => report.full(&mut buffer, color, args.quiet),
            }
        };
        written.map_err(|e| format!("cannot write the report: {e}"))?;
        std::io::stdout()
            .lock()
            .write_all(&buffer)
            .map_err(|e| format!("cannot write the report: {e}"))?;
        dqlint_project::timings::phase_done("report");
        if let Some(run_cache) = run_cache {
            run_cache.store(&project, &buffer, root_failed);
        }
        // Freeing a big project value by value takes a tenth of the run;
        // the process is about to exit and the OS takes the memory back.
        std::mem::forget(project);
    }
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// `dqlint rule --generate-docs [--check]`: the rule pages and README table.
fn generate_docs_command(check: bool, root: Option<PathBuf>) -> ExitCode {
    let root = root.unwrap_or_else(rule_docs::source_root);
    let result = if check {
        rule_docs::stale(&root)
    } else {
        rule_docs::generate(&root)
    };
    match result {
        Ok(lines) if check && !lines.is_empty() => {
            for line in lines {
                eprintln!("{line}");
            }
            eprintln!("run `{}` to regenerate", rule_docs::REGENERATE);
            ExitCode::from(1)
        }
        Ok(lines) => {
            for line in lines {
                println!("{line}");
            }
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("dqlint: error: {message}");
            ExitCode::from(2)
        }
    }
}

/// The run cache of `root` for this exact command line: the arguments, the
/// resolved root and reported paths (relative paths depend on the working
/// folder, which SARIF and GitHub paths are relative to), colour and the
/// configuration file all shape the report.
fn run_cache(
    root: &Path,
    scopes: &[PathBuf],
    color: bool,
    config: Option<&Path>,
    cwd: &Path,
) -> cache::RunCache {
    let args: Vec<u8> = std::env::args_os()
        .skip(1)
        .flat_map(|a| {
            let mut bytes = a.as_encoded_bytes().to_vec();
            bytes.push(0);
            bytes
        })
        .collect();
    let places: Vec<u8> = [root, cwd]
        .into_iter()
        .chain(scopes.iter().map(PathBuf::as_path))
        .flat_map(|p| {
            let mut bytes = p.as_os_str().as_encoded_bytes().to_vec();
            bytes.push(0);
            bytes
        })
        .collect();
    cache::RunCache::new(root, &[&args, &places, &[color as u8]], config)
}

/// A PATH inside the project lints it all but reports only what lies under PATH.
fn in_scope(project: &Project, scopes: &[PathBuf], at: &dqlint_linter::Location) -> bool {
    let path: &Path = &project.file(at.file).path;
    scopes
        .iter()
        .any(|s| *s == project.root || path.starts_with(s))
}
