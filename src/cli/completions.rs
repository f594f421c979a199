//! `beryl completions`: shell completion scripts, for packagers and users.

use std::io::Write;

use clap::CommandFactory;

use super::{Cli, Context, Failure, Outcome, write_out};

/// Print the completion script of a shell.
///
/// The script completes the subcommands, the options and their fixed values
/// (formats, levels, strategies). Load it from the shell's startup file, or
/// install it where the shell looks for completions.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    source <(beryl completions bash)                          # this bash session\n  \
    beryl completions bash > /usr/local/share/bash-completion/completions/beryl\n  \
    beryl completions zsh > \"${fpath[1]}/_beryl\"\n  \
    beryl completions fish > ~/.config/fish/completions/beryl.fish")]
pub(crate) struct Args {
    /// The shell.
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: clap_complete::Shell,
}

pub(super) fn run(_ctx: &Context, args: &Args, out: &mut dyn Write) -> Result<Outcome, Failure> {
    // Rendered in memory: the generator panics on a write error, and a closed
    // pipe is not an error here.
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "beryl", &mut script);
    write_out(out, &String::from_utf8_lossy(&script))?;
    Ok(Outcome::Ok)
}
