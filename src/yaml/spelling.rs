//! YAML 1.1 spellings: plain scalars that a YAML 1.1 reader (PyYAML, Ruby's
//! Psych, so Ansible, Salt and Hiera) takes for a boolean or a number, and
//! that beryl's YAML 1.2 keeps as strings. Each is a row of [`SPELLINGS`].
//!
//! Where a level's value must be a boolean or a number, the check that
//! refuses the string names its YAML 1.1 reading ([`hint`]). In free-form
//! data a string is as good as a boolean, so the spelling is only reported
//! when the host's chain shows what was meant (compile/warn.rs).

use crate::value::{Node, Value};

/// What a YAML 1.1 reader makes of a spelling.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Meant {
    Bool(bool),
    Int(i64),
}

impl Meant {
    /// Whether `value` is of the type this reading has.
    pub(crate) fn same_type(self, value: &Value) -> bool {
        matches!(
            (self, value),
            (Meant::Bool(_), Value::Bool(_)) | (Meant::Int(_), Value::Int(_))
        )
    }

    pub(crate) fn type_name(self) -> &'static str {
        match self {
            Meant::Bool(_) => "a boolean",
            Meant::Int(_) => "an integer",
        }
    }
}

/// One row: which plain scalars, what YAML 1.1 reads, and how to write the
/// value in YAML 1.2.
pub(crate) struct Spelling {
    pub reads: fn(&str) -> Option<Meant>,
    /// How to write what was meant, given the reading.
    pub instead: fn(Meant, &str) -> String,
}

/// The spellings YAML 1.1 reads as another type and YAML 1.2 as a string.
pub(crate) const SPELLINGS: &[Spelling] = &[
    Spelling {
        // y, yes, on, n, no, off (any case)
        reads: boolean_word,
        instead: |meant, _| match meant {
            Meant::Bool(b) => format!("`{b}`"),
            Meant::Int(_) => String::new(),
        },
    },
    Spelling {
        // a number with a leading 0 and octal digits (0644)
        reads: octal,
        instead: |meant, text| match meant {
            Meant::Int(n) => {
                let sign = if n < 0 { "-" } else { "" };
                let digits = text.trim_start_matches(['+', '-']).trim_start_matches('0');
                let digits = if digits.is_empty() { "0" } else { digits };
                format!("`{sign}0o{digits}` for the octal number {n}, or `{sign}{digits}`")
            }
            Meant::Bool(_) => String::new(),
        },
    },
];

fn boolean_word(s: &str) -> Option<Meant> {
    const WORDS: &[(&str, bool)] = &[
        ("y", true),
        ("yes", true),
        ("on", true),
        ("n", false),
        ("no", false),
        ("off", false),
    ];
    WORDS
        .iter()
        .find(|(w, _)| w.eq_ignore_ascii_case(s))
        .map(|(_, b)| Meant::Bool(*b))
}

fn octal(s: &str) -> Option<Meant> {
    let (sign, digits) = match s.strip_prefix('-') {
        Some(rest) => (-1, rest),
        None => (1, s.strip_prefix('+').unwrap_or(s)),
    };
    let rest = digits.strip_prefix('0')?;
    if rest.is_empty() || !rest.bytes().all(|b| (b'0'..=b'7').contains(&b)) {
        return None;
    }
    i64::from_str_radix(rest, 8)
        .ok()
        .map(|n| Meant::Int(sign * n))
}

/// The YAML 1.1 reading of a string written plain (unquoted), and how to
/// write it in YAML 1.2.
pub(crate) fn reading(node: &Node) -> Option<(Meant, String)> {
    let Value::Str(s) = &node.value else {
        return None;
    };
    // Quoted, the string was meant.
    if super::written(node)? != s {
        return None;
    }
    SPELLINGS
        .iter()
        .find_map(|row| (row.reads)(s).map(|m| (m, (row.instead)(m, s))))
}

/// A help for a string refused where a boolean (`boolean`) or an integer is
/// needed, when a YAML 1.1 reader would have read it as one.
pub(crate) fn hint(node: &Node, boolean: bool) -> Option<String> {
    let (meant, instead) = reading(node)?;
    if matches!(meant, Meant::Bool(_)) != boolean {
        return None;
    }
    let Value::Str(s) = &node.value else {
        return None;
    };
    let read = match meant {
        Meant::Bool(b) => format!("the boolean {b}"),
        Meant::Int(n) => format!("the octal number {n}"),
    };
    Some(format!(
        "YAML 1.1 read `{s}` as {read}; beryl reads YAML 1.2, where it is a string: write {instead}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Source;

    fn node(text: &str) -> Node {
        let doc = crate::yaml::parse(
            &Source::new("t.yml", format!("a: {text}\n")),
            &Default::default(),
        )
        .unwrap();
        doc.get("a").unwrap().clone()
    }

    #[test]
    fn the_table_reads_what_yaml_1_1_read() {
        for (text, meant) in [
            ("yes", Some(Meant::Bool(true))),
            ("YeS", Some(Meant::Bool(true))),
            ("Y", Some(Meant::Bool(true))),
            ("on", Some(Meant::Bool(true))),
            ("OFF", Some(Meant::Bool(false))),
            ("n", Some(Meant::Bool(false))),
            ("No", Some(Meant::Bool(false))),
            ("0644", Some(Meant::Int(420))),
            ("-017", Some(Meant::Int(-15))),
            ("00", Some(Meant::Int(0))),
            ("'yes'", None),
            ("\"0644\"", None),
            ("0648", None),
            ("yess", None),
            ("nope", None),
            ("true", None),
            ("644", None),
            ("0", None),
        ] {
            assert_eq!(reading(&node(text)).map(|r| r.0), meant, "{text}");
        }
    }

    #[test]
    fn hints_say_how_to_write_it() {
        assert_eq!(
            hint(&node("0644"), false).unwrap(),
            "YAML 1.1 read `0644` as the octal number 420; beryl reads YAML 1.2, where it is a string: write `0o644` for the octal number 420, or `644`"
        );
        assert!(hint(&node("off"), true).unwrap().ends_with("write `false`"));
        assert_eq!(hint(&node("'off'"), true), None);
        assert_eq!(hint(&node("off"), false), None);
    }
}
