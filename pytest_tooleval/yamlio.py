"""Safe YAML loading (libyaml's C loader when available) for untrusted case files.

Before any Python object is built, a document whose aliases expand past ``MAX_NODES``
nodes or ``MAX_BYTES`` of text (alias and byte bombs), that nests deeper than
``MAX_DEPTH`` or refers to itself is refused (``YamlLimitError``); so is a key given twice.
An integer longer than ``MAX_INT_DIGITS`` stays a ``LongNumber`` (``cases/bounds.py``
refuses it where it stands).
"""

from __future__ import annotations

from typing import Any

import yaml

SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
MAX_NODES = 200_000  # after expanding aliases
MAX_BYTES = 8 * 2**20  # UTF-8 text of the scalars after expanding aliases; a case file's size
MAX_DEPTH = 64
MAX_INT_DIGITS = 4300  # Python's own default limit for converting integers to text


class LongNumber:
    """An integer whose text is longer than ``MAX_INT_DIGITS``, kept unconverted."""

    def __init__(self, text: str) -> None:
        self.length = len(text)

    def __repr__(self) -> str:
        return f"<an integer written with {self.length} characters>"


class YamlLimitError(yaml.YAMLError):
    """A document refused before construction; shaped like PyYAML's marked errors."""

    def __init__(self, problem: str, mark: Any = None) -> None:
        super().__init__(problem)
        self.problem = problem
        self.problem_mark = mark


class UniqueKeyLoader(SAFE_LOADER):  # type: ignore[misc, valid-type]
    """The safe loader, refusing a key given twice in one mapping (YAML would silently
    keep the last)."""

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

    def construct_long_int(self, node: Any) -> Any:
        if len(node.value) > MAX_INT_DIGITS:
            return LongNumber(node.value)
        try:
            return self.construct_yaml_int(node)
        except ValueError:  # past sys.get_int_max_str_digits()
            return LongNumber(node.value)


UniqueKeyLoader.add_constructor("tag:yaml.org,2002:int", UniqueKeyLoader.construct_long_int)


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def check_node(root: yaml.Node) -> None:
    """Refuse an alias or byte bomb, deep nesting or a recursive alias, without recursion."""
    measured: dict[int, tuple[int, int, int]] = {}  # nodes, text bytes, depth; aliases expanded
    visiting: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, finished = stack.pop()
        key = id(node)
        if finished:
            visiting.discard(key)
            kids = [measured[id(kid)] for kid in _children(node)]
            size = 1 + sum(kid[0] for kid in kids)
            text = (len(node.value.encode("utf-8", "surrogatepass"))
                    if isinstance(node, yaml.ScalarNode) else sum(kid[1] for kid in kids))
            depth = 1 + max((kid[2] for kid in kids), default=0)
            measured[key] = (size, text, depth)
            if size > MAX_NODES:
                raise YamlLimitError(
                    f"aliases expand this document past {MAX_NODES} nodes (an alias bomb?); "
                    "write the values out or use fewer aliases", node.start_mark)
            if text > MAX_BYTES:
                raise YamlLimitError(
                    f"aliases expand this document past {MAX_BYTES // 2**20} MiB of text "
                    "(a byte bomb?); write the values out or use fewer aliases",
                    node.start_mark)
            if depth > MAX_DEPTH:
                raise YamlLimitError(f"nested deeper than {MAX_DEPTH} levels", node.start_mark)
            continue
        if key in measured:
            continue
        visiting.add(key)
        stack.append((node, True))
        for kid in _children(node):
            if id(kid) in visiting:
                raise YamlLimitError("an alias refers to a node that contains it (a recursive "
                                     "alias); YAML case files must be trees", kid.start_mark)
            if id(kid) not in measured:
                stack.append((kid, False))


def safe_load(text: str) -> Any:
    loader = UniqueKeyLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        check_node(node)
        return loader.construct_document(node)
    finally:
        loader.dispose()
