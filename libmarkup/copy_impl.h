/*
 * copy_impl.h - private: memcpy for the short pieces output is made of.
 */
#ifndef MARKUP_COPY_IMPL_H
#define MARKUP_COPY_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* memcpy for the short pieces output is made of (static segments between
   slots, slot values, tag and attribute names): inline, with overlapping
   moves instead of a call and a byte loop. */
static inline void copy_short(char *d, const char *s, size_t n) {
    if (n >= 16) {
        if (n > 32) {
            memcpy(d, s, n);
            return;
        }
        uint64_t a[2], b[2];
        memcpy(a, s, 16);
        memcpy(b, s + n - 16, 16);
        memcpy(d, a, 16);
        memcpy(d + n - 16, b, 16);
    } else if (n >= 8) {
        uint64_t a, b;
        memcpy(&a, s, 8);
        memcpy(&b, s + n - 8, 8);
        memcpy(d, &a, 8);
        memcpy(d + n - 8, &b, 8);
    } else if (n >= 4) {
        uint32_t a, b;
        memcpy(&a, s, 4);
        memcpy(&b, s + n - 4, 4);
        memcpy(d, &a, 4);
        memcpy(d + n - 4, &b, 4);
    } else if (n > 0) {
        d[0] = s[0];
        d[n / 2] = s[n / 2];
        d[n - 1] = s[n - 1];
    }
}

#endif /* MARKUP_COPY_IMPL_H */
