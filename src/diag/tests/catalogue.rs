//! docs/codes.md, the catalogue of every diagnostic code, is generated from
//! the stages' [`codes!`](crate::diag::codes) enums: these tests fail when it is
//! out of date (`BERYL_UPDATE_DOCS=1` rewrites it instead), when an enum is
//! missing from the list below, and when a snapshot or a page of docs/ shows
//! a code that no enum declares.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use crate::diag::Severity;

const PAGE: &str = "docs/codes.md";

/// One code of the catalogue.
struct Entry {
    code: &'static str,
    severity: Severity,
    about: String,
    /// The variant that declares it, `stage::Code::Variant`.
    declared: String,
}

/// The entries of every variant of each enum named.
macro_rules! entries {
    ($($enum:path),+ $(,)?) => {{
        let mut out = Vec::new();
        $(
            let name = stringify!($enum).replace(' ', "");
            let name = name.strip_prefix("crate::").unwrap_or(&name).to_string();
            for &c in <$enum>::ALL {
                out.push(Entry {
                    code: c.as_str(),
                    severity: c.severity(),
                    about: c.about(),
                    declared: format!("{name}::{c:?}"),
                });
            }
        )+
        (out, [$(stringify!($enum)),+].len())
    }};
}

/// Every enum of codes, and how many there are.
fn all() -> (Vec<Entry>, usize) {
    entries!(
        crate::diag::Common,
        crate::limits::Limit,
        crate::yaml::Code,
        crate::inventory::Code,
        crate::inventory::levels::Code,
        crate::inventory::settings::Code,
        crate::inventory::revision::Code,
        crate::inventory::reclass::Code,
        crate::classes::Code,
        crate::merge::Code,
        crate::refs::Code,
        crate::exports::Code,
        crate::keys::Code,
        crate::secrets::Code,
        crate::schema::Code,
        crate::compile::warn::Code,
        crate::compile::files::Code,
        crate::compile::jail::Code,
        crate::desired::access::Code,
        crate::desired::require::Code,
        crate::desired::jails::Code,
        crate::install::Code,
        crate::apply::Code,
        crate::lint::Code,
        crate::select::Code,
        crate::output::Code,
        crate::output::ansible::Code,
        crate::outdir::Code,
        crate::cli::Code,
        crate::cli::apply::Code,
        crate::cli::diff::Code,
        crate::cli::explain::Code,
        crate::cli::lookup::Code,
        crate::cli::facts::Code,
        crate::cli::init::Code,
        crate::cli::man::Code,
        crate::cli::plan::Code,
        crate::cli::reclass::Code,
        crate::cli::render::Code,
    )
}

/// The stage a code is listed under: its second segment.
fn stage(code: &str) -> &str {
    code.split("::").nth(1).unwrap_or(code)
}

/// The text of docs/codes.md.
fn page(entries: &[Entry]) -> String {
    let mut stages: BTreeMap<&str, Vec<&Entry>> = BTreeMap::new();
    for e in entries {
        stages.entry(stage(e.code)).or_default().push(e);
    }
    let mut out = String::from(
        "# Diagnostic codes\n\
         \n\
         Every error and warning beryl reports has a code, `beryl::STAGE::KIND`,\n\
         printed above its message (and as `code` in `check --format json`, the\n\
         title of a GitHub annotation; see [check.md](check.md)). This page lists\n\
         every code by stage: what it means, whether it is an error or a warning,\n\
         and the Rust enum variant that declares it. A warning fails nothing, unless\n\
         `check --deny-warnings` makes it an error.\n\
         \n\
         Each stage declares its codes once, in one enum (`diag::codes!`), so a\n\
         code cannot be mistyped, and this page is generated from those enums: `cargo\n\
         test` fails when it is out of date, and `BERYL_UPDATE_DOCS=1 cargo test\n\
         --lib catalogue` rewrites it. A code usually names the stage that reports\n\
         it; the few that name another are declared where they are reported.\n\
         \n\
         Stages: ",
    );
    let links: Vec<String> = stages.keys().map(|s| format!("[{s}](#{s})")).collect();
    out.push_str(&links.join(", "));
    out.push_str(".\n");
    for (stage, mut codes) in stages {
        codes.sort_by_key(|e| e.code);
        let _ = write!(
            out,
            "\n## {stage}\n\n| code | severity | meaning | declared by |\n|---|---|---|---|\n"
        );
        for e in codes {
            let _ = writeln!(
                out,
                "| `{}` | {} | {} | `{}` |",
                e.code,
                e.severity.name(),
                e.about.replace('|', "\\|"),
                e.declared
            );
        }
    }
    out
}

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn files(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, ext, out);
        } else if path.extension().is_some_and(|e| e == ext) {
            out.push(path);
        }
    }
    out.sort();
}

/// Each `beryl::…` word of a text, as far as it has code characters, but
/// for templates (`beryl::STAGE::KIND`, `beryl::limit::<name>`), whose code
/// characters end with `::`.
fn mentioned(text: &str) -> impl Iterator<Item = &str> {
    text.match_indices("beryl::").filter_map(|(at, _)| {
        let rest = &text[at..];
        let len = rest
            .find(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == ':'))
            .unwrap_or(rest.len());
        let word = &rest[..len];
        (!word.ends_with("::")).then(|| word.trim_end_matches(':'))
    })
}

#[test]
fn codes_are_well_formed_and_declared_once() {
    let (entries, _) = all();
    let mut seen = BTreeSet::new();
    for e in &entries {
        let parts: Vec<&str> = e.code.split("::").collect();
        assert!(
            parts[0] == "beryl"
                && (2..=3).contains(&parts.len())
                && parts[1..].iter().all(|p| !p.is_empty()
                    && p.chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')),
            "{} ({}) is not beryl::STAGE::KIND",
            e.code,
            e.declared
        );
        assert!(seen.insert(e.code), "{} is declared twice", e.code);
        assert!(!e.about.is_empty(), "{} has no description", e.code);
    }
}

/// Every `codes!` enum of src/ (declared at the top level of a module, as
/// enums of codes are; those of tests are indented in their `mod tests`) is
/// in [`all`].
#[test]
fn every_enum_of_codes_is_listed() {
    let mut sources = Vec::new();
    files(&repo().join("src"), "rs", &mut sources);
    let declared: usize = sources
        .iter()
        .map(|p| {
            fs::read_to_string(p)
                .unwrap()
                .lines()
                .filter(|l| l.starts_with("codes! {") || l.starts_with("crate::diag::codes! {"))
                .count()
        })
        .sum();
    let (_, listed) = all();
    assert_eq!(
        declared, listed,
        "src/ has {declared} `codes!` enums and src/diag/tests/catalogue.rs lists {listed}: add the new one to `all`"
    );
}

#[test]
fn the_page_lists_every_code() {
    let (entries, _) = all();
    let want = page(&entries);
    let path = repo().join(PAGE);
    let have = fs::read_to_string(&path).unwrap_or_default();
    if have == want {
        return;
    }
    if std::env::var_os("BERYL_UPDATE_DOCS").is_some_and(|v| v == "1") {
        fs::write(&path, want).unwrap();
        eprintln!("docs: rewrote {PAGE}");
        return;
    }
    panic!("{PAGE} is out of date: `BERYL_UPDATE_DOCS=1 cargo test --lib catalogue` rewrites it");
}

/// Words of the docs that look like codes and are not: Rust paths.
const NOT_CODES: [&str; 1] = ["beryl::yaml::load_file"];

/// What the snapshots of tests/ and the pages of docs/ show are codes the
/// catalogue has.
#[test]
fn codes_shown_in_snapshots_and_docs_are_declared() {
    let (entries, _) = all();
    let known: BTreeSet<&str> = entries.iter().map(|e| e.code).collect();
    let mut shown = Vec::new();
    files(&repo().join("tests"), "snap", &mut shown);
    let snapshots = shown.len();
    files(&repo().join("docs"), "md", &mut shown);
    shown.push(repo().join("README.md"));
    let mut unknown = BTreeSet::new();
    let mut seen = BTreeSet::new();
    for path in shown.iter().filter(|p| !p.ends_with(PAGE)) {
        let text = fs::read_to_string(path).unwrap();
        for code in mentioned(&text) {
            if known.contains(code) {
                seen.insert(code.to_string());
            } else if !NOT_CODES.contains(&code) {
                let rel = path.strip_prefix(repo()).unwrap_or(path);
                unknown.insert(format!("{code} ({})", rel.display()));
            }
        }
    }
    assert!(
        snapshots > 100 && seen.len() > 100,
        "only {snapshots} snapshots found, showing {} codes",
        seen.len()
    );
    assert!(
        unknown.is_empty(),
        "codes shown but declared by no `codes!` enum:\n{}",
        unknown.into_iter().collect::<Vec<_>>().join("\n")
    );
}
