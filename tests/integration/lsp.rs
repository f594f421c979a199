//! `beryl lsp` at the protocol level (issue 38, in progress): a scripted
//! client on the bundled example inventory. A request before `initialize`
//! is refused with ServerNotInitialized; hover in a host's file shows
//! `beryl explain` for the key under the cursor on that host; a shared
//! level gets no hover yet; an unknown method and bad parameters are
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
        let mut child = Command::new(env!("CARGO_BIN_EXE_beryl"))
            .arg("lsp")
            .current_dir(repo())
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

    fn request(&mut self, id: i64, method: &str, params: Value) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let r = self.recv();
        assert_eq!(r["id"], id, "{r}");
        r
    }

    fn initialize(&mut self) {
        let r = self.request(1, "initialize", json!({"capabilities": {}}));
        assert_eq!(r["result"]["capabilities"]["hoverProvider"], true, "{r}");
        self.send(json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
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
    // On a comment: nothing; a shared level: nothing yet.
    assert_eq!(hover(&mut c, 4, HOST01, 0, 3)["result"], Value::Null);
    let r = hover(&mut c, 5, "inventory/example.org/web/_group.yml", 8, 4);
    assert_eq!(r["result"], Value::Null, "{r}");
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
