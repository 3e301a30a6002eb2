/* Failing-allocator sweep (after zix and SQLite's malloc tests): every
 * scenario below is a whole pipeline through the public API; for i = 1, 2,
 * ... the i-th allocation made through the library fails, and the run must
 * end with PLD_ENOMEM (or succeed, when it made fewer than i allocations),
 * with outputs untouched.  Leaks are caught by the sanitizer build of the
 * same test (LeakSanitizer). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <pldkit/pldkit.h>

/* test hooks exported by the library for this purpose only */
void pld_test_fail_allocation(long n);
long pld_test_allocation_count(void);

#define SENT ((void *)0x5e17)

/* Each scenario returns a status; on failure it must have left every output
 * it was given untouched (it checks that itself) and freed what it made. */
typedef int (*scenario)(void);

#define TRY(x)                                                                \
  do {                                                                        \
    if ((st = (x)))                                                           \
      goto out;                                                               \
  } while (0)

static int sc_dist(void)
{
  int st;
  pld_mech *m = SENT, *l = SENT;
  pld_dist *d = SENT, *t = SENT, *c = SENT;
  pld_bound b[3] = {{-7, -7}, {-7, -7}, {-7, -7}};
  double e[3] = {0.0, 0.5, 1.0};
  TRY(pld_mech_poisson_gaussian(0.1, 1.0, 1.0, &m));
  TRY(pld_mech_laplace(2.0, 1.0, &l));
  TRY(pld_dist_from_curve(pld_mech_curve(m), 1e-2, NULL, &d));
  TRY(pld_dist_self_compose(d, 40, NULL, &t));
  pld_dist_free(d);
  d = SENT;
  TRY(pld_dist_from_curve(pld_mech_curve(l), 1e-2, NULL, &d));
  TRY(pld_dist_compose(t, d, NULL, &c));
  TRY(pld_dist_curve(c, 3, e, b));
out:
  if (st) {
    assert_true(b[0].lower == -7 || b[0].lower >= 0); /* untouched or done */
  }
  if (m != SENT) pld_mech_free(m);
  if (l != SENT) pld_mech_free(l);
  if (d != SENT) pld_dist_free(d);
  if (t != SENT) pld_dist_free(t);
  if (c != SENT) pld_dist_free(c);
  return st;
}

static int sc_accountant(void)
{
  int st;
  pld_params p;
  pld_params_default(&p);
  p.discretization = 2e-2;
  pld_mech *a = SENT, *b = SENT, *r = SENT, *f = SENT;
  pld_accountant *acc = SENT, *cp = SENT;
  pld_result res;
  memset(&res, 0x7f, sizeof res);
  double e[2] = {0.5, 2.0};
  pld_bound cb[2];
  double pp[2] = {0.6, 0.4}, qq[2] = {0.3, 0.7};
  TRY(pld_mech_poisson_gaussian(0.05, 1.0, 1.0, &a));
  TRY(pld_mech_laplace(3.0, 1.0, &b));
  TRY(pld_mech_randomized_response(0.5, 3, &r));
  TRY(pld_mech_finite(2, pp, qq, &f));
  TRY(pld_accountant_alloc(&p, &acc));
  TRY(pld_accountant_add(acc, a, 30));
  TRY(pld_accountant_add(acc, b, 3));
  TRY(pld_accountant_add(acc, r, 5));
  TRY(pld_accountant_add(acc, f, 2));
  TRY(pld_accountant_copy(acc, &cp));
  TRY(pld_accountant_epsilon(cp, 1e-5, &res));
  TRY(pld_accountant_delta(acc, 1.0, &res));
  TRY(pld_accountant_curve(acc, 2, e, cb, NULL));
out:
  if (st)
    assert_true(cp == SENT || acc != SENT);
  if (a != SENT) pld_mech_free(a);
  if (b != SENT) pld_mech_free(b);
  if (r != SENT) pld_mech_free(r);
  if (f != SENT) pld_mech_free(f);
  if (acc != SENT) pld_accountant_free(acc);
  if (cp != SENT) pld_accountant_free(cp);
  return st;
}

static int sc_auto_grid(void)
{
  int st;
  pld_params p;
  pld_params_default(&p);
  p.accuracy = 0.05; /* coarse: few refinements, small grids */
  pld_mech *a = SENT, *g = SENT, *dl = SENT, *dg = SENT;
  pld_accountant *acc = SENT;
  pld_result res;
  TRY(pld_mech_laplace(1.0, 1.0, &a));
  TRY(pld_mech_gaussian(2.0, 1.0, &g));
  TRY(pld_mech_discrete_laplace(2.0, 1, &dl));
  TRY(pld_mech_discrete_gaussian(2.0, 1, &dg));
  TRY(pld_accountant_alloc(&p, &acc));
  TRY(pld_accountant_add(acc, a, 3));
  TRY(pld_accountant_add(acc, g, 2));
  TRY(pld_accountant_add(acc, dl, 2));
  TRY(pld_accountant_add(acc, dg, 1));
  TRY(pld_accountant_epsilon(acc, 1e-3, &res));
out:
  if (a != SENT) pld_mech_free(a);
  if (g != SENT) pld_mech_free(g);
  if (dl != SENT) pld_mech_free(dl);
  if (dg != SENT) pld_mech_free(dg);
  if (acc != SENT) pld_accountant_free(acc);
  return st;
}

static int sc_mixtures(void)
{
  int st;
  double pm[2] = {-1, 1}, pw[2] = {0.5, 0.5}, qm[1] = {0}, qw[1] = {1};
  pld_mech *mx = SENT, *w = SENT, *s = SENT, *g = SENT;
  pld_params p;
  pld_params_default(&p);
  p.discretization = 2e-2;
  pld_accountant *acc = SENT;
  pld_result res;
  TRY(pld_mech_mixture_gaussian(1.0, 2, pw, pm, 1, qw, qm, &mx));
  TRY(pld_mech_wor_gaussian(10, 100, 1.0, 1.0, &w));
  TRY(pld_mech_gaussian(1.0, 1.0, &g));
  const pld_mech *mem[3] = {mx, w, g};
  double ww[3] = {0.2, 0.3, 0.5};
  TRY(pld_mech_select(3, mem, ww, &s));
  TRY(pld_accountant_alloc(&p, &acc));
  TRY(pld_accountant_add(acc, s, 4));
  TRY(pld_accountant_epsilon(acc, 1e-4, &res));
out:
  if (mx != SENT) pld_mech_free(mx);
  if (w != SENT) pld_mech_free(w);
  if (s != SENT) pld_mech_free(s);
  if (g != SENT) pld_mech_free(g);
  if (acc != SENT) pld_accountant_free(acc);
  return st;
}

static int sc_selection(void)
{
  int st;
  pld_params p;
  pld_params_default(&p);
  p.discretization = 2e-2;
  pld_mech *g2 = SENT, *g8 = SENT;
  pld_accountant *a = SENT, *b = SENT, *rs = SENT;
  pld_result res;
  TRY(pld_mech_gaussian(2.0, 1.0, &g2));
  TRY(pld_mech_laplace(8.0, 1.0, &g8));
  TRY(pld_accountant_alloc(&p, &a));
  TRY(pld_accountant_alloc(&p, &b));
  TRY(pld_accountant_alloc(&p, &rs));
  TRY(pld_accountant_add(a, g2, 3));
  TRY(pld_accountant_add(b, g8, 3));
  const pld_accountant *mem[2] = {a, b};
  double w[2] = {0.4, 0.6};
  TRY(pld_accountant_add_selection(rs, 2, mem, w, 2));
  TRY(pld_accountant_epsilon(rs, 1e-4, &res));
out:
  if (g2 != SENT) pld_mech_free(g2);
  if (g8 != SENT) pld_mech_free(g8);
  if (a != SENT) pld_accountant_free(a);
  if (b != SENT) pld_accountant_free(b);
  if (rs != SENT) pld_accountant_free(rs);
  return st;
}

static int build_g(double s, void *ctx, pld_accountant **out)
{
  (void)ctx;
  pld_mech *m = NULL;
  pld_params p;
  pld_params_default(&p);
  p.discretization = 5e-2;
  int st = pld_mech_laplace(s, 1.0, &m);
  if (!st)
    st = pld_accountant_alloc(&p, out);
  if (!st)
    st = pld_accountant_add(*out, m, 3);
  pld_mech_free(m);
  return st;
}

static int sc_calibrate(void)
{
  pld_calibration c;
  memset(&c, 0x7f, sizeof c);
  pld_calibration keep = c;
  int st = pld_calibrate(build_g, NULL, 1.0, 1e-3, 1.0, 1e-2, NULL, NULL, &c);
  if (st)
    assert_memory_equal(&c, &keep, sizeof c);
  return st;
}

static int sc_files(void)
{
  int st;
  pld_mech *m = SENT;
  pld_dist *d = SENT, *e = SENT, *mix = SENT, *f = SENT;
  unsigned char *buf = SENT;
  size_t len;
  char path[] = "/tmp/pldkit-alloc-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  TRY(pld_mech_poisson_gaussian(0.2, 1.0, 1.0, &m));
  TRY(pld_dist_from_curve(pld_mech_curve(m), 2e-2, NULL, &d));
  TRY(pld_dist_serialize(d, &buf, &len));
  TRY(pld_dist_deserialize(buf, len, &e));
  const pld_dist *mem[2] = {d, e};
  double w[2] = {0.5, 0.5};
  TRY(pld_dist_mix(2, mem, w, &mix));
  TRY(pld_dist_save(mix, path));
  TRY(pld_dist_load(path, &f));
out:
  remove(path);
  if (m != SENT) pld_mech_free(m);
  if (d != SENT) pld_dist_free(d);
  if (e != SENT) pld_dist_free(e);
  if (mix != SENT) pld_dist_free(mix);
  if (f != SENT) pld_dist_free(f);
  if (buf != SENT) pld_buffer_free(buf);
  return st;
}

static int sc_workspace(void)
{
  int st;
  pld_workspace *ws = SENT;
  pld_mech *m = SENT;
  pld_dist *d = SENT, *t = SENT, *u = SENT;
  TRY(pld_workspace_alloc(NULL, &ws));
  TRY(pld_mech_poisson_laplace(0.1, 1.0, 1.0, &m));
  TRY(pld_dist_from_curve(pld_mech_curve(m), 1e-2, NULL, &d));
  TRY(pld_dist_self_compose(d, 30, ws, &t));
  TRY(pld_dist_self_compose(d, 31, ws, &u));
out:
  if (ws != SENT) pld_workspace_free(ws);
  if (m != SENT) pld_mech_free(m);
  if (d != SENT) pld_dist_free(d);
  if (t != SENT) pld_dist_free(t);
  if (u != SENT) pld_dist_free(u);
  return st;
}

/* A ledger: two locked updates into a fresh file (the first creates it),
 * then a save and a load; after a failure the ledger holds what the last
 * successful step wrote (checked by its history), never a torn file. */
static int sc_ledger(void)
{
  int st;
  char path[] = "/tmp/pldkit_alloc_ledger_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  unlink(path);
  pld_params p;
  pld_params_default(&p);
  p.discretization = 0.5;
  pld_accountant *acc = SENT;
  pld_mech *m = SENT;
  pld_dist *d = SENT, *e = SENT;
  int steps = 0;
  TRY(pld_accountant_alloc(&p, &acc));
  TRY(pld_mech_laplace(1.0, 1.0, &m));
  TRY(pld_accountant_add(acc, m, 3));
  TRY(pld_ledger_add(path, acc, 0, "laplace:b=1,count=3", NULL, NULL));
  steps++;
  TRY(pld_ledger_add(path, acc, 0, "again", &d, NULL));
  steps++;
  TRY(pld_dist_save(d, path));
  TRY(pld_dist_load(path, &e));
  assert_int_equal(pld_dist_history_size(e), 2);
out:
  if (st) {
    assert_ptr_equal(e, SENT);
    pld_dist *x = NULL;
    /* the ledger is what the completed steps made, and loads */
    if (steps == 0)
      assert_int_equal(access(path, F_OK), -1);
    else {
      pld_test_fail_allocation(0);
      assert_int_equal(pld_dist_load(path, &x), 0);
      assert_int_equal(pld_dist_history_size(x), (size_t)steps);
      pld_dist_free(x);
    }
  }
  /* no temporary file is left behind */
  char cmd[128];
  snprintf(cmd, sizeof cmd, "ls -a /tmp | grep -q '^\\.pldkit_alloc_ledger.*\\.tmp$'");
  assert_int_not_equal(system(cmd), 0);
  unlink(path);
  char lock[64];
  snprintf(lock, sizeof lock, "%s.lock", path);
  unlink(lock);
  if (acc != SENT) pld_accountant_free(acc);
  if (m != SENT) pld_mech_free(m);
  if (d != SENT) pld_dist_free(d);
  if (e != SENT) pld_dist_free(e);
  return st;
}

/* Every kind's state through its type entries (docs/design.md §0.1):
 * construction, copy and equality of the general mixture, brackets, the
 * Poisson subsampling and selection of a bracket, the bounded pairs and a
 * bracket of finite pairs (as the random allocation makes). */
static int sc_kinds(void)
{
  int st;
  double pw[2] = {0.5, 0.5}, pm[2] = {-1, 1}, ps[2] = {1, 2}, qw[1] = {1},
         qm[1] = {0}, qs[1] = {1.5};
  pld_mech *g = SENT, *l = SENT, *mg = SENT, *br = SENT, *pb = SENT,
           *sb = SENT, *rc = SENT, *tr = SENT, *al = SENT, *c = SENT,
           *c2 = SENT;
  TRY(pld_mech_gaussian(1.0, 1.0, &g));
  TRY(pld_mech_laplace(1.0, 1.0, &l));
  TRY(pld_mech_mixture_gaussian_general(2, pw, pm, ps, 1, qw, qm, qs, &mg));
  TRY(pld_mech_bracket(g, l, &br));
  TRY(pld_mech_poisson(br, 0.3, &pb));
  const pld_mech *mem[3] = {br, mg, l};
  double w[3] = {0.2, 0.3, 0.5};
  TRY(pld_mech_select(3, mem, w, &sb));
  TRY(pld_mech_rectified_gaussian(0.0, 2.0, 1.0, 1.0, &rc));
  TRY(pld_mech_truncated_gaussian(0.0, 2.0, 1.0, 1.0, &tr));
  {
    pld_mech *rr = NULL, *dl = NULL;
    st = pld_mech_randomized_response(1.0, 3, &rr);
    if (!st)
      st = pld_mech_discrete_laplace(1.0, 1, &dl);
    if (!st)
      st = pld_mech_bracket(rr, dl, &al);
    pld_mech_free(rr);
    pld_mech_free(dl);
    if (st)
      goto out;
  }
  const pld_mech *all[8] = {mg, br, pb, sb, rc, tr, al, l};
  for (int i = 0; i < 8; i++) {
    TRY(pld_mech_copy(all[i], &c));
    int eq = pld_mech_equal(all[i], c);
    double v;
    st = pld_mech_delta(c, 0, 0.5, &v);
    if (st != PLD_ENOMEM) /* the selection's curve may allocate */
      assert_int_equal(st, PLD_SUCCESS);
    pld_mech_free(c);
    c = SENT;
    if (st)
      goto out;
    assert_true(eq);
  }
  TRY(pld_mech_copy(sb, &c2));
out:
  if (g != SENT) pld_mech_free(g);
  if (l != SENT) pld_mech_free(l);
  if (mg != SENT) pld_mech_free(mg);
  if (br != SENT) pld_mech_free(br);
  if (pb != SENT) pld_mech_free(pb);
  if (sb != SENT) pld_mech_free(sb);
  if (rc != SENT) pld_mech_free(rc);
  if (tr != SENT) pld_mech_free(tr);
  if (al != SENT) pld_mech_free(al);
  if (c != SENT) pld_mech_free(c);
  if (c2 != SENT) pld_mech_free(c2);
  return st;
}

/* k-out-of-T allocation through blocks of two (papers/allocation.c: the
 * 2-D law, the groups' product, the meet, the decision -- the split --
 * then the mechanisms, all built before any add): T = 3, k = 2 is one
 * two-of-3 block.  A failed add leaves the accountant untouched.
 * (pld_allocation_split is the same split; its failure leaves its
 * outputs untouched: test_split_fails.) */
static int sc_allocation(void)
{
  int st;
  pld_accountant *acc = SENT;
  TRY(pld_accountant_alloc(NULL, &acc));
  st = pld_accountant_add_allocation(acc, 3, 2, 1.0, 1.0, 1);
  if (st) {
    assert_int_equal(pld_accountant_size(acc), 0);
    goto out;
  }
  assert_int_equal(pld_accountant_size(acc), 2); /* the block, the lower pair's mixture */
out:
  if (acc != SENT) pld_accountant_free(acc);
  return st;
}

static void sweep(const char *name, scenario fn)
{
  long i;
  for (i = 1; i < 100000; i++) {
    pld_test_fail_allocation(i);
    int st = fn();
    long used = pld_test_allocation_count();
    pld_test_fail_allocation(0);
    if (st == PLD_SUCCESS) {
      if (used >= i)
        print_message("%s: allocation %ld failed but the call succeeded\n", name, i);
      assert_true(used < i);
      break;
    }
    if (st != PLD_ENOMEM)
      print_message("%s: allocation %ld failed -> status %d (%s)\n", name, i, st,
                    pld_strerror(st));
    assert_int_equal(st, PLD_ENOMEM);
  }
  print_message("%s: %ld allocation points swept\n", name, i - 1);
}

static void test_sweep(void **state)
{
  (void)state;
  sweep("dist", sc_dist);
  sweep("ledger", sc_ledger);
  sweep("accountant", sc_accountant);
  sweep("auto grid", sc_auto_grid);
  sweep("mixtures", sc_mixtures);
  sweep("selection", sc_selection);
  sweep("kinds", sc_kinds);
  sweep("allocation", sc_allocation);
  sweep("calibrate", sc_calibrate);
  sweep("files", sc_files);
  sweep("workspace", sc_workspace);
}

static void test_split_fails(void **state)
{
  (void)state;
  pld_allocation_block b[PLD_ALLOCATION_MAX_BLOCKS];
  size_t nb = 77;
  b[0].m = 77;
  for (long i = 1; i <= 40; i += 13) {
    pld_test_fail_allocation(i);
    int st = pld_allocation_split(3, 2, 1.0, 1.0, b, &nb);
    pld_test_fail_allocation(0);
    assert_int_equal(st, PLD_ENOMEM);
    assert_true(nb == 77 && b[0].m == 77);
  }
}

/* A k-of-T allocation enters as several groups (T = 4, k = 3: a two-of-3
 * block, a one-of-1 and the lower pair's mixture), one update all the
 * same: an allocation failing at any of the points after its blocks are
 * built (the adds, the merge) leaves the accountant holding only what it
 * held before.  (The sweep
 * above covers every point of a one-block case; this covers the last
 * ones of a two-block case, where a half-added allocation could remain.) */
static void test_allocation_all_or_nothing(void **state)
{
  (void)state;
  pld_mech *l = NULL;
  pld_accountant *acc = NULL;
  assert_int_equal(pld_mech_laplace(2.0, 1.0, &l), PLD_SUCCESS);
  assert_int_equal(pld_accountant_alloc(NULL, &acc), PLD_SUCCESS);
  assert_int_equal(pld_accountant_add(acc, l, 1), PLD_SUCCESS);
  pld_test_fail_allocation(0);
  assert_int_equal(pld_accountant_add_allocation(acc, 4, 3, 1.0, 1.0, 1),
                   PLD_SUCCESS);
  long n = pld_test_allocation_count();
  /* the Laplace, the two blocks, the lower pair's mixture */
  assert_int_equal(pld_accountant_size(acc), 4);
  pld_accountant_free(acc);
  for (long i = n; i > n - 16 && i > 0; i--) {
    assert_int_equal(pld_accountant_alloc(NULL, &acc), PLD_SUCCESS);
    assert_int_equal(pld_accountant_add(acc, l, 1), PLD_SUCCESS);
    pld_test_fail_allocation(i);
    int st = pld_accountant_add_allocation(acc, 4, 3, 1.0, 1.0, 1);
    pld_test_fail_allocation(0);
    if (st != PLD_ENOMEM || pld_accountant_size(acc) != 1)
      print_message("allocation %ld of %ld failed: status %d, %zu groups\n", i,
                    n, st, pld_accountant_size(acc));
    assert_int_equal(st, PLD_ENOMEM);
    assert_int_equal(pld_accountant_size(acc), 1);
    pld_accountant_free(acc);
  }
  pld_mech_free(l);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_sweep),
    cmocka_unit_test(test_split_fails),
    cmocka_unit_test(test_allocation_all_or_nothing),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
