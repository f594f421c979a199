"""PyYAML as an oracle for beryl's YAML 1.1 dialect (yaml::Schema::Yaml11).

Reads file paths, one a line, on stdin; writes one JSON line per file:
{"ok": VALUE} or {"error": "ExceptionClass"}. The first line out is
{"version": PyYAML's version}. Each file is loaded as kapicorp-reclass loads
it (yaml.load with CSafeLoader, or SafeLoader without libyaml), except that a
timestamp gives its text, which is what beryl keeps (docs/reclass-yaml.md).

VALUE keeps the types JSON would lose: null, true/false, a string, a list,
{"int": "DIGITS"}, {"float": "REPR"}, {"timestamp": "TEXT"}, and
{"map": [[KEY, VALUE], ...]} in the dict's order, KEY as json.dumps writes a
key (1 -> "1", True -> "true", None -> "null").
"""

import json
import sys

import yaml

Base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class Stamp(str):
    """A timestamp's text."""


class Loader(Base):
    pass


Loader.add_constructor(
    "tag:yaml.org,2002:timestamp", lambda loader, node: Stamp(node.value)
)


def key(k):
    if isinstance(k, str):
        return str(k)
    return next(iter(json.loads(json.dumps({k: 0}))))


def enc(v):
    if v is None or isinstance(v, bool):
        return v
    if isinstance(v, int):
        return {"int": str(v)}
    if isinstance(v, float):
        return {"float": repr(v)}
    if isinstance(v, Stamp):
        return {"timestamp": str(v)}
    if isinstance(v, str):
        return v
    if isinstance(v, list):
        return [enc(x) for x in v]
    if isinstance(v, dict):
        return {"map": [[key(k), enc(x)] for k, x in v.items()]}
    return {"other": repr(v)}


out = sys.stdout
out.write(json.dumps({"version": yaml.__version__}) + "\n")
out.flush()
for line in sys.stdin:
    path = line.rstrip("\n")
    try:
        with open(path, encoding="utf-8") as f:
            answer = {"ok": enc(yaml.load(f, Loader=Loader))}
    except Exception as e:  # every refusal is an answer
        answer = {"error": type(e).__name__}
    out.write(json.dumps(answer) + "\n")
    out.flush()
