//! A small POSIX sh lexer, enough to read generated scripts back: commands,
//! their words after quote removal, and what each word expands (`$NAME`,
//! `$(…)`, backquotes, `$((…))`). It is not a shell; it only has to be exact
//! on the constructs beryl's templates use, and refuse an unterminated quote.

/// One word: its text after quote removal (a parameter shows as `$NAME`),
/// and the expansions in it that a shell would perform.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Word {
    pub text: String,
    /// An operator (`>`, `|`, `(`…), not an argument.
    pub op: bool,
    pub params: Vec<String>,
    /// Command substitutions, `$(…)`, lexed.
    pub subs: Vec<Vec<Command>>,
    /// Backquoted substitutions and arithmetic, as written.
    pub other: Vec<String>,
}

pub type Command = Vec<Word>;

/// Lexes a script into commands.
pub fn lex(script: &str) -> Result<Vec<Command>, String> {
    let mut l = Lexer {
        s: script.chars().collect(),
        i: 0,
    };
    let out = l.commands(false)?;
    if l.i < l.s.len() {
        return Err(format!("an unmatched `)` at {}", l.i));
    }
    Ok(out)
}

/// The argument words of a command (up to its first operator).
pub fn argv(c: &Command) -> Vec<&str> {
    c.iter()
        .take_while(|w| !w.op)
        .map(|w| w.text.as_str())
        .collect()
}

/// Every word of the commands, those of substitutions included.
pub fn words(commands: &[Command]) -> Vec<&Word> {
    let mut out = Vec::new();
    for w in commands.iter().flatten() {
        out.push(w);
        for sub in &w.subs {
            out.extend(words(sub));
        }
    }
    out
}

struct Lexer {
    s: Vec<char>,
    i: usize,
}

impl Lexer {
    fn peek(&self, k: usize) -> Option<char> {
        self.s.get(self.i + k).copied()
    }

    /// Commands up to the end, or up to an unmatched `)` when `nested`.
    fn commands(&mut self, nested: bool) -> Result<Vec<Command>, String> {
        let mut out: Vec<Command> = Vec::new();
        let mut cmd: Command = Vec::new();
        let mut word: Option<Word> = None;
        let end_word = |word: &mut Option<Word>, cmd: &mut Command| {
            if let Some(w) = word.take() {
                cmd.push(w);
            }
        };
        while let Some(c) = self.peek(0) {
            match c {
                ' ' | '\t' => {
                    end_word(&mut word, &mut cmd);
                    self.i += 1;
                }
                '\n' | ';' | '&' | '|' => {
                    end_word(&mut word, &mut cmd);
                    self.i += 1;
                    if matches!(c, '&' | '|') && self.peek(0) == Some(c) {
                        self.i += 1;
                    }
                    if !cmd.is_empty() {
                        out.push(std::mem::take(&mut cmd));
                    }
                }
                ')' if nested => break,
                '>' | '<' | '(' | ')' => {
                    end_word(&mut word, &mut cmd);
                    self.i += 1;
                    let mut text = c.to_string();
                    while let Some(n @ ('>' | '&')) = self.peek(0) {
                        text.push(n);
                        self.i += 1;
                    }
                    cmd.push(Word {
                        text,
                        op: true,
                        ..Word::default()
                    });
                }
                '{' | '}' | '!' if word.is_none() && self.blank_after() => {
                    self.i += 1;
                    cmd.push(Word {
                        text: c.to_string(),
                        op: true,
                        ..Word::default()
                    });
                }
                '#' if word.is_none() => {
                    while self.peek(0).is_some_and(|c| c != '\n') {
                        self.i += 1;
                    }
                }
                _ => {
                    let w = word.get_or_insert_with(Word::default);
                    self.word_part(w)?;
                }
            }
        }
        end_word(&mut word, &mut cmd);
        if !cmd.is_empty() {
            out.push(cmd);
        }
        Ok(out)
    }

    fn blank_after(&self) -> bool {
        self.peek(1).is_none_or(|c| c.is_whitespace() || c == ';')
    }

    /// One piece of a word: a quoted string, an expansion or a character.
    fn word_part(&mut self, w: &mut Word) -> Result<(), String> {
        let c = self.peek(0).unwrap_or_default();
        self.i += 1;
        match c {
            '\\' => match self.peek(0) {
                Some('\n') => self.i += 1,
                Some(n) => {
                    w.text.push(n);
                    self.i += 1;
                }
                None => {}
            },
            '\'' => loop {
                match self.peek(0) {
                    Some('\'') => {
                        self.i += 1;
                        break;
                    }
                    Some(n) => {
                        w.text.push(n);
                        self.i += 1;
                    }
                    None => return Err("an unterminated single quote".into()),
                }
            },
            '"' => loop {
                match self.peek(0) {
                    Some('"') => {
                        self.i += 1;
                        break;
                    }
                    Some('\\') if matches!(self.peek(1), Some('$' | '`' | '"' | '\\' | '\n')) => {
                        if self.peek(1) != Some('\n') {
                            w.text.push(self.peek(1).unwrap_or_default());
                        }
                        self.i += 2;
                    }
                    Some('$') => {
                        self.i += 1;
                        self.dollar(w)?;
                    }
                    Some('`') => {
                        self.i += 1;
                        self.backquote(w)?;
                    }
                    Some(n) => {
                        w.text.push(n);
                        self.i += 1;
                    }
                    None => return Err("an unterminated double quote".into()),
                }
            },
            '$' => self.dollar(w)?,
            '`' => self.backquote(w)?,
            other => w.text.push(other),
        }
        Ok(())
    }

    /// After a `$`.
    fn dollar(&mut self, w: &mut Word) -> Result<(), String> {
        match self.peek(0) {
            Some('(') if self.peek(1) == Some('(') => {
                let start = self.i;
                let mut depth = 0;
                while let Some(c) = self.peek(0) {
                    self.i += 1;
                    match c {
                        '(' => depth += 1,
                        ')' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                if depth != 0 {
                    return Err("an unterminated $((".into());
                }
                let text: String = self.s[start..self.i].iter().collect();
                w.text.push('$');
                w.text.push_str(&text);
                w.other.push(text);
            }
            Some('(') => {
                self.i += 1;
                let sub = self.commands(true)?;
                if self.peek(0) != Some(')') {
                    return Err("an unterminated $(".into());
                }
                self.i += 1;
                w.text.push_str("$(…)");
                w.subs.push(sub);
            }
            Some('{') => {
                let start = self.i + 1;
                while self.peek(0).is_some_and(|c| c != '}') {
                    self.i += 1;
                }
                if self.peek(0).is_none() {
                    return Err("an unterminated ${".into());
                }
                let name: String = self.s[start..self.i].iter().collect();
                self.i += 1;
                let base = name.split(':').next().unwrap_or_default().to_string();
                w.text.push('$');
                w.text.push_str(&base);
                w.params.push(base);
            }
            Some(c) if c.is_ascii_alphabetic() || c == '_' => {
                let start = self.i;
                while self
                    .peek(0)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
                {
                    self.i += 1;
                }
                let name: String = self.s[start..self.i].iter().collect();
                w.text.push('$');
                w.text.push_str(&name);
                w.params.push(name);
            }
            Some(c)
                if c.is_ascii_digit() || matches!(c, '?' | '$' | '#' | '@' | '*' | '!' | '-') =>
            {
                self.i += 1;
                w.text.push('$');
                w.text.push(c);
                w.params.push(c.to_string());
            }
            _ => w.text.push('$'),
        }
        Ok(())
    }

    fn backquote(&mut self, w: &mut Word) -> Result<(), String> {
        let start = self.i;
        loop {
            match self.peek(0) {
                Some('`') => break,
                Some('\\') => self.i += 2,
                Some(_) => self.i += 1,
                None => return Err("an unterminated backquote".into()),
            }
        }
        let text: String = self.s[start..self.i.min(self.s.len())].iter().collect();
        self.i += 1;
        w.other.push(format!("`{text}`"));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_templates_constructs() {
        let c = lex("pw useradd -n \"o'neil\" -c '$(touch MARK)' >/dev/null 2>&1 # x\n").unwrap();
        assert_eq!(
            argv(&c[0]),
            ["pw", "useradd", "-n", "o'neil", "-c", "$(touch MARK)"]
        );
        let c = lex("mkdir -p \"$BERYL_ROOT\"'/a b'; x=\"${BERYL_ROOT:-}\"").unwrap();
        assert_eq!(argv(&c[0]), ["mkdir", "-p", "$BERYL_ROOT/a b"]);
        assert_eq!(c[0][2].params, ["BERYL_ROOT"]);
        assert_eq!(c[1][0].params, ["BERYL_ROOT"]);
        let c = lex("[ \"$(pw usershow -n 'a' | cut -d: -f8)\" = 'x' ] && y").unwrap();
        assert_eq!(words(&c[0][1].subs[0])[0].text, "pw");
        assert!(lex("echo 'a").is_err());
        assert!(lex("echo \"$(a\"").is_err());
    }
}
