use super::*;

/// (fqdn, short, domain, group)
const HOSTS: &[(&str, &str, &str, Option<&str>)] = &[
    ("mail.a.org", "mail", "a.org", None),
    ("www.a.org", "www", "a.org", Some("web")),
    ("www2.a.org", "www2", "a.org", Some("web")),
    ("www.b.org", "www", "b.org", None),
];

fn universe() -> Universe<'static> {
    let mut u = Universe::of_hosts(
        HOSTS
            .iter()
            .map(|&(fqdn, short, domain, group)| Candidate {
                fqdn,
                short,
                domain,
                group,
            })
            .collect(),
    );
    // A domain and a group without hosts.
    u.domains.insert("c.org");
    u.groups.insert(("a.org", "db"));
    u
}

/// The classes of each host of HOSTS: www and www2 are web servers, www
/// through `roles.base` included by `roles.web`.
fn classes(i: usize) -> Result<Vec<String>, Diags> {
    Ok(match i {
        1 => vec!["roles.base".into(), "roles.web".into()],
        2 => vec!["roles.web".into()],
        _ => vec![],
    })
}

fn select(texts: &[&str]) -> Result<Vec<&'static str>, Vec<(String, String)>> {
    let texts: Vec<String> = texts.iter().map(|t| t.to_string()).collect();
    match resolve(&universe(), &texts, &classes) {
        Ok(found) => Ok(found.into_iter().map(|i| HOSTS[i].0).collect()),
        Err(diags) => Err(diags
            .into_iter()
            .map(|d| (d.code.to_string(), d.help.unwrap_or_default()))
            .collect()),
    }
}

/// Each row: selectors and the FQDNs they select, in order.
#[test]
fn each_form_selects() {
    for (texts, want) in [
        (&["www.b.org"][..], &["www.b.org"][..]),
        (&["WWW.B.ORG"], &["www.b.org"]),
        (&["a.org/www"], &["www.a.org"]),
        (&["a.org/web/www"], &["www.a.org"]),
        (&["a.org/"], &["mail.a.org", "www.a.org", "www2.a.org"]),
        (&["a.org/web/"], &["www.a.org", "www2.a.org"]),
        (&["www*"], &["www.a.org", "www2.a.org", "www.b.org"]),
        (&["www?"], &["www2.a.org"]),
        (&["*.b.org"], &["www.b.org"]),
        (&["a.org/*"], &["mail.a.org", "www.a.org", "www2.a.org"]),
        (&["a.org/web/*"], &["www.a.org", "www2.a.org"]),
        (&["class:roles.web"], &["www.a.org", "www2.a.org"]),
        (&["class:roles.base"], &["www.a.org"]),
        // The union, in the order given, each host once.
        (
            &["www.b.org", "a.org/", "mail"],
            &["www.b.org", "mail.a.org", "www.a.org", "www2.a.org"],
        ),
        (
            &["class:roles.web", "www*"],
            &["www.a.org", "www2.a.org", "www.b.org"],
        ),
    ] {
        assert_eq!(select(texts).as_deref(), Ok(want), "{texts:?}");
    }
}

/// Each row: a selector, the error's code and help.
#[test]
fn each_miss_has_a_help() {
    for (text, code, help) in [
        (
            "www",
            "beryl::select::ambiguous",
            "give the FQDN or DOMAIN/SHORT, or select them all with the glob 'www.*'",
        ),
        ("mial", "beryl::select::unknown", "did you mean `mail`?"),
        (
            "zzz",
            "beryl::select::unknown",
            "`beryl hosts` lists the hosts of the inventory",
        ),
        (
            "a.org",
            "beryl::select::unknown",
            "`a.org` is a domain: `a.org/` selects its hosts",
        ),
        (
            "web",
            "beryl::select::unknown",
            "`web` is a group of a.org: `a.org/web/` selects its hosts",
        ),
        (
            "a.org/web",
            "beryl::select::unknown",
            "`a.org/web` is a group of a.org: `a.org/web/` selects its hosts",
        ),
        (
            "b.org/web/www",
            "beryl::select::unknown_group",
            "b.org has no groups",
        ),
        (
            "a.org/webs/",
            "beryl::select::unknown_group",
            "did you mean `web`?",
        ),
        (
            "a.org/x/",
            "beryl::select::unknown_group",
            "the groups of a.org are: db, web",
        ),
        (
            "a.orgg/",
            "beryl::select::unknown_domain",
            "did you mean `a.org` or `b.org` or `c.org`?",
        ),
        (
            "zz/mail",
            "beryl::select::unknown_domain",
            "the domains are: a.org, b.org, c.org",
        ),
        (
            "c.org/",
            "beryl::select::empty",
            "`beryl hosts` lists the hosts with their domain and group",
        ),
        (
            "a.org/db/",
            "beryl::select::empty",
            "`beryl hosts` lists the hosts with their domain and group",
        ),
        (
            "db*",
            "beryl::select::no_match",
            "a glob is matched against each host's short name, FQDN, DOMAIN/SHORT and DOMAIN/GROUP/SHORT; `beryl hosts` lists them",
        ),
        (
            "class:roles.wbe",
            "beryl::select::unknown_class",
            "did you mean `roles.web` or `roles.base`?",
        ),
        (
            "class:x",
            "beryl::select::unknown_class",
            "the classes of the hosts are: roles.base, roles.web",
        ),
        (
            "a/b/c/d",
            "beryl::select::syntax",
            "a selector is one of: class:roles.web, 'web*', example.org/, example.org/web/, host01, host01.example.org, example.org/host01, example.org/web/host01",
        ),
    ] {
        assert_eq!(
            select(&[text]),
            Err(vec![(code.to_string(), help.to_string())]),
            "{text}"
        );
    }
}

/// Every selector that selects nothing is reported.
#[test]
fn every_miss_is_reported() {
    let errors = select(&["nope", "mail", "mial", "a/b/c/d"]).unwrap_err();
    let codes: Vec<&str> = errors.iter().map(|e| e.0.as_str()).collect();
    assert_eq!(
        codes,
        [
            "beryl::select::syntax",
            "beryl::select::unknown",
            "beryl::select::unknown"
        ]
    );
}

/// A host whose classes cannot be computed fails a class selector, with its
/// own errors first; the class lists are not computed without one.
#[test]
fn class_lists_are_computed_only_for_class_selectors() {
    let broken = |i: usize| match i {
        0 => Err(vec![crate::diag::Diag::new(
            crate::classes::Code::NotFound,
            "gone",
        )]),
        _ => Ok(vec![]),
    };
    let texts = ["class:roles.web".to_string()];
    let codes: Vec<&str> = resolve(&universe(), &texts, &broken)
        .unwrap_err()
        .iter()
        .map(|d| d.code)
        .collect();
    assert_eq!(
        codes,
        ["beryl::classes::not_found", "beryl::select::classes"]
    );
    let panics = |_: usize| -> Result<Vec<String>, Diags> { panic!("asked for classes") };
    assert!(resolve(&universe(), &["a.org/".to_string()], &panics).is_ok());
}

/// A host on both sides of a diff is listed twice: it is one host, and
/// selected once.
#[test]
fn a_host_listed_twice_is_one_host() {
    let mut u = universe();
    u.hosts.push(u.hosts[0].clone());
    let found = resolve(&u, &["mail".to_string(), "a.org/".to_string()], &|_| {
        Ok(vec![])
    })
    .unwrap();
    assert_eq!(found, [0, 1, 2]);
}

#[test]
fn one_host_or_the_list() {
    let u = universe();
    assert_eq!(one(&u, "mail", "explain", &classes).unwrap(), 0);
    let several = one(&u, "a.org/web/", "explain", &classes).unwrap_err();
    assert_eq!(several[0].code, "beryl::select::several");
    assert_eq!(
        several[0].message,
        "`a.org/web/` selects 2 hosts, and `beryl explain` takes one:\n  www.a.org\n  www2.a.org"
    );
}

/// Each row: selectors, and whether they name one host by name.
#[test]
fn only_a_single_name_names_one_host() {
    for (texts, want) in [
        (&["host01"][..], true),
        (&["example.org/web/host01"], true),
        (&["host01", "host02"], false),
        (&["example.org/web/"], false),
        (&["host0?"], false),
        (&["class:roles.web"], false),
        (&[], false),
    ] {
        let texts: Vec<String> = texts.iter().map(|t| t.to_string()).collect();
        assert_eq!(names_one(&texts), want, "{texts:?}");
    }
}
