//! `freebsd.files` and `freebsd.services`: whole files from `content`, a
//! template or a source, validated before they replace the old file (at
//! install inside the installer's chroot, at apply on the host), with their
//! mode and owner; services enabled at install, started by the first boot
//! and by apply; `notify` handlers run once per run.

use crate::fakebsd::FakeBsd;
use crate::live::{agree, apply, fixture, live, machine, ok, sh};

/// A host with nginx: its configuration from the example's files/, a page
/// written inline and owned by www, nginx enabled; pf.conf comes from
/// `_default.yml` (a template, checked by `pfctl -nf`).
const NGINX: &str = "freebsd:
  packages:
    - nginx
  files:
    /usr/local/etc/nginx/nginx.conf:
      source: nginx/nginx.conf
      validate: nginx -t -c %s
      notify:
        nginx: reload
    /usr/local/www/nginx/index.html:
      content: \"<h1>live</h1>\\n\"
      owner: www
      group: www
      mode: \"0444\"
  services:
    nginx:
      enable: true
";

/// Installed: every file with its content, mode and owner, nginx enabled
/// and, after the first boot, running; nothing pending. Then a drift (a
/// file edited, a mode changed, nginx stopped): the dry run predicts each
/// step and the handler, the apply does exactly that, reloading nginx once,
/// and a second apply changes nothing.
#[test]
fn files_and_a_service_install_and_converge() {
    let Some((dir, bsd)) = live(NGINX, "files_and_a_service_install_and_converge") else {
        return;
    };
    let d = dir.path();
    assert_eq!(
        sh(
            &bsd,
            "stat -f '%Lp %Su %Sg' /etc/pf.conf /usr/local/etc/nginx/nginx.conf /usr/local/www/nginx/index.html"
        ),
        "600 root wheel\n644 root wheel\n444 www www\n"
    );
    assert_eq!(
        sh(&bsd, "cat /usr/local/www/nginx/index.html"),
        "<h1>live</h1>\n"
    );
    assert_eq!(
        sh(&bsd, "cat /usr/local/etc/nginx/nginx.conf"),
        std::fs::read_to_string(d.join("inventory/files/nginx/nginx.conf")).unwrap(),
        "the source is copied as is"
    );
    assert!(
        sh(&bsd, "cat /etc/pf.conf").contains("tcp_in = \"{ ssh }\""),
        "pf.conf is the rendered template"
    );
    assert_eq!(sh(&bsd, "sysrc -n nginx_enable"), "YES\n");
    assert!(sh(&bsd, "service nginx status").contains("nginx is running as pid"));

    sh(
        &bsd,
        "echo '# edited by hand' >> /usr/local/etc/nginx/nginx.conf && \
         chmod 644 /etc/pf.conf && service nginx stop >/dev/null && : > /var/log/fakebsd-rcd.log",
    );
    agree(
        &bsd,
        d,
        "live",
        &[
            "~ file:/etc/pf.conf",
            "~ file:/usr/local/etc/nginx/nginx.conf",
            "~ service:nginx",
            "~ notify:nginx reload",
        ],
    );
    // The service step started nginx, then the handler reloaded it, once.
    assert_eq!(
        sh(&bsd, "cat /var/log/fakebsd-rcd.log"),
        "nginx start\nnginx reload\n"
    );
}

/// A file the validator refuses is not installed: at apply the step fails
/// and the old file stays; the handler does not run.
#[test]
fn a_refused_file_keeps_the_old_one() {
    let Some((dir, bsd)) = live(NGINX, "a_refused_file_keeps_the_old_one") else {
        return;
    };
    let d = dir.path();
    let before = sh(&bsd, "cat /usr/local/etc/nginx/nginx.conf");
    std::fs::write(
        d.join("inventory/files/nginx/nginx.conf"),
        "events {\n    worker_connections 1024\n}\n",
    )
    .unwrap();
    sh(&bsd, ": > /var/log/fakebsd-rcd.log");
    let run = apply(&bsd, d, "live");
    assert_eq!(run.status, 1, "{}", run.all());
    assert!(
        run.stdout
            .contains("! file:/usr/local/etc/nginx/nginx.conf FAILED: the change exited 1"),
        "{}",
        run.all()
    );
    assert!(
        run.stdout.contains("nginx: [emerg] unexpected \"}\""),
        "{}",
        run.all()
    );
    assert_eq!(sh(&bsd, "cat /usr/local/etc/nginx/nginx.conf"), before);
    assert_eq!(sh(&bsd, "cat /var/log/fakebsd-rcd.log"), "");
}

/// At install the validator runs inside the installer's chroot: a
/// template that renders a pf.conf pfctl refuses fails the install, with
/// pfctl's message, before the file is in place.
#[test]
fn the_installer_refuses_a_file_its_validator_refuses() {
    let dir = fixture("freebsd:\n  hostname: live.example.org\n");
    let d = dir.path();
    std::fs::write(
        d.join("inventory/templates/pf.conf.j2"),
        "block in all\npass in on {{ _beryl_.short }} to port ssh\nnot a rule\n",
    )
    .unwrap();
    let Some(bsd) = FakeBsd::new(
        &machine(d, "live"),
        "the_installer_refuses_a_file_its_validator_refuses",
    ) else {
        return;
    };
    let run = bsd.install(&ok(d, &["plan", "live"]));
    assert_ne!(run.status, 0, "{}", run.all());
    assert!(
        run.all().contains("/etc/.beryl-pf.conf:3: syntax error"),
        "{}",
        run.all()
    );
    assert!(!bsd.target().join("etc/pf.conf").exists());
}
