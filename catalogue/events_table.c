/* pldkit catalogue: the event table (every event's name, keys, domains and
 * adapters) and what is read from it: pld_event_info_get, the help texts,
 * the solvable keys, and the lookups the parser uses. */

#include <pldkit/event.h>

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <pldkit/mech.h>
#include <pldkit/pld.h>
#include <pldkit/bridge.h>
#include <pldkit/rdp.h>
#include <pldkit/splitting.h>
#include <pldkit/bounded.h>
#include <pldkit/mspafl.h>
#include <pldkit/select.h>
#include <pldkit/merge.h>


#include <pldkit/participation.h>
#include <pldkit/allocation.h>
#include <pldkit/samplers.h>
#include "detail.h"
#include "events_internal.h"

/* ------------------------------------------------------------------------ */
/* The table.                                                                */

static const struct event_spec events[] = {
  {.name = "gaussian",
   .title = "Gaussian mechanism",
   .example = "gaussian:sigma=2,count=10",
   .summary = "Gaussian mechanism: N(0, sigma^2) noise on a query",
   .build = ev_build_gaussian,
   .rdp = ev_rdp_gaussian,
   .rdp_how = "alpha sensitivity^2/(2 sigma^2), exact (Mironov 2017)",
   .keys = {{"sigma", DOM_NOISE, 1, 0, "noise standard deviation"},
            {"sensitivity", DOM_POSITIVE, 0, 1,
             "L2 sensitivity of the query", .mono = MONO_LESS}}},
  {.name = "laplace",
   .title = "Laplace mechanism",
   .example = "laplace:b=2,count=5",
   .summary = "Laplace mechanism: Laplace(b) noise on a query",
   .build = ev_build_laplace,
   .rdp = ev_rdp_laplace,
   .rdp_how = "exact closed form (Mironov 2017, Prop. 6)",
   .keys = {{"b", DOM_NOISE, 1, 0, "noise scale"},
            {"sensitivity", DOM_POSITIVE, 0, 1,
             "L1 sensitivity of the query", .mono = MONO_LESS}}},
  {.name = "discrete-laplace",
   .title = "discrete Laplace mechanism (integer noise)",
   .example = "discrete-laplace:scale=2,count=5",
   .summary = "discrete Laplace mechanism: integer noise, P(k) ~ "
              "exp(-|k|/scale)",
   .build = ev_build_discrete_laplace,
   .rdp_how = "through the PLD bridge (conservative, see RDP BACKEND "
              "below), up to one grid step per run above the exact value",
   .check = ev_check_discrete_sensitivity,
   .keys = {{"scale", DOM_NOISE, 1, 0, "noise scale"},
            {"sensitivity", DOM_INT_GE1, 0, 1,
             "integer sensitivity, at most 2^20", .mono = MONO_LESS,
             .solve_hi = PLD_DISCRETE_MAX_SENSITIVITY}}},
  {.name = "discrete-gaussian",
   .title = "discrete Gaussian mechanism (integer noise)",
   .example = "discrete-gaussian:sigma=3,count=5",
   .summary = "discrete Gaussian mechanism: integer noise, P(k) ~ "
              "exp(-k^2/(2 sigma^2))",
   .build = ev_build_discrete_gaussian,
   .rdp = ev_rdp_discrete_gaussian,
   .rdp_how = "alpha sensitivity^2/(2 sigma^2), the continuous Gaussian's "
              "(Canonne, Kamath and Steinke 2020: the discrete Gaussian is "
              "sensitivity^2/(2 sigma^2)-concentrated DP)",
   .check = ev_check_discrete_gaussian,
   .keys = {{"sigma", DOM_NOISE, 1, 0, "noise parameter, at most 1e4",
             .solve_hi = PLD_DISCRETE_GAUSSIAN_MAX_SIGMA},
            {"sensitivity", DOM_INT_GE1, 0, 1,
             "integer sensitivity, at most 2^20", .mono = MONO_LESS,
             .solve_hi = PLD_DISCRETE_MAX_SENSITIVITY}}},
  {.name = "randomized-response",
   .title = "k-ary randomized response (replace-one)",
   .example = "randomized-response:epsilon=1,k=4,count=10",
   .summary = "k-ary randomized response, replace-one adjacency: report the "
              "true value with probability e^epsilon/(e^epsilon+k-1), else "
              "another one uniformly",
   .build = ev_build_randomized_response,
   .rdp = ev_rdp_randomized_response,
   .replace_one = 1,
   .rdp_how = "exact closed form",
   .keys = {{"epsilon", DOM_NONNEGATIVE, 1, 0,
             "epsilon0 of one response (nats)", .mono = MONO_LESS},
            {"k", DOM_INT_GE2, 1, 0, "number of possible values",
             .mono = MONO_MORE}}},
  {.name = "poisson-gaussian",
   .title = "Poisson-subsampled Gaussian: one DP-SGD step",
   .example = "poisson-gaussian:q=0.01,sigma=1,count=1000",
   .summary = "Poisson-subsampled Gaussian (DP-SGD step), add/remove "
              "adjacency",
   .build = ev_build_poisson_gaussian,
   .rdp = ev_rdp_poisson_gaussian,
   .rdp_how = "exact binomial sum at integer orders, a series with a "
              "certified truncation error at fractional orders (Mironov, "
              "Talwar and Zhang 2019)",
   .keys = {{"q", DOM_RATE, 1, 0, "sampling rate per step",
             .mono = MONO_LESS},
            {"sigma", DOM_NOISE, 1, 0, "noise standard deviation"},
            {"sensitivity", DOM_POSITIVE, 0, 1,
             "L2 sensitivity (clipping norm)", .mono = MONO_LESS}}},
  {.name = "poisson-sampled",
   .title = "Poisson subsampling of any one mechanism event",
   .example = "poisson-sampled:q=0.1,count=10[discrete-laplace:scale=2]",
   .summary = "Poisson subsampling at rate q of ONE mechanism event given "
              "in brackets, add/remove adjacency, both directions: each "
              "step includes the record with probability q, and a step "
              "that includes it runs the member, e.g. "
              "poisson-sampled:q=0.01,count=1000[discrete-gaussian:sigma=3]."
              "  PLD: P = (1-q) Q + q P_member, Q = Q_member, from the "
              "member's exact pair (Zhu, Dong, Wang 2022, Prop. 30; "
              "pld_mech_poisson); q = 1 is the member itself.  The member "
              "is one EVENT with a PLD mechanism and count 1 (count=N "
              "before '[' composes N subsampled steps): not a '+' list, "
              "not a random-selection, a pld:file= or another "
              "poisson-sampled, not a closed-form analysis, and not "
              "randomized-response or wor-gaussian, whose pairs are for "
              "replace-one neighbours (Poisson subsampling is an "
              "add/remove notion).  The member's P is the output WITH the "
              "record (a bounded-gaussian member's theta is the location "
              "with it; poisson-bounded-gaussian's theta is the one "
              "without).  A gaussian member gives exactly the numbers of "
              "poisson-gaussian, a laplace member those of poisson-laplace.",
   .kind = KIND_SUBSAMPLE,
   .rdp_how = "a gaussian member: the exact Poisson-Gaussian RDP of "
              "poisson-gaussian (pld_rdp_add_poisson_gaussian); q = 1: the "
              "member's own RDP; otherwise through the PLD bridge applied "
              "to the subsampled pair (conservative, see RDP BACKEND "
              "below)",
   .keys = {{"q", DOM_RATE, 1, 0, "sampling rate per step",
             .mono = MONO_LESS}}},
  {.name = "poisson-laplace",
   .title = "Poisson-subsampled Laplace",
   .example = "poisson-laplace:q=0.05,b=2,count=100",
   .summary = "Poisson-subsampled Laplace, add/remove adjacency",
   .build = ev_build_poisson_laplace,
   .rdp_how = "through the PLD bridge (conservative, see RDP BACKEND below)",
   .keys = {{"q", DOM_RATE, 1, 0, "sampling rate per step",
             .mono = MONO_LESS},
            {"b", DOM_NOISE, 1, 0, "noise scale"},
            {"sensitivity", DOM_POSITIVE, 0, 1, "L1 sensitivity",
             .mono = MONO_LESS}}},
  {.name = "finite",
   .title = "an arbitrary pair of finite distributions",
   .example = "finite:p=0.5;0.3;0.2,q=0.3;0.3;0.4,count=3",
   .summary = "an arbitrary pair of finite output distributions P (with the "
              "record) and Q (without), e.g. finite:p=0.5;0.5,q=0.25;0.75; "
              "masses summing to 1 within 1e-9 (typed decimals) are read as "
              "the normalised pair p/sum(p), q/sum(q), and the answer is "
              "certified for that pair",
   .build = ev_build_finite,
   .rdp_how = "through the PLD bridge (conservative, see RDP BACKEND "
              "below), up to one grid step per run above the exact value; "
              "inf if P has mass where Q has none or the reverse",
   .check = ev_check_finite,
   .keys = {{"p", DOM_PROB_LIST, 1, 0,
             "probabilities of the outcomes under P"},
            {"q", DOM_PROB_LIST, 1, 0,
             "probabilities of the same outcomes under Q"}}},
  {.name = "mixture-gaussian",
   .title = "a pair of Gaussian mixtures with a common sigma",
   .example = "mixture-gaussian:sigma=1,p-means=0;1,p-weights=0.5;0.5,q-means=0,q-weights=1,count=4",
   .summary = "a pair of one-dimensional Gaussian mixtures with a common "
              "sigma, P = sum_i a_i N(mu_i, sigma^2) and Q = sum_j b_j "
              "N(nu_j, sigma^2), both directions exact, e.g. "
              "mixture-gaussian:sigma=1,p-means=0;1,p-weights=0.5;0.5,"
              "q-means=0,q-weights=1",
   .build = ev_build_mixture_gaussian,
   .rdp_how = "through the PLD bridge (conservative, see RDP BACKEND "
              "below); inf when the loss is unbounded (almost always)",
   .check = ev_check_mixture,
   .keys = {{"sigma", DOM_NOISE, 1, 0, "common standard deviation"},
            {"p-means", DOM_REAL_LIST, 1, 0, "component means mu_i of P"},
            {"p-weights", DOM_PROB_LIST, 1, 0,
             "component weights a_i of P, one per mean"},
            {"q-means", DOM_REAL_LIST, 1, 0, "component means nu_j of Q"},
            {"q-weights", DOM_PROB_LIST, 1, 0,
             "component weights b_j of Q, one per mean"}}},
  {.name = "wor-gaussian",
   .title = "Gaussian on a fixed-size batch without replacement",
   .example = "wor-gaussian:batch=10,n=1000,sigma=1,sensitivity=2,count=100",
   .summary = "Gaussian mechanism on a batch of fixed size drawn without "
              "replacement from n records, REPLACE-ONE adjacency (one record "
              "is replaced by another), both directions",
   .build = ev_build_wor_gaussian,
   .rdp = ev_rdp_wor_gaussian,
   .replace_one = 1,
   .rdp_how = "Wang, Balle and Kasiviswanathan 2019, Thm 9 (a bound), "
              "replace-one",
   .check = ev_check_wor,
   .keys = {{"batch", DOM_INT_GE1, 1, 0, "batch size, at most n"},
            {"n", DOM_INT_GE1, 1, 0, "number of records"},
            {"sigma", DOM_NOISE, 1, 0, "noise standard deviation"},
            {"sensitivity", DOM_POSITIVE, 0, 1,
             "L2 sensitivity of the summed query between replace-one "
             "neighbours (for sums of gradients clipped to norm C it is "
             "2C)", .mono = MONO_LESS}}},
  {.name = "random-participation",
   .title = "one federated round, random client participation",
   .example = "random-participation:p=0.1,q=0.05,d=100,C=1,sigma=1,count=10",
   .summary = "one round of federated DP-SGD with random client "
              "participation: each client joins with probability p, samples "
              "each of its d records with probability q, the server adds "
              "N(0, sigma^2) to the sum of gradients clipped to norm C.  "
              "analysis=wcs (the certified one): the participation bit is "
              "visible, the round is \"loss 0 with probability 1-p, the "
              "q-subsampled Gaussian with probability p\", composable; cs: "
              "centralized sampling at rate p*q, the certified LOWER limit "
              "of the true worst case (not a guarantee); mwcs (certified, "
              "tighter than wcs when q d is large): the participating "
              "client's other records mask x', the round is \"q-subsampled "
              "Gaussian w.p. p(1-(1-q)^d), the p0 q-subsampled one "
              "otherwise\" (docs/participation.md sec. 5), composable; "
              "thm41 (Theorem "
              "4.1 of the paper, reported as not certified where it falls "
              "below cs) and ols (only local sampling): closed-form single "
              "rounds, for epsilon and delta queries with count=1 only",
   .build = ev_build_participation,
   .rdp = ev_rdp_participation,
   .rdp_how = "wcs: the RDP random selection (model merging paper, Thm "
              "5.1) of nothing and the q-subsampled Gaussian; cs: "
              "poisson-gaussian at rate p*q; mwcs: the RDP random selection "
              "of its two subsampled Gaussians; thm41 and ols have no RDP "
              "(--backend pld only)",
   .closed = ev_closed_participation,
   .check = ev_check_participation,
   .note = ev_note_participation,
   .no_solve = ev_no_solve_participation,
   .keys = {{"p", DOM_RATE, 1, 0, "client participation probability",
             .mono = MONO_LESS},
            {"q", DOM_RATE, 1, 0, "record sampling rate within a client",
             .mono = MONO_LESS},
            {"d", DOM_INT_GE1, 1, 0,
             "records of the client other than the protected one (the "
             "paper's d; used by thm41 and mwcs only)"},
            {"C", DOM_POSITIVE, 1, 0, "clipping norm of one gradient",
             .mono = MONO_LESS},
            {"sigma", DOM_NOISE, 1, 0, "noise standard deviation"},
            {"analysis", DOM_CHOICE, 0, AN_WCS, "which analysis",
             ANALYSES}}},
  {.name = "model-splitting",
   .title = "one training step with model splitting (k of d blocks)",
   .example = "model-splitting:d=4,k=1,sigma=1,c=1,count=10",
   .summary = "one training step with model splitting (splitting paper, "
              "Thm 3.1): the model's parameters in d disjoint blocks, k of "
              "them drawn uniformly at random for each example, whose "
              "gradient (any direction in a block, which may depend on the "
              "blocks drawn) is clipped as clip= says, and every block gets "
              "N(0, sigma^2) noise; k = 1 is disjoint submodels (Thm 3.4), "
              "d = 2, k = 1 dropout with rate 1/2 (Cor. 3.7).  count=N "
              "composes N steps.  PLD (the default backend): clip=block "
              "(each block's part clipped to c; the default, and sound for "
              "either clipping) and k = 1 are exactly the k-out-of-d random "
              "allocation, bracketed as balanced-iteration with T = d "
              "(docs/allocation.md \"Model splitting with k > 1\"; d = 1 "
              "is the Gaussian mechanism); clip=total (the whole gradient "
              "clipped to c) with 1 < k < d takes the upper end from that "
              "allocation or from the Gaussian with shift c, whichever is "
              "smaller at delta = 1e-5, the lower end from Poisson sampling "
              "at rate k/d (a gradient in one block).  The RDP is sound: "
              "max(forward, reverse), the forward the exact eq. (2) where "
              "affordable, else the smaller of eq. (3) and a proven group "
              "bound, the reverse exact for k in {1, d-1, d} (quadrature "
              "with an added error estimate), else the group bound; the "
              "paper's reverse term is not a bound and is not used; "
              "clip=total also takes the Gaussian's alpha c^2/(2 sigma^2) "
              "where smaller",
   .check = ev_check_split,
   .add = ev_add_split,
   .rdp = ev_rdp_model_splitting,
   .rdp_lower = ev_rdp_model_splitting_forward,
   .rdp_lower2 = ev_rdp_model_splitting_projection,
   .rdp_how = "as above (pld_rdp_model_splitting_curve); it takes about "
              "0.2 to 1 s on the 157 default orders, less with fewer "
              "--orders",
   .keys = {{"d", DOM_INT_GE1, 1, 0, "number of blocks (submodels)"},
            {"k", DOM_INT_GE1, 1, 0,
             "blocks each gradient goes to, 1 <= k <= d"},
            {"sigma", DOM_NOISE, 1, 0, "noise standard deviation"},
            {"c", DOM_POSITIVE, 1, 0,
             "clipping norm (L2 sensitivity): of each block's part "
             "(clip=block) or of the whole gradient (clip=total)",
             .mono = MONO_LESS},
            {"clip", DOM_CHOICE, 0, CLIP_BLOCK,
             "what c clips: block (each block's part) or total (the whole "
             "gradient)",
             CLIPS}}},
  {.name = "balanced-iteration",
   .title = "one run of Balanced Iteration Subsampling (k of T steps)",
   .example = "balanced-iteration:T=10,k=1,sigma=1,c=1",
   .summary = "Balanced Iteration Subsampling (splitting paper, Thm 3.8): "
              "ONE event is a WHOLE run of T iterations in which each "
              "example is used in exactly k of them, chosen uniformly at "
              "random, gradients clipped to norm c, noise N(0, sigma^2).  "
              "count=N composes N such runs (epochs, Remark 3.10); do not "
              "set count=T.  PLD (the default backend): k = 1 is the "
              "one-of-T random allocation pair bracketed between two finite "
              "pairs, k > 1 a split that dominates it: the k "
              "one-of-floor/ceil(T/k) groups, paired into two-of-m blocks "
              "where m <= 20, c/sigma <= 4 and that is tighter (upper end "
              "certified; the "
              "lower end is a projection of the run, the summed output's "
              "Gaussian times a Gaussian mixture, "
              "docs/allocation.md).  RDP "
              "(--backend rdp): the same sound RDP as model-splitting with "
              "d = T (the run's reduction to that pair is the paper's, "
              "docs/papers-rdp.md)",
   .check = ev_check_bis,
   .add = ev_add_bis,
   .rdp = ev_rdp_splitting,
   .rdp_lower = ev_rdp_splitting_forward,
   .rdp_lower2 = ev_rdp_bis_projection,
   .rdp_how = "as above (pld_rdp_model_splitting_curve); it takes about "
              "0.2 to 1 s on the 157 default orders, less with fewer "
              "--orders",
   .keys = {{"T", DOM_INT_GE1, 1, 0, "number of iterations of one run"},
            {"k", DOM_INT_GE1, 1, 0,
             "iterations each example takes part in, 1 <= k <= T"},
            {"sigma", DOM_NOISE, 1, 0, "noise standard deviation"},
            {"c", DOM_POSITIVE, 1, 0,
             "clipping norm of one example's gradient (L2 sensitivity)",
             .mono = MONO_LESS}}},
  {.name = "poisson-splitting",
   .title = "Poisson-subsampled step with disjoint model splitting",
   .example = "poisson-splitting:q=0.1,d=4,sigma=1,c=1,count=100",
   .summary = "one training step of the splitting paper's Fig. 1: each "
              "example is included with probability q (Poisson), an "
              "included example's gradient, clipped to norm c, goes to one "
              "of d disjoint submodels chosen uniformly, every submodel "
              "adds N(0, sigma^2): Q = N(0, sigma^2 I_d), P = (1-q) Q + "
              "(q/d) sum_i N(c e_i, sigma^2 I_d), both directions.  PLD "
              "(default backend): the Poisson subsampling of the one-of-d "
              "allocation bracket (docs/allocation.md), both ends "
              "certified; d = 1 is poisson-gaussian, q = 1 "
              "model-splitting with k = 1.  count=N composes N steps",
   .build = ev_build_poisson_split,
   .rdp = ev_rdp_poisson_split,
   .rdp_how = "pld_rdp_poisson_split at every order (forward exact at "
              "integer orders, reverse by quadrature); the Gaussian's "
              "alpha c^2/(2 sigma^2) where that has no value (orders above "
              "2048, c/sigma above 8)",
   .keys = {{"q", DOM_RATE, 1, 0, "sampling rate per step",
             .mono = MONO_LESS},
            {"d", DOM_INT_GE1, 1, 0, "number of disjoint submodels"},
            {"sigma", DOM_NOISE, 1, 0, "noise standard deviation"},
            {"c", DOM_POSITIVE, 1, 0,
             "clipping norm of one example's gradient (L2 sensitivity)",
             .mono = MONO_LESS}}},
  {.name = "partial-splitting",
   .title = "Poisson-subsampled step with partial model splitting",
   .example = "partial-splitting:q=0.1,d=4,sigma=1,c-split=1,c-shared=0.5,count=100",
   .summary = "one training step with partial model splitting (splitting "
              "paper, Sec. 3.2.2) and Poisson sampling at rate q: the "
              "split part of an included example's gradient, clipped to "
              "c-split, goes to one of d disjoint blocks chosen uniformly; "
              "the shared part (in every submodel, e.g. the first and last "
              "blocks), clipped to c-shared, may depend on the block drawn; "
              "N(0, sigma^2) on every coordinate.  PLD (default backend): "
              "the Poisson subsampling of N(c-shared, sigma^2) x (one-of-d "
              "allocation of c-split), which dominates every such step and "
              "is one of them (docs/allocation.md, \"Partial splitting\"); "
              "the two parts are subsampled together: adding their "
              "separately subsampled costs is not a bound for q < 1.  "
              "c-shared=0 is poisson-splitting, d = 1 poisson-gaussian with "
              "sensitivity hypot(c-split, c-shared).  count=N composes N "
              "steps",
   .build = ev_build_partial_split,
   .rdp_how = "through the PLD bridge (conservative, see RDP BACKEND "
              "below)",
   .keys = {{"q", DOM_RATE, 1, 0, "sampling rate per step",
             .mono = MONO_LESS},
            {"d", DOM_INT_GE1, 1, 0,
             "number of disjoint blocks of the split part"},
            {"sigma", DOM_NOISE, 1, 0, "noise standard deviation"},
            {"c-split", DOM_POSITIVE, 1, 0,
             "clipping norm of the split part's gradient",
             .mono = MONO_LESS},
            {"c-shared", DOM_NONNEGATIVE, 0, 0,
             "clipping norm of the shared (non-split) part's gradient",
             .mono = MONO_LESS}}},
  {.name = "bounded-gaussian",
   .title = "bounded-support Gaussian, per instance",
   .example = "bounded-gaussian:kind=rectified,theta=0,a=2,sigma=1,c=1,count=3",
   .summary = "Gaussian noise with bounded support [-a, a] (bounded-support "
              "paper): N(theta, sigma^2) clipped to the support "
              "(kind=rectified, point masses at -a and a) or conditioned on "
              "it (kind=truncated).  A PER-INSTANCE guarantee: theta is the "
              "noiseless location for one of the two datasets and the "
              "neighbour shifts it by any amount in [-c, c].  RDP: the sup "
              "over shifts +c and -c and both directions of eq. (5) "
              "(rectified) or of the corrected eq. (6) (truncated), which "
              "is the sup over [-c, c] (docs/papers-rdp.md).  PLD (both "
              "kinds): the exact PLD of the rectified or truncated pair, "
              "taking at every epsilon the worse of the shifts +c and -c "
              "(a pair that dominates both, so runs compose soundly even "
              "when the sign changes between runs; the bracket is that "
              "pair's; smaller shifts are dominated: the families are "
              "stochastically ordered and the optimal tests are lower "
              "sets).  count=N composes N runs, the shift free in each",
   .build = ev_build_bounded,
   .rdp = ev_rdp_bounded,
   .no_pld = ev_no_pld_bounded,
   .rdp_how = "as above (pld_rdp_bounded_gaussian_sup at every order), "
              "capped by the Gaussian's alpha c^2/(2 sigma^2) (Thm 4.9, "
              "which holds for both kinds), times count",
   .keys = {{"kind", DOM_CHOICE, 1, 0, "the bounded-support family",
             BOUNDED_KINDS},
            {"theta", DOM_REAL, 1, 0, "location of the noise (the "
             "noiseless value for one of the two datasets)"},
            {"a", DOM_POSITIVE, 1, 0, "half-width of the support [-a, a]"},
            {"sigma", DOM_NOISE, 1, 0, "noise standard deviation"},
            {"c", DOM_POSITIVE, 1, 0,
             "largest shift of the location by the neighbour (clipping "
             "norm of one contribution)"}}},
  {.name = "poisson-bounded-gaussian",
   .title = "Poisson-subsampled bounded-support Gaussian",
   .example = "poisson-bounded-gaussian:q=0.1,kind=truncated,theta=0,a=2,sigma=1,c=1,count=10",
   .summary = "Poisson-subsampled bounded-support Gaussian (bounded-support "
              "paper, Sec. 5.3, which leaves it open): each step includes "
              "the record with probability q, and a step that includes it "
              "is the bounded-gaussian event with the same keys, theta the "
              "location WITHOUT the record and the record shifting it by "
              "any amount in [-c, c] (the paper's (*)).  PLD: Poisson "
              "subsampling (add/remove, both directions) of the exact "
              "worst-of-+-c pair of bounded-gaussian, which dominates every "
              "shift, so the subsampled pair dominates too (Zhu, Dong, Wang "
              "2022); count=N composes N steps",
   .build = ev_build_poisson_bounded,
   .no_pld = ev_no_pld_poisson_bounded,
   .rdp_how = "through the PLD bridge (conservative, see RDP BACKEND below)",
   .keys = {{"q", DOM_RATE, 1, 0, "sampling rate per step",
             .mono = MONO_LESS},
            {"kind", DOM_CHOICE, 1, 0, "the bounded-support family",
             BOUNDED_KINDS},
            {"theta", DOM_REAL, 1, 0, "location of the noise (the "
             "noiseless value for one of the two datasets)"},
            {"a", DOM_POSITIVE, 1, 0, "half-width of the support [-a, a]"},
            {"sigma", DOM_NOISE, 1, 0, "noise standard deviation"},
            {"c", DOM_POSITIVE, 1, 0,
             "largest shift of the location by the neighbour (clipping "
             "norm of one contribution)"}}},
  {.name = "pld",
   .title = "a PLD saved by 'pldkit save' (a running ledger)",
   .summary = "a composed PLD saved by 'pldkit save' (a deployment's running "
              "ledger), composed count times with the other EVENTs; its grid "
              "step fixes the grid of the whole composition (automatic "
              "refinement is off, --discretization must match or be absent); "
              "format: include/pldkit/pld.h",
   .kind = KIND_DIST,
   .rdp_how = "through the PLD bridge applied to the saved PLD "
              "(conservative; inf if the file has mass at +inf, as every "
              "truncated or FFT-composed PLD does)",
   .keys = {{"file", DOM_PATH, 1, 0, "the PLD file"}}},
  {.name = "merge-lc",
   .title = "one step of a linear combination of merged DP-SGD runs",
   .example = "merge-lc:lambda=0.5;0.5,q=0.01;0.01,sigma=1;1.2,clip=1;1,lr=0.1;0.1,count=100",
   .summary = "one step of a linear combination theta = sum_i lambda_i "
              "theta_i of n <= 5 DP-SGD runs trained on the same data "
              "(model merging paper, Thm 6.4 surrogate: the mixture "
              "sum_J rho_J N(Delta_J, s^2) against N(0, s^2)); count = "
              "steps, every listed run active in each; steps after a run "
              "ended: a second merge-lc without it (lambda is scale-free, "
              "need not sum to 1)",
   .build = ev_build_merge_lc,
   .check = ev_check_merge_lc,
   .rdp = ev_rdp_merge_lc,
   .rdp_how = "Thm 6.2 of the model merging paper in both directions "
              "(pld_merge_lc_rdp), certified upper",
   .keys = {{"lambda", DOM_REAL_LIST, 1, 0,
             "merge weights lambda_i >= 0, one per run"},
            {"q", DOM_REAL_LIST, 1, 0, "Poisson sampling rate of each run"},
            {"sigma", DOM_REAL_LIST, 1, 0,
             "noise multiplier of each run (noise std sigma_i * clip_i)"},
            {"clip", DOM_REAL_LIST, 0, 0,
             "clipping norm of each run (default 1 each)"},
            {"lr", DOM_REAL_LIST, 0, 0,
             "learning rate of each run (default 1 each)"}}},
  {.name = "truncated-poisson",
   .title = "truncated Poisson: DP-SGD with the batch capped at B",
   .example = "truncated-poisson:n=60000,q=0.004,B=300,sigma=1.1,count=100",
   .summary = "one step of DP-SGD with Poisson sampling at rate q from n "
              "records whose batch is capped at B (the excess dropped "
              "uniformly, what fixed-memory accelerators run; dp_accounting's "
              "TruncatedSubsampledGaussianDpEvent), Gaussian noise sigma, "
              "clipping norm sensitivity.  add-remove: a certified bracket, "
              "the upper end the better of two dominating pairs for these "
              "count steps, the lower end the exact pair of the dataset "
              "whose other records have zero gradient; B >= n is plain "
              "poisson-gaussian (docs/samplers.md)",
   .build = ev_build_truncated_poisson,
   .add = ev_add_truncated_poisson,
   .rdp_how = "through the PLD bridge (conservative)",
   .keys = {{"n", DOM_INT_GE1, 1, 0, "number of records"},
            {"q", DOM_RATE, 1, 0, "Poisson sampling rate per step",
             .mono = MONO_LESS},
            {"B", DOM_INT_GE1, 1, 0, "the batch cap"},
            {"sigma", DOM_NOISE, 1, 0, "noise standard deviation"},
            {"sensitivity", DOM_POSITIVE, 0, 1,
             "L2 sensitivity (clipping norm)", .mono = MONO_LESS},
            {"adjacency", DOM_CHOICE, 0, 0,
             "neighbouring datasets: add or remove a record, replace it by "
             "a zero record, or replace it by another",
             .choices = ADJACENCIES}}},
  {.name = "fixed-batch",
   .title = "fixed-size batches (with or without replacement)",
   .example = "fixed-batch:b=10,n=1000,sigma=1,count=100",
   .summary = "one step of DP-SGD on a batch of exactly b of n records, "
              "Gaussian noise sigma, clipping norm sensitivity.  Without "
              "replacement under add-remove the record's arrival displaces "
              "another, so the exact pair is Poisson at rate b/n with "
              "sensitivity doubled (NOT the Poisson figure at rate b/n); "
              "with replacement the exact binomial mixture pair.  The "
              "adjacency is stated in every answer's event text "
              "(docs/samplers.md)",
   .build = ev_build_fixed_batch,
   .rdp_how = "through the PLD bridge (conservative)",
   .keys = {{"b", DOM_INT_GE1, 1, 0, "batch size"},
            {"n", DOM_INT_GE1, 1, 0, "number of records"},
            {"sigma", DOM_NOISE, 1, 0, "noise standard deviation"},
            {"sensitivity", DOM_POSITIVE, 0, 1,
             "L2 sensitivity (clipping norm)", .mono = MONO_LESS},
            {"replacement", DOM_CHOICE, 0, 0,
             "the batch drawn without or with replacement",
             .choices = "without|with"},
            {"adjacency", DOM_CHOICE, 0, 0,
             "neighbouring datasets: add or remove a record, replace it by "
             "a zero record, or replace it by another",
             .choices = ADJACENCIES}}},
  {.name = "balls-in-bins",
   .title = "balls-in-bins: one epoch, each example in one random batch",
   .example = "balls-in-bins:T=100,sigma=1,count=5",
   .summary = "one EPOCH of T steps in which every example lands in exactly "
              "one uniformly random batch (Chua et al., AISTATS 2025): the "
              "one-of-T random allocation, balanced-iteration with k = 1.  "
              "count=N composes N epochs; do not set count=T",
   .add = ev_add_balls_in_bins,
   .rdp = ev_rdp_balls_in_bins,
   .rdp_how = "the sound RDP of balanced-iteration with k = 1",
   .keys = {{"T", DOM_INT_GE1, 1, 0, "steps (batches) per epoch"},
            {"sigma", DOM_NOISE, 1, 0, "noise standard deviation"},
            {"sensitivity", DOM_POSITIVE, 0, 1,
             "L2 sensitivity (clipping norm)", .mono = MONO_LESS}}},
  {.name = "bandmf",
   .title = "banded matrix factorization (DP-FTRL) with cyclic Poisson",
   .example = "bandmf:steps=1000,bands=4,q=0.04,sigma=2,count=1",
   .summary = "one run of b-banded matrix factorization (BandMF, DP-FTRL) "
              "with cyclic Poisson sampling (Choquette-Choo et al., arXiv "
              "2306.08153): the records split into `bands` groups, step i "
              "samples group i mod bands at rate q WITHIN it, the strategy's "
              "columns of norm at most col-norm; a record's participations "
              "are ceil(steps/bands) Poisson-Gaussian steps.  bands=1 is "
              "DP-SGD",
   .add = ev_add_bandmf,
   .rdp = ev_rdp_bandmf,
   .rdp_how = "the exact Poisson-Gaussian RDP of those steps",
   .keys = {{"steps", DOM_INT_GE1, 1, 0, "steps of one run"},
            {"bands", DOM_INT_GE1, 1, 0,
             "bands of the strategy matrix (= groups of records)"},
            {"q", DOM_RATE, 1, 0, "Poisson rate within a group",
             .mono = MONO_LESS},
            {"sigma", DOM_NOISE, 1, 0, "noise standard deviation per row"},
            {"sensitivity", DOM_POSITIVE, 0, 1,
             "L2 sensitivity (clipping norm)", .mono = MONO_LESS},
            {"col-norm", DOM_POSITIVE, 0, 1,
             "largest column norm of the strategy matrix",
             .mono = MONO_LESS}}},
  {.name = "random-selection",
   .title = "random selection among member event lists",
   .example = "random-selection:weights=0.5;0.5[gaussian:sigma=2|laplace:b=3]",
   .summary = "random selection of one of n member event lists, member i "
              "with probability w_i, the choice visible (model merging paper "
              "Thm 5.2): random-selection:weights=W1;...;Wn[,count=N]"
              "[MEMBER1|...|MEMBERn], see MEMBER LISTS below",
   .kind = KIND_SELECTION,
   .check = ev_check_selection,
   .rdp_how = "Thm 5.1 of the model merging paper, log(sum_i w_i "
              "e^{(alpha-1) eps_i(alpha)})/(alpha-1), over the members' RDP "
              "curves",
   .keys = {{"weights", DOM_WEIGHT_LIST, 1, 0,
             "selection probabilities, one per member, in order"}}},

};

#define N_EVENTS (sizeof events / sizeof events[0])

const char *ev_domain_text(enum domain d)
{
  switch (d) {
  case DOM_POSITIVE:
    return "> 0";
  case DOM_NOISE:
    return "> 0";
  case DOM_NONNEGATIVE:
    return ">= 0";
  case DOM_RATE:
    return "in (0, 1]";
  case DOM_INT_GE1:
    return "an integer >= 1";
  case DOM_INT_GE2:
    return "an integer >= 2";
  case DOM_PROB_LIST:
    return "';'-separated probabilities in [0, 1] summing to 1";
  case DOM_WEIGHT_LIST:
    return "';'-separated probabilities in [0, 1] summing to 1 within 1e-12";
  case DOM_REAL_LIST:
    return "';'-separated finite numbers";
  case DOM_REAL:
    return "a finite number";
  case DOM_CHOICE:
    return "one of";
  case DOM_PATH:
    return "a file name without ',', '[', ']', '|', or '+' before a letter";
  }
  return "?";
}

/* The domain as a phrase, with the choices spelled out. */
void ev_domain_phrase(const struct key_spec *ks, char *buf, size_t n)
{
  if (ks->dom != DOM_CHOICE) {
    snprintf(buf, n, "%s", ev_domain_text(ks->dom));
    return;
  }
  size_t o = (size_t)snprintf(buf, n, "one of ");
  for (const char *c = ks->choices; *c && o + 3 < n; c++) {
    if (*c == '|') {
      buf[o++] = ',';
      buf[o++] = ' ';
    } else {
      buf[o++] = *c;
    }
  }
  buf[o < n ? o : n - 1] = '\0';
}

/* The i-th word of a DOM_CHOICE key into buf. */
const char *ev_choice_name(const struct key_spec *ks, int64_t i, char *buf,
                           size_t n)
{
  const char *c = ks->choices;
  for (int64_t k = 0; k < i && c; k++) {
    c = strchr(c, '|');
    if (c)
      c++;
  }
  if (c == NULL) {
    snprintf(buf, n, "?");
    return buf;
  }
  size_t w = strcspn(c, "|");
  snprintf(buf, n, "%.*s", (int)w, c);
  return buf;
}

size_t ev_n_keys(const struct event_spec *e)
{
  size_t n = 0;
  while (n < MAX_KEYS && e->keys[n].name)
    n++;
  return n;
}

/* The key's direction for calibrate (MONO_*). */
int ev_key_mono(const struct key_spec *ks)
{
  if (ks->mono)
    return ks->mono;
  return ks->dom == DOM_NOISE ? MONO_MORE : MONO_NONE;
}

size_t pld_event_count(void) { return N_EVENTS; }

int pld_event_info_get(size_t i, pld_event_info *out)
{
  pld_detail_clear();
  if (i >= N_EVENTS || !out)
    return pld_fail(PLD_EINVAL, "no catalogue entry %zu (there are %zu)", i,
                    (size_t)N_EVENTS);
  const struct event_spec *e = &events[i];
  pld_event_info r;
  memset(&r, 0, sizeof r);
  r.name = e->name;
  r.title = e->title;
  r.summary = e->summary;
  r.example = e->example;
  r.rdp_how = e->rdp_how;
  r.has_pld = e->no_pld == NULL;
  r.n_keys = ev_n_keys(e);
  r.members = e->kind == KIND_SELECTION   ? 1
              : e->kind == KIND_SUBSAMPLE ? 2
                                          : 0;
  *out = r;
  return PLD_SUCCESS;
}

int pld_event_find(const char *name, size_t *index)
{
  pld_detail_clear();
  if (!name || !index)
    return pld_fail(PLD_EINVAL, "name and index must not be NULL");
  for (size_t i = 0; i < N_EVENTS; i++)
    if (strcmp(events[i].name, name) == 0) {
      *index = i;
      return PLD_SUCCESS;
    }
  return pld_fail(PLD_EINVAL, "no event is called '%s'", name);
}

int pld_event_key_get(size_t i, size_t k, pld_event_key *out)
{
  pld_detail_clear();
  if (i >= N_EVENTS || !out || k >= ev_n_keys(&events[i]))
    return pld_fail(PLD_EINVAL, "no key %zu of catalogue entry %zu", k, i);
  const struct key_spec *ks = &events[i].keys[k];
  pld_event_key r;
  memset(&r, 0, sizeof r);
  r.name = ks->name;
  r.meaning = ks->meaning;
  r.required = ks->required;
  r.def = ks->def;
  r.choices = ks->dom == DOM_CHOICE ? ks->choices : NULL;
  r.direction = ev_key_mono(ks);
  ev_domain_phrase(ks, r.domain, sizeof r.domain);
  *out = r;
  return PLD_SUCCESS;
}

const char *pld_event_solvable_keys(void)
{
  static char buf[256];
  if (buf[0])
    return buf;
  size_t o = 0;
  for (size_t i = 0; i < N_EVENTS; i++)
    for (size_t k = 0; k < ev_n_keys(&events[i]); k++) {
      const struct key_spec *ks = &events[i].keys[k];
      if (ev_key_mono(ks) == MONO_NONE)
        continue;
      /* Once per name. */
      int dup = 0;
      for (size_t j = 0; j <= i && !dup; j++)
        for (size_t l = 0; l < ev_n_keys(&events[j]) && !dup; l++) {
          if (j == i && l == k)
            break;
          dup = ev_key_mono(&events[j].keys[l]) != MONO_NONE &&
                strcmp(events[j].keys[l].name, ks->name) == 0;
        }
      if (dup)
        continue;
      int w = snprintf(buf + o, sizeof buf - o, "%s, ", ks->name);
      if (w < 0 || (size_t)w >= sizeof buf - o)
        return buf;
      o += (size_t)w;
    }
  snprintf(buf + o, sizeof buf - o, "count");
  return buf;
}

const struct event_spec *ev_find_event(const char *name)
{
  for (size_t i = 0; i < N_EVENTS; i++)
    if (strcmp(events[i].name, name) == 0)
      return &events[i];
  return NULL;
}

void ev_list_event_names(char *buf, size_t n)
{
  size_t o = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < N_EVENTS && o < n; i++) {
    int w = snprintf(buf + o, n - o, "%s%s", i ? ", " : "", events[i].name);
    if (w < 0)
      break;
    o += (size_t)w;
  }
}
