"""Start llama-cpp-python's own OpenAI-compatible server (``python -m llama_cpp.server``),
AMX-safe, for the real-server tests.

On CPUs with AMX, llama-cpp-python 0.3.36 repacks the weights into an AMX buffer and
crashes in the first batched decode (docs: shared spec "CPUs with AMX"). ``Llama(...)``
and the server's settings have no keyword for ``use_extra_bufts``, so this launcher sets
it to False on the model parameters before the server loads the model, when the CPU has
AMX; elsewhere the server runs unchanged.

    python -m tests.support.llama_cpp_server --model X.gguf --port N [server options]
"""

from __future__ import annotations

import runpy
import sys
from pathlib import Path


def cpu_has_amx() -> bool:
    try:
        flags = Path("/proc/cpuinfo").read_text()
    except OSError:
        return False
    return "amx_int8" in flags or "amx_tile" in flags


def disable_extra_buffer_types() -> None:
    """Make every model llama-cpp-python loads in this process skip the repacked buffers."""
    import llama_cpp.llama_cpp as native

    original = native.llama_model_default_params

    def params():  # type: ignore[no-untyped-def]
        value = original()
        value.use_extra_bufts = False
        return value

    native.llama_model_default_params = params


def main() -> None:
    if cpu_has_amx():
        disable_extra_buffer_types()
        print("llama_cpp_server: AMX CPU, use_extra_bufts=False", file=sys.stderr, flush=True)
    sys.argv = ["llama_cpp.server", *sys.argv[1:]]
    runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
