/* pldkit core: pld_run2 (src/parallel.h). */
#include "parallel.h"

#include <pthread.h>
#include <string.h>

#include <pldkit/status.h>

#include "detail.h"

struct side {
  pld_task_fn fn;
  void *ctx;
  int st;
  char detail[256];
};

static void *side_main(void *arg)
{
  struct side *s = arg;
  s->st = s->fn(s->ctx);
  if (s->st != PLD_SUCCESS) {
    strncpy(s->detail, pld_error_detail(), sizeof s->detail - 1);
    s->detail[sizeof s->detail - 1] = '\0';
  }
  return NULL;
}

int pld_run2(pld_task_fn a, void *actx, pld_task_fn b, void *bctx)
{
  struct side s = {a, actx, PLD_SUCCESS, {0}};
  pthread_t tid;
  int threaded = pthread_create(&tid, NULL, side_main, &s) == 0;
  int stb = b(bctx);
  if (threaded)
    pthread_join(tid, NULL);
  else
    s.st = a(actx); /* a's detail, if any, is already this thread's */
  if (s.st != PLD_SUCCESS)
    return threaded && s.detail[0] ? pld_fail(s.st, "%s", s.detail) : s.st;
  return stb;
}
