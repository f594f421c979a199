//! A seeded, deterministic synthetic inventory for benchmarks and scale tests.
//!
//! ```sh
//! cargo run --release --example geninv -- --hosts 10000 --domains 10 --groups 50 --seed 1 --out DIR
//! beryl -i DIR/inventory --ssh-dir DIR/ssh check
//! ```
//!
//! Writes `DIR/inventory/` and `DIR/ssh/` (public keys only). The same
//! arguments give the same bytes. What the tree holds is described in
//! `examples/support/inventory_gen.rs` and docs/performance.md.

#[path = "support/inventory_gen.rs"]
mod inventory_gen;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

/// Generate a synthetic beryl inventory.
#[derive(Debug, Parser)]
#[command(name = "geninv")]
struct Args {
    /// Number of hosts.
    #[arg(long, default_value_t = 1000)]
    hosts: usize,
    /// Number of domains.
    #[arg(long, default_value_t = 10)]
    domains: usize,
    /// Number of groups, spread over the domains.
    #[arg(long, default_value_t = 50)]
    groups: usize,
    /// Seed of the random choices.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Add classes and inventory queries (docs/performance.md, §8).
    #[arg(long)]
    classes: bool,
    /// Output directory: DIR/inventory and DIR/ssh are created (they must not exist).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let params = inventory_gen::Params {
        hosts: args.hosts,
        domains: args.domains,
        groups: args.groups,
        seed: args.seed,
        classes: args.classes,
    };
    match inventory_gen::generate(&params, &args.out) {
        Ok(s) => {
            eprintln!(
                "geninv: {} hosts, {} YAML files, {} bytes in {}",
                s.hosts,
                s.yaml_files,
                s.yaml_bytes,
                args.out.join("inventory").display()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("geninv: {e}");
            ExitCode::from(2)
        }
    }
}
