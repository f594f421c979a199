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
