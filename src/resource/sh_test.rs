//! For the kinds' unit tests: a step's shell run under sh with stub
//! commands, as the apply script runs it (a function).

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// Runs `body` as the function `name`, called with `args` (shell words),
/// under sh, with `stubs` (command name, script) first on PATH, `$LOG`
/// naming `tmp/log` and `env` set; returns whether it succeeded, the log
/// and its standard error.
pub(crate) fn run(
    tmp: &Path,
    stubs: &[(&str, &str)],
    name: &str,
    body: &str,
    args: &str,
    env: &[(&str, &str)],
) -> (bool, String, String) {
    let bin = tmp.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    for (cmd, script) in stubs {
        let p = bin.join(cmd);
        std::fs::write(&p, script).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let log = tmp.join("log");
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("{name}() {{\n\t{body}\n}}\n{name} {args}"))
        .env("PATH", format!("{}:/bin:/usr/bin", bin.display()))
        .env("LOG", &log)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    (
        out.status.success(),
        std::fs::read_to_string(&log).unwrap_or_default(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
