"""The inspect_ai side of scripts/bench_concurrency.py: the same cases as ours, for inspect_ai.

Run with inspect_ai's own environment (it is not a dependency of this project), whose
Python scripts/bench_concurrency.py takes as ``--inspect-python``:

    cd scripts && BENCH_CASES=300 BENCH_API_KEY=x BENCH_BASE_URL=http://127.0.0.1:PORT/v1 \
        INSPECT_PYTHON -m inspect_ai eval inspect_bench_task.py \
        --model openai-api/bench/bench --max-connections 32 --display none

Each sample is one user message that takes 2 model calls (a calculator call, then the
answer) and 1 tool call, against the loopback server of tests/support/fake_openai.py.
"""

from __future__ import annotations

import os

from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.scorer import includes
from inspect_ai.solver import generate, use_tools
from inspect_ai.tool import tool


def _word(number: int) -> str:
    """As scripts/bench_harness.py: the case's number in letters (no stray "42")."""
    return "".join("abcdefghij"[int(d)] for d in str(number))


@tool
def calculator():  # type: ignore[no-untyped-def]
    async def execute(expression: str) -> str:
        """Evaluate an arithmetic expression.

        Args:
            expression: The expression, such as 6*7.
        """
        left, _, right = expression.partition("*")
        return str(int(left) * int(right))

    return execute


@task
def bench() -> Task:
    cases = int(os.environ.get("BENCH_CASES", "300"))
    samples = [Sample(input=f"what is 6 * 7? (question {_word(i)})", target="42", id=i)
               for i in range(cases)]
    return Task(dataset=samples, solver=[use_tools(calculator()), generate()],
                scorer=includes())
