//! The git side: resolving a revision, listing a tree, streaming its blobs.
//! Whatever git prints on stderr is captured, never shown.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};

use super::{RevisionError, under};

/// Runs git in `dir` and returns what it printed; what it says on stderr is
/// kept for the error, never shown.
pub(super) fn run(dir: &Path, args: &[&str]) -> Result<String, RevisionError> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(RevisionError::NoGit)?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(RevisionError::Git {
            command: args.first().copied().unwrap_or("git").to_string(),
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        })
    }
}

/// The commit that `rev` names, or why there is none.
pub(super) fn resolve(top: &Path, rev: &str) -> Result<String, RevisionError> {
    let peeled = format!("{rev}^{{commit}}");
    match run(top, &["rev-parse", "--verify", "--quiet", &peeled]) {
        Ok(id) => Ok(id.trim().to_string()),
        Err(RevisionError::Git { .. }) => {
            let shallow = run(top, &["rev-parse", "--is-shallow-repository"])
                .is_ok_and(|s| s.trim() == "true");
            let pattern = format!("refs/remotes/*/{rev}");
            let remote = run(
                top,
                &["for-each-ref", "--format=%(refname:short)", &pattern],
            )
            .map(|s| s.lines().map(str::to_string).collect())
            .unwrap_or_default();
            Err(RevisionError::UnknownRevision {
                rev: rev.into(),
                shallow,
                remote,
            })
        }
        Err(e) => Err(e),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    File,
    Link,
    /// A submodule or anything else that is not a blob: not materialised.
    Other,
}

#[derive(Debug)]
pub(super) struct Entry {
    pub kind: Kind,
    pub id: String,
    pub path: String,
}

/// Every file under the directories `wanted` at `commit` (`git ls-tree -r`).
pub(super) fn list(
    top: &Path,
    commit: &str,
    wanted: &[String],
) -> Result<Vec<Entry>, RevisionError> {
    let mut args = vec!["--literal-pathspecs", "ls-tree", "-r", "-z", "--full-tree"];
    args.push(commit);
    // The whole tree when the inventory is the repository's root.
    if wanted.iter().all(|w| !w.is_empty()) {
        args.push("--");
        args.extend(wanted.iter().map(String::as_str));
    }
    let out = Command::new("git")
        .arg("-C")
        .arg(top)
        .args(&args)
        .stdin(Stdio::null())
        .output()
        .map_err(RevisionError::NoGit)?;
    if !out.status.success() {
        return Err(RevisionError::Git {
            command: "ls-tree".into(),
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        });
    }
    let mut entries = Vec::new();
    for record in out.stdout.split(|&b| b == 0).filter(|r| !r.is_empty()) {
        // `<mode> SP <type> SP <object> TAB <path>`; the path is raw bytes.
        let Some(tab) = record.iter().position(|&b| b == b'\t') else {
            continue;
        };
        let head = String::from_utf8_lossy(&record[..tab]);
        let path = String::from_utf8_lossy(&record[tab + 1..]).into_owned();
        let mut fields = head.split(' ');
        let (Some(mode), Some(kind), Some(id)) = (fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        if !wanted.iter().any(|w| under(&path, w)) {
            continue;
        }
        let kind = match (kind, mode) {
            ("blob", "120000") => Kind::Link,
            ("blob", _) => Kind::File,
            _ => Kind::Other,
        };
        entries.push(Entry {
            kind,
            id: id.to_string(),
            path,
        });
    }
    Ok(entries)
}

/// Streams the blobs of `entries` through one `git cat-file --batch`, handing
/// each to `take` (at most `max + 1` bytes of it).
pub(super) fn read_blobs(
    top: &Path,
    entries: &[&Entry],
    max: u64,
    mut take: impl FnMut(&Entry, &[u8]) -> Result<(), RevisionError>,
) -> Result<(), RevisionError> {
    if entries.is_empty() {
        return Ok(());
    }
    let mut child = piped(
        Command::new("git")
            .arg("-C")
            .arg(top)
            .args(["cat-file", "--batch"]),
    )?;
    let mut stdin = child.stdin.take().expect("piped");
    let ids: Vec<u8> = entries
        .iter()
        .flat_map(|e| format!("{}\n", e.id).into_bytes())
        .collect();
    // Written from another thread: git answers while it reads, and would
    // block on a full pipe that nobody drains.
    let feeder = std::thread::spawn(move || stdin.write_all(&ids));
    let mut stdout = BufReader::new(child.stdout.take().expect("piped"));
    let result = (|| {
        let mut header = Vec::new();
        let mut bytes = Vec::new();
        for entry in entries {
            header.clear();
            stdout
                .read_until(b'\n', &mut header)
                .map_err(|e| cat_file_error(e.to_string()))?;
            let line = String::from_utf8_lossy(&header);
            // `<object> SP blob SP <size> LF <contents> LF`, or `<object> missing`.
            let size = match line.trim_end().split(' ').collect::<Vec<_>>()[..] {
                [_, "blob", size] => size.parse::<u64>().ok(),
                _ => None,
            }
            .ok_or_else(|| cat_file_error(format!("{}: {}", entry.path, line.trim_end())))?;
            let keep = size.min(max.saturating_add(1));
            bytes.clear();
            (&mut stdout)
                .take(keep)
                .read_to_end(&mut bytes)
                .map_err(|e| cat_file_error(e.to_string()))?;
            // The rest of an oversized blob, and the LF after the contents.
            std::io::copy(
                &mut (&mut stdout).take(size - keep + 1),
                &mut std::io::sink(),
            )
            .map_err(|e| cat_file_error(e.to_string()))?;
            if bytes.len() as u64 != keep {
                return Err(cat_file_error(format!("{}: truncated", entry.path)));
            }
            take(entry, &bytes)?;
        }
        Ok(())
    })();
    drop(stdout);
    let _ = feeder.join();
    let out = child.wait_with_output().map_err(RevisionError::NoGit)?;
    match result {
        Err(RevisionError::Git { command, stderr }) if !out.stderr.is_empty() => {
            Err(RevisionError::Git {
                command,
                stderr: format!("{stderr} ({})", String::from_utf8_lossy(&out.stderr).trim()),
            })
        }
        r => r,
    }
}

fn cat_file_error(stderr: String) -> RevisionError {
    RevisionError::Git {
        command: "cat-file".into(),
        stderr,
    }
}

/// git's blob id of each file of `paths` (`git hash-object --stdin-paths`),
/// their content hashed as is (`--no-filters`): equal to a listed blob's id
/// exactly when the bytes are those of the blob.
pub(super) fn blob_ids(paths: &[std::path::PathBuf]) -> Result<Vec<String>, RevisionError> {
    use std::os::unix::ffi::OsStrExt;
    if paths.is_empty() {
        return Ok(Vec::new());
    }
    let mut child =
        piped(Command::new("git").args(["hash-object", "--no-filters", "--stdin-paths"]))?;
    let mut stdin = child.stdin.take().expect("piped");
    let mut names = Vec::new();
    for p in paths {
        names.extend_from_slice(p.as_os_str().as_bytes());
        names.push(b'\n');
    }
    // Written from another thread, as for cat-file: git answers as it reads.
    let feeder = std::thread::spawn(move || stdin.write_all(&names));
    let out = child.wait_with_output().map_err(RevisionError::NoGit)?;
    let _ = feeder.join();
    let ids: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    if !out.status.success() || ids.len() != paths.len() {
        return Err(RevisionError::Git {
            command: "hash-object".into(),
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        });
    }
    Ok(ids)
}

/// Starts a git that reads its stdin and whose output and errors are ours.
fn piped(cmd: &mut Command) -> Result<std::process::Child, RevisionError> {
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(RevisionError::NoGit)
}
