//! `beryl keys`: each user's SSH keys, with fingerprints and origins.

use std::io::Write;

use serde::Serialize;

use super::hosts::ListFormat;
use super::{Context, Failure, Outcome, write_out};
use crate::keys::{Key, Origin};
use crate::output;

/// List each user's SSH keys for a host, with fingerprints and origins.
///
/// Each row is a user's final key: the SHA256 fingerprint as `ssh-keygen -l`
/// prints it, the comment, whether it is a domain key, and where it came from.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  beryl keys host01\n  beryl keys mail.example.org --format json"
)]
pub struct Args {
    /// The host: SHORT, FQDN, DOMAIN/SHORT or DOMAIN/GROUP/SHORT.
    #[arg(value_name = "HOST")]
    pub host: String,

    /// The output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: ListFormat,
}

#[derive(Serialize)]
struct KeyRow {
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

pub fn run(ctx: &Context, args: &Args, out: &mut dyn Write) -> Result<Outcome, Failure> {
    let inventory = ctx.inventory()?;
    let host = inventory.select(&args.host).map_err(|d| vec![d])?;
    let compiled = ctx.compiler(&inventory).compile(host)?;
    let mut rows = Vec::new();
    for user in &compiled.users {
        for (i, key) in user.keys.iter().enumerate() {
            let source = if i < user.from_domain {
                "domain"
            } else {
                "user"
            };
            rows.push(row(&user.name, key, source));
        }
    }
    let text = match args.format {
        ListFormat::Json => {
            let mut s = serde_json::to_string_pretty(&rows).unwrap_or_default();
            s.push('\n');
            s
        }
        ListFormat::Text => text(&rows),
    };
    write_out(out, &text)?;
    Ok(Outcome::Ok)
}

fn row(user: &str, key: &Key, source: &'static str) -> KeyRow {
    let (file, at) = match &key.origin {
        Origin::Inline { at } => (None, at.to_string()),
        Origin::File { path, line, at, .. } => (Some(format!("{path}:{line}")), at.to_string()),
    };
    KeyRow {
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

fn text(rows: &[KeyRow]) -> String {
    let mut cells: Vec<[String; 5]> =
        vec![["USER", "KEY", "COMMENT", "SOURCE", "FROM"].map(String::from)];
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
            r.user.clone(),
            format!("{} {} ({})", r.bits, r.fingerprint, r.kind),
            comment,
            r.source.to_string(),
            from,
        ]);
    }
    let refs: Vec<[&str; 5]> = cells
        .iter()
        .map(|c| [&*c[0], &*c[1], &*c[2], &*c[3], &*c[4]])
        .collect();
    output::table(&refs)
}
