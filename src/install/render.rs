//! Rendering an installerconfig through the templates (minijinja, strict undefined).
//!
//! The templates under `templates/` are embedded in the binary; `--templates
//! DIR` reads them from DIR instead (the same names). Quoting is the
//! engine's, not the template's: every `{{ value }}` is written through
//! [`crate::shell::quote`] by the formatter, whatever the template, so a
//! template cannot forget it, and nothing bypasses it: a value a template
//! marks `| safe` (or `| e`, `| tojson`) is quoted all the same, and the
//! `sh` filter, kept for templates written for older versions, leaves its
//! value to that one quoting. A value may stand only where sh reads a word
//! ([`super::shellctx`]): a template with one inside quotes, backquotes,
//! `${…}`, a here-document or a comment is refused before anything renders.

use std::path::{Path, PathBuf};

use minijinja::{Environment, UndefinedBehavior, Value, context};

use super::{Code, InstallerConfig};
use crate::diag::Diag;

/// The embedded templates: (name, text): the installerconfig, its setup
/// script, and each resource kind's step (`steps/KIND.sh.j2`, the kind's
/// [`crate::resource::Kind::TEMPLATE`]).
pub(crate) fn templates() -> Vec<(String, &'static str)> {
    let frame = [
        (
            "installerconfig.sh.j2",
            include_str!("../../templates/installerconfig.sh.j2"),
        ),
        ("setup.sh.j2", include_str!("../../templates/setup.sh.j2")),
    ];
    let steps = crate::resource::TEMPLATES
        .iter()
        .filter_map(|(kind, text)| Some((format!("steps/{kind}.sh.j2"), (*text)?)));
    frame
        .into_iter()
        .map(|(name, text)| (name.to_string(), text))
        .chain(steps)
        .collect()
}

/// Where the templates come from.
pub struct Templates {
    env: Environment<'static>,
    /// What template names are relative to, for messages: `templates/` (the
    /// built-in ones, as they stand in beryl's source) or `DIR/`.
    origin: String,
}

impl Templates {
    /// The embedded templates, or those of `dir` when given (each read as a
    /// regular file of at most `max_file_size` bytes: a FIFO would block).
    pub fn new(dir: Option<&Path>, max_file_size: u64) -> Result<Templates, Diag> {
        let mut env = Environment::new();
        env.set_undefined_behavior(UndefinedBehavior::Strict);
        env.set_trim_blocks(true);
        env.set_lstrip_blocks(true);
        env.set_keep_trailing_newline(true);
        env.add_filter("sh", sh);
        env.add_filter("dirname", dirname);
        env.add_filter("staged", staged);
        env.set_formatter(quote_formatter);
        // The awk program of the sysctl.conf edit, for steps/sysctl.sh.j2.
        env.add_global("sysctl_awk", crate::resource::sysctl::SYSCTL_AWK);
        let origin = match dir {
            None => "templates/".to_string(),
            Some(d) => format!("{}/", d.display().to_string().trim_end_matches('/')),
        };
        match dir {
            None => {
                for (name, text) in templates() {
                    misplaced(&origin, &name, text)
                        .map_err(|why| Diag::new(Code::Template, why).help(PLACE_HELP))?;
                    env.add_template_owned(name, text)
                        .map_err(|e| template_error(&origin, e))?;
                }
            }
            Some(dir) => {
                let dir: PathBuf = dir.to_path_buf();
                let shown = origin.clone();
                if !dir.is_dir() {
                    return Err(Diag::new(
                        Code::Templates,
                        format!("--templates {}: not a directory", dir.display()),
                    ));
                }
                env.set_loader(move |name| {
                    // Template names are beryl's own; refuse anything else.
                    if name
                        .split('/')
                        .any(|s| s.is_empty() || s == "." || s == "..")
                    {
                        return Ok(None);
                    }
                    use crate::fsutil::{ReadError, read_capped};
                    let why = match read_capped(&dir.join(name), max_file_size) {
                        Ok(bytes) => match String::from_utf8(bytes) {
                            Ok(text) => {
                                return match misplaced(&shown, name, &text) {
                                    Ok(()) => Ok(Some(text)),
                                    Err(why) => Err(minijinja::Error::new(
                                        minijinja::ErrorKind::InvalidOperation,
                                        why,
                                    )),
                                };
                            }
                            Err(_) => "it is not UTF-8".to_string(),
                        },
                        Err(ReadError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => {
                            return Ok(None);
                        }
                        Err(ReadError::Io(e)) => e.to_string(),
                        Err(ReadError::NotAFile) => "it is not a regular file".to_string(),
                        Err(ReadError::TooLarge) => format!(
                            "it is larger than the {max_file_size}-byte file size cap; {}",
                            crate::limits::Limit::FileSize.help()
                        ),
                    };
                    Err(minijinja::Error::new(
                        minijinja::ErrorKind::InvalidOperation,
                        format!("cannot read template {name}: {why}"),
                    ))
                });
            }
        }
        Ok(Templates { env, origin })
    }

    /// The installerconfig: preamble, then the setup script.
    pub fn installerconfig(&self, plan: &InstallerConfig) -> Result<String, Diag> {
        let t = self
            .env
            .get_template("installerconfig.sh.j2")
            .map_err(|e| template_error(&self.origin, e))?;
        let mut text = t
            .render(context! { plan => plan })
            .map_err(|e| template_error(&self.origin, e))?;
        if !text.ends_with('\n') {
            text.push('\n');
        }
        Ok(text)
    }

    /// The exact commands of each step, as the script holds them.
    pub(crate) fn step_commands(&self, plan: &InstallerConfig) -> Result<Vec<String>, Diag> {
        plan.steps
            .iter()
            .map(|step| {
                let name = format!("steps/{}.sh.j2", step.resource.kind());
                let t = self
                    .env
                    .get_template(&name)
                    .map_err(|e| template_error(&self.origin, e))?;
                t.render(context! { plan => plan, step => step })
                    .map_err(|e| template_error(&self.origin, e))
            })
            .collect()
    }

    /// The plan as data: the preamble variables and the ordered steps, each
    /// with its exact commands.
    pub fn json(&self, plan: &InstallerConfig) -> Result<serde_json::Value, Diag> {
        let commands = self.step_commands(plan)?;
        let mut value =
            serde_json::to_value(plan).map_err(|e| Diag::new(Code::Json, e.to_string()))?;
        if let Some(steps) = value.get_mut("steps").and_then(|s| s.as_array_mut()) {
            for (step, text) in steps.iter_mut().zip(commands) {
                if let Some(obj) = step.as_object_mut() {
                    obj.insert("commands".into(), text.into());
                }
            }
        }
        Ok(value)
    }
}

/// What [`super::shellctx::check`] refuses, said for the template's file
/// and line.
fn misplaced(origin: &str, name: &str, text: &str) -> Result<(), String> {
    super::shellctx::check(text).map_err(|m| {
        format!(
            "{origin}{name}:{}: {} {}",
            m.line,
            m.tag,
            match m.place.contains("filter") {
                true => format!("asks {}, and every value is quoted", m.place),
                false => format!(
                    "stands inside {}, where its quoting would not hold",
                    m.place
                ),
            }
        )
    })
}

const PLACE_HELP: &str = "beryl writes every value as one quoted shell word: put it where sh reads a word, outside quotes, backquotes, ${…}, here-documents and comments (`-c {{ step.comment }}`, not `-c \"{{ step.comment }}\"`)";

/// The formatter: every interpolated value is one shell word, quoted by
/// [`crate::shell::quote`], even one the template marked safe: no filter
/// bypasses the quoting.
fn quote_formatter(
    out: &mut minijinja::Output,
    _: &minijinja::State,
    value: &Value,
) -> Result<(), minijinja::Error> {
    let text = word(value)?;
    out.write_str(&text)
        .map_err(|e| minijinja::Error::new(minijinja::ErrorKind::WriteFailure, e.to_string()))
}

/// A value as one quoted shell word; none and undefined are refused (strict
/// undefined already refuses the latter).
fn word(value: &Value) -> Result<String, minijinja::Error> {
    if value.is_none() || value.is_undefined() {
        return Err(minijinja::Error::new(
            minijinja::ErrorKind::InvalidOperation,
            "an empty value (none) cannot be written as a shell word",
        ));
    }
    crate::shell::word(&value.to_string())
        .map_err(|e| minijinja::Error::new(minijinja::ErrorKind::InvalidOperation, e.to_string()))
}

/// The `sh` filter of templates written for older versions: the value as
/// it is, which the formatter then quotes once.
fn sh(value: Value) -> Result<Value, minijinja::Error> {
    match value.is_none() || value.is_undefined() {
        true => word(&value).map(Value::from),
        false => Ok(value),
    }
}

/// The directory of an absolute path (`/a/b/c` → `/a/b`).
fn dirname(path: String) -> String {
    crate::resource::dirname(&path).to_string()
}

/// Where the file step stages a file before installing it: a dot-file
/// beside it (`DIR/.beryl-NAME`), which directory scanners skip.
fn staged(path: String) -> String {
    crate::resource::file::staged(&path)
}

/// A template error, with the template's name and line.
/// A template error, at the template and line where it happened: an error
/// inside an included template is reported there, not at the `include`.
fn template_error(origin: &str, e: minijinja::Error) -> Diag {
    let mut inner: &minijinja::Error = &e;
    while let Some(next) =
        std::error::Error::source(inner).and_then(|s| s.downcast_ref::<minijinja::Error>())
    {
        if next.name().is_none() {
            break;
        }
        inner = next;
    }
    // A template refused for where its values stand (misplaced): said as
    // it is, with how to write it.
    if let Some(detail) = inner.detail()
        && detail.starts_with(origin)
        && (detail.contains(" stands inside ") || detail.contains(" asks "))
    {
        return Diag::new(Code::Template, detail.to_string()).help(PLACE_HELP);
    }
    let place = match (inner.name(), inner.line()) {
        (Some(name), Some(line)) => format!("{origin}{name}:{line}: "),
        (Some(name), None) => format!("{origin}{name}: "),
        _ => String::new(),
    };
    let detail = inner
        .detail()
        .map(|d| format!(" ({d})"))
        .unwrap_or_default();
    Diag::new(
        Code::Template,
        format!("{place}{}{detail}", inner.kind()),
    )
    .help("the templates are rendered with strict undefined values; every `{{ value }}` is quoted for sh")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// No built-in template bypasses the quoting (`| safe`), and no comment
    /// line interpolates anything (a newline in a value would end it).
    #[test]
    fn no_template_bypasses_the_quoting() {
        let mut bad = Vec::new();
        for (name, text) in templates() {
            for (n, line) in text.lines().enumerate() {
                if line.contains("safe") && line.contains("{{") {
                    bad.push(format!("templates/{name}:{}: `safe`", n + 1));
                }
                if line.trim_start().starts_with('#') && line.contains("{{") {
                    bad.push(format!(
                        "templates/{name}:{}: a value inside a comment",
                        n + 1
                    ));
                }
            }
        }
        assert!(bad.is_empty(), "{}", bad.join("\n"));
    }

    /// A custom template that forgets `| sh` is quoted all the same (it used
    /// to emit `-c x $(touch PWNED)` and exit 0); one that still writes
    /// `| sh` is quoted once.
    #[test]
    fn custom_templates_are_quoted_by_the_engine() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("installerconfig.sh.j2"),
            "{% for s in plan.steps %}{% if s.kind == 'user' %}pw useradd -c {{ s.comment }} -n {{ s.name | sh }}\n{% endif %}{% endfor %}",
        )
        .unwrap();
        let t = Templates::new(Some(dir.path()), crate::limits::DEFAULT_MAX_FILE_SIZE).unwrap();
        let text = t
            .installerconfig(&super::super::tests::sample_plan())
            .unwrap();
        assert_eq!(text, "pw useradd -c '$(touch MARK)' -n \"o'neil\"\n");
    }

    #[test]
    fn a_nul_byte_is_an_error_not_an_empty_word() {
        let mut plan = super::super::tests::sample_plan();
        plan.summary = "a\0b".into();
        let t = Templates::new(None, 0).unwrap();
        let e = t.installerconfig(&plan).unwrap_err();
        assert!(e.message.contains("NUL"), "{}", e.message);
        assert!(
            e.message.starts_with("templates/setup.sh.j2:"),
            "{}",
            e.message
        );
    }

    /// An error in a step template names that template, whether built in or
    /// given with --templates, not the template that includes it.
    #[test]
    fn errors_in_included_templates_name_that_template() {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in templates() {
            let path = dir.path().join(&name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, text).unwrap();
        }
        std::fs::write(
            dir.path().join("steps/timezone.sh.j2"),
            "# Time zone.\ntzsetup -s {{ step.nowhere }}\n",
        )
        .unwrap();
        let t = Templates::new(Some(dir.path()), crate::limits::DEFAULT_MAX_FILE_SIZE).unwrap();
        let e = t
            .installerconfig(&super::super::tests::sample_plan())
            .unwrap_err();
        let want = format!("{}/steps/timezone.sh.j2:2: ", dir.path().display());
        assert!(e.message.starts_with(&want), "{}", e.message);
    }

    #[test]
    fn template_errors_name_the_file_and_line() {
        let dir = tempfile_dir();
        std::fs::write(
            dir.join("installerconfig.sh.j2"),
            "ok\n{{ nothing | sh }}\n",
        )
        .unwrap();
        let t = Templates::new(Some(&dir), crate::limits::DEFAULT_MAX_FILE_SIZE).unwrap();
        let plan = super::super::tests::sample_plan();
        let e = t.installerconfig(&plan).unwrap_err();
        assert!(
            e.message
                .starts_with(&format!("{}/installerconfig.sh.j2:2: ", dir.display())),
            "{}",
            e.message
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A template that is a FIFO was opened and waited on forever; one over
    /// the size cap was read whole.
    #[test]
    fn templates_must_be_regular_files_within_the_cap() {
        let dir = tempfile::tempdir().unwrap();
        let made = std::process::Command::new("mkfifo")
            .arg(dir.path().join("installerconfig.sh.j2"))
            .status()
            .unwrap();
        assert!(made.success());
        let plan = super::super::tests::sample_plan();
        let t = Templates::new(Some(dir.path()), 1000).unwrap();
        let e = t.installerconfig(&plan).unwrap_err();
        assert!(e.message.contains("not a regular file"), "{}", e.message);
        std::fs::remove_file(dir.path().join("installerconfig.sh.j2")).unwrap();
        std::fs::write(dir.path().join("installerconfig.sh.j2"), "x".repeat(1001)).unwrap();
        let e = t.installerconfig(&plan).unwrap_err();
        assert!(e.message.contains("--max-file-size"), "{}", e.message);
    }

    fn tempfile_dir() -> PathBuf {
        let dir = std::env::temp_dir().join(format!("beryl-templates-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }
}
