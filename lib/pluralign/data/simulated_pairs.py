"""One simulated pair per planted cause: its prompt, its two texts and the features each text carries.

:func:`make_pair` is the simulator's pair generator (:func:`pluralign.data.simulate`): for a *plan* (a cause of
the Diverging Preferences taxonomy, Zhang et al. 2024 Table 1, or one of the three objective ``none`` kinds:
an obvious factual error, harmful compliance vs a refusal, paraphrase-only pairs — Beyond the Binary §3.1) it
draws the style features of both sides, sets the features the plan plants, and renders the texts from
:mod:`pluralign.data.simulated_texts` so that they show what ``.truth`` says.
"""

from __future__ import annotations

from pluralign.data.simulated_texts import (
    AMBIGUOUS,
    BORDERLINE,
    CREATIVE,
    ELABORATE,
    FACTS,
    HARMFUL,
    OPEN,
    POEM,
    assemble,
    pick,
    refusal,
)

#: the style features every text renders (the other planted features belong to a plan)
STYLE = ("verbosity", "format", "complexity", "sentiment")


def _plain(x: dict, keep: tuple = ("verbosity", "sentiment")) -> dict:
    """Texts not built by :func:`~pluralign.data.simulated_texts.assemble` (refusals, harmful compliance, poems)
    only render some style features: the others are set to 0 so that ``.truth`` describes what the text shows."""
    for f in STYLE:
        if f not in keep:
            x[f] = 0
    return x


def _style(rng) -> dict:
    return {f: int(rng.random() < 0.5) for f in STYLE} | {
        "interpretation": 0,
        "refusal": 0,
        "factual_error": 0,
        "harmfulness": 0,
    }


# each plan's pair: (rng, plan, x_a, x_b) -> (prompt, [text_a, text_b], x_a, x_b, cause, kind, prompt_type, subtle)
def _factual_pair(rng, plan, xa, xb):
    """A factual question answered right and wrong; for ``errors`` the wrong answer is dressed up (long,
    formatted) and only some annotators notice it (subtle)."""
    q, topic, good, bad, extra = pick(rng, FACTS)
    subtle = plan == "errors"
    xb = dict(xa)
    if subtle:
        xa.update(verbosity=1, format=1, factual_error=1)
        xb.update(verbosity=0, format=0)
    else:
        xa["factual_error"] = 1
    texts = [assemble(rng, [bad if x["factual_error"] else good, extra], topic, x, 0) for x in (xa, xb)]
    return q, texts, xa, xb, ("errors" if subtle else "none"), "single", "factual", subtle


def _harm_pair(rng, plan, xa, xb):
    """Harmful compliance against a refusal (objective: everyone prefers the refusal)."""
    q, harm = pick(rng, HARMFUL)
    _plain(xa, ("verbosity",)).update(harmfulness=1)
    _plain(xb).update(refusal=1)
    texts = [f"Sure. {harm}" + (" " + " ".join(ELABORATE[:3]) if xa["verbosity"] else ""), refusal(rng, xb)]
    return q, texts, xa, xb, "none", "single", "harmful", False


def _two_refusals_pair(rng, plan, xa, xb):
    """Two refusals of a harmful request, one warm and one flat."""
    q, _ = pick(rng, HARMFUL)
    _plain(xa).update(refusal=1, sentiment=1)
    _plain(xb).update(refusal=1, sentiment=0)
    return q, [refusal(rng, xa), refusal(rng, xb)], xa, xb, plan, "multiple", "harmful", False


def _borderline_pair(rng, plan, xa, xb):
    """A borderline request answered against refused (``comply-vs-refuse`` or ``safety``)."""
    q, comply, _c = pick(rng, [b for b in BORDERLINE if b[2] == plan])
    xb = _plain(dict(xa))
    xb["refusal"] = 1
    texts = [assemble(rng, [comply], "an answer", xa, 0), refusal(rng, xb)]
    return q, texts, xa, xb, plan, "multiple", "borderline", False


def _garbled_pair(rng, plan, xa, xb):
    """A garbled arithmetic prompt: one reading answered against a refusal that cannot tell what it means."""
    a, b = rng.randrange(2, 10), rng.randrange(2, 10)
    q = f"!! {a} x thr33 minus s{b}v{b}n EQuals ??"
    xb = _plain(dict(xa))
    xb["refusal"] = 1
    reading = f"One possible reading is {a} times 3 minus 7, which equals {3 * a - 7}."
    texts = [assemble(rng, [reading], "a possible reading", xa, 0), refusal(rng, xb, capability=True)]
    return q, texts, xa, xb, plan, "multiple", "garbled", False


def _ambiguous_pair(rng, plan, xa, xb):
    """An ambiguous prompt answered under its two readings (task underspecification)."""
    q, readings = pick(rng, AMBIGUOUS)
    xb = dict(xa)
    xb["interpretation"] = 1
    topic = q.rstrip("?.").split(" ", 2)[-1]
    texts = [assemble(rng, [readings[x["interpretation"]]], topic, x, 0) for x in (xa, xb)]
    return q, texts, xa, xb, plan, "multiple", "ambiguous", False


def _poem_pair(rng, plan, xa, xb):
    """Two short poems on one subject, an enthusiastic and a quiet one (aesthetic taste)."""
    q, subj = pick(rng, CREATIVE)
    _plain(xa)
    xb = dict(xa)
    xa["sentiment"], xb["sentiment"] = 1, 0
    texts = []
    for x in (xa, xb):
        lines = [s.format(s=subj) for s in POEM[x["sentiment"]]]
        if x["verbosity"]:
            lines += [f"and every hour returns to {subj},", "as if it never went away."]
        texts.append("\n".join(lines))
    return q, texts, xa, xb, plan, "multiple", "creative", False


def _open_pair(rng, plan, xa, xb):
    """Tips for an open-ended prompt differing in one planted style feature (``plan``), or — for
    ``none:paraphrase`` — in wording only."""
    q, topic, tips = pick(rng, OPEN)
    core = rng.sample(tips, rng.randrange(2, 4))
    va, vb = 0, 0
    xb = dict(xa)
    if plan == "none:paraphrase":
        vb = 1
        cause = "none"
    else:
        xa[plan], xb[plan] = 1, 0
        if rng.random() < 0.3:  # sometimes a second style difference, so population splits vary
            other = rng.choice([g for g in STYLE if g != plan])
            xb[other] = 1 - xa[other]
        cause = plan
    state = rng.getstate()
    texts = [assemble(rng, core, topic, xa, va)]
    if plan == "none:paraphrase":  # same extras on both sides: only the wording differs
        rng.setstate(state)
    texts.append(assemble(rng, core, topic, xb, vb))
    return q, texts, xa, xb, cause, "multiple", "open", False


#: the pair generator of each plan that is not a style plan on an open-ended prompt
_PLANS = {
    "none:error": _factual_pair,
    "errors": _factual_pair,
    "none:harm": _harm_pair,
    "refuse-vs-refuse": _two_refusals_pair,
    "comply-vs-refuse": _borderline_pair,
    "safety": _borderline_pair,
    "capabilities": _garbled_pair,
    "task-underspecification": _ambiguous_pair,
    "aesthetic-taste": _poem_pair,
}


def make_pair(rng, plan: str):
    """One pair for a planted cause: (prompt, text_a, text_b, x_a, x_b, cause, kind, prompt_type, subtle)."""
    xa, xb = _style(rng), _style(rng)
    q, texts, xa, xb, cause, kind, ptype, subtle = _PLANS.get(plan, _open_pair)(rng, plan, xa, xb)
    return q, texts[0], texts[1], xa, xb, cause, kind, ptype, subtle
