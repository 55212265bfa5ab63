"""LIT's original backend: English Resource Grammar MRS rules (Li et al., 2020, §3.2), via pydelphin.

The paper parses each sentence with the ERG through the ACE processor, edits the top-ranked
MRS for one phenomenon, generates every realisation of the edited MRS with ACE, and keeps the
one a language model prefers (§3.3). The MRS rules are pure functions on
:class:`delphin.mrs.MRS` objects here:

* **tense** (:func:`set_tense`): the ``TENSE`` feature of the INDEX event (``past``, ``pres``,
  ``fut``); ``PROG`` and ``PERF`` are untouched, so aspect is kept.
* **modality** (:func:`add_may`): a ``_may_v_modal`` EP whose ARG1 handle is qeq the old top
  label; TOP is rewired to it with qeq and INDEX moves to its event (present tense). The old
  event becomes untensed; a past event becomes perfect (*may have seen*).
* **it-cleft** (:func:`add_itcleft`): a ``_be_v_itcleft`` EP with ARG1 the focused referent (by
  default the ARG1 of the INDEX EP, the subject) and ARG2 a handle qeq the old top label; TOP
  is rewired with qeq and INDEX moves to the new event, which takes over the tense (§3.2).
* **passive** (:func:`add_passive`): a ``parg_d`` EP sharing the verb's label, with ARG1 the
  verb's event and ARG2 its ARG2 (the ERG's passive marker).
* **polar question** (:func:`make_question`): ``SF: ques`` on INDEX.
* **negation** (:func:`add_negation`): a ``neg`` EP scoping over the old top (TOP qeq neg,
  neg ARG1 qeq old top).
* **subject-object swap** (:func:`swap_arguments`): ARG1 and ARG2 of the INDEX EP exchanged.

:class:`ErgTransformer` runs them where ``ace`` and a compiled ERG image exist (see the README
for how to get them); the rules themselves need only pydelphin.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Sequence

from robust_bench.perturb.lit.ud import OPERATIONS, STRUCTURAL_OPERATIONS, Refusal
from robust_bench import RobustBenchError

__all__ = ["ErgUnavailableError", "set_tense", "add_may", "add_itcleft", "add_passive", "make_question",
           "add_negation", "swap_arguments", "apply_operations", "ErgTransformer"]

_TENSES = {"past": "past", "present": "pres", "future": "fut"}
_NEW_EVENT = {"SF": "prop", "TENSE": "untensed", "MOOD": "indicative", "PROG": "-", "PERF": "-"}


class ErgUnavailableError(RobustBenchError, RuntimeError):
    """``ace`` or the ERG grammar image is missing."""


def _m():
    from delphin import mrs

    return mrs


def _fresh(m, sort: str, taken: set[str]) -> str:
    """A new variable of ``sort`` (``h``, ``e``, ``x``, ``i``) not used in ``m`` or ``taken``."""
    used = set(m.variables) | taken | {m.top, m.index}
    for ep in m.rels:
        used |= {ep.label, *[v for v in ep.args.values() if isinstance(v, str)]}
    nums = [int(n) for v in used if v and (n := re.sub(r"^[a-z]+", "", v)).isdigit()]
    name = f"{sort}{max(nums, default=0) + 1}"
    taken.add(name)
    return name


def _index_ep(m):
    """The EP whose intrinsic variable (ARG0) is INDEX."""
    for ep in m.rels:
        if ep.iv == m.index and not ep.is_quantifier():
            return ep
    raise Refusal("no EP for INDEX", str(m.index))


def _top_target(m) -> tuple[int, str]:
    for k, hc in enumerate(m.hcons):
        if hc.hi == m.top and hc.relation == "qeq":
            return k, hc.lo
    raise Refusal("TOP is not qeq a label")


def _copy(m, *, top=None, index=None, rels=None, hcons=None, variables=None):
    mrs = _m()
    return mrs.MRS(top=top or m.top, index=index or m.index, rels=list(rels if rels is not None else m.rels),
                   hcons=list(hcons if hcons is not None else m.hcons), icons=list(m.icons),
                   variables={k: dict(v) for k, v in (variables if variables is not None else m.variables).items()},
                   lnk=m.lnk, surface=m.surface, identifier=m.identifier)


def _scope_over_top(m, predicate: str, args: dict, new_index: bool, index_props: dict | None):
    """Insert ``predicate`` as the new top EP: TOP qeq its label, its scopal argument qeq the old
    top label; optionally move INDEX to its new event."""
    mrs = _m()
    taken: set[str] = set()
    k, old = _top_target(m)
    label = _fresh(m, "h", taken)
    event = _fresh(m, "e", taken)
    arg_h = _fresh(m, "h", taken)
    full = {"ARG0": event, **{r: (arg_h if v == "<scope>" else v) for r, v in args.items()}}
    hcons = list(m.hcons)
    hcons[k] = mrs.HCons.qeq(m.top, label)
    hcons.append(mrs.HCons.qeq(arg_h, old))
    variables = {k2: dict(v) for k2, v in m.variables.items()}
    variables[event] = dict(index_props if index_props is not None else _NEW_EVENT)
    variables[label] = {}
    variables[arg_h] = {}
    rels = list(m.rels) + [mrs.EP(predicate, label, full)]
    return _copy(m, index=event if new_index else m.index, rels=rels, hcons=hcons, variables=variables), event


def set_tense(m, tense: str):
    """Set the TENSE of the INDEX event (``past``, ``present``/``pres``, ``future``/``fut``).

    Parameters
    ----------
    m : delphin.mrs.MRS
    tense : str

    Returns
    -------
    delphin.mrs.MRS
        A new MRS; ``m`` is unchanged.

    Raises
    ------
    Refusal
        If INDEX has no TENSE, it already has this tense, or it is untensed (a modal governs it).
    ValueError
        For an unknown tense.
    """
    value = _TENSES.get(tense, tense)
    if value not in ("past", "pres", "fut"):
        raise ValueError(f"unknown tense {tense!r}")
    props = dict(m.variables.get(m.index, {}))
    if "TENSE" not in props or props["TENSE"] == "untensed":
        raise Refusal("INDEX has no tense")
    if props["TENSE"] == value:
        raise Refusal(f"already {tense}")
    variables = {k: dict(v) for k, v in m.variables.items()}
    variables[m.index]["TENSE"] = value
    return _copy(m, variables=variables)


def add_may(m):
    """Epistemic *may* over the clause (``_may_v_modal``), INDEX moved to it (present tense).

    Raises
    ------
    Refusal
        If the clause already has a modal EP.
    """
    if any(ep.predicate.endswith("_v_modal") for ep in m.rels):
        raise Refusal("modal verb group")
    old = dict(m.variables.get(m.index, {}))
    props = {**_NEW_EVENT, "SF": old.get("SF", "prop"), "MOOD": old.get("MOOD", "indicative"), "TENSE": "pres"}
    new, _ = _scope_over_top(m, "_may_v_modal", {"ARG1": "<scope>"}, True, props)
    variables = {k: dict(v) for k, v in new.variables.items()}
    variables[m.index].update({"TENSE": "untensed", "SF": "prop"})
    if old.get("TENSE") == "past":
        variables[m.index]["PERF"] = "+"
    return _copy(new, variables=variables)


def add_itcleft(m, focus: str | None = None):
    """It-cleft: ``_be_v_itcleft`` with ARG1 ``focus`` and ARG2 scoping over the old top (§3.2).

    Parameters
    ----------
    m : delphin.mrs.MRS
    focus : str, optional
        The referent to focus (an ``x`` variable); default the ARG1 of the INDEX EP.

    Raises
    ------
    Refusal
        If there is no referent to focus.
    """
    if focus is None:
        focus = _index_ep(m).args.get("ARG1")
    if not focus or not focus.startswith("x"):
        raise Refusal("no referent to cleft")
    old = dict(m.variables.get(m.index, {}))
    props = {**_NEW_EVENT, **{k: old[k] for k in ("SF", "TENSE", "MOOD") if k in old}}
    new, _ = _scope_over_top(m, "_be_v_itcleft", {"ARG1": focus, "ARG2": "<scope>"}, True, props)
    return new


def add_passive(m):
    """Passive: a ``parg_d`` EP on the INDEX verb's label, ARG1 its event, ARG2 its ARG2.

    Raises
    ------
    Refusal
        If the INDEX EP has no ``x`` ARG2 or is already passive.
    """
    mrs = _m()
    ep = _index_ep(m)
    obj = ep.args.get("ARG2")
    if not obj or not obj.startswith("x"):
        raise Refusal("no direct object")
    if any(e.predicate == "parg_d" and e.args.get("ARG1") == ep.iv for e in m.rels):
        raise Refusal("already passive")
    taken: set[str] = set()
    event = _fresh(m, "e", taken)
    variables = {k: dict(v) for k, v in m.variables.items()}
    variables[event] = dict(_NEW_EVENT)
    rels = list(m.rels) + [mrs.EP("parg_d", ep.label, {"ARG0": event, "ARG1": ep.iv, "ARG2": obj})]
    return _copy(m, rels=rels, variables=variables)


def make_question(m):
    """Polar question: ``SF: ques`` on INDEX.

    Raises
    ------
    Refusal
        If it already is a question.
    """
    if m.variables.get(m.index, {}).get("SF") == "ques":
        raise Refusal("question")
    variables = {k: dict(v) for k, v in m.variables.items()}
    variables.setdefault(m.index, {})["SF"] = "ques"
    return _copy(m, variables=variables)


def add_negation(m):
    """Sentential negation: a ``neg`` EP scoping over the old top; INDEX stays.

    Raises
    ------
    Refusal
        If the clause is already negated at the top.
    """
    _, old = _top_target(m)
    if any(ep.predicate == "neg" and ep.label == old for ep in m.rels):
        raise Refusal("already negative")
    new, _ = _scope_over_top(m, "neg", {"ARG1": "<scope>"}, False, None)
    return new


def swap_arguments(m):
    """Subject-object swap: exchange ARG1 and ARG2 of the INDEX EP.

    Raises
    ------
    Refusal
        If either is not an ``x`` referent.
    """
    mrs = _m()
    ep = _index_ep(m)
    a1, a2 = ep.args.get("ARG1"), ep.args.get("ARG2")
    if not (a1 and a2 and a1.startswith("x") and a2.startswith("x")):
        raise Refusal("no direct object")
    rels = [mrs.EP(e.predicate, e.label, {**e.args, "ARG1": a2, "ARG2": a1}, lnk=e.lnk, surface=e.surface,
                   base=e.base) if e is ep else e for e in m.rels]
    return _copy(m, rels=rels)


_RULES = {"past": lambda m: set_tense(m, "past"), "present": lambda m: set_tense(m, "present"),
          "future": lambda m: set_tense(m, "future"), "may": add_may, "negation": add_negation,
          "passive": add_passive, "itcleft": add_itcleft, "question": make_question, "swap": swap_arguments}


def apply_operations(m, ops: Sequence[str]):
    """Apply LIT operations in order (verb-group operations, then at most one structural one).

    Raises
    ------
    Refusal
        When a rule does not apply.
    ValueError
        For an unknown operation or two structural operations.
    """
    unknown = [o for o in ops if o not in OPERATIONS]
    if unknown:
        raise ValueError(f"unknown LIT operation(s) {unknown}")
    if sum(o in STRUCTURAL_OPERATIONS for o in ops) > 1:
        raise ValueError("at most one structural operation")
    for op in sorted(ops, key=lambda o: o in STRUCTURAL_OPERATIONS):
        m = _RULES[op](m)
    return m


class ErgTransformer:
    """LIT backend with the ERG and ACE (§3.2): parse, edit the MRS, generate.

    Parameters
    ----------
    grammar : path-like
        A compiled ERG image (``erg-2018-x86-64-0.9.34.dat`` or later).
    ace : str
        The ``ace`` executable (on PATH by default).
    max_parses : int
        Parses kept per sentence; the top-ranked one is edited, as in the paper.

    Raises
    ------
    ErgUnavailableError
        If ``ace`` or the grammar image is missing.
    """

    name = "erg"

    def __init__(self, grammar: str | Path, *, ace: str = "ace", max_parses: int = 1):
        exe = shutil.which(ace)
        if exe is None:
            raise ErgUnavailableError(
                f"the ERG backend needs the ACE processor: {ace!r} is not on PATH "
                "(https://sweaglesw.org/linguistics/ace/; see the README, 'LIT contrast sets')")
        if not Path(grammar).is_file():
            raise ErgUnavailableError(f"ERG grammar image {grammar} does not exist (download a compiled "
                                      "erg-*.dat from https://github.com/delph-in/erg/releases)")
        self.grammar = str(grammar)
        self.ace = exe
        self.max_parses = max_parses

    def analyse_many(self, texts: Sequence[str]) -> list:
        from delphin import ace

        out = []
        with ace.ACEParser(self.grammar, executable=self.ace, cmdargs=["-n", str(self.max_parses)]) as parser:
            for text in texts:
                resp = parser.interact(text)
                results = resp.results()
                if not results:
                    out.append(Refusal("no ERG parse"))
                else:
                    out.append(results[0].mrs())
        return out

    @staticmethod
    def tense_of(m) -> str:
        t = m.variables.get(m.index, {}).get("TENSE")
        return {"pres": "present", "past": "past", "fut": "future"}.get(t, "modal")

    def transform(self, m, ops: Sequence[str]) -> list[str]:
        from delphin import ace
        from delphin.codecs import simplemrs

        edited = apply_operations(m, ops)
        resp = ace.generate(self.grammar, simplemrs.encode(edited), executable=self.ace)
        surfaces = []
        for r in resp.results():
            s = r.get("surface")
            if s and s not in surfaces:
                surfaces.append(s)
        if not surfaces:
            raise Refusal("ERG generated nothing")
        return surfaces
