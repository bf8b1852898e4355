"""Safe YAML loading, through libyaml's C loader when PyYAML was built with it (the same
safe subset, about ten times faster: the corpus check reads every scenario file).

Case files are shared, so they are untrusted input: before any Python object is built, the
node graph is measured, and a document whose aliases expand past ``MAX_NODES`` nodes (an
alias bomb: a kilobyte can stand for billions) or past ``MAX_BYTES`` of text (a byte bomb:
one long string referred to thousands of times), nests deeper than ``MAX_DEPTH``, or
refers to itself through an alias is refused with a ``YamlLimitError``. ``MAX_BYTES``
bounds a case file's size too, in JSON as in YAML (``cases/load.py``). A key given twice
in one mapping is refused too. An integer written with more than ``MAX_INT_DIGITS``
characters is not converted (Python refuses to, or takes quadratic time for YAML's base 60
form): it becomes a ``LongNumber``, which ``cases/bounds.py`` refuses where it stands.
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


def check_node(root: yaml.Node, max_nodes: int = MAX_NODES, max_depth: int = MAX_DEPTH,
               max_bytes: int = MAX_BYTES) -> None:
    """Refuse an alias or byte bomb, deep nesting or a recursive alias, without recursion."""
    size: dict[int, int] = {}
    text: dict[int, int] = {}  # bytes of scalar text, aliases expanded
    depth: dict[int, int] = {}
    visiting: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, finished = stack.pop()
        key = id(node)
        if finished:
            kids = _children(node)
            visiting.discard(key)
            size[key] = 1 + sum(size[id(kid)] for kid in kids)
            if isinstance(node, yaml.ScalarNode):
                text[key] = len(node.value.encode("utf-8", "surrogatepass"))
            else:
                text[key] = sum(text[id(kid)] for kid in kids)
            depth[key] = 1 + max((depth[id(kid)] for kid in kids), default=0)
            if size[key] > max_nodes:
                raise YamlLimitError(
                    f"aliases expand this document past {max_nodes} nodes (an alias bomb?); "
                    "write the values out or use fewer aliases", node.start_mark)
            if text[key] > max_bytes:
                raise YamlLimitError(
                    f"aliases expand this document past {max_bytes // 2**20} MiB of text "
                    "(a byte bomb?); write the values out or use fewer aliases",
                    node.start_mark)
            if depth[key] > max_depth:
                raise YamlLimitError(f"nested deeper than {max_depth} levels", node.start_mark)
            continue
        if key in size:
            continue
        visiting.add(key)
        stack.append((node, True))
        for kid in _children(node):
            if id(kid) in visiting:
                raise YamlLimitError("an alias refers to a node that contains it (a recursive "
                                     "alias); YAML case files must be trees", kid.start_mark)
            if id(kid) not in size:
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
