"""Fitting confusion weights from a small M2 file the test writes itself."""

import json

import pytest

from robust_bench.perturb.confusions import M2Error, fit_confusions
from tests.helpers import run_cli

M2 = """S He go to the school in a morning .
A 1 2|||R:VERB:SVA|||goes|||REQUIRED|||-NONE-|||0
A 3 4|||U:DET|||-NONE-|||REQUIRED|||-NONE-|||0
A 6 7|||R:DET|||the|||REQUIRED|||-NONE-|||0
A 6 7|||R:DET|||an|||REQUIRED|||-NONE-|||1

S I like cat .
A 2 2|||M:DET|||the|||REQUIRED|||-NONE-|||0
A 2 3|||R:NOUN:NUM|||cats|||REQUIRED|||-NONE-|||0

S She arrived in Monday .
A 2 3|||R:PREP|||on|||REQUIRED|||-NONE-|||0
A 0 1|||R:SPELL|||Sha|||REQUIRED|||-NONE-|||0
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0
"""


def test_fit_gives_the_hand_computed_weights(tmp_path):
    path = tmp_path / "tiny.m2"
    path.write_text(M2, encoding="utf-8")
    conf = fit_confusions(path)
    # six mapped edits of annotator 0: ArtOrDet x3, SVA, Nn, Prep (R:SPELL is none of the eight)
    assert conf.type_distribution == pytest.approx({"ArtOrDet": 0.5, "Prep": 1 / 6, "Nn": 1 / 6, "SVA": 1 / 6})
    # injection reverses the correction: U:DET "the"->ø gives ø->the; R:DET a->the gives the->a; M:DET gives the->ø
    assert conf.weights["ArtOrDet"] == {"": {"the": 1.0}, "the": {"": 0.5, "a": 0.5}}
    assert conf.weights["Prep"] == {"on": {"in": 1.0}}
    assert "tiny.m2" in conf.source and "annotator 0" in conf.source
    other = fit_confusions(path, annotator=1)
    assert other.type_distribution == {"ArtOrDet": 1.0} and other.weights["ArtOrDet"] == {"an": {"a": 1.0}}


def test_malformed_m2(tmp_path):
    bad = tmp_path / "bad.m2"
    bad.write_text("A 1 2|||R:DET|||the|||REQUIRED|||-NONE-|||0\n", encoding="utf-8")
    with pytest.raises(M2Error, match="bad.m2:1: edit before any sentence"):
        fit_confusions(bad)
    bad.write_text("S a b .\nA 1 2|||R:DET\n", encoding="utf-8")
    with pytest.raises(M2Error, match="bad.m2:2: expected 6"):
        fit_confusions(bad)
    bad.write_text("S a b .\nA 0 1|||R:SPELL|||x|||REQUIRED|||-NONE-|||0\n", encoding="utf-8")
    with pytest.raises(M2Error, match="no edit of the eight error types"):
        fit_confusions(bad)


def test_cli_writes_json_that_builders_read(tmp_path):

    from robust_bench.perturb.gec import Confusions

    path = tmp_path / "tiny.m2"
    path.write_text(M2, encoding="utf-8")
    out = tmp_path / "confusions.json"
    proc = run_cli(["fit-confusions", str(path), "-o", str(out)])
    assert proc.returncode == 0, proc.stderr
    conf = Confusions.from_json(json.loads(out.read_text()))
    assert conf.weights["Prep"] == {"on": {"in": 1.0}}
