//! A fake FreeBSD installer and installed system (tests/fakebsd/README.md).
//!
//! Two roots are built fresh in a temporary directory:
//!
//! - the **media** root: the install media. `bsdinstall script` (the model
//!   in tests/fakebsd/media) runs there as root under `env -i` with the boot
//!   PATH `/sbin:/bin:/usr/sbin:/usr/bin`;
//! - the **target** root: the media's `/mnt` (BSDINSTALL_CHROOT), into which
//!   the model "extracts" a minimal base system, and into which the setup
//!   script runs under a real nested `chroot`.
//!
//! Both roots hold `/bin/sh` = dash, `awk` = the one true awk, static busybox
//! for the rest of the userland, and the sh models of FreeBSD's tools. The
//! kernel state (routes, probed disks, imported pools, the host name, the
//! "network" that serves the package repository) lives under the media's
//! `/dev/fakebsd`, which the `mount` verb binds onto `/mnt/dev` as devfs would
//! be: both roots see the same kernel. Everything runs in a private mount
//! namespace (`unshare -m`), so no mount outlives a run.
//!
//! Every command runs under a timeout that kills its process group, so a
//! modelled prompt can never hang `cargo test`; a model that would wait for
//! a human writes the reason to `/dev/fakebsd/hang` and exits non-zero, and
//! [`Run::hang`] reports it.

use std::fs;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::{copy_tree, is_root, repo, shared, skip};

/// The boot PATH `/etc/rc` gives the installer (libexec/rc/rc @b14e76ec).
pub const BOOT_PATH: &str = "/sbin:/bin:/usr/sbin:/usr/bin";

/// How long one command may run before its process group is killed.
const TIMEOUT: Duration = Duration::from_secs(120);

/// Busybox applets linked into `/bin` of both roots. Names that FreeBSD tools
/// modelled here use (stat, install, id, hostname, sysctl, route, ifconfig…)
/// are left out: they would act on the real host.
const APPLETS: &[&str] = &[
    "[",
    "basename",
    "cat",
    "chgrp",
    "chmod",
    "chown",
    "cmp",
    "cp",
    "cut",
    "date",
    "dd",
    "diff",
    "dirname",
    "du",
    "echo",
    "egrep",
    "env",
    "expr",
    "false",
    "fgrep",
    "find",
    "grep",
    "head",
    "ln",
    "ls",
    "md5sum",
    "mkdir",
    "mkfifo",
    "mktemp",
    "mv",
    "od",
    "printf",
    "pwd",
    "readlink",
    "realpath",
    "rm",
    "rmdir",
    "sed",
    "seq",
    "sha256sum",
    "sleep",
    "sort",
    "tail",
    "tar",
    "tee",
    "test",
    "touch",
    "tr",
    "true",
    "tty",
    "uname",
    "uniq",
    "wc",
    "which",
    "xargs",
    "yes",
    "chroot",
    "kill",
    "sync",
    "hexdump",
];

/// A disk the fake machine has.
#[derive(Clone, Debug)]
pub struct Disk {
    /// The name the kernel probes it as (`ada0`, `nda0`, `vtbd0`…).
    pub name: String,
    /// The name of a ZFS pool an earlier install left on its partition `p4`
    /// (the BIOS+UEFI layout of zfsboot), if any.
    pub old_pool: Option<String>,
}

impl Disk {
    pub fn new(name: &str) -> Disk {
        Disk {
            name: name.to_string(),
            old_pool: None,
        }
    }

    pub fn with_pool(name: &str, pool: &str) -> Disk {
        Disk {
            name: name.to_string(),
            old_pool: Some(pool.to_string()),
        }
    }
}

/// The name a FreeBSD kernel of `version` probes an NVMe namespace as, given
/// the name an inventory may use: `nvdN` is `ndaN` on 14.0 and later
/// (../shared/freebsd/derived/nvme-disk-names.md). Other names are kept.
pub fn probed_name(version: &str, name: &str) -> String {
    let major: u32 = version
        .split('.')
        .next()
        .and_then(|m| m.parse().ok())
        .unwrap_or(15);
    match name.strip_prefix("nvd") {
        Some(n) if major >= 14 && n.chars().all(|c| c.is_ascii_digit()) => format!("nda{n}"),
        _ => name.to_string(),
    }
}

/// The machine and media a [`FakeBsd`] models.
#[derive(Clone, Debug)]
pub struct Options {
    pub disks: Vec<Disk>,
    /// Whether `/usr/freebsd-dist` on the media holds the distribution sets
    /// (dvd1); otherwise they are only on the network mirror.
    pub media_has_dists: bool,
    /// The FreeBSD release the media installs.
    pub version: &'static str,
    /// `machdep.bootmethod`: `UEFI` or `BIOS`.
    pub bootmethod: &'static str,
    /// The time zones installed under /usr/share/zoneinfo (copied from the
    /// host's zoneinfo).
    pub zones: Vec<&'static str>,
    /// The UUID the firmware reports (the loader's `smbios.system.uuid`,
    /// what libexec/rc/rc.d/hostid takes when /etc/hostid is missing), or
    /// none: plain QEMU without `-uuid` and some boards report none or a
    /// placeholder, and every boot then draws a random hostid.
    pub smbios_uuid: Option<&'static str>,
}

impl Options {
    /// The machine a plan (its JSON view) installs onto: its release, and
    /// its disks under the names that release's kernel probes.
    pub fn for_plan(plan: &serde_json::Value) -> Options {
        Options::for_plan_with(plan, Disk::new)
    }

    /// The same, each disk made by `disk` (`Disk::with_pool` for one that
    /// still holds an old pool).
    pub fn for_plan_with(plan: &serde_json::Value, disk: impl Fn(&str) -> Disk) -> Options {
        let version: &'static str = match plan["version"].as_str().unwrap_or("15.0") {
            "14.3" => "14.3",
            "15.1" => "15.1",
            _ => "15.0",
        };
        let disks = plan["disks"]
            .as_array()
            .expect("a plan's disks")
            .iter()
            .map(|d| disk(&probed_name(version, d.as_str().unwrap_or_default())))
            .collect();
        Options {
            disks,
            version,
            ..Options::default()
        }
    }
}

impl Default for Options {
    fn default() -> Options {
        Options {
            disks: vec![Disk::new("ada0")],
            media_has_dists: true,
            version: "15.0",
            bootmethod: "UEFI",
            zones: vec!["UTC", "Europe/Paris", "America/New_York"],
            smbios_uuid: Some("4a1c2f0e-9b7d-4e3a-8c5f-0d2e6b1a7c93"),
        }
    }
}

/// The outcome of a run on the fake machine.
#[derive(Debug)]
pub struct Run {
    /// Exit status (-1 when killed by the timeout).
    pub status: i32,
    /// What the console showed on stdout (the setup script's output lands
    /// here: `script` runs it with `2>&1`).
    pub stdout: String,
    pub stderr: String,
    /// The installer's debug log (`/tmp/bsdinstall_log` on the media: the
    /// `bsdinstall` wrapper sends every verb's stderr there).
    pub log: String,
    /// Set when a modelled program would have waited for a human for ever
    /// (a dialog, a prompt), with the reason.
    pub hang: Option<String>,
}

impl Run {
    /// Everything printed, for failure messages.
    pub fn all(&self) -> String {
        format!(
            "status {}\nhang: {:?}\n--- stdout\n{}--- stderr\n{}--- log\n{}",
            self.status, self.hang, self.stdout, self.stderr, self.log
        )
    }
}

/// The fingerprint that signs the fake FreeBSD-base repository's
/// catalogue: tests/fakebsd/target/usr/share/keys/pkgbase-15/trusted/fakebsd-15's.
pub const PKGBASE_SIGNER: &str =
    "fakebsd0pkgbase0150000000000000000000000000000000000000000000001\n";

pub struct FakeBsd {
    /// Kept alive with the machine; removed on drop.
    _dir: tempfile::TempDir,
    media: PathBuf,
    livedev: PathBuf,
}

/// Skips `test` (see [`skip`]): no machine.
fn no_machine(test: &str, why: &str) -> Option<FakeBsd> {
    skip(test, why);
    None
}

/// Runs `cmd` with `stdin` as its standard input, killing its whole process
/// group after [`TIMEOUT`].
fn run_guarded(mut cmd: Command, stdin: &[u8]) -> (i32, String, String) {
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let mut child = cmd.spawn().expect("spawn");
    let pid = child.id() as i32;
    let mut input = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&data);
    });
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let out_t = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = std::io::Read::read_to_end(&mut out, &mut s);
        s
    });
    let err_t = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = std::io::Read::read_to_end(&mut err, &mut s);
        s
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status.code().unwrap_or(-1);
        }
        if start.elapsed() > TIMEOUT {
            // SAFETY: kill(2) on the process group we created.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
            let _ = child.wait();
            break -1;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let _ = writer.join();
    let stdout = String::from_utf8_lossy(&out_t.join().unwrap()).into_owned();
    let stderr = String::from_utf8_lossy(&err_t.join().unwrap()).into_owned();
    (status, stdout, stderr)
}

/// The shared libraries `ldd` lists for `bin`.
fn libs(bin: &Path) -> Vec<PathBuf> {
    let out = Command::new("ldd").arg(bin).output().expect("ldd");
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .filter(|w| w.starts_with('/'))
        .map(PathBuf::from)
        .collect()
}

fn write(path: &Path, text: &str, mode: u32) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
}

/// Makes every file under `dir` executable (the sh models).
fn chmod_x(dir: &Path) {
    for entry in fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_dir() {
            chmod_x(&entry.path());
        } else {
            fs::set_permissions(entry.path(), fs::Permissions::from_mode(0o755)).unwrap();
        }
    }
}

/// The userland both roots share: dash as /bin/sh, the one true awk, busybox.
fn userland(root: &Path, dash: &Path, awk: &Path, busybox: &Path) {
    for d in [
        "bin",
        "sbin",
        "usr/bin",
        "usr/sbin",
        "usr/libexec",
        "usr/share",
        "etc",
        "tmp",
        "var/tmp",
        "var/run",
        "var/log",
        "var/db",
        "root",
        "dev",
    ] {
        fs::create_dir_all(root.join(d)).unwrap();
    }
    fs::set_permissions(root.join("tmp"), fs::Permissions::from_mode(0o1777)).unwrap();
    fs::set_permissions(root.join("var/tmp"), fs::Permissions::from_mode(0o1777)).unwrap();
    for bin in [dash, awk] {
        for lib in libs(bin) {
            let target = root.join(lib.strip_prefix("/").unwrap());
            fs::create_dir_all(target.parent().unwrap()).unwrap();
            fs::copy(&lib, &target).unwrap();
        }
    }
    fs::copy(dash, root.join("bin/sh")).unwrap();
    fs::copy(awk, root.join("usr/bin/awk")).unwrap();
    fs::copy(busybox, root.join("bin/busybox")).unwrap();
    for applet in APPLETS {
        std::os::unix::fs::symlink("busybox", root.join("bin").join(applet)).unwrap();
    }
}

/// The character devices a chroot needs (mknod; the caller checked it may).
fn devnodes(dev: &Path) {
    fs::create_dir_all(dev).unwrap();
    for (name, major, minor) in [
        ("null", 1, 3),
        ("zero", 1, 5),
        ("random", 1, 8),
        ("urandom", 1, 9),
    ] {
        let path = dev.join(name);
        let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: mknod(2) with a valid C string.
        let rc = unsafe {
            libc::mknod(
                c.as_ptr(),
                libc::S_IFCHR | 0o666,
                libc::makedev(major, minor),
            )
        };
        assert_eq!(rc, 0, "mknod {}", path.display());
        fs::set_permissions(&path, fs::Permissions::from_mode(0o666)).unwrap();
    }
}

/// `/etc/defaults/rc.conf` from derived/rc-conf-defaults.tsv, with a
/// `source_rc_confs` written for this model (libexec/rc/rc.conf @d28066d8:
/// sources each file of rc_conf_files once, then a second pass for files a
/// first-pass file added).
fn defaults_rc_conf(shared: &Path) -> String {
    let tsv = fs::read_to_string(shared.join("freebsd/derived/rc-conf-defaults.tsv")).unwrap();
    let mut out = String::from(
        "#!/bin/sh\n# FAKEBSD: generated from ../shared/freebsd/derived/rc-conf-defaults.tsv\n\
         # (libexec/rc/rc.conf @d28066d8); do not edit.\n: ${_localbase:=\"/usr/local\"}\n",
    );
    for line in tsv.lines().skip_while(|l| l.starts_with('#')).skip(1) {
        let (name, value) = line.split_once('\t').unwrap_or((line, ""));
        out.push_str(&format!("{name}=\"{value}\"\n"));
    }
    out.push_str(
        "if [ -z \"${source_rc_confs_defined}\" ]; then\n\
         \tsource_rc_confs_defined=yes\n\
         \tsource_rc_confs() {\n\
         \t\tlocal _f _seen _pass\n\
         \t\t_seen=\n\
         \t\tfor _pass in 1 2; do\n\
         \t\t\tfor _f in ${rc_conf_files}; do\n\
         \t\t\t\tcase \" ${_seen} \" in *\" ${_f} \"*) continue ;; esac\n\
         \t\t\t\t_seen=\"${_seen} ${_f}\"\n\
         \t\t\t\t[ -r \"${_f}\" ] && . \"${_f}\"\n\
         \t\t\tdone\n\
         \t\tdone\n\
         \t}\n\
         fi\n",
    );
    out
}

/// One fake `/etc/rc.d` script per row of derived/rcd-rcvars.tsv that the
/// release ships: its `name=` and `rcvar=` lines, then load_rc_config and
/// run_rc_command. tests/fakebsd/data/rcd-methods.tsv (read in each script,
/// held to src/freebsd/rcd.rs) says which are daemons (a `procname`, so
/// `status` finds the process the start left) and which list `reload` in
/// `extra_commands`; a one-shot script gets neither, as rc.subr's keywords
/// then lack `status` unless `${name}_program` has a default (dnctl).
fn rcd_scripts(shared: &Path, etc: &Path, version: &str) {
    let tsv = fs::read_to_string(shared.join("freebsd/derived/rcd-rcvars.tsv")).unwrap();
    let methods = fs::read_to_string(repo().join("tests/fakebsd/data/rcd-methods.tsv")).unwrap();
    let method = |script: &str| -> Option<Vec<String>> {
        methods
            .lines()
            .filter(|l| !l.starts_with('#'))
            .map(|l| l.split('\t').map(String::from).collect::<Vec<_>>())
            .find(|cols| cols[0] == script)
    };
    let key = |v: &str| {
        let (a, b) = v.split_once('.').unwrap_or((v, "0"));
        (a.parse::<u32>().unwrap(), b.parse::<u32>().unwrap())
    };
    for line in tsv.lines().filter(|l| !l.starts_with('#')).skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        if cols.len() < 3 {
            continue;
        }
        let (script, name, rcvar) = (cols[0], cols[1], cols[2]);
        let m = method(script);
        let shipped = match m.as_ref().map(|m| m[3].as_str()) {
            Some(r) if r.starts_with("from:") => key(version) >= key(&r[5..]),
            Some(r) if r.starts_with("before:") => key(version) < key(&r[7..]),
            _ => true,
        };
        if !shipped {
            continue;
        }
        let name = if name.starts_with("(none") {
            script
        } else {
            name
        };
        let rcvar_line = if rcvar.is_empty() || rcvar.starts_with("(none") {
            String::new()
        } else if rcvar.starts_with("(empty") {
            "rcvar=\n".to_string()
        } else {
            // "sendmail_enable (also …)": the first word.
            format!("rcvar=\"{}\"\n", rcvar.split_whitespace().next().unwrap())
        };
        let mut methods_lines = String::new();
        match m.as_ref().map(|m| m[1].as_str()) {
            Some("daemon") => methods_lines.push_str(&format!("procname=\"/usr/sbin/{name}\"\n")),
            // Its start leaves no process behind.
            _ => methods_lines.push_str("fakebsd_daemon=no\n"),
        }
        if m.as_ref().is_some_and(|m| m[2] == "yes") {
            methods_lines.push_str("extra_commands=\"reload\"\n");
        }
        let body = format!(
            "#!/bin/sh\n# FAKEBSD: generated from derived/rcd-rcvars.tsv and data/rcd-methods.tsv (libexec/rc/rc.d/{script} @{commit}).\n\
             # PROVIDE: {name}\n. /etc/rc.subr\nname=\"{name}\"\ndesc=\"fake {script}\"\n{rcvar_line}{methods_lines}\
             start_cmd=\"fakebsd_rcd_run start\"\nstop_cmd=\"fakebsd_rcd_run stop\"\n\
             load_rc_config \"$name\"\nrun_rc_command \"$1\"\n",
            commit = cols.get(3).copied().unwrap_or("?").get(..8).unwrap_or("?"),
        );
        write(&etc.join("rc.d").join(script), &body, 0o555);
    }
}

/// The v7 `/etc/passwd` pwd_mkdb derives from master.passwd.
pub fn passwd_of(master: &str) -> String {
    let mut out = String::new();
    for line in master.lines() {
        if line.starts_with('#') || line.is_empty() {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        let f: Vec<&str> = line.split(':').collect();
        if f.len() == 10 {
            out.push_str(&format!(
                "{}:*:{}:{}:{}:{}:{}\n",
                f[0], f[2], f[3], f[7], f[8], f[9]
            ));
        }
    }
    out
}

impl FakeBsd {
    /// A fresh machine with its install media, or `None` after a notice when
    /// a tool or a privilege (chroot, mknod, unshare -m) is missing (a
    /// failure under BERYL_REQUIRE_TOOLS).
    pub fn new(opts: &Options, test: &str) -> Option<FakeBsd> {
        let shared = shared(test)?;
        let dash = Path::new("/usr/bin/dash");
        let awk = Path::new("/usr/bin/original-awk");
        let busybox = Path::new("/usr/bin/busybox");
        for (p, pkg) in [
            (dash, "dash"),
            (awk, "original-awk"),
            (busybox, "busybox-static"),
        ] {
            if !p.is_file() {
                return no_machine(test, &format!("{} is missing (package {pkg})", p.display()));
            }
        }
        if !is_root() {
            return no_machine(
                test,
                "the fake FreeBSD needs root (chroot, mknod, unshare -m)",
            );
        }
        let ok = Command::new("unshare")
            .args(["-m", "--propagation", "private", "true"])
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            return no_machine(test, "`unshare -m` is not permitted");
        }
        let dir = tempfile::tempdir().unwrap();
        let media = dir.path().join("media");
        let target_stage = dir.path().join("stage");
        let livedev = dir.path().join("livedev");

        // The media.
        userland(&media, dash, awk, busybox);
        std::os::unix::fs::symlink("busybox", media.join("bin/mount")).unwrap();
        std::os::unix::fs::symlink("busybox", media.join("bin/umount")).unwrap();
        copy_tree(&repo().join("tests/fakebsd/media"), &media);
        copy_tree(&repo().join("tests/fakebsd/common"), &media);
        chmod_x(&media.join("usr/libexec/bsdinstall"));
        for d in ["bin", "sbin", "usr/sbin", "usr/bin"] {
            chmod_x(&media.join(d));
        }
        fs::create_dir_all(media.join("mnt")).unwrap();
        devnodes(&media.join("dev"));
        let kernel = media.join("dev/fakebsd");
        Self::kernel_state(&kernel, opts, false);
        // The installer's kernel: a process that shares it without the
        // media's root runs in the chroot at /mnt (BSDINSTALL_CHROOT),
        // whose paths the mount table holds with /mnt in front.
        write(&kernel.join("installer-chroot"), "/mnt\n", 0o644);
        for disk in &opts.disks {
            write(&media.join("dev").join(&disk.name), "", 0o640);
            if let Some(pool) = &disk.old_pool {
                for p in 1..=3 {
                    write(&media.join(format!("dev/{}p{p}", disk.name)), "", 0o640);
                }
                write(
                    &media.join(format!("dev/{}p4", disk.name)),
                    &format!("zfs-label {pool}\n"),
                    0o640,
                );
            }
        }
        write(
            &media.join("etc/fakebsd.conf"),
            &format!(
                "FAKEBSD_VERSION={}\nFAKEBSD_BOOTMETHOD={}\n",
                opts.version, opts.bootmethod
            ),
            0o644,
        );

        // The base system, staged then packed as the distribution sets.
        Self::base(&target_stage, &shared, opts, dash, awk, busybox);
        let dist = if opts.media_has_dists {
            media.join("usr/freebsd-dist")
        } else {
            kernel.join("net/mirror")
        };
        fs::create_dir_all(&dist).unwrap();
        let kstage = dir.path().join("kstage");
        write(
            &kstage.join("boot/kernel/kernel"),
            "FAKEBSD kernel\n",
            0o555,
        );
        for (set, from) in [("base.txz", &target_stage), ("kernel.txz", &kstage)] {
            let st = Command::new(busybox)
                .args(["tar", "-cf"])
                .arg(dist.join(set))
                .arg("-C")
                .arg(from)
                .arg(".")
                .status()
                .unwrap();
            assert!(st.success(), "tar {set}");
        }
        let mut manifest = String::new();
        for set in ["base.txz", "kernel.txz"] {
            let out = Command::new("sha256sum")
                .arg(dist.join(set))
                .output()
                .unwrap();
            let sum = String::from_utf8_lossy(&out.stdout);
            manifest.push_str(&format!(
                "{set}\t{}\t0\t{}\n",
                sum.split_whitespace().next().unwrap(),
                set.trim_end_matches(".txz")
            ));
        }
        write(&dist.join("MANIFEST"), &manifest, 0o644);

        // The "live host" kernel for run_in_target: network up, and the
        // distribution mirror reachable from it (fetch serves
        // `…/base.txz` and `…/MANIFEST` by the URL's last component), so
        // that a jail's base can be fetched and extracted on the live host.
        devnodes(&livedev);
        Self::kernel_state(&livedev.join("fakebsd"), opts, true);
        let mirror = livedev.join("fakebsd/net/mirror");
        fs::create_dir_all(&mirror).unwrap();
        for f in ["base.txz", "kernel.txz", "MANIFEST"] {
            fs::copy(dist.join(f), mirror.join(f)).unwrap();
        }
        // 15.0's FreeBSD-base repository (a jail's `base.method: pkgbase`,
        // served by the pkg model's --rootdir mode, tests/fakebsd/target/
        // usr/share/fakebsd/pkgbase): the minimal-jail set is what base.txz
        // holds, a kernel package beside it (which a jail never gets), and
        // the catalogue signed by the key the base carries in
        // /usr/share/keys/pkgbase-15/trusted/fakebsd-15.
        let repo = livedev.join("fakebsd/net/pkgbase/base_release_0");
        fs::create_dir_all(&repo).unwrap();
        fs::copy(dist.join("base.txz"), repo.join("minimal-jail.tar")).unwrap();
        fs::copy(dist.join("kernel.txz"), repo.join("kernel-generic.tar")).unwrap();
        write(
            &repo.join("catalogue.tsv"),
            "FreeBSD-set-minimal-jail\t15.0\tminimal-jail.tar\n\
             FreeBSD-kernel-generic\t15.0\tkernel-generic.tar\n",
            0o644,
        );
        write(&repo.join("signer"), PKGBASE_SIGNER, 0o644);

        Some(FakeBsd {
            _dir: dir,
            media,
            livedev,
        })
    }

    /// The kernel state directory: probed disks, routes, the host name and
    /// the "network" (the package repository of data/pkg-catalogue.tsv).
    fn kernel_state(kernel: &Path, opts: &Options, network_up: bool) {
        fs::create_dir_all(kernel.join("net")).unwrap();
        let names: Vec<&str> = opts.disks.iter().map(|d| d.name.as_str()).collect();
        write(
            &kernel.join("kern.disks"),
            &format!("{}\n", names.join(" ")),
            0o644,
        );
        write(&kernel.join("routes"), "", 0o644);
        if network_up {
            write(&kernel.join("routes"), "default 192.0.2.1\n", 0o644);
        }
        write(&kernel.join("imported-pools"), "", 0o644);
        // The host's interfaces (sbin/ifconfig's model): a loopback and
        // one NIC, both in the host's vnet.
        for nic in ["lo0", "em0"] {
            write(&kernel.join("ifnet").join(nic), "vnet=\nup=1\n", 0o644);
        }
        write(&kernel.join("hostname"), "", 0o644);
        let kenv = match opts.smbios_uuid {
            Some(uuid) => format!("smbios.system.uuid={uuid}\n"),
            None => String::new(),
        };
        write(&kernel.join("kenv"), &kenv, 0o644);
        fs::copy(
            repo().join("tests/fakebsd/data/pkg-catalogue.tsv"),
            kernel.join("net/pkg-catalogue.tsv"),
        )
        .unwrap();
    }

    /// The minimal base system the distribution sets carry.
    fn base(stage: &Path, shared: &Path, opts: &Options, dash: &Path, awk: &Path, busybox: &Path) {
        userland(stage, dash, awk, busybox);
        copy_tree(&repo().join("tests/fakebsd/target"), stage);
        copy_tree(&repo().join("tests/fakebsd/common"), stage);
        // FreeBSD's chroot is /usr/sbin/chroot, the model in target/ (it
        // also runs commands as a user); busybox's would come first on PATH.
        fs::remove_file(stage.join("bin/chroot")).unwrap();
        for d in [
            "sbin",
            "bin",
            "usr/sbin",
            "usr/bin",
            "usr/share/fakebsd/pkgfiles",
        ] {
            chmod_x(&stage.join(d));
        }
        // Login shells of the base system (fakes: dash under their names).
        for sh in ["bin/csh", "bin/tcsh"] {
            fs::copy(dash, stage.join(sh)).unwrap();
        }
        write(
            &stage.join("usr/sbin/nologin"),
            "#!/bin/sh\necho 'This account is currently not available.'\nexit 1\n",
            0o555,
        );
        let etc = stage.join("etc");
        let master = fs::read_to_string(shared.join("freebsd/etc/master.passwd")).unwrap();
        write(&etc.join("master.passwd"), &master, 0o600);
        write(&etc.join("passwd"), &passwd_of(&master), 0o644);
        fs::copy(shared.join("freebsd/etc/group"), etc.join("group")).unwrap();
        write(
            &etc.join("defaults/rc.conf"),
            &defaults_rc_conf(shared),
            0o444,
        );
        rcd_scripts(shared, &etc, opts.version);
        write(&etc.join("shells"), "/bin/sh\n/bin/csh\n/bin/tcsh\n", 0o644);
        write(&etc.join("sysctl.conf"), "# $FreeBSD$\n", 0o644);
        // The zones and the tables tzsetup reads before anything else.
        let mut zonetab = String::new();
        let mut iso = String::from("# FAKEBSD: the countries of the zones installed\n");
        for zone in &opts.zones {
            let from = Path::new("/usr/share/zoneinfo").join(zone);
            let to = stage.join("usr/share/zoneinfo").join(zone);
            fs::create_dir_all(to.parent().unwrap()).unwrap();
            fs::copy(&from, &to).unwrap_or_else(|e| panic!("{}: {e}", from.display()));
            let cc = match *zone {
                "Europe/Paris" => Some(("FR", "FRA", "250", "France")),
                "America/New_York" => Some(("US", "USA", "840", "United States of America")),
                _ => None,
            };
            if let Some((cc, c3, num, name)) = cc {
                zonetab.push_str(&format!("{cc}\t+0000+00000\t{zone}\n"));
                iso.push_str(&format!("{cc}\t{c3}\t{num}\t{name}\n"));
            }
        }
        write(&stage.join("usr/share/zoneinfo/zone.tab"), &zonetab, 0o444);
        write(&stage.join("usr/share/misc/iso3166"), &iso, 0o444);
        for d in ["var/mail", "var/db/pkg", "usr/share/skel", "boot"] {
            fs::create_dir_all(stage.join(d)).unwrap();
        }
        write(
            &stage.join("usr/share/skel/dot.profile"),
            "# fake skel .profile\n",
            0o644,
        );
        write(
            &stage.join("usr/share/skel/dot.shrc"),
            "# fake skel .shrc\n",
            0o644,
        );
    }

    /// The installed system (the media's `/mnt`).
    pub fn target(&self) -> PathBuf {
        self.media.join("mnt")
    }

    /// `bsdinstall script /etc/installerconfig` on the media, as
    /// startbsdinstall runs it: from rc, as root, PATH=/sbin:/bin:/usr/sbin:
    /// /usr/bin, stdin not a terminal.
    pub fn install(&self, installerconfig: &str) -> Run {
        write(
            &self.media.join("etc/installerconfig"),
            installerconfig,
            0o644,
        );
        let _ = fs::remove_file(self.media.join("dev/fakebsd/hang"));
        let mut cmd = Command::new("unshare");
        cmd.args(["-m", "--propagation", "private", "chroot"])
            .arg(&self.media)
            .args(["/bin/env", "-i"])
            .arg(format!("PATH={BOOT_PATH}"))
            .args(["HOME=/", "TERM=xterm"])
            // The media booted: its rc.d/hostid ran (the model; the
            // media's root is read-only, so no /etc/hostid is ever saved
            // and each boot of a machine without a firmware UUID draws a
            // new hostid), then rc.local started the installer.
            .args([
                "/bin/sh",
                "-c",
                "/bin/sh /usr/share/fakebsd/hostid && \
                 exec /bin/sh /usr/sbin/bsdinstall script /etc/installerconfig",
            ]);
        let (status, stdout, stderr) = run_guarded(cmd, b"");
        let log = fs::read_to_string(self.media.join("tmp/bsdinstall_log")).unwrap_or_default();
        let hang = fs::read_to_string(self.media.join("dev/fakebsd/hang"))
            .ok()
            .filter(|s| !s.is_empty());
        if status == 0 && hang.is_none() {
            self.boot_storage();
        }
        Run {
            status,
            stdout,
            stderr,
            log,
            hang,
        }
    }

    /// The first boot after an install, as far as ZFS goes: the disks keep
    /// what the install wrote on them (the device nodes that hold a pool
    /// label are copied to the live host's /dev), then
    /// `/usr/share/fakebsd/boot` imports the root pool and what rc.d/zpool
    /// imports, and mounts as rc.d/zfs does.
    fn boot_storage(&self) {
        for entry in fs::read_dir(self.media.join("dev")).unwrap().flatten() {
            let path = entry.path();
            if !path.is_file() {
                continue;
            }
            let text = fs::read_to_string(&path).unwrap_or_default();
            if text.starts_with("zfs-label ") {
                let to = self.livedev.join(entry.file_name());
                fs::write(&to, text).unwrap();
            }
        }
        if self.target().join("usr/share/fakebsd/boot").is_file() {
            let run = self.run_in_target("/bin/sh /usr/share/fakebsd/boot\n", &[], "root");
            assert!(run.status == 0, "the boot model failed:\n{}", run.all());
        }
    }

    /// Runs `script` with `/bin/sh -s` in the installed system as the live
    /// host (network up, default route), under `env -i` with the boot PATH
    /// plus `env`. `user` other than root is modelled by FAKEBSD_USER, which
    /// the `id`, `pw`, `sudo`… models honour (the process itself stays root).
    pub fn run_in_target(&self, script: &str, env: &[(&str, &str)], user: &str) -> Run {
        self.exec_in_target("/bin/sh -s", script, env, user)
    }

    /// The first boot of the installed system, as far as beryl's resources
    /// go (the disks were handled by `boot_storage` after the install):
    /// - libexec/rc/rc.d/sysctl @023fc80e runs `sysctl -i -f` on
    ///   /etc/sysctl.conf, then on /etc/sysctl.conf.local when readable; rc(8)
    ///   goes on whatever its status;
    /// - rc(8) on autoboot then runs every rc.d script, the base ones then
    ///   those of `local_startup`, with `faststart` (libexec/rc/rc @b14e76ec:
    ///   `_boot="faststart"`, `run_rc_scripts`), so each enabled service
    ///   starts (rc.subr's gate skips the others, quietly with `fast`). The
    ///   order is the directory's, not rcorder's;
    /// - before them, rc.d/netif's clone_up (libexec/rc/network.subr
    ///   @03ccfdd2, index id 737299908): each of `cloned_interfaces` made
    ///   unless it exists (`ifconfig IF create`), then its `ifconfig_IF`
    ///   arguments applied (ifconfig_up), so a bridge beryl declared exists
    ///   after the boot, as a jail's epair joins it.
    pub fn boot(&self) -> Run {
        self.run_in_target(
            "for f in /etc/sysctl.conf /etc/sysctl.conf.local; do\n\
             \tif [ -r \"$f\" ]; then sysctl -i -f \"$f\" >/dev/null || :; fi\n\
             done\n\
             for i in $(sysrc -n cloned_interfaces 2>/dev/null); do\n\
             \tifconfig \"$i\" >/dev/null 2>&1 || ifconfig \"$i\" create >/dev/null || continue\n\
             \ta=$(sysrc -n \"ifconfig_$i\" 2>/dev/null) && [ -n \"$a\" ] && ifconfig \"$i\" $a\n\
             done\n\
             for f in /etc/rc.d/* /usr/local/etc/rc.d/*; do\n\
             \t[ -f \"$f\" ] && [ -x \"$f\" ] || continue\n\
             \t\"$f\" faststart\n\
             done\n",
            &[],
            "root",
        )
    }

    /// Runs the command line `command` in the installed system as the live
    /// host, as sshd runs a remote command: `/bin/sh -c COMMAND` as `user`
    /// (modelled by FAKEBSD_USER), `stdin` on its standard input, under
    /// `env -i` with the boot PATH plus `env` (a PATH there replaces it).
    pub fn exec_in_target(
        &self,
        command: &str,
        stdin: &str,
        env: &[(&str, &str)],
        user: &str,
    ) -> Run {
        let _ = fs::remove_file(self.livedev.join("fakebsd/hang"));
        let mut inner = self.enter(env, user);
        inner.push_str(&format!(" /bin/sh -c '{}'", command.replace('\'', "'\\''")));
        let mut cmd = Command::new("unshare");
        cmd.args(["-m", "--propagation", "private", "sh", "-c", &inner]);
        let (status, stdout, stderr) = run_guarded(cmd, stdin.as_bytes());
        let hang = fs::read_to_string(self.livedev.join("fakebsd/hang"))
            .ok()
            .filter(|s| !s.is_empty());
        Run {
            status,
            stdout,
            stderr,
            log: String::new(),
            hang,
        }
    }

    /// The sh command line, to run in a private mount namespace, that enters
    /// the live host as `user` with `env`: the words before the program.
    fn enter(&self, env: &[(&str, &str)], user: &str) -> String {
        let target = self.target();
        let mut inner = format!(
            "mount --bind '{}' '{}/dev' && exec chroot '{}' /bin/env -i PATH={BOOT_PATH} HOME=/root",
            self.livedev.display(),
            target.display(),
            target.display()
        );
        if user != "root" {
            inner.push_str(&format!(" FAKEBSD_USER='{user}'"));
        }
        for (k, v) in env {
            assert!(!v.contains('\''), "env value with a quote: {v}");
            inner.push_str(&format!(" '{k}={v}'"));
        }
        inner
    }

    /// A login session on the live host, for sshd's `ForceCommand`: a sh
    /// script that runs `$SSH_ORIGINAL_COMMAND` (the remote command line) as
    /// the live host's `user` with `env`, by `/bin/sh -c` as sshd would, and
    /// appends the command line to `log` first.
    pub fn session_script(&self, env: &[(&str, &str)], user: &str, log: &Path) -> String {
        let inner = format!(
            "{} /bin/sh -c \"$SSH_ORIGINAL_COMMAND\"",
            self.enter(env, user)
        );
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$SSH_ORIGINAL_COMMAND\" >> '{}'\nexec unshare -m --propagation private sh -c '{}'\n",
            log.display(),
            inner.replace('\'', "'\\''")
        )
    }

    /// A jail's root on the live host, `/jails/NAME` (a path of the target):
    /// the base set extracted there as `bsdinstall jail` (distextract) or a
    /// `tar -xpf base.txz -C PATH` would lay it down, with an empty `dev`
    /// and the host's resolv.conf. Returns the path inside the target.
    pub fn jail_root(&self, name: &str) -> String {
        let path = format!("/jails/{name}");
        let run = self.run_in_target(
            &format!(
                "set -e\nmkdir -p {path}\n\
                 fetch -o /tmp/base.txz https://download.freebsd.org/releases/amd64/14.3-RELEASE/base.txz\n\
                 tar -xpf /tmp/base.txz -C {path}\nrm /tmp/base.txz\n\
                 mkdir -p {path}/dev {path}/tmp {path}/var/db {path}/home\n\
                 cp /etc/resolv.conf {path}/etc/resolv.conf\n"
            ),
            &[],
            "root",
        );
        assert_eq!(run.status, 0, "jail_root {name}: {}", run.all());
        path
    }

    /// Extracts the distribution sets into the target without the installer,
    /// so that the self-tests of the target tools have a system to run on.
    pub fn extract_base(&self) {
        let target = self.target();
        fs::create_dir_all(&target).unwrap();
        for set in ["base.txz", "kernel.txz"] {
            let mut path = self.media.join("usr/freebsd-dist").join(set);
            if !path.is_file() {
                path = self.media.join("dev/fakebsd/net/mirror").join(set);
            }
            let st = Command::new("/usr/bin/busybox")
                .args(["tar", "-xf"])
                .arg(&path)
                .arg("-C")
                .arg(&target)
                .status()
                .unwrap();
            assert!(st.success());
        }
        fs::create_dir_all(target.join("home")).unwrap();
        // A live host has its name server configured.
        write(
            &target.join("etc/resolv.conf"),
            "nameserver 192.0.2.53\n",
            0o644,
        );
    }
}
