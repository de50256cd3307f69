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

/// tokio's blocking threads alive that ran our work (parse jobs, re-lints,
/// loads): the ones whose heaps may hold a closed buffer's pages.
static WORK_THREADS: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// Counts this thread in [`WORK_THREADS`] from its first job to its
    /// end (tokio ends a blocking thread idle for 10 s).
    static WORK_THREAD: WorkThread = WorkThread::counted();
}

struct WorkThread;

impl WorkThread {
    fn counted() -> WorkThread {
        WORK_THREADS.fetch_add(1, Ordering::SeqCst);
        WorkThread
    }
}

impl Drop for WorkThread {
    fn drop(&mut self) {
        WORK_THREADS.fetch_sub(1, Ordering::SeqCst);
    }
}

/// `tokio::task::spawn_blocking`, its thread counted (see [`WORK_THREADS`]).
pub fn spawn_blocking<F, R>(work: F) -> tokio::task::JoinHandle<R>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    tokio::task::spawn_blocking(move || {
        WORK_THREAD.with(|_| ());
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
///
/// Only threads that exist are asked: a request that found no idle thread
/// would start one (tokio starts a blocking thread when none is idle, and
/// `block_in_place` hands the worker's queue to a new one), whose stack,
/// heap and bookkeeping, made while the buffer's pages were still in use,
/// would stay after the close.
pub async fn release_freed_memory() {
    let runtime = tokio::runtime::Handle::current();
    let _ = spawn_blocking(move || {
        // rayon's pool (the lint's parallel parts).
        rayon::broadcast(|_| collect_this_thread());
        // The runtime's workers (the protocol: buffers' texts, messages).
        // Spawned from this thread, which is no worker, the tasks go to the
        // queue every worker takes from; each holds its worker until the
        // other has one too (briefly: a collect takes milliseconds).
        if runtime.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread {
            let mut done = collect_on_distinct(runtime.metrics().num_workers(), |work| {
                runtime.spawn(async move { work() });
            });
            while done.blocking_recv().is_some() {}
        }
        // tokio's blocking threads that ran parse jobs, re-lints and loads:
        // this one (counted, as it runs through `spawn_blocking`), and the
        // others, asked from here. Asked from a task awaiting this one,
        // they could find this thread not yet back among the idle ones,
        // and tokio would start one more.
        collect_this_thread();
        let others = WORK_THREADS.load(Ordering::SeqCst).saturating_sub(1);
        let mut done = collect_on_distinct(others, |work| {
            runtime.spawn_blocking(work);
        });
        while done.blocking_recv().is_some() {}
    })
    .await;
    collect_this_thread();
    trim_glibc();
}

/// Runs [`collect_this_thread`] `count` times through `spawn`, each run
/// waiting (at most [`MEET_TIMEOUT`]) until all have started, so that no
/// thread takes two. The channel returned closes when all are done.
fn collect_on_distinct(
    count: usize,
    spawn: impl Fn(Box<dyn FnOnce() + Send>),
) -> tokio::sync::mpsc::Receiver<()> {
    let meeting = Arc::new((Mutex::new(0usize), Condvar::new()));
    let (done_tx, done_rx) = tokio::sync::mpsc::channel::<()>(count.max(1));
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
    done_rx
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
