//! Reading a selector: which of the forms it is, by the table [`FORMS`].

use globset::{GlobBuilder, GlobMatcher};

use super::error::Error;

/// A selector as written and what it names.
#[derive(Clone, Debug)]
pub(crate) struct Selector {
    /// The text given on the command line.
    pub text: String,
    pub kind: Target,
}

/// What a selector names. Names compare ignoring ASCII case, as in DNS;
/// class names are compared exactly, as their files are named.
#[derive(Clone, Debug)]
pub(crate) enum Target {
    /// `host01` or `host01.example.org`: the FQDN first, then the short name.
    Name(String),
    /// `example.org/host01`: a host of the domain, in a group or not.
    InDomain { domain: String, short: String },
    /// `example.org/web/host01`: a host of that group.
    InGroup {
        domain: String,
        group: String,
        short: String,
    },
    /// `example.org/`: every host of the domain.
    Domain(String),
    /// `example.org/web/`: every host of the group.
    Group { domain: String, group: String },
    /// `'web*'`: the hosts one of whose names (see [`super::Candidate::names`]) matches.
    Glob(GlobMatcher),
    /// `class:roles.web`: the hosts whose class list holds the class.
    Class(String),
}

/// One form of selector: how to recognise it, and how to read it.
pub(crate) struct Form {
    /// How the forms are named in help texts.
    pub example: &'static str,
    /// Whether a selector is of this form (the first form that accepts wins).
    accepts: fn(&str) -> bool,
    read: fn(&str) -> Result<Target, String>,
}

/// The characters that make a selector a glob: no host name holds them.
const GLOB: [char; 4] = ['*', '?', '[', '{'];

/// The forms, tried in order. A host name holds neither `:`, nor a glob
/// character, nor a trailing `/`, so no text is two forms at once.
pub(crate) const FORMS: &[Form] = &[
    Form {
        example: "class:roles.web",
        accepts: |s| s.starts_with("class:"),
        read: class,
    },
    Form {
        example: "'web*'",
        accepts: |s| s.contains(GLOB),
        read: glob,
    },
    Form {
        example: "example.org/",
        accepts: |s| s.ends_with('/') && s.matches('/').count() == 1,
        read: |s| one_part(s.trim_end_matches('/')).map(Target::Domain),
    },
    Form {
        example: "example.org/web/",
        accepts: |s| s.ends_with('/') && s.matches('/').count() == 2,
        read: |s| match parts(s.trim_end_matches('/'))?.as_slice() {
            [domain, group] => Ok(Target::Group {
                domain: domain.clone(),
                group: group.clone(),
            }),
            _ => Err("expected DOMAIN/GROUP/".into()),
        },
    },
    Form {
        example: "host01, host01.example.org, example.org/host01, example.org/web/host01",
        accepts: |s| !s.ends_with('/') && s.matches('/').count() <= 2 && !s.contains(':'),
        read: host,
    },
];

/// Reads one selector.
pub(crate) fn parse(text: &str) -> Result<Selector, Error> {
    let syntax = |why: String| Error::Syntax {
        text: text.to_string(),
        why,
    };
    let form = FORMS.iter().find(|f| (f.accepts)(text)).ok_or_else(|| {
        syntax(match text.split_once(':') {
            Some((prefix, _)) => {
                format!("`{prefix}:` is not a prefix (the one prefix is `class:`)")
            }
            None => "a selector has at most three parts, DOMAIN/GROUP/SHORT".into(),
        })
    })?;
    let kind = (form.read)(text).map_err(syntax)?;
    Ok(Selector {
        text: text.to_string(),
        kind,
    })
}

fn class(text: &str) -> Result<Target, String> {
    let name = &text["class:".len()..];
    crate::classes::check_name(name)?;
    Ok(Target::Class(name.to_string()))
}

fn glob(text: &str) -> Result<Target, String> {
    let glob = GlobBuilder::new(text)
        .case_insensitive(true)
        .literal_separator(true)
        .backslash_escape(false)
        .build()
        .map_err(|e| e.kind().to_string())?;
    Ok(Target::Glob(glob.compile_matcher()))
}

fn host(text: &str) -> Result<Target, String> {
    Ok(match parts(text)?.as_slice() {
        [one] => Target::Name(one.clone()),
        [domain, short] => Target::InDomain {
            domain: domain.clone(),
            short: short.clone(),
        },
        [domain, group, short] => Target::InGroup {
            domain: domain.clone(),
            group: group.clone(),
            short: short.clone(),
        },
        _ => return Err("a host is SHORT, FQDN, DOMAIN/SHORT or DOMAIN/GROUP/SHORT".into()),
    })
}

fn one_part(text: &str) -> Result<String, String> {
    let mut p = parts(text)?;
    match p.len() {
        1 => Ok(p.remove(0)),
        _ => Err("expected DOMAIN/".into()),
    }
}

/// The `/`-separated parts, none empty.
fn parts(text: &str) -> Result<Vec<String>, String> {
    let parts: Vec<String> = text.split('/').map(str::to_string).collect();
    if parts.iter().any(String::is_empty) {
        return Err("a part between `/` is empty".into());
    }
    Ok(parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(text: &str) -> String {
        match parse(text).map(|s| s.kind) {
            Ok(Target::Name(n)) => format!("name {n}"),
            Ok(Target::InDomain { domain, short }) => format!("in-domain {domain} {short}"),
            Ok(Target::InGroup {
                domain,
                group,
                short,
            }) => format!("in-group {domain} {group} {short}"),
            Ok(Target::Domain(d)) => format!("domain {d}"),
            Ok(Target::Group { domain, group }) => format!("group {domain} {group}"),
            Ok(Target::Glob(g)) => format!("glob {}", g.glob()),
            Ok(Target::Class(c)) => format!("class {c}"),
            Err(Error::Syntax { why, .. }) => format!("error: {why}"),
            Err(_) => "other error".into(),
        }
    }

    /// Each row: a selector and how it is read.
    #[test]
    fn each_form_is_read() {
        for (text, want) in [
            ("host01", "name host01"),
            ("host01.example.org", "name host01.example.org"),
            ("example.org/host01", "in-domain example.org host01"),
            ("example.org/web/host01", "in-group example.org web host01"),
            ("example.org/", "domain example.org"),
            ("example.org/web/", "group example.org web"),
            ("web*", "glob web*"),
            ("host0?", "glob host0?"),
            ("example.org/web/*", "glob example.org/web/*"),
            ("class:roles.web", "class roles.web"),
            ("class:", "error: the name is empty"),
            (
                "class:a/b",
                "error: '/' is not allowed: a name is segments of letters, digits, `_` and `-`, joined by dots",
            ),
            (
                "a/b/c/d",
                "error: a selector has at most three parts, DOMAIN/GROUP/SHORT",
            ),
            (
                "a/b/c/",
                "error: a selector has at most three parts, DOMAIN/GROUP/SHORT",
            ),
            (
                "role:web",
                "error: `role:` is not a prefix (the one prefix is `class:`)",
            ),
            ("", "error: a part between `/` is empty"),
            ("/", "error: a part between `/` is empty"),
            ("a//b", "error: a part between `/` is empty"),
            ("web[", "error: unclosed character class; missing ']'"),
        ] {
            assert_eq!(kind(text), want, "{text}");
        }
    }
}
