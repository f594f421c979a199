//! `beryl facts`: the script that snapshots a host's state.

use std::io::Write;

use super::{Context, Failure, Outcome, write_out};

/// Print the POSIX sh script that snapshots a FreeBSD host's state as JSON.
///
/// Run it as root on the host (it reads /etc/master.passwd) and save its
/// output; `beryl apply HOST --dry-run --state FILE` then compares the host's
/// desired state with it, offline. It is read-only and uses FreeBSD base
/// tools only. docs/apply.md documents the snapshot.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    beryl facts | ssh beryl@host01.example.org sudo -n sh -s > host01.json\n  \
    beryl apply host01 --dry-run --state host01.json")]
pub(crate) struct Args {}

pub(super) fn run(_ctx: &Context, _args: &Args, out: &mut dyn Write) -> Result<Outcome, Failure> {
    write_out(out, crate::apply::state::FACTS_SCRIPT)?;
    Ok(Outcome::Ok)
}
