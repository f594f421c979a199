//! `beryl lsp`: the language server, over stdio.

use std::io::Write;

use super::{Context, Failure, Outcome};
use crate::diag::{Common, Diag};

/// Serve the Language Server Protocol on standard input and output.
///
/// For editors, beside yaml-language-server (which keeps the JSON Schema's
/// completion, `beryl schema`). Hover in a host's or a jail's own file
/// shows `beryl explain` for the key or value under the cursor on that
/// host; in a file many hosts read, what the line does on each of them,
/// and on a preview host chosen with the command `beryl.preview`. Go to
/// definition leads from a class name, a key name, a template, a file's
/// source or a `${path}` reference to where it is written; references list
/// every file that writes the key under the cursor; `beryl check`'s
/// diagnostics for the hosts that read a file are published as it is
/// typed: an unsaved buffer's text stands in for its file. Inlay hints of
/// the effective value with `initializationOptions` `{"inlayHints":
/// true}`. Paths are relative to the client's root folder. docs/editors.md
/// sets it up in Neovim, Helix and VS Code.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    beryl lsp\n  \
    beryl lsp -i inventory --ssh-dir ssh")]
pub(crate) struct Args {
    #[command(flatten)]
    pub opts: super::options::CompileArgs,
}

pub(super) fn run(ctx: &Context, _args: &Args, _out: &mut dyn Write) -> Result<Outcome, Failure> {
    let setup = crate::lsp::Setup {
        inventory: ctx.inventory_dir.clone(),
        ssh_dir: ctx.ssh_dir.clone(),
        inventory_display: ctx.inventory_dir.display().to_string(),
        keys: crate::keys::KeyStore::new(
            &ctx.ssh_dir,
            &ctx.ssh_dir.display().to_string(),
            ctx.limits.max_file_size,
        ),
        limits: ctx.limits,
    };
    let (conn, io) = lsp_server::Connection::stdio();
    let served = crate::lsp::serve(&conn, &setup);
    // The reader ends with the client's `exit`, or on input that is not the
    // protocol: its error is the one to report.
    drop(conn);
    let read = io.join();
    match (served, read) {
        (Ok(()), _) => Ok(Outcome::Ok),
        (_, Err(e)) => Err(vec![Diag::new(
            Common::Io,
            format!("the client's input: {e}"),
        )]),
        (Err(e), Ok(())) => Err(vec![Diag::new(Common::Io, format!("the protocol: {e}"))]),
    }
}
