"""Figures for the embedded default model (SmolLM2-135M through llama-cpp-python).

    python scripts/bench_embedded.py [tokens] [boundary] [throughput] [limit] [sample]
        [--sample-every 40] [--paths benchmarks scenarios]

- tokens: first-call prompt tokens the whole corpus evaluates, simulated with the
  backend's own planning (``kv_reuse``) on the real prompts and tokenizer: collection
  order and prefix order, with canonical and with unrestricted prefix
  reuse (what llama-cpp-python does by itself: faster, but order-dependent).
- boundary: the cost of one round trip to the model process.
- throughput: generated tokens per second through the harness (``LlamaBackend.complete``:
  render, the process boundary, canonical prefix reuse, parse) against llama-cpp-python
  called directly in this process on the same prompts (target: ratio >= 0.95).
- limit: this hardware's limit: llama-cpp-python alone on every Nth case's first prompt,
  prompt and generation tokens per second with one and two threads, and two one-thread
  processes at once (how the reference arms run), to set the run's own rates against.
- sample: runs every Nth case of each file through pytest in collection order and in prefix
  order; seconds per case, tokens
  evaluated, peak RSS of the pytest process and of the model process, how many per-case
  outcomes and transcripts differ between the orders, and the projected corpus time.

Figures are what this machine did while this ran; on a shared machine, rerun and compare.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pytest_tooleval.models.kv_reuse import common_prefix, plan  # noqa: E402
from pytest_tooleval.models.llama import LlamaBackend, cut_points  # noqa: E402


# -- the corpus's first-call prompts -------------------------------------------------------------
def first_prompts(paths: list[str], backend: LlamaBackend) -> dict[str, list[tuple[str, Any]]]:
    """Each case's first prompt, as the harness builds it, in collection and prefix order."""
    import pytest

    from pytest_tooleval.collect import CaseItem
    from pytest_tooleval.engine.loop import DEFAULT_SYSTEM_PROMPT
    from pytest_tooleval.run import ordering, runtime_of

    grabbed: dict[str, Any] = {}

    class Grab:
        @pytest.hookimpl(trylast=True)
        def pytest_collection_finish(self, session: pytest.Session) -> None:
            grabbed["items"] = [i for i in session.items if isinstance(i, CaseItem)]
            grabbed["session"] = runtime_of(session.config).session()

    import contextlib
    import io

    with contextlib.redirect_stdout(io.StringIO()):
        code = pytest.main([*paths, "--collect-only", "-q", "-p", "no:cacheprovider",
                            "--tooleval-order", "collection"], plugins=[Grab()])
    if code != 0 or "items" not in grabbed:
        raise SystemExit(f"collection failed (pytest exit {code})")
    session, items = grabbed["session"], grabbed["items"]
    system = session.system_prompt or DEFAULT_SYSTEM_PROMPT

    def prompt_of(item: Any) -> tuple[str, Any]:
        catalogue = session.catalogue_for(item.case_file, item.nodeid.split("::")[0])
        step = item.case.steps[0]
        shown = set(session.router_factory(item.case_file).route(
            step.message, item.case_file.language, catalogue.specs).tools)
        specs = [spec for spec in catalogue.specs if spec.name in shown]
        messages = [{"role": "system", "content": system},
                    {"role": "user", "content": step.message}]
        text = backend.prompt.build(messages, specs)
        content = backend.prompt.messages_for_template(messages, specs)[0]["content"]
        return item.nodeid, (text, cut_points(text, content))

    collection = [prompt_of(item) for item in items]
    by_id = dict(collection)
    prefix = ordering.prefix_order(items, session, lambda item: True)
    return {"collection": collection,
            "prefix": [(item.nodeid, by_id[item.nodeid]) for item in prefix]}


def tokenized(backend: LlamaBackend, prompts: list[tuple[str, Any]]) -> list[Any]:
    from pytest_tooleval.models.kv_reuse import aligned_boundaries
    from pytest_tooleval.models.llama_worker import MIN_SEGMENT

    out = []
    cache: dict[str, list[int]] = {}

    def tokens_of(text: str) -> list[int]:
        if text not in cache:
            cache[text] = backend.process.request({"op": "tokenize", "text": text})["tokens"]
        return cache[text]

    for _, (text, cuts) in prompts:
        tokens = tokens_of(text)
        prefixes = [tokens_of(text[:cut]) for cut in sorted(set(cuts)) if 0 < cut < len(text)]
        out.append((tokens, aligned_boundaries(tokens, prefixes, MIN_SEGMENT)))
    return out


def simulate(prompts: list[Any]) -> int:
    """Tokens evaluated, following ``llama_worker.Engine.evaluate`` step for step."""
    context: list[int] = []
    canonical: tuple[int, ...] = ()
    evaluated = 0
    for tokens, boundaries in prompts:
        step = plan(context, canonical, tokens, boundaries, continues=False)
        evaluated += len(tokens) - step.keep
        context, canonical = tokens, step.canonical
    return evaluated


def unrestricted(prompts: list[Any]) -> int:
    context: list[int] = []
    evaluated = 0
    for tokens, _ in prompts:
        evaluated += len(tokens) - min(common_prefix(context, tokens), len(tokens) - 1)
        context = tokens
    return evaluated


def tokens_figures(args: argparse.Namespace) -> None:
    backend = LlamaBackend(grammar="off", n_ctx=8192)
    try:
        orders = first_prompts(args.paths, backend)
        print(f"[tokens] first-call prompts of {len(orders['collection'])} cases")
        total = None
        for name, prompts in orders.items():
            toks = tokenized(backend, prompts)
            total = sum(len(t) for t, _ in toks)
            rows = [("unrestricted reuse (order-dependent)", unrestricted(toks))]
            rows.append(("canonical reuse", simulate(toks)))
            for label, count in rows:
                print(f"  {name:<10} {label:<40} {count:>9} of {total} tokens "
                      f"({100 * count / total:5.1f} %)")
    finally:
        backend.close()


# -- the process boundary -----------------------------------------------------------------------
def boundary_figures(args: argparse.Namespace) -> None:
    backend = LlamaBackend(grammar="off", n_ctx=512)
    try:
        times = []
        for _ in range(args.round_trips):
            started = time.perf_counter()
            backend.process.request({"op": "stats"})
            times.append(time.perf_counter() - started)
        times.sort()
        print(f"[boundary] round trip to the model process: median "
              f"{1e6 * statistics.median(times):.0f} µs, p95 "
              f"{1e6 * times[int(0.95 * len(times))]:.0f} µs over {len(times)} requests")
    finally:
        backend.close()


# -- harness against llama-cpp-python directly ----------------------------------------------------
QUESTIONS = [
    "What is the weather in Paris?", "Use the add tool to add 2 and 3.",
    "Show me the contents of README.md.", "Write a haiku about the sea.",
    "Is it raining in Tokyo right now?", "What is 40 plus 2?",
]


def throughput_figures(args: argparse.Namespace) -> None:
    import llama_cpp

    from pytest_tooleval.models import llama_cpu
    from pytest_tooleval.models.llama_worker import model_params_with
    from tests.models.conftest import ADD, WEATHER

    tools = [WEATHER, ADD]
    backend = LlamaBackend(grammar="off", n_ctx=2048, max_tokens=args.max_tokens, seed=1234,
                           n_threads=args.threads)
    choice = llama_cpu.choose(None, llama_cpp.llama_print_system_info().decode())
    with model_params_with(llama_cpp, choice.use_extra_bufts):
        direct = llama_cpp.Llama(model_path=str(backend.model_path), n_ctx=2048,
                                 n_threads=backend.n_threads,
                                 n_threads_batch=backend.n_threads, seed=1234, verbose=False)
    conversations = [[{"role": "user", "content": q}] for q in QUESTIONS]
    prompts = [backend.prompt.build(c, tools) for c in conversations]
    settings = {"max_tokens": args.max_tokens, "temperature": 0.0, "seed": 1234,
                "stop": [backend.eos_text], **backend.sampling}
    best = {"harness": [float("inf")] * len(prompts), "direct": [float("inf")] * len(prompts)}
    counts = {"harness": [0] * len(prompts), "direct": [0] * len(prompts)}
    same = True
    try:
        for round_ in range(args.rounds + 1):  # round 0 warms up
            for i in range(len(prompts)):
                texts = {}
                for side in (("harness", "direct") if (round_ + i) % 2 else ("direct", "harness")):
                    started = time.perf_counter()
                    if side == "harness":
                        turn = backend.complete(conversations[i], tools)
                        count, texts[side] = turn.completion_tokens or 0, backend.last_output
                    else:
                        out = direct.create_completion(prompts[i], **settings)
                        assert isinstance(out, dict)  # not streamed
                        count = out["usage"]["completion_tokens"]
                        texts[side] = out["choices"][0]["text"]
                    elapsed = time.perf_counter() - started
                    if round_:
                        best[side][i] = min(best[side][i], elapsed)
                        counts[side][i] = count
                same &= texts["harness"] == texts["direct"]
        rate = {side: sum(counts[side]) / sum(best[side]) for side in best}
        print(f"[throughput] harness {rate['harness']:.1f} tok/s, direct {rate['direct']:.1f} "
              f"tok/s, ratio {rate['harness'] / rate['direct']:.3f} (best of {args.rounds} "
              f"rounds, {len(prompts)} prompts, {sum(counts['harness'])} tokens, "
              f"{backend.n_threads} threads; identical outputs: {same})")
    finally:
        backend.close()
        direct.close()


# -- this hardware's limit: llama.cpp alone on the corpus's prompts -------------------------------
def _direct_rates(model_path: str, prompts: list[str], threads: int, generate: int,
                  use_extra_bufts: bool) -> dict[str, float]:
    """Prompt and generation tokens per second of llama-cpp-python called directly: each
    prompt evaluated from an empty context, then ``generate`` tokens greedily after it."""
    import llama_cpp

    from pytest_tooleval.models.llama_worker import model_params_with

    with model_params_with(llama_cpp, use_extra_bufts):
        llm = llama_cpp.Llama(model_path=model_path, n_ctx=4096, n_threads=threads,
                              n_threads_batch=threads, seed=1234, verbose=False)
    evaluated = generated = 0
    eval_s = generate_s = 0.0
    try:
        for text in prompts:
            tokens = llm.tokenize(text.encode(), add_bos=False, special=True)
            llm.reset()  # from an empty context: the prompt, then greedy tokens one at a time
            started = time.perf_counter()
            first = started
            count = 0
            for _ in llm.generate(tokens, top_k=1, top_p=1.0, min_p=0.0, temp=0.0):
                count += 1
                if count == 1:  # the prompt is evaluated before the first token comes
                    first = time.perf_counter()
                if count == generate + 1:
                    break
            eval_s += first - started
            generate_s += time.perf_counter() - first
            evaluated += len(tokens)
            generated += count - 1
    finally:
        llm.close()
    return {"prompt_tok_s": evaluated / eval_s, "generate_tok_s": generated / generate_s,
            "tokens": evaluated}


def _rates_in_child(arguments: tuple[str, list[str], int, int, bool], out: Any) -> None:
    out.put(_direct_rates(*arguments))


def limit_figures(args: argparse.Namespace) -> None:
    import multiprocessing

    import llama_cpp

    from pytest_tooleval.models import llama_cpu

    backend = LlamaBackend(grammar="off", n_ctx=8192)
    try:
        sample = first_prompts(args.paths, backend)["collection"][::args.sample_every]
        model_path = str(backend.model_path)
    finally:
        backend.close()
    prompts = [text for _, (text, _) in sample]
    bufts = llama_cpu.choose(None, llama_cpp.llama_print_system_info().decode()).use_extra_bufts
    print(f"[limit] llama-cpp-python {llama_cpp.__version__} directly, {len(prompts)} first "
          f"prompts of the corpus (every {args.sample_every}th case), each from an empty "
          f"context, then {args.max_tokens} tokens generated; {os.cpu_count()} cores, load "
          f"{os.getloadavg()[0]:.1f}")
    for threads in (1, 2):
        rates = _direct_rates(model_path, prompts, threads, args.max_tokens, bufts)
        print(f"  one process, {threads} thread(s): prompt {rates['prompt_tok_s']:.0f} tok/s, "
              f"generation {rates['generate_tok_s']:.1f} tok/s "
              f"({rates['tokens'] / len(prompts):.0f} prompt tokens on average)")
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    children = [context.Process(target=_rates_in_child, args=(
        (model_path, prompts, 1, args.max_tokens, bufts), queue)) for _ in range(2)]
    for child in children:
        child.start()
    both = [queue.get() for _ in children]
    for child in children:
        child.join()
    print(f"  two processes at once, 1 thread each (summed): prompt "
          f"{sum(r['prompt_tok_s'] for r in both):.0f} tok/s, generation "
          f"{sum(r['generate_tok_s'] for r in both):.1f} tok/s")


# -- a fixed sample through pytest ----------------------------------------------------------------
def run_sample(args: argparse.Namespace, order: str, out: Path) -> dict[str, Any]:
    stats = out / "stats.jsonl"
    env = {**os.environ, "TOOLEVAL_LLAMA_STATS": str(stats),
           "PYTHONPATH": str(ROOT) + (os.pathsep + os.environ["PYTHONPATH"]
                                      if os.environ.get("PYTHONPATH") else "")}
    command = [sys.executable, "-m", "pytest", *args.paths, "-q", "-p", "no:cacheprovider",
               "--tooleval-sample", str(args.sample_every), "--tooleval-order", order,
               "--tooleval-report", str(out), "--tooleval-partial", "pass"]
    started = time.perf_counter()
    subprocess.run(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - started
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    lines = stats.read_text(encoding="utf-8").splitlines() if stats.exists() else []
    totals = json.loads(lines[-1]) if lines else {}
    return {"wall": wall, "report": report, "stats": totals}


def _transcript(case: dict[str, Any]) -> str:
    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items()
                    if k not in ("latency_s", "duration_s")}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    return json.dumps(strip([step.get("transcript") for step in case.get("steps", [])]),
                      sort_keys=True)


def sample_figures(args: argparse.Namespace) -> None:
    runs = {}
    with tempfile.TemporaryDirectory(prefix="bench-embedded-") as tmp:
        for label, order in (("collection order", "collection"), ("prefix order", "prefix")):
            out = Path(tmp) / label.replace(" ", "-")
            runs[label] = run_sample(args, order, out)
    print(f"[sample] every {args.sample_every}th case of each file, grammar on, "
          f"{os.cpu_count()} cores")
    for label, run in runs.items():
        cases = run["report"]["cases"]
        totals = run["stats"].get("totals", {})
        seconds = sum(case.get("duration_s") or 0 for case in cases)
        print(f"  {label:<26} {len(cases)} cases, {run['wall']:.0f} s wall, "
              f"{seconds / max(1, len(cases)):.2f} s/case, prompt tokens evaluated "
              f"{totals.get('evaluated')} of {totals.get('prompt_tokens')}, "
              f"peak RSS pytest {run['stats'].get('controller_max_rss_kib', 0) // 1024} MiB, "
              f"model process {run['stats'].get('max_rss_kib', 0) // 1024} MiB")
    base = {c["nodeid"]: c for c in runs["collection order"]["report"]["cases"]}
    for label, run in list(runs.items())[1:]:
        other = {c["nodeid"]: c for c in run["report"]["cases"]}
        shared = sorted(set(base) & set(other))
        outcomes = sum(base[n]["outcome"] != other[n]["outcome"] for n in shared)
        transcripts = sum(_transcript(base[n]) != _transcript(other[n]) for n in shared)
        print(f"  {label} against collection order: {outcomes} of {len(shared)} outcomes "
              f"differ, {transcripts} transcripts differ")
    total_cases = args.corpus_cases
    for label, run in runs.items():
        cases = run["report"]["cases"]
        per_case = sum(c.get("duration_s") or 0 for c in cases) / max(1, len(cases))
        print(f"  projected full corpus ({total_cases} cases), {label}: "
              f"{per_case * total_cases / 60:.0f} min (s/case of this sample x cases)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("parts", nargs="*", default=["tokens", "boundary", "throughput",
                                                     "sample"])
    parser.add_argument("--paths", nargs="+", default=["benchmarks", "scenarios"])
    parser.add_argument("--sample-every", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--round-trips", type=int, default=300)
    parser.add_argument("--max-tokens", type=int, default=48)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--corpus-cases", type=int, default=674)
    args = parser.parse_args()
    os.chdir(ROOT)
    figures = {"tokens": tokens_figures, "boundary": boundary_figures,
               "throughput": throughput_figures, "limit": limit_figures,
               "sample": sample_figures}
    for part in args.parts:
        figures[part](args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
