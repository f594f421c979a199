//! The inheritance graph of an inventory: `_default` → domains → groups →
//! hosts, as Graphviz DOT or Mermaid.
//!
//! Entry point: [`Graph::of`] builds the graph of the whole inventory, or of
//! the chains of some hosts; [`Graph::to_dot`] and [`Graph::to_mermaid`]
//! write it. Nodes are labelled with their file (hosts with their FQDN too),
//! edges with the level they lead to. The order is the inventory's (domains,
//! groups and hosts sorted by name), so the output is the same on every run.

use crate::inventory::{Host, Inventory};

/// What a node stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NodeKind {
    Default,
    Domain,
    /// A group with a `_group.yml`.
    Group,
    /// A group directory without `_group.yml`: it adds no level to the chain.
    GroupWithoutFile,
    Host,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct GraphNode {
    /// Unique and stable: `default`, `domain:D`, `group:D/G`, `host:FQDN`.
    pub id: String,
    pub kind: NodeKind,
    /// The lines of the label: the file relative to the inventory root, and
    /// for a host its FQDN first.
    pub label: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Edge {
    pub from: String,
    pub to: String,
    /// The level the edge leads to: `domain`, `group` or `host`.
    pub level: &'static str,
}

#[derive(Debug, Default)]
pub(crate) struct Graph {
    pub nodes: Vec<GraphNode>,
    pub edges: Vec<Edge>,
}

impl Graph {
    /// The graph of `hosts`' chains (every host of the inventory when
    /// `hosts` is `None`), with the domains and groups they go through.
    pub(crate) fn of(inventory: &Inventory, hosts: Option<&[&Host]>) -> Graph {
        let keep = |h: &Host| hosts.is_none_or(|hs| hs.iter().any(|x| x.fqdn == h.fqdn));
        let kept: Vec<&Host> = inventory.hosts.iter().filter(|h| keep(h)).collect();
        let mut g = Graph::default();
        g.nodes.push(GraphNode {
            id: "default".into(),
            kind: NodeKind::Default,
            label: vec![inventory.default.rel.clone()],
        });
        for domain in &inventory.domains {
            let in_domain: Vec<&&Host> = kept.iter().filter(|h| h.domain == domain.name).collect();
            // A domain without hosts is drawn for the whole inventory only.
            if hosts.is_some() && in_domain.is_empty() {
                continue;
            }
            let domain_id = format!("domain:{}", domain.name);
            g.nodes.push(GraphNode {
                id: domain_id.clone(),
                kind: NodeKind::Domain,
                label: vec![domain.file.rel.clone()],
            });
            g.edge("default", &domain_id, "domain");
            for group in inventory.groups.iter().filter(|x| x.domain == domain.name) {
                let members: Vec<&&&Host> = in_domain
                    .iter()
                    .filter(|h| h.group.as_deref() == Some(group.name.as_str()))
                    .collect();
                if hosts.is_some() && members.is_empty() {
                    continue;
                }
                let group_id = format!("group:{}/{}", domain.name, group.name);
                let (kind, label) = match &group.file {
                    Some(f) => (NodeKind::Group, f.rel.clone()),
                    None => (
                        NodeKind::GroupWithoutFile,
                        format!("{}/{}/ (no _group.yml)", domain.name, group.name),
                    ),
                };
                g.nodes.push(GraphNode {
                    id: group_id.clone(),
                    kind,
                    label: vec![label],
                });
                g.edge(&domain_id, &group_id, "group");
                for host in members {
                    g.host(host, &group_id);
                }
            }
            for host in in_domain.iter().filter(|h| h.group.is_none()) {
                g.host(host, &domain_id);
            }
        }
        // A reclass node has no domain: it hangs from the nodes folder.
        for host in kept.iter().filter(|h| h.domain.is_empty()) {
            g.host(host, "default");
        }
        g
    }

    fn host(&mut self, host: &Host, parent: &str) {
        let id = format!("host:{}", host.fqdn);
        self.nodes.push(GraphNode {
            id: id.clone(),
            kind: NodeKind::Host,
            label: vec![host.fqdn.clone(), host.file.rel.clone()],
        });
        self.edge(parent, &id, "host");
    }

    fn edge(&mut self, from: &str, to: &str, level: &'static str) {
        self.edges.push(Edge {
            from: from.into(),
            to: to.into(),
            level,
        });
    }

    /// Graphviz DOT: `dot -Tsvg` draws it.
    pub(crate) fn to_dot(&self) -> String {
        let mut out = String::from(
            "// The inheritance graph of a beryl inventory: each host's chain is the path\n\
             // from _default.yml to it. Render with: dot -Tsvg -o graph.svg\n\
             digraph beryl {\n  \
             rankdir=LR;\n  \
             node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=11];\n  \
             edge [fontname=\"Helvetica\", fontsize=9, color=\"#555555\", fontcolor=\"#555555\"];\n",
        );
        for n in &self.nodes {
            let (fill, extra) = match n.kind {
                NodeKind::Default => ("#d9d9d9", ""),
                NodeKind::Domain => ("#cfe2f3", ""),
                NodeKind::Group => ("#fff2cc", ""),
                NodeKind::GroupWithoutFile => ("#ffffff", ", style=\"rounded,dashed\""),
                NodeKind::Host => ("#ffffff", ", shape=note, style=filled"),
            };
            out.push_str(&format!(
                "  {} [label={}, fillcolor=\"{fill}\"{extra}];\n",
                dot_quote(&n.id),
                dot_quote(&n.label.join("\n"))
            ));
        }
        for e in &self.edges {
            out.push_str(&format!(
                "  {} -> {} [label={}];\n",
                dot_quote(&e.from),
                dot_quote(&e.to),
                dot_quote(e.level)
            ));
        }
        out.push_str("}\n");
        out
    }

    /// A Mermaid flowchart, for Markdown viewers that draw Mermaid.
    pub(crate) fn to_mermaid(&self) -> String {
        let ids: std::collections::HashMap<&str, String> = self
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.id.as_str(), format!("n{i}")))
            .collect();
        let mut out = String::from("flowchart LR\n");
        for n in &self.nodes {
            let label = mermaid_quote(&n.label.join("<br/>"));
            let id = &ids[n.id.as_str()];
            out.push_str(&match n.kind {
                NodeKind::Host => format!("  {id}[\"{label}\"]\n"),
                _ => format!("  {id}(\"{label}\")\n"),
            });
        }
        for e in &self.edges {
            out.push_str(&format!(
                "  {} -->|{}| {}\n",
                ids[e.from.as_str()],
                e.level,
                ids[e.to.as_str()]
            ));
        }
        for (kind, class, style) in [
            (
                NodeKind::Default,
                "default_level",
                "fill:#d9d9d9,stroke:#555",
            ),
            (NodeKind::Domain, "domain", "fill:#cfe2f3,stroke:#555"),
            (NodeKind::Group, "group", "fill:#fff2cc,stroke:#555"),
            (
                NodeKind::GroupWithoutFile,
                "group_without_file",
                "fill:#fff,stroke:#555,stroke-dasharray:4",
            ),
            (NodeKind::Host, "host", "fill:#fff,stroke:#555"),
        ] {
            let members: Vec<&str> = self
                .nodes
                .iter()
                .filter(|n| n.kind == kind)
                .map(|n| ids[n.id.as_str()].as_str())
                .collect();
            if !members.is_empty() {
                out.push_str(&format!("  classDef {class} {style}\n"));
                out.push_str(&format!("  class {} {class}\n", members.join(",")));
            }
        }
        out
    }
}

/// A DOT double-quoted string; a newline becomes a centred line break.
fn dot_quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Text inside a Mermaid `"…"` label: quotes and angle brackets as entities
/// (the `<br/>` line breaks are added after).
fn mermaid_quote(s: &str) -> String {
    s.split("<br/>")
        .map(|part| {
            part.replace('&', "#amp;")
                .replace('"', "#quot;")
                .replace('<', "#lt;")
                .replace('>', "#gt;")
        })
        .collect::<Vec<_>>()
        .join("<br/>")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting() {
        assert_eq!(dot_quote("a\"b\\c\nd"), r#""a\"b\\c\nd""#);
        assert_eq!(
            mermaid_quote("a<b>\"c\"<br/>d"),
            "a#lt;b#gt;#quot;c#quot;<br/>d"
        );
    }

    #[test]
    fn dot_and_mermaid_draw_the_same_graph() {
        let g = Graph {
            nodes: vec![
                GraphNode {
                    id: "default".into(),
                    kind: NodeKind::Default,
                    label: vec!["_default.yml".into()],
                },
                GraphNode {
                    id: "domain:x.org".into(),
                    kind: NodeKind::Domain,
                    label: vec!["x.org/_domain.yml".into()],
                },
                GraphNode {
                    id: "host:a.x.org".into(),
                    kind: NodeKind::Host,
                    label: vec!["a.x.org".into(), "x.org/a.yml".into()],
                },
            ],
            edges: vec![
                Edge {
                    from: "default".into(),
                    to: "domain:x.org".into(),
                    level: "domain",
                },
                Edge {
                    from: "domain:x.org".into(),
                    to: "host:a.x.org".into(),
                    level: "host",
                },
            ],
        };
        let dot = g.to_dot();
        assert!(
            dot.contains("\"default\" -> \"domain:x.org\" [label=\"domain\"];"),
            "{dot}"
        );
        assert!(dot.contains("[label=\"a.x.org\\nx.org/a.yml\""), "{dot}");
        let mermaid = g.to_mermaid();
        assert!(mermaid.starts_with("flowchart LR\n"), "{mermaid}");
        assert!(mermaid.contains("  n0 -->|domain| n1\n"), "{mermaid}");
        assert!(
            mermaid.contains("  n2[\"a.x.org<br/>x.org/a.yml\"]\n"),
            "{mermaid}"
        );
    }
}
