//! The strategies other than `deep`: Beryl's own (`default`, `append`,
//! `concat`, `by_key`), Hiera's `first`, `unique` and `hash`, and RFC 7396
//! `patch`. Each takes the values written at one path, lowest priority first.

use indexmap::IndexMap;

use super::dialect::Kinds;
use super::spec::{Spec, Strategy};
use super::warn::Knockout;
use super::{Code, Contribs, Engine, order, written};
use crate::diag::Diag;
use crate::value::{Entry, Map, Node, Span, Value};

impl<'p> Engine<'p> {
    /// `default`, `append`, `concat`, `by_key`: folded lowest first, and a value
    /// of another kind replaces what was merged below it. Mappings merge key
    /// by key; lists follow the strategy; anything else is replaced.
    pub(super) fn layered(
        &mut self,
        spec: &'p Spec,
        inherited: &'p Spec,
        cs: &Contribs<'_>,
    ) -> Option<Node> {
        let values: Vec<&Node> = written(cs).collect();
        let top = *values.last()?;
        // The run of values that merge, ending at the top: beryl's is the
        // run of the top's kind, unbroken from the top down; reclass's
        // comes from its table, and may start with a scalar as a list.
        let lead;
        let run: Vec<&Node> = match self.policy.dialect().kinds {
            Kinds::Replace => {
                let start = values
                    .iter()
                    .rposition(|v| {
                        std::mem::discriminant(&v.value) != std::mem::discriminant(&top.value)
                    })
                    .map_or(0, |i| i + 1);
                values[start..].to_vec()
            }
            Kinds::Reclass(allow) => {
                let (start, prepend) = self.reclass_run(&allow, &values)?;
                lead = prepend.then(|| {
                    let first = values[start];
                    Node::new(Value::Seq(vec![self.whole(first)]), first.span.clone())
                });
                let from = start + usize::from(lead.is_some());
                lead.iter().chain(values[from..].iter().copied()).collect()
            }
        };
        let start = values.len() - run.len();
        let run = &run[..];
        match &top.value {
            Value::Map(_) => {
                // `by_key` addresses its items; below a mapping it merges like its parent.
                let below = if spec.kind == Strategy::ByKey {
                    inherited
                } else {
                    spec
                };
                // One mapping, merged by `default` all the way down: nothing
                // to merge it with, so it is taken whole (the same result,
                // without walking it key by key).
                if run.len() == 1
                    && spec.kind == Strategy::Default
                    && !self.path.is_empty()
                    && !self.policy.may_apply_within(&self.path)
                    && !super::prefixes::holds_reference(top)
                {
                    return Some(self.whole(top));
                }
                let target = self.target && start == 0 && cs.first().is_some_and(Option::is_some);
                Some(self.maps(run, below, false, target))
            }
            Value::Seq(_) => match spec.kind {
                Strategy::Append => Some(self.append(spec, run, true)),
                Strategy::Concat => Some(self.append(spec, run, false)),
                Strategy::ByKey => Some(self.by_key(spec, inherited, run)),
                Strategy::Default if self.policy.dialect().concat_lists => {
                    Some(self.append(spec, run, false))
                }
                _ => Some(self.whole(top)),
            },
            _ => Some(self.whole(top)),
        }
    }

    /// Merges mappings key by key; each child with the spec in force at its path.
    /// `target` tells whether `run[0]` is the lowest document's value.
    pub(super) fn maps(
        &mut self,
        run: &[&Node],
        inherited: &'p Spec,
        in_deep: bool,
        target: bool,
    ) -> Node {
        let events: Vec<Option<&Map>> = run.iter().map(|n| n.as_map()).collect();
        let span = run.first().map(|n| n.span.clone()).unwrap_or_default();
        let children = self.children(&events);
        let mut out = Map::with_capacity(children.len());
        let saved = std::mem::replace(&mut self.target, target);
        for (key, child) in children {
            self.target = target && !child.reset;
            if let Some(node) = self.child(&key, inherited, &child.cs, in_deep) {
                out.insert(
                    key,
                    Entry {
                        key_span: child.key_span,
                        node,
                    },
                );
            }
        }
        self.target = saved;
        Node::new(Value::Map(out), span)
    }

    /// `append` (deduplicated) and `concat`: lists concatenate, lowest first. A
    /// knockout item `--x` removes the string `x` from the levels below its own
    /// and is dropped.
    fn append(&mut self, spec: &Spec, run: &[&Node], dedup: bool) -> Node {
        let prefix = spec.knockout_prefix.as_deref().filter(|_| dedup);
        let mut out: Vec<Node> = Vec::new();
        for list in run {
            let items = list.as_seq().unwrap_or_default();
            fn knocked<'n>(item: &'n Node, prefix: Option<&str>) -> Option<&'n str> {
                item.as_str().and_then(|s| s.strip_prefix(prefix?))
            }
            for item in items {
                let Some(target) = knocked(item, prefix) else {
                    continue;
                };
                let before = out.len();
                out.retain(|n| n.as_str() != Some(target));
                if out.len() == before {
                    let k = Knockout {
                        written: item.as_str().unwrap_or_default().to_string(),
                        target,
                        span: &item.span,
                        what: "lists",
                    };
                    let below = out.iter().filter_map(|n| Some((n.as_str()?, &n.span)));
                    self.knockout_unused(&k, below);
                }
            }
            for item in items.iter().filter(|i| knocked(i, prefix).is_none()) {
                let item = self.whole(item);
                out.push(item);
            }
        }
        if dedup {
            order::dedup(&mut out);
        }
        Node::new(
            Value::Seq(out),
            run.last().map(|n| n.span.clone()).unwrap_or_default(),
        )
    }

    /// `by_key`: items are mappings identified by their `key` field; items with
    /// the same key merge (their fields under `<path>.<key value>`), new ones
    /// append, and `key: --x` removes item `x` from the levels below.
    fn by_key(&mut self, spec: &Spec, inherited: &'p Spec, run: &[&Node]) -> Node {
        let prefix = spec.knockout_prefix.as_deref();
        let mut items: IndexMap<String, Vec<Option<&Node>>> = IndexMap::new();
        for list in run {
            let mut own: Vec<(&str, &Node)> = Vec::new();
            for (index, item) in list.as_seq().unwrap_or_default().iter().enumerate() {
                let Some(id) = self.item_key(item, &spec.key, index) else {
                    continue;
                };
                match prefix.and_then(|p| id.strip_prefix(p)) {
                    Some(target) => {
                        if items.shift_remove(target).is_none() {
                            let field = |n: &Node| n.get(&spec.key).map(|k| k.span.clone());
                            let k = Knockout {
                                written: format!("{}: {id}", spec.key),
                                target,
                                span: &field(item).unwrap_or_else(|| item.span.clone()),
                                what: "defines the item",
                            };
                            let below: Vec<(&str, Span)> = items
                                .iter()
                                .filter_map(|(id, cs)| {
                                    Some((id.as_str(), field(cs.iter().flatten().next()?)?))
                                })
                                .collect();
                            self.knockout_unused(&k, below.iter().map(|(t, s)| (*t, s)));
                        }
                    }
                    None => match own.iter().find(|(other, _)| *other == id) {
                        Some((_, first)) => self.named_twice(&spec.key, id, first, item),
                        None => own.push((id, item)),
                    },
                }
            }
            // Knockouts reach the levels below only, whatever their position.
            for (id, item) in own {
                items.entry(id.to_string()).or_default().push(Some(item));
            }
        }
        let mut out = Vec::with_capacity(items.len());
        let saved = std::mem::replace(&mut self.target, false);
        for (id, cs) in items {
            out.extend(self.child(&id, inherited, &cs, false));
        }
        self.target = saved;
        Node::new(
            Value::Seq(out),
            run.last().map(|n| n.span.clone()).unwrap_or_default(),
        )
    }

    /// An item named twice in one level: the two would merge silently, the
    /// second's fields over the first's, and one of them is surely a slip.
    fn named_twice(&mut self, key: &str, id: &str, first: &Node, again: &Node) {
        let at = |n: &Node| {
            n.get(key)
                .map_or_else(|| n.span.clone(), |k| k.span.clone())
        };
        let path = crate::syntax::path::display(&self.path);
        let list = if path.is_empty() {
            "the root list"
        } else {
            &path
        };
        self.diags.push(
            Diag::new(
                Code::DuplicateItem,
                format!("`{key}: {id}` is given twice in one level of {list}"),
            )
            .label(&at(again), "given again here")
            .label(&at(first), "first given here")
            .help(format!(
                "write `{key}: {id}` once in this file and put all its fields there; a level above may still change it"
            )),
        );
    }

    /// The identifying field of a by-key item, or an error at the item.
    fn item_key<'n>(&mut self, item: &'n Node, key: &str, index: usize) -> Option<&'n str> {
        let path = if self.path.is_empty() {
            format!("item {index} of the root list")
        } else {
            crate::syntax::path::item(&crate::syntax::path::display(&self.path), index)
        };
        let problem = match &item.value {
            Value::Map(m) => match m.get(key).map(|e| &e.node) {
                Some(Node {
                    value: Value::Str(s),
                    ..
                }) if !s.is_empty() => return Some(s),
                Some(n) => {
                    let found = n.value.type_name();
                    let d = Diag::new(
                        Code::ItemKey,
                        format!("{path}: `{key}` must be a non-empty string, found {found}"),
                    )
                    .label(&n.span, format!("`{key}` must be a string"));
                    self.diags.push(d);
                    return None;
                }
                None => format!("{path} has no `{key}`"),
            },
            other => format!(
                "{path} must be a mapping with a `{key}`, found {}",
                other.type_name()
            ),
        };
        let d = Diag::new(Code::ItemKey, problem)
            .label(&item.span, format!("this item needs a `{key}`"))
            .help(format!(
                "items of this list are merged by their `{key}` field"
            ));
        self.diags.push(d);
        None
    }

    /// Hiera `first`: the highest-priority value, whole, whatever its type.
    pub(super) fn first(&mut self, cs: &Contribs<'_>) -> Option<Node> {
        let top = written(cs).next_back()?;
        let mut out = self.whole(top);
        self.drop_table(&mut out);
        Some(out)
    }

    /// Hiera `unique`: every list flattened, with the scalars, into one list,
    /// highest priority first, without duplicates. A mapping is an error.
    pub(super) fn unique(&mut self, spec: &Spec, cs: &Contribs<'_>) -> Option<Node> {
        let mut out = Vec::new();
        let mut span = None;
        for value in written(cs).rev() {
            if let Value::Map(_) = value.value {
                self.diags.push(
                    Diag::new(
                        Code::Type,
                        format!("{}: unique merge cannot merge hash values", self.here()),
                    )
                    .label(&value.span, "a mapping")
                    .help("`unique` merges lists and scalars; use `deep` or `hash` for mappings"),
                );
                continue;
            }
            span.get_or_insert_with(|| value.span.clone());
            let mut flat = Vec::new();
            order::flatten_into(value, &mut flat);
            out.extend(flat.iter().map(|n| self.whole(n)));
        }
        order::dedup(&mut out);
        if spec.sort_merged_arrays {
            order::sort(&mut out);
        }
        Some(Node::new(Value::Seq(out), span.unwrap_or_default()))
    }

    /// Hiera `hash`: a shallow merge; the highest level that sets a key gives
    /// its value whole, and keys keep the order of the lowest level.
    pub(super) fn hash(&mut self, cs: &Contribs<'_>) -> Option<Node> {
        let values: Vec<&Node> = written(cs).collect();
        let mut maps = Vec::with_capacity(values.len());
        for value in &values {
            match value.as_map() {
                Some(m) => maps.push(Some(m)),
                None => self.diags.push(
                    Diag::new(
                        Code::Type,
                        format!(
                            "{}: hash merge requires hash values, found {}",
                            self.here(),
                            value.value.type_name()
                        ),
                    )
                    .label(&value.span, "not a mapping")
                    .help("`hash` merges mappings only; use `first` to let any value win"),
                ),
            }
        }
        let children = self.children(&maps);
        let mut out = Map::with_capacity(children.len());
        for (key, child) in children {
            if let Some(top) = written(&child.cs).next_back() {
                let node = self.whole(top);
                out.insert(
                    key,
                    Entry {
                        key_span: child.key_span,
                        node,
                    },
                );
            }
        }
        let span = values.first().map(|n| n.span.clone()).unwrap_or_default();
        Some(Node::new(Value::Map(out), span))
    }

    /// RFC 7396, one level at a time: the lowest document is the target and
    /// every higher one a patch. A null member deletes, a mapping merges,
    /// anything else replaces (so lists are replaced whole).
    pub(super) fn patch(
        &mut self,
        spec: &'p Spec,
        cs: &Contribs<'_>,
        member: bool,
    ) -> Option<Node> {
        let target = self.target && cs.first().is_some_and(Option::is_some);
        let values: Vec<&Node> = written(cs).collect();
        // A null member deletes what was merged below it; the target's own
        // nulls are data.
        let start = if member {
            (0..values.len())
                .rev()
                .find(|&i| matches!(values[i].value, Value::Null) && !(target && i == 0))
                .map_or(0, |i| i + 1)
        } else {
            0
        };
        // The value a null deletes (or, at the root, replaces).
        let deleting = if start > 0 {
            start - 1
        } else {
            values.len().saturating_sub(1)
        };
        if let (Some(null), Some(wiped)) = (
            values
                .get(deleting)
                .filter(|v| matches!(v.value, Value::Null)),
            values[..deleting]
                .iter()
                .rev()
                .find(|v| !matches!(v.value, Value::Null)),
        ) && (member || start == 0)
        {
            self.empty_patch(null, wiped, member);
        }
        let top = *values[start..].last()?;
        if !matches!(top.value, Value::Map(_)) {
            return Some(self.whole(top));
        }
        // A mapping merges onto the mappings below it, up to the last non-mapping.
        let begin = values[start..]
            .iter()
            .rposition(|v| !matches!(v.value, Value::Map(_)))
            .map_or(start, |i| start + i + 1);
        Some(self.maps(&values[begin..], spec, false, target && begin == 0))
    }

    /// The current path, for messages.
    pub(super) fn here(&self) -> String {
        if self.path.is_empty() {
            "the root".into()
        } else {
            crate::syntax::path::display(&self.path)
        }
    }

    /// At the root, a value taken whole must not carry the merge table.
    fn drop_table(&self, node: &mut Node) {
        if self.path.is_empty()
            && let Value::Map(m) = &mut node.value
        {
            for key in self.policy.table_keys() {
                m.shift_remove(*key);
            }
        }
    }
}
