//! `beryl keys`: each user's SSH keys, with fingerprints and origins.

use std::io::Write;

use serde::Serialize;

use super::hosts::ListFormat;
use super::{Context, Failure, Outcome, write_out};
use crate::keys::{Key, Origin};
use crate::output;
use crate::schema::UserState;

/// List each user's SSH keys, with fingerprints and origins, for some hosts.
///
/// Each row is a user's final key: the SHA256 fingerprint as `ssh-keygen -l`
/// prints it, the comment, whether it is a domain key, and where it came from.
/// A user with `state: absent` is to be removed: no key of theirs is listed.
/// Unless one host is named, each text row starts with the host's FQDN;
/// every JSON row carries it.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    beryl keys host01\n  \
    beryl keys mail.example.org --format json\n  \
    beryl keys example.org/web/ 'edge*'\n  \
    beryl keys --all --format json")]
pub(crate) struct Args {
    /// Hosts: names, DOMAIN/, DOMAIN/GROUP/, quoted globs or class:NAME (docs/inventory.md §2).
    #[arg(value_name = "SELECTOR", required_unless_present = "all")]
    pub hosts: Vec<String>,

    /// The keys of every host of the inventory.
    #[arg(long, conflicts_with = "hosts")]
    pub all: bool,

    /// The output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: ListFormat,

    #[command(flatten)]
    pub opts: super::options::CompileArgs,
}

#[derive(Serialize)]
struct KeyRow {
    host: String,
    user: String,
    bits: u32,
    fingerprint: String,
    comment: String,
    #[serde(rename = "type")]
    kind: &'static str,
    /// `domain` or `user`.
    source: &'static str,
    /// The key file and line, when the key came from a file.
    file: Option<String>,
    /// Where the entry was written in the inventory.
    at: String,
}

pub(super) fn run(ctx: &Context, args: &Args, out: &mut dyn Write) -> Result<Outcome, Failure> {
    let inventory = ctx.inventory()?;
    let compiler = ctx.compiler(&inventory);
    let hosts = ctx.select(&compiler, &args.hosts, args.all)?;
    let results = ctx.compile_many(&compiler, &hosts, |host, compiled| {
        let absent: Vec<&str> = compiled
            .freebsd
            .users
            .iter()
            .filter(|u| u.state == UserState::Absent)
            .map(|u| u.name.value.as_str())
            .collect();
        let mut rows = Vec::new();
        for user in compiled
            .users
            .iter()
            .filter(|u| !absent.contains(&&*u.name))
        {
            for (i, key) in user.keys.iter().enumerate() {
                let source = if i < user.from_domain {
                    "domain"
                } else {
                    "user"
                };
                rows.push(row(&host.fqdn, &user.name, key, source));
            }
        }
        Ok(rows)
    });
    let rows: Vec<_> = crate::diag::collect(results)?
        .into_iter()
        .flatten()
        .collect();
    let text = match args.format {
        ListFormat::Json => {
            let mut s = serde_json::to_string_pretty(&rows).unwrap_or_default();
            s.push('\n');
            s
        }
        ListFormat::Text => text(&rows, !crate::select::names_one(&args.hosts)),
    };
    write_out(out, &text)?;
    Ok(Outcome::Ok)
}

fn row(host: &str, user: &str, key: &Key, source: &'static str) -> KeyRow {
    let (file, at) = match &key.origin {
        Origin::Inline { at } => (None, at.to_string()),
        Origin::File { path, line, at, .. } => (Some(format!("{path}:{line}")), at.to_string()),
    };
    KeyRow {
        host: host.to_string(),
        user: user.to_string(),
        bits: key.bits(),
        fingerprint: key.fingerprint(),
        comment: key.comment.clone(),
        kind: key.type_label(),
        source,
        file,
        at,
    }
}

/// The table; with `hosts`, each row starts with the host's FQDN.
fn text(rows: &[KeyRow], hosts: bool) -> String {
    let head = ["HOST", "USER", "KEY", "COMMENT", "SOURCE", "FROM"].map(String::from);
    let mut cells: Vec<[String; 6]> = vec![head];
    for r in rows {
        let comment = if r.comment.is_empty() {
            "no comment".to_string()
        } else {
            r.comment.clone()
        };
        let from = match &r.file {
            Some(f) => format!("{f} (named at {})", r.at),
            None => format!("inline at {}", r.at),
        };
        cells.push([
            r.host.clone(),
            r.user.clone(),
            format!("{} {} ({})", r.bits, r.fingerprint, r.kind),
            comment,
            r.source.to_string(),
            from,
        ]);
    }
    if hosts {
        let refs: Vec<[&str; 6]> = cells.iter().map(|c| c.each_ref().map(|s| &**s)).collect();
        output::table(&refs)
    } else {
        let refs: Vec<[&str; 5]> = cells
            .iter()
            .map(|c| [&*c[1], &*c[2], &*c[3], &*c[4], &*c[5]])
            .collect();
        output::table(&refs)
    }
}
