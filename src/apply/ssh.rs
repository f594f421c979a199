//! Running the apply script on a host with the system OpenSSH client.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use crate::diag::Diag;

/// Where and how to reach a host (the merged `ssh:` block).
#[derive(Debug, Clone)]
pub struct Target {
    pub host: String,
    pub port: u16,
    pub user: String,
    pub identity_file: Option<String>,
}

/// Runs `script` through `ssh -o BatchMode=yes … sh -s`, streaming each output
/// line to `out`. `env` sets variables for the remote script. Returns the
/// remote exit status.
pub fn run(
    target: &Target,
    options: &[String],
    env: &[(String, String)],
    script: &str,
    out: &mut dyn FnMut(&str),
) -> Result<i32, Diag> {
    let mut cmd = Command::new("ssh");
    cmd.args(["-o", "BatchMode=yes"]);
    if target.port != 22 {
        cmd.args(["-p", &target.port.to_string()]);
    }
    if let Some(key) = &target.identity_file {
        cmd.args(["-i", key]);
    }
    for o in options {
        cmd.args(["-o", o]);
    }
    cmd.arg(format!("{}@{}", target.user, target.host));
    // The remote command line is parsed by the remote shell: quote it.
    let mut remote = String::new();
    if !env.is_empty() {
        remote.push_str("env");
        for (k, v) in env {
            let pair = format!("{k}={v}");
            remote.push(' ');
            remote.push_str(
                &crate::plan::quote::quote(&pair)
                    .map_err(|e| Diag::new("beryl::apply::env", e.to_string()))?,
            );
        }
        remote.push(' ');
    }
    remote.push_str("sh -s");
    cmd.arg(remote);
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().map_err(|e| {
        Diag::new("beryl::apply::ssh", format!("cannot run ssh: {e}"))
            .help("install the OpenSSH client")
    })?;
    let mut stdin = child.stdin.take().expect("piped stdin");
    let body = script.to_string();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(body.as_bytes());
    });
    let stderr = child.stderr.take().expect("piped stderr");
    let errors = std::thread::spawn(move || {
        let mut text = String::new();
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            text.push_str(&line);
            text.push('\n');
        }
        text
    });
    for line in BufReader::new(child.stdout.take().expect("piped stdout"))
        .lines()
        .map_while(Result::ok)
    {
        out(&line);
    }
    let _ = writer.join();
    let status = child
        .wait()
        .map_err(|e| Diag::new("beryl::apply::ssh", format!("ssh: {e}")))?;
    let stderr = errors.join().unwrap_or_default();
    match status.code() {
        Some(255) => Err(Diag::new(
            "beryl::apply::ssh",
            format!(
                "ssh to {}@{}:{} failed: {}",
                target.user,
                target.host,
                target.port,
                stderr.trim()
            ),
        )),
        Some(code) => Ok(code),
        None => Err(Diag::new("beryl::apply::ssh", "ssh was killed by a signal")),
    }
}

/// The target of a host: its merged `ssh:` block (`host`, `port`, `user`,
/// `identity_file`), defaulting to the FQDN, 22 and root. Every field is
/// checked, with located errors.
pub fn target(config: &crate::value::Node, fqdn: &str) -> Result<Target, Vec<Diag>> {
    use crate::value::Value;
    let mut t = Target {
        host: fqdn.to_string(),
        port: 22,
        user: "root".into(),
        identity_file: None,
    };
    let Some(block) = config.get("ssh") else {
        return Ok(t);
    };
    let Some(map) = block.as_map() else {
        return Err(vec![
            Diag::new(
                "beryl::apply::ssh_block",
                format!("`ssh` must be a mapping, found {}", block.value.type_name()),
            )
            .label(&block.span, "expected {host, port, user, identity_file}"),
        ]);
    };
    let mut errors = Vec::new();
    for (key, entry) in map {
        let n = &entry.node;
        let bad = |what: &str| {
            Diag::new(
                "beryl::apply::ssh_block",
                format!("ssh.{key} must be {what}"),
            )
            .label(&n.span, format!("expected {what}"))
        };
        match (key.as_str(), &n.value) {
            ("host", Value::Str(h))
                if crate::schema::rules::hostname(h).is_ok()
                    || h.parse::<std::net::IpAddr>().is_ok() =>
            {
                t.host = h.clone();
            }
            ("host", _) => errors.push(bad("a host name or an IP address")),
            ("port", Value::Int(p)) if (1..=65535).contains(p) => t.port = *p as u16,
            ("port", _) => errors.push(bad("a port number from 1 to 65535")),
            ("user", Value::Str(u)) if crate::schema::rules::user_name(u).is_ok() => {
                t.user = u.clone()
            }
            ("user", _) => errors.push(bad("a user name")),
            ("identity_file", Value::Str(f))
                if !f.is_empty() && !f.contains('\0') && !f.starts_with('-') =>
            {
                t.identity_file = Some(f.clone());
            }
            ("identity_file", _) => {
                errors.push(bad("the path of a private key file (beryl never reads it)"))
            }
            _ => errors.push(
                Diag::new(
                    "beryl::apply::ssh_block",
                    format!("unknown key `ssh.{key}`"),
                )
                .label(&entry.key_span, "not an ssh setting")
                .help("the keys are host, port, user and identity_file"),
            ),
        }
    }
    if errors.is_empty() {
        Ok(t)
    } else {
        Err(errors)
    }
}
