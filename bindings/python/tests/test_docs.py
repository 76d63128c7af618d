"""Every Python example of the docs, run: the ```python blocks of the
README, of bindings/python/README.md and of docs/first-suite.md, and the
module docstring's example.

A file's blocks run in order, each in a namespace that holds ``uidrive``,
``desktop`` (the session's headless desktop) and ``app`` (gtk3-widget-factory
launched on it), as the READMEs say; a block that defines ``test_*``
functions has each of them called with the plugin's ``app`` fixture.
"""

from __future__ import annotations

import inspect
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
import uidrive
from uidrive.pytest_plugin import AppFactory

REPO = Path(__file__).resolve().parents[3]
FENCED = re.compile(r"^```python\n(.*?)^```", re.M | re.S)


def fenced_blocks(relative: str) -> list[tuple[str, str]]:
    text = (REPO / relative).read_text()
    return [
        (f"{relative}:{text[: m.start()].count(chr(10)) + 1}", m.group(1))
        for m in FENCED.finditer(text)
    ]


def docstring_example() -> list[tuple[str, str]]:
    """The indented example of the module docstring (between its first
    paragraph and the next unindented line)."""
    doc = uidrive.__doc__ or ""
    lines = doc.split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith("    "))
    unindented = (i for i in range(start, len(lines)) if lines[i] and not lines[i][0].isspace())
    end = next(unindented, len(lines))
    return [("uidrive.__doc__", textwrap.dedent("\n".join(lines[start:end])))]


EXAMPLES = (
    fenced_blocks("README.md")
    + fenced_blocks("bindings/python/README.md")
    + fenced_blocks("docs/first-suite.md")
    + docstring_example()
)


def test_the_docs_have_examples() -> None:
    assert len(EXAMPLES) >= 7, [where for where, _ in EXAMPLES]


@pytest.mark.parametrize("where,code", EXAMPLES, ids=[where for where, _ in EXAMPLES])
def test_example_runs(
    where: str,
    code: str,
    launch_app: AppFactory,
    desktop: uidrive.Desktop,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)  # an example that writes a file (trace.zip) writes it here
    namespace: dict[str, Any] = {"uidrive": uidrive, "desktop": desktop}
    if "app." in code and "def test_" not in code and "as app" not in code:
        namespace["app"] = launch_app(["gtk3-widget-factory"])
    exec(compile(code, where, "exec"), namespace)
    for name, function in list(namespace.items()):
        if name.startswith("test_") and callable(function):
            # The plugin's fixtures as pytest would give them: `app` launched
            # from the test's uidrive_app marker, `launch_app` the factory.
            arguments = inspect.signature(function).parameters
            given: dict[str, Any] = {}
            if "launch_app" in arguments:
                given["launch_app"] = launch_app
            if "app" in arguments:
                marks = [m for m in getattr(function, "pytestmark", []) if m.name == "uidrive_app"]
                assert marks, f"{where}: {name} takes `app` but has no uidrive_app marker"
                argv = marks[0].args[0]
                given["app"] = launch_app(
                    argv.split() if isinstance(argv, str) else list(argv), **marks[0].kwargs
                )
            function(**given)


# --- Every block of README.md and docs/*.md: run, compiled, parsed, or marked ---
#
# A block the tests cannot run here (it installs from a registry, builds in
# release, needs a jar) carries a mark on the line before its fence,
# ``<!-- not run: REASON -->``, and the reason must say why. Shell blocks run
# in a temp dir with the wheel's `uidrive` on PATH; C blocks compile with
# -Wall -Werror against include/uidrive.h; YAML, TOML and XML blocks parse and
# a CI example's `run:` steps name commands that exist; Python, JavaScript,
# Rust and Go blocks are run by the suites that say so (checked below).

BLOCK = re.compile(
    r"^(?P<indent> *)```(?P<lang>[^\n`]*)\n(?P<body>.*?)^(?P=indent)```", re.M | re.S
)
MARK = re.compile(r"^<!-- not run: (?P<reason>.*?) -->$")
DOC_PAGES = [
    "README.md",
    *sorted(p.relative_to(REPO).as_posix() for p in (REPO / "docs").glob("*.md")),
]
# Blocks that show output or syntax, not code to run.
NOT_CODE = {"", "text", "console", "output"}


class Block:
    def __init__(self, page: str, line: int, lang: str, body: str, mark: str | None) -> None:
        self.page, self.line, self.lang, self.body, self.mark = page, line, lang, body, mark
        self.where = f"{page}:{line}"


def doc_blocks() -> list[Block]:
    found = []
    for page in DOC_PAGES:
        text = (REPO / page).read_text()
        for m in BLOCK.finditer(text):
            line = text[: m.start()].count("\n") + 1
            before = [b for b in text[: m.start()].split("\n")[:-1] if b.strip()]
            mark = MARK.match(before[-1].strip()) if before else None
            lang = m.group("lang").strip().split(",")[0]
            body = textwrap.dedent(m.group("body"))
            found.append(Block(page, line, lang, body, mark.group("reason") if mark else None))
    return found


DOC_BLOCKS = doc_blocks()


def covered_elsewhere(lang: str) -> set[str]:
    """The pages whose blocks of `lang` another suite runs, as that suite names them."""
    if lang == "python":
        return {where.split(":")[0] for where, _ in EXAMPLES}
    if lang == "js":
        runner = (REPO / "bindings/node/test/docs.test.mjs").read_text()
        return set(re.findall(r"blocks\('([^']+)'\)", runner))
    if lang == "rust":
        lib = (REPO / "crates/core/src/lib.rs").read_text()
        return set(re.findall(r'include_str!\("\.\./\.\./\.\./([^"]+)"\)', lib))
    if lang == "go":
        runner = (REPO / "tests/c_abi/run.sh").read_text()
        return set(re.findall(r"(docs/[\w-]+\.md)", runner))
    return set()


CHECKED_HERE = {"sh", "bash", "c", "yaml", "toml", "xml"}


def test_every_block_is_run_or_says_why_not() -> None:
    assert len(DOC_BLOCKS) > 150, len(DOC_BLOCKS)
    unaccounted = []
    for block in DOC_BLOCKS:
        if block.mark is not None:
            # A mark names its reason: a few words at least, not a bare "skip".
            assert len(block.mark.split()) >= 4, f"{block.where}: say why it is not run"
            continue
        if block.lang in NOT_CODE or block.lang in CHECKED_HERE:
            continue
        if block.page not in covered_elsewhere(block.lang):
            unaccounted.append(f"{block.where} ({block.lang})")
    assert not unaccounted, (
        "blocks no suite runs; run them, or mark them <!-- not run: REASON -->: "
        + ", ".join(unaccounted)
    )


def test_marked_blocks_name_files_that_exist() -> None:
    """What a block that is not run names in the repository is there."""
    repo_path = re.compile(
        r"^(?:\./)?(?:scripts|crates|bindings|tests|docs|bench|include)/[\w./-]+$"
    )
    missing = []
    marked = [b for b in DOC_BLOCKS if b.mark is not None]
    assert marked
    for block in marked:
        for token in re.split(r"[\s'\"=]+", block.body):
            if repo_path.match(token) and not (REPO / token).exists():
                missing.append(f"{block.where}: {token}")
        for path in re.findall(r"((?:tests|crates|bindings|scripts)/[\w./-]+\w)", block.mark or ""):
            if not (REPO / path).exists():
                missing.append(f"{block.where} (its mark): {path}")
    assert not missing, missing


SH_BLOCKS = [b for b in DOC_BLOCKS if b.lang in ("sh", "bash") and b.mark is None]


def test_the_docs_have_shell_blocks_that_run() -> None:
    assert SH_BLOCKS, "no shell block runs: the README's agent example should"


@pytest.mark.parametrize("block", SH_BLOCKS, ids=[b.where for b in SH_BLOCKS])
def test_shell_block_runs(block: Block, tmp_path: Path) -> None:
    env = dict(os.environ)
    # The wheel's own command, as a user of the wheel has it.
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["UIDRIVE_SESSION"] = f"docs-{os.getpid()}-{block.line}"
    env.pop("PYTEST_XDIST_WORKER", None)
    run = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", block.body],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    if run.returncode != 0:
        # Leave no session daemon behind when the block failed midway.
        subprocess.run(["bash", "-c", "uidrive close"], cwd=tmp_path, env=env, capture_output=True)
    assert run.returncode == 0, f"{block.where}:\n{block.body}\n{run.stdout}\n{run.stderr}"


C_BLOCKS = [b for b in DOC_BLOCKS if b.lang == "c" and b.mark is None]
PROTOTYPE = re.compile(r"^[\w\s*]+\b\w+\([^;{}]*\);$")


def test_c_blocks_compile(tmp_path: Path) -> None:
    """Whole programs compile as they are; prototypes are declared again
    after the header (so each must match it); fragments compile as the body
    of a function that has an ``app`` in scope. Errors point at the page."""
    cc = shutil.which("cc") or shutil.which("gcc")
    assert cc, "a C compiler (scripts/install-deps.sh installs gcc)"
    assert len(C_BLOCKS) > 100, len(C_BLOCKS)
    shared = [
        "#include <stdbool.h>",
        "#include <stdint.h>",
        "#include <stdio.h>",
        "#include <stdlib.h>",
        "#include <string.h>",
        "#include <uidrive.h>",
    ]
    programs = []
    for n, block in enumerate(C_BLOCKS):
        located = f'#line {block.line + 1} "{block.page}"\n{block.body}'
        if "#include" in block.body or re.search(r"\bint main\(", block.body):
            programs.append((n, located))
        elif all(PROTOTYPE.match(line) for line in block.body.strip().splitlines()):
            shared.append(located)
        else:
            shared.append(f"void docs_block_{n}(ud_app *app);\nvoid docs_block_{n}(ud_app *app) {{")
            shared.append(located + "\n(void)app;\n}")
    units = [("blocks", "\n".join(shared) + "\n"), *[(f"program_{n}", s) for n, s in programs]]
    for name, source in units:
        path = tmp_path / f"{name}.c"
        path.write_text(source)
        compiled = subprocess.run(
            [
                cc,
                "-std=c11",
                "-Wall",
                "-Werror",
                "-fsyntax-only",
                "-I",
                str(REPO / "include"),
                str(path),
            ],
            capture_output=True,
            text=True,
        )
        assert compiled.returncode == 0, compiled.stderr


YAML_BLOCKS = [b for b in DOC_BLOCKS if b.lang == "yaml" and b.mark is None]


def test_yaml_blocks_parse_and_run_steps_name_real_commands() -> None:
    import yaml

    assert YAML_BLOCKS, "the CI example of docs/first-suite.md"
    shell_commands = {
        line.split()[0]
        for b in DOC_BLOCKS
        if b.lang in ("sh", "bash")
        for line in b.body.splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    }
    for block in YAML_BLOCKS:
        document = yaml.safe_load(block.body)
        steps = [step for job in document["jobs"].values() for step in job["steps"]]
        runs = [step["run"] for step in steps if "run" in step]
        assert runs, f"{block.where}: a CI example with no run: step"
        made: set[str] = set()
        for run in runs:
            for command in re.split(r"&&|;|\|\|", run):
                words = [w for w in command.split() if w != "sudo"]
                program = words[0]
                if program.startswith(".venv/bin/"):
                    assert ".venv" in made, f"{block.where}: {program} before the venv is made"
                    continue
                known = (
                    shutil.which(program) is not None
                    or (REPO / program).exists()
                    or program in shell_commands
                )
                assert known, (
                    f"{block.where}: `{program}` is no command here, in the repo or the docs"
                )
                if words[:3] == ["python3", "-m", "venv"]:
                    made.add(words[3])
                if program == "apt-get" and "install" in words:
                    packages = [
                        w for w in words[words.index("install") + 1 :] if not w.startswith("-")
                    ]
                    shown = subprocess.run(
                        ["apt-cache", "show", "--no-all-versions", *packages],
                        capture_output=True,
                        text=True,
                    )
                    assert shown.returncode == 0, f"{block.where}: {packages}: {shown.stderr}"
        # The pytest options the example passes are the plugin's.
        for run in runs:
            for option in re.findall(r"(--uidrive-[\w-]+)", run):
                assert option in PLUGIN_OPTIONS, f"{block.where}: {option} is not an option"


PLUGIN_OPTIONS = set(
    re.findall(
        r'"(--uidrive-[\w-]+)"', (Path(uidrive.__file__).parent / "pytest_plugin.py").read_text()
    )
)


def test_toml_and_xml_blocks_parse() -> None:
    import xml.etree.ElementTree as ElementTree

    checked = 0
    for block in DOC_BLOCKS:
        if block.mark is not None:
            continue
        if block.lang == "toml":
            if sys.version_info >= (3, 11):
                import tomllib

                tomllib.loads(block.body)
            else:
                pytest.fail("TOML blocks are parsed with tomllib: run the tests on Python 3.11+")
            checked += 1
        elif block.lang == "xml":
            ElementTree.fromstring(block.body)
            checked += 1
    assert checked >= 1
