/* escape_sse2.c: to be written */
