"""ERG backend: the MRS rules of LIT (Li et al., 2020, §3.2) on literal MRS strings."""

import pytest
from delphin import mrs
from delphin.codecs import simplemrs

from robust_bench.perturb.lit.ud import Refusal
from robust_bench.perturb.lit.erg import (ErgTransformer, ErgUnavailableError, add_itcleft, add_may, add_negation,
                                  add_passive, apply_operations, make_question, set_tense, swap_arguments)

# "Alice saw Bob." as the ERG analyses it (the paper's running example, §3.2).
ALICE_SAW_BOB = """
[ TOP: h0
  INDEX: e2 [ e SF: prop TENSE: past MOOD: indicative PROG: - PERF: - ]
  RELS: < [ proper_q<0:5> LBL: h4 ARG0: x3 [ x PERS: 3 NUM: sg IND: + ] RSTR: h5 BODY: h6 ]
          [ named<0:5> LBL: h7 CARG: "Alice" ARG0: x3 ]
          [ _see_v_1<6:9> LBL: h1 ARG0: e2 ARG1: x3 ARG2: x8 [ x PERS: 3 NUM: sg IND: + ] ]
          [ proper_q<10:13> LBL: h9 ARG0: x8 RSTR: h10 BODY: h11 ]
          [ named<10:13> LBL: h12 CARG: "Bob" ARG0: x8 ] >
  HCONS: < h0 qeq h1 h5 qeq h7 h10 qeq h12 > ]
"""

# "The dog sleeps." (intransitive, present).
DOG_SLEEPS = """
[ TOP: h0
  INDEX: e2 [ e SF: prop TENSE: pres MOOD: indicative PROG: - PERF: - ]
  RELS: < [ _the_q<0:3> LBL: h4 ARG0: x3 [ x PERS: 3 NUM: sg IND: + ] RSTR: h5 BODY: h6 ]
          [ _dog_n_1<4:7> LBL: h7 ARG0: x3 ]
          [ _sleep_v_1<8:14> LBL: h1 ARG0: e2 ARG1: x3 ] >
  HCONS: < h0 qeq h1 h5 qeq h7 > ]
"""


@pytest.fixture
def saw():
    return simplemrs.decode(ALICE_SAW_BOB)


def _ep(m, pred):
    eps = [ep for ep in m.rels if ep.predicate == pred]
    assert len(eps) == 1
    return eps[0]


def _qeq(m, hi):
    return [hc.lo for hc in m.hcons if hc.hi == hi and hc.relation == "qeq"]


def _well_formed(m):
    assert mrs.is_well_formed(m)
    assert mrs.is_connected(m)
    assert mrs.plausibly_scopes(m)
    # round trip through the SimpleMRS codec
    assert mrs.is_isomorphic(simplemrs.decode(simplemrs.encode(m)), m)


def test_literal_mrs_is_well_formed(saw):
    _well_formed(saw)


@pytest.mark.parametrize("tense, value", [("present", "pres"), ("future", "fut")])
def test_tense_sets_index_feature_and_keeps_aspect(saw, tense, value):
    new = set_tense(saw, tense)
    assert new.variables["e2"]["TENSE"] == value
    assert new.variables["e2"]["PROG"] == "-" and new.variables["e2"]["PERF"] == "-"
    assert saw.variables["e2"]["TENSE"] == "past"          # the input is not modified
    assert [ep.predicate for ep in new.rels] == [ep.predicate for ep in saw.rels]
    _well_formed(new)


def test_tense_refuses_same_tense_and_unknown(saw):
    with pytest.raises(Refusal, match="already past"):
        set_tense(saw, "past")
    with pytest.raises(ValueError):
        set_tense(saw, "pluperfect")


def test_itcleft_inserts_be_v_itcleft_rewires_top_and_moves_index(saw):
    new = add_itcleft(saw)
    be = _ep(new, "_be_v_itcleft")
    assert be.args["ARG1"] == "x3"                         # the focus: Alice, the subject
    assert _qeq(new, new.top) == [be.label]                # TOP qeq the cleft
    assert _qeq(new, be.args["ARG2"]) == ["h1"]            # its ARG2 qeq the old top (the seeing)
    assert new.index == be.iv != "e2"                      # INDEX moved to the cleft's event
    assert new.variables[new.index]["TENSE"] == "past"     # ... which took over the tense
    assert new.variables[new.index]["SF"] == "prop"
    _well_formed(new)


def test_itcleft_explicit_focus_and_refusal(saw):
    assert _ep(add_itcleft(saw, focus="x8"), "_be_v_itcleft").args["ARG1"] == "x8"
    with pytest.raises(Refusal):
        add_itcleft(saw, focus="e2")


def test_may_adds_modal_over_top(saw):
    new = add_may(saw)
    may = _ep(new, "_may_v_modal")
    assert _qeq(new, new.top) == [may.label]
    assert _qeq(new, may.args["ARG1"]) == ["h1"]
    assert new.index == may.iv and new.variables[new.index]["TENSE"] == "pres"
    assert new.variables["e2"]["TENSE"] == "untensed"
    assert new.variables["e2"]["PERF"] == "+"              # past -> "may have seen"
    _well_formed(new)
    with pytest.raises(Refusal, match="modal"):
        add_may(new)


def test_may_on_present_keeps_perf(saw):
    new = add_may(set_tense(saw, "present"))
    assert new.variables["e2"]["PERF"] == "-"


def test_passive_adds_parg_d(saw):
    new = add_passive(saw)
    parg = _ep(new, "parg_d")
    assert parg.label == "h1"                              # shares the verb's label
    assert parg.args["ARG1"] == "e2" and parg.args["ARG2"] == "x8"
    assert new.variables[parg.iv]["TENSE"] == "untensed"
    _well_formed(new)
    with pytest.raises(Refusal, match="already passive"):
        add_passive(new)


def test_passive_refuses_intransitive():
    with pytest.raises(Refusal, match="no direct object"):
        add_passive(simplemrs.decode(DOG_SLEEPS))


def test_question_sets_sf(saw):
    new = make_question(saw)
    assert new.variables["e2"]["SF"] == "ques"
    with pytest.raises(Refusal):
        make_question(new)


def test_negation_scopes_neg_over_top(saw):
    new = add_negation(saw)
    neg = _ep(new, "neg")
    assert _qeq(new, new.top) == [neg.label]
    assert _qeq(new, neg.args["ARG1"]) == ["h1"]
    assert new.index == "e2"                               # INDEX stays on the verb
    _well_formed(new)
    with pytest.raises(Refusal):
        add_negation(new)


def test_swap_exchanges_arguments(saw):
    new = swap_arguments(saw)
    see = _ep(new, "_see_v_1")
    assert (see.args["ARG1"], see.args["ARG2"]) == ("x8", "x3")
    _well_formed(new)
    with pytest.raises(Refusal):
        swap_arguments(simplemrs.decode(DOG_SLEEPS))


def test_composition_future_plus_itcleft(saw):
    """Table 1's "f +i" on one sentence: the tense rule first, then the cleft takes the tense."""
    new = apply_operations(saw, ["itcleft", "future"])    # order-independent: structural goes last
    assert new.variables[new.index]["TENSE"] == "fut"
    assert _ep(new, "_be_v_itcleft").args["ARG1"] == "x3"
    _well_formed(new)
    with pytest.raises(ValueError):
        apply_operations(saw, ["passive", "itcleft"])
    with pytest.raises(ValueError):
        apply_operations(saw, ["pluperfect"])


def test_backend_reports_missing_ace(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(ErgUnavailableError, match="ACE"):
        ErgTransformer(tmp_path / "erg.dat")


def test_backend_reports_missing_grammar(tmp_path, monkeypatch):
    ace = tmp_path / "ace"
    ace.write_text("#!/bin/sh\nexit 0\n")
    ace.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(ErgUnavailableError, match="grammar image"):
        ErgTransformer(tmp_path / "missing-erg.dat")
