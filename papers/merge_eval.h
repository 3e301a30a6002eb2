/* pldkit (private): evaluating a merge's certified eps(delta) at many
 * weight vectors of the same runs, with the work that does not depend on
 * the weights done once (papers/merge_eval.c).  Used by the planner
 * (merge_plan.c). */
#ifndef PLDKIT_PAPERS_MERGE_EVAL_H
#define PLDKIT_PAPERS_MERGE_EVAL_H

#include <stddef.h>

#include <pldkit/merge.h>

typedef struct pld_merge_eval pld_merge_eval;

/* runs (1 <= n <= PLD_MERGE_MAX_RUNS, valid), delta in (0, 1), params of
 * the PLD methods (copied).  Builds the RS members. */
int pld_merge_eval_new(const pld_merge_run *runs, size_t n, double delta,
                       const pld_params *params, pld_merge_eval **out);
void pld_merge_eval_free(pld_merge_eval *ev);

/* eps(delta) of method m (enum pld_merge_method) at weights w[0..n):
 * certified upper end, lower end (NAN for RDP), and whether the PLD
 * bracket met params->accuracy (1 for RDP). */
int pld_merge_eval_point(pld_merge_eval *ev, int m, const double *w,
                         double *upper, double *lower, int *met);

#endif
