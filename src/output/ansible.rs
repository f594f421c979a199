//! The inventory as Ansible's dynamic-inventory scripts give it
//! (`ansible-inventory` runs the script with `--list`, or `--host HOST`):
//! groups with their hosts and children, and `_meta.hostvars`, each host's
//! effective config plus the `ansible_*` variables of its `ssh:` block.
//!
//! Entry points: [`list`] and [`hostvars`].
//!
//! Groups (docs/ansible.md):
//!
//! | beryl | Ansible group | children |
//! |---|---|---|
//! | the inventory | `all` | the domain and class groups |
//! | domain `example.org` | `example_org` | its group groups |
//! | group `example.org/web` | `example_org_web` | |
//! | class `roles.web` | `class_roles_web` | |
//!
//! A name keeps ASCII letters, digits and `_`; any other character becomes
//! `_`, and a name starting with a digit gets a leading `_` (Ansible's rule
//! for a valid group name). Two groups that would get the same name are an
//! error naming both.

use std::collections::BTreeMap;

use crate::desired::access::{Become, Login};
use crate::diag::Diag;
use crate::value::{Entry, Map, Node, Span, Value};

crate::diag::codes! {
    /// The codes of `beryl ansible`.
    pub(crate) enum Code in "ansible" {
        /// Two domains, groups or classes whose Ansible group names are the same.
        GroupName = "group_name";
    }
}

/// Where a host stands: the groups it is in.
pub(crate) struct Member<'a> {
    pub fqdn: &'a str,
    pub domain: &'a str,
    pub group: Option<&'a str>,
    /// The classes its chain applies, in merge order.
    pub classes: &'a [String],
}

/// An Ansible group name for `name`.
pub(crate) fn group_name(name: &str) -> String {
    let mut out: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

/// The variables of one host: its effective config, then `ansible_host`,
/// `ansible_port`, `ansible_user`, and, when its `ssh:` block has them,
/// `ansible_ssh_private_key_file`, `ansible_become` and
/// `ansible_become_method`. The config's own keys of those names win. A
/// jail (`login` None) gets its config only.
pub(crate) fn hostvars(config: &Node, login: Option<&Login>) -> Node {
    let mut vars: Map = match &config.value {
        Value::Map(m) => m.clone(),
        _ => Map::new(),
    };
    let Some(l) = login else {
        return Node::synthetic(Value::Map(vars));
    };
    let mut extra: Vec<(&str, Node)> = vec![
        ("ansible_host", Node::str(l.host.clone())),
        (
            "ansible_port",
            Node::synthetic(Value::Int(i64::from(l.port))),
        ),
        ("ansible_user", Node::str(l.user.clone())),
    ];
    if let Some(file) = &l.identity_file {
        extra.push(("ansible_ssh_private_key_file", Node::str(file.clone())));
    }
    let method = match l.elevate {
        Become::Sudo => Some("sudo"),
        Become::Doas => Some("doas"),
        Become::None => None,
    };
    if let Some(method) = method {
        extra.push(("ansible_become", Node::synthetic(Value::Bool(true))));
        extra.push(("ansible_become_method", Node::str(method.to_string())));
    }
    for (key, node) in extra {
        if !vars.contains_key(key) {
            let key_span = Span::synthetic();
            vars.insert(key.to_string(), Entry { key_span, node });
        }
    }
    Node::synthetic(Value::Map(vars))
}

/// What `--list` prints for `hosts` (in the inventory's order), each with
/// its [`hostvars`]: the groups, then `_meta.hostvars`.
pub(crate) fn list(hosts: &[(Member<'_>, Node)]) -> Result<Node, Vec<Diag>> {
    // Group name → (what it stands for, hosts, children).
    let mut groups: BTreeMap<String, Group> = BTreeMap::new();
    let mut errors: Vec<Diag> = Vec::new();
    let mut clashes: Vec<String> = Vec::new();
    let mut add = |name: String, source: String, host: Option<&str>, child: Option<String>| {
        let g = groups.entry(name.clone()).or_insert_with(|| Group {
            source: source.clone(),
            hosts: Vec::new(),
            children: Vec::new(),
        });
        if g.source != source {
            if clashes.contains(&name) {
                return;
            }
            clashes.push(name.clone());
            errors.push(Diag::new(
                Code::GroupName,
                format!(
                    "{} and {source} would both be the Ansible group `{name}`",
                    g.source
                ),
            ).help("rename one of them: a group name keeps letters, digits and `_` (docs/ansible.md)"));
            return;
        }
        if let Some(h) = host
            && !g.hosts.iter().any(|x| x == h)
        {
            g.hosts.push(h.to_string());
        }
        if let Some(c) = child
            && !g.children.contains(&c)
        {
            g.children.push(c);
        }
    };
    for (h, _) in hosts {
        let domain = group_name(h.domain);
        let domain_source = format!("domain {}", h.domain);
        match h.group {
            Some(g) => {
                let name = group_name(&format!("{}_{g}", h.domain));
                add(
                    name.clone(),
                    format!("group {}/{g}", h.domain),
                    Some(h.fqdn),
                    None,
                );
                add(domain.clone(), domain_source, None, Some(name));
            }
            None => add(domain.clone(), domain_source, Some(h.fqdn), None),
        }
        add("all".into(), "the inventory".into(), None, Some(domain));
        for c in h.classes {
            let name = format!("class_{}", group_name(c));
            add(name.clone(), format!("class {c}"), Some(h.fqdn), None);
            add("all".into(), "the inventory".into(), None, Some(name));
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let mut top: Vec<(String, Node)> = groups
        .into_iter()
        .map(|(name, g)| {
            let mut fields = Vec::new();
            if !g.hosts.is_empty() {
                fields.push(("hosts".to_string(), strings(g.hosts)));
            }
            if !g.children.is_empty() {
                fields.push(("children".to_string(), strings(g.children)));
            }
            (name, super::mapping(fields))
        })
        .collect();
    let vars = hosts
        .iter()
        .map(|(h, vars)| (h.fqdn.to_string(), vars.clone()))
        .collect::<Vec<_>>();
    top.push((
        "_meta".into(),
        super::mapping([("hostvars".to_string(), super::mapping(vars))]),
    ));
    Ok(super::mapping(top))
}

struct Group {
    /// What the group stands for, for the error of a name taken twice.
    source: String,
    hosts: Vec<String>,
    children: Vec<String>,
}

fn strings(items: Vec<String>) -> Node {
    Node::synthetic(Value::Seq(items.into_iter().map(Node::str).collect()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn member<'a>(fqdn: &'a str, domain: &'a str, group: Option<&'a str>) -> (Member<'a>, Node) {
        let m = Member {
            fqdn,
            domain,
            group,
            classes: &[],
        };
        (m, Node::synthetic(Value::Null))
    }

    #[test]
    fn two_names_for_one_group_are_an_error() {
        let hosts = [
            member("a.a-b.example", "a-b.example", None),
            member("b.a.b.example", "a.b.example", None),
            member("c.a.b.example", "a.b.example", None),
        ];
        let errors = list(&hosts).unwrap_err();
        let messages: Vec<String> = errors.iter().map(|d| d.to_string()).collect();
        assert_eq!(
            messages,
            [
                "domain a-b.example and domain a.b.example would both be the Ansible group `a_b_example`"
            ]
        );
        // A group and a domain that sanitize alike clash too.
        let hosts = [
            member("a.x.example", "x.example", Some("web")),
            member("b.x.example.web", "x.example.web", None),
        ];
        assert!(list(&hosts).is_err());
        // Distinct names: no error, and `all` holds the domains.
        let hosts = [member("a.x.example", "x.example", Some("web"))];
        let doc = list(&hosts).unwrap();
        let all = doc.get("all").and_then(|a| a.get("children")).unwrap();
        assert_eq!(all.as_seq().unwrap()[0].as_str(), Some("x_example"));
    }

    #[test]
    fn group_names_are_what_ansible_accepts() {
        for (name, want) in [
            ("example.org", "example_org"),
            ("example.org_web", "example_org_web"),
            ("roles.web", "roles_web"),
            ("a-b.example", "a_b_example"),
            ("3com.example", "_3com_example"),
            ("", "_"),
            ("déjà.vu", "d_j__vu"),
        ] {
            assert_eq!(group_name(name), want, "{name}");
        }
    }
}
