/*
 * bench_escape.c - throughput of the HTML escaper against memcpy.
 *
 *   bench_escape [--quick] [--json FILE]
 *
 * Contenders, all timed in the same run and in alternating rounds:
 *   memcpy   the physical limit (copies the input, escapes nothing)
 *   table    a branch-free 256-entry-table escaper written here: every byte
 *            stores 8 bytes from the table and advances by the entity length.
 *            It costs the same at every density, which makes it the floor a
 *            real escaper must never drop below.
 *   scalar, sse2, avx2   markup_escape_using() with that implementation (those
 *            the CPU lacks are skipped)
 *
 * Method. Every contender's output is compared with the table escaper's
 * before anything is timed. Inputs come from pools of distinct random
 * buffers; each call takes the next buffer, so the same bytes are never
 * escaped twice in a row and a branch predictor cannot learn one buffer. A
 * repetition escapes a fixed number of bytes and is timed with
 * clock_gettime(CLOCK_MONOTONIC); the table reports the median repetition.
 * Output buffers are allocated once, outside the timed region. Throughput is
 * GB/s of input (1 GB = 1e9 bytes).
 *
 * The slot benchmark renders a baked template of many attribute and child
 * slots filled with 4..48-byte text values and reports nanoseconds per slot
 * (statics copied, UTF-8 validated and values escaped: the whole render).
 */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "markup/binding.h"

/* ------------------------------------------------------------------------ */
/* Settings                                                                   */
/* ------------------------------------------------------------------------ */

typedef struct settings {
    int reps;          /* timed repetitions per measurement (median taken) */
    size_t rep_bytes;  /* input bytes escaped per repetition               */
    size_t pool_bytes; /* distinct input bytes per pool (small sizes)      */
    int slot_renders;  /* template renders per slot repetition             */
} settings;

static const settings FULL = {9, (size_t)16 << 20, (size_t)512 << 10, 2000};
static const settings QUICK = {3, (size_t)2 << 20, (size_t)128 << 10, 300};

static const size_t SIZES[] = {64, 1024, 16384, (size_t)1 << 20};
enum { NSIZES = sizeof SIZES / sizeof SIZES[0] };
/* Each pool holds at least this many buffers, even for 1 MiB inputs. */
enum { MIN_POOL_BUFFERS = 4 };
/* Input size of the density sweep. */
#define SWEEP_SIZE 16384

static void die(const char *what) {
    fprintf(stderr, "bench_escape: %s\n", what);
    exit(1);
}

static void *xmalloc(size_t n) {
    void *p = malloc(n);
    if (!p) die("out of memory");
    return p;
}

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, compare_doubles);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The largest of v[0..n). */
static double largest(const double *v, int n) {
    double m = v[0];
    for (int i = 1; i < n; i++)
        if (v[i] > m) m = v[i];
    return m;
}

/* xorshift64*: fixed seed, so every run escapes the same inputs. */
static uint64_t rng_state = 0x9E3779B97F4A7C15u;

static uint64_t rng_next(void) {
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Du;
}

/* Uniform in [0, n). */
static size_t rng_below(size_t n) { return (size_t)((rng_next() >> 11) % n); }

/* ------------------------------------------------------------------------ */
/* Inputs                                                                     */
/* ------------------------------------------------------------------------ */

typedef enum input_kind { INPUT_CLEAN, INPUT_HEAVY, INPUT_PROSE, INPUT_DENSITY } input_kind;

static const char *const INPUT_NAMES[] = {"clean", "heavy", "prose"};

static const char SPECIALS[] = "&<>\"'";
/* Clean ASCII: letters, digits and the punctuation that needs no escaping. */
static const char CLEAN_CHARS[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                  "        .,;:-_()[]{}/=+*?!#%$@";

static void fill_density(char *p, size_t n, double density) {
    const size_t nclean = sizeof CLEAN_CHARS - 1;
    uint64_t threshold = (uint64_t)(density * 4294967296.0);
    for (size_t i = 0; i < n; i++) {
        if ((rng_next() >> 32) < threshold)
            p[i] = SPECIALS[rng_below(5)];
        else
            p[i] = CLEAN_CHARS[rng_below(nclean)];
    }
}

/* Prose in several scripts: about half the bytes belong to multi-byte
   characters, with an apostrophe or quote now and then, as in real text. */
static void fill_prose(char *p, size_t n) {
    static const char *const words[] = {
        "the",
        "tea",
        "caf\xc3\xa9",
        "na\xc3\xafve",
        "stra\xc3\x9f"
        "e",
        "\xc3\xbc"
        "ber",
        "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e",
        "\xe4\xb8\xad\xe6\x96\x87",
        "\xd1\x80\xd1\x83\xd1\x81\xd1\x81\xd0\xba\xd0\xb8\xd0\xb9",
        "\xce\xb5\xce\xbb\xce\xbb\xce\xb7\xce\xbd\xce\xb9\xce\xba\xce\xac",
        "\xf0\x9f\x8d\xb5",
        "\xe2\x82\xac"
        "5",
        "and",
        "with",
        "price",
        "market",
        "\xd8\xa7\xd9\x84\xd8\xb9\xd8\xb1\xd8\xa8\xd9\x8a\xd8\xa9",
        "it's",
        "\"quoted\"",
    };
    const size_t nwords = sizeof words / sizeof words[0];
    size_t i = 0;
    while (i < n) {
        const char *w = words[rng_below(nwords)];
        size_t len = strlen(w);
        /* Most words are plain; the two with quotes come up about 1 in 40. */
        if ((w[0] == '"' || strchr(w, '\'')) && rng_below(20) != 0) continue;
        for (size_t k = 0; k < len && i < n; k++) p[i++] = w[k];
        if (i < n) p[i++] = rng_below(12) ? ' ' : '.';
    }
}

/* Distinct input buffers of one size, used in rotation. */
typedef struct pool {
    char *data;
    size_t size;
    size_t count;
} pool;

static pool pool_make(input_kind kind, size_t size, double density, const settings *cfg) {
    pool pl;
    pl.size = size;
    pl.count = cfg->pool_bytes / size;
    if (pl.count < MIN_POOL_BUFFERS) pl.count = MIN_POOL_BUFFERS;
    pl.data = xmalloc(pl.size * pl.count);
    for (size_t b = 0; b < pl.count; b++) {
        char *p = pl.data + b * size;
        switch (kind) {
        case INPUT_CLEAN: fill_density(p, size, 0.0); break;
        case INPUT_HEAVY: fill_density(p, size, 1.0 / 8); break;
        case INPUT_PROSE: fill_prose(p, size); break;
        case INPUT_DENSITY: fill_density(p, size, density); break;
        }
    }
    return pl;
}

/* ------------------------------------------------------------------------ */
/* Contenders                                                                 */
/* ------------------------------------------------------------------------ */

/* The floor: one table load, one 8-byte store and one add per input byte,
   whatever the byte. */
typedef struct table_entry {
    char bytes[8];
    size_t len;
} table_entry;

static table_entry escape_table[256];

static void table_init(void) {
    for (int c = 0; c < 256; c++) {
        table_entry *e = &escape_table[c];
        const char *rep = NULL;
        switch (c) {
        case '&': rep = "&amp;"; break;
        case '<': rep = "&lt;"; break;
        case '>': rep = "&gt;"; break;
        case '"': rep = "&#34;"; break;
        case '\'': rep = "&#39;"; break;
        }
        memset(e->bytes, 0, sizeof e->bytes);
        if (rep) {
            e->len = strlen(rep);
            memcpy(e->bytes, rep, e->len);
        } else {
            e->bytes[0] = (char)c;
            e->len = 1;
        }
    }
}

/* Writes up to 7 bytes past the result: the output has slack for it. */
static size_t table_escape(char *dst, const unsigned char *src, size_t n) {
    char *d = dst;
    for (size_t i = 0; i < n; i++) {
        const table_entry *e = &escape_table[src[i]];
        memcpy(d, e->bytes, 8);
        d += e->len;
    }
    return (size_t)(d - dst);
}

typedef enum contender_kind { C_MEMCPY, C_TABLE, C_MARKUP } contender_kind;

typedef struct contender {
    const char *name;
    contender_kind kind;
    markup_escape_impl impl;
} contender;

static contender contenders[5];
static int ncontenders;

static void contenders_init(void) {
    contenders[ncontenders++] = (contender){"memcpy", C_MEMCPY, MARKUP_ESCAPE_AUTO};
    contenders[ncontenders++] = (contender){"table", C_TABLE, MARKUP_ESCAPE_AUTO};
    const markup_escape_impl impls[] = {MARKUP_ESCAPE_SCALAR, MARKUP_ESCAPE_SSE2,
                                        MARKUP_ESCAPE_AVX2};
    for (size_t i = 0; i < sizeof impls / sizeof impls[0]; i++)
        if (markup_escape_impl_available(impls[i]))
            contenders[ncontenders++] =
                (contender){markup_escape_impl_name(impls[i]), C_MARKUP, impls[i]};
}

/* Scratch output shared by all contenders: a markup_buf grown once to the
   worst case of the largest input, so no timed call allocates. */
static markup_buf out_buf;
static volatile size_t sink;

/* Escapes (or copies) one input; returns the output length. Not inlined so
   that every contender pays the same call. */
#if defined(__GNUC__) || defined(__clang__)
#  define NOINLINE __attribute__((noinline))
#else
#  define NOINLINE
#endif

NOINLINE static size_t run_one(const contender *c, const char *in, size_t n) {
    switch (c->kind) {
    case C_MEMCPY: memcpy(out_buf.data, in, n); return n;
    case C_TABLE: return table_escape(out_buf.data, (const unsigned char *)in, n);
    case C_MARKUP:
        markup_buf_clear(&out_buf);
        if (markup_escape_using(&out_buf, in, n, c->impl) != MARKUP_OK) die("escape failed");
        return out_buf.len;
    }
    return 0;
}

static void check_outputs(const pool *pl) {
    size_t cap = pl->size * MARKUP_ESCAPE_MAX_EXPANSION + 8;
    char *expected = xmalloc(cap);
    for (size_t b = 0; b < pl->count && b < 8; b++) {
        const char *in = pl->data + b * pl->size;
        size_t elen = table_escape(expected, (const unsigned char *)in, pl->size);
        for (int c = 0; c < ncontenders; c++) {
            if (contenders[c].kind == C_MEMCPY) continue;
            size_t len = run_one(&contenders[c], in, pl->size);
            if (len != elen || memcmp(out_buf.data, expected, len) != 0) {
                fprintf(stderr, "bench_escape: %s differs from the table escaper\n",
                        contenders[c].name);
                exit(1);
            }
        }
    }
    free(expected);
}

/* Median GB/s of every contender on one pool, in alternating rounds, and
   the best repetition's (into best, unless NULL). */
static void measure_pool(const pool *pl, const settings *cfg, double *gbps, double *best) {
    size_t calls = cfg->rep_bytes / pl->size;
    if (calls < 1) calls = 1;
    size_t next[5] = {0};
    double samples[5][32];
    check_outputs(pl);
    for (int rep = -1; rep < cfg->reps; rep++) { /* rep -1 warms up */
        for (int c = 0; c < ncontenders; c++) {
            const contender *ct = &contenders[c];
            size_t b = next[c], total = 0;
            double t0 = now_seconds();
            for (size_t k = 0; k < calls; k++) {
                total += run_one(ct, pl->data + b * pl->size, pl->size);
                if (++b == pl->count) b = 0;
            }
            double dt = now_seconds() - t0;
            sink += total;
            next[c] = b;
            if (rep >= 0) samples[c][rep] = (double)(calls * pl->size) / dt / 1e9;
        }
    }
    for (int c = 0; c < ncontenders; c++) {
        if (best) best[c] = largest(samples[c], cfg->reps);
        gbps[c] = median(samples[c], cfg->reps);
    }
}

/* ------------------------------------------------------------------------ */
/* Baked template slots                                                       */
/* ------------------------------------------------------------------------ */

enum { SLOT_ROWS = 32, SLOTS = 3 * SLOT_ROWS, VALUE_SETS = 64 };

/* A table body: each row has one attribute slot and two child slots. */
static markup_baked *bake_rows(void) {
    markup_baked_builder *b = NULL;
    if (markup_baked_builder_new(NULL, &b) != MARKUP_OK) die("builder");
    markup_status st = markup_baked_builder_add_static(b, "<tbody>", 7);
    for (int r = 0; r < SLOT_ROWS && st == MARKUP_OK; r++) {
        static const char open[] = "<tr class=\"row\"><td";
        static const char mid[] = "><a href=\"/item\">";
        static const char between[] = "</a></td><td class=\"price\">";
        static const char close[] = "</td></tr>";
        st = markup_baked_builder_add_static(b, open, sizeof open - 1);
        if (st == MARKUP_OK) st = markup_baked_builder_add_attr_slot(b, "title", 5, NULL);
        if (st == MARKUP_OK) st = markup_baked_builder_add_static(b, mid, sizeof mid - 1);
        if (st == MARKUP_OK) st = markup_baked_builder_add_child_slot(b);
        if (st == MARKUP_OK) st = markup_baked_builder_add_static(b, between, sizeof between - 1);
        if (st == MARKUP_OK) st = markup_baked_builder_add_child_slot(b);
        if (st == MARKUP_OK) st = markup_baked_builder_add_static(b, close, sizeof close - 1);
    }
    if (st == MARKUP_OK) st = markup_baked_builder_add_static(b, "</tbody>", 8);
    if (st != MARKUP_OK) die("building the template failed");
    markup_baked *tpl = NULL;
    if (markup_baked_builder_finish(b, &tpl, NULL) != MARKUP_OK)
        die("finishing the template failed");
    return tpl;
}

/* Median nanoseconds per slot over renders that rotate through VALUE_SETS
   distinct sets of 4..48-byte text values; the best repetition's goes to
   *best_ns. */
static double measure_slots(const markup_baked *tpl, double density, const settings *cfg,
                            double *bytes_per_slot, double *best_ns) {
    char *text = xmalloc((size_t)VALUE_SETS * SLOTS * 48);
    markup_value *values = xmalloc(sizeof *values * VALUE_SETS * SLOTS);
    size_t value_bytes = 0;
    for (size_t i = 0; i < (size_t)VALUE_SETS * SLOTS; i++) {
        size_t len = 4 + rng_below(45);
        fill_density(text + i * 48, len, density);
        values[i] = (markup_value){MARKUP_VALUE_TEXT, text + i * 48, len};
        value_bytes += len;
    }
    *bytes_per_slot = (double)value_bytes / (VALUE_SETS * SLOTS);

    markup_buf out;
    markup_buf_init(&out, NULL);
    double samples[32];
    size_t set = 0;
    for (int rep = -1; rep < cfg->reps; rep++) {
        double t0 = now_seconds();
        for (int k = 0; k < cfg->slot_renders; k++) {
            markup_buf_clear(&out);
            if (markup_baked_render(tpl, values + set * SLOTS, SLOTS, &out, NULL) != MARKUP_OK)
                die("render failed");
            sink += out.len;
            if (++set == VALUE_SETS) set = 0;
        }
        double dt = now_seconds() - t0;
        if (rep >= 0) samples[rep] = dt * 1e9 / ((double)cfg->slot_renders * SLOTS);
    }
    markup_buf_free(&out);
    free(values);
    free(text);
    *best_ns = samples[0];
    for (int i = 1; i < cfg->reps; i++)
        if (samples[i] < *best_ns) *best_ns = samples[i];
    return median(samples, cfg->reps);
}

/* ------------------------------------------------------------------------ */
/* Report                                                                     */
/* ------------------------------------------------------------------------ */

static void size_label(size_t n, char *buf, size_t cap) {
    if (n >= ((size_t)1 << 20))
        snprintf(buf, cap, "%zu MiB", n >> 20);
    else if (n >= 1024)
        snprintf(buf, cap, "%zu KiB", n >> 10);
    else
        snprintf(buf, cap, "%zu B", n);
}

static void cpu_model(char *buf, size_t cap) {
    snprintf(buf, cap, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[256];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) == 0) {
            char *colon = strchr(line, ':');
            if (colon) {
                colon += 2;
                colon[strcspn(colon, "\n")] = '\0';
                /* It goes into the JSON file as a string. */
                for (char *p = colon; *p; p++)
                    if (*p == '"' || *p == '\\' || (unsigned char)*p < 0x20) *p = ' ';
                snprintf(buf, cap, "%s", colon);
            }
            break;
        }
    }
    fclose(f);
}

/* The 1-minute load average (Linux), or -1: a busy machine makes every
   number here smaller, so the report says how busy it was. */
static double load_average(void) {
    double load = -1;
    FILE *f = fopen("/proc/loadavg", "r");
    if (!f) return load;
    if (fscanf(f, "%lf", &load) != 1) load = -1;
    fclose(f);
    return load;
}

static void print_target(const char *label, const char *value, const char *target) {
    printf("  %-42s %-30s %s\n", label, value, target);
}

static const double DENSITIES[] = {0, 1.0 / 64, 1.0 / 32, 1.0 / 16, 1.0 / 8, 1.0 / 4, 1.0 / 2, 1};
static const char *const DENSITY_NAMES[] = {"0", "1/64", "1/32", "1/16", "1/8", "1/4", "1/2", "1"};
enum { NDENSITIES = sizeof DENSITIES / sizeof DENSITIES[0] };

int main(int argc, char **argv) {
    const settings *cfg = &FULL;
    const char *json_path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0)
            cfg = &QUICK;
        else if (strcmp(argv[i], "--json") == 0 && i + 1 < argc)
            json_path = argv[++i];
        else {
            fprintf(stderr, "usage: %s [--quick] [--json FILE]\n", argv[0]);
            return 2;
        }
    }

    table_init();
    contenders_init();
    markup_buf_init(&out_buf, NULL);
    if (markup_buf_reserve(&out_buf, SIZES[NSIZES - 1] * MARKUP_ESCAPE_MAX_EXPANSION + 64) !=
        MARKUP_OK)
        die("out of memory");

    char cpu[128];
    cpu_model(cpu, sizeof cpu);
    double started = now_seconds();
    double load_before = load_average();
    printf("markup %s escaper benchmark (%s run): %s, best impl %s, load average %.2f\n",
           markup_version(), cfg == &QUICK ? "quick" : "full", cpu,
           markup_escape_impl_name(markup_escape_impl_best()), load_before);
    printf("GB/s of input, median of %d repetitions of %zu MiB; (x) = ratio to memcpy\n\n",
           cfg->reps, cfg->rep_bytes >> 20);

    /* Throughput by input and size. */
    static double gbps[3][NSIZES][5], best[3][NSIZES][5];
    printf("%-6s %-8s", "input", "size");
    for (int c = 0; c < ncontenders; c++) printf(" %15s", contenders[c].name);
    printf("\n");
    for (int kind = INPUT_CLEAN; kind <= INPUT_PROSE; kind++) {
        for (int s = 0; s < NSIZES; s++) {
            pool pl = pool_make((input_kind)kind, SIZES[s], 0, cfg);
            measure_pool(&pl, cfg, gbps[kind][s], best[kind][s]);
            free(pl.data);
            char label[32];
            size_label(SIZES[s], label, sizeof label);
            printf("%-6s %-8s", INPUT_NAMES[kind], label);
            for (int c = 0; c < ncontenders; c++)
                printf(" %7.2f (%4.2fx)", gbps[kind][s][c], gbps[kind][s][c] / gbps[kind][s][0]);
            printf("\n");
            fflush(stdout);
        }
    }

    /* Density sweep against the branch-free table. */
    static double sweep[NDENSITIES][5];
    printf("\nDensity sweep at %d B: GB/s; (x) = ratio to the branch-free table\n", SWEEP_SIZE);
    printf("%-8s", "special");
    for (int c = 0; c < ncontenders; c++) printf(" %15s", contenders[c].name);
    printf("\n");
    for (int d = 0; d < NDENSITIES; d++) {
        pool pl = pool_make(INPUT_DENSITY, SWEEP_SIZE, DENSITIES[d], cfg);
        measure_pool(&pl, cfg, sweep[d], NULL);
        free(pl.data);
        printf("%-8s", DENSITY_NAMES[d]);
        for (int c = 0; c < ncontenders; c++)
            printf(" %7.2f (%4.2fx)", sweep[d][c], sweep[d][c] / sweep[d][1]);
        printf("\n");
        fflush(stdout);
    }

    /* Baked template slots. */
    markup_baked *tpl = bake_rows();
    static const double SLOT_DENSITIES[] = {0, 1.0 / 8};
    static const char *const SLOT_NAMES[] = {"clean", "heavy"};
    double slot_ns[2], slot_bytes[2], slot_best[2];
    printf("\nBaked template, %d slots (%d attribute, %d child), 4..48-byte text values:\n", SLOTS,
           SLOT_ROWS, 2 * SLOT_ROWS);
    for (int i = 0; i < 2; i++) {
        slot_ns[i] = measure_slots(tpl, SLOT_DENSITIES[i], cfg, &slot_bytes[i], &slot_best[i]);
        printf("  %-6s values (mean %.1f B): %6.1f ns per slot\n", SLOT_NAMES[i], slot_bytes[i],
               slot_ns[i]);
    }
    markup_baked_free(tpl);

    /* The design targets. Absolute figures also get the best repetition:
       on a shared machine the median moves with the neighbours' load, the
       best repetition much less. Ratios are of medians taken side by side. */
    int top = ncontenders - 1; /* the best impl, listed last */
    int s16 = 2;               /* SIZES[2] is 16 KiB */
    char label[64], value[64];
    printf("\nTargets (median; best repetition in brackets):\n");
    snprintf(label, sizeof label, "clean 16 KiB, %s, to memcpy", contenders[top].name);
    snprintf(value, sizeof value, "%.2fx", gbps[INPUT_CLEAN][s16][top] / gbps[INPUT_CLEAN][s16][0]);
    print_target(label, value, "at least 0.8x");
    snprintf(label, sizeof label, "heavy 16 KiB, %s", contenders[top].name);
    snprintf(value, sizeof value, "%.2f [%.2f] GB/s", gbps[INPUT_HEAVY][s16][top],
             best[INPUT_HEAVY][s16][top]);
    print_target(label, value, "at least 3 GB/s");
    for (int c = 2; c < ncontenders; c++) {
        double lowest = sweep[0][c] / sweep[0][1];
        for (int d = 1; d < NDENSITIES; d++)
            if (sweep[d][c] / sweep[d][1] < lowest) lowest = sweep[d][c] / sweep[d][1];
        snprintf(label, sizeof label, "%s to the table, lowest over the sweep", contenders[c].name);
        snprintf(value, sizeof value, "%.2fx", lowest);
        print_target(label, value, "at least 1x");
    }
    snprintf(value, sizeof value, "%.1f / %.1f [%.1f / %.1f] ns", slot_ns[0], slot_ns[1],
             slot_best[0], slot_best[1]);
    print_target("per slot, clean / heavy values", value, "at most 25 ns");

    double elapsed = now_seconds() - started;
    double load_after = load_average();
    printf("\n(%.1f s; load average %.2f at the end)\n", elapsed, load_after);

    if (json_path) {
        FILE *f = fopen(json_path, "w");
        if (!f) die("cannot open the --json file");
        fprintf(f, "{\n  \"markup_version\": \"%s\",\n  \"cpu\": \"%s\",\n", markup_version(), cpu);
        fprintf(f, "  \"run\": \"%s\",\n  \"reps\": %d,\n  \"rep_bytes\": %zu,\n",
                cfg == &QUICK ? "quick" : "full", cfg->reps, cfg->rep_bytes);
        fprintf(f, "  \"best_impl\": \"%s\",\n  \"unit\": \"GB/s of input\",\n",
                markup_escape_impl_name(markup_escape_impl_best()));
        fprintf(f, "  \"throughput\": [\n");
        int first = 1;
        for (int kind = INPUT_CLEAN; kind <= INPUT_PROSE; kind++)
            for (int s = 0; s < NSIZES; s++)
                for (int c = 0; c < ncontenders; c++) {
                    fprintf(f,
                            "%s    {\"input\": \"%s\", \"size\": %zu, \"impl\": \"%s\", "
                            "\"gbps\": %.4f, \"best_gbps\": %.4f, \"ratio_memcpy\": %.4f}",
                            first ? "" : ",\n", INPUT_NAMES[kind], SIZES[s], contenders[c].name,
                            gbps[kind][s][c], best[kind][s][c],
                            gbps[kind][s][c] / gbps[kind][s][0]);
                    first = 0;
                }
        fprintf(f, "\n  ],\n  \"density_sweep\": {\"size\": %d, \"rows\": [\n", SWEEP_SIZE);
        first = 1;
        for (int d = 0; d < NDENSITIES; d++)
            for (int c = 0; c < ncontenders; c++) {
                fprintf(f,
                        "%s    {\"density\": %.6f, \"impl\": \"%s\", \"gbps\": %.4f, "
                        "\"ratio_table\": %.4f}",
                        first ? "" : ",\n", DENSITIES[d], contenders[c].name, sweep[d][c],
                        sweep[d][c] / sweep[d][1]);
                first = 0;
            }
        fprintf(f, "\n  ]},\n  \"baked_slots\": [\n");
        for (int i = 0; i < 2; i++)
            fprintf(f,
                    "    {\"values\": \"%s\", \"slots\": %d, \"mean_value_bytes\": %.2f, "
                    "\"ns_per_slot\": %.3f, \"best_ns_per_slot\": %.3f}%s\n",
                    SLOT_NAMES[i], SLOTS, slot_bytes[i], slot_ns[i], slot_best[i],
                    i == 0 ? "," : "");
        fprintf(f, "  ],\n  \"seconds\": %.2f,\n  \"load_average\": [%.2f, %.2f]\n}\n", elapsed,
                load_before, load_after);
        fclose(f);
    }
    markup_buf_free(&out_buf);
    return 0;
}
