//! `beryl ansible`: the inventory as an Ansible dynamic-inventory script.

use std::io::Write;

use super::{Context, Failure, Outcome, write_out};
use crate::output::{self, Format, ansible};
use crate::value::Node;

/// Print the inventory as an Ansible dynamic-inventory script does.
///
/// `--list` prints every group (`all`, one per domain, per domain/group and
/// per class, named as docs/ansible.md says) and `_meta.hostvars`: each
/// host's effective config with `ansible_host`, `ansible_port`,
/// `ansible_user` and, from its `ssh:` block, `ansible_become` and
/// `ansible_ssh_private_key_file`. `--host HOST` prints one host's
/// variables. Ansible runs it through a two-line script (docs/ansible.md):
///
///   #!/bin/sh
///   exec beryl -i /path/to/inventory ansible "$@"
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    beryl ansible --list\n  \
    beryl ansible --host host01.example.org\n  \
    ansible-inventory -i ./beryl-inventory.sh --graph")]
#[group(id = "mode", required = true, multiple = false)]
pub(crate) struct Args {
    /// Every group and every host's variables, as JSON.
    #[arg(long, group = "mode")]
    pub list: bool,

    /// One host's variables, as JSON (its FQDN or short name).
    #[arg(long, value_name = "HOST", group = "mode")]
    pub host: Option<String>,

    #[command(flatten)]
    pub opts: super::options::CompileArgs,
}

pub(super) fn run(ctx: &Context, args: &Args, out: &mut dyn Write) -> Result<Outcome, Failure> {
    let inventory = ctx.inventory()?;
    let compiler = ctx.compiler(&inventory);
    let selectors: Vec<String> = args.host.iter().cloned().collect();
    let hosts = ctx.select(&compiler, &selectors, args.list)?;
    // Each host's classes and variables, computed on the worker that
    // compiled it.
    let results = ctx.compile_many(&compiler, &hosts, |host, compiled| {
        // A jail has no login of its own: Ansible reaches none over SSH
        // (its jail connection runs jexec on the controller itself), so a
        // jail's variables carry no connection (docs/ansible.md).
        let login = match host.is_jail() {
            true => None,
            false => Some(crate::desired::access::login(&compiled.config, &host.fqdn)?),
        };
        Ok((
            classes(&compiled.config),
            ansible::hostvars(&compiled.config, login.as_ref()),
        ))
    });
    let mut done = crate::diag::collect(results)?;
    let node = if args.list {
        let members: Vec<(ansible::Member<'_>, Node)> = hosts
            .iter()
            .zip(&done)
            .map(|(h, (classes, vars))| {
                let member = ansible::Member {
                    fqdn: &h.fqdn,
                    domain: &h.domain,
                    group: h.group.as_deref(),
                    classes,
                };
                (member, vars.clone())
            })
            .collect();
        ansible::list(&members)?
    } else {
        // `--host` names one host: select refuses anything else.
        done.pop()
            .map(|(_, vars)| vars)
            .unwrap_or_else(|| Node::synthetic(crate::value::Value::Null))
    };
    write_out(out, &output::to_string(&node, Format::Json)?)?;
    Ok(Outcome::Ok)
}

/// The classes of a compiled config (`_beryl_.classes`), in merge order.
fn classes(config: &Node) -> Vec<String> {
    config
        .get("_beryl_")
        .and_then(|b| b.get("classes"))
        .and_then(Node::as_seq)
        .map(|items| {
            items
                .iter()
                .filter_map(|n| n.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}
