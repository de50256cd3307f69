//! Handing a closed buffer's memory back to the system.
//!
//! `dqlint` allocates with mimalloc (crates/dqlint/src/main.rs). mimalloc
//! keeps a page whose blocks another thread freed in the heap of the thread
//! that allocated it, until that thread allocates or collects again, and
//! returns freed pages to the system only after a purge delay, when some
//! thread next collects. A large buffer is parsed and linted on tokio's
//! blocking threads and rayon's pool, its text kept by the protocol's
//! threads, and freed by whichever thread drops the last reference: after
//! a close, every one of those threads collects, then the arenas are purged.
//! Under glibc (tree-sitter's C allocations, and the tests' allocator),
//! `malloc_trim` does the same for glibc's heap.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

// The static mimalloc the binary allocates with; only its `extended` API
// (collect, options) is declared here. Linked in through libmimalloc-sys.
extern crate libmimalloc_sys;

extern "C" {
    fn mi_collect(force: bool);
    fn mi_option_set(option: std::ffi::c_int, value: std::ffi::c_long);
}

/// `mi_option_purge_delay` in mimalloc's `mi_option_t` (v2 and v3 alike).
const MI_OPTION_PURGE_DELAY: std::ffi::c_int = 15;

/// How long a thread asked to collect waits for the others to be asked too
/// (so that each request lands on a thread of its own).
const MEET_TIMEOUT: Duration = Duration::from_millis(100);

/// tokio's own blocking work besides ours (stdin reads, stdout writes).
const TOKIO_BLOCKING: usize = 2;

/// Our blocking tasks running now, and the most that ever ran at once:
/// tokio starts a blocking thread only when none is idle, so there are
/// never more blocking threads than that (plus tokio's own).
static BLOCKING_NOW: AtomicUsize = AtomicUsize::new(0);
static BLOCKING_PEAK: AtomicUsize = AtomicUsize::new(0);

/// `tokio::task::spawn_blocking`, counted (see [`BLOCKING_PEAK`]).
pub fn spawn_blocking<F, R>(work: F) -> tokio::task::JoinHandle<R>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    let now = BLOCKING_NOW.fetch_add(1, Ordering::SeqCst) + 1;
    BLOCKING_PEAK.fetch_max(now, Ordering::SeqCst);
    tokio::task::spawn_blocking(move || {
        struct Done;
        impl Drop for Done {
            fn drop(&mut self) {
                BLOCKING_NOW.fetch_sub(1, Ordering::SeqCst);
            }
        }
        let _done = Done;
        work()
    })
}

/// Settings for a long-running server: freed pages go back to the system
/// at once instead of after mimalloc's default delay (which only ends
/// when some thread next allocates or collects: an idle server never does).
pub fn configure_allocator() {
    // SAFETY: mi_option_set writes one of mimalloc's option slots (an
    // atomic); purge_delay is read afresh at every purge, so setting it at
    // any time is allowed. Without mimalloc in use, it only sets an unused
    // option.
    unsafe {
        mi_option_set(MI_OPTION_PURGE_DELAY, 0);
    }
}

/// Collects this thread's mimalloc heap: pages whose blocks are all free
/// go back to the arenas, and (forced) the arenas purge what is free.
fn collect_this_thread() {
    // SAFETY: mi_collect only walks the calling thread's own heap and the
    // arenas' free lists, under mimalloc's own synchronisation; it returns
    // at once on a thread that never allocated through mimalloc.
    unsafe {
        mi_collect(true);
    }
}

/// Hands the memory freed so far back to the system, from every thread
/// that may hold it. Run after a large buffer's parse and findings are
/// dropped (a close).
pub async fn release_freed_memory() {
    // rayon's pool (the lint's parallel parts), and tokio's blocking
    // threads (parse jobs and re-lints).
    let _ = tokio::task::spawn_blocking(|| {
        rayon::broadcast(|_| collect_this_thread());
    })
    .await;
    let blocking = BLOCKING_PEAK.load(Ordering::SeqCst) + TOKIO_BLOCKING;
    collect_on_distinct(blocking, |work| {
        tokio::task::spawn_blocking(work);
    })
    .await;
    // The runtime's workers (the protocol: buffers' texts, messages).
    let runtime = tokio::runtime::Handle::current();
    if runtime.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread {
        collect_on_distinct(runtime.metrics().num_workers(), |work| {
            tokio::spawn(async move {
                tokio::task::block_in_place(work);
            });
        })
        .await;
    }
    collect_this_thread();
    trim_glibc();
}

/// Runs [`collect_this_thread`] `count` times through `spawn`, each run
/// waiting (at most [`MEET_TIMEOUT`]) until all have started, so that no
/// thread takes two; resolves when all are done.
async fn collect_on_distinct(count: usize, spawn: impl Fn(Box<dyn FnOnce() + Send>)) {
    let meeting = Arc::new((Mutex::new(0usize), Condvar::new()));
    let (done_tx, mut done_rx) = tokio::sync::mpsc::channel::<()>(count.max(1));
    for _ in 0..count {
        let meeting = meeting.clone();
        let done = done_tx.clone();
        spawn(Box::new(move || {
            collect_this_thread();
            let (arrived, all) = &*meeting;
            let mut arrived = arrived.lock().unwrap_or_else(|e| e.into_inner());
            *arrived += 1;
            all.notify_all();
            let _ = all.wait_timeout_while(arrived, MEET_TIMEOUT, |n| *n < count);
            let _ = done.try_send(());
        }));
    }
    drop(done_tx);
    while done_rx.recv().await.is_some() {}
}

/// glibc keeps freed heap pages unless asked to return them (tree-sitter's
/// C allocations go through glibc's malloc).
fn trim_glibc() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only walks the allocator's own free lists.
    unsafe {
        libc::malloc_trim(0);
    }
}
