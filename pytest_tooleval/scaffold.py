"""``tooleval init [FOLDER]``: a starting project (a commented profile, an example
``@tool`` and three cases with gold paths) in an empty folder."""

from __future__ import annotations

CONFIG = """\
# The configuration of this project (docs/usage.md, "Options" and "Profiles").

# The model a run uses when no --model is given. smollm2-135m is the embedded default: a
# 135M model that runs inside the test process on the CPU, no server needed.
model = "smollm2-135m"

# Your own server (llama-server, vLLM, any OpenAI-compatible API): uncomment the table,
# adjust it, then set model = "my-server" above, or pass --model my-server to one run.
# Ollama needs no table: --model ollama:qwen3:4b.
#
# [models.my-server]
# base_url = "http://127.0.0.1:8080/v1"
# model = "qwen3-4b"            # the model id the server lists at /v1/models
# api_key_env = "MY_API_KEY"    # the name of the variable holding the key, never the key
"""

CONFTEST = '''\
"""Your tools: each @tool function is offered to the model beside the built-in tools
(docs/your-tools.md). Preview what one returns, for `gold` and `evidence`, with
`tooleval call order_status '{"order_id": "A-1042"}'`."""

from pytest_tooleval import tool

ORDERS = {
    "A-1042": {"status": "shipped", "carrier": "DHL", "arrives": "2026-03-12"},
    "B-2077": {"status": "packing", "carrier": None, "arrives": "2026-03-18"},
}


@tool
def order_status(order_id: str) -> dict:
    """Look up a customer order in our shop: its status, carrier and delivery date.

    Args:
        order_id: The order number, such as "A-1042".
    """
    if order_id not in ORDERS:
        raise KeyError(f"there is no order {order_id}")
    return {"order_id": order_id, **ORDERS[order_id]}
'''

BENCHMARK = """\
{
  "name": "my-first",
  "language": "en",
  "description": "A first benchmark of the example tool in conftest.py; see docs/format.md.",
  "requires": ["order_status"],
  "cases": [
    {
      "name": "order-status",
      "category": "tool",
      "steps": [{
        "message": "Which carrier is bringing my order A-1042?",
        "expect": "order_status",
        "gold": [{"tool": "order_status", "args": {"order_id": "A-1042"}}],
        "evidence": ["DHL"]
      }]
    },
    {
      "name": "thanks",
      "category": "irrelevance",
      "steps": [{"message": "thanks!"}]
    },
    {
      "name": "two-orders",
      "category": "chain",
      "steps": [
        {
          "message": "When will order A-1042 arrive?",
          "expect": "order_status",
          "gold": [{"tool": "order_status", "args": {"order_id": "A-1042"}}],
          "evidence": [["2026-03-12", "12 March", "March 12"]]
        },
        {
          "message": "And my other order, B-2077: where is it at?",
          "expect": "order_status",
          "gold": [{"tool": "order_status", "args": {"order_id": "B-2077"}}],
          "evidence": ["packing"]
        }
      ]
    }
  ]
}
"""

#: What ``init`` writes, relative to the folder, in order.
FILES: dict[str, str] = {
    "tooleval.toml": CONFIG,
    "conftest.py": CONFTEST,
    "benchmarks/my-first.json": BENCHMARK,
}

NEXT = """\
next:
  tooleval check --oracle benchmarks   # no model: proves every case passable by its gold path
  tooleval run                         # the cases in benchmarks/ and scenarios/ against
                                       # the model in tooleval.toml
"""
