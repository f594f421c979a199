//! `service`: an rc.d service of `freebsd.services`, enabled and started,
//! or disabled and stopped.
//!
//! - **Apply:** the check reads the rcvar as rc(8) does and `service NAME
//!   onestatus` (rc.subr's status prints "is running as pid" and returns 0,
//!   else "is not running." and 1; rc.subr 02274513). `onestatus`, not
//!   `status`: main's rc.subr exempts `status` from the rcvar gate, but
//!   older ones (ea40e879) do not, and there a disabled service's `status`
//!   prints "Cannot 'status' NAME … use 'onestatus'" and returns 0; the
//!   `one` prefix sets the rcvar to YES for the call on every release.
//!   Only daemons are services ([`rcd::Run`]): a one-shot script is refused
//!   at check time. The change sets the
//!   rcvar as the rc steps set variables, then `start` when it is not
//!   running (rc.subr refuses to start a running one: "already running?"),
//!   or `onestop` when a disabled one runs (the gate lets `stop` through
//!   only with the rcvar set, so the `one` prefix says it anyway).
//! - **Facts:** whether each service runs (`services`).

use serde::Serialize;

use super::state::State;
use super::verdict::{Action, Verdict, change};
use super::{Input, Kind, Record, Resource, Shell, rc};
use crate::freebsd::rcd;
use crate::shell::{QuoteError, word as w};

/// An rc.d service.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Service {
    /// The script's file name: `service NAME …`.
    pub name: String,
    /// The variable that enables it (`nginx_enable`, `firewall_enable`).
    pub rcvar: String,
    /// The `rc.conf.d` names whose file can override the variable.
    pub owners: Vec<String>,
    /// Enabled and running (true), or disabled and stopped.
    pub enable: bool,
}

/// The services whose script beryl knows, in the order written.
pub(crate) fn layout(input: &Input<'_>) -> Vec<Resource> {
    super::items(input.freebsd().services.iter().filter_map(|s| {
        let script = rcd::service(&s.name.value).ok()?;
        Some(Service {
            owners: vec![script.name],
            name: script.script,
            rcvar: script.rcvar,
            enable: s.enable.value,
        })
    }))
}

impl Kind for Service {
    type Want = Service;
    const NAME: &'static str = "service";
    const TEMPLATE: Option<&'static str> =
        Some(include_str!("../../templates/steps/service.sh.j2"));

    fn id(&self) -> String {
        format!("service:{}", self.name)
    }

    fn wants(&self) -> Vec<Service> {
        vec![self.clone()]
    }

    fn step_id(want: &Service) -> String {
        want.id()
    }

    fn shell(s: &Service) -> Result<Shell, QuoteError> {
        let (value, running) = if s.enable { ("YES", "") } else { ("NO", "! ") };
        let name = w(&s.name)?;
        let check = format!(
            "[ \"$(rcvalue {})\" = {value} ] && {running}service {name} onestatus >/dev/null 2>&1",
            rc::owners(&s.rcvar, &s.owners)?,
        );
        let var = rc::Rc {
            name: s.rcvar.clone(),
            value: value.into(),
            owners: s.owners.clone(),
            restart: None,
        };
        let act = if s.enable {
            format!("{{ service {name} onestatus >/dev/null 2>&1 || service {name} start; }}")
        } else {
            format!("{{ ! service {name} onestatus >/dev/null 2>&1 || service {name} onestop; }}")
        };
        Ok(Shell {
            check,
            change: format!("{} && {act}", rc::set(&var)?),
        })
    }

    fn judge(svc: &Service, s: &State) -> Verdict {
        let want = if svc.enable { "YES" } else { "NO" };
        let have = rc::value(s, &svc.rcvar, &svc.owners);
        let mut changes = Vec::new();
        if have.as_deref() != Some(want) {
            changes.push(change(&svc.rcvar, have.as_deref().unwrap_or(""), want));
        }
        // Unknown when the snapshot did not look (an older facts script):
        // judged by the variable alone.
        if let Some(running) = s.services.get(&svc.name).map(|x| x.running)
            && running != svc.enable
        {
            changes.push(change(
                "running",
                &running.to_string(),
                &svc.enable.to_string(),
            ));
        }
        match (changes.is_empty(), have.is_none()) {
            (true, _) => Verdict::noop(),
            (false, true) => Verdict::new(Action::Create, changes, None),
            (false, false) => Verdict::new(Action::Update, changes, None),
        }
    }

    fn query(s: &Service) -> Option<Record> {
        // Whether it runs (facts' `services`).
        Some(Record::new("service", s.name.clone()))
    }
}
