//! The real reclass inventories of ../shared/realworld (SOURCES.txt names
//! each repository and commit), each with the options its users give
//! reclass. A root is compared as its users run it: `beryl reclass` gets
//! the command line (`args`), kapicorp-reclass the same settings through
//! its own Core (`oracle`).

use serde_json::{Value as J, json};

pub struct Root {
    /// The name in the agreement table and in tests/peers/reclass-real.yml.
    pub name: &'static str,
    /// The inventory base, under ../shared/realworld.
    pub base: &'static str,
    /// `beryl reclass`'s options, before `--nodeinfo NODE -o json`.
    pub args: &'static [&'static str],
    /// kapicorp's request (tests/peers/reclass_nodeinfo.py), less `base`.
    pub oracle: fn() -> J,
    /// A config file the test writes (for options reclass reads only from
    /// one, such as `class_mappings`): `--config FILE` for beryl, `config`
    /// for the oracle.
    pub config: Option<&'static str>,
}

/// Kapitan's reclass settings (kapitan/inventory/backends/reclass:
/// `get_reclass_config`): targets/ as the nodes, none may override.
const KAPITAN_ARGS: &[&str] = &["--nodes-uri", "targets", "--allow-none-override"];

fn kapitan() -> J {
    json!({"nodes_uri": "targets", "settings": {"allow_none_override": true}})
}

/// reclass-rs's own comparison with kapicorp
/// (tests/test_with_kapicorp_reclass.py) runs its inventories so.
const RRS_ARGS: &[&str] = &["--allow-none-override", "--ignore-class-notfound", "true"];

fn rrs() -> J {
    json!({"settings": {"allow_none_override": true, "ignore_class_notfound": true}})
}

/// An inventory that carries its `reclass-config.yml` (Kapitan's and
/// reclass-rs's name for it): beryl finds it itself; the oracle is told.
fn config() -> J {
    json!({"config": "reclass-config.yml"})
}

fn plain() -> J {
    json!({})
}

pub const ROOTS: &[Root] = &[
    Root {
        name: "kr-examples",
        base: "kapicorp-reclass/examples",
        args: &[],
        oracle: plain,
        config: None,
    },
    Root {
        name: "kr-data-01",
        base: "kapicorp-reclass/reclass/tests/data/01",
        args: &[],
        oracle: plain,
        config: None,
    },
    Root {
        name: "kr-data-02",
        base: "kapicorp-reclass/reclass/tests/data/02",
        args: &[],
        oracle: plain,
        config: None,
    },
    Root {
        name: "kr-data-03",
        base: "kapicorp-reclass/reclass/tests/data/03",
        args: &["--compose-node-name"],
        oracle: || json!({"settings": {"compose_node_name": true}}),
        config: None,
    },
    Root {
        name: "kr-data-04",
        base: "kapicorp-reclass/reclass/tests/data/04",
        args: &[],
        oracle: plain,
        // reclass's own test of class mappings (reclass/tests/test_core.py).
        config: Some(
            "class_mappings_match_path: true\nclass_mappings:\n  - node*    two\n  - alpha/node*    three\n",
        ),
    },
    Root {
        name: "kr-data-05",
        base: "kapicorp-reclass/reclass/tests/data/05",
        args: &[],
        oracle: plain,
        config: None,
    },
    Root {
        name: "kr-data-06",
        base: "kapicorp-reclass/reclass/tests/data/06",
        args: &[],
        oracle: plain,
        config: None,
    },
    Root {
        name: "kr-model-default",
        base: "kapicorp-reclass/test/model/default",
        args: &[],
        oracle: config,
        config: None,
    },
    Root {
        name: "kr-model-extensions",
        base: "kapicorp-reclass/test/model/extensions",
        args: &[],
        oracle: config,
        config: None,
    },
    Root {
        name: "rrs-inventory",
        base: "reclass-rs/tests/inventory",
        args: &[],
        oracle: config,
        config: None,
    },
    Root {
        name: "rrs-class-mapping",
        base: "reclass-rs/tests/inventory-class-mapping",
        args: &[],
        oracle: config,
        config: None,
    },
    Root {
        name: "rrs-class-notfound-regexp",
        base: "reclass-rs/tests/inventory-class-notfound-regexp",
        args: &[],
        oracle: config,
        config: None,
    },
    Root {
        name: "rrs-compose-node-name",
        base: "reclass-rs/tests/inventory-compose-node-name",
        args: &[],
        oracle: config,
        config: None,
    },
    Root {
        name: "rrs-nested-nodes",
        base: "reclass-rs/tests/inventory-nested-nodes",
        args: RRS_ARGS,
        oracle: rrs,
        config: None,
    },
    Root {
        name: "rrs-reference-default-values",
        base: "reclass-rs/tests/inventory-reference-default-values",
        args: RRS_ARGS,
        oracle: rrs,
        config: None,
    },
    Root {
        name: "kapitan-kubernetes",
        base: "kapitan/examples/kubernetes/inventory",
        args: KAPITAN_ARGS,
        oracle: kapitan,
        config: None,
    },
    Root {
        name: "kapitan-reclass",
        base: "kapitan/examples/reclass/inventory",
        args: KAPITAN_ARGS,
        oracle: kapitan,
        config: None,
    },
    Root {
        name: "kapitan-terraform",
        base: "kapitan/examples/terraform/inventory",
        args: KAPITAN_ARGS,
        oracle: || {
            let mut j = kapitan();
            j["config"] = json!("reclass-config.yml");
            j
        },
        config: None,
    },
    Root {
        name: "kapitan-test-resources",
        base: "kapitan/tests/test_resources/inventory",
        args: KAPITAN_ARGS,
        oracle: kapitan,
        config: None,
    },
    Root {
        name: "kapitan-reference",
        base: "kapitan-reference/inventory",
        args: KAPITAN_ARGS,
        oracle: kapitan,
        config: None,
    },
    Root {
        name: "salt-model",
        base: "workshop-salt-model",
        args: &[],
        oracle: plain,
        config: None,
    },
    Root {
        name: "salt-model+formulas",
        base: "workshop-salt-model+formulas",
        args: &[],
        oracle: plain,
        config: None,
    },
];
