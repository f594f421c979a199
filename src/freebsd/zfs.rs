//! ZFS datasets: the names beryl accepts and the properties it manages, as a
//! table.
//!
//! Read in openzfs/zfs at be7657e3f2788c4e5edb635d0bc5c24eff9eb2db:
//! `module/zcommon/zfs_namecheck.c` (dataset names: `valid_char`,
//! `ZFS_MAX_DATASET_NAME_LEN` 256), `module/zcommon/zfs_prop.c` (each
//! property's values, default and whether it is inherited),
//! `include/sys/zio.h` (`ZIO_COMPRESS_DEFAULT` is `on`) and
//! `lib/libzfs/libzfs_util.c` (`zprop_print_one_property`: `zfs get -H -p`
//! prints numbers in bytes, tab-separated columns, a source `local`,
//! `default`, `inherited from X`, `-`).
//!
//! Each [`Prop`] row says how a value is checked and how `zfs get -p` prints
//! it, so that apply compares like with like: a size is compared in bytes
//! (`16K` is `16384`), `gzip-6` as `gzip` (the first name of the level in
//! zfs_prop.c's `compress_table`).

use super::names::quote;

/// The source file the table was read from, for messages and docs.
pub(crate) const SOURCE: &str = "openzfs/zfs module/zcommon/zfs_prop.c @be7657e3";

/// zfsboot's boot pool name (`ZFSBOOT_POOL_NAME`,
/// usr.sbin/bsdinstall/scripts/zfsboot 00a35910).
pub(crate) const DEFAULT_BOOT_POOL: &str = "zroot";

/// A dataset zfsboot creates in the boot pool: a line of its default
/// `ZFSBOOT_DATASETS`.
#[derive(Debug)]
pub(crate) struct ZfsbootDataset {
    /// The name below the pool.
    pub name: &'static str,
    /// Its `mountpoint` when it sets one (children inherit it, the rest of
    /// their name appended).
    pub mountpoint: Option<&'static str>,
    /// The OPTIONS column of the line, as zfsboot lists them.
    pub options: &'static str,
}

const fn row(
    name: &'static str,
    mountpoint: Option<&'static str>,
    options: &'static str,
) -> ZfsbootDataset {
    ZfsbootDataset {
        name,
        mountpoint,
        options,
    }
}

/// The datasets zfsboot creates in the boot pool (its default
/// `ZFSBOOT_DATASETS`, usr.sbin/bsdinstall/scripts/zfsboot 00a35910, with
/// the default `ZFSBOOT_BEROOT_NAME` ROOT and `ZFSBOOT_BOOTFS_NAME`
/// default). They exist on every host beryl installs, so `zfs create -p`
/// does not create them. A `ZFSBOOT_DATASETS` in the preamble replaces the
/// default list (`f_isset ZFSBOOT_DATASETS ||`): beryl's
/// ([`zfsboot_datasets`]) starts with these lines.
pub(crate) const ZFSBOOT_DATASETS: &[ZfsbootDataset] = &[
    row("ROOT", Some("none"), "mountpoint=none"),
    row("ROOT/default", Some("/"), "mountpoint=/"),
    row("home", Some("/home"), "mountpoint=/home"),
    row("tmp", Some("/tmp"), "mountpoint=/tmp,exec=on,setuid=off"),
    row("usr", Some("/usr"), "mountpoint=/usr,canmount=off"),
    row("usr/ports", None, "setuid=off"),
    row("usr/src", None, ""),
    row("var", Some("/var"), "mountpoint=/var,canmount=off"),
    row("var/audit", None, "exec=off,setuid=off"),
    row("var/crash", None, "exec=off,setuid=off"),
    row("var/log", None, "exec=off,setuid=off"),
    row("var/mail", None, "atime=on"),
    row("var/tmp", None, "setuid=off"),
];

/// zfsboot's row for `rel` (a name below the boot pool), if it makes it.
pub(crate) fn zfsboot(rel: &str) -> Option<&'static ZfsbootDataset> {
    ZFSBOOT_DATASETS.iter().find(|d| d.name == rel)
}

/// The `ZFSBOOT_DATASETS` of a plan that has datasets of its own in the
/// boot pool: zfsboot's default lines, then one line per dataset (`/NAME`
/// below the pool, then its `PROP=VALUE` options joined by commas), in the
/// order given, which must put a parent before its children. zfsboot
/// creates each line with `zfs create` (no `-p`) in the pool it made with
/// `altroot=$BSDINSTALL_CHROOT`, before the sets are extracted, so a
/// dataset mounts where the new system sees it and holds what the install
/// writes there (a `zfs create` from the setup script, in the chroot,
/// would mount it at the altroot plus its mount point: `/mnt/mnt/...`,
/// lib/libzfs/libzfs_dataset.c be7657e3 `zfs_prop_get`). zfsboot splits
/// the options at blanks and commas, drops what follows a `#`, and `eval`s
/// the command: the values must hold none of those or of what sh
/// interprets ([`zfsboot_safe`]).
pub(crate) fn zfsboot_datasets(own: &[(String, Vec<(String, String)>)]) -> String {
    let mut out = String::new();
    for d in ZFSBOOT_DATASETS {
        out.push_str(&line(d.name, d.options));
    }
    for (name, props) in own {
        let options: Vec<String> = props.iter().map(|(k, v)| format!("{k}={v}")).collect();
        out.push_str(&line(name, &options.join(",")));
    }
    out
}

/// A line of `ZFSBOOT_DATASETS`: `/NAME`, then its options when it has some.
fn line(name: &str, options: &str) -> String {
    match options {
        "" => format!("/{name}\n"),
        _ => format!("/{name} {options}\n"),
    }
}

/// Whether a property value passes through zfsboot's option splitting and
/// `eval` unchanged: letters, digits and `/ . _ - + : @`.
pub(crate) fn zfsboot_safe(value: &str) -> bool {
    !value.is_empty()
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+:@".contains(c))
}

/// The longest dataset name (`ZFS_MAX_DATASET_NAME_LEN` is 256, with the NUL).
pub(crate) const MAX_NAME: usize = 255;

/// How a property's values are written and printed.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Kind {
    /// One of these words (printed as written).
    Words(&'static [&'static str]),
    /// `compression`: words, with `gzip-6` printed `gzip`.
    Compression,
    /// A power of two between the bounds, in bytes (`recordsize`).
    Block { min: u64, max: u64 },
    /// `none` or a size (`quota`, `reservation`…); `-p` prints `none` as 0.
    Quota,
    /// An absolute path, `none` or `legacy` (`mountpoint`).
    Mountpoint,
}

/// One property beryl manages.
#[derive(Debug)]
pub(crate) struct Prop {
    pub name: &'static str,
    pub doc: &'static str,
    pub kind: Kind,
    /// The value `zfs get -p` shows with source `default`.
    #[cfg_attr(
        not(test),
        expect(dead_code, reason = "data; tests hold the fake zfs(8) to it")
    )]
    pub default: &'static str,
    /// Whether children inherit it (`PROP_INHERIT` in zfs_prop.c).
    #[cfg_attr(
        not(test),
        expect(dead_code, reason = "data; tests hold the fake zfs(8) to it")
    )]
    pub inherit: bool,
}

const ON_OFF: &[&str] = &["on", "off"];

/// The compression names of zfs_prop.c's `compress_table`.
const COMPRESSION: &[&str] = &[
    "on",
    "off",
    "lzjb",
    "gzip",
    "gzip-1",
    "gzip-2",
    "gzip-3",
    "gzip-4",
    "gzip-5",
    "gzip-6",
    "gzip-7",
    "gzip-8",
    "gzip-9",
    "zle",
    "lz4",
    "zstd",
    "zstd-fast",
    "zstd-1",
    "zstd-2",
    "zstd-3",
    "zstd-4",
    "zstd-5",
    "zstd-6",
    "zstd-7",
    "zstd-8",
    "zstd-9",
    "zstd-10",
    "zstd-11",
    "zstd-12",
    "zstd-13",
    "zstd-14",
    "zstd-15",
    "zstd-16",
    "zstd-17",
    "zstd-18",
    "zstd-19",
];

/// The properties beryl sets, in the order the docs list them (zfs_prop.c
/// `zfs_prop_init`: values, defaults, inheritance).
pub(crate) const PROPS: &[Prop] = &[
    Prop {
        name: "compression",
        doc: "on (the default: lz4), off, lz4, zstd, zstd-1…19, zstd-fast, gzip, gzip-1…9, zle or lzjb",
        kind: Kind::Compression,
        default: "on",
        inherit: true,
    },
    Prop {
        name: "recordsize",
        doc: "largest block size: a power of two from 512 to 16M, such as 16K (default 128K)",
        kind: Kind::Block {
            min: 512,
            max: 16 << 20,
        },
        default: "131072",
        inherit: true,
    },
    Prop {
        name: "atime",
        doc: "update access times: on (the default) or off",
        kind: Kind::Words(ON_OFF),
        default: "on",
        inherit: true,
    },
    Prop {
        name: "relatime",
        doc: "update access times only past the modification time: on or off (the default on FreeBSD)",
        kind: Kind::Words(ON_OFF),
        default: "off",
        inherit: true,
    },
    Prop {
        name: "mountpoint",
        doc: "an absolute path, none or legacy (default: inherited, /POOL/NAME)",
        kind: Kind::Mountpoint,
        default: "",
        inherit: true,
    },
    Prop {
        name: "canmount",
        doc: "on (the default), off or noauto; not inherited",
        kind: Kind::Words(&["on", "off", "noauto"]),
        default: "on",
        inherit: false,
    },
    Prop {
        name: "quota",
        doc: "limit of the dataset and its descendants: none (the default) or a size such as 100G",
        kind: Kind::Quota,
        default: "0",
        inherit: false,
    },
    Prop {
        name: "refquota",
        doc: "limit of the dataset itself: none (the default) or a size",
        kind: Kind::Quota,
        default: "0",
        inherit: false,
    },
    Prop {
        name: "reservation",
        doc: "space kept for the dataset and its descendants: none (the default) or a size",
        kind: Kind::Quota,
        default: "0",
        inherit: false,
    },
    Prop {
        name: "refreservation",
        doc: "space kept for the dataset itself: none (the default) or a size",
        kind: Kind::Quota,
        default: "0",
        inherit: false,
    },
    Prop {
        name: "exec",
        doc: "allow executing files: on (the default) or off",
        kind: Kind::Words(ON_OFF),
        default: "on",
        inherit: true,
    },
    Prop {
        name: "setuid",
        doc: "honour setuid bits: on (the default) or off",
        kind: Kind::Words(ON_OFF),
        default: "on",
        inherit: true,
    },
    Prop {
        name: "readonly",
        doc: "on or off (the default)",
        kind: Kind::Words(ON_OFF),
        default: "off",
        inherit: true,
    },
    Prop {
        name: "sync",
        doc: "standard (the default), always or disabled",
        kind: Kind::Words(&["standard", "always", "disabled"]),
        default: "standard",
        inherit: true,
    },
    Prop {
        name: "logbias",
        doc: "latency (the default) or throughput",
        kind: Kind::Words(&["latency", "throughput"]),
        default: "latency",
        inherit: true,
    },
    Prop {
        name: "primarycache",
        doc: "what the ARC caches: all (the default), metadata or none",
        kind: Kind::Words(&["all", "none", "metadata"]),
        default: "all",
        inherit: true,
    },
    Prop {
        name: "secondarycache",
        doc: "what the L2ARC caches: all (the default), metadata or none",
        kind: Kind::Words(&["all", "none", "metadata"]),
        default: "all",
        inherit: true,
    },
    Prop {
        name: "copies",
        doc: "copies of each block: 1 (the default), 2 or 3",
        kind: Kind::Words(&["1", "2", "3"]),
        default: "1",
        inherit: true,
    },
    Prop {
        name: "snapdir",
        doc: "the .zfs directory: hidden (the default) or visible",
        kind: Kind::Words(&["hidden", "visible"]),
        default: "hidden",
        inherit: true,
    },
];

/// The properties' names, comma-separated, as the facts script asks
/// `zfs get` for them.
#[cfg(test)]
pub(crate) fn names() -> String {
    PROPS.iter().map(|p| p.name).collect::<Vec<_>>().join(",")
}

/// The property named `name`.
pub(crate) fn prop(name: &str) -> Option<&'static Prop> {
    PROPS.iter().find(|p| p.name == name)
}

/// A checked value: what `zfs set` is given, and what `zfs get -H -p`
/// prints once it is set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Value {
    pub set: String,
    pub printed: String,
}

/// Checks `value` for `prop`.
pub(crate) fn value(prop: &Prop, value: &str) -> Result<Value, String> {
    let keep = |printed: &str| Value {
        set: value.to_string(),
        printed: printed.to_string(),
    };
    match prop.kind {
        Kind::Words(words) => match words.contains(&value) {
            true => Ok(keep(value)),
            false => Err(format!(
                "{} is not a value of {}: write {}",
                quote(value),
                prop.name,
                alternatives(words)
            )),
        },
        Kind::Compression => match COMPRESSION.contains(&value) {
            true => Ok(keep(if value == "gzip-6" { "gzip" } else { value })),
            false => Err(format!(
                "{} is not a compression of OpenZFS: write lz4, zstd, zstd-1…19, zstd-fast, gzip, gzip-1…9, zle, lzjb, on or off",
                quote(value)
            )),
        },
        Kind::Block { min, max } => {
            let bytes = size(value)?;
            if !bytes.is_power_of_two() || bytes < min || bytes > max {
                return Err(format!(
                    "{} is not a power of two from 512 to 16M (such as 16K, 128K or 1M)",
                    quote(value)
                ));
            }
            Ok(keep(&bytes.to_string()))
        }
        Kind::Quota => {
            if value == "none" {
                return Ok(keep("0"));
            }
            let bytes = size(value)?;
            if bytes == 0 {
                return Err(format!("{} is zero: write none for no limit", quote(value)));
            }
            Ok(keep(&bytes.to_string()))
        }
        Kind::Mountpoint => {
            if value == "none" || value == "legacy" {
                return Ok(keep(value));
            }
            mountpoint(value)?;
            Ok(keep(value))
        }
    }
}

fn alternatives(words: &[&str]) -> String {
    match words.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => words.join(""),
    }
}

/// A size as zfs(8) reads it (libzfs_util.c `zfs_nicestrtonum`), limited to
/// whole numbers: digits, then an optional K, M, G, T, P or E (any case,
/// powers of 1024), optionally followed by B; a bare number is bytes.
pub(crate) fn size(s: &str) -> Result<u64, String> {
    let bad = || {
        format!(
            "{} is not a size: write a whole number with an optional K, M, G, T, P or E suffix, such as 16K or 100G",
            quote(s)
        )
    };
    let digits_end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (digits, suffix) = s.split_at(digits_end);
    if digits.is_empty() {
        return Err(bad());
    }
    let upper = suffix.to_ascii_uppercase();
    let unit = upper.strip_suffix('B').unwrap_or(&upper);
    let shift = match unit {
        "" => 0,
        "K" => 10,
        "M" => 20,
        "G" => 30,
        "T" => 40,
        "P" => 50,
        "E" => 60,
        _ if suffix.starts_with('.') => {
            return Err(format!(
                "{} has a fraction; write a whole number in a smaller unit (1536M, not 1.5G)",
                quote(s)
            ));
        }
        _ => return Err(bad()),
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(1u64 << shift))
        .filter(|n| shift == 0 || n >> shift != 0)
        .ok_or_else(|| format!("{} is too large", quote(s)))
}

/// An absolute, normalized mount point: no `.` or `..` component, no empty
/// component, no trailing slash (other than `/` itself), no control
/// character.
pub(crate) fn mountpoint(s: &str) -> Result<(), String> {
    if !s.starts_with('/') {
        return Err(format!(
            "{} is not an absolute path (or none, or legacy)",
            quote(s)
        ));
    }
    if s.chars().any(char::is_control) {
        return Err(format!("{} contains a control character", quote(s)));
    }
    if s != "/"
        && s[1..]
            .split('/')
            .any(|c| c.is_empty() || c == "." || c == "..")
    {
        return Err(format!(
            "{} is not a normalized path (no `.`, `..`, `//` or trailing `/`)",
            quote(s)
        ));
    }
    Ok(())
}

/// A dataset name `POOL/a/b` (zfs_namecheck.c): components of letters,
/// digits and `- _ . :` (zfs also allows a space; beryl does not), none
/// empty, `.` or `..`; at most 255 characters. Returns the pool.
pub(crate) fn dataset(s: &str) -> Result<&str, String> {
    if s.is_empty() {
        return Err("the dataset name is empty".into());
    }
    if s.len() > MAX_NAME {
        return Err(format!(
            "the dataset name is {} characters long; at most {MAX_NAME} are allowed",
            s.len()
        ));
    }
    if let Some(c) = s
        .chars()
        .find(|c| !c.is_ascii_alphanumeric() && !"-_.:/".contains(*c))
    {
        let what = match c {
            '@' => " (a snapshot: beryl manages file systems only)".to_string(),
            '#' => " (a bookmark: beryl manages file systems only)".to_string(),
            _ => String::new(),
        };
        return Err(format!(
            "{} contains {}{what}; dataset names use letters, digits and `- _ . :`, with `/` between components",
            quote(s),
            super::names::show(c)
        ));
    }
    if s.split('/').any(|c| c.is_empty() || c == "." || c == "..") {
        return Err(format!(
            "{} has an empty, `.` or `..` component; write POOL/NAME, such as tank/data",
            quote(s)
        ));
    }
    Ok(s.split('/').next().unwrap_or(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_bytes() {
        assert_eq!(size("16K"), Ok(16384));
        assert_eq!(size("16k"), Ok(16384));
        assert_eq!(size("1M"), Ok(1 << 20));
        assert_eq!(size("100GB"), Ok(100 << 30));
        assert_eq!(size("512"), Ok(512));
        assert!(size("1.5G").unwrap_err().contains("fraction"));
        assert!(size("16X").is_err());
        assert!(size("K").is_err());
        assert!(size("99999999999E").unwrap_err().contains("too large"));
    }

    #[test]
    fn values_are_compared_as_zfs_get_p_prints_them() {
        let p = |n| prop(n).unwrap();
        assert_eq!(value(p("recordsize"), "16K").unwrap().printed, "16384");
        assert_eq!(value(p("recordsize"), "16K").unwrap().set, "16K");
        assert!(value(p("recordsize"), "24K").is_err());
        assert!(value(p("recordsize"), "32M").is_err());
        assert!(value(p("recordsize"), "256").is_err());
        assert_eq!(value(p("compression"), "gzip-6").unwrap().printed, "gzip");
        assert_eq!(value(p("compression"), "lz4").unwrap().printed, "lz4");
        assert!(value(p("compression"), "lz5").is_err());
        assert_eq!(value(p("quota"), "none").unwrap().printed, "0");
        assert_eq!(value(p("quota"), "10G").unwrap().printed, "10737418240");
        assert!(value(p("quota"), "0").is_err());
        assert!(value(p("atime"), "yes").unwrap_err().contains("on or off"));
        assert!(value(p("mountpoint"), "/var/db/postgres").is_ok());
        assert!(value(p("mountpoint"), "legacy").is_ok());
        assert!(value(p("mountpoint"), "var").is_err());
        assert!(value(p("mountpoint"), "/a/../b").is_err());
        assert!(value(p("mountpoint"), "/a/").is_err());
        assert!(value(p("mountpoint"), "/").is_ok());
    }

    #[test]
    fn dataset_names() {
        assert_eq!(dataset("tank/pgdata"), Ok("tank"));
        assert_eq!(dataset("zroot/var/db:x-1_2.3"), Ok("zroot"));
        assert_eq!(dataset("tank"), Ok("tank"));
        assert!(dataset("tank//a").is_err());
        assert!(dataset("tank/a/").is_err());
        assert!(dataset("tank/../a").is_err());
        assert!(dataset("tank/a b").is_err());
        assert!(dataset("tank/a@snap").unwrap_err().contains("snapshot"));
        assert!(dataset(&format!("tank/{}", "a".repeat(260))).is_err());
    }

    /// The facts script asks for exactly the properties of the table.
    #[test]
    fn the_facts_script_asks_for_every_property() {
        let facts = crate::resource::state::FACTS_SCRIPT;
        assert!(
            facts.contains(&format!("zfs_props={}\n", names())),
            "{}",
            names()
        );
    }

    /// The fake FreeBSD's zfs(8) model (tests/fakebsd/) has the same
    /// table: names, defaults, inheritance and words.
    #[test]
    fn the_zfs_model_has_this_table() {
        let subr = include_str!("../../tests/fakebsd/common/usr/share/fakebsd/zfs.subr");
        let start = subr.find("FAKEBSD_ZFS_PROPS='").unwrap() + "FAKEBSD_ZFS_PROPS='".len();
        let end = start + subr[start..].find('\'').unwrap();
        let rows: Vec<Vec<&str>> = subr[start..end]
            .lines()
            .map(|l| l.split(' ').collect())
            .collect();
        assert_eq!(rows.len(), PROPS.len());
        for (row, p) in rows.iter().zip(PROPS) {
            assert_eq!(row[0], p.name);
            let default = if p.default.is_empty() { "-" } else { p.default };
            assert_eq!(row[1], default, "{}", p.name);
            assert_eq!(row[2], if p.inherit { "1" } else { "0" }, "{}", p.name);
            let values: Vec<&str> = row[3].split(',').collect();
            match p.kind {
                Kind::Words(words) => assert_eq!(values, words, "{}", p.name),
                Kind::Compression => assert_eq!(values, COMPRESSION, "{}", p.name),
                Kind::Block { .. } => assert_eq!(values, ["block"]),
                Kind::Quota => assert_eq!(values, ["quota"]),
                Kind::Mountpoint => assert_eq!(values, ["path"]),
            }
        }
    }

    /// Every default is a value the row accepts as printed (mountpoint's is
    /// computed from the name).
    #[test]
    fn the_table_is_consistent() {
        for p in PROPS {
            if matches!(p.kind, Kind::Mountpoint) {
                continue;
            }
            let printed: Vec<String> = match p.kind {
                Kind::Words(w) => w.iter().map(|s| s.to_string()).collect(),
                Kind::Compression => COMPRESSION.iter().map(|s| s.to_string()).collect(),
                _ => vec![p.default.to_string()],
            };
            assert!(printed.iter().any(|v| v == p.default), "{}", p.name);
        }
    }
}
