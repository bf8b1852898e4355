"""The order cases run in: grouped by the prompt prefix they share.

Cases are independent, so the order is free. A backend with ``prefix_order`` (the
embedded model) reuses the KV state of the prompt prefix it evaluated last, so sorting by
the first step's shown tools, in prompt order, runs cases sharing a prefix together. The
sort is deterministic (xdist workers collect the same order); transcripts do not depend on
it, only the time does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from pytest_tooleval.models.base import Backend, BackendConfigError
from pytest_tooleval.models.registry import backend_class, grammar_mode
from pytest_tooleval.router.base import routed

if TYPE_CHECKING:
    from pytest_tooleval.run.runtime import Runtime

ORDERS = ("auto", "prefix", "collection")


def add_option(parser: pytest.Parser) -> None:
    parser.getgroup("tooleval").addoption(
        "--tooleval-order", choices=ORDERS, default="auto", dest="tooleval_order",
        help="case order: prefix (cases sharing a prompt prefix together: faster on a CPU), "
        "collection (file order), auto (prefix for a backend that reuses a prompt prefix, "
        "such as the embedded model; the default)")


def wanted(config: pytest.Config, runtime: Runtime) -> bool:
    """Whether to order: ordering builds the session, so under ``--collect-only`` only when
    asked for. ``auto`` asks the backend class: of a hook's session, its ``backend_factory``
    (a class); else the profile's. A backend that cannot be had is its cases' error later."""
    order = str(config.getoption("tooleval_order", "auto"))
    if order != "auto" or config.option.collectonly:
        return order == "prefix"
    session, settings, profile = runtime.session(), runtime.settings, runtime.profile
    if runtime.session_source != "builtin":
        factory = session.backend_factory
        return isinstance(factory, type) and issubclass(factory, Backend) and factory.prefix_order
    try:
        return backend_class(profile.kind, grammar_mode(settings, profile)).prefix_order
    except BackendConfigError:
        return False


def prefix_key(session: Any, item: Any) -> tuple[tuple[int, str], ...]:
    """The tools the first step shows, as the prompt lists them (catalogue order)."""
    case_file, case = item.case_file, item.case
    specs = session.catalogue_for(case_file, item.nodeid.split("::")[0]).specs
    router = session.router_for(case_file, case)
    shown = set(routed(router, case.steps[0].message, case_file.language, specs).tools)
    return tuple((index, spec.name) for index, spec in enumerate(specs) if spec.name in shown)


def prefix_order(items: list[Any], session: Any, is_case: Any) -> list[Any]:
    """``items`` with the cases (``is_case(item)``) sorted by ``prefix_key`` in the places
    cases held, everything else where it was; ties keep the collection order."""
    cases = iter(sorted((item for item in items if is_case(item)),
                        key=lambda item: prefix_key(session, item)))
    return [next(cases) if is_case(item) else item for item in items]
