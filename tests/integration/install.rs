//! The fake FreeBSD installer (tests/fakebsd/, tests/integration/fakebsd/):
//! self-tests of the models, one per behaviour they must reproduce, then
//! every example host's `beryl plan` installed on a fresh fake machine, the
//! files, modes and owners host01's install leaves (what the old stub runs
//! of plan/exec.rs checked), and the re-install over an old pool.
//!
//! Needs root (chroot, mknod, `unshare -m`), dash, original-awk,
//! busybox-static and ../shared; skips with a notice without them, unless
//! BERYL_REQUIRE_TOOLS is set (as in .ci/run), where it fails.

use crate::fakebsd::{Disk, FakeBsd, Options, probed_name};
use crate::plan::example_plan;
use crate::support::{example_hosts, fixtures};

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
    std::fs::read_to_string(fixtures().join("install").join(name)).unwrap()
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

#[test]
fn sysrc_reads_no_variable_of_its_environment() {
    let Some(bsd) = installed("sysrc_reads_no_variable_of_its_environment") else {
        return;
    };
    // f_sysrc_get cleans the environment before sourcing the files.
    let run = sh(
        &bsd,
        "export HOME=/root; sysrc -n HOME; echo n=$?; sysrc -c HOME=/root; echo c=$?; \
         sysrc 'foo=$HOME'; sysrc -n foo | od -c | head -n 1",
    );
    assert!(run.stdout.contains("n=1"), "{}", run.all());
    assert!(run.stdout.contains("c=1"), "{}", run.all());
    assert!(
        run.stderr.contains("sysrc: unknown variable 'HOME'"),
        "{}",
        run.all()
    );
    assert!(run.stdout.contains("foo:  -> \n"), "{}", run.all());
    assert!(!run.stdout.contains("/root"), "{}", run.all());
}

#[test]
fn sysrc_all_lists_what_the_defaults_file_itself_sets() {
    let Some(bsd) = installed("sysrc_all_lists_what_the_defaults_file_itself_sets") else {
        return;
    };
    let run = sh(&bsd, "sysrc -A; echo ==; sysrc -a");
    let (all, files) = run.stdout.split_once("==\n").unwrap();
    assert!(all.contains("_localbase: /usr/local\n"), "{}", run.all());
    assert!(
        all.contains("source_rc_confs_defined: yes\n"),
        "{}",
        run.all()
    );
    assert!(!files.contains("_localbase"), "{}", run.all());
}

#[test]
fn sysrc_delete_of_a_name_only_the_defaults_set_succeeds() {
    let Some(bsd) = installed("sysrc_delete_of_a_name_only_the_defaults_set_succeeds") else {
        return;
    };
    let run = sh(
        &bsd,
        "echo 'hostname=\"h\"' > /etc/rc.conf; sysrc -x sshd_enable; echo x=$?; \
         sysrc -f /etc/x.conf -x sshd_enable; echo xf=$?; sysrc -x nothere_enable; echo xn=$?",
    );
    assert!(run.stdout.contains("x=0"), "{}", run.all());
    assert!(run.stdout.contains("xf=0"), "{}", run.all());
    assert!(run.stdout.contains("xn=1"), "{}", run.all());
}

#[test]
fn sysrc_append_uses_a_punctuation_delimiter() {
    let Some(bsd) = installed("sysrc_append_uses_a_punctuation_delimiter") else {
        return;
    };
    let run = sh(
        &bsd,
        "echo 'foo=\"a\"' > /etc/rc.conf; sysrc 'foo+=,b'; sysrc 'foo+=,a'; sysrc 'foo-=,a'; \
         sysrc 'bar+=x y'; sysrc 'bar+=y z'",
    );
    assert!(run.stdout.contains("foo: a -> a,b\n"), "{}", run.all());
    assert!(run.stdout.contains("foo: a,b -> a,b\n"), "{}", run.all());
    assert!(run.stdout.contains("foo: a,b -> b\n"), "{}", run.all());
    assert!(run.stdout.contains("bar: x y -> x y z\n"), "{}", run.all());
}

#[test]
fn sysrc_verbose_check_names_the_file() {
    let Some(bsd) = installed("sysrc_verbose_check_names_the_file") else {
        return;
    };
    let run = sh(
        &bsd,
        "echo 'sshd_enable=\"YES\"' > /etc/rc.conf; sysrc -v -c sshd_enable=YES; \
         sysrc -v -c syslogd_flags=x",
    );
    assert!(
        run.stdout
            .contains("/etc/rc.conf: sshd_enable: already set to `YES'"),
        "{}",
        run.all()
    );
    assert!(
        run.stdout
            .contains("/etc/defaults/rc.conf: syslogd_flags: would change from `-s' to `x'"),
        "{}",
        run.all()
    );
}

#[test]
fn sysrc_refused_rewrite_shows_only_its_own_message() {
    let Some(bsd) = installed("sysrc_refused_rewrite_shows_only_its_own_message") else {
        return;
    };
    let run = sh(
        &bsd,
        "echo 'foo=\"old\"' > /etc/rc.conf; sysrc 'foo=a\"b'; echo st=$?",
    );
    assert!(run.stdout.contains("st=1"), "{}", run.all());
    assert_eq!(
        run.stderr.trim(),
        "sysrc: Not overwriting `/etc/rc.conf' due to previous syntax errors",
        "{}",
        run.all()
    );
}

#[test]
fn sysrc_rewrites_a_multi_line_value_upside_down() {
    let Some(bsd) = installed("sysrc_rewrites_a_multi_line_value_upside_down") else {
        return;
    };
    // awk -v turns \n into a newline; tail -r reverses the value's lines too.
    let run = sh(
        &bsd,
        "printf 'bar=\"old\"\\n' > /etc/rc.conf; sysrc 'bar=x\\ny' >/dev/null; cat /etc/rc.conf",
    );
    assert_eq!(run.stdout, "y\"\nbar=\"x\n", "{}", run.all());
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

#[test]
fn service_stop_is_gated_for_a_disabled_service() {
    let Some(bsd) = installed("service_stop_is_gated_for_a_disabled_service") else {
        return;
    };
    let run = sh(
        &bsd,
        "service sshd stop; echo st=$?; service sshd onestop; cat /var/log/fakebsd-rcd.log",
    );
    assert!(
        run.stdout.contains(
            "Cannot 'stop' sshd. Set sshd_enable to YES in /etc/rc.conf or use 'onestop' instead of 'stop'."
        ),
        "{}",
        run.all()
    );
    assert!(run.stdout.contains("st=0"), "{}", run.all());
    assert_eq!(
        run.stdout.matches("sshd stop").count(),
        1,
        "only onestop runs stop:\n{}",
        run.all()
    );
}

#[test]
fn service_keywords_and_rcvar_listing_follow_rc_subr() {
    let Some(bsd) = installed("service_keywords_and_rcvar_listing_follow_rc_subr") else {
        return;
    };
    // sshd_program (a default) makes `status poll` keywords, and rc.d/sshd
    // lists reload in extra_commands (6d13bb0e); rcvar lists the
    // description and each variable's default.
    let run = sh(
        &bsd,
        r#"cat > /tmp/x <<'END'
name=x
rcvar=x_enable
desc="An x"
x_enable_desc="Run x"
x_enable_defval=NO
set_rcvar_obsolete x_old x_enable
run_rc_command "$1"
END
service sshd rcvar
(. /etc/rc.subr; set -- rcvar; . /tmp/x)
service sshd frobnicate"#,
    );
    assert!(
        run.stderr
            .contains("|describe|extracommands|reload|status|poll)\n"),
        "{}",
        run.all()
    );
    assert!(
        run.stdout
            .contains("#\nsshd_enable=\"NO\"\n#   (default: \"\")\n"),
        "{}",
        run.all()
    );
    assert!(
        run.stdout
            .contains("# x : An x\n#\nx_enable=\"\"\n# - Run x\n#   (default: \"NO\")\n"),
        "{}",
        run.all()
    );
    assert!(!run.stderr.contains("not found"), "{}", run.all());
}

#[test]
fn service_enable_searches_an_rc_conf_d_directory() {
    let Some(bsd) = installed("service_enable_searches_an_rc_conf_d_directory") else {
        return;
    };
    let run = sh(
        &bsd,
        "mkdir -p /etc/rc.conf.d/sshd; echo 'sshd_enable=\"NO\"' > /etc/rc.conf.d/sshd/a; \
         service sshd enable; cat /etc/rc.conf.d/sshd/a; [ -e /etc/rc.conf ] || echo no-rc.conf",
    );
    assert!(
        run.stdout
            .contains("sshd enabled in /etc/rc.conf.d/sshd/a\nsshd_enable=\"YES\""),
        "{}",
        run.all()
    );
    assert!(run.stdout.contains("no-rc.conf"), "{}", run.all());
}

#[test]
fn service_delete_removes_an_emptied_file_when_asked() {
    let Some(bsd) = installed("service_delete_removes_an_emptied_file_when_asked") else {
        return;
    };
    let run = sh(
        &bsd,
        "mkdir -p /etc/rc.conf.d; echo 'sshd_enable=\"YES\"' > /etc/rc.conf.d/sshd; \
         echo 'sshd_enable=\"YES\"' > /etc/rc.conf.d/ntpd; \
         echo 'service_delete_empty=\"YES\"' > /etc/rc.conf; service sshd delete; \
         [ -e /etc/rc.conf.d/sshd ] || echo gone",
    );
    assert!(
        run.stdout.contains(
            "sshd_enable deleted in /etc/rc.conf.d/sshd\nEmpty file /etc/rc.conf.d/sshd removed\ngone"
        ),
        "{}",
        run.all()
    );
}

#[test]
fn service_usage_lists_every_option() {
    let Some(bsd) = installed("service_usage_lists_every_option") else {
        return;
    };
    let run = sh(&bsd, "service sshd; echo st=$?");
    assert!(run.stdout.contains("st=1"), "{}", run.all());
    assert!(
        run.stdout.contains("service [-j <jail name or id>] -R\n"),
        "{}",
        run.all()
    );
    for opt in [
        "-j\t\t",
        "-E n=val\t",
        "-e\t\t",
        "-R\t\t",
        "-l\t\t",
        "-r\t\t",
        "-v\t\t",
    ] {
        assert!(
            run.stdout.contains(&format!("\n{opt}")),
            "{opt:?}: {}",
            run.all()
        );
    }
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

// ---------------------------------------------------------------- the installer's log

/// A one-disk ZFS install whose preamble is `log` (plus the disk settings)
/// and whose setup script is `setup`.
fn one_disk_config(log: &str, setup: &str) -> String {
    format!(
        "export nonInteractive=YES\nexport ZFSBOOT_DISKS=ada0\nexport ZFSBOOT_VDEV_TYPE=stripe\n\
         {log}\n#!/bin/sh\n{setup}\n"
    )
}

/// The pools the fake kernel has imported (one name a line).
fn imported_pools(bsd: &FakeBsd) -> String {
    std::fs::read_to_string(bsd.target().join("../dev/fakebsd/imported-pools")).unwrap_or_default()
}

#[test]
fn a_preamble_without_bsdinstall_log_loses_the_installers_log() {
    let test = "a_preamble_without_bsdinstall_log_loses_the_installers_log";
    // script re-initialises debugFile from BSDINSTALL_LOG after the preamble:
    // unset, the log is emptied, verbs' stderr goes to /dev/null and config
    // copies nothing into the target.
    let Some(bsd) = FakeBsd::new(&Options::default(), test) else {
        return;
    };
    let run = bsd.install(&one_disk_config("", "echo setup ran"));
    assert_eq!(run.status, 0, "{}", run.all());
    assert!(run.stdout.contains("setup ran"), "{}", run.all());
    assert!(
        !bsd.target().join("var/log/bsdinstall_log").exists(),
        "a log reached the target without BSDINSTALL_LOG:\n{}",
        run.all()
    );
    let Some(bsd) = FakeBsd::new(&Options::default(), test) else {
        return;
    };
    let run = bsd.install(&one_disk_config(
        "export BSDINSTALL_LOG=/tmp/bsdinstall_log",
        "echo setup ran",
    ));
    assert_eq!(run.status, 0, "{}", run.all());
    assert!(
        bsd.target().join("var/log/bsdinstall_log").is_file(),
        "no log in the target with BSDINSTALL_LOG set:\n{}",
        run.all()
    );
}

#[test]
fn a_failed_install_without_bsdinstall_log_leaves_the_pool_imported() {
    let test = "a_failed_install_without_bsdinstall_log_leaves_the_pool_imported";
    // error() dies in f_getvar when debugFile is empty: no textbox, no
    // `zpool export`.
    let Some(bsd) = FakeBsd::new(&Options::default(), test) else {
        return;
    };
    let run = bsd.install(&one_disk_config("", "exit 3"));
    assert_eq!(run.status, 1, "{}", run.all());
    assert!(
        imported_pools(&bsd).contains("zroot"),
        "the pool was exported:\n{}",
        run.all()
    );
    assert!(
        !run.all().contains("installation error"),
        "error() showed its textbox:\n{}",
        run.all()
    );
    let Some(bsd) = FakeBsd::new(&Options::default(), test) else {
        return;
    };
    let run = bsd.install(&one_disk_config(
        "export BSDINSTALL_LOG=/tmp/bsdinstall_log",
        "exit 3",
    ));
    assert_eq!(run.status, 1, "{}", run.all());
    assert!(
        !imported_pools(&bsd).contains("zroot"),
        "the pool stayed imported:\n{}",
        run.all()
    );
    assert!(run.log.contains("installation error"), "{}", run.all());
}

#[test]
fn a_preamble_exit_keeps_its_status() {
    let test = "a_preamble_exit_keeps_its_status";
    // error()'s bare `exit` (no fstab yet) keeps the status the shell was
    // exiting with: `exit 0` in the preamble "succeeds" with nothing installed.
    let Some(bsd) = FakeBsd::new(&Options::default(), test) else {
        return;
    };
    let run = bsd.install(&one_disk_config("exit 0", "echo setup ran"));
    assert_eq!(run.status, 0, "{}", run.all());
    assert!(!run.stdout.contains("setup ran"), "{}", run.all());
    let run = bsd.install(&one_disk_config("(exit 3)", "echo setup ran"));
    assert_eq!(run.status, 3, "{}", run.all());
}

// ---------------------------------------------------------------- the example

/// The summary line the setup script ends with.
fn summary(plan: &str) -> String {
    plan.lines()
        .rev()
        .find_map(|l| l.strip_prefix("printf '%s\\n' "))
        .map(|l| l.trim_matches('\'').to_string())
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
        let opts = Options::for_plan(&json);
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
        // The plan sets BSDINSTALL_LOG, so the installer's log reaches the target.
        if !bsd.target().join("var/log/bsdinstall_log").is_file() {
            problems.push("no var/log/bsdinstall_log in the target".to_string());
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

// ---------------------------------------------------------------- files and modes

/// An sshd_config already in the base system: beryl's three keywords must
/// be dropped wherever they stand uncommented in the global section (any
/// case, any indentation, `keyword value` or `keyword=value` as sshd reads
/// both), kept inside a Match block, and everything else kept in order.
const SSHD_CONFIG: &str = "\
#\t$OpenBSD: sshd_config,v 1.105 2024/12/03 14:12:47 dtucker Exp $
#PermitRootLogin no
PermitRootLogin yes
Port 22
  passwordauthentication yes
KbdInteractiveAuthentication\tyes
#PasswordAuthentication no
PermitTunnel no
Subsystem\tsftp\t/usr/libexec/sftp-server
Match Address 192.0.2.0/24
\tPasswordAuthentication=yes
\tPermitRootLogin = yes
\tX11Forwarding no
";

/// What remains of [`SSHD_CONFIG`] below beryl's lines.
const SSHD_KEPT: &str = "\
#\t$OpenBSD: sshd_config,v 1.105 2024/12/03 14:12:47 dtucker Exp $
#PermitRootLogin no
Port 22
#PasswordAuthentication no
PermitTunnel no
Subsystem\tsftp\t/usr/libexec/sftp-server
Match Address 192.0.2.0/24
\tPasswordAuthentication=yes
\tPermitRootLogin = yes
\tX11Forwarding no
";

/// host01 installed over a base whose sshd_config has a Match block (put in
/// place by a line after the setup script's `set -eu`, before beryl's
/// steps): every authorized_keys is 0600 in a 0700 .ssh, both owned by the
/// user and the group the plan names, under the home pw gave; the sudoers
/// drop-in is 0440 root:wheel with the plan's lines and no temporary file
/// left; sshd_config starts with beryl's block and keeps the rest, the Match
/// block's own settings included.
#[test]
fn example_host_files_have_their_modes_and_owners() {
    use std::os::unix::fs::MetadataExt;
    let test = "example_host_files_have_their_modes_and_owners";
    let fqdn = "host01.example.org";
    let plan = example_plan(fqdn, false);
    let json: serde_json::Value =
        serde_json::from_str(&example_plan(fqdn, true)).expect("plan json");
    let disks: Vec<Disk> = json["preamble"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["name"] == "ZFSBOOT_DISKS")
        .and_then(|v| v["value"].as_str())
        .unwrap()
        .split_whitespace()
        .map(|d| Disk::new(&probed_name("15.0", d)))
        .collect();
    let opts = Options {
        disks,
        ..Options::default()
    };
    let Some(bsd) = FakeBsd::new(&opts, test) else {
        return;
    };
    let put = format!(
        "\nset -eu\nprintf '%s' '{}' > /etc/ssh/sshd_config\n",
        SSHD_CONFIG.replace('\'', "'\\''")
    );
    assert!(plan.contains("\nset -eu\n"));
    let run = bsd.install(&plan.replacen("\nset -eu\n", &put, 1));
    assert!(run.status == 0 && run.hang.is_none(), "{}", run.all());
    assert!(run.stdout.contains(&summary(&plan)), "{}", run.all());

    let target = bsd.target();
    let read = |p: &str| std::fs::read_to_string(target.join(p)).unwrap();
    let master = read("etc/master.passwd");
    let group = read("etc/group");
    let gid = |name: &str| -> u32 {
        let line = group
            .lines()
            .find(|l| l.split(':').next() == Some(name))
            .unwrap_or_else(|| panic!("no group {name}:\n{group}"));
        line.split(':').nth(2).unwrap().parse().unwrap()
    };
    let meta = |p: &str| {
        std::fs::symlink_metadata(target.join(p.trim_start_matches('/')))
            .unwrap_or_else(|e| panic!("{p}: {e}"))
    };
    let mut checked = 0;
    for step in json["steps"].as_array().unwrap() {
        match step["kind"].as_str().unwrap() {
            "keys" => {
                let user = step["user"].as_str().unwrap();
                let f: Vec<&str> = master
                    .lines()
                    .find(|l| l.split(':').next() == Some(user))
                    .unwrap_or_else(|| panic!("no user {user}"))
                    .split(':')
                    .collect();
                let (uid, home): (u32, &str) = (f[2].parse().unwrap(), f[8]);
                let gid = gid(step["group"].as_str().unwrap());
                let dir = format!("{home}/.ssh");
                let file = format!("{dir}/authorized_keys");
                for (path, mode) in [(&dir, 0o700), (&file, 0o600)] {
                    let m = meta(path);
                    assert_eq!(m.mode() & 0o7777, mode, "{path}: mode {:o}", m.mode());
                    assert_eq!((m.uid(), m.gid()), (uid, gid), "{path}: owner");
                }
                let want: String = step["keys"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|k| format!("{}\n", k.as_str().unwrap()))
                    .collect();
                assert_eq!(read(file.trim_start_matches('/')), want, "{file}");
                checked += 1;
            }
            "file" => {
                let path = step["path"].as_str().unwrap();
                let m = meta(path);
                let mode = u32::from_str_radix(step["mode"].as_str().unwrap(), 8).unwrap();
                assert_eq!(m.mode() & 0o7777, mode, "{path}: mode {:o}", m.mode());
                assert_eq!((m.uid(), m.gid()), (0, gid("wheel")), "{path}: owner");
                assert_eq!(
                    read(path.trim_start_matches('/')),
                    step["content"].as_str().unwrap()
                );
                let (dir, name) = path.rsplit_once('/').unwrap();
                let staged = format!("{}/.beryl-{name}", dir.trim_start_matches('/'));
                assert!(!target.join(staged.trim_start_matches('/')).exists());
                checked += 1;
            }
            _ => {}
        }
    }
    assert!(checked >= 5, "host01 has keys and a sudoers drop-in");
    assert_eq!(
        meta("/usr/local/etc/sudoers.d/beryl").mode() & 0o7777,
        0o440
    );

    let sshd = read("etc/ssh/sshd_config");
    let settings: String = json["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["kind"] == "sshd")
        .unwrap()["settings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|kv| format!("{} {}\n", kv[0].as_str().unwrap(), kv[1].as_str().unwrap()))
        .collect();
    assert_eq!(
        sshd,
        format!("# Set by beryl.\n{settings}# End of the settings set by beryl.\n{SSHD_KEPT}")
    );
    assert!(!target.join("etc/ssh/sshd_config.beryl-tmp").exists());
}
