"""Setup of tests/integration/differential/reclass_cli/, with kapicorp-reclass's
own code (reclass/config.py, reclass/storage/yaml_fs).

`config FILE BASE REL SETTINGS`: writes FILE, kapicorp's config file, from
FILE as it is (a root's config text), else BASE/REL (the config file the root
carries), updated with SETTINGS (JSON: the options its users give reclass).

`nodes BASE`: in the current directory, prints the node names (JSON) of the
inventory based at BASE, its uris from the config file kapicorp's search
finds (`find_and_read_configfile`, whose first place is the current
directory), as `reclass -b BASE` would list them.
"""

import json
import os
import sys

import yaml
from reclass import get_path_mangler, get_storage
from reclass.config import find_and_read_configfile

mode = sys.argv[1]
if mode == "config":
    path, base, rel, settings = sys.argv[2:6]
    config = {}
    if os.path.isfile(path):
        with open(path) as f:
            config = yaml.safe_load(f) or {}
    elif rel:
        with open(os.path.join(base, rel)) as f:
            config = yaml.safe_load(f) or {}
    config.update(json.loads(settings))
    with open(path, "w") as f:
        yaml.safe_dump(config, f)
elif mode == "nodes":
    base = sys.argv[2]
    config = find_and_read_configfile()
    nodes, classes = get_path_mangler("yaml_fs")(
        base, config.get("nodes_uri"), config.get("classes_uri")
    )
    storage = get_storage(
        "yaml_fs", nodes, classes, config.get("compose_node_name", False)
    )
    print(json.dumps(sorted(storage.enumerate_nodes())))
