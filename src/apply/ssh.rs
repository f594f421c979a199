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
    // A read error ends the output; ssh's status then says what happened.
    let _ = each_line(running.stdout.take().expect("piped stdout"), MAX_LINE, out);
    finish(target, running)
}

/// The longest line of a remote's output that is kept whole (64 KiB); the
/// rest of a longer line is read and dropped, and counted.
pub(crate) const MAX_LINE: usize = 64 * 1024;

/// Reads `input` to its end and gives `out` each line, without its `\n`
/// (or `\r\n`): bytes that are not UTF-8 become U+FFFD, and a line longer
/// than `cap` bytes is cut there and ends with `… (N bytes cut)`. A remote
/// unit (a hostile jail) controls these bytes: no byte ends the reading
/// before the end of the output, and no line holds more than `cap` bytes
/// in memory. A last line without a newline is given too.
pub(crate) fn each_line(
    input: impl Read,
    cap: usize,
    out: &mut dyn FnMut(&str),
) -> std::io::Result<()> {
    let mut input = BufReader::new(input);
    let mut line: Vec<u8> = Vec::new();
    let mut cut = 0usize;
    let mut emit = |line: &mut Vec<u8>, cut: &mut usize| {
        if *cut == 0 && line.last() == Some(&b'\r') {
            line.pop();
        }
        let mut text = String::from_utf8_lossy(line).into_owned();
        if *cut > 0 {
            let s = if *cut == 1 { "" } else { "s" };
            text.push_str(&format!("… ({cut} byte{s} cut)"));
        }
        out(&text);
        line.clear();
        *cut = 0;
    };
    loop {
        let buf = match input.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            if !line.is_empty() || cut > 0 {
                emit(&mut line, &mut cut);
            }
            return Ok(());
        }
        let newline = buf.iter().position(|b| *b == b'\n');
        let text = &buf[..newline.unwrap_or(buf.len())];
        let kept = text.len().min(cap.saturating_sub(line.len()));
        line.extend_from_slice(&text[..kept]);
        cut += text.len() - kept;
        let used = newline.map_or(buf.len(), |i| i + 1);
        input.consume(used);
        if newline.is_some() {
            emit(&mut line, &mut cut);
        }
    }
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
    let read = read_capped(running.stdout.take().expect("piped stdout"), CAPTURE_LIMIT);
    if let Ok(None) = read {
        // Not read further: ssh is stopped, whatever the host goes on
        // printing (a host's or a jail's facts have no such size).
        let _ = running.child.kill();
        let _ = finish(target, running);
        return Err(Diag::new(
            Code::Ssh,
            format!(
                "{}@{}: the output is over {CAPTURE_LIMIT} bytes: not read further",
                target.user, target.host
            ),
        ));
    }
    let code = finish(target, running)?;
    let bytes = read.map_err(|e| Diag::new(Code::Ssh, format!("reading ssh's output: {e}")))?;
    Ok((code, bytes.unwrap_or_default()))
}

/// All of `r`, or `None` once it holds more than `limit` bytes (read no
/// further).
fn read_capped(r: impl Read, limit: u64) -> std::io::Result<Option<Vec<u8>>> {
    let mut bytes = Vec::new();
    r.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    Ok((bytes.len() as u64 <= limit).then_some(bytes))
}

/// The most [`capture`] keeps of a host's output (facts, a saved plan's
/// facts again): 1 GiB, beyond any snapshot (each file's content in it is
/// at most `--max-file-size`, each jail's output at most 16 MiB on the
/// host), so that a host cannot grow beryl's memory without bound.
const CAPTURE_LIMIT: u64 = 1 << 30;

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
    // ssh's words (and the remote's stderr): read to the end, at most
    // MAX_LINE bytes of them kept.
    let errors = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = each_line(stderr, MAX_LINE, &mut |line| {
            if text.len() < MAX_LINE {
                text.push_str(line);
                text.push('\n');
            }
        });
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
                crate::value::repr::visible(stderr.trim(), &['\n', '\t'])
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

    fn lines_of(bytes: &[u8], cap: usize) -> Vec<String> {
        let mut lines = Vec::new();
        each_line(bytes, cap, &mut |l| lines.push(l.to_string())).unwrap();
        lines
    }

    /// A byte that is not UTF-8 does not end the output (a jail's `\xff`
    /// once lost every later line: its end, later jails, the summary).
    #[test]
    fn a_capture_stops_past_its_limit() {
        let ten = &b"0123456789"[..];
        assert_eq!(super::read_capped(ten, 10).unwrap().as_deref(), Some(ten));
        assert_eq!(super::read_capped(ten, 9).unwrap(), None);
        assert_eq!(
            super::read_capped(std::io::repeat(b'x'), 1 << 20).unwrap(),
            None
        );
    }

    #[test]
    fn bytes_that_are_not_utf8_do_not_end_the_output() {
        assert_eq!(
            lines_of(
                b"= a\n|j bad \xff\xfe\r\njail: j exit 0\r\napply: 1 changed",
                64
            ),
            [
                "= a",
                "|j bad \u{fffd}\u{fffd}",
                "jail: j exit 0",
                "apply: 1 changed"
            ]
        );
        assert!(lines_of(b"", 64).is_empty());
        assert_eq!(lines_of(b"\n\n", 64), ["", ""]);
    }

    /// A line longer than the cap keeps its first `cap` bytes and says how
    /// many it dropped; the lines after it arrive whole.
    #[test]
    fn a_long_line_is_cut_and_the_next_ones_arrive() {
        let mut bytes = b"first\n".to_vec();
        bytes.extend(std::iter::repeat_n(b'x', 3 * 8192 + 5));
        bytes.extend_from_slice(b"\nlast");
        let lines = lines_of(&bytes, 10);
        assert_eq!(
            lines,
            [
                "first",
                &format!("xxxxxxxxxx… ({} bytes cut)", 3 * 8192 + 5 - 10),
                "last"
            ]
        );
        // Exactly the cap: nothing cut.
        assert_eq!(lines_of(b"0123456789\n", 10), ["0123456789"]);
        // A cut that splits a character: U+FFFD, never a panic.
        assert_eq!(lines_of("aé\n".as_bytes(), 2), ["a\u{fffd}… (1 byte cut)"]);
    }

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
