"""kapicorp-reclass's `--nodeinfo` for every node of a reclass inventory.

The oracle of tests/integration/differential/reclass_real/: each node is
rendered with reclass's public `Core.nodeinfo`, the code path of
`reclass --nodeinfo NODE`, from the storage and settings its command line
would build (reclass/cli.py: defaults < config file < options).

Protocol (JSON lines): each input line is
{"id": ANY, "base": DIR, "nodes_uri": REL, "classes_uri": REL,
 "config": REL, "settings": {...}} (config: a reclass config file under
DIR, read as the CLI reads one; settings: options, which win); each gets
one output line
{"id": ANY, "nodes": {NAME: NODEINFO or {"error": "Class: message"}}}, or
{"id": ANY, "error": "..."} when the inventory itself cannot be loaded.
NODEINFO is the whole `--nodeinfo` document less `__reclass__.timestamp`.
A value JSON cannot hold (a YAML 1.1 date) is written as its str(); the
reclass CLI would crash on it with `-o json`.
Output is flushed after every line; fd 1 is kept for the protocol
(reclass's warnings go to stderr).
"""

import json
import os
import sys

protocol = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)

import yaml  # noqa: E402
from reclass import get_storage  # noqa: E402
from reclass.core import Core  # noqa: E402
from reclass.settings import Settings  # noqa: E402


def failure(e):
    message = " ".join(line.strip() for line in str(e).strip().splitlines())
    return {"error": "%s: %s" % (type(e).__name__, message)}


def render(request):
    base = request["base"]
    settings = {}
    # A config file as reclass/cli.py reads one: its keys under the
    # command line's.
    if request.get("config"):
        with open(os.path.join(base, request["config"])) as f:
            settings.update(yaml.safe_load(f) or {})
        for uri in ("nodes_uri", "classes_uri"):
            if uri in settings:
                request.setdefault(uri, settings.pop(uri))
        settings.pop("inventory_base_uri", None)
    settings.update(request.get("settings") or {})
    settings.setdefault("ignore_class_notfound_warning", False)
    storage = get_storage(
        "yaml_fs",
        os.path.join(base, request.get("nodes_uri", "nodes")),
        os.path.join(base, request.get("classes_uri", "classes")),
        settings.get("compose_node_name", False),
    )
    # reclass/cli.py hands class_mappings to Core apart from the settings.
    class_mappings = settings.pop("class_mappings", None)
    settings = Settings(settings)
    nodes = {}
    for name in sorted(storage.enumerate_nodes()):
        # A fresh Core per node, as one `reclass --nodeinfo` run has.
        core = Core(storage, class_mappings, settings)
        try:
            info = core.nodeinfo(name)
            info["__reclass__"].pop("timestamp", None)
            nodes[name] = info
        except Exception as e:  # every failure is an answer
            nodes[name] = failure(e)
    return nodes


for line in sys.stdin:
    request = {}
    try:
        request = json.loads(line)
        reply = {"id": request.get("id"), "nodes": render(request)}
    except Exception as e:
        reply = {"id": request.get("id"), "error": failure(e)["error"]}
    protocol.write(json.dumps(reply, default=str) + "\n")
    protocol.flush()
