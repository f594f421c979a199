//! Where a template's values land in the shell text around them.
//!
//! The formatter writes every `{{ value }}` as one single-quoted shell word
//! ([`crate::shell::quote`]). That word is safe only where the shell reads
//! a word: not inside double quotes, single quotes, backquotes, `${…}`, a
//! here-document or a comment, where its quotes are data and a `$(…)` or a
//! newline in the value is code. [`check`] reads a template as sh(1) would
//! read its text (POSIX, "Token Recognition" and "Quoting", XCU 2.3 and 2.2)
//! and refuses any value, `{% include %}` or `{% call %}` in such a place,
//! built-in templates and `--templates` ones alike. It also refuses the
//! filters that mark a value safe (`safe`, `e`, `escape`, `tojson`): the
//! formatter quotes such a value all the same, but a template that asks for
//! it was written to bypass the quoting, and is told so.

/// Where the lexer is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ctx {
    /// `'…'`
    Single,
    /// `"…"`
    Double,
    /// `` `…` ``
    Back,
    /// `$(…)`: a command, where words are words again.
    Command,
    /// `${…}`
    Param,
}

impl Ctx {
    fn name(self) -> &'static str {
        match self {
            Ctx::Single => "single quotes",
            Ctx::Double => "double quotes",
            Ctx::Back => "backquotes",
            Ctx::Command => "a command substitution",
            Ctx::Param => "a parameter expansion (${…})",
        }
    }
}

/// A value in a place where its quoting would not hold, or one a template
/// asks to leave unquoted.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Misplaced {
    /// 1-based line of the template.
    pub line: usize,
    /// What it is inside (`double quotes`, `a here-document`, …), or the
    /// filter that asks (`| safe`).
    pub place: &'static str,
    /// The tag as written (`{{ step.comment }}`).
    pub tag: String,
}

/// The filters that mark a value safe in minijinja, which the formatter
/// would otherwise have written as it is.
const SAFE_FILTERS: &[(&str, &str)] = &[
    ("safe", "a `| safe` filter"),
    ("e", "an `| e` filter"),
    ("escape", "an `| escape` filter"),
    ("tojson", "a `| tojson` filter"),
];

/// The safe-marking filter a tag applies, if any (`{{ x | safe }}`,
/// `{% set y = x|safe %}`, `{% filter safe %}`).
fn safe_filter(tag: &str) -> Option<&'static str> {
    let inner = tag.get(2..tag.len().saturating_sub(2)).unwrap_or("");
    let filter_tag = inner
        .trim_start_matches(['-', '+'])
        .trim_start()
        .starts_with("filter ");
    let mut parts = inner.split('|');
    let first = parts.next().unwrap_or("");
    let named = |p: &str| {
        let name: String = p
            .trim_start()
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        SAFE_FILTERS
            .iter()
            .find(|(f, _)| *f == name)
            .map(|(_, what)| *what)
    };
    let head = match filter_tag {
        true => named(
            first
                .trim_start_matches(['-', '+'])
                .trim_start()
                .trim_start_matches("filter"),
        ),
        false => None,
    };
    head.or_else(|| parts.find_map(named))
}

/// The first value (or `include`/`call`) of `text` that stands where a
/// shell word is not read as a word.
pub(crate) fn check(text: &str) -> Result<(), Misplaced> {
    let b = text.as_bytes();
    let mut stack: Vec<Ctx> = Vec::new();
    let mut comment = false;
    // The delimiter of the here-document whose body the lexer is in, and
    // of the one a `<<` on this line starts at the next line.
    let mut heredoc: Option<String> = None;
    let mut pending_heredoc: Option<String> = None;
    let mut line = 1;
    // Whether the last shell character ends a word (a line's start too):
    // a `#` after one starts a comment. Template tags leave it as it is:
    // `{% if x %}# …` renders a comment at a line's start.
    let mut boundary = true;
    let mut i = 0;
    while i < b.len() {
        // Template tags first: they are not shell text.
        if b[i] == b'{' && matches!(b.get(i + 1), Some(b'{' | b'%' | b'#')) {
            let close: &[u8] = match b[i + 1] {
                b'{' => b"}}",
                b'%' => b"%}",
                _ => b"#}",
            };
            let end = find(b, i + 2, close).map_or(b.len(), |e| e + 2);
            let tag = &text[i..end];
            if b[i + 1] != b'#'
                && let Some(place) = safe_filter(tag)
            {
                return Err(Misplaced {
                    line,
                    place,
                    tag: tag.to_string(),
                });
            }
            let refused = match b[i + 1] {
                b'{' => true,
                b'%' => {
                    let word = tag
                        .trim_start_matches("{%")
                        .trim_start_matches(['-', '+'])
                        .split_whitespace()
                        .next()
                        .unwrap_or("");
                    matches!(word, "include" | "call")
                }
                _ => false,
            };
            if refused {
                let place = if comment {
                    Some("a comment")
                } else if heredoc.is_some() {
                    Some("a here-document")
                } else {
                    stack
                        .iter()
                        .rev()
                        .find(|c| **c != Ctx::Command)
                        .map(|c| c.name())
                };
                if let Some(place) = place {
                    return Err(Misplaced {
                        line,
                        place,
                        tag: tag.to_string(),
                    });
                }
            }
            line += tag.matches('\n').count();
            i = end;
            continue;
        }
        let c = b[i];
        if c == b'\n' {
            line += 1;
            comment = false;
            boundary = true;
            if let Some(delim) = pending_heredoc.take() {
                heredoc = Some(delim);
            }
            i += 1;
            // A here-document ends at a line that is its delimiter (after
            // tabs, for `<<-`: both are accepted here).
            if let Some(delim) = &heredoc {
                let rest = &text[i..];
                let this = rest.split('\n').next().unwrap_or("");
                if this.trim_start_matches('\t') == delim {
                    heredoc = None;
                    i += this.len();
                }
            }
            continue;
        }
        if comment || heredoc.is_some() {
            i += 1;
            continue;
        }
        let word_start = boundary;
        boundary = matches!(c, b' ' | b'\t' | b';' | b'&' | b'|' | b'(' | b')');
        match (stack.last().copied(), c) {
            (Some(Ctx::Single), b'\'') => {
                stack.pop();
            }
            (Some(Ctx::Single), _) => {}
            (Some(Ctx::Double | Ctx::Back | Ctx::Param) | None | Some(Ctx::Command), b'\\') => {
                i += 1;
                if b.get(i) == Some(&b'\n') {
                    line += 1;
                }
            }
            (Some(Ctx::Double), b'"') => {
                stack.pop();
            }
            (Some(Ctx::Back), b'`') => {
                stack.pop();
            }
            (Some(Ctx::Param), b'}') => {
                stack.pop();
            }
            (Some(Ctx::Command), b')') => {
                stack.pop();
            }
            (_, b'$') if b.get(i + 1) == Some(&b'(') => {
                stack.push(Ctx::Command);
                i += 1;
            }
            (_, b'$') if b.get(i + 1) == Some(&b'{') => {
                stack.push(Ctx::Param);
                i += 1;
            }
            (_, b'`') => stack.push(Ctx::Back),
            (Some(Ctx::Double), _) => {}
            (_, b'"') => stack.push(Ctx::Double),
            (_, b'\'') => stack.push(Ctx::Single),
            (_, b'#') if word_start => comment = true,
            (_, b'<') if b.get(i + 1) == Some(&b'<') => {
                // `<<WORD` or `<<-WORD`; the word may be quoted.
                let mut j = i + 2;
                if b.get(j) == Some(&b'-') {
                    j += 1;
                }
                while matches!(b.get(j), Some(b' ' | b'\t')) {
                    j += 1;
                }
                let start = j;
                while j < b.len()
                    && !matches!(
                        b[j],
                        b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'>' | b'<'
                    )
                {
                    j += 1;
                }
                let word: String = text[start..j]
                    .chars()
                    .filter(|c| !matches!(c, '\'' | '"' | '\\'))
                    .collect();
                if !word.is_empty() {
                    pending_heredoc = Some(word);
                }
                i = j;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    Ok(())
}

fn find(hay: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    hay.get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place(text: &str) -> Option<&'static str> {
        check(text).err().map(|m| m.place)
    }

    #[test]
    fn a_value_is_accepted_where_the_shell_reads_a_word() {
        for ok in [
            "pw useradd -c {{ c }} -n {{ n }}\n",
            "x=-c{{ c }}\n",
            "printf '%s\\n'{% for k in ks %} {{ k }}{% endfor %} > f\n",
            "a=$(echo {{ v }})\n",
            "# a comment with it's quote\necho {{ v }}\n",
            "{# a template comment: \"{{ v }}\" #}\necho {{ v }}\n",
            "cat <<'EOF'\nliteral\nEOF\necho {{ v }}\n",
            "echo \\\"{{ v }}\n",
            "case $x in a) echo {{ v }} ;; esac\n",
            "echo ${x#y} {{ v }}\n",
        ] {
            assert_eq!(check(ok), Ok(()), "{ok}");
        }
    }

    #[test]
    fn a_value_is_refused_where_its_quotes_would_be_data() {
        for (bad, want) in [
            ("pw useradd -c \"{{ c }}\"\n", "double quotes"),
            ("echo '{{ c }}'\n", "single quotes"),
            ("echo `echo {{ c }}`\n", "backquotes"),
            ("echo \"$(echo {{ c }})\"\n", "double quotes"),
            ("echo ${x:-{{ c }}}\n", "a parameter expansion (${…})"),
            ("cat <<EOF\n{{ c }}\nEOF\n", "a here-document"),
            ("cat <<'EOF'\n{{ c }}\nEOF\n", "a here-document"),
            ("cat <<-EOF\n\t{{ c }}\n\tEOF\n", "a here-document"),
            ("# made for {{ host }}\n", "a comment"),
            ("echo hi # {{ c }}\n", "a comment"),
            ("{% if x %}# {{ c }}{% endif %}\n", "a comment"),
            ("x=\"{% include 'y' %}\"\n", "double quotes"),
        ] {
            assert_eq!(place(bad), Some(want), "{bad}");
        }
        for (bad, want) in [
            ("-c {{ step.comment | safe }}\n", "a `| safe` filter"),
            ("-c {{ step.comment|e }}\n", "an `| e` filter"),
            (
                "{% set c = step.comment | tojson %}-c {{ c }}\n",
                "a `| tojson` filter",
            ),
            (
                "{% filter safe %}{{ c }}{% endfilter %}\n",
                "a `| safe` filter",
            ),
        ] {
            assert_eq!(place(bad), Some(want), "{bad}");
        }
        assert_eq!(check("{{ a | sh }} {{ b|default('x') }}\n"), Ok(()));
        let m = check("a\nb\n\"{{ step.comment }}\"\n").unwrap_err();
        assert_eq!((m.line, m.tag.as_str()), (3, "{{ step.comment }}"));
    }
}
