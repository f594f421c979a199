//! The fake FreeBSD installer (tests/fakebsd/, tests/integration/fakebsd/):
//! self-tests of the models, one per behaviour they must reproduce, then
//! every example host's `beryl plan` installed on a fresh fake machine, and
//! the re-install over an old pool.
//!
//! Needs root (chroot, mknod, `unshare -m`), dash, original-awk,
//! busybox-static and ../shared; skips with a notice without them, unless
//! BERYL_REQUIRE_TOOLS is set (as in .ci/run), where it fails.

use crate::fakebsd::{Disk, FakeBsd, Options, probed_name};
use crate::harness::repo;
use crate::plan::{example_hosts, example_plan};

/// A machine whose base system is already extracted into the target, for
/// the self-tests of the target tools.
fn installed(test: &str) -> Option<FakeBsd> {
    let bsd = FakeBsd::new(&Options::default(), test)?;
    bsd.extract_base();
    Some(bsd)
}

/// Runs `script` as root on the installed system and returns the run.
fn sh(bsd: &FakeBsd, script: &str) -> crate::fakebsd::Run {
    bsd.run_in_target(script, &[], "root")
}

fn fixture(name: &str) -> String {
    std::fs::read_to_string(repo().join("tests/fixtures/install").join(name)).unwrap()
}

// ---------------------------------------------------------------- sysrc

#[test]
fn sysrc_check_counts_the_defaults_but_list_does_not() {
    let Some(bsd) = installed("sysrc_check_counts_the_defaults_but_list_does_not") else {
        return;
    };
    // sendmail_enable="NONE" and syslogd_flags="-s" are defaults only.
    let run = sh(
        &bsd,
        "sysrc -f /etc/rc.conf hostname=h.example; \
         sysrc -f /etc/rc.conf -c sendmail_enable=NONE; echo c1=$?; \
         sysrc -f /etc/rc.conf -c sendmail_enable=YES; echo c2=$?; \
         sysrc -f /etc/rc.conf -c no_such_var=x; echo c3=$?; \
         sysrc -f /etc/rc.conf -a",
    );
    assert!(run.stdout.contains("c1=0"), "{}", run.all());
    assert!(run.stdout.contains("c2=1"), "{}", run.all());
    assert!(run.stdout.contains("c3=1"), "{}", run.all());
    assert!(run.stdout.contains("hostname: h.example"), "{}", run.all());
    assert!(
        !run.stdout.contains("sendmail_enable"),
        "-a lists a default:\n{}",
        run.all()
    );
}

#[test]
fn sysrc_sets_in_the_last_file_that_sets_it_else_rc_conf() {
    let Some(bsd) = installed("sysrc_sets_in_the_last_file_that_sets_it_else_rc_conf") else {
        return;
    };
    let run = sh(
        &bsd,
        "printf 'a=\"1\"\\n' > /etc/rc.conf; printf \"b='2'\\n\" > /etc/rc.conf.local; \
         sysrc b=3 && sysrc c=4 && sysrc sshd_enable=YES && \
         cat /etc/rc.conf; echo ==; cat /etc/rc.conf.local",
    );
    assert_eq!(run.status, 0, "{}", run.all());
    assert!(run.stdout.contains("b: 2 -> 3"), "{}", run.all());
    let (rc, local) = run.stdout.split_once("==\n").unwrap();
    assert!(
        local.contains("b='3'"),
        "quote style kept in rc.conf.local:\n{}",
        run.all()
    );
    assert!(
        rc.contains("c=\"4\"") && rc.contains("sshd_enable=\"YES\""),
        "{}",
        run.all()
    );
    assert!(!local.contains("c="), "{}", run.all());
}

// ---------------------------------------------------------------- pw

#[test]
fn pw_refuses_an_existing_login_and_missing_groups() {
    let Some(bsd) = installed("pw_refuses_an_existing_login_and_missing_groups") else {
        return;
    };
    let run = sh(&bsd, "pw useradd -n root -m -h -; echo st=$?");
    assert!(run.stdout.contains("st=65"), "{}", run.all());
    assert!(
        run.stderr.contains("pw: login name `root' already exists"),
        "{}",
        run.all()
    );
    let run = sh(&bsd, "pw useradd -n zed -G nosuchgroup -h -; echo st=$?");
    assert!(run.stdout.contains("st=67"), "{}", run.all());
    assert!(
        run.stderr.contains("group `nosuchgroup' does not exist"),
        "{}",
        run.all()
    );
}

#[test]
fn pw_useradd_then_usermod_replaces_groups() {
    let Some(bsd) = installed("pw_useradd_then_usermod_replaces_groups") else {
        return;
    };
    let run = sh(
        &bsd,
        "pw useradd -n zed -m -s /usr/local/bin/nonexistent -g staff -G wheel,operator -c 'Zed Z' -u 1500 -h - && \
         pw usershow -n zed && pw groupshow -n wheel && \
         pw usermod -n zed -G '' && pw groupshow -n wheel && pw groupshow -n operator && \
         stat -f '%Lp %Su %Sg' /home/zed && ls -a /home/zed",
    );
    assert_eq!(run.status, 0, "{}", run.all());
    let lines: Vec<&str> = run.stdout.lines().collect();
    // -s with a path is taken as is (no /etc/shells, no existence check).
    assert_eq!(
        lines[0],
        "zed:*:1500:20::0:0:Zed Z:/home/zed:/usr/local/bin/nonexistent"
    );
    assert_eq!(lines[1], "wheel:*:0:root,zed");
    assert_eq!(lines[2], "wheel:*:0:root", "-G '' empties the groups");
    assert!(lines[3].starts_with("operator:*:5:") && !lines[3].contains("zed"));
    assert_eq!(lines[4], "755 zed staff");
    assert!(run.stdout.contains(".profile"), "{}", run.all());
}

// ---------------------------------------------------------------- pkg

#[test]
fn pkg_bootstrapper_refuses_without_a_tty_or_assume_always_yes() {
    let Some(bsd) = installed("pkg_bootstrapper_refuses_without_a_tty_or_assume_always_yes") else {
        return;
    };
    let run = sh(
        &bsd,
        "pkg install sudo; echo st=$?; ls /usr/local/sbin 2>&1",
    );
    assert!(run.stdout.contains("st=1"), "{}", run.all());
    assert!(
        run.stderr.contains("Please set ASSUME_ALWAYS_YES=yes environment variable to be able to bootstrap in non-interactive (stdin not being a tty)"),
        "{}",
        run.all()
    );
    assert!(!run.stdout.contains("pkg\n"), "{}", run.all());
    // -y on the subcommand counts (pkg.c parses it for every subcommand).
    let run = sh(&bsd, "pkg install -y sudo && ls /usr/local/sbin");
    assert_eq!(run.status, 0, "{}", run.all());
    assert!(run.stdout.contains("visudo"), "{}", run.all());
    let run = sh(
        &bsd,
        "env ASSUME_ALWAYS_YES=yes pkg bootstrap -f; pkg bootstrap",
    );
    assert!(
        run.stdout
            .contains("pkg already bootstrapped at /usr/local/sbin/pkg"),
        "{}",
        run.all()
    );
}

#[test]
fn pkg_info_exists_by_origin_follows_info_c() {
    let Some(bsd) = installed("pkg_info_exists_by_origin_follows_info_c") else {
        return;
    };
    // No package database yet: -O exits 0 (EPKG_ENODB), even with -e.
    let run = sh(
        &bsd,
        "pkg() { /usr/share/fakebsd/pkgfiles/pkg \"$@\"; }; \
         pkg info -e -O x/y; echo nodb-eO=$?; pkg info -e x/y; echo nodb-e=$?",
    );
    assert!(run.stdout.contains("nodb-eO=0"), "{}", run.all());
    assert!(run.stdout.contains("nodb-e=1"), "{}", run.all());
    // With a database (pkg itself is registered by the bootstrap).
    let run = sh(
        &bsd,
        "env ASSUME_ALWAYS_YES=yes pkg bootstrap >/dev/null && pkg install -y sudo >/dev/null; \
         pkg info -O x/y; echo O=$?; \
         pkg info -e -O x/y; echo eO=$?; \
         pkg info -e x/y; echo e=$?; \
         pkg info -e security/sudo; echo origin=$?; \
         pkg info -e sudo; echo name=$?; pkg query '%o' | sort",
    );
    assert!(run.stdout.contains("O=0"), "{}", run.all());
    assert!(
        run.stdout.contains("eO=1"),
        "-e keeps its 1 with -O:\n{}",
        run.all()
    );
    assert!(run.stdout.contains("\ne=1"), "{}", run.all());
    assert!(run.stdout.contains("origin=0"), "{}", run.all());
    assert!(run.stdout.contains("name=0"), "{}", run.all());
    assert!(
        run.stdout.contains("ports-mgmt/pkg\nsecurity/sudo"),
        "{}",
        run.all()
    );
}

#[test]
fn pkg_install_of_an_unknown_package_fails() {
    let Some(bsd) = installed("pkg_install_of_an_unknown_package_fails") else {
        return;
    };
    let run = sh(
        &bsd,
        "pkg install -y sudo no-such-pkg; echo st=$?; ls /usr/local/bin 2>&1",
    );
    assert!(run.stdout.contains("st=1"), "{}", run.all());
    assert!(run.stderr.contains("'no-such-pkg'"), "{}", run.all());
    assert!(
        !run.stdout.contains("sudo"),
        "nothing installed:\n{}",
        run.all()
    );
}

// ---------------------------------------------------------------- service

#[test]
fn service_finds_scripts_by_file_name_and_acts_on_their_rcvar() {
    let Some(bsd) = installed("service_finds_scripts_by_file_name_and_acts_on_their_rcvar") else {
        return;
    };
    let run = sh(&bsd, "service gateway enable; echo st=$?");
    assert!(run.stdout.contains("st=1"), "{}", run.all());
    assert!(
        run.stdout
            .contains("gateway does not exist in /etc/rc.d or the local startup"),
        "{}",
        run.all()
    );
    let run = sh(
        &bsd,
        "service ipfw enabled; echo before=$?; service ipfw enable && service ipfw enabled; \
         echo after=$?; cat /etc/rc.conf",
    );
    assert!(run.stdout.contains("before=1"), "{}", run.all());
    assert!(
        run.stdout.contains("ipfw enabled in /etc/rc.conf"),
        "{}",
        run.all()
    );
    assert!(run.stdout.contains("after=0"), "{}", run.all());
    assert!(
        run.stdout.contains("firewall_enable=\"YES\""),
        "{}",
        run.all()
    );
    assert!(!run.stdout.contains("ipfw_enable"), "{}", run.all());
}

// ---------------------------------------------------------------- tzsetup

#[test]
fn tzsetup_installs_the_zone_and_records_even_an_unknown_one() {
    let Some(bsd) = installed("tzsetup_installs_the_zone_and_records_even_an_unknown_one") else {
        return;
    };
    let run = sh(
        &bsd,
        "tzsetup -s Europe/Paris; echo st=$?; cat /var/db/zoneinfo; \
         cmp /etc/localtime /usr/share/zoneinfo/Europe/Paris && echo same; \
         tzsetup -s Mars/Olympus; echo bad=$?; cat /var/db/zoneinfo",
    );
    assert!(
        run.stdout.contains("st=0\nEurope/Paris\nsame"),
        "{}",
        run.all()
    );
    assert!(run.stdout.contains("bad=1\nMars/Olympus"), "{}", run.all());
    assert!(
        run.stderr
            .contains("Could not open /usr/share/zoneinfo/Mars/Olympus"),
        "{}",
        run.all()
    );
}

// ---------------------------------------------------------------- media

#[test]
fn route_refuses_a_default_route_that_exists() {
    let Some(bsd) = installed("route_refuses_a_default_route_that_exists") else {
        return;
    };
    // The live host has a default route via 192.0.2.1.
    let run = sh(&bsd, "route add default 192.0.2.254; echo st=$?");
    assert!(run.stdout.contains("st=1"), "{}", run.all());
    assert!(
        run.stdout
            .contains("add net default: gateway 192.0.2.254 fib 0: route already in table"),
        "{}",
        run.all()
    );
    assert!(run.stderr.contains("File exists"), "{}", run.all());
    let run = sh(
        &bsd,
        "route change default 192.0.2.254 && route -n get default",
    );
    assert_eq!(run.status, 0, "{}", run.all());
    assert!(run.stdout.contains("gateway: 192.0.2.254"), "{}", run.all());
}

#[test]
fn zfsboot_hangs_on_a_disk_that_is_not_probed() {
    let opts = Options {
        disks: vec![Disk::new("nda0")],
        ..Options::default()
    };
    let Some(bsd) = FakeBsd::new(&opts, "zfsboot_hangs_on_a_disk_that_is_not_probed") else {
        return;
    };
    let run = bsd.install(&fixture("nvd0.installerconfig"));
    assert_ne!(run.status, 0, "{}", run.all());
    let hang = run.hang.as_deref().unwrap_or_default();
    assert!(
        hang.contains("Missing one or more scripted disks!"),
        "{}",
        run.all()
    );
    assert!(hang.contains("nvd0"), "{}", run.all());
    // The same file with the probed name installs.
    let run = bsd.install(&fixture("nvd0.installerconfig").replace("nvd0", "nda0"));
    assert_eq!(run.status, 0, "{}", run.all());
    assert_eq!(probed_name("15.0", "nvd3"), "nda3");
    assert_eq!(probed_name("13.2", "nvd3"), "nvd3");
}

#[test]
fn zfsboot_hangs_without_non_interactive_or_enough_disks() {
    let opts = Options {
        disks: vec![Disk::new("ada0")],
        ..Options::default()
    };
    let Some(bsd) = FakeBsd::new(
        &opts,
        "zfsboot_hangs_without_non_interactive_or_enough_disks",
    ) else {
        return;
    };
    let base = fixture("nvd0.installerconfig").replace("nvd0", "ada0");
    let run = bsd.install(&base.replace("export nonInteractive=YES\n", ""));
    assert!(
        run.hang
            .as_deref()
            .unwrap_or_default()
            .contains("dialog_menu_main"),
        "{}",
        run.all()
    );
    let run = bsd.install(&base.replace("ZFSBOOT_VDEV_TYPE=stripe", "ZFSBOOT_VDEV_TYPE=mirror"));
    assert!(
        run.hang
            .as_deref()
            .unwrap_or_default()
            .contains("Not enough disks selected"),
        "{}",
        run.all()
    );
}

// ---------------------------------------------------------------- re-install

#[test]
fn reinstall_over_an_old_pool_hangs_unless_the_preamble_clears_it() {
    let opts = Options {
        disks: vec![
            Disk::with_pool("ada0", "zroot"),
            Disk::with_pool("ada1", "zroot"),
        ],
        ..Options::default()
    };
    let test = "reinstall_over_an_old_pool_hangs_unless_the_preamble_clears_it";
    let Some(bsd) = FakeBsd::new(&opts, test) else {
        return;
    };
    let run = bsd.install(&fixture("reinstall-plain.installerconfig"));
    assert_ne!(run.status, 0, "{}", run.all());
    assert!(
        run.hang
            .as_deref()
            .unwrap_or_default()
            .contains("zroot is already taken"),
        "{}",
        run.all()
    );
    let Some(bsd) = FakeBsd::new(&opts, test) else {
        return;
    };
    let run = bsd.install(&fixture("reinstall-cleared.installerconfig"));
    assert_eq!(run.status, 0, "{}", run.all());
    assert!(run.hang.is_none(), "{}", run.all());
    assert!(run.stdout.contains("fixture: reinstalled"), "{}", run.all());
    // The pool the install left is exported: a second install on this machine
    // sees it again.
    let run = bsd.install(&fixture("reinstall-plain.installerconfig"));
    assert!(
        run.hang
            .as_deref()
            .unwrap_or_default()
            .contains("zroot is already taken"),
        "{}",
        run.all()
    );
}

#[test]
fn missing_dists_without_a_site_hang_in_mirrorselect() {
    let opts = Options {
        media_has_dists: false,
        ..Options::default()
    };
    let Some(bsd) = FakeBsd::new(&opts, "missing_dists_without_a_site_hang_in_mirrorselect") else {
        return;
    };
    let text = fixture("nvd0.installerconfig").replace("nvd0", "ada0");
    let run = bsd.install(&text);
    assert!(
        run.hang
            .as_deref()
            .unwrap_or_default()
            .contains("mirrorselect"),
        "{}",
        run.all()
    );
}

// ---------------------------------------------------------------- the example

/// The summary line the setup script ends with.
fn summary(plan: &str) -> String {
    plan.lines()
        .rev()
        .find(|l| l.starts_with("echo "))
        .map(|l| l.trim_start_matches("echo ").trim_matches('\'').to_string())
        .unwrap_or_default()
}

#[test]
fn every_example_host_installs() {
    let hosts = example_hosts();
    let mut failures = Vec::new();
    for fqdn in &hosts {
        let plan = example_plan(fqdn, false);
        let json: serde_json::Value =
            serde_json::from_str(&example_plan(fqdn, true)).expect("plan json");
        let version: &'static str = match json["version"].as_str().unwrap_or("15.0") {
            "14.3" => "14.3",
            "14.2" => "14.2",
            _ => "15.0",
        };
        let disks: Vec<Disk> = json["preamble"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["name"] == "ZFSBOOT_DISKS")
            .and_then(|v| v["value"].as_str())
            .unwrap_or("")
            .split_whitespace()
            .map(|d| Disk::new(&probed_name(version, d)))
            .collect();
        let opts = Options {
            disks,
            version,
            ..Options::default()
        };
        let Some(bsd) = FakeBsd::new(&opts, "every_example_host_installs") else {
            return;
        };
        let run = bsd.install(&plan);
        let mut problems = Vec::new();
        if run.status != 0 {
            problems.push(format!("exit {}", run.status));
        }
        if let Some(h) = &run.hang {
            problems.push(format!("hang: {}", h.trim()));
        }
        let want = summary(&plan);
        if want.is_empty() || !run.stdout.contains(&want) {
            problems.push(format!("no summary line {want:?}"));
        }
        let master =
            std::fs::read_to_string(bsd.target().join("etc/master.passwd")).unwrap_or_default();
        let root_pw = master
            .lines()
            .find(|l| l.starts_with("root:"))
            .and_then(|l| l.split(':').nth(1))
            .unwrap_or("?");
        if root_pw != "*" {
            problems.push(format!("root's password field is {root_pw:?}, not \"*\""));
        }
        if !problems.is_empty() {
            let tail: Vec<&str> = run
                .stdout
                .lines()
                .chain(run.stderr.lines())
                .filter(|l| !l.trim().is_empty())
                .collect();
            let tail = tail[tail.len().saturating_sub(6)..].join("\n    ");
            failures.push(format!("{fqdn}: {}\n    {tail}", problems.join("; ")));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} example hosts do not install:\n{}",
        failures.len(),
        hosts.len(),
        failures.join("\n")
    );
}

// ---------------------------------------------------------------- sudo, identity

#[test]
fn sudo_runs_as_root_only_for_nopasswd_grants_and_visudo_checks() {
    let Some(bsd) = installed("sudo_runs_as_root_only_for_nopasswd_grants_and_visudo_checks")
    else {
        return;
    };
    let run = sh(
        &bsd,
        "pkg install -y sudo >/dev/null && \
         pw useradd -n zed -G wheel -h - && pw useradd -n yan -h - && \
         printf '%s\\n' '%wheel ALL=(ALL:ALL) NOPASSWD: ALL' > /usr/local/etc/sudoers.d/ops && \
         /usr/local/sbin/visudo -cf /usr/local/etc/sudoers.d/ops; echo good=$?; \
         printf '%s\\n' 'this is not sudoers' > /tmp/bad; \
         /usr/local/sbin/visudo -cf /tmp/bad; echo bad=$?",
    );
    assert!(run.stdout.contains("parsed OK\ngood=0"), "{}", run.all());
    assert!(run.stdout.contains("bad=1"), "{}", run.all());
    let script =
        "id -un; /usr/local/bin/sudo -n id -un; echo sudo=$?; pw useradd -n x -h -; echo pw=$?";
    let zed = bsd.run_in_target(script, &[], "zed");
    assert!(zed.stdout.starts_with("zed\nroot\nsudo=0"), "{}", zed.all());
    assert!(zed.stdout.contains("pw=77"), "{}", zed.all());
    assert!(zed.stderr.contains("pw: you must be root"), "{}", zed.all());
    let yan = bsd.run_in_target(script, &[], "yan");
    assert!(yan.stdout.contains("sudo=1"), "{}", yan.all());
    assert!(
        yan.stderr.contains("yan is not in the sudoers file."),
        "{}",
        yan.all()
    );
}

#[test]
fn stat_and_sha256_print_freebsd_formats() {
    let Some(bsd) = installed("stat_and_sha256_print_freebsd_formats") else {
        return;
    };
    let run = sh(
        &bsd,
        "printf abc > /tmp/f && chown 0:5 /tmp/f && chmod 640 /tmp/f && \
         stat -f '%Lp %Su %Sg' /tmp/f && stat -f '%#Lp %u:%g' /tmp/f && \
         sha256 -q /tmp/f && sha256 /tmp/f; stat -f %Lp /nonexistent; echo st=$?",
    );
    assert!(
        run.stdout.starts_with(
            "640 root operator\n0640 0:5\n\
             ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\n\
             SHA256 (/tmp/f) = ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\nst=1"
        ),
        "{}",
        run.all()
    );
}
