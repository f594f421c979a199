//! A real run: the confirmation, the scripts over SSH (`--parallel` at a
//! time), each line prefixed with its host when there are several, then the
//! recap table, or with `--format json|jsonl` the JSON Lines events.

use std::io::{BufRead, IsTerminal, Write};

use super::{Args, Code, Connection, Format, Planned};
use crate::apply::recap::{self, Demux, Event, HostRecap, Status};
use crate::apply::ssh;
use crate::cli::{Failure, Outcome, write_out};
use crate::desired::Login;
use crate::diag::Diag;

/// A connection to run: its host's script, or why it is refused without
/// running, and the jails it reports on.
pub(super) struct Job<'a> {
    pub fqdn: &'a str,
    pub login: &'a Login,
    pub script: Option<String>,
    /// A host refused before anything runs, and why (a stale saved plan, a
    /// host whose facts could not be taken again).
    pub refused: Option<(Status, String)>,
    /// Whether the host's own result is reported (it was selected).
    pub own: bool,
    /// Its jails, in run order, each with why it is refused without running
    /// (its script is then not in the host's).
    pub jails: Vec<(&'a str, Option<(Status, String)>)>,
    /// The plaintexts of the secrets its script holds, and their tokens:
    /// each line the connection prints is cleaned of them.
    pub redact: Vec<(String, String)>,
}

impl<'a> Job<'a> {
    /// The job of a connection; `refused_jails`: the jails left out of its
    /// script, and why.
    pub(super) fn of(
        c: &'a Connection<'a>,
        script: Option<String>,
        refused: Option<(Status, String)>,
        refused_jails: Vec<(&'a str, (Status, String))>,
    ) -> Job<'a> {
        let jails = c
            .jails
            .iter()
            .map(|j| {
                let fqdn = j.host.fqdn.as_str();
                let why = refused_jails
                    .iter()
                    .find(|(f, _)| *f == fqdn)
                    .map(|(_, w)| w.clone());
                (fqdn, why)
            })
            .collect();
        Job {
            fqdn: &c.host.host.fqdn,
            login: &c.host.login,
            script,
            refused,
            own: c.host.own,
            jails,
            redact: Vec::new(),
        }
    }

    /// The job, its output cleaned of these plaintexts.
    pub(super) fn cleaned_of(mut self, pairs: Vec<(String, String)>) -> Job<'a> {
        self.redact = pairs;
        self
    }

    /// How many units the job reports.
    fn units(&self) -> usize {
        usize::from(self.own) + self.jails.len()
    }
}

/// A real run asks first; without a terminal to ask on, it needs `--yes`
/// or a saved plan.
pub(super) fn may_run(args: &Args) -> Result<(), Failure> {
    if args.yes || args.plan.is_some() || std::io::stdin().is_terminal() {
        return Ok(());
    }
    Err(vec![
        Diag::new(
            Code::Confirm,
            "a real apply asks for `yes` on a terminal, and there is none",
        )
        .help(
            "look first (beryl apply SELECTION --dry-run), then run it with --yes; \
             or save a plan (--dry-run --state-dir DIR --out PLAN.json) and apply it with --plan PLAN.json",
        ),
    ])
}

/// On a terminal without `--yes`: shows what will run and asks for `yes`
/// on stderr.
pub(super) fn confirm(
    args: &Args,
    plans: &[&Planned<'_>],
    jobs: &[Job<'_>],
) -> Result<(), Failure> {
    if args.yes || args.plan.is_some() {
        return Ok(());
    }
    let mut text = String::new();
    for p in plans {
        text.push_str(&format!("apply {}\n", p.host.fqdn));
        for s in &p.steps {
            text.push_str(&format!("? {}\n", s.id));
        }
    }
    let running = jobs.iter().filter(|j| j.script.is_some()).count();
    text.push_str(&format!(
        "Each step is checked first and changed only if it differs.\n\
         Apply to {running} host{}? Only `yes` is accepted: ",
        if running == 1 { "" } else { "s" }
    ));
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(text.as_bytes());
    let _ = err.flush();
    let mut answer = String::new();
    let _ = std::io::stdin().lock().read_line(&mut answer);
    if accepted(&answer) {
        return Ok(());
    }
    Err(vec![Diag::new(
        Code::Confirm,
        format!(
            "not applied: the answer was {:?}, not `yes`",
            answer.trim_end()
        ),
    )])
}

fn accepted(answer: &str) -> bool {
    answer.trim_end_matches(['\n', '\r']) == "yes"
}

/// What one connection's run left: its units' recaps and its output, held
/// back while hosts ran concurrently.
type Done = (Vec<HostRecap>, Vec<String>);

/// Runs the jobs, prints the recap or the events, and maps the results to
/// the exit status.
pub(super) fn run(args: &Args, jobs: &[Job<'_>], out: &mut dyn Write) -> Result<Outcome, Failure> {
    let json = args.format != Format::Text;
    // `json` is one document, written once the run is done; `jsonl` and
    // text stream their lines.
    let document = args.format == Format::Json;
    let mut events: Vec<String> = Vec::new();
    let prefix = jobs.iter().map(Job::units).sum::<usize>() > 1;
    let mut recaps = Vec::with_capacity(jobs.len());
    if args.parallel <= 1 {
        for j in jobs {
            // One host after another: lines are streamed as they arrive.
            let (r, _) = one(args, j, json, prefix, &mut |line| {
                if document {
                    events.push(line.to_string());
                    return;
                }
                let _ = write_out(out, &shown(line));
                let _ = out.flush();
            });
            recaps.extend(r);
        }
    } else {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(args.parallel)
            .build()
            .map_err(|e| vec![Diag::new(Code::Parallel, e.to_string())])?;
        use rayon::prelude::*;
        let done: Vec<Done> = pool.install(|| {
            jobs.par_iter()
                .map(|j| {
                    let mut lines = Vec::new();
                    let (r, _) = one(args, j, json, prefix, &mut |l| lines.push(l.to_string()));
                    (r, lines)
                })
                .collect()
        });
        for (r, lines) in done {
            for l in lines {
                match document {
                    true => events.push(l),
                    false => write_out(out, &shown(&l))?,
                }
            }
            recaps.extend(r);
        }
    }
    let totals = recap::totals(&recaps);
    if document {
        events.push(Event::Recap(totals).line());
        write_out(out, &recap::document(&events))?;
    } else if json {
        write_out(out, &Event::Recap(totals).line())?;
    } else {
        write_out(
            out,
            &crate::value::repr::visible(&recap::table(&recaps), &['\t', '\n']),
        )?;
    }
    finish(args, &recaps)
}

/// One connection: its units' lines (or events) through `emit`, then
/// their recaps (the host's when it was selected, then its jails').
fn one(args: &Args, j: &Job<'_>, json: bool, prefix: bool, emit: &mut dyn FnMut(&str)) -> Done {
    let running: Vec<&str> = j
        .jails
        .iter()
        .filter(|(_, refused)| refused.is_none())
        .map(|(f, _)| *f)
        .collect();
    let mut d = Demux::new(j.fqdn, &running);
    let result = match (&j.refused, &j.script) {
        (Some((status, why)), _) => Some(Err((*status, why.clone()))),
        (None, Some(text)) => Some(
            ssh::run(
                j.login,
                &args.ssh_option,
                &args.remote_env,
                text,
                &mut |line| {
                    let cleaned;
                    let line = match j.redact.is_empty() {
                        true => line,
                        false => {
                            cleaned = crate::apply::reveal::redact(line, &j.redact);
                            cleaned.as_str()
                        }
                    };
                    let (unit, text, event) = d.read(line);
                    let event = event.map(|e| Event::Step(e).line());
                    let name = match unit {
                        0 => j.fqdn,
                        i => running[i - 1],
                    };
                    match (json, event) {
                        (true, Some(e)) => emit(&e),
                        (true, None) => {}
                        (false, _) if prefix => emit(&format!("{name}: {text}\n")),
                        (false, _) => emit(&format!("{text}\n")),
                    }
                },
            )
            .map_err(|d| {
                let status = if d.code == crate::apply::Code::Ssh.as_str() {
                    Status::Unreachable
                } else {
                    Status::Failed
                };
                (status, d.message)
            }),
        ),
        (None, None) => None,
    };
    if let Some(result) = result {
        d.finish(result);
    }
    let mut ran = d.units.into_iter();
    let host = ran.next();
    let mut recaps: Vec<HostRecap> = Vec::with_capacity(j.units());
    if j.own {
        recaps.extend(host.clone());
    }
    let parent = host.as_ref().map(|h| h.host.clone());
    for (fqdn, refused) in &j.jails {
        let r = match refused {
            None => ran.next(),
            Some((status, why)) => {
                let mut r = HostRecap::new(fqdn);
                r.status = *status;
                r.message = Some(why.clone());
                Some(r)
            }
        };
        // (A host refused or unreachable: so is every jail it runs, by
        // Demux::finish.)
        if let Some(mut r) = r {
            r.parent.clone_from(&parent);
            recaps.push(r);
        }
    }
    for r in &recaps {
        if json {
            emit(&Event::Host(r).line());
        } else if prefix && r.status == Status::Ok {
            emit(&format!("{}: done, {} changed\n", r.host, r.changed));
        }
    }
    (recaps, Vec::new())
}

/// Exit 2 naming the hosts that failed, were stale or unreachable; else 1
/// with `--exit-code` when something changed.
fn finish(args: &Args, recaps: &[HostRecap]) -> Result<Outcome, Failure> {
    let mut errors = Vec::new();
    for r in recaps {
        let (code, what) = match r.status {
            Status::Ok => continue,
            Status::Failed => (Code::Failed, "failed"),
            Status::Stale => (Code::Stale, "is stale, left as it was"),
            Status::Unreachable => (Code::Unreachable, "is unreachable"),
            Status::Absent => (Code::Absent, "is not running"),
        };
        // A unit's message may be its own words (a jail's `stale:` reason):
        // shown, never obeyed (Demux keeps it so; this holds it so here).
        let why = crate::value::repr::visible(r.message.as_deref().unwrap_or(""), &[]);
        let mut d = Diag::new(code, format!("{}: {what}: {why}", r.host));
        if r.status == Status::Stale {
            d = d.help("make a new plan: gather the facts again, then --dry-run --out");
        }
        errors.push(d);
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let changed: usize = recaps.iter().map(|r| r.changed).sum();
    Ok(if args.exit_code && changed > 0 {
        Outcome::Differences
    } else {
        Outcome::Ok
    })
}

/// A line of a host's output as the terminal shows it: the host wrote it (a
/// failure's reason, a command's message), so its control characters are
/// shown, never obeyed (JSON events are escaped already).
fn shown(line: &str) -> String {
    crate::value::repr::visible(line, &['\t', '\n'])
}

#[cfg(test)]
mod tests {
    use super::accepted;

    /// A unit's message becomes a diagnostic, which miette prints as it
    /// is: its escapes are shown.
    #[test]
    fn a_units_message_shows_its_escapes_in_the_diagnostic() {
        let mut r = super::HostRecap::new("j.h");
        r.status = super::Status::Stale;
        r.message = Some("\u{1b}[2J\u{7}".into());
        #[derive(clap::Parser)]
        struct Cli {
            #[command(flatten)]
            args: super::Args,
        }
        let cli = <Cli as clap::Parser>::try_parse_from(["apply", "h"]).unwrap();
        let Err(d) = super::finish(&cli.args, &[r]) else {
            panic!("a stale unit is an error");
        };
        assert!(
            d[0].message.ends_with(": \\u{1b}[2J\\u{7}"),
            "{}",
            d[0].message
        );
    }

    #[test]
    fn only_yes_is_accepted() {
        assert!(accepted("yes\n"));
        assert!(accepted("yes\r\n"));
        for no in ["y\n", "YES\n", " yes\n", "yes please\n", "", "\n"] {
            assert!(!accepted(no), "{no:?}");
        }
    }
}
