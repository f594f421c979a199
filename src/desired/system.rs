//! Kernel state, loader.conf and cron entries: `freebsd.sysctl`,
//! `freebsd.loader` and `freebsd.cron` laid out as resources.

use serde::Serialize;

use crate::compile::Compiled;
use crate::freebsd::cron;

use super::Resource;

/// The file whose lines set sysctls at boot: rc.d/sysctl runs `sysctl -i -f`
/// on it, then on `/etc/sysctl.conf.local`, which wins for a name both set
/// (libexec/rc/rc.d/sysctl 023fc80e).
pub(crate) const SYSCTL_CONF: &str = "/etc/sysctl.conf";
/// The edit of sysctl.conf for the name `name`: every line whose name (the
/// text before the first `=`, blanks trimmed; `#` lines are comments,
/// sysctl.conf(5)) is `name` is dropped, and `name=value` takes the place of
/// the first, or is appended. An empty `value` only drops (pruning).
/// [`SYSCTL_AWK`] as a literal, for the pruning rows that embed it.
macro_rules! sysctl_awk {
    () => {
        r##"{
	line = $0
	sub(/^[ \t]+/, "", line)
	k = ""
	i = index(line, "=")
	if (substr(line, 1, 1) != "#" && i > 1) {
		k = substr(line, 1, i - 1)
		sub(/[ \t]+$/, "", k)
	}
	if (k == name) {
		if (value != "" && !done) print name "=" value
		done = 1
		next
	}
	print
}
END { if (value != "" && !done) print name "=" value }"##
    };
}
pub(crate) use sysctl_awk;
pub(crate) const SYSCTL_AWK: &str = sysctl_awk!();

/// The loader's configuration, written with `sysrc -f`.
pub(crate) const LOADER_CONF: &str = "/boot/loader.conf";

/// A cron entry: one system crontab file (five time fields or an `@` word,
/// the user, the command).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CronEntry {
    pub name: String,
    /// `DIR/beryl-NAME`, DIR the release's drop-in directory.
    pub path: String,
    /// The file cron stages nothing from: `DIR/.beryl-NAME` (cron skips
    /// names starting with `.`, usr.sbin/cron/cron/database.c e4452d45).
    pub staging: String,
    /// The whole file.
    pub content: String,
}

/// The sysctl, loader and cron resources of a host, in that order.
pub(crate) fn resources(c: &Compiled) -> Vec<Resource> {
    let f = &c.freebsd;
    let mut out: Vec<Resource> = f
        .sysctl
        .iter()
        .map(|t| Resource::Sysctl {
            name: t.name.value.clone(),
            value: t.value.value.clone(),
        })
        .collect();
    out.extend(f.loader.iter().map(|t| Resource::Loader {
        name: t.name.value.clone(),
        value: t.value.value.clone(),
    }));
    let dir = f
        .version
        .as_ref()
        .and_then(|v| cron::find(&v.value))
        .and_then(|c| c.dir);
    // Without a directory, require::cron has refused the host already.
    if let Some(dir) = dir {
        for job in &f.cron {
            let (Some(schedule), Some(command)) = (&job.schedule, &job.command) else {
                continue;
            };
            let name = &job.name.value;
            let user = job.user.as_ref().map_or("root", |u| u.value.as_str());
            out.push(Resource::Cron(CronEntry {
                name: name.clone(),
                path: format!("{dir}/{}{name}", cron::PREFIX),
                staging: format!("{dir}/.{}{name}", cron::PREFIX),
                content: format!(
                    "# Written by beryl: freebsd.cron.{name}\n{} {user} {}\n",
                    schedule.value, command.value
                ),
            }));
        }
    }
    out
}
