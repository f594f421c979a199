use super::*;
use crate::schema::{self, Raid};

fn any() -> Value {
    level_file(None)
}

/// The object schema named `name` in `$defs`.
fn def<'a>(schema: &'a Value, name: &str) -> &'a Value {
    &schema["$defs"][name]
}

fn keys(object: &Value) -> Vec<&str> {
    object["properties"]
        .as_object()
        .unwrap_or_else(|| panic!("no properties in {object}"))
        .keys()
        .map(String::as_str)
        .collect()
}

/// The input type's keys are the table's, in the same order, and each
/// description starts with the table's one-line doc (capitalised).
fn same_as_table(object: &Value, table: &[(&str, &str)], what: &str) {
    let table_keys: Vec<&str> = table.iter().map(|(key, _)| *key).collect();
    assert_eq!(keys(object), table_keys, "the keys of {what}");
    for (key, doc) in table {
        let description = object["properties"][key]["description"]
            .as_str()
            .unwrap_or_else(|| panic!("{what}.{key} has no description"));
        let mut capitalised = doc.to_string();
        capitalised[..1].make_ascii_uppercase();
        assert!(
            description.starts_with(doc) || description.starts_with(&capitalised),
            "{what}.{key}: the description {description:?} does not start with the table's doc {doc:?}",
        );
    }
}

#[test]
fn the_input_types_have_the_keys_of_the_validation_tables() {
    let s = any();
    same_as_table(def(&s, "FreeBsd"), &schema::freebsd_keys(), "freebsd");
    same_as_table(def(&s, "User"), &schema::user_keys(), "a user");
    same_as_table(
        def(&s, "Network"),
        &schema::network_keys(),
        "freebsd.network",
    );
    same_as_table(
        def(&s, "Interface"),
        &schema::interface_keys(),
        "an interface",
    );
    same_as_table(def(&s, "Sshd"), &schema::sshd_keys(), "freebsd.sshd");
    same_as_table(def(&s, "File"), &schema::file_keys(), "a file");
    same_as_table(def(&s, "Service"), &schema::service_keys(), "a service");
    same_as_table(def(&s, "Zfs"), &schema::zfs_keys(), "freebsd.zfs");
    same_as_table(def(&s, "DataPool"), &schema::zfs_pool_keys(), "a data pool");
    let props: Vec<(&str, &str)> = crate::freebsd::zfs::PROPS
        .iter()
        .map(|p| (p.name, p.doc))
        .chain([("destroy", "true: destroyed if beryl created it")])
        .collect();
    same_as_table(def(&s, "Dataset"), &props, "a dataset");
    same_as_table(def(&s, "Cron"), &schema::cron_keys(), "a cron entry");
    same_as_table(def(&s, "Jail"), &schema::jail_keys(), "freebsd.jail");
    same_as_table(def(&s, "Bridge"), &schema::bridge_keys(), "a bridge");
}

/// The `const`s of an enum's `oneOf`, or its `enum` values.
fn words(schema: &Value) -> Vec<&str> {
    match schema.get("oneOf") {
        Some(alts) => alts
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a["const"].as_str().unwrap())
            .collect(),
        None => schema["enum"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect(),
    }
}

#[test]
fn the_enums_have_the_words_of_validation() {
    let s = any();
    assert_eq!(words(def(&s, "StrategyName")), crate::merge::spec::names());
    assert_eq!(
        words(def(&s, "RootLogin")),
        crate::freebsd::names::PERMIT_ROOT_LOGIN
    );
    let raid: Vec<&str> = Raid::ALL.iter().map(|r| r.name()).collect();
    let mut schema_raid = words(def(&s, "Raid"));
    schema_raid.sort_unstable();
    let mut raid_sorted = raid.clone();
    raid_sorted.sort_unstable();
    assert_eq!(schema_raid, raid_sorted);
    for word in words(def(&s, "Install")) {
        assert!(crate::freebsd::names::install(word).is_ok(), "{word}");
    }
    for word in words(def(&s, "UserState")) {
        assert!(crate::freebsd::names::user_state(word).is_ok(), "{word}");
    }
    assert_eq!(
        words(def(&s, "NotifyAction")),
        crate::freebsd::names::NOTIFY_ACTIONS
    );
    for word in words(def(&s, "YesNoWord")) {
        assert!(crate::freebsd::names::yes_no(word).is_ok(), "{word}");
    }
}

/// Each strategy's spec mapping allows exactly the options that
/// src/merge/spec.rs lets it take, with a value of the type it reads.
#[test]
fn each_strategy_takes_the_options_of_the_merge_engine() {
    use crate::merge::spec::{OPTIONS, Opt, Spec, Strategy};
    use crate::value::{Node, Span, Value as V};
    let s = any();
    let variants = def(&s, "SpecOptions")["oneOf"].as_array().unwrap();
    assert_eq!(variants.len(), crate::merge::spec::names().len());
    for variant in variants {
        let name = variant["properties"]["strategy"]["const"].as_str().unwrap();
        let kind = Strategy::from_name(name).unwrap_or_else(|| panic!("{name}"));
        let allowed: Vec<&str> = keys(variant)
            .into_iter()
            .filter(|k| *k != "strategy")
            .collect();
        for &(option, opt, _) in OPTIONS {
            let (value, kind_of_value) = match opt {
                Opt::KnockoutPrefix => (V::Str("##".into()), "string"),
                Opt::Key => (V::Str("id".into()), "string"),
                Opt::MergeHashArrays | Opt::SortMergedArrays => (V::Bool(true), "boolean"),
            };
            let taken = Spec::of(kind)
                .set(option, &Span::synthetic(), &Node::synthetic(value))
                .is_ok();
            assert_eq!(
                allowed.contains(&option),
                taken,
                "{name} and {option}: the schema and the engine disagree"
            );
            if taken {
                let schema = &variant["properties"][option];
                let types: Vec<&Value> = match schema.get("anyOf") {
                    Some(alternatives) => alternatives
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|a| &a["type"])
                        .collect(),
                    None => vec![&schema["type"]],
                };
                assert!(
                    types.contains(&&Value::from(kind_of_value)),
                    "{name}.{option}: {schema}"
                );
            }
        }
    }
}

/// The spec serde reads from a `merge:` value, or none.
fn read(text: &str) -> Option<crate::merge::Spec> {
    use super::merge::{MergeSpec, SpecOptions, StrategyName};
    fn spec(m: &MergeSpec) -> crate::merge::Spec {
        match m {
            MergeSpec::Name(StrategyName(kind)) => crate::merge::Spec::of(*kind),
            MergeSpec::Hiera(hiera) => spec(&hiera.merge),
            MergeSpec::Options(SpecOptions(s)) => s.clone(),
        }
    }
    let json = serde_json::to_value(yaml(text)).unwrap();
    serde_json::from_value::<MergeSpec>(json)
        .ok()
        .map(|m| spec(&m))
}

fn yaml(text: &str) -> crate::value::Node {
    let source = crate::value::Source::new("t.yml", text);
    crate::yaml::parse_any(&source, &Default::default()).unwrap()
}

/// serde reads a merge spec into the spec the engine reads, and refuses
/// what the engine refuses.
#[test]
fn serde_reads_a_merge_spec_as_the_engine_does() {
    for text in [
        "deep",
        "replace",
        "by_key",
        "deeep",
        "{merge: deep}",
        "{merge: {merge: unique}}",
        "{merge: {strategy: deep, knockout_prefix: '--', sort_merged_arrays: true}}",
        "{strategy: by_key, key: id, knockout_prefix: '##'}",
        "{strategy: append, knockout_prefix: null}",
        "{strategy: deep, merge_hash_arrays: true}",
        "{strategy: hash, knockout_prefix: '--'}",
        "{strategy: deep, knockout_prefix: ''}",
        "{strategy: deep, merge_hash_arrays: 'yes'}",
        "{strategy: deep, bogus: 1}",
        "{strategy: by_key, key: ''}",
        "{strategy: 3}",
        "{knockout_prefix: '--'}",
        "{merge: deep, strategy: deep}",
        "[deep]",
        "3",
    ] {
        let engine = crate::merge::Spec::parse(&yaml(text)).ok();
        assert_eq!(read(text), engine, "{text}");
    }
}

/// The root keys the schema names are the ones beryl reserves (every other
/// root key is free-form data), and the `ssh` block's keys and `become`
/// words are those apply reads.
#[test]
fn the_root_keys_and_the_ssh_block_are_the_ones_beryl_reads() {
    let s = any();
    let mut root = keys(&s);
    root.sort_unstable();
    let mut reserved = crate::syntax::root::RESERVED.to_vec();
    reserved.sort_unstable();
    assert_eq!(root, reserved);
    assert_eq!(keys(def(&s, "Ssh")), crate::desired::access::SSH_KEYS);
    let become_words: Vec<&str> = crate::desired::access::BECOME
        .iter()
        .map(|row| row.0)
        .collect();
    assert_eq!(words(def(&s, "Become")), become_words);
}

#[test]
fn prefixed_keys_mirror_the_plain_ones() {
    let s = any();
    let freebsd = def(&s, "FreeBsd");
    for key in keys(freebsd) {
        let pattern = format!("^[~=]{}$", regex::escape(key));
        assert_eq!(
            freebsd["patternProperties"][&pattern], freebsd["properties"][key],
            "{pattern}"
        );
    }
    assert_eq!(
        s["patternProperties"]["^[~=]merge$"],
        serde_json::json!({ "not": {} })
    );
}

#[test]
fn the_levels_differ_only_in_their_root_keys() {
    let domain = level_file(Some(LevelKind::Domain));
    let host = level_file(Some(LevelKind::Host));
    assert_eq!(domain["$defs"], host["$defs"]);
    assert_eq!(domain["properties"]["ssh_keys"]["minItems"], 1);
    assert_eq!(host["properties"]["ssh_keys"]["not"], serde_json::json!({}));
    assert!(domain["allOf"].is_array(), "the domain keys are required");
    assert!(host.get("allOf").is_none());
    assert_eq!(host["additionalProperties"], true, "free-form keys");
    for level in [LevelKind::Default, LevelKind::Group, LevelKind::Host] {
        let s = level_file(Some(level));
        assert_eq!(s["properties"], host["properties"]);
    }
    // No null, no default, no schemars-only format anywhere.
    let text = serde_json::to_string(&any()).unwrap();
    assert!(!text.contains("\"default\":"), "a default");
    assert!(!text.contains("uint32"), "a format");
    assert!(!text.contains("\n"), "a wrapped description");
}

/// Every keyword the schema uses, walking its subschemas.
fn keywords(schema: &Value, out: &mut std::collections::BTreeSet<String>) {
    let Some(map) = schema.as_object() else {
        return;
    };
    for (key, value) in map {
        out.insert(key.clone());
        match key.as_str() {
            "properties" | "patternProperties" | "$defs" => {
                for sub in value.as_object().into_iter().flatten().map(|(_, v)| v) {
                    keywords(sub, out);
                }
            }
            "anyOf" | "oneOf" | "allOf" => {
                for sub in value.as_array().into_iter().flatten() {
                    keywords(sub, out);
                }
            }
            "additionalProperties" | "items" | "not" => keywords(value, out),
            _ => {}
        }
    }
}

/// The schema says 2020-12, but uses only keywords that mean the same in
/// draft 7, so that editors whose yaml-language-server only knows draft 7
/// (1.x releases) understand all of it. (`$defs` is only a place: `$ref`
/// reaches it by JSON pointer in both.)
#[test]
fn the_schema_uses_only_keywords_draft_7_shares() {
    const SHARED: &[&str] = &[
        "$schema",
        "title",
        "description",
        "type",
        "properties",
        "patternProperties",
        "additionalProperties",
        "required",
        "minProperties",
        "items",
        "minItems",
        "$defs",
        "$ref",
        "anyOf",
        "oneOf",
        "allOf",
        "not",
        "const",
        "enum",
        "pattern",
        "minLength",
        "minimum",
        "maximum",
    ];
    for level in [
        None,
        Some(LevelKind::Default),
        Some(LevelKind::Domain),
        Some(LevelKind::Group),
        Some(LevelKind::Host),
    ] {
        let mut used = std::collections::BTreeSet::new();
        keywords(&level_file(level), &mut used);
        let extra: Vec<&String> = used
            .iter()
            .filter(|k| !SHARED.contains(&k.as_str()))
            .collect();
        assert!(extra.is_empty(), "{level:?} uses {extra:?}");
    }
}
