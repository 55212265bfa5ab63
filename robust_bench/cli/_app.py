"""The Typer application that every command module registers on."""

import sys

import typer
from typer.core import TyperGroup

try:  # typer >= 0.20 carries its own copy of click
    from typer._click import exceptions as _click_exc
except ImportError:  # pragma: no cover - older typer uses click itself
    from click import exceptions as _click_exc


def _empty_option(argv: list[str]) -> str | None:
    """The first option given an empty or blank value (``--out ""``, ``--out=``), or None."""
    for k, arg in enumerate(argv):
        if arg == "--":
            return None
        if arg.startswith("--") and "=" in arg and not arg.split("=", 1)[1].strip():
            return arg.split("=", 1)[0]
        if k > 0 and not arg.strip() and argv[k - 1].startswith("-") and "=" not in argv[k - 1]:
            return argv[k - 1]
    return None


class _OneLineErrors(TyperGroup):
    """Usage errors (a bad option value, a missing option, an unknown command) exit with status 2
    and one line on stderr, as every other expected failure does, instead of a usage block."""

    def main(self, *args, standalone_mode: bool = True, **kwargs):
        argv = kwargs.get("args", args[0] if args else None)
        empty = _empty_option(sys.argv[1:] if argv is None else list(argv))
        if empty is not None:
            # click turns "" into Path("."): `build --out ""` would write into the current folder
            typer.echo(f"error: robust-bench: {empty}: empty value; give a value or leave the option out", err=True)
            sys.exit(2)
        if not standalone_mode:
            return super().main(*args, standalone_mode=False, **kwargs)
        try:
            rv = super().main(*args, standalone_mode=False, **kwargs)
        except _click_exc.UsageError as exc:
            if type(exc).__name__ == "NoArgsIsHelpError":  # `robust-bench` alone prints the help
                typer.echo(exc.format_message())
                sys.exit(0)
            cmd = exc.ctx.command_path if exc.ctx is not None else "robust-bench"
            typer.echo(f"error: {cmd}: {exc.format_message()} (see '{cmd} --help')", err=True)
            sys.exit(2)
        except _click_exc.ClickException as exc:
            exc.show()
            sys.exit(exc.exit_code)
        except typer.Abort:
            typer.echo("Aborted!", err=True)
            sys.exit(1)
        sys.exit(rv if isinstance(rv, int) else 0)


app = typer.Typer(cls=_OneLineErrors, add_completion=False, no_args_is_help=True,
                  help="robust-bench: perturbed corpora and robustness scores for NLP models.")
