/* pldkit CLI: `pldkit merge` -- the merge planner.
 *
 * Dispatch: main.c's dispatch() calls this for the `merge` subcommand BEFORE
 * its own command table and --help handling (merge parses its own options,
 * including --help).  The exact snippet, placed right after the
 * `--help`/`--version` block and before `struct cli c;`:
 *
 *     if (strcmp(sub, "merge") == 0)
 *       return pld_cli_merge(argc - 1, argv + 1);
 *
 * with `#include "merge.h"` at the top of main.c.  argv[0] is then "merge"
 * and the options start at argv[1].  Return values are the CLI's exit codes:
 * 0 success, 1 library failure, 2 bad input (one line on stderr, nothing on
 * stdout).  `merge` should also be added to main.c's command list / help.
 */
#ifndef PLDKIT_CLI_MERGE_H
#define PLDKIT_CLI_MERGE_H

/** `pldkit merge --config FILE [--epsilon E] [--delta D] [--json | --csv]
 *  [--resolution N] [--accuracy REL] [--help]`. */
int pld_cli_merge(int argc, char **argv);

#endif
