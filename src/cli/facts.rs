//! `beryl facts`: the script that snapshots a host's state.

use std::io::Write;

use super::{Context, Failure, Outcome, write_out};
use crate::apply::{self, state};
use crate::desired;

/// Print the POSIX sh script that snapshots a FreeBSD host's state as JSON.
///
/// Run it as root on the host (it reads /etc/master.passwd) and save its
/// output; `beryl apply HOST --dry-run --state FILE` then compares the host's
/// desired state with it, offline. It is read-only and uses FreeBSD base
/// tools only. With a HOST, the script also looks at what that host's config
/// manages (its files, …); without one, at the files beryl always manages
/// and at what beryl's record on the host holds. docs/apply.md documents the
/// snapshot.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    beryl facts host01 | ssh beryl@host01.example.org sudo -n sh -s > host01.json\n  \
    beryl apply host01 --dry-run --state host01.json")]
pub(crate) struct Args {
    /// The host whose script to print (one host: a name or FQDN).
    #[arg(value_name = "HOST")]
    pub host: Option<String>,

    #[command(flatten)]
    pub opts: super::options::CompileArgs,
}

pub(super) fn run(ctx: &Context, args: &Args, out: &mut dyn Write) -> Result<Outcome, Failure> {
    let queries = match &args.host {
        None => Default::default(),
        Some(name) => {
            let inventory = ctx.inventory()?;
            let compiler = ctx.compiler(&inventory);
            let host = ctx.select_one(&compiler, name, "facts")?;
            let mut results = ctx.compile_many(&compiler, &[host], |host, c| {
                let h = desired::build(&host.fqdn, &c)?;
                apply::steps(&h).map_err(|e| vec![apply::quote_error(&host.fqdn, e)])
            });
            let steps = results.pop().expect("one host")?;
            apply::queries(&steps)
        }
    };
    let script = state::facts_script(&queries).map_err(|e| vec![apply::quote_error("facts", e)])?;
    write_out(out, &script)?;
    Ok(Outcome::Ok)
}
