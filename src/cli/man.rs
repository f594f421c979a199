//! `beryl man`: the manual page, in roff.

use std::io::Write;

use clap::CommandFactory;

use super::{Cli, Context, Failure, Outcome, write_out};
use crate::diag::{Common, Diag};

crate::diag::codes! {
    /// The codes of the `man` command.
    pub(crate) enum Code in "man" {
        /// No command of that name.
        Unknown = "unknown";
    }
}

/// Print the manual page (roff) of beryl or of one of its commands.
///
/// `beryl man` is beryl(1), with the global options and the list of
/// commands; `beryl man render` is beryl-render(1). The pages are made from
/// the same text as --help.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    beryl man | man -l -\n  \
    beryl man > /usr/local/share/man/man1/beryl.1\n  \
    beryl man render > /usr/local/share/man/man1/beryl-render.1")]
pub(crate) struct Args {
    /// A command whose page to print (default: beryl's own page).
    #[arg(value_name = "COMMAND")]
    pub command: Option<String>,
}

pub(crate) fn run(_ctx: &Context, args: &Args, out: &mut dyn Write) -> Result<Outcome, Failure> {
    let mut cli = Cli::command().disable_help_subcommand(true);
    cli.build();
    let page = match &args.command {
        None => cli,
        Some(name) => match cli.find_subcommand(name) {
            Some(sub) => sub.clone(),
            None => {
                let names: Vec<&str> = cli.get_subcommands().map(|s| s.get_name()).collect();
                return Err(vec![
                    Diag::new(Code::Unknown, format!("no command `{name}`"))
                        .help(format!("the commands are: {}", names.join(", "))),
                ]);
            }
        },
    };
    let mut roff = Vec::new();
    clap_mangen::Man::new(page)
        .source(format!("beryl {}", env!("CARGO_PKG_VERSION")))
        .render(&mut roff)
        .map_err(|e| {
            vec![Diag::new(
                Common::Io,
                format!("cannot render the page: {e}"),
            )]
        })?;
    write_out(out, &String::from_utf8_lossy(&roff))?;
    Ok(Outcome::Ok)
}
