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
