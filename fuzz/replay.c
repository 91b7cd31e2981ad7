/*
 * replay.c - runs a fuzz harness over corpus directories without libFuzzer.
 *
 *   replay_<harness> DIR...
 *
 * Each file in each DIR is one input to LLVMFuzzerTestOneInput; a harness
 * aborts on the first broken invariant. Linked with any compiler and run on
 * any CPU (ctest builds one per harness), so the harnesses' differential
 * checks also run where libFuzzer does not: gcc builds, and the cross
 * builds of `make cross-check` under qemu-user. A DIR that does not exist is
 * skipped with a note (the corpus of an earlier fuzz run may be absent).
 */
#define _POSIX_C_SOURCE 200809L /* opendir */

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Reads the whole file at `path`; NULL if it cannot. */
static uint8_t *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    uint8_t *data = NULL;
    size_t len = 0, cap = 0;
    int failed = 0;
    for (;;) {
        if (len == cap) {
            cap = cap ? 2 * cap : 4096;
            uint8_t *grown = realloc(data, cap);
            if (grown == NULL) {
                failed = 1;
                break;
            }
            data = grown;
        }
        size_t got = fread(data + len, 1, cap - len, f);
        len += got;
        if (got == 0) break;
    }
    if (ferror(f)) failed = 1;
    fclose(f);
    if (failed) {
        free(data);
        return NULL;
    }
    *size = len;
    return data;
}

int main(int argc, char **argv) {
    size_t inputs = 0;
    for (int a = 1; a < argc; a++) {
        DIR *dir = opendir(argv[a]);
        if (dir == NULL) {
            printf("replay: %s absent, skipped\n", argv[a]);
            continue;
        }
        struct dirent *entry;
        while ((entry = readdir(dir)) != NULL) {
            if (entry->d_name[0] == '.') continue;
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[a], entry->d_name);
            size_t size = 0;
            uint8_t *data = read_file(path, &size);
            if (data == NULL) {
                fprintf(stderr, "replay: cannot read %s\n", path);
                closedir(dir);
                return 1;
            }
            LLVMFuzzerTestOneInput(data, size);
            free(data);
            inputs++;
        }
        closedir(dir);
    }
    printf("replay: %zu inputs, every invariant held\n", inputs);
    return 0;
}
