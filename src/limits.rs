//! Resource limits: every cap beryl puts on what it reads, in one place.
//!
//! docs/limits.md describes them for users. Each limit has its own error code
//! (`beryl::limit::<name>`, [`Limit::as_str`]) and its error names the flag
//! that raises it ([`Limit::flag`]). The global options `--max-file-size`,
//! `--max-depth`, `--max-nodes`, `--max-list-items`, `--max-ref-depth` and
//! `--max-class-depth` (and the `BERYL_MAX_*` variables) set them; the parser's other budgets
//! are derived from those, so that raising one knob never runs into a hidden
//! one.

use crate::diag::Diag;

/// The limits of one run.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Largest file read (YAML, SSH key, template, `beryl merge` input), in bytes.
    pub max_file_size: u64,
    /// Deepest nesting of mappings and lists, in a file and in a host's
    /// config once references are resolved.
    pub max_depth: usize,
    /// Most values (scalars, lists, mappings) in one file, aliases expanded;
    /// also the most values that references may copy into one host's config.
    pub max_nodes: usize,
    /// Most items in one list of a file.
    pub max_list_items: usize,
    /// Longest chain of references resolved inside one another.
    pub max_ref_depth: usize,
    /// Longest chain of classes including one another.
    pub max_class_depth: usize,
}

/// 4 MiB: a level file is a few KB; this leaves room for generated ones.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 4 * 1024 * 1024;
pub(crate) const DEFAULT_MAX_DEPTH: usize = 64;
/// What the 64 MiB thread stacks (src/main.rs) hold with room to spare in a
/// debug build, which needs about 48 KiB per level.
pub(crate) const MAX_DEPTH_CEILING: usize = 1000;
pub(crate) const DEFAULT_MAX_NODES: usize = 250_000;
pub(crate) const DEFAULT_MAX_LIST_ITEMS: usize = 100_000;
pub(crate) const DEFAULT_MAX_REF_DEPTH: usize = 64;
pub(crate) const DEFAULT_MAX_CLASS_DEPTH: usize = 64;
/// Files beryl wrote itself and reads back (`beryl diff` on a `render --out`
/// directory, its manifest, an `apply --state` snapshot): 64 MiB.
pub(crate) const MAX_OUTPUT_FILE_SIZE: u64 = 64 * 1024 * 1024;

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_file_size: DEFAULT_MAX_FILE_SIZE,
            max_depth: DEFAULT_MAX_DEPTH,
            max_nodes: DEFAULT_MAX_NODES,
            max_list_items: DEFAULT_MAX_LIST_ITEMS,
            max_ref_depth: DEFAULT_MAX_REF_DEPTH,
            max_class_depth: DEFAULT_MAX_CLASS_DEPTH,
        }
    }
}

impl Limits {
    /// The strings of one file, aliases expanded, and the strings that
    /// references build or copy for one host: 16 × the file size cap
    /// (64 MiB by default).
    pub(crate) fn max_string_bytes(&self) -> usize {
        usize::try_from(self.max_file_size.saturating_mul(16)).unwrap_or(usize::MAX)
    }

    /// Instructions one user template may run (minijinja's fuel): 40 × the
    /// value cap (10,000,000 by default), room for a few dozen instructions
    /// for each value of a config as large as one file may hold.
    pub(crate) fn template_fuel(&self) -> u64 {
        u64::try_from(self.max_nodes)
            .unwrap_or(u64::MAX)
            .saturating_mul(40)
    }

    /// Heap one user template may hold while it renders, its output
    /// included: 16 × the file size cap (64 MiB by default), the strings
    /// cap of a file.
    pub(crate) fn template_bytes(&self) -> usize {
        self.max_string_bytes()
    }

    /// Aliases (and anchors) in one file: a twentieth of the value cap
    /// (12,500 by default).
    pub(crate) fn max_aliases(&self) -> usize {
        (self.max_nodes / 20).max(1)
    }

    /// Limits for text beryl produced itself (a render directory, an
    /// annotated render read back): the depth of a config plus the levels an
    /// output adds, and no cap on lists or values, since merged lists may be
    /// longer than any one file's.
    pub fn for_output(max_file_size: u64) -> Self {
        Self {
            max_file_size,
            max_depth: MAX_DEPTH_CEILING + 8,
            max_nodes: usize::MAX / 8,
            max_list_items: usize::MAX,
            max_ref_depth: DEFAULT_MAX_REF_DEPTH,
            max_class_depth: DEFAULT_MAX_CLASS_DEPTH,
        }
    }
}

crate::diag::codes! {
    /// One limit, for its error code and the way to raise it.
    pub(crate) enum Limit in "limit" {
        /// A file is larger than `--max-file-size`.
        FileSize = "file_size";
        /// A file, or a host's config once references are resolved, nests deeper than `--max-depth`.
        Depth = "depth";
        /// A file holds more values than `--max-nodes` (aliases expanded).
        Nodes = "nodes";
        /// A list of a file has more items than `--max-list-items`.
        ListItems = "list_items";
        /// A file's strings (aliases expanded) exceed 16 × `--max-file-size`.
        Strings = "strings";
        /// A file has more aliases than a twentieth of `--max-nodes`.
        Aliases = "aliases";
        /// A chain of references inside one another is longer than `--max-ref-depth`.
        RefDepth = "ref_depth";
        /// References copy more values or string bytes into one host's config than the caps allow.
        RefExpansion = "ref_expansion";
        /// A chain of classes including one another is longer than `--max-class-depth`.
        ClassDepth = "class_depth";
        /// A reclass class mapping's regex needs more backtracking than one match, or a run's matches together, may take.
        RegexSteps = "regex_steps";
        /// A user template runs more instructions than 40 × `--max-nodes`.
        TemplateFuel = "template_fuel";
        /// A user template holds more heap than 16 × `--max-file-size` while it renders.
        TemplateMemory = "template_memory";
    }
}

impl Limit {
    /// The option that raises the limit (derived limits name the one they
    /// derive from; a fixed limit has none); the test holds each help to it.
    #[cfg(test)]
    pub(crate) fn flag(self) -> Option<&'static str> {
        Some(match self {
            Limit::FileSize | Limit::Strings => "--max-file-size",
            Limit::Depth => "--max-depth",
            Limit::Nodes | Limit::Aliases | Limit::RefExpansion | Limit::TemplateFuel => {
                "--max-nodes"
            }
            Limit::TemplateMemory => "--max-file-size",
            Limit::ListItems => "--max-list-items",
            Limit::RefDepth => "--max-ref-depth",
            Limit::ClassDepth => "--max-class-depth",
            Limit::RegexSteps => return None,
        })
    }

    /// How to raise it, for the diagnostic's help.
    pub(crate) fn help(self) -> String {
        let how = match self {
            Limit::FileSize => "raise it with --max-file-size BYTES (or BERYL_MAX_FILE_SIZE)",
            Limit::Depth => "raise it with --max-depth LEVELS (or BERYL_MAX_DEPTH), at most 1000",
            Limit::Nodes => "raise it with --max-nodes N (or BERYL_MAX_NODES)",
            Limit::ListItems => "raise it with --max-list-items N (or BERYL_MAX_LIST_ITEMS)",
            Limit::Strings => "this cap is 16 × --max-file-size; raising that raises it",
            Limit::Aliases => "this cap is a twentieth of --max-nodes; raising that raises it",
            Limit::RefDepth => "raise it with --max-ref-depth N (or BERYL_MAX_REF_DEPTH)",
            Limit::ClassDepth => {
                "raise it with --max-class-depth N (or BERYL_MAX_CLASS_DEPTH), at most 1000"
            }
            Limit::TemplateFuel => {
                "a template may run 40 × --max-nodes instructions (10,000,000 by default); \
                 raising that raises it"
            }
            Limit::TemplateMemory => {
                "a template may hold 16 × --max-file-size bytes (64 MiB by default) while it \
                 renders; raising that raises it"
            }
            Limit::RegexSteps => {
                "the bound is fixed: a class mapping's regex may take 1,000,000 backtracking \
                 steps per node, and the regexes that need more than 10,000 share 10,000,000 \
                 per run; write the pattern without nested repetition (`(a|aa)+` backtracks \
                 exponentially), or match with a glob"
            }
            Limit::RefExpansion => {
                "references may copy at most --max-nodes values and 16 × --max-file-size \
                 bytes of strings into one host's config; raise those"
            }
        };
        format!("{how}; see docs/limits.md")
    }

    /// A diagnostic for this limit, without a location yet.
    pub(crate) fn diag(self, message: impl Into<String>) -> Diag {
        Diag::new(self, message).help(self.help())
    }
}

/// The heap budget of a thread that runs an untrusted computation (a user
/// template, src/compile/files.rs).
///
/// minijinja bounds neither the size of a string a template builds (`{% set
/// ns.s = ns.s ~ ns.s %}` doubles it in one instruction) nor lets a caller
/// stop it between instructions, and an allocation that fails aborts the
/// process. So the global allocator ([`heap::Budgeted`], installed by
/// src/main.rs) charges each allocation of such a thread to its budget
/// *before* making it, and a thread past its budget stops there for good: it
/// never allocates again, and [`heap::bounded`] returns
/// [`heap::Stopped::Memory`] to the caller, which reports the limit. The
/// stopped thread keeps what it held (at most the budget) until beryl exits.
pub mod heap {
    use std::alloc::{GlobalAlloc, Layout};
    use std::cell::Cell;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Duration;

    thread_local! {
        /// Bytes the thread may still allocate, when it is bounded.
        static LEFT: Cell<isize> = const { Cell::new(isize::MAX) };
        /// Set when the thread went past its budget; null when unbounded.
        static OVER: Cell<*const AtomicBool> = const { Cell::new(std::ptr::null()) };
    }

    /// Charges `size` bytes to a bounded thread; past its budget, the thread
    /// raises its flag and sleeps forever. Called before allocating.
    #[inline]
    fn charge(size: usize) {
        let over = OVER.get();
        if over.is_null() {
            return;
        }
        let left = LEFT
            .get()
            .saturating_sub(isize::try_from(size).unwrap_or(isize::MAX));
        LEFT.set(left);
        if left < 0 {
            // SAFETY: `bounded` keeps the flag alive while the pointer is set.
            unsafe { (*over).store(true, Ordering::Release) };
            // Sleeping neither allocates nor unwinds.
            loop {
                std::thread::sleep(Duration::from_secs(1 << 20));
            }
        }
    }

    #[inline]
    fn credit(size: usize) {
        if !OVER.get().is_null() {
            let size = isize::try_from(size).unwrap_or(isize::MAX);
            LEFT.set(LEFT.get().saturating_add(size));
        }
    }

    /// A global allocator that charges bounded threads.
    pub struct Budgeted<A>(pub A);

    // SAFETY: every call goes to the inner allocator unchanged.
    unsafe impl<A: GlobalAlloc> GlobalAlloc for Budgeted<A> {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            charge(layout.size());
            unsafe { self.0.alloc(layout) }
        }
        unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
            charge(layout.size());
            unsafe { self.0.alloc_zeroed(layout) }
        }
        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            credit(layout.size());
            unsafe { self.0.dealloc(ptr, layout) }
        }
        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            charge(new_size);
            let new = unsafe { self.0.realloc(ptr, layout, new_size) };
            if new.is_null() {
                credit(new_size);
            } else {
                credit(layout.size());
            }
            new
        }
    }

    /// Why [`bounded`] gave no result.
    #[derive(Debug)]
    pub(crate) enum Stopped {
        /// The work went past its heap budget (and sleeps for good).
        Memory,
        /// No thread could be started.
        Spawn(std::io::Error),
    }

    /// Work sent to a helper thread, with the budget it runs under.
    type Job = (usize, Box<dyn FnOnce() + Send>);

    /// The thread that runs one calling thread's bounded work, kept from
    /// one call to the next: a thread started for each template cost about
    /// a millisecond (a 64 MiB stack mapped and unmapped), 1.3 s of a
    /// 1,500-host render.
    struct Helper {
        jobs: std::sync::mpsc::Sender<Job>,
        /// Raised by the helper when its work went past the budget: the
        /// helper then sleeps for good, and the caller starts another.
        over: Arc<AtomicBool>,
    }

    thread_local! {
        static HELPER: std::cell::RefCell<Option<Helper>> = const { std::cell::RefCell::new(None) };
    }

    fn helper() -> std::io::Result<Helper> {
        let over = Arc::new(AtomicBool::new(false));
        let theirs = over.clone();
        let (jobs, queue) = std::sync::mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("beryl-bounded".into())
            // As every thread of beryl (src/main.rs): address space only.
            .stack_size(64 * 1024 * 1024)
            .spawn(move || {
                // `theirs` lives as long as the thread, so the pointer does.
                OVER.set(Arc::as_ptr(&theirs));
                while let Ok((budget, work)) = queue.recv() {
                    LEFT.set(isize::try_from(budget).unwrap_or(isize::MAX));
                    work();
                    // Between jobs nothing is charged: the channel's own
                    // allocations must not count against the next budget.
                    LEFT.set(isize::MAX);
                }
                OVER.set(std::ptr::null());
            })?;
        Ok(Helper { jobs, over })
    }

    /// Runs `work` on this thread's helper, whose heap is bounded by
    /// `budget` bytes while it runs (when the binary's allocator is
    /// [`Budgeted`]; unbounded otherwise). A panic in `work` is resumed on
    /// the caller, as a bug.
    pub(crate) fn bounded<T: Send + 'static>(
        budget: usize,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, Stopped> {
        use std::sync::mpsc::RecvTimeoutError;
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        let job: Box<dyn FnOnce() + Send> = Box::new(move || {
            let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work));
            let _ = tx.send(out);
        });
        HELPER.with_borrow_mut(|slot| {
            let helper = match slot.take() {
                Some(h) => h,
                None => helper().map_err(Stopped::Spawn)?,
            };
            if helper.jobs.send((budget, job)).is_err() {
                unreachable!("a helper ends only when its caller drops it");
            }
            loop {
                match rx.recv_timeout(Duration::from_millis(5)) {
                    Ok(Ok(out)) => {
                        *slot = Some(helper);
                        return Ok(out);
                    }
                    Ok(Err(panic)) => {
                        *slot = Some(helper);
                        std::panic::resume_unwind(panic)
                    }
                    Err(RecvTimeoutError::Timeout) => {
                        if helper.over.load(Ordering::Acquire) {
                            // The helper sleeps for good; the next call
                            // starts another.
                            return Err(Stopped::Memory);
                        }
                    }
                    Err(RecvTimeoutError::Disconnected) => {
                        unreachable!("the job sends before it is dropped")
                    }
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_derived_budgets() {
        let l = Limits::default();
        assert_eq!(l.max_string_bytes(), 64 * 1024 * 1024);
        assert_eq!(l.max_aliases(), 12_500);
        let huge = Limits {
            max_file_size: u64::MAX,
            max_nodes: 0,
            ..l
        };
        assert_eq!(huge.max_string_bytes(), usize::MAX, "saturates");
        assert_eq!(huge.max_aliases(), 1);
    }

    #[test]
    fn every_limit_has_its_own_code_and_names_its_flag() {
        let codes: std::collections::HashSet<_> = Limit::ALL.iter().map(|l| l.as_str()).collect();
        assert_eq!(codes.len(), Limit::ALL.len());
        for &l in Limit::ALL {
            if let Some(flag) = l.flag() {
                assert!(l.help().contains(flag), "{l:?}");
            }
            assert!(l.help().contains("docs/limits.md"), "{l:?}");
        }
    }

    /// The unit tests run on the budgeted allocator (src/lib.rs), as the
    /// binary does: a thread that doubles a string 40 times stops at its
    /// budget instead of aborting the process.
    #[test]
    fn a_bounded_thread_stops_at_its_budget() {
        let doubling = || {
            let mut s = String::from("x");
            for _ in 0..40 {
                s = s.repeat(2);
            }
            s.len()
        };
        let stopped = heap::bounded(1 << 20, doubling);
        assert!(matches!(stopped, Err(heap::Stopped::Memory)), "{stopped:?}");
        assert_eq!(
            heap::bounded(1 << 20, || "ok".repeat(1000).len()).unwrap(),
            2000
        );
    }
}
