//! Self-tests of the fake FreeBSD's jail tools (tests/fakebsd/README.md,
//! issue 36): `jls` and `jexec` over the fake kernel's jails
//! (tests/fakebsd/common/usr/share/fakebsd/jail.subr), run in the installed
//! fake system as root, one test per behaviour the models take from
//! usr.sbin/jls/jls.c and usr.sbin/jexec/jexec.c.
//!
//! Needs root (chroot, mknod, `unshare -m`), dash, original-awk and
//! busybox-static; skips with a notice without them, unless
//! BERYL_REQUIRE_TOOLS is set, where it fails.

use crate::fakebsd::{FakeBsd, Options, Run};

/// An installed fake system with two running jails in the fake kernel:
/// `www` (jid 1: two addresses, persist) and `db` (jid 2: no address, an
/// empty host name), each root a copy of the base userland with a marker
/// file `/marker` naming the jail.
fn with_jails(test: &str) -> Option<FakeBsd> {
    let bsd = FakeBsd::new(&Options::default(), test)?;
    bsd.extract_base();
    let run = sh(
        &bsd,
        "set -e\n\
         . /usr/share/fakebsd/jail.subr\n\
         for j in www db; do\n\
         \tmkdir -p /jails/$j\n\
         \t(cd / && tar -cf - bin sbin lib* usr etc root) | (cd /jails/$j && tar -xf -)\n\
         \techo jail-$j > /jails/$j/marker\n\
         done\n\
         fakebsd_jail_register www /jails/www host.hostname=www.example.org \
         ip4.addr=192.0.2.20,192.0.2.21 persist=true\n\
         fakebsd_jail_register db /jails/db host.hostname=\n",
        &[],
    );
    assert_eq!(run.status, 0, "{}", run.all());
    assert_eq!(run.stdout, "1\n2\n", "the jids given");
    Some(bsd)
}

fn sh(bsd: &FakeBsd, script: &str, env: &[(&str, &str)]) -> Run {
    bsd.run_in_target(script, env, "root")
}

/// The default header line of jls.c's print_jail (PRINT_DEFAULT).
const HEADER: &str = "   JID  IP Address      Hostname                      Path\n";

// ---------------------------------------------------------------- jls

#[test]
fn jls_lists_the_running_jails_in_jid_order() {
    let Some(bsd) = FakeBsd::new(
        &Options::default(),
        "jls_lists_the_running_jails_in_jid_order",
    ) else {
        return;
    };
    bsd.extract_base();
    // No jail: the header only, status 0.
    let run = sh(&bsd, "jls; echo st=$?", &[]);
    assert_eq!(run.stdout, format!("{HEADER}st=0\n"), "{}", run.all());
    drop(bsd);

    let Some(bsd) = with_jails("jls_lists_the_running_jails_in_jid_order") else {
        return;
    };
    let run = sh(&bsd, "jls; jls -N", &[]);
    assert_eq!(run.status, 0, "{}", run.all());
    assert_eq!(
        run.stdout,
        format!(
            "{HEADER}\
             \x20    1  192.0.2.20      www.example.org               /jails/www\n\
             \x20    2                                                /jails/db\n\
             \x20JID             IP Address      Hostname                      Path\n\
             \x20www             192.0.2.20      www.example.org               /jails/www\n\
             \x20db                                                            /jails/db\n"
        ),
        "{}",
        run.all()
    );
}

#[test]
fn jls_prints_named_parameters_of_one_jail() {
    let Some(bsd) = with_jails("jls_prints_named_parameters_of_one_jail") else {
        return;
    };
    let run = sh(
        &bsd,
        "jls -j www jid\n\
         jls -j 2 name\n\
         jls -j 002 name\n\
         jls -j www host.hostname ip4.addr persist\n\
         jls -n -j www host.hostname ip4.addr persist ip6.addr\n\
         jls -n -j db host.hostname persist ip6.addr\n\
         jls -nq -j db host.hostname persist ip6.addr\n\
         jls -h -j www jid name\n\
         jls name\n",
        &[],
    );
    assert_eq!(run.status, 0, "{}", run.all());
    assert_eq!(
        run.stdout,
        "1\n\
         db\n\
         db\n\
         www.example.org 192.0.2.20,192.0.2.21 true\n\
         host.hostname=www.example.org ip4.addr=192.0.2.20,192.0.2.21 persist ip6.addr=\n\
         host.hostname=\"\" nopersist ip6.addr=\n\
         host.hostname=\"\" nopersist ip6.addr=\"\"\n\
         jid name\n\
         1 www\n\
         www\n\
         db\n",
        "{}",
        run.all()
    );
    assert_eq!(run.stderr, "");
}

#[test]
fn jls_n_without_parameters_prints_every_parameter_sorted() {
    let Some(bsd) = with_jails("jls_n_without_parameters_prints_every_parameter_sorted") else {
        return;
    };
    let run = sh(&bsd, "jls -n -j www", &[]);
    assert_eq!(run.status, 0, "{}", run.all());
    // Top-level names first, then dotted ones, each group by strcmp.
    assert_eq!(
        run.stdout,
        "devfs_ruleset=0 nodying enforce_statfs=0 jid=1 name=www osreldate=0 osrelease=\"\" \
         parent=0 path=/jails/www persist securelevel=0 vnet=disable \
         allow.nochflags allow.nomlock allow.nomount allow.noquotas allow.noraw_sockets \
         allow.noread_msgbuf allow.noreserved_ports allow.noset_hostname allow.nosocket_af \
         allow.nosuser allow.nosysvipc allow.nounprivileged_proc_debug \
         children.cur=0 children.max=0 host.domainname=\"\" host.hostname=www.example.org \
         host.hostuuid=\"\" ip4.addr=192.0.2.20,192.0.2.21 ip6.addr=\n",
        "{}",
        run.all()
    );
}

#[test]
fn jls_refuses_a_missing_jail_an_unknown_parameter_and_a_bad_option() {
    let Some(bsd) = with_jails("jls_refuses_a_missing_jail_an_unknown_parameter_and_a_bad_option")
    else {
        return;
    };
    for (cmd, stdout, stderr) in [
        // The header is printed before the lookup.
        ("jls -j nope", HEADER, "jls: jail \"nope\" not found\n"),
        ("jls -j 9 jid", "", "jls: jail 9 not found\n"),
        // -j 0 is read as a name.
        ("jls -j 0 jid", "", "jls: jail \"0\" not found\n"),
        ("jls -j www bogus", "", "jls: unknown parameter: bogus\n"),
    ] {
        let run = sh(&bsd, cmd, &[]);
        assert_eq!(
            (run.status, run.stdout.as_str(), run.stderr.as_str()),
            (1, stdout, stderr),
            "{cmd}"
        );
    }
    // A bad option: the usage (getopt(3)'s own line before it is libc's,
    // not modelled).
    let run = sh(&bsd, "jls -x", &[]);
    assert_eq!(run.status, 1, "{}", run.all());
    assert!(
        run.stderr
            .ends_with("jls: usage: jls [-dhNnqv] [-j jail] [param ...]\n"),
        "{}",
        run.all()
    );
}

// ---------------------------------------------------------------- jexec

#[test]
fn jexec_l_runs_stdin_in_the_jail_with_a_clean_environment() {
    let Some(bsd) = with_jails("jexec_l_runs_stdin_in_the_jail_with_a_clean_environment") else {
        return;
    };
    // The script arrives on stdin, runs in the jail's root (its marker, not
    // the host's), in HOME, with only what jexec.c sets; its status is
    // jexec's. (PWD is the command's own: dash, like FreeBSD's sh, exports
    // it at startup; jexec itself sets none.)
    let run = bsd.exec_in_target(
        "jexec -l www /bin/sh -s",
        "echo cwd=$(pwd)\ncat /marker\nenv | sort\nexit 7\n",
        &[("FOO", "bar"), ("TERM", "vt100")],
        "root",
    );
    assert_eq!(
        (run.status, run.stdout.as_str(), run.stderr.as_str()),
        (
            7,
            "cwd=/root\njail-www\nHOME=/root\nPATH=/bin:/usr/bin\nPWD=/root\nSHELL=/bin/sh\nTERM=vt100\nUSER=root\n",
            ""
        ),
        "{}",
        run.all()
    );
    // Without TERM, none is set.
    let run = sh(&bsd, "jexec -l 2 /bin/sh -c 'cat /marker; env | sort'", &[]);
    assert_eq!(
        run.stdout,
        "jail-db\nHOME=/root\nPATH=/bin:/usr/bin\nPWD=/root\nSHELL=/bin/sh\nUSER=root\n",
        "{}",
        run.all()
    );
}

#[test]
fn jexec_without_l_keeps_the_environment_and_starts_in_the_root() {
    let Some(bsd) = with_jails("jexec_without_l_keeps_the_environment_and_starts_in_the_root")
    else {
        return;
    };
    let run = sh(
        &bsd,
        "cd /tmp && jexec www /bin/sh -c 'pwd; echo \"$FOO\"; cat marker'",
        &[("FOO", "bar")],
    );
    assert_eq!(run.status, 0, "{}", run.all());
    assert_eq!(run.stdout, "/\nbar\njail-www\n", "{}", run.all());
}

#[test]
fn jexec_fails_with_status_1_for_a_missing_jail_command_or_home() {
    let Some(bsd) = with_jails("jexec_fails_with_status_1_for_a_missing_jail_command_or_home")
    else {
        return;
    };
    for (cmd, stderr) in [
        ("jexec -l nope /bin/sh", "jexec: jail \"nope\" not found\n"),
        ("jexec 9 /bin/sh", "jexec: jail 9 not found\n"),
        (
            "jexec www /nonexistent",
            "jexec: execvp: /nonexistent: No such file or directory\n",
        ),
        (
            "jexec -l www nosuchcommand",
            "jexec: execvp: nosuchcommand: No such file or directory\n",
        ),
        (
            "jexec",
            "usage: jexec [-l] [-u username | -U username] jail [command ...]\n",
        ),
        (
            "rm -rf /jails/db/root && jexec -l db /bin/sh -c 'echo ran'",
            "jexec: chdir: /root: No such file or directory\n",
        ),
    ] {
        let run = sh(&bsd, cmd, &[]);
        assert_eq!(
            (run.status, run.stdout.as_str(), run.stderr.as_str()),
            (1, "", stderr),
            "{cmd}"
        );
    }
}

// ---------------------------------------------------------------- jail -e

/// A jail.conf with what beryl writes and the grammar around it: comments
/// of the three kinds, a global variable and global parameters, `+=`,
/// quotes, `$name`, `${var}`, a valueless boolean and a `*` section after
/// the jails.
const CONF: &str = r#"# beryl-like
$base = "/jails";
exec.clean;
mount.devfs;
www {
	host.hostname = "www.example.org";
	path = "$base/$name";
	ip4.addr = "em0|192.0.2.20/24";
	ip4.addr += 192.0.2.21;
	exec.start = "/bin/sh /etc/rc";
	exec.stop = 'echo "$bye"';   // single quotes: no expansion
	label = "it's";
	/* a block
	   comment */
	allow.raw_sockets = 1;
	persist;
}
db { path = ${base}/db; host.hostname = db.${base}; }
* { devfs_ruleset = 4; }
"#;

/// Writes `text` as the installed system's `/etc/jail.conf.d/NAME.conf`.
fn conf(bsd: &FakeBsd, name: &str, text: &str) {
    let dir = bsd.target().join("etc/jail.conf.d");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(format!("{name}.conf")), text).unwrap();
}

#[test]
fn jail_e_prints_each_configured_jail_with_its_parameters_resolved() {
    let Some(bsd) = with_jails("jail_e_prints_each_configured_jail_with_its_parameters_resolved")
    else {
        return;
    };
    conf(&bsd, "www", CONF);
    let run = sh(
        &bsd,
        "jail -f /etc/jail.conf.d/www.conf -e ' '; echo st=$?\n\
         jail -f - -e '|' < /etc/jail.conf.d/www.conf | tail -n 1",
        &[],
    );
    assert_eq!(run.stderr, "", "{}", run.all());
    assert_eq!(
        run.stdout,
        "name=www exec.clean mount.devfs host.hostname=www.example.org path=/jails/www \
         ip4.addr=em0|192.0.2.20/24,192.0.2.21 exec.start=\"/bin/sh /etc/rc\" \
         exec.stop='echo \"$bye\"' label=\"it's\" allow.raw_sockets=1 persist devfs_ruleset=4\n\
         name=db exec.clean mount.devfs path=/jails/db host.hostname=db./jails devfs_ruleset=4\n\
         st=0\n\
         name=db|exec.clean|mount.devfs|path=/jails/db|host.hostname=db./jails|devfs_ruleset=4\n",
        "{}",
        run.all()
    );
}

#[test]
fn jail_e_warns_on_an_undefined_variable_and_still_exits_0() {
    let Some(bsd) = with_jails("jail_e_warns_on_an_undefined_variable_and_still_exits_0") else {
        return;
    };
    conf(&bsd, "www", "www {\n\tpath = /jails/$nope;\n}\n");
    let run = sh(&bsd, "jail -f /etc/jail.conf.d/www.conf -e ' '", &[]);
    // The warning is the only sign: beryl must treat any stderr from
    // `jail -e` as a failure.
    assert_eq!(
        (run.status, run.stdout.as_str(), run.stderr.as_str()),
        (
            0,
            "name=www path=/jails/\n",
            "jail: www: path: variable \"nope\" not found\n"
        ),
        "{}",
        run.all()
    );
}

#[test]
fn jail_e_exits_1_on_a_syntax_error_a_missing_file_or_a_jail_argument() {
    let Some(bsd) =
        with_jails("jail_e_exits_1_on_a_syntax_error_a_missing_file_or_a_jail_argument")
    else {
        return;
    };
    conf(&bsd, "semi", "www {\n\tpath = /jails/www\n}\n");
    conf(&bsd, "eof", "www {\n\tpath = /jails/www;\n");
    conf(&bsd, "quote", "www {\n\tpath = \"/jails/www;\n}\n");
    conf(&bsd, "www", "www { path = /jails/www; }\n");
    for (cmd, stderr) in [
        (
            "jail -f /etc/jail.conf.d/semi.conf -e ' '",
            "jail: /etc/jail.conf.d/semi.conf line 3: }: syntax error\n",
        ),
        (
            "jail -f /etc/jail.conf.d/eof.conf -e ' '",
            "jail: /etc/jail.conf.d/eof.conf: unexpected EOF\n",
        ),
        (
            "jail -f /etc/jail.conf.d/quote.conf -e ' '",
            "jail: /etc/jail.conf.d/quote.conf line 2: unterminated string\n\
             jail: /etc/jail.conf.d/quote.conf line 3: }: syntax error\n",
        ),
        (
            "jail -f /etc/jail.conf.d/none.conf -e ' '",
            "jail: /etc/jail.conf.d/none.conf: No such file or directory\n",
        ),
    ] {
        let run = sh(&bsd, cmd, &[]);
        assert_eq!(
            (run.status, run.stdout.as_str(), run.stderr.as_str()),
            (1, "", stderr),
            "{cmd}"
        );
    }
    // -e takes no jail name (jail.c main: `if (op || argc > 0) usage()`).
    let run = sh(&bsd, "jail -f /etc/jail.conf.d/www.conf -e ' ' www", &[]);
    assert_eq!(run.status, 1, "{}", run.all());
    assert!(
        run.stderr.starts_with("usage: jail [-dhilqv]")
            && run.stderr.ends_with("       jail [-f file] -e separator\n"),
        "{}",
        run.all()
    );
}

// ---------------------------------------------------------------- jail -c / -r

/// An installed system with a jail root `/jails/NAME` (a copy of the base
/// userland with its `/marker`) for each name, none running.
fn with_roots(test: &str, names: &[&str]) -> Option<FakeBsd> {
    let bsd = FakeBsd::new(&Options::default(), test)?;
    bsd.extract_base();
    for name in names {
        let run = sh(
            &bsd,
            &format!(
                "set -e\nmkdir -p /jails/{name}\n\
                 (cd / && tar -cf - bin sbin lib* usr etc root var tmp) | (cd /jails/{name} && tar -xf -)\n\
                 mkdir /jails/{name}/dev\necho jail-{name} > /jails/{name}/marker\n"
            ),
            &[],
        );
        assert_eq!(run.status, 0, "{}", run.all());
    }
    Some(bsd)
}

/// A jail's conf as beryl might write it (single quotes keep the shell's
/// `$` from jail.conf's variables).
const APP: &str = r#"app {
	path = "/jails/app";
	host.hostname = "app.example.org";
	ip4.addr = 192.0.2.30/24;
	exec.clean;
	mount.devfs;
	exec.prestart = "echo prestart >> /tmp/trace";
	exec.start = 'echo started in $(cat /marker) as $USER in $(pwd) >> /var/log/start; ls /dev/null >> /var/log/start';
	exec.poststop = "echo poststop >> /tmp/trace";
	persist;
}
"#;

/// exec.consolelog (usr.sbin/jail/command.c run_command, index id
/// 1427912018): what exec.start and exec.stop print in the jail goes to
/// the file, opened on the host with O_APPEND before the command enters
/// the jail, and jail(8) prints only its own lines; a relative path is
/// refused ("not an absolute pathname", check_path), which fails the
/// start: the jail made for it is removed.
#[test]
fn jail_c_sends_the_jails_commands_output_to_exec_consolelog() {
    let Some(bsd) = with_roots(
        "jail_c_sends_the_jails_commands_output_to_exec_consolelog",
        &["app"],
    ) else {
        return;
    };
    let with_log = |log: &str| {
        APP.replacen(
            "\texec.clean;",
            &format!("\texec.consolelog = \"{log}\";\n\texec.clean;\n\texec.stop = \"echo stopping $(cat /marker)\";"),
            1,
        )
        .replacen(
            "ls /dev/null >> /var/log/start';",
            "echo rc says hello; echo rc warns >&2';",
            1,
        )
    };
    conf(&bsd, "app", &with_log("/var/log/jail_app_console.log"));
    let run = sh(
        &bsd,
        "echo earlier > /var/log/jail_app_console.log
         jail -f /etc/jail.conf.d/app.conf -c app; echo st=$?
         jail -f /etc/jail.conf.d/app.conf -r app; echo st=$?
         cat /var/log/jail_app_console.log
",
        &[],
    );
    assert_eq!(
        (run.stdout.as_str(), run.stderr.as_str()),
        (
            "app: created\nst=0\napp: removed\nst=0\n\
             earlier\nrc says hello\nrc warns\nstopping jail-app\n",
            ""
        ),
        "{}",
        run.all()
    );
    // A process exec.start leaves in the background holds the log, not
    // the output of the `jail -c` that started it: a caller reading that
    // output to its end ($(…), as apply's steps do) is not held.
    conf(
        &bsd,
        "app",
        &with_log("/var/log/jail_app_console.log").replacen(
            "echo rc says hello;",
            "(sleep 3; echo late > /tmp/late) & echo rc says hello;",
            1,
        ),
    );
    let run = sh(
        &bsd,
        "out=$(jail -f /etc/jail.conf.d/app.conf -c app 2>&1); echo \"$out\"\n\
         if [ -e /jails/app/tmp/late ]; then echo held; else echo not held; fi\n\
         jail -f /etc/jail.conf.d/app.conf -r app\n",
        &[],
    );
    assert_eq!(
        (run.stdout.as_str(), run.stderr.as_str()),
        ("app: created\nnot held\napp: removed\n", ""),
        "{}",
        run.all()
    );
    conf(&bsd, "app", &with_log("var/log/app.log"));
    let run = sh(
        &bsd,
        "jail -f /etc/jail.conf.d/app.conf -c app; echo st=$?",
        &[],
    );
    assert_eq!(
        (run.stdout.as_str(), run.stderr.as_str()),
        (
            "app: created\napp: removed\nst=1\n",
            "jail: app: exec.consolelog: var/log/app.log: not an absolute pathname\n"
        ),
        "{}",
        run.all()
    );
}

#[test]
fn jail_c_creates_a_jail_from_its_conf_file_and_r_removes_it() {
    let Some(bsd) = with_roots(
        "jail_c_creates_a_jail_from_its_conf_file_and_r_removes_it",
        &["app"],
    ) else {
        return;
    };
    conf(&bsd, "app", APP);
    // Created: the hooks ran, exec.start in the jail with exec.clean's
    // environment (the jail's root user, cwd its home) and the jail's devfs;
    // the kernel has its parameters, ip4.addr without the prefix length.
    let run = sh(
        &bsd,
        "jail -f /etc/jail.conf.d/app.conf -c app; echo st=$?\n\
         jls -n -j app host.hostname ip4.addr persist\n\
         cat /tmp/trace /jails/app/var/log/start\n\
         jexec -l app cat /marker\n",
        &[],
    );
    assert_eq!(
        (run.stdout.as_str(), run.stderr.as_str()),
        (
            "app: created\nst=0\n\
             host.hostname=app.example.org ip4.addr=192.0.2.30 persist\n\
             prestart\nstarted in jail-app as root in /root\n/dev/null\njail-app\n",
            ""
        ),
        "{}",
        run.all()
    );
    // A later run (another mount namespace): still running, so -c refuses.
    let run = sh(&bsd, "jail -f /etc/jail.conf.d/app.conf -c app", &[]);
    assert_eq!(
        (run.status, run.stdout.as_str(), run.stderr.as_str()),
        (1, "", "jail: \"app\" already exists\n"),
        "{}",
        run.all()
    );
    // Removed: poststop ran, the devfs mount is gone, jls no longer sees it.
    let run = sh(
        &bsd,
        "jail -f /etc/jail.conf.d/app.conf -r app; echo st=$?\n\
         jls -j app jid; echo jls=$?\n\
         cat /tmp/trace; cat /dev/fakebsd/devfs-mounts\n",
        &[],
    );
    assert_eq!(
        (run.stdout.as_str(), run.stderr.as_str()),
        (
            "app: removed\nst=0\njls=1\nprestart\npoststop\n",
            "jls: jail \"app\" not found\n"
        ),
        "{}",
        run.all()
    );
    let run = sh(&bsd, "jail -f /etc/jail.conf.d/app.conf -r app", &[]);
    assert_eq!(
        (run.status, run.stdout.as_str(), run.stderr.as_str()),
        (1, "", "jail: \"app\" not found\n"),
        "{}",
        run.all()
    );
}

#[test]
fn jail_c_refuses_bad_values_and_undoes_a_failed_start() {
    let Some(bsd) = with_roots(
        "jail_c_refuses_bad_values_and_undoes_a_failed_start",
        &["app"],
    ) else {
        return;
    };
    for (body, stderr) in [
        (
            "path = /jails/app; persist = maybe;",
            "jail: app: persist: unknown boolean value \"maybe\"\n",
        ),
        (
            "path = /jails/app; persist; securelevel = high;",
            "jail: app: securelevel: non-integer value \"high\"\n",
        ),
        (
            "path = /jails/app; persist; bogus = 1;",
            "jail: app: unknown parameter: bogus\n",
        ),
        (
            "path = /jails/app; persist; exec.clean = sometimes;",
            "jail: app: exec.clean: unknown boolean value \"sometimes\"\n",
        ),
        (
            "path = /jails/none; persist;",
            "jail: app: path /jails/none: No such file or directory\n",
        ),
    ] {
        conf(&bsd, "app", &format!("app {{ {body} }}\n"));
        let run = sh(
            &bsd,
            "jail -f /etc/jail.conf.d/app.conf -c app; echo st=$?; jls name",
            &[],
        );
        assert_eq!(
            (run.stdout.as_str(), run.stderr.as_str()),
            ("st=1\n", stderr),
            "{body}"
        );
    }
    // A failing exec.start: the jail was created, then is removed again and
    // its devfs unmounted.
    conf(
        &bsd,
        "app",
        "app { path = /jails/app; mount.devfs; exec.start = /bin/false; }\n",
    );
    let run = sh(
        &bsd,
        "jail -f /etc/jail.conf.d/app.conf -c app; echo st=$?; jls name; \
         cat /dev/fakebsd/devfs-mounts",
        &[],
    );
    assert_eq!(
        (run.stdout.as_str(), run.stderr.as_str()),
        (
            "app: created\napp: removed\nst=1\n",
            "jail: app: /bin/false: failed\n"
        ),
        "{}",
        run.all()
    );
    // A jail the file does not configure.
    let run = sh(&bsd, "jail -f /etc/jail.conf.d/app.conf -c other", &[]);
    assert_eq!(
        (run.status, run.stderr.as_str()),
        (1, "jail: \"other\" not found\n"),
        "{}",
        run.all()
    );
}

// ---------------------------------------------------------------- ifconfig

#[test]
fn ifconfig_clones_epairs_and_bridges_at_the_lowest_free_unit() {
    let Some(bsd) = FakeBsd::new(
        &Options::default(),
        "ifconfig_clones_epairs_and_bridges_at_the_lowest_free_unit",
    ) else {
        return;
    };
    bsd.extract_base();
    // if_epair.c: `epair create` prints the a side and makes both; if_clone.c:
    // the lowest free unit; destroying one side destroys both.
    let run = sh(
        &bsd,
        "ifconfig epair create; ifconfig epair create; ifconfig -l\n\
         ifconfig epair0b destroy; ifconfig -l\n\
         ifconfig epair create\n\
         ifconfig epair1 create; echo st=$?\n\
         ifconfig bridge create; ifconfig bridge0 addm em0 addm epair1a up\n\
         ifconfig epair1a ether 02:AA:bb:cc:dd:01\n\
         ifconfig epair1a name e0a_www; ifconfig -l\n\
         ifconfig bridge0; ifconfig e0a_www\n\
         ifconfig epair9a inet 192.0.2.1/24; echo st=$?\n\
         ifconfig em0 inet 192.0.2.40/24 alias; ifconfig em0 inet 192.0.2.41 netmask 255.255.255.255 alias\n\
         ifconfig em0 inet 192.0.2.40 -alias; ifconfig em0\n",
        &[],
    );
    assert_eq!(
        run.stdout,
        "epair0a\nepair1a\nem0 epair0a epair0b epair1a epair1b lo0\n\
         em0 epair1a epair1b lo0\n\
         epair0a\nst=1\nbridge0\ne0a_www\n\
         bridge0 e0a_www em0 epair0a epair0b epair1b lo0\n\
         \tmember: em0\n\tmember: epair1a\n\
         \tether 02:aa:bb:cc:dd:01\n\
         st=1\n\
         inet 192.0.2.41/255.255.255.255\n",
        "{}",
        run.all()
    );
    assert_eq!(
        run.stderr,
        "ifconfig: SIOCIFCREATE2 (epair1): File exists\n\
         ifconfig: interface epair9a does not exist\n",
        "{}",
        run.all()
    );
}

// ---------------------------------------------------------------- zfs

#[test]
fn zfs_destroy_r_and_user_properties() {
    let Some(bsd) = FakeBsd::new(&Options::default(), "zfs_destroy_r_and_user_properties") else {
        return;
    };
    bsd.extract_base();
    let run = sh(
        &bsd,
        "set -e\n\
         : > /dev/ada0\n\
         zpool create zroot ada0\n\
         zfs create -p -o mountpoint=/jails zroot/jails\n\
         zfs create -o beryl:jail=www zroot/jails/www\n\
         zfs create -p zroot/jails/www/data/db\n\
         zfs get -H -p -o name,value,source beryl:jail zroot/jails/www zroot/jails/www/data zroot/jails\n\
         zfs set beryl:made='by beryl' zroot/jails\n\
         zfs get -H -p -o value,source beryl:made zroot/jails/www\n\
         ls -d /jails/www/data/db\n\
         zfs destroy zroot/jails/www 2>&1 || echo st=$?\n\
         zfs destroy -r zroot/jails/www\n\
         zfs list -H -o name -r zroot\n\
         ls /jails\n",
        &[],
    );
    assert_eq!(
        run.stdout,
        "zroot/jails/www\twww\tlocal\n\
         zroot/jails/www/data\twww\tinherited from zroot/jails/www\n\
         zroot/jails\t-\t-\n\
         by beryl\tinherited from zroot/jails\n\
         /jails/www/data/db\n\
         cannot destroy 'zroot/jails/www': filesystem has children\n\
         use '-r' to destroy the following datasets:\n\
         zroot/jails/www/data\nzroot/jails/www/data/db\nst=1\n\
         zroot\nzroot/jails\nwww\n",
        "{}",
        run.all()
    );
}

/// Snapshots and clones (zfs_main.c @00a38210 zfs_do_destroy and
/// destroy_check_dependent; zfs-snapshot.8 @02bf21b2; zfs-clone.8
/// @1d3ba0bf): a snapshot is read under `.zfs/snapshot` and does not follow
/// its file system; a clone starts with the snapshot's files; a file
/// system with a snapshot is not destroyed without -r, nor with -r while a
/// clone of its snapshot lives; a clone is destroyed alone.
#[test]
fn zfs_snapshots_clones_and_their_dependents() {
    let Some(bsd) = FakeBsd::new(
        &Options::default(),
        "zfs_snapshots_clones_and_their_dependents",
    ) else {
        return;
    };
    bsd.extract_base();
    let run = sh(
        &bsd,
        "set -e\n\
         : > /dev/ada0\n\
         zpool create zroot ada0\n\
         zfs create -p -o mountpoint=/gold zroot/jails/_base/r\n\
         echo v1 > /gold/f\n\
         zfs snapshot zroot/jails/_base/r@beryl\n\
         echo v2 > /gold/f\n\
         zfs snapshot zroot/jails/_base/r@beryl 2>&1 || echo st=$?\n\
         zfs list -H -t snapshot -o name\n\
         zfs list -H -t snapshot -o name zroot/jails/_base/r@none 2>&1 || echo st=$?\n\
         cat /gold/.zfs/snapshot/beryl/f\n\
         zfs clone -o mountpoint=/j/a zroot/jails/_base/r@beryl zroot/jails/a\n\
         zfs clone zroot/jails/_base/r@none zroot/jails/b 2>&1 || echo st=$?\n\
         cat /j/a/f; ls -a /j/a | grep -c zfs || :\n\
         zfs destroy zroot/jails/_base/r 2>&1 || echo st=$?\n\
         zfs destroy -r zroot/jails/_base 2>&1 || echo st=$?\n\
         zfs destroy zroot/jails/a\n\
         zfs destroy -r zroot/jails/_base\n\
         zfs list -H -o name -r zroot; zfs list -H -t snapshot -o name | wc -l\n",
        &[],
    );
    assert_eq!(
        run.stdout,
        "cannot create snapshot 'zroot/jails/_base/r@beryl': dataset already exists\n\
         st=1\n\
         zroot/jails/_base/r@beryl\n\
         cannot open 'zroot/jails/_base/r@none': dataset does not exist\n\
         st=1\n\
         v1\n\
         cannot open 'zroot/jails/_base/r@none': dataset does not exist\n\
         st=1\n\
         v1\n0\n\
         cannot destroy 'zroot/jails/_base/r': filesystem has children\n\
         use '-r' to destroy the following datasets:\n\
         zroot/jails/_base/r@beryl\n\
         st=1\n\
         cannot destroy 'zroot/jails/_base': filesystem has dependent clones\n\
         use '-R' to destroy the following datasets:\n\
         zroot/jails/a\n\
         st=1\n\
         zroot\nzroot/jails\n0\n",
        "{}",
        run.all()
    );
}

// ---------------------------------------------------------------- jail: networks, mounts

#[test]
fn jail_c_adds_ip_aliases_mounts_fstab_and_devfs_and_r_undoes_them() {
    let Some(bsd) = with_roots(
        "jail_c_adds_ip_aliases_mounts_fstab_and_devfs_and_r_undoes_them",
        &["app"],
    ) else {
        return;
    };
    conf(
        &bsd,
        "app",
        "app {\n\tpath = /jails/app;\n\tip4.addr = \"em0|192.0.2.30/24\";\n\
         \tip6.addr = \"em0|2001:db8::30\";\n\tmount.fstab = /etc/fstab.app;\n\
         \tmount.devfs;\n\tdevfs_ruleset = 5;\n\tallow.raw_sockets;\n\tpersist;\n}\n",
    );
    let run = sh(
        &bsd,
        "set -e\nmkdir -p /srv/data /srv/ro /jails/app/data /jails/app/ro\n\
         echo shared > /srv/data/f; echo conf > /srv/ro/f\n\
         printf '%s\\n' '# mounts' '/srv/data /jails/app/data nullfs rw 0 0' \
         '/srv/ro /jails/app/ro nullfs ro 0 0' > /etc/fstab.app\n\
         jail -f /etc/jail.conf.d/app.conf -c app\n\
         ifconfig em0\n\
         cat /dev/fakebsd/nullfs-mounts /dev/fakebsd/devfs-rulesets\n\
         jls -n -j app devfs_ruleset allow.raw_sockets ip4.addr ip6.addr\n\
         jexec -l app /bin/sh -c 'cat /data/f /ro/f; echo new > /data/g; \
         echo x > /ro/g 2>/dev/null || echo ro refused; cat /dev/fakebsd/self'\n\
         cat /srv/data/g\n\
         jail -f /etc/jail.conf.d/app.conf -r app\n\
         ifconfig em0; cat /dev/fakebsd/nullfs-mounts /dev/fakebsd/devfs-rulesets\n",
        &[],
    );
    assert_eq!(
        run.stdout,
        "app: created\n\
         inet 192.0.2.30/24\ninet6 2001:db8::30/128\n\
         /srv/data /jails/app/data rw\n/srv/ro /jails/app/ro ro\n/jails/app/dev 5\n\
         devfs_ruleset=5 allow.raw_sockets ip4.addr=192.0.2.30 ip6.addr=2001:db8::30\n\
         shared\nconf\nro refused\napp\nnew\n\
         app: removed\n",
        "{}",
        run.all()
    );
}

#[test]
fn jail_c_moves_a_vnet_interface_into_the_jail_and_the_host_gets_it_back() {
    let Some(bsd) = with_roots(
        "jail_c_moves_a_vnet_interface_into_the_jail_and_the_host_gets_it_back",
        &["v"],
    ) else {
        return;
    };
    conf(
        &bsd,
        "v",
        "v {\n\tpath = /jails/v;\n\tvnet;\n\tvnet.interface = epair0b;\n\tmount.devfs;\n\
         \texec.prestart = \"ifconfig epair0 create >/dev/null; ifconfig bridge0 addm epair0a up\";\n\
         \texec.start = \"ifconfig epair0b inet 192.0.2.50/24\";\n\
         \texec.poststop = \"ifconfig epair0a destroy\";\n\tpersist;\n}\n",
    );
    let run = sh(
        &bsd,
        "ifconfig bridge0 create >/dev/null\n\
         jail -f /etc/jail.conf.d/v.conf -c v\n\
         ifconfig -l; jexec -l v /sbin/ifconfig -l; jexec -l v /sbin/ifconfig epair0b\n\
         ifconfig epair0b; echo st=$?\n\
         jls -n -j v vnet\n\
         jail -f /etc/jail.conf.d/v.conf -r v; ifconfig -l\n",
        &[],
    );
    assert_eq!(
        run.stdout,
        "v: created\n\
         bridge0 em0 epair0a lo0\nepair0b\ninet 192.0.2.50/24\n\
         st=1\nvnet=new\n\
         v: removed\nbridge0 em0 lo0\n",
        "{}",
        run.all()
    );
    assert_eq!(
        run.stderr,
        "ifconfig: interface epair0b does not exist\n",
        "{}",
        run.all()
    );
}

// ---------------------------------------------------------------- jail -m, -rc, depend

#[test]
fn jail_m_changes_live_parameters_and_refuses_create_only_ones() {
    let Some(bsd) = with_roots(
        "jail_m_changes_live_parameters_and_refuses_create_only_ones",
        &["app"],
    ) else {
        return;
    };
    conf(
        &bsd,
        "app",
        "app { path = /jails/app; host.hostname = a.example.org; persist; }\n",
    );
    let run = sh(
        &bsd,
        "jail -f /etc/jail.conf.d/app.conf -c app\n\
         echo 'app { path = /jails/app; host.hostname = b.example.org; securelevel = 2; persist; }' \
         > /etc/jail.conf.d/app.conf\n\
         jail -f /etc/jail.conf.d/app.conf -m app; echo st=$?\n\
         jls -n -j app host.hostname securelevel\n\
         jail -m name=app securelevel=3; echo st=$?\n\
         jls -j app securelevel\n\
         echo 'app { path = /jails/other; persist; }' > /etc/jail.conf.d/app.conf\n\
         jail -f /etc/jail.conf.d/app.conf -m app; echo st=$?\n\
         jail -f /etc/jail.conf.d/app.conf -m nope; echo st=$?\n\
         jls -j app path\n",
        &[],
    );
    assert_eq!(
        run.stdout,
        "app: created\napp: updated\nst=0\n\
         host.hostname=b.example.org securelevel=2\n\
         app: updated\nst=0\n3\n\
         st=1\nst=1\n/jails/app\n",
        "{}",
        run.all()
    );
    assert_eq!(
        run.stderr,
        "jail: app: path cannot be changed after creation\njail: \"nope\" not found\n",
        "{}",
        run.all()
    );
}

#[test]
fn jail_c_starts_every_jail_in_depend_order_and_rc_restarts_one() {
    let Some(bsd) = with_roots(
        "jail_c_starts_every_jail_in_depend_order_and_rc_restarts_one",
        &["a", "b", "c"],
    ) else {
        return;
    };
    conf(
        &bsd,
        "all",
        "a { path = /jails/a; depend = b; persist; }\n\
         b { path = /jails/b; persist; }\n\
         c { path = /jails/c; persist; }\n\
         d { path = /jails/d; depend = e; persist; }\n",
    );
    let f = "/etc/jail.conf.d/all.conf";
    let run = sh(
        &bsd,
        &format!(
            "jail -f {f} -c; echo st=$?\njls name\n\
             jail -f {f} -c c; echo st=$?\n\
             jail -f {f} -rc b; echo st=$?\njls name\n\
             jail -f {f} -c a; echo st=$?\njls name\n\
             jail -f {f} -r a b c; echo st=$?\n\
             jail -f {f} -c a; echo st=$?\njls name\n"
        ),
        &[],
    );
    // state.c: b and c are ready first (file order), a when b is done; d
    // depends on an undefined jail. -rc b stops its dependent a first and
    // does not start it again; -c a starts b first.
    assert_eq!(
        run.stdout,
        "b: created\nc: created\na: created\nst=1\nb\nc\na\n\
         st=1\n\
         a: removed\nb: removed\nb: created\nst=0\nc\nb\n\
         a: created\nst=0\nc\nb\na\n\
         a: removed\nb: removed\nc: removed\nst=0\n\
         b: created\na: created\nst=0\nb\na\n",
        "{}",
        run.all()
    );
    assert_eq!(
        run.stderr,
        "jail: d: depends on undefined jail \"e\"\njail: \"c\" already exists\n",
        "{}",
        run.all()
    );
}

// ---------------------------------------------------------------- a jail's base, jexec -l

#[test]
fn a_jail_root_from_the_mirror_runs_the_fake_tools_inside_through_jexec_l() {
    let Some(bsd) = FakeBsd::new(
        &Options::default(),
        "a_jail_root_from_the_mirror_runs_the_fake_tools_inside_through_jexec_l",
    ) else {
        return;
    };
    bsd.extract_base();
    let path = bsd.jail_root("www");
    conf(
        &bsd,
        "www",
        &format!("www {{ path = {path}; mount.devfs; exec.clean; persist; }}\n"),
    );
    let run = bsd.exec_in_target(
        "jail -f /etc/jail.conf.d/www.conf -c www >/dev/null && jexec -l www /bin/sh -s",
        "set -e\necho \"$PATH $HOME $USER\"\nPATH=/sbin:/bin:/usr/sbin:/usr/bin\n\
         pw useradd alice -m -s /bin/sh\n\
         sysrc -f /etc/rc.conf sshd_enable=YES >/dev/null\n\
         grep -c '^alice:' /etc/passwd; cat /etc/rc.conf\n",
        &[],
        "root",
    );
    assert_eq!(
        run.stdout,
        "/bin:/usr/bin /root root\n1\nsshd_enable=\"YES\"\n",
        "{}",
        run.all()
    );
    // The users and rc.conf are the jail's, not the host's.
    let run = sh(
        &bsd,
        &format!(
            "grep -c '^alice:' /etc/passwd; grep -c '^alice:' {path}/etc/passwd; ls -d {path}/home/alice"
        ),
        &[],
    );
    assert_eq!(
        run.stdout,
        format!("0\n1\n{path}/home/alice\n"),
        "{}",
        run.all()
    );
}

// ------------------------------------------------- pkg --rootdir (pkgbase)

/// The pkg(8) model relocated to a root (tests/fakebsd/target/usr/share/
/// fakebsd/pkgbase, from freebsd/pkg @13f9f986): with the repository of
/// bsdinstall's FreeBSD-base.conf form in a directory of the host, it
/// installs the minimal-jail set into the root, and refuses what pkg
/// refuses: a missing root, an unknown repository, a catalogue signed by
/// no trusted key (none in the root nor on the host, or a revoked one),
/// and an install before any update.
#[test]
fn pkg_rootdir_installs_from_a_verified_base_repository_and_refuses_the_rest() {
    let test = "pkg_rootdir_installs_from_a_verified_base_repository_and_refuses_the_rest";
    let Some(bsd) = FakeBsd::new(&Options::default(), test) else {
        return;
    };
    bsd.extract_base();
    let prelude = "echo 'nameserver 192.0.2.1' > /etc/resolv.conf\n\
         mkdir -p /tmp/repos /jails/p\n\
         printf '%s\\n' 'FreeBSD-base: {' '  url: \"pkg+https://pkg.FreeBSD.org/${ABI}/base_release_0\",' \
         '  mirror_type: \"srv\",' '  signature_type: \"fingerprints\",' \
         '  fingerprints: \"/usr/share/keys/pkgbase-15\",' '  enabled: yes' '}' > /tmp/repos/FreeBSD-base.conf\n\
         pkg() { sh /usr/share/fakebsd/pkgfiles/pkg -C /dev/null --rootdir /jails/p \
         --repo-conf-dir /tmp/repos -o IGNORE_OSVERSION=yes \"$@\"; }\n";
    let run = sh(
        &bsd,
        &format!(
            "{prelude}pkg install -U -y -r FreeBSD-base FreeBSD-set-minimal-jail; echo st=$?\n\
             sh /usr/share/fakebsd/pkgfiles/pkg --rootdir /nonexistent --repo-conf-dir /tmp/repos update; echo st=$?\n\
             pkg update >/dev/null; echo st=$?\n\
             pkg install -U -y -r Nope FreeBSD-set-minimal-jail; echo st=$?\n\
             pkg install -U -y -r FreeBSD-base FreeBSD-set-nothing; echo st=$?\n\
             pkg rquery -U -r FreeBSD-base %n\n\
             pkg install -U -y -r FreeBSD-base FreeBSD-set-minimal-jail >/dev/null; echo st=$?\n\
             [ -x /jails/p/bin/sh ] && echo has-sh; [ -e /jails/p/boot/kernel/kernel ] || echo no-kernel\n\
             cut -f1 /jails/p/var/db/pkg/fakebsd-local.tsv\n"
        ),
        &[],
    );
    assert_eq!(
        run.stdout,
        "st=1\nst=1\nst=0\nst=1\nst=1\nFreeBSD-set-minimal-jail\nFreeBSD-kernel-generic\nst=0\n\
         has-sh\nno-kernel\nFreeBSD-set-minimal-jail\n",
        "{}",
        run.all()
    );
    for want in [
        "pkg: Repository FreeBSD-base cannot be opened. 'pkg update' required",
        "pkg: Invalid rootdir: No such file or directory",
        "pkg: Unknown repository: Nope",
        "pkg: No packages available to install matching 'FreeBSD-set-nothing'",
    ] {
        assert!(run.stderr.contains(want), "{want}:\n{}", run.all());
    }

    // The keys: the root's copy first, else the host's (38cccd7b); a
    // catalogue signed by no trusted key fails the update.
    let run = sh(
        &bsd,
        &format!(
            "rm -rf /jails/p\n{prelude}pkg update >/dev/null; echo host-keys=$?\n\
             mkdir -p /jails/p/usr/share/keys/pkgbase-15/trusted\n\
             pkg update >/dev/null; echo empty-root-keys=$?\n\
             printf 'function: \"sha256\"\\nfingerprint: \"other\"\\n' > /jails/p/usr/share/keys/pkgbase-15/trusted/x\n\
             pkg update >/dev/null; echo other-key=$?\n\
             cp /usr/share/keys/pkgbase-15/trusted/* /jails/p/usr/share/keys/pkgbase-15/trusted/\n\
             mkdir -p /jails/p/usr/share/keys/pkgbase-15/revoked\n\
             cp /usr/share/keys/pkgbase-15/trusted/* /jails/p/usr/share/keys/pkgbase-15/revoked/\n\
             pkg update >/dev/null; echo revoked=$?\n\
             rm -r /jails/p/usr/share/keys/pkgbase-15/revoked /usr/share/keys/pkgbase-15 /jails/p/usr/share/keys/pkgbase-15\n\
             pkg update >/dev/null; echo no-keys=$?\n"
        ),
        &[],
    );
    assert_eq!(
        run.stdout,
        "host-keys=0\nempty-root-keys=1\nother-key=1\nrevoked=1\nno-keys=1\n",
        "{}",
        run.all()
    );
    for want in [
        "pkg: No trusted certificates",
        "pkg: No trusted certificate has been used to sign the repository",
        "pkg: Error opening the trusted directory /usr/share/keys/pkgbase-15/trusted",
    ] {
        assert!(run.stderr.contains(want), "{want}:\n{}", run.all());
    }
}
