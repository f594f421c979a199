//! Rendering a plan through the templates (minijinja, strict undefined).
//!
//! The templates under `templates/` are embedded in the binary; `--templates
//! DIR` reads them from DIR instead (the same names). The `sh` filter is the
//! only way a value reaches the output, and it quotes through [`quote`].

use std::path::{Path, PathBuf};

use minijinja::{Environment, UndefinedBehavior, context};

use super::Plan;
use super::quote::quote;
use crate::diag::Diag;

/// The embedded templates: (name, text).
pub const TEMPLATES: &[(&str, &str)] = &[
    (
        "installerconfig.sh.j2",
        include_str!("../../templates/installerconfig.sh.j2"),
    ),
    ("setup.sh.j2", include_str!("../../templates/setup.sh.j2")),
    (
        "steps/sysrc.sh.j2",
        include_str!("../../templates/steps/sysrc.sh.j2"),
    ),
    (
        "steps/timezone.sh.j2",
        include_str!("../../templates/steps/timezone.sh.j2"),
    ),
    (
        "steps/packages.sh.j2",
        include_str!("../../templates/steps/packages.sh.j2"),
    ),
    (
        "steps/groups.sh.j2",
        include_str!("../../templates/steps/groups.sh.j2"),
    ),
    (
        "steps/user.sh.j2",
        include_str!("../../templates/steps/user.sh.j2"),
    ),
    (
        "steps/keys.sh.j2",
        include_str!("../../templates/steps/keys.sh.j2"),
    ),
    (
        "steps/sudoers.sh.j2",
        include_str!("../../templates/steps/sudoers.sh.j2"),
    ),
    (
        "steps/sshd.sh.j2",
        include_str!("../../templates/steps/sshd.sh.j2"),
    ),
];

/// Where the templates come from.
pub struct Templates {
    env: Environment<'static>,
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
        match dir {
            None => {
                for (name, text) in TEMPLATES {
                    env.add_template(name, text).map_err(template_error)?;
                }
            }
            Some(dir) => {
                let dir: PathBuf = dir.to_path_buf();
                if !dir.is_dir() {
                    return Err(Diag::new(
                        "beryl::plan::templates",
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
                            Ok(text) => return Ok(Some(text)),
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
        Ok(Templates { env })
    }

    /// The installerconfig: preamble, then the setup script.
    pub fn installerconfig(&self, plan: &Plan) -> Result<String, Diag> {
        let t = self
            .env
            .get_template("installerconfig.sh.j2")
            .map_err(template_error)?;
        let mut text = t
            .render(context! { plan => plan })
            .map_err(template_error)?;
        if !text.ends_with('\n') {
            text.push('\n');
        }
        Ok(text)
    }

    /// The exact commands of each step, as the script holds them.
    pub fn step_commands(&self, plan: &Plan) -> Result<Vec<String>, Diag> {
        plan.steps
            .iter()
            .map(|step| {
                let name = format!("steps/{}.sh.j2", step.kind);
                let t = self.env.get_template(&name).map_err(template_error)?;
                t.render(context! { plan => plan, step => step })
                    .map_err(template_error)
            })
            .collect()
    }

    /// The plan as data: the preamble variables and the ordered steps, each
    /// with its exact commands.
    pub fn json(&self, plan: &Plan) -> Result<serde_json::Value, Diag> {
        let commands = self.step_commands(plan)?;
        let mut value = serde_json::to_value(plan)
            .map_err(|e| Diag::new("beryl::plan::json", e.to_string()))?;
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

/// The `sh` filter: one shell word.
fn sh(value: String) -> Result<String, minijinja::Error> {
    quote(&value)
        .map(|q| q.into_owned())
        .map_err(|e| minijinja::Error::new(minijinja::ErrorKind::InvalidOperation, e.to_string()))
}

/// A template error, with the template's name and line.
fn template_error(e: minijinja::Error) -> Diag {
    let place = match (e.name(), e.line()) {
        (Some(name), Some(line)) => format!("templates/{name}:{line}: "),
        (Some(name), None) => format!("templates/{name}: "),
        _ => String::new(),
    };
    let detail = e.detail().map(|d| format!(" ({d})")).unwrap_or_default();
    Diag::new("beryl::plan::template", format!("{place}{}{detail}", e.kind()))
        .help("the templates are rendered with strict undefined values; every value must go through `| sh`")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every `{{ … }}` in every template passes its value through `sh`, and no
    /// comment line interpolates anything (a newline in a value would end it).
    #[test]
    fn every_interpolation_goes_through_the_quoting_filter() {
        // Validated tokens that may appear bare: none so far.
        const ALLOWED: &[&str] = &[];
        let expr = regex::Regex::new(r"\{\{-?(.*?)-?\}\}").unwrap();
        let filtered = regex::Regex::new(r"\|\s*sh\s*$").unwrap();
        let mut bad = Vec::new();
        for (name, text) in TEMPLATES {
            for (n, line) in text.lines().enumerate() {
                for cap in expr.captures_iter(line) {
                    let inner = cap[1].trim();
                    if !filtered.is_match(inner) && !ALLOWED.contains(&inner) {
                        bad.push(format!("templates/{name}:{}: {{{{ {inner} }}}}", n + 1));
                    }
                }
                if line.trim_start().starts_with('#') && line.contains("{{") {
                    bad.push(format!(
                        "templates/{name}:{}: a value inside a comment",
                        n + 1
                    ));
                }
            }
        }
        assert!(
            bad.is_empty(),
            "unquoted interpolations:\n{}",
            bad.join("\n")
        );
    }

    #[test]
    fn the_lint_catches_a_bare_value() {
        let expr = regex::Regex::new(r"\{\{-?(.*?)-?\}\}").unwrap();
        let filtered = regex::Regex::new(r"\|\s*sh\s*$").unwrap();
        let cap = expr.captures("pw useradd {{ step.name }}").unwrap();
        assert!(!filtered.is_match(cap[1].trim()));
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
            e.message.starts_with("templates/installerconfig.sh.j2:2: "),
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
