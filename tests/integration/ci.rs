//! The CI kit (issue 16, item 10): the GitHub Actions workflow and the
//! GitLab CI job of docs/ci.md, run as written there, on a scratch git
//! repository of two commits (the example inventory, then a change of one
//! host), with `gh` and `curl` replaced by stubs that keep the comment. Also
//! the pre-commit hook of `.pre-commit-hooks.yaml`.
//!
//! The steps are read out of the docs, so the docs cannot drift from what
//! is tested. The comment's wording belongs to `beryl diff --format
//! markdown`: only the host, the changed path and the code fence are checked.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::support::git::GitRepo;
use crate::support::repo;

/// The values of the `${{ … }}` expressions that the workflow's run steps
/// take through `env:`. An expression missing here fails the test.
const GITHUB_EXPRESSIONS: &[(&str, &str)] = &[
    ("github.token", "test-token"),
    ("github.repository", "example/fleet"),
    ("github.event.pull_request.number", "7"),
];

/// The host and the path that the second commit changes.
const HOST: &str = "host01.example.org";
const HOST_FILE: &str = "inventory/example.org/web/host01.yml";
const CHANGED_PATH: &str = "freebsd.swap";

/// The ```yaml block of docs/ci.md whose first line is `# {name}`.
fn doc_block(name: &str) -> Value {
    let text = fs::read_to_string(repo().join("docs/ci.md")).unwrap();
    let first = format!("# {name}");
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if line.trim() == "```yaml" {
            let block: Vec<&str> = lines.by_ref().take_while(|l| l.trim() != "```").collect();
            if block.first().map(|l| l.trim()) == Some(first.as_str()) {
                return serde_saphyr::from_str(&block.join("\n"))
                    .unwrap_or_else(|e| panic!("docs/ci.md, {name}: {e}"));
            }
        }
    }
    panic!("docs/ci.md has no ```yaml block starting with `{first}`")
}

/// A repository with the example inventory at HEAD~1 and a change of one
/// host at HEAD, checked out at HEAD, as CI has it.
fn pull_request() -> Option<(GitRepo, String)> {
    let r = GitRepo::new()?;
    r.add_example();
    r.commit("the example inventory");
    let base = r.git(&["rev-parse", "HEAD"]).trim().to_string();
    r.edit(HOST_FILE, "swap: 8g", "swap: 16g");
    r.commit("host01: more swap");
    Some((r, base))
}

/// A directory of stubs put first on the PATH, and beryl's directory after.
fn path_with(stubs: &Path) -> String {
    let beryl = PathBuf::from(env!("CARGO_BIN_EXE_beryl"));
    let mut dirs = vec![stubs.to_path_buf(), beryl.parent().unwrap().to_path_buf()];
    dirs.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(dirs).unwrap().into_string().unwrap()
}

fn stub(dir: &Path, name: &str, script: &str) {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    fs::write(&path, script).unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
}

/// Runs a script under bash as CI does (`-eo pipefail`), in `dir`, with only
/// `env`; returns its exit code, stdout and stderr.
fn bash(dir: &Path, script: &str, env: &[(String, String)]) -> (i32, String, String) {
    let out = Command::new("bash")
        .args(["--noprofile", "--norc", "-eo", "pipefail", "-c", script])
        .current_dir(dir)
        .env_clear()
        .env("HOME", dir)
        .env("NO_COLOR", "1")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .envs(env.iter().map(|(k, v)| (k, v)))
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A `${{ expr }}` value, from [`GITHUB_EXPRESSIONS`].
fn expand(value: &str) -> String {
    let mut out = String::new();
    let mut rest = value;
    while let Some(start) = rest.find("${{") {
        out.push_str(&rest[..start]);
        let end = rest[start..].find("}}").expect("unclosed ${{") + start;
        let expr = rest[start + 3..end].trim();
        let (_, v) = GITHUB_EXPRESSIONS
            .iter()
            .find(|(k, _)| *k == expr)
            .unwrap_or_else(|| panic!("add `{expr}` to GITHUB_EXPRESSIONS"));
        out.push_str(v);
        rest = &rest[end + 2..];
    }
    out.push_str(rest);
    out
}

fn env_of(v: &Value) -> Vec<(String, String)> {
    v.get("env")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| {
                    let v = match v {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    };
                    (k.clone(), expand(&v))
                })
                .collect()
        })
        .unwrap_or_default()
}

fn assert_is_the_comment(body: &str) {
    assert!(
        body.contains(HOST),
        "the comment does not name {HOST}:\n{body}"
    );
    assert!(
        body.contains(CHANGED_PATH),
        "the comment does not name {CHANGED_PATH}:\n{body}"
    );
    assert!(
        body.contains("```"),
        "the comment has no code block:\n{body}"
    );
}

#[test]
fn the_github_workflow_of_the_docs_checks_and_comments() {
    let workflow = doc_block(".github/workflows/beryl.yml");
    let Some((r, _base)) = pull_request() else {
        return;
    };
    assert_eq!(
        workflow["permissions"]["pull-requests"], "write",
        "the comment needs pull-requests: write"
    );
    assert_eq!(workflow["defaults"]["run"]["shell"], "bash");
    let jobs = workflow["jobs"].as_object().expect("jobs");
    assert_eq!(jobs.len(), 1, "one job");
    let steps = jobs.values().next().unwrap()["steps"]
        .as_array()
        .expect("steps");

    // The checkout fetches the base revision.
    let checkout = steps
        .iter()
        .find(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("actions/checkout@"))
        })
        .expect("an actions/checkout step");
    assert!(
        checkout["with"]["fetch-depth"]
            .as_u64()
            .is_some_and(|d| d == 0 || d >= 2),
        "fetch-depth must reach HEAD^1: {checkout}"
    );
    assert!(
        steps.iter().any(|s| s["uses"]
            .as_str()
            .is_some_and(|u| u.starts_with("actions/cache@"))),
        "beryl's build is cached"
    );

    let stubs = tempfile::tempdir().unwrap();
    let posted = stubs.path().join("posted.md");
    let calls = stubs.path().join("gh-calls");
    stub(
        stubs.path(),
        "gh",
        &format!(
            r#"#!/bin/sh
# gh, stubbed: records its arguments and the --body-file it was given.
echo "$*" >> '{calls}'
[ "$GH_REPO" = example/fleet ] && touch '{repo}'
while [ $# -gt 0 ]; do
  case "$1" in
    --body-file|-F) cp "$2" '{posted}'; shift ;;
  esac
  shift
done
"#,
            calls = calls.display(),
            posted = posted.display(),
            repo = stubs.path().join("gh-repo").display()
        ),
    );
    let output = stubs.path().join("github-output");
    let summary = stubs.path().join("step-summary");
    let mut env = vec![
        ("PATH".to_string(), path_with(stubs.path())),
        ("GITHUB_OUTPUT".into(), output.display().to_string()),
        ("GITHUB_STEP_SUMMARY".into(), summary.display().to_string()),
        ("GITHUB_REPOSITORY".into(), "example/fleet".into()),
    ];
    env.extend(env_of(&workflow));

    let mut ran = Vec::new();
    for step in steps {
        let Some(script) = step["run"].as_str() else {
            continue;
        };
        let name = step["name"].as_str().expect("every run step has a name");
        assert!(
            !script.contains("${{"),
            "step {name}: an expression inside run: is shell injection; pass it through env:"
        );
        if name.starts_with("Install") {
            assert!(script.contains("cargo +1.95 install --locked"), "{script}");
            continue;
        }
        let mut step_env = env.clone();
        step_env.extend(env_of(step));
        let (status, stdout, stderr) = bash(r.path(), script, &step_env);
        assert_eq!(status, 0, "step {name} failed:\n{stdout}\n{stderr}");
        ran.push(name.to_string());
    }
    assert_eq!(ran, ["Check", "Diff", "Comment"]);

    // beryl check exited 0 (the step passed); beryl diff exited 1.
    let outputs = fs::read_to_string(&output).unwrap();
    assert!(outputs.lines().any(|l| l == "exit-code=1"), "{outputs}");
    let gh = fs::read_to_string(&calls).unwrap();
    assert!(
        stubs.path().join("gh-repo").exists(),
        "gh ran without GH_REPO"
    );
    assert_eq!(
        gh.trim(),
        "pr comment 7 --edit-last --create-if-none --body-file beryl-diff.md"
    );
    assert_is_the_comment(&fs::read_to_string(&posted).unwrap());
    assert_is_the_comment(&fs::read_to_string(&summary).unwrap());
}

#[test]
fn the_gitlab_job_of_the_docs_checks_and_comments() {
    let pipeline = doc_block(".gitlab-ci.yml");
    let Some((r, base)) = pull_request() else {
        return;
    };
    let job = &pipeline["beryl"];
    assert_eq!(
        job["variables"]["GIT_DEPTH"], "0",
        "the merge base must be fetched"
    );
    assert!(job["cache"].is_object(), "beryl's build is cached");
    let before: Vec<&str> = job["before_script"]
        .as_array()
        .expect("before_script")
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    assert!(
        before.iter().any(|l| l.contains("cargo install --locked")),
        "{before:?}"
    );
    let script: Vec<&str> = job["script"]
        .as_array()
        .expect("script")
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();

    let stubs = tempfile::tempdir().unwrap();
    let log = stubs.path().join("curl-calls");
    let posted = stubs.path().join("posted.md");
    // GitLab's notes API, stubbed: no note yet; a POST or PUT keeps its body.
    stub(
        stubs.path(),
        "curl",
        &format!(
            r#"#!/bin/sh
method=GET
for a in "$@"; do
  case "$prev" in
    -X) method="$a" ;;
    --data-urlencode) cp "${{a#body@}}" '{posted}' ;;
  esac
  prev="$a"; url="$a"
done
echo "$method $url" >> '{log}'
[ "$method" = GET ] && echo '[]'
exit 0
"#,
            log = log.display(),
            posted = posted.display()
        ),
    );
    let mut env = vec![
        ("PATH".to_string(), path_with(stubs.path())),
        ("CI_MERGE_REQUEST_DIFF_BASE_SHA".into(), base),
        (
            "CI_API_V4_URL".into(),
            "https://gitlab.invalid/api/v4".into(),
        ),
        ("CI_PROJECT_ID".into(), "42".into()),
        ("CI_MERGE_REQUEST_IID".into(), "7".into()),
        ("BERYL_BOT_TOKEN".into(), "test-token".into()),
    ];
    for (k, v) in job["variables"].as_object().unwrap() {
        env.push((k.clone(), v.as_str().unwrap().to_string()));
    }
    // The runner runs the lines in one shell, stopping at the first failure.
    let (status, stdout, stderr) = bash(r.path(), &script.join("\n"), &env);
    assert_eq!(status, 0, "the job failed:\n{stdout}\n{stderr}");
    // The lines that ran: check (0, or the job had stopped), diff (1).
    assert!(script[0].starts_with("beryl check"), "{script:?}");
    let calls = fs::read_to_string(&log).unwrap();
    assert_eq!(
        calls,
        "GET https://gitlab.invalid/api/v4/projects/42/merge_requests/7/notes?per_page=100\n\
         POST https://gitlab.invalid/api/v4/projects/42/merge_requests/7/notes\n"
    );
    let body = fs::read_to_string(&posted).unwrap();
    assert!(body.starts_with("<!-- beryl diff -->\n"), "{body}");
    assert_is_the_comment(&body);
    // beryl diff's own exit code, from the same line run alone.
    let diff_line = script
        .iter()
        .find(|l| l.contains("beryl diff"))
        .unwrap()
        .replace("|| status=$?", "|| status=$?; exit $status");
    let (status, _, stderr) = bash(r.path(), &diff_line, &env);
    assert_eq!(status, 1, "{stderr}");
}

#[test]
fn the_pre_commit_hook_runs_beryl_check() {
    let text = fs::read_to_string(repo().join(".pre-commit-hooks.yaml")).unwrap();
    let hooks: Value = serde_saphyr::from_str(&text).unwrap();
    let hook = hooks
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["id"] == "beryl-check")
        .expect("a beryl-check hook");
    for field in ["id", "name", "entry", "language"] {
        assert!(hook[field].is_string(), "the hook needs `{field}`");
    }
    assert!(matches!(hook["language"].as_str(), Some("rust" | "system")));
    assert_eq!(
        hook["pass_filenames"], false,
        "check reads the whole inventory"
    );
    let files = regex::Regex::new(hook["files"].as_str().unwrap()).unwrap();
    assert!(files.is_match(HOST_FILE) && files.is_match("ssh/alice.pub"));
    assert!(!files.is_match("README.md"));

    let Some((r, _)) = pull_request() else { return };
    let entry = hook["entry"].as_str().unwrap();
    let env = [("PATH".to_string(), path_with(r.path()))];
    let (status, stdout, stderr) = bash(r.path(), entry, &env);
    assert_eq!(status, 0, "{stdout}{stderr}");
    assert!(stdout.contains("checked 10 hosts: ok"), "{stdout}");
    // And it fails on a broken inventory.
    fs::write(r.file(HOST_FILE), "swap: [\n").unwrap();
    let (status, _, stderr) = bash(r.path(), entry, &env);
    assert_eq!(status, 2, "{stderr}");
}
