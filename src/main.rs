use std::process::ExitCode;

/// A whole-fleet render allocates and frees millions of small strings and
/// maps on every thread; mimalloc's per-thread heaps do that in about half
/// the time of glibc's malloc (docs/performance.md §5).
/// Either way the allocator charges the threads that render user templates
/// to their heap budget (`beryl::limits::heap`, docs/limits.md).
#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: beryl::limits::heap::Budgeted<mimalloc::MiMalloc> =
    beryl::limits::heap::Budgeted(mimalloc::MiMalloc);
#[cfg(not(feature = "mimalloc"))]
#[global_allocator]
static GLOBAL: beryl::limits::heap::Budgeted<std::alloc::System> =
    beryl::limits::heap::Budgeted(std::alloc::System);

/// The YAML parser, the merge, the reference resolver and the serialisers
/// recurse once per nesting level (all bounded by the depth cap); a generous
/// stack keeps that far from the limit. A debug build needs about 3 MiB for
/// 64 levels. Both the main thread and the worker threads that compile hosts
/// in parallel get it: it is address space, touched only as deep as the
/// recursion goes.
const STACK_SIZE: usize = 64 * 1024 * 1024;

fn main() -> ExitCode {
    // Every command that compiles several hosts (`check`, `render`, `diff`,
    // `keys`, `plan`, `apply`) does so on rayon's global pool
    // (compile::compile_many); without this its workers would have the 2 MiB
    // default, which a 64-level document overflows in a debug build.
    let pool = rayon::ThreadPoolBuilder::new()
        .stack_size(STACK_SIZE)
        .thread_name(|i| format!("beryl-worker-{i}"))
        .build_global();
    if let Err(e) = pool {
        eprintln!("beryl: cannot start the worker threads: {e}");
        return ExitCode::from(2);
    }
    let work = std::thread::Builder::new()
        .name("beryl".into())
        .stack_size(STACK_SIZE)
        .spawn(|| beryl::cli::run(std::env::args_os()));
    match work.map(|handle| handle.join()) {
        Ok(Ok(code)) => code,
        // A panic has already printed its message; it is a bug.
        Ok(Err(_)) => ExitCode::from(101),
        Err(e) => {
            eprintln!("beryl: cannot start: {e}");
            ExitCode::from(2)
        }
    }
}
