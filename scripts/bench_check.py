"""Time ``tooleval check`` on a synthetic corpus of 650 cases (English and Turkish), or on
real folders.

    python scripts/bench_check.py [--cases 650] [--repeat 5]
    python scripts/bench_check.py --paths benchmarks scenarios [--stemmer snowball]

Prints the median and the fastest wall time of ``run_check`` over the corpus (loading,
guards, routing, near-duplicates), excluding interpreter start-up, and the first (cold)
run separately, and the process's CPU time (steadier than wall time on a shared machine).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from pathlib import Path

from pytest_tooleval.check.static import run_check
from pytest_tooleval.router.trigger_router import TriggerRouter

TEMPLATES = {
    "en": [
        ("what is {a} * {b}?", "calculator"),
        ("how many days until {month} {a}?", "date_diff"),
        ("convert {a} miles to km please", "convert_units"),
        ("what does my lease say about the deposit for flat {a}?", "search_documents"),
        ("list the files in the folder Projects/{word}", "list_directory"),
        ("unzip the archive backup-{a}.zip into Downloads", "extract_archive"),
        ("show me the git log for {word}.py", "git_log"),
        ("what's the dollar rate today, I need {a} of them", "web_search"),
        ("remind me to call {name} at {h} tomorrow", "reminder_add"),
        ("what's {name}'s phone number? ({a})", "contacts_lookup"),
        ("add a meeting with {name} on {month} {a} to my calendar", "calendar_add"),
        ("send a message to {name} saying I'm {a} minutes late", "send_message"),
    ],
    "tr": [
        ("{a} çarpı {b} kaç eder?", "calculator"),
        ("{month} {a} tarihine kaç gün kaldı?", "date_diff"),
        ("{a} mil kaç kilometre eder", "convert_units"),
        ("{a} numaralı daire için kira sözleşmesinde depozito ne kadar yazıyor?", "read_document"),
        ("Projeler/{word} klasöründe hangi dosyalar var", "list_directory"),
        ("yedek-{a}.zip dosyasını zipten çıkar", "extract_archive"),
        ("{word}.py için son commitleri göster, git log", "git_log"),
        ("dolar kuru bugün ne kadar, {a} dolar lazım", "web_search"),
        ("yarın saat {h}'de {name}'i aramayı bana hatırlat", "reminder_add"),
        ("{name}'in telefon numarası ne? ({a})", "contacts_lookup"),
        ("{month} {a} için {name} ile toplantıyı takvime ekle", "calendar_add"),
        ("{name}'e {a} dakika geç kalacağım diye mesaj at", "send_message"),
    ],
}
NAMES = ["Ayşe", "Mehmet", "Zeynep", "Alice", "Bob", "Carol", "Deniz", "Emre", "Selin", "Tom"]
MONTHS = ["March", "April", "May", "June", "Mart", "Nisan", "Mayıs", "Haziran"]
FILLER = [
    *("please", "quickly", "now", "again", "also", "really", "maybe", "honestly", "kindly"),
    *("urgently", "later", "soon", "today", "lütfen", "hemen", "şimdi", "yine", "acaba"),
    *("gerçekten", "belki", "rica", "ederim", "acil", "sonra", "bugün", "hızlıca", "thanks"),
    *("sağol", "okay", "tamam", "well", "so", "hey", "dear", "canım", "abi", "hocam", "bro"),
    *("mate", "sir", "madam", "efendim"),
]
WORDS = ["kestrel", "parser", "router", "engine", "atlas", "notes", "budget", "report"]


def build_corpus(root: Path, total: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    per_file = 50
    for index in range(0, total, per_file):
        language = "tr" if (index // per_file) % 2 else "en"
        cases = []
        for number in range(index, min(index + per_file, total)):
            template, tool = rng.choice(TEMPLATES[language])
            message = template.format(
                a=rng.randint(11, 99999),
                b=rng.randint(11, 9999),
                h=rng.randint(7, 22),
                month=rng.choice(MONTHS),
                name=rng.choice(NAMES),
                word=f"{rng.choice(WORDS)}{rng.randint(1, 999)}",
            )
            message += " " + " ".join(rng.sample(FILLER, 4))
            cases.append(
                {
                    "name": f"case-{number}",
                    "category": "tool",
                    "register": rng.choice(["formal", "whatsapp", "caps"]),
                    "steps": [{"message": message, "expect": tool}],
                }
            )
        requires = sorted({case["steps"][0]["expect"] for case in cases})
        data = {"name": f"bench-{index}", "language": language, "requires": requires}
        data["cases"] = cases
        path = root / language / f"bench-{index:04d}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cases", type=int, default=650)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--paths", nargs="+", type=Path, help="time these folders instead")
    parser.add_argument("--stemmer", default="light", choices=("light", "snowball"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        paths = args.paths or [root]
        if not args.paths:
            build_corpus(root, args.cases)
        timings = []
        cpu = []
        report = None
        for _ in range(args.repeat):
            started, cpu_started = time.perf_counter(), time.process_time()
            options = {"stemmer": args.stemmer} if args.stemmer != "light" else {}
            report = run_check(paths, router=TriggerRouter(**options))
            timings.append(time.perf_counter() - started)
            cpu.append(time.process_time() - cpu_started)
        assert report is not None
        print(
            f"{report.cases} cases, {report.files} files, {report.steps_routed} steps routed, "
            f"{len(report.failures)} failures, recall {report.recall.render().strip()}"
        )
        print(
            f"run_check: cold {timings[0] * 1000:.0f} ms, "
            f"median {statistics.median(timings) * 1000:.0f} ms, "
            f"fastest {min(timings) * 1000:.0f} ms over {args.repeat} runs; "
            f"CPU time cold {cpu[0] * 1000:.0f} ms, "
            f"median {statistics.median(cpu[1:] or cpu) * 1000:.0f} ms warm"
        )


if __name__ == "__main__":
    main()
