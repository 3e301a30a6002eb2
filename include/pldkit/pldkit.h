/* pldkit: differential-privacy accounting with privacy loss distributions.
 * Umbrella header: include this one.
 *
 * Conventions of the public API (every header follows them):
 *  - Style: prefix pld_ (pld_rdp_ for RDP), int status return (status.h),
 *    results through out-parameters left untouched on failure, const
 *    inputs, eps/delta answers as a bracket {lower, upper}.
 *  - Counts before arrays: an element count comes right before the
 *    array(s) it sizes, after the object the call works on, e.g.
 *    pld_dist_mix(n, members, weights, out), pld_rdp_curve_alloc(n,
 *    orders, out), pld_rdp_random_selection(n, members, weights, out),
 *    pld_merge_epsilon(n, runs, weights, ...), pld_accountant_curve(acc, n,
 *    eps, out).
 *  - Mixtures: a component's weight comes before its parameters: (n,
 *    weights, means[, sigmas]) as in pld_mech_mixture_gaussian,
 *    pld_mech_mixture_gaussian_general and pld_rdp_add_mixture_gaussian.
 *  - "Max weight" of a two-member selection (pld_select_max_weight,
 *    pld_rdp_rs_max_weight, pld_merge_max_weight): the largest weight w0 on
 *    member 0, weights (w0, 1 - w0); put the LESS private member first.
 *    *w0 = 1 when member 0 alone meets the target, -1 (with PLD_SUCCESS)
 *    when not even member 1 alone does.  The returned weight is always
 *    verified to meet the target; how close it lies to the true frontier
 *    depends on the cost of one evaluation and is stated by each function
 *    (exact for the closed form, 1e-12 absolute for RDP, 1e-4 relative for
 *    the merge analyses, one PLD composition per evaluation).
 *  - Simplex grids of weights k_i / resolution (sum k_i = resolution) are
 *    sized by a `resolution` (pld_select_feasible, pld_rdp_rs_grid_size,
 *    pld_rdp_rs_feasible_grid, pld_merge_plan.resolution; the merge
 *    planner's JSON configuration key "resolution"). */
#ifndef PLDKIT_PLDKIT_H
#define PLDKIT_PLDKIT_H
#include <pldkit/status.h>
#include <pldkit/version.h>
#include <pldkit/pld.h>
#include <pldkit/mech.h>
#include <pldkit/accountant.h>
#include <pldkit/select.h>
#include <pldkit/rdp.h>
#include <pldkit/bridge.h>
#include <pldkit/splitting.h>
#include <pldkit/bounded.h>
#include <pldkit/mspafl.h>
#include <pldkit/participation.h>
#include <pldkit/merge.h>
#include <pldkit/best.h>
#include <pldkit/allocation.h>
#include <pldkit/samplers.h>
#include <pldkit/event.h>
#include <pldkit/ledger.h>
#include <pldkit/dpevent.h>
#endif
