use std::process::ExitCode;

/// A whole-fleet render allocates and frees millions of small strings and
/// maps on every thread; mimalloc's per-thread heaps do that in about half
/// the time of glibc's malloc (docs/performance.md §5).
#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The YAML parser and the merge recurse once per nesting level (both bounded
/// by the depth cap); a generous stack keeps that far from the limit.
const STACK_SIZE: usize = 64 * 1024 * 1024;

fn main() -> ExitCode {
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
