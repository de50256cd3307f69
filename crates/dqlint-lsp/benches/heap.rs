//! The bench's allocator: mimalloc, as `dqlint` ships, and, with
//! `DQLINT_BENCH_HEAP=1`, a record of the blocks allocated in a window
//! (from before a buffer is opened to after it is closed) that are still
//! live at its end, grouped by the call stack that allocated them: what
//! holds the memory that does not go back after a close.
//!
//! Without the variable the allocator is mimalloc behind one relaxed
//! atomic load per call.

use std::alloc::{GlobalAlloc, Layout};
use std::cell::Cell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicIsize, Ordering};
use std::sync::Mutex;

pub struct Heap;

/// Counting live bytes (the variable is set).
static COUNTING: AtomicBool = AtomicBool::new(false);
/// Recording the blocks allocated (between [`start`] and [`stop`]).
static RECORDING: AtomicBool = AtomicBool::new(false);
/// `DQLINT_BENCH_HEAP=2`: record blocks (slow, and the records take
/// memory of their own: RSS figures are then off).
static RECORD_WANTED: AtomicBool = AtomicBool::new(false);
static LIVE: AtomicIsize = AtomicIsize::new(0);

/// Frames kept of an allocating stack (the allocator's own frames included).
const FRAMES: usize = 24;

struct Block {
    size: usize,
    site: u64,
}

#[derive(Default)]
struct Records {
    blocks: HashMap<usize, Block>,
    /// One resolvable stack per site, captured the first time it allocates.
    sites: HashMap<u64, std::backtrace::Backtrace>,
}

static RECORDS: Mutex<Option<Records>> = Mutex::new(None);

thread_local! {
    /// This thread is in the recorder: its own allocations are not recorded.
    static INSIDE: Cell<bool> = const { Cell::new(false) };
}

extern "C" {
    // glibc's execinfo: the return addresses of the calling stack, without
    // resolving them (fast enough to run at every allocation).
    fn backtrace(buffer: *mut *mut std::ffi::c_void, size: std::ffi::c_int) -> std::ffi::c_int;
}

/// Whether this thread is in the recorder (its blocks are not counted).
fn recorder() -> bool {
    INSIDE.try_with(Cell::get).unwrap_or(true)
}

/// Runs `f` unless this thread is already in the recorder (or is being
/// torn down).
fn guarded(f: impl FnOnce()) {
    let entered = INSIDE
        .try_with(|inside| !inside.replace(true))
        .unwrap_or(false);
    if entered {
        f();
        let _ = INSIDE.try_with(|inside| inside.set(false));
    }
}

fn record(ptr: *mut u8, size: usize) {
    guarded(|| {
        let mut frames = [std::ptr::null_mut(); FRAMES];
        // SAFETY: `frames` holds FRAMES pointers.
        let n = unsafe { backtrace(frames.as_mut_ptr(), FRAMES as std::ffi::c_int) };
        let mut site: u64 = 0xcbf2_9ce4_8422_2325;
        for frame in &frames[..n.max(0) as usize] {
            site = (site ^ *frame as u64).wrapping_mul(0x0100_0000_01b3);
        }
        // A new site's stack is captured off the lock (capturing takes
        // the backtrace lock of its own).
        let known = RECORDS
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
            .is_some_and(|r| r.sites.contains_key(&site));
        let trace = (!known).then(std::backtrace::Backtrace::force_capture);
        let mut records = RECORDS.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(records) = records.as_mut() {
            if let Some(trace) = trace {
                records.sites.entry(site).or_insert(trace);
            }
            records.blocks.insert(ptr as usize, Block { size, site });
        }
    });
}

fn forget(ptr: *mut u8) {
    guarded(|| {
        let mut records = RECORDS.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(records) = records.as_mut() {
            records.blocks.remove(&(ptr as usize));
        }
    });
}

// SAFETY: every call is mimalloc's; the bookkeeping does not touch the
// blocks.
unsafe impl GlobalAlloc for Heap {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let ptr = mimalloc::MiMalloc.alloc(layout);
        self.allocated(ptr, layout.size());
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let ptr = mimalloc::MiMalloc.alloc_zeroed(layout);
        self.allocated(ptr, layout.size());
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        self.freed(ptr, layout.size());
        mimalloc::MiMalloc.dealloc(ptr, layout);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        self.freed(ptr, layout.size());
        let new = mimalloc::MiMalloc.realloc(ptr, layout, new_size);
        self.allocated(new, new_size);
        new
    }
}

impl Heap {
    #[inline]
    fn allocated(&self, ptr: *mut u8, size: usize) {
        if COUNTING.load(Ordering::Relaxed) && !ptr.is_null() && !recorder() {
            LIVE.fetch_add(size as isize, Ordering::Relaxed);
            if RECORDING.load(Ordering::Relaxed) {
                record(ptr, size);
            }
        }
    }

    #[inline]
    fn freed(&self, ptr: *mut u8, size: usize) {
        if COUNTING.load(Ordering::Relaxed) && !recorder() {
            LIVE.fetch_sub(size as isize, Ordering::Relaxed);
            if RECORDING.load(Ordering::Relaxed) {
                forget(ptr);
            }
        }
    }
}

/// Whether the heap is looked at (`DQLINT_BENCH_HEAP=1`); call first.
pub fn init() -> bool {
    let mode = std::env::var("DQLINT_BENCH_HEAP").unwrap_or_default();
    RECORD_WANTED.store(mode == "2", Ordering::SeqCst);
    let on = mode == "1" || mode == "2";
    if on {
        // The first call loads the unwinder (and allocates): not in the
        // recorder.
        let mut frames = [std::ptr::null_mut(); 4];
        // SAFETY: `frames` holds 4 pointers.
        unsafe { backtrace(frames.as_mut_ptr(), 4) };
        COUNTING.store(true, Ordering::SeqCst);
    }
    on
}

/// Live bytes the Rust side allocated since [`init`] (not C code's).
pub fn live() -> isize {
    LIVE.load(Ordering::Relaxed)
}

/// Starts recording the blocks allocated from now on.
pub fn start() {
    if RECORD_WANTED.load(Ordering::SeqCst) {
        guarded(|| {
            *RECORDS.lock().unwrap_or_else(|e| e.into_inner()) = Some(Records::default());
        });
        RECORDING.store(true, Ordering::SeqCst);
    }
}

/// Stops recording and prints the blocks recorded since [`start`] that are
/// still live, by allocating stack (the `top` with the most bytes).
pub fn stop(top: usize) {
    if !RECORDING.swap(false, Ordering::SeqCst) {
        return;
    }
    guarded(|| {
        let Some(records) = RECORDS.lock().unwrap_or_else(|e| e.into_inner()).take() else {
            return;
        };
        let mut by_site: HashMap<u64, (usize, usize)> = HashMap::new();
        let mut sizes: HashMap<usize, usize> = HashMap::new();
        let mut slices: Vec<usize> = records.blocks.keys().map(|p| p >> 16).collect();
        slices.sort();
        slices.dedup();
        println!(
            "  heap: the survivors lie in {} 64 KiB slices",
            slices.len()
        );
        for block in records.blocks.values() {
            let entry = by_site.entry(block.site).or_default();
            entry.0 += block.size;
            entry.1 += 1;
            *sizes.entry(block.size).or_default() += 1;
        }
        let total: usize = by_site.values().map(|(b, _)| b).sum();
        let count: usize = by_site.values().map(|(_, n)| n).sum();
        println!(
            "  heap: {count} blocks ({} kB) allocated in the window still live, from {} stacks",
            total / 1024,
            by_site.len()
        );
        let mut sites: Vec<_> = by_site.into_iter().collect();
        sites.sort_by_key(|(_, (bytes, _))| std::cmp::Reverse(*bytes));
        for (site, (bytes, blocks)) in sites.into_iter().take(top) {
            println!("  -- {blocks} blocks, {bytes} bytes");
            if let Some(trace) = records.sites.get(&site) {
                let text = format!("{trace}");
                let mut shown = 0;
                for line in text.lines() {
                    let line = line.trim();
                    // Function names only, past the allocator's frames.
                    if !line.contains(": ") || line.starts_with("at ") {
                        continue;
                    }
                    let name = line.split_once(": ").map_or(line, |(_, n)| n);
                    if name.contains("heap::")
                        || name.starts_with("std::backtrace")
                        || name.starts_with("alloc::")
                        || name.starts_with("__rust")
                        || name.starts_with("core::")
                    {
                        continue;
                    }
                    println!("       {name}");
                    shown += 1;
                    if shown == 12 {
                        break;
                    }
                }
            }
        }
        let mut sizes: Vec<_> = sizes.into_iter().collect();
        sizes.sort_by_key(|(_, n)| std::cmp::Reverse(*n));
        let sizes: Vec<String> = sizes
            .iter()
            .take(12)
            .map(|(size, n)| format!("{n}x{size}B"))
            .collect();
        println!("  sizes: {}", sizes.join(" "));
    });
}

/// Resident kB of each mapping of this process (`/proc/self/smaps`), by
/// its start address, with its name.
pub fn mappings() -> HashMap<String, (String, u64)> {
    let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap_or_default();
    let mut out = HashMap::new();
    let mut current: Option<(String, String)> = None;
    for line in smaps.lines() {
        let first = line.split_whitespace().next().unwrap_or("");
        if first.contains('-') && !first.ends_with(':') {
            let name = line
                .split_whitespace()
                .nth(5)
                .unwrap_or("[anon]")
                .to_string();
            let size = line.split_whitespace().next().unwrap_or("").to_string();
            current = Some((size, name));
        } else if let (Some(kb), Some((start, name))) =
            (line.strip_prefix("Rss:"), current.as_ref())
        {
            let kb: u64 = kb.trim().trim_end_matches("kB").trim().parse().unwrap_or(0);
            out.insert(start.clone(), (name.clone(), kb));
        }
    }
    out
}

/// Prints the mappings whose resident size changed by more than 40 kB.
pub fn print_mapping_changes(before: &HashMap<String, (String, u64)>) {
    let after = mappings();
    let mut keys: Vec<&String> = before.keys().chain(after.keys()).collect();
    keys.sort();
    keys.dedup();
    for key in keys {
        let b = before.get(key).map_or(0, |m| m.1);
        let (name, a) = after
            .get(key)
            .map_or(("(gone)", 0), |m| (m.0.as_str(), m.1));
        if a.abs_diff(b) > 40 {
            println!("  map {key} {name}: {b} -> {a} kB");
        }
    }
}

extern "C" {
    fn mi_collect(force: bool);
}

/// Collects this thread's mimalloc heap.
pub fn collect_here() {
    // SAFETY: collects the calling thread's own heap.
    unsafe { mi_collect(true) }
}
