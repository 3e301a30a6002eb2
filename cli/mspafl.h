/* pldkit CLI: `pldkit mspafl` -- MS-PAFL's closed forms with their
 * certified flags and the PLD of the same protocol (docs/papers/ms-pafl.md).
 * main.c's dispatch() calls it with argv[0] = "mspafl". */
#ifndef PLDKIT_CLI_MSPAFL_H
#define PLDKIT_CLI_MSPAFL_H

/** Returns the exit status: 0 answer printed, 1 internal error, 2 usage. */
int pld_cli_mspafl(int argc, char **argv);

#endif
