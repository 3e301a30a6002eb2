/* pldkit CLI: `pldkit mspafl THEOREM --key=value ... [--json]`.  Parses the options, calls pld_mspafl_analyze
 * (<pldkit/rdp_papers.h>: the closed form, its certified flag and the PLD
 * of the same protocol all come from there) and prints the report. */
#include "mspafl.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pldkit/mspafl.h>

#include "output.h"

#define EXIT_OK 0
#define EXIT_FAIL 1
#define EXIT_USAGE 2
#define MAX_CLIENTS 4096

static const char help_text[] =
    "usage: pldkit mspafl THEOREM --key=value ... [--json]\n"
    "\n"
    "A closed form of the MS-PAFL paper (Li et al.) with its certified flag\n"
    "(true only for a proven bound), and beside it the PLD epsilon of the\n"
    "same protocol at the closed form's delta (docs/papers/ms-pafl.md).\n"
    "\n"
    "THEOREM: lemma1 | thm1 | thm2 | cor1 | thm3 | thm4\n"
    "  --eps_l=E --delta_l=D   local target of Lemma 1 (required; sigma from it)\n"
    "  --s=S                   L2 sensitivity (default 1)\n"
    "  --p=P                   check-in probability (default 1)\n"
    "  --q=Q                   Poisson data sampling rate\n"
    "  --sampling=poisson|wor|wr  with --batch=B --n=N for wor and wr\n"
    "  --N=K --beta=B          clients and Hoeffding beta (cor1, thm4; thm2\n"
    "                          takes beta only; defaults 1 and 0.25)\n"
    "  --p-list=P1;P2;.. --q-list=Q1;Q2;..   thm2: per-client p_i, q_i (its\n"
    "                          N is the number of entries; Poisson only)\n"
    "  --T=ROUNDS              rounds (thm3, thm4; default 1)\n"
    "  --delta_tilde=D         thm4 (default 1e-5)\n"
    "  --round=cor1|thm1       thm4's per-round bound (default cor1)\n"
    "  --c0=C|appendix         thm3's constant (required); appendix: App. C\n"
    "                          (C.8) with --clip=C (default 1)\n"
    "  --server-sees-checkin=0|1  1: the exact PLD takes p = 1\n"
    "  --json                  one JSON object\n"
    "\n"
    "Exit status: 0 an answer was printed; 1 internal error; 2 bad input.\n";

static int bad(const char *key, const char *val, const char *why)
{
  pld_cli_error("mspafl: --%s=%s: %s", key, val, why);
  return EXIT_USAGE;
}

static int num(const char *key, const char *v, double *x)
{
  char *end;
  errno = 0;
  double d = strtod(v, &end);
  if (end == v || *end || errno == ERANGE || !isfinite(d))
    return bad(key, v, "not a finite number");
  *x = d;
  return EXIT_OK;
}

static int parse_uint(const char *key, const char *v, uint64_t *x)
{
  char *end;
  errno = 0;
  if (*v == '-' || *v == '+')
    return bad(key, v, "not a positive integer");
  unsigned long long u = strtoull(v, &end, 10);
  if (end == v || *end || errno == ERANGE || u == 0)
    return bad(key, v, "not a positive integer");
  *x = (uint64_t)u;
  return EXIT_OK;
}

static int list(const char *key, const char *v, double *x, size_t *n)
{
  const char *s = v;
  *n = 0;
  while (*s) {
    if (*n == MAX_CLIENTS)
      return bad(key, v, "more than 4096 clients");
    char *end;
    errno = 0;
    double d = strtod(s, &end);
    if (end == s || (*end && *end != ';') || errno == ERANGE || !isfinite(d))
      return bad(key, v, "not a ';'-separated list of finite numbers");
    x[(*n)++] = d;
    s = *end ? end + 1 : end;
    if (*end && !*s)
      return bad(key, v, "trailing ';'");
  }
  if (*n == 0)
    return bad(key, v, "empty list");
  return EXIT_OK;
}

static void print_text(int th, const pld_mspafl_setting *s,
                       const pld_mspafl_report *r)
{
  printf("MS-PAFL %s: ", pld_mspafl_theorem_name(th));
  if (th == PLD_MSPAFL_LEMMA1)
    printf("sigma = %.10g for (eps_l, delta_l) = (%.10g, %.10g), %s\n",
           r->sigma, s->eps_l, s->delta_l, r->kind);
  else if (isnan(r->closed.delta))
    printf("epsilon = %.10g (no delta stated; c0 = %.10g), %s\n",
           r->closed.epsilon, r->c0, r->kind);
  else
    printf("(epsilon, delta) = (%.10g, %.10g), %s\n", r->closed.epsilon,
           r->closed.delta, r->kind);
  printf("certified: %s\n", r->closed.certified ? "yes" : "no");
  printf("sigma = %.10g, q = %.10g, per-round rate = %.10g, rounds = %llu\n",
         r->sigma, r->q, r->rate, (unsigned long long)r->rounds);
  if (r->exact_available)
    printf("exact PLD of the same protocol: epsilon in [%.10g, %.10g] at "
           "delta = %.10g (%s; upper end certified)\n",
           r->exact.bound.lower, r->exact.bound.upper, r->exact_delta,
           r->exact_model);
  else
    printf("exact PLD of the same protocol: not available (%s)\n",
           r->exact_model);
}

static void print_json(int th, const pld_mspafl_setting *s,
                       const pld_mspafl_report *r)
{
  pld_cli_json j, c, e;
  pld_cli_json_open(&j, stdout);
  pld_cli_json_string(&j, "command", "mspafl");
  pld_cli_json_string(&j, "theorem", pld_mspafl_theorem_name(th));
  pld_cli_json_object(&j, "closed_form", &c);
  pld_cli_json_number(&c, "epsilon", r->closed.epsilon);
  if (isnan(r->closed.delta))
    pld_cli_json_null(&c, "delta");
  else
    pld_cli_json_number(&c, "delta", r->closed.delta);
  pld_cli_json_bool(&c, "certified", r->closed.certified);
  pld_cli_json_string(&c, "kind", r->kind);
  if (!isnan(r->c0))
    pld_cli_json_number(&c, "c0", r->c0);
  pld_cli_json_close(&c);
  pld_cli_json_number(&j, "sigma", r->sigma);
  pld_cli_json_number(&j, "sensitivity", s->sensitivity);
  pld_cli_json_number(&j, "q", r->q);
  pld_cli_json_number(&j, "rate", r->rate);
  pld_cli_json_uint(&j, "rounds", r->rounds);
  pld_cli_json_object(&j, "exact_pld", &e);
  pld_cli_json_bool(&e, "available", r->exact_available);
  pld_cli_json_string(&e, "model", r->exact_model);
  if (r->exact_available) {
    pld_cli_json_number(&e, "delta", r->exact_delta);
    pld_cli_json_number(&e, "epsilon_lower", r->exact.bound.lower);
    pld_cli_json_number(&e, "epsilon_upper", r->exact.bound.upper);
    pld_cli_json_bool(&e, "certified", 1); /* the upper end */
    pld_cli_json_bool(&e, "met_accuracy", r->exact.met_accuracy);
  }
  pld_cli_json_close(&e);
  pld_cli_json_close(&j);
}

int pld_cli_mspafl(int argc, char **argv)
{
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      fputs(help_text, stdout);
      return EXIT_OK;
    }
  if (argc < 2) {
    pld_cli_error("mspafl: missing THEOREM (lemma1, thm1, thm2, cor1, thm3 "
                  "or thm4); see 'pldkit mspafl --help'");
    return EXIT_USAGE;
  }
  int th = pld_mspafl_theorem_parse(argv[1]);
  if (!th) {
    pld_cli_error("mspafl: unknown THEOREM '%s' (expected lemma1, thm1, "
                  "thm2, cor1, thm3 or thm4)", argv[1]);
    return EXIT_USAGE;
  }
  pld_mspafl_setting s;
  if (pld_mspafl_setting_default(&s))
    return EXIT_FAIL;
  static double plist[MAX_CLIENTS], qlist[MAX_CLIENTS];
  size_t np = 0, nq = 0;
  int json = 0, have_c0 = 0, rc = EXIT_OK;
  for (int i = 2; i < argc && rc == EXIT_OK; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--json")) {
      json = 1;
      continue;
    }
    if (a[0] == '-' && a[1] == '-')
      a += 2;
    const char *eq = strchr(a, '=');
    if (!eq || eq == a) {
      pld_cli_error("mspafl: unexpected argument '%s' (expected "
                    "--key=value or --json)", argv[i]);
      return EXIT_USAGE;
    }
    char key[32];
    size_t kl = (size_t)(eq - a);
    if (kl >= sizeof key) {
      pld_cli_error("mspafl: unknown key in '%s'", argv[i]);
      return EXIT_USAGE;
    }
    memcpy(key, a, kl);
    key[kl] = 0;
    const char *v = eq + 1;
    if (!strcmp(key, "eps_l"))
      rc = num(key, v, &s.eps_l);
    else if (!strcmp(key, "delta_l"))
      rc = num(key, v, &s.delta_l);
    else if (!strcmp(key, "s"))
      rc = num(key, v, &s.sensitivity);
    else if (!strcmp(key, "p"))
      rc = num(key, v, &s.p);
    else if (!strcmp(key, "q"))
      rc = num(key, v, &s.q);
    else if (!strcmp(key, "beta"))
      rc = num(key, v, &s.beta);
    else if (!strcmp(key, "delta_tilde"))
      rc = num(key, v, &s.delta_tilde);
    else if (!strcmp(key, "clip"))
      rc = num(key, v, &s.clip);
    else if (!strcmp(key, "batch"))
      rc = parse_uint(key, v, &s.batch);
    else if (!strcmp(key, "n"))
      rc = parse_uint(key, v, &s.n);
    else if (!strcmp(key, "N"))
      rc = parse_uint(key, v, &s.clients);
    else if (!strcmp(key, "T"))
      rc = parse_uint(key, v, &s.rounds);
    else if (!strcmp(key, "p-list"))
      rc = list(key, v, plist, &np);
    else if (!strcmp(key, "q-list"))
      rc = list(key, v, qlist, &nq);
    else if (!strcmp(key, "c0")) {
      have_c0 = 1;
      if (!strcmp(v, "appendix"))
        s.c0_appendix = 1;
      else
        rc = num(key, v, &s.c0);
    } else if (!strcmp(key, "sampling")) {
      if (!strcmp(v, "poisson"))
        s.sampling = PLD_MSPAFL_POISSON;
      else if (!strcmp(v, "wor"))
        s.sampling = PLD_MSPAFL_WOR;
      else if (!strcmp(v, "wr"))
        s.sampling = PLD_MSPAFL_WR;
      else
        rc = bad(key, v, "expected poisson, wor or wr");
    } else if (!strcmp(key, "round")) {
      if (!strcmp(v, "cor1"))
        s.thm4_round = 0;
      else if (!strcmp(v, "thm1"))
        s.thm4_round = 1;
      else
        rc = bad(key, v, "expected cor1 or thm1");
    } else if (!strcmp(key, "server-sees-checkin")) {
      if (!strcmp(v, "0") || !strcmp(v, "1"))
        s.server_sees_checkin = v[0] == '1';
      else
        rc = bad(key, v, "expected 0 or 1");
    } else {
      pld_cli_error("mspafl: unknown key '%s' (see 'pldkit mspafl --help')",
                    key);
      return EXIT_USAGE;
    }
  }
  if (rc != EXIT_OK)
    return rc;
  if (np != nq) {
    pld_cli_error("mspafl: --p-list has %zu entries, --q-list %zu: they "
                  "must match", np, nq);
    return EXIT_USAGE;
  }
  s.n_clients_list = np;
  s.p_list = np ? plist : NULL;
  s.q_list = nq ? qlist : NULL;
  if (th == PLD_MSPAFL_THM3 && !have_c0) {
    pld_cli_error("mspafl: thm3 needs --c0=C (the paper does not give it) "
                  "or --c0=appendix");
    return EXIT_USAGE;
  }
  pld_mspafl_report r;
  pld_cli_progress_begin();
  int st = pld_mspafl_analyze(th, &s, NULL, &r);
  pld_cli_progress_end();
  if (st == PLD_EINVAL) {
    const char *d = pld_error_detail();
    pld_cli_error("mspafl %s: %s", argv[1], d && *d ? d : pld_strerror(st));
    return EXIT_USAGE;
  }
  if (st) {
    pld_cli_error("mspafl %s: %s", argv[1], pld_strerror(st));
    return EXIT_FAIL;
  }
  if (json)
    print_json(th, &s, &r);
  else
    print_text(th, &s, &r);
  return EXIT_OK;
}
