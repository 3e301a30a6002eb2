/* pldkit: differential-privacy accounting with privacy loss distributions.
 * Umbrella header: include this one. */
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
#include <pldkit/rdp_papers.h>
#include <pldkit/participation.h>
#include <pldkit/merge.h>
#include <pldkit/best.h>
#include <pldkit/allocation.h>
#include <pldkit/event.h>
#include <pldkit/ledger.h>
#include <pldkit/dpevent.h>
#endif
