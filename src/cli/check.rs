//! `beryl check`: compile hosts and report every error.

use std::io::Write;

use super::{Context, Failure, Outcome, write_out};

/// Check hosts (every host by default) and report every error found.
///
/// Beyond compiling, each host with a `freebsd` section is checked for what
/// its install and apply need, by the same code `plan` and `apply` run: the
/// disks, raid, release and time zone of an install and the network its
/// packages need, a known release and its disk names, no base account
/// reused, shells and sudo provided, and a way in for apply (the `ssh:`
/// block's user, key and sudo rule). `render` refuses the same hosts. Prints `checked N hosts: ok` on
/// success; otherwise prints each error once and exits 2.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    beryl check\n  \
    beryl check host01 mail.example.org\n  \
    beryl check example.org/web/ 'edge*' class:roles.web")]
pub struct Args {
    /// Hosts to check (default: all): names, DOMAIN/, DOMAIN/GROUP/, quoted globs or class:NAME (docs/inventory.md §2).
    #[arg(value_name = "SELECTOR")]
    pub hosts: Vec<String>,

    #[command(flatten)]
    pub opts: super::options::CompileArgs,
}

pub fn run(ctx: &Context, args: &Args, out: &mut dyn Write) -> Result<Outcome, Failure> {
    let inventory = ctx.inventory()?;
    let compiler = ctx.compiler(&inventory);
    let hosts = ctx.select(&compiler, &args.hosts, args.hosts.is_empty())?;
    let mut errors = Vec::new();
    for host in &hosts {
        let checked = compiler
            .compile(host)
            .and_then(|c| crate::validate::host(&host.fqdn, &c));
        if let Err(e) = checked {
            errors.extend(e);
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let noun = if hosts.len() == 1 { "host" } else { "hosts" };
    write_out(out, &format!("checked {} {noun}: ok\n", hosts.len()))?;
    Ok(Outcome::Ok)
}
