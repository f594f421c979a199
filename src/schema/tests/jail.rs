//! `freebsd.jail` and `network.bridges`: defaults, and the per-jail rules.

use super::*;
use crate::schema::model::{JailLayout, JailRestart};

fn jailed() -> Jailed {
    Jailed {
        name: "www".into(),
        parent: "host01.example.org".into(),
        pool: "tank".into(),
        interface: Some("em0".into()),
    }
}

fn run_jail(text: &str) -> Result<FreeBsd, Vec<Diag>> {
    let root = crate::yaml::parse(&Source::new("t.yml", text), &Default::default())
        .unwrap_or_else(|d| panic!("bad test YAML: {d}"));
    validate(root.get("freebsd"), Some(&jailed()))
}

fn jail_ok(text: &str) -> crate::schema::model::Jail {
    run_jail(text)
        .unwrap_or_else(|ds| {
            panic!(
                "{text}: {:#?}",
                ds.iter().map(|d| &d.message).collect::<Vec<_>>()
            )
        })
        .jail
        .expect("a jail gets a jail mapping")
}

fn jail_fails(text: &str, code: Code, part: &str) {
    let diags = run_jail(text).expect_err("should be refused");
    assert!(
        diags
            .iter()
            .any(|d| d.code == code.as_str() && d.message.contains(part)),
        "{text}: {:#?}",
        diags
            .iter()
            .map(|d| (&d.code, &d.message))
            .collect::<Vec<_>>()
    );
}

#[test]
fn a_jail_without_a_jail_mapping_gets_every_default() {
    for text in ["other: 1\n", "freebsd: {packages: [caddy]}\n"] {
        let j = jail_ok(text);
        assert_eq!(j.name.value, "www");
        assert_eq!(j.path.value, "/usr/local/jails/www");
        assert_eq!(j.dataset.name.value, "tank/jails/www");
        let mp = &j.dataset.props[0];
        assert_eq!(
            (mp.name.value.as_str(), mp.value.value.as_str()),
            ("mountpoint", "/usr/local/jails/www")
        );
        assert_eq!(j.base.method.value, Install::Dists);
        assert_eq!(j.base.layout.value, JailLayout::Thick);
        assert!(j.boot.value);
        assert_eq!(j.restart.value, JailRestart::Never);
        assert_eq!(j.network.interface.map(|i| i.value).as_deref(), Some("em0"));
        assert!(j.network.vnet.is_none());
    }
}

#[test]
fn written_fields_replace_the_defaults() {
    let j = jail_ok(
        "freebsd:\n  jail:\n    name: web\n    path: /jails/web\n    dataset: {name: tank/j/web, properties: {quota: 20G}}\n    network: {ip4: [192.0.2.21/24], interface: em1}\n    parameters: {allow.raw_sockets: true, enforce_statfs: 1, sysvshm: new}\n    mounts: [{source: /data/www, target: /usr/local/www, ro: true}]\n    rctl: [memoryuse:deny=2g]\n    boot: false\n    depend: [db]\n    restart: on_change\n",
    );
    assert_eq!(j.name.value, "web");
    assert_eq!(j.dataset.name.value, "tank/j/web");
    let props: Vec<_> = j
        .dataset
        .props
        .iter()
        .map(|p| (p.name.value.as_str(), p.value.value.as_str()))
        .collect();
    assert_eq!(props, [("mountpoint", "/jails/web"), ("quota", "20G")]);
    assert_eq!(j.network.interface.unwrap().value, "em1");
    let params: Vec<_> = j
        .parameters
        .iter()
        .map(|p| (p.name.value.as_str(), p.value.value.as_str()))
        .collect();
    assert_eq!(
        params,
        [
            ("allow.raw_sockets", "true"),
            ("enforce_statfs", "1"),
            ("sysvshm", "new")
        ]
    );
    assert!(j.mounts[0].ro && !j.boot.value);
    assert_eq!(j.restart.value, JailRestart::OnChange);
    assert_eq!(j.depend[0].value, "db");
}

#[test]
fn a_vnet_jail_derives_its_macs_from_the_names() {
    let j = jail_ok(
        "freebsd:\n  jail:\n    network:\n      ip4: [dhcp]\n      vnet: {bridge: bridge0, epair: 3, gateway: 192.0.2.1}\n",
    );
    let v = j.network.vnet.expect("vnet");
    assert_eq!(
        v.mac.value,
        crate::freebsd::names::derived_mac("host01.example.org", "www", 'b')
    );
    assert_eq!(
        v.mac_host,
        crate::freebsd::names::derived_mac("host01.example.org", "www", 'a')
    );
    assert_eq!(v.epair.value, 3);
    assert!(j.network.interface.is_none(), "a VNET jail aliases nothing");
    let j = jail_ok(
        "freebsd:\n  jail:\n    network:\n      ip6: [slaac]\n      vnet: {bridge: bridge0, epair: 3, mac: 02:AA:00:00:00:01}\n",
    );
    assert_eq!(j.network.vnet.unwrap().mac.value, "02:aa:00:00:00:01");
}

#[test]
fn the_per_jail_rules() {
    jail_fails(
        "freebsd: {jail: {name: '42'}}\n",
        Code::JailName,
        "jail.name",
    );
    jail_fails(
        "freebsd: {jail: {base: {layout: clone}}}\n",
        Code::JailState,
        "needs `state`",
    );
    jail_fails(
        "freebsd: {jail: {base: {state: [/var]}}}\n",
        Code::JailState,
        "thick",
    );
    jail_fails(
        "freebsd: {jail: {base: {layout: nullfs, state: [/var, /var/db]}}}\n",
        Code::JailState,
        "inside",
    );
    jail_fails(
        "freebsd: {jail: {base: {layout: nullfs, state: [/]}}}\n",
        Code::JailPath,
        "state",
    );
    jail_fails(
        "freebsd: {jail: {mounts: [{source: data, target: /x}]}}\n",
        Code::JailPath,
        "source",
    );
    jail_fails(
        "freebsd: {jail: {mounts: [{source: /data, target: /a/../b}]}}\n",
        Code::JailPath,
        "target",
    );
    jail_fails(
        "freebsd: {jail: {mounts: [{source: /data}]}}\n",
        Code::MissingKey,
        "target",
    );
    jail_fails(
        "freebsd: {jail: {rctl: [memoryuse:deny]}}\n",
        Code::JailRctl,
        "rctl",
    );
    jail_fails(
        "freebsd: {jail: {parameters: {allow.raw_socket: true}}}\n",
        Code::JailParam,
        "did you mean `allow.raw_sockets`",
    );
    jail_fails(
        "freebsd: {jail: {parameters: {enforce_statfs: 3}}}\n",
        Code::JailParam,
        "0 to 2",
    );
    jail_fails(
        "freebsd: {jail: {parameters: {path: /x}}}\n",
        Code::JailParamDerived,
        "itself",
    );
    jail_fails(
        "freebsd: {jail: {parameters: {exec.start: /bin/sh}}}\n",
        Code::JailParamDerived,
        "exec.start",
    );
    jail_fails(
        "freebsd: {jail: {network: {ip4: [dhcp]}}}\n",
        Code::JailNetwork,
        "dhcp",
    );
    jail_fails(
        "freebsd: {jail: {network: {vnet: {bridge: bridge0}}}}\n",
        Code::JailVnet,
        "epair",
    );
    jail_fails(
        "freebsd: {jail: {network: {vnet: {bridge: bridge0, epair: 1}}}}\n",
        Code::JailVnet,
        "no address",
    );
    jail_fails(
        "freebsd: {jail: {network: {ip4: [dhcp], vnet: {bridge: br0, epair: 1}}}}\n",
        Code::Bridge,
        "bridge",
    );
    jail_fails(
        "freebsd: {jail: {network: {ip4: [dhcp], vnet: {bridge: bridge0, epair: 1, mac: 01:00:5e:00:00:01}}}}\n",
        Code::JailMac,
        "multicast",
    );
    jail_fails(
        "freebsd: {jail: {network: {ip4: [dhcp], interface: em0, vnet: {bridge: bridge0, epair: 1}}}}\n",
        Code::JailNetwork,
        "vnet",
    );
    jail_fails(
        "freebsd: {jail: {restart: always}}\n",
        Code::JailRestart,
        "restart",
    );
}

#[test]
fn a_host_may_not_write_jail_and_has_none() {
    fails(
        "freebsd:\n  jail: {name: www}\n",
        Code::JailOnHost,
        "only for a jail",
        "t.yml:2:9",
    );
    assert!(ok("freebsd: {}\n").jail.is_none());
}

#[test]
fn bridges_fill_the_network_model() {
    let f = ok(
        "freebsd:\n  network:\n    bridges:\n      bridge0: {members: [em0], ipv4: 192.0.2.10/24}\n      bridge1: {}\n",
    );
    let b = &f.network.unwrap().bridges;
    assert_eq!(b.len(), 2);
    assert_eq!(b[0].name.value, "bridge0");
    assert_eq!(b[0].members[0].value, "em0");
    assert!(b[0].ipv4.is_some() && b[1].ipv4.is_none());
    fails(
        "freebsd: {network: {bridges: {br0: {}}}}\n",
        Code::Bridge,
        "bridge name",
        "t.yml:1:31",
    );
}
