"""The schema of variant files, derived from the ruleset schema and the merge rules (one source of truth).

``python -m biblios_kit.rules.variant`` rewrites ``variant.schema.json`` after a change to
``ruleset.schema.json``; a test checks that the shipped file is the derived one.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from biblios_kit.rules.merge import ATOMIC
from biblios_kit.rules.schema import VARIANT_OWN_FIELDS, VARIANT_SCHEMA_PATH, ruleset_schema


def variant_schema() -> dict[str, Any]:
    """The schema of a variant file, derived from the ruleset schema (one source of truth).

    A variant writes only what it changes, so every field is optional except
    :data:`VARIANT_OWN_FIELDS`, and ``null`` (a removal) is allowed where a removal leaves a
    valid ruleset: an entry of a collection (a category, a church card, a player count...) or a
    field that is optional in a full ruleset. Values the merge replaces whole (list items, a
    term in one language) keep the full schema; an option's ``changes`` is a patch like the
    variant itself. ``rules validate`` still checks the merged result against the full schema.
    """
    full = ruleset_schema()
    defs: dict[str, Any] = dict(copy.deepcopy(full.get("$defs", {})))

    def atomic(path: tuple[str, ...]) -> bool:
        return any(
            len(pattern) == len(path) and all(p in ("*", key) for p, key in zip(pattern, path)) for pattern in ATOMIC
        )

    def nullable(node: dict[str, Any]) -> dict[str, Any]:
        node = dict(node)
        kind = node.get("type")
        if isinstance(kind, str):
            node["type"] = [kind, "null"]
        elif isinstance(kind, list):
            node["type"] = [*kind, "null"] if "null" not in kind else kind
        elif "enum" in node:
            node["enum"] = [*node["enum"], None]
        else:
            described = {"description": node["description"]} if "description" in node else {}
            return {"anyOf": [node, {"type": "null"}], **described}
        return node

    def patch(node: Any, path: tuple[str, ...]) -> Any:
        if not isinstance(node, dict) or atomic(path):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            name = ref.removeprefix("#/$defs/")
            patched = f"{name}_patch"
            if patched not in defs:
                defs[patched] = {}  # reserved first: a definition may refer to itself
                defs[patched] = patch(full["$defs"][name], path)
            if defs[patched] == full["$defs"][name]:
                del defs[patched]  # nothing to relax in it (a die, a ceiling): the full definition
                return node
            return {**node, "$ref": f"#/$defs/{patched}"}
        if "properties" not in node and not isinstance(node.get("additionalProperties"), dict):
            return node  # a scalar, or a list: replaced whole
        out = {
            key: value for key, value in node.items() if key not in ("required", "minProperties", "if", "then", "else")
        }
        required = set(node.get("required", ()))
        if "properties" in node:
            out["properties"] = {}
            for key, sub in node["properties"].items():
                relaxed = patch(sub, (*path, key))
                out["properties"][key] = relaxed if key in required else nullable(relaxed)
        if isinstance(node.get("additionalProperties"), dict):
            out["additionalProperties"] = nullable(patch(node["additionalProperties"], (*path, "*")))
        return out

    edition = {k: v for k, v in full.items() if k not in ("$defs", "$schema", "$id", "title", "description")}
    edition["required"] = full.get("else", {}).get("required", [])  # what a complete edition must set
    body = patch(edition, ())
    properties = body["properties"]
    for name in ("extends", "format", "id", "title", "description", "version"):
        properties[name] = patch(full["properties"][name], (name,))  # set or inherited, never removed
    option = properties["options"]["additionalProperties"]
    option = option["anyOf"][0] if "anyOf" in option else option
    option["properties"]["changes"] = {
        **option["properties"]["changes"],
        "$ref": "#/$defs/patch",  # the same fields and the same merge rules as a variant
    }
    defs["patch"] = copy.deepcopy(body)
    root = {
        "$schema": full["$schema"],
        "$id": full["$id"].replace("ruleset.schema.json", "variant.schema.json"),
        "title": "biblios-kit variant",
        "description": (
            "A variant: a file that extends a ruleset and writes only what it changes; null removes an entry"
            " (see docs/rulesets.md). `biblios-kit rules validate` checks the merged result."
        ),
        **body,
        "required": list(VARIANT_OWN_FIELDS),
    }
    text = json.dumps(root)
    root["$defs"] = {name: sub for name, sub in defs.items() if f'"#/$defs/{name}"' in text or name == "patch"}
    return root


def variant_schema_text() -> str:
    """:func:`variant_schema` as the packaged file holds it (JSON, two-space indent)."""
    return json.dumps(variant_schema(), indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":  # python -m biblios_kit.rules.variant: rewrite the variant schema after a change
    VARIANT_SCHEMA_PATH.write_text(variant_schema_text(), encoding="utf-8")
    print(f"wrote {VARIANT_SCHEMA_PATH}")
