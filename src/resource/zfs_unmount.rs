//! `zfs_unmount`: last in the install, the data pools' file systems
//! unmounted, deepest first, so that the installer can export the boot pool
//! they are mounted in. The pools stay imported; rc.d/zpool imports them at
//! boot. Apply has no step of it: a live host's pools are mounted where they
//! belong.

use serde::Serialize;

use super::state::State;
use super::verdict::Verdict;
use super::{Input, Kind, Resource, Shell};
use crate::shell::QuoteError;

/// The data pools to unmount.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ZfsUnmount {
    pub pools: Vec<String>,
}

/// What an apply step of it would want: there is none.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Never {}

/// One, when there are data pools.
pub(crate) fn layout(input: &Input<'_>) -> Vec<Resource> {
    let pools = &input.freebsd().zfs.pools;
    if pools.is_empty() {
        return Vec::new();
    }
    vec![
        ZfsUnmount {
            pools: pools.iter().map(|p| p.name.value.clone()).collect(),
        }
        .into(),
    ]
}

impl Kind for ZfsUnmount {
    type Want = Never;
    const NAME: &'static str = "zfs_unmount";
    const TEMPLATE: Option<&'static str> =
        Some(include_str!("../../templates/steps/zfs_unmount.sh.j2"));

    fn id(&self) -> String {
        "zfs_unmount".into()
    }

    /// Install only.
    fn wants(&self) -> Vec<Never> {
        Vec::new()
    }

    fn step_id(want: &Never) -> String {
        match *want {}
    }

    fn shell(want: &Never) -> Result<Shell, QuoteError> {
        match *want {}
    }

    fn judge(want: &Never, _: &State) -> Verdict {
        match *want {}
    }
}
