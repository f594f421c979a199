use super::*;

fn load(text: &str) -> Result<Node, Diag> {
    parse(&Source::new("t.yml", text), &Limits::default())
}

fn render(text: &str) -> String {
    serde_json::to_string(&load(text).unwrap()).unwrap()
}

#[test]
fn yaml_1_2_core_scalars() {
    assert_eq!(
        render("a: [yes, no, on, off, True, 0o17, 0x1F, 0644, 1_000, ~, 1.5, '7']"),
        r#"{"a":["yes","no","on","off",true,15,31,"0644","1_000",null,1.5,"7"]}"#
    );
}

#[test]
fn spans_are_one_based_with_byte_offsets() {
    let n = load("a:\n  b: ééx\n  c: 3\n").unwrap();
    let c = n.get("a").unwrap().get("c").unwrap();
    assert_eq!((c.span.line, c.span.col), (3, 6));
    assert_eq!(
        &n.span.source.as_ref().unwrap().text[c.span.offset..c.span.offset + 1],
        "3"
    );
    let key = &n.get("a").unwrap().as_map().unwrap()["c"].key_span;
    assert_eq!((key.line, key.col), (3, 3));
}

#[test]
fn duplicate_key_points_at_the_second() {
    let d = load("a: 1\nb: 2\na: 3\n").unwrap_err();
    assert_eq!(d.code, "beryl::yaml::duplicate_key");
    assert_eq!(d.span().unwrap().to_string(), "t.yml:3:1");
}

#[test]
fn non_string_keys_are_refused() {
    for text in ["1: a\n", "true: a\n", "~: a\n", "[a]: b\n", "1.5: x\n"] {
        let d = load(text).unwrap_err();
        assert_eq!(d.code, "beryl::yaml::key_type", "{text}");
    }
}

#[test]
fn empty_and_comment_only_are_empty_mappings() {
    assert_eq!(render(""), "{}");
    assert_eq!(render("# nothing\n\n"), "{}");
}

#[test]
fn non_mapping_root_is_an_error() {
    for text in ["- a\n", "hello\n", "42\n"] {
        assert_eq!(
            load(text).unwrap_err().code,
            "beryl::yaml::root_not_mapping",
            "{text}"
        );
    }
}

#[test]
fn anchors_and_merge_keys() {
    assert_eq!(
        render("base: &b {x: 1, y: 2}\nother:\n  <<: *b\n  y: 3\nlist: [*b]\n"),
        r#"{"base":{"x":1,"y":2},"other":{"y":3,"x":1},"list":[{"x":1,"y":2}]}"#
    );
}

#[test]
fn unknown_tags_are_refused() {
    assert_eq!(
        load("a: !custom x\n").unwrap_err().code,
        "beryl::yaml::syntax"
    );
}

#[test]
fn syntax_errors_are_located() {
    let d = load("a: 1\nb: [1, 2\n").unwrap_err();
    assert_eq!(d.code, "beryl::yaml::syntax");
    assert!(d.span().is_some());
    let d = load("a: 'open\n").unwrap_err();
    assert!(d.span().is_some());
}

#[test]
fn alias_bomb_is_refused() {
    let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x]\n");
    for i in 1..10 {
        let p = i - 1;
        text.push_str(&format!(
            "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
        ));
    }
    let d = load(&text).unwrap_err();
    assert!(d.message.contains("alias bomb"), "{}", d.message);
}

#[test]
fn deep_nesting_is_refused_without_overflow() {
    let flow = format!("a: {}{}\n", "[".repeat(10_000), "]".repeat(10_000));
    assert!(load(&flow).is_err());
    let mut block = String::new();
    for i in 0..1_000 {
        block.push_str(&" ".repeat(i));
        block.push_str("k:\n");
    }
    let d = load(&block).unwrap_err();
    assert!(
        d.message.contains("nests deeper than 64 levels"),
        "{}",
        d.message
    );
}

#[test]
fn big_integers_are_refused() {
    assert_eq!(
        load("a: 9223372036854775808\n").unwrap_err().code,
        "beryl::yaml::integer_range"
    );
}

#[test]
fn syntax_error_spans_point_at_the_problem() {
    let d = load("a: 1\nb: [1, 2\n").unwrap_err();
    let s = d.span().unwrap();
    assert_eq!(s.line, 2);
    assert!(s.offset >= 5, "offset {} should be on line 2", s.offset);
    assert!(!d.message.contains("at line"), "{}", d.message);
}

#[test]
fn several_documents_are_refused_in_our_words() {
    let d = load("a: 1\n---\nb: 2\n").unwrap_err();
    assert!(
        d.message.contains("several YAML documents"),
        "{}",
        d.message
    );
}

#[test]
fn integers_beyond_64_bits_are_refused_not_rounded() {
    for text in [
        "a: 123456789012345678901234567890\n",
        "a: -99999999999999999999\n",
    ] {
        assert_eq!(
            load(text).unwrap_err().code,
            "beryl::yaml::integer_range",
            "{text}"
        );
    }
    assert_eq!(render("a: 1.5e300\n"), r#"{"a":1.5e+300}"#);
}

fn load_with(text: &str, limits: Limits) -> Result<Node, Diag> {
    parse(&Source::new("t.yml", text), &limits)
}

/// Each limit breach has its own code and says how to raise the limit.
#[test]
fn each_breach_names_its_limit() {
    let depth = format!("a: {}{}\n", "[".repeat(70), "]".repeat(70));
    let d = load(&depth).unwrap_err();
    assert_eq!(d.code, "beryl::limit::depth");
    assert!(d.help.as_deref().unwrap().contains("--max-depth"));
    let block = (0..70).fold(String::new(), |t, i| t + &" ".repeat(i) + "k:\n");
    assert_eq!(load(&block).unwrap_err().code, "beryl::limit::depth");

    let small = Limits {
        max_nodes: 100,
        ..Limits::default()
    };
    let d = load_with(&format!("a: [{}]\n", "x,".repeat(200)), small).unwrap_err();
    assert_eq!(d.code, "beryl::limit::nodes");
    assert!(d.message.contains("more than 100 values"), "{}", d.message);

    let d = load_with(
        &format!("a: &a '{}'\nb: [*a, *a, *a, *a]\n", "x".repeat(100)),
        Limits {
            max_file_size: 20,
            ..Limits::default()
        },
    )
    .unwrap_err();
    assert_eq!(d.code, "beryl::limit::strings", "{}", d.message);
    assert!(d.message.contains("more than 320 bytes"), "{}", d.message);
}

/// A list over the cap is refused as soon as the item past it is read,
/// and the error is located in the file.
#[test]
fn long_lists_are_refused_at_the_cap() {
    let cap = Limits {
        max_list_items: 3,
        ..Limits::default()
    };
    assert!(load_with("a: [1, 2, 3]\nb:\n  - [4, 5, 6]\n", cap).is_ok());
    for text in [
        "a: [1, 2, 3, 4]\n",
        "x: 1\na:\n  - 1\n  - 2\n  - 3\n  - 4\n",
    ] {
        let d = load_with(text, cap).unwrap_err();
        assert_eq!(d.code, "beryl::limit::list_items", "{text}");
        assert!(d.message.contains("more than 3 items"), "{}", d.message);
        assert!(d.span().is_some(), "{text}: located");
        assert!(d.help.as_deref().unwrap().contains("--max-list-items"));
    }
    // The cap belongs to the parse that set it.
    assert!(load("a: [1, 2, 3, 4]\n").is_ok());
}

/// One small anchor used many times is plain YAML, not a bomb: the parser's
/// alias/anchor ratio heuristic refused it once 100 aliases were seen.
#[test]
fn many_aliases_of_one_anchor_are_fine() {
    let mut text = String::from("d: &d {a: 1}\n");
    for i in 0..300 {
        text.push_str(&format!("k{i}: *d\n"));
    }
    assert!(load(&text).is_ok());
    let few = Limits {
        max_nodes: 2000,
        ..Limits::default()
    };
    let d = load_with(&text, few).unwrap_err();
    assert_eq!(d.code, "beryl::limit::aliases");
    assert!(d.message.contains("more than 100 aliases"), "{}", d.message);
}

/// Parser messages that named the parser's own options, or left the user
/// guessing, are said in beryl's words.
#[test]
fn parser_messages_in_our_words() {
    let d = load("v: !!binary /w==\n").unwrap_err();
    assert!(
        d.message.contains("does not decode to UTF-8 text"),
        "{}",
        d.message
    );
    assert!(!d.message.contains("Options"), "{}", d.message);
    for text in [
        format!("{}: v\n", "k".repeat(1100)),
        format!("a:\n  b: 1\n{}: v\n", "k".repeat(1100)),
    ] {
        let d = load(&text).unwrap_err();
        assert!(
            d.help.as_deref().unwrap_or("").contains("1024 characters"),
            "{d:?}"
        );
    }
}

/// Files of beryl's own output are capped too, but --max-file-size does not
/// raise that cap, so the help must not say it does.
#[test]
fn the_size_cap_help_names_the_right_knob() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("f");
    std::fs::write(&f, "0123456789").unwrap();
    let d = read_text(&f, "f", 5).unwrap_err();
    assert_eq!(d.code, "beryl::limit::file_size");
    assert!(d.help.unwrap().contains("--max-file-size"));
    let d = read_capped_text(&f, "f", 5, || "own output".into()).unwrap_err();
    assert_eq!(d.help.as_deref(), Some("own output"));
    assert!(read_output(&f, "f").is_ok());
}

/// Found by the render → parse property (output/tests.rs): a document that
/// is one scalar of Unicode blanks (`beryl merge` may write one) was taken
/// for an empty document, so it read back as null.
#[test]
fn a_document_of_unicode_blanks_is_a_string() {
    for blank in ["\u{a0}", "\u{3000}", "\u{2007}\n"] {
        let n = parse_any(&Source::new("t", blank), &Limits::default()).unwrap();
        assert_eq!(n.as_str(), Some(blank.trim_end_matches('\n')), "{blank:?}");
    }
    for empty in ["", " \n\t\r\n", "\u{feff}"] {
        let n = parse_any(&Source::new("t", empty), &Limits::default()).unwrap();
        assert!(matches!(n.value, Value::Null), "{empty:?}");
    }
}

/// Found by the `yaml` fuzz target (tests/fuzz-regressions/yaml/
/// json-key-over-1024-chars.yml): a key longer than YAML's 1024-character
/// limit on implicit keys loads when written without a `:` after it (a flow
/// entry with no value), writes back as YAML, but not as JSON, which has no
/// other kind of key. That is the documented limit (docs/merge.md, §6): the
/// JSON of such a key is refused with a located syntax error.
#[test]
fn keys_over_yamls_implicit_key_limit_are_refused_in_json() {
    let long = "k".repeat(1100);
    let n = parse_any(&Source::new("t", format!("{{{long}}}")), &Limits::default()).unwrap();
    assert!(n.get(&long).is_some());
    let json = crate::output::to_string(&n, crate::output::Format::Json).unwrap();
    let d = parse_any(&Source::new("t.json", json), &Limits::default()).unwrap_err();
    assert_eq!(d.code, "beryl::yaml::syntax");
    assert!(d.span().is_some());
    let yaml = crate::output::to_string(&n, crate::output::Format::Yaml).unwrap();
    let back = parse_any(&Source::new("t.yml", yaml), &Limits::default()).unwrap();
    assert!(back.get(&long).is_some());
}

/// Issue 19: a block scalar that ends the file on a line with no line break
/// gained a line feed (`"a: |\n  x\n  y"` was `"x\ny\n"`). YAML 1.2.2
/// §8.1.1.2, production [165]: with clip and keep chomping the final line
/// break is content only when there is one. Every expected value here was
/// checked against PyYAML 6.0 (pure and libyaml loaders alike).
#[test]
fn block_scalars_at_the_end_of_the_file() {
    let cases = [
        // Clip: the final line break is kept if there is one.
        ("a: |\n  x\n  y", r#"{"a":"x\ny"}"#),
        ("a: |\n  x\n  y\n", r#"{"a":"x\ny\n"}"#),
        ("a: |\n  x\n  y\n\n", r#"{"a":"x\ny\n"}"#),
        ("a: >\n  x\n  y", r#"{"a":"x y"}"#),
        ("a: >\n  x\n  y\n", r#"{"a":"x y\n"}"#),
        ("a: >\n  x\n  y\n\n", r#"{"a":"x y\n"}"#),
        // Strip: never a final line break.
        ("a: |-\n  x\n  y", r#"{"a":"x\ny"}"#),
        ("a: |-\n  x\n  y\n", r#"{"a":"x\ny"}"#),
        ("a: |-\n  x\n  y\n\n", r#"{"a":"x\ny"}"#),
        ("a: >-\n  x\n  y", r#"{"a":"x y"}"#),
        ("a: >-\n  x\n  y\n", r#"{"a":"x y"}"#),
        ("a: >-\n  x\n  y\n\n", r#"{"a":"x y"}"#),
        // Keep: the final line break and the empty lines after it, if any.
        ("a: |+\n  x\n  y", r#"{"a":"x\ny"}"#),
        ("a: |+\n  x\n  y\n", r#"{"a":"x\ny\n"}"#),
        ("a: |+\n  x\n  y\n\n", r#"{"a":"x\ny\n\n"}"#),
        ("a: >+\n  x\n  y", r#"{"a":"x y"}"#),
        ("a: >+\n  x\n  y\n", r#"{"a":"x y\n"}"#),
        ("a: >+\n  x\n  y\n\n", r#"{"a":"x y\n\n"}"#),
        ("a: |+\n  ", r#"{"a":""}"#),
        // The last line is content, spaces beyond the indentation included.
        ("a: |\n  x\n   ", r#"{"a":"x\n "}"#),
        (
            "a: |\n  x\n  y # not a comment",
            r#"{"a":"x\ny # not a comment"}"#,
        ),
        // The last value of a nested mapping, of a list; a key.
        ("a:\n  b: |\n    x\n    y", r#"{"a":{"b":"x\ny"}}"#),
        ("a:\n  b: |\n    x\n    y\n", r#"{"a":{"b":"x\ny\n"}}"#),
        (
            "a:\n  - |+\n    x\n  - >\n    y\n    z",
            r#"{"a":["x\n","y z"]}"#,
        ),
        (
            "a:\n  - |+\n    x\n  - >\n    y\n    z\n",
            r#"{"a":["x\n","y z\n"]}"#,
        ),
        ("? |\n  x", r#"{"x":null}"#),
        // Something after the scalar: its line ends with a line break.
        ("a: |\n  x\n...", r#"{"a":"x\n"}"#),
        ("a: |\n  x\n# c", r#"{"a":"x\n"}"#),
        ("--- \na: |\n  x", r#"{"a":"x"}"#),
        // CRLF line breaks.
        ("a: |\r\n  x\r\n  y", r#"{"a":"x\ny"}"#),
        ("a: |\r\n  x\r\n  y\r\n", r#"{"a":"x\ny\n"}"#),
        ("a: |-\r\n  x\r\n  y", r#"{"a":"x\ny"}"#),
        ("a: >+\r\n  x\r\n  y", r#"{"a":"x y"}"#),
        // Not block scalars: their values are their own, at the end or not.
        (r#"a: "x\n""#, r#"{"a":"x\n"}"#),
        ("a: &k |\n  x\nb: *k", r#"{"a":"x\n","b":"x\n"}"#),
    ];
    for (text, json) in cases {
        assert_eq!(render(text), json, "{text:?}");
    }
    // A second document is refused as ever (PyYAML reads `{"a": "x\n"}`
    // and null).
    let d = load("a: |\n  x\n---").unwrap_err();
    assert_eq!(d.code, "beryl::yaml::syntax");
}

/// The scalar read again keeps its place: line, column and the bytes it was
/// read from.
#[test]
fn a_block_scalar_at_the_end_keeps_its_span() {
    let n = load("a: 1\nb: |\n  x\n  y").unwrap();
    let b = n.get("b").unwrap();
    assert_eq!(b.as_str(), Some("x\ny"));
    assert_eq!(b.span.to_string(), "t.yml:3:3");
    assert_eq!(written(b), Some("x\n  y"));
}
