"""Every help page: defaults once and never 'None', required options marked, examples that parse."""
import argparse
import os
import re
import shlex
import subprocess
import sys

import pytest

import breadth
from breadth.cli import COMMANDS, EXIT_CODES, build_parser, main
from breadth.cli.helpformat import EXAMPLES, HelpFormatter

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def subparsers(parser):
    """(name, parser) of every command, recursively (a command with its own subcommands included)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, p in action.choices.items():
                yield name, p
                for sub, q in subparsers(p):
                    yield f"{name} {sub}", q


def pages():
    parser = build_parser()
    return [("breadth", parser)] + list(subparsers(parser))


PAGES = pages()


def test_every_command_has_a_page():
    names = {name for name, _ in PAGES}
    assert set(COMMANDS) <= names and {"graph500", "generate", "doctor"} <= names


@pytest.mark.parametrize("name,parser", PAGES, ids=[n for n, _ in PAGES])
def test_help_page_has_no_noise(name, parser):
    text = parser.format_help()
    assert "(default: None)" not in text and "default: False" not in text and "default: True" not in text
    formatter = HelpFormatter(parser.prog)
    for action in parser._actions:
        if action.help in (None, argparse.SUPPRESS):
            continue
        assert action.help, f"{name} {action.dest} has no help"
        shown = formatter._expand_help(action)
        assert len(re.findall(r"\bdefault\b", shown)) <= 1, f"{name}: {shown}"
        if action.required and action.option_strings:
            assert shown.endswith("(required)"), f"{name}: {shown}"
        elif action.option_strings and action.default not in (None, False, True, argparse.SUPPRESS) \
                and not isinstance(action, argparse._HelpAction):
            assert "default" in shown, f"{name} {action.dest}: an informative default is not shown"
    assert name == "breadth" or "examples:" in text, f"{name} has no examples"


def example_lines(parser):
    epilog = parser.epilog or ""
    if not epilog.startswith(EXAMPLES):
        return []
    lines = []
    for line in epilog.split("\n\n")[0].splitlines()[1:]:
        tokens = shlex.split(line, comments=True)
        for i, t in enumerate(tokens):       # shell redirections and pipes are not the command's
            if t in (">", "|", "&&"):
                tokens = tokens[:i]
                break
        if tokens[:1] == ["mpiexec"]:
            tokens = tokens[3:]       # mpiexec -n P breadth ...
        lines.append(tokens)
    return lines


@pytest.mark.parametrize("name,parser", PAGES, ids=[n for n, _ in PAGES])
def test_examples_parse(name, parser):
    """Every example on a help page is a valid command line (it is parsed, not run)."""
    examples = example_lines(parser)
    assert examples or name != "breadth"
    for tokens in examples:
        assert tokens[0] == "breadth", tokens
        args = build_parser().parse_args(tokens[1:])
        assert args.command == tokens[1]


def test_required_option_marked_on_page():
    text = dict(PAGES)["bfs"].format_help()
    assert re.search(r"--root R \[R \.\.\.\]\s+search key.*\(required\)", text, re.S)
    assert "(default: 15)" in text and "(default: 15.0)" not in text        # alpha: once, as written


def run_cli(*args):
    env = dict(os.environ, PYTHONPATH=ROOT, COLUMNS="100")
    return subprocess.run([sys.executable, "-m", "breadth", *args], capture_output=True, text=True, env=env,
                          timeout=300)


def test_version_and_bare_command_line():
    proc = run_cli("--version")
    assert proc.returncode == 0 and proc.stdout.strip() == f"breadth {breadth.__version__}"
    proc = run_cli()
    assert proc.returncode == 0 and proc.stderr == ""
    for name in COMMANDS:
        assert re.search(rf"^\s+{name}\s+\S", proc.stdout, re.M), name
    assert "exit codes:" in proc.stdout and "130" in proc.stdout


def test_help_pages_from_the_shell():
    for name in ("bfs", "graph500", "doctor"):
        proc = run_cli(name, "-h")
        assert proc.returncode == 0 and proc.stdout.startswith(f"usage: breadth {name}")
        assert "examples:" in proc.stdout and "(default: None)" not in proc.stdout


def test_usage_error_ends_with_a_hint(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["bfs", "g.npz"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.strip().splitlines()[-1] == ("breadth bfs: error: the following arguments are required: --root "
                                            "(see 'breadth bfs -h')")
    with pytest.raises(SystemExit) as exc:
        main(["frobnicate"])
    assert exc.value.code == 2 and "invalid choice: 'frobnicate'" in capsys.readouterr().err


def test_exit_codes_are_documented_in_the_cli_guide():
    guide = open(os.path.join(ROOT, "docs", "guide", "cli.md")).read()
    section = guide[guide.index("## Exit codes"):]
    for code in EXIT_CODES:
        assert re.search(rf"^\| `{code}` \|", section, re.M), code
