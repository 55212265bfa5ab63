"""The Typer application that every command module registers on."""

import typer

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="robust-bench: perturbed corpora and robustness scores for NLP models.")
