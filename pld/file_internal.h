/* pldkit internals: safe file replacement (pld/file.c), shared with the
 * ledger update (pld/ledger.c). */
#ifndef PLDKIT_FILE_INTERNAL_H
#define PLDKIT_FILE_INTERNAL_H
#include <sys/stat.h>

#include <pldkit/ledger.h>

void pld_file_error_set(pld_file_error *err, int stage, int errnum,
                        const char *path);
int pld_file_resolve(const char *path, char **target, int *exists,
                     struct stat *sb, pld_file_error *err);
/* Remove the caller's temporary files of `target` whose writer process is
 * dead (called under the ledger's lock). */
void pld_file_clean_stale(const char *target);
int pld_file_replace(const char *target, int exists, const struct stat *old,
                     const unsigned char *buf, size_t len, pld_file_error *err);
#endif
