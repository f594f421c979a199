//! `validate` on `freebsd.sysctl`, `freebsd.loader` and `freebsd.cron`.

use super::*;
use super::{fails, ok, run};

fn sysctl(line: &str) -> String {
    format!("freebsd:\n  sysctl:\n    {line}\n")
}

fn loader(line: &str) -> String {
    format!("freebsd:\n  loader:\n    {line}\n")
}

fn cron(body: &str) -> String {
    format!("freebsd:\n  cron:\n    job:\n      {body}\n")
}

#[test]
fn sysctl_names_and_values() {
    let f = ok(
        "freebsd:\n  sysctl:\n    kern.ipc.somaxconn: 1024\n    net.inet.tcp.cc.algorithm: htcp\n    kern.corefile: /var/crash/%N.core\n",
    );
    let got: Vec<(&str, &str)> = f
        .sysctl
        .iter()
        .map(|t| (t.name.value.as_str(), t.value.value.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("kern.ipc.somaxconn", "1024"),
            ("net.inet.tcp.cc.algorithm", "htcp"),
            ("kern.corefile", "/var/crash/%N.core"),
        ]
    );
    assert_eq!(f.sysctl[0].name.span.to_string(), "t.yml:3:5");
    assert_eq!(f.sysctl[0].value.span.to_string(), "t.yml:3:25");
}

#[test]
fn sysctl_refusals() {
    fails(
        &sysctl("maxfiles: 1"),
        Code::SysctlName,
        "is one word",
        "t.yml:3:5",
    );
    fails(
        &sysctl("kern..maxfiles: 1"),
        Code::SysctlName,
        "empty component",
        "t.yml:3:5",
    );
    fails(
        &sysctl("\"kern.maxfiles=1\": 1"),
        Code::SysctlName,
        "contains `=`",
        "t.yml:3:5",
    );
    fails(
        &sysctl("kern.maxfiles: \"1 # x\""),
        Code::SysctlValue,
        "contains a space",
        "t.yml:3:20",
    );
    fails(
        &sysctl("kern.hostname: \"a\\nb\""),
        Code::SysctlValue,
        "newline",
        "t.yml:3:20",
    );
    let d = fails(
        &sysctl("net.inet.ip.forwarding: true"),
        Code::Type,
        "a string or an integer",
        "t.yml:3:29",
    );
    assert!(format!("{d:?}").contains("write 1"), "{d:?}");
    fails(&sysctl("kern.x: ~"), Code::Type, "found null", "t.yml:3:13");
    fails(
        &sysctl("vfs.zfs.min_auto_ashift: 12"),
        Code::SysctlManaged,
        "written by the installer",
        "t.yml:3:5",
    );
    fails(
        "freebsd:\n  sysctl: [kern.maxfiles=1]\n",
        Code::Type,
        "a mapping",
        "t.yml:2:11",
    );
}

#[test]
fn loader_variables() {
    let f =
        ok("freebsd:\n  loader:\n    accf_http_load: true\n    aio_load: 'YES'\n    kern_x: 3\n");
    let got: Vec<(&str, &str)> = f
        .loader
        .iter()
        .map(|t| (t.name.value.as_str(), t.value.value.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("accf_http_load", "YES"),
            ("aio_load", "YES"),
            ("kern_x", "3")
        ]
    );
}

#[test]
fn dotted_loader_tunables() {
    let f = ok("freebsd:\n  loader:\n    kern.maxusers: 512\n    vfs.zfs.arc_max: 4G\n");
    let got: Vec<&str> = f.loader.iter().map(|t| t.name.value.as_str()).collect();
    assert_eq!(got, ["kern.maxusers", "vfs.zfs.arc_max"]);
}

#[test]
fn loader_refusals() {
    let d = fails(
        &loader("zfs_load: true"),
        Code::LoaderManaged,
        "written by the installer",
        "t.yml:3:5",
    );
    assert!(format!("{d:?}").contains("config"), "{d:?}");
    fails(
        &loader("kern..maxusers: 512"),
        Code::LoaderName,
        "empty component",
        "t.yml:3:5",
    );
    let d = fails(
        &loader("kern.maxusers: \"${x}\""),
        Code::LoaderValue,
        "contains `$`",
        "t.yml:3:20",
    );
    assert!(format!("{d:?}").contains("/boot/loader.conf.d"), "{d:?}");
    fails(
        &loader("kern.geom.label.gptid.enable: 0"),
        Code::LoaderManaged,
        "written by the installer",
        "t.yml:3:5",
    );
    fails(
        &loader("a-b: 1"),
        Code::LoaderName,
        "contains `-`",
        "t.yml:3:5",
    );
    fails(
        &loader("x_load: \"$(reboot)\""),
        Code::LoaderValue,
        "contains `$`",
        "t.yml:3:13",
    );
}

#[test]
fn cron_entries() {
    // postgres is a package's user (the ports tree's UIDs).
    let f = ok("freebsd:
  packages: [postgresql17-server]
  cron:
    nightly-vacuum:
      schedule: '30  3 * * sun-sat'
      user: postgres
      command: /usr/local/bin/vacuumdb -a -z
    hourly:
      schedule: '@hourly'
      command: date +\\%F >> /var/log/stamp
");
    assert_eq!(f.cron.len(), 2);
    let j = &f.cron[0];
    assert_eq!(j.name.value, "nightly-vacuum");
    assert_eq!(j.schedule.as_ref().unwrap().value, "30 3 * * sun-sat");
    assert_eq!(j.user.as_ref().unwrap().value, "postgres");
    assert!(f.cron[1].user.is_none());
    assert_eq!(f.cron[1].schedule.as_ref().unwrap().value, "@hourly");
}

#[test]
fn cron_refusals() {
    fails(
        &cron("schedule: '* * *'\n      command: x"),
        Code::CronSchedule,
        "has 3 fields",
        "t.yml:4:17",
    );
    fails(
        &cron("schedule: '60 * * * *'\n      command: x"),
        Code::CronSchedule,
        "outside 0-59",
        "t.yml:4:17",
    );
    fails(
        &cron("schedule: '0 0 * foo *'\n      command: x"),
        Code::CronSchedule,
        "or a name (jan",
        "t.yml:4:17",
    );
    fails(
        &cron("schedule: '0 5-1 * * *'\n      command: x"),
        Code::CronSchedule,
        "runs backwards",
        "t.yml:4:17",
    );
    fails(
        &cron("schedule: '*/0 * * * *'\n      command: x"),
        Code::CronSchedule,
        "not a positive number",
        "t.yml:4:17",
    );
    fails(
        &cron("schedule: '@fortnightly'\n      command: x"),
        Code::CronSchedule,
        "is not one of @reboot",
        "t.yml:4:17",
    );
    let d = fails(
        &cron("schedule: '@daily'\n      command: date +%F"),
        Code::CronCommand,
        "unescaped `%`",
        "t.yml:5:16",
    );
    assert!(format!("{d:?}").contains("\\\\%"), "{d:?}");
    fails(
        &cron("schedule: '@daily'\n      command: -q run"),
        Code::CronCommand,
        "starts with `-`",
        "t.yml:5:16",
    );
    fails(
        &cron("schedule: '@daily'\n      command: \"a\\nb\""),
        Code::CronCommand,
        "a newline",
        "t.yml:5:16",
    );
    fails(
        &cron("schedule: '@daily'\n      command: x\n      user: 'a:b'"),
        Code::CronUser,
        "contains `:`",
        "t.yml:6:13",
    );
    fails(
        &cron("schedule: '@daily'"),
        Code::MissingKey,
        "has no `command`",
        "t.yml:3:5",
    );
    // A misspelt key: suggested, and the entry lacks its command too.
    let diags = run(&cron("schedule: '@daily'\n      comand: x")).expect_err("refused");
    let got: Vec<(&str, String)> = diags.iter().map(|d| (d.code, super::at(d))).collect();
    assert_eq!(
        got,
        [
            ("beryl::schema::unknown_key", "t.yml:5:7".to_string()),
            ("beryl::schema::missing_key", "t.yml:3:5".to_string()),
        ]
    );
    assert!(diags[0].message.contains("did you mean `command`"));
    assert!(
        format!("{:?}", diags[0]).contains("schedule, user, command"),
        "{:?}",
        diags[0]
    );
    fails(
        "freebsd:\n  cron:\n    a.b:\n      schedule: '@daily'\n      command: x\n",
        Code::CronName,
        "contains `.`",
        "t.yml:3:5",
    );
}
