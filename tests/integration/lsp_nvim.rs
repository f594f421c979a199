//! `beryl lsp` in a real client (issue 38): Neovim's built-in LSP client
//! (Debian's `nvim`, headless) runs lsp_nvim/client.lua on a copy of the
//! example inventory: hover in host01.yml (raid) and in web/_group.yml (the
//! knocked-out `--vim`, alice's shell), the references of alice's shell,
//! definition of the class `roles.web`, no diagnostic on opening, an error written and saved that
//! appears at its line for host02, and goes once fixed and saved; the same
//! error typed and not saved, which appears and goes when undone; alice's
//! shell as the preview hosts host01 and host02 see it; `${_beryl_.fqdn}`
//! as host01 sees it, and the definition of `${site.owner}`.
//!
//! Needs nvim; skips with a notice without it, unless BERYL_REQUIRE_TOOLS
//! is set.

use serde_json::Value;

use crate::support::{copy_tree, repo, tools};

#[test]
fn neovim_hovers_defines_and_sees_a_saved_error_come_and_go() {
    if !tools(
        &["nvim"],
        "neovim_hovers_defines_and_sees_a_saved_error_come_and_go",
    ) {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("fleet");
    copy_tree(&repo().join("inventory"), &root.join("inventory"));
    copy_tree(&repo().join("ssh"), &root.join("ssh"));
    let root = root.canonicalize().unwrap();
    let out = d.path().join("seen.json");
    let script = repo().join("tests/integration/lsp_nvim/client.lua");
    let run = std::process::Command::new("nvim")
        .args(["--headless", "--clean", "-n", "-u", "NONE", "-c"])
        .arg(format!("luafile {}", script.display()))
        .env("BERYL", env!("CARGO_BIN_EXE_beryl"))
        .env("ROOT", &root)
        .env("OUT", &out)
        .env("HOME", d.path())
        .env("XDG_STATE_HOME", d.path())
        .env("XDG_DATA_HOME", d.path())
        .output()
        .unwrap();
    let seen = std::fs::read_to_string(&out).unwrap_or_else(|_| {
        panic!(
            "nvim wrote nothing ({}): {}{}",
            run.status,
            String::from_utf8_lossy(&run.stdout),
            String::from_utf8_lossy(&run.stderr)
        )
    });
    let seen: Value = serde_json::from_str(&seen).unwrap();
    let text = |k: &str| seen[k].as_str().unwrap_or_default().to_string();
    assert_eq!(seen["ready"], true, "{seen}");
    assert!(
        text("hover_host").contains("inventory/example.org/web/host01.yml:9:9  \"raid10\"  wins"),
        "{seen}"
    );
    let web =
        "api.host01.example.org, host01.example.org, host02.example.org, www.host01.example.org";
    assert!(
        text("hover_knockout").contains(&format!(
            "- knocks out vim (written at inventory/_default.yml:76:7) on {web}"
        )),
        "{seen}"
    );
    assert!(
        text("hover_shell").contains("reaches 4 hosts; wins on 4"),
        "{seen}"
    );
    assert_eq!(
        text("definition_class"),
        format!(
            "file://{}",
            root.join("inventory/_classes/roles/web.yml").display()
        ),
        "{seen}"
    );
    assert_eq!(seen["diagnostics_open"], serde_json::json!([]), "{seen}");
    assert_eq!(
        seen["references_shell"],
        serde_json::json!([
            "inventory/_default.yml:112",
            "inventory/example.org/web/_group.yml:35"
        ]),
        "{seen}"
    );
    let error = &seen["diagnostics_error"][0];
    assert_eq!(error["line"], seen["error_line"], "{seen}");
    assert_eq!(error["code"], "beryl::schema::raid", "{seen}");
    assert_eq!(error["severity"], 1, "{seen}");
    assert!(
        error["message"]
            .as_str()
            .unwrap_or_default()
            .ends_with("(on host02.example.org)"),
        "{seen}"
    );
    assert_eq!(seen["diagnostics_fixed"], serde_json::json!([]), "{seen}");
    // Typed, not saved: the same error, from the buffer; undone: gone.
    let unsaved = &seen["diagnostics_unsaved"][0];
    assert_eq!(unsaved["line"], seen["error_line"], "{seen}");
    assert_eq!(unsaved["code"], "beryl::schema::raid", "{seen}");
    assert_eq!(seen["modified"], true, "{seen}");
    assert_eq!(seen["diagnostics_undone"], serde_json::json!([]), "{seen}");
    assert!(
        !std::fs::read_to_string(root.join("inventory/example.org/web/_group.yml"))
            .unwrap()
            .contains("raid5")
    );
    // As host01 and as host02: the group's shell wins on both, and the
    // chain each shows ends with its own file.
    assert_eq!(seen["preview_host01"], "previewing as host01.example.org");
    assert_eq!(seen["preview_host02"], "previewing as host02.example.org");
    for (key, own) in [("shell_host01", "host01"), ("shell_host02", "host02")] {
        let shown = text(key);
        assert!(
            shown.contains(&format!("**as `{own}.example.org`** (preview)")),
            "{key}: {seen}"
        );
        assert!(
            shown.contains("freebsd.users.alice.shell = \"/usr/local/bin/bash\""),
            "{key}: {seen}"
        );
        assert!(
            shown.contains(&format!("inventory/example.org/web/{own}.yml ")),
            "{key}: {seen}"
        );
    }
    // `${_beryl_.fqdn}` as host01 sees it.
    assert!(
        text("hover_fqdn").contains("monitoring.target = \"host01.example.org:9100\""),
        "{seen}"
    );
    assert_eq!(
        seen["definition_owner"]["uri"],
        format!("file://{}", root.join("inventory/_default.yml").display()),
        "{seen}"
    );
    assert_eq!(
        seen["definition_owner"]["range"]["start"]["line"], 18,
        "{seen}"
    );
}
