# Everyday recipes. Nothing in the README or CI depends on `just`.

default: check

# Format, lint and test, as CI does.
check:
    cargo fmt --all -- --check
    cargo clippy --all-targets -- -D warnings
    cargo test

# Render a host of the example inventory.
render host="host01":
    cargo run --release -- render {{host}}

# Check every host of the example inventory.
inventory:
    cargo run --release -- check

# Review snapshot changes (needs cargo-insta).
review:
    cargo insta review

fmt:
    cargo fmt --all

# Redraw docs/graph.svg from the example inventory (needs Graphviz's dot).
graph:
    cargo run --release -- graph | dot -Tsvg -o docs/graph.svg

# The fleet benchmark: 1k, 10k and 50k hosts against the parse floor
# (docs/performance.md). Extra arguments go to the harness: just bench --sizes 1k,10k
bench *args:
    cargo bench --bench fleet -- {{args}}
