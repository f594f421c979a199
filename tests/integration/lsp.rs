//! `beryl lsp` at the protocol level (issue 38, in progress): a scripted
//! client on the bundled example inventory. A request before `initialize`
//! is refused with ServerNotInitialized; hover in a host's file shows
//! `beryl explain` for the key under the cursor on that host, in a shared
//! level or a class what the line does on each host that reads it (the
//! knocked-out `--vim` of web/_group.yml, alice's shell there, `raid` in
//! _default.yml); definition leads from a class name, a key name, a
//! template and a `source` to their files; an unknown method and bad
//! parameters are
//! errors; `shutdown` then `exit` ends it with 0, and input that is not the
//! protocol ends it with 2 and a message, never a panic.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdout, Command, Stdio};

use serde_json::{Value, json};

use crate::support::repo;

struct Client {
    child: Child,
    out: BufReader<ChildStdout>,
}

impl Client {
    fn start() -> Client {
        Client::start_in(&repo())
    }

    /// A server started in `dir`, which holds `inventory/` and `ssh/`.
    fn start_in(dir: &std::path::Path) -> Client {
        Client::start_with(dir, &["lsp"])
    }

    /// A server started in `dir` with these arguments.
    fn start_with(dir: &std::path::Path, args: &[&str]) -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_beryl"))
            .args(args)
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let out = BufReader::new(child.stdout.take().unwrap());
        Client { child, out }
    }

    fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.child.stdin.as_mut().unwrap();
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    fn send(&mut self, msg: Value) {
        let body = msg.to_string();
        self.send_raw(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes());
    }

    /// The next message the server sends.
    fn recv(&mut self) -> Value {
        let mut len = 0;
        loop {
            let mut line = String::new();
            assert!(
                self.out.read_line(&mut line).unwrap() > 0,
                "the server closed"
            );
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some(n) = line.strip_prefix("Content-Length: ") {
                len = n.parse().unwrap();
            }
        }
        let mut body = vec![0; len];
        self.out.read_exact(&mut body).unwrap();
        serde_json::from_slice(&body).unwrap()
    }

    /// The response to a request; diagnostics published meanwhile (of
    /// other files, after those a test waited for) are passed over.
    fn request(&mut self, id: i64, method: &str, params: Value) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let mut r = self.recv();
        while r["method"] == "textDocument/publishDiagnostics" {
            r = self.recv();
        }
        assert_eq!(r["id"], id, "{r}");
        r
    }

    /// The diagnostics the server publishes next for `uri` (skipping those
    /// of other files).
    fn diagnostics_for(&mut self, uri: &str) -> Vec<Value> {
        loop {
            let m = self.recv();
            if m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri {
                return m["params"]["diagnostics"].as_array().unwrap().clone();
            }
        }
    }

    fn initialize(&mut self) {
        let r = self.request(1, "initialize", json!({"capabilities": {}}));
        assert_eq!(r["result"]["capabilities"]["hoverProvider"], true, "{r}");
        assert_eq!(
            r["result"]["capabilities"]["definitionProvider"], true,
            "{r}"
        );
        // Inlay hints are off unless asked for.
        assert_eq!(
            r["result"]["capabilities"].get("inlayHintProvider"),
            None,
            "{r}"
        );
        self.send(json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
    }

    /// Opens a document with its text.
    fn open(&mut self, uri: &str, version: i64, text: &str) {
        self.send(json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": uri, "languageId": "yaml", "version": version, "text": text}}}));
    }

    /// Sends a document's whole new text, unsaved.
    fn change(&mut self, uri: &str, version: i64, text: &str) {
        self.send(json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]}}));
    }

    /// Shuts the server down cleanly: `shutdown`, `exit`, exit code 0.
    fn finish(mut self) {
        self.request(90, "shutdown", Value::Null);
        self.send(json!({"jsonrpc": "2.0", "method": "exit"}));
        assert_eq!(self.end().0, 0);
    }

    /// Waits for the server to end: its exit code and standard error.
    fn end(mut self) -> (i32, String) {
        drop(self.child.stdin.take());
        let status = self.child.wait().unwrap();
        let mut err = String::new();
        self.child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        (status.code().unwrap_or(-1), err)
    }
}

/// A copy of the example inventory and its keys, to change.
fn example() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    crate::support::copy_tree(&repo().join("inventory"), &d.path().join("inventory"));
    crate::support::copy_tree(&repo().join("ssh"), &d.path().join("ssh"));
    d
}

/// The `file://` URI of an existing file, resolved as the server sees it.
fn file_uri(path: &std::path::Path) -> String {
    format!("file://{}", path.canonicalize().unwrap().display())
}

fn uri(rel: &str) -> String {
    format!("file://{}", repo().join(rel).display())
}

fn hover(c: &mut Client, id: i64, rel: &str, line: u32, character: u32) -> Value {
    c.request(
        id,
        "textDocument/hover",
        json!({"textDocument": {"uri": uri(rel)}, "position": {"line": line, "character": character}}),
    )
}

const HOST01: &str = "inventory/example.org/web/host01.yml";

#[test]
fn hover_explains_a_host_files_keys_and_bad_requests_are_answered() {
    let mut c = Client::start();
    // Before initialize: refused, and the server goes on.
    let r = hover(&mut c, 0, HOST01, 8, 4);
    assert_eq!(r["error"]["code"], -32002, "{r}");
    c.initialize();
    // `raid: raid10` (line 9): host01's own value wins over _default's.
    let r = hover(&mut c, 2, HOST01, 8, 4);
    let text = r["result"]["contents"]["value"]
        .as_str()
        .unwrap_or_default();
    for want in [
        "**freebsd.raid** on `host01.example.org`",
        "freebsd.raid = \"raid10\"",
        "inventory/_default.yml:66:9               \"mirror\"  replaced",
        "inventory/example.org/web/host01.yml:9:9  \"raid10\"  wins",
    ] {
        assert!(text.contains(want), "{want}: {text}");
    }
    // alice's groups, by name in the path.
    let r = hover(&mut c, 3, HOST01, 33, 8);
    let text = r["result"]["contents"]["value"]
        .as_str()
        .unwrap_or_default();
    assert!(text.contains("**freebsd.users.alice.groups**"), "{text}");
    // On a comment: nothing.
    assert_eq!(hover(&mut c, 4, HOST01, 0, 3)["result"], Value::Null);
    // In shared files: what the line does on each host that reads it.
    let group = "inventory/example.org/web/_group.yml";
    let web =
        "api.host01.example.org, host01.example.org, host02.example.org, www.host01.example.org";
    for (id, (rel, line, character, wants)) in [
        (
            group,
            29,
            8,
            vec![
                "**freebsd.packages.vim**".to_string(),
                format!("reaches 4 hosts\n- knocks out vim (written at inventory/_default.yml:76:7) on {web}\n"),
            ],
        ),
        (
            group,
            34,
            14,
            vec![
                "**freebsd.users.alice.shell**".to_string(),
                format!("reaches 4 hosts; wins on 4\n- wins on {web}\n"),
            ],
        ),
        (
            "inventory/_default.yml",
            65,
            4,
            vec![
                "reaches 10 hosts; wins on 2\n- wins on host02.example.org, mail.example.org\n".to_string(),
                "- replaced (the value from inventory/example.net/edge/_group.yml:12:9) on edge01.example.net, edge02.example.net".to_string(),
            ],
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let r = hover(&mut c, 20 + id as i64, rel, line, character);
        let text = r["result"]["contents"]["value"].as_str().unwrap_or_default();
        for want in wants {
            assert!(text.contains(&want), "{rel}:{line}: {want}\n{text}");
        }
    }
    assert_eq!(hover(&mut c, 5, group, 0, 4)["result"], Value::Null);
    // Not a file of the inventory, and not a file at all.
    assert_eq!(hover(&mut c, 6, "Cargo.toml", 0, 0)["result"], Value::Null);
    let r = c.request(
        7,
        "textDocument/hover",
        json!({"textDocument": {"uri": "https://example.org/x.yml"}, "position": {"line": 0, "character": 0}}),
    );
    assert_eq!(r["result"], Value::Null, "{r}");
    // Bad parameters, an unknown method.
    let r = c.request(8, "textDocument/hover", json!({"nope": 1}));
    assert_eq!(r["error"]["code"], -32602, "{r}");
    let r = c.request(9, "workspace/whatever", json!({}));
    assert_eq!(r["error"]["code"], -32601, "{r}");
    let r = c.request(10, "shutdown", Value::Null);
    assert_eq!(r["result"], Value::Null, "{r}");
    c.send(json!({"jsonrpc": "2.0", "method": "exit"}));
    let (code, err) = c.end();
    assert_eq!(code, 0, "{err}");
}

fn definition(c: &mut Client, id: i64, rel: &str, line: u32, character: u32) -> Value {
    let r = c.request(
        id,
        "textDocument/definition",
        json!({"textDocument": {"uri": uri(rel)}, "position": {"line": line, "character": character}}),
    );
    // No definition is `null`, never an error.
    assert_eq!(r.get("error"), None, "{r}");
    r["result"].clone()
}

#[test]
fn definition_goes_from_a_name_to_its_file() {
    let mut c = Client::start();
    c.initialize();
    let real = |rel: &str| {
        let p = repo().join(rel).canonicalize().unwrap();
        format!("file://{}", p.display())
    };
    // (file, line, column, the file it leads to): a class, a domain key,
    // a template, a `source` of the files folder.
    for (id, (rel, line, character, to)) in [
        (
            "inventory/example.org/web/_group.yml",
            6,
            6,
            "inventory/_classes/roles/web.yml",
        ),
        ("inventory/example.org/_domain.yml", 9, 5, "ssh/ops.pub"),
        (
            "inventory/_default.yml",
            94,
            18,
            "inventory/templates/pf.conf.j2",
        ),
        (
            "inventory/example.org/web/_group.yml",
            40,
            16,
            "inventory/files/nginx/nginx.conf",
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let d = definition(&mut c, 2 + id as i64, rel, line, character);
        assert_eq!(d["uri"], real(to), "{rel}:{line}: {d}");
        assert_eq!(d["range"]["start"], json!({"line": 0, "character": 0}));
    }
    // A template outside templates/ (`../`) leads nowhere.
    let d = example();
    let default = d.path().join("inventory/_default.yml");
    let text = std::fs::read_to_string(&default).unwrap();
    std::fs::write(
        &default,
        text.replace("template: pf.conf.j2", "template: ../_default.yml"),
    )
    .unwrap();
    let mut outside = Client::start_in(d.path());
    outside.initialize();
    let r = outside.request(
        2,
        "textDocument/definition",
        json!({"textDocument": {"uri": file_uri(&default)}, "position": {"line": 94, "character": 18}}),
    );
    assert_eq!(r["result"], Value::Null, "{r}");
    outside.finish();
    // A key, a name that leads nowhere, a comment: nothing.
    assert_eq!(
        definition(&mut c, 10, "inventory/example.org/web/_group.yml", 5, 2),
        Value::Null
    );
    assert_eq!(definition(&mut c, 11, HOST01, 8, 9), Value::Null);
    assert_eq!(definition(&mut c, 12, HOST01, 0, 2), Value::Null);
    c.finish();
}

#[test]
fn references_are_every_place_a_key_is_written_or_a_class_named() {
    let mut c = Client::start();
    c.initialize();
    let refs = |c: &mut Client, id: i64, rel: &str, line: u32, character: u32| {
        let r = c.request(
            id,
            "textDocument/references",
            json!({"textDocument": {"uri": uri(rel)}, "position": {"line": line, "character": character}, "context": {"includeDeclaration": true}}),
        );
        let mut found: Vec<String> = r["result"]
            .as_array()
            .unwrap_or_else(|| panic!("{r}"))
            .iter()
            .map(|l| {
                let path = l["uri"].as_str().unwrap().to_string();
                let rel = path
                    .rsplit_once("/inventory/")
                    .map_or(path.clone(), |(_, r)| r.to_string());
                format!(
                    "{rel}:{}",
                    l["range"]["start"]["line"].as_u64().unwrap() + 1
                )
            })
            .collect();
        found.sort();
        found
    };
    // alice's shell in web/_group.yml: _default.yml and the group write it
    // (host01.yml's shell is dave's, a jail's another user's).
    assert_eq!(
        refs(&mut c, 2, "inventory/example.org/web/_group.yml", 34, 8),
        ["_default.yml:112", "example.org/web/_group.yml:35",]
    );
    // The class roles.web: the one list that names it.
    assert_eq!(
        refs(&mut c, 3, "inventory/example.org/web/_group.yml", 6, 6),
        ["example.org/web/_group.yml:7"]
    );
    c.finish();
}

#[test]
fn a_secret_hovers_as_its_token() {
    if !crate::support::tools(&["age-keygen"], "a_secret_hovers_as_its_token") {
        return;
    }
    let d = example();
    let (_, public) = crate::support::age_key(d.path(), "age.txt");
    let plain = "Hover-canary-4417";
    let r = crate::support::beryl_with_env(
        d.path(),
        &crate::support::args(&[
            "secrets",
            "set",
            HOST01,
            "site.api_token",
            "--recipient",
            &public,
        ]),
        &[],
        Some(plain),
    );
    assert_eq!(r.status, 0, "{}", r.stderr);
    let file = d.path().join(HOST01);
    let text = std::fs::read_to_string(&file).unwrap();
    let line = text
        .lines()
        .position(|l| l.contains("api_token: ENC["))
        .unwrap() as u32;
    let mut c = Client::start_in(d.path());
    c.initialize();
    let r = c.request(
        2,
        "textDocument/hover",
        json!({"textDocument": {"uri": file_uri(&file)}, "position": {"line": line, "character": 6}}),
    );
    let shown = r["result"]["contents"]["value"]
        .as_str()
        .unwrap_or_default();
    assert!(shown.contains("site.api_token = \"‹secret:"), "{r}");
    for leak in crate::support::leak_forms(plain) {
        assert!(!r.to_string().contains(&leak), "{leak}: {r}");
    }
    c.finish();
}

#[test]
fn a_saved_error_is_published_at_its_line_and_goes_when_fixed() {
    let d = example();
    let group = d.path().join("inventory/example.org/web/_group.yml");
    let group_uri = file_uri(&group);
    let mut c = Client::start_in(d.path());
    c.initialize();
    let notify = |c: &mut Client, method: &str| {
        let text = std::fs::read_to_string(&group).unwrap();
        c.send(json!({"jsonrpc": "2.0", "method": method, "params": {"textDocument": {"uri": group_uri, "languageId": "yaml", "version": 1, "text": text}}}));
    };
    notify(&mut c, "textDocument/didOpen");
    assert_eq!(c.diagnostics_for(&group_uri), Vec::<Value>::new());
    // A saved error: at its line, with its code and the hosts it fails.
    let text = std::fs::read_to_string(&group).unwrap();
    assert!(text.contains("\nfreebsd:\n"));
    std::fs::write(
        &group,
        text.replacen("\nfreebsd:\n", "\nfreebsd:\n  raid: raid5\n", 1),
    )
    .unwrap();
    let line = text[..text.find("\nfreebsd:\n").unwrap()]
        .matches('\n')
        .count() as u64
        + 2;
    notify(&mut c, "textDocument/didSave");
    let found = c.diagnostics_for(&group_uri);
    assert_eq!(found.len(), 1, "{found:?}");
    let d0 = &found[0];
    assert_eq!(d0["severity"], 1, "{d0}");
    assert_eq!(d0["source"], "beryl");
    assert!(d0["code"].as_str().unwrap().starts_with("beryl::"), "{d0}");
    assert_eq!(d0["range"]["start"]["line"], line, "{d0}");
    assert!(d0["message"].as_str().unwrap().contains("raid5"), "{d0}");
    // host01 sets its own raid, and jails take none: host02 alone fails.
    let message = d0["message"].as_str().unwrap();
    assert!(message.ends_with("(on host02.example.org)"), "{d0}");
    assert_eq!(d0["code"], "beryl::schema::raid", "{d0}");
    // Fixed and saved: the list is empty again.
    std::fs::write(&group, &text).unwrap();
    notify(&mut c, "textDocument/didSave");
    assert_eq!(c.diagnostics_for(&group_uri), Vec::<Value>::new());
    c.finish();
}

#[test]
fn input_that_is_not_the_protocol_ends_the_server_with_a_message() {
    for bytes in [
        &b"this is not a header\r\n\r\n"[..],
        b"Content-Length: 5\r\n\r\n{oops",
        b"Content-Length: 99999999999999999999\r\n\r\n",
    ] {
        let mut c = Client::start();
        c.send_raw(bytes);
        let (code, err) = c.end();
        assert_eq!(code, 2, "{bytes:?}: {err}");
        assert!(!err.contains("panicked"), "{bytes:?}: {err}");
        assert!(err.contains("beryl::"), "{bytes:?}: {err}");
    }
    // A client gone before `shutdown`: an error, not a hang or a panic.
    let mut c = Client::start();
    c.initialize();
    let (code, err) = c.end();
    assert_eq!(code, 2, "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn an_unsaved_change_is_checked_as_typed_and_the_disk_is_left_alone() {
    let d = example();
    let group = d.path().join("inventory/example.org/web/_group.yml");
    let group_uri = file_uri(&group);
    let text = std::fs::read_to_string(&group).unwrap();
    let mut c = Client::start_in(d.path());
    c.initialize();
    c.open(&group_uri, 1, &text);
    assert_eq!(c.diagnostics_for(&group_uri), Vec::<Value>::new());
    let change = |c: &mut Client, version: i64, text: &str| c.change(&group_uri, version, text);
    // Three comment lines above and an error under `freebsd:`, typed and
    // not saved: the error is at its line in the buffer, not on the disk.
    let typed = format!(
        "# one\n# two\n# three\n{}",
        text.replacen("\nfreebsd:\n", "\nfreebsd:\n  raid: raid5\n", 1)
    );
    let line = typed[..typed.find("  raid: raid5").unwrap()]
        .matches('\n')
        .count();
    change(&mut c, 2, "# half-typed\n");
    change(&mut c, 3, &typed);
    // The half-typed text is taken with the next change when both are
    // waiting, or checked first (an empty list) when the server was quicker.
    let mut found = c.diagnostics_for(&group_uri);
    if found.is_empty() {
        found = c.diagnostics_for(&group_uri);
    }
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0]["code"], "beryl::schema::raid", "{found:?}");
    assert_eq!(found[0]["range"]["start"]["line"], line, "{found:?}");
    assert!(
        (found[0]["message"].as_str().unwrap()).ends_with("(on host02.example.org)"),
        "{found:?}"
    );
    assert_eq!(std::fs::read_to_string(&group).unwrap(), text);
    // A hover reads the buffer, and says so.
    let r = c.request(
        2,
        "textDocument/hover",
        json!({"textDocument": {"uri": group_uri}, "position": {"line": line, "character": 4}}),
    );
    let shown = r["result"]["contents"]["value"]
        .as_str()
        .unwrap_or_default();
    assert!(
        shown.starts_with(
            "**freebsd.raid** (with the unsaved changes of example.org/web/_group.yml)"
        ),
        "{r}"
    );
    // YAML that does not parse: one error where the parser stopped.
    change(&mut c, 4, &format!("{typed}\n  - [unclosed\n"));
    let found = c.diagnostics_for(&group_uri);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0]["severity"], 1, "{found:?}");
    // Back to the text on the disk: nothing.
    change(&mut c, 5, &text);
    assert_eq!(c.diagnostics_for(&group_uri), Vec::<Value>::new());
    // Typed again, then closed without saving: the disk counts again.
    change(&mut c, 6, &typed);
    assert_eq!(c.diagnostics_for(&group_uri).len(), 1);
    c.send(json!({"jsonrpc": "2.0", "method": "textDocument/didClose", "params": {"textDocument": {"uri": group_uri}}}));
    assert_eq!(c.diagnostics_for(&group_uri), Vec::<Value>::new());
    c.finish();
}

#[test]
fn a_preview_host_inlay_hints_and_the_definition_of_a_reference() {
    let mut c = Client::start();
    let r = c.request(
        1,
        "initialize",
        json!({"capabilities": {}, "initializationOptions": {"inlayHints": true}}),
    );
    assert_eq!(
        r["result"]["capabilities"]["inlayHintProvider"], true,
        "{r}"
    );
    assert_eq!(
        r["result"]["capabilities"]["executeCommandProvider"]["commands"],
        json!(["beryl.preview"]),
        "{r}"
    );
    c.send(json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
    let group = "inventory/example.org/web/_group.yml";
    let preview = |c: &mut Client, id: i64, args: Value| {
        c.request(
            id,
            "workspace/executeCommand",
            json!({"command": "beryl.preview", "arguments": args}),
        )
    };
    // alice's shell in the web group, as host02 sees it.
    let r = preview(&mut c, 2, json!(["host02"]));
    assert_eq!(r["result"], "previewing as host02.example.org", "{r}");
    let shown = hover(&mut c, 3, group, 34, 14);
    let shown = shown["result"]["contents"]["value"].as_str().unwrap();
    assert!(shown.contains("reaches 4 hosts; wins on 4"), "{shown}");
    assert!(
        shown.contains(
            "**as `host02.example.org`** (preview)\n\n```text\nfreebsd.users.alice.shell = \"/usr/local/bin/bash\""
        ),
        "{shown}"
    );
    assert!(
        shown.contains("inventory/example.org/web/_group.yml:35:14  \"/usr/local/bin/bash\"  wins"),
        "{shown}"
    );
    // A host that does not read the file, one that does not exist, none.
    preview(&mut c, 4, json!(["mail"]));
    let shown = hover(&mut c, 5, group, 34, 14);
    assert!(
        (shown["result"]["contents"]["value"].as_str().unwrap())
            .ends_with("**as `mail.example.org`** (preview): it does not read this file"),
        "{shown}"
    );
    let r = preview(&mut c, 6, json!(["nosuch"]));
    assert_eq!(r["error"]["code"], -32602, "{r}");
    assert_eq!(r["error"]["message"], "unknown host `nosuch`", "{r}");
    let r = preview(&mut c, 7, json!([1, 2]));
    assert_eq!(r["error"]["code"], -32602, "{r}");
    assert_eq!(preview(&mut c, 8, json!([]))["result"], "no preview host");
    let shown = hover(&mut c, 9, group, 34, 14);
    assert!(
        !shown["result"]["contents"]["value"]
            .as_str()
            .unwrap()
            .contains("(preview)"),
        "{shown}"
    );
    // Hints in host01.yml: only where the line alone does not tell.
    let hints = |c: &mut Client, id: i64, rel: &str| {
        let r = c.request(
            id,
            "textDocument/inlayHint",
            json!({"textDocument": {"uri": uri(rel)}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 999, "character": 0}}}),
        );
        // No hints is `null` or `[]`, never an error.
        assert_eq!(r.get("error"), None, "{r}");
        r["result"].as_array().cloned().unwrap_or_default()
    };
    let found = hints(&mut c, 10, HOST01);
    let at = |line: u64| {
        found
            .iter()
            .find(|h| h["position"]["line"] == line)
            .map(|h| h["label"].as_str().unwrap().to_string())
    };
    assert_eq!(
        at(52).as_deref(),
        Some(
            "→ \"host01: owned by platform team, contact ops@example.org\" (a reference, resolved after merging; wins)"
        ),
        "{found:?}"
    );
    assert!(
        at(27).is_some_and(|l| l.contains("duplicate dropped: \"nginx\"")),
        "{found:?}"
    );
    assert_eq!(at(8), None, "raid10 wins as written: {found:?}");
    // A shared file has hints only as the preview host.
    assert_eq!(hints(&mut c, 11, group), Vec::<Value>::new());
    preview(&mut c, 12, json!(["host02"]));
    let found = hints(&mut c, 13, group);
    assert!(
        found.iter().any(|h| h["label"]
            .as_str()
            .unwrap()
            .contains("knocks out vim (written at inventory/_default.yml:76:7)")),
        "{found:?}"
    );
    // `${site.owner}` leads to where it is written; `${_beryl_.fqdn}` is
    // computed and leads nowhere.
    let r = definition(&mut c, 14, HOST01, 52, 27);
    assert_eq!(
        r,
        json!([{"uri": uri("inventory/_default.yml"), "range": {"start": {"line": 18, "character": 9}, "end": {"line": 18, "character": 9}}}]),
        "{r}"
    );
    let r = definition(&mut c, 15, "inventory/_default.yml", 27, 14);
    assert_eq!(r, Value::Null, "{r}");
    // A file's `notify: {nginx: reload}` leads to the service nginx, on the
    // key and on its value.
    for (id, character) in [(16, 9), (17, 16)] {
        let r = definition(&mut c, id, group, 43, character);
        assert_eq!(r[0]["uri"], uri(group), "{r}");
        assert_eq!(r[0]["range"]["start"]["line"], 48, "{r}");
    }
    c.finish();
}

#[test]
fn the_server_works_in_the_clients_root_whatever_directory_it_started_in() {
    let elsewhere = tempfile::tempdir().unwrap();
    let mut c = Client::start_in(elsewhere.path());
    let root = format!("file://{}", repo().display());
    let r = c.request(
        1,
        "initialize",
        json!({"capabilities": {}, "rootUri": root}),
    );
    assert_eq!(r["result"]["capabilities"]["hoverProvider"], true, "{r}");
    c.send(json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
    let shown = hover(&mut c, 2, HOST01, 8, 4);
    assert!(
        (shown["result"]["contents"]["value"]
            .as_str()
            .unwrap_or_default())
        .contains("inventory/example.org/web/host01.yml:9:9  \"raid10\"  wins"),
        "{shown}"
    );
    c.finish();
}

#[test]
fn a_broken_class_keeps_its_error_while_typed_and_other_files_change_nothing() {
    let d = example();
    let class = d.path().join("inventory/_classes/roles/web.yml");
    let extra = d.path().join("inventory/_classes/extra.yml");
    std::fs::write(&extra, "# a class no host includes\n").unwrap();
    let (class_uri, extra_uri) = (file_uri(&class), file_uri(&extra));
    let text = std::fs::read_to_string(&class).unwrap();
    let mut c = Client::start_in(d.path());
    c.initialize();
    c.open(&class_uri, 1, &text);
    assert_eq!(c.diagnostics_for(&class_uri), Vec::<Value>::new());
    let change = |c: &mut Client, uri: &str, version: i64, text: &str| c.change(uri, version, text);
    change(&mut c, &class_uri, 2, &format!("{text}\n  - [unclosed\n"));
    assert_eq!(c.diagnostics_for(&class_uri).len(), 1);
    // A hover in another class works out every file's readers while this
    // one does not load; typed again, its error is still shown.
    c.request(
        2,
        "textDocument/hover",
        json!({"textDocument": {"uri": extra_uri}, "position": {"line": 0, "character": 2}}),
    );
    change(
        &mut c,
        &class_uri,
        3,
        &format!("{text}\n  - [unclosed, still\n"),
    );
    let found = c.diagnostics_for(&class_uri);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0]["severity"], 1, "{found:?}");
    // A file outside the inventory, changed: no world ends, nothing is
    // published; the next answer comes at once.
    let notes = d.path().join("notes.yml");
    std::fs::write(&notes, "a: 1\n").unwrap();
    change(&mut c, &file_uri(&notes), 2, "a: 2\n");
    let r = c.request(
        3,
        "textDocument/hover",
        json!({"textDocument": {"uri": file_uri(&notes)}, "position": {"line": 0, "character": 0}}),
    );
    assert_eq!(r["result"], Value::Null, "{r}");
    c.finish();
}

#[test]
fn a_query_leads_to_its_exports_an_export_to_its_queries_a_pattern_to_its_rule() {
    let mut c = Client::start();
    c.initialize();
    let edge = "inventory/example.net/edge/_group.yml";
    let web = "inventory/_classes/roles/web.yml";
    let at = |rel: &str, line: u64, character: u64| json!({"uri": uri(rel), "range": {"start": {"line": line, "character": character}, "end": {"line": line, "character": character}}});
    // edge's `$[ exports.http_port if exports.role == web ]`: every value
    // it gathers was exported at one place, roles/web.yml's http_port.
    assert_eq!(definition(&mut c, 2, edge, 7, 20), json!([at(web, 11, 13)]));
    // The export itself: where it is written in its host's chain.
    assert_eq!(definition(&mut c, 5, web, 11, 4), json!([at(web, 11, 13)]));
    // `monitoring.checks: append` in `merge:`: the rule in force is
    // _default.yml's own (no level above writes that pattern).
    let default = "inventory/_default.yml";
    assert_eq!(
        definition(&mut c, 3, default, 14, 4),
        json!([at(default, 14, 2)])
    );
    // References of the export http_port: the query that reads it, and
    // where it is written.
    let r = c.request(
        4,
        "textDocument/references",
        json!({"textDocument": {"uri": uri(web)}, "position": {"line": 11, "character": 4}, "context": {"includeDeclaration": true}}),
    );
    let mut found: Vec<String> = (r["result"].as_array().unwrap().iter())
        .map(|l| {
            let path = l["uri"]
                .as_str()
                .unwrap()
                .rsplit("inventory/")
                .next()
                .unwrap();
            format!(
                "{path}:{}",
                l["range"]["start"]["line"].as_u64().unwrap() + 1
            )
        })
        .collect();
    found.sort();
    assert_eq!(
        found,
        ["_classes/roles/web.yml:12", "example.net/edge/_group.yml:8"],
        "{r}"
    );
    c.finish();
}

#[test]
fn the_diagnostics_are_beryl_checks_of_the_hosts_that_read_the_file() {
    // Two jails of host01 given one address: a finding of the host with its
    // jails as a unit, which no jail's own check sees.
    let d = example();
    let www = d
        .path()
        .join("inventory/example.org/web/host01.jails/www.yml");
    let www_uri = file_uri(&www);
    let text = std::fs::read_to_string(&www).unwrap();
    assert!(text.contains("ip4: [192.0.2.21/24]"));
    let mut c = Client::start_in(d.path());
    c.initialize();
    c.open(&www_uri, 1, &text);
    assert_eq!(c.diagnostics_for(&www_uri), Vec::<Value>::new());
    let typed = text.replace("ip4: [192.0.2.21/24]", "ip4: [192.0.2.22/24]");
    c.change(&www_uri, 2, &typed);
    let found = c.diagnostics_for(&www_uri);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0]["code"], "beryl::jail::ip4_duplicate", "{found:?}");
    let line = typed[..typed.find("ip4: [192.0.2.22/24]").unwrap()]
        .matches('\n')
        .count();
    assert_eq!(found[0]["range"]["start"]["line"], line, "{found:?}");
    let message = found[0]["message"].as_str().unwrap();
    assert!(
        message.ends_with("(on host01.example.org, www.host01.example.org)"),
        "{message}"
    );
    c.finish();
}

#[test]
fn a_buffer_restored_unsaved_is_checked_from_its_text() {
    let d = example();
    let group = d.path().join("inventory/example.org/web/_group.yml");
    let group_uri = file_uri(&group);
    let text = std::fs::read_to_string(&group).unwrap();
    let typed = text.replacen("\nfreebsd:\n", "\nfreebsd:\n  raid: raid5\n", 1);
    let mut c = Client::start_in(d.path());
    c.initialize();
    // An editor reopening a session opens the buffer with its unsaved text.
    c.open(&group_uri, 7, &typed);
    let found = c.diagnostics_for(&group_uri);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0]["code"], "beryl::schema::raid", "{found:?}");
    c.finish();
}

#[test]
fn a_rule_the_files_hosts_never_use_is_a_warning_in_that_file_only() {
    let d = example();
    let mail = d.path().join("inventory/example.org/mail.yml");
    let mail_uri = file_uri(&mail);
    let text = std::fs::read_to_string(&mail).unwrap();
    assert!(!text.contains("merge:"));
    // A rule of _default.yml in force on host01 only (its motd): `beryl
    // check mail` warns of it, and the editor of mail.yml does not.
    let default = d.path().join("inventory/_default.yml");
    let rules = std::fs::read_to_string(&default).unwrap();
    assert!(rules.contains("\nmerge:\n"));
    std::fs::write(
        &default,
        rules.replacen("\nmerge:\n", "\nmerge:\n  motd: replace\n", 1),
    )
    .unwrap();
    let check = crate::support::beryl(d.path(), &crate::support::args(&["check", "mail"]));
    assert!(
        check.stderr.contains("beryl::merge::rule_unused"),
        "{}",
        check.stderr
    );
    let mut c = Client::start_in(d.path());
    c.initialize();
    c.open(&mail_uri, 1, &text);
    let mut published = Vec::new();
    loop {
        let m = c.recv();
        if m["method"] == "textDocument/publishDiagnostics" {
            published.push(m["params"].clone());
            if m["params"]["uri"] == mail_uri {
                break;
            }
        }
    }
    assert!(
        !published
            .iter()
            .any(|p| p.to_string().contains("rule_unused")),
        "{published:?}"
    );
    assert_eq!(published.last().unwrap()["diagnostics"], json!([]));
    let typed = format!("merge:\n  nothing.here: append\n{text}");
    c.change(&mail_uri, 2, &typed);
    let found = c.diagnostics_for(&mail_uri);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0]["code"], "beryl::merge::rule_unused", "{found:?}");
    assert_eq!(found[0]["severity"], 2, "{found:?}");
    assert_eq!(found[0]["range"]["start"]["line"], 1, "{found:?}");
    c.finish();
}

#[test]
fn on_a_reclass_root_a_key_under_parameters_is_a_config_path() {
    let root = repo().join("tests/fixtures/reclass/basic");
    let mut c = Client::start_with(&root, &["-i", ".", "lsp"]);
    c.initialize();
    let file = |rel: &str| format!("file://{}", root.join(rel).display());
    let hover = |c: &mut Client, id: i64, rel: &str, line: u32, character: u32| {
        let r = c.request(
            id,
            "textDocument/hover",
            json!({"textDocument": {"uri": file(rel)}, "position": {"line": line, "character": character}}),
        );
        assert_eq!(r.get("error"), None, "{r}");
        r["result"]["contents"]["value"]
            .as_str()
            .map(str::to_string)
    };
    // A node's `parameters.users.alice.shell` is its config's
    // `users.alice.shell`.
    let shown = hover(&mut c, 2, "nodes/db01.yml", 5, 14).unwrap();
    assert!(
        shown.starts_with("**users.alice.shell** on `db01`"),
        "{shown}"
    );
    assert!(
        shown.contains("users.alice.shell = \"/bin/sh\"\n  from:     nodes/db01.yml:6:20"),
        "{shown}"
    );
    // A class's parameter, across the nodes that read it.
    let shown = hover(&mut c, 3, "classes/common.yml", 7, 4).unwrap();
    assert!(shown.starts_with("**motd**"), "{shown}");
    assert!(shown.contains("reaches "), "{shown}");
    // reclass's own keys are no config path.
    assert_eq!(hover(&mut c, 4, "classes/common.yml", 3, 4), None);
    c.finish();
}

#[test]
fn opening_a_class_no_host_includes_keeps_the_fleets_warning_on_it() {
    let d = example();
    let unused = d.path().join("inventory/_classes/unused.yml");
    std::fs::write(&unused, "# no host includes this class\n").unwrap();
    let (default, unused) = (d.path().join("inventory/_default.yml"), file_uri(&unused));
    let mut c = Client::start_in(d.path());
    c.initialize();
    let open = |c: &mut Client, path: &std::path::Path| {
        c.open(&file_uri(path), 1, &std::fs::read_to_string(path).unwrap());
    };
    // _default.yml reaches every host: the whole fleet's check, which
    // warns that no host includes the class.
    open(&mut c, &default);
    let found = c.diagnostics_for(&unused);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0]["code"], "beryl::classes::unused", "{found:?}");
    // Opening the class (no host reads it) publishes nothing over it.
    open(&mut c, &d.path().join("inventory/_classes/unused.yml"));
    c.send(json!({"jsonrpc": "2.0", "id": 5, "method": "textDocument/hover", "params": {"textDocument": {"uri": unused}, "position": {"line": 0, "character": 0}}}));
    loop {
        let m = c.recv();
        assert!(
            !(m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == unused),
            "{m}"
        );
        if m["id"] == 5 {
            break;
        }
    }
    c.finish();
}
