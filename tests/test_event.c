/* The event tree (<pldkit/event.h>) and the catalogue, as a C user meets
 * them: parse once, canonical text that reads back to itself, composition,
 * the hole and its filling, the accountant and RDP curve a tree becomes
 * against the same mechanisms built by hand, answers against closed forms,
 * calibration over a hole against a bisection done here, and bad input
 * (a status, a one-line detail naming the key, outputs untouched). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <pldkit/pldkit.h>

static pld_event *parse(const char *text)
{
  pld_event *ev = NULL;
  int st = pld_event_parse(text, &ev);
  if (st != PLD_SUCCESS)
    fail_msg("%s: %s", text, pld_error_detail());
  return ev;
}

static char *format(const pld_event *ev)
{
  size_t len = 0;
  assert_int_equal(pld_event_format(ev, NULL, 0, &len), PLD_ERANGE);
  char *buf = malloc(len + 1);
  assert_non_null(buf);
  assert_int_equal(pld_event_format(ev, buf, len + 1, &len), PLD_SUCCESS);
  assert_int_equal(strlen(buf), len);
  return buf;
}

/* Canonical text: keys in table order, defaults left out, shortest
 * numbers, count only when > 1; it parses back to the same text. */
static void test_canonical(void **state)
{
  (void)state;
  static const struct {
    const char *in, *want;
  } cases[] = {
      {"gaussian:sigma=2.0,sensitivity=1", "gaussian:sigma=2"},
      {"poisson-gaussian:count=1000,sigma=1.10,q=0.01",
       "poisson-gaussian:q=0.01,sigma=1.1,count=1000"},
      {"laplace:b=1e-5,count=1", "laplace:b=1e-05"},
      {"gaussian:sigma=1+laplace:b=3,count=2",
       "gaussian:sigma=1+laplace:b=3,count=2"},
      {"random-selection:weights=0.25;0.75,count=3[gaussian:sigma=2|"
       "laplace:b=1+gaussian:sigma=4]",
       "random-selection:weights=0.25;0.75,count=3[gaussian:sigma=2|"
       "laplace:b=1+gaussian:sigma=4]"},
      {"poisson-sampled:q=0.5[discrete-laplace:scale=2]",
       "poisson-sampled:q=0.5[discrete-laplace:scale=2]"},
      {"poisson-gaussian:q=0.01,sigma=?,count=5",
       "poisson-gaussian:q=0.01,sigma=?,count=5"},
      {"gaussian:sigma=3,count=?", "gaussian:sigma=3,count=?"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    pld_event *ev = parse(cases[i].in);
    char *t = format(ev);
    assert_string_equal(t, cases[i].want);
    pld_event *again = parse(t);
    char *t2 = format(again);
    assert_string_equal(t, t2);
    free(t);
    free(t2);
    pld_event_free(ev);
    pld_event_free(again);
  }
}

/* A tree's accountant holds what the same mechanisms built by hand hold:
 * the same answer, bit for bit. */
static void test_accountant_matches_hand_built(void **state)
{
  (void)state;
  pld_event *ev = parse("poisson-gaussian:q=0.01,sigma=1,count=300+"
                        "laplace:b=4,count=2");
  pld_accountant *a = NULL, *b = NULL;
  assert_int_equal(pld_event_to_accountant(ev, NULL, &a), PLD_SUCCESS);
  pld_mech *m1 = NULL, *m2 = NULL;
  assert_int_equal(pld_mech_poisson_gaussian(0.01, 1.0, 1.0, &m1), 0);
  assert_int_equal(pld_mech_laplace(4.0, 1.0, &m2), 0);
  assert_int_equal(pld_accountant_alloc(NULL, &b), 0);
  assert_int_equal(pld_accountant_add(b, m1, 300), 0);
  assert_int_equal(pld_accountant_add(b, m2, 2), 0);
  pld_result ra, rb;
  assert_int_equal(pld_accountant_epsilon(a, 1e-6, &ra), 0);
  assert_int_equal(pld_accountant_epsilon(b, 1e-6, &rb), 0);
  assert_true(ra.bound.lower == rb.bound.lower);
  assert_true(ra.bound.upper == rb.bound.upper);
  pld_mech_free(m1);
  pld_mech_free(m2);
  pld_accountant_free(a);
  pld_accountant_free(b);
  pld_event_free(ev);
}

/* Gaussians compose in closed form: mu = sqrt(sum count / sigma^2), and
 * delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2). */
static double gauss_delta(double mu, double eps)
{
  return 0.5 * erfc((eps / mu - mu / 2) / sqrt(2.0)) -
         exp(eps) * 0.5 * erfc((eps / mu + mu / 2) / sqrt(2.0));
}

static void test_answers_closed_form(void **state)
{
  (void)state;
  pld_event *a = parse("gaussian:sigma=2,count=3");
  pld_event *b = parse("gaussian:sigma=4");
  const pld_event *parts[2] = {a, b};
  pld_event *ev = NULL;
  assert_int_equal(pld_event_compose(2, parts, &ev), PLD_SUCCESS);
  pld_event_query q;
  pld_event_query_default(&q);
  pld_event_answer ans;
  ans.size = sizeof ans;
  assert_int_equal(pld_event_delta(ev, &q, 1.0, &ans), PLD_SUCCESS);
  double mu = sqrt(3.0 / 4.0 + 1.0 / 16.0), want = gauss_delta(mu, 1.0);
  assert_true(ans.have_pld && !ans.have_rdp);
  assert_true(ans.pld.bound.lower <= want * (1 + 1e-12));
  assert_true(ans.pld.bound.upper >= want * (1 - 1e-12));
  assert_true(ans.pld.bound.upper <= want * 1.001);
  /* both backends: the RDP answer is an upper bound too */
  q.backend = PLD_EVENT_BACKEND_PLD | PLD_EVENT_BACKEND_RDP;
  assert_int_equal(pld_event_delta(ev, &q, 1.0, &ans), PLD_SUCCESS);
  assert_true(ans.have_rdp && ans.rdp.value >= want);
  pld_event_free(a);
  pld_event_free(b);
  pld_event_free(ev);
}

/* The RDP curve of a tree is the sum of its events' curves. */
static void test_rdp(void **state)
{
  (void)state;
  pld_event *ev = parse("gaussian:sigma=2,count=3+gaussian:sigma=1");
  pld_rdp_curve *c = NULL;
  const double orders[3] = {1.5, 2.0, 10.0};
  unsigned bridged = 7;
  assert_int_equal(pld_event_to_rdp(ev, 3, orders, 0, NULL, &c, &bridged),
                   PLD_SUCCESS);
  assert_int_equal(bridged, 0);
  const double *v = pld_rdp_curve_values(c);
  for (size_t i = 0; i < 3; i++) {
    double want = orders[i] * (3.0 / 8.0 + 0.5);
    assert_true(v[i] >= want && v[i] <= want * (1 + 1e-12));
  }
  pld_rdp_curve_free(c);
  /* an event without a formula is refused without the bridge */
  pld_event *f = parse("finite:p=0.5;0.5,q=0.25;0.75");
  c = NULL;
  assert_int_equal(pld_event_to_rdp(f, 3, orders, 0, NULL, &c, NULL),
                   PLD_EUNSUPPORTED);
  assert_null(c);
  assert_int_equal(pld_event_to_rdp(f, 3, orders, 1, NULL, &c, &bridged),
                   PLD_SUCCESS);
  assert_int_equal(bridged, 1);
  pld_rdp_curve_free(c);
  pld_event_free(f);
  pld_event_free(ev);
}

/* The hole: its domain and direction, filling it, and calibration over it
 * against a bisection on the closed form done here. */
static void test_hole_and_calibration(void **state)
{
  (void)state;
  pld_event *ev = parse("gaussian:sigma=?,count=4");
  pld_event_hole h;
  h.size = sizeof h;
  assert_int_equal(pld_event_get_hole(ev, &h), PLD_SUCCESS);
  assert_true(h.present);
  assert_string_equal(h.key, "sigma");
  assert_int_equal(h.direction, 1);
  assert_false(h.integer);
  /* a tree with a hole does not answer */
  pld_accountant *acc = NULL;
  assert_int_equal(pld_event_to_accountant(ev, NULL, &acc), PLD_EINVAL);
  assert_null(acc);
  assert_non_null(strstr(pld_error_detail(), "sigma=?"));
  /* filled: no hole, the value in place */
  pld_event *f = NULL;
  assert_int_equal(pld_event_fill(ev, 2.5, &f), PLD_SUCCESS);
  char *t = format(f);
  assert_string_equal(t, "gaussian:sigma=2.5,count=4");
  free(t);
  pld_event_free(f);
  f = NULL;
  assert_int_equal(pld_event_fill(ev, -1.0, &f), PLD_EINVAL);
  assert_null(f);
  /* calibration: eps(delta = 1e-5) <= 1 for 4 Gaussians: mu = 2/sigma */
  pld_event_query q;
  pld_event_query_default(&q);
  pld_event_calibration c;
  c.size = sizeof c;
  assert_int_equal(pld_event_calibrate(ev, &q, 1.0, 1e-5, NULL, NULL, NULL,
                                       &c),
                   PLD_SUCCESS);
  assert_true(c.search.found);
  double lo = 0.5, hi = 50.0; /* the exact threshold by bisection */
  for (int i = 0; i < 200; i++) {
    double mid = 0.5 * (lo + hi);
    if (gauss_delta(2.0 / mid, 1.0) <= 1e-5)
      hi = mid;
    else
      lo = mid;
  }
  assert_true(c.search.param >= lo * (1 - 1e-9)); /* certified to meet */
  assert_true(c.search.param <= hi * 1.002);      /* and close to it */
  pld_event_free(ev);
}

/* Bad input: a status, a detail that names the key, outputs untouched. */
static void test_bad_input(void **state)
{
  (void)state;
  static const struct {
    const char *text, *needle;
  } bad[] = {
      {"gaussian:sigma=-1", "sigma"},
      {"gaussian:sigma=nan", "sigma"},
      {"gaussian", "sigma"},
      {"gaussian:sigma=1,bogus=2", "bogus"},
      {"poisson-gaussian:q=1.5,sigma=1", "q"},
      {"gaussian:sigma=1,count=0", "count"},
      {"nope:x=1", "nope"},
      {"random-selection:weights=0.5;0.5[gaussian:sigma=1]", "weight"},
      {"gaussian:sigma=?+laplace:b=?", "second '?'"},
      {"gaussian:sigma=1[laplace:b=1]", "member list"},
      {"+laplace:b=1", "empty EVENT"},
      {"random-participation:p=0.5,q=0.1,d=10,C=1,sigma=1,analysis=thm41+"
       "gaussian:sigma=1",
       "only EVENT"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    pld_event *ev = (pld_event *)&bad; /* must stay untouched */
    int st = pld_event_parse(bad[i].text, &ev);
    if (st == PLD_SUCCESS)
      fail_msg("accepted: %s", bad[i].text);
    assert_int_equal(st, PLD_EINVAL);
    assert_ptr_equal(ev, (pld_event *)&bad);
    const char *d = pld_error_detail();
    if (strstr(d, bad[i].needle) == NULL || strchr(d, '\n'))
      fail_msg("%s: detail '%s' does not name '%s'", bad[i].text, d,
               bad[i].needle);
    /* messages name the event's keys, never the CLI's options */
    assert_null(strstr(d, "--"));
  }
  assert_int_equal(pld_event_parse(NULL, NULL), PLD_EINVAL);
  assert_int_equal(pld_event_compose(0, NULL, NULL), PLD_EINVAL);
  pld_event_free(NULL);
}

/* The catalogue: every entry's example parses, formats back, and (when it
 * has a PLD) builds an accountant; its keys read through the table. */
static void test_catalogue(void **state)
{
  (void)state;
  size_t n = pld_event_count();
  assert_true(n >= 20);
  for (size_t i = 0; i < n; i++) {
    pld_event_info info;
    assert_int_equal(pld_event_info_get(i, &info), PLD_SUCCESS);
    size_t idx = n;
    assert_int_equal(pld_event_find(info.name, &idx), PLD_SUCCESS);
    assert_int_equal(idx, i);
    for (size_t k = 0; k < info.n_keys; k++) {
      pld_event_key key;
      assert_int_equal(pld_event_key_get(i, k, &key), PLD_SUCCESS);
      assert_non_null(key.name);
      assert_true(key.domain[0] != '\0');
    }
    pld_event_key key;
    assert_int_equal(pld_event_key_get(i, info.n_keys, &key), PLD_EINVAL);
    if (info.example == NULL)
      continue;
    pld_event *ev = parse(info.example);
    char *t = format(ev);
    pld_event *again = parse(t);
    char *t2 = format(again);
    assert_string_equal(t, t2);
    pld_event_summary s;
    s.size = sizeof s;
    assert_int_equal(pld_event_summarize(ev, &s), PLD_SUCCESS);
    assert_int_equal(s.events, 1);
    if (info.has_pld && !s.closed) {
      pld_accountant *acc = NULL;
      if (pld_event_to_accountant(ev, NULL, &acc) != PLD_SUCCESS)
        fail_msg("%s: %s", info.example, pld_error_detail());
      pld_accountant_free(acc);
    }
    free(t);
    free(t2);
    pld_event_free(ev);
    pld_event_free(again);
  }
  size_t idx = 99;
  assert_int_equal(pld_event_find("no-such-event", &idx), PLD_EINVAL);
  assert_int_equal(idx, 99);
  assert_int_equal(pld_sizeof("pld_event_answer"), sizeof(pld_event_answer));
  assert_int_equal(pld_sizeof("pld_params"), sizeof(pld_params));
  assert_int_equal(pld_sizeof("nothing"), 0);
}

/* The samplers' events against the events they reduce to in limit cases
 * (docs/samplers.md): the answers must be the same bit for bit, or inside
 * each other where the reduction is a bracket. */
static pld_bound eps_of(const char *text)
{
  pld_event *ev = parse(text);
  pld_event_query q;
  pld_event_query_default(&q);
  pld_event_answer a;
  a.size = sizeof a;
  if (pld_event_epsilon(ev, &q, 1e-5, &a) != PLD_SUCCESS)
    fail_msg("%s: %s", text, pld_error_detail());
  pld_event_free(ev);
  return a.pld.bound;
}

static void test_sampler_events(void **state)
{
  (void)state;
  static const struct {
    const char *a, *b;
  } same[] = {
      /* balls-in-bins is the one-of-T allocation, epochs composed */
      {"balls-in-bins:T=20,sigma=1,count=3",
       "balanced-iteration:T=20,k=1,sigma=1,c=1,count=3"},
      /* one band is DP-SGD; b bands: ceil(steps/b) participations */
      {"bandmf:steps=100,bands=1,q=0.02,sigma=1.5",
       "poisson-gaussian:q=0.02,sigma=1.5,count=100"},
      {"bandmf:steps=101,bands=4,q=0.02,sigma=1.5,count=2",
       "poisson-gaussian:q=0.02,sigma=1.5,count=52"},
      /* a cap no batch reaches is plain Poisson sampling */
      {"truncated-poisson:n=50,q=0.1,B=50,sigma=1,count=40",
       "poisson-gaussian:q=0.1,sigma=1,count=40"},
  };
  for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
    pld_bound x = eps_of(same[i].a), y = eps_of(same[i].b);
    if (!(x.lower == y.lower && x.upper == y.upper))
      fail_msg("%s [%.17g, %.17g] != %s [%.17g, %.17g]", same[i].a, x.lower,
               x.upper, same[i].b, y.lower, y.upper);
  }
  /* fixed-size without replacement, add/remove: the arrival displaces a
   * record, Poisson at b/n with the sensitivity doubled (b/n = 0.01 is not
   * a double: a bracket of the two rates around it, so the ends agree to
   * the rounding of the rate) */
  pld_bound f = eps_of("fixed-batch:b=10,n=1000,sigma=1,count=50");
  pld_bound g = eps_of("poisson-gaussian:q=0.01,sigma=1,sensitivity=2,"
                       "count=50");
  assert_true(f.lower <= g.upper && g.lower <= f.upper);
  assert_true(fabs(f.lower - g.lower) <= 1e-12 * g.lower);
  assert_true(fabs(f.upper - g.upper) <= 1e-12 * g.upper);
  /* a binding cap: between plain Poisson (the lower end's pair at the
   * effective rate is below it) and Poisson with the sensitivity doubled
   * (the worst case of every step) */
  pld_bound t = eps_of("truncated-poisson:n=1000,q=0.05,B=50,sigma=1,"
                       "count=20");
  pld_bound lo = eps_of("poisson-gaussian:q=0.04,sigma=1,count=20");
  pld_bound hi = eps_of("poisson-gaussian:q=0.05,sigma=1,sensitivity=2,"
                        "count=20");
  assert_true(t.lower >= lo.lower && t.upper <= hi.upper);
  assert_true(t.lower <= t.upper);
  /* bad input names the key */
  pld_event *ev = NULL;
  assert_int_equal(pld_event_parse("fixed-batch:b=10,n=1000,sigma=1,"
                                   "adjacency=sideways", &ev), PLD_EINVAL);
  assert_non_null(strstr(pld_error_detail(), "adjacency"));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_canonical),
      cmocka_unit_test(test_accountant_matches_hand_built),
      cmocka_unit_test(test_answers_closed_form),
      cmocka_unit_test(test_rdp),
      cmocka_unit_test(test_hole_and_calibration),
      cmocka_unit_test(test_bad_input),
      cmocka_unit_test(test_catalogue),
      cmocka_unit_test(test_sampler_events),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
