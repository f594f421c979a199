"""kapicorp-reclass as an oracle: renders every node of reclass inventories.

Protocol (JSON lines, like hiera.rb and deep_merge.rb): each input line is
{"id": ANY, "inventory": DIR, "settings": {...}}, where DIR holds nodes/ and
classes/ and settings are reclass options (ignore_class_notfound, ...). Each
input line gets one output line {"id": ANY, "nodes": {NAME: RESULT}}, where
RESULT is {"parameters": ..., "exports": ..., "classes": [...]} or
{"error": "ExceptionClass: message"}. Every node is rendered with reclass's
public Core.nodeinfo, the code path of `reclass --nodeinfo NODE`. Output is
flushed after every line; fd 1 is kept for the protocol (reclass's warnings
go to stderr).
"""

import json
import os
import sys

protocol = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)

from reclass import get_storage  # noqa: E402
from reclass.core import Core  # noqa: E402
from reclass.settings import Settings  # noqa: E402


def render(inventory, options):
    storage = get_storage(
        "yaml_fs",
        os.path.join(inventory, "nodes"),
        os.path.join(inventory, "classes"),
        False,
    )
    settings = Settings(dict(options, ignore_class_notfound_warning=False))
    nodes = {}
    for name in sorted(storage.enumerate_nodes()):
        # A fresh Core per node: nothing is shared between nodes but files.
        core = Core(storage, None, settings)
        try:
            info = core.nodeinfo(name)
            params = info["parameters"]
            params.pop("_reclass_", None)
            nodes[name] = {
                "parameters": params,
                "exports": info["exports"],
                "classes": info["classes"],
            }
        except Exception as e:  # every failure is an answer
            message = str(e).strip().splitlines()
            nodes[name] = {"error": "%s: %s" % (type(e).__name__, " ".join(message))}
    return nodes


for line in sys.stdin:
    try:
        request = json.loads(line)
    except ValueError as e:
        reply = {"id": None, "error": str(e)}
    else:
        reply = {
            "id": request.get("id"),
            "nodes": render(request["inventory"], request.get("settings") or {}),
        }
    protocol.write(json.dumps(reply, default=repr) + "\n")
    protocol.flush()
