//! Apply plans: the ordered, idempotent steps that bring a running host to its
//! effective config.
//!
//! Entry point: [`steps`] builds the steps of a compiled host. Each step has a
//! stable id, a read-only check (exit 0: already in the desired state), a
//! change, and the desired value, which [`diff`] compares with a state
//! snapshot (see [`state`], written by the `facts` script). [`script`] turns
//! the steps into the POSIX sh apply script; [`ssh`] runs it on the host.
//! Nothing the config does not mention is ever removed, except users marked
//! `state: absent`.

pub mod diff;
pub mod script;
pub mod ssh;
pub mod state;

use serde::Serialize;

use crate::compile::Compiled;
use crate::plan::quote::quote;
use crate::schema::UserState;

/// The kinds of step, in the order they run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Package,
    Group,
    User,
    Keys,
    File,
    Sysrc,
    Timezone,
    Hostname,
    Service,
}

/// What a step wants.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Desired {
    Package {
        name: String,
    },
    Group {
        name: String,
    },
    User(UserSpec),
    /// A user that must not exist.
    Absent {
        name: String,
    },
    /// A whole file: path (relative to the root), content, mode, owner, and
    /// for authorized_keys the mode of its directory (owned by the owner).
    File {
        path: String,
        content: String,
        mode: String,
        owner: String,
        group: String,
        dir_mode: Option<String>,
    },
    Sysrc {
        name: String,
        value: String,
    },
    Timezone {
        zone: String,
    },
    Hostname {
        name: String,
    },
    Service {
        name: String,
    },
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct UserSpec {
    pub name: String,
    pub uid: Option<u32>,
    pub shell: Option<String>,
    pub comment: Option<String>,
    pub primary_group: Option<String>,
    /// Supplementary groups, sorted.
    pub groups: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Step {
    /// Stable: `pkg:NAME`, `group:NAME`, `user:NAME`, `keys:USER`,
    /// `file:PATH`, `sysrc:NAME`, `tz`, `hostname`, `service:NAME`.
    pub id: String,
    pub kind: Kind,
    pub desired: Desired,
    /// Read-only; exit status 0 means nothing to do.
    pub check: String,
    pub change: String,
}

/// The sudoers drop-in beryl owns.
pub const SUDOERS: &str = "/usr/local/etc/sudoers.d/beryl";

/// One shell word (values were validated; see `plan::quote`).
fn q(s: &str) -> String {
    quote(s)
        .map(|c| c.into_owned())
        .unwrap_or_else(|_| "''".into())
}

/// A file path under the root prefix.
fn p(path: &str) -> String {
    format!("\"$BERYL_ROOT\"{}", q(path))
}

/// The steps of a compiled host, in run order.
pub fn steps(fqdn: &str, c: &Compiled) -> Vec<Step> {
    let f = &c.freebsd;
    let mut out = Vec::new();
    for pkg in &f.packages {
        let name = pkg.value.clone();
        out.push(Step {
            id: format!("pkg:{name}"),
            kind: Kind::Package,
            check: if name.contains('/') {
                format!("pkg info -e -O {}", q(&name))
            } else {
                format!("pkg info -e {}", q(&name))
            },
            change: format!("pkg install -y {}", q(&name)),
            desired: Desired::Package { name },
        });
    }
    let present: Vec<_> = f
        .users
        .iter()
        .filter(|u| u.state == UserState::Present)
        .collect();
    for name in crate::plan::needed_groups(&present) {
        out.push(Step {
            id: format!("group:{name}"),
            kind: Kind::Group,
            check: format!("pw groupshow -n {} >/dev/null 2>&1", q(&name)),
            change: format!("pw groupadd -n {}", q(&name)),
            desired: Desired::Group { name },
        });
    }
    for u in &f.users {
        let name = u.name.value.clone();
        if u.state == UserState::Absent {
            out.push(Step {
                id: format!("user:{name}"),
                kind: Kind::User,
                check: format!("! pw usershow -n {} >/dev/null 2>&1", q(&name)),
                change: format!("pw userdel -n {}", q(&name)),
                desired: Desired::Absent { name },
            });
            continue;
        }
        let mut groups: Vec<String> = u.groups.iter().map(|g| g.value.clone()).collect();
        groups.sort();
        groups.dedup();
        let spec = UserSpec {
            name: name.clone(),
            uid: u.uid.as_ref().map(|l| l.value),
            shell: u.shell.as_ref().map(|l| l.value.clone()),
            comment: u.comment.as_ref().map(|l| l.value.clone()),
            primary_group: u.primary_group.as_ref().map(|l| l.value.clone()),
            groups,
        };
        out.push(Step {
            id: format!("user:{name}"),
            kind: Kind::User,
            check: user_check(&spec),
            change: user_change(&spec),
            desired: Desired::User(spec),
        });
    }
    for u in &present {
        let name = &u.name.value;
        let Some(keys) = c.users.iter().find(|k| &k.name == name) else {
            continue;
        };
        if keys.keys.is_empty() {
            continue;
        }
        let mut content = String::new();
        for k in &keys.keys {
            content.push_str(&k.line());
            content.push('\n');
        }
        let group = u
            .primary_group
            .as_ref()
            .map_or(name.clone(), |g| g.value.clone());
        let path = format!("/home/{name}/.ssh/authorized_keys");
        out.push(file_step(
            format!("keys:{name}"),
            Kind::Keys,
            &path,
            content,
            "600",
            name,
            &group,
            Some("700"),
            None,
        ));
    }
    if !f.sudoers.is_empty() {
        let mut content = String::new();
        for line in &f.sudoers {
            content.push_str(&line.value);
            content.push('\n');
        }
        out.push(file_step(
            format!("file:{SUDOERS}"),
            Kind::File,
            SUDOERS,
            content,
            "440",
            "root",
            "wheel",
            None,
            Some("visudo -cf"),
        ));
    }
    let mut services = vec!["sshd".to_string()];
    for rc in &f.rc_conf {
        let (name, value) = (&rc.name.value, &rc.value.value);
        if let Some(svc) = name.strip_suffix("_enable")
            && value.eq_ignore_ascii_case("yes")
        {
            if !services.iter().any(|s| s == svc) {
                services.push(svc.to_string());
            }
            continue;
        }
        out.push(Step {
            id: format!("sysrc:{name}"),
            kind: Kind::Sysrc,
            check: format!(
                "sysrc -f \"$BERYL_ROOT\"/etc/rc.conf -c {}",
                q(&format!("{name}={value}"))
            ),
            change: format!(
                "sysrc -f \"$BERYL_ROOT\"/etc/rc.conf {}",
                q(&format!("{name}={value}"))
            ),
            desired: Desired::Sysrc {
                name: name.clone(),
                value: value.clone(),
            },
        });
    }
    if let Some(tz) = &f.timezone {
        let zone = tz.value.clone();
        out.push(Step {
            id: "tz".into(),
            kind: Kind::Timezone,
            check: format!(
                "[ \"$(cat {} 2>/dev/null)\" = {} ]",
                p("/var/db/zoneinfo"),
                q(&zone)
            ),
            change: format!("tzsetup -s {}", q(&zone)),
            desired: Desired::Timezone { zone },
        });
    }
    let hostname = f
        .hostname
        .as_ref()
        .map_or(fqdn.to_string(), |h| h.value.clone());
    out.push(Step {
        id: "hostname".into(),
        kind: Kind::Hostname,
        check: format!(
            "sysrc -f \"$BERYL_ROOT\"/etc/rc.conf -c {}",
            q(&format!("hostname={hostname}"))
        ),
        change: format!(
            "sysrc -f \"$BERYL_ROOT\"/etc/rc.conf {} && service hostname restart",
            q(&format!("hostname={hostname}"))
        ),
        desired: Desired::Hostname { name: hostname },
    });
    for svc in services {
        out.push(Step {
            id: format!("service:{svc}"),
            kind: Kind::Service,
            check: format!("service {} enabled", q(&svc)),
            change: format!("service {} enable", q(&svc)),
            desired: Desired::Service { name: svc },
        });
    }
    out.sort_by_key(|s| s.kind);
    out
}

fn user_check(u: &UserSpec) -> String {
    let name = q(&u.name);
    let mut tests = vec![format!("pw usershow -n {name} >/dev/null 2>&1")];
    let field = |n: usize, want: &str| {
        format!(
            "[ \"$(pw usershow -n {name} | cut -d: -f{n})\" = {} ]",
            q(want)
        )
    };
    if let Some(uid) = u.uid {
        tests.push(field(3, &uid.to_string()));
    }
    if let Some(c) = &u.comment {
        tests.push(field(8, c));
    }
    if let Some(s) = &u.shell {
        tests.push(field(10, s));
    }
    // The supplementary groups, as an exact set (`pw usermod -G` replaces it).
    tests.push(format!(
        "[ \"$(pw groupshow -a | awk -F: -v u={name} '{{n = split($4, m, \",\"); for (i = 1; i <= n; i++) if (m[i] == u) print $1}}' | sort | tr '\\n' ' ')\" = {} ]",
        q(&u.groups.iter().map(|g| format!("{g} ")).collect::<String>())
    ));
    tests.join(" && ")
}

fn user_change(u: &UserSpec) -> String {
    let mut args = Vec::new();
    if let Some(uid) = u.uid {
        args.push(format!("-u {uid}"));
    }
    if let Some(c) = &u.comment {
        args.push(format!("-c {}", q(c)));
    }
    if let Some(s) = &u.shell {
        args.push(format!("-s {}", q(s)));
    }
    if let Some(g) = &u.primary_group {
        args.push(format!("-g {}", q(g)));
    }
    args.push(format!("-G {}", q(&u.groups.join(","))));
    let args = args.join(" ");
    let name = q(&u.name);
    format!(
        "if pw usershow -n {name} >/dev/null 2>&1; then pw usermod -n {name} {args}; else pw useradd -n {name} -m {args} -h -; fi"
    )
}

/// A managed file: its content, mode and owner, written through a temporary
/// file in the same directory and renamed into place (or installed after a
/// validator accepts it).
#[allow(clippy::too_many_arguments)]
fn file_step(
    id: String,
    kind: Kind,
    path: &str,
    content: String,
    mode: &str,
    owner: &str,
    group: &str,
    dir_mode: Option<&str>,
    validate: Option<&str>,
) -> Step {
    let digest = sha256_hex(&content);
    let dir = path.rsplit_once('/').map_or("/", |(d, _)| d);
    let mut check = vec![
        format!("[ \"$(sha256 -q {} 2>/dev/null)\" = {digest} ]", p(path)),
        format!(
            "[ \"$(stat -f '%Lp %Su %Sg' {} 2>/dev/null)\" = {} ]",
            p(path),
            q(&format!("{mode} {owner} {group}"))
        ),
    ];
    if let Some(dm) = dir_mode {
        check.push(format!(
            "[ \"$(stat -f '%Lp %Su' {} 2>/dev/null)\" = {} ]",
            p(dir),
            q(&format!("{dm} {owner}"))
        ));
    }
    let tmp = format!("{path}.beryl-tmp");
    let lines: Vec<String> = content.lines().map(q).collect();
    let mut change = vec![format!("mkdir -p {}", p(dir))];
    if let Some(dm) = dir_mode {
        change.push(format!(
            "chown {} {}",
            q(&format!("{owner}:{group}")),
            p(dir)
        ));
        change.push(format!("chmod {dm} {}", p(dir)));
    }
    change.push(format!("printf '%s\\n' {} > {}", lines.join(" "), p(&tmp)));
    match validate {
        Some(v) => {
            change.push(format!("{v} {}", p(&tmp)));
            change.push(format!(
                "install -m 0{mode} -o {} -g {} {} {}",
                q(owner),
                q(group),
                p(&tmp),
                p(path)
            ));
            change.push(format!("rm -f {}", p(&tmp)));
        }
        None => {
            change.push(format!(
                "chown {} {}",
                q(&format!("{owner}:{group}")),
                p(&tmp)
            ));
            change.push(format!("chmod 0{mode} {}", p(&tmp)));
            change.push(format!("mv -f {} {}", p(&tmp), p(path)));
        }
    }
    Step {
        id,
        kind,
        check: check.join(" && "),
        change: change.join(" && "),
        desired: Desired::File {
            path: path.to_string(),
            content,
            mode: mode.to_string(),
            owner: owner.to_string(),
            group: group.to_string(),
            dir_mode: dir_mode.map(str::to_string),
        },
    }
}

pub use crate::fsutil::sha256_hex;

#[cfg(test)]
mod tests;
