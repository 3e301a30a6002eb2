/* Replays a fuzz corpus through a fuzz target without libFuzzer, so the
 * corpus runs as an ordinary test: replay DIR... (every regular file). */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
  size_t n = 0;
  for (int a = 1; a < argc; a++) {
    DIR *dir = opendir(argv[a]);
    if (!dir) {
      fprintf(stderr, "replay: cannot open %s\n", argv[a]);
      return 1;
    }
    struct dirent *e;
    while ((e = readdir(dir))) {
      char path[4096];
      snprintf(path, sizeof path, "%s/%s", argv[a], e->d_name);
      struct stat st;
      if (stat(path, &st) || !S_ISREG(st.st_mode))
        continue;
      FILE *f = fopen(path, "rb");
      if (!f)
        return 1;
      uint8_t *buf = malloc(st.st_size ? (size_t)st.st_size : 1);
      if (!buf || fread(buf, 1, (size_t)st.st_size, f) != (size_t)st.st_size)
        return 1;
      fclose(f);
      LLVMFuzzerTestOneInput(buf, (size_t)st.st_size);
      free(buf);
      n++;
    }
    closedir(dir);
  }
  printf("%zu passed, 0 failed\n", n);
  return n ? 0 : 1;
}
