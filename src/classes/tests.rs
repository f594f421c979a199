//! Unit tests of classes: names, the class walk's depth limit, splitting a document.

use super::*;

#[test]
fn names() {
    assert!(check_name("roles.backup").is_ok());
    assert!(check_name("a_b-c.d9").is_ok());
    for bad in ["", ".x", "a..b", "a.", "a/b", "a.init", "a b", "../x", "é"] {
        assert!(check_name(bad).is_err(), "{bad}");
    }
}

/// A chain of classes each including the next, `n` long, named by
/// _default.yml; expanded with `limits`.
fn expand_chain(n: usize, limits: Limits) -> Result<walk::Expanded, Diags> {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("_classes")).unwrap();
    std::fs::create_dir_all(root.join("a.org")).unwrap();
    std::fs::write(root.join("_default.yml"), "classes: [c0]\n").unwrap();
    std::fs::write(root.join("a.org/_domain.yml"), "ssh_keys: [k]\n").unwrap();
    for i in 0..n {
        let text = format!("classes: [c{}]\n", i + 1);
        std::fs::write(root.join(format!("_classes/c{i}.yml")), text).unwrap();
    }
    std::fs::write(root.join(format!("_classes/c{n}.yml")), "x: 1\n").unwrap();
    let inventory = Inventory::discover(root, "inv").unwrap();
    let library = Library::new(&inventory, limits);
    let node = Arc::new(crate::yaml::load_file(&inventory.default.path, "d", &limits).unwrap());
    let unit = library.unit(&inventory.default.rel, &node, "").unwrap();
    let mut resolve = |_: &[walk::Doc], t: &str, _: &crate::value::Span| Ok(t.to_string());
    walk::expand(&library, &[(&inventory.default, unit)], &mut resolve)
}

/// A chain 50,000 classes deep overflowed the stack; the limit stops it
/// with one error.
#[test]
fn class_chains_stop_at_the_depth_limit() {
    let limits = Limits {
        max_class_depth: 10,
        ..Limits::default()
    };
    assert_eq!(expand_chain(9, limits).unwrap().classes.len(), 10);
    let e = expand_chain(300, limits).unwrap_err();
    assert_eq!(e.len(), 1, "{e:?}");
    assert_eq!(e[0].code, "beryl::limit::class_depth");
    assert!(
        e[0].message.contains("more than 10 deep"),
        "{}",
        e[0].message
    );
}

#[test]
fn split_keeps_data_and_lists_classes() {
    let source = crate::value::Source::new("a.yml", "classes: [x, y]\nk: 1\n");
    let node = Arc::new(crate::yaml::parse(&source, &Limits::default()).unwrap());
    let unit = ClassedDoc::split(&node).unwrap();
    assert_eq!(unit.classes.len(), 2);
    assert!(unit.data.get("classes").is_none());
    assert!(unit.data.get("k").is_some());
    let source = crate::value::Source::new("b.yml", "classes: [1, x]\n");
    let node = Arc::new(crate::yaml::parse(&source, &Limits::default()).unwrap());
    assert_eq!(
        ClassedDoc::split(&node).unwrap_err()[0].code,
        "beryl::classes::not_a_name"
    );
}
