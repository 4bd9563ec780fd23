"""Every command's help has a description line and examples, and every example is a command line that parses."""

from __future__ import annotations

import importlib
import io
import shlex

import pytest

from sonnx.base.errors import UsageError

cli_main = importlib.import_module("sonnx.cli.main")  # the module (``sonnx.cli.main`` the name is the function)
SUBCOMMANDS = [name for name, *_ in cli_main.SUBCOMMANDS]


def test_every_command_has_examples() -> None:
    assert set(cli_main.EXAMPLES) == {"sonnx-check", *SUBCOMMANDS}
    assert all(cli_main.EXAMPLES.values())


@pytest.mark.parametrize(
    "line", [cmd for examples in cli_main.EXAMPLES.values() for cmd, _ in examples], ids=lambda c: c[:60]
)
def test_every_example_parses(line: str) -> None:
    argv = shlex.split(line)
    parser = cli_main.check_parser(io.StringIO()) if argv[0] == "sonnx-check" else cli_main.sonnx_parser(io.StringIO())
    try:
        parser.parse_args(argv[1:])
    except UsageError as exc:
        pytest.fail(f"{line}: {exc}")


@pytest.mark.parametrize("command", SUBCOMMANDS)
def test_subcommand_help_has_a_description_and_its_examples(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as ended:
        cli_main.sonnx_parser(io.StringIO()).parse_args([command, "--help"])
    assert ended.value.code == 0
    text = capsys.readouterr().out
    description = text.split("\n\n")[1].strip()
    assert description and description[0].isupper() and description.endswith(".")
    assert "examples:" in text and all(cmd in text for cmd, _ in cli_main.EXAMPLES[command])

