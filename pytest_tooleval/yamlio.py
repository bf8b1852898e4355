"""Safe YAML loading, through libyaml's C loader when PyYAML was built with it (the same
safe subset, about ten times faster: the corpus check reads every scenario file)."""

from __future__ import annotations

from typing import Any

import yaml

SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class UniqueKeyLoader(SAFE_LOADER):  # type: ignore[misc, valid-type]
    """The safe loader, refusing a key given twice in one mapping (YAML would keep the
    last silently: a second ``cases:`` drops the first list)."""

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        if isinstance(node, yaml.MappingNode):
            seen: dict[Any, Any] = {}
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=True)
                try:
                    first = seen.get(key)
                except TypeError:  # an unhashable key: the base class reports it
                    continue
                if first is not None:
                    raise yaml.constructor.ConstructorError(
                        "while reading a mapping", node.start_mark,
                        f"duplicate key {key!r} (first at line {first.line + 1}): YAML keeps "
                        "only the last, silently dropping the first; merge or rename them",
                        key_node.start_mark,
                    )
                seen[key] = key_node.start_mark
        return super().construct_mapping(node, deep=deep)


def safe_load(text: str) -> Any:
    return yaml.load(text, Loader=UniqueKeyLoader)
