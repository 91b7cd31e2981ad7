/* escape_avx2.c: to be written */
