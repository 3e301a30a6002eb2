#!/usr/bin/env python3
"""The layer rule, checked on every build (meson.build runs this script).

Each layer's private include path already holds only itself and the layers
below it, so a private #include that reaches upward fails to compile.  The
public headers all live in include/pldkit/, which every layer sees; this
script checks those: a source file or public header may include a public
header of its own layer or of a layer below it, never one above, and no
source file includes a path with "..".

Usage: check_layers.py SOURCE_ROOT STAMP_FILE   (writes STAMP_FILE if clean)
"""
import os
import re
import sys

# layer rank: a file of rank r may include headers of rank <= r
# (pld and rdp are parallel: neither sees the other)
LAYERS = {
    "core": 0,
    "pld": 1,
    "rdp": 1,
    "bounds": 2,
    "papers": 3,
    "catalogue": 4,
    "front": 9,
}

# every public header, by layer (include/pldkit/meson.build installs them)
HEADER_LAYER = {
    "status.h": "core",
    "version.h": "core",
    "pld.h": "pld",
    "mech.h": "pld",
    "accountant.h": "pld",
    "select.h": "pld",
    "ledger.h": "pld",
    "rdp.h": "rdp",
    "bridge.h": "bounds",
    "rdp_papers.h": "papers",
    "splitting.h": "papers",
    "bounded.h": "papers",
    "mspafl.h": "papers",
    "participation.h": "papers",
    "merge.h": "papers",
    "best.h": "bounds",
    "allocation.h": "papers",
    "samplers.h": "papers",
    "event.h": "catalogue",
    "dpevent.h": "catalogue",
    "pldkit.h": "front",
}

# source folders, by layer
DIR_LAYER = {
    "src": "core",
    "pld": "pld",
    "rdp": "rdp",
    "bounds": "bounds",
    "papers": "papers",
    "catalogue": "catalogue",
    "cli": "front",
}

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)


def visible(src_layer, hdr_layer):
    if src_layer == hdr_layer:
        return True
    if {src_layer, hdr_layer} == {"pld", "rdp"}:
        return False
    return LAYERS[hdr_layer] < LAYERS[src_layer]


def check_file(path, layer, errors):
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    for kind, name in INCLUDE.findall(text):
        if ".." in name:
            errors.append(f"{path}: #include of a relative path '{name}'")
        if kind == "<" and name.startswith("pldkit/"):
            hdr = name[len("pldkit/"):]
            if hdr not in HEADER_LAYER:
                errors.append(f"{path}: unknown public header '{name}' "
                              "(add it to tools/check_layers.py)")
                continue
            if not visible(layer, HEADER_LAYER[hdr]):
                errors.append(f"{path} ({layer} layer) includes <{name}> of "
                              f"the {HEADER_LAYER[hdr]} layer")


def main():
    root, stamp = sys.argv[1], sys.argv[2]
    errors = []
    pub = os.path.join(root, "include", "pldkit")
    for h in sorted(os.listdir(pub)):
        if h.endswith(".h") or h.endswith(".h.in"):
            name = h[:-3] if h.endswith(".in") else h
            if name not in HEADER_LAYER:
                errors.append(f"{pub}/{h}: public header without a layer "
                              "(add it to tools/check_layers.py)")
                continue
            check_file(os.path.join(pub, h), HEADER_LAYER[name], errors)
    for d, layer in DIR_LAYER.items():
        top = os.path.join(root, d)
        if not os.path.isdir(top):
            continue
        for dirpath, _, files in os.walk(top):
            for fn in sorted(files):
                if fn.endswith((".c", ".h")):
                    check_file(os.path.join(dirpath, fn), layer, errors)
    if errors:
        sys.stderr.write("layer rule violated:\n  " + "\n  ".join(errors) + "\n")
        return 1
    with open(stamp, "w") as f:
        f.write("ok\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
