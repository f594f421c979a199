//! A real run's results: each host's outcome read from its apply script's
//! lines (`= id`, `~ id`, `! id FAILED: reason`), the JSON Lines events of
//! `--format json`, and the recap table that ends a text run. docs/apply.md
//! ("Running it") and docs/schemas/events.schema.json document the events.

use serde::Serialize;

/// How a host's run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Status {
    /// The script ran to its end.
    Ok,
    /// A step failed, or the script exited non-zero.
    Failed,
    /// Its saved plan no longer holds: nothing was changed.
    Stale,
    /// ssh could not reach it (for a jail: its host).
    Unreachable,
    /// A jail that was not running (`jls -j NAME` found none): nothing
    /// inside it was applied.
    Absent,
}

/// One host's line of the recap.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct HostRecap {
    pub host: String,
    /// For a jail: the host it runs on, whose connection ran it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    pub status: Status,
    pub changed: usize,
    pub unchanged: usize,
    pub failed: usize,
    /// Why the host failed, is stale or unreachable.
    pub message: Option<String>,
}

impl HostRecap {
    pub(crate) fn new(host: &str) -> Self {
        HostRecap {
            host: host.to_string(),
            parent: None,
            status: Status::Ok,
            changed: 0,
            unchanged: 0,
            failed: 0,
            message: None,
        }
    }

    /// Counts a line of the script, and returns its event when it is a
    /// step's result.
    pub(crate) fn read<'a>(&'a mut self, line: &'a str) -> Option<StepEvent<'a>> {
        let (result, rest) = if let Some(id) = line.strip_prefix("= ") {
            self.unchanged += 1;
            ("unchanged", id)
        } else if let Some(id) = line.strip_prefix("~ ") {
            self.changed += 1;
            match id.strip_suffix(" would change") {
                Some(id) => ("would_change", id),
                None => ("changed", id),
            }
        } else if let Some(id) = line.strip_prefix("- ") {
            // A recorded item pruned (docs/apply.md §17).
            self.changed += 1;
            match id.strip_suffix(" would remove") {
                Some(id) => ("would_remove", id),
                None => ("removed", id),
            }
        } else if let Some(rest) = line.strip_prefix("! ") {
            self.failed += 1;
            ("failed", rest)
        } else {
            return None;
        };
        // A failure's reason, or why a recorded item was kept.
        let (id, reason) = match (rest.split_once(" FAILED: "), rest.split_once(" kept: ")) {
            (Some((id, reason)), _) if result == "failed" => (id, Some(reason)),
            (_, Some((id, why))) if result == "unchanged" => (id, Some(why)),
            _ => (rest, None),
        };
        Some(StepEvent {
            host: &self.host,
            id,
            result,
            reason,
        })
    }
}

/// One connection's output split back into its units (issue 36): the host
/// (unit 0) and each of its jails. The host's script prefixes every line a
/// jail prints with `|ID ` and then writes `jail: ID exit N` or `jail: ID
/// absent` itself (src/apply/script.rs, `jail_apply`), so a jail's lines can
/// only ever count for that jail: nothing it prints is read as the host's,
/// another jail's, or its own end.
#[derive(Debug)]
pub(crate) struct Demux {
    /// The host first, then its jails in run order.
    pub units: Vec<HostRecap>,
    /// Whether each unit's run ended (the host's `jail:` line about it).
    ended: Vec<bool>,
    /// Each unit's `stale: …` reason, when its guard printed one.
    stale: Vec<Option<String>>,
}

/// The status a jail's apply script exits with when its saved plan's guard
/// finds it changed (the host's: [`super::script::STALE_STATUS`]).
const JAIL_STALE: &str = "3";

impl Demux {
    /// The units of a connection: `host`, then `jails` (their FQDNs).
    pub(crate) fn new(host: &str, jails: &[&str]) -> Self {
        let mut units = vec![HostRecap::new(host)];
        units.extend(jails.iter().map(|j| {
            let mut r = HostRecap::new(j);
            r.parent = Some(host.to_string());
            r
        }));
        let n = units.len();
        Demux {
            units,
            ended: vec![false; n],
            stale: vec![None; n],
        }
    }

    /// The jail unit named `id` whose run has not ended.
    fn running(&self, id: &str) -> Option<usize> {
        (1..self.units.len()).find(|&i| self.units[i].host == id && !self.ended[i])
    }

    /// Reads one line of the connection: the unit it belongs to, the line
    /// as that unit printed it, and its step event, if it is one.
    pub(crate) fn read<'a>(&'a mut self, line: &'a str) -> (usize, &'a str, Option<StepEvent<'a>>) {
        if let Some(rest) = line.strip_prefix('|')
            && let Some((id, text)) = rest.split_once(' ')
            && let Some(i) = self.running(id)
        {
            if let Some(why) = text.strip_prefix("stale: ") {
                self.stale[i] = Some(shown(why));
            }
            return (i, text, self.units[i].read(text));
        }
        if let Some(rest) = line.strip_prefix("jail: ") {
            self.ended_line(rest);
            return (0, line, None);
        }
        if let Some(why) = line.strip_prefix("stale: ") {
            self.stale[0] = Some(shown(why));
        }
        (0, line, self.units[0].read(line))
    }

    /// The host's `jail: ID exit N`, `jail: ID absent` or `jail: ID not
    /// run` (a host row that makes or runs it failed).
    fn ended_line(&mut self, rest: &str) {
        if let Some(id) = rest.strip_suffix(" not run")
            && let Some(i) = self.running(id)
        {
            self.ended[i] = true;
            self.units[i].status = Status::Failed;
            self.units[i].message = Some(
                "not run: its host did not run it (a step that makes or runs it failed, or its output could not be spooled: the host's report says which)"
                    .into(),
            );
            return;
        }
        let (id, end) = match (rest.split_once(" exit "), rest.strip_suffix(" absent")) {
            (Some((id, n)), _) => (id, Some(n)),
            (None, Some(id)) => (id, None),
            (None, None) => return,
        };
        let Some(i) = self.running(id) else {
            return;
        };
        self.ended[i] = true;
        let r = &mut self.units[i];
        match end {
            Some("0") => {}
            Some(JAIL_STALE) => {
                r.status = Status::Stale;
                r.message = Some(
                    self.stale[i]
                        .clone()
                        .unwrap_or_else(|| "the facts changed".into()),
                );
            }
            Some(n) => {
                r.status = Status::Failed;
                r.message = Some(format!("the jail's apply script failed (exit {n})"));
            }
            None => {
                r.status = Status::Absent;
                r.message = Some(
                    "the jail is not running (jls -j found none): nothing in it was applied".into(),
                );
            }
        }
    }

    /// Ends the connection with the script's exit status (or why it did
    /// not run): the host's status, and that of every jail whose run did
    /// not end.
    pub(crate) fn finish(&mut self, result: Result<i32, (Status, String)>) {
        let (jails, why) = match result {
            Ok(0 | super::script::JAILS_STATUS) => (
                Status::Failed,
                "its run did not end (no `jail:` line from its host)".to_string(),
            ),
            Ok(super::script::STALE_STATUS) => {
                let why = self.stale[0]
                    .clone()
                    .unwrap_or_else(|| "the facts changed".into());
                self.units[0].status = Status::Stale;
                self.units[0].message = Some(why);
                (
                    Status::Stale,
                    "its host's plan is stale: nothing ran".to_string(),
                )
            }
            Ok(code) => {
                self.units[0].status = Status::Failed;
                self.units[0].message = Some(format!("the apply script failed (exit {code})"));
                (
                    Status::Failed,
                    "not run: its host's script stopped first".to_string(),
                )
            }
            // A jail says that its host, not itself, was refused or
            // unreachable: its own config may not have changed at all.
            Err((status, why)) => {
                let why = shown(&why);
                self.units[0].status = status;
                self.units[0].message = Some(why.clone());
                let host = match status {
                    Status::Stale => "its host's plan is stale",
                    Status::Unreachable => "its host is unreachable",
                    _ => "its host failed",
                };
                (status, format!("not run: {host}: {why}"))
            }
        };
        for i in 1..self.units.len() {
            if !self.ended[i] {
                self.ended[i] = true;
                self.units[i].status = jails;
                self.units[i].message = Some(why.clone());
            }
        }
    }
}

/// A unit's message as a recap, a diagnostic or an event holds it: a
/// remote unit (a hostile jail) wrote it, so its control characters are
/// shown, never obeyed (`\u{1b}`).
fn shown(why: &str) -> String {
    crate::value::repr::visible(why, &[])
}

/// A step's result, as the `step` event of `--format json`.
#[derive(Debug, Serialize)]
pub(crate) struct StepEvent<'a> {
    pub host: &'a str,
    pub id: &'a str,
    /// `unchanged`, `changed`, `removed` (a recorded item pruned),
    /// `would_change` and `would_remove` (BERYL_DRY_RUN=1), or `failed`.
    pub result: &'static str,
    pub reason: Option<&'a str>,
}

/// The events of `--format json` on a real run, one JSON object a line.
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum Event<'a> {
    Step(StepEvent<'a>),
    Host(&'a HostRecap),
    Recap(Totals<'a>),
}

impl Event<'_> {
    pub(crate) fn line(&self) -> String {
        // A step's id and reason are a remote unit's words.
        let mut s =
            crate::value::repr::visible_json(&serde_json::to_string(self).unwrap_or_default());
        s.push('\n');
        s
    }
}

/// The format of a real run's `--format json` document.
pub(crate) const RUN_FORMAT: &str = "beryl-apply-run";

/// A real run as one JSON document (`--format json`): its events, each as
/// `--format jsonl` prints it on its line, in the same order. Every line is
/// an event beryl wrote; one that does not read back is kept as its text.
pub(crate) fn document(lines: &[String]) -> String {
    let events: Vec<serde_json::Value> = lines
        .iter()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|_| serde_json::Value::String(l.clone())))
        .collect();
    let doc = serde_json::json!({
        "format": RUN_FORMAT,
        "format_version": 1,
        "events": events,
    });
    let mut text =
        crate::value::repr::visible_json(&serde_json::to_string_pretty(&doc).unwrap_or_default());
    text.push('\n');
    text
}

/// The whole run, as the last event.
#[derive(Debug, Serialize)]
pub(crate) struct Totals<'a> {
    /// Every unit of the run: hosts and jails.
    pub hosts: usize,
    pub changed: usize,
    pub unchanged: usize,
    pub failed: usize,
    /// The hosts of each status other than `ok`.
    pub failed_hosts: Vec<&'a str>,
    pub stale: Vec<&'a str>,
    pub unreachable: Vec<&'a str>,
    /// Jails that were not running.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub absent: Vec<&'a str>,
}

pub(crate) fn totals(recaps: &[HostRecap]) -> Totals<'_> {
    let named = |s: Status| -> Vec<&str> {
        recaps
            .iter()
            .filter(|r| r.status == s)
            .map(|r| r.host.as_str())
            .collect()
    };
    Totals {
        hosts: recaps.len(),
        changed: recaps.iter().map(|r| r.changed).sum(),
        unchanged: recaps.iter().map(|r| r.unchanged).sum(),
        failed: recaps.iter().map(|r| r.failed).sum(),
        failed_hosts: named(Status::Failed),
        stale: named(Status::Stale),
        unreachable: named(Status::Unreachable),
        absent: named(Status::Absent),
    }
}

/// The recap table: a row per host, then the messages of those that did
/// not end `ok`.
pub(crate) fn table(recaps: &[HostRecap]) -> String {
    // A jail's row is indented under its host's.
    let name = |r: &HostRecap| match r.parent {
        Some(_) => format!("  {}", r.host),
        None => r.host.clone(),
    };
    let width = recaps
        .iter()
        .map(|r| name(r).len())
        .chain([4])
        .max()
        .unwrap_or(4);
    let mut out = format!(
        "Recap:\n  {:<width$}  {:>7}  {:>9}  {:>6}  status\n",
        "host", "changed", "unchanged", "failed"
    );
    for r in recaps {
        let status = match serde_json::to_value(r.status) {
            Ok(serde_json::Value::String(s)) => s,
            _ => String::new(),
        };
        out.push_str(&format!(
            "  {:<width$}  {:>7}  {:>9}  {:>6}  {status}\n",
            name(r),
            r.changed,
            r.unchanged,
            r.failed
        ));
    }
    for r in recaps {
        if let Some(m) = &r.message {
            out.push_str(&format!("  {}: {m}\n", r.host));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_lines_are_counted_and_become_events() {
        let mut r = HostRecap::new("h");
        assert_eq!(r.read("= pkg").unwrap().result, "unchanged");
        assert_eq!(r.read("~ tz").unwrap().result, "changed");
        let e = r.read("~ tz would change").unwrap();
        assert_eq!((e.id, e.result), ("tz", "would_change"));
        let e = r.read("! rc:x FAILED: the change exited 1").unwrap();
        assert_eq!(
            (e.id, e.result, e.reason),
            ("rc:x", "failed", Some("the change exited 1"))
        );
        let e = r.read("- cron:gone").unwrap();
        assert_eq!((e.id, e.result), ("cron:gone", "removed"));
        let e = r.read("- pkg:vim would remove").unwrap();
        assert_eq!((e.id, e.result), ("pkg:vim", "would_remove"));
        let e = r.read("= pkg:vim kept: --no-prune").unwrap();
        assert_eq!(
            (e.id, e.result, e.reason),
            ("pkg:vim", "unchanged", Some("--no-prune"))
        );
        assert!(r.read("apply: 4 changed, 2 unchanged, 1 failed").is_none());
        assert!(r.read("    output of a change").is_none());
        assert!(r.read("    note: reboot").is_none());
        assert_eq!((r.changed, r.unchanged, r.failed), (4, 2, 1));
    }

    /// A jail's `stale:` reason becomes its recap's message, a Diag and an
    /// event: its escapes (a title, a clear screen, a bell) are shown.
    #[test]
    fn a_jails_stale_reason_shows_its_escapes() {
        let mut d = Demux::new("h", &["j.h"]);
        d.read("|j.h stale: \u{1b}]0;pwned\u{7}\u{1b}[2J\u{9b}31m");
        d.read("jail: j.h exit 3");
        d.finish(Ok(super::super::script::JAILS_STATUS));
        let m = d.units[1].message.clone().unwrap();
        assert_eq!(m, "\\u{1b}]0;pwned\\u{7}\\u{1b}[2J\\u{9b}31m");
        assert_eq!(d.units[1].status, Status::Stale);
        // The host's own, and a refusal's reason.
        let mut d = Demux::new("h", &["j.h"]);
        d.read("stale: \u{1b}[31mred");
        d.finish(Ok(super::super::script::STALE_STATUS));
        assert_eq!(d.units[0].message.as_deref(), Some("\\u{1b}[31mred"));
        let mut d = Demux::new("h", &["j.h"]);
        d.finish(Err((Status::Unreachable, "ssh: \u{7}".into())));
        assert!(
            d.units
                .iter()
                .all(|u| !u.message.as_ref().unwrap().contains('\u{7}'))
        );
    }

    /// An event holds a step's id and reason as the remote printed them:
    /// the JSON text shows no control character, and reads back the same.
    #[test]
    fn events_show_no_control_character() {
        let mut r = HostRecap::new("h");
        let line = "! rc:x\u{9b}2J FAILED: \u{1b}[2J\u{7f}\u{2028}";
        let e = Event::Step(r.read(line).unwrap()).line();
        assert!(!e.chars().any(|c| c.is_control() && c != '\n'), "{e}");
        let v: serde_json::Value = serde_json::from_str(&e).unwrap();
        assert_eq!(v["reason"], "\u{1b}[2J\u{7f}\u{2028}");
        let doc = document(&[e]);
        assert!(!doc.chars().any(|c| c.is_control() && c != '\n'), "{doc}");
    }

    #[test]
    fn the_table_has_a_row_per_host_and_the_reasons() {
        let mut a = HostRecap::new("a.example.org");
        a.changed = 2;
        let mut b = HostRecap::new("b");
        b.status = Status::Stale;
        b.message = Some("the facts changed".into());
        let t = table(&[a, b]);
        assert_eq!(
            t,
            "Recap:\n  \
             host           changed  unchanged  failed  status\n  \
             a.example.org        2          0       0  ok\n  \
             b                    0          0       0  stale\n  \
             b: the facts changed\n"
        );
    }
}
