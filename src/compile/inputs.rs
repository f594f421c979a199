//! What a host's compile read: the record that lets `render --out` reuse a
//! host's previous output when none of it changed (src/outdir/).
//!
//! It comes from the compile's logical use, not from file reads: the
//! [`super::Compiler`] parses each shared file once for every host, so the
//! second host that uses `_default.yml` never reads it. Besides the files a
//! host read, it lists the paths it **probed** and found empty, where a file
//! appearing would change the host: every path a class name may be written
//! at (`_classes/a/b.yml`, `.yaml`, `a/b/init.yml`, `init.yaml`), both names
//! of a key file (`NAME.pub`, then `NAME`), a template an `{% include %}`
//! asked for.

use std::collections::BTreeSet;

/// A host's inputs. Paths of the inventory are relative to its root; key
/// files are file names in the SSH key directory.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Inputs {
    /// The chain's level files, most general first.
    pub chain: Vec<String>,
    /// Other inventory files read or probed: class files, `templates/`,
    /// `files/`.
    pub files: BTreeSet<String>,
    /// Key files read or probed in the SSH key directory.
    pub keys: BTreeSet<String>,
    /// Its queries read every host's exports: it depends on the whole fleet.
    pub fleet: bool,
}

#[cfg(test)]
mod tests {
    use super::Inputs;
    use crate::inventory::Inventory;
    use crate::keys::KeyStore;
    use crate::yaml::Limits;

    const KEY: &str =
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIEVg1TR7YRxQ1edY/iAxXrHLea7Q2FxELE+3e5RHyC3s a@b\n";

    /// Two hosts of one group: `a` names a class, a key and a template that
    /// includes another; `b` asks a query.
    fn record() -> (Inputs, Inputs) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("inv");
        let write = |rel: &str, text: &str| {
            let path = root.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        write("_default.yml", "x: 1\n");
        write("a.org/_domain.yml", "ssh_keys: [ops]\n");
        write("a.org/web/_group.yml", "exports: {ip: 1}\n");
        write(
            "a.org/web/a.yml",
            "classes: [roles.web]\nfreebsd:\n  files:\n    /etc/x:\n      template: x.j2\n",
        );
        write("a.org/web/b.yml", "ips: $[ exports.ip ]\n");
        write("_classes/roles/web/init.yml", "y: 2\n");
        write("templates/x.j2", "{% include 'inc.j2' %}\n");
        write("templates/inc.j2", "{{ x }}\n");
        std::fs::create_dir_all(dir.path().join("ssh")).unwrap();
        std::fs::write(dir.path().join("ssh/ops.pub"), KEY).unwrap();
        let inventory = Inventory::discover(&root, "inv").unwrap();
        let keys = KeyStore::new(&dir.path().join("ssh"), "ssh", 1 << 20);
        let compiler = super::super::Compiler::new(&inventory, &keys, Limits::default());
        let hosts: Vec<_> = inventory.hosts.iter().collect();
        let mut out = super::super::compile_many(&compiler, &hosts, |_, c| c.unwrap().inputs);
        let b = out.pop().unwrap();
        (out.pop().unwrap(), b)
    }

    #[test]
    fn a_compile_records_what_it_read_and_probed() {
        let (a, b) = record();
        let chain = ["_default.yml", "a.org/_domain.yml", "a.org/web/_group.yml"];
        assert_eq!(a.chain[..3], chain);
        assert_eq!(a.chain[3], "a.org/web/a.yml");
        let files: Vec<&str> = a.files.iter().map(String::as_str).collect();
        assert_eq!(
            files,
            [
                "_classes/roles/web.yaml",
                "_classes/roles/web.yml",
                "_classes/roles/web/init.yaml",
                "_classes/roles/web/init.yml",
                "templates/inc.j2",
                "templates/x.j2",
            ]
        );
        let keys: Vec<&str> = a.keys.iter().map(String::as_str).collect();
        assert_eq!(keys, ["ops", "ops.pub"]);
        assert!(!a.fleet);
        assert!(b.fleet, "a query reads the fleet's exports");
        assert!(b.files.is_empty());
    }
}
