//! The Hiera 5 control repository (mergwyn-control-repo) as Puppet and as
//! beryl see it, built in a temp dir at test time. The data is never copied
//! into the project.
//!
//! The mapping, for each node:
//!
//! - **Puppet**: environments `production` and `development`, each holding
//!   [`HIERA_YAML`] (the repository's hiera.yaml less its `Secure` level,
//!   which reads secrets.yaml through `eyaml_lookup_key`: its values are
//!   PKCS7 ciphertext and no key of it is looked up) and `data`, a symbolic
//!   link to the repository's data. The node's facts are [`NODES`]; its
//!   `trusted` hash travels as a `trusted` fact, which `puppet lookup`
//!   resurrects as `$trusted` (docs in tests/peers/lookup.rb).
//! - **beryl**: `inventory/_default.yml` is an empty mapping and
//!   `theclarkhome.com/_domain.yml` holds only the domain's `ssh_keys`
//!   (required by beryl); every data file becomes the class
//!   `hiera.<path>` (`os/Ubuntu/22.04.yaml` is `hiera.os.Ubuntu.22_04`: `/`
//!   becomes `.`, a `.` inside a name `_`), its text unchanged but for one
//!   rename (below). The host file `theclarkhome.com/<short>.yml` holds only
//!   `classes:`, the node's hierarchy paths that exist, lowest priority first
//!   (the reverse of Hiera's search order), so its own node file is the last
//!   class. A path that does not exist is no level, as in Hiera.
//! - **Rename**: the repository uses `classes` as Hiera data (Puppet class
//!   names); in beryl `classes` is the class list. Its copy calls the key
//!   [`CLASSES_AS`] (also in the `^classes(.*)$` lookup_options pattern),
//!   and the test looks `classes` up in Puppet and [`CLASSES_AS`] in beryl.

use std::path::Path;

use serde_json::{Value as J, json};

use crate::support::write;

pub const DOMAIN: &str = "theclarkhome.com";
/// Where beryl's copy keeps the Hiera key `classes`.
pub const CLASSES_AS: &str = "puppet_classes";

/// beryl requires the domain's keys; Hiera has none. One inline key (the
/// example inventory's ssh/ops.pub), never looked up.
const DOMAIN_YML: &str = "ssh_keys:\n  - ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDUHQ0dE49Glot9ydsDq/O/NXVT8FspR4C27SitXWsuj ops@example.org\n";

/// The repository's hiera.yaml (commit a7255c0) without the `Secure` level.
pub const HIERA_YAML: &str = r#"---
version: 5
defaults:
  datadir: data
  data_hash: yaml_data
hierarchy:
  - name: 'Per node data'
    paths:
      - "nodes/%{trusted.certname}-%{environment}.yaml"
      - "nodes/%{trusted.certname}.yaml"
  - name: "Environment based settings"
    path: "%{environment}.yaml"
  - name: "Roles data"
    paths:
      - "role/%{trusted.extensions.pp_role}.yaml"
  - name: "Physical/Virtual"
    path: "virtual/%{facts.virtual}_%{facts.os.name}.yaml"
  - name: 'osfamily/major release'
    paths:
      - "os/%{facts.os.family}/%{facts.os.release.major}.yaml"
      - "os/%{facts.os.name}/%{facts.os.release.major}.yaml"
  - name: 'Name/Family (eg Debian/Ubuntu)'
    paths:
      - "os/%{facts.os.family}.yaml"
      - "os/%{facts.os.name}.yaml"
  - name: 'common'
    path: 'common.yaml'
"#;

/// One node's facts, chosen from what its node file implies (netplan and
/// lxd settings: Ubuntu; homebrew: macOS; chocolatey: Windows). No data
/// file under virtual/ exists, so `virtual` selects nothing.
pub struct Facts {
    pub short: &'static str,
    pub family: &'static str,
    pub os: &'static str,
    pub major: &'static str,
    pub virtual_: &'static str,
    /// `trusted.extensions.pp_role`; "" for none.
    pub role: &'static str,
    pub environment: &'static str,
}

const fn f(
    short: &'static str,
    family: &'static str,
    os: &'static str,
    major: &'static str,
    virtual_: &'static str,
    role: &'static str,
    environment: &'static str,
) -> Facts {
    Facts {
        short,
        family,
        os,
        major,
        virtual_,
        role,
        environment,
    }
}

pub const NODES: &[Facts] = &[
    f(
        "alpha",
        "Debian",
        "Ubuntu",
        "24.04",
        "physical",
        "domain_controller",
        "production",
    ),
    f(
        "backuppc",
        "Debian",
        "Ubuntu",
        "22.04",
        "lxc",
        "",
        "production",
    ),
    f(
        "bravo",
        "Debian",
        "Ubuntu",
        "24.04",
        "physical",
        "domain_controller",
        "production",
    ),
    f(
        "charlie",
        "Darwin",
        "Darwin",
        "23",
        "physical",
        "mac_laptop",
        "production",
    ),
    f(
        "foxtrot",
        "Debian",
        "Ubuntu",
        "24.04",
        "physical",
        "puppet_master",
        "production",
    ),
    f(
        "golf",
        "Debian",
        "Ubuntu",
        "22.04",
        "physical",
        "media_server",
        "production",
    ),
    f(
        "hotel",
        "Debian",
        "Ubuntu",
        "24.04",
        "physical",
        "zabbix_server",
        "production",
    ),
    f(
        "india",
        "Debian",
        "Ubuntu",
        "22.04",
        "kvm",
        "iptv_server",
        "production",
    ),
    f("juliet", "Debian", "Debian", "12", "lxc", "", "development"),
    f(
        "papa",
        "Debian",
        "Debian",
        "12",
        "physical",
        "",
        "production",
    ),
    f(
        "romeo",
        "Debian",
        "Ubuntu",
        "22.04",
        "lxc",
        "media_server",
        "production",
    ),
    f(
        "router",
        "Debian",
        "Ubuntu",
        "24.04",
        "kvm",
        "",
        "production",
    ),
    f(
        "vpnserver",
        "Debian",
        "Ubuntu",
        "24.04",
        "lxc",
        "",
        "development",
    ),
    f(
        "whiskey",
        "windows",
        "windows",
        "10",
        "physical",
        "",
        "production",
    ),
];

impl Facts {
    pub fn fqdn(&self) -> String {
        format!("{}.{DOMAIN}", self.short)
    }

    /// The facts file `puppet lookup --facts` reads, `trusted` included.
    pub fn puppet_facts(&self) -> J {
        let extensions = if self.role.is_empty() {
            json!({})
        } else {
            json!({"pp_role": self.role})
        };
        json!({
            "os": {"family": self.family, "name": self.os, "release": {"major": self.major}},
            "virtual": self.virtual_,
            "networking": {"fqdn": self.fqdn(), "hostname": self.short, "domain": DOMAIN},
            "trusted": {
                "authenticated": "remote",
                "certname": self.fqdn(),
                "hostname": self.short,
                "domain": DOMAIN,
                "extensions": extensions,
            },
        })
    }

    /// [`HIERA_YAML`]'s paths for this node, in Hiera's search order
    /// (highest priority first), existing or not.
    pub fn hierarchy(&self) -> Vec<String> {
        let (cert, env) = (self.fqdn(), self.environment);
        let (fam, os, major) = (self.family, self.os, self.major);
        vec![
            format!("nodes/{cert}-{env}.yaml"),
            format!("nodes/{cert}.yaml"),
            format!("{env}.yaml"),
            format!("role/{}.yaml", self.role),
            format!("virtual/{}_{os}.yaml", self.virtual_),
            format!("os/{fam}/{major}.yaml"),
            format!("os/{os}/{major}.yaml"),
            format!("os/{fam}.yaml"),
            format!("os/{os}.yaml"),
            "common.yaml".to_string(),
        ]
    }

    /// The data files of the node's chain that exist, lowest priority first.
    pub fn chain(&self, data: &Path) -> Vec<String> {
        let mut chain: Vec<String> = self
            .hierarchy()
            .into_iter()
            .filter(|p| data.join(p).is_file())
            .collect();
        chain.reverse();
        chain
    }
}

/// The class that holds a data file in beryl's copy.
pub fn class_name(path: &str) -> String {
    let stem = path.strip_suffix(".yaml").expect("a .yaml data file");
    let segments: Vec<String> = stem.split('/').map(|s| s.replace('.', "_")).collect();
    format!("hiera.{}", segments.join("."))
}

/// A data file's text in beryl's copy: the root key `classes` renamed.
pub fn rename_classes(text: &str) -> String {
    text.lines()
        .map(|line| {
            if let Some(rest) = line.strip_prefix("classes:") {
                format!("{CLASSES_AS}:{rest}")
            } else {
                line.replace("\"^classes(", &format!("\"^{CLASSES_AS}("))
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

/// Builds Puppet's code dir under `root/puppet` and beryl's inventory under
/// `root/inventory`; returns the code dir.
pub fn build(root: &Path, data: &Path, files: &[String]) -> std::path::PathBuf {
    let code = root.join("puppet/code");
    for env in ["production", "development"] {
        let dir = code.join("environments").join(env);
        write(&dir.join("hiera.yaml"), HIERA_YAML);
        std::os::unix::fs::symlink(data, dir.join("data")).expect("link the data");
    }
    let inv = root.join("inventory");
    write(&inv.join("_default.yml"), "{}\n");
    write(&inv.join(DOMAIN).join("_domain.yml"), DOMAIN_YML);
    for file in files {
        let text = std::fs::read_to_string(data.join(file)).expect("read a data file");
        let class = class_name(file);
        let rel = class.replace('.', "/");
        write(
            &inv.join("_classes").join(format!("{rel}.yml")),
            rename_classes(&text),
        );
    }
    for node in NODES {
        let classes: Vec<String> = node
            .chain(data)
            .iter()
            .map(|p| format!("  - {}\n", class_name(p)))
            .collect();
        write(
            &inv.join(DOMAIN).join(format!("{}.yml", node.short)),
            format!("classes:\n{}", classes.concat()),
        );
    }
    code
}
