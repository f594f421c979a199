//! `timezone`: the host's time zone (`freebsd.timezone`), set with
//! `tzsetup -s`, which records it in /var/db/zoneinfo.

use serde::Serialize;

use super::state::State;
use super::verdict::{Action, Verdict, change};
use super::{Input, Kind, Resource, Shell, text};
use crate::shell::{QuoteError, word as w};

/// The time zone.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Timezone {
    pub zone: String,
}

/// The zone, when set.
pub(crate) fn layout(input: &Input<'_>) -> Vec<Resource> {
    super::items(text(&input.freebsd().timezone).map(|zone| Timezone { zone }))
}

impl Kind for Timezone {
    type Want = Timezone;
    const NAME: &'static str = "timezone";
    const TEMPLATE: Option<&'static str> =
        Some(include_str!("../../templates/steps/timezone.sh.j2"));

    fn id(&self) -> String {
        "tz".into()
    }

    fn wants(&self) -> Vec<Timezone> {
        vec![self.clone()]
    }

    fn step_id(want: &Timezone) -> String {
        want.id()
    }

    fn shell(want: &Timezone) -> Result<Shell, QuoteError> {
        Ok(Shell {
            check: format!(
                "[ \"$(cat /var/db/zoneinfo 2>/dev/null)\" = {} ]",
                w(&want.zone)?
            ),
            change: format!("tzsetup -s {}", w(&want.zone)?),
        })
    }

    fn judge(want: &Timezone, s: &State) -> Verdict {
        if s.timezone == want.zone {
            return Verdict::noop();
        }
        Verdict::new(
            Action::Update,
            vec![change("timezone", &s.timezone, &want.zone)],
            None,
        )
    }
}
