use super::*;

/// A small plan built by hand, for the renderer's tests.
pub(super) fn sample_plan() -> Plan {
    Plan {
        format_version: 1,
        host: "web01.example.org".into(),
        install: "dists",
        version: None,
        preamble: vec![
            var("nonInteractive", "YES"),
            var("ZFSBOOT_DISKS", "ada0 ada1"),
        ],
        bringup: vec![argv(&["dhclient", "vtnet0"])],
        nameservers: vec!["192.0.2.53".into()],
        steps: vec![
            Step {
                id: "tz".into(),
                kind: "timezone",
                data: StepData::Timezone {
                    zone: "Europe/Paris".into(),
                },
            },
            Step {
                id: "user:o'neil".into(),
                kind: "user",
                data: StepData::User {
                    name: "o'neil".into(),
                    args: vec![
                        "-n".into(),
                        "o'neil".into(),
                        "-c".into(),
                        "$(touch MARK)".into(),
                    ],
                },
            },
        ],
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
    assert!(
        !preamble.contains("#!"),
        "only one #! line, where the setup starts"
    );
    assert!(setup.starts_with("#!/bin/sh\n"));
    assert!(setup.contains("tzsetup -s Europe/Paris\n"));
    assert!(
        setup.contains(r#"pw useradd -n "o'neil" -c '$(touch MARK)'"#),
        "{setup}"
    );
    assert!(setup.ends_with("echo 'beryl: done'\n"));
}

#[test]
fn json_lists_each_steps_exact_commands() {
    let t = render::Templates::new(None, 0).unwrap();
    let v = t.json(&sample_plan()).unwrap();
    assert_eq!(v["steps"][0]["id"], "tz");
    assert_eq!(
        v["steps"][0]["commands"],
        "# Time zone.\ntzsetup -s Europe/Paris\n"
    );
    assert_eq!(v["preamble"][1]["value"], "ada0 ada1");
}
