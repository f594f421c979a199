//! `beryl hosts`: list the hosts of the inventory.

use std::io::Write;

use serde::Serialize;

use super::{Context, Failure, Outcome, write_out};

/// List every host: FQDN, short name, domain, group and file.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  beryl hosts\n  beryl hosts --format json")]
pub(crate) struct Args {
    /// The output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: ListFormat,

    #[command(flatten)]
    pub inventory: super::options::InventoryArgs,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ListFormat {
    Text,
    Json,
}

#[derive(Serialize)]
struct Row<'a> {
    fqdn: &'a str,
    short: &'a str,
    domain: &'a str,
    group: Option<&'a str>,
    file: &'a str,
    /// A jail's host (issue 36); absent for a host.
    #[serde(skip_serializing_if = "Option::is_none")]
    parent: Option<&'a str>,
}

pub(super) fn run(ctx: &Context, args: &Args, out: &mut dyn Write) -> Result<Outcome, Failure> {
    let inventory = ctx.inventory()?;
    let rows: Vec<Row> = inventory
        .hosts
        .iter()
        .map(|h| Row {
            fqdn: &h.fqdn,
            short: &h.short,
            domain: &h.domain,
            group: h.group.as_deref(),
            file: &h.file.rel,
            parent: h.parent.as_deref(),
        })
        .collect();
    let text = match args.format {
        ListFormat::Json => {
            let mut s = serde_json::to_string_pretty(&rows).unwrap_or_default();
            s.push('\n');
            s
        }
        ListFormat::Text => {
            let head = ["FQDN", "SHORT", "DOMAIN", "GROUP", "FILE", "PARENT"];
            fn cells<'s>(r: &Row<'s>) -> [&'s str; 6] {
                let group = r.group.unwrap_or("-");
                [
                    r.fqdn,
                    r.short,
                    r.domain,
                    group,
                    r.file,
                    r.parent.unwrap_or("-"),
                ]
            }
            // The PARENT column appears once the inventory has a jail, so
            // an inventory without jails lists as it always has.
            if rows.iter().any(|r| r.parent.is_some()) {
                let table: Vec<[&str; 6]> = std::iter::once(head)
                    .chain(rows.iter().map(cells))
                    .collect();
                crate::output::table(&table)
            } else {
                fn five(c: [&str; 6]) -> [&str; 5] {
                    [c[0], c[1], c[2], c[3], c[4]]
                }
                let table: Vec<[&str; 5]> = std::iter::once(five(head))
                    .chain(rows.iter().map(|r| five(cells(r))))
                    .collect();
                crate::output::table(&table)
            }
        }
    };
    write_out(out, &text)?;
    Ok(Outcome::Ok)
}
