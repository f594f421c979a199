//! A private OpenSSH server on 127.0.0.1, for the SSH round trip: its own
//! config, host key, authorized key, port and pid file in a temporary
//! directory. The system's sshd, its config and ~/.ssh are never touched.
//! The server is killed when the guard is dropped, whatever the test did.
//!
//! It runs in a private mount namespace where /etc/passwd also lists the
//! login user (uid 0, so that its session may enter the fake FreeBSD), and
//! every session runs the `ForceCommand` given: the fake host's login.
//!
//! [`wire`] makes a whole host of the example inventory reachable: installed
//! on its own fake FreeBSD, its own sshd, and an `ssh:` block in its level
//! file; several of them make a fleet (tests/integration/fleet_apply/).
//! [`wire_machine`] does the same for a machine beryl did not install
//! (tests/integration/adopt.rs).

use std::fs;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::fakebsd::FakeBsd;
use crate::support::is_root;

/// The `--ssh-option`s of every run against a test sshd: its host key is
/// new each time, and only the test's key is offered.
pub const SSH_OPTIONS: [&str; 8] = [
    "--ssh-option",
    "StrictHostKeyChecking=no",
    "--ssh-option",
    "UserKnownHostsFile=/dev/null",
    "--ssh-option",
    "IdentitiesOnly=yes",
    "--ssh-option",
    "LogLevel=ERROR",
];

/// A host of the example inventory on the fake FreeBSD, reachable over ssh.
pub struct Wired {
    pub bsd: FakeBsd,
    /// `None` once stopped (the host is then unreachable).
    pub server: Option<Sshd>,
    /// The remote command lines the sessions ran, one a line.
    pub commands: PathBuf,
}

/// Installs `host` (level file `level` under inventory/) from its plan on a
/// fresh fake FreeBSD, starts an sshd whose every session is a login on it
/// as `beryl` (the example's `ssh.user`), and appends the `ssh:` block that
/// points beryl at that sshd to the level file. `None` after a notice when
/// the fake FreeBSD cannot run here.
pub fn wire(dir: &Path, host: &str, level: &str, test: &str) -> Option<Wired> {
    let bsd = crate::live::installed(dir, host, test)?;
    Some(wire_machine(dir, bsd, host, "beryl", level))
}

/// [`wire`] for a machine made otherwise (one beryl did not install): its
/// sessions log in as `login`.
pub fn wire_machine(dir: &Path, bsd: FakeBsd, host: &str, login: &str, level: &str) -> Wired {
    let sshd_bin = Path::new("/usr/sbin/sshd");
    let session = dir.join(format!("session-{host}.sh"));
    let commands = dir.join(format!("commands-{host}.log"));
    fs::write(
        &session,
        bsd.session_script(&[("PATH", crate::live::SSH_PATH)], login, &commands),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&session, fs::Permissions::from_mode(0o755)).unwrap();
    let server = Sshd::start(sshd_bin, login, &session);
    let host_file = dir.join("inventory").join(level);
    let mut text = fs::read_to_string(&host_file).unwrap();
    text.push_str(&format!(
        "\n# The test's own sshd.\nssh:\n  host: 127.0.0.1\n  port: {}\n  identity_file: {}\n",
        server.port,
        server.identity.display()
    ));
    fs::write(&host_file, text).unwrap();
    Wired {
        bsd,
        server: Some(server),
        commands,
    }
}

pub struct Sshd {
    child: Child,
    pub port: u16,
    /// The client's private key, authorized for the current user.
    pub identity: PathBuf,
    log: PathBuf,
    _dir: tempfile::TempDir,
}

/// A port nobody listens on right now.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn keygen(path: &Path) {
    let out = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-C", "beryl-test", "-f"])
        .arg(path)
        .output()
        .expect("run ssh-keygen");
    assert!(
        out.status.success(),
        "ssh-keygen: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

impl Sshd {
    /// Starts `sshd -D -e -f CONFIG` as the current user and waits until it
    /// accepts connections.
    pub fn start(sshd: &Path, login: &str, force_command: &Path) -> Sshd {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        keygen(&d.join("host_key"));
        keygen(&d.join("client_key"));
        fs::copy(d.join("client_key.pub"), d.join("authorized_keys")).unwrap();
        let user = login;
        let mut passwd = fs::read_to_string("/etc/passwd").unwrap();
        passwd.push_str(&format!("{user}:x:0:0:beryl test login:/root:/bin/sh\n"));
        fs::write(d.join("passwd"), passwd).unwrap();
        // sshd running as root chroots its unprivileged child into this
        // compiled-in directory, which Debian's service unit creates.
        if is_root() && !Path::new("/run/sshd").is_dir() {
            fs::create_dir_all("/run/sshd").unwrap();
        }
        let port = free_port();
        let config = d.join("sshd_config");
        fs::write(
            &config,
            format!(
                "Port {port}\n\
                 ListenAddress 127.0.0.1\n\
                 HostKey {host_key}\n\
                 AuthorizedKeysFile {keys}\n\
                 PidFile {pid}\n\
                 StrictModes no\n\
                 UsePAM no\n\
                 PermitRootLogin prohibit-password\n\
                 PasswordAuthentication no\n\
                 KbdInteractiveAuthentication no\n\
                 AllowUsers {user}\n\
                 ForceCommand {force}\n\
                 LogLevel VERBOSE\n",
                force = force_command.display(),
                host_key = d.join("host_key").display(),
                keys = d.join("authorized_keys").display(),
                pid = d.join("sshd.pid").display(),
            ),
        )
        .unwrap();
        let log = d.join("sshd.log");
        let child = Command::new("unshare")
            .args(["-m", "--propagation", "private", "sh", "-c"])
            .arg(format!(
                "mount --bind '{}' /etc/passwd && exec '{}' -D -e -f '{}'",
                d.join("passwd").display(),
                sshd.display(),
                config.display()
            ))
            .stdin(Stdio::null())
            .stdout(fs::File::create(d.join("sshd.out")).unwrap())
            .stderr(fs::File::create(&log).unwrap())
            .spawn()
            .expect("start sshd");
        let mut server = Sshd {
            child,
            port,
            identity: d.join("client_key"),
            log,
            _dir: dir,
        };
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Ok(Some(status)) = server.child.try_wait() {
                panic!("sshd exited ({status}):\n{}", server.log());
            }
            if TcpStream::connect(("127.0.0.1", port)).is_ok() {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "sshd did not listen on {port}:\n{}",
                server.log()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        server
    }

    /// What sshd logged so far.
    pub fn log(&self) -> String {
        fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Sshd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
