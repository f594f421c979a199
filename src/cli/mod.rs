//! The command line: global options, one file per subcommand, and the mapping
//! of outcomes to exit codes (0 ok, 1 differences found, 2 error).

mod ansible;
pub(crate) mod apply;
mod check;
mod completions;
mod context;
pub(crate) mod diff;
pub(crate) mod explain;
pub(crate) mod facts;
mod graph;
mod hosts;
pub(crate) mod init;
mod keys;
pub(crate) mod lookup;
mod lsp;
pub(crate) mod man;
mod merge;
pub(crate) mod options;
pub(crate) mod plan;
pub(crate) mod reclass;
pub(crate) mod render;
mod report;
mod schema;
pub(crate) mod secrets;

use std::ffi::OsString;
use std::io::Write;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

pub(crate) use context::Context;
use context::Warnings;
pub use report::Reporter;

use crate::diag::Diags;
use options::{Before, Uses};

crate::diag::codes! {
    /// The codes of the command line as a whole (each command's own are in
    /// its file).
    pub enum Code {
        /// The options given before the command do not parse for it (the parser's error).
        Usage = "beryl::usage";
    }
}

/// Compile a FreeBSD fleet inventory into each host's effective config.
///
/// The inventory is a tree of YAML files layered _default → domain → group →
/// host. beryl merges them with path-aware rules and injects the domain's SSH
/// keys into every user.
#[derive(Debug, Parser)]
#[command(name = "beryl", version = env!("BERYL_VERSION"), max_term_width = 100)]
#[command(
    after_help = "Examples:\n  beryl init fleet && cd fleet\n  beryl render host01\n  beryl check\n  beryl graph | dot -Tsvg -o graph.svg\n  beryl merge common.yaml node.yaml --strategy deep\n  beryl render host01 -i fleet/inventory --ssh-dir fleet/ssh\n\nEach command's --help lists the options it reads. The inventory, key and limit options may\nalso come before the command (beryl -i DIR render host01), where a command that does not read\none ignores it."
)]
pub(crate) struct Cli {
    /// When to colour diagnostics (NO_COLOR is honoured by `auto`).
    #[arg(long, global = true, value_name = "WHEN", default_value = "auto")]
    pub color: ColorChoice,

    /// The group options given before the command (hidden).
    #[command(flatten)]
    pub before: Before,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    Render(render::Args),
    Check(check::Args),
    Hosts(hosts::Args),
    Keys(keys::Args),
    Ansible(ansible::Args),
    Merge(merge::Args),
    Explain(explain::Args),
    Lookup(lookup::Args),
    Plan(plan::Args),
    Diff(diff::Args),
    Apply(apply::Args),
    Facts(facts::Args),
    Schema(schema::Args),
    Secrets(secrets::Args),
    Graph(graph::Args),
    Lsp(lsp::Args),
    Reclass(reclass::Args),
    Init(init::Args),
    Completions(completions::Args),
    Man(man::Args),
}

/// What a command concluded, short of an error.
pub(crate) enum Outcome {
    Ok,
    /// Differences were found (diff, apply --exit-code).
    Differences,
    /// Errors were found and already written as the command's output
    /// (`check --format json|github`): exit 2.
    Failed,
}

/// A command's failure: the diagnostics to print, already complete.
pub(crate) type Failure = Diags;

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
    let mut out = Stdout::default();
    let out = &mut out;
    // Each command's context holds the option groups it reads (options.rs),
    // and shares the warnings of the hosts it compiles with this function.
    let warnings = Warnings::default();
    let ctx = |uses: Uses<'_>| Context::new(uses, &cli.before).map(|c| c.sharing(&warnings));
    let none = Uses::default();
    let result = match &cli.command {
        Command::Render(a) => ctx(a.opts.uses()).and_then(|c| render::run(&c, a, out)),
        Command::Check(a) => ctx(a.opts.uses()).and_then(|c| check::run(&c, a, out)),
        Command::Hosts(a) => ctx(Uses {
            inventory: Some(&a.inventory),
            ..none
        })
        .and_then(|c| hosts::run(&c, a, out)),
        Command::Keys(a) => ctx(a.opts.uses()).and_then(|c| keys::run(&c, a, out)),
        Command::Ansible(a) => ctx(a.opts.uses()).and_then(|c| ansible::run(&c, a, out)),
        Command::Merge(a) => ctx(Uses {
            limits: Some(&a.limits),
            ..none
        })
        .and_then(|c| merge::run(&c, a, out)),
        Command::Explain(a) => ctx(a.opts.uses()).and_then(|c| explain::run(&c, a, out)),
        Command::Lookup(a) => ctx(a.opts.uses()).and_then(|c| lookup::run(&c, a, out)),
        Command::Plan(a) => ctx(a.opts.uses()).and_then(|c| plan::run(&c, a, out)),
        Command::Diff(a) => ctx(a.opts.uses()).and_then(|c| diff::run(&c, a, out)),
        Command::Apply(a) => ctx(a.opts.uses()).and_then(|c| apply::run(&c, a, out)),
        Command::Facts(a) => ctx(a.opts.uses()).and_then(|c| facts::run(&c, a, out)),
        Command::Schema(a) => ctx(none).and_then(|c| schema::run(&c, a, out)),
        Command::Secrets(a) => ctx(a.uses()).and_then(|c| secrets::run(&c, a, out)),
        Command::Lsp(a) => ctx(a.opts.uses()).and_then(|c| lsp::run(&c, a, out)),
        Command::Graph(a) => ctx(Uses {
            inventory: Some(&a.inventory),
            limits: Some(&a.limits),
            ..none
        })
        .and_then(|c| graph::run(&c, a, out)),
        Command::Reclass(a) => ctx(Uses {
            limits: Some(&a.limits),
            ..none
        })
        .and_then(|c| reclass::run(&c, a, out)),
        Command::Init(a) => ctx(none).and_then(|c| init::run(&c, a, out)),
        Command::Completions(a) => ctx(none).and_then(|c| completions::run(&c, a, out)),
        Command::Man(a) => ctx(none).and_then(|c| man::run(&c, a, out)),
    };
    let flushed = out.flush();
    // Warnings first, then the errors, with one count for both.
    let mut diags = warnings.take();
    match result {
        Ok(outcome) => {
            reporter.print(&diags);
            match outcome {
                Outcome::Ok => exit_after_write(flushed, 0),
                Outcome::Differences => exit_after_write(flushed, 1),
                Outcome::Failed => ExitCode::from(2),
            }
        }
        Err(errors) => {
            diags.extend(errors);
            reporter.print(&diags);
            ExitCode::from(2)
        }
    }
}

/// Standard output, locked at its first write: a command that never writes
/// through it (`lsp`, whose own thread writes the protocol) leaves it free.
#[derive(Default)]
struct Stdout(Option<std::io::StdoutLock<'static>>);

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0
            .get_or_insert_with(|| std::io::stdout().lock())
            .write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match &mut self.0 {
            Some(lock) => lock.flush(),
            None => Ok(()),
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
            crate::diag::Common::Io,
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

    /// Which option groups each subcommand's --help lists: a row per
    /// subcommand. `--color` is in every one: any command may print a
    /// diagnostic.
    const USES: &[(&str, &[&str])] = &[
        ("render", &[INVENTORY, KEYS, LIMITS]),
        ("check", &[INVENTORY, KEYS, LIMITS]),
        ("hosts", &[INVENTORY]),
        ("keys", &[INVENTORY, KEYS, LIMITS]),
        ("ansible", &[INVENTORY, KEYS, LIMITS]),
        ("merge", &[LIMITS]),
        ("explain", &[INVENTORY, KEYS, LIMITS]),
        ("lookup", &[INVENTORY, KEYS, LIMITS]),
        ("plan", &[INVENTORY, KEYS, LIMITS]),
        ("diff", &[INVENTORY, KEYS, LIMITS]),
        ("apply", &[INVENTORY, KEYS, LIMITS]),
        ("facts", &[INVENTORY, KEYS, LIMITS]),
        ("schema", &[]),
        ("secrets", &[]),
        ("graph", &[INVENTORY, LIMITS]),
        ("lsp", &[INVENTORY, KEYS, LIMITS]),
        ("reclass", &[LIMITS]),
        ("init", &[]),
        ("completions", &[]),
        ("man", &[]),
    ];
    const INVENTORY: &str = "inventory";
    const KEYS: &str = "keys";
    const LIMITS: &str = "limits";

    /// The groups whose options a help text lists. The limits must sit
    /// under their own heading, all six of them, and nowhere else.
    fn groups_in(name: &str, help: &str) -> Vec<&'static str> {
        let heading = format!("\n{}:\n", super::options::LIMITS);
        let (main, limits) = help.split_once(&heading).unwrap_or((help, ""));
        assert!(
            !main.contains("--max-"),
            "`{name}`: a limit outside its heading"
        );
        let limit_flags = [
            "--max-file-size",
            "--max-depth",
            "--max-nodes",
            "--max-list-items",
            "--max-ref-depth",
            "--max-class-depth",
        ];
        let listed = limit_flags.iter().filter(|f| limits.contains(*f)).count();
        assert!(
            listed == 0 || listed == limit_flags.len(),
            "`{name}`: {listed} limits of 6"
        );
        assert!(main.contains("--color <WHEN>"), "`{name}` has no --color");
        let mut groups = Vec::new();
        for (group, present) in [
            (INVENTORY, main.contains("-i, --inventory <DIR>")),
            (KEYS, main.contains("--ssh-dir <DIR>")),
            (LIMITS, listed > 0),
        ] {
            if present {
                groups.push(group);
            }
        }
        groups
    }

    /// Each subcommand's --help lists exactly the option groups it reads.
    #[test]
    fn each_subcommand_lists_only_the_options_it_uses() {
        let mut cli = Cli::command();
        cli.build();
        let names: Vec<String> = cli
            .get_subcommands()
            .map(|s| s.get_name().to_string())
            .filter(|n| n != "help")
            .collect();
        let table: Vec<&str> = USES.iter().map(|(n, _)| *n).collect();
        assert_eq!(names, table, "one row per subcommand");
        for (name, want) in USES {
            let help = cli
                .find_subcommand_mut(name)
                .map(|s| s.render_long_help().to_string())
                .unwrap_or_default();
            assert_eq!(groups_in(name, &help), *want, "`beryl {name} --help`");
        }
        // The top level lists none: they belong to the commands.
        let top = cli.render_long_help().to_string();
        assert_eq!(groups_in("beryl", &top), Vec::<&str>::new());
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
