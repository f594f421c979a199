//! `beryl render`: print the effective config of hosts.

use std::io::Write;

use super::{Context, Failure, Outcome, write_out};
use crate::output::{self, Format};

/// Print the effective config of one or more hosts.
///
/// With one host, prints its config. With several hosts or --all, prints a
/// mapping from FQDN to config, sorted by FQDN. Nothing is printed unless every
/// host compiles.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  beryl render host01\n  beryl render example.org/web/host01 --format json\n  beryl render --all"
)]
pub struct Args {
    /// Hosts: SHORT, FQDN, DOMAIN/SHORT or DOMAIN/GROUP/SHORT.
    #[arg(value_name = "HOST", required_unless_present = "all")]
    pub hosts: Vec<String>,

    /// Render every host of the inventory.
    #[arg(long, conflicts_with = "hosts")]
    pub all: bool,

    /// The output format.
    #[arg(long, value_enum, default_value = "yaml")]
    pub format: Format,
}

pub fn run(ctx: &Context, args: &Args, out: &mut dyn Write) -> Result<Outcome, Failure> {
    let inventory = ctx.inventory()?;
    let hosts = ctx.select(&inventory, &args.hosts, args.all)?;
    let compiler = ctx.compiler(&inventory);
    let mut configs = Vec::with_capacity(hosts.len());
    let mut errors = Vec::new();
    for host in &hosts {
        match compiler.compile(host) {
            Ok(c) => configs.push((host.fqdn.clone(), c.config)),
            Err(e) => errors.extend(e),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let node = if configs.len() == 1 && !args.all {
        configs
            .pop()
            .map(|(_, c)| c)
            .unwrap_or_else(|| output::mapping([]))
    } else {
        configs.sort_by(|a, b| a.0.cmp(&b.0));
        output::mapping(configs)
    };
    let text = output::to_string(&node, args.format).map_err(|d| vec![d])?;
    write_out(out, &text)?;
    Ok(Outcome::Ok)
}
