/* pldkit: the papers' RDP and closed-form bounds -- one header per paper
 * since this release: <pldkit/splitting.h> (model splitting, dropout,
 * Balanced Iteration Subsampling), <pldkit/bounded.h> (bounded-support
 * Gaussian) and <pldkit/mspafl.h> (MS-PAFL).  This header includes all
 * three and stays one release for existing code. */
#ifndef PLDKIT_RDP_PAPERS_H
#define PLDKIT_RDP_PAPERS_H

#include <pldkit/bounded.h>
#include <pldkit/mspafl.h>
#include <pldkit/splitting.h>

#endif
