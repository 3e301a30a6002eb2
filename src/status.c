/* pldkit: status strings and version. */
#include <pldkit/status.h>
#include <pldkit/version.h>

#include <stdarg.h>
#include <stdio.h>

#include "detail.h"

/* One buffer per thread (C11 _Thread_local): concurrent callers never see
 * each other's details, and no lock is needed.  256 bytes hold a parameter
 * name, a value printed with %g and a range or cap. */
#define PLD_DETAIL_SIZE 1024
static _Thread_local char pld_detail_buf[PLD_DETAIL_SIZE];

static void detail_vset(const char *fmt, va_list ap)
{
  int n = vsnprintf(pld_detail_buf, sizeof pld_detail_buf, fmt, ap);
  if (n < 0)
    pld_detail_buf[0] = '\0';
}

int pld_fail(int status, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  detail_vset(fmt, ap);
  va_end(ap);
  return status;
}

int pld_fail_if_silent(int status, const char *fmt, ...)
{
  if (pld_detail_buf[0])
    return status;
  va_list ap;
  va_start(ap, fmt);
  detail_vset(fmt, ap);
  va_end(ap);
  return status;
}

void pld_detail_clear(void) { pld_detail_buf[0] = '\0'; }

const char *pld_error_detail(void) { return pld_detail_buf; }

static _Thread_local pld_stage_progress_fn pld_progress_fn_tl;
static _Thread_local void *pld_progress_ctx_tl;

void pld_set_progress(pld_stage_progress_fn fn, void *ctx)
{
  pld_progress_fn_tl = fn;
  pld_progress_ctx_tl = ctx;
}

void pld_progress(double fraction, const char *stage)
{
  if (pld_progress_fn_tl)
    pld_progress_fn_tl(pld_progress_ctx_tl, fraction, stage);
}

const char *pld_strerror(int status)
{
  switch (status) {
  case PLD_SUCCESS: return "Success";
  case PLD_EINVAL: return "An argument is invalid (NaN, infinite, out of its domain, or NULL)";
  case PLD_ENOMEM: return "Out of memory";
  case PLD_ERANGE: return "A size would overflow or exceed the configured memory cap";
  case PLD_EINCOMPAT: return "The PLDs have different discretizations and cannot be composed";
  case PLD_EMAXITER: return "An iteration did not converge within its limit";
  case PLD_ETOL: return "The requested accuracy cannot be reached";
  case PLD_EEMPTY: return "The composition is empty (no events)";
  case PLD_EFFT: return "FFTW could not create a plan";
  case PLD_ECALLBACK: return "A hockey-stick callback reported an error";
  case PLD_EUNSUPPORTED: return "The operation is not supported for this input";
  case PLD_EFORMAT: return "The data is corrupt, truncated or not a pldkit PLD file";
  case PLD_EVERSION: return "The PLD file has a format version this build cannot read";
  case PLD_EIO: return "A file could not be opened, read or written";
  case PLD_EDURABLE: return "The file was written and is in place, but its durability is not confirmed (the directory sync failed)";
  default: return "Unknown status code";
  }
}

unsigned pld_version_number(void) { return PLD_VERSION_NUMBER; }
const char *pld_version_string(void) { return PLD_VERSION_STRING; }

const char *pld_status_text(int status)
{
  static _Thread_local char buf[1280];
  const char *d = pld_error_detail();
  if (status == PLD_SUCCESS || !d || !d[0])
    return pld_strerror(status);
  snprintf(buf, sizeof buf, "%s: %s", pld_strerror(status), d);
  return buf;
}
