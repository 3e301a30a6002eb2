"""The papers' closed forms (pldkit/rdp_papers.h), sound entry points only.

* model splitting / dropout / Balanced Iteration Subsampling (Dong, Chen,
  Ozgur): ``model_splitting_terms`` (every term of Thm 3.1 at one order,
  the paper's and the sound ones side by side), ``partial_splitting``,
  ``bis_epochs``, ``poisson_split``; whole curves through
  ``RdpCurve.add_model_splitting`` / ``add_dropout`` / ``add_bis``;
* bounded-support Gaussian (Hu et al.): ``bounded_gaussian_rdp`` (the sup
  over the neighbour set |shift| <= C, both directions) and the
  ``RectifiedGaussian`` PLD mechanism;
* MS-PAFL (Li et al.): ``mspafl`` (a closed form with its ``certified``
  flag, and the PLD epsilon of the same protocol beside it; the same call
  as ``pldkit mspafl``).

The formulas the library keeps only for comparison with the papers (the
``*_paper`` functions, which are not bounds), the Fisher-information helpers
and the bare MS-PAFL formulas are not bound (``mspafl`` reaches them with
their flags).  Every value is in nats.
"""

from collections import namedtuple
from ctypes import byref, c_double, c_size_t

from . import _lib
from ._lib import lib
from ._util import INT64_MAX, check, integer, raise_status, real

__all__ = ["available", "model_splitting_terms", "partial_splitting",
           "bis_epochs", "poisson_split", "bounded_gaussian_rdp",
           "SplitTerms", "PairTerms", "mspafl", "MspaflReport"]

available = _lib.available.get("rdp_papers", False)

_METHODS = {0: "exact", 1: "eq3", 2: "groups", 3: "gaussian"}

SplitTerms = namedtuple("SplitTerms", [
    "forward_exact", "forward_eq3", "reverse_paper", "reverse_exact",
    "forward", "reverse", "epsilon", "epsilon_paper", "forward_method",
    "reverse_method"])
SplitTerms.__doc__ = """Thm 3.1 at one order: ``epsilon`` = max(forward,
reverse) is the sound RDP value; ``epsilon_paper`` and ``reverse_paper``
are the paper's (reverse_paper is NOT a bound); NaN where not computed."""

PairTerms = namedtuple("PairTerms", ["forward", "reverse", "epsilon"])


def _need(f):
    if not available:
        raise_status(_lib.PLD_EUNSUPPORTED, f, "not in this libpldkit")


def _i(x, name, f):
    return integer(x, name, f, -INT64_MAX - 1, INT64_MAX)


def model_splitting_terms(alpha, d, k, sigma, c):
    """Every term of the splitting paper's Thm 3.1 at order alpha."""
    f = "pld_rdp_model_splitting"
    _need(f)
    out = _lib.SplitTerms()
    check(lib.pld_rdp_model_splitting(real(alpha, "alpha", f), _i(d, "d", f),
                                      _i(k, "k", f), real(sigma, "sigma", f),
                                      real(c, "c", f), byref(out)), f)
    vals = [getattr(out, n) for n, _ in _lib.SplitTerms._fields_]
    vals[-2] = _METHODS.get(vals[-2], vals[-2])
    vals[-1] = _METHODS.get(vals[-1], vals[-1])
    return SplitTerms(*vals)


def partial_splitting(alpha, d, k, sigma, c_split, c_shared):
    """Sec. 3.2.2: a split part (clipping c_split, k of d blocks) plus a
    shared part with clipping c_shared, same noise: the sound RDP."""
    f = "pld_rdp_partial_splitting"
    _need(f)
    out = c_double()
    check(lib.pld_rdp_partial_splitting(
        real(alpha, "alpha", f), _i(d, "d", f), _i(k, "k", f),
        real(sigma, "sigma", f), real(c_split, "c_split", f),
        real(c_shared, "c_shared", f), byref(out)), f)
    return out.value


def bis_epochs(alpha, T, k, epochs, sigma, c):
    """Remark 3.10: `epochs` runs of Balanced Iteration Subsampling."""
    f = "pld_rdp_bis_epochs"
    _need(f)
    out = c_double()
    check(lib.pld_rdp_bis_epochs(real(alpha, "alpha", f), _i(T, "T", f),
                                 _i(k, "k", f), _i(epochs, "epochs", f),
                                 real(sigma, "sigma", f), real(c, "c", f),
                                 byref(out)), f)
    return out.value


def poisson_split(alpha, gamma, d, sigma, c):
    """Figure 1: Poisson subsampling (rate gamma) with disjoint model
    splitting into d submodels, one step: PairTerms(forward, reverse,
    epsilon)."""
    f = "pld_rdp_poisson_split"
    _need(f)
    out = _lib.PairTerms()
    check(lib.pld_rdp_poisson_split(real(alpha, "alpha", f),
                                    real(gamma, "gamma", f), _i(d, "d", f),
                                    real(sigma, "sigma", f), real(c, "c", f),
                                    byref(out)), f)
    return PairTerms(out.forward, out.reverse, out.epsilon)


def bounded_gaussian_rdp(alpha, theta, a, sigma, C, kind="rectified"):
    """Per-instance RDP of the bounded-support Gaussian at location theta,
    support [-a, a], over the neighbour set |shift| <= C (both
    directions).  kind: 'rectified' or 'truncated'."""
    f = "pld_rdp_bounded_gaussian_sup"
    _need(f)
    kinds = {"rectified": 0, "truncated": 1}
    if kind not in kinds:
        raise ValueError("kind must be 'rectified' or 'truncated', not %r"
                         % (kind,))
    out = c_double()
    check(lib.pld_rdp_bounded_gaussian_sup(
        kinds[kind], real(alpha, "alpha", f), real(theta, "theta", f),
        real(a, "a", f), real(sigma, "sigma", f), real(C, "C", f),
        byref(out)), f)
    return out.value


MspaflReport = namedtuple("MspaflReport", [
    "theorem", "epsilon", "delta", "certified", "kind", "c0", "sigma", "q",
    "rate", "rounds", "exact_available", "exact_model", "exact_delta",
    "exact_lower", "exact_upper", "exact_met_accuracy"])
MspaflReport.__doc__ = """pld_mspafl_analyze's report.  ``epsilon, delta``:
the closed form (Lemma 1: eps_l, delta_l; Thm 3: delta None);
``certified`` is True only for a proven bound, ``kind`` says what the value
is; ``exact_lower, exact_upper``: the PLD epsilon bracket of the same
protocol at ``exact_delta`` (upper end certified; None when
``exact_available`` is False, ``exact_model`` then says why)."""

_SAMPLING = {"poisson": 0, "wor": 1, "wr": 2}
_ROUND = {"cor1": 0, "thm1": 1}


def mspafl(theorem, eps_l, delta_l, s=1.0, p=1.0, q=None, sampling="poisson",
           batch=None, n=None, N=1, beta=0.25, p_list=None, q_list=None,
           T=1, delta_tilde=1e-5, round="cor1", c0=None, clip=1.0,
           server_sees_checkin=False):
    """An MS-PAFL closed form ('lemma1', 'thm1', 'thm2', 'cor1', 'thm3',
    'thm4') with its certified flag and the PLD of the same protocol
    (pld_mspafl_analyze; the keys are those of ``pldkit mspafl``).  c0 is
    required for thm3: a number, or 'appendix' for App. C's (C.8) with
    ``clip``."""
    f = "pld_mspafl_analyze"
    th = lib.pld_mspafl_theorem_parse(str(theorem).encode())
    if not th:
        raise ValueError("theorem must be one of lemma1, thm1, thm2, cor1, "
                         "thm3, thm4, not %r" % (theorem,))
    if sampling not in _SAMPLING:
        raise ValueError("sampling must be 'poisson', 'wor' or 'wr', not %r"
                         % (sampling,))
    if round not in _ROUND:
        raise ValueError("round must be 'cor1' or 'thm1', not %r" % (round,))
    st = _lib.MspaflSetting()
    check(lib.pld_mspafl_setting_default(byref(st)), f)
    st.eps_l = real(eps_l, "eps_l", f)
    st.delta_l = real(delta_l, "delta_l", f)
    st.sensitivity = real(s, "s", f)
    st.p = real(p, "p", f)
    st.sampling = _SAMPLING[sampling]
    if q is not None:
        st.q = real(q, "q", f)
    if batch is not None:
        st.batch = integer(batch, "batch", f, 1, INT64_MAX)
    if n is not None:
        st.n = integer(n, "n", f, 1, INT64_MAX)
    st.clients = integer(N, "N", f, 1, INT64_MAX)
    st.beta = real(beta, "beta", f)
    keep = []
    if p_list is not None or q_list is not None:
        pl = [real(x, "p_list", f) for x in (p_list or [])]
        ql = [real(x, "q_list", f) for x in (q_list or [])]
        if len(pl) != len(ql):
            raise ValueError("p_list and q_list must have the same length")
        pa = (c_double * max(len(pl), 1))(*pl)
        qa = (c_double * max(len(ql), 1))(*ql)
        keep += [pa, qa]
        st.n_clients_list = c_size_t(len(pl))
        st.p_list = pa
        st.q_list = qa
    st.rounds = integer(T, "T", f, 1, INT64_MAX)
    st.delta_tilde = real(delta_tilde, "delta_tilde", f)
    st.thm4_round = _ROUND[round]
    if c0 == "appendix":
        st.c0_appendix = 1
    elif c0 is not None:
        st.c0 = real(c0, "c0", f)
    elif th == 5:
        raise ValueError("thm3 needs c0 (the paper does not give it) or "
                         "c0='appendix'")
    st.clip = real(clip, "clip", f)
    st.server_sees_checkin = 1 if server_sees_checkin else 0
    out = _lib.MspaflReport()
    check(lib.pld_mspafl_analyze(th, byref(st), None, byref(out)), f)
    del keep
    d = out.closed.delta
    ex = bool(out.exact_available)
    return MspaflReport(
        str(theorem), out.closed.epsilon, None if d != d else d,
        bool(out.closed.certified), out.kind.decode(),
        None if out.c0 != out.c0 else out.c0, out.sigma, out.q, out.rate,
        out.rounds, ex, out.exact_model.decode(), out.exact_delta,
        out.exact.bound.lower if ex else None,
        out.exact.bound.upper if ex else None,
        bool(out.exact.met_accuracy) if ex else None)
