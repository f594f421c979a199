//! `beryl check`: compile hosts and report every error and warning.

use std::io::Write;
use std::sync::Arc;

use super::context::Progress;
use super::{Context, Failure, Outcome, write_out};
use crate::compile::{self, Compiled, MergedDoc};
use crate::diag::Diags;
use crate::diag::set::Set;
use crate::inventory::Host;
use crate::output::diagnostics::{self, Scope};
use crate::secrets::Sealed;
use crate::value::Span;

/// Check hosts (every host by default) and report every error and warning.
///
/// Beyond compiling, each host with a `freebsd` section is checked for what
/// its install and apply need, by the same code `plan` and `apply` run: the
/// disks, raid, release and time zone of an install and the network its
/// packages need, a known release and its disk names, no base account
/// reused, shells and sudo provided, and a way in for apply (the `ssh:`
/// block's user, key and sudo rule). `render` refuses the same hosts.
/// Warnings point at what is likely a mistake but compiles (a knockout that
/// removes nothing, a merge rule or a class that no host uses, …): they are
/// reported, and the exit code stays 0 unless --deny-warnings.
///
/// Each diagnostic is reported once, sorted by file, line and column, with
/// the hosts it was found on; an error that follows from another is folded
/// into it. Prints `checked N hosts: ok`, or the counts of errors and
/// failed hosts (exit 2).
/// The text report goes to stderr; json and github write it to stdout.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    beryl check\n  \
    beryl check host01 mail.example.org\n  \
    beryl check example.org/web/ 'edge*' class:roles.web\n  \
    beryl check --deny-warnings\n  \
    beryl check --format github\n  \
    beryl check --format json > report.json")]
pub(crate) struct Args {
    /// Hosts to check (default: all): names, DOMAIN/, DOMAIN/GROUP/, quoted globs or class:NAME (docs/inventory.md §2).
    #[arg(value_name = "SELECTOR")]
    pub hosts: Vec<String>,

    #[command(flatten)]
    pub opts: super::options::CompileArgs,

    /// Treat warnings as errors: report them as errors and exit 2.
    #[arg(long, env = "BERYL_DENY_WARNINGS",
          value_parser = clap::builder::FalseyValueParser::new())]
    pub deny_warnings: bool,

    /// The report: text for people (on stderr), json, or github workflow
    /// commands that annotate a pull request's files (both on stdout).
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Format {
    Text,
    Json,
    Github,
}

pub(super) fn run(ctx: &Context, args: &Args, out: &mut dyn Write) -> Result<Outcome, Failure> {
    let inventory = ctx.inventory()?;
    let compiler = ctx.compiler(&inventory);
    let hosts = ctx.select(&compiler, &args.hosts, args.hosts.is_empty())?;
    let progress = Progress::new(hosts.len());
    let checked = compile::compile_many(&compiler, &hosts, |host, r| {
        let checked = check(host, r);
        progress.tick();
        checked
    });
    drop(progress);
    let mut found = Vec::new();
    let mut usage = crate::lint::Usage::default();
    let mut addresses = crate::lint::Addresses::default();
    let mut sides = Vec::new();
    let mut every_host_compiles = true;
    // The files each host read, for the recipients of secrets.
    let mut read: Vec<(&Host, Vec<String>)> = Vec::new();
    // The SOPS files the hosts read, each once, with the hosts that read it.
    let mut sealed: std::collections::BTreeMap<String, (Arc<Sealed>, Vec<String>)> =
        Default::default();
    for (host, checked) in hosts.iter().zip(checked) {
        for s in checked.sealed {
            let e = sealed
                .entry(s.rel.clone())
                .or_insert_with(|| (s, Vec::new()));
            e.1.push(host.fqdn.clone());
        }
        match checked.used {
            Some((levels, rules_used)) => {
                read.push((host, levels.iter().map(|l| l.file.clone()).collect()));
                usage.add(&host.fqdn, &levels, &rules_used);
            }
            None => every_host_compiles = false,
        }
        sides.extend(checked.side);
        found.extend(checked.diags.into_iter().map(|mut d| {
            d.found_on(&host.fqdn);
            d
        }));
    }
    // A host is checked with its jails (desired/jails.rs): those not
    // selected are compiled for it, and only their sides kept.
    let extra = jails::others(&inventory.hosts, &hosts);
    let more = compile::compile_many(&compiler, &extra, |host, r| {
        r.ok().map(|c| crate::lint::Side::of(&host.fqdn, &c))
    });
    for side in more.into_iter().flatten() {
        sides.push(side);
    }
    let mut unit = jails::units(&sides);
    for side in sides {
        if hosts.iter().any(|h| h.fqdn == side.fqdn) {
            addresses.add(side);
        }
    }
    unit.extend(addresses.duplicates());
    found.extend(unit.into_iter().map(|mut d| {
        let on: Vec<&str> = hosts
            .iter()
            .filter(|h| jails::names(&d.message, &h.fqdn))
            .map(|h| h.fqdn.as_str())
            .collect();
        for fqdn in on {
            d.found_on(fqdn);
        }
        d
    }));
    // Who may read each file's secrets (lint/recipients.rs).
    if !sealed.is_empty() {
        let mut readers = crate::lint::recipients::Readers::new(&compiler, &ctx.keys, ctx.limits);
        // Every host compiled: what each read is known.
        if every_host_compiles && hosts.len() == inventory.hosts.len() {
            readers = readers.knowing(read);
        }
        for (file, on) in sealed.values() {
            found.extend(readers.coverage(file).into_iter().map(|mut d| {
                for fqdn in on {
                    d.found_on(fqdn);
                }
                d
            }));
        }
    }
    let fleet = hosts.len() == inventory.hosts.len();
    // What no host uses can only be told once every host compiles.
    if every_host_compiles {
        found.extend(usage.warnings(&inventory, fleet, ctx.limits.max_file_size));
    }
    report(ctx, args, &hosts, fleet, found, out)
}

/// Checking hosts with their jails.
mod jails {
    use std::collections::BTreeMap;

    use crate::desired::jails::check_sides;
    use crate::diag::Diags;
    use crate::inventory::Host;
    use crate::lint::Side;

    /// The hosts of `all` that a unit of `selected` needs and that are not
    /// selected: a selected host's jails, a selected jail's host and
    /// siblings.
    pub(super) fn others<'a>(all: &'a [Host], selected: &[&Host]) -> Vec<&'a Host> {
        let units: std::collections::HashSet<&str> = selected
            .iter()
            .map(|h| h.parent.as_deref().unwrap_or(&h.fqdn))
            .collect();
        all.iter()
            .filter(|h| units.contains(h.parent.as_deref().unwrap_or(&h.fqdn)))
            .filter(|h| !selected.iter().any(|s| s.fqdn == h.fqdn))
            .collect()
    }

    /// Whether `message` names the host `fqdn` (as a word: not inside the
    /// name of one of its jails).
    pub(super) fn names(message: &str, fqdn: &str) -> bool {
        message.match_indices(fqdn).any(|(i, _)| {
            let before = message[..i].chars().next_back();
            let after = message[i + fqdn.len()..].chars().next();
            matches!(before, None | Some(' ')) && matches!(after, None | Some(' ' | ',' | ':'))
        })
    }

    /// The checks of each host that has jails, with them.
    pub(super) fn units(sides: &[Side]) -> Diags {
        let mut by_unit: BTreeMap<&str, (Option<&Side>, Vec<&Side>)> = BTreeMap::new();
        for s in sides {
            match &s.parent {
                Some(p) => by_unit.entry(p).or_default().1.push(s),
                None => by_unit.entry(&s.fqdn).or_default().0 = Some(s),
            }
        }
        let mut out = Vec::new();
        for (host, mut js) in by_unit.into_values().filter_map(|(h, js)| Some((h?, js))) {
            js.sort_by(|a, b| a.fqdn.cmp(&b.fqdn));
            // A unit's finding fails its host, and the jails it names.
            out.extend(check_sides(host, &js).into_iter().map(|mut d| {
                d.found_on(&host.fqdn);
                d
            }));
        }
        out
    }
}

/// What checking a host found, kept from its compile (on the worker thread).
struct Checked {
    /// Its errors and warnings.
    diags: Diags,
    /// When it compiles, its levels and the merge rules in force at some of
    /// its paths, for [`crate::lint::Usage`] (the levels' documents are
    /// shared with the compiler's caches).
    used: Option<(Vec<MergedDoc>, Vec<Span>)>,
    /// What the checks of a host with its jails need of it.
    side: Option<crate::lint::Side>,
    /// The SOPS files of its chain, whose recipients are checked once each.
    sealed: Vec<Arc<Sealed>>,
}

fn check(host: &Host, compiled: Result<Compiled, Diags>) -> Checked {
    match compiled {
        Ok(mut c) => {
            let mut diags = std::mem::take(&mut c.diags);
            if let Err(e) = crate::validate::host(&host.fqdn, &c) {
                diags.extend(e);
            }
            let side = Some(crate::lint::Side::of(&host.fqdn, &c));
            Checked {
                diags,
                used: Some((c.levels, c.rules_used)),
                side,
                sealed: c.secrets,
            }
        }
        Err(diags) => Checked {
            diags,
            used: None,
            side: None,
            sealed: Vec::new(),
        },
    }
}

fn report(
    ctx: &Context,
    args: &Args,
    hosts: &[&Host],
    fleet: bool,
    found: Diags,
    out: &mut dyn Write,
) -> Result<Outcome, Failure> {
    let mut set = Set::new(found);
    if args.deny_warnings {
        set.deny_warnings();
    }
    let names: Vec<String> = hosts.iter().map(|h| h.fqdn.clone()).collect();
    let own_file = |fqdn: &str| {
        let host = hosts.iter().find(|h| h.fqdn == fqdn)?;
        Some(host.file.display.clone())
    };
    let scope = Scope {
        hosts: &names,
        fleet,
        own_file: &own_file,
    };
    let text = match args.format {
        Format::Text => {
            let people = diagnostics::for_people(&set, &scope);
            let line = diagnostics::summary_line(&set, &scope);
            if set.failed() {
                // The counts on stdout, as on success, however few errors.
                write_out(out, &line)?;
                return Err(people);
            }
            ctx.warn(&people);
            line
        }
        Format::Json => diagnostics::json(&set, &scope)?,
        Format::Github => {
            let cwd = std::env::current_dir().unwrap_or_default();
            let workspace = std::env::var_os("GITHUB_WORKSPACE").map(std::path::PathBuf::from);
            let path = |shown: &str| diagnostics::workspace_path(shown, &cwd, workspace.as_deref());
            diagnostics::github(&set, &scope, &path)
        }
    };
    write_out(out, &text)?;
    Ok(if set.failed() {
        Outcome::Failed
    } else {
        Outcome::Ok
    })
}
