use super::*;
use crate::resource::timezone::Timezone;
use crate::resource::user::{Account, User};

/// A small plan built by hand, for the renderer's tests.
pub(super) fn sample_plan() -> InstallerConfig {
    InstallerConfig {
        format_version: 2,
        host: "web01.example.org".into(),
        install: "dists",
        version: "15.0".into(),
        media: "the DVD".into(),
        fetch_sets: false,
        preamble: vec![
            var("nonInteractive", "YES"),
            var("ZFSBOOT_DISKS", "ada0 ada1"),
        ],
        disks: vec!["ada0".into(), "ada1".into()],
        network: true,
        links: vec![Link::Dhcp {
            interface: "vtnet0".into(),
        }],
        defaultrouter: Some("192.0.2.1".into()),
        nameservers: vec!["192.0.2.53".into()],
        path: crate::freebsd::SCRIPT_PATH,
        sshd_awk: crate::resource::sshd::AWK,
        steps: vec![
            Step {
                id: "tz".into(),
                resource: Resource::Timezone(Timezone {
                    zone: "Europe/Paris".into(),
                }),
                awk_keys: None,
                head: None,
                tail: None,
            },
            Step {
                id: "user:o'neil".into(),
                resource: Resource::User(User::Present(Account {
                    name: "o'neil".into(),
                    uid: Some(1001),
                    shell: None,
                    comment: Some("$(touch MARK)".into()),
                    primary_group: None,
                    groups: vec!["wheel".into(), "ops".into()],
                })),
                awk_keys: None,
                head: None,
                tail: None,
            },
        ],
        record: crate::resource::RECORD,
        records: vec!["pkg it's".into(), "pkg sudo".into()],
        summary: "beryl: done".into(),
    }
}

#[test]
fn renders_a_preamble_then_the_setup_script() {
    let t = render::Templates::new(None, 0).unwrap();
    let text = t.installerconfig(&sample_plan()).unwrap();
    let split = text.find("\n#!/bin/sh\n").expect("a #! line");
    let (preamble, setup) = text.split_at(split + 1);
    assert!(preamble.contains("export nonInteractive=YES\n"));
    assert!(preamble.contains("export ZFSBOOT_DISKS='ada0 ada1'\n"));
    assert!(preamble.contains("dhclient vtnet0\n"));
    // dhclient may already have installed the default route (EEXIST).
    assert!(
        preamble.contains("route add default 192.0.2.1 || route change default 192.0.2.1\n"),
        "{preamble}"
    );
    assert!(preamble.contains("gpart destroy -F ada1"), "{preamble}");
    assert!(
        !preamble.contains("#!"),
        "only one #! line, where the setup starts"
    );
    assert!(setup.starts_with("#!/bin/sh\n"));
    assert!(
        setup.contains(
            "\nPATH=/sbin:/bin:/usr/sbin:/usr/bin:/usr/local/sbin:/usr/local/bin\nexport PATH\n"
        ),
        "{setup}"
    );
    assert!(setup.contains("tzsetup -s Europe/Paris\n"));
    assert!(
        setup.contains(
            r#"pw useradd -n "o'neil" -m -G 'wheel,ops' -c '$(touch MARK)' -u 1001 -h -"#
        ),
        "{setup}"
    );
    assert!(setup.ends_with("printf '%s\\n' 'beryl: done'\n"));
}

#[test]
fn json_lists_each_steps_exact_commands() {
    let t = render::Templates::new(None, 0).unwrap();
    let v = t.json(&sample_plan()).unwrap();
    assert_eq!(v["steps"][0]["id"], "tz");
    assert_eq!(v["steps"][0]["kind"], "timezone");
    assert_eq!(
        v["steps"][0]["commands"],
        "# Time zone.\ntzsetup -s Europe/Paris\n"
    );
    assert_eq!(v["preamble"][1]["value"], "ada0 ada1");
}

/// Boot-pool datasets go to zfsboot in `ZFSBOOT_DATASETS`: its default
/// lines first (a value in the preamble replaces them), then each dataset
/// after a line for each missing parent (zfsboot creates without `-p`);
/// zfsboot's own datasets and data-pool datasets stay setup-script steps.
#[test]
fn boot_pool_datasets_go_to_zfsboot() {
    use crate::resource::zfs::{Prop, Zfs};
    let zfs = |name: &str, props: &[(&str, &str)], boot: bool| {
        Resource::Zfs(Zfs {
            name: name.into(),
            props: props
                .iter()
                .map(|(k, v)| Prop {
                    name: (*k).into(),
                    value: (*v).into(),
                    printed: (*v).into(),
                })
                .collect(),
            destroy: false,
            origin: None,
            boot,
        })
    };
    assert_eq!(
        super::boot_datasets("zroot", &[zfs("tank/a", &[], false)]),
        None
    );
    let list = super::boot_datasets(
        "zroot",
        &[
            zfs("tank/a", &[], false),
            zfs("zroot/var/log", &[("compression", "zstd")], false),
            zfs(
                "zroot/srv/a/b",
                &[("mountpoint", "/b"), ("atime", "off")],
                true,
            ),
            zfs("zroot/srv/a", &[("canmount", "off")], true),
        ],
    )
    .unwrap();
    let (default, own) = list.split_at(list.find("/srv").unwrap());
    assert!(default.starts_with("/ROOT mountpoint=none\n/ROOT/default mountpoint=/\n"));
    assert!(default.ends_with("/var/tmp setuid=off\n"), "{default}");
    assert_eq!(
        own,
        "/srv\n/srv/a canmount=off\n/srv/a/b mountpoint=/b,atime=off\n"
    );
}
