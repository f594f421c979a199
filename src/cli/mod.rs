//! The command line: global options, one file per subcommand, and the mapping
//! of outcomes to exit codes (0 ok, 1 differences found, 2 error).

mod apply;
mod check;
mod completions;
mod context;
mod diff;
mod explain;
mod facts;
mod graph;
mod hosts;
mod init;
mod keys;
mod man;
mod merge;
mod plan;
mod render;
mod report;
mod schema;

use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

pub use context::Context;
pub use report::Reporter;

use crate::diag::Diags;
use crate::limits;

/// Compile a FreeBSD fleet inventory into each host's effective config.
///
/// The inventory is a tree of YAML files layered _default → domain → group →
/// host. beryl merges them with path-aware rules and injects the domain's SSH
/// keys into every user.
#[derive(Debug, Parser)]
#[command(name = "beryl", version = env!("BERYL_VERSION"), max_term_width = 100)]
#[command(
    after_help = "Examples:\n  beryl init fleet && cd fleet\n  beryl render host01\n  beryl check\n  beryl graph | dot -Tsvg -o graph.svg\n  beryl merge common.yaml node.yaml --strategy deep\n  beryl -i fleet/inventory --ssh-dir fleet/ssh hosts"
)]
pub struct Cli {
    /// The inventory root directory.
    #[arg(
        short,
        long,
        global = true,
        value_name = "DIR",
        env = "BERYL_INVENTORY",
        default_value = "inventory"
    )]
    pub inventory: PathBuf,

    /// The directory of SSH public key files named by key references.
    #[arg(
        long,
        global = true,
        value_name = "DIR",
        env = "BERYL_SSH_DIR",
        default_value = "ssh"
    )]
    pub ssh_dir: PathBuf,

    /// When to colour diagnostics (NO_COLOR is honoured by `auto`).
    #[arg(long, global = true, value_name = "WHEN", default_value = "auto")]
    pub color: ColorChoice,

    /// The largest file beryl reads (YAML, SSH key, template), in bytes.
    #[arg(long, global = true, value_name = "BYTES", env = "BERYL_MAX_FILE_SIZE",
          default_value_t = limits::DEFAULT_MAX_FILE_SIZE, help_heading = LIMITS)]
    pub max_file_size: u64,

    /// The deepest nesting of mappings and lists, in a file or a host's config.
    #[arg(long, global = true, value_name = "LEVELS", env = "BERYL_MAX_DEPTH",
          default_value_t = limits::DEFAULT_MAX_DEPTH,
          value_parser = at_least_one_up_to(limits::MAX_DEPTH_CEILING), help_heading = LIMITS)]
    pub max_depth: usize,

    /// The most values in one file (aliases expanded), and that references may copy into one host.
    #[arg(long, global = true, value_name = "N", env = "BERYL_MAX_NODES",
          default_value_t = limits::DEFAULT_MAX_NODES,
          value_parser = at_least_one_up_to(usize::MAX / 8), help_heading = LIMITS)]
    pub max_nodes: usize,

    /// The most items in one list of a file.
    #[arg(long, global = true, value_name = "N", env = "BERYL_MAX_LIST_ITEMS",
          default_value_t = limits::DEFAULT_MAX_LIST_ITEMS,
          value_parser = at_least_one_up_to(usize::MAX / 8), help_heading = LIMITS)]
    pub max_list_items: usize,

    /// The longest chain of references resolved inside one another.
    #[arg(long, global = true, value_name = "N", env = "BERYL_MAX_REF_DEPTH",
          default_value_t = limits::DEFAULT_MAX_REF_DEPTH,
          value_parser = at_least_one_up_to(limits::MAX_DEPTH_CEILING), help_heading = LIMITS)]
    pub max_ref_depth: usize,

    /// The longest chain of classes including one another.
    #[arg(long, global = true, value_name = "N", env = "BERYL_MAX_CLASS_DEPTH",
          default_value_t = limits::DEFAULT_MAX_CLASS_DEPTH,
          value_parser = at_least_one_up_to(limits::MAX_DEPTH_CEILING), help_heading = LIMITS)]
    pub max_class_depth: usize,

    #[command(subcommand)]
    pub command: Command,
}

/// The help heading of the limit options.
const LIMITS: &str = "Limits (docs/limits.md)";

/// A parser for a limit: a whole number from 1 to `max`.
fn at_least_one_up_to(max: usize) -> impl Fn(&str) -> Result<usize, String> + Clone {
    move |s: &str| match s.parse::<usize>() {
        Ok(n) if (1..=max).contains(&n) => Ok(n),
        Ok(_) => Err(format!("must be between 1 and {max}")),
        Err(e) => Err(e.to_string()),
    }
}

impl Cli {
    /// The limits of this run.
    pub fn limits(&self) -> limits::Limits {
        limits::Limits {
            max_file_size: self.max_file_size,
            max_depth: self.max_depth,
            max_nodes: self.max_nodes,
            max_list_items: self.max_list_items,
            max_ref_depth: self.max_ref_depth,
            max_class_depth: self.max_class_depth,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    Render(render::Args),
    Check(check::Args),
    Hosts(hosts::Args),
    Keys(keys::Args),
    Merge(merge::Args),
    Explain(explain::Args),
    Plan(plan::Args),
    Diff(diff::Args),
    Apply(apply::Args),
    Facts(facts::Args),
    Schema(schema::Args),
    Graph(graph::Args),
    Init(init::Args),
    Completions(completions::Args),
    Man(man::Args),
}

/// What a command concluded, short of an error.
pub enum Outcome {
    Ok,
    /// Differences were found (diff, apply --exit-code).
    Differences,
}

/// A command's failure: the diagnostics to print, already complete.
pub type Failure = Diags;

/// Parses the arguments, runs the command and returns the exit code.
pub fn run(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    let reporter = Reporter::new(cli.color);
    let ctx = Context::new(&cli);
    let mut out = std::io::stdout().lock();
    let result = match &cli.command {
        Command::Render(a) => render::run(&ctx, a, &mut out),
        Command::Check(a) => check::run(&ctx, a, &mut out),
        Command::Hosts(a) => hosts::run(&ctx, a, &mut out),
        Command::Keys(a) => keys::run(&ctx, a, &mut out),
        Command::Merge(a) => merge::run(&ctx, a, &mut out),
        Command::Explain(a) => explain::run(&ctx, a, &mut out),
        Command::Plan(a) => plan::run(&ctx, a, &mut out),
        Command::Diff(a) => diff::run(&ctx, a, &mut out),
        Command::Apply(a) => apply::run(&ctx, a, &mut out),
        Command::Facts(a) => facts::run(&ctx, a, &mut out),
        Command::Schema(a) => schema::run(&ctx, a, &mut out),
        Command::Graph(a) => graph::run(&ctx, a, &mut out),
        Command::Init(a) => init::run(&ctx, a, &mut out),
        Command::Completions(a) => completions::run(&ctx, a, &mut out),
        Command::Man(a) => man::run(&ctx, a, &mut out),
    };
    let flushed = out.flush();
    match result {
        Ok(Outcome::Ok) => exit_after_write(flushed, 0),
        Ok(Outcome::Differences) => exit_after_write(flushed, 1),
        Err(diags) => {
            reporter.print(&diags);
            ExitCode::from(2)
        }
    }
}

/// A closed pipe (`beryl render --all | head`) is not an error.
fn exit_after_write(flushed: std::io::Result<()>, code: u8) -> ExitCode {
    match flushed {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            eprintln!("beryl: cannot write the output: {e}");
            ExitCode::from(2)
        }
        _ => ExitCode::from(code),
    }
}

/// Writes command output, mapping a write failure to a diagnostic.
pub(crate) fn write_out(out: &mut dyn Write, text: &str) -> Result<(), Failure> {
    match out.write_all(text.as_bytes()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(vec![crate::diag::Diag::new(
            "beryl::io",
            format!("cannot write the output: {e}"),
        )]),
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::Cli;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    /// Every subcommand's --help starts with a one-line summary and ends
    /// with examples of that very subcommand.
    #[test]
    fn every_subcommand_has_a_summary_and_examples() {
        let cli = Cli::command();
        let mut count = 0;
        for sub in cli.get_subcommands() {
            let name = sub.get_name();
            let about = sub.get_about().map(|a| a.to_string()).unwrap_or_default();
            assert!(!about.trim().is_empty(), "`{name}` has no summary");
            assert!(!about.contains('\n'), "`{name}`: the summary is one line");
            let after = sub
                .get_after_help()
                .map(|a| a.to_string())
                .unwrap_or_default();
            assert!(
                after.starts_with("Examples:\n"),
                "`{name}` has no `Examples:` after its help"
            );
            assert!(
                after
                    .lines()
                    .skip(1)
                    .take_while(|l| l.starts_with("  "))
                    .any(|l| l.contains(&format!("beryl {name}"))),
                "`{name}`: no example runs `beryl {name}`:\n{after}"
            );
            count += 1;
        }
        assert!(count >= 10, "{count} subcommands");
    }
}
