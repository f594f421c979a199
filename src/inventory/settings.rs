//! `beryl.yml` at the inventory root: settings of the inventory as a whole.
//!
//! Today it holds reclass's two options about missing classes:
//!
//! ```yaml
//! ignore_class_notfound: true            # default false: a missing class is an error
//! ignore_class_notfound_regexp: [^opt\.] # default [".*"]: which names may be missing
//! ```
//!
//! As in reclass, each pattern is matched from the start of the class name
//! (Python's `re.match`); a name may be missing when any pattern matches.

use regex::Regex;

use super::LevelFile;
use crate::diag::{Diag, Diags};
use crate::value::{Node, Value};
use crate::yaml::Limits;

/// The settings file's name at the inventory root (`beryl.yml` or `.yaml`).
pub(crate) const SETTINGS_STEM: &str = "beryl";

crate::diag::codes! {
    /// The codes of `beryl.yml`.
    pub(crate) enum Code in "settings" {
        /// An invalid regex in `ignore_class_notfound_regexp`.
        Regex = "regex";
        /// A key that is not a setting.
        UnknownKey = "unknown_key";
        /// A setting's value of the wrong type.
        Type = "type";
    }
}

const KEYS: &[&str] = &["ignore_class_notfound", "ignore_class_notfound_regexp"];

#[derive(Debug, Default)]
pub(crate) struct Settings {
    /// A missing class is skipped instead of being an error (when its name
    /// matches one of `ignore`).
    pub ignore_class_notfound: bool,
    ignore: Vec<Regex>,
}

impl Settings {
    /// Reads `beryl.yml`; no file means every default.
    pub(crate) fn load(file: Option<&LevelFile>, limits: &Limits) -> Result<Settings, Diags> {
        let Some(file) = file else {
            return Ok(Settings::default().with_default_patterns());
        };
        let node = crate::yaml::load_file(&file.path, &file.display, limits)?;
        Self::parse(&node)
    }

    /// reclass's two options, from its config file or command line: the
    /// same rule as `beryl.yml`'s.
    pub(crate) fn reclass(ignore: bool, patterns: &[String]) -> Result<Settings, Diags> {
        let mut errors = Vec::new();
        let mut list = Vec::new();
        for text in patterns {
            match regex::RegexBuilder::new(&format!("^(?:{text})"))
                .size_limit(1 << 20)
                .build()
            {
                Ok(r) => list.push(r),
                Err(e) => errors.push(Diag::new(
                    Code::Regex,
                    format!("invalid regex {text:?} in ignore_class_notfound_regexp: {e}"),
                )),
            }
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        Ok(Settings {
            ignore_class_notfound: ignore,
            ignore: list,
        })
    }

    fn with_default_patterns(mut self) -> Self {
        self.ignore = vec![Regex::new("^(?:.*)").expect("built-in pattern")];
        self
    }

    fn parse(node: &Node) -> Result<Settings, Diags> {
        let mut out = Settings::default();
        let mut patterns = None;
        let mut errors = Vec::new();
        for (key, entry) in node.as_map().into_iter().flatten() {
            let n = &entry.node;
            match key.as_str() {
                "ignore_class_notfound" => match n.value {
                    Value::Bool(b) => out.ignore_class_notfound = b,
                    ref other => errors.push(match crate::yaml::spelling::hint(n, true) {
                        Some(h) => expected(n, "true or false", other).help(h),
                        None => expected(n, "true or false", other),
                    }),
                },
                "ignore_class_notfound_regexp" => {
                    // reclass takes a single pattern or a list of them.
                    let items: Vec<&Node> = match &n.value {
                        Value::Seq(items) => items.iter().collect(),
                        Value::Str(_) => vec![n],
                        other => {
                            errors.push(expected(n, "a list of regexes", other));
                            continue;
                        }
                    };
                    let mut list = Vec::new();
                    for item in items {
                        let Some(text) = item.as_str() else {
                            errors.push(expected(item, "a regex (a string)", &item.value));
                            continue;
                        };
                        match regex::RegexBuilder::new(&format!("^(?:{text})"))
                            .size_limit(1 << 20)
                            .build()
                        {
                            Ok(r) => list.push(r),
                            Err(e) => errors.push(
                                Diag::new(Code::Regex, format!("invalid regex {text:?}: {e}"))
                                    .label(&item.span, "this pattern"),
                            ),
                        }
                    }
                    patterns = Some(list);
                }
                other => {
                    let close = KEYS
                        .iter()
                        .find(|k| strsim::jaro_winkler(k, other) > 0.8)
                        .map(|k| format!("did you mean `{k}`? "))
                        .unwrap_or_default();
                    errors.push(
                        Diag::new(
                            Code::UnknownKey,
                            format!("`{other}` is not a setting of beryl.yml"),
                        )
                        .label(&entry.key_span, "unknown setting")
                        .help(format!("{close}the settings are: {}", KEYS.join(", "))),
                    );
                }
            }
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        match patterns {
            Some(list) => out.ignore = list,
            None => out = out.with_default_patterns(),
        }
        Ok(out)
    }

    /// Whether the class `name` may be missing.
    pub(crate) fn ignores_missing(&self, name: &str) -> bool {
        self.ignore_class_notfound && self.ignore.iter().any(|r| r.is_match(name))
    }
}

fn expected(n: &Node, what: &str, found: &Value) -> Diag {
    Diag::new(
        Code::Type,
        format!("expected {what}, found {}", found.type_name()),
    )
    .label(&n.span, "this value")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Source;

    fn parse(text: &str) -> Result<Settings, Diags> {
        let node =
            crate::yaml::parse(&Source::new("beryl.yml", text), &Limits::default()).expect("yaml");
        Settings::parse(&node)
    }

    #[test]
    fn defaults_refuse_missing_classes() {
        let s = parse("").unwrap();
        assert!(!s.ignores_missing("a"));
        let s = parse("ignore_class_notfound: true").unwrap();
        assert!(s.ignores_missing("anything.at.all"));
    }

    #[test]
    fn patterns_match_from_the_start() {
        let s = parse("ignore_class_notfound: true\nignore_class_notfound_regexp: [opt, 'x\\.y$']")
            .unwrap();
        assert!(s.ignores_missing("optional.thing"));
        assert!(!s.ignores_missing("roles.opt"));
        assert!(s.ignores_missing("x.y"));
        assert!(!s.ignores_missing("x.yz"));
        let s = parse("ignore_class_notfound: true\nignore_class_notfound_regexp: opt").unwrap();
        assert!(s.ignores_missing("opt"));
    }

    #[test]
    fn errors_are_located() {
        let e = parse("ignore_class_notfound: yes please\nignore_clas: 1").unwrap_err();
        assert_eq!(e.len(), 2);
        assert!(
            e[1].help
                .as_deref()
                .unwrap()
                .contains("did you mean `ignore_class_notfound`")
        );
        let e = parse("ignore_class_notfound_regexp: ['(']").unwrap_err();
        assert_eq!(e[0].code, "beryl::settings::regex");
    }
}
