/* pldkit internal: two independent computations on the machine's two
 * cores.  Not installed. */
#ifndef PLDKIT_PARALLEL_H
#define PLDKIT_PARALLEL_H

/* A task: returns a status (PLD_SUCCESS or an error). */
typedef int (*pld_task_fn)(void *ctx);

/* Run a(actx) on a new thread while b(bctx) runs on the calling thread,
 * and wait for both.  If no thread can be started, a runs here after b:
 * the same results, later.  The tasks must not share mutable state (the
 * results are then the same bit for bit however they are scheduled).
 * Returns a's status if a failed, else b's; a failure's detail
 * (pld_error_detail) is raised again on the calling thread.  Progress
 * reported inside a (pld_progress) goes nowhere: the hook is per thread. */
int pld_run2(pld_task_fn a, void *actx, pld_task_fn b, void *bctx);

#endif
