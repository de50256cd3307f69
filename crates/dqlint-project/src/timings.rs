//! Phase timings on stderr when `DQLINT_TIMINGS=1`: the cheap profiler
//! behind the numbers in docs/performance.md (what is serial, what is
//! parallel, what dominates).

use std::sync::OnceLock;
use std::time::Instant;

fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| {
        std::env::var_os("DQLINT_TIMINGS").is_some_and(|v| !v.is_empty() && v != "0")
    })
}

fn start() -> Instant {
    static START: OnceLock<Instant> = OnceLock::new();
    *START.get_or_init(Instant::now)
}

/// Prints how long the process has run when `phase` ends.
pub fn phase_done(phase: &str) {
    if enabled() {
        eprintln!(
            "[dqlint timings] {:>8.1} ms  {phase}",
            start().elapsed().as_secs_f64() * 1000.0
        );
    }
}

/// Starts the clock (call first thing in `main`).
pub fn begin() {
    if enabled() {
        start();
    }
}
