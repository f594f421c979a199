//! Running a script on a host with the system OpenSSH client: one ssh
//! connection per run, the script on its standard input.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, Stdio};

use super::Code;
use crate::desired::Login;
use crate::diag::Diag;

/// Runs `script` through `ssh -o BatchMode=yes … sh -s`, streaming each output
/// line to `out`: as root under `sudo -n` or `doas -n` when the login user is
/// not root (`become`). `env` sets variables for the remote script. Returns
/// the remote exit status.
pub(crate) fn run(
    target: &Login,
    options: &[String],
    env: &[(String, String)],
    script: &str,
    out: &mut dyn FnMut(&str),
) -> Result<i32, Diag> {
    let mut running = spawn(target, options, env, script)?;
    for line in BufReader::new(running.stdout.take().expect("piped stdout"))
        .lines()
        .map_while(Result::ok)
    {
        out(&line);
    }
    finish(target, running)
}

/// Runs `script` as [`run`] does and returns its exit status and its
/// standard output, byte for byte (the facts snapshot is kept as printed).
pub(crate) fn capture(
    target: &Login,
    options: &[String],
    env: &[(String, String)],
    script: &str,
) -> Result<(i32, Vec<u8>), Diag> {
    let mut running = spawn(target, options, env, script)?;
    let mut bytes = Vec::new();
    let read = running
        .stdout
        .take()
        .expect("piped stdout")
        .read_to_end(&mut bytes);
    let code = finish(target, running)?;
    read.map_err(|e| Diag::new(Code::Ssh, format!("reading ssh's output: {e}")))?;
    Ok((code, bytes))
}

/// A running ssh with the script fed to its standard input.
struct Running {
    child: Child,
    stdout: Option<std::process::ChildStdout>,
    writer: std::thread::JoinHandle<()>,
    errors: std::thread::JoinHandle<String>,
}

fn spawn(
    target: &Login,
    options: &[String],
    env: &[(String, String)],
    script: &str,
) -> Result<Running, Diag> {
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
    cmd.arg(remote_command(target, env).map_err(|e| Diag::new(Code::Env, e.to_string()))?);
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().map_err(|e| {
        Diag::new(Code::Ssh, format!("cannot run ssh: {e}")).help("install the OpenSSH client")
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
    let stdout = child.stdout.take();
    Ok(Running {
        child,
        stdout,
        writer,
        errors,
    })
}

/// Waits for ssh; status 255 is ssh's own failure, with its words.
fn finish(target: &Login, running: Running) -> Result<i32, Diag> {
    let Running {
        mut child,
        writer,
        errors,
        ..
    } = running;
    let _ = writer.join();
    let status = child
        .wait()
        .map_err(|e| Diag::new(Code::Ssh, format!("ssh: {e}")))?;
    let stderr = errors.join().unwrap_or_default();
    match status.code() {
        Some(255) => Err(Diag::new(
            Code::Ssh,
            format!(
                "ssh to {}@{}:{} failed: {}",
                target.user,
                target.host,
                target.port,
                stderr.trim()
            ),
        )),
        Some(code) => Ok(code),
        None => Err(Diag::new(Code::Ssh, "ssh was killed by a signal")),
    }
}

/// The remote command line, parsed by the remote user's shell: quoted.
pub fn remote_command(
    target: &Login,
    env: &[(String, String)],
) -> Result<String, crate::shell::QuoteError> {
    let mut words: Vec<String> = target
        .elevate
        .prefix()
        .iter()
        .map(|w| w.to_string())
        .collect();
    if !env.is_empty() {
        words.push("env".into());
        words.extend(env.iter().map(|(k, v)| format!("{k}={v}")));
    }
    words.extend(["sh".into(), "-s".into()]);
    crate::shell::words(&words)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::desired::Become;

    #[test]
    fn a_user_other_than_root_runs_the_script_under_sudo() {
        let mut t = Login {
            host: "h".into(),
            port: 22,
            user: "beryl".into(),
            identity_file: None,
            elevate: Become::Sudo,
            span: None,
        };
        let env = [("BERYL_DRY_RUN".to_string(), "1".to_string())];
        assert_eq!(
            remote_command(&t, &env).unwrap(),
            "sudo -n env 'BERYL_DRY_RUN=1' sh -s"
        );
        t.elevate = Become::Doas;
        assert_eq!(remote_command(&t, &[]).unwrap(), "doas -n sh -s");
        t.elevate = Become::None;
        assert_eq!(remote_command(&t, &[]).unwrap(), "sh -s");
    }
}
