"""Loading libpldkit and declaring its C API for ctypes.

Every function used by the package is declared here with its argtypes and
restype, so that a wrong argument type fails in Python (ctypes.ArgumentError)
before anything reaches C.  Opaque C types get distinct pointer types, so a
PLD cannot be passed where a mechanism is expected.

The library is looked up in this order:

1. the environment variable PLDKIT_LIBRARY (a path to libpldkit.so);
2. the build tree of a checkout: ../../build/libpldkit.so relative to this
   package (python/pldkit/ inside the repository);
3. ctypes.util.find_library('pldkit'), then 'libpldkit.so.0' (the installed
   library, found by the dynamic loader);
4. libpldkit.so.0 in the directories `meson install` uses by default
   (/usr/local/lib/<multiarch>, /usr/local/lib) and the system's, so that
   an installed library is found even before `ldconfig` has run.
"""

import ctypes
import ctypes.util
import os
import sys
from ctypes import (POINTER, Structure, c_char, c_char_p, c_double, c_int,
                    c_int64, c_long, c_size_t, c_uint, c_uint64, c_ubyte,
                    c_void_p)

from .errors import LibraryNotFound

# --------------------------------------------------------------------------
# Status codes (include/pldkit/status.h; part of the ABI, never renumbered).

PLD_SUCCESS = 0
PLD_EINVAL = 1
PLD_ENOMEM = 2
PLD_ERANGE = 3
PLD_EINCOMPAT = 4
PLD_EMAXITER = 5
PLD_ETOL = 6
PLD_EEMPTY = 7
PLD_EFFT = 8
PLD_ECALLBACK = 9
PLD_EUNSUPPORTED = 10
PLD_EFORMAT = 11
PLD_EVERSION = 12
PLD_EIO = 13
PLD_EDURABLE = 14

PLD_DIR_PQ = 0
PLD_DIR_QP = 1
PLD_PESSIMISTIC = 0
PLD_OPTIMISTIC = 1

PLD_RDP_BEST = 0
PLD_RDP_CLASSIC = 1
PLD_RDP_IMPROVED = 2


# --------------------------------------------------------------------------
# Opaque types and structs (layouts mirror the public headers).

class _Mech(Structure):
    pass


class _Dist(Structure):
    pass


class _Accountant(Structure):
    pass


class _Workspace(Structure):
    pass


class _RdpCurve(Structure):
    pass


MechPtr = POINTER(_Mech)
DistPtr = POINTER(_Dist)
AccPtr = POINTER(_Accountant)
WorkspacePtr = POINTER(_Workspace)
RdpPtr = POINTER(_RdpCurve)


class Bound(Structure):
    _fields_ = [("lower", c_double), ("upper", c_double)]


class Params(Structure):
    _fields_ = [("discretization", c_double),
                ("accuracy", c_double),
                ("abs_accuracy", c_double),
                ("tail_mass", c_double),
                ("max_grid", c_size_t),
                ("fftw_flags", c_uint),
                ("delta_floor", c_double)]


class Result(Structure):
    _fields_ = [("bound", Bound),
                ("discretization", c_double),
                ("grid_size", c_size_t),
                ("fft_size", c_size_t),
                ("refinements", c_uint),
                ("closed_form", c_int),
                ("met_accuracy", c_int),
                ("bound_kind", c_int),
                ("lower_kind", c_int),
                ("width_limit", c_int)]


class PmfView(Structure):
    _fields_ = [("offset", c_int64),
                ("size", c_size_t),
                ("masses", POINTER(c_double)),
                ("inf_mass", c_double),
                ("rel_err", c_double),
                ("abs_err", c_double)]


HockeyFn = ctypes.CFUNCTYPE(c_int, c_void_p, c_int, c_size_t,
                            POINTER(c_double), POINTER(c_double))
TailsFn = ctypes.CFUNCTYPE(c_int, c_void_p, c_int, c_size_t,
                           POINTER(c_double), POINTER(c_double),
                           POINTER(c_double))


class Curve(Structure):
    _fields_ = [("delta", HockeyFn),
                ("ctx", c_void_p),
                ("rel_err", c_double),
                ("symmetric", c_int),
                ("loss_scale", c_double),
                ("tails", TailsFn),
                ("loss_lattice", c_double)]


class Calibration(Structure):
    _fields_ = [("param", c_double),
                ("param_fail", c_double),
                ("at_param", Result),
                ("evaluations", c_uint)]


BuildFn = ctypes.CFUNCTYPE(c_int, c_double, c_void_p, POINTER(AccPtr))
ProgressFn = ctypes.CFUNCTYPE(None, c_void_p, c_uint, c_double, c_double)


class SearchResult(Structure):
    _fields_ = [("found", c_int),
                ("param", c_double),
                ("at_param", Result),
                ("at_limit", c_int),
                ("param_next", c_double),
                ("verdict_next", c_int),
                ("next_status", c_int),
                ("next_refined", c_int),
                ("at_next", Result),
                ("param_fail", c_double),
                ("at_fail", Result),
                ("located", c_int),
                ("nonmonotone", c_int),
                ("evaluations", c_uint),
                ("refinements", c_uint)]


class RdpResult(Structure):
    _fields_ = [("value", c_double),
                ("order", c_double),
                ("index", c_size_t),
                ("method", c_int),
                ("at_edge", c_int)]


class ParticipationParams(Structure):
    _fields_ = [("p", c_double),
                ("q", c_double),
                ("d", c_int64),
                ("clip", c_double),
                ("sigma", c_double)]


class ParticipationCalibration(Structure):
    _fields_ = [("sigma", c_double),
                ("sigma_below", c_double),
                ("delta", c_double),
                ("at_floor", c_int),
                ("certified", c_int),
                ("below_cs", c_int),
                ("refuted", c_int)]


class SplitTerms(Structure):
    _fields_ = [("forward_exact", c_double),
                ("forward_eq3", c_double),
                ("reverse_paper", c_double),
                ("reverse_exact", c_double),
                ("forward", c_double),
                ("reverse", c_double),
                ("epsilon", c_double),
                ("epsilon_paper", c_double),
                ("forward_method", c_int),
                ("reverse_method", c_int)]


class MspaflBound(Structure):
    _fields_ = [("epsilon", c_double), ("delta", c_double),
                ("certified", c_int)]


class MspaflSetting(Structure):
    _fields_ = [("eps_l", c_double), ("delta_l", c_double),
                ("sensitivity", c_double), ("p", c_double),
                ("sampling", c_int), ("q", c_double),
                ("batch", c_uint64), ("n", c_uint64),
                ("clients", c_uint64), ("beta", c_double),
                ("n_clients_list", c_size_t),
                ("p_list", POINTER(c_double)), ("q_list", POINTER(c_double)),
                ("rounds", c_uint64), ("delta_tilde", c_double),
                ("thm4_round", c_int), ("c0", c_double),
                ("c0_appendix", c_int), ("clip", c_double),
                ("server_sees_checkin", c_int)]


class MspaflReport(Structure):
    _fields_ = [("closed", MspaflBound), ("kind", c_char_p),
                ("sigma", c_double), ("c0", c_double), ("q", c_double),
                ("rate", c_double), ("rounds", c_uint64),
                ("exact_delta", c_double), ("exact_available", c_int),
                ("exact", Result), ("exact_model", c_char_p)]


class PairTerms(Structure):
    _fields_ = [("forward", c_double),
                ("reverse", c_double),
                ("epsilon", c_double)]


# merge.h
PLD_MERGE_MAX_RUNS = 5
PLD_MERGE_N_METHODS = 4


class MergeRun(Structure):
    _fields_ = [("q", c_double),
                ("sigma", c_double),
                ("clip", c_double),
                ("lr", c_double),
                ("steps", c_uint64)]


class MergeSchedule(Structure):
    _fields_ = [("phases", POINTER(MergeRun)),
                ("n_phases", c_size_t)]


MergeProgressFn = ctypes.CFUNCTYPE(None, c_void_p, c_double, c_char_p)


class MergePlan(Structure):
    _fields_ = [("runs", POINTER(MergeRun)),
                ("n", c_size_t),
                ("epsilon", c_double),
                ("delta", c_double),
                ("resolution", c_uint),
                ("accuracy", c_double),
                ("progress", MergeProgressFn),
                ("progress_ctx", c_void_p),
                ("max_work", c_size_t),
                ("threads", c_uint)]


class MergePoint(Structure):
    _fields_ = [("upper", c_double * PLD_MERGE_N_METHODS),
                ("lower", c_double * PLD_MERGE_N_METHODS),
                ("feasible", c_int * PLD_MERGE_N_METHODS),
                ("met_accuracy", c_int * PLD_MERGE_N_METHODS)]


class MergeReport(Structure):
    _fields_ = [("n", c_size_t),
                ("order", c_size_t * PLD_MERGE_MAX_RUNS),
                ("runs", MergeRun * PLD_MERGE_MAX_RUNS),
                ("own_eps", Bound * PLD_MERGE_MAX_RUNS),
                ("own_met_accuracy", c_int * PLD_MERGE_MAX_RUNS),
                ("epsilon", c_double),
                ("delta", c_double),
                ("accuracy", c_double),
                ("resolution", c_uint),
                ("joint_pld", Bound),
                ("joint_pld_met_accuracy", c_int),
                ("joint_rdp", c_double),
                ("adv_eps", c_double),
                ("adv_delta", c_double),
                ("adv_delta_i", c_double),
                ("adv_delta0", c_double),
                ("adv_eps_i", c_double * PLD_MERGE_MAX_RUNS),
                ("max_weight", c_double * PLD_MERGE_N_METHODS),
                ("n_points", c_size_t),
                ("weights", POINTER(c_double)),
                ("points", POINTER(MergePoint)),
                ("warnings", c_uint)]


class FileErrorInfo(Structure):
    """pld_file_error (ledger.h): where a file operation failed."""
    _fields_ = [("stage", c_int),
                ("errnum", c_int),
                ("path", c_char * 4096)]


LedgerWaitFn = ctypes.CFUNCTYPE(None, ctypes.c_void_p, c_char_p)


class LedgerOptions(Structure):
    """pld_ledger_options (ledger.h)."""
    _fields_ = [("lock_timeout", c_double),
                ("create", c_int),
                ("on_wait", LedgerWaitFn),
                ("ctx", ctypes.c_void_p)]


PD = POINTER(c_double)

# name: (restype, [argtypes]).  A status-returning function has restype c_int.
_CORE = {
    # status.h / version.h
    "pld_strerror": (c_char_p, [c_int]),
    "pld_version_string": (c_char_p, []),
    "pld_version_number": (c_uint, []),
    "pld_bound_kind_name": (c_char_p, [c_int]),
    # pld.h
    "pld_params_default": (None, [POINTER(Params)]),
    "pld_params_validate": (c_int, [POINTER(Params)]),
    "pld_dist_from_curve": (c_int, [POINTER(Curve), c_double,
                                    POINTER(Params), POINTER(DistPtr)]),
    "pld_dist_identity": (c_int, [c_double, POINTER(DistPtr)]),
    "pld_dist_copy": (c_int, [DistPtr, POINTER(DistPtr)]),
    "pld_dist_free": (None, [DistPtr]),
    "pld_dist_compose": (c_int, [DistPtr, DistPtr, WorkspacePtr,
                                 POINTER(DistPtr)]),
    "pld_dist_self_compose": (c_int, [DistPtr, c_uint64, WorkspacePtr,
                                      POINTER(DistPtr)]),
    "pld_dist_delta": (c_int, [DistPtr, c_double, POINTER(Bound)]),
    "pld_dist_epsilon": (c_int, [DistPtr, c_double, POINTER(Bound)]),
    "pld_dist_curve": (c_int, [DistPtr, c_size_t, PD, POINTER(Bound)]),
    "pld_dist_discretization": (c_double, [DistPtr]),
    "pld_dist_grid_size": (c_size_t, [DistPtr]),
    "pld_dist_fft_size": (c_size_t, [DistPtr]),
    "pld_dist_view": (c_int, [DistPtr, c_int, c_int, POINTER(PmfView)]),
    "pld_dist_serialize": (c_int, [DistPtr, POINTER(POINTER(c_ubyte)),
                                   POINTER(c_size_t)]),
    "pld_dist_deserialize": (c_int, [POINTER(c_ubyte), c_size_t,
                                     POINTER(DistPtr)]),
    "pld_buffer_free": (None, [POINTER(c_ubyte)]),
    "pld_dist_save": (c_int, [DistPtr, c_char_p]),
    "pld_dist_load": (c_int, [c_char_p, POINTER(DistPtr)]),
    # mech.h
    "pld_mech_gaussian": (c_int, [c_double, c_double, POINTER(MechPtr)]),
    "pld_mech_laplace": (c_int, [c_double, c_double, POINTER(MechPtr)]),
    "pld_mech_discrete_laplace": (c_int, [c_double, c_int64,
                                          POINTER(MechPtr)]),
    "pld_mech_discrete_gaussian": (c_int, [c_double, c_int64,
                                           POINTER(MechPtr)]),
    "pld_mech_randomized_response": (c_int, [c_double, c_int64,
                                             POINTER(MechPtr)]),
    "pld_mech_finite": (c_int, [c_size_t, PD, PD, POINTER(MechPtr)]),
    "pld_mech_poisson": (c_int, [MechPtr, c_double, POINTER(MechPtr)]),
    "pld_mech_poisson_gaussian": (c_int, [c_double, c_double, c_double,
                                          POINTER(MechPtr)]),
    "pld_mech_poisson_laplace": (c_int, [c_double, c_double, c_double,
                                         POINTER(MechPtr)]),
    "pld_mech_mixture_gaussian": (c_int, [c_double, c_size_t, PD, PD,
                                          c_size_t, PD, PD,
                                          POINTER(MechPtr)]),
    "pld_mech_wor_gaussian": (c_int, [c_uint64, c_uint64, c_double, c_double,
                                      POINTER(MechPtr)]),
    "pld_mech_select": (c_int, [c_size_t, POINTER(MechPtr), PD,
                                POINTER(MechPtr)]),
    "pld_mech_from_curve": (c_int, [POINTER(Curve), POINTER(MechPtr)]),
    "pld_mech_copy": (c_int, [MechPtr, POINTER(MechPtr)]),
    "pld_mech_free": (None, [MechPtr]),
    "pld_mech_curve": (POINTER(Curve), [MechPtr]),
    "pld_mech_delta": (c_int, [MechPtr, c_int, c_double, PD]),
    "pld_mech_gaussian_mu": (c_int, [MechPtr, PD]),
    "pld_mech_equal": (c_int, [MechPtr, MechPtr]),
    # accountant.h
    "pld_accountant_alloc": (c_int, [POINTER(Params), POINTER(AccPtr)]),
    "pld_accountant_free": (None, [AccPtr]),
    "pld_accountant_add": (c_int, [AccPtr, MechPtr, c_uint64]),
    "pld_accountant_add_dist": (c_int, [AccPtr, DistPtr, c_uint64]),
    "pld_accountant_size": (c_size_t, [AccPtr]),
    "pld_accountant_epsilon": (c_int, [AccPtr, c_double, POINTER(Result)]),
    "pld_accountant_delta": (c_int, [AccPtr, c_double, POINTER(Result)]),
    "pld_accountant_curve": (c_int, [AccPtr, c_size_t, PD, POINTER(Bound),
                                     POINTER(Result)]),
    "pld_accountant_compose": (c_int, [AccPtr, c_double, POINTER(DistPtr)]),
    # select.h
    "pld_dist_mix": (c_int, [c_size_t, POINTER(DistPtr), PD,
                             POINTER(DistPtr)]),
    "pld_accountant_add_selection": (c_int, [AccPtr, c_size_t,
                                             POINTER(AccPtr), PD, c_uint64]),
    "pld_accountant_copy": (c_int, [AccPtr, POINTER(AccPtr)]),
    "pld_select_feasible": (c_int, [c_size_t, PD, c_double, c_uint, PD,
                                    c_size_t, POINTER(c_size_t)]),
    "pld_select_max_weight": (c_int, [PD, c_double, PD]),
    "pld_calibrate": (c_int, [BuildFn, c_void_p, c_double, c_double,
                              c_double, c_double, ProgressFn, c_void_p,
                              POINTER(Calibration)]),
}

# The rest of the API by header (all of it required: the binding and the
# library ship together, and check_sizes below checks their layouts).
_PARTS = {
    "rdp": {
        "pld_rdp_curve_alloc": (c_int, [c_size_t, PD, POINTER(RdpPtr)]),
        "pld_rdp_curve_alloc_default": (c_int, [POINTER(RdpPtr)]),
        "pld_rdp_curve_free": (None, [RdpPtr]),
        "pld_rdp_curve_copy": (c_int, [RdpPtr, POINTER(RdpPtr)]),
        "pld_rdp_curve_size": (c_size_t, [RdpPtr]),
        "pld_rdp_curve_orders": (PD, [RdpPtr]),
        "pld_rdp_curve_values": (PD, [RdpPtr]),
        "pld_rdp_curve_same_orders": (c_int, [RdpPtr, RdpPtr]),
        "pld_rdp_curve_set": (c_int, [RdpPtr, PD]),
        "pld_rdp_curve_add_values": (c_int, [RdpPtr, PD, c_uint64]),
        "pld_rdp_curve_compose": (c_int, [RdpPtr, RdpPtr, c_uint64]),
        "pld_rdp_add_gaussian": (c_int, [RdpPtr, c_double, c_double,
                                         c_uint64]),
        "pld_rdp_add_laplace": (c_int, [RdpPtr, c_double, c_double,
                                        c_uint64]),
        "pld_rdp_add_randomized_response": (c_int, [RdpPtr, c_double,
                                                    c_int64, c_uint64]),
        "pld_rdp_add_poisson_gaussian": (c_int, [RdpPtr, c_double, c_double,
                                                 c_double, c_uint64]),
        "pld_rdp_add_wor_gaussian": (c_int, [RdpPtr, c_uint64, c_uint64,
                                             c_double, c_double, c_uint64]),
        "pld_rdp_epsilon": (c_int, [RdpPtr, c_double, c_int,
                                    POINTER(RdpResult)]),
        "pld_rdp_delta": (c_int, [RdpPtr, c_double, c_int,
                                  POINTER(RdpResult)]),
        "pld_rdp_random_selection": (c_int, [c_size_t, POINTER(RdpPtr), PD,
                                             RdpPtr]),
        "pld_rdp_rs_max_weight": (c_int, [RdpPtr, RdpPtr, c_double, c_double,
                                          c_int, PD]),
        "pld_rdp_rs_grid_size": (c_int, [c_size_t, c_uint,
                                         POINTER(c_size_t)]),
        "pld_rdp_rs_feasible_grid": (c_int, [c_size_t, POINTER(RdpPtr),
                                             c_uint, c_double, c_double,
                                             c_int, PD, c_size_t,
                                             POINTER(c_size_t)]),
    },
    "rdp_of_pld": {
        "pld_rdp_of_pld": (c_int, [DistPtr, RdpPtr]),
        "pld_rdp_of_pld_lower": (c_int, [DistPtr, RdpPtr]),
    },
    "participation": {
        "pld_participation_epsilon_prime": (c_int, [c_double, c_double, PD]),
        "pld_participation_delta": (c_int, [POINTER(ParticipationParams),
                                            c_int, c_double, POINTER(Bound)]),
        "pld_participation_calibrate": (
            c_int, [POINTER(ParticipationParams), c_int, c_double, c_double,
                    POINTER(ParticipationCalibration)]),
    },
    # rdp_papers.h: the sound entry points only (the *_paper formulas, the
    # FIL and the MS-PAFL baselines are not bound).
    "rdp_papers": {
        "pld_rdp_model_splitting": (c_int, [c_double, c_int64, c_int64,
                                            c_double, c_double,
                                            POINTER(SplitTerms)]),
        "pld_rdp_model_splitting_curve": (c_int, [c_size_t, PD, c_int64,
                                                  c_int64, c_double, c_double,
                                                  PD]),
        "pld_rdp_dropout": (c_int, [c_double, c_double, c_double, PD]),
        "pld_rdp_partial_splitting": (c_int, [c_double, c_int64, c_int64,
                                              c_double, c_double, c_double,
                                              PD]),
        "pld_rdp_bis_epochs": (c_int, [c_double, c_int64, c_int64, c_int64,
                                       c_double, c_double, PD]),
        "pld_rdp_poisson_split": (c_int, [c_double, c_double, c_int64,
                                          c_double, c_double,
                                          POINTER(PairTerms)]),
        "pld_rdp_bounded_gaussian_sup": (c_int, [c_int, c_double, c_double,
                                                 c_double, c_double, c_double,
                                                 PD]),
        "pld_mech_rectified_gaussian": (c_int, [c_double, c_double, c_double,
                                                c_double, POINTER(MechPtr)]),
        "pld_mech_truncated_gaussian": (c_int, [c_double, c_double, c_double,
                                                c_double, POINTER(MechPtr)]),
    },
    # rdp_papers.h: MS-PAFL as one analysis (closed form, its certified
    # flag, the PLD of the same protocol).
    "mspafl": {
        "pld_mspafl_setting_default": (c_int, [POINTER(MspaflSetting)]),
        "pld_mspafl_analyze": (c_int, [c_int, POINTER(MspaflSetting),
                                       POINTER(Params),
                                       POINTER(MspaflReport)]),
        "pld_mspafl_theorem_parse": (c_int, [c_char_p]),
    },
    # merge.h: the model-merging paper (LC, RS, baselines, mean
    # estimation, the planner).
    "merge": {
        "pld_merge_lc_accountant": (c_int, [c_size_t, POINTER(MergeRun), PD,
                                            POINTER(Params),
                                            POINTER(AccPtr)]),
        "pld_merge_lc_step_mech": (c_int, [c_size_t, POINTER(MergeRun), PD,
                                           POINTER(MechPtr)]),
        "pld_merge_lc_rdp": (c_int, [c_size_t, POINTER(MergeRun), PD,
                                     RdpPtr]),
        "pld_merge_joint_accountant": (c_int, [c_size_t, POINTER(MergeRun),
                                               POINTER(Params),
                                               POINTER(AccPtr)]),
        "pld_merge_joint_rdp": (c_int, [c_size_t, POINTER(MergeRun),
                                        RdpPtr]),
        "pld_merge_rs_accountant": (c_int, [c_size_t, POINTER(MergeRun), PD,
                                            POINTER(Params),
                                            POINTER(AccPtr)]),
        "pld_merge_rs_rdp": (c_int, [c_size_t, POINTER(MergeRun), PD,
                                     RdpPtr]),
        "pld_merge_advanced_composition": (c_int, [c_size_t, PD, PD,
                                                   c_double, PD, PD]),
        "pld_merge_mean_lc_mech": (c_int, [c_double, c_double, c_double,
                                           c_double, POINTER(MechPtr)]),
        "pld_merge_mean_sigma_lc": (c_int, [c_double, c_double, c_double,
                                            PD]),
        "pld_merge_mean_rs_rdp": (c_int, [c_double, c_double, c_double,
                                          c_double, RdpPtr]),
        "pld_merge_mean_rs_mech": (c_int, [c_double, c_double, c_double,
                                           c_double, POINTER(MechPtr)]),
        "pld_merge_epsilon": (c_int, [c_size_t, POINTER(MergeRun), PD, c_int,
                                      c_double, POINTER(Params), PD]),
        "pld_merge_max_weight": (c_int, [POINTER(MergeRun), c_int, c_double,
                                         c_double, POINTER(Params), PD]),
        "pld_merge_warning_text": (c_char_p, [c_uint]),
        "pld_merge_grid_size": (c_int, [c_size_t, c_uint,
                                        POINTER(c_size_t)]),
        "pld_merge_plan_compute": (c_int, [POINTER(MergePlan),
                                           POINTER(POINTER(MergeReport))]),
        "pld_merge_report_free": (None, [POINTER(MergeReport)]),
    },
    # merge.h: per-step schedules of LC (newer libraries).
    "merge_schedule": {
        "pld_merge_lc_schedule_accountant": (
            c_int, [c_size_t, POINTER(MergeSchedule), PD, POINTER(Params),
                    POINTER(AccPtr)]),
        "pld_merge_lc_schedule_rdp": (c_int, [c_size_t,
                                              POINTER(MergeSchedule), PD,
                                              RdpPtr]),
    },
    # ledger.h and accountant.h: running ledgers under a lock, their
    # history, one accountant's events booked into another (newer
    # libraries).
    "ledger": {
        "pld_ledger_add": (c_int, [c_char_p, AccPtr, c_double, c_char_p,
                                   POINTER(DistPtr),
                                   POINTER(FileErrorInfo)]),
        "pld_dist_history_size": (c_size_t, [DistPtr]),
        "pld_dist_history_record": (c_int, [DistPtr, c_size_t,
                                            POINTER(c_int64),
                                            POINTER(POINTER(c_char)),
                                            POINTER(c_size_t)]),
        "pld_accountant_merge": (c_int, [AccPtr, AccPtr]),
        "pld_event_compose_for_save": (c_int, [AccPtr, c_double,
                                               POINTER(Params),
                                               POINTER(DistPtr),
                                               POINTER(Result)]),
    },
    # status.h: the thread-local text naming the parameter, value and range
    # of the last rejection (newer libraries).
    "error_detail": {
        "pld_error_detail": (c_char_p, []),
    },
    # ledger.h: the update with options (lock timeout, create, a wait
    # notice) and the booked-but-not-durable status.
    "ledger_update": {
        "pld_ledger_options_default": (None, [POINTER(LedgerOptions)]),
        "pld_ledger_update": (c_int, [c_char_p, AccPtr, c_double, c_char_p,
                                      POINTER(LedgerOptions),
                                      POINTER(DistPtr),
                                      POINTER(FileErrorInfo)]),
    },
}


def _candidates():
    env = os.environ.get("PLDKIT_LIBRARY")
    if env:
        return [env], True
    here = os.path.dirname(os.path.abspath(__file__))
    out = []
    tree = os.path.normpath(os.path.join(here, "..", "..", "build",
                                         "libpldkit.so"))
    if os.path.exists(tree):
        out.append(tree)
    found = ctypes.util.find_library("pldkit")
    if found:
        out.append(found)
    out.append("libpldkit.so.0")
    multiarch = getattr(sys.implementation, "_multiarch", None)
    for prefix in ("/usr/local/lib", "/usr/lib"):
        dirs = [os.path.join(prefix, multiarch)] if multiarch else []
        for d in dirs + [prefix]:
            cand = os.path.join(d, "libpldkit.so.0")
            if os.path.exists(cand):
                out.append(cand)
    return out, False


def _load():
    names, from_env = _candidates()
    errors = []
    for name in names:
        try:
            return ctypes.CDLL(name), name
        except OSError as e:
            errors.append("%s: %s" % (name, e))
            if from_env:
                break
    if from_env:
        hint = ("PLDKIT_LIBRARY=%s cannot be loaded; point it at a "
                "libpldkit.so built by `ninja -C build`" % names[0])
    else:
        hint = ("the pldkit Python package needs the C library libpldkit, "
                "which is not installed or not found: install it from the "
                "pldkit checkout with `sudo make install` (the library, "
                "CLI and headers; it runs ldconfig), or set "
                "PLDKIT_LIBRARY=/path/to/libpldkit.so")
    raise LibraryNotFound("cannot load libpldkit: %s (tried: %s)"
                          % (hint, "; ".join(errors)))


lib, path = _load()
available = {}  # header part -> True (kept for older callers)


def _declare(table):
    for name, (restype, argtypes) in table.items():
        f = getattr(lib, name)
        f.restype = restype
        f.argtypes = argtypes


_declare(_CORE)
for _part, _table in _PARTS.items():
    _declare(_table)
    available[_part] = True

# Test hooks of src/alloc.c: exported only by the test-only build
# libpldkit-hooks.so (meson.build), never by the installed library.
_HOOKS = {
    "pld_test_fail_allocation": (None, [c_long]),
    "pld_test_allocation_count": (c_long, []),
    "pld_test_fail_dir_sync": (None, [c_int]),
}
try:
    for _name in _HOOKS:
        getattr(lib, _name)
    _declare(_HOOKS)
    available["alloc_hooks"] = available["dir_sync_hook"] = True
except AttributeError:
    available["alloc_hooks"] = available["dir_sync_hook"] = False


def declare(table):
    """Declare the prototypes of `table` (name -> (restype, argtypes))."""
    _declare(table)


lib.pld_sizeof.restype = c_size_t
lib.pld_sizeof.argtypes = [c_char_p]


def check_sizes(table):
    """Check every mirrored struct (C name -> ctypes class) against the
    loaded library's sizeof (pld_sizeof): a layout that drifted from the
    headers fails at import, not as corrupt memory later."""
    for name, cls in table.items():
        want = lib.pld_sizeof(name.encode())
        if want != ctypes.sizeof(cls):
            raise ImportError("pldkit: the Python mirror of %s has %d bytes, "
                              "the library %s says %d: the binding and the "
                              "library are from different versions"
                              % (name, ctypes.sizeof(cls), path, want))


check_sizes({"pld_bound": Bound, "pld_params": Params, "pld_result": Result,
             "pld_pmf_view": PmfView, "pld_curve": Curve,
             "pld_calibration": Calibration, "pld_rdp_result": RdpResult,
             "pld_search_result": SearchResult,
             "pld_participation_params": ParticipationParams,
             "pld_participation_calibration": ParticipationCalibration,
             "pld_rdp_split_terms": SplitTerms,
             "pld_mspafl_bound": MspaflBound,
             "pld_mspafl_setting": MspaflSetting,
             "pld_mspafl_report": MspaflReport,
             "pld_rdp_pair_terms": PairTerms, "pld_merge_run": MergeRun,
             "pld_merge_schedule": MergeSchedule,
             "pld_merge_plan": MergePlan, "pld_merge_point": MergePoint,
             "pld_merge_report": MergeReport,
             "pld_file_error": FileErrorInfo})


def bound_kind_name(kind):
    """pld_bound_kind_name(kind) as a str ('grid', 'basic', ...)."""
    return lib.pld_bound_kind_name(int(kind)).decode("utf-8", "replace")


def strerror(status):
    """pld_strerror(status) as a str."""
    return lib.pld_strerror(int(status)).decode("utf-8", "replace")




def error_detail():
    """pld_error_detail() as a str: why the last call of this thread that
    returned a status was rejected (the parameter, its value and the allowed
    range or cap), "" if it succeeded or said nothing.  ctypes calls run in
    the calling thread, so this is the detail of this thread's last call."""
    d = lib.pld_error_detail()
    return d.decode("utf-8", "replace") if d else ""
