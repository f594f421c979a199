//! `freebsd.services`, `notify` and the rc.conf variables other scripts'
//! `rc.conf.d` files can set (issue 34, items 2, 8, 11, 14), on the fake
//! FreeBSD (tests/fakebsd/README.md), whose rc.d scripts take their
//! `status` and `reload` keywords from tests/fakebsd/data/rcd-methods.tsv
//! (each row read in libexec/rc/rc.d, held to src/freebsd/rcd.rs) and whose
//! rc.subr follows `run_rc_command` (libexec/rc/rc.subr 02274513).

use crate::live::{agree, apply, changed, fixture, installed, sh};

/// What rc.subr answers the harness's scripts: a one-shot script has no
/// `status` (rc.d/accounting 33852691: no command, no status_cmd; "unknown
/// directive", exit 1) and cleartmp no rcvar; cron lists no `reload`
/// (rc.d/cron d28066d8); sshd does (rc.d/sshd 6d13bb0e). These are what
/// beryl's refusals at check time rest on (tests/cases/schema/
/// services-one-shot.case, notify-reload.case).
#[test]
fn one_shot_scripts_have_no_status_and_cron_no_reload() {
    let test = "one_shot_scripts_have_no_status_and_cron_no_reload";
    let dir = fixture("freebsd:\n  packages: [tmux]\n");
    let Some(bsd) = installed(dir.path(), "live", test) else {
        return;
    };
    let rc = |cmd: &str| sh(&bsd, &format!("{cmd} >/dev/null 2>&1; echo $?"));
    assert_eq!(rc("service accounting onestatus"), "1\n");
    assert_eq!(rc("service cleartmp status"), "1\n");
    assert_eq!(rc("service sshd onestatus"), "0\n");
    assert_eq!(rc("service cron onereload"), "1\n");
    assert!(
        sh(&bsd, "service cron reload 2>&1 || true").contains("unknown directive 'reload'"),
        "cron reload"
    );
    assert_eq!(rc("service sshd reload"), "0\n");
    // A one-shot start leaves nothing running: status never says started.
    assert_eq!(
        rc("{ service dnctl onestart && service dnctl onestatus; }"),
        "1\n"
    );
}

/// A disabled service on an rc.subr that gates `status` by the rcvar (the
/// older rc.subr, ea40e879: "Cannot 'status' NAME. Set NAME_enable to YES
/// … or use 'onestatus'", exit 0). The old check `! service NAME status`
/// never passed there and its change ran `onestop` on a stopped service,
/// which failed ("not running?"); `onestatus` is right on every release.
#[test]
fn a_disabled_service_converges_where_status_is_gated() {
    let test = "a_disabled_service_converges_where_status_is_gated";
    let dir = fixture("freebsd:\n  services:\n    ntpd: {enable: false}\n");
    let Some(bsd) = installed(dir.path(), "live", test) else {
        return;
    };
    sh(
        &bsd,
        "mkdir -p /usr/share/fakebsd && : > /usr/share/fakebsd/rcsubr-status-gated",
    );
    assert!(
        sh(&bsd, "service ntpd status || true").contains("use 'onestatus'"),
        "the gate"
    );
    agree(&bsd, dir.path(), "live", &[]);
    // Started by hand while disabled: apply stops it, then nothing is left.
    sh(&bsd, "service ntpd onestart");
    agree(&bsd, dir.path(), "live", &["~ service:ntpd"]);
    assert!(sh(&bsd, "service ntpd onestatus || true").contains("is not running"));
}

/// An admin's `rc.conf.d` file for a script without an rcvar: rc.d/netif
/// runs `load_rc_config network` then `load_rc_config netif` (023fc80e),
/// rc.d/hostname `load_rc_config hostname` (6d13bb0e), rc.d/routing
/// `load_rc_config routing` (023fc80e), so their values win at boot. beryl
/// found no owner for `ifconfig_*`, `hostname` or `defaultrouter`: the check
/// said `=` while the next boot used the admin's value.
#[test]
fn an_admin_s_rc_conf_d_for_netif_hostname_and_routing_is_seen() {
    let test = "an_admin_s_rc_conf_d_for_netif_hostname_and_routing_is_seen";
    let dir = fixture("freebsd:\n  network:\n    defaultrouter: 192.0.2.1\n");
    let Some(bsd) = installed(dir.path(), "live", test) else {
        return;
    };
    let d = dir.path();
    agree(&bsd, d, "live", &[]);
    sh(
        &bsd,
        "mkdir -p /etc/rc.conf.d && \
         echo 'ifconfig_vtnet0=\"inet 198.51.100.7/24\"' > /etc/rc.conf.d/netif && \
         echo 'hostname=\"intruder.example.net\"' > /etc/rc.conf.d/hostname && \
         echo 'defaultrouter=\"198.51.100.1\"' > /etc/rc.conf.d/routing",
    );
    agree(
        &bsd,
        d,
        "live",
        &[
            "~ rc:hostname",
            "~ rc:ifconfig_vtnet0",
            "~ rc:defaultrouter",
        ],
    );
    let boot = ". /etc/rc.subr; load_rc_config network; load_rc_config netif; \
                load_rc_config hostname; load_rc_config routing; \
                echo \"$ifconfig_vtnet0|$hostname|$defaultrouter\"";
    assert_eq!(sh(&bsd, boot), "DHCP|live.example.org|192.0.2.1\n");
    let second = apply(&bsd, d, "live");
    assert!(changed(&second).is_empty(), "{}", second.all());
}
