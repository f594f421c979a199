//! The Markdown the docs tests read: fenced code blocks (``` or ~~~, any
//! length, any indentation, as CommonMark closes them) and the prose lines
//! between them, each with its line number and its section (the number of
//! headings above it).

use std::path::{Path, PathBuf};

/// One Markdown file.
pub struct Doc {
    /// The path relative to the repository, for messages (`docs/merge.md`).
    pub name: String,
    pub path: PathBuf,
    pub blocks: Vec<Block>,
    pub prose: Vec<Line>,
}

/// A fenced code block.
pub struct Block {
    /// The 1-based line of the opening fence.
    pub line: usize,
    /// The info string after the fence, trimmed (`console ignore …`).
    pub info: String,
    /// The content lines, the fence's indentation removed.
    pub body: Vec<String>,
    pub section: usize,
}

/// A line outside code blocks.
pub struct Line {
    pub line: usize,
    pub text: String,
}

impl Block {
    /// The language: the first word of the info string.
    pub fn lang(&self) -> &str {
        self.info.split_whitespace().next().unwrap_or_default()
    }

    /// Whether the info string holds a word after the language.
    pub fn has(&self, word: &str) -> bool {
        self.info.split_whitespace().skip(1).any(|w| w == word)
    }

    /// The 1-based file line of body line `i`.
    pub fn body_line(&self, i: usize) -> usize {
        self.line + 1 + i
    }
}

impl Doc {
    pub fn read(repo: &Path, path: &Path) -> Doc {
        let text = std::fs::read_to_string(path).unwrap();
        let name = path.strip_prefix(repo).unwrap().display().to_string();
        Doc::new(&name, path, &text)
    }

    /// The document `text`, read from `path` (named `name` in messages).
    pub fn new(name: &str, path: &Path, text: &str) -> Doc {
        let (blocks, prose) = parse(text);
        Doc {
            name: name.to_string(),
            path: path.to_path_buf(),
            blocks,
            prose,
        }
    }

    /// `file:line` for messages.
    pub fn at(&self, line: usize) -> String {
        format!("{}:{line}", self.name)
    }
}

/// An opening or closing fence: its character, length, indentation and
/// the rest of the line.
fn fence(line: &str) -> Option<(char, usize, usize, &str)> {
    let trimmed = line.trim_start();
    let indent = line.len() - trimmed.len();
    let c = trimmed.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let len = trimmed.chars().take_while(|x| *x == c).count();
    (len >= 3).then(|| (c, len, indent, &trimmed[len..]))
}

/// The blocks and prose lines of a Markdown text.
pub fn parse(text: &str) -> (Vec<Block>, Vec<Line>) {
    let mut blocks = Vec::new();
    let mut prose = Vec::new();
    let mut section = 0;
    let mut open: Option<(char, usize, usize, Block)> = None;
    for (n, line) in text.lines().enumerate() {
        let number = n + 1;
        match &mut open {
            Some((c, len, indent, block)) => match fence(line) {
                Some((c2, len2, _, rest)) if c2 == *c && len2 >= *len && rest.trim().is_empty() => {
                    let (_, _, _, block) = open.take().unwrap();
                    blocks.push(block);
                }
                _ => {
                    let strip = line.len() - line.trim_start().len();
                    let cut = strip.min(*indent);
                    block.body.push(line[cut..].to_string());
                }
            },
            None => match fence(line) {
                Some((c, len, indent, rest)) if !(c == '`' && rest.contains('`')) => {
                    open = Some((
                        c,
                        len,
                        indent,
                        Block {
                            line: number,
                            info: rest.trim().to_string(),
                            body: Vec::new(),
                            section,
                        },
                    ));
                }
                _ => {
                    let t = line.trim_start();
                    if line.len() - t.len() <= 3
                        && t.starts_with('#')
                        && t.trim_start_matches('#').starts_with(' ')
                    {
                        section += 1;
                    }
                    prose.push(Line {
                        line: number,
                        text: line.to_string(),
                    });
                }
            },
        }
    }
    if let Some((_, _, _, block)) = open {
        blocks.push(block);
    }
    (blocks, prose)
}

#[test]
fn fences_nest_and_close_as_commonmark_says() {
    let text = "# A\ntext\n````markdown\n```console\n$ beryl x\n```\n````\n## B\n  ```yaml edit\n  # inventory/x.yml\n  a: 1\n  ```\n";
    let (blocks, prose) = parse(text);
    assert_eq!(blocks.len(), 2);
    assert_eq!(blocks[0].lang(), "markdown");
    assert_eq!(blocks[0].body, ["```console", "$ beryl x", "```"]);
    assert_eq!(blocks[0].section, 1);
    assert_eq!(blocks[1].info, "yaml edit");
    assert!(blocks[1].has("edit"));
    assert_eq!(blocks[1].body, ["# inventory/x.yml", "a: 1"]);
    assert_eq!(blocks[1].section, 2);
    assert_eq!(blocks[1].body_line(1), 11);
    assert_eq!(prose.len(), 3);
}
